//! The helper's engine: its state and every operation on it, used by its D-Bus
//! interfaces (Helper1 and the PowerProfiles API) and its watchers (UPower,
//! logind, CPU hotplug).
//!
//! Every operation that writes takes `apply_lock` first: one request at a
//! time, whoever asks. After a change, [`Engine::notify`] runs what each
//! interface subscribed ([`Engine::subscribe`]: their signals), so that the
//! window, the tray and the desktop panel all hear about it whoever caused
//! it. The engine knows no interface: they import it, never the reverse.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod lease;

use zbus::Connection;

use super::apply::{Applier, ApplyReport, Change, Rewrite};
use super::authorize::Authority;
use super::control::{policy_choice, Control, Hold};
use super::energy::{self, RateLimit};
use super::error::HelperError;
use super::state::{AutoPolicy, State, Store};
use super::validate::{self, quote};
use crate::core::custom::{CustomProfile, MAX_CUSTOM_PROFILES};
use crate::core::machine::Machine;
use crate::core::models::ModelTable;
use crate::core::plan::Plan;
use crate::core::profile::{BuiltinProfile, Resolver};
use crate::core::root::SysRoot;
use crate::dbus::{ApplySummary, EnergyReading, HelperState, OutsideChange};

struct EngineState {
    /// What is saved in `state.toml`: the chosen profile, the AC/battery policy.
    saved: State,
    /// Holds and the power source.
    control: Control,
    /// The profile the files hold, as far as the helper knows: set by a
    /// successful apply (or a check that the files hold it), cleared by raw
    /// tuning and by an automatic apply that was skipped or failed while the
    /// files hold something else. `ActiveProfile` reports this, never a wish.
    in_effect: Option<String>,
    /// The custom profiles (as saved in `profiles.toml`).
    profiles: Vec<CustomProfile>,
    /// What was applied last, per CPU (`GetState`).
    last: HelperState,
    /// Turbo as the helper's last plan set it (`None`: left alone).
    last_turbo: Option<bool>,
}

impl EngineState {
    /// Records what the files hold now, after an apply that was not the
    /// measurement's own: a measurement under way then runs that too (its
    /// client switches again for its next run).
    fn now_in_effect(&mut self, id: Option<String>) {
        if let Some(lease) = self.control.lease.as_mut() {
            lease.current.clone_from(&id);
        }
        self.in_effect = id;
    }
}

/// Other power managers, as last found.
#[derive(Default)]
struct ConflictCache {
    /// By process or enabled unit (rescanned, see `CONFLICT_RESCAN`).
    found: Vec<String>,
    /// By bus name, at start (kept).
    on_bus: Vec<String>,
    scanned: Option<Instant>,
}

/// A property read rescans /proc at most this often; every automatic apply
/// rescans first, whatever the age.
const CONFLICT_RESCAN: Duration = Duration::from_secs(5);

/// What changed, for the interfaces to announce.
#[derive(Debug, Default)]
pub struct Notice {
    /// Holds a manual switch cancelled: each holder hears `ProfileReleased`
    /// (a hold released by its holder, or whose holder left, is news to
    /// nobody but the properties).
    pub cancelled: Vec<Hold>,
    /// Values changed behind the helper's back that it set back.
    pub outside: Option<OutsideChange>,
}

/// What an interface runs after every change (emitting its signals), given
/// the bus connection and what changed.
pub type Subscriber = Box<dyn Fn(Connection, Arc<Notice>) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// Everything the helper's interfaces share.
pub struct Engine {
    /// The root written to.
    pub root: SysRoot,
    /// The model table.
    pub table: ModelTable,
    /// polkit.
    pub authority: Authority,
    /// The helper's bus connection (for signals).
    pub connection: Connection,
    applier: Applier,
    store: Store,
    machine: Mutex<Arc<Machine>>,
    /// The profile state, one lock for all of it.
    state: Mutex<EngineState>,
    saver: super::state::Saver,
    energy_limit: Mutex<RateLimit>,
    conflicts: Mutex<ConflictCache>,
    /// Serializes everything that writes: one request at a time.
    apply_lock: tokio::sync::Mutex<()>,
    /// What the interfaces run after a change, in the order they subscribed.
    subscribers: Mutex<Vec<Arc<Subscriber>>>,
    /// Tells the firmware watcher to watch again (a uevent announced a
    /// driver whose files it could not watch before they existed).
    pub rewatch_firmware: tokio::sync::Notify,
    /// The timer that ends a measurement that lasts too long (aborted when
    /// the measurement ends sooner).
    lease_timer: Mutex<Option<tokio::task::AbortHandle>>,
}

pub(crate) use super::lock;

impl Engine {
    /// Builds the engine.
    pub fn new(
        root: SysRoot,
        table: ModelTable,
        store: Store,
        state: State,
        profiles: Vec<CustomProfile>,
        connection: Connection,
    ) -> Self {
        let machine = Machine::read(&root);
        Engine {
            saver: super::state::Saver::start(store.clone()),
            applier: Applier::new(root.clone()),
            authority: Authority::new(connection.clone()),
            connection,
            root,
            table,
            store,
            machine: Mutex::new(Arc::new(machine)),
            state: Mutex::new(EngineState {
                saved: state,
                control: Control::default(),
                in_effect: None,
                profiles,
                last: HelperState::default(),
                last_turbo: None,
            }),
            energy_limit: Mutex::new(RateLimit::default()),
            conflicts: Mutex::new(ConflictCache::default()),
            apply_lock: tokio::sync::Mutex::new(()),
            subscribers: Mutex::new(Vec::new()),
            rewatch_firmware: tokio::sync::Notify::new(),
            lease_timer: Mutex::new(None),
        }
    }

    /// The profile the files hold ("" when none does, or after raw tuning).
    pub fn active_profile(&self) -> String {
        lock(&self.state).in_effect.clone().unwrap_or_default()
    }

    /// The profile that should be in effect: the run of a measurement under
    /// way, else a held one, else the chosen one.
    fn wanted_profile(&self) -> Option<String> {
        let inner = lock(&self.state);
        if let Some(lease) = &inner.control.lease {
            return lease.current.clone();
        }
        inner.control.effective(inner.saved.active_profile.as_deref())
    }

    /// The AC/battery policy.
    pub fn auto_policy(&self) -> AutoPolicy {
        lock(&self.state).saved.auto.clone()
    }

    /// The power source, once UPower said.
    pub fn on_battery(&self) -> Option<bool> {
        lock(&self.state).control.on_battery
    }

    /// The active holds.
    pub fn holds(&self) -> Vec<Hold> {
        lock(&self.state).control.holds.clone()
    }

    /// The unique bus name that holds `cookie`, if a hold has it.
    pub fn holder_of(&self, cookie: u32) -> Option<String> {
        lock(&self.state).control.find(cookie).map(|h| h.holder.clone())
    }

    /// The last applied values.
    pub fn last_state(&self) -> HelperState {
        let mut last = lock(&self.state).last.clone();
        last.active_profile = self.active_profile();
        last
    }

    /// The machine as last read.
    pub fn machine(&self) -> Arc<Machine> {
        lock(&self.machine).clone()
    }

    /// The custom profiles.
    pub fn profiles(&self) -> Vec<CustomProfile> {
        lock(&self.state).profiles.clone()
    }

    /// Other power managers (ids as in docs/dbus-api.md): on the bus at
    /// start, and by process or enabled unit as last scanned. A read rescans
    /// only when the last scan is older than `CONFLICT_RESCAN`, so that a
    /// flood of reads costs no more than one scan of /proc per interval.
    pub fn conflicts(&self) -> Vec<String> {
        let stale = lock(&self.conflicts).scanned.is_none_or(|t| t.elapsed() >= CONFLICT_RESCAN);
        if stale {
            self.rescan_conflicts();
        }
        let cache = lock(&self.conflicts);
        let mut all = cache.on_bus.clone();
        for id in &cache.found {
            if !all.contains(id) {
                all.push(id.clone());
            }
        }
        all
    }

    /// Scans processes and enabled units for other power managers.
    fn rescan_conflicts(&self) {
        let found: Vec<String> = crate::core::conflicts::detect(&self.root, &[std::process::id()])
            .into_iter()
            .map(|c| c.id.to_owned())
            .collect();
        let mut cache = lock(&self.conflicts);
        cache.found = found;
        cache.scanned = Some(Instant::now());
    }

    /// Records another power manager seen on the bus.
    pub fn add_conflict(&self, id: &str) {
        let mut cache = lock(&self.conflicts);
        if !cache.on_bus.iter().any(|c| c == id) {
            cache.on_bus.push(id.to_owned());
        }
    }

    /// Why performance is limited, in power-profiles-daemon's words, CPU
    /// reasons first, joined with ",": `high-operating-temperature` when
    /// intel_pstate's turbo went off and no profile of Gearshift turned it
    /// off (on a CPU that has turbo: `turbo_pct` not 0), `lap-detected` on a
    /// ThinkPad's lap. "" when nothing limits it.
    pub fn performance_degraded(&self) -> String {
        let machine = self.machine();
        let mut reasons = Vec::new();
        let turbo_off = matches!(machine.turbo, Some((false, crate::core::machine::TurboControl::IntelNoTurbo)));
        let has_turbo = machine.turbo_pct != Some(0);
        let ours = lock(&self.state).last_turbo == Some(false);
        if turbo_off && has_turbo && !ours {
            reasons.push("high-operating-temperature");
        }
        if machine.lap_mode == Some(true) {
            reasons.push("lap-detected");
        }
        reasons.join(",")
    }

    /// The firmware changed something the kernel notified (a platform
    /// profile driver that loaded late, a hotkey that switched the platform
    /// profile, the lap sensor, turbo): reads those again and follows. A
    /// hotkey is a person's choice, like a switch in the panel: the profile
    /// that asks the firmware for what it now shows becomes the active one
    /// (holds end, the choice is saved), with its CPU settings.
    pub async fn firmware_changed(&self) {
        let mut cancelled = Vec::new();
        let generation;
        let changed;
        {
            let _one = self.apply_lock.lock().await;
            // Change only these fields of the machine as it is now: a
            // re-read for hotplug may have replaced it meanwhile.
            let (machine, fresh) = {
                let mut slot = lock(&self.machine);
                let machine = slot.clone();
                let mut fresh = (*machine).clone();
                fresh.refresh_firmware(&self.root);
                *slot = Arc::new(fresh.clone());
                (machine, fresh)
            };
            if fresh.lap_mode != machine.lap_mode {
                let now = if fresh.lap_mode == Some(true) { "on" } else { "off" };
                log::info!("dytc_lapmode is now {now}");
            }
            if fresh.turbo != machine.turbo {
                log::info!(
                    "intel_pstate/no_turbo changed: turbo is {}",
                    if fresh.turbo.is_some_and(|(on, _)| on) { "on" } else { "off" }
                );
            }
            let handlers = |m: &Machine| {
                m.platform_profile
                    .as_ref()
                    .map(|p| p.handlers.iter().map(|h| (h.id, h.choices.clone())).collect::<Vec<_>>())
            };
            let new_driver = handlers(&fresh) != handlers(&machine);
            changed = fresh.platform_profile != machine.platform_profile
                || fresh.lap_mode != machine.lap_mode
                || fresh.turbo != machine.turbo
                || fresh.charging_supplies.len() != machine.charging_supplies.len();
            if new_driver {
                log::info!(
                    "the platform profile appeared or changed its choices ({}): applying the profile again",
                    fresh.platform_profile.as_ref().map_or_else(|| "none".to_owned(), |p| p.interfaces.join(", "))
                );
                self.applier.forget_files();
                self.apply_automatically("a platform profile driver loaded", Rewrite::IfDifferent);
                generation = None;
            } else if let Some(profile) = self.hotkey_choice(&machine, &fresh) {
                self.disturbed("the firmware switched the platform profile");
                log::info!(
                    "the firmware switched the platform profile to {} (a hotkey?): following with profile {}",
                    fresh.platform_profile.as_ref().and_then(|p| p.current.clone()).unwrap_or_default(),
                    profile.id()
                );
                match self.plan_for(profile.id()).and_then(|plan| self.apply_plan(&plan)) {
                    Ok(summary) => {
                        log::info!("{}", summary.summary);
                        let mut inner = lock(&self.state);
                        cancelled = inner.control.release_all();
                        inner.saved.active_profile = Some(profile.id().to_owned());
                        inner.now_in_effect(Some(profile.id().to_owned()));
                        generation = Some(self.saver.save(inner.saved.clone()));
                    }
                    Err(err) => {
                        log::warn!("cannot follow the firmware's platform profile: {err:?}");
                        generation = None;
                    }
                }
            } else {
                generation = None;
            }
        }
        if !changed {
            // The helper's own write, which the kernel notifies too.
            return;
        }
        self.notify_with(Notice { cancelled, outside: None }).await;
        if let Some(generation) = generation {
            if let Some(error) = self.saver.outcome(generation).await {
                log::warn!("the profile the firmware chose could not be saved: {error}");
            }
        }
    }

    /// The built-in profile a firmware hotkey asks for: `None` unless the
    /// platform profile shows something the profile in effect does not
    /// write (so the helper's own write, which the kernel notifies too,
    /// changes nothing).
    fn hotkey_choice(&self, before: &Machine, machine: &Machine) -> Option<BuiltinProfile> {
        let current = machine.platform_profile.as_ref()?.current.clone()?;
        if before.platform_profile.as_ref().and_then(|p| p.current.as_deref()) == Some(current.as_str()) {
            return None;
        }
        let wanted = crate::core::platform::Wanted::from_choice(&current)?;
        let in_effect = lock(&self.state).in_effect.clone();
        if let Some(id) = in_effect {
            if let Ok(plan) = self.plan_for(&id) {
                if plan.platform.iter().all(|p| p.choice == current) && !plan.platform.is_empty() {
                    return None;
                }
            }
        }
        Some(BuiltinProfile::for_platform(wanted))
    }

    /// Re-reads the machine (after hotplug or resume).
    /// A platform profile handler found by the re-read (a driver that
    /// loaded meanwhile) has its files watched from now on.
    pub fn reread_machine(&self) {
        let machine = Machine::read(&self.root);
        self.applier.forget_files();
        let handlers =
            |m: &Machine| m.platform_profile.as_ref().map(|p| p.handlers.iter().map(|h| h.id).collect::<Vec<_>>());
        let before = std::mem::replace(&mut *lock(&self.machine), Arc::new(machine));
        if handlers(&before) != handlers(&self.machine()) {
            self.rewatch_firmware.notify_one();
        }
    }

    /// Re-reads the governor of every policy, cheaply (one pread each of a
    /// kept file), so that a request is validated against what the files
    /// hold now, not what they held at start: after `SetGovernor
    /// performance`, or another program's change, EPP is refused before a
    /// write instead of failing with EBUSY.
    fn refresh_governors(&self) {
        let machine = self.machine();
        let mut changed: Vec<(u32, Option<String>)> = Vec::new();
        for (id, policy) in &machine.policies {
            let now = self.applier.governor_now(*id).ok();
            if now.is_some() && now != policy.governor {
                changed.push((*id, now));
            }
        }
        if changed.is_empty() {
            return;
        }
        let mut updated = (*machine).clone();
        for (id, governor) in changed {
            if let Some(policy) = updated.policies.get_mut(&id) {
                policy.governor = governor;
            }
        }
        *lock(&self.machine) = Arc::new(updated);
    }

    /// Waits until the state on disk is the latest (before exiting).
    pub fn flush(&self) {
        self.saver.flush();
    }

    /// A person (or the panel) switched: every hold ends, and the choice
    /// lasts until the next power-source change.
    ///
    /// # Errors
    /// A refusal or a failed write (after undoing this request's writes).
    pub async fn manual_switch(&self, id: &str) -> Result<ApplySummary, HelperError> {
        let released;
        let mut summary;
        let generation;
        {
            let _one = self.apply_lock.lock().await;
            self.notice_new_policies();
            let plan = self.plan_for(id)?;
            summary = self.apply_plan(&plan)?;
            let mut inner = lock(&self.state);
            released = inner.control.release_all();
            inner.saved.active_profile = Some(id.to_owned());
            inner.now_in_effect(Some(id.to_owned()));
            generation = self.saver.save(inner.saved.clone());
        }
        self.notify_with(Notice { cancelled: released, outside: None }).await;
        self.report_save(&mut summary, generation).await;
        Ok(summary)
    }

    /// Raw tuning: afterwards no profile describes the machine.
    ///
    /// # Errors
    /// A refusal or a failed write.
    pub async fn raw(
        &self,
        make_plan: impl FnOnce(&Machine, &Resolver<'_>) -> Result<Plan, HelperError>,
    ) -> Result<ApplySummary, HelperError> {
        let mut summary;
        let generation;
        {
            let _one = self.apply_lock.lock().await;
            self.notice_new_policies();
            self.refresh_governors();
            let machine = self.machine();
            let plan = make_plan(&machine, &Resolver::new(&machine, &self.table))?;
            summary = self.apply_plan(&plan)?;
            let mut inner = lock(&self.state);
            inner.saved.active_profile = None;
            inner.now_in_effect(None);
            generation = self.saver.save(inner.saved.clone());
        }
        self.notify().await;
        self.report_save(&mut summary, generation).await;
        Ok(summary)
    }

    /// Switches the driver's mode (`intel_pstate/status`,
    /// `amd_pstate/status`), then applies the profile that should be in
    /// effect again: the kernel creates every policy afresh, with its
    /// defaults. When that apply fails, the old mode is put back (and the
    /// profile applied there again), so that a refusal leaves the machine
    /// as it was.
    ///
    /// # Errors
    /// No mode file, a mode this driver does not take, or a failed write.
    pub async fn set_driver_mode(&self, mode: &str) -> Result<ApplySummary, HelperError> {
        let summary;
        {
            let _one = self.apply_lock.lock().await;
            self.notice_new_policies();
            let machine = self.machine();
            let Some(control) = machine.mode_control else {
                return Err(HelperError::Unsupported(
                    "the cpufreq driver here has no modes to switch (neither intel_pstate nor amd-pstate runs)".into(),
                ));
            };
            if !control.modes().contains(&mode) {
                return Err(HelperError::InvalidArgument(format!(
                    "{} is not a mode of {}: it takes {}",
                    quote(mode),
                    machine.driver.as_deref().unwrap_or("this driver"),
                    control.modes().join(", ")
                )));
            }
            let wanted = self.wanted_profile();
            if machine.mode.as_deref() == Some(mode) {
                let profile = wanted.unwrap_or_default();
                return Ok(ApplySummary {
                    unsaved: String::new(),
                    profile,
                    changed: 0,
                    unchanged: 1,
                    cpus: Vec::new(),
                    summary: format!("the driver already runs in {mode} mode"),
                });
            }
            let before = self.applier.write_global(control.file(), mode).map_err(|failed| {
                HelperError::WriteFailed(format!(
                    "writing {} failed: {}{}",
                    control.file(),
                    failed.message,
                    failed.errno.map(|e| format!(" ({e})")).unwrap_or_default()
                ))
            })?;
            log::info!("driver mode {before} -> {mode}");
            self.reread_machine();
            let applied = match &wanted {
                Some(id) => self.plan_for(id).and_then(|plan| self.apply_plan_with(&plan, Rewrite::Always)),
                None => Ok(ApplySummary {
                    unsaved: String::new(),
                    profile: String::new(),
                    changed: 1,
                    unchanged: 0,
                    cpus: Vec::new(),
                    summary: String::new(),
                }),
            };
            match applied {
                Ok(mut applied) => {
                    applied.summary = if applied.summary.is_empty() {
                        format!("driver mode {mode} (was {before}); no profile is chosen, nothing else written")
                    } else {
                        format!("driver mode {mode} (was {before}); {}", applied.summary)
                    };
                    lock(&self.state).now_in_effect(wanted);
                    summary = applied;
                }
                Err(err) => {
                    let back = self.applier.write_global(control.file(), &before);
                    self.reread_machine();
                    if let Some(id) = &wanted {
                        let _ = self.plan_for(id).and_then(|plan| self.apply_plan_with(&plan, Rewrite::Always));
                    }
                    let undo = match back {
                        Ok(_) => format!("the driver is back in {before} mode"),
                        Err(failed) => format!("and {before} mode could not be restored: {}", failed.message),
                    };
                    return Err(HelperError::WriteFailed(format!(
                        "in {mode} mode the profile could not be applied ({}); {undo}",
                        zbus::DBusError::description(&err).unwrap_or("no description")
                    )));
                }
            }
        }
        self.notify().await;
        Ok(summary)
    }

    /// Adds to `summary` that the state could not be saved, if so.
    async fn report_save(&self, summary: &mut ApplySummary, generation: u64) {
        if let Some(error) = self.saver.outcome(generation).await {
            summary.summary.push_str(&format!(
                "; but the choice could not be saved ({error}): the helper keeps retrying, and until it succeeds a restart brings back the previous profile"
            ));
            summary.unsaved = error;
        }
    }

    /// Turns the AC/battery policy on (and applies its choice for the
    /// current power source) or off. Everything is checked, and the choice
    /// applied, before any state changes. The summary says what was
    /// applied, and (`unsaved`) when the choice could not be saved.
    ///
    /// # Errors
    /// An unknown profile id, a profile this machine cannot apply, or a
    /// failed write.
    pub async fn set_auto_policy(&self, profiles: Option<(&str, &str)>) -> Result<ApplySummary, HelperError> {
        let builtins = profiles.is_some_and(|(ac, battery)| {
            BuiltinProfile::from_id(ac).is_some() && BuiltinProfile::from_id(battery).is_some()
        });
        if builtins && self.is_placeholder() {
            return Err(HelperError::Unsupported(validate::NOTHING_TO_SWITCH.into()));
        }
        let mut summary;
        let generation;
        {
            let _one = self.apply_lock.lock().await;
            self.notice_new_policies();
            let Some((on_ac, on_battery)) = profiles else {
                let saving = {
                    let mut inner = lock(&self.state);
                    let stays = inner.in_effect.clone().unwrap_or_default();
                    summary = ApplySummary {
                        summary: format!(
                            "automatic switching is off; {} stays",
                            if stays.is_empty() { "the tuning" } else { &stays }
                        ),
                        profile: stays,
                        ..ApplySummary::default()
                    };
                    inner.saved.auto.enabled.then(|| {
                        inner.saved.auto.enabled = false;
                        self.saver.save(inner.saved.clone())
                    })
                };
                drop(_one);
                self.notify().await;
                if let Some(generation) = saving {
                    self.report_save(&mut summary, generation).await;
                }
                return Ok(summary);
            };
            for (which, id) in [("on AC", on_ac), ("on battery", on_battery)] {
                if !self.is_known(id) {
                    return Err(HelperError::InvalidArgument(format!("unknown profile {} for {which}", quote(id))));
                }
            }
            let auto = AutoPolicy { enabled: true, on_ac: on_ac.into(), on_battery: on_battery.into() };
            let (choice, held) = {
                let inner = lock(&self.state);
                (policy_choice(&auto, inner.control.on_battery).to_owned(), !inner.control.holds.is_empty())
            };
            // Both profiles must work here, whichever applies now.
            self.plan_for(if choice == on_ac { on_battery } else { on_ac })?;
            let plan = self.plan_for(&choice)?;
            summary = if held {
                ApplySummary {
                    profile: choice.clone(),
                    summary: format!("automatic switching is on; {choice} is applied when the holds end"),
                    ..ApplySummary::default()
                }
            } else {
                self.apply_plan(&plan)?
            };
            let mut inner = lock(&self.state);
            inner.saved.auto = auto;
            inner.saved.active_profile = Some(choice.clone());
            if !held {
                inner.now_in_effect(Some(choice));
            }
            generation = self.saver.save(inner.saved.clone());
        }
        self.notify().await;
        self.report_save(&mut summary, generation).await;
        Ok(summary)
    }

    /// UPower says the power source is (now) `on_battery`.
    ///
    /// Firmware and other programs change EPP when the power source changes
    /// (a Meteor Lake laptop moved itself from 179 to 115 when AC came), so
    /// the profile in effect is applied again even when automatic switching
    /// is off, and what had drifted is reported (`ChangedOutside`).
    pub async fn power_source(&self, on_battery: bool) {
        let outside;
        {
            let _one = self.apply_lock.lock().await;
            if lock(&self.state).control.on_battery == Some(on_battery) {
                return;
            }
            let occasion = self.notice_new_policies().unwrap_or(if on_battery { "battery" } else { "ac" });
            let drift = self.drift();
            {
                let mut inner = lock(&self.state);
                inner.control.on_battery = Some(on_battery);
                if inner.saved.auto.enabled {
                    // The policy's choice replaces whatever was chosen by
                    // hand; a hold keeps winning until it ends.
                    // (While a measurement lasts, it is put back at its end.)
                    let choice = policy_choice(&inner.saved.auto, Some(on_battery)).to_owned();
                    inner.saved.active_profile = Some(choice);
                    self.saver.save(inner.saved.clone());
                }
            }
            let measuring = self.lease_holder().is_some();
            if measuring {
                log::info!("power source changed while measuring: the profile is switched when the measurement ends");
            }
            let applied = !measuring
                && self
                    .apply_automatically(if on_battery { "on battery" } else { "on AC power" }, Rewrite::IfDifferent);
            outside = self.record_outside(occasion, drift, applied);
        }
        self.notify_with(Notice { cancelled: Vec::new(), outside }).await;
    }

    /// The machine resumed from sleep: every value of the profile in effect
    /// is written again, also those the files already show (firmware can
    /// reset the hardware's EPP while sysfs keeps the text last written:
    /// seen on Skylake-X after S3), and what had visibly drifted is
    /// reported.
    pub async fn resumed(&self) {
        let (before, outside);
        {
            let _one = self.apply_lock.lock().await;
            before = self.active_profile();
            // The CPUs are read again anyway: a driver mode change only
            // names the occasion.
            let occasion = if self.applier.policies_replaced() { "driver-mode" } else { "resume" };
            self.reread_machine();
            let drift = self.drift();
            let applied = self.apply_automatically("after resume", Rewrite::Always);
            outside = self.record_outside(occasion, drift, applied);
        }
        if before != self.active_profile() || outside.is_some() {
            self.notify_with(Notice { cancelled: Vec::new(), outside }).await;
        }
    }

    /// When the cpufreq policies were created afresh since the helper last
    /// wrote (a driver mode change by anyone: the kernel sends no event for
    /// it), re-reads the machine and answers `Some("driver-mode")`.
    fn notice_new_policies(&self) -> Option<&'static str> {
        if !self.applier.policies_replaced() {
            return None;
        }
        log::info!("the cpufreq policies were created afresh (a driver mode change?): reading the machine again");
        self.reread_machine();
        Some("driver-mode")
    }

    /// What the files show differently from the profile in effect.
    fn drift(&self) -> Vec<Change> {
        let Some(id) = lock(&self.state).in_effect.clone() else { return Vec::new() };
        let Ok(plan) = self.plan_for(&id) else { return Vec::new() };
        let machine = self.machine();
        let resolver = Resolver::new(&machine, &self.table);
        self.applier.differences(&plan, &|reading| resolver.reading_value(reading))
    }

    /// Logs values changed behind the helper's back, once they were set
    /// back (`applied`), and makes them the news for `ChangedOutside`.
    /// Where the helper did not write (another power manager runs), the
    /// difference is that manager's doing, not news.
    fn record_outside(&self, occasion: &str, drift: Vec<Change>, applied: bool) -> Option<OutsideChange> {
        if drift.is_empty() || !applied {
            return None;
        }
        let words: Vec<String> = drift
            .iter()
            .map(|c| format!("{} was {}, set back to {}", c.target.describe(&c.cpus), c.from, c.to))
            .collect();
        log::warn!("changed outside Gearshift ({occasion}): {}", words.join("; "));
        self.disturbed("values were changed outside Gearshift");
        Some(OutsideChange {
            occasion: occasion.to_owned(),
            values: drift.into_iter().map(|c| (c.target.attr().to_owned(), c.cpus, c.from, c.to)).collect(),
        })
    }

    /// An application holds a profile (PowerProfiles API). The hold is kept
    /// only once what it asks for is applied.
    ///
    /// # Errors
    /// Too long a reason or application id, too many holds, or a failed write.
    pub async fn hold(
        &self,
        profile: BuiltinProfile,
        reason: &str,
        application_id: &str,
        holder: &str,
        origin: &'static str,
    ) -> Result<u32, HelperError> {
        let cookie;
        {
            let _one = self.apply_lock.lock().await;
            self.notice_new_policies();
            let (mut control, base) = {
                let inner = lock(&self.state);
                if let Some(why) = inner.control.refuse_hold(reason, application_id, holder) {
                    return Err(HelperError::InvalidArgument(why));
                }
                (inner.control.clone(), inner.saved.active_profile.clone())
            };
            cookie = control.hold(profile, reason, application_id, holder, origin);
            let effective = control.effective(base.as_deref()).unwrap_or_default();
            let plan = self.plan_for(&effective)?;
            self.apply_plan(&plan)?;
            let mut inner = lock(&self.state);
            inner.control = control;
            inner.now_in_effect(Some(effective));
        }
        self.notify().await;
        Ok(cookie)
    }

    /// Ends a hold by its cookie (the caller was checked by the interface).
    ///
    /// # Errors
    /// No hold has that cookie.
    pub async fn release(&self, cookie: u32) -> Result<(), HelperError> {
        {
            let _one = self.apply_lock.lock().await;
            if lock(&self.state).control.release(cookie).is_none() {
                return Err(HelperError::InvalidArgument(format!("no hold has the cookie {cookie}")));
            }
            self.apply_automatically("a hold ended", Rewrite::IfDifferent);
        }
        self.notify().await;
        Ok(())
    }

    /// A bus name left: its holds end, and its measurement (the latest
    /// choice is put back).
    pub async fn holder_gone(&self, name: &str) {
        let released = {
            let _one = self.apply_lock.lock().await;
            let released = lock(&self.state).control.release_holder(name);
            if !released.is_empty() {
                self.apply_automatically("a holder left the bus", Rewrite::IfDifferent);
            }
            !released.is_empty()
        };
        if released {
            self.notify().await;
        }
        self.lease_holder_gone(name).await;
    }

    /// Applies the active profile again (start-up, hotplug), writing only
    /// what differs. `reread`: the CPUs may have changed.
    pub async fn reapply(&self, why: &str, reread: bool) {
        let (before, after);
        {
            let _one = self.apply_lock.lock().await;
            before = self.active_profile();
            if reread {
                self.reread_machine();
            }
            self.apply_automatically(why, Rewrite::IfDifferent);
            after = self.active_profile();
        }
        // Only a change is news: a resume that found everything in place
        // sends no PropertiesChanged.
        if before != after {
            self.notify().await;
        }
    }

    /// Applies what should be active, unless another power manager runs:
    /// Gearshift never fights one (a person's explicit request still goes
    /// through). Whatever happens, `in_effect` then says what the files hold.
    /// True when the helper wrote the profile.
    fn apply_automatically(&self, why: &str, rewrite: Rewrite) -> bool {
        let Some(id) = self.wanted_profile() else {
            log::info!("{why}: no profile is chosen (the last change was raw tuning): nothing to apply");
            return false;
        };
        if self.is_placeholder() {
            // Nothing to drive (yet: a platform profile driver may load
            // later, and then the choice is applied): the panel shows
            // balanced, as power-profiles-daemon's placeholder does.
            lock(&self.state).now_in_effect(Some(BuiltinProfile::BalancePerformance.id().to_owned()));
            log::info!("{why}: nothing here takes a profile yet; {id} is applied once something does");
            self.trickle_charge(&self.machine(), BuiltinProfile::BalancePerformance.id());
            return false;
        }
        let plan = match self.plan_for(&id) {
            Ok(plan) => plan,
            Err(err) => {
                log::error!("{why}: cannot apply {id}: {err:?}");
                lock(&self.state).now_in_effect(None);
                return false;
            }
        };
        self.rescan_conflicts();
        let conflicts = self.conflicts();
        let applied = if conflicts.is_empty() {
            match self.apply_plan_with(&plan, rewrite) {
                Ok(summary) => {
                    log::info!("{why}: {}", summary.summary);
                    true
                }
                Err(err) => {
                    log::error!("{why}: cannot apply: {err:?}");
                    false
                }
            }
        } else {
            log::warn!("not re-applying ({why}): {} manages power here", conflicts.join(", "));
            false
        };
        let holds = applied || self.files_hold(&plan);
        lock(&self.state).now_in_effect(holds.then_some(id));
        applied
    }

    /// True when the files hold `plan` already (nothing is written).
    fn files_hold(&self, plan: &Plan) -> bool {
        let machine = self.machine();
        let resolver = Resolver::new(&machine, &self.table);
        self.applier.holds_plan(plan, &|reading| resolver.reading_value(reading))
    }

    fn is_known(&self, id: &str) -> bool {
        BuiltinProfile::from_id(id).is_some() || lock(&self.state).profiles.iter().any(|p| p.id == id)
    }

    fn plan_for(&self, id: &str) -> Result<Plan, HelperError> {
        let machine = self.machine();
        let state = lock(&self.state);
        match validate::profile_request(&Resolver::new(&machine, &self.table), &state.profiles, id) {
            Ok(plan) => Ok(plan),
            // Nothing to drive: the power panel still offers power-saver and
            // balanced, which write nothing (power-profiles-daemon's
            // placeholder driver). Gearshift's own API refuses them
            // (`Engine::is_placeholder`).
            Err(_) if machine.nothing_to_drive() && PLACEHOLDER_PROFILES.iter().any(|p| p.id() == id) => Ok(Plan {
                profile: id.to_owned(),
                cpus: Vec::new(),
                turbo: None,
                dynamic_boost: None,
                platform: Vec::new(),
            }),
            Err(refusal) => Err(refusal.into()),
        }
    }

    /// True when nothing on this machine takes a profile: no cpufreq, no
    /// energy bias, no platform profile.
    pub fn is_placeholder(&self) -> bool {
        self.machine().nothing_to_drive()
    }

    fn apply_plan(&self, plan: &Plan) -> Result<ApplySummary, HelperError> {
        self.apply_plan_with(plan, Rewrite::IfDifferent)
    }

    /// Applies a plan for anyone but a measurement's client: what it
    /// changes disturbs a measurement under way.
    fn apply_plan_with(&self, plan: &Plan, rewrite: Rewrite) -> Result<ApplySummary, HelperError> {
        let summary = self.write_plan(plan, rewrite)?;
        if summary.changed > 0 {
            self.disturbed("another client's request changed the settings");
        }
        Ok(summary)
    }

    /// Writes a plan, all or nothing, and notes what the files now hold.
    fn write_plan(&self, plan: &Plan, rewrite: Rewrite) -> Result<ApplySummary, HelperError> {
        let machine = self.machine();
        let resolver = Resolver::new(&machine, &self.table);
        let report = match self.applier.apply(plan, &|reading| resolver.reading_value(reading), rewrite) {
            Ok(report) => report,
            Err(failure) => {
                if !failure.not_restored.is_empty() {
                    // Some CPU holds what this plan wrote, others what they
                    // held before: no profile describes the files.
                    lock(&self.state).now_in_effect(None);
                }
                let error = HelperError::from(failure);
                log::warn!("{error:?}");
                return Err(error);
            }
        };
        self.remember(plan, &report);
        self.note_platform_written(plan);
        self.trickle_charge(&machine, &plan.profile);
        Ok(summarize(plan, &report))
    }

    /// Keeps the machine as the helper knows it in step with the platform
    /// profile it just wrote: the kernel notifies that write like any
    /// other, and only a value the helper did not write is the firmware's
    /// (a hotkey; see [`Engine::firmware_changed`]).
    fn note_platform_written(&self, plan: &Plan) {
        if plan.platform.is_empty() {
            return;
        }
        let mut slot = lock(&self.machine);
        let Some(known) = slot.platform_profile.as_ref() else { return };
        let mut platform = known.clone();
        for setting in &plan.platform {
            if let Some(handler) = platform.handlers.iter_mut().find(|h| h.id == setting.handler) {
                handler.current = Some(setting.choice.clone());
            }
        }
        let first = platform.handlers.first().and_then(|h| h.current.clone());
        platform.current =
            if platform.handlers.iter().all(|h| h.current == first) { first } else { Some("custom".to_owned()) };
        if slot.platform_profile.as_ref() != Some(&platform) {
            let mut machine = (**slot).clone();
            machine.platform_profile = Some(platform);
            *slot = Arc::new(machine);
        }
    }

    /// Counts a disturbance of the measurement under way, if one is.
    fn disturbed(&self, why: &str) {
        let mut inner = lock(&self.state);
        if let Some(lease) = inner.control.lease.as_ref() {
            log::info!("the measurement of {} is disturbed: {why}", lease.holder);
            inner.control.disturb();
        }
    }

    /// power-profiles-daemon's `trickle_charge` action: devices' batteries
    /// charge slowly (`Trickle`) in Power Saver and fast otherwise. Best
    /// effort, after the profile is applied: a failure is logged, not an
    /// error of the switch.
    fn trickle_charge(&self, machine: &Machine, profile: &str) {
        if profile.is_empty() {
            return; // raw tuning: no profile, nothing to follow
        }
        let kind = if profile == BuiltinProfile::Power.id() { "Trickle" } else { "Fast" };
        for supply in machine.charging_supplies.iter().filter(|s| s.follows_profile() && s.takes(kind)) {
            match self.applier.write_beneath_sys(&supply.charge_type_file(), kind) {
                Ok(true) => log::info!("{}: charge type {kind}", supply.name),
                Ok(false) => {}
                Err(err) => log::warn!("{}: cannot set the charge type to {kind}: {err}", supply.name),
            }
        }
    }

    /// The power panel's actions: `trickle_charge` where a supply has a
    /// charge type.
    pub fn actions(&self) -> Vec<String> {
        if self.machine().charging_supplies.is_empty() {
            Vec::new()
        } else {
            vec!["trickle_charge".to_owned()]
        }
    }

    fn remember(&self, plan: &Plan, report: &ApplyReport) {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let mut state = lock(&self.state);
        state.last_turbo = plan.turbo.map(|t| t.on);
        let last = &mut state.last;
        last.last_profile = plan.profile.clone();
        last.last_applied = now;
        for setting in &plan.cpus {
            let governor = setting.governor.clone().unwrap_or_default();
            let preference = setting.preference.map(|p| p.to_kernel_text()).unwrap_or_default();
            match last.cpus.iter_mut().find(|(cpu, _, _)| *cpu == setting.cpu) {
                Some(entry) => {
                    if !governor.is_empty() {
                        entry.1 = governor;
                    }
                    if !preference.is_empty() {
                        entry.2 = preference;
                    }
                }
                None => last.cpus.push((setting.cpu, governor, preference)),
            }
        }
        last.cpus.sort_by_key(|(cpu, _, _)| *cpu);
        let _ = report;
    }

    /// Saves (or replaces) a custom profile, validated against this machine.
    ///
    /// # Errors
    /// A malformed profile, one this machine cannot honour, or a full list.
    pub async fn save_custom(&self, profile: CustomProfile) -> Result<(), HelperError> {
        let _one = self.apply_lock.lock().await;
        let mut profiles = self.profiles();
        // Names and ids that could pass for another profile (core::names),
        // against the profiles saved now.
        let profile = crate::core::custom::checked_for_saving(profile, &profiles)
            .map_err(|e| HelperError::InvalidArgument(format!("{}: {}", e.field, e.message)))?;
        {
            let machine = self.machine();
            Resolver::new(&machine, &self.table)
                .custom(&profile)
                .map_err(|e| HelperError::Unsupported(format!("{}: {}", e.field, e.message)))?;
        }
        if profiles.len() >= MAX_CUSTOM_PROFILES && !profiles.iter().any(|p| p.id == profile.id) {
            return Err(HelperError::InvalidArgument(format!(
                "{MAX_CUSTOM_PROFILES} custom profiles are the most the helper keeps"
            )));
        }
        // A profile saved again keeps its place in the list.
        match profiles.iter_mut().find(|p| p.id == profile.id) {
            Some(old) => *old = profile,
            None => profiles.push(profile),
        }
        self.store
            .save_profiles(&profiles)
            .map_err(|e| HelperError::WriteFailed(format!("cannot save the profiles: {e}")))?;
        lock(&self.state).profiles = profiles;
        Ok(())
    }

    /// Deletes a custom profile. The active profile, and one the AC/battery
    /// policy switches to, cannot be deleted: nothing may point at a profile
    /// that is gone. A policy that is off but still names it falls back to
    /// the default for that power source.
    ///
    /// # Errors
    /// No such profile, one in use, or the file cannot be written.
    pub async fn delete_custom(&self, id: &str) -> Result<(), HelperError> {
        let _one = self.apply_lock.lock().await;
        let mut profiles = self.profiles();
        let before = profiles.len();
        profiles.retain(|p| p.id != id);
        if profiles.len() == before {
            return Err(HelperError::InvalidArgument(format!("there is no custom profile {}", quote(id))));
        }
        let named = Some(id.to_owned());
        let mut state = {
            let inner = lock(&self.state);
            if inner.control.lease.is_some() && inner.saved.active_profile == named {
                return Err(HelperError::InvalidArgument(format!(
                    "profile {} is what the measurement under way puts back when it ends: delete it afterwards",
                    quote(id)
                )));
            }
            if inner.saved.active_profile == named || inner.in_effect == named {
                return Err(HelperError::InvalidArgument(format!(
                    "profile {} is the active profile: switch to another one before deleting it",
                    quote(id)
                )));
            }
            let auto = &inner.saved.auto;
            if auto.enabled && (auto.on_ac == id || auto.on_battery == id) {
                return Err(HelperError::InvalidArgument(format!(
                    "profile {} is used by automatic switching on AC or battery: choose other profiles there first",
                    quote(id)
                )));
            }
            inner.saved.clone()
        };
        let defaults = AutoPolicy::default();
        if state.auto.on_ac == id {
            state.auto.on_ac = defaults.on_ac;
        }
        if state.auto.on_battery == id {
            state.auto.on_battery = defaults.on_battery;
        }
        self.store
            .save_profiles(&profiles)
            .map_err(|e| HelperError::WriteFailed(format!("cannot save the profiles: {e}")))?;
        lock(&self.state).profiles = profiles;
        let mut inner = lock(&self.state);
        if inner.saved != state {
            inner.saved = state;
            self.saver.save(inner.saved.clone());
        }
        Ok(())
    }

    /// Counts a reading of the energy counters by user `uid`: at most four
    /// a second.
    ///
    /// # Errors
    /// Too often.
    pub fn energy_allowed(&self, uid: u32) -> Result<(), HelperError> {
        if lock(&self.energy_limit).allow(uid, Instant::now()) {
            return Ok(());
        }
        Err(HelperError::RateLimited(format!(
            "energy can be read at most {} times a second by each user",
            energy::READS_PER_SECOND
        )))
    }

    /// Reads the energy counters (after [`Engine::energy_allowed`]).
    ///
    /// # Errors
    /// No counters.
    pub fn read_energy(&self) -> Result<Vec<EnergyReading>, HelperError> {
        let readings = energy::read(&self.root, &self.machine().rapl);
        if readings.is_empty() {
            return Err(HelperError::Unsupported("this machine shows no RAPL energy counters".into()));
        }
        Ok(readings)
    }

    /// Adds what an interface runs after every change.
    pub fn subscribe(&self, subscriber: Subscriber) {
        lock(&self.subscribers).push(Arc::new(subscriber));
    }

    /// Tells everyone who listens (Helper1's properties, the PowerProfiles
    /// properties on both names, `ProfileReleased` for cancelled holds), before
    /// the request that caused the change gets its reply.
    pub async fn notify(&self) {
        self.notify_with(Notice::default()).await;
    }

    /// [`Engine::notify`] with everything that changed.
    async fn notify_with(&self, notice: Notice) {
        let notice = Arc::new(notice);
        let subscribers = lock(&self.subscribers).clone();
        for subscriber in subscribers {
            subscriber(self.connection.clone(), notice.clone()).await;
        }
        super::give_back_memory();
    }
}

/// The profiles a machine with nothing to drive still offers the power
/// panel, as power-profiles-daemon's placeholder driver does.
pub const PLACEHOLDER_PROFILES: [BuiltinProfile; 2] = [BuiltinProfile::Power, BuiltinProfile::BalancePerformance];

fn summarize(plan: &Plan, report: &ApplyReport) -> ApplySummary {
    let what = if plan.profile.is_empty() { "tuning".to_owned() } else { format!("profile {}", plan.profile) };
    let values = plan.epp_values();
    let epp = match values.as_slice() {
        [] => String::new(),
        [one] => format!(", EPP {one}"),
        many => format!(", EPP {}", many.iter().map(u8::to_string).collect::<Vec<_>>().join("/")),
    };
    ApplySummary {
        unsaved: String::new(),
        profile: plan.profile.clone(),
        changed: u32::try_from(report.changes.len()).unwrap_or(u32::MAX),
        unchanged: u32::try_from(report.unchanged).unwrap_or(u32::MAX),
        cpus: report.cpus.clone(),
        summary: format!(
            "{what} applied to {} CPU(s){epp}: {} file(s) written, {} already right",
            report.cpus.len(),
            report.changes.len(),
            report.unchanged
        ),
    }
}

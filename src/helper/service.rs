//! The `io.github.gearshift.Helper1` interface and the state behind it.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::Type;
use zbus::{interface, Connection};

use super::apply::{Applier, ApplyReport};
use super::authorize::Authority;
use super::energy::{self, EnergyReading, RateLimit};
use super::error::HelperError;
use super::state::{State, Store};
use super::validate::{self, quote};
use crate::core::custom::{check_shape, parse_profiles, CustomProfile};
use crate::core::machine::Machine;
use crate::core::models::ModelTable;
use crate::core::plan::Plan;
use crate::core::profile::Resolver;
use crate::core::root::SysRoot;
use crate::dbus::{ACTION_READ_POWER, ACTION_SWITCH, ACTION_TUNE, HELPER_PATH};

/// What an apply did, as returned to the caller: `(suuaus)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ApplySummary {
    /// The profile applied (empty for raw tuning).
    pub profile: String,
    /// Files written.
    pub changed: u32,
    /// Files that already held the value.
    pub unchanged: u32,
    /// The CPUs covered.
    pub cpus: Vec<u32>,
    /// One English sentence, for logs.
    pub summary: String,
}

/// The last values applied, per CPU: `(cpu, governor, preference)`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct HelperState {
    /// The active profile, or "".
    pub active_profile: String,
    /// The profile of the last apply, or "" for raw tuning.
    pub last_profile: String,
    /// When the last apply happened (seconds since the epoch), or 0.
    pub last_applied: u64,
    /// Per CPU: number, governor, preference as written ("" when untouched).
    pub cpus: Vec<(u32, String, String)>,
}

/// Everything the helper's interfaces share.
pub struct Shared {
    /// The root written to.
    pub root: SysRoot,
    /// The model table.
    pub table: ModelTable,
    applier: Applier,
    store: Store,
    machine: Mutex<Arc<Machine>>,
    state: Mutex<State>,
    profiles: Mutex<Vec<CustomProfile>>,
    last: Mutex<HelperState>,
    saver: super::state::Saver,
    energy_limit: Mutex<RateLimit>,
    /// Serializes applies: one request at a time.
    apply_lock: tokio::sync::Mutex<()>,
    /// polkit.
    pub authority: Authority,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a lock must not take the helper down with it.
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// Builds the shared state.
    pub fn new(
        root: SysRoot,
        table: ModelTable,
        store: Store,
        state: State,
        profiles: Vec<CustomProfile>,
        connection: Connection,
    ) -> Self {
        let machine = Machine::read(&root);
        let active = state.active_profile.clone().unwrap_or_default();
        Shared {
            saver: super::state::Saver::start(store.clone()),
            applier: Applier::new(root.clone()),
            root,
            table,
            store,
            machine: Mutex::new(Arc::new(machine)),
            state: Mutex::new(state),
            profiles: Mutex::new(profiles),
            last: Mutex::new(HelperState { active_profile: active, ..HelperState::default() }),
            energy_limit: Mutex::new(RateLimit::default()),
            apply_lock: tokio::sync::Mutex::new(()),
            authority: Authority::new(connection),
        }
    }

    /// The active profile, or "".
    pub fn active_profile(&self) -> String {
        lock(&self.state).active_profile.clone().unwrap_or_default()
    }

    /// The machine as last read.
    pub fn machine(&self) -> Arc<Machine> {
        lock(&self.machine).clone()
    }

    /// Re-reads the machine (after hotplug or resume).
    pub fn reread_machine(&self) {
        let machine = Machine::read(&self.root);
        self.applier.forget_files();
        *lock(&self.machine) = Arc::new(machine);
    }

    /// Applies a profile and remembers it as active. The caller holds no lock.
    ///
    /// # Errors
    /// A refusal or a failed write (after undoing this request's writes).
    pub async fn switch_profile(&self, id: &str) -> Result<ApplySummary, HelperError> {
        let _one_at_a_time = self.apply_lock.lock().await;
        let plan = {
            let machine = lock(&self.machine);
            let profiles = lock(&self.profiles);
            validate::profile_request(&Resolver::new(&machine, &self.table), &profiles, id)?
        };
        let summary = self.apply_plan(&plan)?;
        let mut state = lock(&self.state).clone();
        state.active_profile = Some(id.to_owned());
        self.save_state(state);
        Ok(summary)
    }

    /// The AC/battery policy.
    pub fn auto_policy(&self) -> super::state::AutoPolicy {
        lock(&self.state).auto.clone()
    }

    /// Turns the AC/battery policy on with these profiles (checked first),
    /// or off when `profiles` is `None`.
    ///
    /// # Errors
    /// An unknown profile id.
    pub fn set_auto_policy(&self, profiles: Option<(&str, &str)>) -> Result<(), HelperError> {
        let mut state = lock(&self.state).clone();
        match profiles {
            Some((on_ac, on_battery)) => {
                let known = |id: &str| {
                    crate::core::profile::BuiltinProfile::from_id(id).is_some()
                        || lock(&self.profiles).iter().any(|p| p.id == id)
                };
                for (which, id) in [("on AC", on_ac), ("on battery", on_battery)] {
                    if !known(id) {
                        return Err(HelperError::InvalidArgument(format!("unknown profile {} for {which}", quote(id))));
                    }
                }
                state.auto = super::state::AutoPolicy {
                    enabled: true,
                    on_ac: on_ac.to_owned(),
                    on_battery: on_battery.to_owned(),
                };
            }
            None => state.auto.enabled = false,
        }
        self.save_state(state);
        Ok(())
    }

    /// Applies a raw tuning plan: the active profile no longer describes the machine.
    fn apply_raw(&self, plan: &Plan) -> Result<ApplySummary, HelperError> {
        let summary = self.apply_plan(plan)?;
        let mut state = lock(&self.state).clone();
        state.active_profile = None;
        self.save_state(state);
        Ok(summary)
    }

    /// Takes the new state now and saves it in the background: the
    /// caller's reply does not wait for the disk.
    fn save_state(&self, state: State) {
        lock(&self.last).active_profile = state.active_profile.clone().unwrap_or_default();
        self.saver.save(state.clone());
        *lock(&self.state) = state;
    }

    /// Waits until the state on disk is the latest (before exiting).
    pub fn flush(&self) {
        self.saver.flush();
    }

    fn apply_plan(&self, plan: &Plan) -> Result<ApplySummary, HelperError> {
        let machine = self.machine();
        let resolver = Resolver::new(&machine, &self.table);
        let report = self.applier.apply(plan, &|reading| resolver.reading_value(reading)).map_err(|failure| {
            let error = HelperError::from(failure);
            eprintln!("gearshift-helper: {error:?}");
            error
        })?;
        self.remember(plan, &report);
        Ok(summarize(plan, &report))
    }

    fn remember(&self, plan: &Plan, report: &ApplyReport) {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let mut last = lock(&self.last);
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
}

fn summarize(plan: &Plan, report: &ApplyReport) -> ApplySummary {
    let what = if plan.profile.is_empty() { "tuning".to_owned() } else { format!("profile {}", plan.profile) };
    let values = plan.epp_values();
    let epp = match values.as_slice() {
        [] => String::new(),
        [one] => format!(", EPP {one}"),
        many => format!(", EPP {}", many.iter().map(u8::to_string).collect::<Vec<_>>().join("/")),
    };
    ApplySummary {
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

/// The object at `/io/github/gearshift/Helper1`.
pub struct Helper1 {
    /// Shared state.
    pub shared: Arc<Shared>,
}

#[interface(name = "io.github.gearshift.Helper1")]
impl Helper1 {
    /// Switches to a built-in or saved custom profile.
    async fn set_profile(
        &self,
        id: &str,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<ApplySummary, HelperError> {
        self.shared.authority.check(&header, ACTION_SWITCH).await?;
        let before = self.shared.active_profile();
        let summary = self.shared.switch_profile(id).await?;
        self.announce(&emitter, &summary, before).await;
        Ok(summary)
    }

    /// Sets a raw EPP (0..255) on the listed CPUs (all online CPUs when empty).
    async fn set_epp(
        &self,
        cpus: Vec<u32>,
        value: u32,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<ApplySummary, HelperError> {
        self.shared.authority.check(&header, ACTION_TUNE).await?;
        let before = self.shared.active_profile();
        let _one_at_a_time = self.shared.apply_lock.lock().await;
        let plan = {
            let machine = lock(&self.shared.machine);
            validate::epp_request(&Resolver::new(&machine, &self.shared.table), &cpus, value)?
        };
        let summary = self.shared.apply_raw(&plan)?;
        drop(_one_at_a_time);
        self.announce(&emitter, &summary, before).await;
        Ok(summary)
    }

    /// Sets a governor on the listed CPUs (all online CPUs when empty).
    async fn set_governor(
        &self,
        cpus: Vec<u32>,
        governor: &str,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<ApplySummary, HelperError> {
        self.shared.authority.check(&header, ACTION_TUNE).await?;
        let before = self.shared.active_profile();
        let _one_at_a_time = self.shared.apply_lock.lock().await;
        let plan = {
            let machine = lock(&self.shared.machine);
            validate::governor_request(&machine, &cpus, governor)?
        };
        let summary = self.shared.apply_raw(&plan)?;
        drop(_one_at_a_time);
        self.announce(&emitter, &summary, before).await;
        Ok(summary)
    }

    /// Turns on automatic switching: `on_ac` on AC power, `on_battery` on battery.
    async fn set_auto_policy(
        &self,
        on_ac: &str,
        on_battery: &str,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<(), HelperError> {
        self.shared.authority.check(&header, ACTION_SWITCH).await?;
        self.shared.set_auto_policy(Some((on_ac, on_battery)))?;
        let _ = self.auto_policy_changed(&emitter).await;
        Ok(())
    }

    /// Turns automatic switching off (the active profile stays).
    async fn disable_auto_policy(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<(), HelperError> {
        self.shared.authority.check(&header, ACTION_SWITCH).await?;
        self.shared.set_auto_policy(None)?;
        let _ = self.auto_policy_changed(&emitter).await;
        Ok(())
    }

    /// The AC/battery policy: (enabled, profile on AC, profile on battery).
    #[zbus(property)]
    fn auto_policy(&self) -> (bool, String, String) {
        let auto = self.shared.auto_policy();
        (auto.enabled, auto.on_ac, auto.on_battery)
    }

    /// The last applied values and the active profile.
    fn get_state(&self) -> HelperState {
        lock(&self.shared.last).clone()
    }

    /// The saved custom profiles, as the TOML of `profiles.toml`.
    fn list_custom_profiles(&self) -> String {
        crate::core::custom::format_profiles(&lock(&self.shared.profiles))
    }

    /// Saves (or replaces) one custom profile given as a `[[profile]]` TOML table.
    async fn save_custom_profile(&self, toml: &str, #[zbus(header)] header: Header<'_>) -> Result<(), HelperError> {
        self.shared.authority.check(&header, ACTION_TUNE).await?;
        if toml.len() > 16 * 1024 {
            return Err(HelperError::InvalidArgument("the profile is longer than 16 KiB".into()));
        }
        let mut parsed =
            parse_profiles(toml).map_err(|e| HelperError::InvalidArgument(format!("{}: {}", e.field, e.message)))?;
        if parsed.len() != 1 {
            return Err(HelperError::InvalidArgument(format!("expected one [[profile]], got {}", parsed.len())));
        }
        let profile = parsed.remove(0);
        check_shape(&profile).map_err(|e| HelperError::InvalidArgument(format!("{}: {}", e.field, e.message)))?;
        {
            let machine = lock(&self.shared.machine);
            Resolver::new(&machine, &self.shared.table)
                .custom(&profile)
                .map_err(|e| HelperError::Unsupported(format!("{}: {}", e.field, e.message)))?;
        }
        let mut profiles = lock(&self.shared.profiles).clone();
        if profiles.len() >= 64 && !profiles.iter().any(|p| p.id == profile.id) {
            return Err(HelperError::InvalidArgument("64 custom profiles are the most the helper keeps".into()));
        }
        profiles.retain(|p| p.id != profile.id);
        profiles.push(profile);
        self.shared
            .store
            .save_profiles(&profiles)
            .map_err(|e| HelperError::WriteFailed(format!("cannot save the profiles: {e}")))?;
        *lock(&self.shared.profiles) = profiles;
        Ok(())
    }

    /// Deletes a custom profile.
    async fn delete_custom_profile(&self, id: &str, #[zbus(header)] header: Header<'_>) -> Result<(), HelperError> {
        self.shared.authority.check(&header, ACTION_TUNE).await?;
        let mut profiles = lock(&self.shared.profiles).clone();
        let before = profiles.len();
        profiles.retain(|p| p.id != id);
        if profiles.len() == before {
            return Err(HelperError::InvalidArgument(format!("there is no custom profile {}", quote(id))));
        }
        self.shared
            .store
            .save_profiles(&profiles)
            .map_err(|e| HelperError::WriteFailed(format!("cannot save the profiles: {e}")))?;
        *lock(&self.shared.profiles) = profiles;
        Ok(())
    }

    /// The RAPL package (and core) energy counters: `(t µs since boot, a(stt))`.
    async fn read_energy(&self, #[zbus(header)] header: Header<'_>) -> Result<(u64, Vec<EnergyReading>), HelperError> {
        self.shared.authority.check(&header, ACTION_READ_POWER).await?;
        let caller = header.sender().map(|s| s.to_string()).unwrap_or_default();
        if !lock(&self.shared.energy_limit).allow(&caller, Instant::now()) {
            return Err(HelperError::RateLimited(format!(
                "energy can be read at most {} times a second",
                energy::READS_PER_SECOND
            )));
        }
        let zones = self.shared.machine().rapl.clone();
        let readings = energy::read(&self.shared.root, &zones);
        if readings.is_empty() {
            return Err(HelperError::Unsupported("this machine shows no RAPL energy counters".into()));
        }
        Ok((monotonic_us(), readings))
    }

    /// The active profile ("" when the machine was tuned by hand).
    #[zbus(property)]
    fn active_profile(&self) -> String {
        self.shared.active_profile()
    }

    /// The helper's version.
    #[zbus(property)]
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_owned()
    }

    /// Sent after every apply.
    #[zbus(signal)]
    async fn applied(emitter: &SignalEmitter<'_>, summary: ApplySummary) -> zbus::Result<()>;
}

impl Helper1 {
    async fn announce(&self, emitter: &SignalEmitter<'_>, summary: &ApplySummary, before: String) {
        if let Err(err) = Helper1::applied(emitter, summary.clone()).await {
            eprintln!("gearshift-helper: cannot send Applied: {err}");
        }
        if before != self.shared.active_profile() {
            if let Err(err) = self.active_profile_changed(emitter).await {
                eprintln!("gearshift-helper: cannot send PropertiesChanged: {err}");
            }
        }
    }
}

/// Emits `ActiveProfile` PropertiesChanged from outside a method call.
///
/// # Errors
/// The interface is not served on `connection`.
pub async fn notify_active_profile(connection: &Connection) -> zbus::Result<()> {
    let iface = connection.object_server().interface::<_, Helper1>(HELPER_PATH).await?;
    let helper = iface.get().await;
    let result = helper.active_profile_changed(iface.signal_emitter()).await;
    drop(helper);
    result
}

fn monotonic_us() -> u64 {
    // SAFETY: clock_gettime fills the struct we own.
    unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
        u64::try_from(ts.tv_sec).unwrap_or(0) * 1_000_000 + u64::try_from(ts.tv_nsec).unwrap_or(0) / 1000
    }
}

//! The helper's engine: its state and every operation on it, used by its D-Bus
//! interfaces (Helper1 and the PowerProfiles API) and its watchers (UPower,
//! logind, CPU hotplug, the firmware's files).
//!
//! By concern:
//! - [`txn`], the one writer: every change to the files, the state directory
//!   and the profile state takes a transaction, which only taking the apply
//!   lock makes;
//! - [`switching`], plans, applying them, switching by hand, raw tuning, the
//!   driver's mode, applying by itself (start, hotplug, resume);
//! - [`holds`], the PowerProfiles API's holds;
//! - [`power`], the AC/battery policy and the power source;
//! - [`lease`], measurements;
//! - [`customs`], custom profiles;
//! - [`firmware`], what the firmware changes (platform profile, lap, turbo);
//! - [`conflicts`], other power managers;
//! - [`admin`], the administrator's configuration under /etc.
//!
//! After a change, [`Engine::notify`] runs what each interface subscribed
//! ([`Engine::subscribe`]: their signals), so that the window, the tray and
//! the desktop panel all hear about it whoever caused it. The engine knows
//! no interface: they import it, never the reverse.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

mod actions;
mod admin;
mod admit;
mod conflicts;
mod customs;
mod firmware;
mod holds;
mod lease;
mod power;
mod switching;
mod txn;

pub use actions::ActionState;
pub use admit::Permit;
pub use switching::PLACEHOLDER_PROFILES;

use zbus::Connection;

use super::apply::Applier;
use super::authorize::Authority;
use super::blocklist::Blocklist;
use super::control::{Control, Hold};
use super::energy::{self, RateLimit};
use super::error::HelperError;
use super::saver::{Outcomes, Saver};
use super::state::{AutoPolicy, State, Store};
use crate::core::custom::CustomProfile;
use crate::core::kernel_own::BootValues;
use crate::core::machine::Machine;
use crate::core::models::ModelTable;
use crate::core::panel::PanelProfile;
use crate::core::profile::{BuiltinProfile, Resolver};
use crate::core::root::SysRoot;
use crate::dbus::{ApplySummary, EnergyReading, HelperState, OutsideChange};
use crate::i18n::i18n_text;

pub(crate) use super::lock;

/// The profile state: read by everyone ([`txn::Shared::read`]), changed in a
/// transaction only.
struct EngineState {
    /// What is saved in `state.toml`: the chosen profile, the AC/battery policy.
    saved: State,
    /// Holds, the measurement lease and the power source.
    control: Control,
    /// The profile the files hold, as far as the helper knows: set by a
    /// successful apply (or a check that the files hold it), cleared by raw
    /// tuning and by an automatic apply that was skipped or failed while the
    /// files hold something else. `ActiveProfile` reports this, never a wish.
    in_effect: Option<String>,
    /// The custom profiles people saved (`profiles.toml`).
    profiles: Vec<CustomProfile>,
    /// The administrator's configuration (its declared profiles join the
    /// custom ones).
    config: crate::core::config::Config,
    /// What was applied last, per CPU (`GetState`).
    last: HelperState,
    /// Turbo as the helper's last plan set it (`None`: left alone).
    last_turbo: Option<bool>,
    /// How often values changed outside Gearshift were set back, per
    /// occasion, since the helper started (the metrics' counter).
    outside: std::collections::BTreeMap<String, u64>,
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

    /// Every custom profile: the administrator's declared ones, then the
    /// ones people saved (a declared id hides a saved one).
    fn all_profiles(&self) -> Vec<CustomProfile> {
        self.config.with_saved(&self.profiles)
    }

    /// The profile that should be in effect: the run of a measurement under
    /// way, else a held one, else the chosen one.
    fn wanted(&self) -> Option<String> {
        if let Some(lease) = &self.control.lease {
            return lease.current.clone();
        }
        self.control.effective(self.saved.active_profile.as_deref())
    }
}

/// What changed, for the interfaces to announce.
#[derive(Debug, Default)]
pub struct Notice {
    /// Holds that ended, released or cancelled by a manual switch: each
    /// holder hears `ProfileReleased`, as from power-profiles-daemon 0.30
    /// (a holder that left the bus hears nothing).
    pub ended: Vec<Hold>,
    /// Values changed behind the helper's back that it set back.
    pub outside: Option<OutsideChange>,
    /// The administrator's configuration was read again: the lock and the
    /// declared profiles may have changed.
    pub reloaded: bool,
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
    /// The requests in the helper now, per caller (`helper::request`).
    pub calls: super::request::Calls,
    /// The helper's bus connection (for signals).
    pub connection: Connection,
    /// The profile state and the machine, to read.
    shared: txn::Shared,
    /// The one writer, behind the apply lock ([`Engine::begin`]).
    writer: tokio::sync::Mutex<txn::Writer>,
    /// What the state's saves came to.
    saves: Outcomes,
    energy_limit: Mutex<RateLimit>,
    conflicts: conflicts::Cache,
    /// What the interfaces run after a change, in the order they subscribed.
    subscribers: Mutex<Vec<Arc<Subscriber>>>,
    /// Tells the firmware watcher to watch again (a uevent announced a
    /// driver whose files it could not watch before they existed).
    pub rewatch_firmware: tokio::sync::Notify,
    /// The timer that ends a measurement that lasts too long (aborted when
    /// the measurement ends sooner).
    lease_timer: Mutex<Option<tokio::task::AbortHandle>>,
    /// What power-profiles-daemon's options turned off: hidden from every
    /// reading of the machine.
    pub blocklist: Blocklist,
    /// The machine's values before the helper's first write of this boot
    /// (`core::kernel_own`): what handing the CPU back puts back.
    pub boot: Option<BootValues>,
}

impl Engine {
    /// Builds the engine (on the helper's async runtime: the saver runs there).
    pub fn new(
        root: SysRoot,
        table: ModelTable,
        store: Store,
        (state, profiles): (State, Vec<CustomProfile>),
        blocklist: Blocklist,
        connection: Connection,
    ) -> Self {
        let mut machine = Machine::read(&root);
        blocklist.hide(&mut machine);
        let boot = super::boot_values::recorded(&store, &root, &machine);
        let (saver, saves) = Saver::start(store.clone());
        let state = EngineState {
            saved: state,
            control: Control::default(),
            in_effect: None,
            profiles,
            config: crate::core::config::Config::default(),
            last: HelperState::default(),
            last_turbo: None,
            outside: std::collections::BTreeMap::new(),
        };
        Engine {
            writer: tokio::sync::Mutex::new(txn::Writer::new(Applier::new(root.clone()), store, saver)),
            saves,
            shared: txn::Shared::new(state, machine),
            authority: Authority::new(connection.clone()),
            calls: super::request::Calls::default(),
            connection,
            root,
            table,
            energy_limit: Mutex::new(RateLimit::default()),
            conflicts: conflicts::Cache::default(),
            subscribers: Mutex::new(Vec::new()),
            rewatch_firmware: tokio::sync::Notify::new(),
            lease_timer: Mutex::new(None),
            blocklist,
            boot,
        }
    }

    /// The profile the files hold ("" when none does, or after raw tuning).
    pub fn active_profile(&self) -> String {
        self.shared.read().in_effect.clone().unwrap_or_default()
    }

    /// How the desktop panel shows the profile `id` (`core::panel`): a
    /// built-in one as the rule says, a custom one by its values on this
    /// model; anything else (raw tuning, the kernel's own values) as
    /// balanced.
    pub fn panel_profile(&self, id: &str) -> PanelProfile {
        if let Some(builtin) = BuiltinProfile::from_id(id) {
            return PanelProfile::of_builtin(builtin);
        }
        let Some(custom) = self.profiles().into_iter().find(|p| p.id == id) else {
            return PanelProfile::Balanced;
        };
        let machine = self.machine();
        let resolver = Resolver::new(&machine, &self.table);
        custom.panel_profile(resolver.model.as_ref().map(|m| &m.epp))
    }

    /// Why the profile in effect is in effect (`core::active`).
    pub fn active_reason(&self) -> crate::core::active::ActiveReason {
        let state = self.shared.read();
        let auto = &state.saved.auto;
        let pick = auto.enabled.then(|| super::control::policy_choice(auto, state.control.on_battery));
        crate::core::active::ActiveReason::of(
            state.in_effect.is_some(),
            state.control.lease.is_some(),
            !state.control.holds.is_empty(),
            state.saved.active_profile.as_deref(),
            pick,
        )
    }

    /// The AC/battery policy.
    pub fn auto_policy(&self) -> AutoPolicy {
        self.shared.read().saved.auto.clone()
    }

    /// The power source, once UPower said.
    pub fn on_battery(&self) -> Option<bool> {
        self.shared.read().control.on_battery
    }

    /// The active holds.
    pub fn holds(&self) -> Vec<Hold> {
        self.shared.read().control.holds.clone()
    }

    /// The unique bus name that holds `cookie`, if a hold has it.
    pub fn holder_of(&self, cookie: u32) -> Option<String> {
        self.shared.read().control.find(cookie).map(|h| h.holder.clone())
    }

    /// The last applied values.
    pub fn last_state(&self) -> HelperState {
        let mut last = self.shared.read().last.clone();
        last.active_profile = self.active_profile();
        last
    }

    /// How often values changed outside Gearshift were set back, per
    /// occasion, since the helper started.
    pub fn changed_outside_counts(&self) -> std::collections::BTreeMap<String, u64> {
        self.shared.read().outside.clone()
    }

    /// The machine as last read.
    pub fn machine(&self) -> Arc<Machine> {
        self.shared.machine()
    }

    /// Every custom profile: the administrator's declared ones, then the
    /// ones people saved.
    pub fn profiles(&self) -> Vec<CustomProfile> {
        self.shared.read().all_profiles()
    }

    /// The custom profiles people saved (`profiles.toml`).
    fn own_profiles(&self) -> Vec<CustomProfile> {
        self.shared.read().profiles.clone()
    }

    /// True when nothing on this machine takes a profile: no cpufreq, no
    /// energy bias, no platform profile.
    pub fn is_placeholder(&self) -> bool {
        self.machine().nothing_to_drive()
    }

    /// Waits until the state on disk is the latest (before exiting).
    pub async fn flush(&self) {
        self.begin().await.flush().await;
    }

    /// Adds to `summary` that the state could not be saved, if so.
    async fn report_save(&self, summary: &mut ApplySummary, generation: u64) {
        if let Some(error) = self.saves.outcome(generation).await {
            summary.summary.push_str(&format!(
                "; but the choice could not be saved ({error}): the helper keeps retrying, and until it succeeds a restart brings back the previous profile"
            ));
            summary.unsaved = error;
        }
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
        Err(HelperError::RateLimited(
            i18n_text("energy can be read at most {count} times a second by each user")
                .arg("count", energy::READS_PER_SECOND)
                .into(),
        ))
    }

    /// Reads the energy counters (after [`Engine::energy_allowed`]).
    ///
    /// # Errors
    /// No counters.
    pub fn read_energy(&self) -> Result<Vec<EnergyReading>, HelperError> {
        let readings = energy::read(&self.root, &self.machine().rapl);
        if readings.is_empty() {
            return Err(HelperError::Unsupported(i18n_text("this machine shows no RAPL energy counters").into()));
        }
        Ok(readings)
    }

    /// Adds what an interface runs after every change.
    pub fn subscribe(&self, subscriber: Subscriber) {
        lock(&self.subscribers).push(Arc::new(subscriber));
    }

    /// Tells everyone who listens (Helper1's properties, the PowerProfiles
    /// properties on both names, `ProfileReleased` for holds that ended), before
    /// the request that caused the change gets its reply.
    pub async fn notify(&self) {
        self.notify_with(Notice::default()).await;
    }

    /// [`Engine::notify`] with everything that changed.
    pub(super) async fn notify_with(&self, notice: Notice) {
        let notice = Arc::new(notice);
        let subscribers = lock(&self.subscribers).clone();
        for subscriber in subscribers {
            subscriber(self.connection.clone(), notice.clone()).await;
        }
        super::memory::changed();
    }
}

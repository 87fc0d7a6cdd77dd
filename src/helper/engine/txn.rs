//! The one writer. Everything that changes the machine's files (through
//! the applier), the state directory or the profile state goes through a
//! [`Txn`], and only [`Engine::begin`] makes one, by taking the apply lock:
//! the compiler checks the rule "one request at a time, whoever asks",
//! which no longer leans on the runtime having one thread. Reading needs
//! no transaction ([`Shared::read`] gives no way to change anything).
//!
//! The state directory's files are written on the helper's disk thread
//! (`helper::off_runtime`): `state.toml` by the saver (`helper::saver`), the
//! custom profiles and the measurement lease here, awaited within the
//! transaction.

use std::ops::Deref;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{lock, Engine, EngineState};
use crate::core::custom::CustomProfile;
use crate::core::machine::Machine;
use crate::helper::apply::Applier;
use crate::helper::saver::Saver;
use crate::helper::state::{SavedLease, Store};

/// What only the writer touches: it lives inside the apply lock.
pub(super) struct Writer {
    applier: Applier,
    store: Store,
    saver: Saver,
}

impl Writer {
    /// The writer of `root`'s files and of `store`.
    pub(super) fn new(applier: Applier, store: Store, saver: Saver) -> Writer {
        Writer { applier, store, saver }
    }
}

/// The state every interface reads: the profile state and the machine as
/// the helper knows it. Changed only through a [`Txn`].
pub(super) struct Shared {
    state: Mutex<EngineState>,
    machine: Mutex<Arc<Machine>>,
}

/// The profile state, to read.
pub(super) struct Read<'a>(MutexGuard<'a, EngineState>);

impl Deref for Read<'_> {
    type Target = EngineState;

    fn deref(&self) -> &EngineState {
        &self.0
    }
}

impl Shared {
    pub(super) fn new(state: EngineState, machine: Machine) -> Shared {
        Shared { state: Mutex::new(state), machine: Mutex::new(Arc::new(machine)) }
    }

    /// The profile state now, to read.
    pub(super) fn read(&self) -> Read<'_> {
        Read(lock(&self.state))
    }

    /// The machine as last read.
    pub(super) fn machine(&self) -> Arc<Machine> {
        lock(&self.machine).clone()
    }
}

/// The apply lock, held: the only way to change the files, the state
/// directory and the profile state.
pub(super) struct Txn<'e> {
    writer: tokio::sync::MutexGuard<'e, Writer>,
    /// The engine it writes for (its reading side).
    pub engine: &'e Engine,
}

impl Engine {
    /// Waits for its turn and begins a transaction for something the helper
    /// does by itself: at start, after a change of the power source, a
    /// resume, a hotplug, the firmware's change, a holder that left, a
    /// timer, a reload of the configuration. Whatever a person asks begins
    /// with [`Engine::begin_for`] instead.
    pub(super) async fn begin(&self) -> Txn<'_> {
        Txn { writer: self.writer.lock().await, engine: self }
    }

    /// Waits for its turn and begins a transaction for a request that
    /// [`Engine::admit`] let in: the permit is the proof, so that nothing a
    /// person asks is written before the lock and polkit were asked.
    pub(super) async fn begin_for(&self, permit: &super::Permit) -> Txn<'_> {
        log::debug!("a transaction for {}", permit.sender());
        self.begin().await
    }
}

impl Txn<'_> {
    /// The profile state, to change.
    pub fn state(&mut self) -> MutexGuard<'_, EngineState> {
        lock(&self.engine.shared.state)
    }

    /// The files' writer.
    pub fn applier(&self) -> &Applier {
        &self.writer.applier
    }

    /// Replaces the machine as the helper knows it.
    pub fn set_machine(&mut self, machine: Arc<Machine>) {
        let mut machine = Arc::unwrap_or_clone(machine);
        self.engine.blocklist.hide(&mut machine);
        *lock(&self.engine.shared.machine) = Arc::new(machine);
    }

    /// Changes the machine as the helper knows it: `change` gets a copy
    /// of it as it is now (a re-read for hotplug may have replaced it since
    /// the caller looked).
    pub fn update_machine(&mut self, change: impl FnOnce(&mut Machine)) {
        let mut slot = lock(&self.engine.shared.machine);
        let mut machine = (**slot).clone();
        change(&mut machine);
        self.engine.blocklist.hide(&mut machine);
        *slot = Arc::new(machine);
    }

    /// Queues the saved state (the choice, the policy) to be written;
    /// returns its generation, for `Engine::report_save`.
    pub fn save_state(&mut self) -> u64 {
        let saved = self.state().saved.clone();
        self.writer.saver.save(saved)
    }

    /// Writes the custom profiles (temporary file, fsync, rename).
    ///
    /// # Errors
    /// The state directory cannot be written, or the profiles not formatted.
    pub async fn save_profiles(&mut self, profiles: &[CustomProfile]) -> std::io::Result<()> {
        let store = self.writer.store.clone();
        let profiles = profiles.to_vec();
        crate::helper::disk_io(move || store.save_profiles(&profiles)).await
    }

    /// Keeps (or, with `None`, forgets) the measurement lease; a failure is
    /// logged (the lease still works while the helper runs).
    pub async fn save_lease(&mut self, lease: Option<SavedLease>) {
        let store = self.writer.store.clone();
        let dir = store.dir().display().to_string();
        if let Err(err) = crate::helper::disk_io(move || store.save_lease(lease.as_ref())).await {
            log::warn!("cannot keep the measurement in {dir}: {err}");
        }
    }

    /// Waits until the state on disk is the latest (before exiting).
    pub async fn flush(&mut self) {
        self.writer.saver.flush().await;
    }
}

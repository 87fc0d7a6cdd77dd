//! Saving the state in the background, newest first: a burst of switches
//! costs one write of the last state. A caller may wait for the outcome of
//! its own save ([`Saver::outcome`]) without holding anything up.
//!
//! The write itself runs on the helper's disk thread
//! (`helper::off_runtime`), as all of its disk and /proc work does, so that
//! a slow disk never stalls the bus; that thread sleeps until there is
//! work, and nothing waits on a timer while nothing is pending.
//!
//! A failed save (a full or read-only disk) is retried, 1 s after the
//! failure and then at doubling intervals up to a minute, until one works or
//! a newer state replaces it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{watch, Notify};

use super::lock;
use super::state::{State, Store};

/// The result of the latest save attempt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The newest queued state that an attempt covered.
    pub generation: u64,
    /// Why that attempt failed; `None` when it worked.
    pub error: Option<String>,
}

#[derive(Default)]
struct Slot {
    pending: Option<(u64, State)>,
    queued: u64,
    /// Set when the helper exits: one last try, no more retries.
    closing: bool,
}

struct Shared {
    slot: Mutex<Slot>,
    /// A new state, or the exit.
    wake: Notify,
    /// False from a `save` until nothing is pending or being written.
    idle: watch::Sender<bool>,
}

/// The background saver of `state.toml`: the writer's side.
pub struct Saver {
    shared: Arc<Shared>,
}

/// What the saves came to, for anyone to wait on.
#[derive(Clone)]
pub struct Outcomes {
    outcomes: watch::Receiver<Outcome>,
}

const FIRST_RETRY: Duration = Duration::from_secs(1);
const LAST_RETRY: Duration = Duration::from_secs(60);

impl Saver {
    /// Starts saving for `store`, on the current async runtime.
    pub fn start(store: Store) -> (Saver, Outcomes) {
        let (idle, _) = watch::channel(true);
        let shared = Arc::new(Shared { slot: Mutex::new(Slot::default()), wake: Notify::new(), idle });
        let (report, outcomes) = watch::channel(Outcome::default());
        tokio::spawn(save_loop(shared.clone(), store, report));
        (Saver { shared }, Outcomes { outcomes })
    }

    /// Queues `state` to be saved (replacing any older queued state);
    /// returns its generation, for [`Saver::outcome`].
    pub fn save(&self, state: State) -> u64 {
        let generation = {
            let mut slot = lock(&self.shared.slot);
            slot.queued += 1;
            slot.pending = Some((slot.queued, state));
            slot.queued
        };
        self.shared.idle.send_replace(false);
        self.shared.wake.notify_one();
        generation
    }

    /// Returns once nothing is queued or being written, after one last try
    /// of a save that keeps failing.
    pub async fn flush(&self) {
        lock(&self.shared.slot).closing = true;
        self.shared.wake.notify_one();
        let mut idle = self.shared.idle.subscribe();
        let _ = idle.wait_for(|idle| *idle).await;
    }
}

impl Outcomes {
    /// Waits for the first attempt that covers `generation` (or a newer
    /// state) and returns why it failed, if it did.
    pub async fn outcome(&self, generation: u64) -> Option<String> {
        let mut outcomes = self.outcomes.clone();
        let result = match outcomes.wait_for(|o| o.generation >= generation).await {
            Ok(outcome) => outcome.error.clone(),
            Err(_) => Some("the state saver stopped".into()),
        };
        result
    }
}

async fn save_loop(shared: Arc<Shared>, store: Store, report: watch::Sender<Outcome>) {
    let mut retry = FIRST_RETRY;
    loop {
        let next = lock(&shared.slot).pending.take();
        let Some((generation, state)) = next else {
            shared.idle.send_replace(true);
            shared.wake.notified().await;
            continue;
        };
        let disk = store.clone();
        let kept = state.clone();
        let error = match super::disk_io(move || disk.save_state(&kept)).await {
            Ok(()) => {
                retry = FIRST_RETRY;
                None
            }
            Err(err) => {
                let message = format!("cannot save the state in {}: {err}", store.dir().display());
                log::error!("{message}; retrying");
                Some(message)
            }
        };
        let failed = error.is_some();
        let closing = {
            let mut slot = lock(&shared.slot);
            // Keep it for the next try unless something newer came.
            if failed && slot.pending.is_none() && !slot.closing {
                slot.pending = Some((generation, state));
            }
            slot.closing
        };
        super::journal::handled(format_args!("state saved: generation {generation}, failed {failed}"));
        report.send_modify(|o| *o = Outcome { generation: generation.max(o.generation), error });
        if failed && !closing {
            // Wait before the next try, unless a newer state or the exit comes.
            tokio::select! {
                () = tokio::time::sleep(retry) => {}
                () = shared.wake.notified() => {}
            }
            retry = (retry * 2).min(LAST_RETRY);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn the_saver_writes_the_latest_state() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        runtime().block_on(async {
            let (saver, _) = Saver::start(store.clone());
            for id in ["power", "performance", "balance_power"] {
                saver.save(State { active_profile: Some(id.into()), ..State::default() });
            }
            saver.flush().await;
        });
        assert_eq!(store.load().state.active_profile.as_deref(), Some("balance_power"));
    }

    #[test]
    fn a_failed_save_is_reported_and_retried() {
        let dir = tempfile::tempdir().unwrap();
        // The state directory's place is taken by a file: every save fails.
        let blocked = dir.path().join("state");
        std::fs::write(&blocked, "").unwrap();
        let store = Store::new(&blocked);
        runtime().block_on(async {
            let (saver, outcomes) = Saver::start(store.clone());
            let generation = saver.save(State { active_profile: Some("power".into()), ..State::default() });
            let error = outcomes.outcome(generation).await;
            assert!(error.as_deref().is_some_and(|e| e.contains("cannot save")), "{error:?}");
            // The disk comes back: the retry saves it without being asked again.
            std::fs::remove_file(&blocked).unwrap();
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while store.load().state.active_profile.as_deref() != Some("power") {
                assert!(std::time::Instant::now() < deadline, "the failed save was not retried");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let next = saver.save(State { active_profile: Some("performance".into()), ..State::default() });
            assert_eq!(outcomes.outcome(next).await, None);
        });
    }

    #[test]
    fn flushing_ends_the_retries_of_a_save_that_keeps_failing() {
        let dir = tempfile::tempdir().unwrap();
        let blocked = dir.path().join("state");
        std::fs::write(&blocked, "").unwrap();
        runtime().block_on(async {
            let (saver, outcomes) = Saver::start(Store::new(&blocked));
            let generation = saver.save(State { active_profile: Some("power".into()), ..State::default() });
            assert!(outcomes.outcome(generation).await.is_some());
            // One last try, then the exit does not wait for the minute-long retries.
            tokio::time::timeout(Duration::from_secs(5), saver.flush()).await.expect("flush returned");
        });
    }
}

//! Other power managers: on the bus at start, and by process or enabled
//! unit. Scanning /proc is blocking work: it runs on the runtime's blocking
//! pool, at most every [`RESCAN`] for property reads, and before every
//! automatic apply whatever the age.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{lock, Engine};

/// A property read rescans /proc at most this often.
const RESCAN: Duration = Duration::from_secs(5);

/// Other power managers, as last found.
#[derive(Default)]
pub(super) struct Cache(Mutex<Found>);

#[derive(Default)]
struct Found {
    /// By process or enabled unit (rescanned): programs' names
    /// (`core::conflicts::Program::name`).
    scanned: Vec<String>,
    /// By bus name, at start (kept): the owners' programs.
    on_bus: Vec<String>,
    at: Option<Instant>,
}

impl Found {
    fn all(&self) -> Vec<String> {
        let mut all = self.on_bus.clone();
        for id in &self.scanned {
            if !all.contains(id) {
                all.push(id.clone());
            }
        }
        all
    }
}

impl Engine {
    /// Other power managers by their programs' names (`tlp-pd`,
    /// `power-profiles-daemon`): on the bus at start, and by process or
    /// enabled unit as last scanned. A read rescans
    /// only when the last scan is older than [`RESCAN`], so that a flood of
    /// reads costs no more than one scan of /proc per interval.
    pub async fn conflicts(&self) -> Vec<String> {
        let stale = lock(&self.conflicts.0).at.is_none_or(|t| t.elapsed() >= RESCAN);
        if stale {
            return self.rescan_conflicts().await;
        }
        lock(&self.conflicts.0).all()
    }

    /// Scans processes and enabled units for other power managers, off the
    /// async runtime; answers every one known.
    pub async fn rescan_conflicts(&self) -> Vec<String> {
        let root = self.root.clone();
        let found =
            crate::helper::off_runtime(move || crate::core::conflicts::programs_found(&root, &[std::process::id()]))
                .await
                .unwrap_or_default();
        let mut cache = lock(&self.conflicts.0);
        cache.scanned = found;
        cache.at = Some(Instant::now());
        cache.all()
    }

    /// Other power managers by their ids (docs/dbus-api.md), each once.
    pub async fn conflict_ids(&self) -> Vec<String> {
        crate::core::conflicts::ids_of(&self.conflicts().await)
    }

    /// Records another power manager seen on the bus (its program's name).
    pub fn add_conflict(&self, program: &str) {
        let mut cache = lock(&self.conflicts.0);
        if !cache.on_bus.iter().any(|c| c == program) {
            cache.on_bus.push(program.to_owned());
        }
    }
}

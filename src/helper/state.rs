//! The helper's saved state: the active profile, the AC/battery policy and
//! the custom profiles, in its state directory.
//!
//! Files are replaced atomically (write to a temporary file, fsync, rename,
//! fsync the directory). A file that does not parse is moved aside as
//! `*.bad`, logged, and the helper starts from defaults.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::core::custom::{format_profiles, parse_profiles, CustomProfile, PROFILES_FILE};

/// The state file's name.
pub const STATE_FILE: &str = "state.toml";

/// Switching profiles with the power source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoPolicy {
    /// Whether automatic switching is on.
    pub enabled: bool,
    /// The profile on AC power.
    pub on_ac: String,
    /// The profile on battery.
    pub on_battery: String,
}

impl Default for AutoPolicy {
    fn default() -> Self {
        AutoPolicy { enabled: false, on_ac: "balance_performance".into(), on_battery: "balance_power".into() }
    }
}

/// Everything the helper remembers across restarts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// The profile chosen last (by a person, the panel or the policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_profile: Option<String>,
    /// The AC/battery policy.
    #[serde(default)]
    pub auto: AutoPolicy,
}

/// The state directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

/// What loading found.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The state (defaults if missing or corrupt).
    pub state: State,
    /// The custom profiles (none if missing or corrupt).
    pub profiles: Vec<CustomProfile>,
    /// Files moved aside, with the reason, for the log.
    pub set_aside: Vec<String>,
}

impl Store {
    /// A store in `dir` (created when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Store { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Loads the state and the custom profiles.
    pub fn load(&self) -> Loaded {
        let mut loaded = Loaded::default();
        if let Some(text) = self.read(STATE_FILE, &mut loaded.set_aside) {
            match toml::from_str::<State>(&text) {
                Ok(state) => loaded.state = state,
                Err(err) => self.set_aside(STATE_FILE, err.message(), &mut loaded.set_aside),
            }
        }
        if let Some(text) = self.read(PROFILES_FILE, &mut loaded.set_aside) {
            match parse_profiles(&text) {
                Ok(profiles) => loaded.profiles = profiles,
                Err(err) => self.set_aside(PROFILES_FILE, &err.to_string(), &mut loaded.set_aside),
            }
        }
        loaded
    }

    fn read(&self, name: &str, notes: &mut Vec<String>) -> Option<String> {
        let path = self.dir.join(name);
        match fs::read(&path) {
            Ok(bytes) if bytes.len() > 1 << 20 => {
                self.set_aside(name, "larger than 1 MiB", notes);
                None
            }
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Some(text),
                Err(_) => {
                    self.set_aside(name, "not UTF-8 text", notes);
                    None
                }
            },
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(err) => {
                notes.push(format!("{} cannot be read: {err}", path.display()));
                None
            }
        }
    }

    fn set_aside(&self, name: &str, why: &str, notes: &mut Vec<String>) {
        let path = self.dir.join(name);
        let bad = self.dir.join(format!("{name}.bad"));
        match fs::rename(&path, &bad) {
            Ok(()) => notes.push(format!(
                "{} is corrupt ({why}); kept as {} and started from defaults",
                path.display(),
                bad.display()
            )),
            Err(err) => {
                notes.push(format!("{} is corrupt ({why}) and could not be moved aside: {err}", path.display()))
            }
        }
    }

    /// Saves the state.
    ///
    /// # Errors
    /// The state directory cannot be written.
    pub fn save_state(&self, state: &State) -> io::Result<()> {
        let text = toml::to_string_pretty(state).map_err(io::Error::other)?;
        self.replace(STATE_FILE, &text)
    }

    /// Saves the custom profiles.
    ///
    /// # Errors
    /// The state directory cannot be written.
    pub fn save_profiles(&self, profiles: &[CustomProfile]) -> io::Result<()> {
        self.replace(PROFILES_FILE, &format_profiles(profiles))
    }

    /// Replaces a file atomically: temp file, fsync, rename, fsync directory.
    fn replace(&self, name: &str, text: &str) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(".{name}.tmp"));
        let mut file = OpenOptions::new().write(true).create(true).truncate(true).mode(0o644).open(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, self.dir.join(name))?;
        File::open(&self.dir)?.sync_all()
    }
}

/// Saves the state on its own thread, newest first: a burst of switches
/// costs one write of the last state, and nobody waits for fsync.
pub struct Saver {
    shared: Arc<(Mutex<SaverSlot>, Condvar)>,
}

#[derive(Default)]
struct SaverSlot {
    pending: Option<State>,
    writing: bool,
}

impl Saver {
    /// Starts the saving thread for `store`. It sleeps until there is
    /// something to save (no timer, no wake-ups while idle).
    pub fn start(store: Store) -> Saver {
        let shared = Arc::new((Mutex::new(SaverSlot::default()), Condvar::new()));
        let worker = shared.clone();
        let spawned = std::thread::Builder::new().name("state-saver".into()).spawn(move || {
            let (slot, wake) = &*worker;
            let mut guard = slot.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                match guard.pending.take() {
                    Some(state) => {
                        guard.writing = true;
                        drop(guard);
                        if let Err(err) = store.save_state(&state) {
                            eprintln!("gearshift-helper: cannot save the state in {}: {err}", store.dir().display());
                        }
                        guard = slot.lock().unwrap_or_else(PoisonError::into_inner);
                        guard.writing = false;
                        wake.notify_all();
                    }
                    None => guard = wake.wait(guard).unwrap_or_else(PoisonError::into_inner),
                }
            }
        });
        if let Err(err) = spawned {
            eprintln!("gearshift-helper: cannot start the state saver: {err}");
        }
        Saver { shared }
    }

    /// Queues `state` to be saved (replacing any older queued state).
    pub fn save(&self, state: State) {
        let (slot, wake) = &*self.shared;
        slot.lock().unwrap_or_else(PoisonError::into_inner).pending = Some(state);
        wake.notify_all();
    }

    /// Returns once nothing is queued or being written.
    pub fn flush(&self) {
        let (slot, wake) = &*self.shared;
        let mut guard = slot.lock().unwrap_or_else(PoisonError::into_inner);
        while guard.pending.is_some() || guard.writing {
            guard = wake.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("state"));
        let fresh = store.load();
        assert_eq!(fresh.state, State::default());
        assert!(fresh.set_aside.is_empty());
        let state = State {
            active_profile: Some("balance_power".into()),
            auto: AutoPolicy { enabled: true, on_ac: "performance".into(), on_battery: "power".into() },
        };
        store.save_state(&state).unwrap();
        assert_eq!(store.load().state, state);
        assert!(!dir.path().join("state/.state.toml.tmp").exists());
    }

    #[test]
    fn the_saver_writes_the_latest_state() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let saver = Saver::start(store.clone());
        for id in ["power", "performance", "balance_power"] {
            saver.save(State { active_profile: Some(id.into()), ..State::default() });
        }
        saver.flush();
        assert_eq!(store.load().state.active_profile.as_deref(), Some("balance_power"));
    }

    #[test]
    fn corrupt_files_are_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(STATE_FILE), "active_profile = [").unwrap();
        fs::write(dir.path().join(PROFILES_FILE), "[[profile]]\nid = \"Bad\"\nname = \"x\"\n").unwrap();
        let store = Store::new(dir.path());
        let loaded = store.load();
        assert_eq!(loaded.state, State::default());
        assert!(loaded.profiles.is_empty());
        assert_eq!(loaded.set_aside.len(), 2, "{:?}", loaded.set_aside);
        assert!(dir.path().join("state.toml.bad").exists());
        assert!(dir.path().join("profiles.toml.bad").exists());
        assert!(!dir.path().join(STATE_FILE).exists());
    }
}

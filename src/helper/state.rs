//! The helper's saved state: the active profile, the AC/battery policy and
//! the custom profiles, in its state directory.
//!
//! Files are replaced atomically (write to a temporary file, fsync, rename,
//! fsync the directory; `helper::saver` saves the state in the background).
//! A file that does not parse is moved aside as `*.bad-<unix time>` (an
//! earlier one is never overwritten), logged, and the helper starts from
//! defaults.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::core::custom::{format_profiles, parse_profiles, CustomProfile, PROFILES_FILE};

/// The state file's name.
pub const STATE_FILE: &str = "state.toml";
/// The measurement lease's file, while one lasts.
pub const LEASE_FILE: &str = "measurement.toml";

pub use crate::dbus::AutoPolicy;

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
    /// The PowerProfiles actions a person turned on or off
    /// (`SetActionEnabled`); one not listed has its default.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub actions: BTreeMap<String, bool>,
    /// `BatteryAware` as a person set it (`None`: on, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_aware: Option<bool>,
    /// The active profile is a default (the first start's, or the
    /// administrator's boot profile), not a choice: the administrator's
    /// configuration may replace it (docs/fleet.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_default: bool,
    /// A person set the AC/battery policy: the administrator's `[auto]`
    /// no longer replaces it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto_by_person: bool,
}

impl State {
    /// A choice of profile (`None`: raw tuning) by a person, the panel,
    /// the policy or a hotkey: it is no default any more.
    pub fn choose(&mut self, profile: Option<String>) {
        self.active_profile = profile;
        self.by_default = false;
    }
}

/// A measurement lease as kept across a restart of the helper, so that its
/// client can still end it and a client that is gone has it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedLease {
    /// The measuring client's unique bus name.
    pub holder: String,
    /// The lease's cookie.
    pub cookie: u32,
    /// When it began, in seconds since the epoch.
    pub began: u64,
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
    /// No state was saved yet (or it was corrupt): nobody has chosen.
    pub nothing_chosen: bool,
    /// The measurement that lasted when the helper last stopped, if one did.
    pub lease: Option<SavedLease>,
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
        let mut loaded = Loaded { nothing_chosen: true, ..Loaded::default() };
        if let Some(text) = self.read(STATE_FILE, &mut loaded.set_aside) {
            match toml::from_str::<State>(&text) {
                Ok(state) => {
                    loaded.state = state;
                    loaded.nothing_chosen = false;
                }
                Err(err) => self.set_aside(STATE_FILE, err.message(), &mut loaded.set_aside),
            }
        }
        if let Some(text) = self.read(LEASE_FILE, &mut loaded.set_aside) {
            match toml::from_str::<SavedLease>(&text) {
                Ok(lease) => loaded.lease = Some(lease),
                Err(err) => self.set_aside(LEASE_FILE, err.message(), &mut loaded.set_aside),
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
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        // Never overwrite an earlier copy: each may hold what a person wants back.
        let bad = (0..1000)
            .map(|n| match n {
                0 => self.dir.join(format!("{name}.bad-{stamp}")),
                n => self.dir.join(format!("{name}.bad-{stamp}.{n}")),
            })
            .find(|candidate| fs::symlink_metadata(candidate).is_err())
            .unwrap_or_else(|| self.dir.join(format!("{name}.bad-{stamp}.last")));
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
        let text = format_profiles(profiles).map_err(io::Error::other)?;
        self.replace(PROFILES_FILE, &text)
    }

    /// Keeps the measurement lease (`None`: removes it). Replaced by a
    /// rename, without fsync: the lease needs to outlive the helper, not
    /// the machine (after a reboot its client is gone anyway, and the
    /// choice it would put back is in the state file already).
    ///
    /// # Errors
    /// The state directory cannot be written.
    pub fn save_lease(&self, lease: Option<&SavedLease>) -> io::Result<()> {
        match lease {
            Some(lease) => {
                let text = toml::to_string_pretty(lease).map_err(io::Error::other)?;
                self.write_then_rename(LEASE_FILE, &text, false)
            }
            None => match fs::remove_file(self.dir.join(LEASE_FILE)) {
                Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
                _ => Ok(()),
            },
        }
    }

    /// Keeps the machine's values of this boot (`core::kernel_own`).
    ///
    /// # Errors
    /// The state directory cannot be written.
    pub fn save_boot_values(&self, values: &crate::core::kernel_own::BootValues) -> io::Result<()> {
        self.replace(crate::core::kernel_own::BOOT_VALUES_FILE, &values.to_text())
    }

    /// The kept values of a boot, where a record parses.
    pub fn boot_values(&self) -> Option<crate::core::kernel_own::BootValues> {
        let text = fs::read_to_string(self.dir.join(crate::core::kernel_own::BOOT_VALUES_FILE)).ok()?;
        crate::core::kernel_own::BootValues::parse(&text)
    }

    /// Replaces a file atomically: temp file, fsync, rename, fsync directory.
    fn replace(&self, name: &str, text: &str) -> io::Result<()> {
        self.write_then_rename(name, text, true)?;
        File::open(&self.dir)?.sync_all()
    }

    /// Writes `text` to a temporary file (fsynced when `durable`) and renames
    /// it over `name`. A temporary file of a write that failed is removed:
    /// nothing is left behind, and the old file stays as it was.
    fn write_then_rename(&self, name: &str, text: &str, durable: bool) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(".{name}.tmp"));
        let written = (|| {
            let mut file = OpenOptions::new().write(true).create(true).truncate(true).mode(0o644).open(&tmp)?;
            file.write_all(text.as_bytes())?;
            if durable {
                file.sync_all()?;
            }
            drop(file);
            fs::rename(&tmp, self.dir.join(name))
        })();
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
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
            actions: [("amdgpu_panel_power".to_owned(), true), ("trickle_charge".to_owned(), false)].into(),
            battery_aware: Some(false),
            by_default: true,
            auto_by_person: true,
        };
        store.save_state(&state).unwrap();
        assert_eq!(store.load().state, state);
        assert!(!dir.path().join("state/.state.toml.tmp").exists());
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
        assert_eq!(bad_copies(dir.path(), STATE_FILE).len(), 1);
        assert_eq!(bad_copies(dir.path(), PROFILES_FILE).len(), 1);
        assert!(!dir.path().join(STATE_FILE).exists());
        // A second corrupt file is kept beside the first, not over it.
        fs::write(dir.path().join(STATE_FILE), "second = [").unwrap();
        assert_eq!(store.load().set_aside.len(), 1);
        let copies = bad_copies(dir.path(), STATE_FILE);
        assert_eq!(copies.len(), 2, "{copies:?}");
        let texts: Vec<String> = copies.iter().map(|c| fs::read_to_string(dir.path().join(c)).unwrap()).collect();
        assert!(texts.contains(&"active_profile = [".to_owned()) && texts.contains(&"second = [".to_owned()));
    }

    fn bad_copies(dir: &Path, name: &str) -> Vec<String> {
        let prefix = format!("{name}.bad-");
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&prefix))
            .collect();
        names.sort();
        names
    }
}

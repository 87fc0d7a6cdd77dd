//! A person's settings, in GSettings (schema `io.github.gearshift.Gearshift`,
//! data/io.github.gearshift.Gearshift.gschema.xml): the sampling interval and
//! whether the first-run wizard was finished. Every window of this person
//! follows a change at once (change notification), whoever made it: another
//! window, `gsettings set`, or an administrator's defaults. Whether the tray
//! starts at login is not a setting but the XDG autostart entry
//! (`crate::autostart`), the desktops' own login items. docs/settings.md
//! has the keys, where the schema is found, and the import of the settings
//! file Gearshift 0.1 kept.

use std::cell::RefCell;
use std::fs;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use relm4::gtk::gio::{self, prelude::*};
use relm4::gtk::glib;
use serde::Deserialize;

use crate::autostart::config_home;

/// The schema's id (and the application's).
pub const SCHEMA_ID: &str = "io.github.gearshift.Gearshift";

/// The keys this program reads: an installed schema without one of them
/// (an older Gearshift's) is passed over for the built-in copy.
const KEYS: [&str; 4] = [INTERVAL, WIZARD_DONE, SNAPSHOT_WIZARD_SEEN, IMPORTED];
const INTERVAL: &str = "sampling-interval";
const WIZARD_DONE: &str = "wizard-done";
const SNAPSHOT_WIZARD_SEEN: &str = "snapshot-wizard-seen";
const IMPORTED: &str = "legacy-settings-imported";

/// The schema compiled at build time (build.rs), for runs from the source
/// tree and for a program copied without its data.
const BUILT_IN_SCHEMA: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/schemas/gschemas.compiled"));

/// A change to the settings that could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsError {
    /// The value is outside what the schema allows.
    OutOfRange { key: &'static str, value: String },
    /// The key is locked (an administrator's lockdown) or the settings
    /// backend refused.
    NotWritable(&'static str),
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use gearshift::i18n::i18n_f;
        match self {
            SettingsError::OutOfRange { key, value } => {
                f.write_str(&i18n_f("{} is outside the range the setting {} allows", &[value, key]))
            }
            SettingsError::NotWritable(key) => {
                f.write_str(&i18n_f("the setting {} cannot be changed (locked by the administrator?)", &[key]))
            }
        }
    }
}

impl std::error::Error for SettingsError {}

/// The settings: GSettings, or, where no schema can be loaded at all, the
/// defaults kept for this run only (logged as a warning).
#[derive(Clone)]
pub struct Settings {
    store: Store,
}

#[derive(Clone)]
enum Store {
    GSettings(gio::Settings),
    ThisRunOnly(std::rc::Rc<RefCell<Values>>),
}

/// The values, for a run without a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Values {
    interval_ms: u64,
    wizard_done: bool,
    snapshot_wizard_seen: bool,
}

impl Default for Values {
    fn default() -> Self {
        // The schema's defaults (a unit test compares them).
        Values { interval_ms: 1000, wizard_done: false, snapshot_wizard_seen: false }
    }
}

impl Settings {
    /// The person's settings, with Gearshift 0.1's settings file read into
    /// them the first time.
    pub fn open() -> Settings {
        Settings::open_with(schema(), None, &legacy_path())
    }

    /// The settings of `schema` in `backend` (the desktop's, by default),
    /// importing `legacy` once.
    fn open_with(
        schema: Option<gio::SettingsSchema>,
        backend: Option<&gio::SettingsBackend>,
        legacy: &Path,
    ) -> Settings {
        let settings = match schema {
            Some(schema) => Settings { store: Store::GSettings(gio::Settings::new_full(&schema, backend, None)) },
            None => {
                log::warn!(
                    "{}",
                    gearshift::i18n::i18n_f(
                        "the settings schema {} cannot be loaded: settings are kept for this run only",
                        &[&SCHEMA_ID]
                    )
                );
                Settings::this_run_only()
            }
        };
        settings.import_legacy(legacy);
        settings
    }

    fn this_run_only() -> Settings {
        Settings { store: Store::ThisRunOnly(Default::default()) }
    }

    /// How often the window samples, in milliseconds (within
    /// [`Settings::interval_range`]).
    pub fn interval_ms(&self) -> u64 {
        match &self.store {
            Store::GSettings(s) => u64::from(s.uint(INTERVAL)),
            Store::ThisRunOnly(v) => v.borrow().interval_ms,
        }
    }

    /// The sampling intervals the schema allows.
    pub fn interval_range(&self) -> RangeInclusive<u64> {
        let Store::GSettings(s) = &self.store else {
            return DEFAULT_RANGE;
        };
        let range = s
            .settings_schema()
            .and_then(|schema| schema.key(INTERVAL).range().child_value(1).as_variant()?.get::<(u32, u32)>());
        match range {
            Some((min, max)) => u64::from(min)..=u64::from(max),
            None => DEFAULT_RANGE,
        }
    }

    /// Sets the sampling interval.
    ///
    /// # Errors
    /// Outside the schema's range, or locked.
    pub fn set_interval_ms(&self, ms: u64) -> Result<(), SettingsError> {
        let out_of_range = || SettingsError::OutOfRange { key: INTERVAL, value: ms.to_string() };
        if !self.interval_range().contains(&ms) {
            return Err(out_of_range());
        }
        match &self.store {
            Store::GSettings(s) => {
                let value = u32::try_from(ms).map_err(|_| out_of_range())?;
                s.set_uint(INTERVAL, value).map_err(|_| SettingsError::NotWritable(INTERVAL))
            }
            Store::ThisRunOnly(v) => {
                v.borrow_mut().interval_ms = ms;
                Ok(())
            }
        }
    }

    /// The first-run wizard was finished on this computer.
    pub fn wizard_done(&self) -> bool {
        self.flag(WIZARD_DONE, |v| v.wizard_done)
    }

    /// The wizard was finished showing a snapshot.
    pub fn snapshot_wizard_seen(&self) -> bool {
        self.flag(SNAPSHOT_WIZARD_SEEN, |v| v.snapshot_wizard_seen)
    }

    /// Records a finished wizard: for this computer, or (`snapshot`) for
    /// snapshots only.
    ///
    /// # Errors
    /// The key is locked.
    pub fn record_wizard(&self, snapshot: bool) -> Result<(), SettingsError> {
        let key = if snapshot { SNAPSHOT_WIZARD_SEEN } else { WIZARD_DONE };
        match &self.store {
            Store::GSettings(s) => s.set_boolean(key, true).map_err(|_| SettingsError::NotWritable(key)),
            Store::ThisRunOnly(v) => {
                let mut v = v.borrow_mut();
                if snapshot {
                    v.snapshot_wizard_seen = true;
                } else {
                    v.wizard_done = true;
                }
                Ok(())
            }
        }
    }

    /// Calls `f` with the new interval whenever it changes, whoever
    /// changed it. Runs on the thread (main context) that opened the
    /// settings.
    pub fn connect_interval_changed(&self, f: impl Fn(u64) + 'static) {
        if let Store::GSettings(s) = &self.store {
            s.connect_changed(Some(INTERVAL), move |s, key| f(u64::from(s.uint(key))));
        }
    }

    fn flag(&self, key: &str, fallback: impl Fn(&Values) -> bool) -> bool {
        match &self.store {
            Store::GSettings(s) => s.boolean(key),
            Store::ThisRunOnly(v) => fallback(&v.borrow()),
        }
    }

    /// Reads Gearshift 0.1's settings file into the keys, once: the file
    /// is left as it was (an older Gearshift still reads it), and later
    /// changes are GSettings' alone.
    fn import_legacy(&self, path: &Path) {
        let Store::GSettings(s) = &self.store else {
            return;
        };
        if s.boolean(IMPORTED) || !s.is_writable(IMPORTED) {
            return;
        }
        let old = match fs::read_to_string(path) {
            Ok(text) => match toml::from_str::<Legacy>(&text) {
                Ok(old) => Some(old),
                Err(err) => {
                    log::warn!("{}: {err}; not imported", path.display());
                    None
                }
            },
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => {
                log::warn!("{}: {err}; not imported", path.display());
                None
            }
        };
        // All keys change together (one write to the backend), through a
        // second object: delay() cannot be undone on the first.
        let Some(schema) = s.settings_schema() else {
            return;
        };
        let s = gio::Settings::new_full(&schema, Some(&s.property::<gio::SettingsBackend>("backend")), None);
        s.delay();
        if let Some(old) = old {
            if old.wizard_done {
                let _ = s.set_boolean(WIZARD_DONE, true);
            }
            if old.snapshot_wizard_seen {
                let _ = s.set_boolean(SNAPSHOT_WIZARD_SEEN, true);
            }
            if let Some(ms) = old.interval_ms {
                if self.interval_range().contains(&ms) {
                    let _ = s.set_uint(INTERVAL, ms as u32);
                } else {
                    log::warn!("{}: interval_ms = {ms} is out of range; the default is kept", path.display());
                }
            }
            log::debug!("settings imported from {}", path.display());
        }
        let _ = s.set_boolean(IMPORTED, true);
        s.apply();
    }
}

/// The sampling intervals the preferences offer, in milliseconds (inside
/// the schema's range, which a unit test checks).
pub const INTERVAL_CHOICES_MS: [u64; 5] = [500, 1000, 2000, 5000, 10_000];

/// The interval's range when no schema says (the schema's own, compared in
/// a unit test).
const DEFAULT_RANGE: RangeInclusive<u64> = 250..=60_000;

/// Gearshift 0.1's settings file.
#[derive(Deserialize)]
struct Legacy {
    #[serde(default)]
    wizard_done: bool,
    #[serde(default)]
    snapshot_wizard_seen: bool,
    interval_ms: Option<u64>,
}

fn legacy_path() -> PathBuf {
    config_home().join("gearshift/settings.toml")
}

/// The installed schema if it has every key; else the built-in copy.
fn schema() -> Option<gio::SettingsSchema> {
    let installed = gio::SettingsSchemaSource::default().and_then(|source| source.lookup(SCHEMA_ID, true));
    match installed {
        Some(schema) if KEYS.iter().all(|key| schema.has_key(key)) => Some(schema),
        Some(_) => {
            log::debug!("the installed settings schema is older than this program: using the built-in one");
            built_in_schema()
        }
        None => built_in_schema(),
    }
}

/// Loads the compiled schema built into the program. GLib reads schemas
/// only from a directory: the file is written to a private temporary one,
/// read, and removed.
fn built_in_schema() -> Option<gio::SettingsSchema> {
    let dir = glib::mkdtemp(glib::tmp_dir().join("gearshift-schema-XXXXXX"))?;
    let file = dir.join("gschemas.compiled");
    let schema = fs::write(&file, BUILT_IN_SCHEMA)
        .ok()
        .and_then(|()| gio::SettingsSchemaSource::from_directory(&dir, None, false).ok())
        .and_then(|source| source.lookup(SCHEMA_ID, false));
    let _ = fs::remove_file(&file);
    let _ = fs::remove_dir(&dir);
    schema
}

#[cfg(test)]
mod tests;

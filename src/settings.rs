//! A person's settings: `$XDG_CONFIG_HOME/gearshift/settings.toml` (whether
//! the first-run wizard was finished, the sampling interval), and whether
//! the tray starts at login (the XDG autostart way: a `Hidden=true` copy of
//! the system entry in `~/.config/autostart` turns it off).

use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The tray's XDG autostart entry.
pub const AUTOSTART_FILE: &str = "io.github.gearshift.Gearshift-tray.desktop";

/// The settings file's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The first-run wizard was finished on this computer.
    pub wizard_done: bool,
    /// The wizard was finished showing a snapshot (the demo): it is not
    /// shown again for snapshots, and still is for this computer.
    pub snapshot_wizard_seen: bool,
    /// How often the window samples, in milliseconds.
    pub interval_ms: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { wizard_done: false, snapshot_wizard_seen: false, interval_ms: 1000 }
    }
}

/// `$XDG_CONFIG_HOME`, or `~/.config`.
pub fn config_home() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .unwrap_or_else(|| PathBuf::from(".config"))
}

fn settings_path() -> PathBuf {
    config_home().join("gearshift/settings.toml")
}

impl Settings {
    /// Loads the settings; anything unreadable gives the defaults.
    pub fn load() -> Settings {
        fs::read_to_string(settings_path()).ok().and_then(|t| toml::from_str(&t).ok()).unwrap_or_default()
    }

    /// Saves the settings.
    ///
    /// # Errors
    /// The config directory cannot be written.
    pub fn save(&self) -> std::io::Result<()> {
        let path = settings_path();
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let text = toml::to_string_pretty(self).map_err(std::io::Error::other)?;
        let tmp = path.with_extension("toml.tmp");
        fs::write(&tmp, text)?;
        fs::rename(tmp, path)
    }
}

fn system_autostart() -> Option<PathBuf> {
    let dirs = std::env::var("XDG_CONFIG_DIRS").unwrap_or_else(|_| "/etc/xdg".into());
    dirs.split(':').map(|d| PathBuf::from(d).join("autostart").join(AUTOSTART_FILE)).find(|p| p.exists())
}

fn user_autostart() -> PathBuf {
    config_home().join("autostart").join(AUTOSTART_FILE)
}

/// Whether the tray starts at login.
pub fn autostart_enabled() -> bool {
    match fs::read_to_string(user_autostart()) {
        Ok(text) => !text.lines().any(|l| l.trim() == "Hidden=true"),
        Err(_) => system_autostart().is_some(),
    }
}

/// Turns starting the tray at login on or off, for this person only.
///
/// # Errors
/// `~/.config/autostart` cannot be written.
pub fn set_autostart(enabled: bool) -> std::io::Result<()> {
    let path = user_autostart();
    if enabled && system_autostart().is_some() {
        // The system entry does it; drop a hiding copy if there is one.
        return match fs::remove_file(&path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        };
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let exec = std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "gearshift".into());
    let hidden = if enabled { "" } else { "Hidden=true\n" };
    fs::write(
        path,
        format!(
            "[Desktop Entry]\nType=Application\nName=Gearshift tray\nExec={exec} --tray\nIcon=io.github.gearshift.Gearshift\nX-GNOME-Autostart-enabled={enabled}\n{hidden}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test changes the environment, so that tests do not race on it.
    #[test]
    fn settings_and_autostart_live_in_the_config_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::env::set_var("XDG_CONFIG_HOME", dir.path());
        std::env::set_var("XDG_CONFIG_DIRS", dir.path().join("nothing"));
        assert_eq!(Settings::load(), Settings::default());
        let done = Settings { wizard_done: true, snapshot_wizard_seen: false, interval_ms: 500 };
        done.save().unwrap();
        assert_eq!(Settings::load(), done);

        assert!(!autostart_enabled(), "no system entry, no user entry");
        set_autostart(true).unwrap();
        assert!(autostart_enabled());
        set_autostart(false).unwrap();
        assert!(!autostart_enabled());
        let text = fs::read_to_string(user_autostart()).unwrap();
        assert!(text.contains("Hidden=true") && text.contains("--tray"));
    }
}

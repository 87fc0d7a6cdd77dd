//! Whether the tray starts at login: the person's own XDG autostart entry
//! (`~/.config/autostart`), the desktops' own login items. The window's
//! preferences, the wizard and the tray's menu all turn it on and off here,
//! for the person who asks only. Nothing is installed system-wide: the
//! installed entry (translated) is a template in the package's data
//! directory. A system entry an older release installed in
//! `$XDG_CONFIG_DIRS/autostart` is still honoured, and hidden by a copy
//! with `Hidden=true` for one person.

use std::fs;
use std::path::PathBuf;

/// The tray's XDG autostart entry.
pub const AUTOSTART_FILE: &str = "io.github.gearshift.Gearshift-tray.desktop";

/// `$XDG_CONFIG_HOME`, or `~/.config`.
pub fn config_home() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .unwrap_or_else(|| PathBuf::from(".config"))
}

fn system_autostart() -> Option<PathBuf> {
    let dirs = std::env::var("XDG_CONFIG_DIRS").unwrap_or_else(|_| "/etc/xdg".into());
    dirs.split(':').map(|d| PathBuf::from(d).join("autostart").join(AUTOSTART_FILE)).find(|p| p.exists())
}

/// The installed template of the entry (translated by the build).
fn template() -> PathBuf {
    PathBuf::from(crate::PKGDATADIR).join(AUTOSTART_FILE)
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
    let system = system_autostart().is_some();
    if enabled == system {
        // On with an older release's system entry, or off without one: no
        // entry of one's own (a hiding copy goes).
        return match fs::remove_file(&path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        };
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    if !enabled {
        // Hides the system entry for this person.
        return fs::write(
            path,
            "[Desktop Entry]\nType=Application\nName=Gearshift tray\nExec=gearshift --tray\nHidden=true\n",
        );
    }
    let text = fs::read_to_string(template()).unwrap_or_else(|_| {
        // A build that is not installed: the entry starts this program.
        let exec = std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "gearshift".into());
        format!(
            "[Desktop Entry]\nType=Application\nName=Gearshift tray\nTryExec={exec}\nExec={exec} --tray\nIcon=io.github.gearshift.Gearshift\nX-GNOME-Autostart-enabled=true\n"
        )
    });
    fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test changes the environment, so that tests do not race on it.
    #[test]
    fn autostart_lives_in_the_config_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::env::set_var("XDG_CONFIG_HOME", dir.path());
        std::env::set_var("XDG_CONFIG_DIRS", dir.path().join("nothing"));
        assert!(!autostart_enabled(), "no system entry, no user entry");
        set_autostart(true).unwrap();
        assert!(autostart_enabled());
        let text = fs::read_to_string(user_autostart()).unwrap();
        assert!(text.contains("--tray") && !text.contains("Hidden=true"), "{text}");
        // Off: no entry of one's own is left.
        set_autostart(false).unwrap();
        assert!(!autostart_enabled());
        assert!(!user_autostart().exists());
        // An older release's system entry: on for everyone, hidden for one.
        let system = dir.path().join("xdg");
        std::fs::create_dir_all(system.join("autostart")).unwrap();
        fs::write(system.join("autostart").join(AUTOSTART_FILE), "[Desktop Entry]\nExec=gearshift --tray\n").unwrap();
        std::env::set_var("XDG_CONFIG_DIRS", &system);
        assert!(autostart_enabled());
        set_autostart(false).unwrap();
        assert!(!autostart_enabled());
        assert!(fs::read_to_string(user_autostart()).unwrap().contains("Hidden=true"));
        set_autostart(true).unwrap();
        assert!(autostart_enabled() && !user_autostart().exists());
    }
}

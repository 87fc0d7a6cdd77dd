//! Whether the tray starts at login: the XDG autostart entry
//! (`~/.config/autostart`, over the system's in `$XDG_CONFIG_DIRS`), the
//! desktops' own login items. The window's preferences, the wizard and the
//! tray's menu all turn it on and off here.

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
            "[Desktop Entry]\nType=Application\nName=Gearshift tray\nTryExec={exec}\nExec={exec} --tray\nIcon=io.github.gearshift.Gearshift\nX-GNOME-Autostart-enabled={enabled}\n{hidden}"
        ),
    )
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
        set_autostart(false).unwrap();
        assert!(!autostart_enabled());
        let text = fs::read_to_string(user_autostart()).unwrap();
        assert!(text.contains("Hidden=true") && text.contains("--tray"));
    }
}

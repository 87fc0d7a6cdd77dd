//! Where the tray cannot show anything, it says why: no panel takes tray
//! icons on this session (GNOME without the AppIndicator extension), or the
//! machine has nothing to tune (a virtual machine). And where its icons are.

use std::path::PathBuf;

use gearshift::i18n::gettext;

/// The bus name of the desktop's StatusNotifierWatcher, which a panel with
/// tray icons serves.
const WATCHER: &str = "org.kde.StatusNotifierWatcher";

/// Says on stderr, where no panel takes tray icons, what would show it.
pub async fn say_where_none_listens() {
    if !listens().await {
        eprintln!("gearshift: {}", gettext("no panel here shows tray icons (nothing on this session's bus takes them: org.kde.StatusNotifierWatcher). KDE Plasma and XFCE with its status notifier plugin show them; on GNOME, install the AppIndicator extension (gnome-shell-extension-appindicator) and log in again. The tray keeps running and appears once a panel can show it."));
    }
}

/// Whether the session bus has a StatusNotifierWatcher.
async fn listens() -> bool {
    let Ok(session) = zbus::Connection::session().await else { return false };
    let Ok(bus) = zbus::fdo::DBusProxy::new(&session).await else { return false };
    let Ok(name) = zbus::names::BusName::try_from(WATCHER) else { return false };
    bus.name_has_owner(name).await.unwrap_or(false)
}

/// What the tray's menu says on a machine without CPU frequency control.
pub fn nothing_to_tune() -> String {
    gettext("Nothing to tune here: this machine has no CPU frequency control (a virtual machine?)")
}

/// Where the icons are when running from a source checkout ("" when
/// installed: the icon theme has them).
pub fn icon_path() -> String {
    let installed = PathBuf::from("/usr/share/icons/hicolor/symbolic/apps/io.github.gearshift.Gearshift-symbolic.svg");
    match gearshift::client::install::source_tree().map(|tree| tree.join("data/icons")) {
        Some(source) if !installed.exists() && source.is_dir() => source.display().to_string(),
        _ => String::new(),
    }
}

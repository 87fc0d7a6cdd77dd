//! Dialogs: error details, replacing a custom profile, About, keyboard
//! shortcuts. libadwaita's own (`AdwMessageDialog`, `AdwAboutWindow`, both
//! in Debian 12's libadwaita 1.2) where it has one.

use gearshift::core::machine::DriverMode;
use relm4::adw::{self, prelude::*};
use relm4::gtk;
use relm4::Sender;

use gearshift::i18n::{gettext, i18n_text};

use crate::ui::model::ErrorView;
use crate::ui::APP_ID;

/// The full story of an error, with the command that fixes it (selectable,
/// to be copied).
pub fn error_details(parent: &adw::ApplicationWindow, view: &ErrorView) {
    let dialog =
        adw::MessageDialog::builder().transient_for(parent).modal(true).heading(&view.title).body(&view.body).build();
    if let Some(cmd) = &view.command {
        let label =
            gtk::Label::builder().label(cmd).selectable(true).wrap(true).css_classes(["monospace", "card"]).build();
        crate::ui::set_accessible_label(&label, &gettext("Command"));
        dialog.set_extra_child(Some(&label));
    }
    dialog.add_response("close", &gettext("_Close"));
    dialog.set_default_response(Some("close"));
    dialog.set_close_response("close");
    dialog.present();
}

/// Asks a question with Cancel (the default) and one answer (`id`,
/// labelled `label`, looking `appearance`); on that answer, `then`.
fn confirm<M: 'static>(
    parent: &gtk::Window,
    heading: &str,
    body: &str,
    answer: (&'static str, &str, adw::ResponseAppearance),
    input: &Sender<M>,
    then: M,
) {
    confirm_or(parent, heading, body, answer, input, (then, None));
}

/// [`confirm`], with `otherwise` on Cancel (or closing the dialog).
fn confirm_or<M: 'static>(
    parent: &gtk::Window,
    heading: &str,
    body: &str,
    (id, label, appearance): (&'static str, &str, adw::ResponseAppearance),
    input: &Sender<M>,
    (then, otherwise): (M, Option<M>),
) {
    let dialog = adw::MessageDialog::builder().transient_for(parent).modal(true).heading(heading).body(body).build();
    dialog.add_response("cancel", &gettext("_Cancel"));
    dialog.add_response(id, label);
    dialog.set_response_appearance(id, appearance);
    dialog.set_default_response(Some("cancel"));
    dialog.set_close_response("cancel");
    let input = input.clone();
    let answers = std::cell::RefCell::new((Some(then), otherwise));
    dialog.connect_response(None, move |_, response| {
        log::debug!("{id} dialog: {response}");
        let mut answers = answers.borrow_mut();
        let msg = if response == id { answers.0.take() } else { answers.1.take() };
        if let Some(msg) = msg {
            input.emit(msg);
        }
    });
    dialog.present();
}

/// Asks before the driver switches to `mode`, saying what changes and that
/// `profile` (the active one, where there is one) is applied again; on
/// "Switch", `then`, else `otherwise`.
pub fn confirm_mode<M: 'static>(
    parent: &gtk::Window,
    mode: DriverMode,
    profile: Option<&str>,
    input: &Sender<M>,
    then: M,
    otherwise: M,
) {
    // Translators: {mode} is the driver's mode: active, passive or guided.
    let heading = i18n_text("Switch the driver to {mode} mode?").arg("mode", mode).localized();
    let what = match mode {
        DriverMode::Active => {
            gettext("In active mode the CPU itself picks its frequencies, guided by the energy preference (EPP).")
        }
        DriverMode::Guided => {
            gettext("In guided mode a kernel governor sets limits and the CPU picks frequencies between them.")
        }
        DriverMode::Passive => gettext("In passive mode a kernel governor (such as schedutil) picks the frequencies."),
    };
    let after = match profile {
        // Translators: {profile} is a profile name.
        Some(profile) => i18n_text("The kernel sets up every CPU afresh, and Gearshift then applies {profile} again.")
            .arg("profile", profile)
            .localized(),
        None => gettext("The kernel sets up every CPU afresh; values tuned by hand are lost."),
    };
    let label = gettext("_Switch");
    let answer = ("switch", label.as_str(), adw::ResponseAppearance::Suggested);
    confirm_or(parent, &heading, &format!("{what} {after}"), answer, input, (then, Some(otherwise)));
}

/// Asks before measuring where the figures would suffer (on battery, a
/// busy machine); on "Measure Anyway", `then` (the request again,
/// confirmed).
pub fn confirm_measure<M: 'static>(parent: &gtk::Window, heading: &str, body: &str, input: &Sender<M>, then: M) {
    let label = gettext("_Measure Anyway");
    let answer = ("measure", label.as_str(), adw::ResponseAppearance::Default);
    confirm(parent, heading, body, answer, input, then);
}

/// Asks before a saved custom profile of the same name is replaced; on
/// "Replace", `then` (saving it).
pub fn confirm_replace<M: 'static>(parent: &gtk::Window, name: &str, input: &Sender<M>, then: M) {
    // Translators: {name} is a custom profile's name.
    let heading = i18n_text("Replace “{name}”?").arg("name", name).localized();
    let body = gettext(
        "A custom profile of this name is saved already. Replacing it changes what it sets; the old values are lost.",
    );
    let label = gettext("_Replace");
    let answer = ("replace", label.as_str(), adw::ResponseAppearance::Destructive);
    confirm(parent, &heading, &body, answer, input, then);
}

/// Whether a panel here takes tray icons: something owns
/// org.kde.StatusNotifierWatcher on the session bus (KDE Plasma, XFCE with
/// its plugin, GNOME with the AppIndicator extension). Not on GNOME alone.
pub async fn panel_takes_tray_icons() -> bool {
    use relm4::gtk::{gio, glib};
    let Ok(session) = gio::bus_get_future(gio::BusType::Session).await else { return false };
    let asked = session
        .call_future(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "NameHasOwner",
            Some(&("org.kde.StatusNotifierWatcher",).to_variant()),
            glib::VariantTy::new("(b)").ok(),
            gio::DBusCallFlags::NONE,
            1000,
        )
        .await;
    asked.ok().and_then(|reply| reply.get::<(bool,)>()).is_some_and(|(has,)| has)
}

/// Says on `row`, with a warning icon, that no panel here shows tray icons.
pub fn say_no_panel(row: &adw::ActionRow) {
    row.set_subtitle(&gettext("No panel here shows tray icons: on GNOME, install the AppIndicator extension (gnome-shell-extension-appindicator) first, then log in again"));
    let icon = gtk::Image::from_icon_name("dialog-warning-symbolic");
    icon.add_css_class("warning");
    row.add_prefix(&icon);
}

/// Where no panel takes tray icons, the row says so before the person
/// turns the tray on. Asked of the bus without waiting for it.
fn warn_where_no_panel(row: &adw::ActionRow) {
    let row = row.clone();
    relm4::gtk::glib::spawn_future_local(async move {
        if !panel_takes_tray_icons().await {
            say_no_panel(&row);
        }
    });
}

/// About Gearshift.
pub fn about(parent: &adw::ApplicationWindow) {
    let repository = env!("CARGO_PKG_REPOSITORY");
    let dialog = adw::AboutWindow::builder()
        .transient_for(parent)
        .modal(true)
        .application_name(gettext("Gearshift"))
        .application_icon(APP_ID)
        .developer_name(gettext("The Gearshift developers"))
        .version(env!("CARGO_PKG_VERSION"))
        .comments(gettext(
            "Run your CPU the way its maker tuned it: the energy performance preference each CPU model was measured with, switched through a small privileged helper that asks polkit first.",
        ))
        .website(repository)
        .issue_url(format!("{repository}/issues"))
        .support_url(format!("{repository}/blob/main/README.md"))
        .license_type(gtk::License::Gpl30)
        .developers(vec!["The Gearshift developers".to_owned()])
        .translator_credits(gettext("translator-credits"))
        .build();
    dialog.add_link(
        &gettext("Kernel documentation of intel_pstate"),
        "https://docs.kernel.org/admin-guide/pm/intel_pstate.html",
    );
    dialog.add_link(
        &gettext("Kernel documentation of amd-pstate"),
        "https://docs.kernel.org/admin-guide/pm/amd-pstate.html",
    );
    dialog.add_credit_section(
        Some(&gettext("Built on")),
        &[
            "GTK https://gtk.org",
            "libadwaita https://gnome.pages.gitlab.gnome.org/libadwaita/",
            "Relm4 https://relm4.org",
            "zbus https://github.com/dbus2/zbus",
        ],
    );
    dialog.present();
}

/// The keyboard shortcuts window, each entry showing the keys the
/// application really binds (read from its accelerators, so that the two
/// cannot drift apart).
pub fn shortcuts(parent: &adw::ApplicationWindow) {
    let builder = gtk::Builder::new();
    builder.set_translation_domain(Some(gearshift::i18n::DOMAIN));
    if builder.add_from_string(include_str!("../../../data/ui/shortcuts.ui")).is_err() {
        return;
    }
    let Some(window) = builder.object::<gtk::ShortcutsWindow>("help_overlay") else { return };
    let app = relm4::main_application();
    for object in builder.objects() {
        let Some(shortcut) = object.downcast_ref::<gtk::ShortcutsShortcut>() else { continue };
        let action: Option<String> = shortcut.property("action-name");
        let Some(action) = action else { continue };
        let keys = app.accels_for_action(&action);
        log::debug!("shortcut {action}: {keys:?}");
        shortcut.set_property("accelerator", keys.join(" "));
    }
    window.set_title(Some(&gettext("Keyboard Shortcuts")));
    window.set_transient_for(Some(parent));
    window.present();
}

/// Preferences: what lives in settings.toml and the login items. The
/// profiles automatic switching uses are chosen in the overview.
pub fn preferences(parent: &adw::ApplicationWindow, interval_ms: u64, set_interval: impl Fn(u64) + 'static) {
    let window = adw::PreferencesWindow::builder().transient_for(parent).modal(true).search_enabled(false).build();
    let page = adw::PreferencesPage::new();
    let live = adw::PreferencesGroup::builder()
        .title(gettext("Live Values"))
        .description(gettext("How often the window reads every CPU's frequency, EPP and governor. Reading less often costs less; the window reads nothing while it is hidden."))
        .build();
    let labels: Vec<String> = crate::ui::settings::INTERVAL_CHOICES_MS
        .iter()
        .map(|ms| {
            // Translators: a time in seconds, such as 0.5 or 2.
            i18n_text("every {seconds} s").arg("seconds", *ms as f64 / 1000.0).localized()
        })
        .collect();
    let strings: Vec<&str> = labels.iter().map(String::as_str).collect();
    let interval = adw::ComboRow::builder()
        .title(gettext("Sampling interval"))
        .model(&gtk::StringList::new(&strings))
        .selected(crate::ui::settings::INTERVAL_CHOICES_MS.iter().position(|ms| *ms >= interval_ms).unwrap_or(1) as u32)
        .build();
    interval.connect_selected_notify(move |row| {
        if let Some(ms) = crate::ui::settings::INTERVAL_CHOICES_MS.get(row.selected() as usize) {
            set_interval(*ms);
        }
    });
    live.add(&interval);
    page.add(&live);

    let login = adw::PreferencesGroup::builder().title(gettext("Panel")).build();
    let tray = gtk::Switch::builder().active(crate::autostart::autostart_enabled()).valign(gtk::Align::Center).build();
    let tray_row = adw::ActionRow::builder()
        .title(gettext("Show Gearshift in the panel at login"))
        .subtitle(gettext("A tray icon to switch profiles (KDE Plasma, XFCE, GNOME with the AppIndicator extension)"))
        .activatable_widget(&tray)
        .build();
    tray_row.add_suffix(&tray);
    tray.connect_state_set(|switch, on| {
        if let Err(err) = crate::autostart::set_autostart(on) {
            log::warn!("{}", gearshift::i18n::i18n_f("cannot change the login items: {}", &[&err]));
            switch.set_state(crate::autostart::autostart_enabled());
            return gtk::glib::Propagation::Stop;
        }
        gtk::glib::Propagation::Proceed
    });
    login.add(&tray_row);
    warn_where_no_panel(&tray_row);
    page.add(&login);
    window.add(&page);
    log::debug!("preferences shown: interval {interval_ms} ms");
    window.present();
}

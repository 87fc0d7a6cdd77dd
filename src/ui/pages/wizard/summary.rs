//! Step five: what Finish does, in words, from the choices made.

use relm4::gtk::{self, prelude::*};

use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_text};

use super::choice::Offered;
use super::parts::page;

/// The step's page and its sentence's label.
pub fn build() -> (gtk::ScrolledWindow, gtk::Label) {
    let (summary_page, content) = page(&gettext("Ready"), &gettext("This is what Finish does."), "emblem-ok-symbolic");
    let label = gtk::Label::builder().wrap(true).xalign(0.0).build();
    content.append(&label);
    (summary_page, label)
}

/// What the machine is, for the summary's words.
#[derive(Debug, Clone, Copy)]
pub struct Machine {
    /// Something can be tuned here.
    pub can_tune: bool,
    /// It is this computer (not a snapshot).
    pub live: bool,
    /// It has a battery of its own.
    pub battery: bool,
}

/// What Finish does with `ac` and `battery` (and the tray at login).
pub fn words(status: &Status, machine: Machine, (ac, battery): &(Offered, Offered), tray: bool) -> String {
    let epp = |id: &str| status.profiles.iter().find(|p| p.id == id).and_then(|p| p.epp);
    let describe = |(id, name): &Offered| match epp(id) {
        // Translators: A profile name, then an EPP number.
        Some(v) => i18n_text("{profile} (EPP {value})").arg("profile", name).arg("value", v).localized(),
        None => name.clone(),
    };
    let Machine { can_tune, live, battery: has_battery } = machine;
    let mut text = if can_tune && live && !has_battery {
        // Translators: a profile name with its EPP value.
        i18n_text("Finish applies {profile} now; the helper applies it again after every reboot and resume.")
            .arg("profile", describe(ac))
            .localized()
    } else if can_tune && live {
        // Translators: profile names, each with its EPP value.
        i18n_text("Finish turns on automatic switching: {on_ac} on AC power, {on_battery} on battery. The helper applies it now and after every reboot, resume and power-source change.")
            .arg("on_ac", describe(ac))
            .arg("on_battery", describe(battery))
            .localized()
    } else if can_tune {
        gettext("This is a snapshot of another machine: Finish only records that you have seen this.")
    } else {
        gettext("Nothing can be tuned here; Finish only records that you have seen this.")
    };
    if live {
        text.push_str("\n\n");
        text.push_str(&if tray {
            gettext("Gearshift's icon will appear in the panel at login.")
        } else {
            gettext("Gearshift will not start at login.")
        });
    }
    text
}

/// What Finish did, in one line for the toast after it.
pub fn applied(status: &Status, machine: Machine, (ac, battery): &(Offered, Offered), tray: bool) -> String {
    let Machine { can_tune, live, battery: has_battery } = machine;
    let mut text = if !(can_tune && live) {
        gettext("Setup is done; nothing was changed on this computer.")
    } else if has_battery {
        let epp = |id: &str| status.profiles.iter().find(|p| p.id == id).and_then(|p| p.epp);
        // Translators: profile names.
        i18n_text("Automatic switching is on: {on_ac} on AC power, {on_battery} on battery{epp}.")
            .arg("on_ac", &ac.1)
            .arg("on_battery", &battery.1)
            .arg(
                "epp",
                match (epp(&ac.0), epp(&battery.0)) {
                    // Translators: EPP numbers of the two profiles.
                    (Some(a), Some(b)) => {
                        i18n_text(" (EPP {ac} and {battery})").arg("ac", a).arg("battery", b).localized()
                    }
                    _ => String::new(),
                },
            )
            .localized()
    } else {
        // Translators: a profile name.
        i18n_text("{profile} is applied, now and at every start.").arg("profile", &ac.1).localized()
    };
    if live && tray {
        text.push(' ');
        text.push_str(&gettext("The tray starts at login."));
    }
    text
}

//! Step four: the profiles on AC power and on battery (one profile on a
//! machine without a battery), and the tray at login.

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::core::profile::BuiltinProfile;
use gearshift::core::report::HardwareReport;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, Text};

use super::parts::{page, row};

/// A profile as the step offers it: its id and the name people see.
pub type Offered = (String, String);

/// The step: its page and what it asks.
pub struct Choice {
    pub page: gtk::ScrolledWindow,
    profiles: Vec<Offered>,
    on_ac: gtk::DropDown,
    on_battery: gtk::DropDown,
    tray: gtk::Switch,
}

impl Choice {
    /// Builds the step for this machine; `live`: it is this computer (a
    /// snapshot's wizard does not change what starts at login here).
    pub fn build(report: &HardwareReport, status: &Status, live: bool) -> Choice {
        let (page_widget, content) = page(
            &gettext("Your Profiles"),
            &if report.can_tune && status.battery {
                gettext("Gearshift can switch by itself when you plug in or unplug. Even so, Balanced saves power on battery with the Efficient profile’s values unless you turn off “Save Power on Battery” in the overview.")
            } else if report.can_tune {
                gettext("This machine has no battery: one profile, applied at every start.")
            } else {
                report.why_not.as_ref().map(Text::localized).unwrap_or_default()
            },
            "battery-symbolic",
        );
        let profiles: Vec<Offered> = status
            .profiles
            .iter()
            .filter(|p| p.error.is_none())
            .map(|p| (p.id.clone(), p.title().localized()))
            .collect();
        let names: Vec<&str> = profiles.iter().map(|(_, n)| n.as_str()).collect();
        let pick = |default: &str| {
            let dropdown = gtk::DropDown::from_strings(&names);
            dropdown.set_valign(gtk::Align::Center);
            if let Some(i) = profiles.iter().position(|(id, _)| id == default) {
                dropdown.set_selected(i as u32);
            }
            dropdown
        };
        let on_ac = pick(report.on_ac);
        let on_battery = pick(report.on_battery.unwrap_or(BuiltinProfile::BalancePower.id()));
        let choices = adw::PreferencesGroup::new();
        let ac_row = row(&gettext("On AC power"), "", None);
        ac_row.add_suffix(&on_ac);
        let battery_row = row(&gettext("On battery"), "", None);
        battery_row.add_suffix(&on_battery);
        // Off until the session bus says a panel shows tray icons (then on,
        // where there is something to switch), and only offered for this
        // computer: no icon is promised where nothing can show it.
        let tray = gtk::Switch::builder().active(false).valign(gtk::Align::Center).build();
        let tray_row = adw::ActionRow::builder()
            .title(gettext("Show Gearshift in the panel at login"))
            .subtitle(if live {
                gettext("A tray icon to switch profiles (KDE Plasma, XFCE, GNOME with the AppIndicator extension)")
            } else {
                gettext("Chosen on your own machine, not in a snapshot")
            })
            .activatable_widget(&tray)
            .sensitive(live)
            .build();
        tray_row.add_suffix(&tray);
        if live {
            let (tray, row) = (tray.clone(), tray_row.clone());
            let touched = std::rc::Rc::new(std::cell::Cell::new(false));
            let mark = touched.clone();
            tray.connect_state_set(move |_, _| {
                mark.set(true);
                relm4::gtk::glib::Propagation::Proceed
            });
            let can_tune = report.can_tune;
            relm4::gtk::glib::spawn_future_local(async move {
                let shown = crate::ui::dialogs::panel_takes_tray_icons().await;
                log::debug!("wizard: a panel takes tray icons: {shown}");
                if !shown {
                    crate::ui::dialogs::say_no_panel(&row);
                } else if can_tune && !touched.get() {
                    // On by default only where a panel shows it, and only
                    // while the person has not set it already.
                    tray.set_active(true);
                }
            });
        }
        choices.add(&ac_row);
        if status.battery {
            choices.add(&battery_row);
        } else {
            ac_row.set_title(&gettext("Profile"));
        }
        choices.add(&tray_row);
        ac_row.set_sensitive(report.can_tune);
        battery_row.set_sensitive(report.can_tune);
        log::debug!("wizard: battery question {}, tray at login {}", status.battery, tray.is_active());
        content.append(&choices);
        Choice { page: page_widget, profiles, on_ac, on_battery, tray }
    }

    /// The profiles chosen for AC power and for battery.
    pub fn picked(&self) -> (Offered, Offered) {
        let pick = |d: &gtk::DropDown| self.profiles.get(d.selected() as usize).cloned().unwrap_or_default();
        (pick(&self.on_ac), pick(&self.on_battery))
    }

    /// The tray is to start at login.
    pub fn tray_at_login(&self) -> bool {
        self.tray.is_active()
    }
}

//! The overview's rows that show the helper's settings: the AC/battery
//! policy and the driver's mode.

use relm4::adw::prelude::*;
use relm4::gtk;

use gearshift::dbus::AutoPolicy;
use gearshift::i18n::i18n_text;

use super::{quietly, OverviewWidgets};
use crate::ui::model::{builtin_title, ModeRow};

/// Shows the AC/battery policy: on a machine with a battery, or where it
/// is on (so that it can be turned off); a desktop, a server or a VM is
/// never on battery.
pub(super) fn set_auto(
    widgets: &OverviewWidgets,
    ids: &[String],
    auto: Option<&AutoPolicy>,
    (allowed, battery): (bool, bool),
) {
    let on = auto.is_some_and(|a| a.enabled);
    widgets.auto_row.set_visible(battery || on);
    widgets.pair[0].0.set_visible(battery || on);
    let (ac, battery) = AutoPolicy::pair_or_default(auto);
    quietly(&widgets.auto_switch, &widgets.auto_toggled, |switch| switch.set_active(on));
    let name = |id: &str| builtin_title(id).unwrap_or_else(|| id.to_owned());
    widgets.auto_row.set_subtitle(
        // Translators: Profile names.
        &i18n_text("{on_ac} on AC power, {on_battery} on battery")
            .arg("on_ac", name(&ac))
            .arg("on_battery", name(&battery))
            .localized(),
    );
    widgets.auto_row.set_sensitive(allowed && auto.is_some());
    for ((row, handler), id) in widgets.pair.iter().zip([&ac, &battery]) {
        if let Some(i) = ids.iter().position(|p| p == id) {
            quietly(row, handler, |row| row.set_selected(i as u32));
        }
        // Chosen while switching is on; turning it on uses them.
        row.set_sensitive(allowed && on);
    }
    log::debug!("automatic rows: {on}, {ac} on AC, {battery} on battery, sensitive {}", allowed && on);
}

/// Shows the driver's mode: the modes it takes and the chosen one, and
/// whether (or why not) it can be switched; hides the row where the driver
/// has no mode file (`None`).
pub(super) fn set_mode(widgets: &OverviewWidgets, mode: Option<&ModeRow>) {
    let Some(mode) = mode else {
        widgets.mode_row.set_visible(false);
        return;
    };
    let list = &widgets.mode_list;
    quietly(&widgets.mode_row, &widgets.mode_changed, |row| {
        let listed: Vec<String> = (0..list.n_items()).filter_map(|i| list.string(i)).map(String::from).collect();
        // The modes in the reader's language ("aktiv"), in the driver's order.
        let labels: Vec<String> = mode.modes.iter().map(|m| m.label().localized()).collect();
        if listed != labels {
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            list.splice(0, list.n_items(), &labels);
        }
        row.set_selected(mode.selected.and_then(|i| u32::try_from(i).ok()).unwrap_or(gtk::INVALID_LIST_POSITION));
    });
    widgets.mode_row.set_subtitle(&mode.subtitle);
    widgets.mode_row.set_sensitive(mode.sensitive);
    crate::ui::set_accessible_label(&widgets.mode_row, &mode.accessible);
    widgets.mode_row.set_visible(true);
}

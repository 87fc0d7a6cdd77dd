//! Step three: other power managers, each with what it does and how to
//! stop it.

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::core::conflicts;
use gearshift::i18n::gettext;

use super::parts::{page, row};

/// The step's page for the power managers found (their ids).
pub fn build(found: &[String]) -> gtk::ScrolledWindow {
    let (others, content) = page(
        &gettext("Other Power Managers"),
        &if found.is_empty() {
            gettext("None found: nothing else writes these settings.")
        } else {
            gettext("Two managers writing the same files undo each other. Gearshift applies nothing on its own while another runs.")
        },
        if found.is_empty() { "emblem-ok-symbolic" } else { "dialog-warning-symbolic" },
    );
    let group = adw::PreferencesGroup::new();
    for id in found {
        let r = row(id, &format!("{}\n{}", conflicts::explain(id).localized(), conflicts::fix(id).localized()), None);
        r.set_subtitle_lines(0);
        group.add(&r);
    }
    content.append(&group);
    others
}

//! Step one: the machine in plain words (`core::report`'s welcome), and
//! what was found behind an expander, with a button that switches the
//! driver to active mode where the report recommends it.

use std::rc::Rc;

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::client::Helper;
use gearshift::core::report::HardwareReport;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_f, i18n_plural};

use super::parts::{level_icon, page, row};
use crate::ui::model::offers_active_mode;

/// The step's page, and the driver mode's button where it has one (it
/// waits for the helper check).
pub struct Found {
    pub page: gtk::ScrolledWindow,
    pub mode_button: Option<gtk::Button>,
}

/// Builds the step. `error` is where a failed switch of the driver's mode
/// says why; `mode_changed` runs after one succeeded.
pub fn build(
    report: &HardwareReport,
    status: &Status,
    live: bool,
    client: &Helper,
    error: &gtk::Label,
    mode_changed: Rc<dyn Fn()>,
) -> Found {
    let plain: Vec<String> = report.welcome.iter().map(|t| t.localized()).collect();
    let (found, content) = page(&gettext("This Computer"), &plain.join("\n\n"), "computer-symbolic");
    let group = adw::PreferencesGroup::new();
    // Where the report recommends active mode, a button that switches to it
    // (through the helper, once its check found it reachable).
    let mode_button = (live && offers_active_mode(report, status)).then(|| {
        gtk::Button::builder()
            .label(gettext("Switch to Active Mode"))
            .valign(gtk::Align::Center)
            .sensitive(false)
            .build()
    });
    for f in &report.findings {
        let r = row(
            &f.label.localized(),
            &format!("{}\n{}", f.value.localized(), f.detail.localized()),
            Some(level_icon(f.level)),
        );
        r.set_subtitle_lines(0);
        if let (Some(button), "driver_mode") = (&mode_button, f.id) {
            r.add_suffix(button);
            switch_to_active(button, &r, error, client, mode_changed.clone());
        }
        group.add(&r);
    }
    // The details behind an expander, saying how many need attention: the
    // first page is for reading, not for looking up abbreviations.
    let attention = report.findings.iter().filter(|f| f.level == gearshift::core::report::Level::Warning).count();
    let label = if attention == 0 {
        gettext("Details: what was read from this computer")
    } else {
        // Translators: {count} is how many findings need the person's attention.
        i18n_plural(
            "Details: what was read from this computer ({count} needs your attention)",
            "Details: what was read from this computer ({count} need your attention)",
            attention as u64,
        )
        .arg("count", attention)
        .localized()
    };
    let details = gtk::Expander::builder().label(label).child(&group).build();
    details.set_margin_top(6);
    content.append(&details);
    Found { page: found, mode_button }
}

/// Makes `button` (on the driver mode finding's `row`) switch the driver to
/// active mode through the helper: on success the row says so and
/// `mode_changed` runs (the window reads the machine again); on failure
/// `error` says why and the button can be pressed again.
fn switch_to_active(
    button: &gtk::Button,
    row: &adw::ActionRow,
    error: &gtk::Label,
    client: &Helper,
    mode_changed: Rc<dyn Fn()>,
) {
    let (row, error, client) = (row.clone(), error.clone(), client.clone());
    button.connect_clicked(move |button| {
        button.set_sensitive(false);
        error.set_visible(false);
        let (button, row, error, client, mode_changed) =
            (button.clone(), row.clone(), error.clone(), client.clone(), mode_changed.clone());
        relm4::spawn_local(async move {
            match client
                .call(|p| async move { p.set_driver_mode(gearshift::core::machine::DriverMode::Active.as_str()).await })
                .await
            {
                Ok(_) => {
                    row.set_subtitle(&i18n_f("The driver runs in {} mode now.", &[&"active"]));
                    button.set_visible(false);
                    mode_changed();
                }
                Err(err) => {
                    error.set_label(&format!("{} {}", err.headline(), err.advice()));
                    error.set_visible(true);
                    button.set_sensitive(true);
                }
            }
        });
    });
}

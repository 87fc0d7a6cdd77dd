//! The overview of a machine without CPU frequency control.

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::core::report::HardwareReport;
use gearshift::i18n::{gettext, Text};

/// What a machine without CPU frequency control shows instead: why nothing
/// can be tuned, and the hardware report.
pub fn nothing_to_tune(report: &HardwareReport) -> gtk::Widget {
    let status = adw::StatusPage::builder()
        .icon_name("computer-symbolic")
        .title(gettext("Nothing to Tune Here"))
        .description(report.why_not.as_ref().map(Text::localized).unwrap_or_default())
        .vexpand(true)
        .build();
    let group = adw::PreferencesGroup::builder().title(gettext("What Gearshift Found")).build();
    for finding in &report.findings {
        let r = adw::ActionRow::builder().title(finding.label.localized()).subtitle(finding.value.localized()).build();
        r.set_tooltip_text(Some(&finding.detail.localized()));
        crate::ui::read_only_row(&r);
        group.add(&r);
    }
    let clamp = adw::Clamp::builder().maximum_size(640).child(&group).build();
    status.set_child(Some(&clamp));
    gtk::ScrolledWindow::builder().child(&status).vexpand(true).build().upcast()
}

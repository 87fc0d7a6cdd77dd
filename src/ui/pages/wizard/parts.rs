//! What every step of the wizard is built from: a page with its heading,
//! and rows.

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::core::report::Level;

/// A step's page: an icon, its title and what it is about, then `content`
/// (returned) for the step's rows.
pub fn page(title: &str, description: &str, icon: &str) -> (gtk::ScrolledWindow, gtk::Box) {
    let content = gtk::Box::new(gtk::Orientation::Vertical, 18);
    content.set_margin_top(24);
    content.set_margin_bottom(24);
    content.set_margin_start(18);
    content.set_margin_end(18);
    let header = gtk::Box::new(gtk::Orientation::Vertical, 8);
    let image = gtk::Image::from_icon_name(icon);
    image.set_pixel_size(48);
    image.add_css_class("dim-label");
    header.append(&image);
    header.append(&gtk::Label::builder().label(title).wrap(true).css_classes(["title-2"]).build());
    header.append(&gtk::Label::builder().label(description).wrap(true).justify(gtk::Justification::Center).build());
    content.append(&header);
    let clamp = adw::Clamp::builder().maximum_size(640).child(&content).build();
    (
        gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).child(&clamp).vexpand(true).build(),
        content,
    )
}

/// A row; with an icon it is read-only (rows that get a control are made
/// focusable again where it is added).
pub fn row(title: &str, subtitle: &str, icon: Option<&str>) -> adw::ActionRow {
    let row = adw::ActionRow::builder().title(title).subtitle(subtitle).build();
    if let Some(icon) = icon {
        crate::ui::read_only_row(&row);
        row.add_prefix(&gtk::Image::from_icon_name(icon));
    }
    row
}

/// The icon of a finding's level.
pub fn level_icon(level: Level) -> &'static str {
    match level {
        Level::Good => "emblem-ok-symbolic",
        Level::Warning => "dialog-warning-symbolic",
        Level::Info => "dialog-information-symbolic",
    }
}

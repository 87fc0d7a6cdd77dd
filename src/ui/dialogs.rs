//! Dialogs: error details, About, keyboard shortcuts.

use relm4::adw;
use relm4::gtk::{self, prelude::*};

use gearshift::i18n::gettext;

use super::model::ErrorView;
use super::APP_ID;

/// The full story of an error, with the command that fixes it.
pub fn error_details(parent: &adw::ApplicationWindow, view: &ErrorView) {
    let dialog = gtk::MessageDialog::builder()
        .transient_for(parent)
        .modal(true)
        .message_type(gtk::MessageType::Warning)
        .buttons(gtk::ButtonsType::Close)
        .text(&view.title)
        .secondary_text(match &view.command {
            Some(cmd) => format!("{}\n\n{cmd}", view.body),
            None => view.body.clone(),
        })
        .secondary_use_markup(false)
        .build();
    if let Some(area) = dialog.message_area().downcast_ref::<gtk::Box>() {
        let mut child = area.first_child();
        while let Some(widget) = child {
            if let Some(label) = widget.downcast_ref::<gtk::Label>() {
                label.set_selectable(true);
            }
            child = widget.next_sibling();
        }
    }
    dialog.connect_response(|d, _| d.close());
    dialog.present();
}

/// About Gearshift.
pub fn about(parent: &adw::ApplicationWindow) {
    let dialog = gtk::AboutDialog::builder()
        .transient_for(parent)
        .modal(true)
        .program_name(gettext("Gearshift"))
        .logo_icon_name(APP_ID)
        .version(env!("CARGO_PKG_VERSION"))
        .comments(gettext("Run your CPU the way its maker tuned it"))
        .website("https://github.com/gearshift/gearshift")
        .license_type(gtk::License::Gpl30)
        .authors(vec!["The Gearshift developers".to_owned()])
        .translator_credits(gettext("translator-credits"))
        .build();
    dialog.present();
}

/// The keyboard shortcuts window.
pub fn shortcuts(parent: &adw::ApplicationWindow) {
    let builder = gtk::Builder::new();
    builder.set_translation_domain(Some(gearshift::i18n::DOMAIN));
    if builder.add_from_string(include_str!("../../data/ui/shortcuts.ui")).is_err() {
        return;
    }
    if let Some(window) = builder.object::<gtk::ShortcutsWindow>("help_overlay") {
        window.set_transient_for(Some(parent));
        window.present();
    }
}

//! The window's toasts: one on screen at a time, the newest.

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::i18n::gettext;

use crate::ui::model::Notice;

/// The toast overlay and the toast on screen.
pub struct Toasts {
    overlay: adw::ToastOverlay,
    current: Option<adw::Toast>,
    /// How long every toast stays, where a test hook says
    /// (`GEARSHIFT_TOAST_SECONDS`).
    seconds: Option<u32>,
}

impl Toasts {
    /// Toasts over `overlay`.
    pub fn new(overlay: adw::ToastOverlay, seconds: Option<u32>) -> Toasts {
        Toasts { overlay, current: None, seconds }
    }

    /// Shows `notice`: a sentence for four seconds; an error's headline
    /// with Details (`win.last-error`), or a change with Undo
    /// (`win.undo`), for eight.
    pub fn show(&mut self, notice: &Notice) {
        let (text, button) = match notice {
            Notice::Text(text) => (text.as_str(), None),
            Notice::Error(view) => (view.title.as_str(), Some((gettext("Details"), "win.last-error"))),
            Notice::Undo(text) => (text.as_str(), Some((gettext("Undo"), "win.undo"))),
        };
        let toast = adw::Toast::new(text);
        toast.set_timeout(self.seconds.unwrap_or(if button.is_some() { 8 } else { 4 }));
        if let Some((label, action)) = button {
            toast.set_button_label(Some(&label));
            toast.set_action_name(Some(action));
        }
        // In place of the one on screen: libadwaita queues toasts, and a
        // queue of stale news ("Switched to X" after a later switch to Y)
        // misleads.
        if let Some(old) = self.current.replace(toast.clone()) {
            old.dismiss();
        }
        log::debug!("toast: {text}");
        self.overlay.add_toast(toast);
        // libadwaita 1.2 leaves the toast's close button without a name:
        // screen readers say "button". Once the toast is built, name it.
        let overlay = self.overlay.clone();
        gtk::glib::idle_add_local_once(move || name_toast_buttons(&overlay));
    }
}

/// Names the close buttons of the toasts on screen ("Dismiss").
fn name_toast_buttons(overlay: &adw::ToastOverlay) {
    // The toasts are the overlay's own children, beside the window's body.
    let children = std::iter::successors(overlay.first_child(), gtk::Widget::next_sibling);
    let toasts = children.filter(|w| w.type_().name() == "AdwToastWidget");
    for widget in toasts.flat_map(|toast| crate::ui::descendants(&toast)) {
        if let Some(button) = widget.downcast_ref::<gtk::Button>() {
            if button.icon_name().is_some_and(|i| i == "window-close-symbolic") {
                crate::ui::set_accessible_label(button, &gettext("Dismiss"));
            }
        }
    }
}

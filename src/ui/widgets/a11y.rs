//! What assistive technologies hear, and the small fixes that keep
//! libadwaita's rows usable from the keyboard and a screen reader: one
//! name per widget, a description, the inner switch of an expander named,
//! combo rows that do not clip, sliders the wheel leaves alone.

/// Sets what assistive technologies call a widget, and only that: GTK 4.8
/// names a widget by its label *and* by the widgets it is labelled by (a
/// button's or a check box's own text, an action row's title), so a
/// screen reader heard "Start Measuring Start Measuring". The
/// labelled-by relation is dropped, so the name is said once.
pub fn set_accessible_label(widget: &impl relm4::gtk::prelude::IsA<relm4::gtk::Widget>, label: &str) {
    update_property(widget.as_ref(), relm4::gtk::ffi::GTK_ACCESSIBLE_PROPERTY_LABEL, label);
    // SAFETY: every GtkWidget implements GtkAccessible; resetting a relation
    // the widget does not have is allowed.
    unsafe {
        ffi::gtk_accessible_reset_relation(
            relm4::gtk::glib::translate::ToGlibPtr::to_glib_none(widget.as_ref()).0,
            relm4::gtk::ffi::GTK_ACCESSIBLE_RELATION_LABELLED_BY,
        );
    }
}

/// Sets what assistive technologies read after a widget's name: why it is
/// off, what a term means ("" for nothing).
pub fn set_accessible_description(widget: &impl relm4::gtk::prelude::IsA<relm4::gtk::Widget>, text: &str) {
    update_property(widget.as_ref(), relm4::gtk::ffi::GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text);
}

/// gtk4-rs exposes the accessible setters only with GTK 4.10, but the C
/// functions exist since GTK 4.0, so they are declared here.
mod ffi {
    use relm4::gtk::ffi::{GtkAccessibleProperty, GtkAccessibleRelation, GtkWidget};
    use relm4::gtk::glib::gobject_ffi::GValue;
    extern "C" {
        pub fn gtk_accessible_update_property_value(
            accessible: *mut GtkWidget,
            n_properties: std::os::raw::c_int,
            properties: *mut GtkAccessibleProperty,
            values: *const GValue,
        );
        pub fn gtk_accessible_reset_relation(accessible: *mut GtkWidget, relation: GtkAccessibleRelation);
    }
}

fn update_property(widget: &relm4::gtk::Widget, property: relm4::gtk::ffi::GtkAccessibleProperty, text: &str) {
    use relm4::gtk::glib::translate::ToGlibPtr;
    use relm4::gtk::glib::value::ToValue;
    let value = text.to_value();
    let mut properties = [property];
    // SAFETY: every GtkWidget implements GtkAccessible; one property and one
    // initialised string GValue, both alive for the duration of the call.
    unsafe {
        ffi::gtk_accessible_update_property_value(
            widget.to_glib_none().0,
            1,
            properties.as_mut_ptr(),
            ToGlibPtr::<*const relm4::gtk::glib::gobject_ffi::GValue>::to_glib_none(&value).0,
        );
    }
}

/// `root` and every widget inside it, depth first.
pub fn descendants(root: &impl relm4::gtk::prelude::IsA<relm4::gtk::Widget>) -> Vec<relm4::gtk::Widget> {
    use relm4::gtk::prelude::*;
    let mut found = Vec::new();
    let mut stack = vec![root.as_ref().clone()];
    while let Some(widget) = stack.pop() {
        let mut child = widget.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push(c);
        }
        found.push(widget);
    }
    found
}

/// Names the widgets of type `T` inside `root` that a composite widget
/// builds for itself and does not name (AdwExpanderRow's enable switch).
pub fn label_inner<T: relm4::gtk::prelude::IsA<relm4::gtk::Widget>>(
    root: &impl relm4::gtk::prelude::IsA<relm4::gtk::Widget>,
    label: &str,
) {
    use relm4::gtk::prelude::*;
    for widget in descendants(root).into_iter().filter(|w| w.is::<T>()) {
        set_accessible_label(&widget, label);
    }
}

/// Keeps the value a drop-down row shows whole ("Unchanged", not
/// "Unc…"): libadwaita 1.2's combo row cuts it short to leave room for the
/// title and subtitle, which can wrap instead. The row's label for the
/// value is found by its text and told not to cut; again after each choice,
/// for which the row makes a new label.
pub fn unclip(row: &relm4::adw::ComboRow) {
    use relm4::adw::prelude::*;
    use relm4::gtk::{glib, pango};
    fn whole(row: &relm4::adw::ComboRow) {
        let Some(text) = row.selected_item().and_downcast::<relm4::gtk::StringObject>().map(|s| s.string()) else {
            return;
        };
        for label in descendants(row).into_iter().filter_map(|w| w.downcast::<relm4::gtk::Label>().ok()) {
            if label.label() == text && label.ellipsize() != pango::EllipsizeMode::None {
                label.set_ellipsize(pango::EllipsizeMode::None);
            }
        }
    }
    row.connect_selected_notify(|row| {
        let row = row.clone();
        glib::idle_add_local_once(move || whole(&row));
    });
    let row = row.clone();
    glib::idle_add_local_once(move || whole(&row));
}

/// Lets the mouse wheel over `widget` scroll the page instead of changing
/// the value: GTK's scale takes the wheel for itself, and a person
/// scrolling the page past a slider changed (and then saved) an EPP. The
/// scale's own wheel handler is removed, so the wheel reaches the scrolled
/// window around it; the keys and dragging still change the value.
pub fn ignore_wheel(widget: &impl relm4::gtk::prelude::IsA<relm4::gtk::Widget>) {
    use relm4::gtk::prelude::*;
    let widget = widget.as_ref();
    let controllers = widget.observe_controllers();
    let wheels: Vec<relm4::gtk::EventControllerScroll> =
        (0..controllers.n_items()).filter_map(|i| controllers.item(i).and_downcast()).collect();
    for wheel in wheels {
        widget.remove_controller(&wheel);
    }
}

/// A row that only shows something: not a tab stop (keyboard focus goes
/// from control to control), still read by screen readers in the list.
pub fn read_only_row(row: &impl relm4::gtk::prelude::IsA<relm4::gtk::Widget>) {
    use relm4::gtk::prelude::*;
    row.as_ref().set_focusable(false);
}

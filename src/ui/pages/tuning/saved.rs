//! A saved custom profile's row on the Tuning page: its values, and Apply,
//! Edit, Duplicate and Delete (Apply off, saying why, for the profile in
//! effect; Edit and Delete for one the administrator declares; Delete for
//! the profile in use).

use relm4::adw::{self, prelude::*};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender, FactoryView};
use relm4::gtk;

use gearshift::core::custom::CustomProfile;
use gearshift::i18n::{gettext, i18n_f, i18n_text};

/// A saved custom profile's row.
pub struct SavedItem {
    pub(super) profile: CustomProfile,
    pub(super) writable: bool,
    /// In use now: Delete is off, and says why.
    pub(super) active: bool,
    /// The administrator's file that declares it, if one does: Delete is
    /// off, and says why.
    pub(super) declared_by: Option<String>,
}

impl SavedItem {
    /// What the Delete button's tooltip says: why it is off while the
    /// profile is in use or declared by the administrator.
    fn delete_tip(&self) -> String {
        if let Some(file) = &self.declared_by {
            // Translators: {name} is a custom profile's name, {file} a path.
            i18n_text("“{name}” is set by your administrator in {file}: it cannot be deleted here")
                .arg("name", &self.profile.name)
                .arg("file", file)
                .localized()
        } else if self.active {
            // Translators: {name} is a custom profile's name.
            i18n_text("“{name}” is in use: switch to another profile to delete it")
                .arg("name", &self.profile.name)
                .localized()
        } else {
            i18n_f("Delete {}", &[&self.profile.name])
        }
    }

    /// The row's subtitle: its values (`CustomProfile::summary`), after
    /// whether it is in use and the administrator's.
    fn subtitle(&self) -> String {
        let status = match (self.active, &self.declared_by) {
            (true, Some(_)) => Some(gettext("In use now · set by your administrator")),
            (false, Some(_)) => Some(gettext("Set by your administrator")),
            (true, None) => Some(gettext("In use now")),
            (false, None) => None,
        };
        match status {
            Some(status) => format!("{status} · {}", self.profile.summary()),
            None => self.profile.summary(),
        }
    }

    /// Why Apply is off, where it is: the profile is in effect already.
    fn apply_tip(&self) -> String {
        if self.active {
            // Translators: {name} is a custom profile's name.
            i18n_text("“{name}” is in effect already").arg("name", &self.profile.name).localized()
        } else {
            i18n_f("Apply {}", &[&self.profile.name])
        }
    }

    /// Why Edit is off, where it is: the administrator's profile.
    fn edit_tip(&self) -> String {
        match &self.declared_by {
            // Translators: {name} is a custom profile's name, {file} a path.
            Some(file) => i18n_text("“{name}” is set by your administrator in {file}: duplicate it to change a copy")
                .arg("name", &self.profile.name)
                .arg("file", file)
                .localized(),
            None => i18n_f("Edit {}", &[&self.profile.name]),
        }
    }
}

/// A saved row's buttons.
#[derive(Debug)]
pub enum SavedOut {
    /// Apply the profile.
    Apply(String),
    /// Fill the form with it, to change it.
    Edit(String),
    /// Fill the form with it under a new name.
    Duplicate(String),
    /// Delete it.
    Delete(String),
}

#[relm4::factory(pub)]
impl FactoryComponent for SavedItem {
    type Init = (CustomProfile, bool, bool, Option<String>);
    type Input = ();
    type Output = SavedOut;
    type CommandOutput = ();
    type ParentWidget = adw::PreferencesGroup;

    view! {
        adw::ActionRow {
            set_title: &self.profile.name,
            #[watch]
            set_subtitle: &self.subtitle(),
            #[name(apply)]
            add_suffix = &gtk::Button {
                set_label: &gettext("Apply"),
                set_valign: gtk::Align::Center,
                #[watch]
                set_tooltip_text: Some(&self.apply_tip()),
                #[watch]
                set_sensitive: self.writable && !self.active,
                connect_clicked[sender, id = self.profile.id.clone()] => move |_| {
                    let _ = sender.output(SavedOut::Apply(id.clone()));
                },
            },
            #[name(edit)]
            add_suffix = &gtk::Button {
                set_icon_name: "document-edit-symbolic",
                set_valign: gtk::Align::Center,
                add_css_class: "flat",
                #[watch]
                set_tooltip_text: Some(&self.edit_tip()),
                #[watch]
                set_sensitive: self.declared_by.is_none(),
                connect_clicked[sender, id = self.profile.id.clone()] => move |_| {
                    let _ = sender.output(SavedOut::Edit(id.clone()));
                },
            },
            #[name(duplicate)]
            add_suffix = &gtk::Button {
                set_icon_name: "edit-copy-symbolic",
                set_valign: gtk::Align::Center,
                add_css_class: "flat",
                set_tooltip_text: Some(&i18n_f("Duplicate {}", &[&self.profile.name])),
                connect_clicked[sender, id = self.profile.id.clone()] => move |_| {
                    let _ = sender.output(SavedOut::Duplicate(id.clone()));
                },
            },
            #[name(delete)]
            add_suffix = &gtk::Button {
                set_icon_name: "user-trash-symbolic",
                set_valign: gtk::Align::Center,
                #[watch]
                set_tooltip_text: Some(&self.delete_tip()),
                add_css_class: "flat",
                #[watch]
                set_sensitive: self.writable && !self.active && self.declared_by.is_none(),
                connect_clicked[sender, id = self.profile.id.clone()] => move |_| {
                    let _ = sender.output(SavedOut::Delete(id.clone()));
                },
            },
        }
    }

    fn init_model(
        (profile, writable, active, declared_by): Self::Init,
        _index: &DynamicIndex,
        _sender: FactorySender<Self>,
    ) -> Self {
        SavedItem { profile, writable, active, declared_by }
    }

    fn init_widgets(
        &mut self,
        _index: &DynamicIndex,
        root: Self::Root,
        _returned_widget: &<Self::ParentWidget as FactoryView>::ReturnedWidget,
        sender: FactorySender<Self>,
    ) -> Self::Widgets {
        let widgets = view_output!();
        crate::ui::set_accessible_label(&widgets.apply, &i18n_f("Apply {}", &[&self.profile.name]));
        crate::ui::set_accessible_label(&widgets.edit, &i18n_f("Edit {}", &[&self.profile.name]));
        crate::ui::set_accessible_label(&widgets.duplicate, &i18n_f("Duplicate {}", &[&self.profile.name]));
        crate::ui::set_accessible_label(&widgets.delete, &i18n_f("Delete {}", &[&self.profile.name]));
        widgets
    }

    fn post_view() {
        // A screen reader hears why Delete is off, as the tooltip says.
        let why = if self.active || self.declared_by.is_some() { self.delete_tip() } else { String::new() };
        crate::ui::set_accessible_description(&widgets.delete, &why);
        crate::ui::set_accessible_description(
            &widgets.apply,
            &if self.active { self.apply_tip() } else { String::new() },
        );
        let edit_why = if self.declared_by.is_some() { self.edit_tip() } else { String::new() };
        crate::ui::set_accessible_description(&widgets.edit, &edit_why);
    }

    fn update(&mut self, (): (), _sender: FactorySender<Self>) {}
}

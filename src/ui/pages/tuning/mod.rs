//! The Tuning page: a form for a new custom profile (`form.rs`) and the
//! saved ones, each with Apply and Delete.
//!
//! A component that owns the custom profiles' changes: saving (asking
//! first where one of the same name would be replaced), deleting (with
//! Undo) and the list the helper has afterwards, which it hands to the
//! window ([`TuningOut::Customs`]) for the other pages.

mod form;
mod inputs;
mod saved;

pub use saved::{SavedItem, SavedOut};

use gearshift::core::profile_id::ProfileId;
use std::collections::BTreeMap;

use relm4::adw::{self, prelude::*};
use relm4::factory::FactoryVecDeque;
use relm4::gtk;
use relm4::{Component, ComponentParts, ComponentSender};

use gearshift::client::{ClientError, Helper};
use gearshift::core::custom::CustomProfile;
use gearshift::core::status::Status;
use gearshift::dbus::WireProfile;
use gearshift::i18n::{gettext, i18n_text};

use crate::context::Context;
use crate::ui::model::{ErrorView, Notice};

/// What the page is told, by the window and by its own widgets.
#[derive(Debug)]
pub enum TuningMsg {
    /// The helper's custom profiles now.
    Customs(Vec<CustomProfile>),
    /// Whether saving, applying and deleting go anywhere: off for a
    /// snapshot the helper does not serve, or while it cannot be asked
    /// (with why).
    Writable(bool, String),
    /// The active profile now (it cannot be deleted).
    Active(Option<ProfileId>),
    /// The profiles the administrator declares (by id, with the file of
    /// each): shown and usable, not deletable here.
    Declared(BTreeMap<String, String>),
    /// A field of the form changed: check it again.
    FormChanged,
    /// The form's Save: save its profile where it is valid.
    SaveForm,
    /// Save this profile.
    Save(CustomProfile),
    /// Save it: replacing was confirmed, or nothing is replaced.
    SaveConfirmed(CustomProfile),
    /// Apply a saved profile.
    Apply(String),
    /// Fill the form with a saved profile, to change it.
    Edit(String),
    /// Fill the form with a saved profile under a new name.
    Duplicate(String),
    /// Delete a saved profile (the toast offers Undo).
    Delete(String),
    /// Save the profile deleted last again (the toast's Undo).
    Undo,
}

/// What the page tells the window.
#[derive(Debug)]
pub enum TuningOut {
    /// Switch to a profile.
    Switch(ProfileId),
    /// The helper's custom profiles changed: the list now.
    Customs(Vec<CustomProfile>),
    /// Something to tell the person.
    Notice(Notice),
}

/// What a change to the custom profiles was, for the toast after it.
#[derive(Debug, Clone)]
pub enum CustomChange {
    /// Saved (new or replacing one of the same name).
    Saved(CustomProfile),
    /// Deleted; the toast's Undo saves it again.
    Deleted(CustomProfile),
}

/// What the page starts with.
pub struct TuningInit {
    /// The machine (its drivers, limits and model table).
    pub ctx: Context,
    /// Its status.
    pub status: Status,
    /// The way to the helper.
    pub helper: Helper,
}

/// The page.
pub struct TuningPage {
    form: form::Form,
    saved: FactoryVecDeque<SavedItem>,
    /// Shown while nothing is saved.
    none_row: adw::ActionRow,
    customs: Vec<CustomProfile>,
    writable: bool,
    /// Why saving is off, as shown.
    why_not: String,
    helper: Helper,
    /// The custom profile deleted last, while its toast offers Undo.
    undo: Option<CustomProfile>,
    /// The active profile's id.
    active: Option<ProfileId>,
    /// The administrator's declared profiles, by id, with their files.
    declared: BTreeMap<String, String>,
}

impl Component for TuningPage {
    type CommandOutput = (CustomChange, Result<Vec<WireProfile>, ClientError>);
    type Input = TuningMsg;
    type Output = TuningOut;
    type Init = TuningInit;
    type Root = adw::PreferencesPage;
    type Widgets = ();

    fn init_root() -> Self::Root {
        adw::PreferencesPage::new()
    }

    fn init(init: TuningInit, root: Self::Root, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let form = form::Form::build(&root, &init.ctx, &init.status, sender.input_sender());
        let group = adw::PreferencesGroup::builder()
            .title(gettext("Saved Profiles"))
            .description(gettext("They appear in the profile list, the tray and the command line."))
            .build();
        root.add(&group);
        let none_row = adw::ActionRow::builder().title(gettext("No custom profiles yet")).build();
        crate::ui::read_only_row(&none_row);
        group.add(&none_row);
        let saved = FactoryVecDeque::builder().launch(group).forward(sender.input_sender(), |out| match out {
            SavedOut::Apply(id) => TuningMsg::Apply(id),
            SavedOut::Edit(id) => TuningMsg::Edit(id),
            SavedOut::Duplicate(id) => TuningMsg::Duplicate(id),
            SavedOut::Delete(id) => TuningMsg::Delete(id),
        });
        let mut page = TuningPage {
            form,
            saved,
            none_row,
            customs: Vec::new(),
            writable: false,
            why_not: String::new(),
            helper: init.helper,
            undo: None,
            active: None,
            declared: BTreeMap::new(),
        };
        page.set_saved(init.ctx.customs);
        ComponentParts { model: page, widgets: () }
    }

    fn update(&mut self, msg: TuningMsg, sender: ComponentSender<Self>, root: &Self::Root) {
        match msg {
            TuningMsg::Customs(profiles) => self.set_saved(profiles),
            TuningMsg::Writable(writable, why_not) => {
                // The window says so after every event of the helper's: only
                // a change is work.
                if (writable, &why_not) == (self.writable, &self.why_not) {
                    return;
                }
                log::debug!("tuning writable: {writable}");
                self.form.set_writable(writable, &why_not);
                self.why_not = why_not;
                if self.writable != writable {
                    self.writable = writable;
                    let mut rows = self.saved.guard();
                    for i in 0..rows.len() {
                        if let Some(row) = rows.get_mut(i) {
                            row.writable = writable;
                        }
                    }
                }
            }
            TuningMsg::Active(active) => {
                if active == self.active {
                    return;
                }
                let mut rows = self.saved.guard();
                for i in 0..rows.len() {
                    if let Some(row) = rows.get_mut(i) {
                        row.active = active.as_ref().map(ProfileId::as_str) == Some(row.profile.id.as_str());
                    }
                }
                drop(rows);
                self.active = active;
            }
            TuningMsg::Declared(declared) => {
                if declared != self.declared {
                    self.declared = declared;
                    let customs = std::mem::take(&mut self.customs);
                    self.set_saved(customs);
                }
            }
            TuningMsg::FormChanged => {
                self.form.validate();
            }
            TuningMsg::SaveForm => {
                if let Some(profile) = self.form.validate() {
                    sender.input(TuningMsg::Save(profile));
                }
            }
            TuningMsg::Edit(id) => {
                if let Some(profile) = self.customs.iter().find(|p| p.id == id).cloned() {
                    self.form.fill(&profile, &profile.name, Some(id));
                }
            }
            TuningMsg::Duplicate(id) => {
                if let Some(profile) = self.customs.iter().find(|p| p.id == id).cloned() {
                    // Translators: {name} is a custom profile's name.
                    let name = i18n_text("Copy of {name}").arg("name", &profile.name).localized();
                    self.form.fill(&profile, &name, None);
                }
            }
            TuningMsg::Save(profile) if self.writable => match crate::ui::model::replaced(&self.customs, &profile) {
                // Saving the profile Edit opened replaces it: that is what
                // Edit is for, no question.
                Some(old) if self.form.editing() != Some(old.id.as_str()) => {
                    if let Some(window) = root.root().and_downcast::<gtk::Window>() {
                        let then = TuningMsg::SaveConfirmed(profile);
                        crate::ui::dialogs::confirm_replace(&window, &old.name, sender.input_sender(), then);
                    }
                }
                _ => sender.input(TuningMsg::SaveConfirmed(profile)),
            },
            TuningMsg::SaveConfirmed(profile) if self.writable => {
                let wire = gearshift::dbus::profile::to_wire(&profile);
                self.change(
                    &sender,
                    CustomChange::Saved(profile),
                    |p| async move { p.save_custom_profile(&wire).await },
                );
            }
            TuningMsg::Apply(id) => {
                if let Some(profile) = ProfileId::parse(&id) {
                    let _ = sender.output(TuningOut::Switch(profile));
                }
            }
            TuningMsg::Delete(id) if self.writable => {
                let Some(profile) = self.customs.iter().find(|p| p.id == id).cloned() else { return };
                self.change(
                    &sender,
                    CustomChange::Deleted(profile),
                    |p| async move { p.delete_custom_profile(&id).await },
                );
            }
            TuningMsg::Undo => {
                if let Some(profile) = self.undo.take() {
                    sender.input(TuningMsg::SaveConfirmed(profile));
                }
            }
            TuningMsg::Save(_) | TuningMsg::SaveConfirmed(_) | TuningMsg::Delete(_) => {}
        }
    }

    fn update_cmd(&mut self, (change, result): Self::CommandOutput, sender: ComponentSender<Self>, _root: &Self::Root) {
        let notice = |n| {
            let _ = sender.output(TuningOut::Notice(n));
        };
        let profiles = match result.map(|list| gearshift::dbus::profile::list_from_wire(&list)) {
            Ok(Ok(profiles)) => profiles,
            Ok(Err(err)) => return notice(Notice::Text(err.to_string())),
            Err(err) => return notice(Notice::Error(ErrorView::from_client(&err))),
        };
        let _ = sender.output(TuningOut::Customs(profiles));
        match change {
            CustomChange::Saved(profile) => {
                self.undo = None;
                // Translators: {name} is a custom profile's name.
                notice(Notice::Text(i18n_text("Saved “{name}”").arg("name", &profile.name).localized()));
            }
            CustomChange::Deleted(profile) => {
                // Translators: {name} is a custom profile's name.
                let text = i18n_text("Deleted “{name}”").arg("name", &profile.name).localized();
                self.undo = Some(profile);
                notice(Notice::Undo(text));
            }
        }
    }
}

impl TuningPage {
    /// Lists the saved custom profiles.
    fn set_saved(&mut self, profiles: Vec<CustomProfile>) {
        self.form.set_known(&profiles);
        let mut rows = self.saved.guard();
        rows.clear();
        for profile in &profiles {
            let active = self.active.as_ref().map(ProfileId::as_str) == Some(profile.id.as_str());
            rows.push_back((profile.clone(), self.writable, active, self.declared.get(&profile.id).cloned()));
        }
        drop(rows);
        self.none_row.set_visible(profiles.is_empty());
        self.customs = profiles;
    }

    /// Saves or deletes a custom profile through the helper, then takes the
    /// list it then has.
    fn change<F, Fut>(&self, sender: &ComponentSender<Self>, what: CustomChange, change: F)
    where
        F: FnOnce(gearshift::dbus::Helper1Proxy<'static>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<(), gearshift::dbus::HelperError>> + Send,
    {
        let helper = self.helper.clone();
        sender.oneshot_command(async move {
            let result = helper
                .call(|p| async move {
                    change(p.clone()).await?;
                    p.list_custom_profiles().await
                })
                .await;
            (what, result)
        });
    }
}

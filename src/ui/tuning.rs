//! The tuning page: edit a custom profile (EPP per core type, governor,
//! turbo, dynamic boost, frequency limits), validated against this machine
//! before it is sent, and the list of saved custom profiles.

use std::cell::RefCell;
use std::rc::Rc;

use relm4::adw::{self, prelude::*};
use relm4::gtk;
use relm4::Sender;

use gearshift::core::custom::{id_for, CustomProfile, EppSetting};
use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::profile::Resolver;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::msg::AppMsg;
use crate::context::Context;

struct Fields {
    name: gtk::Entry,
    epp_p: gtk::Scale,
    epp_e: Option<gtk::Scale>,
    governor: gtk::DropDown,
    governors: Vec<String>,
    turbo: gtk::DropDown,
    boost: gtk::DropDown,
    limits: adw::ExpanderRow,
    min_mhz: gtk::SpinButton,
    max_mhz: gtk::SpinButton,
    error: gtk::Label,
    save: gtk::Button,
    save_note: gtk::Label,
}

/// The tuning page.
pub struct TuningPage {
    /// The page.
    pub root: adw::PreferencesPage,
    saved: adw::PreferencesGroup,
    saved_rows: RefCell<Vec<adw::ActionRow>>,
    input: Sender<AppMsg>,
    /// The saved profiles, which new ids must not collide with.
    known: Rc<RefCell<Vec<CustomProfile>>>,
    writable: Rc<std::cell::Cell<bool>>,
    validate: Rc<dyn Fn() -> Option<CustomProfile>>,
    /// Why saving is off, under the button.
    save_note: gtk::Label,
}

fn three_state(labels: [String; 3]) -> gtk::DropDown {
    let strings: Vec<&str> = labels.iter().map(String::as_str).collect();
    gtk::DropDown::from_strings(&strings)
}

/// What an EPP value is, in words: the profile it matches on this model.
fn epp_meaning(status: &Status, value: u8) -> String {
    match status.profiles.iter().find(|p| p.builtin && p.epp == Some(value)) {
        // Translators: An EPP number, then a profile name.
        Some(p) => i18n_text("{value} · {profile}, the maker's value for this model")
            .arg("value", value)
            .arg("profile", p.title().localized())
            .localized(),
        None => value.to_string(),
    }
}

/// A titled EPP slider: a row whose subtitle says what the value means,
/// and below it a full-width scale with marks at this model's values.
fn epp_slider(group: &adw::PreferencesGroup, status: &Status, title: &str) -> gtk::Scale {
    let row = adw::ActionRow::builder().title(title).build();
    let scale = gtk::Scale::with_range(gtk::Orientation::Horizontal, 0.0, 255.0, 1.0);
    scale.set_hexpand(true);
    scale.set_digits(0);
    scale.set_draw_value(false);
    scale.set_margin_start(12);
    scale.set_margin_end(12);
    for p in status.profiles.iter().filter(|p| p.builtin) {
        if let Some(epp) = p.epp {
            scale.add_mark(f64::from(epp), gtk::PositionType::Bottom, None);
        }
    }
    super::set_accessible_label(&scale, title);
    let ends = gtk::Box::new(gtk::Orientation::Horizontal, 0);
    ends.set_margin_start(12);
    ends.set_margin_end(12);
    ends.append(
        &gtk::Label::builder()
            .label(gettext("Fastest"))
            .css_classes(["caption", "dim-label"])
            .hexpand(true)
            .xalign(0.0)
            .build(),
    );
    ends.append(&gtk::Label::builder().label(gettext("Most frugal")).css_classes(["caption", "dim-label"]).build());
    let column = gtk::Box::new(gtk::Orientation::Vertical, 0);
    column.set_margin_bottom(8);
    column.append(&scale);
    column.append(&ends);
    let slider_row = adw::PreferencesRow::builder().child(&column).activatable(false).selectable(false).build();
    group.add(&row);
    group.add(&slider_row);
    {
        let status = status.clone();
        let row = row.clone();
        scale.connect_value_changed(move |s| row.set_subtitle(&epp_meaning(&status, s.value().round() as u8)));
    }
    let balanced = status.profiles.get(1).and_then(|p| p.epp).unwrap_or(128);
    scale.set_value(f64::from(balanced));
    row.set_subtitle(&epp_meaning(status, balanced));
    scale
}

impl TuningPage {
    /// Builds the page for the machine in `ctx`.
    pub fn new(ctx: &Context, status: &Status, input: &Sender<AppMsg>) -> TuningPage {
        let machine: Rc<Machine> = Rc::new(ctx.machine.clone());
        let table: Rc<ModelTable> = Rc::new(ctx.table.clone());
        let root = adw::PreferencesPage::new();
        let edit = adw::PreferencesGroup::builder()
            .title(gettext("New Custom Profile"))
            .description(gettext("Your own values, checked against this machine before they are saved. Saving needs an administrator's password."))
            .build();
        root.add(&edit);

        let name = gtk::Entry::builder().valign(gtk::Align::Center).placeholder_text(gettext("Quiet office")).build();
        let name_row = adw::ActionRow::builder().title(gettext("Name")).activatable_widget(&name).build();
        name_row.add_suffix(&name);
        edit.add(&name_row);

        let hybrid = machine.is_hybrid();
        let (epp_p, epp_e) = if status.epp_supported {
            let p = epp_slider(
                &edit,
                status,
                &if hybrid { gettext("EPP on P-cores") } else { gettext("Energy preference (EPP)") },
            );
            let e = hybrid.then(|| epp_slider(&edit, status, &gettext("EPP on E-cores")));
            (p, e)
        } else {
            let row = adw::ActionRow::builder()
                .title(gettext("Energy preference (EPP)"))
                .subtitle(gettext("This machine offers no EPP"))
                .sensitive(false)
                .build();
            edit.add(&row);
            (gtk::Scale::with_range(gtk::Orientation::Horizontal, 0.0, 255.0, 1.0), None)
        };

        let mut governors: Vec<String> = vec![gettext("Profile default")];
        let offered: Vec<String> =
            machine.policies.values().next().map(|p| p.available_governors.clone()).unwrap_or_default();
        governors.extend(offered.iter().cloned());
        let governor = gtk::DropDown::from_strings(&governors.iter().map(String::as_str).collect::<Vec<_>>());
        governor.set_valign(gtk::Align::Center);
        let governor_row = adw::ActionRow::builder().title(gettext("Governor")).build();
        governor_row.add_suffix(&governor);
        edit.add(&governor_row);

        let turbo = three_state([gettext("Unchanged"), gettext("On"), gettext("Off")]);
        turbo.set_valign(gtk::Align::Center);
        let turbo_row = adw::ActionRow::builder().title(gettext("Turbo")).sensitive(machine.turbo.is_some()).build();
        turbo_row.add_suffix(&turbo);
        edit.add(&turbo_row);

        let boost = three_state([gettext("Unchanged"), gettext("On"), gettext("Off")]);
        boost.set_valign(gtk::Align::Center);
        let boost_row = adw::ActionRow::builder()
            .title(gettext("Dynamic boost"))
            .subtitle(gettext("Raises performance when a task wakes from I/O. Measured to double database transactions and halve I/O latency on a server, but on power-limited laptops it costs energy and graphics performance, because the GPU shares the power budget."))
            .sensitive(machine.hwp_dynamic_boost.is_some())
            .build();
        boost_row.add_suffix(&boost);
        edit.add(&boost_row);

        let lowest = machine.policies.values().filter_map(|p| p.hw_min_khz).min().unwrap_or(0) / 1000;
        let highest = machine.policies.values().filter_map(|p| p.hw_max_khz).max().unwrap_or(0) / 1000;
        let min_mhz = gtk::SpinButton::with_range(lowest as f64, highest.max(lowest) as f64, 100.0);
        min_mhz.set_value(lowest as f64);
        min_mhz.set_valign(gtk::Align::Center);
        let max_mhz = gtk::SpinButton::with_range(lowest as f64, highest.max(lowest) as f64, 100.0);
        max_mhz.set_value(highest as f64);
        max_mhz.set_valign(gtk::Align::Center);
        let limits = adw::ExpanderRow::builder()
            .title(gettext("Frequency limits"))
            .subtitle(
                // Translators: Frequencies in MHz.
                i18n_text("This CPU runs from {lowest} to {highest} MHz")
                    .arg("lowest", lowest)
                    .arg("highest", highest)
                    .localized(),
            )
            .show_enable_switch(true)
            .enable_expansion(false)
            .sensitive(highest > 0)
            .build();
        let min_row = adw::ActionRow::builder().title(gettext("Lowest (MHz)")).build();
        min_row.add_suffix(&min_mhz);
        let max_row = adw::ActionRow::builder().title(gettext("Highest (MHz)")).build();
        max_row.add_suffix(&max_mhz);
        limits.add_row(&min_row);
        limits.add_row(&max_row);
        edit.add(&limits);

        let error = gtk::Label::builder().wrap(true).xalign(0.0).css_classes(["error"]).margin_top(12).build();
        let save = gtk::Button::builder()
            .label(gettext("Save Profile"))
            .css_classes(["suggested-action", "pill"])
            .halign(gtk::Align::Center)
            .margin_top(12)
            .build();
        let save_note =
            gtk::Label::builder().wrap(true).css_classes(["dim-label"]).justify(gtk::Justification::Center).build();
        save_note.set_visible(false);
        let footer = gtk::Box::new(gtk::Orientation::Vertical, 6);
        footer.append(&error);
        footer.append(&save);
        footer.append(&save_note);
        edit.add(&footer);

        let known: Rc<RefCell<Vec<CustomProfile>>> = Rc::new(RefCell::new(ctx.customs.clone()));
        let writable = Rc::new(std::cell::Cell::new(false));
        let fields = Rc::new(Fields {
            name,
            epp_p,
            epp_e,
            governor,
            governors,
            turbo,
            boost,
            limits,
            min_mhz,
            max_mhz,
            error,
            save,
            save_note,
        });
        let validate = {
            let fields = fields.clone();
            let machine = machine.clone();
            let table = table.clone();
            let epp_supported = status.epp_supported;
            let known = known.clone();
            let writable = writable.clone();
            move || -> Option<CustomProfile> {
                let profile = fields.profile(epp_supported, &known.borrow());
                let resolver = Resolver::new(&machine, &table);
                let result = resolver.custom(&profile);
                let unnamed = fields.name.text().trim().is_empty();
                let problem = match (&result, unnamed) {
                    (_, true) => Some(gettext("Name the profile to save it.")),
                    (Err(err), false) => Some(
                        // Translators: A label and its value.
                        i18n_text("{label}: {value}").arg("label", err.field).arg("value", &err.message).localized(),
                    ),
                    (Ok(_), false) => None,
                };
                // A missing name is a hint, not an error.
                fields.error.set_css_classes(if unnamed { &["dim-label"] } else { &["error"] });
                fields.error.set_label(problem.as_deref().unwrap_or(""));
                fields.error.set_visible(problem.is_some());
                fields.save.set_sensitive(problem.is_none() && writable.get());
                problem.is_none().then_some(profile)
            }
        };
        let validate: Rc<dyn Fn() -> Option<CustomProfile>> = Rc::new(validate);
        validate();
        {
            let v = validate.clone();
            fields.name.connect_changed(move |_| {
                v();
            });
            let v = validate.clone();
            fields.epp_p.connect_value_changed(move |_| {
                v();
            });
            if let Some(e) = &fields.epp_e {
                let v = validate.clone();
                e.connect_value_changed(move |_| {
                    v();
                });
            }
            for dropdown in [&fields.governor, &fields.turbo, &fields.boost] {
                let v = validate.clone();
                dropdown.connect_selected_notify(move |_| {
                    v();
                });
            }
            for spin in [&fields.min_mhz, &fields.max_mhz] {
                let v = validate.clone();
                spin.connect_value_changed(move |_| {
                    v();
                });
            }
            let v = validate.clone();
            fields.limits.connect_enable_expansion_notify(move |_| {
                v();
            });
            let input = input.clone();
            let v = validate.clone();
            fields.save.connect_clicked(move |_| {
                if let Some(profile) = v() {
                    input.emit(AppMsg::SaveCustom(profile));
                }
            });
        }

        let saved = adw::PreferencesGroup::builder()
            .title(gettext("Saved Profiles"))
            .description(gettext("They appear in the profile list, the tray and the command line."))
            .build();
        root.add(&saved);
        let page = TuningPage {
            root,
            saved,
            saved_rows: RefCell::new(Vec::new()),
            input: input.clone(),
            known,
            writable,
            validate,
            save_note: fields.save_note.clone(),
        };
        page.set_saved(&ctx.customs);
        page
    }

    /// Whether saving, applying and deleting go anywhere: off for a
    /// snapshot the helper does not serve, or while it cannot be asked.
    pub fn set_writable(&self, writable: bool, why_not: &str) {
        log::debug!("tuning writable: {writable}");
        self.save_note.set_label(why_not);
        self.save_note.set_visible(!writable && !why_not.is_empty());
        if self.writable.replace(writable) != writable {
            let profiles = self.known.borrow().clone();
            self.set_saved(&profiles);
        }
    }

    /// Lists the saved custom profiles.
    pub fn set_saved(&self, profiles: &[CustomProfile]) {
        *self.known.borrow_mut() = profiles.to_vec();
        (self.validate)();
        let writable = self.writable.get();
        for row in self.saved_rows.borrow_mut().drain(..) {
            self.saved.remove(&row);
        }
        let mut rows = Vec::new();
        for profile in profiles {
            let row = adw::ActionRow::builder().title(&profile.name).subtitle(&profile.id).build();
            let apply = gtk::Button::builder().label(gettext("Apply")).valign(gtk::Align::Center).build();
            let delete = gtk::Button::builder()
                .icon_name("user-trash-symbolic")
                .valign(gtk::Align::Center)
                .tooltip_text(i18n_f("Delete {}", &[&profile.name]))
                .css_classes(["flat"])
                .build();
            let input = self.input.clone();
            let id = profile.id.clone();
            apply.connect_clicked(move |_| input.emit(AppMsg::Switch(id.clone())));
            let input = self.input.clone();
            let id = profile.id.clone();
            delete.connect_clicked(move |_| input.emit(AppMsg::DeleteCustom(id.clone())));
            apply.set_sensitive(writable);
            delete.set_sensitive(writable);
            super::set_accessible_label(&apply, &i18n_f("Apply {}", &[&profile.name]));
            super::set_accessible_label(&delete, &i18n_f("Delete {}", &[&profile.name]));
            row.add_suffix(&apply);
            row.add_suffix(&delete);
            self.saved.add(&row);
            rows.push(row);
        }
        if rows.is_empty() {
            let row = adw::ActionRow::builder().title(gettext("No custom profiles yet")).build();
            self.saved.add(&row);
            rows.push(row);
        }
        *self.saved_rows.borrow_mut() = rows;
    }
}

impl Fields {
    /// The profile the fields describe.
    /// The profile the fields describe, with the id it is saved under
    /// among the `known` ones (the same name keeps its profile's id).
    fn profile(&self, epp_supported: bool, known: &[CustomProfile]) -> CustomProfile {
        let name = self.name.text().trim().to_owned();
        let id = id_for(&name, known).id().to_owned();
        let value = |s: &gtk::Scale| EppSetting::Value(s.value().round().clamp(0.0, 255.0) as u8);
        let (epp, epp_p, epp_e) = match (&self.epp_e, epp_supported) {
            (_, false) => (None, None, None),
            (Some(e), true) => (None, Some(value(&self.epp_p)), Some(value(e))),
            (None, true) => (Some(value(&self.epp_p)), None, None),
        };
        let tri = |d: &gtk::DropDown| match d.selected() {
            1 => Some(true),
            2 => Some(false),
            _ => None,
        };
        let governor = match self.governor.selected() {
            0 => None,
            i => self.governors.get(i as usize).cloned(),
        };
        let limits = self.limits.enables_expansion();
        CustomProfile {
            id,
            name,
            epp,
            epp_performance_cores: epp_p,
            epp_efficiency_cores: epp_e,
            governor,
            turbo: tri(&self.turbo),
            dynamic_boost: tri(&self.boost),
            min_khz: limits.then(|| self.min_mhz.value() as u64 * 1000),
            max_khz: limits.then(|| self.max_mhz.value() as u64 * 1000),
            platform_profile: None,
        }
    }
}

//! The Tuning page's form: a custom profile (EPP per core type, governor,
//! turbo, dynamic boost, frequency limits), validated against this machine
//! as it is typed: each change is a message to the page, which has the form
//! check itself ([`Form::validate`]); Save hands the profile to the page
//! ([`TuningMsg::Save`]).

use relm4::adw::{self, prelude::*};
use relm4::gtk;
use relm4::Sender;

use gearshift::core::custom::{checked_for_saving, id_for, CustomProfile};
use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::plan::PreferenceForm;
use gearshift::core::profile::Resolver;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_text};

use super::inputs::{choice_row, epp_names, epp_slider, EppInput};
use super::TuningMsg;
use crate::context::Context;

struct Fields {
    group: adw::PreferencesGroup,
    name: gtk::Entry,
    epp_p: Option<EppInput>,
    epp_e: Option<EppInput>,
    bias: Option<gtk::Scale>,
    platform: Option<(adw::ComboRow, Vec<String>)>,
    governor: adw::ComboRow,
    governors: Vec<String>,
    turbo: adw::ComboRow,
    boost: adw::ComboRow,
    limits: adw::ExpanderRow,
    min_mhz: gtk::SpinButton,
    max_mhz: gtk::SpinButton,
    error: gtk::Label,
    save: gtk::Button,
    save_note: gtk::Label,
}

/// The form, as the page keeps it: its fields, and what a profile made of
/// them is checked against. The fields tell the page of every change
/// ([`TuningMsg::FormChanged`]); the page has the form check itself.
pub struct Form {
    fields: Fields,
    /// The saved profiles, which new ids must not collide with.
    known: Vec<CustomProfile>,
    /// Whether saving goes anywhere.
    writable: bool,
    /// The saved profile the form was filled with by Edit: saving it
    /// again replaces it without asking.
    editing: Option<String>,
    machine: Machine,
    table: ModelTable,
    epp_supported: bool,
}

impl Form {
    /// Builds the form for the machine in `ctx` into `root`.
    pub fn build(root: &adw::PreferencesPage, ctx: &Context, status: &Status, input: &Sender<TuningMsg>) -> Form {
        let (machine, table) = (&ctx.machine, &ctx.table);
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
        let form = Resolver::new(machine, table).form;
        let epp_input = |title: &str| match form {
            PreferenceForm::Name => EppInput::Names(epp_names(&edit, title)),
            _ => EppInput::Slider(epp_slider(&edit, status, title)),
        };
        // Under amd-pstate's dynamic EPP the kernel refuses values of one's
        // own: no slider that could only be refused.
        let own_epp = status.epp_supported && form != PreferenceForm::KernelDynamic;
        let (epp_p, epp_e) = if own_epp {
            let p = epp_input(&if hybrid { gettext("EPP on P-cores") } else { gettext("Energy preference (EPP)") });
            let e = hybrid.then(|| epp_input(&gettext("EPP on E-cores")));
            (Some(p), e)
        } else {
            let why = if form == PreferenceForm::KernelDynamic {
                gettext("Set by the kernel's dynamic EPP (amd-pstate), which refuses values of your own")
            } else {
                gettext("This machine offers no EPP")
            };
            let row = adw::ActionRow::builder()
                .title(gettext("Energy preference (EPP)"))
                .subtitle(why)
                .sensitive(false)
                .focusable(false)
                .build();
            edit.add(&row);
            (None, None)
        };
        // Without EPP, the energy bias is the CPU's own lever (Ivy Bridge).
        let bias = (form == PreferenceForm::Bias).then(|| {
            let title = gettext("Energy bias (EPB)");
            let scale = gtk::Scale::with_range(gtk::Orientation::Horizontal, 0.0, 15.0, 1.0);
            scale.set_digits(0);
            scale.set_draw_value(true);
            scale.set_hexpand(true);
            scale.set_width_request(200);
            scale.set_valign(gtk::Align::Center);
            for mark in [0.0, 6.0, 15.0] {
                scale.add_mark(mark, gtk::PositionType::Bottom, None);
            }
            scale.set_value(6.0);
            crate::ui::set_accessible_label(&scale, &title);
            crate::ui::ignore_wheel(&scale);
            let row = adw::ActionRow::builder()
                .title(title)
                .subtitle(gettext("0 fastest, 6 balanced, 15 most frugal"))
                .build();
            row.add_suffix(&scale);
            edit.add(&row);
            scale
        });
        // The firmware's profile (fans, power limits), where it has one.
        let platform =
            machine.platform_profile.as_ref().map(|p| p.custom_choices()).filter(|c| !c.is_empty()).map(|choices| {
                let mut labels = vec![gettext("As in Balanced")];
                labels.extend(choices.iter().cloned());
                let row = choice_row(&gettext("Firmware profile"), &labels);
                row.set_subtitle(&gettext("The laptop's own fan and power-limit setting"));
                edit.add(&row);
                (row, choices)
            });

        let mut governors: Vec<String> = vec![gettext("Profile default")];
        let offered: Vec<String> =
            machine.policies.values().next().map(|p| p.available_governors.clone()).unwrap_or_default();
        governors.extend(offered.iter().cloned());
        let governor = choice_row(&gettext("Governor"), &governors);
        edit.add(&governor);

        let three = [gettext("Unchanged"), gettext("On"), gettext("Off")];
        let turbo = choice_row(&gettext("Turbo"), &three);
        turbo.set_sensitive(machine.turbo.is_some());
        edit.add(&turbo);

        let boost = choice_row(&gettext("Dynamic boost"), &three);
        boost.set_subtitle(&gettext("Raises performance when a task wakes from I/O. Measured to double database transactions and halve I/O latency on a server, but on power-limited laptops it costs energy and graphics performance, because the GPU shares the power budget."));
        boost.set_sensitive(machine.hwp_dynamic_boost.is_some());
        edit.add(&boost);

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
        crate::ui::set_accessible_label(&min_mhz, &gettext("Lowest frequency (MHz)"));
        crate::ui::set_accessible_label(&max_mhz, &gettext("Highest frequency (MHz)"));
        let min_row = adw::ActionRow::builder().title(gettext("Lowest (MHz)")).activatable_widget(&min_mhz).build();
        min_row.add_suffix(&min_mhz);
        let max_row = adw::ActionRow::builder().title(gettext("Highest (MHz)")).activatable_widget(&max_mhz).build();
        max_row.add_suffix(&max_mhz);
        limits.add_row(&min_row);
        limits.add_row(&max_row);
        // The expander's own switch turns the limits on.
        crate::ui::label_inner::<gtk::Switch>(&limits, &gettext("Limit the frequency"));
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

        let fields = Fields {
            group: edit,
            name,
            epp_p,
            epp_e,
            bias,
            platform,
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
        };
        fields.connect(input);
        let form = Form {
            fields,
            known: ctx.customs.clone(),
            writable: false,
            editing: None,
            machine: ctx.machine.clone(),
            table: ctx.table.clone(),
            epp_supported: status.epp_supported,
        };
        form.validate();
        form
    }

    /// Checks the profile the fields describe, says what is wrong under
    /// them and turns Save on or off; the profile where it can be saved.
    pub fn validate(&self) -> Option<CustomProfile> {
        let fields = &self.fields;
        let profile = fields.profile(self.epp_supported, &self.known);
        let resolver = Resolver::new(&self.machine, &self.table);
        // The helper's own checks, so that a name it would refuse
        // ("Рower Saver", an invisible character) is said here.
        let result = checked_for_saving(profile.clone(), &self.known).and_then(|p| resolver.custom(&p));
        let unnamed = fields.name.text().trim().is_empty();
        let problem = match (&result, unnamed) {
            (_, true) => Some(gettext("Name the profile to save it.")),
            (Err(err), false) => Some(
                // Translators: A field's label and what is wrong with it.
                i18n_text("{label}: {value}")
                    .arg_text("label", err.label())
                    .arg_text("value", err.message.clone())
                    .localized(),
            ),
            (Ok(_), false) => None,
        };
        // A missing name is a hint, not an error.
        fields.error.set_css_classes(if unnamed { &["dim-label"] } else { &["error"] });
        fields.error.set_label(problem.as_deref().unwrap_or(""));
        fields.error.set_visible(problem.is_some());
        fields.save.set_sensitive(problem.is_none() && self.writable);
        problem.is_none().then_some(profile)
    }

    /// Whether saving goes anywhere (see [`super::TuningMsg::Writable`]).
    pub fn set_writable(&mut self, writable: bool, why_not: &str) {
        self.fields.save_note.set_label(why_not);
        self.fields.save_note.set_visible(!writable && !why_not.is_empty());
        self.writable = writable;
        self.validate();
    }

    /// Fills the fields with `profile`'s values under `name`: Edit (its
    /// own name, `editing` its id) or Duplicate (a new name). What the
    /// profile leaves alone shows as the form's "unchanged" choice.
    pub fn fill(&mut self, profile: &CustomProfile, name: &str, editing: Option<String>) {
        let fields = &self.fields;
        let resolver = Resolver::new(&self.machine, &self.table);
        fields.name.set_text(name);
        let p_core = profile.epp_performance_cores.as_ref().or(profile.epp.as_ref());
        let e_core = profile.epp_efficiency_cores.as_ref().or(profile.epp.as_ref());
        for (input, setting) in [(&fields.epp_p, p_core), (&fields.epp_e, e_core)] {
            if let (Some(input), Some(setting)) = (input, setting) {
                input.set(setting, &resolver);
            }
        }
        if let (Some(scale), Some(bias)) = (&fields.bias, profile.energy_bias) {
            scale.set_value(f64::from(bias));
        }
        if let Some((row, choices)) = &fields.platform {
            let at = profile.platform_profile.as_ref().and_then(|c| choices.iter().position(|x| x == c));
            row.set_selected(at.map_or(0, |i| i as u32 + 1));
        }
        let governor = profile.governor.as_ref().and_then(|g| fields.governors.iter().skip(1).position(|x| x == g));
        fields.governor.set_selected(governor.map_or(0, |i| i as u32 + 1));
        let tri = |value: Option<bool>| match value {
            None => 0,
            Some(true) => 1,
            Some(false) => 2,
        };
        fields.turbo.set_selected(tri(profile.turbo));
        fields.boost.set_selected(tri(profile.dynamic_boost));
        let limits = profile.min_khz.is_some() || profile.max_khz.is_some();
        fields.limits.set_enable_expansion(limits);
        if let Some(min) = profile.min_khz {
            fields.min_mhz.set_value((min / 1000) as f64);
        }
        if let Some(max) = profile.max_khz {
            fields.max_mhz.set_value((max / 1000) as f64);
        }
        fields.group.set_title(&match &editing {
            // Translators: {name} is a custom profile's name.
            Some(_) => i18n_text("Edit “{name}”").arg("name", name).localized(),
            None => gettext("New Custom Profile"),
        });
        self.editing = editing;
        fields.name.grab_focus();
        self.validate();
    }

    /// The saved profile's id that Edit filled the form with, while its
    /// name stays.
    pub fn editing(&self) -> Option<&str> {
        let id = self.editing.as_deref()?;
        let name = self.fields.name.text();
        self.known.iter().any(|p| p.id == id && p.name == name.trim()).then_some(id)
    }

    /// The saved profiles, which the form's id must not collide with.
    pub fn set_known(&mut self, profiles: &[CustomProfile]) {
        self.known = profiles.to_vec();
        self.validate();
    }
}

impl Fields {
    /// Tells the page of every change to a field, and of Save.
    fn connect(&self, input: &Sender<TuningMsg>) {
        let changed = |input: &Sender<TuningMsg>| {
            let input = input.clone();
            move || input.emit(TuningMsg::FormChanged)
        };
        let on = changed(input);
        self.name.connect_changed(move |_| on());
        for epp in self.epp_p.iter().chain(&self.epp_e) {
            epp.connect_changed(changed(input));
        }
        if let Some(bias) = &self.bias {
            let on = changed(input);
            bias.connect_value_changed(move |_| on());
        }
        let platform = self.platform.as_ref().map(|(d, _)| d);
        for dropdown in [&self.governor, &self.turbo, &self.boost].into_iter().chain(platform) {
            let on = changed(input);
            dropdown.connect_selected_notify(move |_| on());
        }
        for spin in [&self.min_mhz, &self.max_mhz] {
            let on = changed(input);
            spin.connect_value_changed(move |_| on());
        }
        let on = changed(input);
        self.limits.connect_enable_expansion_notify(move |_| on());
        let input = input.clone();
        self.save.connect_clicked(move |_| input.emit(TuningMsg::SaveForm));
    }

    /// The profile the fields describe.
    /// The profile the fields describe, with the id it is saved under
    /// among the `known` ones (the same name keeps its profile's id).
    fn profile(&self, epp_supported: bool, known: &[CustomProfile]) -> CustomProfile {
        let name = self.name.text().trim().to_owned();
        let id = id_for(&name, known).id().to_owned();
        let (epp, epp_p, epp_e) = match (&self.epp_p, &self.epp_e, epp_supported) {
            (Some(p), Some(e), true) => (None, Some(p.setting()), Some(e.setting())),
            (Some(p), None, true) => (Some(p.setting()), None, None),
            _ => (None, None, None),
        };
        let platform_profile = self
            .platform
            .as_ref()
            .and_then(|(d, choices)| d.selected().checked_sub(1).and_then(|i| choices.get(i as usize)).cloned());
        let tri = |d: &adw::ComboRow| match d.selected() {
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
            energy_bias: self.bias.as_ref().map(|b| b.value().round().clamp(0.0, 15.0) as u8),
            platform_profile,
        }
    }
}

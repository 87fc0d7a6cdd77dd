//! The Efficiency page's widgets: the lab of docs/efficiency.md. Choose
//! a workload, its length and the profiles; start; a progress bar and a
//! Cancel button while it runs; then a chart (work per joule as bars with
//! their spread, throughput against watts as points), the outcome in plain
//! words, a row per profile, and buttons to use the best profile now, on
//! battery or on AC. Earlier measurements (kept in the XDG data directory)
//! are listed with their date, kernel and CPU, and open in the same view.
//!
//! The view only shows and asks ([`LabMsg`]); the page (`mod.rs`) runs
//! the measurement.

use std::path::PathBuf;

use relm4::adw::{self, prelude::*};
use relm4::factory::{DynamicIndex, FactoryVecDeque};
use relm4::gtk;
use relm4::Sender;

use gearshift::client::lab::{self, Basis, Kept, Span};
use gearshift::core::custom::CustomProfile;
use gearshift::core::measure::{self, Rounds, Workload, KERNEL_DEFAULT};
use gearshift::core::models::Claim;
use gearshift::core::profile::BuiltinProfile;
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::figures::{
    chart_data, describe, figure_row, kept_line, kept_title, runs_of, why_not_use, workload_label, UseFacts,
};
use super::kept::KeptItem;
use super::rows::{ChoiceInit, ChoiceItem, FigureItem, FigureRow};
use super::timing::Timing;
use super::{LabMsg, LabRequest};
use crate::ui::chart::Chart;

/// A length to choose: (work scale, rounds). Each goes on until the
/// verdict is clear, from its fewest rounds to its most.
const LENGTHS: [(f64, Rounds); 3] =
    [(0.2, Rounds::Auto { min: 3, max: 5 }), (1.0, Rounds::DEFAULT), (1.0, Rounds::Auto { min: 5, max: 12 })];

/// This computer, as the page measures it.
pub struct Here {
    /// The CPU's codename ("Meteor Lake"), or a word for it.
    pub machine: String,
    /// What the maker measured for this model.
    pub claims: Vec<Claim>,
    /// What the estimate goes by.
    pub timing: Timing,
}

/// The Efficiency page's widgets.
pub struct EfficiencyView {
    /// The page.
    root: adw::PreferencesPage,
    input: Sender<LabMsg>,
    workload: adw::ComboRow,
    length: adw::ComboRow,
    choices: FactoryVecDeque<ChoiceItem>,
    start: gtk::Button,
    start_note: gtk::Label,
    progress_group: adw::PreferencesGroup,
    progress: gtk::ProgressBar,
    progress_label: gtk::Label,
    result_group: adw::PreferencesGroup,
    figures_group: adw::PreferencesGroup,
    chart: Chart,
    verdict: gtk::Label,
    details: gtk::Label,
    figure_rows: FactoryVecDeque<FigureItem>,
    use_now: gtk::Button,
    use_battery: gtk::Button,
    use_ac: gtk::Button,
    /// Why the Use buttons are off, under them.
    use_note: gtk::Label,
    best: Option<String>,
    kept_group: adw::PreferencesGroup,
    kept_rows: FactoryVecDeque<KeptItem>,
    /// Names for ids: custom profiles, the kernel's value.
    customs: Vec<CustomProfile>,
    kernel_default: Option<u8>,
    here: Here,
    claims_label: gtk::Label,
    writable: bool,
    /// Why measuring and switching are off, where they are.
    why_not: String,
    /// The profile in effect, and whether the computer has a battery.
    active: Option<String>,
    battery: bool,
    running: bool,
    /// Asking before a measurement (or checking whether to).
    asking: bool,
    /// The fewest runs of the measurement running, as it started.
    fewest: usize,
}

impl EfficiencyView {
    /// Builds the page; `kernel_default` is the kernel's generic balanced
    /// EPP where it differs from the model's.
    pub fn new(
        root: adw::PreferencesPage,
        customs: &[CustomProfile],
        kernel_default: Option<u8>,
        here: Here,
        input: &Sender<LabMsg>,
    ) -> EfficiencyView {
        let setup = adw::PreferencesGroup::builder()
            .title(gettext("Measure Efficiency"))
            .description(gettext("Runs the same work under each profile and reads the processor's energy counters: how much work per joule each profile gives on this computer, instead of the makers' figures. The profile you use now comes back afterwards."))
            .build();
        let labels: Vec<(String, String)> = Workload::ALL.into_iter().map(workload_label).collect();
        let names: Vec<&str> = labels.iter().map(|(n, _)| n.as_str()).collect();
        let workload = adw::ComboRow::builder().title(gettext("Workload")).model(&gtk::StringList::new(&names)).build();
        workload.set_subtitle(&labels[0].1);
        {
            let labels = labels.clone();
            workload.connect_selected_notify(move |row| {
                if let Some((_, words)) = labels.get(row.selected() as usize) {
                    row.set_subtitle(words);
                }
            });
        }
        crate::ui::unclip(&workload);
        setup.add(&workload);
        let lengths = [gettext("Quick"), gettext("Standard"), gettext("Thorough")];
        let length_names: Vec<&str> = lengths.iter().map(String::as_str).collect();
        let length =
            adw::ComboRow::builder().title(gettext("Length")).model(&gtk::StringList::new(&length_names)).build();
        length.set_selected(1);
        crate::ui::unclip(&length);
        setup.add(&length);

        let profiles = adw::PreferencesGroup::builder()
            .title(gettext("Profiles to Compare"))
            .description(gettext(
                "Each runs once per round, in turn, so that heat and background work spread over all.",
            ))
            .build();

        let start = gtk::Button::builder()
            .label(gettext("_Start Measuring"))
            .use_underline(true)
            .css_classes(["suggested-action", "pill"])
            .halign(gtk::Align::Center)
            .margin_top(12)
            .build();
        crate::ui::set_accessible_label(&start, &gettext("Start Measuring"));
        let start_note =
            gtk::Label::builder().wrap(true).justify(gtk::Justification::Center).css_classes(["dim-label"]).build();
        let start_box = gtk::Box::new(gtk::Orientation::Vertical, 8);
        start_box.append(&start_note);
        start_box.append(&start);
        let start_group = adw::PreferencesGroup::new();
        start_group.add(&start_box);

        let progress_group = adw::PreferencesGroup::builder().title(gettext("Measuring")).visible(false).build();
        let progress = gtk::ProgressBar::builder().show_text(true).build();
        crate::ui::set_accessible_label(&progress, &gettext("Measurement progress"));
        let progress_label = gtk::Label::builder().wrap(true).xalign(0.0).build();
        let cancel = gtk::Button::builder()
            .label(gettext("_Cancel"))
            .use_underline(true)
            .css_classes(["destructive-action", "pill"])
            .halign(gtk::Align::Center)
            .build();
        crate::ui::set_accessible_label(&cancel, &gettext("Cancel the measurement"));
        let progress_box = gtk::Box::new(gtk::Orientation::Vertical, 10);
        progress_box.append(&progress);
        progress_box.append(&progress_label);
        progress_box.append(&cancel);
        progress_group.add(&progress_box);

        let result_group = adw::PreferencesGroup::builder().title(gettext("Result")).visible(false).build();
        let chart = Chart::default();
        chart.set_margin_top(6);
        chart.set_margin_bottom(12);
        let verdict = gtk::Label::builder().wrap(true).xalign(0.0).css_classes(["heading"]).build();
        // The verdict's first sentence stands out; the comparisons follow,
        // a line each, then the maker's figures.
        let details = gtk::Label::builder().wrap(true).xalign(0.0).visible(false).build();
        let claims_label =
            gtk::Label::builder().wrap(true).xalign(0.0).css_classes(["dim-label"]).visible(false).build();
        let use_now = gtk::Button::builder().label(gettext("_Use This Profile")).use_underline(true).build();
        use_now.add_css_class("suggested-action");
        let use_battery = gtk::Button::builder().label(gettext("Use on _Battery")).use_underline(true).build();
        let use_ac = gtk::Button::builder().label(gettext("Use on _AC Power")).use_underline(true).build();
        let use_note = gtk::Label::builder()
            .wrap(true)
            .justify(gtk::Justification::Center)
            .css_classes(["dim-label"])
            .visible(false)
            .build();
        // Side by side where there is room, one under the other in a
        // narrow window. The flow box fills the width, in three equal
        // cells with each button centred in its own: centring the box
        // instead gave it its narrowest width while its height was
        // measured for another (GTK 4.8), and the buttons spilled over the
        // rows below.
        let buttons = gtk::FlowBox::builder()
            .selection_mode(gtk::SelectionMode::None)
            .min_children_per_line(1)
            .max_children_per_line(3)
            .homogeneous(true)
            .column_spacing(8)
            .row_spacing(8)
            .margin_top(12)
            .margin_bottom(12)
            .build();
        for button in [&use_now, &use_battery, &use_ac] {
            button.set_halign(gtk::Align::Center);
            buttons.insert(button, -1);
            // The buttons are the tab stops, not the boxes around them.
            if let Some(child) = button.parent() {
                child.set_focusable(false);
            }
        }
        let result_box = gtk::Box::new(gtk::Orientation::Vertical, 6);
        result_box.append(&verdict);
        result_box.append(&details);
        result_box.append(&claims_label);
        result_box.append(&chart);
        result_box.append(&buttons);
        result_box.append(&use_note);
        result_group.add(&result_box);
        let figures_group = adw::PreferencesGroup::builder().visible(false).build();

        let kept_group = adw::PreferencesGroup::builder()
            .title(gettext("Earlier Measurements"))
            .description(gettext("Kept on this computer, newest first: compare a new kernel with an old one."))
            .visible(false)
            .build();

        let kept_rows = FactoryVecDeque::builder()
            .launch(kept_group.clone())
            .forward(input, |index: DynamicIndex| LabMsg::ShowKept(index.current_index()));
        let choices = FactoryVecDeque::builder().launch(profiles.clone()).forward(input, |()| LabMsg::Chosen);
        let figure_rows = FactoryVecDeque::builder().launch(figures_group.clone()).detach();
        // What is new comes first: the running measurement, its result;
        // then the choices, and the earlier measurements last.
        for group in [&progress_group, &result_group, &figures_group, &setup, &profiles, &start_group, &kept_group] {
            root.add(group);
        }
        for (button, battery) in [(&use_now, None), (&use_battery, Some(true)), (&use_ac, Some(false))] {
            let input = input.clone();
            button.connect_clicked(move |_| input.emit(LabMsg::UseBest { battery }));
        }
        {
            let input = input.clone();
            cancel.connect_clicked(move |_| input.emit(LabMsg::Cancel));
        }
        let mut page = EfficiencyView {
            root,
            input: input.clone(),
            workload,
            length,
            choices,
            start,
            start_note,
            progress_group,
            progress,
            progress_label,
            result_group,
            figures_group,
            chart,
            verdict,
            details,
            figure_rows,
            use_now,
            use_battery,
            use_ac,
            use_note,
            best: None,
            kept_group,
            kept_rows,
            customs: customs.to_vec(),
            kernel_default,
            here,
            claims_label,
            writable: false,
            why_not: String::new(),
            active: None,
            battery: true,
            running: false,
            asking: false,
            fewest: 0,
        };
        page.set_customs(customs);
        {
            let input = input.clone();
            page.start.connect_clicked(move |_| input.emit(LabMsg::Start));
        }
        for row in [&page.workload, &page.length] {
            let input = input.clone();
            row.connect_selected_notify(move |_| input.emit(LabMsg::Chosen));
        }
        page.update_start();
        page
    }

    fn name_of(&self, id: &str) -> String {
        lab::profile_name(id, &self.customs, self.kernel_default)
    }

    /// Lists the profiles to choose from: the built-in four, the kernel's
    /// value where it differs, the custom ones (these start unchecked).
    pub fn set_customs(&mut self, customs: &[CustomProfile]) {
        self.customs = customs.to_vec();
        let was: Vec<(String, bool)> = self.choices.iter().map(|c| (c.id.clone(), c.checked)).collect();
        let defaults = measure::default_profiles(self.kernel_default);
        let ids = defaults.iter().cloned().chain(customs.iter().map(|p| p.id.clone()));
        let mut listed = Vec::new();
        for id in ids {
            let subtitle = if id == KERNEL_DEFAULT {
                gettext("Balanced with the generic EPP that kernels before 6.11 and other tools write: the comparison")
            } else if BuiltinProfile::from_id(&id).is_some() {
                String::new()
            } else {
                gettext("Custom profile")
            };
            let checked = was.iter().find(|(w, _)| *w == id).map_or(defaults.contains(&id), |(_, on)| *on);
            listed.push(ChoiceInit { title: self.name_of(&id), id, subtitle, checked });
        }
        let mut choices = self.choices.guard();
        choices.clear();
        for choice in listed {
            choices.push_back(choice);
        }
        drop(choices);
        self.update_start();
        // A custom profile that did best may have come or gone.
        self.update_use_buttons();
    }

    /// What the controls ask for, if at least one profile is checked.
    pub fn request(&self) -> Option<LabRequest> {
        let profiles: Vec<String> = self.choices.iter().filter(|c| c.checked).map(|c| c.id.clone()).collect();
        if profiles.is_empty() {
            return None;
        }
        let workload = Workload::ALL.get(self.workload.selected() as usize).copied().unwrap_or(Workload::Build);
        let (scale, rounds) = LENGTHS.get(self.length.selected() as usize).copied().unwrap_or(LENGTHS[1]);
        Some(LabRequest { workload, profiles, scale, rounds, confirmed: false })
    }

    /// How long measurements take here.
    pub fn timing(&self) -> &Timing {
        &self.here.timing
    }

    /// The note above Start: why it is off, or how long it will take.
    pub fn update_start(&self) {
        let request = self.request();
        let why_not = if self.running {
            Some(gettext("A measurement is running."))
        } else if !self.writable || self.asking {
            None
        } else if request.is_none() {
            Some(gettext("Choose at least one profile."))
        } else {
            None
        };
        self.start.set_sensitive(self.writable && !self.running && !self.asking && request.is_some());
        if let Some(words) = why_not {
            self.start_note.set_label(&words);
        } else if let Some(r) = request.as_ref().filter(|_| self.writable && !self.asking) {
            let mut text = vec![self.here.timing.how_long(r)];
            if r.rounds.range().0 < r.rounds.range().1 {
                text.push(gettext("Fewer where the results are clear sooner."));
            }
            text.push(match self.here.timing.estimate(r).basis() {
                Basis::Guess => gettext("A first guess: this computer has not measured this workload yet."),
                _ => gettext("Timed from this computer's last measurement of this workload."),
            });
            text.push(gettext("Keep the computer idle and plugged in meanwhile."));
            self.start_note.set_label(&text.join(" "));
        }
    }

    /// The note above Start as shown.
    pub fn start_note(&self) -> String {
        self.start_note.label().to_string()
    }

    /// Whether the page is asking before a measurement (or checking
    /// whether to): Start is off meanwhile.
    pub fn set_asking(&mut self, asking: bool) {
        self.asking = asking;
        if asking {
            self.start_note.set_label(&gettext("Checking the computer…"));
        }
        self.update_start();
    }

    /// The profile in effect and whether the computer has a battery, for
    /// the Use buttons.
    pub fn set_machine(&mut self, active: Option<String>, battery: bool) {
        if (&active, battery) != (&self.active, self.battery) {
            self.active = active;
            self.battery = battery;
            self.update_use_buttons();
        }
    }

    /// Whether measuring is possible (the helper is there and serves this
    /// machine); `why_not` is shown when it is not.
    pub fn set_writable(&mut self, writable: bool, why_not: &str) {
        self.writable = writable;
        why_not.clone_into(&mut self.why_not);
        if !writable {
            self.start_note.set_label(why_not);
        }
        self.update_start();
        self.update_use_buttons();
    }

    /// A measurement of `fewest` to `most` runs started.
    pub fn started(&mut self, fewest: usize, most: usize) {
        self.running = true;
        self.asking = false;
        self.update_use_buttons();
        // A result on screen is an older one now.
        self.result_group.set_visible(false);
        self.figures_group.set_visible(false);
        self.progress_group.set_visible(true);
        self.progress.set_fraction(0.0);
        self.fewest = fewest;
        self.progress.set_text(Some(&runs_of(0, fewest, most)));
        self.progress_label.set_label(&gettext("Starting the first run…"));
        self.update_start();
        self.scroll_to_top();
        log::debug!("lab started: {fewest} to {most} runs");
    }

    /// Run `index` (from 0) of `fewest` to `most` is on `profile`; `left`
    /// is how long the rest takes, once the runs made can tell.
    pub fn progress(&self, (index, fewest, most): (usize, usize, usize), profile: &str, left: Option<Span>) {
        // The bar fills towards the fewest; a round beyond them moves the
        // goal, and the words say why.
        self.progress.set_fraction(index as f64 / fewest.max(1) as f64);
        self.progress.set_text(Some(&runs_of(index + 1, fewest, most)));
        let mut text = i18n_text("Run {n}: {profile}. Please leave the computer alone meanwhile.")
            .arg("n", index + 1)
            .arg("profile", self.name_of(profile))
            .localized();
        if fewest > self.fewest {
            text.push(' ');
            text.push_str(&gettext("The results were not clear yet, so each profile runs once more."));
        }
        if let Some(left) = left {
            text.push(' ');
            text.push_str(&lab::left_words(left));
        }
        self.progress_label.set_label(&text);
        log::debug!("lab run {}/{fewest}-{most}: {profile}", index + 1);
    }

    /// A note while it runs (no energy counters: time only).
    pub fn note(&self, text: &str) {
        self.progress_label.set_label(text);
    }

    /// The measurement ended (done, cancelled or failed).
    pub fn stopped(&mut self) {
        self.running = false;
        self.update_use_buttons();
        self.progress_group.set_visible(false);
        self.update_start();
    }

    /// Shows a measurement: the chart, the verdict, a row per profile.
    pub fn show(&mut self, kept: &Kept) {
        let report = &kept.report;
        let name_of = |id: &str| self.name_of(id);
        let data = chart_data(report, &name_of);
        let description = describe(report, &name_of);
        self.chart.set(data, &description);
        let mut words = lab::verdict(report, &self.here.machine, &name_of);
        if report.energy_source.is_none() {
            words.push(gettext("No energy counters could be read here, so this compares speed only."));
        }
        let (first, rest) = words.split_first().map_or(("", &[][..]), |(f, r)| (f.as_str(), r));
        self.verdict.set_label(first);
        self.details.set_label(&rest.join("\n"));
        self.details.set_visible(!rest.is_empty());
        // The maker's figures are for this CPU: beside its own results only.
        let claims = if kept.cpu == self.here.machine {
            lab::claims(report, &self.here.machine, &self.here.claims, &name_of)
        } else {
            Vec::new()
        };
        self.claims_label.set_label(&claims.join(" "));
        self.claims_label.set_visible(!claims.is_empty());
        self.result_group.set_description(Some(&kept_line(kept)));
        let kernel = report.runs.iter().find(|f| f.profile == KERNEL_DEFAULT).and_then(|f| f.epp);
        let figures: Vec<FigureRow> =
            report.runs.iter().map(|f| figure_row(f, (report.best.as_deref(), kernel), &name_of)).collect();
        let mut rows = self.figure_rows.guard();
        rows.clear();
        for row in figures {
            rows.push_back(row);
        }
        drop(rows);
        self.best.clone_from(&report.best);
        self.update_use_buttons();
        self.result_group.set_visible(true);
        self.figures_group.set_visible(true);
        self.scroll_to_top();
        log::debug!("lab result shown: best {:?}, {}", report.best, words.join(" "));
        self.input.emit(LabMsg::Shown { best: report.best.clone(), verdict: words.join(" ") });
    }

    /// Shows the page's start (libadwaita 1.2 has no
    /// `adw_preferences_page_scroll_to_top`).
    fn scroll_to_top(&self) {
        let scrolled =
            crate::ui::descendants(&self.root).into_iter().find_map(|w| w.downcast::<gtk::ScrolledWindow>().ok());
        if let Some(scrolled) = scrolled {
            scrolled.vadjustment().set_value(0.0);
        }
    }

    /// The Use buttons work where the best is a profile of this machine
    /// (not the kernel's bare value, not a custom profile deleted since)
    /// that switching can choose now; one that is off says why, in its
    /// tooltip, to a screen reader, and under the buttons.
    fn update_use_buttons(&self) {
        let best = self.best.as_deref();
        let usable =
            best.is_some_and(|id| BuiltinProfile::from_id(id).is_some() || self.customs.iter().any(|p| p.id == id));
        let name = best.map(|id| self.name_of(id)).unwrap_or_default();
        let why = why_not_use(&UseFacts {
            best,
            usable,
            name: &name,
            running: self.running,
            why_not: (!self.writable).then_some(self.why_not.as_str()),
            active: self.active.as_deref(),
            battery: self.battery,
        });
        let labels = if usable {
            [
                i18n_f("Use {} now", &[&name]),
                i18n_f("Use {} on battery", &[&name]),
                i18n_f("Use {} on AC power", &[&name]),
            ]
        } else {
            [gettext("Use This Profile"), gettext("Use on Battery"), gettext("Use on AC Power")]
        };
        let mut said: Vec<&str> = Vec::new();
        for ((button, label), why) in [&self.use_now, &self.use_battery, &self.use_ac].into_iter().zip(labels).zip(&why)
        {
            button.set_sensitive(why.is_none());
            crate::ui::set_accessible_label(button, &label);
            button.set_tooltip_text(why.as_deref());
            crate::ui::set_accessible_description(button, why.as_deref().unwrap_or(""));
            if let Some(why) = why.as_deref().filter(|w| !said.contains(w)) {
                said.push(why);
            }
        }
        self.use_note.set_label(&said.join(" "));
        self.use_note.set_visible(!said.is_empty());
        log::debug!("lab use buttons: {why:?}");
    }

    /// Lists the kept measurements (the newest 20); activating one asks
    /// to show it ([`LabMsg::ShowKept`]).
    pub fn set_kept(&mut self, kept: &[(PathBuf, Kept)]) {
        self.here.timing.kept = kept.iter().map(|(_, k)| k.clone()).collect();
        self.update_start();
        let mut listed = Vec::new();
        for (_, k) in kept.iter().take(20) {
            listed.push((kept_title(k, &|id| self.name_of(id)), kept_line(k)));
        }
        self.kept_group.set_visible(!listed.is_empty());
        let mut rows = self.kept_rows.guard();
        rows.clear();
        for row in listed {
            rows.push_back(row);
        }
    }
}

//! The overview page: what this CPU is, the profile switcher with what each
//! profile means here, AC/battery switching, and live figures.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use relm4::adw::{self, prelude::*};
use relm4::gtk;
use relm4::Sender;

use gearshift::core::identity::CoreType;
use gearshift::core::report::{HardwareReport, Level};
use gearshift::dbus::AutoPolicy;
use gearshift::i18n::{gettext, i18n_f, i18n_text, Text};

use super::cores::{group_summary, CoreData};
use super::model::{builtin_title, ModeRow, Overview, ProfileRow};
use super::msg::AppMsg;

/// The overview page's widgets.
pub struct OverviewPage {
    /// The page.
    pub root: gtk::ScrolledWindow,
    profiles: adw::PreferencesGroup,
    /// (profile id, radio, row, usable here).
    rows: RefCell<Vec<(String, gtk::CheckButton, adw::ActionRow, bool)>>,
    /// What the rows show, to rebuild them only when it changes.
    shown: RefCell<Vec<ProfileRow>>,
    /// The firmware's platform profile (hidden where there is none).
    platform_row: adw::ActionRow,
    /// The lap sensor's warning (hidden while not on a lap).
    lap_row: adw::ActionRow,
    /// The facts' rows, by label (the driver's change with its mode).
    facts: Vec<(String, adw::ActionRow)>,
    /// The driver's mode, to switch (hidden where it has no mode file).
    mode_row: adw::ComboRow,
    mode_list: gtk::StringList,
    /// What the mode row shows.
    mode_shown: RefCell<Option<ModeRow>>,
    /// The hardware report and its findings' rows.
    report_row: adw::ExpanderRow,
    finding_rows: RefCell<Vec<adw::ActionRow>>,
    updating: Rc<Cell<bool>>,
    auto_row: adw::ActionRow,
    auto_switch: gtk::Switch,
    /// The profiles automatic switching uses, on AC and on battery.
    ac_row: adw::ComboRow,
    battery_row: adw::ComboRow,
    /// The ids the two rows offer, in their order.
    auto_ids: Rc<RefCell<Vec<String>>>,
    power_row: adw::ActionRow,
    p_row: adw::ActionRow,
    e_row: adw::ActionRow,
    active_label: gtk::Label,
    spinner: gtk::Spinner,
}

fn row(title: &str, value: &str) -> adw::ActionRow {
    let row = adw::ActionRow::builder().title(title).subtitle(value).build();
    row.add_css_class("property");
    super::read_only_row(&row);
    row
}

/// A finding of the hardware report, its explanation in the tooltip.
fn finding_row(finding: &gearshift::core::report::Finding) -> adw::ActionRow {
    let r = adw::ActionRow::builder().title(finding.label.localized()).subtitle(finding.value.localized()).build();
    r.set_tooltip_text(Some(&finding.detail.localized()));
    super::read_only_row(&r);
    let icon = match finding.level {
        Level::Good => "emblem-ok-symbolic",
        Level::Warning => "dialog-warning-symbolic",
        Level::Info => "dialog-information-symbolic",
    };
    r.add_prefix(&gtk::Image::from_icon_name(icon));
    r
}

impl OverviewPage {
    /// Builds the page.
    pub fn new(model: &Overview, report: &HardwareReport, input: &Sender<AppMsg>) -> OverviewPage {
        let content = gtk::Box::new(gtk::Orientation::Vertical, 24);
        content.set_margin_top(24);
        content.set_margin_bottom(24);
        content.set_margin_start(12);
        content.set_margin_end(12);

        let title = gtk::Label::builder()
            .label(&model.title)
            .wrap(true)
            .justify(gtk::Justification::Center)
            .css_classes(["title-1"])
            .build();
        let subtitle = gtk::Label::builder()
            .label(&model.subtitle)
            .wrap(true)
            .justify(gtk::Justification::Center)
            .css_classes(["dim-label"])
            .build();
        let active_label =
            gtk::Label::builder().wrap(true).justify(gtk::Justification::Center).css_classes(["title-4"]).build();
        let spinner = gtk::Spinner::new();
        let active_box = gtk::Box::new(gtk::Orientation::Horizontal, 6);
        active_box.set_halign(gtk::Align::Center);
        active_box.append(&active_label);
        active_box.append(&spinner);
        let header = gtk::Box::new(gtk::Orientation::Vertical, 6);
        header.append(&title);
        header.append(&subtitle);
        header.append(&active_box);
        content.append(&header);

        let profiles = adw::PreferencesGroup::builder()
            .title(gettext("Power Profile"))
            .description(gettext(
                "Each profile uses the energy performance preference the CPU's maker chose for this model.",
            ))
            .build();
        content.append(&profiles);

        let auto_switch = gtk::Switch::builder().valign(gtk::Align::Center).build();
        let auto_row = adw::ActionRow::builder().title(gettext("Automatic")).activatable_widget(&auto_switch).build();
        auto_row.add_suffix(&auto_switch);
        let updating = Rc::new(Cell::new(false));
        {
            let input = input.clone();
            let updating = updating.clone();
            auto_switch.connect_state_set(move |_, on| {
                if !updating.get() {
                    input.emit(AppMsg::SetAuto(on));
                }
                gtk::glib::Propagation::Proceed
            });
        }
        let auto_ids: Rc<RefCell<Vec<String>>> = Rc::default();
        let ac_row = adw::ComboRow::builder().title(gettext("On AC power")).model(&gtk::StringList::new(&[])).build();
        let battery_row =
            adw::ComboRow::builder().title(gettext("On battery")).model(&gtk::StringList::new(&[])).build();
        battery_row.set_visible(model.battery);
        for row in [&ac_row, &battery_row] {
            let (input, updating, ids) = (input.clone(), updating.clone(), auto_ids.clone());
            let (ac, battery) = (ac_row.clone(), battery_row.clone());
            row.connect_selected_notify(move |_| {
                if updating.get() {
                    return;
                }
                let ids = ids.borrow();
                let pick = |r: &adw::ComboRow| ids.get(r.selected() as usize).cloned();
                if let (Some(on_ac), Some(on_battery)) = (pick(&ac), pick(&battery)) {
                    input.emit(AppMsg::SetAutoPair(on_ac, on_battery));
                }
            });
        }
        let automatic = adw::PreferencesGroup::new();
        automatic.add(&auto_row);
        automatic.add(&ac_row);
        automatic.add(&battery_row);
        content.append(&automatic);

        let machine = adw::PreferencesGroup::builder().title(gettext("This Machine")).build();
        let platform_row = row(&gettext("Platform profile"), model.platform.as_deref().unwrap_or_default());
        platform_row.set_visible(model.platform.is_some());
        // The firmware limits performance on a lap: a warning under the
        // platform profile, shown while the sensor says so (in the hardware
        // report's words).
        let lap_row = adw::ActionRow::builder()
            .title(gettext("On a lap"))
            .subtitle(gettext(
                "The firmware limits performance while the laptop sits on a lap, to keep its underside cool.",
            ))
            .visible(model.on_lap)
            .build();
        let lap_icon = gtk::Image::from_icon_name("dialog-warning-symbolic");
        lap_icon.add_css_class("warning");
        lap_row.add_prefix(&lap_icon);
        super::read_only_row(&lap_row);
        // The driver's mode, under the driver: the modes it takes, the
        // current one chosen; choosing another switches it (the window
        // makes it insensitive, saying why, where it cannot).
        let mode_list = gtk::StringList::new(&[]);
        let mode_row = adw::ComboRow::builder().title(gettext("Driver mode")).model(&mode_list).visible(false).build();
        {
            let input = input.clone();
            let updating = updating.clone();
            mode_row.connect_selected_notify(move |row| {
                if updating.get() {
                    return;
                }
                if let Some(mode) = row.selected_item().and_downcast::<gtk::StringObject>() {
                    input.emit(AppMsg::SetDriverMode(mode.string().into()));
                }
            });
        }
        let mut facts = Vec::new();
        for (i, (label, value)) in model.facts.iter().enumerate() {
            if i == model.mode_at {
                machine.add(&mode_row);
            }
            if i == model.platform_at {
                machine.add(&platform_row);
                machine.add(&lap_row);
            }
            let fact = row(label, value);
            machine.add(&fact);
            facts.push((label.clone(), fact));
        }
        if model.mode_at >= model.facts.len() {
            machine.add(&mode_row);
        }
        if model.platform_at >= model.facts.len() {
            machine.add(&platform_row);
            machine.add(&lap_row);
        }
        let power_row = row(&gettext("Package power"), "");
        power_row.set_visible(false);
        machine.add(&power_row);
        let p_row = row(&gettext("P-cores now"), "");
        let e_row = row(&gettext("E-cores now"), "");
        p_row.set_visible(false);
        e_row.set_visible(false);
        machine.add(&p_row);
        machine.add(&e_row);
        content.append(&machine);

        let findings = adw::PreferencesGroup::builder().title(gettext("What Gearshift Found")).build();
        let report_row = adw::ExpanderRow::builder().title(gettext("Hardware report")).build();
        findings.add(&report_row);
        content.append(&findings);

        let clamp = adw::Clamp::builder().maximum_size(720).child(&content).build();
        let root = gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).child(&clamp).build();
        let page = OverviewPage {
            root,
            profiles,
            rows: RefCell::new(Vec::new()),
            shown: RefCell::new(Vec::new()),
            platform_row,
            lap_row,
            facts,
            mode_row,
            mode_list,
            mode_shown: RefCell::new(None),
            report_row,
            finding_rows: RefCell::new(Vec::new()),
            updating,
            auto_row,
            auto_switch,
            ac_row,
            battery_row,
            auto_ids,
            power_row,
            p_row,
            e_row,
            active_label,
            spinner,
        };
        page.set_profiles(model, input);
        page.set_report(report);
        page
    }

    /// Shows the machine's facts as they are now (the driver and what it
    /// takes change with its mode).
    pub fn set_facts(&self, model: &Overview) {
        for (label, value) in &model.facts {
            if let Some((_, row)) = self.facts.iter().find(|(l, _)| l == label) {
                if row.subtitle().as_deref() != Some(value.as_str()) {
                    row.set_subtitle(value);
                }
            }
        }
    }

    /// Shows the driver's mode: the modes it takes and the chosen one, and
    /// whether (or why not) it can be switched; hides the row where the
    /// driver has no mode file (`None`).
    pub fn set_mode(&self, mode: Option<&ModeRow>) {
        if self.mode_shown.borrow().as_ref() == mode {
            return;
        }
        log::debug!("driver mode row: {mode:?}");
        self.mode_shown.replace(mode.cloned());
        let Some(mode) = mode else {
            self.mode_row.set_visible(false);
            return;
        };
        self.updating.set(true);
        let listed: Vec<String> =
            (0..self.mode_list.n_items()).filter_map(|i| self.mode_list.string(i)).map(String::from).collect();
        if listed != mode.modes {
            let modes: Vec<&str> = mode.modes.iter().map(String::as_str).collect();
            self.mode_list.splice(0, self.mode_list.n_items(), &modes);
        }
        self.mode_row
            .set_selected(mode.selected.and_then(|i| u32::try_from(i).ok()).unwrap_or(gtk::INVALID_LIST_POSITION));
        self.updating.set(false);
        self.mode_row.set_subtitle(&mode.subtitle);
        self.mode_row.set_sensitive(mode.sensitive);
        super::set_accessible_label(&self.mode_row, &mode.accessible);
        self.mode_row.set_visible(true);
    }

    /// Shows the hardware report (again: a driver mode change changes what
    /// it finds).
    pub fn set_report(&self, report: &HardwareReport) {
        self.report_row.set_subtitle(&report.summary.localized());
        for row in self.finding_rows.borrow_mut().drain(..) {
            self.report_row.remove(&row);
        }
        let rows: Vec<adw::ActionRow> = report.findings.iter().map(finding_row).collect();
        for row in &rows {
            self.report_row.add_row(row);
        }
        *self.finding_rows.borrow_mut() = rows;
    }

    /// (Re)builds the profile rows (after custom profiles change, or what
    /// they set here), leaving them be when nothing they show changed.
    pub fn set_profiles(&self, model: &Overview, input: &Sender<AppMsg>) {
        if *self.shown.borrow() == model.profiles && !self.rows.borrow().is_empty() {
            return;
        }
        self.shown.replace(model.profiles.clone());
        // The automatic switching rows offer the usable profiles.
        self.updating.set(true);
        let usable: Vec<&ProfileRow> = model.profiles.iter().filter(|p| p.usable).collect();
        let titles: Vec<&str> = usable.iter().map(|p| p.title.as_str()).collect();
        for row in [&self.ac_row, &self.battery_row] {
            let previous = self.auto_ids.borrow().get(row.selected() as usize).cloned();
            if let Some(list) = row.model().and_then(|m| m.downcast::<gtk::StringList>().ok()) {
                list.splice(0, list.n_items(), &titles);
            }
            if let Some(i) = previous.and_then(|id| usable.iter().position(|p| p.id == id)) {
                row.set_selected(i as u32);
            }
        }
        *self.auto_ids.borrow_mut() = usable.iter().map(|p| p.id.clone()).collect();
        self.updating.set(false);
        for (_, _, row, _) in self.rows.borrow_mut().drain(..) {
            self.profiles.remove(&row);
        }
        let mut group: Option<gtk::CheckButton> = None;
        let mut rows = Vec::new();
        for profile in &model.profiles {
            let check = gtk::CheckButton::builder().valign(gtk::Align::Center).build();
            if let Some(first) = &group {
                check.set_group(Some(first));
            } else {
                group = Some(check.clone());
            }
            let row = adw::ActionRow::builder()
                .title(&profile.title)
                .subtitle(&profile.subtitle)
                .activatable_widget(&check)
                .sensitive(profile.usable)
                .build();
            row.add_prefix(&check);
            let input = input.clone();
            let updating = self.updating.clone();
            let id = profile.id.clone();
            check.connect_toggled(move |check| {
                if check.is_active() && !updating.get() {
                    input.emit(AppMsg::Switch(id.clone()));
                }
            });
            self.profiles.add(&row);
            rows.push((profile.id.clone(), check, row, profile.usable));
        }
        *self.rows.borrow_mut() = rows;
    }

    /// Shows the firmware's platform profile and the lap warning as they
    /// are now (they change with the profile, a hotkey, the lap sensor).
    pub fn set_firmware(&self, model: &Overview) {
        if let Some(value) = &model.platform {
            if self.platform_row.subtitle().as_deref() != Some(value.as_str()) {
                self.platform_row.set_subtitle(value);
            }
        }
        self.platform_row.set_visible(model.platform.is_some());
        self.lap_row.set_visible(model.on_lap);
    }

    /// Shows which profile is active, without switching anything.
    pub fn set_active(&self, active: Option<&str>) {
        self.updating.set(true);
        for (id, check, _, _) in self.rows.borrow().iter() {
            check.set_active(Some(id.as_str()) == active);
        }
        self.updating.set(false);
    }

    /// The line under the CPU's name.
    pub fn set_active_text(&self, title: &str) {
        self.active_label.set_label(&i18n_f("Active profile: {}", &[&title]));
    }

    /// Allows or forbids switching.
    pub fn set_switching(&self, allowed: bool) {
        for (_, _, row, usable) in self.rows.borrow().iter() {
            row.set_sensitive(allowed && *usable);
        }
    }

    /// A switch is in flight.
    pub fn set_busy(&self, busy: bool) {
        self.spinner.set_spinning(busy);
        self.spinner.set_visible(busy);
    }

    /// Shows the AC/battery policy.
    pub fn set_auto(&self, auto: Option<&AutoPolicy>, allowed: bool) {
        self.updating.set(true);
        let on = auto.is_some_and(|a| a.enabled);
        let (ac, battery) = AutoPolicy::pair_or_default(auto);
        self.auto_switch.set_active(on);
        let name = |id: &str| builtin_title(id).unwrap_or_else(|| id.to_owned());
        self.auto_row.set_subtitle(
            // Translators: Profile names.
            &i18n_text("{on_ac} on AC power, {on_battery} on battery")
                .arg("on_ac", name(&ac))
                .arg("on_battery", name(&battery))
                .localized(),
        );
        self.auto_row.set_sensitive(allowed && auto.is_some());
        let ids = self.auto_ids.borrow();
        for (row, id) in [(&self.ac_row, &ac), (&self.battery_row, &battery)] {
            if let Some(i) = ids.iter().position(|p| p == id) {
                row.set_selected(i as u32);
            }
            // Chosen while switching is on; turning it on uses them.
            row.set_sensitive(allowed && on);
        }
        log::debug!("automatic rows: {on}, {ac} on AC, {battery} on battery, sensitive {}", allowed && on);
        self.updating.set(false);
    }

    /// Shows package power, or hides the row.
    pub fn set_power(&self, watts: Option<f64>) {
        match watts {
            Some(w) => {
                self.power_row.set_subtitle(&i18n_f("{} W", &[&format!("{w:.1}")]));
                self.power_row.set_visible(true);
            }
            None => self.power_row.set_visible(false),
        }
    }

    /// Live per-group figures (hybrid CPUs).
    pub fn set_groups(&self, data: &CoreData, hybrid: bool) {
        if !hybrid {
            return;
        }
        for (row, kind) in [(&self.p_row, CoreType::Performance), (&self.e_row, CoreType::Efficiency)] {
            if let Some(text) = group_summary(data, Some(kind)) {
                if row.subtitle().as_deref() != Some(text.as_str()) {
                    row.set_subtitle(&text);
                }
                row.set_visible(true);
            }
        }
    }
}

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
        super::read_only_row(&r);
        group.add(&r);
    }
    let clamp = adw::Clamp::builder().maximum_size(640).child(&group).build();
    status.set_child(Some(&clamp));
    gtk::ScrolledWindow::builder().child(&status).vexpand(true).build().upcast()
}

//! The overview page: what this CPU is, the profile switcher with what each
//! profile means here, AC/battery switching, and live figures.
//!
//! A component: the window tells it what is true now ([`OverviewMsg`]),
//! it tells the window what the person asked for ([`OverviewOut`]). The
//! profile rows and the hardware report's findings are factories; a change
//! the window makes to a control blocks that control's own signal, so
//! showing a state never reads as a request.

use gearshift::core::machine::DriverMode;
use gearshift::core::profile_id::ProfileId;
use std::sync::Arc;

use relm4::adw::{self, prelude::*};
use relm4::factory::FactoryVecDeque;
use relm4::gtk::{self, glib};
use relm4::{Component, ComponentParts, ComponentSender};

use gearshift::client::options::{PowerOption, PowerOptions};
use gearshift::core::identity::CoreType;
use gearshift::core::report::HardwareReport;
use gearshift::dbus::AutoPolicy;
use gearshift::i18n::{gettext, i18n_f};

use crate::ui::cores::{group_summary, CoreData};
use crate::ui::model::{ModeRow, Overview, ProfileRow};
use options::{show_options, OptionItem};
use rows::{FindingItem, ProfileItem};

mod controls;
mod empty;
mod options;
mod rows;

use controls::{set_auto, set_mode};

pub use empty::nothing_to_tune;

/// What the window shows on the page's controls: the active profile, who
/// may switch, the AC/battery policy, the driver's mode.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Controls {
    /// The active profile's id.
    pub active: Option<ProfileId>,
    /// The line under the CPU's name.
    pub active_title: String,
    /// A choice by hand overrides automatic switching until the power
    /// source changes: "Return to Automatic" shows.
    pub overridden: bool,
    /// Switching is possible now (the helper answers, not a snapshot, no
    /// measurement running).
    pub allowed: bool,
    /// The helper's AC/battery policy, once known.
    pub auto: Option<AutoPolicy>,
    /// The driver mode's row; `None` hides it.
    pub mode: Option<ModeRow>,
    /// Battery awareness and the actions.
    pub options: PowerOptions,
}

/// What the window tells the page.
#[derive(Debug)]
pub enum OverviewMsg {
    /// The machine as read now: facts, firmware, what each profile sets.
    Machine(Box<Overview>),
    /// The hardware report (again: a driver mode change changes it).
    Report(Box<HardwareReport>),
    /// The controls' state.
    Controls(Box<Controls>),
    /// A switch is in flight.
    Busy(bool),
    /// Package power, or none.
    Power(Option<f64>),
    /// A tick's frame: the per-group figures.
    Samples(Arc<CoreData>),
    #[doc(hidden)]
    Auto(bool),
    #[doc(hidden)]
    Pair,
    #[doc(hidden)]
    Mode(DriverMode),
    #[doc(hidden)]
    ReturnToAutomatic,
}

/// What the person asked for on the page.
#[derive(Debug)]
pub enum OverviewOut {
    /// Switch to a profile.
    Switch(ProfileId),
    /// Turn AC/battery switching on or off.
    SetAuto(bool),
    /// AC/battery switching with these (on AC, on battery).
    SetAutoPair(String, String),
    /// Switch the driver's mode.
    SetDriverMode(DriverMode),
    /// Turn battery awareness or an action on or off.
    SetOption(PowerOption, bool),
    /// Let the AC/battery policy choose again.
    ReturnToAutomatic,
}

/// What the page starts with.
pub struct OverviewInit {
    /// The machine.
    pub model: Overview,
    /// The hardware report.
    pub report: HardwareReport,
    /// The sampler's first frame of figures.
    pub cores: Arc<CoreData>,
    /// The CPU has P- and E-cores.
    pub hybrid: bool,
}

/// The page's state.
pub struct OverviewPage {
    profiles: FactoryVecDeque<ProfileItem>,
    /// The hidden leader of the profiles' radio group.
    leader: gtk::CheckButton,
    /// What the rows show, to rebuild them only when it changes.
    shown: Vec<ProfileRow>,
    findings: FactoryVecDeque<FindingItem>,
    /// Battery awareness (on machines with a battery) and the actions.
    options: FactoryVecDeque<OptionItem>,
    /// The machine has a battery of its own.
    battery: bool,
    /// The ids the two automatic rows offer, in their order.
    auto_ids: Vec<String>,
    controls: Controls,
    /// The latest frame of the sampler's figures.
    cores: Arc<CoreData>,
    hybrid: bool,
}

/// The page's widgets that change.
pub struct OverviewWidgets {
    /// The firmware's platform profile (hidden where there is none).
    platform_row: adw::ActionRow,
    /// The lap sensor's warning (hidden while not on a lap).
    lap_row: adw::ActionRow,
    /// The facts' rows, by label (the driver's change with its mode).
    facts: Vec<(String, adw::ActionRow)>,
    /// The driver's mode, to switch (hidden where it has no mode file).
    mode_row: adw::ComboRow,
    mode_list: gtk::StringList,
    mode_changed: glib::SignalHandlerId,
    report_row: adw::ExpanderRow,
    auto_row: adw::ActionRow,
    auto_switch: gtk::Switch,
    auto_toggled: glib::SignalHandlerId,
    /// The profiles automatic switching uses, on AC and on battery, and
    /// their handlers.
    pair: [(adw::ComboRow, glib::SignalHandlerId); 2],
    power_row: adw::ActionRow,
    p_row: adw::ActionRow,
    e_row: adw::ActionRow,
    active_label: gtk::Label,
    spinner: gtk::Spinner,
    return_auto: gtk::Button,
}

fn row(title: &str, value: &str) -> adw::ActionRow {
    let row = adw::ActionRow::builder().title(title).subtitle(value).build();
    row.add_css_class("property");
    crate::ui::read_only_row(&row);
    row
}

/// Runs `f` with `handler` of `widget` blocked: what the window shows is
/// not what the person chose.
fn quietly<W: IsA<glib::Object>>(widget: &W, handler: &glib::SignalHandlerId, f: impl FnOnce(&W)) {
    widget.block_signal(handler);
    f(widget);
    widget.unblock_signal(handler);
}

impl Component for OverviewPage {
    type CommandOutput = ();
    type Input = OverviewMsg;
    type Output = OverviewOut;
    type Init = OverviewInit;
    type Root = gtk::ScrolledWindow;
    type Widgets = OverviewWidgets;

    fn init_root() -> Self::Root {
        gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).build()
    }

    fn init(init: OverviewInit, root: Self::Root, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let OverviewInit { model, report, cores, hybrid } = init;
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
        let return_auto = gtk::Button::builder()
            .label(gettext("Return to Automatic"))
            .tooltip_text(gettext("Let automatic switching choose the profile for the power source now"))
            .halign(gtk::Align::Center)
            .css_classes(["pill"])
            .visible(false)
            .build();
        let input = sender.input_sender().clone();
        return_auto.connect_clicked(move |_| input.emit(OverviewMsg::ReturnToAutomatic));
        header.append(&return_auto);
        content.append(&header);

        let profile_group = adw::PreferencesGroup::builder()
            .title(gettext("Power Profile"))
            .description(gettext(
                "Each profile uses the energy performance preference the CPU's maker chose for this model.",
            ))
            .build();
        content.append(&profile_group);
        let profiles =
            FactoryVecDeque::builder().launch(profile_group).forward(sender.output_sender(), OverviewOut::Switch);

        let auto_switch = gtk::Switch::builder().valign(gtk::Align::Center).build();
        let auto_row = adw::ActionRow::builder().title(gettext("Automatic")).activatable_widget(&auto_switch).build();
        auto_row.add_suffix(&auto_switch);
        let auto_toggled = {
            let input = sender.input_sender().clone();
            auto_switch.connect_state_set(move |_, on| {
                input.emit(OverviewMsg::Auto(on));
                glib::Propagation::Proceed
            })
        };
        let ac_row = adw::ComboRow::builder().title(gettext("On AC power")).model(&gtk::StringList::new(&[])).build();
        let battery_row =
            adw::ComboRow::builder().title(gettext("On battery")).model(&gtk::StringList::new(&[])).build();
        battery_row.set_visible(model.battery);
        let pair = [ac_row, battery_row].map(|row| {
            crate::ui::unclip(&row);
            let input = sender.input_sender().clone();
            let handler = row.connect_selected_notify(move |_| input.emit(OverviewMsg::Pair));
            (row, handler)
        });
        let automatic = adw::PreferencesGroup::new();
        automatic.add(&auto_row);
        for (row, _) in &pair {
            automatic.add(row);
        }
        content.append(&automatic);

        let options_group = adw::PreferencesGroup::builder()
            .title(gettext("Battery and Devices"))
            .description(gettext("What changes besides the CPU, as the desktop's power settings also show it"))
            .visible(false)
            .build();
        content.append(&options_group);
        let options = FactoryVecDeque::builder()
            .launch(options_group)
            .forward(sender.output_sender(), |(option, on)| OverviewOut::SetOption(option, on));

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
        crate::ui::read_only_row(&lap_row);
        // The driver's mode: the modes it takes, the current one chosen;
        // choosing another switches it (the window makes it insensitive,
        // saying why, where it cannot). In a list of its own, just under
        // the facts: GTK's list takes Tab from row to row only while each
        // row can take the focus, and the facts are not tab stops, so a
        // control among them was never reached from the keyboard.
        let mode_list = gtk::StringList::new(&[]);
        let mode_row = adw::ComboRow::builder().title(gettext("Driver mode")).model(&mode_list).visible(false).build();
        crate::ui::unclip(&mode_row);
        let mode_changed = {
            let input = sender.input_sender().clone();
            mode_row.connect_selected_notify(move |row| {
                let chosen = row.selected_item().and_downcast::<gtk::StringObject>();
                // The list shows each mode's label (`DriverMode::label`).
                let mode = chosen.and_then(|label| {
                    DriverMode::ALL.into_iter().find(|m| m.label().localized() == label.string().as_str())
                });
                if let Some(mode) = mode {
                    input.emit(OverviewMsg::Mode(mode));
                }
            })
        };
        let mut facts = Vec::new();
        for (i, (label, value)) in model.facts.iter().enumerate() {
            if i == model.platform_at {
                machine.add(&platform_row);
                machine.add(&lap_row);
            }
            let fact = row(label, value);
            machine.add(&fact);
            facts.push((label.clone(), fact));
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
        let mode_group = adw::PreferencesGroup::new();
        mode_group.add(&mode_row);
        content.append(&mode_group);

        let findings_group = adw::PreferencesGroup::builder().title(gettext("What Gearshift Found")).build();
        let report_row = adw::ExpanderRow::builder().title(gettext("Hardware report")).build();
        findings_group.add(&report_row);
        content.append(&findings_group);
        let findings = FactoryVecDeque::builder().launch(report_row.clone()).detach();

        let clamp = adw::Clamp::builder().maximum_size(720).child(&content).build();
        root.set_child(Some(&clamp));
        let mut page = OverviewPage {
            profiles,
            leader: gtk::CheckButton::new(),
            shown: Vec::new(),
            findings,
            options,
            battery: model.battery,
            auto_ids: Vec::new(),
            controls: Controls::default(),
            cores,
            hybrid,
        };
        let mut widgets = OverviewWidgets {
            platform_row,
            lap_row,
            facts,
            mode_row,
            mode_list,
            mode_changed,
            report_row,
            auto_row,
            auto_switch,
            auto_toggled,
            pair,
            power_row,
            p_row,
            e_row,
            active_label,
            spinner,
            return_auto,
        };
        page.set_profiles(&mut widgets, &model);
        page.set_report(&widgets, &report);
        ComponentParts { model: page, widgets }
    }

    fn update_with_view(
        &mut self,
        widgets: &mut Self::Widgets,
        msg: OverviewMsg,
        sender: ComponentSender<Self>,
        _root: &Self::Root,
    ) {
        match msg {
            OverviewMsg::Machine(model) => {
                set_facts(widgets, &model);
                set_firmware(widgets, &model);
                self.set_profiles(widgets, &model);
            }
            OverviewMsg::Report(report) => self.set_report(widgets, &report),
            OverviewMsg::Controls(controls) => {
                if *controls != self.controls {
                    if controls.mode != self.controls.mode {
                        log::debug!("driver mode row: {:?}", controls.mode);
                    }
                    self.controls = *controls;
                    self.show_controls(widgets);
                }
            }
            OverviewMsg::Busy(busy) => {
                widgets.spinner.set_spinning(busy);
                widgets.spinner.set_visible(busy);
                if !busy {
                    // Whatever the answer: the radios show the profile in
                    // effect, not the one clicked.
                    self.show_controls(widgets);
                }
            }
            OverviewMsg::ReturnToAutomatic => {
                let _ = sender.output(OverviewOut::ReturnToAutomatic);
            }
            OverviewMsg::Power(watts) => match watts {
                Some(w) => {
                    widgets.power_row.set_subtitle(&i18n_f("{} W", &[&gearshift::i18n::decimal(w, 1)]));
                    widgets.power_row.set_visible(true);
                }
                None => widgets.power_row.set_visible(false),
            },
            OverviewMsg::Samples(frame) => {
                self.cores = frame;
                self.set_groups(widgets);
            }
            OverviewMsg::Auto(on) => {
                let _ = sender.output(OverviewOut::SetAuto(on));
            }
            OverviewMsg::Pair => {
                let pick = |r: &adw::ComboRow| self.auto_ids.get(r.selected() as usize).cloned();
                if let (Some(on_ac), Some(on_battery)) = (pick(&widgets.pair[0].0), pick(&widgets.pair[1].0)) {
                    let _ = sender.output(OverviewOut::SetAutoPair(on_ac, on_battery));
                }
            }
            OverviewMsg::Mode(mode) => {
                let _ = sender.output(OverviewOut::SetDriverMode(mode));
                // A choice is a request: the row shows the mode in effect
                // until the driver runs in another (the window asks first,
                // and Cancel changes nothing).
                set_mode(widgets, self.controls.mode.as_ref());
            }
        }
    }
}

/// Shows the machine's facts as they are now (the driver and what it
/// takes change with its mode).
fn set_facts(widgets: &OverviewWidgets, model: &Overview) {
    for (label, value) in &model.facts {
        if let Some((_, row)) = widgets.facts.iter().find(|(l, _)| l == label) {
            if row.subtitle().as_deref() != Some(value.as_str()) {
                row.set_subtitle(value);
            }
        }
    }
}

/// Shows the firmware's platform profile and the lap warning as they are
/// now (they change with the profile, a hotkey, the lap sensor).
fn set_firmware(widgets: &OverviewWidgets, model: &Overview) {
    if let Some(value) = &model.platform {
        if widgets.platform_row.subtitle().as_deref() != Some(value.as_str()) {
            widgets.platform_row.set_subtitle(value);
        }
    }
    widgets.platform_row.set_visible(model.platform.is_some());
    widgets.lap_row.set_visible(model.on_lap);
}

impl OverviewPage {
    /// Shows the hardware report's summary and findings.
    fn set_report(&mut self, widgets: &OverviewWidgets, report: &HardwareReport) {
        widgets.report_row.set_subtitle(&report.summary.localized());
        let mut findings = self.findings.guard();
        findings.clear();
        for finding in &report.findings {
            findings.push_back(finding.clone());
        }
    }

    /// (Re)builds the profile rows (after custom profiles change, or what
    /// they set here), leaving them be when nothing they show changed.
    fn set_profiles(&mut self, widgets: &mut OverviewWidgets, model: &Overview) {
        if self.shown == model.profiles && !self.profiles.is_empty() {
            return;
        }
        self.shown.clone_from(&model.profiles);
        // The automatic switching rows offer the usable profiles.
        let usable: Vec<&ProfileRow> =
            model.profiles.iter().filter(|p| p.usable && p.id != gearshift::core::kernel_own::KERNEL_OWN).collect();
        let titles: Vec<&str> = usable.iter().map(|p| p.title.as_str()).collect();
        for (row, handler) in &widgets.pair {
            let previous = self.auto_ids.get(row.selected() as usize).cloned();
            quietly(row, handler, |row| {
                if let Some(list) = row.model().and_downcast::<gtk::StringList>() {
                    list.splice(0, list.n_items(), &titles);
                }
                if let Some(i) = previous.and_then(|id| usable.iter().position(|p| p.id == id)) {
                    row.set_selected(i as u32);
                }
            });
        }
        self.auto_ids = usable.iter().map(|p| p.id.clone()).collect();
        let active = self.controls.active.clone();
        let allowed = self.controls.allowed;
        let mut rows = self.profiles.guard();
        rows.clear();
        for profile in &model.profiles {
            let on = active.as_ref().map(ProfileId::as_str) == Some(profile.id.as_str());
            rows.push_back((profile.clone(), self.leader.clone(), on, allowed));
        }
        drop(rows);
        self.show_controls(widgets);
    }

    /// Shows the controls' state: the active profile's radio, who may
    /// switch, the AC/battery rows, the driver's mode.
    fn show_controls(&mut self, widgets: &mut OverviewWidgets) {
        let Controls { active, active_title, overridden, allowed, auto, mode, options } = &self.controls;
        let mut rows = self.profiles.guard();
        for i in 0..rows.len() {
            if let Some(item) = rows.get_mut(i) {
                item.active = active.as_ref().map(ProfileId::as_str) == Some(item.row.id.as_str());
                item.allowed = *allowed;
            }
        }
        drop(rows);
        widgets.active_label.set_label(&i18n_f("Active profile: {}", &[active_title]));
        widgets.return_auto.set_visible(*overridden && *allowed);
        set_auto(widgets, &self.auto_ids, auto.as_ref(), (*allowed, self.battery));
        set_mode(widgets, mode.as_ref());
        let switches: Vec<(PowerOption, bool)> =
            options.switches().into_iter().filter(|(o, _)| self.battery || *o != PowerOption::BatteryAware).collect();
        show_options(&mut self.options, &switches, *allowed);
    }

    /// Live per-group figures (hybrid CPUs).
    fn set_groups(&self, widgets: &OverviewWidgets) {
        if !self.hybrid {
            return;
        }
        let data = &self.cores;
        for (row, kind) in [(&widgets.p_row, CoreType::Performance), (&widgets.e_row, CoreType::Efficiency)] {
            if let Some(text) = group_summary(data, Some(kind)) {
                if row.subtitle().as_deref() != Some(text.as_str()) {
                    row.set_subtitle(&text);
                }
                row.set_visible(true);
            }
        }
    }
}

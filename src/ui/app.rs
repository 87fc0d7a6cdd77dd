//! The main window's model and its updates: overview and profile switcher,
//! per-core grid, tuning.
//!
//! One model, one message enum (`msg.rs`). The widgets are built in
//! `window.rs`, the actions and accelerators in `actions.rs`, the sampler in
//! `sampler.rs`. Background work runs in relm4 commands: the sampler (paused
//! while the window is hidden or minimized), the live connection to the
//! helper, and each call to the helper. Every failure goes through
//! [`App::show_error`].

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use relm4::adw::{self, prelude::*};
use relm4::gtk::gdk;
use relm4::{Component, ComponentParts, ComponentSender};

use gearshift::client::{ClientError, Helper};
use gearshift::core::machine::Machine;
use gearshift::core::parse::{parse_flag, parse_word};
use gearshift::core::paths::{global_file, DYTC_LAPMODE};
use gearshift::core::platform::PlatformProfile;
use gearshift::core::profile::BuiltinProfile;
use gearshift::core::report::HardwareReport;
use gearshift::core::root::Probe;
use gearshift::core::status::Status;
use gearshift::dbus::{AutoPolicy, Helper1Proxy, HelperError};
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::actions;
use super::cores::CoreData;
use super::model::{active_title, cores_header, mode_row, switch_blocked, switched_toast, ErrorView, Overview};
use super::msg::{AppMsg, CmdOut, CustomChange, LabRequest};
use super::sampler::{self, SamplerControl};
use super::window::{self, AppWidgets};
use super::{dialogs, Launch};
use crate::context::Context;
use crate::live::{self, HelperEvent};

/// The window's state.
pub struct App {
    demo: bool,
    ctx: Context,
    status: Status,
    report: HardwareReport,
    active: Option<String>,
    auto: Option<AutoPolicy>,
    /// The way to the helper, shared by every call and the live link.
    helper: Helper,
    helper_error: Option<ErrorView>,
    last_error: Option<ErrorView>,
    /// Other power managers (the ids in docs/interfaces.md).
    conflicts: Vec<String>,
    cores: Rc<RefCell<CoreData>>,
    control: SamplerControl,
    /// The person's settings (GSettings).
    settings: crate::settings::Settings,
    /// When the firmware's platform profile and lap sensor were last read.
    firmware_read: Instant,
    /// The driver mode asked for, while the switch is in flight.
    mode_pending: Option<String>,
    /// Whether the helper changes the machine shown: this computer, or a
    /// snapshot only where the helper itself serves it (its `Root`).
    served: bool,
    /// The toast on screen, dismissed when the next one comes.
    toast: Option<adw::Toast>,
    /// The custom profile deleted last, while its toast offers Undo.
    undo: Option<gearshift::core::custom::CustomProfile>,
    /// The running measurement's cancel flag.
    lab: Option<Arc<AtomicBool>>,
}

/// How often the sampler's ticks also look at the firmware's platform
/// profile and lap sensor (a hotkey or the sensor may change them with no
/// word from the helper).
const FIRMWARE_EVERY: Duration = Duration::from_secs(5);

impl App {
    /// A snapshot is shown read-only: the helper changes the live machine
    /// (unless the helper serves the snapshot itself, as in the tests).
    fn read_only(&self) -> bool {
        !self.served
    }

    /// Follows the helper: its connection, profile and signals.
    fn start_live_link(&self, sender: &ComponentSender<Self>) {
        let out = sender.command_sender().clone();
        let helper = self.helper.clone();
        let visible = self.control.visible.subscribe();
        let interval_ms = self.control.interval_ms.clone();
        sender.command(move |_, shutdown| {
            shutdown
                .register(live::run(
                    helper,
                    move |event| {
                        let _ = out.send(CmdOut::Helper(event));
                    },
                    visible,
                    interval_ms,
                ))
                .drop_on_shutdown()
        });
    }

    fn rebuild_status(&mut self) {
        self.status = Status::build(
            &self.ctx.root_arg,
            &self.ctx.resolver(),
            &self.ctx.customs,
            self.active.clone().filter(|a| !a.is_empty()),
            Vec::new(),
            &self.ctx.extra_problems,
        );
    }

    /// The overview's view model as things are now.
    fn overview_model(&self) -> Overview {
        Overview::from_machine(&self.status, self.ctx.machine.platform_profile.as_ref())
    }

    /// Reads the firmware's platform profile and the lap sensor again (a
    /// few small files) and shows them where they changed: the overview's
    /// rows, what each profile sets, the per-core page's header.
    fn refresh_firmware(&mut self, widgets: &AppWidgets, sender: &ComponentSender<Self>) {
        self.firmware_read = Instant::now();
        let mut probe = Probe::new(&self.ctx.root);
        // The driver's mode, which someone else may have switched (the
        // kernel sends no event): everything is read again then.
        let control = self.ctx.machine.mode_control;
        let mode = control.and_then(|c| probe.parsed(&global_file(c.file()), parse_word));
        if mode.is_some() && mode != self.ctx.machine.mode {
            log::debug!("driver mode now {mode:?}");
            self.reread_machine(widgets, sender);
            return;
        }
        let platform = PlatformProfile::read(&mut probe);
        let lap_mode = probe.parsed(DYTC_LAPMODE, parse_flag);
        let machine = &mut self.ctx.machine;
        if platform == machine.platform_profile && lap_mode == machine.lap_mode {
            return;
        }
        log::debug!(
            "platform profile now {:?}, lap mode {lap_mode:?}",
            platform.as_ref().and_then(|p| p.current.as_deref())
        );
        machine.platform_profile = platform;
        machine.lap_mode = lap_mode;
        self.rebuild_status();
        // The wizard, opened later, shows the report as it is then.
        self.report = HardwareReport::build(&self.ctx.resolver());
        let model = self.overview_model();
        widgets.overview.set_firmware(&model);
        widgets.overview.set_profiles(&model, sender.input_sender());
        if let Some(grid) = &widgets.grid {
            grid.set_header(
                &cores_header(&self.status, self.ctx.machine.platform_profile.as_ref()),
                super::model::on_lap(&self.status),
            );
        }
        self.refresh_overview(widgets);
    }

    /// Reads the whole machine again (after a driver mode change: the
    /// driver's name, the mode, EPP and governors all change) and shows it
    /// everywhere: the overview's facts, rows and report, the per-core
    /// page's header, and the sampler's files, opened afresh.
    fn reread_machine(&mut self, widgets: &AppWidgets, sender: &ComponentSender<Self>) {
        self.firmware_read = Instant::now();
        self.ctx.machine = Machine::read(&self.ctx.root);
        self.rebuild_status();
        self.report = HardwareReport::build(&self.ctx.resolver());
        let model = self.overview_model();
        widgets.overview.set_facts(&model);
        widgets.overview.set_firmware(&model);
        widgets.overview.set_profiles(&model, sender.input_sender());
        widgets.overview.set_report(&self.report);
        if let Some(grid) = &widgets.grid {
            grid.set_header(
                &cores_header(&self.status, self.ctx.machine.platform_profile.as_ref()),
                super::model::on_lap(&self.status),
            );
        }
        self.control.reopen();
        self.refresh_overview(widgets);
    }

    /// The one path every failure takes: a toast with a Details button
    /// that opens the whole explanation.
    fn show_error(&mut self, widgets: &AppWidgets, view: ErrorView) {
        let toast = adw::Toast::new(&view.title);
        toast.set_timeout(8);
        toast.set_button_label(Some(&gettext("Details")));
        toast.set_action_name(Some("win.last-error"));
        self.last_error = Some(view);
        self.show_toast(widgets, toast);
    }

    fn toast(&mut self, widgets: &AppWidgets, text: &str) {
        let toast = adw::Toast::new(text);
        toast.set_timeout(4);
        self.show_toast(widgets, toast);
    }

    /// Shows a toast in place of the one on screen: libadwaita queues
    /// toasts, and a queue of stale news ("Switched to X" after a later
    /// switch to Y) misleads.
    fn show_toast(&mut self, widgets: &AppWidgets, toast: adw::Toast) {
        if let Some(old) = self.toast.replace(toast.clone()) {
            old.dismiss();
        }
        log::debug!("toast: {}", toast.title().unwrap_or_default());
        widgets.toasts.add_toast(toast);
        // libadwaita 1.2 leaves the toast's close button without a name:
        // screen readers say "button". Once the toast is built, name it.
        let overlay = widgets.toasts.clone();
        relm4::gtk::glib::idle_add_local_once(move || name_toast_buttons(&overlay));
    }

    /// The lasting condition shown in the banner, if any.
    fn banner_text(&self) -> Option<(String, Option<(String, AppMsg)>)> {
        if self.read_only() {
            let text = if self.demo {
                gettext("This is a demo snapshot of a Meteor Lake laptop. Switching is off: it would change this computer, not the snapshot.")
            } else {
                i18n_f(
                    "Showing the snapshot in {}. Switching is off: it would change this computer, not the snapshot.",
                    &[&self.ctx.root_arg],
                )
            };
            return Some((text, None));
        }
        if let Some(view) = &self.helper_error {
            let action = match &view.command {
                Some(cmd) => Some((gettext("Copy Command"), AppMsg::Copy(cmd.clone()))),
                None => Some((gettext("Details"), AppMsg::Details(view.clone()))),
            };
            let text = match &view.command {
                // Translators: {problem} is a sentence; {command} a shell command.
                Some(cmd) => i18n_text("{problem} To fix it, run: {command}")
                    .arg("problem", &view.title)
                    .arg("command", cmd)
                    .localized(),
                None => view.title.clone(),
            };
            return Some((text, action));
        }
        if let Some(id) = self.conflicts.first() {
            let fix = gearshift::core::conflicts::fix(id).localized();
            // Translators: {program} is another power manager, {why} a sentence
            // on what it does, {command} a shell command.
            let text = i18n_text(
                "{program} also manages power here; Gearshift applies nothing on its own while it runs. {why} To resolve it, run: {command}",
            )
            .arg("program", id)
            .arg("why", gearshift::core::conflicts::explain(id).localized())
            .arg("command", &fix)
            .localized();
            return Some((text, Some((gettext("Copy Command"), AppMsg::Copy(fix)))));
        }
        None
    }

    fn update_banner(&self, widgets: &AppWidgets) {
        match self.banner_text() {
            Some((text, action)) => {
                widgets.banner_label.set_label(&text);
                match action {
                    Some((label, msg)) => {
                        widgets.banner_button.set_label(&label);
                        widgets.banner_button.set_visible(true);
                        *widgets.banner_action.borrow_mut() = Some(msg);
                    }
                    None => widgets.banner_button.set_visible(false),
                }
                widgets.banner.set_reveal_child(true);
            }
            None => widgets.banner.set_reveal_child(false),
        }
    }

    fn can_switch(&self) -> bool {
        !self.read_only() && self.helper_error.is_none()
    }

    fn refresh_overview(&self, widgets: &AppWidgets) {
        widgets.overview.set_active(self.active.as_deref().or(self.status.active_profile.as_deref()));
        widgets.overview.set_switching(self.can_switch() && self.lab.is_none());
        widgets.overview.set_auto(self.auto.as_ref(), self.can_switch() && self.lab.is_none());
        widgets.overview.set_active_text(&active_title(&self.status, self.active.as_deref()));
        let blocked = switch_blocked(self.read_only(), self.helper_error.as_ref());
        widgets.overview.set_mode(mode_row(&self.status, self.mode_pending.as_deref(), blocked).as_ref());
        if let Some(tuning) = &widgets.tuning {
            let why = if self.read_only() {
                gettext("Saving is off in a snapshot: the helper would save to this computer, not the snapshot.")
            } else {
                self.helper_error.as_ref().map(|v| v.title.clone()).unwrap_or_default()
            };
            tuning.set_writable(self.can_switch(), &why);
        }
        if let Some(page) = &widgets.efficiency {
            let why = if self.read_only() {
                gettext(
                    "Measuring is off in a snapshot: it would switch the profiles of this computer, not the snapshot.",
                )
            } else {
                self.helper_error.as_ref().map(|v| v.title.clone()).unwrap_or_default()
            };
            page.set_writable(self.can_switch(), &why);
        }
    }
}

impl Component for App {
    type CommandOutput = CmdOut;
    type Input = AppMsg;
    type Output = ();
    type Init = Launch;
    type Root = adw::ApplicationWindow;
    type Widgets = AppWidgets;

    fn init_root() -> Self::Root {
        adw::ApplicationWindow::builder().title(gettext("Gearshift")).default_width(1000).default_height(760).build()
    }

    fn init(launch: Launch, root: Self::Root, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let Launch { ctx, demo, settings } = launch;
        let interval_ms = settings.interval_ms();
        let status = Status::build(&ctx.root_arg, &ctx.resolver(), &ctx.customs, None, Vec::new(), &ctx.extra_problems);
        let report = HardwareReport::build(&ctx.resolver());
        let history = (60_000 / interval_ms.max(1)).clamp(10, 600) as usize;
        let interval_ms = Arc::new(AtomicU64::new(interval_ms));
        let cores = Rc::new(RefCell::new(CoreData::from_status(&status, history)));
        let control = SamplerControl::new(interval_ms.clone());

        // Run from a source tree, with no icon installed: the tree's own
        // icons, so that the window, About and the wizard show them.
        if let Some(display) = gdk::Display::default() {
            let theme = relm4::gtk::IconTheme::for_display(&display);
            let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/icons");
            if !theme.has_icon(super::APP_ID) && source.is_dir() {
                theme.add_search_path(&source);
                log::debug!("icons from {}", source.display());
            }
        }
        let overview_model = Overview::from_machine(&status, ctx.machine.platform_profile.as_ref());
        let widgets = window::build(&root, sender.input_sender(), &ctx, &status, &report, &overview_model, &cores);
        actions::install(&root, sender.input_sender());
        sampler::watch_visibility(&root, sender.input_sender());

        let conflicts = if ctx.root.is_live() {
            gearshift::core::conflicts::detect(&ctx.root, &[]).into_iter().map(|c| c.id.to_owned()).collect()
        } else {
            Vec::new()
        };
        let served = ctx.root.is_live();
        let model = App {
            demo,
            ctx,
            status,
            report,
            active: None,
            auto: None,
            helper: Helper::new(),
            helper_error: None,
            last_error: None,
            conflicts,
            cores,
            control,
            settings,
            firmware_read: Instant::now(),
            mode_pending: None,
            served,
            toast: None,
            undo: None,
            lab: None,
        };
        if overview_model.can_tune && model.ctx.machine.has_cpufreq() {
            let run = sampler::run(
                model.ctx.root.clone(),
                model.ctx.machine.clone(),
                &model.control,
                sender.command_sender().clone(),
            );
            sender.command(move |_, shutdown| shutdown.register(run).drop_on_shutdown());
        }
        {
            let input = sender.input_sender().clone();
            model.settings.connect_interval_changed(move |ms| input.emit(AppMsg::IntervalChanged(ms)));
        }
        if model.served {
            model.start_live_link(&sender);
        } else {
            // A snapshot: switching stays off unless the helper serves
            // this very directory.
            let (helper, root) = (model.helper.clone(), model.ctx.root.clone());
            sender.oneshot_command(async move { CmdOut::Served(helper.serves(&root).await) });
        }
        model.update_banner(&widgets);
        model.refresh_overview(&widgets);
        model.list_kept(&widgets);
        // For screenshots, tests and the bench.
        let dev = &model.ctx.dev;
        if let Some((w, h)) = dev.size {
            root.set_default_size(w, h);
        }
        if let Some(page) = dev.page.as_deref().filter(|p| widgets.stack.child_by_name(p).is_some()) {
            widgets.stack.set_visible_child_name(page);
        }
        if dev.report_first_frame {
            window::report_first_frame(&root);
        }
        let seen = if model.ctx.root.is_live() {
            model.settings.wizard_done()
        } else {
            model.settings.wizard_done() || model.settings.snapshot_wizard_seen()
        };
        if !seen {
            // First start: the wizard, once the window is on screen.
            let input = sender.input_sender().clone();
            let shown = std::cell::Cell::new(false);
            root.connect_map(move |_| {
                if !shown.replace(true) {
                    input.emit(AppMsg::Wizard);
                }
            });
        }
        ComponentParts { model, widgets }
    }

    fn update_with_view(
        &mut self,
        widgets: &mut AppWidgets,
        msg: AppMsg,
        sender: ComponentSender<Self>,
        root: &Self::Root,
    ) {
        match msg {
            AppMsg::Switch(id) => {
                // Not while measuring: the lab switches, and puts back.
                if !self.can_switch() || self.lab.is_some() {
                    return;
                }
                widgets.overview.set_busy(true);
                let helper = self.helper.clone();
                sender.oneshot_command(async move {
                    let wanted = id.clone();
                    let result = helper.call(|p| async move { p.set_profile(&wanted).await }).await;
                    CmdOut::Switched(id, result)
                });
            }
            AppMsg::SetDriverMode(mode) => {
                // The row shows the current mode again when nothing is
                // switched (the same mode, or switching is off or busy).
                if !self.can_switch() || self.mode_pending.is_some() || self.status.mode.as_deref() == Some(&mode) {
                    self.refresh_overview(widgets);
                    return;
                }
                self.mode_pending = Some(mode.clone());
                widgets.overview.set_busy(true);
                self.refresh_overview(widgets);
                let helper = self.helper.clone();
                sender.oneshot_command(async move {
                    let wanted = mode.clone();
                    let result = helper.call(|p| async move { p.set_driver_mode(&wanted).await }).await;
                    CmdOut::ModeSet(mode, result)
                });
            }
            AppMsg::DriverModeChanged => self.reread_machine(widgets, &sender),
            AppMsg::SetAutoPair(on_ac, on_battery) => {
                if !self.can_switch() || self.lab.is_some() {
                    return;
                }
                let helper = self.helper.clone();
                sender.oneshot_command(async move {
                    let result = helper.call(|p| async move { p.set_auto_policy(&on_ac, &on_battery).await }).await;
                    CmdOut::AutoSet(result)
                });
            }
            AppMsg::SetAuto(on) => {
                if !self.can_switch() || self.lab.is_some() {
                    return;
                }
                let (helper, known) = (self.helper.clone(), self.auto.clone());
                sender.oneshot_command(async move { CmdOut::AutoSet(helper.set_auto(on, known.as_ref()).await) });
            }
            AppMsg::Visible(visible) => {
                self.control.visible.send_replace(visible);
            }
            AppMsg::Refresh => {
                self.control.refresh.notify_one();
                self.refresh_firmware(widgets, &sender);
                self.toast(widgets, &gettext("Refreshed"));
            }
            AppMsg::SaveCustom(profile) => {
                if !self.can_switch() {
                    return;
                }
                match super::model::replaced(&self.ctx.customs, &profile) {
                    Some(old) => dialogs::confirm_replace(root, &old.name, sender.input_sender(), profile),
                    None => sender.input(AppMsg::SaveCustomConfirmed(profile)),
                }
            }
            AppMsg::SaveCustomConfirmed(profile) => {
                if !self.can_switch() {
                    return;
                }
                let wire = gearshift::dbus::profile::to_wire(&profile);
                self.change_customs(&sender, CustomChange::Saved(profile), |p| async move {
                    p.save_custom_profile(&wire).await
                });
            }
            AppMsg::DeleteCustom(id) => {
                if !self.can_switch() {
                    return;
                }
                let Some(profile) = self.ctx.customs.iter().find(|p| p.id == id).cloned() else { return };
                self.change_customs(&sender, CustomChange::Deleted(profile), |p| async move {
                    p.delete_custom_profile(&id).await
                });
            }
            AppMsg::UndoDelete => {
                if let Some(profile) = self.undo.take() {
                    sender.input(AppMsg::SaveCustomConfirmed(profile));
                }
            }
            AppMsg::Details(view) => dialogs::error_details(root, &view),
            AppMsg::LastError => {
                if let Some(view) = &self.last_error {
                    dialogs::error_details(root, view);
                }
            }
            AppMsg::Copy(text) => {
                if let Some(display) = gdk::Display::default() {
                    display.clipboard().set_text(&text);
                    self.toast(widgets, &i18n_f("Copied: {}", &[&text]));
                }
            }
            AppMsg::Page(name) => {
                if widgets.stack.child_by_name(name).is_some() {
                    widgets.stack.set_visible_child_name(name);
                }
            }
            AppMsg::About => dialogs::about(root),
            AppMsg::Wizard => {
                let mut status = self.status.clone();
                status.conflicts.clone_from(&self.conflicts);
                let input = sender.input_sender().clone();
                super::wizard::show(
                    root,
                    &status,
                    &self.report,
                    !self.read_only(),
                    &self.helper,
                    &self.settings,
                    move || input.emit(AppMsg::DriverModeChanged),
                    || {},
                );
            }
            AppMsg::Shortcuts => dialogs::shortcuts(root),
            AppMsg::Preferences => {
                let ms = self.control.interval_ms.load(std::sync::atomic::Ordering::Relaxed);
                dialogs::preferences(root, ms, sender.input_sender());
            }
            AppMsg::SetInterval(ms) => {
                if let Err(err) = self.settings.set_interval_ms(ms) {
                    self.toast(widgets, &i18n_f("cannot save the settings: {}", &[&err]));
                }
            }
            AppMsg::IntervalChanged(ms) => {
                // From the settings, whoever changed them.
                self.control.interval_ms.store(ms, std::sync::atomic::Ordering::Relaxed);
                self.control.refresh.notify_one();
                log::debug!("sampling every {ms} ms");
            }
            AppMsg::Measure(request) => self.measure(widgets, &sender, root, request),
            AppMsg::CancelMeasure => {
                if let Some(cancel) = &self.lab {
                    log::debug!("lab: cancel asked");
                    cancel.store(true, Ordering::SeqCst);
                    if let Some(page) = &widgets.efficiency {
                        page.note(&gettext("Stopping; the profile you used comes back…"));
                    }
                }
            }
            AppMsg::UseOn { id, battery } => {
                let auto = self.auto.clone().unwrap_or_default();
                let (on_ac, on_battery) = if battery {
                    (Some(auto.on_ac).filter(|a| !a.is_empty()), id)
                } else {
                    (Some(id), Some(auto.on_battery).filter(|b| !b.is_empty()).unwrap_or_default())
                };
                let on_ac = on_ac.unwrap_or_else(|| BuiltinProfile::BalancePerformance.id().to_owned());
                let on_battery = Some(on_battery)
                    .filter(|b| !b.is_empty())
                    .unwrap_or_else(|| BuiltinProfile::BalancePower.id().to_owned());
                log::debug!("lab: use {on_ac} on AC, {on_battery} on battery");
                sender.input(AppMsg::SetAutoPair(on_ac, on_battery));
            }
        }
    }

    fn update_cmd_with_view(
        &mut self,
        widgets: &mut AppWidgets,
        msg: CmdOut,
        sender: ComponentSender<Self>,
        root: &Self::Root,
    ) {
        match msg {
            CmdOut::Samples(samples) => {
                let resolver = self.ctx.resolver();
                self.cores.borrow_mut().push(&samples, &|s| s.epp.and_then(|r| resolver.reading_value(r)));
                if let Some(grid) = &widgets.grid {
                    grid.refresh_visible();
                }
                widgets.overview.set_groups(&self.cores.borrow(), self.status.cpu.hybrid);
                if self.firmware_read.elapsed() >= FIRMWARE_EVERY {
                    self.refresh_firmware(widgets, &sender);
                }
            }
            CmdOut::Helper(event) => self.helper_event(widgets, &sender, event),
            CmdOut::Switched(id, result) => {
                widgets.overview.set_busy(false);
                match result {
                    Ok(summary) => {
                        self.active = Some(id.clone());
                        self.rebuild_status();
                        self.refresh_overview(widgets);
                        self.refresh_firmware(widgets, &sender);
                        self.control.refresh.notify_one();
                        let mut toast = switched_toast(&self.status, &id, summary.changed, summary.cpus.len());
                        if let Some(warning) = gearshift::client::unsaved_warning(&summary) {
                            toast = format!("{toast}. {warning}");
                        }
                        self.toast(widgets, &toast);
                    }
                    Err(err) => {
                        self.refresh_overview(widgets);
                        self.show_error(widgets, ErrorView::from_client(&err));
                    }
                }
            }
            CmdOut::ModeSet(mode, result) => {
                self.mode_pending = None;
                widgets.overview.set_busy(false);
                // Whatever the outcome: the helper puts the old mode back
                // when the profile cannot be applied in the new one.
                self.reread_machine(widgets, &sender);
                match result {
                    Ok(summary) => {
                        let mut toast = i18n_f("The driver runs in {} mode now.", &[&mode]);
                        if summary.changed > 0 && !summary.profile.is_empty() {
                            let applied =
                                switched_toast(&self.status, &summary.profile, summary.changed, summary.cpus.len());
                            toast = format!("{toast} {applied}");
                        }
                        if let Some(warning) = gearshift::client::unsaved_warning(&summary) {
                            toast = format!("{toast}. {warning}");
                        }
                        self.toast(widgets, &toast);
                    }
                    Err(err) => self.show_error(widgets, ErrorView::from_client(&err)),
                }
            }
            CmdOut::AutoSet(result) => match result {
                Ok(summary) => {
                    if let Some(warning) = gearshift::client::unsaved_warning(&summary) {
                        self.toast(widgets, &warning);
                    }
                }
                Err(err) => {
                    self.refresh_overview(widgets);
                    self.show_error(widgets, ErrorView::from_client(&err));
                }
            },
            CmdOut::Customs(change, result) => {
                if self.take_customs(widgets, &sender, result) {
                    match change {
                        CustomChange::Saved(profile) => {
                            self.undo = None;
                            // Translators: {name} is a custom profile's name.
                            let text = i18n_text("Saved “{name}”").arg("name", &profile.name).localized();
                            self.toast(widgets, &text);
                        }
                        CustomChange::Deleted(profile) => {
                            // Translators: {name} is a custom profile's name.
                            let text = i18n_text("Deleted “{name}”").arg("name", &profile.name).localized();
                            let toast = adw::Toast::new(&text);
                            toast.set_timeout(8);
                            toast.set_button_label(Some(&gettext("Undo")));
                            toast.set_action_name(Some("win.undo-delete"));
                            self.undo = Some(profile);
                            self.show_toast(widgets, toast);
                        }
                    }
                }
            }
            CmdOut::Served(served) => {
                log::debug!("the helper serves the snapshot: {served}");
                if served {
                    self.served = true;
                    self.start_live_link(&sender);
                    self.update_banner(widgets);
                    self.refresh_overview(widgets);
                }
            }
            CmdOut::CustomsListed(result) => {
                // Quietly: an older helper, or none, simply has no list.
                if let Ok(text) = result {
                    self.take_customs(widgets, &sender, Ok(text));
                }
            }
            CmdOut::LabBusy(request, busy) => {
                self.lab_stopped(widgets);
                let percent = format!("{:.0}", busy * 100.0);
                log::debug!("lab: busy {percent} per cent, asking first");
                let body = i18n_f(
                    "The CPUs are {} per cent busy with other work, which spoils the figures. Close what runs, or measure anyway.",
                    &[&percent],
                );
                let again = LabRequest { busy_ok: true, ..request };
                dialogs::confirm_measure(root, &gettext("The Computer Is Busy"), &body, sender.input_sender(), again);
            }
            CmdOut::LabTimeOnly(err) => {
                if let Some(page) = &widgets.efficiency {
                    page.note(&i18n_f(
                        "No energy can be read here ({}): the results are time only, with no work per joule.",
                        &[&err.headline()],
                    ));
                }
            }
            CmdOut::LabProgress(index, total, id) => {
                if let Some(page) = &widgets.efficiency {
                    page.progress(index, total, &id);
                }
            }
            CmdOut::LabDone(result, kept) => {
                self.lab_stopped(widgets);
                self.lab_done(widgets, result, kept);
            }
        }
    }
}

impl App {
    /// Saves or deletes a custom profile through the helper, then takes the
    /// list it then has ([`CmdOut::Customs`]).
    fn change_customs<F, Fut>(&self, sender: &ComponentSender<Self>, what: CustomChange, change: F)
    where
        F: FnOnce(Helper1Proxy<'static>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<(), HelperError>> + Send,
    {
        let helper = self.helper.clone();
        sender.oneshot_command(async move {
            let result = helper
                .call(|p| async move {
                    change(p.clone()).await?;
                    p.list_custom_profiles().await
                })
                .await;
            CmdOut::Customs(what, result)
        });
    }

    /// Takes a new list of custom profiles; false (after showing why) when
    /// the call failed.
    fn take_customs(
        &mut self,
        widgets: &AppWidgets,
        sender: &ComponentSender<Self>,
        result: Result<Vec<gearshift::dbus::WireProfile>, ClientError>,
    ) -> bool {
        match result.map(|list| gearshift::dbus::profile::list_from_wire(&list)) {
            Ok(Ok(profiles)) => {
                log::debug!("custom profiles: {:?}", profiles.iter().map(|p| p.id.as_str()).collect::<Vec<_>>());
                self.ctx.customs = profiles;
                self.rebuild_status();
                widgets.overview.set_profiles(&self.overview_model(), sender.input_sender());
                if let Some(tuning) = &widgets.tuning {
                    tuning.set_saved(&self.ctx.customs);
                }
                if let Some(page) = &widgets.efficiency {
                    page.set_customs(&self.ctx.customs);
                }
                self.refresh_overview(widgets);
                true
            }
            Ok(Err(err)) => {
                self.toast(widgets, &err.to_string());
                false
            }
            Err(err) => {
                self.show_error(widgets, ErrorView::from_client(&err));
                false
            }
        }
    }

    fn helper_event(&mut self, widgets: &AppWidgets, sender: &ComponentSender<Self>, event: HelperEvent) {
        log::debug!("helper event {event:?}");
        // After these the helper has written (or followed) the firmware's
        // platform profile too.
        let firmware = event.may_change_firmware();
        match event {
            HelperEvent::Connected { active, auto } => {
                self.helper_error = None;
                self.active = Some(active);
                self.auto = Some(auto);
                self.rebuild_status();
                let helper = self.helper.clone();
                sender.oneshot_command(async move {
                    CmdOut::CustomsListed(helper.call(|p| async move { p.list_custom_profiles().await }).await)
                });
            }
            HelperEvent::Unreachable(err) => {
                self.helper_error = Some(ErrorView::from_client(&err));
                widgets.overview.set_power(None);
            }
            HelperEvent::Gone => {
                // Not an error: D-Bus starts it again on the next call.
                self.helper_error = None;
                widgets.overview.set_power(None);
            }
            HelperEvent::ActiveProfile(active) => {
                self.active = Some(active);
                self.control.refresh.notify_one();
            }
            HelperEvent::AutoPolicy(auto) => self.auto = Some(auto),
            HelperEvent::Conflicts(conflicts) => {
                for id in conflicts {
                    if !self.conflicts.contains(&id) {
                        self.conflicts.push(id);
                    }
                }
            }
            HelperEvent::Applied => self.control.refresh.notify_one(),
            // Saved or deleted elsewhere (the CLI, another window): list
            // them again.
            HelperEvent::CustomProfiles => {
                let helper = self.helper.clone();
                sender.oneshot_command(async move {
                    CmdOut::CustomsListed(helper.call(|p| async move { p.list_custom_profiles().await }).await)
                });
            }
            HelperEvent::ChangedOutside(change) => {
                self.toast(widgets, &super::model::outside_toast(&change));
                self.control.refresh.notify_one();
            }
            HelperEvent::Power(watts) => widgets.overview.set_power(Some(watts)),
            HelperEvent::NoPower => widgets.overview.set_power(None),
        }
        if firmware {
            self.refresh_firmware(widgets, sender);
        }
        self.update_banner(widgets);
        self.refresh_overview(widgets);
    }

    /// Starts a measurement: on battery, asks first; then, on a blocking
    /// thread, checks the machine is idle (asking first where it is not)
    /// and runs `client::lab::measure`, reporting each run.
    fn measure(
        &mut self,
        widgets: &AppWidgets,
        sender: &ComponentSender<Self>,
        root: &adw::ApplicationWindow,
        request: LabRequest,
    ) {
        if !self.can_switch() || self.lab.is_some() {
            return;
        }
        if !request.battery_ok && gearshift::core::power_supply::on_battery(&mut Probe::new(&self.ctx.root)) {
            log::debug!("lab: on battery, asking first");
            let again = LabRequest { battery_ok: true, ..request };
            dialogs::confirm_measure(
                root,
                &gettext("Measure on Battery?"),
                &gettext("This computer runs on battery: the figures will differ from those on AC power, and the battery drains."),
                sender.input_sender(),
                again,
            );
            return;
        }
        let cancel = Arc::new(AtomicBool::new(false));
        self.lab = Some(cancel.clone());
        let resolver = self.ctx.resolver();
        let kernel_default = gearshift::core::measure::kernel_default(&resolver);
        let epps = gearshift::client::lab::epps(&request.profiles, &self.status, kernel_default);
        let scale = request.scale * self.ctx.dev.lab_scale_milli.map_or(1.0, |m| f64::from(m) / 1000.0);
        let session = gearshift::core::measure::Session {
            profiles: request.profiles.clone(),
            epps,
            workload: Some(request.workload),
            command: None,
            repeats: request.repeats,
            scale,
            cpus: self.ctx.machine.online_ids().len(),
        };
        if let Some(page) = &widgets.efficiency {
            page.started(session.profiles.len() * session.repeats);
        }
        self.refresh_overview(widgets);
        let helper = self.helper.clone();
        let origin = gearshift::client::lab::Origin::of(&resolver);
        log::debug!("lab: measuring {:?} x{} at scale {scale}", session.profiles, session.repeats);
        sender.spawn_command(move |out| {
            if !request.busy_ok {
                if let Some(busy) =
                    gearshift::core::measure::busy_share().filter(|b| *b > gearshift::core::measure::BUSY_LIMIT)
                {
                    let _ = out.send(CmdOut::LabBusy(request, busy));
                    return;
                }
            }
            let runtime = tokio::runtime::Handle::current();
            let source = gearshift::client::lab::energy_source(&helper, &runtime);
            if let Err(err) = &source {
                let _ = out.send(CmdOut::LabTimeOnly(err.clone()));
            }
            let progress_out = out.clone();
            let mut progress = move |i: usize, n: usize, id: &str| {
                let _ = progress_out.send(CmdOut::LabProgress(i, n, id.to_owned()));
            };
            let result = gearshift::client::lab::measure(
                &helper,
                &runtime,
                &session,
                source.ok().flatten(),
                &cancel,
                &mut progress,
            );
            // Kept here, off the main thread: a finished measurement only.
            let kept = result.as_ref().ok().filter(|o| o.end == gearshift::core::measure::End::Done).map(|outcome| {
                let (kept, path) = origin.keep(&outcome.report);
                match path {
                    Some(Ok(path)) => log::debug!("lab: kept in {}", path.display()),
                    Some(Err(err)) => log::warn!("the measurement could not be kept: {err}"),
                    None => {}
                }
                kept
            });
            let _ = out.send(CmdOut::LabDone(result, kept));
        });
    }

    fn lab_stopped(&mut self, widgets: &AppWidgets) {
        self.lab = None;
        if let Some(page) = &widgets.efficiency {
            page.stopped();
        }
        self.refresh_overview(widgets);
    }

    /// Shows how a measurement ended.
    fn lab_done(
        &mut self,
        widgets: &AppWidgets,
        result: Result<gearshift::client::lab::Outcome, ClientError>,
        kept: Option<gearshift::client::lab::Kept>,
    ) {
        use gearshift::core::measure::End;
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(err) => {
                log::debug!("lab: not begun: {err:?}");
                self.show_error(widgets, ErrorView::from_client(&err));
                return;
            }
        };
        let customs = self.ctx.customs.clone();
        let name = |id: &str| gearshift::client::lab::profile_name(id, &customs, None);
        let restored = outcome.report.restored.clone();
        if let Some(err) = &outcome.restore_failed {
            self.show_error(widgets, ErrorView::from_client(err));
        }
        match outcome.end {
            End::Done => {
                self.list_kept(widgets);
                if let (Some(page), Some(kept)) = (&widgets.efficiency, &kept) {
                    page.show(kept);
                }
                if outcome.restore_failed.is_none() {
                    let text = if restored.is_empty() {
                        gettext("Measured. No profile was chosen before, so none was put back.")
                    } else {
                        i18n_f("Measured; {} is active again.", &[&name(&restored)])
                    };
                    self.toast(widgets, &text);
                }
                log::debug!("lab: done, restored {restored:?}");
            }
            End::Cancelled => {
                log::debug!("lab: cancelled, restored {restored:?}");
                let text = if restored.is_empty() {
                    gettext("Measurement cancelled.")
                } else {
                    i18n_f("Measurement cancelled; {} is active again.", &[&name(&restored)])
                };
                self.toast(widgets, &text);
            }
            End::Failed(err) => {
                log::debug!("lab: failed: {err:?}");
                self.show_error(widgets, ErrorView::from_client(&err));
            }
            End::CommandFailed => self.toast(widgets, &gettext("The command failed, so its runs cannot be compared.")),
        }
    }

    /// Lists the kept measurements on the Efficiency page.
    fn list_kept(&self, widgets: &AppWidgets) {
        if let (Some(page), Some(dir)) = (&widgets.efficiency, gearshift::client::lab::results_dir()) {
            let kept = gearshift::client::lab::listed(&dir);
            log::debug!("lab: {} kept in {}", kept.len(), dir.display());
            page.set_kept(kept);
        }
    }
}

/// Names the close buttons of the toasts on screen ("Dismiss").
fn name_toast_buttons(overlay: &adw::ToastOverlay) {
    // The toasts are the overlay's own children, beside the window's body.
    let children = std::iter::successors(overlay.first_child(), relm4::gtk::Widget::next_sibling);
    let toasts = children.filter(|w| w.type_().name() == "AdwToastWidget");
    for widget in toasts.flat_map(|toast| super::descendants(&toast)) {
        if let Some(button) = widget.downcast_ref::<relm4::gtk::Button>() {
            if button.icon_name().is_some_and(|i| i == "window-close-symbolic") {
                super::set_accessible_label(button, &gettext("Dismiss"));
            }
        }
    }
}

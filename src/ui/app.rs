//! The window: routes messages between its pages (components of their own:
//! `overview`, `cores`, `tuning`, `efficiency`, `wizard`), the helper link,
//! the sampler and the toasts.
//!
//! It keeps what several pages show (the machine, its status, the active
//! profile, the AC/battery policy, whether switching works) and tells each
//! page when that changes. Background work runs in relm4 commands: the
//! sampler (paused while the window is hidden), the live link to the
//! helper, each call to the helper, and every read of sysfs or /proc, so
//! the GTK main thread never waits on a file.

use gearshift::core::profile_id::ProfileId;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use relm4::adw::{self, prelude::*};
use relm4::{Component, ComponentController, ComponentParts, ComponentSender, Controller};

use gearshift::client::events::{self, HelperEvent};
use gearshift::client::session::{InEffect, Link, Session};
use gearshift::client::Helper;
use gearshift::core::report::HardwareReport;
use gearshift::core::status::Status;
use gearshift::dbus::AutoPolicy;
use gearshift::i18n::{gettext, i18n_f};

use super::cores::{CoreData, CoresMsg};
use super::efficiency::LabMsg;
use super::model::{
    active_title, banner, mode_row, switch_blocked, switched_toast, BannerAction, ErrorView, Notice, Overview, Shown,
};
use super::msg::{AppMsg, CmdOut};
use super::overview::{Controls, OverviewMsg};
use super::rules::RulesMsg;
use super::sampler::{self, SamplerControl};
use super::state::{Seen, StateFile};
use super::tuning::TuningMsg;
use super::window::{self, AppWidgets};
use super::wizard::{Wizard, WizardInit, WizardOut};
use super::{actions, dialogs, reads, Launch};
use crate::context::Context;

/// The window's state.
pub struct App {
    demo: bool,
    ctx: Context,
    status: Status,
    report: HardwareReport,
    /// What the helper has said (its events and replies, folded): every
    /// page shows it, nothing else keeps a copy.
    session: Session,
    /// The way to the helper, shared by every call and the live link.
    helper: Helper,
    last_error: Option<ErrorView>,
    /// What the banner's button does now, if it shows one.
    banner_action: Option<BannerAction>,
    /// The sampler's newest frame (the pages get it behind an `Arc`).
    cores: Arc<CoreData>,
    control: SamplerControl,
    /// The person's settings (GSettings).
    settings: crate::ui::settings::Settings,
    /// When the firmware's files were last read, and whether a read is out.
    firmware_read: Instant,
    firmware_reading: bool,
    /// The driver mode asked for, while the switch is in flight.
    mode_pending: Option<gearshift::core::machine::DriverMode>,
    /// Whether the helper changes the machine shown: this computer, or a
    /// snapshot only where the helper itself serves it (its `Root`).
    served: bool,
    wizard: Option<Controller<Wizard>>,
    /// What tests read (`GEARSHIFT_STATE_FILE`): the file, and the events
    /// counted for it (written, never read by the window).
    state: Option<StateFile>,
    seen: Seen,
    /// What Undo takes back, and what offers it once the helper has it.
    undo: Option<changes::Undo>,
    pending_undo: Option<(changes::Undo, String)>,
}

/// How often the sampler's ticks also look at the firmware's platform
/// profile and lap sensor (a hotkey or the sensor may change them with no
/// word from the helper).
const FIRMWARE_EVERY: Duration = Duration::from_secs(5);

impl App {
    /// The helper changes this machine, can be reached, and no
    /// administrator's file locks switching and tuning.
    fn can_switch(&self) -> bool {
        self.served && self.session.can_switch()
    }

    /// Why the helper cannot be reached, ready to show.
    fn helper_error(&self) -> Option<ErrorView> {
        match &self.session.link {
            Link::Unreachable(err) => Some(ErrorView::from_client(err)),
            _ => None,
        }
    }

    /// The profile the window shows as active: the helper's word, else
    /// what the files hold.
    fn active(&self) -> Option<ProfileId> {
        match &self.session.active {
            // Until the helper says, what the files hold.
            InEffect::NotHeard => self.status.active_profile.as_deref().and_then(ProfileId::parse),
            heard => heard.profile().cloned(),
        }
    }

    /// Follows the helper: its connection, profile and signals.
    fn start_live_link(&self, sender: &ComponentSender<Self>) {
        let out = sender.command_sender().clone();
        let (helper, visible) = (self.helper.clone(), self.control.visible.subscribe());
        let interval_ms = self.control.interval_ms.clone();
        sender.command(move |_, shutdown| {
            let run = events::run(helper, move |event| drop(out.send(CmdOut::Helper(event))), visible, interval_ms);
            shutdown.register(run).drop_on_shutdown()
        });
    }

    /// Reads the firmware's platform profile, the lap sensor and the
    /// driver's mode again, off the main thread ([`CmdOut::Firmware`]).
    fn read_firmware(&mut self, sender: &ComponentSender<Self>) {
        self.firmware_read = Instant::now();
        if !std::mem::replace(&mut self.firmware_reading, true) {
            self.seen.firmware_reads += 1;
            let (root, control) = (self.ctx.root.clone(), self.ctx.machine.mode_control);
            sender.oneshot_command(reads::firmware(root, control));
        }
    }

    /// Reads the whole machine again, off the main thread (after a driver
    /// mode change the driver's name, the mode, EPP and governors change).
    fn read_machine(&mut self, sender: &ComponentSender<Self>) {
        self.firmware_read = Instant::now();
        sender.oneshot_command(reads::machine(self.ctx.root.clone()));
    }

    fn call_helper(
        &self,
        sender: &ComponentSender<Self>,
        call: impl std::future::Future<Output = CmdOut> + Send + 'static,
    ) {
        if self.can_switch() && !self.session.measuring {
            sender.oneshot_command(call);
        }
    }

    fn list_customs(&self, sender: &ComponentSender<Self>) {
        let helper = self.helper.clone();
        sender.oneshot_command(async move {
            CmdOut::CustomsListed(helper.call(|p| async move { p.list_custom_profiles().await }).await)
        });
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
        let cores = Arc::new(CoreData::from_status(&status, history));
        let control = SamplerControl::new(Arc::new(AtomicU64::new(interval_ms)));
        super::use_source_icons();
        let overview = Overview::from_machine(&status, ctx.machine.platform_profile.as_ref());
        let helper = Helper::new();
        let start = window::Start {
            ctx: &ctx,
            status: &status,
            report: &report,
            overview: &overview,
            cores: &cores,
            helper: &helper,
        };
        let widgets = window::build(&root, sender.input_sender(), &start);
        actions::install(&root, sender.input_sender());
        sampler::watch_visibility(&root, sender.input_sender());
        let served = ctx.root.is_live();
        let mut model = App {
            demo,
            ctx,
            status,
            report,
            session: Session::default(),
            helper,
            last_error: None,
            banner_action: None,
            cores,
            control,
            settings,
            firmware_read: Instant::now(),
            firmware_reading: false,
            mode_pending: None,
            served,
            wizard: None,
            state: None,
            seen: Seen::default(),
            undo: None,
            pending_undo: None,
        };
        if overview.can_tune && model.ctx.machine.has_cpufreq() {
            let (root, machine) = (model.ctx.root.clone(), model.ctx.machine.clone());
            let run = sampler::run(root, machine, &model.control, sender.command_sender().clone());
            sender.command(move |_, shutdown| shutdown.register(run).drop_on_shutdown());
        }
        let input = sender.input_sender().clone();
        model.settings.connect_interval_changed(move |ms| input.emit(AppMsg::IntervalChanged(ms)));
        if served {
            model.start_live_link(&sender);
            sender.oneshot_command(reads::conflicts(model.ctx.root.clone()));
        } else {
            // A snapshot: switching stays off unless the helper serves
            // this very directory.
            let (helper, root) = (model.helper.clone(), model.ctx.root.clone());
            sender.oneshot_command(async move { CmdOut::Served(helper.serves(&root).await) });
        }
        model.refresh(&widgets);
        window::dev_hooks(&root, &widgets, &model.ctx.dev);
        if let Some(path) = model.ctx.dev.state_file.clone() {
            model.state = Some(StateFile::open(path));
            let input = sender.input_sender().clone();
            window::on_first_frame(&root, move || input.emit(AppMsg::Drawn));
            model.publish();
        }
        let seen = model.settings.wizard_done() || (!served && model.settings.snapshot_wizard_seen());
        model.seen.wizard_due = !seen;
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
        self.handle(widgets, msg, &sender, root);
        self.publish();
    }

    fn update_cmd_with_view(
        &mut self,
        widgets: &mut AppWidgets,
        msg: CmdOut,
        sender: ComponentSender<Self>,
        _root: &Self::Root,
    ) {
        self.result(widgets, &sender, msg);
        self.publish();
    }
}

impl App {
    /// Takes one message from the pages, the menus and the actions.
    fn handle(
        &mut self,
        widgets: &mut AppWidgets,
        msg: AppMsg,
        sender: &ComponentSender<Self>,
        root: &adw::ApplicationWindow,
    ) {
        let helper = self.helper.clone();
        match msg {
            AppMsg::Switch(id) => {
                // Not while measuring: the lab switches, and puts back.
                if self.can_switch() && !self.session.measuring {
                    widgets.overview.emit(OverviewMsg::Busy(true));
                }
                self.call_helper(sender, async move {
                    let wanted = id.clone();
                    CmdOut::Switched(id, helper.call(|p| async move { p.set_profile(wanted.as_str()).await }).await)
                });
            }
            AppMsg::SetDriverMode(mode) => self.ask_driver_mode(widgets, sender, root, mode),
            AppMsg::DriverModeConfirmed(mode) => self.set_driver_mode(widgets, sender, mode),
            AppMsg::DriverModeKept => self.refresh(widgets),
            AppMsg::DriverModeChanged => self.read_machine(sender),
            AppMsg::SetAutoPair(ac, battery) => self.call_helper(sender, async move {
                CmdOut::AutoSet(helper.call(|p| async move { p.set_auto_policy(&ac, &battery).await }).await)
            }),
            AppMsg::SetOption(option, on) => {
                self.call_helper(sender, async move { CmdOut::OptionSet(helper.set_power_option(&option, on).await) })
            }
            AppMsg::SetAuto(on) => {
                let known = self.session.auto.clone();
                self.call_helper(sender, async move { CmdOut::AutoSet(helper.set_auto(on, known.as_ref()).await) });
            }
            AppMsg::UseOn { id, battery } => self.use_on(sender, id, battery),
            AppMsg::ReturnToAutomatic => {
                if let Some(auto) = self.session.auto.clone().filter(|a| a.enabled) {
                    sender.input(AppMsg::SetAutoPair(auto.on_ac, auto.on_battery));
                }
            }
            AppMsg::LabRunning(running) => {
                let changed = self.session.set_measuring(running);
                self.show_session(widgets, changed);
            }
            AppMsg::Retry => self.retry(widgets, sender),
            AppMsg::Customs(profiles) => self.take_customs(widgets, profiles),
            AppMsg::Notice(notice) => {
                // From the Tuning page: a deletion, which its Undo saves again.
                if matches!(notice, Notice::Undo(_)) {
                    self.undo = Some(changes::Undo::Delete);
                }
                self.notice(widgets, notice);
            }
            AppMsg::Refresh => {
                self.control.refresh.notify_one();
                self.read_firmware(sender);
                self.toast(widgets, gettext("Refreshed"));
            }
            AppMsg::Undo => self.undo(widgets, sender),
            // The window's own: its dialogs, pages, settings and counts.
            other => self.chrome(widgets, other, sender, root),
        }
    }
}

mod changes;
mod chrome;
mod notices;
mod pages;
mod results;

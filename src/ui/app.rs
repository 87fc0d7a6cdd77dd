//! The main window: overview and profile switcher, per-core grid, tuning.
//!
//! One model, one message enum. Background work runs in relm4 commands: the
//! sampler (paused while the window is hidden or minimized), the helper
//! link, and each call to the helper. Every failure goes through
//! [`App::show_error`].

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use relm4::adw::{self, prelude::*};
use relm4::gtk::{self, gdk, gio, glib};
use relm4::{Component, ComponentParts, ComponentSender};
use tokio::sync::{watch, Notify};

use gearshift::client::{ClientError, Helper};
use gearshift::core::custom::{format_profiles, parse_profiles};
use gearshift::core::machine::Machine;
use gearshift::core::monitor::Sampler;
use gearshift::core::report::HardwareReport;
use gearshift::core::status::Status;
use gearshift::dbus::AutoPolicy;
use gearshift::i18n::{gettext, i18n_f};

use super::cores::{CoreData, CoreGrid};
use super::model::{active_title, switched_toast, ErrorView, Overview};
use super::msg::{AppMsg, CmdOut};
use super::overview::OverviewPage;
use super::tuning::TuningPage;
use super::{dialogs, Launch};
use crate::context::Context;
use crate::live::{self, HelperEvent};

/// Controls the sampler from the window.
struct SamplerControl {
    visible: watch::Sender<bool>,
    refresh: Arc<Notify>,
    interval_ms: Arc<AtomicU64>,
}

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
}

/// The widgets that change.
pub struct AppWidgets {
    toasts: adw::ToastOverlay,
    stack: adw::ViewStack,
    banner: gtk::Revealer,
    banner_label: gtk::Label,
    banner_button: gtk::Button,
    banner_action: Rc<RefCell<Option<AppMsg>>>,
    overview: OverviewPage,
    grid: Option<CoreGrid>,
    tuning: Option<TuningPage>,
}

impl App {
    /// A snapshot is shown read-only: the helper changes the live machine.
    /// (Tests run a helper on the snapshot itself and say so with
    /// GEARSHIFT_SNAPSHOT_HELPER=1.)
    fn read_only(&self) -> bool {
        !self.ctx.root.is_live() && std::env::var_os("GEARSHIFT_SNAPSHOT_HELPER").is_none()
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

    /// The one path every failure takes: a toast with a Details button
    /// that opens the whole explanation.
    fn show_error(&mut self, widgets: &AppWidgets, view: ErrorView) {
        let toast = adw::Toast::new(&view.title);
        toast.set_timeout(8);
        toast.set_button_label(Some(&gettext("Details")));
        toast.set_action_name(Some("win.last-error"));
        self.last_error = Some(view);
        widgets.toasts.add_toast(toast);
    }

    fn toast(widgets: &AppWidgets, text: &str) {
        let toast = adw::Toast::new(text);
        toast.set_timeout(4);
        widgets.toasts.add_toast(toast);
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
                Some(cmd) => i18n_f("{} To fix it, run: {}", &[&view.title, cmd]),
                None => view.title.clone(),
            };
            return Some((text, action));
        }
        if let Some(id) = self.conflicts.first() {
            let fix = gearshift::core::conflicts::fix(id).localized();
            let text = i18n_f(
                "{} also manages power here; Gearshift applies nothing on its own while it runs. {} To resolve it, run: {}",
                &[id, &gearshift::core::conflicts::explain(id).localized(), &fix],
            );
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
        widgets.overview.set_switching(self.can_switch());
        widgets.overview.set_auto(self.auto.as_ref(), self.can_switch());
        widgets.overview.set_active_text(&active_title(&self.status, self.active.as_deref()));
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
        let Launch { ctx, demo, interval_ms } = launch;
        let status = Status::build(&ctx.root_arg, &ctx.resolver(), &ctx.customs, None, Vec::new(), &ctx.extra_problems);
        let report = HardwareReport::build(&ctx.resolver());
        let history = (60_000 / interval_ms.max(1)).clamp(10, 600) as usize;
        let interval_ms = Arc::new(AtomicU64::new(interval_ms));
        let cores = Rc::new(RefCell::new(CoreData::from_status(&status, history)));
        let (visible_tx, visible_rx) = watch::channel(true);
        let control =
            SamplerControl { visible: visible_tx, refresh: Arc::new(Notify::new()), interval_ms: interval_ms.clone() };

        let overview_model = Overview::from_status(&status);
        let overview = OverviewPage::new(&overview_model, &report, sender.input_sender());
        let toasts = adw::ToastOverlay::new();
        let stack = adw::ViewStack::new();
        stack.set_vexpand(true);
        let grid = overview_model.can_tune.then(|| CoreGrid::new(cores.clone(), status.cpu.hybrid));
        let tuning = overview_model.can_tune.then(|| TuningPage::new(&ctx, &status, sender.input_sender()));
        let add_page = |child: &gtk::Widget, name: &str, title: &str, icon: &str| {
            stack.add_titled(child, Some(name), title).set_icon_name(Some(icon));
        };
        add_page(overview.root.upcast_ref(), "overview", &gettext("Overview"), "computer-symbolic");
        if let Some(grid) = &grid {
            add_page(grid.root.upcast_ref(), "cores", &gettext("Cores"), "view-grid-symbolic");
        }
        if let Some(tuning) = &tuning {
            add_page(tuning.root.upcast_ref(), "tuning", &gettext("Tuning"), "preferences-system-symbolic");
        }

        let header = adw::HeaderBar::new();
        let switcher_title = adw::ViewSwitcherTitle::builder().stack(&stack).title(gettext("Gearshift")).build();
        header.set_title_widget(Some(&switcher_title));
        let menu = gio::Menu::new();
        menu.append(Some(&gettext("_Refresh")), Some("win.refresh"));
        menu.append(Some(&gettext("Hardware Report and _Setup")), Some("win.wizard"));
        menu.append(Some(&gettext("_Keyboard Shortcuts")), Some("win.show-help-overlay"));
        menu.append(Some(&gettext("_About Gearshift")), Some("win.about"));
        menu.append(Some(&gettext("_Quit")), Some("app.quit"));
        let menu_button =
            gtk::MenuButton::builder().icon_name("open-menu-symbolic").menu_model(&menu).primary(true).build();
        menu_button.set_tooltip_text(Some(&gettext("Main Menu")));
        header.pack_end(&menu_button);
        let switcher_bar = adw::ViewSwitcherBar::builder().stack(&stack).build();
        switcher_title.bind_property("title-visible", &switcher_bar, "reveal").sync_create().build();

        let banner_label = gtk::Label::builder().wrap(true).xalign(0.0).hexpand(true).build();
        let banner_button = gtk::Button::new();
        let banner_box = gtk::Box::new(gtk::Orientation::Horizontal, 12);
        banner_box.add_css_class("banner-box");
        banner_box.append(&gtk::Image::from_icon_name("dialog-information-symbolic"));
        banner_box.append(&banner_label);
        banner_box.append(&banner_button);
        let banner = gtk::Revealer::builder().child(&banner_box).build();
        let banner_action: Rc<RefCell<Option<AppMsg>>> = Rc::default();
        {
            let action = banner_action.clone();
            let input = sender.input_sender().clone();
            banner_button.connect_clicked(move |_| {
                if let Some(msg) = action.borrow_mut().take() {
                    let again = match &msg {
                        AppMsg::Copy(c) => Some(AppMsg::Copy(c.clone())),
                        AppMsg::Details(v) => Some(AppMsg::Details(v.clone())),
                        _ => None,
                    };
                    input.emit(msg);
                    *action.borrow_mut() = again;
                }
            });
        }

        let body = gtk::Box::new(gtk::Orientation::Vertical, 0);
        body.append(&header);
        body.append(&banner);
        if overview_model.can_tune {
            body.append(&stack);
            body.append(&switcher_bar);
        } else {
            body.append(&super::overview::nothing_to_tune(&report));
        }
        toasts.set_child(Some(&body));
        root.set_content(Some(&toasts));
        root.set_size_request(360, 400);
        install_actions(&root, &sender);
        watch_visibility(&root, &sender);

        let conflicts = if ctx.root.is_live() {
            gearshift::core::conflicts::detect(&ctx.root, &[]).into_iter().map(|c| c.id.to_owned()).collect()
        } else {
            Vec::new()
        };
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
        };
        if overview_model.can_tune && model.ctx.machine.has_cpufreq() {
            start_sampler(&model, &sender);
        }
        if !model.read_only() {
            let out = sender.command_sender().clone();
            let helper = model.helper.clone();
            sender.command(move |_, shutdown| {
                shutdown
                    .register(live::run(
                        helper,
                        move |event| {
                            let _ = out.send(CmdOut::Helper(event));
                        },
                        visible_rx,
                        interval_ms,
                    ))
                    .drop_on_shutdown()
            });
        }
        let widgets =
            AppWidgets { toasts, stack, banner, banner_label, banner_button, banner_action, overview, grid, tuning };
        model.update_banner(&widgets);
        model.refresh_overview(&widgets);
        // For screenshots and tests: the window's size and the page to open on.
        if let Some((w, h)) = std::env::var("GEARSHIFT_SIZE").ok().and_then(|v| {
            let (w, h) = v.split_once('x')?;
            Some((w.parse::<i32>().ok()?, h.parse::<i32>().ok()?))
        }) {
            root.set_default_size(w, h);
        }
        if let Some(page) = std::env::var("GEARSHIFT_PAGE").ok().filter(|p| widgets.stack.child_by_name(p).is_some()) {
            widgets.stack.set_visible_child_name(&page);
        }
        if std::env::var_os("GEARSHIFT_REPORT_FIRST_FRAME").is_some() {
            report_first_frame(&root);
        }
        if !crate::settings::Settings::load().wizard_done {
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
                if !self.can_switch() {
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
            AppMsg::SetAuto(on) => {
                if !self.can_switch() {
                    return;
                }
                let (ac, battery) = AutoPolicy::pair_or_default(self.auto.as_ref());
                let helper = self.helper.clone();
                sender.oneshot_command(async move {
                    let result = helper
                        .call(|p| async move {
                            if on {
                                p.set_auto_policy(&ac, &battery).await
                            } else {
                                p.disable_auto_policy().await
                            }
                        })
                        .await;
                    CmdOut::AutoSet(result)
                });
            }
            AppMsg::Visible(visible) => {
                let _ = self.control.visible.send(visible);
            }
            AppMsg::Refresh => {
                self.control.refresh.notify_one();
                Self::toast(widgets, &gettext("Refreshed"));
            }
            AppMsg::SaveCustom(profile) => {
                let text = format_profiles(std::slice::from_ref(&profile));
                let helper = self.helper.clone();
                sender.oneshot_command(async move {
                    let result = helper
                        .call(|p| async move {
                            p.save_custom_profile(&text).await?;
                            p.list_custom_profiles().await
                        })
                        .await;
                    CmdOut::Customs(result)
                });
            }
            AppMsg::DeleteCustom(id) => {
                let helper = self.helper.clone();
                sender.oneshot_command(async move {
                    let result = helper
                        .call(|p| async move {
                            p.delete_custom_profile(&id).await?;
                            p.list_custom_profiles().await
                        })
                        .await;
                    CmdOut::Customs(result)
                });
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
                    Self::toast(widgets, &i18n_f("Copied: {}", &[&text]));
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
                super::wizard::show(root, &status, &self.report, !self.read_only(), &self.helper, || {});
            }
            AppMsg::Shortcuts => dialogs::shortcuts(root),
        }
    }

    fn update_cmd_with_view(
        &mut self,
        widgets: &mut AppWidgets,
        msg: CmdOut,
        sender: ComponentSender<Self>,
        _root: &Self::Root,
    ) {
        match msg {
            CmdOut::Samples(samples) => {
                let resolver = self.ctx.resolver();
                self.cores.borrow_mut().push(&samples, &|s| s.epp.and_then(|r| resolver.reading_value(r)));
                if let Some(grid) = &widgets.grid {
                    grid.refresh_visible();
                }
                widgets.overview.set_groups(&self.cores.borrow(), self.status.cpu.hybrid);
            }
            CmdOut::Helper(event) => self.helper_event(widgets, &sender, event),
            CmdOut::Switched(id, result) => {
                widgets.overview.set_busy(false);
                match result {
                    Ok(summary) => {
                        self.active = Some(id.clone());
                        self.rebuild_status();
                        self.refresh_overview(widgets);
                        self.control.refresh.notify_one();
                        let mut toast = switched_toast(&self.status, &id, summary.changed, summary.cpus.len());
                        if let Some(warning) = gearshift::client::unsaved_warning(&summary) {
                            toast = format!("{toast}. {warning}");
                        }
                        Self::toast(widgets, &toast);
                    }
                    Err(err) => {
                        self.refresh_overview(widgets);
                        self.show_error(widgets, ErrorView::from_client(&err));
                    }
                }
            }
            CmdOut::AutoSet(result) => {
                if let Err(err) = result {
                    self.refresh_overview(widgets);
                    self.show_error(widgets, ErrorView::from_client(&err));
                }
            }
            CmdOut::Customs(result) => {
                if self.take_customs(widgets, &sender, result) {
                    Self::toast(widgets, &gettext("Custom profiles saved"));
                }
            }
            CmdOut::CustomsListed(result) => {
                // Quietly: an older helper, or none, simply has no list.
                if let Ok(text) = result {
                    self.take_customs(widgets, &sender, Ok(text));
                }
            }
        }
    }
}

impl App {
    /// Takes a new list of custom profiles; false (after showing why) when
    /// the call failed.
    fn take_customs(
        &mut self,
        widgets: &AppWidgets,
        sender: &ComponentSender<Self>,
        result: Result<String, ClientError>,
    ) -> bool {
        match result.map(|text| parse_profiles(&text)) {
            Ok(Ok(profiles)) => {
                self.ctx.customs = profiles;
                self.rebuild_status();
                widgets.overview.set_profiles(&Overview::from_status(&self.status), sender.input_sender());
                if let Some(tuning) = &widgets.tuning {
                    tuning.set_saved(&self.ctx.customs);
                }
                self.refresh_overview(widgets);
                true
            }
            Ok(Err(err)) => {
                Self::toast(widgets, &err.to_string());
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
            HelperEvent::Power(watts) => widgets.overview.set_power(Some(watts)),
            HelperEvent::NoPower => widgets.overview.set_power(None),
        }
        self.update_banner(widgets);
        self.refresh_overview(widgets);
    }
}

fn start_sampler(model: &App, sender: &ComponentSender<App>) {
    let root = model.ctx.root.clone();
    let machine: Machine = model.ctx.machine.clone();
    let mut visible = model.control.visible.subscribe();
    let refresh = model.control.refresh.clone();
    let interval = model.control.interval_ms.clone();
    sender.command(move |out, shutdown| {
        shutdown
            .register(async move {
                let mut sampler = Sampler::new(&root, &machine, interval.load(Ordering::Relaxed));
                let _ = out.send(CmdOut::Samples(sampler.samples().to_vec()));
                loop {
                    if !*visible.borrow() {
                        // Hidden or minimized: no timer, no reads, until shown.
                        if visible.changed().await.is_err() {
                            return;
                        }
                        sampler.refresh_all();
                    }
                    let wait = Duration::from_millis(interval.load(Ordering::Relaxed));
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = refresh.notified() => sampler.refresh_all(),
                        changed = visible.changed() => {
                            if changed.is_err() { return; }
                            continue;
                        }
                    }
                    if !sampler.tick() {
                        let machine = Machine::read(&root);
                        sampler = Sampler::new(&root, &machine, interval.load(Ordering::Relaxed));
                    }
                    if out.send(CmdOut::Samples(sampler.samples().to_vec())).is_err() {
                        return;
                    }
                }
            })
            .drop_on_shutdown()
    });
}

fn install_actions(window: &adw::ApplicationWindow, sender: &ComponentSender<App>) {
    let add = |name: &str, msg: fn() -> AppMsg| {
        let action = gio::SimpleAction::new(name, None);
        let input = sender.input_sender().clone();
        action.connect_activate(move |_, _| input.emit(msg()));
        window.add_action(&action);
    };
    add("refresh", || AppMsg::Refresh);
    add("last-error", || AppMsg::LastError);
    add("about", || AppMsg::About);
    add("wizard", || AppMsg::Wizard);
    add("show-help-overlay", || AppMsg::Shortcuts);
    add("page-overview", || AppMsg::Page("overview"));
    add("page-cores", || AppMsg::Page("cores"));
    add("page-tuning", || AppMsg::Page("tuning"));
    for (i, id) in ["performance", "balance_performance", "balance_power", "power"].into_iter().enumerate() {
        let action = gio::SimpleAction::new(&format!("profile-{}", i + 1), None);
        let input = sender.input_sender().clone();
        action.connect_activate(move |_, _| input.emit(AppMsg::Switch(id.to_owned())));
        window.add_action(&action);
    }
    if let Some(app) = relm4::main_application().downcast_ref::<gtk::Application>() {
        let quit = gio::SimpleAction::new("quit", None);
        let weak = app.downgrade();
        quit.connect_activate(move |_, _| {
            if let Some(app) = weak.upgrade() {
                app.quit();
            }
        });
        app.add_action(&quit);
        app.set_accels_for_action("app.quit", &["<Control>q"]);
        app.set_accels_for_action("win.refresh", &["F5", "<Control>r"]);
        app.set_accels_for_action("win.show-help-overlay", &["<Control>question"]);
        app.set_accels_for_action("win.about", &["F1"]);
        app.set_accels_for_action("win.page-overview", &["<Alt>1"]);
        app.set_accels_for_action("win.page-cores", &["<Alt>2"]);
        app.set_accels_for_action("win.page-tuning", &["<Alt>3"]);
        for i in 1..=4 {
            app.set_accels_for_action(&format!("win.profile-{i}"), &[&format!("<Control>{i}")]);
        }
    }
}

/// Pauses sampling while the window is hidden or minimized.
fn watch_visibility(window: &adw::ApplicationWindow, sender: &ComponentSender<App>) {
    let input = sender.input_sender().clone();
    window.connect_map(move |_| input.emit(AppMsg::Visible(true)));
    let input = sender.input_sender().clone();
    window.connect_unmap(move |_| input.emit(AppMsg::Visible(false)));
    let input = sender.input_sender().clone();
    window.connect_realize(move |window| {
        let Some(toplevel) = window.surface().and_downcast::<gdk::Toplevel>() else { return };
        let input = input.clone();
        toplevel.connect_state_notify(move |toplevel| {
            let minimized = toplevel.state().contains(gdk::ToplevelState::MINIMIZED);
            input.emit(AppMsg::Visible(!minimized));
        });
    });
}

/// Prints how long after the process started the first frame was drawn
/// (for `build-aux/bench`).
fn report_first_frame(window: &adw::ApplicationWindow) {
    window.connect_map(|window| {
        let Some(clock) = window.frame_clock() else { return };
        let handler: Rc<RefCell<Option<glib::SignalHandlerId>>> = Rc::default();
        let once = handler.clone();
        let weak = clock.downgrade();
        *handler.borrow_mut() = Some(clock.connect_after_paint(move |_| {
            let ms = super::process_age_ms();
            eprintln!("gearshift: first frame {ms:.0} ms after start");
            if let (Some(clock), Some(id)) = (weak.upgrade(), once.borrow_mut().take()) {
                clock.disconnect(id);
            }
        }));
    });
}

//! The window's frame: the pages (components) in a view stack, the header
//! with its menu, the banner for lasting conditions, the toasts. Built
//! once; [`AppWidgets`] keeps what changes.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use relm4::adw::{self, prelude::*};
use relm4::gtk::{self, gio, glib};
use relm4::{Component, ComponentController, Controller, Sender};

use gearshift::client::Helper;
use gearshift::core::report::HardwareReport;
use gearshift::core::status::Status;
use gearshift::i18n::gettext;

use super::cores::{CoreData, CoresInit, CoresPage};
use super::efficiency::{EfficiencyPage, LabInit, LabOut};
use super::model::{cores_header, on_lap, Overview};
use super::msg::AppMsg;
use super::overview::{OverviewInit, OverviewOut, OverviewPage};
use super::rules::{RulesOut, RulesPage};
use super::toasts::Toasts;
use super::tuning::{TuningInit, TuningOut, TuningPage};
use crate::context::Context;

/// The widgets that change, and the pages.
pub struct AppWidgets {
    pub toasts: Toasts,
    pub stack: adw::ViewStack,
    pub banner: gtk::Revealer,
    pub banner_label: gtk::Label,
    pub banner_button: gtk::Button,
    pub overview: Controller<OverviewPage>,
    pub cores: Option<Controller<CoresPage>>,
    pub tuning: Option<Controller<TuningPage>>,
    pub efficiency: Option<Controller<EfficiencyPage>>,
    pub rules: Option<Controller<RulesPage>>,
}

/// What the window starts from.
pub struct Start<'a> {
    pub ctx: &'a Context,
    pub status: &'a Status,
    pub report: &'a HardwareReport,
    pub overview: &'a Overview,
    pub cores: &'a Arc<CoreData>,
    pub helper: &'a Helper,
}

fn from_overview(out: OverviewOut) -> AppMsg {
    match out {
        OverviewOut::Switch(id) => AppMsg::Switch(id),
        OverviewOut::SetAuto(on) => AppMsg::SetAuto(on),
        OverviewOut::SetAutoPair(ac, battery) => AppMsg::SetAutoPair(ac, battery),
        OverviewOut::SetDriverMode(mode) => AppMsg::SetDriverMode(mode),
        OverviewOut::SetOption(option, on) => AppMsg::SetOption(option, on),
        OverviewOut::ReturnToAutomatic => AppMsg::ReturnToAutomatic,
    }
}

fn from_tuning(out: TuningOut) -> AppMsg {
    match out {
        TuningOut::Switch(id) => AppMsg::Switch(id),
        TuningOut::Customs(list) => AppMsg::Customs(list),
        TuningOut::Notice(notice) => AppMsg::Notice(notice),
    }
}

fn from_rules(out: RulesOut) -> AppMsg {
    match out {
        RulesOut::Notice(notice) => AppMsg::Notice(notice),
    }
}

fn from_lab(out: LabOut) -> AppMsg {
    match out {
        LabOut::Running(running) => AppMsg::LabRunning(running),
        LabOut::Switch(id) => AppMsg::Switch(id),
        LabOut::UseOn { id, battery } => AppMsg::UseOn { id, battery },
        LabOut::Notice(notice) => AppMsg::Notice(notice),
        LabOut::State(state) => AppMsg::LabState(Box::new(state)),
    }
}

/// Builds the window's content into `root`.
pub fn build(root: &adw::ApplicationWindow, input: &Sender<AppMsg>, start: &Start<'_>) -> AppWidgets {
    let Start { ctx, status, report, overview: overview_model, cores, helper } = *start;
    let overview = OverviewPage::builder()
        .launch(OverviewInit {
            model: overview_model.clone(),
            report: report.clone(),
            cores: cores.clone(),
            hybrid: status.cpu.hybrid,
        })
        .forward(input, from_overview);
    let toasts = adw::ToastOverlay::new();
    let stack = adw::ViewStack::new();
    stack.set_vexpand(true);
    let can_tune = overview_model.can_tune;
    let grid = can_tune.then(|| {
        CoresPage::builder()
            .launch(CoresInit {
                data: cores.clone(),
                hybrid: status.cpu.hybrid,
                header: cores_header(status, ctx.machine.platform_profile.as_ref()),
                on_lap: on_lap(status),
            })
            .detach()
    });
    let tuning = can_tune.then(|| {
        TuningPage::builder()
            .launch(TuningInit { ctx: ctx.clone(), status: status.clone(), helper: helper.clone() })
            .forward(input, from_tuning)
    });
    let efficiency = (can_tune && ctx.machine.has_cpufreq()).then(|| {
        EfficiencyPage::builder()
            .launch(LabInit { ctx: ctx.clone(), status: status.clone(), helper: helper.clone() })
            .forward(input, from_lab)
    });
    let rules = can_tune.then(|| RulesPage::builder().launch(ctx.clone()).forward(input, from_rules));
    let add_page = |child: &gtk::Widget, name: &str, title: &str, icon: &str| {
        stack.add_titled(child, Some(name), title).set_icon_name(Some(icon));
    };
    add_page(overview.widget().upcast_ref(), "overview", &gettext("Overview"), "computer-symbolic");
    if let Some(grid) = &grid {
        add_page(grid.widget().upcast_ref(), "cores", &gettext("Cores"), "view-grid-symbolic");
    }
    if let Some(tuning) = &tuning {
        add_page(tuning.widget().upcast_ref(), "tuning", &gettext("Tuning"), "preferences-system-symbolic");
    }
    if let Some(efficiency) = &efficiency {
        add_page(
            efficiency.widget().upcast_ref(),
            "efficiency",
            &gettext("Efficiency"),
            "power-profile-balanced-symbolic",
        );
    }
    if let Some(rules) = &rules {
        add_page(rules.widget().upcast_ref(), "rules", &gettext("Rules"), "system-run-symbolic");
    }

    let header = adw::HeaderBar::new();
    let switcher_title = adw::ViewSwitcherTitle::builder().stack(&stack).title(gettext("Gearshift")).build();
    header.set_title_widget(Some(&switcher_title));
    let menu = gio::Menu::new();
    menu.append(Some(&gettext("_Refresh")), Some("win.refresh"));
    menu.append(Some(&gettext("Hardware Report and _Setup")), Some("win.wizard"));
    menu.append(Some(&gettext("_Preferences")), Some("win.preferences"));
    menu.append(Some(&gettext("_Keyboard Shortcuts")), Some("win.show-help-overlay"));
    menu.append(Some(&gettext("_About Gearshift")), Some("win.about"));
    menu.append(Some(&gettext("_Quit")), Some("app.quit"));
    let menu_button =
        gtk::MenuButton::builder().icon_name("open-menu-symbolic").menu_model(&menu).primary(true).build();
    menu_button.set_tooltip_text(Some(&gettext("Main Menu")));
    super::set_accessible_label(&menu_button, &gettext("Main Menu"));
    super::label_inner::<gtk::ToggleButton>(&menu_button, &gettext("Main Menu"));
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
    {
        // What the button does is the banner's, which the window knows.
        let input = input.clone();
        banner_button.connect_clicked(move |_| input.emit(AppMsg::BannerPressed));
    }

    let body = gtk::Box::new(gtk::Orientation::Vertical, 0);
    body.append(&header);
    body.append(&banner);
    if can_tune {
        body.append(&stack);
        body.append(&switcher_bar);
    } else {
        body.append(&super::overview::nothing_to_tune(report));
    }
    toasts.set_child(Some(&body));
    root.set_content(Some(&toasts));
    root.set_size_request(360, 400);
    AppWidgets {
        toasts: Toasts::new(toasts, ctx.dev.toast_seconds),
        stack,
        banner,
        banner_label,
        banner_button,
        overview,
        cores: grid,
        tuning,
        efficiency,
        rules,
    }
}

/// Prints how long after the process started the first frame was drawn
/// (for `build-aux/bench`).
pub fn report_first_frame(window: &adw::ApplicationWindow) {
    on_first_frame(window, || {
        let ms = super::process_age_ms();
        eprintln!("gearshift: first frame {ms:.0} ms after start");
    });
}

/// Runs `then` once, after the window's first frame was painted.
pub fn on_first_frame(window: &adw::ApplicationWindow, then: impl Fn() + 'static) {
    let then = Rc::new(then);
    window.connect_map(move |window| {
        let Some(clock) = window.frame_clock() else { return };
        let handler: Rc<Cell<Option<glib::SignalHandlerId>>> = Rc::default();
        let once = handler.clone();
        let weak = clock.downgrade();
        let then = then.clone();
        handler.set(Some(clock.connect_after_paint(move |_| {
            if let (Some(clock), Some(id)) = (weak.upgrade(), once.take()) {
                then();
                clock.disconnect(id);
            }
        })));
    });
}

/// Shows the banner, or hides it.
pub fn show_banner(widgets: &AppWidgets, banner: Option<&super::model::Banner>) {
    let Some(banner) = banner else {
        widgets.banner.set_reveal_child(false);
        return;
    };
    widgets.banner_label.set_label(&banner.text);
    match &banner.action {
        Some((label, _)) => {
            widgets.banner_button.set_label(label);
            widgets.banner_button.set_visible(true);
        }
        None => widgets.banner_button.set_visible(false),
    }
    widgets.banner.set_reveal_child(true);
}

/// For screenshots, tests and the bench: the window's size, the page it
/// opens on, the first frame's time.
pub fn dev_hooks(root: &adw::ApplicationWindow, widgets: &AppWidgets, dev: &crate::context::DevHooks) {
    if let Some((w, h)) = dev.size {
        root.set_default_size(w, h);
    }
    if let Some(page) = dev.page.as_deref().filter(|p| widgets.stack.child_by_name(p).is_some()) {
        widgets.stack.set_visible_child_name(page);
    }
    if dev.report_first_frame {
        report_first_frame(root);
    }
}

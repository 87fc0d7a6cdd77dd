//! The window's widgets: the pages in a view stack, the header with its
//! menu, the banner for lasting conditions, the toast overlay. Built once;
//! [`AppWidgets`] keeps what changes.

use std::cell::RefCell;
use std::rc::Rc;

use relm4::adw::{self, prelude::*};
use relm4::gtk::{self, gio, glib};
use relm4::Sender;

use gearshift::core::report::HardwareReport;
use gearshift::core::status::Status;
use gearshift::i18n::gettext;

use super::cores::{CoreData, CoreGrid};
use super::efficiency::EfficiencyPage;
use super::model::{cores_header, on_lap, Overview};
use super::msg::AppMsg;
use super::overview::OverviewPage;
use super::tuning::TuningPage;
use crate::context::Context;

/// The widgets that change.
pub struct AppWidgets {
    pub toasts: adw::ToastOverlay,
    pub stack: adw::ViewStack,
    pub banner: gtk::Revealer,
    pub banner_label: gtk::Label,
    pub banner_button: gtk::Button,
    pub banner_action: Rc<RefCell<Option<AppMsg>>>,
    pub overview: OverviewPage,
    pub grid: Option<CoreGrid>,
    pub tuning: Option<TuningPage>,
    pub efficiency: Option<Rc<EfficiencyPage>>,
}

/// Builds the window's content into `root`.
pub fn build(
    root: &adw::ApplicationWindow,
    input: &Sender<AppMsg>,
    ctx: &Context,
    status: &Status,
    report: &HardwareReport,
    overview_model: &Overview,
    cores: &Rc<RefCell<CoreData>>,
) -> AppWidgets {
    let overview = OverviewPage::new(overview_model, report, input);
    let toasts = adw::ToastOverlay::new();
    let stack = adw::ViewStack::new();
    stack.set_vexpand(true);
    let grid = overview_model.can_tune.then(|| {
        CoreGrid::new(
            cores.clone(),
            status.cpu.hybrid,
            &cores_header(status, ctx.machine.platform_profile.as_ref()),
            on_lap(status),
        )
    });
    let tuning = overview_model.can_tune.then(|| TuningPage::new(ctx, status, input));
    let efficiency = (overview_model.can_tune && ctx.machine.has_cpufreq()).then(|| {
        let resolver = ctx.resolver();
        let machine = resolver.model.as_ref().and_then(|m| m.codename.clone()).unwrap_or_else(|| gettext("computer"));
        EfficiencyPage::new(&ctx.customs, gearshift::core::measure::kernel_default(&resolver), &machine, input)
    });
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
    if let Some(efficiency) = &efficiency {
        add_page(efficiency.root.upcast_ref(), "efficiency", &gettext("Efficiency"), "power-profile-balanced-symbolic");
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
    let banner_action: Rc<RefCell<Option<AppMsg>>> = Rc::default();
    {
        let action = banner_action.clone();
        let input = input.clone();
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
        body.append(&super::overview::nothing_to_tune(report));
    }
    toasts.set_child(Some(&body));
    root.set_content(Some(&toasts));
    root.set_size_request(360, 400);
    AppWidgets { toasts, stack, banner, banner_label, banner_button, banner_action, overview, grid, tuning, efficiency }
}

/// Prints how long after the process started the first frame was drawn
/// (for `build-aux/bench`).
pub fn report_first_frame(window: &adw::ApplicationWindow) {
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

//! The first-run wizard: what was found, whether the helper works, other
//! power managers, the AC and battery profiles and the tray, and a summary
//! of what Finish applies; the helper applies Balanced when it first starts.
//!
//! A component over the main window; each step is built in a file of its
//! own (`found`, `helper`, `others`, `choice`, `summary`) from the parts in
//! `parts`. The component keeps which step shows and whether Finish runs;
//! the helper check and Finish's call are its commands.

mod choice;
mod found;
mod helper;
mod others;
mod parts;
mod summary;

use std::rc::Rc;

use relm4::adw::{self, prelude::*};
use relm4::gtk;
use relm4::{Component, ComponentParts, ComponentSender};

use gearshift::client::{ClientError, Helper};
use gearshift::core::report::HardwareReport;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use crate::autostart;
use crate::ui::settings::Settings;
use helper::HelperCheck;

/// The steps, in order, by their names in the stack.
const STEPS: [&str; 5] = ["found", "helper", "others", "choice", "summary"];

/// What the wizard starts with.
pub struct WizardInit {
    /// The window it belongs to.
    pub parent: adw::ApplicationWindow,
    /// The machine's status (with the other power managers found).
    pub status: Status,
    /// The hardware report.
    pub report: HardwareReport,
    /// It shows this computer (the helper can change what it shows).
    pub live: bool,
    /// The way to the helper.
    pub helper: Helper,
    /// Where Finish stores the choice.
    pub settings: Settings,
}

/// What the wizard tells the window.
#[derive(Debug)]
pub enum WizardOut {
    /// Its button switched the driver to active mode: read the machine
    /// again.
    DriverModeChanged,
    /// Finish: what it did, for a toast.
    Finished(String),
    /// Closed before Finish (its close button, Escape): it counts as seen,
    /// and the toast says where it opens again.
    Closed,
}

/// What the person does with the wizard's buttons.
#[derive(Debug)]
pub enum WizardMsg {
    /// The step before.
    Back,
    /// The next step; on the last, Finish.
    Next,
}

/// What the wizard's background work reports.
#[derive(Debug)]
pub enum WizardCmd {
    /// The helper check's answer (none for a snapshot: not asked).
    Checked(Option<HelperCheck>),
    /// Finish's call to the helper returned.
    Finished(Result<(), ClientError>),
}

/// The wizard: which step shows, and whether Finish runs. It shows, checks
/// and asks; Finish stores the choice (`settings`, the login item, the
/// helper's AC/battery policy).
pub struct Wizard {
    step: usize,
    finishing: bool,
    /// The tray at login, as chosen when Finish was pressed.
    tray: bool,
    machine: summary::Machine,
    status: Status,
    client: Helper,
    prefs: Settings,
    /// Finish recorded the choice: the close that follows is no "closed
    /// before Finish".
    done: Rc<std::cell::Cell<bool>>,
}

/// The widgets that change.
pub struct WizardWidgets {
    stack: gtk::Stack,
    back: gtk::Button,
    next: gtk::Button,
    step: gtk::Label,
    summary: gtk::Label,
    error: gtk::Label,
    helper_group: adw::PreferencesGroup,
    mode_button: Option<gtk::Button>,
    choice: choice::Choice,
}

impl Component for Wizard {
    type CommandOutput = WizardCmd;
    type Input = WizardMsg;
    type Output = WizardOut;
    type Init = WizardInit;
    type Root = adw::Window;
    type Widgets = WizardWidgets;

    fn init_root() -> adw::Window {
        adw::Window::builder()
            .modal(true)
            .title(gettext("Welcome to Gearshift"))
            .default_width(720)
            .default_height(640)
            .build()
    }

    fn init(init: WizardInit, window: adw::Window, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        window.set_transient_for(Some(&init.parent));
        let WizardInit { status, report, live, helper: client, settings: prefs, .. } = init;
        let error = gtk::Label::builder()
            .wrap(true)
            .css_classes(["error"])
            .visible(false)
            .margin_start(12)
            .margin_end(12)
            .build();
        let out = sender.output_sender().clone();
        let mode_changed: Rc<dyn Fn()> = Rc::new(move || out.emit(WizardOut::DriverModeChanged));
        let found = found::build(&report, &status, live, &client, &error, mode_changed);
        let (helper_page, helper_group) = helper::build();
        let others = others::build(&status.conflicts);
        let choice = choice::Choice::build(&report, &status, live);
        let (summary_page, summary) = summary::build();
        let stack =
            gtk::Stack::builder().transition_type(gtk::StackTransitionType::SlideLeftRight).vexpand(true).build();
        for (name, page) in STEPS.iter().zip([&found.page, &helper_page, &others, &choice.page, &summary_page]) {
            stack.add_named(page, Some(name));
        }
        let (bar, back, next, step) = nav_bar(&sender);
        let body = gtk::Box::new(gtk::Orientation::Vertical, 0);
        body.append(&adw::HeaderBar::new());
        body.append(&stack);
        body.append(&error);
        body.append(&bar);
        window.set_content(Some(&body));

        // The helper check runs while the person reads the first page.
        let asked = client.clone();
        sender.oneshot_command(async move {
            WizardCmd::Checked(if live { Some(helper::check_helper(&asked).await) } else { None })
        });
        window.set_default_widget(Some(&next));
        // Escape closes it, as it does every dialog; nothing is applied then.
        let escape = gtk::ShortcutController::new();
        escape.add_shortcut(gtk::Shortcut::new(
            gtk::ShortcutTrigger::parse_string("Escape"),
            Some(gtk::NamedAction::new("window.close")),
        ));
        window.add_controller(escape);
        let machine = summary::Machine { can_tune: report.can_tune, live, battery: status.battery };
        let done = Rc::new(std::cell::Cell::new(false));
        // Closing it counts as seen: it does not come back at every start
        // (the menu opens it again). Nothing is applied, and what starts at
        // login stays.
        let (seen, prefs_at_close, out) = (done.clone(), prefs.clone(), sender.output_sender().clone());
        window.connect_close_request(move |_| {
            if !seen.replace(true) {
                if let Err(err) = prefs_at_close.record_wizard(!live) {
                    log::warn!("{}", i18n_f("cannot save the settings: {}", &[&err]));
                }
                log::debug!("wizard closed before Finish: recorded as seen");
                out.emit(WizardOut::Closed);
            }
            relm4::gtk::glib::Propagation::Proceed
        });
        let model = Wizard { step: 0, finishing: false, tray: false, machine, status, client, prefs, done };
        let widgets = WizardWidgets {
            stack,
            back,
            next,
            step,
            summary,
            error,
            helper_group,
            mode_button: found.mode_button,
            choice,
        };
        model.show_step(&widgets);
        window.present();
        widgets.next.grab_focus();
        ComponentParts { model, widgets }
    }

    fn update_with_view(
        &mut self,
        widgets: &mut WizardWidgets,
        msg: WizardMsg,
        sender: ComponentSender<Self>,
        _root: &adw::Window,
    ) {
        match msg {
            WizardMsg::Back => self.step = self.step.saturating_sub(1),
            WizardMsg::Next if self.step + 1 < STEPS.len() => self.step += 1,
            WizardMsg::Next => return self.finish(widgets, &sender),
        }
        self.show_step(widgets);
    }

    fn update_cmd_with_view(
        &mut self,
        widgets: &mut WizardWidgets,
        cmd: WizardCmd,
        sender: ComponentSender<Self>,
        window: &adw::Window,
    ) {
        match cmd {
            WizardCmd::Checked(check) => {
                if let (Some(button), Some(check)) = (&widgets.mode_button, &check) {
                    button.set_sensitive(check.reachable.is_ok());
                }
                helper::fill(&widgets.helper_group, check.as_ref());
            }
            // No helper here: the choice is still recorded (the demo's,
            // a machine without one).
            WizardCmd::Finished(Ok(()) | Err(ClientError::NotInstalled | ClientError::NoBus(_))) => {
                self.record();
                self.done.set(true);
                let _ = sender.output(WizardOut::Finished(summary::applied(
                    &self.status,
                    self.machine,
                    &widgets.choice.picked(),
                    self.tray,
                )));
                window.close();
            }
            WizardCmd::Finished(Err(err)) => {
                widgets.error.set_label(&format!("{} {}", err.headline(), err.advice()));
                widgets.error.set_visible(true);
                widgets.next.set_sensitive(true);
                self.finishing = false;
            }
        }
    }
}

/// The row of buttons under the steps: Back, which step, Next.
fn nav_bar(sender: &ComponentSender<Wizard>) -> (gtk::Box, gtk::Button, gtk::Button, gtk::Label) {
    let back = gtk::Button::with_mnemonic(&gettext("_Back"));
    let next =
        gtk::Button::builder().label(gettext("_Next")).use_underline(true).css_classes(["suggested-action"]).build();
    let bar = gtk::Box::new(gtk::Orientation::Horizontal, 12);
    bar.set_margin_top(6);
    bar.set_margin_bottom(12);
    bar.set_margin_start(12);
    bar.set_margin_end(12);
    let step = gtk::Label::builder().css_classes(["dim-label"]).build();
    let spacer = || gtk::Box::builder().hexpand(true).build();
    bar.append(&back);
    bar.append(&spacer());
    bar.append(&step);
    bar.append(&spacer());
    bar.append(&next);
    let input = sender.input_sender().clone();
    back.connect_clicked(move |_| input.emit(WizardMsg::Back));
    let input = sender.input_sender().clone();
    next.connect_clicked(move |_| input.emit(WizardMsg::Next));
    (bar, back, next, step)
}

impl Wizard {
    /// Shows the current step, its number and the buttons for it.
    fn show_step(&self, widgets: &WizardWidgets) {
        let i = self.step;
        widgets.stack.set_visible_child_name(STEPS[i]);
        widgets.back.set_sensitive(i > 0);
        widgets.next.set_label(&if i + 1 == STEPS.len() { gettext("_Finish") } else { gettext("_Next") });
        widgets.step.set_label(
            // Translators: Page numbers of the wizard.
            &i18n_text("Step {step} of {steps}").arg("step", i + 1).arg("steps", STEPS.len()).localized(),
        );
        if STEPS[i] == "summary" {
            let picked = widgets.choice.picked();
            widgets.summary.set_label(&summary::words(
                &self.status,
                self.machine,
                &picked,
                widgets.choice.tray_at_login(),
            ));
        }
    }

    /// Finish: the helper's AC/battery policy (where there is something to
    /// switch on this computer), then the settings once it answered.
    fn finish(&mut self, widgets: &WizardWidgets, sender: &ComponentSender<Self>) {
        if self.finishing {
            return;
        }
        self.finishing = true;
        widgets.next.set_sensitive(false);
        self.tray = widgets.choice.tray_at_login();
        let ((ac, _), (battery, _)) = widgets.choice.picked();
        let client = self.client.clone();
        let call = self.machine.can_tune && self.machine.live;
        sender.oneshot_command(async move {
            if !call {
                return WizardCmd::Finished(Ok(()));
            }
            let result = client.call(|p| async move { p.set_auto_policy(&ac, &battery).await }).await;
            WizardCmd::Finished(result.map(|summary| {
                if let Some(warning) = gearshift::client::unsaved_warning(&summary) {
                    log::warn!("{warning}");
                }
            }))
        });
    }

    /// Keeps what Finish chose. A snapshot's (the demo's) wizard leaves
    /// this computer's choices alone: it is marked seen for snapshots only,
    /// and the tray's autostart stays.
    fn record(&self) {
        let live = self.machine.live;
        if live {
            let _ = autostart::set_autostart(self.tray);
        }
        if let Err(err) = self.prefs.record_wizard(!live) {
            log::warn!("{}", i18n_f("cannot save the settings: {}", &[&err]));
        }
        log::debug!(
            "wizard finished: done {}, snapshot seen {}",
            self.prefs.wizard_done(),
            self.prefs.snapshot_wizard_seen()
        );
    }
}

//! The window's own messages: its dialogs, the banner's button, pages,
//! the settings, visibility and what the tests' state file counts.

use std::sync::atomic::Ordering;

use relm4::gtk::gdk;
use relm4::{Component, ComponentSender};

use super::*;

impl App {
    /// Takes a message about the window itself (not the helper's state).
    pub(super) fn chrome(
        &mut self,
        widgets: &mut AppWidgets,
        msg: AppMsg,
        sender: &ComponentSender<Self>,
        root: &adw::ApplicationWindow,
    ) {
        let helper = self.helper.clone();
        match msg {
            AppMsg::BannerPressed => match self.banner_action.clone() {
                Some(BannerAction::Copy(command)) => sender.input(AppMsg::Copy(command)),
                Some(BannerAction::Details(view)) => sender.input(AppMsg::Details(view)),
                Some(BannerAction::Retry) => sender.input(AppMsg::Retry),
                None => {}
            },
            AppMsg::Visible(visible) => drop(self.control.visible.send_replace(visible)),
            AppMsg::Details(view) => dialogs::error_details(root, &view),
            AppMsg::LastError => {
                if let Some(view) = &self.last_error {
                    dialogs::error_details(root, view);
                }
            }
            AppMsg::Copy(text) => {
                if let Some(display) = gdk::Display::default() {
                    display.clipboard().set_text(&text);
                    self.toast(widgets, i18n_f("Copied: {}", &[&text]));
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
                status.conflicts.clone_from(&self.session.conflicts);
                let init = WizardInit {
                    parent: root.clone(),
                    status,
                    report: self.report.clone(),
                    live: self.served,
                    helper,
                    settings: self.settings.clone(),
                };
                let wizard = Wizard::builder().launch(init).forward(sender.input_sender(), |out| match out {
                    WizardOut::DriverModeChanged => AppMsg::DriverModeChanged,
                    WizardOut::Finished(text) => AppMsg::Notice(Notice::Text(text)),
                    // A toast is one line: short enough for 360 px.
                    WizardOut::Closed => {
                        AppMsg::Notice(Notice::Text(gettext("You can open the welcome again from the main menu.")))
                    }
                });
                self.wizard = Some(wizard);
                self.seen.wizards += 1;
            }
            AppMsg::Shortcuts => dialogs::shortcuts(root),
            AppMsg::Preferences => {
                let input = sender.input_sender().clone();
                let ms = self.control.interval_ms.load(Ordering::Relaxed);
                dialogs::preferences(root, ms, move |ms| input.emit(AppMsg::SetInterval(ms)));
            }
            AppMsg::SetInterval(ms) => {
                if let Err(err) = self.settings.set_interval_ms(ms) {
                    self.toast(widgets, i18n_f("cannot save the settings: {}", &[&err]));
                }
            }
            AppMsg::Drawn => self.seen.drawn = true,
            AppMsg::LabState(state) => self.seen.lab = *state,
            AppMsg::IntervalChanged(ms) => {
                // From the settings, whoever changed them.
                self.control.interval_ms.store(ms, Ordering::Relaxed);
                self.control.refresh.notify_one();
                log::debug!("sampling every {ms} ms");
            }
            _ => log::warn!("a message for the pages reached the window's own: {msg:?}"),
        }
    }
}

//! Changes that need a word before or after them: the driver's mode is
//! asked first (the kernel rebuilds every cpufreq policy, and the profile
//! is applied again in the new mode); the Efficiency page's "Use on
//! Battery" and "Use on AC Power" turn automatic switching on at once and
//! say so with Undo; Undo takes back whichever was last.

use gearshift::core::machine::DriverMode;
use gearshift::i18n::i18n_text;
use relm4::ComponentSender;

use super::*;
use crate::ui::model::builtin_title;

/// What the toast's Undo takes back.
#[derive(Debug, Clone)]
pub(super) enum Undo {
    /// A custom profile's deletion (the Tuning page saves it again).
    Delete,
    /// The AC/battery policy before "Use on Battery" or "Use on AC Power".
    Policy(Option<AutoPolicy>),
}

impl App {
    /// Asks before switching the driver to `mode`; the row shows the mode
    /// in effect again where nothing is to be switched, or on Cancel.
    pub(super) fn ask_driver_mode(
        &mut self,
        widgets: &AppWidgets,
        sender: &ComponentSender<Self>,
        root: &adw::ApplicationWindow,
        mode: DriverMode,
    ) {
        if !self.can_switch() || self.mode_pending.is_some() || self.status.mode.as_deref() == Some(mode.as_str()) {
            return self.refresh(widgets);
        }
        let active = self.active();
        let profile = active.map(|id| builtin_title(id.as_str()).unwrap_or_else(|| id.to_string()));
        let window = root.clone().upcast::<relm4::gtk::Window>();
        let (yes, no) = (AppMsg::DriverModeConfirmed(mode), AppMsg::DriverModeKept);
        dialogs::confirm_mode(&window, mode, profile.as_deref(), sender.input_sender(), yes, no);
    }

    /// Switches the driver to `mode`, confirmed.
    pub(super) fn set_driver_mode(&mut self, widgets: &AppWidgets, sender: &ComponentSender<Self>, mode: DriverMode) {
        if !self.can_switch() || self.mode_pending.is_some() {
            return self.refresh(widgets);
        }
        self.mode_pending = Some(mode);
        widgets.overview.emit(OverviewMsg::Busy(true));
        self.refresh(widgets);
        let helper = self.helper.clone();
        sender.oneshot_command(async move {
            CmdOut::ModeSet(mode, helper.call(|p| async move { p.set_driver_mode(mode.as_str()).await }).await)
        });
    }

    /// Uses `id` on battery (or on AC power): automatic switching with it
    /// on that side, the other side kept; once the helper has it, a toast
    /// says so, with Undo.
    pub(super) fn use_on(&mut self, sender: &ComponentSender<Self>, id: String, battery: bool) {
        let (on_ac, on_battery) = crate::ui::model::use_on(self.session.auto.as_ref(), id, battery);
        let name = |id: &str| builtin_title(id).unwrap_or_else(|| id.to_owned());
        // Translators: profile names.
        let words = i18n_text("Automatic switching is on: {on_ac} on AC power, {on_battery} on battery.")
            .arg("on_ac", name(&on_ac))
            .arg("on_battery", name(&on_battery))
            .localized();
        self.pending_undo = Some((Undo::Policy(self.session.auto.clone()), words));
        sender.input(AppMsg::SetAutoPair(on_ac, on_battery));
    }

    /// The helper took a new AC/battery policy: where the Efficiency page
    /// asked for it, the toast with Undo.
    pub(super) fn policy_set(&mut self, widgets: &mut AppWidgets) {
        if let Some((undo, words)) = self.pending_undo.take() {
            self.undo = Some(undo);
            self.notice(widgets, Notice::Undo(words));
        }
    }

    /// Takes back the last change that offered Undo.
    pub(super) fn undo(&mut self, widgets: &AppWidgets, sender: &ComponentSender<Self>) {
        match self.undo.take() {
            Some(Undo::Delete) => {
                if let Some(tuning) = &widgets.tuning {
                    tuning.emit(TuningMsg::Undo);
                }
            }
            Some(Undo::Policy(Some(before))) if before.enabled => {
                sender.input(AppMsg::SetAutoPair(before.on_ac, before.on_battery));
            }
            Some(Undo::Policy(_)) => {
                let helper = self.helper.clone();
                let known = self.session.auto.clone();
                self.call_helper(sender, async move { CmdOut::AutoSet(helper.set_auto(false, known.as_ref()).await) });
            }
            None => {}
        }
    }
}

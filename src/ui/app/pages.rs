//! What the window tells its pages when what they show changes: the
//! status after a switch or a new list of custom profiles, the machine
//! after a read, who may switch, save and measure, the banner.

use gearshift::client::session::{Changed, InEffect};
use gearshift::core::profile_id::ProfileId;
use relm4::{ComponentController, ComponentSender};

use super::*;
use crate::ui::state::{Seen, WindowState};

impl App {
    pub(super) fn rebuild_status(&mut self, widgets: &AppWidgets) {
        let active = self.session.active.profile().map(ProfileId::to_string);
        let ctx = &self.ctx;
        self.status =
            Status::build(&ctx.root_arg, &ctx.resolver(), &ctx.customs, active, Vec::new(), &ctx.extra_problems);
        if let Some(lab) = &widgets.efficiency {
            lab.emit(LabMsg::Machine(Box::new(self.ctx.clone()), Box::new(self.status.clone())));
        }
    }

    /// Shows what a session's change changed, once: the pages' controls,
    /// the banner (and the status, where the profile in effect changed).
    pub(super) fn show_session(&mut self, widgets: &AppWidgets, changed: Changed) {
        if !changed.shown() {
            return;
        }
        if changed.active {
            self.rebuild_status(widgets);
        }
        self.refresh(widgets);
    }

    /// Shows the firmware's platform profile and lap sensor as read now
    /// (the overview's rows, the per-core page's header); who may switch
    /// did not change.
    pub(super) fn show_firmware(&mut self, widgets: &AppWidgets) {
        self.rebuild_status(widgets);
        let platform = self.ctx.machine.platform_profile.as_ref();
        widgets.overview.emit(OverviewMsg::Machine(Box::new(Overview::from_machine(&self.status, platform))));
        if let Some(cores) = &widgets.cores {
            let on_lap = crate::ui::model::on_lap(&self.status);
            cores.emit(CoresMsg::Header(crate::ui::model::cores_header(&self.status, platform), on_lap));
        }
    }

    /// Asks the helper once more (the banner's Retry): D-Bus starts an
    /// installed helper that stopped; the live link then finds it.
    pub(super) fn retry(&mut self, widgets: &mut AppWidgets, sender: &ComponentSender<Self>) {
        self.toast(widgets, gettext("Starting the helper…"));
        let helper = self.helper.clone();
        sender.oneshot_command(async move {
            CmdOut::Retried(helper.call(|p| async move { p.get_state().await.map(drop) }).await)
        });
    }

    /// Shows the machine as read now on every page: the overview's facts,
    /// rows and report, the per-core page's header.
    pub(super) fn show_machine(&mut self, widgets: &AppWidgets) {
        self.rebuild_status(widgets);
        // The wizard, opened later, shows the report as it is then.
        self.report = HardwareReport::build(&self.ctx.resolver());
        let platform = self.ctx.machine.platform_profile.as_ref();
        widgets.overview.emit(OverviewMsg::Machine(Box::new(Overview::from_machine(&self.status, platform))));
        widgets.overview.emit(OverviewMsg::Report(Box::new(self.report.clone())));
        if let Some(cores) = &widgets.cores {
            let on_lap = crate::ui::model::on_lap(&self.status);
            cores.emit(CoresMsg::Header(crate::ui::model::cores_header(&self.status, platform), on_lap));
        }
        self.refresh(widgets);
    }

    /// Tells every page who may switch, save and measure, and what is
    /// active; shows the banner.
    pub(super) fn refresh(&mut self, widgets: &AppWidgets) {
        self.seen.refreshes += 1;
        let allowed = self.can_switch() && !self.session.measuring;
        let helper_error = self.helper_error();
        let locked_by = self.session.locked_by.clone();
        let blocked = switch_blocked(!self.served, helper_error.as_ref(), locked_by.as_deref());
        let active = self.active();
        widgets.overview.emit(OverviewMsg::Controls(Box::new(Controls {
            active_title: self.active_words(active.as_ref()),
            active,
            overridden: self.session.overridden(),
            allowed,
            auto: self.session.auto.clone(),
            mode: mode_row(&self.status, self.mode_pending, blocked),
            options: self.session.options.clone(),
        })));
        let why = |snapshot: String| match (&helper_error, self.served, &locked_by) {
            (_, false, _) => snapshot,
            (Some(view), true, _) => view.title.clone(),
            (None, true, Some(file)) => crate::ui::model::locked_words(file),
            (None, true, None) => String::new(),
        };
        if let Some(tuning) = &widgets.tuning {
            let text =
                gettext("Saving is off in a snapshot: the helper would save to this computer, not the snapshot.");
            tuning.emit(TuningMsg::Writable(self.can_switch(), why(text)));
            tuning.emit(TuningMsg::Active(self.active()));
        }
        if let Some(rules) = &widgets.rules {
            rules.emit(RulesMsg::Holds(self.session.holds.clone()));
            rules.emit(RulesMsg::Locked(locked_by.clone()));
        }
        if let Some(lab) = &widgets.efficiency {
            let text = gettext(
                "Measuring is off in a snapshot: it would switch the profiles of this computer, not the snapshot.",
            );
            lab.emit(LabMsg::Writable(self.can_switch(), why(text)));
        }
        let shown = match (self.served, self.demo, locked_by.as_deref()) {
            (true, _, Some(file)) => Shown::Locked(file),
            (true, _, None) => Shown::Served,
            (false, true, _) => Shown::Demo,
            (false, false, _) => Shown::Snapshot(&self.ctx.root_arg),
        };
        let gone = self.session.link == Link::Gone;
        let shown = banner(shown, helper_error.as_ref(), gone, &self.session.conflicts);
        self.seen.banner = shown.as_ref().map(|b| b.text.clone());
        self.banner_action = shown.as_ref().and_then(|b| b.action.as_ref()).map(|(_, action)| action.clone());
        window::show_banner(widgets, shown.as_ref());
    }

    /// The profile in effect in words, with who holds it where a hold put
    /// it there (as the tray says it).
    fn active_words(&self, active: Option<&ProfileId>) -> String {
        let id = active.map(ProfileId::as_str);
        let name_of = |id: &str| active_title(&self.status, Some(id), false);
        match self.session.held_words(id, name_of) {
            Some(words) => words.localized(),
            None => active_title(&self.status, id, self.session.overridden()),
        }
    }

    /// Takes the helper's custom profiles and shows them on every page.
    pub(super) fn take_customs(&mut self, widgets: &AppWidgets, profiles: Vec<gearshift::core::custom::CustomProfile>) {
        log::debug!("custom profiles: {:?}", profiles.iter().map(|p| p.id.as_str()).collect::<Vec<_>>());
        self.ctx.customs.clone_from(&profiles);
        if let Some(tuning) = &widgets.tuning {
            tuning.emit(TuningMsg::Customs(profiles));
        }
        self.rebuild_status(widgets);
        let platform = self.ctx.machine.platform_profile.as_ref();
        widgets.overview.emit(OverviewMsg::Machine(Box::new(Overview::from_machine(&self.status, platform))));
        self.refresh(widgets);
    }

    /// Writes what the window shows to the state file, where tests asked
    /// for one: the session as shown, and the window's own counts.
    pub(super) fn publish(&mut self) {
        if self.state.is_none() {
            return;
        }
        let helper_error = self.helper_error();
        let blocked = switch_blocked(!self.served, helper_error.as_ref(), self.session.locked_by.as_deref());
        let platform = self.ctx.machine.platform_profile.as_ref();
        let mut session = self.session.clone();
        if session.active == InEffect::NotHeard {
            // What the files hold, until the helper says.
            session.active = self.active().map_or(InEffect::NotHeard, InEffect::Profile);
        }
        let shown = WindowState {
            overridden: self.session.overridden(),
            session,
            served: self.served,
            switching: self.can_switch() && !self.session.measuring,
            writable: self.can_switch(),
            driver_mode: self.status.mode.clone(),
            mode_row: mode_row(&self.status, self.mode_pending, blocked),
            platform_profile: platform.and_then(|p| p.current.clone()),
            customs: self.ctx.customs.iter().map(|p| p.id.clone()).collect(),
            interval_ms: self.control.interval_ms.load(Ordering::Relaxed),
            seen: Seen { chart: crate::ui::widgets::chart::last_layout(), ..self.seen.clone() },
        };
        if let Some(state) = &mut self.state {
            state.publish(&shown);
        }
    }
}

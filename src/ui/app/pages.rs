//! What the window tells its pages when what they show changes: the
//! status after a switch or a new list of custom profiles, the machine
//! after a read, who may switch, save and measure, the banner.

use relm4::ComponentController;

use super::*;

impl App {
    pub(super) fn rebuild_status(&mut self, widgets: &AppWidgets) {
        let active = self.active.clone().filter(|a| !a.is_empty());
        let ctx = &self.ctx;
        self.status =
            Status::build(&ctx.root_arg, &ctx.resolver(), &ctx.customs, active, Vec::new(), &ctx.extra_problems);
        if let Some(lab) = &widgets.efficiency {
            lab.emit(LabMsg::Machine(Box::new(self.ctx.clone()), Box::new(self.status.clone())));
        }
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
    pub(super) fn refresh(&self, widgets: &AppWidgets) {
        let allowed = self.can_switch() && !self.measuring;
        let blocked = switch_blocked(!self.served, self.helper_error.as_ref(), self.shown.locked_by.as_deref());
        widgets.overview.emit(OverviewMsg::Controls(Box::new(Controls {
            active: self.active.clone().or_else(|| self.status.active_profile.clone()),
            active_title: active_title(&self.status, self.active.as_deref()),
            allowed,
            auto: self.auto.clone(),
            mode: mode_row(&self.status, self.mode_pending.as_deref(), blocked),
            options: self.shown.options.clone(),
        })));
        let why = |snapshot: String| match (&self.helper_error, self.served, &self.shown.locked_by) {
            (_, false, _) => snapshot,
            (Some(view), true, _) => view.title.clone(),
            (None, true, Some(file)) => crate::ui::model::locked_words(file),
            (None, true, None) => String::new(),
        };
        if let Some(tuning) = &widgets.tuning {
            let text =
                gettext("Saving is off in a snapshot: the helper would save to this computer, not the snapshot.");
            tuning.emit(TuningMsg::Writable(self.can_switch(), why(text)));
            tuning.emit(TuningMsg::Active(self.active.clone().or_else(|| self.status.active_profile.clone())));
        }
        if let Some(lab) = &widgets.efficiency {
            let text = gettext(
                "Measuring is off in a snapshot: it would switch the profiles of this computer, not the snapshot.",
            );
            lab.emit(LabMsg::Writable(self.can_switch(), why(text)));
        }
        let shown = match (self.served, self.demo, self.shown.locked_by.as_deref()) {
            (true, _, Some(file)) => Shown::Locked(file),
            (true, _, None) => Shown::Served,
            (false, true, _) => Shown::Demo,
            (false, false, _) => Shown::Snapshot(&self.ctx.root_arg),
        };
        window::show_banner(widgets, banner(shown, self.helper_error.as_ref(), &self.conflicts).as_ref());
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
    /// for one.
    pub(super) fn publish(&mut self) {
        if self.state.is_none() {
            return;
        }
        let blocked = switch_blocked(!self.served, self.helper_error.as_ref(), self.shown.locked_by.as_deref());
        let platform = self.ctx.machine.platform_profile.as_ref();
        let shown = WindowState {
            served: self.served,
            active: self.active.clone().or_else(|| self.status.active_profile.clone()),
            auto: self.auto.clone(),
            switching: self.can_switch() && !self.measuring,
            writable: self.can_switch(),
            driver_mode: self.status.mode.clone(),
            mode_row: mode_row(&self.status, self.mode_pending.as_deref(), blocked),
            platform_profile: platform.and_then(|p| p.current.clone()),
            customs: self.ctx.customs.iter().map(|p| p.id.clone()).collect(),
            conflicts: self.conflicts.clone(),
            measuring: self.measuring,
            interval_ms: self.control.interval_ms.load(Ordering::Relaxed),
            ..self.shown.clone()
        };
        if let Some(state) = &mut self.state {
            state.publish(&shown);
        }
    }
}

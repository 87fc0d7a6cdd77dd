//! What the window's background work reports: sampler ticks, the helper's
//! answers and signals, the files read off the main thread.

use gearshift::dbus::ApplySummary;
use gearshift::i18n::i18n_f;
use relm4::{ComponentController, ComponentSender};

use super::*;

impl App {
    /// Takes one result of background work.
    pub(super) fn result(&mut self, widgets: &mut AppWidgets, sender: &ComponentSender<Self>, msg: CmdOut) {
        match msg {
            CmdOut::Samples(samples) => {
                self.shown.samples += 1;
                let resolver = self.ctx.resolver();
                self.cores.borrow_mut().push(&samples, &|s| s.epp.and_then(|r| resolver.reading_value(r)));
                if let Some(cores) = &widgets.cores {
                    cores.emit(CoresMsg::Samples);
                }
                widgets.overview.emit(OverviewMsg::Samples);
                if self.firmware_read.elapsed() >= FIRMWARE_EVERY {
                    self.read_firmware(sender);
                }
            }
            CmdOut::Helper(event) => self.helper_event(widgets, sender, event),
            CmdOut::Switched(id, result) => {
                widgets.overview.emit(OverviewMsg::Busy(false));
                match result {
                    Ok(summary) => {
                        self.active = Some(id.clone());
                        self.rebuild_status(widgets);
                        self.refresh(widgets);
                        self.read_firmware(sender);
                        self.control.refresh.notify_one();
                        let toast = switched_toast(&self.status, &id, summary.changed, &summary.cpus);
                        self.toast(widgets, with_warning(toast, &summary));
                    }
                    Err(err) => {
                        self.refresh(widgets);
                        self.fail(widgets, &err);
                    }
                }
            }
            CmdOut::ModeSet(mode, result) => {
                self.mode_pending = None;
                widgets.overview.emit(OverviewMsg::Busy(false));
                // Whatever the outcome: the helper puts the old mode back
                // when the profile cannot be applied in the new one.
                self.read_machine(sender);
                match result {
                    Ok(summary) => {
                        let mut toast = i18n_f("The driver runs in {} mode now.", &[&mode]);
                        if summary.changed > 0 && !summary.profile.is_empty() {
                            let applied =
                                switched_toast(&self.status, &summary.profile, summary.changed, &summary.cpus);
                            toast = format!("{toast} {applied}");
                        }
                        self.toast(widgets, with_warning(toast, &summary));
                    }
                    Err(err) => self.fail(widgets, &err),
                }
            }
            CmdOut::AutoSet(Ok(summary)) => match gearshift::client::unsaved_warning(&summary) {
                Some(warning) => self.toast(widgets, warning),
                None => self.policy_set(widgets),
            },
            CmdOut::AutoSet(Err(err)) | CmdOut::OptionSet(Err(err)) => {
                self.refresh(widgets);
                self.fail(widgets, &err);
            }
            // PropertiesChanged brings the new state.
            CmdOut::OptionSet(Ok(())) => {}
            CmdOut::Served(served) => {
                log::debug!("the helper serves the snapshot: {served}");
                self.shown.served_checked = true;
                if served {
                    self.served = true;
                    self.start_live_link(sender);
                    self.refresh(widgets);
                }
            }
            // Quietly: an older helper, or none, simply has no list.
            CmdOut::CustomsListed(Ok(list)) => match gearshift::dbus::profile::list_from_wire(&list) {
                Ok(profiles) => self.take_customs(widgets, profiles),
                Err(err) => self.toast(widgets, err.to_string()),
            },
            CmdOut::CustomsListed(Err(_)) => {}
            CmdOut::Firmware(None) => self.firmware_reading = false,
            CmdOut::Firmware(Some(read)) => {
                self.firmware_reading = false;
                let machine = &mut self.ctx.machine;
                if read.mode.is_some() && read.mode != machine.mode {
                    log::debug!("driver mode now {:?}", read.mode);
                    return self.read_machine(sender);
                }
                if read.platform == machine.platform_profile && read.lap_mode == machine.lap_mode {
                    return;
                }
                let current = read.platform.as_ref().and_then(|p| p.current.as_deref());
                log::debug!("platform profile now {current:?}, lap mode {:?}", read.lap_mode);
                machine.platform_profile = read.platform;
                machine.lap_mode = read.lap_mode;
                self.show_machine(widgets);
            }
            CmdOut::Machine(None) => {}
            CmdOut::Machine(Some(machine)) => {
                self.ctx.machine = *machine;
                self.control.reopen();
                self.show_machine(widgets);
            }
            CmdOut::Conflicts(found) => self.add_conflicts(widgets, found),
        }
    }

    fn add_conflicts(&mut self, widgets: &AppWidgets, found: Vec<String>) {
        for id in found {
            if !self.conflicts.contains(&id) {
                self.conflicts.push(id);
            }
        }
        self.refresh(widgets);
    }

    fn helper_event(&mut self, widgets: &mut AppWidgets, sender: &ComponentSender<Self>, event: HelperEvent) {
        if !matches!(event, HelperEvent::Power(_)) {
            log::debug!("helper event {event:?}");
        }
        // After these the helper has written (or followed) the firmware's
        // platform profile too.
        let firmware = event.may_change_firmware();
        match event {
            HelperEvent::Connected { active, auto } => {
                self.shown.helper = "connected".into();
                self.helper_error = None;
                self.active = Some(active);
                self.auto = Some(auto);
                self.rebuild_status(widgets);
                self.list_customs(sender);
            }
            HelperEvent::Unreachable(err) => {
                self.shown.helper = format!("unreachable: {err:?}");
                self.helper_error = Some(ErrorView::from_client(&err));
                widgets.overview.emit(OverviewMsg::Power(None));
            }
            // Not an error: D-Bus starts it again on the next call.
            HelperEvent::Gone => {
                self.shown.helper = "gone".into();
                self.helper_error = None;
                widgets.overview.emit(OverviewMsg::Power(None));
            }
            HelperEvent::ActiveProfile(active) => {
                self.active = Some(active);
                self.control.refresh.notify_one();
            }
            HelperEvent::AutoPolicy(auto) => self.auto = Some(auto),
            HelperEvent::PowerOptions(options) => self.shown.options = options,
            HelperEvent::Conflicts(found) => return self.add_conflicts(widgets, found),
            HelperEvent::Administration { locked_by, declared } => {
                self.shown.locked_by = Some(locked_by).filter(|f| !f.is_empty());
                if let Some(tuning) = &widgets.tuning {
                    tuning.emit(TuningMsg::Declared(declared.clone()));
                }
                self.shown.declared = declared;
            }
            HelperEvent::Applied => self.control.refresh.notify_one(),
            // Saved or deleted elsewhere (the CLI, another window).
            HelperEvent::CustomProfiles => self.list_customs(sender),
            HelperEvent::ChangedOutside(change) => {
                self.toast(widgets, crate::ui::model::outside_toast(&change));
                self.control.refresh.notify_one();
            }
            // A reading a second while the window shows: it changes only
            // the power row, nothing that the refresh below derives.
            HelperEvent::Power(watts) => return widgets.overview.emit(OverviewMsg::Power(Some(watts))),
            HelperEvent::NoPower => return widgets.overview.emit(OverviewMsg::Power(None)),
        }
        if firmware {
            self.read_firmware(sender);
        }
        self.refresh(widgets);
    }
}

/// A switch's toast, with the warning where the choice was not saved.
fn with_warning(toast: String, summary: &ApplySummary) -> String {
    match gearshift::client::unsaved_warning(summary) {
        Some(warning) => format!("{toast}. {warning}"),
        None => toast,
    }
}

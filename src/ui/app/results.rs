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
                self.seen.samples += 1;
                let resolver = self.ctx.resolver();
                Arc::make_mut(&mut self.cores).push(&samples, &|s| s.epp.and_then(|r| resolver.reading_value(r)));
                if let Some(cores) = &widgets.cores {
                    cores.emit(CoresMsg::Samples(self.cores.clone()));
                }
                widgets.overview.emit(OverviewMsg::Samples(self.cores.clone()));
                if self.firmware_read.elapsed() >= FIRMWARE_EVERY {
                    self.read_firmware(sender);
                }
            }
            CmdOut::Helper(event) => self.helper_event(widgets, sender, event),
            CmdOut::Switched(id, result) => {
                // The page's radio goes back to the profile in effect
                // (the helper's signals, before this reply, moved it on
                // success; a failure leaves it where it was).
                widgets.overview.emit(OverviewMsg::Busy(false));
                let changed = self.session.reply(&result);
                self.show_session(widgets, changed);
                match result {
                    Ok(summary) => {
                        let toast = switched_toast(&self.status, id.as_str(), summary.changed, &summary.cpus);
                        self.toast(widgets, with_warning(toast, &summary));
                    }
                    Err(err) => self.fail(widgets, &err),
                }
            }
            CmdOut::ModeSet(mode, result) => self.mode_set(widgets, sender, mode, result),
            CmdOut::AutoSet(Ok(summary)) => match gearshift::client::unsaved_warning(&summary) {
                Some(warning) => self.toast(widgets, warning),
                None => self.policy_set(widgets),
            },
            CmdOut::AutoSet(Err(err)) | CmdOut::OptionSet(Err(err)) => {
                let changed = self.session.reply::<()>(&Err(err.clone()));
                self.show_session(widgets, changed);
                // The switches go back to what the session says.
                widgets.overview.emit(OverviewMsg::Busy(false));
                self.fail(widgets, &err);
            }
            CmdOut::Retried(result) => {
                let changed = self.session.reply(&result);
                self.show_session(widgets, changed);
                if let Err(err) = result {
                    self.fail(widgets, &err);
                }
            }
            // PropertiesChanged brings the new state.
            CmdOut::OptionSet(Ok(())) => {}
            CmdOut::Served(served) => {
                log::debug!("the helper serves the snapshot: {served}");
                self.seen.served_checked = true;
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
            CmdOut::Firmware(Some(read)) => self.firmware_read(widgets, sender, read),
            CmdOut::Machine(None) => {}
            CmdOut::Machine(Some(machine)) => {
                self.ctx.machine = *machine;
                self.control.reopen();
                self.show_machine(widgets);
            }
            CmdOut::Conflicts(found) => {
                let changed = self.session.add_conflicts(&found);
                self.show_session(widgets, changed);
            }
        }
    }

    /// A switch of the driver's mode returned (the mode asked for).
    fn mode_set(
        &mut self,
        widgets: &mut AppWidgets,
        sender: &ComponentSender<Self>,
        mode: gearshift::core::machine::DriverMode,
        result: Result<ApplySummary, gearshift::client::ClientError>,
    ) {
        self.mode_pending = None;
        widgets.overview.emit(OverviewMsg::Busy(false));
        // Whatever the outcome: the helper puts the old mode back
        // when the profile cannot be applied in the new one.
        self.read_machine(sender);
        match result {
            Ok(summary) => {
                let mut toast = i18n_f("The driver runs in {} mode now.", &[&mode]);
                if summary.changed > 0 && !summary.profile.is_empty() {
                    let applied = switched_toast(&self.status, &summary.profile, summary.changed, &summary.cpus);
                    toast = format!("{toast} {applied}");
                }
                self.toast(widgets, with_warning(toast, &summary));
            }
            Err(err) => self.fail(widgets, &err),
        }
    }

    /// The firmware's files as read now: the driver's mode (a change reads
    /// the whole machine again), the platform profile and the lap sensor.
    fn firmware_read(
        &mut self,
        widgets: &mut AppWidgets,
        sender: &ComponentSender<Self>,
        read: super::super::msg::FirmwareRead,
    ) {
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
        self.show_firmware(widgets);
    }

    fn helper_event(&mut self, widgets: &mut AppWidgets, sender: &ComponentSender<Self>, event: HelperEvent) {
        match event {
            // A reading a second while the window shows: only the power
            // row, nothing the session holds.
            HelperEvent::Power(watts) => return widgets.overview.emit(OverviewMsg::Power(Some(watts))),
            HelperEvent::NoPower => return widgets.overview.emit(OverviewMsg::Power(None)),
            HelperEvent::ChangedOutside(ref change) => self.toast(widgets, crate::ui::model::outside_toast(change)),
            _ => log::debug!("helper event {event:?}"),
        }
        let changed = self.session.take(&event);
        if changed.link && self.session.link != Link::Connected {
            widgets.overview.emit(OverviewMsg::Power(None));
        }
        if let HelperEvent::Administration { declared, .. } = &event {
            if let Some(tuning) = &widgets.tuning {
                tuning.emit(TuningMsg::Declared(declared.clone()));
            }
        }
        if changed.customs {
            self.list_customs(sender);
        }
        if changed.applied {
            self.control.refresh.notify_one();
        }
        // After these the helper has written (or followed) the firmware's
        // platform profile too: read once per switch, whichever signals
        // carried it (the news again, or `Applied` after it, read nothing).
        let news = !matches!(event, HelperEvent::ActiveProfile(..) | HelperEvent::Applied);
        if changed.firmware && (changed.active || news) {
            self.read_firmware(sender);
        }
        self.show_session(widgets, changed);
    }
}

/// A switch's toast, with the warning where the choice was not saved.
fn with_warning(toast: String, summary: &ApplySummary) -> String {
    match gearshift::client::unsaved_warning(summary) {
        Some(warning) => format!("{toast}. {warning}"),
        None => toast,
    }
}

//! Switching: a profile's plan, applying it all or nothing, and what each
//! kind of switch changes besides (a manual switch ends the holds, raw
//! tuning leaves no profile, a driver mode change applies the profile in
//! the new mode). Also the helper's own applies: at start, after hotplug,
//! after resume, where it first looks for what changed behind its back.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::txn::Txn;
use super::{Engine, Notice, Permit};
use crate::core::active::Occasion;
use crate::core::kernel_own::KERNEL_OWN;
use crate::core::machine::{DriverMode, Machine};
use crate::core::plan::Plan;
use crate::core::profile::{BuiltinProfile, Resolver};
use crate::dbus::{ApplySummary, OutsideChange};
use crate::helper::apply::{ApplyReport, Change, Rewrite};
use crate::helper::error::HelperError;
use crate::helper::validate;
use crate::i18n::{i18n_text, Text};

/// A plan that writes nothing.
fn empty_plan(id: &str) -> Plan {
    Plan { profile: id.to_owned(), cpus: Vec::new(), turbo: None, dynamic_boost: None, platform: Vec::new() }
}

/// The profiles a machine with nothing to drive still offers the power
/// panel, as power-profiles-daemon's placeholder driver does.
pub const PLACEHOLDER_PROFILES: [BuiltinProfile; 2] = [BuiltinProfile::Power, BuiltinProfile::BalancePerformance];

impl Engine {
    /// A person (or the panel) switched: every hold ends, and the choice
    /// lasts until the next power-source change.
    ///
    /// # Errors
    /// A refusal or a failed write (after undoing this request's writes).
    pub async fn manual_switch(&self, permit: &Permit, id: &str) -> Result<ApplySummary, HelperError> {
        let (mut summary, released, generation) = {
            let mut txn = self.begin_for(permit).await;
            txn.notice_new_policies();
            let plan = txn.plan_for(id)?;
            let summary = txn.apply_plan(&plan)?;
            let released = {
                let mut state = txn.state();
                state.saved.choose(Some(id.to_owned()));
                state.now_in_effect(Some(id.to_owned()));
                state.control.release_all()
            };
            (summary, released, txn.save_state())
        };
        self.notify_with(Notice { ended: released, ..Notice::default() }).await;
        self.report_save(&mut summary, generation).await;
        Ok(summary)
    }

    /// Raw tuning: afterwards no profile describes the machine.
    ///
    /// # Errors
    /// A refusal or a failed write.
    pub async fn raw(
        &self,
        permit: &Permit,
        make_plan: impl FnOnce(&Machine, &Resolver<'_>) -> Result<Plan, HelperError>,
    ) -> Result<ApplySummary, HelperError> {
        let (mut summary, generation) = {
            let mut txn = self.begin_for(permit).await;
            txn.notice_new_policies();
            txn.refresh_governors();
            let machine = self.machine();
            let plan = make_plan(&machine, &Resolver::new(&machine, &self.table))?;
            let summary = txn.apply_plan(&plan)?;
            {
                let mut state = txn.state();
                state.saved.choose(None);
                state.now_in_effect(None);
            }
            (summary, txn.save_state())
        };
        self.notify().await;
        self.report_save(&mut summary, generation).await;
        Ok(summary)
    }

    /// Switches the driver's mode (`intel_pstate/status`,
    /// `amd_pstate/status`), then applies the profile that should be in
    /// effect again: the kernel creates every policy afresh, with its
    /// defaults. When that apply fails, the old mode is put back (and the
    /// profile applied there again), so that a refusal leaves the machine
    /// as it was.
    ///
    /// # Errors
    /// No mode file, a mode this driver does not take, or a failed write.
    pub async fn set_driver_mode(&self, permit: &Permit, mode: DriverMode) -> Result<ApplySummary, HelperError> {
        let summary = {
            let mut txn = self.begin_for(permit).await;
            txn.notice_new_policies();
            let machine = self.machine();
            let Some(control) = machine.mode_control else {
                return Err(HelperError::Unsupported(
                    i18n_text(
                        "the cpufreq driver here has no modes to switch (neither intel_pstate nor amd-pstate runs)",
                    )
                    .into(),
                ));
            };
            if !control.modes().contains(&mode) {
                let modes: Vec<&str> = control.modes().iter().map(|m| m.as_str()).collect();
                let driver = match machine.driver.as_deref() {
                    Some(driver) => Text::from(driver.to_owned()),
                    None => i18n_text("this driver"),
                };
                return Err(HelperError::InvalidArgument(
                    i18n_text("{mode} is not a mode of {driver}: it takes {modes}")
                        .arg("mode", mode)
                        .arg_text("driver", driver)
                        .arg("modes", modes.join(", "))
                        .into(),
                ));
            }
            let wanted = self.shared.read().wanted();
            if machine.mode.as_deref() == Some(mode.as_str()) {
                return Ok(ApplySummary {
                    profile: wanted.unwrap_or_default(),
                    unchanged: 1,
                    summary: format!("the driver already runs in {mode} mode"),
                    ..ApplySummary::default()
                });
            }
            let before = txn.applier().write_global(control.file(), mode.as_str()).map_err(|failed| {
                HelperError::WriteFailed(
                    i18n_text("writing {file} failed: {why}{errno}")
                        .arg("file", control.file())
                        .arg("why", &failed.message)
                        .arg("errno", failed.errno.map(|e| format!(" ({e})")).unwrap_or_default())
                        .into(),
                )
            })?;
            log::info!("driver mode {before} -> {mode}");
            txn.reread_machine();
            let applied = match &wanted {
                Some(id) => txn.plan_for(id).and_then(|plan| txn.apply_plan_with(&plan, Rewrite::Always)),
                None => Ok(ApplySummary { changed: 1, ..ApplySummary::default() }),
            };
            match applied {
                Ok(mut applied) => {
                    applied.summary = if applied.summary.is_empty() {
                        format!("driver mode {mode} (was {before}); no profile is chosen, nothing else written")
                    } else {
                        format!("driver mode {mode} (was {before}); {}", applied.summary)
                    };
                    txn.state().now_in_effect(wanted);
                    applied
                }
                Err(err) => {
                    let back = txn.applier().write_global(control.file(), &before);
                    txn.reread_machine();
                    if let Some(id) = &wanted {
                        let _ = txn.plan_for(id).and_then(|plan| txn.apply_plan_with(&plan, Rewrite::Always));
                    }
                    let undo = match back {
                        Ok(_) => i18n_text("the driver is back in {mode} mode").arg("mode", &before),
                        Err(failed) => i18n_text("and {mode} mode could not be restored: {why}")
                            .arg("mode", &before)
                            .arg("why", failed.message),
                    };
                    let why = err.sentence().map_or_else(|| Text::from(err.to_string()), |s| s.text().clone());
                    return Err(HelperError::WriteFailed(
                        i18n_text("in {mode} mode the profile could not be applied ({why}); {undo}")
                            .arg("mode", mode)
                            .arg_text("why", why)
                            .arg_text("undo", undo)
                            .into(),
                    ));
                }
            }
        };
        self.notify().await;
        Ok(summary)
    }

    /// Applies the active profile again (start-up, hotplug), writing only
    /// what differs. `reread`: the CPUs may have changed.
    pub async fn reapply(&self, why: &str, reread: bool) {
        let (before, after) = {
            let mut txn = self.begin().await;
            let before = self.active_profile();
            if reread {
                txn.reread_machine();
            }
            txn.apply_automatically(why, Rewrite::IfDifferent).await;
            (before, self.active_profile())
        };
        // Only a change is news: a resume that found everything in place
        // sends no PropertiesChanged.
        if before != after {
            self.notify().await;
        }
    }

    /// A CPU went (a uevent): the machine is read again.
    pub async fn reread(&self) {
        self.begin().await.reread_machine();
    }

    /// The machine resumed from sleep: every value of the profile in effect
    /// is written again, also those the files already show (firmware can
    /// reset the hardware's EPP while sysfs keeps the text last written:
    /// seen on Skylake-X after S3), and what had visibly drifted is
    /// reported.
    pub async fn resumed(&self) {
        let (before, outside) = {
            let mut txn = self.begin().await;
            let before = self.active_profile();
            // The CPUs are read again anyway: a driver mode change only
            // names the occasion.
            let occasion = if txn.applier().policies_replaced() { Occasion::DriverMode } else { Occasion::Resume };
            txn.reread_machine();
            let drift = txn.drift();
            let applied = txn.apply_automatically("after resume", Rewrite::Always).await;
            (before, txn.record_outside(occasion, drift, applied))
        };
        if before != self.active_profile() || outside.is_some() {
            self.notify_with(Notice { outside, ..Notice::default() }).await;
        }
    }
}

impl Txn<'_> {
    /// The plan of a profile here.
    ///
    /// # Errors
    /// No such profile, or one this machine cannot honour.
    pub fn plan_for(&self, id: &str) -> Result<Plan, HelperError> {
        let machine = self.engine.machine();
        let resolver = Resolver::new(&machine, &self.engine.table);
        let on_battery = self.engine.on_battery() == Some(true) && self.engine.battery_aware();
        if id == KERNEL_OWN {
            if machine.nothing_to_drive() {
                return Err(HelperError::Unsupported(validate::nothing_to_switch().into()));
            }
            return Ok(resolver.kernel_plan(self.engine.boot.as_ref()));
        }
        let state = self.engine.shared.read();
        match validate::profile_request(&resolver, &state.all_profiles(), id) {
            // Battery awareness (power-profiles-daemon 0.21+): Balanced on
            // battery has the Efficient profile's values, and stays
            // Balanced (docs/dbus-api.md, "Battery awareness").
            Ok(_) if on_battery && id == BuiltinProfile::BalancePerformance.id() => {
                let mut plan = resolver.builtin(BuiltinProfile::BalancePower);
                id.clone_into(&mut plan.profile);
                Ok(plan)
            }
            Ok(plan) => Ok(plan),
            // Nothing to drive: the power panel still offers power-saver and
            // balanced, which write nothing (power-profiles-daemon's
            // placeholder driver). Gearshift's own API refuses them
            // (`Engine::is_placeholder`).
            Err(_) if machine.nothing_to_drive() && PLACEHOLDER_PROFILES.iter().any(|p| p.id() == id) => {
                Ok(empty_plan(id))
            }
            // A built-in profile whose values the CPUs do not take in this
            // mode (amd-pstate outside its active mode) still becomes the
            // choice, writing nothing, as with power-profiles-daemon: the
            // mode may change back (docs/dbus-api.md, "Profiles").
            Err(_) if !machine.nothing_to_drive() && BuiltinProfile::from_id(id).is_some() => Ok(empty_plan(id)),
            Err(refusal) => Err(refusal.into()),
        }
    }

    /// Applies a plan, writing what differs.
    ///
    /// # Errors
    /// A failed write, after this plan's writes were undone.
    pub fn apply_plan(&mut self, plan: &Plan) -> Result<ApplySummary, HelperError> {
        self.apply_plan_with(plan, Rewrite::IfDifferent)
    }

    /// Applies a plan for anyone but a measurement's client: what it
    /// changes disturbs a measurement under way.
    ///
    /// # Errors
    /// A failed write, after this plan's writes were undone.
    pub fn apply_plan_with(&mut self, plan: &Plan, rewrite: Rewrite) -> Result<ApplySummary, HelperError> {
        let summary = self.write_plan(plan, rewrite)?;
        if summary.changed > 0 {
            self.disturbed("another client's request changed the settings");
        }
        Ok(summary)
    }

    /// Writes a plan, all or nothing, and notes what the files now hold.
    ///
    /// # Errors
    /// A failed write, after this plan's writes were undone.
    pub fn write_plan(&mut self, plan: &Plan, rewrite: Rewrite) -> Result<ApplySummary, HelperError> {
        let machine = self.engine.machine();
        let resolver = Resolver::new(&machine, &self.engine.table);
        let report = match self.applier().apply(plan, &|reading| resolver.reading_value(reading), rewrite) {
            Ok(report) => report,
            Err(failure) => {
                if !failure.not_restored.is_empty() {
                    // Some CPU holds what this plan wrote, others what they
                    // held before: no profile describes the files.
                    self.state().now_in_effect(None);
                }
                let error = HelperError::from(failure);
                log::warn!("{error:?}");
                return Err(error);
            }
        };
        self.remember(plan, &report);
        self.note_platform_written(plan);
        self.run_actions(Some(&plan.profile));
        Ok(summarize(plan, &report))
    }

    /// Keeps the machine as the helper knows it in step with the platform
    /// profile it just wrote: the kernel notifies that write like any
    /// other, and only a value the helper did not write is the firmware's
    /// (a hotkey; see `Engine::firmware_changed`).
    fn note_platform_written(&mut self, plan: &Plan) {
        if plan.platform.is_empty() {
            return;
        }
        let Some(mut platform) = self.engine.machine().platform_profile.clone() else { return };
        for setting in &plan.platform {
            if let Some(handler) = platform.handlers.iter_mut().find(|h| h.id == setting.handler) {
                handler.current = Some(setting.choice.clone());
            }
        }
        let first = platform.handlers.first().and_then(|h| h.current.clone());
        platform.current =
            if platform.handlers.iter().all(|h| h.current == first) { first } else { Some("custom".to_owned()) };
        if self.engine.machine().platform_profile.as_ref() != Some(&platform) {
            self.update_machine(|machine| machine.platform_profile = Some(platform));
        }
    }

    /// Counts a disturbance of the measurement under way, if one is.
    pub fn disturbed(&mut self, why: &str) {
        let mut state = self.state();
        if let Some(lease) = state.control.lease.as_ref() {
            log::info!("the measurement of {} is disturbed: {why}", lease.holder);
            state.control.disturb();
        }
    }

    fn remember(&mut self, plan: &Plan, report: &ApplyReport) {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let mut state = self.state();
        state.last_turbo = plan.turbo.map(|t| t.on);
        let last = &mut state.last;
        last.last_profile = plan.profile.clone();
        last.last_applied = now;
        for setting in &plan.cpus {
            let governor = setting.governor.clone().unwrap_or_default();
            let preference = setting.preference.map(|p| p.to_kernel_text()).unwrap_or_default();
            match last.cpus.iter_mut().find(|(cpu, _, _)| *cpu == setting.cpu) {
                Some(entry) => {
                    if !governor.is_empty() {
                        entry.1 = governor;
                    }
                    if !preference.is_empty() {
                        entry.2 = preference;
                    }
                }
                None => last.cpus.push((setting.cpu, governor, preference)),
            }
        }
        last.cpus.sort_by_key(|(cpu, _, _)| *cpu);
        let _ = report;
    }

    /// Applies what should be active, unless another power manager runs:
    /// Gearshift never fights one (a person's explicit request still goes
    /// through). Whatever happens, `in_effect` then says what the files hold.
    /// True when the helper wrote the profile.
    pub async fn apply_automatically(&mut self, why: &str, rewrite: Rewrite) -> bool {
        if self.engine.shared.read().control.hands_off() {
            // GameMode holds: what it wrote stays; the choice comes back
            // (every file written) when it ends.
            log::info!("{why}: GameMode holds: nothing applied");
            return false;
        }
        let wanted = self.engine.shared.read().wanted();
        let Some(id) = wanted else {
            log::info!("{why}: no profile is chosen (the last change was raw tuning): nothing to apply");
            return false;
        };
        if id == KERNEL_OWN && self.engine.shared.read().in_effect.as_deref().is_none_or(|now| now == KERNEL_OWN) {
            // Handed back: the kernel's values stay whatever the kernel and
            // the firmware make them. Only where a hold or a measurement
            // wrote a profile meanwhile is the hand-back written again.
            log::info!("{why}: the kernel's own values are in use: nothing applied");
            self.state().now_in_effect(Some(id));
            return false;
        }
        if self.engine.is_placeholder() {
            // Nothing to drive (yet: a platform profile driver may load
            // later, and then the choice is applied): the panel shows
            // balanced, as power-profiles-daemon's placeholder does.
            self.state().now_in_effect(Some(BuiltinProfile::BalancePerformance.id().to_owned()));
            log::info!("{why}: nothing here takes a profile yet; {id} is applied once something does");
            self.run_actions(Some(BuiltinProfile::BalancePerformance.id()));
            return false;
        }
        let plan = match self.plan_for(&id) {
            Ok(plan) => plan,
            Err(err) => {
                log::error!("{why}: cannot apply {id}: {err:?}");
                self.state().now_in_effect(None);
                return false;
            }
        };
        let conflicts = self.engine.rescan_conflicts().await;
        let applied = if conflicts.is_empty() {
            match self.apply_plan_with(&plan, rewrite) {
                Ok(summary) => {
                    log::info!("{why}: {}", summary.summary);
                    true
                }
                Err(err) => {
                    log::error!("{why}: cannot apply: {err:?}");
                    false
                }
            }
        } else {
            log::warn!("not re-applying ({why}): {} manages power here", conflicts.join(", "));
            false
        };
        let holds = applied || self.files_hold(&plan);
        self.state().now_in_effect(holds.then_some(id));
        applied
    }

    /// True when the files hold `plan` already (nothing is written).
    fn files_hold(&self, plan: &Plan) -> bool {
        let machine = self.engine.machine();
        let resolver = Resolver::new(&machine, &self.engine.table);
        self.applier().holds_plan(plan, &|reading| resolver.reading_value(reading))
    }

    /// Re-reads the machine (after hotplug, resume or a mode change). A
    /// platform profile handler found by the re-read (a driver that loaded
    /// meanwhile) has its files watched from now on.
    pub fn reread_machine(&mut self) {
        let machine = Machine::read(&self.engine.root);
        self.applier().forget_files();
        let handlers =
            |m: &Machine| m.platform_profile.as_ref().map(|p| p.handlers.iter().map(|h| h.id).collect::<Vec<_>>());
        let found_new = handlers(&self.engine.machine()) != handlers(&machine);
        self.set_machine(Arc::new(machine));
        if found_new {
            self.engine.rewatch_firmware.notify_one();
        }
    }

    /// Re-reads the governor of every policy, cheaply (one pread each of a
    /// kept file), so that a request is validated against what the files
    /// hold now, not what they held at start: after `SetGovernor
    /// performance`, or another program's change, EPP is refused before a
    /// write instead of failing with EBUSY.
    pub fn refresh_governors(&mut self) {
        let machine = self.engine.machine();
        let changed: Vec<(u32, Option<String>)> = machine
            .policies
            .iter()
            .filter_map(|(id, policy)| {
                let now = self.applier().governor_now(*id).ok();
                (now.is_some() && now != policy.governor).then_some((*id, now))
            })
            .collect();
        if changed.is_empty() {
            return;
        }
        self.update_machine(|machine| {
            for (id, governor) in changed {
                if let Some(policy) = machine.policies.get_mut(&id) {
                    policy.governor = governor;
                }
            }
        });
    }

    /// When the cpufreq policies were created afresh since the helper last
    /// wrote (a driver mode change by anyone: the kernel sends no event for
    /// it), re-reads the machine and answers [`Occasion::DriverMode`].
    pub fn notice_new_policies(&mut self) -> Option<Occasion> {
        let machine = self.engine.machine();
        // The mode file itself, where the driver has one: one pread of a
        // kept file (a mode change that left the policies in place, as a
        // test's testbed shows it, is seen too).
        let mode_now = machine.mode_control.and_then(|control| self.applier().read_global(control.file()));
        let mode_moved = mode_now.is_some() && mode_now != machine.mode;
        if !mode_moved && !self.applier().policies_replaced() {
            return None;
        }
        log::info!("the cpufreq policies were created afresh (a driver mode change?): reading the machine again");
        self.reread_machine();
        Some(Occasion::DriverMode)
    }

    /// What the files show differently from the profile in effect.
    pub fn drift(&self) -> Vec<Change> {
        let in_effect = self.engine.shared.read().in_effect.clone();
        let Some(id) = in_effect else { return Vec::new() };
        let Ok(plan) = self.plan_for(&id) else { return Vec::new() };
        let machine = self.engine.machine();
        let resolver = Resolver::new(&machine, &self.engine.table);
        self.applier().differences(&plan, &|reading| resolver.reading_value(reading))
    }

    /// Logs values changed behind the helper's back, once they were set
    /// back (`applied`), and makes them the news for `ChangedOutside`.
    /// Where the helper did not write (another power manager runs), the
    /// difference is that manager's doing, not news.
    pub fn record_outside(&mut self, occasion: Occasion, drift: Vec<Change>, applied: bool) -> Option<OutsideChange> {
        let occasion = occasion.wire();
        if drift.is_empty() || !applied {
            return None;
        }
        let words: Vec<String> = drift
            .iter()
            .map(|c| format!("{} was {}, set back to {}", c.target.describe(&c.cpus), c.from, c.to))
            .collect();
        log::warn!("changed outside Gearshift ({occasion}): {}", words.join("; "));
        *self.state().outside.entry(occasion.to_owned()).or_default() += 1;
        self.disturbed("values were changed outside Gearshift");
        Some(OutsideChange {
            occasion: occasion.to_owned(),
            values: drift.into_iter().map(|c| (c.target.attr().to_owned(), c.cpus, c.from, c.to)).collect(),
        })
    }
}

fn summarize(plan: &Plan, report: &ApplyReport) -> ApplySummary {
    let what = match plan.profile.as_str() {
        "" => "tuning".to_owned(),
        KERNEL_OWN => "the kernel's own values".to_owned(),
        id => format!("profile {id}"),
    };
    let values = plan.epp_values();
    let epp = match values.as_slice() {
        [] => String::new(),
        [one] => format!(", EPP {one}"),
        many => format!(", EPP {}", many.iter().map(u8::to_string).collect::<Vec<_>>().join("/")),
    };
    ApplySummary {
        unsaved: String::new(),
        profile: plan.profile.clone(),
        changed: u32::try_from(report.changes.len()).unwrap_or(u32::MAX),
        unchanged: u32::try_from(report.unchanged).unwrap_or(u32::MAX),
        cpus: report.cpus.clone(),
        summary: format!(
            "{what} applied to {} CPU(s){epp}: {} file(s) written, {} already right{}",
            report.cpus.len(),
            report.changes.len(),
            report.unchanged,
            skipped_words(report)
        ) + if plan.profile == KERNEL_OWN {
            "; no profile is applied on resume, hotplug or a power source change until one is chosen"
        } else {
            ""
        },
    }
}

/// The best-effort writes the kernel refused, for the summary.
fn skipped_words(report: &ApplyReport) -> String {
    if report.skipped.is_empty() {
        return String::new();
    }
    // One entry per file kind and errno: "boost for CPU 0-23 (EINVAL)".
    let mut groups: Vec<(&str, &str, Vec<u32>)> = Vec::new();
    for failed in &report.skipped {
        let (attr, errno) = (failed.target.attr(), failed.errno.unwrap_or("refused"));
        match groups.iter_mut().find(|(a, e, _)| *a == attr && *e == errno) {
            Some((_, _, cpus)) => cpus.extend(&failed.cpus),
            None => groups.push((attr, errno, failed.cpus.clone())),
        }
    }
    let what: Vec<String> = groups
        .into_iter()
        .map(|(attr, errno, mut cpus)| {
            cpus.sort_unstable();
            format!("{attr} for CPU {} ({errno})", crate::core::parse::format_cpu_list(&cpus))
        })
        .collect();
    format!("{}{}", crate::dbus::LEFT_AS_THEY_WERE, what.join(", "))
}

//! What the firmware changes behind the helper's back: a platform profile
//! driver that loads late, a hotkey that switches the platform profile, the
//! ThinkPad lap sensor, intel_pstate's turbo. `helper::firmware` watches
//! the files; this follows what they now say.

use super::{Engine, Notice};
use crate::core::machine::{Machine, TurboControl};
use crate::core::profile::BuiltinProfile;
use crate::helper::apply::Rewrite;

impl Engine {
    /// Why performance is limited, in power-profiles-daemon's words, CPU
    /// reasons first, joined with ",": `high-operating-temperature` when
    /// intel_pstate's turbo went off and no profile of Gearshift turned it
    /// off (on a CPU that has turbo: `turbo_pct` not 0), `lap-detected` on a
    /// ThinkPad's lap. "" when nothing limits it.
    pub fn performance_degraded(&self) -> String {
        let machine = self.machine();
        let mut reasons = Vec::new();
        let turbo_off = matches!(machine.turbo, Some((false, TurboControl::IntelNoTurbo)));
        let has_turbo = machine.turbo_pct != Some(0);
        let ours = self.shared.read().last_turbo == Some(false);
        if turbo_off && has_turbo && !ours {
            reasons.push("high-operating-temperature");
        }
        if machine.lap_mode == Some(true) {
            reasons.push("lap-detected");
        }
        reasons.join(",")
    }

    /// The firmware changed something the kernel notified (a platform
    /// profile driver that loaded late, a hotkey that switched the platform
    /// profile, the lap sensor, turbo): reads those again and follows. A
    /// hotkey is a person's choice, like a switch in the panel: the profile
    /// that asks the firmware for what it now shows becomes the active one
    /// (holds end, the choice is saved), with its CPU settings.
    pub async fn firmware_changed(&self) {
        let mut cancelled = Vec::new();
        let generation;
        let changed;
        {
            let mut txn = self.begin().await;
            // Change only these fields of the machine as it is now: a
            // re-read for hotplug may have replaced it meanwhile.
            let machine = self.machine();
            let mut fresh = (*machine).clone();
            fresh.refresh_firmware(&self.root);
            txn.set_machine(std::sync::Arc::new(fresh.clone()));
            if fresh.lap_mode != machine.lap_mode {
                let now = if fresh.lap_mode == Some(true) { "on" } else { "off" };
                log::info!("dytc_lapmode is now {now}");
            }
            if fresh.turbo != machine.turbo {
                log::info!(
                    "intel_pstate/no_turbo changed: turbo is {}",
                    if fresh.turbo.is_some_and(|(on, _)| on) { "on" } else { "off" }
                );
            }
            let handlers = |m: &Machine| {
                m.platform_profile
                    .as_ref()
                    .map(|p| p.handlers.iter().map(|h| (h.id, h.choices.clone())).collect::<Vec<_>>())
            };
            let new_driver = handlers(&fresh) != handlers(&machine);
            changed = fresh.platform_profile != machine.platform_profile
                || fresh.lap_mode != machine.lap_mode
                || fresh.turbo != machine.turbo
                || fresh.charging_supplies.len() != machine.charging_supplies.len();
            if new_driver {
                log::info!(
                    "the platform profile appeared or changed its choices ({}): applying the profile again",
                    fresh.platform_profile.as_ref().map_or_else(|| "none".to_owned(), |p| p.interfaces.join(", "))
                );
                txn.applier().forget_files();
                txn.apply_automatically("a platform profile driver loaded", Rewrite::IfDifferent).await;
                generation = None;
            } else if let Some(profile) = self.hotkey_choice(&txn, &machine, &fresh) {
                txn.disturbed("the firmware switched the platform profile");
                log::info!(
                    "the firmware switched the platform profile to {} (a hotkey?): following with profile {}",
                    fresh.platform_profile.as_ref().and_then(|p| p.current.clone()).unwrap_or_default(),
                    profile.id()
                );
                match txn.plan_for(profile.id()).and_then(|plan| txn.apply_plan(&plan)) {
                    Ok(summary) => {
                        log::info!("{}", summary.summary);
                        {
                            let mut state = txn.state();
                            cancelled = state.control.release_all();
                            state.saved.choose(Some(profile.id().to_owned()));
                            state.now_in_effect(Some(profile.id().to_owned()));
                        }
                        generation = Some(txn.save_state());
                    }
                    Err(err) => {
                        log::warn!("cannot follow the firmware's platform profile: {err:?}");
                        generation = None;
                    }
                }
            } else {
                generation = None;
            }
            // A device the actions follow may have come (a phone, a panel).
            txn.run_actions(None);
        }
        if !changed {
            // The helper's own write, which the kernel notifies too.
            return;
        }
        self.notify_with(Notice { ended: cancelled, ..Notice::default() }).await;
        if let Some(generation) = generation {
            if let Some(error) = self.saves.outcome(generation).await {
                log::warn!("the profile the firmware chose could not be saved: {error}");
            }
        }
    }

    /// The built-in profile a firmware hotkey asks for: `None` unless the
    /// platform profile shows something the profile in effect does not
    /// write (so the helper's own write, which the kernel notifies too,
    /// changes nothing).
    fn hotkey_choice(&self, txn: &super::txn::Txn<'_>, before: &Machine, machine: &Machine) -> Option<BuiltinProfile> {
        let current = machine.platform_profile.as_ref()?.current.clone()?;
        if before.platform_profile.as_ref().and_then(|p| p.current.as_deref()) == Some(current.as_str()) {
            return None;
        }
        let wanted = crate::core::platform::Wanted::from_choice(&current)?;
        let in_effect = self.shared.read().in_effect.clone();
        if in_effect.as_deref() == Some(crate::core::kernel_own::KERNEL_OWN) {
            // Handed back: the platform profile is the firmware's to choose.
            return None;
        }
        if let Some(id) = in_effect {
            if let Ok(plan) = txn.plan_for(&id) {
                // HP's `cool` shows where Balanced is in effect, as
                // power-profiles-daemon reads it (see apply::steps).
                let holds = |choice: &str| choice == current || (choice == "balanced" && current == "cool");
                if plan.platform.iter().all(|p| holds(&p.choice)) && !plan.platform.is_empty() {
                    return None;
                }
            }
        }
        Some(BuiltinProfile::for_platform(wanted))
    }
}

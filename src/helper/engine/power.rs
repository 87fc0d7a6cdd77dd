//! The AC/battery policy, and what a change of the power source does.

use super::{Engine, Notice, Permit};
use crate::core::active::Occasion;
use crate::core::parse::quoted_text;
use crate::core::profile::BuiltinProfile;
use crate::dbus::ApplySummary;
use crate::helper::apply::Rewrite;
use crate::helper::control::policy_choice;
use crate::helper::error::HelperError;
use crate::helper::state::AutoPolicy;
use crate::helper::validate;
use crate::i18n::i18n_text;

impl Engine {
    /// Turns the AC/battery policy on (and applies its choice for the
    /// current power source) or off. Everything is checked, and the choice
    /// applied, before any state changes. The summary says what was
    /// applied, and (`unsaved`) when the choice could not be saved.
    ///
    /// # Errors
    /// An unknown profile id, a profile this machine cannot apply, or a
    /// failed write.
    pub async fn set_auto_policy(
        &self,
        permit: &Permit,
        profiles: Option<(&str, &str)>,
    ) -> Result<ApplySummary, HelperError> {
        let builtins = profiles.is_some_and(|(ac, battery)| {
            BuiltinProfile::from_id(ac).is_some() && BuiltinProfile::from_id(battery).is_some()
        });
        if builtins && self.is_placeholder() {
            return Err(HelperError::Unsupported(validate::nothing_to_switch().into()));
        }
        let (mut summary, generation) = {
            let mut txn = self.begin_for(permit).await;
            txn.notice_new_policies();
            match profiles {
                None => {
                    let (summary, was_on) = {
                        let mut state = txn.state();
                        let stays = state.in_effect.clone().unwrap_or_default();
                        let summary = ApplySummary {
                            summary: format!(
                                "automatic switching is off; {} stays",
                                if stays.is_empty() { "the tuning" } else { &stays }
                            ),
                            profile: stays,
                            ..ApplySummary::default()
                        };
                        let was_on = state.saved.auto.enabled;
                        state.saved.auto.enabled = false;
                        state.saved.auto_by_person = true;
                        (summary, was_on)
                    };
                    (summary, was_on.then(|| txn.save_state()))
                }
                Some((on_ac, on_battery)) => {
                    for (which, id) in [(i18n_text("on AC"), on_ac), (i18n_text("on battery"), on_battery)] {
                        if !self.knows_profile(id) {
                            return Err(HelperError::InvalidArgument(
                                i18n_text("unknown profile {id} for {which}")
                                    .arg_text("id", quoted_text(id))
                                    .arg_text("which", which)
                                    .into(),
                            ));
                        }
                    }
                    let auto = AutoPolicy { enabled: true, on_ac: on_ac.into(), on_battery: on_battery.into() };
                    let (choice, held) = {
                        let state = self.shared.read();
                        (policy_choice(&auto, state.control.on_battery).to_owned(), !state.control.holds.is_empty())
                    };
                    // Both profiles must work here, whichever applies now.
                    txn.plan_for(if choice == on_ac { on_battery } else { on_ac })?;
                    let plan = txn.plan_for(&choice)?;
                    let summary = if held {
                        ApplySummary {
                            profile: choice.clone(),
                            summary: format!("automatic switching is on; {choice} is applied when the holds end"),
                            ..ApplySummary::default()
                        }
                    } else {
                        txn.apply_plan(&plan)?
                    };
                    {
                        let mut state = txn.state();
                        state.saved.auto = auto;
                        state.saved.auto_by_person = true;
                        state.saved.choose(Some(choice.clone()));
                        if !held {
                            state.now_in_effect(Some(choice));
                        }
                    }
                    (summary, Some(txn.save_state()))
                }
            }
        };
        self.notify().await;
        if let Some(generation) = generation {
            self.report_save(&mut summary, generation).await;
        }
        Ok(summary)
    }

    /// UPower says the power source is (now) `on_battery`.
    ///
    /// Firmware and other programs change EPP when the power source changes
    /// (a Meteor Lake laptop moved itself from 179 to 115 when AC came), so
    /// the profile in effect is applied again even when automatic switching
    /// is off, and what had drifted is reported (`ChangedOutside`).
    pub async fn power_source(&self, on_battery: bool) {
        let outside = {
            let mut txn = self.begin().await;
            if self.on_battery() == Some(on_battery) {
                return;
            }
            let occasion = txn.notice_new_policies().unwrap_or(Occasion::power_source(on_battery));
            let drift = txn.drift();
            let policy_on = {
                let mut state = txn.state();
                state.control.on_battery = Some(on_battery);
                let handed_back = state.saved.active_profile.as_deref() == Some(crate::core::kernel_own::KERNEL_OWN);
                if state.saved.auto.enabled && !handed_back {
                    // The policy's choice replaces whatever was chosen by
                    // hand; a hold keeps winning until it ends.
                    // (While a measurement lasts, it is put back at its end.)
                    let choice = policy_choice(&state.saved.auto, Some(on_battery)).to_owned();
                    state.saved.choose(Some(choice));
                }
                state.saved.auto.enabled && !handed_back
            };
            if policy_on {
                txn.save_state();
            }
            let measuring = self.lease_holder().is_some();
            if measuring {
                log::info!("power source changed while measuring: the profile is switched when the measurement ends");
            }
            let why = if on_battery { "on battery" } else { "on AC power" };
            let applied = !measuring && txn.apply_automatically(why, Rewrite::IfDifferent).await;
            txn.record_outside(occasion, drift, applied)
        };
        self.notify_with(Notice { outside, ..Notice::default() }).await;
    }

    /// UPower left the bus: the power source and the battery level are
    /// unknown, and the profile in effect is applied as on AC power
    /// (battery awareness needs to know; the AC/battery policy keeps its
    /// last choice), as power-profiles-daemon does.
    pub async fn power_source_lost(&self) {
        {
            let mut txn = self.begin().await;
            let was = {
                let mut state = txn.state();
                state.control.battery_level = None;
                state.control.on_battery.take()
            };
            if was.is_none() || self.lease_holder().is_some() {
                return;
            }
            txn.apply_automatically("UPower left", Rewrite::IfDifferent).await;
        }
        self.notify().await;
    }

    /// A built-in or saved custom profile has this id.
    pub(super) fn knows_profile(&self, id: &str) -> bool {
        BuiltinProfile::from_id(id).is_some() || self.profiles().iter().any(|p| p.id == id)
    }
}

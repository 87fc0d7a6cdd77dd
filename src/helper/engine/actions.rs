//! power-profiles-daemon 0.30's actions (trickle charging, the amdgpu
//! panel's power savings and power management level) and its battery
//! awareness, as the PowerProfiles API turns them on and off
//! (`SetActionEnabled`, `BatteryAware`; docs/dbus-api.md, "Actions" and
//! "Battery awareness"). Each action runs after every profile is applied,
//! best effort: a failed write is logged, never an error of the switch.

use super::txn::Txn;
use super::{Engine, Permit};
use crate::core::actions::{self, Action, Side};
use crate::core::machine::Machine;
use crate::core::parse::quoted_text;
use crate::core::root::Probe;
use crate::helper::error::HelperError;
use crate::i18n::i18n_text;

/// One action as `ActionsInfo` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionState {
    /// The action.
    pub action: Action,
    /// Whether it runs.
    pub enabled: bool,
}

impl Engine {
    /// The actions this machine has, each with whether it runs: turned off
    /// by `--block-action`, else as a person set it, else its default.
    pub fn actions_info(&self) -> Vec<ActionState> {
        let vendor = self.machine().identity.vendor;
        let chosen = self.shared.read().saved.actions.clone();
        actions::available(vendor)
            .map(|action| {
                let enabled = !self.blocklist.action_blocked(action.name)
                    && chosen.get(action.name).copied().unwrap_or(action.on_by_default);
                ActionState { action, enabled }
            })
            .collect()
    }

    /// The legacy `Actions`: the names of those that run.
    pub fn actions(&self) -> Vec<String> {
        self.actions_info().into_iter().filter(|a| a.enabled).map(|a| a.action.name.to_owned()).collect()
    }

    /// `BatteryAware`: Balanced takes the Efficient profile's values on
    /// battery, and the panel's savings follow the battery. On unless
    /// turned off; off with `--disable-upower`.
    pub fn battery_aware(&self) -> bool {
        !self.blocklist.upower_disabled && self.shared.read().saved.battery_aware.unwrap_or(true)
    }

    /// Turns an action on or off (saved), and runs the actions for the
    /// profile in effect.
    ///
    /// # Errors
    /// No action has this name here.
    pub async fn set_action_enabled(&self, permit: &Permit, name: &str, enabled: bool) -> Result<(), HelperError> {
        let Some(action) = self.actions_info().into_iter().find(|a| a.action.name == name) else {
            return Err(HelperError::InvalidArgument(
                i18n_text("No such action {action}").arg_text("action", quoted_text(name)).into(),
            ));
        };
        {
            let mut txn = self.begin_for(permit).await;
            txn.state().saved.actions.insert(action.action.name.to_owned(), enabled);
            log::info!("action {name} {}", if enabled { "enabled" } else { "disabled" });
            txn.save_state();
            txn.run_actions(None);
        }
        self.notify().await;
        Ok(())
    }

    /// Turns battery awareness on or off (saved) and applies the profile in
    /// effect again.
    ///
    /// # Errors
    /// It is that already (as power-profiles-daemon answers).
    pub async fn set_battery_aware(&self, permit: &Permit, on: bool) -> Result<(), HelperError> {
        if self.battery_aware() == on {
            return Err(HelperError::InvalidArgument(
                if on {
                    i18n_text("battery awareness is already on")
                } else {
                    i18n_text("battery awareness is already off")
                }
                .into(),
            ));
        }
        if on && self.blocklist.upower_disabled {
            return Err(HelperError::Unsupported(i18n_text("the helper was started with --disable-upower").into()));
        }
        {
            let mut txn = self.begin_for(permit).await;
            txn.state().saved.battery_aware = Some(on);
            log::info!("battery awareness {}", if on { "on" } else { "off" });
            txn.save_state();
            txn.apply_automatically("battery awareness changed", crate::helper::apply::Rewrite::IfDifferent).await;
        }
        self.notify().await;
        Ok(())
    }
}

impl Engine {
    /// UPower says the battery is at `level` percent: the panel's savings
    /// follow it.
    pub async fn battery_level(&self, level: f64) {
        let mut txn = self.begin().await;
        let before = txn.state().control.battery_level.replace(level);
        if before != Some(level) {
            txn.run_actions(None);
        }
    }
}

impl Txn<'_> {
    /// Runs every enabled action for `profile` (`None`: the profile in
    /// effect; raw tuning, with no profile, runs none).
    pub fn run_actions(&mut self, profile: Option<&str>) {
        let profile = match profile {
            Some(p) => p.to_owned(),
            None => self.engine.active_profile(),
        };
        if profile.is_empty() {
            return;
        }
        let side = Side::of(&profile);
        let machine = self.engine.machine();
        let (on_battery, level) = {
            let state = self.state();
            (state.control.on_battery, state.control.battery_level)
        };
        let aware = self.engine.battery_aware();
        for action in self.engine.actions_info().into_iter().filter(|a| a.enabled) {
            match action.action.name {
                actions::TRICKLE_CHARGE => self.trickle_charge(&machine, side),
                actions::PANEL_POWER => {
                    // Without battery awareness nothing says "on battery".
                    let savings = actions::panel_savings(side, on_battery.filter(|_| aware), level);
                    let mut probe = Probe::new(&self.engine.root);
                    for (file, now) in actions::panels(&mut probe) {
                        if now != Some(savings) {
                            self.write_action(&file, &savings.to_string());
                        }
                    }
                }
                actions::GPU_DPM => {
                    let mut probe = Probe::new(&self.engine.root);
                    for (file, now) in actions::gpus(&mut probe) {
                        if let Some(level) = actions::dpm_level(side, &now) {
                            self.write_action(&file, level);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Devices' batteries: `Trickle` in Power Saver, `Fast` in Performance,
    /// `Standard` otherwise; `Custom` and `Adaptive` are left alone.
    fn trickle_charge(&self, machine: &Machine, side: Side) {
        for supply in machine.charging_supplies.iter().filter(|s| s.follows_profile()) {
            let file = supply.charge_type_file();
            // Read afresh: the machine's copy may be older than a person's change.
            let now = Probe::new(&self.engine.root).text(&file).map(|t| t.trim().to_owned());
            if let Some(kind) = actions::charge_type(side, now.as_deref()).filter(|k| supply.takes(k)) {
                self.write_action(&file, kind);
            }
        }
    }

    fn write_action(&self, file: &str, value: &str) {
        match self.applier().write_beneath_sys(file, value) {
            Ok(true) => log::info!("{file}: {value}"),
            Ok(false) => {}
            Err(err) => log::warn!("cannot write {value} to {file}: {err}"),
        }
    }
}

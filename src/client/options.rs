//! Battery awareness and power-profiles-daemon 0.30's actions, as the
//! window and the tray show and set them: through the desktop's own power
//! API (`org.freedesktop.UPower.PowerProfiles`, which the helper serves;
//! docs/dbus-api.md, "Battery awareness" and "Actions"). Whoever owns that
//! name answers: the helper, or power-profiles-daemon where it still runs.

use std::collections::HashMap;

use zbus::zvariant::OwnedValue;

use super::{ClientError, Helper};
use crate::dbus::PowerProfilesProxy;

/// One switch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PowerOption {
    /// `BatteryAware`: Balanced saves power on battery.
    BatteryAware,
    /// An action, by its name.
    Action(String),
}

impl PowerOption {
    /// Its title and one-line explanation, as the window and the tray show it.
    pub fn words(&self) -> (String, String) {
        let action = match self {
            PowerOption::BatteryAware => None,
            PowerOption::Action(name) => Some(name.as_str()),
        };
        crate::core::actions::switch_words(action)
    }
}

/// The switches and whether each is on, as the API answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct PowerOptions {
    /// `BatteryAware` (`None`: not answered).
    pub battery_aware: Option<bool>,
    /// `ActionsInfo`: each action's name and whether it runs.
    pub actions: Vec<(String, bool)>,
}

impl PowerOptions {
    /// Reads both properties afresh; what does not answer is left out.
    pub async fn read(proxy: &PowerProfilesProxy<'_>) -> PowerOptions {
        let battery_aware = proxy.battery_aware().await.ok();
        let actions = proxy.actions_info().await.map(|list| from_info(&list)).unwrap_or_default();
        PowerOptions { battery_aware, actions }
    }

    /// Every switch with its state, battery awareness first.
    pub fn switches(&self) -> Vec<(PowerOption, bool)> {
        self.battery_aware
            .map(|on| (PowerOption::BatteryAware, on))
            .into_iter()
            .chain(self.actions.iter().map(|(name, on)| (PowerOption::Action(name.clone()), *on)))
            .collect()
    }
}

/// `ActionsInfo` entries with a sane name and an `Enabled`; others are
/// skipped (the bus's owner may be anyone).
fn from_info(list: &[HashMap<String, OwnedValue>]) -> Vec<(String, bool)> {
    list.iter()
        .take(32)
        .filter_map(|entry| {
            let name = entry.get("Name").and_then(|v| <&str>::try_from(v).ok())?;
            let enabled = entry.get("Enabled").and_then(|v| bool::try_from(v).ok())?;
            let sane =
                !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            sane.then(|| (name.to_owned(), enabled))
        })
        .collect()
}

impl Helper {
    /// The desktop power API's proxy on the shared connection.
    ///
    /// # Errors
    /// No system bus.
    pub async fn power_profiles(&self) -> Result<PowerProfilesProxy<'static>, ClientError> {
        let connection = self.connection().await?;
        Ok(PowerProfilesProxy::new(&connection).await?)
    }

    /// Turns a switch on or off.
    ///
    /// # Errors
    /// Whatever the bus or the API's owner answered (not allowed, say).
    pub async fn set_power_option(&self, option: &PowerOption, on: bool) -> Result<(), ClientError> {
        let proxy = self.power_profiles().await?;
        let result = match option {
            PowerOption::BatteryAware => proxy.set_battery_aware(on).await,
            PowerOption::Action(name) => proxy.set_action_enabled(name, on).await,
        };
        Ok(result?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_entries_are_skipped_and_battery_awareness_comes_first() {
        let entry = |name: &str, enabled: Option<bool>| {
            let mut e = HashMap::new();
            e.insert("Name".to_owned(), OwnedValue::try_from(zbus::zvariant::Value::from(name)).unwrap());
            if let Some(on) = enabled {
                e.insert("Enabled".to_owned(), OwnedValue::from(on));
            }
            e
        };
        let list = [entry("trickle_charge", Some(true)), entry("no/slash", Some(true)), entry("amdgpu_dpm", None)];
        let options = PowerOptions { battery_aware: Some(false), actions: from_info(&list) };
        assert_eq!(
            options.switches(),
            [(PowerOption::BatteryAware, false), (PowerOption::Action("trickle_charge".into()), true)]
        );
        assert!(PowerOptions::default().switches().is_empty());
    }
}

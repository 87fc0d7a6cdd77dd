//! The values of the PowerProfiles properties, as power-profiles-daemon
//! 0.30 reports them, from the engine's state.

use std::collections::HashMap;

use zbus::zvariant::{OwnedValue, Value};

use super::super::engine::Engine;
use crate::core::machine::{DriverKind, Machine};
use crate::core::panel::PanelProfile;
use crate::core::platform::choice_for;
use crate::core::profile::BuiltinProfile;

pub(super) fn string(value: &str) -> Option<OwnedValue> {
    OwnedValue::try_from(Value::from(value.to_owned())).ok()
}

/// The CPU side's name in power-profiles-daemon's words: `intel_pstate`
/// (also in passive mode, and for the energy bias), `amd_pstate`, or the
/// kernel's own name for a driver ppd has no driver for (Gearshift still
/// switches its governors there).
pub(super) fn cpu_driver_name(machine: &Machine) -> Option<String> {
    if !machine.has_cpufreq() && !machine.epb_supported() {
        return None;
    }
    Some(match machine.driver_kind() {
        Some(DriverKind::IntelPstate | DriverKind::IntelCpufreq) => "intel_pstate".to_owned(),
        Some(DriverKind::AmdPstateEpp | DriverKind::AmdPstate) => "amd_pstate".to_owned(),
        _ if machine.epb_supported() => "intel_pstate".to_owned(),
        _ => machine.driver.clone().unwrap_or_else(|| "cpufreq".to_owned()),
    })
}

/// One entry per profile something here can deliver, power-saver first:
/// `Profile`, `CpuDriver` and `PlatformDriver` where each takes part, and
/// `Driver` (`multiple` where both do). Without a platform profile the
/// platform side is power-profiles-daemon's `placeholder`, which takes
/// power-saver and balanced (so that these show `multiple` beside a CPU
/// driver, and are all there is on a machine with nothing to drive), as
/// power-profiles-daemon 0.30 reports them (docs/dbus-api.md, "Profiles").
pub(super) fn profiles(engine: &Engine) -> Vec<HashMap<String, OwnedValue>> {
    let machine = engine.machine();
    let cpu = cpu_driver_name(&machine);
    let table: Vec<(&str, Option<String>, Option<&str>)> = PanelProfile::ALL
        .into_iter()
        .map(|panel| {
            let (name, builtin) = (panel.name(), panel.selects());
            let platform = match &machine.platform_profile {
                Some(p) => p
                    .handlers
                    .iter()
                    .any(|h| choice_for(&h.choices, builtin.platform_wanted()).is_some())
                    .then_some("platform_profile"),
                None => (builtin != BuiltinProfile::Performance).then_some("placeholder"),
            };
            (name, cpu.clone(), platform)
        })
        .collect();
    table
        .into_iter()
        .filter_map(|(name, cpu, platform)| {
            let mut entry = HashMap::new();
            entry.insert("Profile".to_owned(), string(name)?);
            let driver = match (&cpu, platform) {
                (Some(_), Some(_)) => "multiple".to_owned(),
                (Some(cpu), None) => cpu.clone(),
                (None, Some(platform)) => platform.to_owned(),
                (None, None) => return None,
            };
            if let Some(cpu) = &cpu {
                entry.insert("CpuDriver".to_owned(), string(cpu)?);
            }
            if let Some(platform) = platform {
                entry.insert("PlatformDriver".to_owned(), string(platform)?);
            }
            entry.insert("Driver".to_owned(), string(&driver)?);
            Some(entry)
        })
        .collect()
}

pub(super) fn holds(engine: &Engine) -> Vec<HashMap<String, OwnedValue>> {
    engine
        .holds()
        .iter()
        .filter_map(|hold| {
            let mut entry = HashMap::new();
            entry.insert("ApplicationId".to_owned(), string(&hold.application_id)?);
            entry.insert("Profile".to_owned(), string(PanelProfile::of_builtin(hold.profile).name())?);
            entry.insert("Reason".to_owned(), string(&hold.reason)?);
            Some(entry)
        })
        .collect()
}

pub(super) fn active(engine: &Engine) -> String {
    engine.panel_profile(&engine.active_profile()).name().to_owned()
}

pub(super) fn actions_info(engine: &Engine) -> Vec<HashMap<String, OwnedValue>> {
    engine
        .actions_info()
        .into_iter()
        .filter_map(|a| {
            let mut entry = HashMap::new();
            entry.insert("Name".to_owned(), string(a.action.name)?);
            entry.insert("Description".to_owned(), string(a.action.description)?);
            entry.insert("Enabled".to_owned(), OwnedValue::from(a.enabled));
            Some(entry)
        })
        .collect()
}

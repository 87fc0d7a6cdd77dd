//! power-profiles-daemon 0.30's actions: what each writes for a profile,
//! and where (docs/dbus-api.md, "Actions").
//!
//! - `trickle_charge` (on unless turned off): a device's battery charging
//!   from the machine (`scope` `Device`, never the machine's own) charges
//!   `Trickle` in Power Saver, `Fast` in Performance, `Standard` otherwise;
//!   a charge type someone set to `Custom` or `Adaptive` is left alone.
//! - `amdgpu_panel_power` (off until turned on; AMD machines): the built-in
//!   panel's power savings (`amdgpu/panel_power_savings` of a connected
//!   connector, 0..4), on battery only, the more the emptier the battery.
//! - `amdgpu_dpm` (off until turned on; AMD machines): the GPU's
//!   `power_dpm_force_performance_level`, `low` in Power Saver and `auto`
//!   otherwise; `manual` (someone's own setting) is left alone.
//!
//! The names come from the kernel's own directory listings, never from a
//! client.

use super::identity::Vendor;
use super::profile::BuiltinProfile;
use super::root::Probe;
use crate::i18n::gettext;

/// Trickle charging of devices.
pub const TRICKLE_CHARGE: &str = "trickle_charge";
/// The panel's power savings.
pub const PANEL_POWER: &str = "amdgpu_panel_power";
/// The GPU's power management level.
pub const GPU_DPM: &str = "amdgpu_dpm";

/// DRM devices: GPUs (`card0`) and their connectors (`card1-eDP-1`).
pub const DRM_DIR: &str = "sys/class/drm";
/// A connector's panel power savings, relative to it.
pub const PANEL_POWER_FILE: &str = "amdgpu/panel_power_savings";
/// A GPU's power management level, relative to it.
pub const DPM_FILE: &str = "device/power_dpm_force_performance_level";

/// One action as the panel lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    /// Its name.
    pub name: &'static str,
    /// What it does, in power-profiles-daemon's words.
    pub description: &'static str,
    /// On unless turned off (otherwise: off until turned on).
    pub on_by_default: bool,
}

/// Every action, in power-profiles-daemon's order.
pub const ACTIONS: [Action; 3] = [
    Action { name: TRICKLE_CHARGE, description: "Configure power supply to trickle charge", on_by_default: true },
    Action { name: PANEL_POWER, description: "Panel Power Savings (may affect color quality)", on_by_default: false },
    Action { name: GPU_DPM, description: "Adjust GPU dynamic power management", on_by_default: false },
];

/// The title and the one-line explanation the window and the tray give a
/// switch: battery awareness (`None`) or an action by name. An action
/// this version does not know gets its name and the API's description.
pub fn switch_words(action: Option<&str>) -> (String, String) {
    match action {
        None => {
            (gettext("Save Power on Battery"), gettext("On battery, Balanced uses the values of the Efficient profile"))
        }
        Some(TRICKLE_CHARGE) => (
            gettext("Charge Devices Gently"),
            gettext("A phone or mouse charging from this computer charges slowly in Power Saver"),
        ),
        Some(PANEL_POWER) => (
            gettext("Dim the Panel on Battery"),
            gettext("The built-in screen saves power as the battery empties; colours may look flatter"),
        ),
        Some(GPU_DPM) => (
            gettext("Slow Graphics in Power Saver"),
            gettext("The Radeon graphics runs at its lowest level in Power Saver"),
        ),
        Some(other) => {
            (other.to_owned(), ACTIONS.iter().find(|a| a.name == other).map_or("", |a| a.description).to_owned())
        }
    }
}

/// The actions this machine has: trickle charging everywhere (a device
/// may be plugged in any time), the two amdgpu ones on AMD machines.
pub fn available(vendor: Vendor) -> impl Iterator<Item = Action> {
    ACTIONS.into_iter().filter(move |a| a.name == TRICKLE_CHARGE || vendor == Vendor::Amd)
}

/// The profile's side the actions follow: Power Saver, Performance, or
/// the balanced middle (both balanced built-ins, and custom profiles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Power Saver.
    Saver,
    /// Balanced, Efficient, custom profiles.
    Balanced,
    /// Performance.
    Performance,
}

impl Side {
    /// The side of a profile id.
    pub fn of(profile: &str) -> Side {
        match BuiltinProfile::from_id(profile) {
            Some(BuiltinProfile::Power) => Side::Saver,
            Some(BuiltinProfile::Performance) => Side::Performance,
            _ => Side::Balanced,
        }
    }
}

/// The charge type a device's battery gets, or `None` to leave `current`
/// as it is (already there, or someone's own `Custom`/`Adaptive`).
pub fn charge_type(side: Side, current: Option<&str>) -> Option<&'static str> {
    let wanted = match side {
        Side::Saver => "Trickle",
        Side::Balanced => "Standard",
        Side::Performance => "Fast",
    };
    match current {
        Some(now) if now == wanted || now == "Custom" || now == "Adaptive" => None,
        _ => Some(wanted),
    }
}

/// The panel's power savings for a side, the power source and the battery
/// level (percent): none on AC power or while the source is unknown; in
/// Power Saver 1 below half, 2 below 30 %, 3 below 20 %; in Balanced 1
/// below 30 % (power-profiles-daemon 0.30's steps). An unknown level is
/// taken as full.
pub fn panel_savings(side: Side, on_battery: Option<bool>, level: Option<f64>) -> u8 {
    if on_battery != Some(true) {
        return 0;
    }
    let level = level.filter(|l| *l > 0.0).unwrap_or(100.0);
    match side {
        Side::Saver if level >= 50.0 => 0,
        Side::Saver if level > 30.0 => 1,
        Side::Saver if level > 20.0 => 2,
        Side::Saver => 3,
        Side::Balanced if level < 30.0 => 1,
        Side::Balanced | Side::Performance => 0,
    }
}

/// The GPU level for a side, or `None` to leave `current` alone.
pub fn dpm_level(side: Side, current: &str) -> Option<&'static str> {
    let wanted = if side == Side::Saver { "low" } else { "auto" };
    (current != wanted && current != "manual").then_some(wanted)
}

/// A name the kernel could have given a DRM device.
fn plausible(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.starts_with("card")
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A connector (`card1-eDP-1`), not a GPU (`card1`).
fn is_connector(name: &str) -> bool {
    name.contains('-')
}

/// The panel power savings files of connected connectors, relative to the
/// root, with what each holds.
pub fn panels(probe: &mut Probe<'_>) -> Vec<(String, Option<u8>)> {
    let names = probe.list(DRM_DIR);
    names
        .into_iter()
        .filter(|n| plausible(n) && is_connector(n))
        .filter_map(|n| {
            let connected = probe.text(&format!("{DRM_DIR}/{n}/status")).is_some_and(|s| s.trim() == "connected");
            let file = format!("{DRM_DIR}/{n}/{PANEL_POWER_FILE}");
            let text = probe.text(&file).filter(|_| connected)?;
            Some((file, text.trim().parse().ok()))
        })
        .collect()
}

/// The GPUs' power management level files, relative to the root, with what
/// each holds.
pub fn gpus(probe: &mut Probe<'_>) -> Vec<(String, String)> {
    let names = probe.list(DRM_DIR);
    names
        .into_iter()
        .filter(|n| plausible(n) && !is_connector(n))
        .filter_map(|n| {
            let file = format!("{DRM_DIR}/{n}/{DPM_FILE}");
            let text = probe.text(&file)?;
            Some((file, text.trim().to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charge_types_follow_the_side_and_leave_a_persons_own_alone() {
        assert_eq!(charge_type(Side::Saver, Some("Fast")), Some("Trickle"));
        assert_eq!(charge_type(Side::Balanced, Some("Trickle")), Some("Standard"));
        assert_eq!(charge_type(Side::Performance, Some("Standard")), Some("Fast"));
        assert_eq!(charge_type(Side::Balanced, Some("Standard")), None);
        assert_eq!(charge_type(Side::Saver, Some("Custom")), None);
        assert_eq!(charge_type(Side::Balanced, Some("Adaptive")), None);
        assert_eq!(Side::of("balance_power"), Side::Balanced);
        assert_eq!(Side::of("my-own"), Side::Balanced);
    }

    #[test]
    fn the_panel_saves_only_on_battery_and_more_as_it_empties() {
        assert_eq!(panel_savings(Side::Saver, Some(false), Some(10.0)), 0);
        assert_eq!(panel_savings(Side::Saver, None, Some(10.0)), 0);
        let saver: Vec<u8> = [70.0, 50.0, 49.0, 31.0, 30.0, 21.0, 20.0, 15.0]
            .map(|l| panel_savings(Side::Saver, Some(true), Some(l)))
            .to_vec();
        assert_eq!(saver, [0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!(panel_savings(Side::Balanced, Some(true), Some(50.0)), 0);
        assert_eq!(panel_savings(Side::Balanced, Some(true), Some(29.0)), 1);
        assert_eq!(panel_savings(Side::Performance, Some(true), Some(5.0)), 0);
        assert_eq!(panel_savings(Side::Saver, Some(true), None), 0);
    }

    #[test]
    fn the_gpu_is_low_in_power_saver_unless_set_by_hand() {
        assert_eq!(dpm_level(Side::Saver, "auto"), Some("low"));
        assert_eq!(dpm_level(Side::Balanced, "low"), Some("auto"));
        assert_eq!(dpm_level(Side::Balanced, "auto"), None);
        assert_eq!(dpm_level(Side::Saver, "manual"), None);
    }

    #[test]
    fn amdgpu_actions_are_amds() {
        let names = |v| available(v).map(|a| a.name).collect::<Vec<_>>();
        assert_eq!(names(Vendor::Intel), [TRICKLE_CHARGE]);
        assert_eq!(names(Vendor::Amd), [TRICKLE_CHARGE, PANEL_POWER, GPU_DPM]);
    }
}

//! power-profiles-daemon's daemon options, with its meaning, so that its
//! unit's and its tests' command lines work unchanged
//! (docs/dbus-api.md, "Moving over from power-profiles-daemon"):
//! `--block-driver NAME` (`intel_pstate`, `amd_pstate`, `platform_profile`),
//! `--block-action NAME` (`trickle_charge`, `amdgpu_panel_power`,
//! `amdgpu_dpm`), `--disable-upower`, `--disable-logind`.
//!
//! A blocked driver is as if its files were not there: the helper neither
//! reads nor writes them, and the panel's `Profiles` shows the driver
//! power-profiles-daemon would use instead (`placeholder`).

use crate::core::machine::{DriverKind, Machine};

/// The CPU side's driver names, as power-profiles-daemon calls them.
pub const CPU_DRIVERS: [&str; 2] = ["intel_pstate", "amd_pstate"];
/// The platform side's driver name.
pub const PLATFORM_DRIVER: &str = "platform_profile";
/// The actions.
pub const ACTIONS: [&str; 3] = ["trickle_charge", "amdgpu_panel_power", "amdgpu_dpm"];

/// What the command line turned off.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Blocklist {
    /// Drivers not to use.
    pub drivers: Vec<String>,
    /// Actions not to run (shown as disabled).
    pub actions: Vec<String>,
    /// Not following UPower (the power source, the battery level).
    pub upower_disabled: bool,
    /// Not following logind (resume).
    pub logind_disabled: bool,
}

impl Blocklist {
    /// Says at start what is turned off, and which names mean nothing here.
    pub fn log(&self) {
        for driver in &self.drivers {
            if CPU_DRIVERS.contains(&driver.as_str()) || driver == PLATFORM_DRIVER {
                log::info!("driver {driver} blocked by the command line");
            } else {
                log::warn!("--block-driver {driver}: no driver has that name (ignored)");
            }
        }
        for action in &self.actions {
            if ACTIONS.contains(&action.as_str()) {
                log::info!("action {action} blocked by the command line");
            } else {
                log::warn!("--block-action {action}: no action has that name (ignored)");
            }
        }
        if self.upower_disabled {
            log::info!("not following UPower (--disable-upower)");
        }
        if self.logind_disabled {
            log::info!("not following logind (--disable-logind)");
        }
    }

    /// True when `--block-action NAME` was given.
    pub fn action_blocked(&self, name: &str) -> bool {
        self.actions.iter().any(|a| a == name)
    }

    /// Removes from `machine` what a blocked driver would have driven, so
    /// that nothing reads or writes it: the CPUs' cpufreq and energy bias
    /// files for `intel_pstate` or `amd_pstate`, the firmware's platform
    /// profile for `platform_profile`.
    pub fn hide(&self, machine: &mut Machine) {
        let blocked = |name: &str| self.drivers.iter().any(|d| d == name);
        if blocked(PLATFORM_DRIVER) {
            machine.platform_profile = None;
        }
        let cpu = match machine.driver_kind() {
            Some(DriverKind::IntelPstate | DriverKind::IntelCpufreq) => Some("intel_pstate"),
            Some(DriverKind::AmdPstate | DriverKind::AmdPstateEpp) => Some("amd_pstate"),
            // Intel without cpufreq EPP: power-profiles-daemon drives the
            // energy bias with its intel_pstate driver.
            _ if machine.epb_supported() => Some("intel_pstate"),
            _ => None,
        };
        if cpu.is_some_and(blocked) {
            machine.policies.clear();
            for cpu in &mut machine.cpus {
                cpu.policy = None;
                cpu.energy_perf_bias = None;
            }
            machine.mode_control = None;
            machine.turbo = None;
            machine.hwp_dynamic_boost = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::machine::fixture as machine;

    #[test]
    fn a_blocked_driver_leaves_nothing_to_write() {
        let mut m = machine("meteor-lake-155h");
        assert!(m.platform_profile.is_some() && m.has_cpufreq());
        let list = Blocklist { drivers: vec!["platform_profile".into()], ..Blocklist::default() };
        list.hide(&mut m);
        assert!(m.platform_profile.is_none());
        assert!(m.has_cpufreq(), "the CPUs are not the platform driver's");
        let list = Blocklist { drivers: vec!["intel_pstate".into()], ..Blocklist::default() };
        list.hide(&mut m);
        assert!(m.nothing_to_drive(), "{m:?}");
    }

    #[test]
    fn another_vendors_driver_blocks_nothing() {
        let mut m = machine("meteor-lake-155h");
        let before = format!("{m:?}");
        Blocklist { drivers: vec!["amd_pstate".into()], ..Blocklist::default() }.hide(&mut m);
        assert_eq!(format!("{m:?}"), before);
    }
}

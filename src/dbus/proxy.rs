//! The helper's interface as clients call it. Every method returns the
//! helper's own error type, so that callers match variants, not names.

use zbus::proxy;

use super::error::HelperError;
use super::profile::WireProfile;
use super::types::{ApplySummary, AutoPolicy, EnergyReading, HelperState, OutsideChange};

/// `io.github.gearshift.Helper1` (docs/dbus-api.md).
#[proxy(
    interface = "io.github.gearshift.Helper1",
    default_service = "io.github.gearshift.Helper1",
    default_path = "/io/github/gearshift/Helper1"
)]
pub trait Helper1 {
    /// Switches to a built-in or custom profile.
    fn set_profile(&self, id: &str) -> Result<ApplySummary, HelperError>;
    /// Switches the cpufreq driver's mode and applies the profile again.
    fn set_driver_mode(&self, mode: &str) -> Result<ApplySummary, HelperError>;
    /// Sets a raw EPP value on some CPUs.
    fn set_epp(&self, cpus: &[u32], value: u32) -> Result<ApplySummary, HelperError>;
    /// Sets a governor on some CPUs.
    fn set_governor(&self, cpus: &[u32], governor: &str) -> Result<ApplySummary, HelperError>;
    /// The last values applied.
    fn get_state(&self) -> Result<HelperState, HelperError>;
    /// The custom profiles (`a{sv}` each, the keys of profiles.toml).
    fn list_custom_profiles(&self) -> Result<Vec<WireProfile>, HelperError>;
    /// Saves (or replaces) one custom profile.
    fn save_custom_profile(&self, profile: &WireProfile) -> Result<(), HelperError>;
    fn delete_custom_profile(&self, id: &str) -> Result<(), HelperError>;
    /// A monotonic time in µs and the RAPL counters.
    fn read_energy(&self) -> Result<(u64, Vec<EnergyReading>), HelperError>;
    /// Holds `performance` or `power-saver` (`power`) until released or
    /// until this connection leaves the bus; answers the hold's cookie.
    fn hold_profile(&self, profile: &str, reason: &str, application_id: &str) -> Result<u32, HelperError>;
    /// What holds a profile now: application id, profile id, reason,
    /// GameMode's.
    #[zbus(property)]
    fn holds(&self) -> zbus::Result<Vec<(String, String, String, bool)>>;
    /// Holds Performance as GameMode's, hands off the CPU, until released
    /// or until this connection leaves the bus.
    fn hold_for_game_mode(&self, reason: &str) -> Result<u32, HelperError>;
    /// Ends a hold.
    fn release_profile(&self, cookie: u32) -> Result<(), HelperError>;
    /// A hold of this connection ended (released, or cancelled by a
    /// manual switch).
    #[zbus(signal)]
    fn profile_released(&self, cookie: u32) -> zbus::Result<()>;
    /// Starts a measurement; the profile is put back at its end or when
    /// this connection leaves the bus.
    fn begin_measurement(&self) -> Result<u32, HelperError>;
    /// Ends it and puts the profile back; answers the profile's id.
    fn end_measurement(&self, cookie: u32) -> Result<String, HelperError>;
    /// How often something else changed the profile since the measurement began.
    fn measurement_disturbances(&self, cookie: u32) -> Result<u32, HelperError>;
    /// Turns automatic switching on; what was applied, and whether it was saved.
    fn set_auto_policy(&self, on_ac: &str, on_battery: &str) -> Result<ApplySummary, HelperError>;
    /// Turns automatic switching off; whether that was saved.
    fn disable_auto_policy(&self) -> Result<ApplySummary, HelperError>;
    /// Reads the administrator's configuration again (root only); its problems.
    fn reload_config(&self) -> Result<Vec<String>, HelperError>;
    /// Values changed outside Gearshift and set back, per occasion.
    #[zbus(property)]
    fn changed_outside_counts(&self) -> zbus::Result<std::collections::HashMap<String, u64>>;
    /// The administrator's file that locks switching and tuning, or "".
    #[zbus(property)]
    fn administrator_lock(&self) -> zbus::Result<String>;
    /// The custom profiles the administrator declares, by id, with the
    /// file of each.
    #[zbus(property)]
    fn declared_profiles(&self) -> zbus::Result<std::collections::HashMap<String, String>>;
    #[zbus(property)]
    fn auto_policy(&self) -> zbus::Result<AutoPolicy>;
    /// Other power managers the helper found running, by id.
    #[zbus(property)]
    fn conflicts(&self) -> zbus::Result<Vec<String>>;
    /// The same, by program (`tlp-pd` where `conflicts` says `tlp`).
    #[zbus(property)]
    fn conflict_programs(&self) -> zbus::Result<Vec<String>>;
    #[zbus(property)]
    fn active_profile(&self) -> zbus::Result<String>;
    /// Why the profile in effect is in effect (`core::active::ActiveReason`).
    #[zbus(property)]
    fn active_reason(&self) -> zbus::Result<String>;
    #[zbus(property)]
    fn version(&self) -> zbus::Result<String>;
    #[zbus(property)]
    fn root(&self) -> zbus::Result<String>;
    /// Sent after every apply.
    #[zbus(signal)]
    fn applied(&self, summary: ApplySummary) -> zbus::Result<()>;
    /// Sent after a custom profile was saved or deleted.
    #[zbus(signal)]
    fn custom_profiles_changed(&self) -> zbus::Result<()>;
    /// Sent when values changed behind the helper's back were set back.
    #[zbus(signal)]
    fn changed_outside(&self, change: OutsideChange) -> zbus::Result<()>;
}

/// The desktop's power panel API, power-profiles-daemon 0.30's
/// `org.freedesktop.UPower.PowerProfiles`, which the helper serves too
/// (docs/dbus-api.md). The window and the tray use it only for what
/// `Helper1` does not have: battery awareness and the actions.
#[proxy(
    interface = "org.freedesktop.UPower.PowerProfiles",
    default_service = "org.freedesktop.UPower.PowerProfiles",
    default_path = "/org/freedesktop/UPower/PowerProfiles"
)]
pub trait PowerProfiles {
    /// Turns an action on or off.
    fn set_action_enabled(&self, action: &str, enabled: bool) -> zbus::Result<()>;
    /// Balanced saves power on battery.
    #[zbus(property)]
    fn battery_aware(&self) -> zbus::Result<bool>;
    #[zbus(property)]
    fn set_battery_aware(&self, on: bool) -> zbus::Result<()>;
    /// The actions: `Name`, `Description`, `Enabled` each.
    #[zbus(property)]
    fn actions_info(&self) -> zbus::Result<Vec<std::collections::HashMap<String, zbus::zvariant::OwnedValue>>>;
}

/// Other power managers by program (`tlp-pd`, `tuned-ppd`), as a helper
/// reports them; a helper from before `ConflictPrograms` gives its ids,
/// which name each family's main program.
///
/// # Errors
/// The helper answered neither property.
pub async fn conflict_programs(proxy: &Helper1Proxy<'_>) -> zbus::Result<Vec<String>> {
    match proxy.conflict_programs().await {
        Ok(programs) => Ok(programs),
        Err(_) => proxy.conflicts().await,
    }
}

/// Which program owns a bus name, asked of the bus (the owner's process
/// id, then its process name), as `core::conflicts::owner_program` names
/// it. `None` where the bus cannot say.
pub async fn owner_program(dbus: &zbus::fdo::DBusProxy<'_>, name: zbus::names::BusName<'_>) -> Option<String> {
    let pid = dbus.get_connection_unix_process_id(name).await.ok()?;
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    Some(crate::core::conflicts::owner_program(comm.trim()))
}

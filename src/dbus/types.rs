//! The values that cross the bus between the helper and its clients. Their
//! D-Bus signatures are part of the interface (docs/dbus-api.md): a field
//! added, removed or reordered here changes the wire format.

use serde::{Deserialize, Serialize};
use zbus::zvariant::{OwnedValue, Type, Value};

/// What an apply did, as returned to the caller: `(suuauss)`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ApplySummary {
    /// The profile applied (empty for raw tuning).
    pub profile: String,
    /// Files written.
    pub changed: u32,
    /// Files that already held the value.
    pub unchanged: u32,
    /// The CPUs covered.
    pub cpus: Vec<u32>,
    /// One English sentence, for logs.
    pub summary: String,
    /// Why the new choice could not be saved (it is applied, and the helper
    /// keeps retrying the save), or "" when it was saved.
    pub unsaved: String,
}

/// Where [`ApplySummary::summary`] lists the best-effort writes the
/// kernel refused (AMD's boost off in Power Saver), which were left as they
/// were: the rest of the sentence, after this mark. The wire type stays as
/// it was, so that clients and helpers of other versions still understand
/// each other.
pub const LEFT_AS_THEY_WERE: &str = "; left as they were, refused by the kernel: ";

impl ApplySummary {
    /// The best-effort writes the kernel refused ("boost for CPU 3
    /// (EINVAL)"), where there were any.
    pub fn left_as_they_were(&self) -> Option<&str> {
        self.summary.split_once(LEFT_AS_THEY_WERE).map(|(_, rest)| rest).filter(|rest| !rest.is_empty())
    }
}

/// The last values applied, per CPU: `(sstua(uss))`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct HelperState {
    /// The active profile, or "".
    pub active_profile: String,
    /// The profile of the last apply, or "" for raw tuning.
    pub last_profile: String,
    /// When the last apply happened (seconds since the epoch), or 0.
    pub last_applied: u64,
    /// Per CPU: number, governor, preference as written ("" when untouched).
    pub cpus: Vec<(u32, String, String)>,
}

/// One RAPL zone's counter: `(stt)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct EnergyReading {
    /// `package-0`, `core`, ...
    pub name: String,
    /// The counter in µJ.
    pub energy_uj: u64,
    /// Where it wraps to 0, in µJ.
    pub max_energy_range_uj: u64,
}

/// Switching profiles with the power source: the `AutoPolicy` property
/// `(bss)`, and the same table in the helper's saved state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type, Value, OwnedValue)]
#[serde(deny_unknown_fields)]
pub struct AutoPolicy {
    /// Whether automatic switching is on.
    pub enabled: bool,
    /// The profile on AC power.
    pub on_ac: String,
    /// The profile on battery.
    pub on_battery: String,
}

impl AutoPolicy {
    /// The pair offered until someone chooses: balanced-performance on AC,
    /// balanced-power on battery. The one place these defaults are written.
    pub const DEFAULT_ON_AC: &'static str = "balance_performance";
    /// See [`AutoPolicy::DEFAULT_ON_AC`].
    pub const DEFAULT_ON_BATTERY: &'static str = "balance_power";
}

impl AutoPolicy {
    /// The (AC, battery) pair to offer when the policy is turned on: the
    /// helper's pair when it told one, the defaults otherwise.
    pub fn pair_or_default(policy: Option<&AutoPolicy>) -> (String, String) {
        match policy {
            Some(p) if !p.on_ac.is_empty() && !p.on_battery.is_empty() => (p.on_ac.clone(), p.on_battery.clone()),
            _ => (Self::DEFAULT_ON_AC.to_owned(), Self::DEFAULT_ON_BATTERY.to_owned()),
        }
    }
}

impl Default for AutoPolicy {
    fn default() -> Self {
        AutoPolicy { enabled: false, on_ac: Self::DEFAULT_ON_AC.into(), on_battery: Self::DEFAULT_ON_BATTERY.into() }
    }
}

/// Values that something else changed behind the helper's back (firmware,
/// another program, a driver mode change) and that the helper set back:
/// the `ChangedOutside` signal, `(sa(sauss))`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct OutsideChange {
    /// When the helper noticed: `resume`, `ac` (the machine went on AC
    /// power), `battery`, or `driver-mode` (the cpufreq driver was
    /// registered again, which loses what was written).
    pub occasion: String,
    /// Each value: the attribute, its CPUs, what the file showed, and what
    /// the helper wrote back.
    pub values: Vec<(String, Vec<u32>, String, String)>,
}

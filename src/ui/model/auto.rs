//! Automatic switching as the Efficiency page's "Use on battery" and "Use
//! on AC power" change it.

use gearshift::core::profile::BuiltinProfile;
use gearshift::dbus::AutoPolicy;

/// The (on AC, on battery) pair that uses `id` on battery (`battery`) or
/// on AC power, keeping the other side of `auto` (its default where it
/// has none yet).
pub fn use_on(auto: Option<&AutoPolicy>, id: String, battery: bool) -> (String, String) {
    let keep = |side: Option<&String>, default: BuiltinProfile| {
        side.filter(|s| !s.is_empty()).cloned().unwrap_or_else(|| default.id().to_owned())
    };
    if battery {
        (keep(auto.map(|a| &a.on_ac), BuiltinProfile::BalancePerformance), id)
    } else {
        (id, keep(auto.map(|a| &a.on_battery), BuiltinProfile::BalancePower))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_other_side_is_kept_or_defaulted() {
        let auto = AutoPolicy { enabled: true, on_ac: "performance".into(), on_battery: "power".into() };
        assert_eq!(use_on(Some(&auto), "quiet".into(), true), ("performance".into(), "quiet".into()));
        assert_eq!(use_on(Some(&auto), "quiet".into(), false), ("quiet".into(), "power".into()));
        assert_eq!(use_on(None, "quiet".into(), true), ("balance_performance".into(), "quiet".into()));
        let empty = AutoPolicy { enabled: false, on_ac: String::new(), on_battery: String::new() };
        assert_eq!(use_on(Some(&empty), "quiet".into(), false), ("quiet".into(), "balance_power".into()));
    }
}

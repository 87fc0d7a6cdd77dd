//! Every path Gearshift reads or writes, relative to the snapshot root.
//!
//! Paths are built only from parsed integers and the fixed attribute names
//! below, never from text received from outside: the helper relies on this.

/// The CPU tree.
pub const CPU_DIR: &str = "sys/devices/system/cpu";
/// CPUs that are online, as a CPU list.
pub const ONLINE_MASK: &str = "sys/devices/system/cpu/online";
/// Global files copied into snapshots (relative to [`CPU_DIR`]).
pub const GLOBAL_FILES: &[&str] = &[
    "online",
    "offline",
    "present",
    "possible",
    "intel_pstate/status",
    "intel_pstate/no_turbo",
    "intel_pstate/max_perf_pct",
    "intel_pstate/min_perf_pct",
    "intel_pstate/hwp_dynamic_boost",
    "intel_pstate/turbo_pct",
    "intel_pstate/num_pstates",
    "amd_pstate/status",
    "amd_pstate/prefcore",
    "amd_pstate/dynamic_epp",
    "cpufreq/boost",
];
/// amd-pstate's dynamic EPP switch (Linux 7.1), relative to [`CPU_DIR`].
pub const DYNAMIC_EPP: &str = "amd_pstate/dynamic_epp";
/// Per-CPU files (relative to `cpuN/`).
pub const CPU_FILES: &[&str] = &[
    "online",
    "power/energy_perf_bias",
    "topology/physical_package_id",
    "topology/core_id",
    "acpi_cppc/highest_perf",
    "acpi_cppc/nominal_perf",
    "acpi_cppc/lowest_perf",
];
/// Per-policy files (relative to `cpufreq/policyN/`).
pub const POLICY_FILES: &[&str] = &[
    "scaling_cur_freq",
    "scaling_min_freq",
    "scaling_max_freq",
    "cpuinfo_min_freq",
    "cpuinfo_max_freq",
    "cpuinfo_transition_latency",
    "base_frequency",
    "scaling_governor",
    "scaling_available_governors",
    "scaling_driver",
    "affected_cpus",
    "related_cpus",
    "energy_performance_preference",
    "energy_performance_available_preferences",
    "boost",
    "amd_pstate_highest_perf",
    "amd_pstate_max_freq",
    "amd_pstate_lowest_nonlinear_freq",
    "amd_pstate_prefcore_ranking",
    "amd_pstate_hw_prefcore",
];
/// The hybrid PMUs whose `cpus` files say which CPUs are P- and E-cores.
pub const CORE_PMU_CPUS: &str = "sys/devices/cpu_core/cpus";
/// See [`CORE_PMU_CPUS`].
pub const ATOM_PMU_CPUS: &str = "sys/devices/cpu_atom/cpus";
/// The powercap class holding RAPL zones.
pub const POWERCAP_DIR: &str = "sys/class/powercap";
/// Per-zone files (relative to `intel-rapl:N[:M]/`).
pub const RAPL_FILES: &[&str] = &["name", "max_energy_range_uj", "energy_uj"];
/// ThinkPads: 1 while the machine sits on a lap (thinkpad_acpi's DYTC),
/// found through the platform bus's link to the device.
pub const DYTC_LAPMODE: &str = "sys/bus/platform/devices/thinkpad_acpi/dytc_lapmode";
/// The CPU description.
pub const CPUINFO: &str = "proc/cpuinfo";
/// The kernel release.
pub const OSRELEASE: &str = "proc/sys/kernel/osrelease";
/// Whether the scheduler prefers the faster cores (ITMT); absent where the
/// kernel did not enable ITMT at all.
pub const SCHED_ITMT: &str = "proc/sys/kernel/sched_itmt_enabled";

/// `cpuN/<attr>`.
pub fn cpu_file(cpu: u32, attr: &str) -> String {
    format!("{CPU_DIR}/cpu{cpu}/{attr}")
}

/// `cpufreq/policyN/<attr>`.
pub fn policy_file(policy: u32, attr: &str) -> String {
    format!("{CPU_DIR}/cpufreq/policy{policy}/{attr}")
}

/// `cpufreq/policyN`.
pub fn policy_dir(policy: u32) -> String {
    format!("{CPU_DIR}/cpufreq/policy{policy}")
}

/// A global file under the CPU tree.
pub fn global_file(attr: &str) -> String {
    format!("{CPU_DIR}/{attr}")
}

/// Parses `prefix<number>` (such as `cpu12` or `policy3`) strictly: no sign,
/// no leading zeros, at most [`super::parse::MAX_CPU_ID`].
pub fn numbered(name: &str, prefix: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?;
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    super::parse::parse_decimal(digits).and_then(|n| u32::try_from(n).ok()).filter(|n| *n <= super::parse::MAX_CPU_ID)
}

/// True for powercap zone names like `intel-rapl:0` and `intel-rapl:0:1`.
pub fn is_rapl_zone(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("intel-rapl:") else { return false };
    let parts: Vec<&str> = rest.split(':').collect();
    (1..=2).contains(&parts.len()) && parts.iter().all(|p| super::parse::parse_decimal(p).is_some_and(|n| n < 1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names() {
        assert_eq!(numbered("cpu12", "cpu"), Some(12));
        assert_eq!(numbered("cpu0", "cpu"), Some(0));
        assert_eq!(numbered("cpu01", "cpu"), None);
        assert_eq!(numbered("cpufreq", "cpu"), None);
        assert_eq!(numbered("cpu", "cpu"), None);
        assert_eq!(numbered("cpu99999", "cpu"), None);
        assert_eq!(numbered("policy3", "policy"), Some(3));
    }

    #[test]
    fn rapl_zone_names() {
        assert!(is_rapl_zone("intel-rapl:0"));
        assert!(is_rapl_zone("intel-rapl:0:1"));
        assert!(!is_rapl_zone("intel-rapl"));
        assert!(!is_rapl_zone("intel-rapl:"));
        assert!(!is_rapl_zone("intel-rapl:0:1:2"));
        assert!(!is_rapl_zone("intel-rapl-mmio:0"));
    }
}

//! One cpufreq policy as sysfs shows it: driver, governor, EPP, and the
//! frequencies, read so that a number that cannot be true (a frequency of
//! 0, a negative errno printed unsigned, a minimum above its maximum) is
//! unknown and listed, never data.

use serde::Serialize;

use super::parse::{
    parse_cpu_list, parse_epp, parse_flag, parse_u32, parse_u64, parse_word, parse_words, plausible_khz,
    plausible_perf_level, EppName, EppReading,
};
use super::paths::policy_file;
use super::root::{EntryKind, IgnoredValue, Probe};

/// Why an impossible frequency is ignored.
const NOT_A_FREQUENCY: &str = "is not a frequency a CPU runs at (0, or above 10 GHz)";
/// Why an impossible performance level or count is ignored.
pub(super) const NOT_A_PERF_LEVEL: &str =
    "is not an 8-bit performance value (a negative error number printed unsigned?)";

/// One cpufreq policy (usually one per CPU).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Policy {
    /// The policy number (`policyN`).
    pub id: u32,
    /// CPUs that share this policy.
    pub related_cpus: Vec<u32>,
    /// `scaling_driver`.
    pub driver: Option<String>,
    /// `scaling_governor`.
    pub governor: Option<String>,
    /// `scaling_available_governors`.
    pub available_governors: Vec<String>,
    /// `energy_performance_preference`, as the kernel shows it.
    pub epp: Option<EppReading>,
    /// The EPP file exists (the CPU and driver support EPP).
    pub has_epp: bool,
    /// `energy_performance_available_preferences`.
    pub available_preferences: Vec<EppName>,
    /// `scaling_cur_freq` in kHz.
    pub cur_khz: Option<u64>,
    /// `scaling_min_freq` in kHz.
    pub min_khz: Option<u64>,
    /// `scaling_max_freq` in kHz.
    pub max_khz: Option<u64>,
    /// `cpuinfo_min_freq` in kHz: the hardware's lowest.
    pub hw_min_khz: Option<u64>,
    /// `cpuinfo_max_freq` in kHz: the hardware's highest (with turbo).
    pub hw_max_khz: Option<u64>,
    /// `base_frequency` in kHz (Intel HWP).
    pub base_khz: Option<u64>,
    /// `amd_pstate_lowest_nonlinear_freq` in kHz: amd-pstate-epp's default
    /// `scaling_min_freq`, above `cpuinfo_min_freq` by design.
    pub lowest_nonlinear_khz: Option<u64>,
    /// Per-policy `boost` (newer amd-pstate).
    pub boost: Option<bool>,
    /// `amd_pstate_prefcore_ranking`: higher runs first.
    pub prefcore_ranking: Option<u32>,
    /// `amd_pstate_highest_perf`.
    pub highest_perf: Option<u32>,
    /// `amd_pstate_hw_prefcore`: the hardware ranks its cores (`enabled`,
    /// or `supported` on early kernels) or not (`disabled`).
    pub hw_prefcore: Option<bool>,
}

/// A cpufreq frequency file in kHz; 0 and absurd values are unknown.
fn frequency(probe: &mut Probe<'_>, rel: &str) -> Option<u64> {
    probe.parsed_plausible(rel, parse_u64, |k| plausible_khz(*k), NOT_A_FREQUENCY)
}

/// A lower and an upper bound read from two files; when the lower is above
/// the upper, neither can be trusted and both are unknown.
fn bounds(probe: &mut Probe<'_>, lo_rel: &str, hi_rel: &str) -> (Option<u64>, Option<u64>) {
    let lo = frequency(probe, lo_rel);
    let hi = frequency(probe, hi_rel);
    match (lo, hi) {
        (Some(l), Some(h)) if l > h => {
            let why = format!(
                "is above {} ({h}): a minimum cannot exceed its maximum",
                hi_rel.rsplit('/').next().unwrap_or(hi_rel)
            );
            probe.ignored.push(IgnoredValue::new(lo_rel, &l.to_string(), why));
            let why = format!(
                "is below {} ({l}): a maximum cannot be under its minimum",
                lo_rel.rsplit('/').next().unwrap_or(lo_rel)
            );
            probe.ignored.push(IgnoredValue::new(hi_rel, &h.to_string(), why));
            (None, None)
        }
        bounds => bounds,
    }
}

/// Reads `cpufreq/policyN`.
pub(super) fn read_policy(probe: &mut Probe<'_>, id: u32) -> Policy {
    let file = |attr: &str| policy_file(id, attr);
    let epp_rel = file("energy_performance_preference");
    let has_epp = probe.root().kind(&epp_rel) != EntryKind::Missing;
    let available_preferences = probe
        .parsed(&file("energy_performance_available_preferences"), parse_words)
        .unwrap_or_default()
        .iter()
        .filter_map(|w| EppName::from_kernel(w))
        .collect();
    // Some drivers print "<unknown>" for the current frequency: unknown,
    // not garbage. A number that cannot be a frequency is ignored.
    let cur_rel = file("scaling_cur_freq");
    let cur_khz = match probe.parsed_lenient(&cur_rel, parse_u64) {
        Some(khz) if !plausible_khz(khz) => {
            probe.ignored.push(IgnoredValue::new(&cur_rel, &khz.to_string(), NOT_A_FREQUENCY));
            None
        }
        khz => khz,
    };
    let (min_khz, max_khz) = bounds(probe, &file("scaling_min_freq"), &file("scaling_max_freq"));
    let (hw_min_khz, hw_max_khz) = bounds(probe, &file("cpuinfo_min_freq"), &file("cpuinfo_max_freq"));
    let perf = |probe: &mut Probe<'_>, attr: &str| {
        probe.parsed_plausible(&file(attr), parse_u32, |v| plausible_perf_level(u64::from(*v)), NOT_A_PERF_LEVEL)
    };
    Policy {
        id,
        related_cpus: probe.parsed(&file("related_cpus"), parse_cpu_list).unwrap_or_default(),
        driver: probe.parsed(&file("scaling_driver"), parse_word),
        governor: probe.parsed(&file("scaling_governor"), parse_word),
        available_governors: probe.parsed(&file("scaling_available_governors"), parse_words).unwrap_or_default(),
        epp: if has_epp { probe.parsed(&epp_rel, parse_epp) } else { None },
        has_epp,
        available_preferences,
        cur_khz,
        min_khz,
        max_khz,
        hw_min_khz,
        hw_max_khz,
        base_khz: frequency(probe, &file("base_frequency")),
        lowest_nonlinear_khz: frequency(probe, &file("amd_pstate_lowest_nonlinear_freq")),
        boost: probe.parsed(&file("boost"), parse_flag),
        prefcore_ranking: perf(probe, "amd_pstate_prefcore_ranking"),
        highest_perf: perf(probe, "amd_pstate_highest_perf"),
        // "supported" on the kernels that introduced it, "enabled" later.
        hw_prefcore: probe.parsed_lenient(&file("amd_pstate_hw_prefcore"), |t| match t.trim() {
            "enabled" | "supported" => Ok(true),
            "disabled" => Ok(false),
            _ => parse_flag(t),
        }),
    }
}

//! A plan: exactly what applying a profile writes, per CPU and globally.
//!
//! The core computes plans; the helper validates and applies them.

use serde::{Deserialize, Serialize};

use super::parse::EppName;
use super::platform::{CpuChoice, HandlerId};

/// How this machine takes an energy preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreferenceForm {
    /// intel_pstate / intel_cpufreq with HWP EPP: the decimal number, which
    /// works on every kernel with HWP EPP, also those that predate the
    /// model's own values.
    Number,
    /// amd-pstate-epp on kernels that accept only the preference names.
    Name,
    /// amd-pstate-epp on kernels that also accept raw numbers (7.1 and later).
    NameOrNumber,
    /// amd-pstate-epp with the kernel's dynamic EPP on (7.1): every EPP
    /// write is refused (EBUSY); each CPU takes `low-power`, `balanced` or
    /// `performance` through its own platform profile, and the kernel picks
    /// the balanced value by the power source.
    KernelDynamic,
    /// No EPP, but Energy Performance Bias (0..15) per CPU.
    Bias,
    /// Neither: profiles only choose a governor.
    GovernorOnly,
}

/// The energy preference written to one CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "form", content = "value")]
pub enum Preference {
    /// `energy_performance_preference` as a decimal number.
    EppNumber(u8),
    /// `energy_performance_preference` as a name.
    EppName(EppName),
    /// `power/energy_perf_bias` (0..15).
    Bias(u8),
    /// The CPU's own platform profile (amd-pstate's dynamic EPP).
    CpuProfile {
        /// The CPU's handler.
        handler: HandlerId,
        /// What it is set to.
        choice: CpuChoice,
    },
}

impl Preference {
    /// The text written to the file.
    pub fn to_kernel_text(self) -> String {
        match self {
            Preference::EppNumber(value) | Preference::Bias(value) => value.to_string(),
            Preference::EppName(name) => name.as_str().to_owned(),
            Preference::CpuProfile { choice, .. } => choice.as_str().to_owned(),
        }
    }
}

/// What one CPU gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuSetting {
    /// The CPU number.
    pub cpu: u32,
    /// Its cpufreq policy, when it has one.
    pub policy: Option<u32>,
    /// The governor to set first (EPP is refused under `performance`).
    pub governor: Option<String>,
    /// The energy preference.
    pub preference: Option<Preference>,
    /// The EPP number this means, for display (AMD names mapped to values).
    pub epp_value: Option<u8>,
    /// `scaling_min_freq` in kHz.
    pub min_khz: Option<u64>,
    /// `scaling_max_freq` in kHz.
    pub max_khz: Option<u64>,
    /// The energy bias written beside EPP where the CPU has both (as
    /// power-profiles-daemon does for built-in profiles): 0, 6 or 15.
    #[serde(default)]
    pub companion_bias: Option<u8>,
}

/// Everything a profile writes on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The profile's id.
    pub profile: String,
    /// Per online CPU.
    pub cpus: Vec<CpuSetting>,
    /// Turbo/boost on or off, through this machine's switch for it.
    pub turbo: Option<Turbo>,
    /// `intel_pstate/hwp_dynamic_boost` on or off.
    pub dynamic_boost: Option<bool>,
    /// The firmware's platform profile, per handler (written before the
    /// CPUs' files).
    #[serde(default)]
    pub platform: Vec<PlatformSetting>,
}

/// Turbo (boost) on or off, and the file that switches it here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turbo {
    /// On or off.
    pub on: bool,
    /// `intel_pstate/no_turbo`, `cpufreq/boost` or each policy's `boost`.
    pub control: super::machine::TurboControl,
    /// A refusal (per-policy `boost` on some amd-pstate machines) leaves
    /// boost as it was instead of failing the switch: true for a built-in
    /// profile's rule, false for a person's own setting.
    #[serde(default)]
    pub best_effort: bool,
}

/// What one platform profile handler gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlatformSetting {
    /// The handler.
    pub handler: HandlerId,
    /// The profile name written (one of its choices).
    pub choice: String,
}

impl Plan {
    /// The distinct EPP numbers in the plan, for a one-line summary.
    pub fn epp_values(&self) -> Vec<u8> {
        let mut values: Vec<u8> = self.cpus.iter().filter_map(|c| c.epp_value).collect();
        values.sort_unstable();
        values.dedup();
        values
    }

    /// The platform profile this plan writes, where it writes one and every
    /// handler gets the same (the usual case).
    pub fn platform_choice(&self) -> Option<&str> {
        let first = self.platform.first()?;
        self.platform.iter().all(|p| p.choice == first.choice).then_some(first.choice.as_str())
    }
}

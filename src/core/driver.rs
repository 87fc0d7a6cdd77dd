//! The cpufreq driver's kinds and modes, as the machine reads them and a
//! person chooses them: which driver runs, the mode it runs in and where
//! that was learned, the modes a person may switch to, and how turbo is
//! switched. `core::machine` re-exports them.

use serde::Serialize;

/// The cpufreq driver in charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DriverKind {
    /// `intel_pstate` in active mode: its own governors, EPP.
    IntelPstate,
    /// `intel_cpufreq`: intel_pstate in passive mode under generic governors.
    IntelCpufreq,
    /// `amd-pstate-epp`: amd-pstate active mode with EPP.
    AmdPstateEpp,
    /// `amd-pstate`: passive or guided, no EPP.
    AmdPstate,
    /// `acpi-cpufreq`: ACPI P-states.
    AcpiCpufreq,
    /// Anything else.
    Other,
}

impl DriverKind {
    /// The mode a driver name alone implies: intel_pstate registers as
    /// `intel_pstate` only in active mode and as `intel_cpufreq` only in
    /// passive mode, amd-pstate as `amd-pstate-epp` only in active mode.
    /// Plain `amd-pstate` is passive or guided, so it implies nothing.
    pub fn implied_mode(self) -> Option<&'static str> {
        match self {
            DriverKind::IntelPstate | DriverKind::AmdPstateEpp => Some("active"),
            DriverKind::IntelCpufreq => Some("passive"),
            DriverKind::AmdPstate | DriverKind::AcpiCpufreq | DriverKind::Other => None,
        }
    }

    /// Classifies a `scaling_driver` name.
    pub fn from_name(name: &str) -> DriverKind {
        match name {
            "intel_pstate" => DriverKind::IntelPstate,
            "intel_cpufreq" => DriverKind::IntelCpufreq,
            "amd-pstate-epp" => DriverKind::AmdPstateEpp,
            "amd-pstate" => DriverKind::AmdPstate,
            "acpi-cpufreq" => DriverKind::AcpiCpufreq,
            _ => DriverKind::Other,
        }
    }
}

/// Where the driver mode was learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeSource {
    /// `intel_pstate/status` or `amd_pstate/status`.
    Status,
    /// The driver's name, where it implies the mode (the status file was
    /// not there, as in snapshots that copied only a policy's files).
    Driver,
}

/// A mode of the cpufreq driver a person may choose (`intel_pstate/status`,
/// `amd_pstate/status`). The kernel also takes `off` and `disable`, which
/// leave the machine without frequency control: not offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DriverMode {
    /// The CPU picks its frequencies, guided by EPP.
    Active,
    /// A kernel governor picks them.
    Passive,
    /// A kernel governor sets limits, the CPU picks between them (amd-pstate).
    Guided,
}

impl DriverMode {
    /// Every mode, in the order they are offered.
    pub const ALL: [DriverMode; 3] = [DriverMode::Active, DriverMode::Passive, DriverMode::Guided];
    /// Their words, as the kernel's file and the command line take them.
    pub const WORDS: [&'static str; 3] = ["active", "passive", "guided"];

    /// The kernel's word.
    pub fn as_str(self) -> &'static str {
        Self::WORDS[self as usize]
    }

    /// The mode as the window's list shows it, in the reader's language
    /// (the kernel's word stays in commands and JSON).
    pub fn label(self) -> crate::i18n::Text {
        match self {
            // Translators: a cpufreq driver's mode (intel_pstate, amd-pstate): the CPU picks its frequencies.
            DriverMode::Active => crate::i18n::i18n_text("active"),
            // Translators: a cpufreq driver's mode: a kernel governor picks the frequencies.
            DriverMode::Passive => crate::i18n::i18n_text("passive"),
            // Translators: amd-pstate's mode: the governor sets limits, the CPU picks between them.
            DriverMode::Guided => crate::i18n::i18n_text("guided"),
        }
    }

    /// The mode a word names.
    pub fn from_word(word: &str) -> Option<DriverMode> {
        Self::ALL.into_iter().find(|m| m.as_str() == word)
    }
}

impl std::fmt::Display for DriverMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The file that switches the driver's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeControl {
    /// `intel_pstate/status`: active or passive.
    IntelStatus,
    /// `amd_pstate/status`: active, passive or guided.
    AmdStatus,
}

impl ModeControl {
    /// The global file, relative to the CPU directory.
    pub fn file(self) -> &'static str {
        match self {
            ModeControl::IntelStatus => "intel_pstate/status",
            ModeControl::AmdStatus => "amd_pstate/status",
        }
    }

    /// The modes a person may choose here.
    pub fn modes(self) -> &'static [DriverMode] {
        match self {
            ModeControl::IntelStatus => &[DriverMode::Active, DriverMode::Passive],
            ModeControl::AmdStatus => &DriverMode::ALL,
        }
    }
}

/// How turbo (boost) is switched, if it can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurboControl {
    /// `intel_pstate/no_turbo` (inverted: 1 means turbo off).
    IntelNoTurbo,
    /// `cpufreq/boost`.
    GlobalBoost,
    /// Per-policy `boost` files.
    PolicyBoost,
}

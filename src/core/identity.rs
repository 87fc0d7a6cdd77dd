//! Which CPU this is: vendor, family, model, brand and the power-management
//! features that decide how Gearshift can steer it.
//!
//! On the live machine the answer comes from the CPUID instruction and is
//! cross-checked with `/proc/cpuinfo` (`cpuid.rs` reads it and picks the
//! source); under a snapshot root it comes from the snapshot's
//! `proc/cpuinfo`. This module only describes and parses.

use std::collections::BTreeMap;

use serde::Serialize;

use super::cpuinfo::CpuInfoEntry;

/// The CPU maker, as far as Gearshift treats them differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD` (and `HygonGenuine`, which runs the same drivers).
    Amd,
    /// Anything else, or unknown.
    Other,
}

impl Vendor {
    /// The vendor for a CPUID vendor string.
    pub fn from_vendor_id(id: &str) -> Vendor {
        match id {
            "GenuineIntel" => Vendor::Intel,
            "AuthenticAMD" | "HygonGenuine" => Vendor::Amd,
            _ => Vendor::Other,
        }
    }

    /// The lowercase name used in the model table.
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Intel => "intel",
            Vendor::Amd => "amd",
            Vendor::Other => "other",
        }
    }
}

/// A hybrid CPU's kinds of cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CoreType {
    /// A P-core ("Core" in CPUID leaf 0x1A).
    Performance,
    /// An E-core ("Atom" in CPUID leaf 0x1A), including low-power E-cores.
    Efficiency,
}

impl CoreType {
    /// Decodes CPUID leaf 0x1A EAX (core type in bits 31..24).
    pub fn from_leaf_1a(eax: u32) -> Option<CoreType> {
        match eax >> 24 {
            0x40 => Some(CoreType::Performance),
            0x20 => Some(CoreType::Efficiency),
            _ => None,
        }
    }
}

/// Where the identity came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IdentitySource {
    /// The CPUID instruction on this machine.
    Cpuid,
    /// `proc/cpuinfo` under the root.
    Cpuinfo,
    /// Neither was available.
    Unknown,
}

/// Power-management features; `None` where it cannot be known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CpuFeatures {
    /// Intel Hardware P-states (HWP, Speed Shift).
    pub hwp: Option<bool>,
    /// HWP with an energy performance preference field.
    pub hwp_epp: Option<bool>,
    /// Energy Performance Bias (the pre-HWP hint, 0..15).
    pub epb: Option<bool>,
    /// AMD Collaborative Processor Performance Control in MSRs.
    pub cppc: Option<bool>,
    /// AMD Fast CPPC (shorter frequency transition delay).
    pub fast_cppc: Option<bool>,
    /// Running under a hypervisor.
    pub hypervisor: Option<bool>,
}

/// The CPU's identity and features.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CpuIdentity {
    /// The vendor string, such as `GenuineIntel`.
    pub vendor_id: Option<String>,
    /// The vendor as Gearshift groups them.
    pub vendor: Vendor,
    /// Display family (base plus extended family).
    pub family: Option<u32>,
    /// Display model (with the extended model bits).
    pub model: Option<u32>,
    /// Stepping.
    pub stepping: Option<u32>,
    /// The brand string.
    pub model_name: Option<String>,
    /// A CPU with two kinds of cores.
    pub hybrid: bool,
    /// Power-management features.
    pub features: CpuFeatures,
    /// Where this came from.
    pub source: IdentitySource,
    /// Per-CPU core types read with CPUID leaf 0x1A (live hybrid CPUs only).
    #[serde(skip)]
    pub cpuid_core_types: BTreeMap<u32, CoreType>,
    /// Disagreements between CPUID and `/proc/cpuinfo`, in words.
    pub notes: Vec<String>,
}

impl CpuIdentity {
    /// An identity with nothing known.
    pub fn unknown() -> Self {
        CpuIdentity {
            vendor_id: None,
            vendor: Vendor::Other,
            family: None,
            model: None,
            stepping: None,
            model_name: None,
            hybrid: false,
            features: CpuFeatures::default(),
            source: IdentitySource::Unknown,
            cpuid_core_types: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// The identity `/proc/cpuinfo` gives (from its first processor).
    pub fn from_cpuinfo(entries: &[CpuInfoEntry]) -> Self {
        let Some(first) = entries.first() else {
            return CpuIdentity::unknown();
        };
        // No flags line (a partial copy): every feature is unknown.
        let flag = |name: &str| first.flag(name);
        let vendor_id = first.vendor_id.clone();
        let vendor = vendor_id.as_deref().map_or(Vendor::Other, Vendor::from_vendor_id);
        let x86 = vendor_id.is_some();
        CpuIdentity {
            vendor_id,
            vendor,
            family: first.family,
            model: first.model,
            stepping: first.stepping,
            model_name: first.model_name.clone(),
            hybrid: first.has_flag("hybrid_cpu"),
            features: CpuFeatures {
                hwp: flag("hwp").filter(|_| x86),
                hwp_epp: flag("hwp_epp").filter(|_| x86),
                epb: flag("epb").filter(|_| x86),
                cppc: if vendor == Vendor::Amd { flag("cppc") } else { None },
                // Only newer kernels name this flag; its absence proves nothing.
                fast_cppc: first.has_flag("fast_cppc").then_some(true),
                hypervisor: flag("hypervisor").filter(|_| x86),
            },
            source: IdentitySource::Cpuinfo,
            cpuid_core_types: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// A short line such as "family 6 model 170 (0xAA)".
    pub fn family_model_text(&self) -> crate::i18n::Text {
        use crate::i18n::i18n_text;
        match (self.family, self.model) {
            // Translators: CPUID family and model numbers, then the model in hex.
            (Some(family), Some(model)) => i18n_text("family {family} model {model} (0x{hex})")
                .arg("family", family)
                .arg("model", model)
                .arg("hex", format!("{model:02X}")),
            _ => i18n_text("unknown family and model"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cpuinfo::parse_cpuinfo;

    #[test]
    fn from_cpuinfo_intel_and_amd() {
        let intel = parse_cpuinfo(
            "processor : 0\nvendor_id : GenuineIntel\ncpu family : 6\nmodel : 170\nflags : hwp hwp_epp epb hybrid_cpu\n",
        )
        .unwrap();
        let id = CpuIdentity::from_cpuinfo(&intel);
        assert_eq!(id.vendor, Vendor::Intel);
        assert!(id.hybrid);
        assert_eq!(id.features.hwp_epp, Some(true));
        assert_eq!(id.features.cppc, None);
        assert_eq!(id.family_model_text().english(), "family 6 model 170 (0xAA)");

        let amd =
            parse_cpuinfo("processor : 0\nvendor_id : AuthenticAMD\ncpu family : 25\nmodel : 116\nflags : cppc\n")
                .unwrap();
        let id = CpuIdentity::from_cpuinfo(&amd);
        assert_eq!(id.vendor, Vendor::Amd);
        assert_eq!(id.features.cppc, Some(true));
        assert_eq!(id.features.hwp, Some(false));
        assert_eq!(id.features.fast_cppc, None);
        assert!(!id.hybrid);
    }

    #[test]
    fn cpuinfo_without_flags_leaves_features_unknown() {
        // A Haswell-EP as a report gave it: family, model, stepping, no flags.
        let partial =
            parse_cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 63\nstepping\t: 4\n")
                .unwrap();
        let id = CpuIdentity::from_cpuinfo(&partial);
        assert_eq!((id.family, id.model, id.stepping), (Some(6), Some(63), Some(4)));
        assert_eq!(id.features, CpuFeatures::default(), "no flags shown: nothing is known, nothing is 'no'");
        assert!(!id.hybrid);
    }

    #[test]
    fn core_type_from_leaf() {
        assert_eq!(CoreType::from_leaf_1a(0x4000_0001), Some(CoreType::Performance));
        assert_eq!(CoreType::from_leaf_1a(0x2000_0001), Some(CoreType::Efficiency));
        assert_eq!(CoreType::from_leaf_1a(0), None);
    }
}

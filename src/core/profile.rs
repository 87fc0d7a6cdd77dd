//! Profiles and what they mean on this machine.
//!
//! The four built-in profiles carry the kernel's preference names. A
//! [`Resolver`] turns a profile into a [`Plan`] for the machine at hand:
//! the model table's EPP value, the form the driver takes it in, and the
//! governor (see docs/interfaces.md, "Profiles").

use serde::Serialize;

use super::identity::{CoreType, Vendor};
use super::machine::{DriverKind, Machine, Policy};
use super::models::{ModelMatch, ModelTable};
use super::parse::{EppName, EppReading, KernelVersion};
use super::plan::{CpuSetting, Plan, PlatformSetting, Preference, PreferenceForm, Turbo};
use super::platform::{choice_for, CpuChoice, PlatformProfile, Wanted};
use crate::i18n::{i18n_text, Text};

/// The first kernel whose amd-pstate accepts raw EPP numbers.
pub const AMD_RAW_EPP_KERNEL: KernelVersion = KernelVersion::new(7, 1, 0);

/// The profile holds put in effect: Power Saver wins over Performance,
/// whatever their order (as power-profiles-daemon resolves them); none
/// without a hold. The helper applies it, and every view names its holders.
pub fn winning_hold(held: impl IntoIterator<Item = BuiltinProfile>) -> Option<BuiltinProfile> {
    held.into_iter().fold(None, |winner, profile| match (winner, profile) {
        (Some(BuiltinProfile::Power), _) | (_, BuiltinProfile::Power) => Some(BuiltinProfile::Power),
        _ => Some(BuiltinProfile::Performance),
    })
}

/// One of the four built-in profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinProfile {
    /// EPP `performance`.
    Performance,
    /// EPP `balance_performance`: the everyday default.
    BalancePerformance,
    /// EPP `balance_power`.
    BalancePower,
    /// EPP `power`.
    Power,
}

impl BuiltinProfile {
    /// All four, fastest first.
    pub const ALL: [BuiltinProfile; 4] = [
        BuiltinProfile::Performance,
        BuiltinProfile::BalancePerformance,
        BuiltinProfile::BalancePower,
        BuiltinProfile::Power,
    ];

    /// The profile id, which is the kernel's preference name.
    pub fn id(self) -> &'static str {
        self.epp_name().as_str()
    }

    /// Parses a profile id.
    pub fn from_id(id: &str) -> Option<BuiltinProfile> {
        Self::ALL.into_iter().find(|p| p.id() == id)
    }

    /// The preference name behind the profile.
    pub fn epp_name(self) -> EppName {
        match self {
            BuiltinProfile::Performance => EppName::Performance,
            BuiltinProfile::BalancePerformance => EppName::BalancePerformance,
            BuiltinProfile::BalancePower => EppName::BalancePower,
            BuiltinProfile::Power => EppName::Power,
        }
    }

    /// The name people see (English in JSON, translated where shown).
    pub fn name(self) -> Text {
        match self {
            BuiltinProfile::Performance => i18n_text("Performance"),
            BuiltinProfile::BalancePerformance => i18n_text("Balanced"),
            BuiltinProfile::BalancePower => i18n_text("Efficient"),
            BuiltinProfile::Power => i18n_text("Power Saver"),
        }
    }

    /// What the profile asks of the firmware's platform profile (the
    /// mapping power-profiles-daemon uses: both balanced profiles are
    /// `balanced`).
    pub fn platform_wanted(self) -> Wanted {
        match self {
            BuiltinProfile::Performance => Wanted::Performance,
            BuiltinProfile::BalancePerformance | BuiltinProfile::BalancePower => Wanted::Balanced,
            BuiltinProfile::Power => Wanted::LowPower,
        }
    }

    /// The other way: the built-in profile that asks the firmware for
    /// `wanted` (Balanced for `balanced`).
    pub fn for_platform(wanted: Wanted) -> BuiltinProfile {
        match wanted {
            Wanted::Performance => BuiltinProfile::Performance,
            Wanted::Balanced => BuiltinProfile::BalancePerformance,
            Wanted::LowPower => BuiltinProfile::Power,
        }
    }

    /// Energy Performance Bias for CPUs without EPP (intel_epb.rst).
    pub fn energy_bias(self) -> u8 {
        match self {
            BuiltinProfile::Performance => 0,
            BuiltinProfile::BalancePerformance => 4,
            BuiltinProfile::BalancePower => 8,
            BuiltinProfile::Power => 15,
        }
    }
}

mod matching;

/// The command that turns amd-pstate's dynamic EPP off until the next boot
/// (the boot option `amd_dynamic_epp=disable` keeps it off).
pub const DYNAMIC_EPP_OFF: &str = "echo disabled | sudo tee /sys/devices/system/cpu/amd_pstate/dynamic_epp";

/// Resolves profiles for one machine.
#[derive(Debug, Clone)]
pub struct Resolver<'a> {
    /// The machine.
    pub machine: &'a Machine,
    /// The model table's row for its CPU (or the vendor's generic values).
    pub model: Option<ModelMatch>,
    /// How it takes an energy preference.
    pub form: PreferenceForm,
    /// The CPU's maker: from the CPU's identity, or, where a snapshot has
    /// no cpuinfo, from the driver's name.
    pub vendor: Vendor,
}

impl<'a> Resolver<'a> {
    /// A resolver for `machine` using `table`.
    pub fn new(machine: &'a Machine, table: &ModelTable) -> Self {
        let mut identity = machine.identity.clone();
        if identity.vendor == Vendor::Other {
            // A snapshot without cpuinfo: the driver still tells the vendor.
            identity.vendor = match machine.driver_kind() {
                Some(DriverKind::IntelPstate | DriverKind::IntelCpufreq) => Vendor::Intel,
                Some(DriverKind::AmdPstate | DriverKind::AmdPstateEpp) => Vendor::Amd,
                _ => Vendor::Other,
            };
        }
        Resolver { machine, model: table.lookup(&identity), form: preference_form(machine), vendor: identity.vendor }
    }

    /// The EPP number this machine gets for a preference name, where EPP
    /// (or, for display, its AMD name) is supported.
    pub fn epp_for(&self, name: EppName) -> Option<u8> {
        match self.form {
            PreferenceForm::Number | PreferenceForm::Name | PreferenceForm::NameOrNumber => {
                self.model.as_ref().and_then(|m| m.epp.get(name))
            }
            // The kernel's own: 0 and 255 through the CPUs' platform
            // profiles; the balanced value is the kernel's choice.
            PreferenceForm::KernelDynamic => CpuChoice::for_epp_name(name).epp(),
            PreferenceForm::Bias | PreferenceForm::GovernorOnly => None,
        }
    }

    /// The value the kernel of this machine would use for a name.
    pub fn kernel_epp_for(&self, name: EppName) -> Option<u8> {
        self.model.as_ref()?.kernel_values(self.machine.kernel)?.get(name)
    }

    /// The number behind what `energy_performance_preference` shows, where
    /// it can be known (a name is looked up in this kernel's values).
    pub fn reading_value(&self, reading: EppReading) -> Option<u8> {
        match reading {
            EppReading::Value(value) => Some(value),
            EppReading::Name(name) => {
                let model = self.model.as_ref()?;
                let values = if self.machine.identity.vendor == Vendor::Amd || self.form != PreferenceForm::Number {
                    Some(model.generic)
                } else {
                    model.kernel_values(self.machine.kernel)
                };
                values?.get(name)
            }
        }
    }

    /// The preference written for a built-in profile.
    fn preference(&self, profile: BuiltinProfile) -> Option<Preference> {
        let name = profile.epp_name();
        match self.form {
            // A model Intel tuned: its number, which also older kernels
            // take. Any other CPU (one not in the table, a snapshot without
            // cpuinfo): the name, as power-profiles-daemon writes it, so that
            // the kernel's own table applies where it knows the model
            // better than we do (docs/interfaces.md, "Profiles").
            PreferenceForm::Number if self.model.as_ref().is_some_and(|m| m.model_specific) => {
                self.epp_for(name).map(Preference::EppNumber)
            }
            PreferenceForm::Number | PreferenceForm::Name | PreferenceForm::NameOrNumber => {
                Some(Preference::EppName(name))
            }
            PreferenceForm::Bias => Some(Preference::Bias(profile.energy_bias())),
            // Per CPU: see [`Resolver::cpu_preference`].
            PreferenceForm::KernelDynamic | PreferenceForm::GovernorOnly => None,
        }
    }

    /// The preference one CPU gets for a built-in profile: the shared one,
    /// or, under dynamic EPP, its own platform profile's choice.
    fn cpu_preference(&self, cpu: u32, shared: Option<Preference>, profile: BuiltinProfile) -> Option<Preference> {
        if self.form != PreferenceForm::KernelDynamic {
            return shared.filter(|pref| self.cpu_takes(cpu, *pref));
        }
        let choice = CpuChoice::for_epp_name(profile.epp_name());
        let handler = self.machine.cpu_profiles.iter().find(|h| h.cpu == cpu)?;
        handler
            .choices
            .iter()
            .any(|c| c == choice.as_str())
            .then_some(Preference::CpuProfile { handler: handler.id, choice })
    }

    /// The plan for a built-in profile.
    pub fn builtin(&self, profile: BuiltinProfile) -> Plan {
        let preference = self.preference(profile);
        let epp_value = self.epp_for(profile.epp_name());
        let amd = amd_active(self.machine);
        let cpus = self
            .machine
            .cpus
            .iter()
            .filter(|c| c.online)
            .filter(|c| c.policy.is_some() || (self.form == PreferenceForm::Bias && c.energy_perf_bias.is_some()))
            .map(|cpu| {
                let policy = self.machine.policy_of(cpu);
                CpuSetting {
                    cpu: cpu.id,
                    policy: cpu.policy,
                    governor: policy.and_then(|p| default_governor(self.machine, p, profile)),
                    preference: self.cpu_preference(cpu.id, preference, profile),
                    epp_value: epp_value.filter(|_| policy.is_some_and(|p| p.has_epp)),
                    min_khz: policy.filter(|_| amd).and_then(|p| amd_min_khz(p, profile)),
                    max_khz: None,
                    companion_bias: companion_bias(profile)
                        .filter(|_| cpu.energy_perf_bias.is_some() && policy.is_some_and(|p| p.has_epp)),
                }
            })
            .collect();
        // AMD's rule in power-profiles-daemon (0.22): boost off in Power
        // Saver only.
        let turbo = self.machine.turbo.filter(|_| amd).map(|(_, control)| Turbo {
            on: profile != BuiltinProfile::Power,
            control,
            best_effort: true,
        });
        Plan {
            profile: profile.id().to_owned(),
            cpus,
            turbo,
            dynamic_boost: None,
            platform: self.platform_for(profile.platform_wanted()),
        }
    }

    /// The platform profile settings that ask each handler for `wanted`
    /// (empty without a platform profile, or where no handler offers it).
    pub fn platform_for(&self, wanted: Wanted) -> Vec<PlatformSetting> {
        let Some(platform) = &self.machine.platform_profile else { return Vec::new() };
        platform
            .handlers
            .iter()
            .filter_map(|h| choice_for(&h.choices, wanted).map(|choice| PlatformSetting { handler: h.id, choice }))
            .collect()
    }

    /// The same name for every handler (a custom profile's choice,
    /// validated against the choices they share).
    pub fn platform_exactly(&self, choice: &str) -> Vec<PlatformSetting> {
        let Some(platform) = &self.machine.platform_profile else { return Vec::new() };
        platform
            .handlers
            .iter()
            .filter_map(|h| {
                PlatformProfile::choice_of(h, choice).map(|choice| PlatformSetting { handler: h.id, choice })
            })
            .collect()
    }

    /// Whether a CPU has the file a preference is written to.
    pub fn cpu_takes(&self, cpu: u32, preference: Preference) -> bool {
        let Some(cpu) = self.machine.cpu(cpu) else { return false };
        match preference {
            Preference::Bias(_) => cpu.energy_perf_bias.is_some(),
            Preference::EppNumber(_) | Preference::EppName(_) => self.machine.policy_of(cpu).is_some_and(|p| p.has_epp),
            Preference::CpuProfile { handler, .. } => {
                self.machine.cpu_profiles.iter().any(|h| h.cpu == cpu.id && h.id == handler)
            }
        }
    }

    /// The EPP a CPU of a given core type would get from a per-type setting.
    pub fn core_type_of(&self, cpu: u32) -> Option<CoreType> {
        self.machine.cpu(cpu).and_then(|c| c.core_type)
    }
}

/// The energy bias power-profiles-daemon writes beside EPP: 0 for
/// performance, the kernel's default 6 for both balanced profiles, 15 for
/// power saving (where EPB is the only lever, [`BuiltinProfile::energy_bias`]
/// is used instead).
fn companion_bias(profile: BuiltinProfile) -> Option<u8> {
    Some(match profile {
        BuiltinProfile::Performance => 0,
        BuiltinProfile::BalancePerformance | BuiltinProfile::BalancePower => 6,
        BuiltinProfile::Power => 15,
    })
}

/// amd-pstate in active mode (amd-pstate-epp), where built-in profiles
/// follow AMD's own choices for power-profiles-daemon 0.22: the
/// `performance` governor in Performance, boost off in Power Saver, and
/// `scaling_min_freq` at the lowest non-linear frequency outside Power
/// Saver (docs/interfaces.md, "Profiles").
fn amd_active(machine: &Machine) -> bool {
    machine.driver_kind() == Some(DriverKind::AmdPstateEpp)
}

/// `scaling_min_freq` for a built-in profile on amd-pstate-epp: the
/// hardware's lowest in Power Saver, the lowest non-linear frequency (the
/// driver's own default) otherwise; nothing where the policy does not say.
fn amd_min_khz(policy: &Policy, profile: BuiltinProfile) -> Option<u64> {
    if profile == BuiltinProfile::Power {
        policy.hw_min_khz
    } else {
        policy.lowest_nonlinear_khz
    }
}

/// amd-pstate outside its active mode: no EPP, whatever files a machine
/// shows (the kernel offers none there; a stale one is not written).
fn amd_not_active(machine: &Machine) -> bool {
    matches!(machine.driver_kind(), Some(DriverKind::AmdPstate))
        || (machine.mode_control == Some(super::machine::ModeControl::AmdStatus)
            && machine.mode.as_deref().is_some_and(|m| m != "active"))
}

/// How `machine` takes an energy preference (the table in docs/interfaces.md).
pub fn preference_form(machine: &Machine) -> PreferenceForm {
    if machine.epp_supported() && !amd_not_active(machine) {
        return match machine.driver_kind() {
            Some(DriverKind::IntelPstate | DriverKind::IntelCpufreq) => PreferenceForm::Number,
            _ if machine.dynamic_epp == Some(true) => PreferenceForm::KernelDynamic,
            _ if machine.kernel.is_some_and(|k| k >= AMD_RAW_EPP_KERNEL) => PreferenceForm::NameOrNumber,
            // Names are what every EPP driver accepts.
            _ => PreferenceForm::Name,
        };
    }
    if machine.identity.vendor != Vendor::Amd && machine.epb_supported() {
        return PreferenceForm::Bias;
    }
    PreferenceForm::GovernorOnly
}

/// The governor a built-in profile uses on a policy: `powersave` where the
/// driver runs its own algorithm (intel_pstate active, amd-pstate-epp, where
/// `performance` would lock EPP at 0 and refuse other values with EBUSY);
/// otherwise the generic governor closest to the profile's intent.
pub fn default_governor(machine: &Machine, policy: &Policy, profile: BuiltinProfile) -> Option<String> {
    let own_algorithm = matches!(machine.driver_kind(), Some(DriverKind::IntelPstate | DriverKind::AmdPstateEpp));
    if amd_active(machine)
        && profile == BuiltinProfile::Performance
        && (policy.available_governors.is_empty() || policy.available_governors.iter().any(|g| g == "performance"))
    {
        // AMD's choice: EPP is `performance` anyway, which the kernel
        // takes under this governor.
        return Some("performance".to_owned());
    }
    if own_algorithm && policy.available_governors.is_empty() {
        // These drivers always offer exactly performance and powersave; a
        // snapshot that did not copy the list still runs under one of them.
        return Some("powersave".to_owned());
    }
    let wanted: &[&str] = if own_algorithm {
        &["powersave"]
    } else {
        match profile {
            BuiltinProfile::Performance => &["performance"],
            BuiltinProfile::BalancePerformance => &["schedutil", "ondemand"],
            BuiltinProfile::BalancePower => &["schedutil", "conservative", "ondemand"],
            BuiltinProfile::Power => &["powersave", "conservative"],
        }
    };
    wanted.iter().find(|g| policy.available_governors.iter().any(|a| a == *g)).map(|g| (*g).to_owned())
}

#[cfg(test)]
mod tests {
    use super::{winning_hold, BuiltinProfile::*};

    #[test]
    fn power_saver_wins_over_performance_in_any_order() {
        assert_eq!(winning_hold([]), None);
        assert_eq!(winning_hold([Performance, Performance]), Some(Performance));
        assert_eq!(winning_hold([Performance, Power, Performance]), Some(Power));
        assert_eq!(winning_hold([Power, Performance]), Some(Power));
    }
}

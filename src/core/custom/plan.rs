//! A custom profile resolved against the machine: the plan it writes here,
//! or the first field this machine cannot honour.

use super::{check_shape, epp_fields, error, mhz, CustomProfile, EppSetting, Field, ProfileError};
use crate::core::identity::CoreType;
use crate::core::machine::DriverKind;
use crate::core::parse::EppName;
use crate::core::plan::{CpuSetting, Plan, Preference, PreferenceForm};
use crate::core::profile::{BuiltinProfile, Resolver};
use crate::i18n::{i18n_text, Text};

impl Resolver<'_> {
    /// The plan for a custom profile on this machine.
    ///
    /// # Errors
    /// A [`ProfileError`] naming the first field this machine cannot honour.
    pub fn custom(&self, profile: &CustomProfile) -> Result<Plan, ProfileError> {
        check_shape(profile)?;
        let machine = self.machine;
        self.check_epp_fields(profile)?;
        let per_type = |core: Option<CoreType>| -> Option<(Field, &EppSetting)> {
            let specific = match core {
                Some(CoreType::Performance) => {
                    profile.epp_performance_cores.as_ref().map(|s| (Field::EppPerformanceCores, s))
                }
                Some(CoreType::Efficiency) => {
                    profile.epp_efficiency_cores.as_ref().map(|s| (Field::EppEfficiencyCores, s))
                }
                None => None,
            };
            specific.or(profile.epp.as_ref().map(|s| (Field::Epp, s)))
        };

        let own_algorithm = matches!(machine.driver_kind(), Some(DriverKind::IntelPstate | DriverKind::AmdPstateEpp));
        let mut cpus = Vec::new();
        for cpu in machine.cpus.iter().filter(|c| c.online) {
            let Some(policy) = machine.policy_of(cpu) else { continue };
            let governor = match &profile.governor {
                Some(g) if policy.available_governors.iter().any(|a| a == g) => Some(g.clone()),
                Some(g) => {
                    let offered = policy.available_governors.join(", ");
                    return Err(error(
                        profile,
                        Field::Governor,
                        i18n_text("CPU {cpu} offers {offered}, not {value}")
                            .arg("cpu", cpu.id)
                            .arg("offered", offered)
                            .arg("value", crate::core::parse::quote(g)),
                    ));
                }
                None => crate::core::profile::default_governor(machine, policy, BuiltinProfile::BalancePerformance),
            };
            let (preference, epp_value) = match per_type(cpu.core_type) {
                Some((field, setting)) => {
                    let (pref, value) = self.epp_preference(profile, field, setting)?;
                    if own_algorithm && governor.as_deref() == Some("performance") && value > 0 {
                        return Err(error(
                            profile,
                            Field::Governor,
                            i18n_text("the performance governor locks EPP at 0: the kernel refuses any other value (EBUSY). Use powersave with this EPP"),
                        ));
                    }
                    (Some(pref), Some(value))
                }
                None => (None, None),
            };
            let (min_khz, max_khz) = self.frequency_limits(profile, policy)?;
            // The bias alone where there is no EPP; beside EPP otherwise.
            let (preference, companion_bias) = match (profile.energy_bias, cpu.energy_perf_bias) {
                (Some(bias), Some(_)) if self.form == PreferenceForm::Bias => (Some(Preference::Bias(bias)), None),
                (Some(bias), Some(_)) => (preference, Some(bias)),
                _ => (preference, None),
            };
            cpus.push(CpuSetting {
                cpu: cpu.id,
                policy: cpu.policy,
                governor,
                preference,
                epp_value,
                min_khz,
                max_khz,
                companion_bias,
            });
        }
        check_switches(machine, profile)?;
        let platform = self.custom_platform(profile)?;
        Ok(Plan {
            profile: profile.id.clone(),
            cpus,
            turbo: profile.turbo.zip(machine.turbo).map(|(on, (_, control))| crate::core::plan::Turbo {
                on,
                control,
                best_effort: false,
            }),
            dynamic_boost: profile.dynamic_boost,
            platform,
        })
    }

    /// Refuses EPP where this machine takes none, and per-kind EPP on a
    /// CPU with one kind of core.
    fn check_epp_fields(&self, profile: &CustomProfile) -> Result<(), ProfileError> {
        let machine = self.machine;
        let hybrid = machine.is_hybrid();
        let wants_epp = epp_fields(profile).iter().any(|(_, s)| s.is_some());
        if wants_epp
            && !matches!(self.form, PreferenceForm::Number | PreferenceForm::Name | PreferenceForm::NameOrNumber)
        {
            let field = epp_fields(profile).iter().find(|(_, s)| s.is_some()).map_or(Field::Epp, |(f, _)| *f);
            return Err(error(profile, field, no_epp_reason(self)));
        }
        if !hybrid {
            for field in [Field::EppPerformanceCores, Field::EppEfficiencyCores] {
                let set = epp_fields(profile).iter().any(|(f, s)| *f == field && s.is_some());
                if set {
                    return Err(error(
                        profile,
                        field,
                        i18n_text("this CPU has only one kind of core: set the energy preference for all cores"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The firmware's platform profile the custom profile sets: its own
    /// choice where the firmware offers it, else Balanced's.
    fn custom_platform(
        &self,
        profile: &CustomProfile,
    ) -> Result<Vec<crate::core::plan::PlatformSetting>, ProfileError> {
        let machine = self.machine;
        Ok(match (&profile.platform_profile, &machine.platform_profile) {
            (None, _) => self.platform_for(BuiltinProfile::BalancePerformance.platform_wanted()),
            (Some(choice), Some(platform)) if platform.custom_choices().contains(choice) => {
                self.platform_exactly(choice)
            }
            (Some(choice), Some(platform)) => {
                return Err(error(
                    profile,
                    Field::PlatformProfile,
                    i18n_text("the firmware offers {offered}, not {value}")
                        .arg("offered", platform.custom_choices().join(", "))
                        .arg("value", crate::core::parse::quote(choice)),
                ))
            }
            (Some(_), None) => {
                return Err(error(profile, Field::PlatformProfile, i18n_text("this machine has no platform profile")))
            }
        })
    }

    fn epp_preference(
        &self,
        profile: &CustomProfile,
        field: Field,
        setting: &EppSetting,
    ) -> Result<(Preference, u8), ProfileError> {
        let model = self.model.as_ref();
        match (setting, self.form) {
            (EppSetting::Value(value), PreferenceForm::Number | PreferenceForm::NameOrNumber) => {
                Ok((Preference::EppNumber(*value), *value))
            }
            (EppSetting::Value(value), _) => {
                // Old amd-pstate takes names only: a value that is a name's
                // generic value is fine, anything else cannot be written.
                let name = model.and_then(|m| m.generic.name_of(*value));
                match name {
                    Some(name) => Ok((Preference::EppName(name), *value)),
                    None => Err(error(
                        profile,
                        field,
                        i18n_text("this kernel's amd-pstate accepts only the preference names (raw values come with Linux 7.1): use performance, balance_performance, balance_power or power, or their numbers 0, 128, 191 or 255, not {value}")
                            .arg("value", value),
                    )),
                }
            }
            (EppSetting::Name(text), form) => {
                let name = EppName::from_kernel(text).unwrap_or(EppName::BalancePerformance);
                let value = self.epp_for(name).unwrap_or(0);
                let pref = if form == PreferenceForm::Number {
                    Preference::EppNumber(value)
                } else {
                    Preference::EppName(name)
                };
                Ok((pref, value))
            }
        }
    }

    fn frequency_limits(
        &self,
        profile: &CustomProfile,
        policy: &crate::core::machine::Policy,
    ) -> Result<(Option<u64>, Option<u64>), ProfileError> {
        let machine = self.machine;
        let lowest = machine.policies.values().filter_map(|p| p.hw_min_khz).min();
        let highest = machine.policies.values().filter_map(|p| p.hw_max_khz).max();
        let check = |field: Field, value: Option<u64>| -> Result<Option<u64>, ProfileError> {
            let Some(value) = value else { return Ok(None) };
            match (lowest, highest) {
                (Some(lo), Some(hi)) if (lo..=hi).contains(&value) => {
                    // Each policy gets the value clamped to its own range
                    // (E-cores top out lower than P-cores).
                    let lo = policy.hw_min_khz.unwrap_or(lo);
                    let hi = policy.hw_max_khz.unwrap_or(hi);
                    Ok(Some(value.clamp(lo, hi.max(lo))))
                }
                (Some(lo), Some(hi)) => Err(error(
                    profile,
                    field,
                    // Translators: frequencies in MHz.
                    i18n_text("{value} MHz is outside what this CPU can run at, {lowest} to {highest} MHz")
                        .arg("value", mhz(value))
                        .arg("lowest", mhz(lo))
                        .arg("highest", mhz(hi)),
                )),
                _ => Err(error(profile, field, i18n_text("this machine does not show its frequency range"))),
            }
        };
        Ok((check(Field::MinKhz, profile.min_khz)?, check(Field::MaxKhz, profile.max_khz)?))
    }
}

/// Why the machine takes no EPP, in a sentence (English in errors, which
/// are data; the user side may show it translated).
pub fn no_epp_reason(resolver: &Resolver<'_>) -> Text {
    let machine = resolver.machine;
    if resolver.form == PreferenceForm::KernelDynamic {
        return dynamic_epp_reason();
    }
    match (machine.driver.as_deref(), machine.mode.as_deref()) {
        (None, _) => i18n_text("this machine has no cpufreq driver (a virtual machine?), so there is no EPP to set"),
        (Some("amd-pstate"), mode) => i18n_text(
            "amd-pstate runs in {mode} mode, which has no EPP; active mode (amd_pstate=active on the kernel command line) has it",
        )
        .arg("mode", mode.unwrap_or("passive")),
        (Some(driver), _) => {
            i18n_text("the {driver} driver offers no energy performance preference on this CPU").arg("driver", driver)
        }
    }
}
/// Why a value of one's own cannot be set while amd-pstate's dynamic EPP
/// is on, and how to turn it off (docs/kernels.md, "Dynamic EPP").
pub fn dynamic_epp_reason() -> Text {
    // Translators: {command} is a shell command.
    i18n_text("the kernel's dynamic EPP is on (amd-pstate): it sets EPP itself and refuses every other value. To use your own values, turn it off: {command} (or boot with amd_dynamic_epp=disable)")
        .arg("command", crate::core::profile::DYNAMIC_EPP_OFF)
}

/// Refuses the energy bias, turbo and dynamic boost where this machine has
/// no such switch.
fn check_switches(machine: &crate::core::machine::Machine, profile: &CustomProfile) -> Result<(), ProfileError> {
    if profile.energy_bias.is_some() && !machine.cpus.iter().any(|c| c.online && c.energy_perf_bias.is_some()) {
        return Err(error(profile, Field::EnergyBias, i18n_text("this CPU has no energy performance bias")));
    }
    if profile.turbo.is_some() && machine.turbo.is_none() {
        return Err(error(profile, Field::Turbo, i18n_text("this machine has no turbo or boost switch")));
    }
    if profile.dynamic_boost.is_some() && machine.hwp_dynamic_boost.is_none() {
        return Err(error(
            profile,
            Field::DynamicBoost,
            i18n_text("hwp_dynamic_boost exists only with intel_pstate in active mode with HWP"),
        ));
    }
    Ok(())
}

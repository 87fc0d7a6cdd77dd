//! Handing the CPU back to the kernel: "Use the kernel's own values"
//! (`gearshift profile set kernel`, the window's and the tray's entry).
//!
//! The helper writes `default` to every CPU's EPP (the kernel restores its
//! power-on value, or its model table's), and puts back what it found at
//! the boot it first started in ([`BootValues`]): each policy's governor
//! and frequency limits, the energy bias, boost and the firmware's platform
//! profile. Where nothing was recorded (the record is from another boot, or
//! none was kept), the governor is the driver's own choice for its balanced
//! state and the rest is left as it is. Afterwards the helper stops
//! applying profiles on resume, hotplug and power-source changes, until a
//! profile is chosen again (docs/dbus-api.md, "The kernel's own values").

use serde::{Deserialize, Serialize};

use super::machine::Machine;
use super::parse::EppName;
use super::plan::{CpuSetting, Plan, PlatformSetting, Preference, PreferenceForm, Turbo};
use super::platform::HandlerId;
use super::profile::{default_governor, BuiltinProfile, Resolver};

/// The id `SetProfile` takes for the kernel's own values, and the helper's
/// `ActiveProfile` while they are in effect.
pub const KERNEL_OWN: &str = "kernel";

/// Its name, as the window, the tray and the command line show it.
pub fn name() -> crate::i18n::Text {
    crate::i18n::i18n_text("The kernel's own values")
}

/// The file in the helper's state directory that keeps [`BootValues`].
pub const BOOT_VALUES_FILE: &str = "boot-values.toml";

/// The kernel's energy bias at boot where the firmware left none
/// (`intel_epb`: "normal").
pub const KERNEL_BIAS: u8 = 6;

/// What one cpufreq policy held when the helper first saw it this boot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyValues {
    /// The policy's number.
    pub policy: u32,
    /// `scaling_governor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governor: Option<String>,
    /// `scaling_min_freq` in kHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_khz: Option<u64>,
    /// `scaling_max_freq` in kHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_khz: Option<u64>,
}

/// One CPU's energy bias at boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuBias {
    /// The CPU.
    pub cpu: u32,
    /// `power/energy_perf_bias`.
    pub bias: u8,
}

/// The machine's values before the helper's first write of a boot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BootValues {
    /// `proc/sys/kernel/random/boot_id` of that boot (absent where the
    /// kernel has none to read, as in a snapshot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_id: Option<String>,
    /// Each policy's governor and limits.
    #[serde(default)]
    pub policies: Vec<PolicyValues>,
    /// Each CPU's energy bias.
    #[serde(default)]
    pub biases: Vec<CpuBias>,
    /// Boost on or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turbo: Option<bool>,
    /// The firmware's platform profile, per handler.
    #[serde(default)]
    pub platform: Vec<PlatformSetting>,
}

impl BootValues {
    /// What `machine` holds now.
    pub fn of(machine: &Machine, boot_id: Option<String>) -> BootValues {
        BootValues {
            boot_id,
            policies: machine
                .policies
                .values()
                .map(|p| PolicyValues {
                    policy: p.id,
                    governor: p.governor.clone(),
                    min_khz: p.min_khz,
                    max_khz: p.max_khz,
                })
                .collect(),
            biases: machine
                .cpus
                .iter()
                .filter_map(|c| c.energy_perf_bias.map(|bias| CpuBias { cpu: c.id, bias }))
                .collect(),
            turbo: machine.turbo.map(|(on, _)| on),
            platform: machine
                .platform_profile
                .iter()
                .flat_map(|p| &p.handlers)
                // `custom` is what a handler shows, never what one takes.
                .filter_map(|h| {
                    h.current.clone().filter(|c| c != "custom").map(|choice| PlatformSetting { handler: h.id, choice })
                })
                .collect(),
        }
    }

    /// The record from text, `None` where it does not parse.
    pub fn parse(text: &str) -> Option<BootValues> {
        toml::from_str(text).ok()
    }

    /// The record as the state directory keeps it.
    pub fn to_text(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }

    /// Whether this record was made in the boot `boot_id` names. Without
    /// a boot id on either side, a record there is taken as this boot's:
    /// a snapshot's kernel does not reboot.
    pub fn of_boot(&self, boot_id: Option<&str>) -> bool {
        match (self.boot_id.as_deref(), boot_id) {
            (Some(kept), Some(now)) => kept == now,
            _ => true,
        }
    }
}

impl Resolver<'_> {
    /// What handing the CPU back writes here, with the values `boot`
    /// recorded where there is a record of this boot.
    pub fn kernel_plan(&self, boot: Option<&BootValues>) -> Plan {
        let machine = self.machine;
        let policy_of = |id: u32| boot.and_then(|b| b.policies.iter().find(|p| p.policy == id));
        let bias_of = |cpu: u32| boot.and_then(|b| b.biases.iter().find(|c| c.cpu == cpu)).map(|c| c.bias);
        let cpus = machine
            .cpus
            .iter()
            .filter(|c| c.online)
            .filter(|c| c.policy.is_some() || (self.form == PreferenceForm::Bias && c.energy_perf_bias.is_some()))
            .map(|cpu| {
                let policy = machine.policy_of(cpu);
                let recorded = cpu.policy.and_then(policy_of);
                let governor = policy.and_then(|p| {
                    recorded
                        .and_then(|r| r.governor.clone())
                        .filter(|g| p.available_governors.is_empty() || p.available_governors.contains(g))
                        .or_else(|| default_governor(machine, p, BuiltinProfile::BalancePerformance))
                });
                let has_epp = policy.is_some_and(|p| p.has_epp);
                let preference = match self.form {
                    // Under dynamic EPP the kernel sets EPP itself.
                    PreferenceForm::KernelDynamic => None,
                    _ if has_epp => Some(Preference::EppName(EppName::Default)),
                    PreferenceForm::Bias => {
                        cpu.energy_perf_bias.map(|_| Preference::Bias(bias_of(cpu.id).unwrap_or(KERNEL_BIAS)))
                    }
                    _ => None,
                };
                CpuSetting {
                    cpu: cpu.id,
                    policy: cpu.policy,
                    governor,
                    preference,
                    epp_value: None,
                    min_khz: recorded.and_then(|r| r.min_khz),
                    max_khz: recorded.and_then(|r| r.max_khz),
                    companion_bias: if has_epp && cpu.energy_perf_bias.is_some() { bias_of(cpu.id) } else { None },
                }
            })
            .collect();
        let turbo = match (boot.and_then(|b| b.turbo), machine.turbo) {
            (Some(on), Some((_, control))) => Some(Turbo { on, control, best_effort: true }),
            _ => None,
        };
        let platform = match (boot, &machine.platform_profile) {
            (Some(boot), Some(now)) => {
                boot.platform.iter().filter(|s| handler_offers(now, s.handler, &s.choice)).cloned().collect()
            }
            _ => Vec::new(),
        };
        Plan { profile: KERNEL_OWN.to_owned(), cpus, turbo, dynamic_boost: None, platform }
    }
}

fn handler_offers(platform: &super::platform::PlatformProfile, id: HandlerId, choice: &str) -> bool {
    platform.handlers.iter().any(|h| h.id == id && h.choices.iter().any(|c| c == choice))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::machine::fixture as machine;
    use crate::core::models::ModelTable;

    #[test]
    fn the_plan_writes_default_epp_and_the_recorded_governor_and_limits() {
        let m = machine("meteor-lake-155h");
        let table = ModelTable::builtin();
        let resolver = Resolver::new(&m, &table);
        let mut boot = BootValues::of(&m, Some("a".into()));
        boot.policies[0].min_khz = Some(1_000_000);
        let plan = resolver.kernel_plan(Some(&boot));
        assert_eq!(plan.profile, KERNEL_OWN);
        assert!(plan.cpus.iter().all(|c| c.preference == Some(Preference::EppName(EppName::Default))));
        assert!(plan.cpus.iter().all(|c| c.governor.as_deref() == Some("powersave")));
        let first = plan.cpus.iter().find(|c| c.policy == Some(boot.policies[0].policy)).unwrap();
        assert_eq!(first.min_khz, Some(1_000_000));
        // Without a record: EPP and the driver's governor, no limits.
        let plain = resolver.kernel_plan(None);
        assert!(plain.cpus.iter().all(|c| c.min_khz.is_none() && c.max_khz.is_none()));
        assert!(plain.platform.is_empty() && plain.turbo.is_none());
    }

    #[test]
    fn a_record_round_trips_and_knows_its_boot() {
        let m = machine("amd-hx370-platform-class");
        let boot = BootValues::of(&m, Some("b1".into()));
        assert!(!boot.platform.is_empty());
        let back = BootValues::parse(&boot.to_text()).unwrap();
        assert_eq!(back, boot);
        assert!(back.of_boot(Some("b1")) && !back.of_boot(Some("b2")) && back.of_boot(None));
        assert!(BootValues::parse("policies = 3").is_none());
    }
}

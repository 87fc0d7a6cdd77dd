//! The writes a plan needs and their order (docs/interfaces.md): the
//! firmware's profile, globals, frequency limits, governors, then energy
//! preferences; and when a file already holds the wanted value.

use crate::core::machine::TurboControl;
use crate::core::parse::{parse_epp, EppReading};
use crate::core::plan::{Plan, Preference};

use super::Target;

/// How "already holds the value" is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    /// The same word (governor, preference name).
    Word,
    /// The same number.
    Number,
    /// An EPP number, where the file may show the name of that number.
    EppNumber(u8),
    /// An EPP name, where the file may show its number (amd-pstate 7.1
    /// shows "128" after someone wrote the number: balance_performance).
    EppName,
    /// A platform profile choice. HP's `cool` counts as holding
    /// `balanced`, as power-profiles-daemon (0.13+) reads it, so that the
    /// firmware's `cool` is not replaced where Balanced is wanted
    /// (docs/dbus-api.md, "Platform profile").
    Platform,
}

#[derive(Debug, Clone)]
pub(super) struct Step {
    pub(super) target: Target,
    /// The CPUs this write affects (for reports).
    pub(super) cpus: Vec<u32>,
    pub(super) text: String,
    pub(super) want: Want,
    /// A refusal leaves the file as it was and the rest of the plan goes on.
    pub(super) best_effort: bool,
}

pub(super) fn holds(current: &str, wanted: &str, want: Want, epp_value: &dyn Fn(EppReading) -> Option<u8>) -> bool {
    match want {
        Want::Word => current == wanted,
        Want::Platform => current == wanted || (current == "cool" && wanted == "balanced"),
        Want::Number => current.parse::<u64>().ok().is_some_and(|c| Some(c) == wanted.parse::<u64>().ok()),
        Want::EppNumber(value) => parse_epp(current).ok().and_then(epp_value) == Some(value),
        Want::EppName => {
            current == wanted || {
                let value = |text: &str| parse_epp(text).ok().and_then(epp_value);
                value(current).is_some() && value(current) == value(wanted)
            }
        }
    }
}

/// The writes a plan needs, in the order the kernel needs them.
pub(super) fn steps(plan: &Plan) -> Vec<Step> {
    let mut out = Vec::new();
    let all: Vec<u32> = plan.cpus.iter().map(|c| c.cpu).collect();
    // The firmware's profile first: it sets the power limits the CPU
    // settings then work within, as power-profiles-daemon orders them.
    for setting in &plan.platform {
        out.push(Step {
            target: Target::Platform(setting.handler),
            cpus: all.clone(),
            text: setting.choice.clone(),
            want: Want::Platform,
            best_effort: false,
        });
    }
    if let Some(turbo) = plan.turbo {
        let on = if turbo.on { "1" } else { "0" };
        match turbo.control {
            TurboControl::IntelNoTurbo => out.push(Step {
                target: Target::Global("intel_pstate/no_turbo"),
                cpus: all.clone(),
                text: if turbo.on { "0" } else { "1" }.into(),
                want: Want::Number,
                best_effort: turbo.best_effort,
            }),
            TurboControl::GlobalBoost => out.push(Step {
                target: Target::Global("cpufreq/boost"),
                cpus: all.clone(),
                text: on.into(),
                want: Want::Number,
                best_effort: turbo.best_effort,
            }),
            TurboControl::PolicyBoost => {
                let mut policies: Vec<(u32, Vec<u32>)> = Vec::new();
                for setting in &plan.cpus {
                    let Some(policy) = setting.policy else { continue };
                    match policies.iter_mut().find(|(p, _)| *p == policy) {
                        Some((_, cpus)) => cpus.push(setting.cpu),
                        None => policies.push((policy, vec![setting.cpu])),
                    }
                }
                out.extend(policies.into_iter().map(|(policy, cpus)| Step {
                    target: Target::Policy(policy, "boost"),
                    cpus,
                    text: on.into(),
                    want: Want::Number,
                    best_effort: turbo.best_effort,
                }));
            }
        }
    }
    if let Some(boost) = plan.dynamic_boost {
        out.push(Step {
            target: Target::Global("intel_pstate/hwp_dynamic_boost"),
            cpus: all.clone(),
            text: if boost { "1" } else { "0" }.into(),
            want: Want::Number,
            best_effort: false,
        });
    }
    let per_policy = |attr: &'static str, value: &dyn Fn(&crate::core::plan::CpuSetting) -> Option<(String, Want)>| {
        let mut seen: Vec<u32> = Vec::new();
        let mut steps: Vec<Step> = Vec::new();
        for setting in &plan.cpus {
            let (Some(policy), Some((text, want))) = (setting.policy, value(setting)) else { continue };
            if let Some(i) = seen.iter().position(|p| *p == policy) {
                steps[i].cpus.push(setting.cpu);
                continue;
            }
            seen.push(policy);
            steps.push(Step {
                target: Target::Policy(policy, attr),
                cpus: vec![setting.cpu],
                text,
                want,
                best_effort: false,
            });
        }
        steps
    };
    // Raising the floor above the old ceiling fails, and so does lowering
    // the ceiling under the old floor: the ceiling goes first when it rises.
    let max = per_policy("scaling_max_freq", &|s| s.max_khz.map(|v| (v.to_string(), Want::Number)));
    let min = per_policy("scaling_min_freq", &|s| s.min_khz.map(|v| (v.to_string(), Want::Number)));
    out.extend(max);
    out.extend(min);
    out.extend(per_policy("scaling_governor", &|s| s.governor.clone().map(|g| (g, Want::Word))));
    out.extend(per_policy("energy_performance_preference", &|s| match s.preference {
        Some(Preference::EppNumber(v)) => Some((v.to_string(), Want::EppNumber(v))),
        Some(Preference::EppName(name)) => Some((name.as_str().to_owned(), Want::EppName)),
        _ => None,
    }));
    // Under amd-pstate's dynamic EPP each CPU's own platform profile sets
    // its EPP, where the EPP file would be written.
    for setting in &plan.cpus {
        if let Some(Preference::CpuProfile { handler, choice }) = setting.preference {
            out.push(Step {
                target: Target::CpuPlatform(handler),
                cpus: vec![setting.cpu],
                text: choice.as_str().to_owned(),
                want: Want::Word,
                best_effort: false,
            });
        }
    }
    for setting in &plan.cpus {
        let bias = match setting.preference {
            Some(Preference::Bias(bias)) => Some(bias),
            _ => setting.companion_bias,
        };
        if let Some(bias) = bias {
            out.push(Step {
                target: Target::Cpu(setting.cpu, "power/energy_perf_bias"),
                cpus: vec![setting.cpu],
                text: bias.to_string(),
                want: Want::Number,
                best_effort: false,
            });
        }
    }
    out
}

/// Every file `plan` writes, relative to the root, in the order written.
pub fn plan_files(plan: &Plan) -> Vec<String> {
    steps(plan).into_iter().map(|step| step.target.rel_path()).collect()
}

//! Validation of every request, before anything is written.
//!
//! Pure functions over the machine model: each turns a request into a
//! [`Plan`] or refuses it with a message that names the bad value. Text
//! from the caller is quoted (escaped, shortened), never used in a path.

use thiserror::Error;

use crate::core::custom::{no_epp_reason, CustomProfile};
use crate::core::machine::{DriverKind, Machine};
use crate::core::parse::quoted_text;
use crate::core::parse::{format_cpu_list, is_kernel_word, MAX_CPU_ID};
use crate::core::plan::{CpuSetting, Plan, Preference, PreferenceForm};
use crate::core::profile::{BuiltinProfile, Resolver};
use crate::i18n::{i18n_text, Text};

/// A refused request.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Refusal {
    /// The request itself is wrong (unknown id, bad number, offline CPU).
    #[error("{0}")]
    InvalidArgument(Text),
    /// The request is well-formed, but this machine cannot do it.
    #[error("{0}")]
    Unsupported(Text),
    /// A CPU of the request is offline (an invalid argument the client
    /// explains: `Cause::CpuOffline`).
    #[error("{0}")]
    CpuOffline(Text),
    /// The performance governor holds EPP at 0 (unsupported, and explained:
    /// `Cause::EppBusy`).
    #[error("{0}")]
    EppBusy(Text),
    /// amd-pstate's dynamic EPP owns EPP (unsupported, and explained:
    /// `Cause::DynamicEpp`).
    #[error("{0}")]
    DynamicEpp(Text),
}

pub use crate::core::parse::quote;

/// Why a machine with nothing to drive refuses a switch.
pub fn nothing_to_switch() -> Text {
    i18n_text("this machine has no CPU frequency control (no cpufreq driver), so there is nothing to switch")
}

/// An EPP value above 255.
fn epp_out_of_range(value: u32) -> Text {
    i18n_text("EPP {value} is out of range: use 0 (performance) to 255 (power saving)").arg("value", value)
}

/// Something that is no governor's name.
fn no_governor_name(governor: &str) -> Text {
    i18n_text("{governor} is not a governor name").arg_text("governor", quoted_text(governor))
}

/// The checks of a request that need neither the machine nor polkit: made
/// first, so that a flood of bad requests costs no polkit call
/// (docs/security.md).
pub mod cheap {
    use super::{epp_out_of_range, no_governor_name, Refusal};
    use crate::core::custom::CustomProfile;
    use crate::core::machine::DriverMode;
    use crate::core::parse::quoted_text;
    use crate::core::parse::{is_kernel_word, MAX_CPU_ID};
    use crate::core::profile::BuiltinProfile;
    use crate::i18n::{i18n_text, Text};

    /// `id` is a built-in or saved custom profile (or `extra`, such as the
    /// lab's `kernel_default`).
    ///
    /// # Errors
    /// An empty or unknown id, listing the profiles there are.
    pub fn known_profile(customs: &[CustomProfile], id: &str, extra: &[&str]) -> Result<(), Refusal> {
        if !id.is_empty()
            && (BuiltinProfile::from_id(id).is_some() || customs.iter().any(|c| c.id == id) || extra.contains(&id))
        {
            return Ok(());
        }
        Err(unknown_profile(customs, id))
    }

    /// Why `id` is no profile: empty, or unknown (the profiles there are).
    pub fn unknown_profile(customs: &[CustomProfile], id: &str) -> Refusal {
        if id.is_empty() {
            return Refusal::InvalidArgument(i18n_text("the profile id is empty"));
        }
        let mut ids: Vec<&str> = BuiltinProfile::ALL.iter().map(|p| p.id()).collect();
        ids.extend(customs.iter().map(|c| c.id.as_str()));
        Refusal::InvalidArgument(
            i18n_text("unknown profile {id}; the profiles are {ids}")
                .arg_text("id", quoted_text(id))
                .arg_text("ids", few(&ids)),
        )
    }

    /// An EPP value and a CPU list of a possible size.
    ///
    /// # Errors
    /// A value above 255, or more CPUs than any machine has.
    pub fn epp_request(cpus: &[u32], value: u32) -> Result<(), Refusal> {
        if value > 255 {
            return Err(Refusal::InvalidArgument(epp_out_of_range(value)));
        }
        cpu_count(cpus)
    }

    /// A governor's name and a CPU list of a possible size.
    ///
    /// # Errors
    /// Something that is no governor name, or too many CPUs.
    pub fn governor_request(cpus: &[u32], governor: &str) -> Result<(), Refusal> {
        if !is_kernel_word(governor) {
            return Err(Refusal::InvalidArgument(no_governor_name(governor)));
        }
        cpu_count(cpus)
    }

    /// A driver mode's name: one of those any driver takes.
    ///
    /// # Errors
    /// Anything else.
    pub fn driver_mode(mode: &str) -> Result<DriverMode, Refusal> {
        DriverMode::from_word(mode).ok_or_else(|| {
            Refusal::InvalidArgument(
                i18n_text("{mode} is not a driver mode (active, passive or guided)")
                    .arg_text("mode", quoted_text(mode)),
            )
        })
    }

    /// At most [`LISTED`] of `ids`, and how many more there are: an
    /// answer does not grow with the number of profiles.
    fn few(ids: &[&str]) -> Text {
        let shown = ids.iter().take(LISTED).copied().collect::<Vec<_>>().join(", ");
        match ids.len().checked_sub(LISTED).filter(|more| *more > 0) {
            Some(more) => i18n_text("{shown} and {more} more (gearshift profile list shows them all)")
                .arg("shown", shown)
                .arg("more", more),
            None => Text::from(shown),
        }
    }

    /// How many profile ids an answer lists.
    pub const LISTED: usize = 8;

    fn cpu_count(cpus: &[u32]) -> Result<(), Refusal> {
        if cpus.len() > MAX_CPU_ID as usize + 1 {
            return Err(Refusal::InvalidArgument(
                i18n_text("the request names {count} CPUs, more than any machine has").arg("count", cpus.len()),
            ));
        }
        Ok(())
    }
}

/// The plan for `SetProfile(id)`.
///
/// # Errors
/// An unknown or malformed id, or a custom profile this machine cannot honour.
pub fn profile_request(resolver: &Resolver<'_>, customs: &[CustomProfile], id: &str) -> Result<Plan, Refusal> {
    let machine = resolver.machine;
    let plan = if let Some(builtin) = BuiltinProfile::from_id(id) {
        resolver.builtin(builtin)
    } else if let Some(custom) = customs.iter().find(|c| c.id == id) {
        resolver.custom(custom).map_err(|e| {
            Refusal::Unsupported(
                i18n_text("profile {id}: {problem}").arg_text("id", quoted_text(id)).arg_text("problem", e.sentence()),
            )
        })?
    } else {
        return Err(cheap::unknown_profile(customs, id));
    };
    if machine.nothing_to_drive() {
        return Err(Refusal::Unsupported(nothing_to_switch()));
    }
    if plan
        .cpus
        .iter()
        .all(|c| c.governor.is_none() && c.preference.is_none() && c.min_khz.is_none() && c.max_khz.is_none())
        && plan.turbo.is_none()
        && plan.dynamic_boost.is_none()
        && plan.platform.is_empty()
    {
        return Err(Refusal::Unsupported(
            i18n_text("profile {id} changes nothing on this machine").arg_text("id", quoted_text(id)),
        ));
    }
    Ok(plan)
}

/// Checks a CPU list: existing, online, with cpufreq, no duplicates. An
/// empty list means every online CPU with a cpufreq policy.
///
/// # Errors
/// The first CPU that is not acceptable, named.
pub fn cpu_list(machine: &Machine, cpus: &[u32]) -> Result<Vec<u32>, Refusal> {
    if cpus.is_empty() {
        let all: Vec<u32> = machine.cpus.iter().filter(|c| machine.policy_of(c).is_some()).map(|c| c.id).collect();
        if all.is_empty() {
            return Err(Refusal::Unsupported(i18n_text("no online CPU has a cpufreq policy on this machine")));
        }
        return Ok(all);
    }
    if cpus.len() > machine.cpus.len().max(1) {
        return Err(Refusal::InvalidArgument(
            i18n_text("the request names {count} CPUs; this machine has {have}")
                .arg("count", cpus.len())
                .arg("have", machine.cpus.len()),
        ));
    }
    let existing = format_cpu_list(&machine.cpus.iter().map(|c| c.id).collect::<Vec<_>>());
    let mut seen = Vec::with_capacity(cpus.len());
    for &id in cpus {
        let Some(cpu) = machine.cpu(id).filter(|_| id <= MAX_CPU_ID) else {
            return Err(Refusal::InvalidArgument(
                i18n_text("CPU {id} does not exist (this machine has CPUs {existing})")
                    .arg("id", id)
                    .arg("existing", &existing),
            ));
        };
        if seen.contains(&id) {
            return Err(Refusal::InvalidArgument(i18n_text("CPU {id} appears twice in the request").arg("id", id)));
        }
        if !cpu.online {
            return Err(Refusal::CpuOffline(i18n_text("CPU {id} is offline; bring it online first").arg("id", id)));
        }
        if machine.policy_of(cpu).is_none() {
            return Err(Refusal::Unsupported(no_policy(id)));
        }
        seen.push(id);
    }
    Ok(seen)
}

fn no_policy(id: u32) -> Text {
    i18n_text("CPU {id} has no cpufreq policy").arg("id", id)
}

fn cpu_and_policy(
    machine: &Machine,
    id: u32,
) -> Result<(&crate::core::machine::Cpu, &crate::core::machine::Policy), Refusal> {
    machine
        .cpu(id)
        .and_then(|cpu| machine.policy_of(cpu).map(|policy| (cpu, policy)))
        .ok_or_else(|| Refusal::Unsupported(no_policy(id)))
}

/// The plan for `SetEpp(cpus, value)`.
///
/// # Errors
/// A value above 255, a bad CPU list, a CPU without EPP, a value this
/// kernel cannot take, or a CPU whose governor locks EPP.
pub fn epp_request(resolver: &Resolver<'_>, cpus: &[u32], value: u32) -> Result<Plan, Refusal> {
    let Ok(value) = u8::try_from(value) else {
        return Err(Refusal::InvalidArgument(epp_out_of_range(value)));
    };
    let machine = resolver.machine;
    let ids = cpu_list(machine, cpus)?;
    let preference = match resolver.form {
        PreferenceForm::Number | PreferenceForm::NameOrNumber => Preference::EppNumber(value),
        PreferenceForm::Name => match resolver.model.as_ref().and_then(|m| m.generic.name_of(value)) {
            Some(name) => Preference::EppName(name),
            None => {
                return Err(Refusal::Unsupported(
                    i18n_text("this kernel's amd-pstate accepts only the preference names, not EPP {value}: use 0, 128, 191 or 255 (raw values need Linux 7.1)")
                        .arg("value", value),
                ))
            }
        },
        PreferenceForm::KernelDynamic => return Err(Refusal::DynamicEpp(no_epp_reason(resolver))),
        PreferenceForm::Bias | PreferenceForm::GovernorOnly => return Err(Refusal::Unsupported(no_epp_reason(resolver))),
    };
    let own_algorithm = matches!(machine.driver_kind(), Some(DriverKind::IntelPstate | DriverKind::AmdPstateEpp));
    let mut settings = Vec::with_capacity(ids.len());
    for id in ids {
        let (cpu, policy) = cpu_and_policy(machine, id)?;
        if !policy.has_epp {
            return Err(Refusal::Unsupported(
                i18n_text("CPU {id} offers no energy performance preference").arg("id", id),
            ));
        }
        if own_algorithm && value > 0 && policy.governor.as_deref() == Some("performance") {
            return Err(Refusal::EppBusy(
                i18n_text("CPU {id} runs the performance governor, which holds EPP at 0 (the kernel answers EBUSY to other values): set the powersave governor first")
                    .arg("id", id),
            ));
        }
        settings.push(CpuSetting {
            cpu: id,
            policy: cpu.policy,
            governor: None,
            preference: Some(preference),
            epp_value: Some(value),
            min_khz: None,
            max_khz: None,
            companion_bias: None,
        });
    }
    Ok(Plan { profile: String::new(), cpus: settings, turbo: None, dynamic_boost: None, platform: Vec::new() })
}

/// The plan for `SetGovernor(cpus, governor)`.
///
/// # Errors
/// A malformed name, a bad CPU list, or a governor a CPU does not offer.
pub fn governor_request(machine: &Machine, cpus: &[u32], governor: &str) -> Result<Plan, Refusal> {
    if !is_kernel_word(governor) {
        return Err(Refusal::InvalidArgument(no_governor_name(governor)));
    }
    let ids = cpu_list(machine, cpus)?;
    let mut settings = Vec::with_capacity(ids.len());
    for id in ids {
        let (cpu, policy) = cpu_and_policy(machine, id)?;
        if !policy.available_governors.iter().any(|g| g == governor) {
            return Err(Refusal::InvalidArgument(
                i18n_text("CPU {id} does not offer the {governor} governor; it offers {offered}")
                    .arg("id", id)
                    .arg_text("governor", quoted_text(governor))
                    .arg("offered", policy.available_governors.join(", ")),
            ));
        }
        settings.push(CpuSetting {
            cpu: id,
            policy: cpu.policy,
            governor: Some(governor.to_owned()),
            preference: None,
            epp_value: None,
            min_khz: None,
            max_khz: None,
            companion_bias: None,
        });
    }
    Ok(Plan { profile: String::new(), cpus: settings, turbo: None, dynamic_boost: None, platform: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::machine::fixture as machine;
    use crate::core::models::ModelTable;
    use proptest::prelude::*;

    #[test]
    fn refusals_name_the_bad_value() {
        let m = machine("kaby-lake-offline");
        let table = ModelTable::builtin();
        let r = Resolver::new(&m, &table);
        let invalid = |res: Result<Plan, Refusal>| match res {
            Err(Refusal::InvalidArgument(msg)) => msg.english(),
            other => panic!("expected InvalidArgument, got {other:?}"),
        };
        assert!(invalid(profile_request(&r, &[], "../../etc/passwd")).contains("unknown profile “../../etc/passwd”"));
        assert!(invalid(profile_request(&r, &[], "")).contains("empty"));
        assert!(invalid(profile_request(&r, &[], "power\nsave")).contains("\\n"));
        assert!(invalid(epp_request(&r, &[], 256)).contains("256"));
        assert!(invalid(epp_request(&r, &[9], 10)).contains("CPU 9 does not exist"));
        assert!(
            matches!(epp_request(&r, &[4], 10), Err(Refusal::CpuOffline(msg)) if msg.english().contains("CPU 4 is offline")),
            "an offline CPU is refused with its own cause"
        );
        assert!(invalid(epp_request(&r, &[1, 1], 10)).contains("twice"));
        assert!(invalid(governor_request(&m, &[], "schedutil")).contains("does not offer"));
        assert!(invalid(governor_request(&m, &[], "a b")).contains("not a governor"));
        assert!(invalid(epp_request(&r, &vec![0; 100], 10)).contains("100 CPUs"));
        let long = "x".repeat(5000);
        assert!(invalid(profile_request(&r, &[], &long)).len() < 200);
    }

    #[test]
    fn machines_without_epp_refuse_as_unsupported() {
        let m = machine("amd-5900x-passive");
        let table = ModelTable::builtin();
        let r = Resolver::new(&m, &table);
        assert!(
            matches!(epp_request(&r, &[], 100), Err(Refusal::Unsupported(msg)) if msg.english().contains("passive"))
        );
        let vm = machine("vm-no-cpufreq");
        let r = Resolver::new(&vm, &table);
        assert!(matches!(profile_request(&r, &[], "power"), Err(Refusal::Unsupported(_))));
        let amd = machine("amd-7840hs-epp");
        let r = Resolver::new(&amd, &table);
        assert!(matches!(epp_request(&r, &[], 100), Err(Refusal::Unsupported(msg)) if msg.english().contains("names")));
        assert_eq!(
            epp_request(&r, &[0], 191).unwrap().cpus[0].preference,
            Some(Preference::EppName(crate::core::parse::EppName::BalancePower))
        );
    }

    #[test]
    fn good_requests_plan_every_online_cpu() {
        let m = machine("meteor-lake-155h");
        let table = ModelTable::builtin();
        let r = Resolver::new(&m, &table);
        let plan = profile_request(&r, &[], "balance_power").unwrap();
        assert_eq!(plan.cpus.len(), 22);
        assert!(plan.cpus.iter().all(|c| c.preference == Some(Preference::EppNumber(179))));
        assert_eq!(epp_request(&r, &[12, 13], 200).unwrap().cpus.len(), 2);
        assert_eq!(governor_request(&m, &[], "performance").unwrap().cpus.len(), 22);
    }

    proptest! {
        #[test]
        fn validators_never_panic(id in ".{0,80}", cpus in proptest::collection::vec(any::<u32>(), 0..40), value in any::<u32>(), gov in "[a-z_ /\n]{0,20}") {
            let m = machine("kaby-lake-offline");
            let table = ModelTable::builtin();
            let r = Resolver::new(&m, &table);
            let _ = profile_request(&r, &[], &id);
            let epp = epp_request(&r, &cpus, value);
            if let Ok(plan) = &epp {
                // Whatever is accepted names only online CPUs, once each.
                prop_assert!(value <= 255);
                for c in &plan.cpus { prop_assert!(m.cpu(c.cpu).unwrap().online); }
            }
            let _ = governor_request(&m, &cpus, &gov);
        }
    }
}

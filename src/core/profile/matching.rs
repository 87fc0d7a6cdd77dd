//! Which built-in profile the machine's files already hold: what `status`
//! says is in effect, and what the helper finds at its first start.

use super::{BuiltinProfile, Resolver};
use crate::core::parse::EppReading;
use crate::core::plan::{Plan, Preference};

impl Resolver<'_> {
    /// The built-in profile the machine's current settings match, if any:
    /// every online CPU shows the profile's EPP (or bias) and governor.
    /// When every profile matches (no EPP or bias, and one governor for
    /// all, as intel_pstate without HWP EPP gives), the settings tell
    /// nothing about which was chosen, and none is claimed.
    pub fn matching_builtin(&self) -> Option<BuiltinProfile> {
        let matching: Vec<BuiltinProfile> =
            BuiltinProfile::ALL.into_iter().filter(|profile| self.plan_matches(&self.builtin(*profile))).collect();
        if matching.len() == BuiltinProfile::ALL.len() {
            return None;
        }
        matching.first().copied()
    }

    /// True when the machine already holds every value of `plan`.
    pub fn plan_matches(&self, plan: &Plan) -> bool {
        let writes_cpus = plan.cpus.iter().any(|c| c.governor.is_some() || c.preference.is_some());
        if !writes_cpus && plan.platform.is_empty() {
            return false;
        }
        let platform_ok = plan.platform.iter().all(|setting| {
            let handlers = self.machine.platform_profile.as_ref().map(|p| p.handlers.as_slice()).unwrap_or_default();
            handlers.iter().any(|h| h.id == setting.handler && h.current.as_deref() == Some(setting.choice.as_str()))
        });
        platform_ok
            && plan.cpus.iter().all(|setting| {
                let Some(cpu) = self.machine.cpu(setting.cpu) else { return false };
                let policy = self.machine.policy_of(cpu);
                let governor_ok =
                    setting.governor.as_ref().is_none_or(|g| policy.and_then(|p| p.governor.as_ref()) == Some(g));
                let preference_ok = match setting.preference {
                    None => true,
                    Some(Preference::Bias(bias)) => cpu.energy_perf_bias == Some(bias),
                    Some(Preference::EppNumber(value)) => {
                        policy.and_then(|p| p.epp).and_then(|r| self.reading_value(r)) == Some(value)
                    }
                    // By value: amd-pstate 7.1 shows "128" after someone
                    // wrote the number, which is balance_performance.
                    Some(Preference::EppName(name)) => policy.and_then(|p| p.epp).is_some_and(|reading| {
                        reading == EppReading::Name(name)
                            || self.reading_value(reading).is_some()
                                && self.reading_value(reading) == self.reading_value(EppReading::Name(name))
                    }),
                    Some(Preference::CpuProfile { handler, choice }) => self
                        .machine
                        .cpu_profiles
                        .iter()
                        .any(|h| h.id == handler && h.current.as_deref() == Some(choice.as_str())),
                };
                governor_ok && preference_ok
            })
    }
}

//! The processor and every CPU, as the status shows them.

use super::{CpuLine, CpuReport};
use crate::core::machine::Machine;
use crate::core::profile::Resolver;

/// The processor as CPUID, sysfs and the model table say.
pub(super) fn cpu_report(resolver: &Resolver<'_>) -> CpuReport {
    let machine = resolver.machine;
    let model = resolver.model.as_ref();
    let hybrid = machine.is_hybrid();
    let (p_cores, e_cores) = machine.core_counts();
    let id = &machine.identity;
    CpuReport {
        vendor: id.vendor_id.clone(),
        family: id.family,
        model: id.model,
        stepping: id.stepping,
        model_name: id.model_name.clone(),
        codename: model.and_then(|m| m.codename.clone()),
        variant: model.and_then(|m| m.variant.clone()),
        hybrid,
        performance_cores: hybrid.then_some(p_cores),
        efficiency_cores: hybrid.then_some(e_cores),
        features: id.features,
        identity_source: id.source,
        notes: id.notes.clone(),
    }
}

pub(super) fn cpu_lines(machine: &Machine, resolver: &Resolver<'_>) -> Vec<CpuLine> {
    machine
        .cpus
        .iter()
        .map(|cpu| {
            let policy = machine.policy_of(cpu);
            let epp = policy.and_then(|p| p.epp);
            CpuLine {
                id: cpu.id,
                online: cpu.online,
                core_type: cpu.core_type,
                policy: cpu.policy,
                governor: policy.and_then(|p| p.governor.clone()),
                epp: epp.map(|e| e.to_kernel_text()),
                epp_value: epp.and_then(|e| resolver.reading_value(e)),
                energy_perf_bias: cpu.energy_perf_bias,
                cur_khz: policy.and_then(|p| p.cur_khz),
                min_khz: policy.and_then(|p| p.min_khz),
                max_khz: policy.and_then(|p| p.max_khz),
                hw_min_khz: policy.and_then(|p| p.hw_min_khz),
                hw_max_khz: policy.and_then(|p| p.hw_max_khz),
                base_khz: policy.and_then(|p| p.base_khz),
                lowest_nonlinear_khz: policy.and_then(|p| p.lowest_nonlinear_khz),
                package: cpu.package,
                prefcore_ranking: policy.and_then(|p| p.prefcore_ranking),
                hw_prefcore: policy.and_then(|p| p.hw_prefcore),
                available_governors: policy.map(|p| p.available_governors.clone()).unwrap_or_default(),
                available_preferences: policy.map(|p| p.available_preferences.clone()).unwrap_or_default(),
            }
        })
        .collect()
}

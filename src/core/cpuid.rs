//! The live CPU identity, read with the CPUID instruction through `raw-cpuid`,
//! and [`read_identity`], which picks the source (CPUID on the live machine,
//! cross-checked with `/proc/cpuinfo`; the file alone under a snapshot).

use std::collections::BTreeMap;

use super::cpuinfo::parse_cpuinfo;
use super::identity::{CoreType, CpuFeatures, CpuIdentity, IdentitySource, Vendor};
use super::root::{Probe, MAX_CPUINFO_BYTES};

/// Family, model and stepping from CPUID leaf 1 EAX, as the Intel SDM and
/// AMD's manuals define the displayed values.
pub fn family_model_stepping(eax: u32) -> (u32, u32, u32) {
    let stepping = eax & 0xF;
    let base_model = (eax >> 4) & 0xF;
    let base_family = (eax >> 8) & 0xF;
    let ext_model = (eax >> 16) & 0xF;
    let ext_family = (eax >> 20) & 0xFF;
    let family = if base_family == 0xF { base_family + ext_family } else { base_family };
    let model = if base_family == 0x6 || base_family == 0xF { (ext_model << 4) | base_model } else { base_model };
    (family, model, stepping)
}

/// Reads the identity of the CPU this process runs on, plus the core type
/// of every CPU in `online` on hybrid CPUs. `None` where there is no CPUID.
#[cfg(target_arch = "x86_64")]
pub fn read_live(online: &[u32]) -> Option<CpuIdentity> {
    use raw_cpuid::{cpuid, CpuId};

    let cpuid = CpuId::new();
    let vendor_id = cpuid.get_vendor_info().map(|v| v.as_str().to_owned());
    let vendor = vendor_id.as_deref().map_or(Vendor::Other, Vendor::from_vendor_id);
    let max_leaf = cpuid!(0).eax;
    let max_ext_leaf = cpuid!(0x8000_0000u32).eax;
    let (family, model, stepping) = family_model_stepping(cpuid!(1).eax);
    let power = cpuid.get_thermal_power_info();
    let hybrid = max_leaf >= 7 && cpuid!(7, 0).edx & (1 << 15) != 0;
    let hypervisor = cpuid.get_feature_info().map(|f| f.has_hypervisor());
    let amd = vendor == Vendor::Amd;
    let features = CpuFeatures {
        hwp: power.as_ref().map(|p| p.has_hwp()),
        hwp_epp: power.as_ref().map(|p| p.has_hwp_energy_performance_preference()),
        epb: power.as_ref().map(|p| p.has_energy_bias_pref()),
        cppc: (amd && max_ext_leaf >= 0x8000_0008).then(|| cpuid!(0x8000_0008u32).ebx & (1 << 27) != 0),
        fast_cppc: (amd && max_ext_leaf >= 0x8000_0007).then(|| cpuid!(0x8000_0007u32).edx & (1 << 15) != 0),
        hypervisor,
    };
    let model_name = cpuid.get_processor_brand_string().map(|b| b.as_str().trim().to_owned()).filter(|b| !b.is_empty());
    let cpuid_core_types = if hybrid && max_leaf >= 0x1A { core_types_on(online) } else { BTreeMap::new() };
    Some(CpuIdentity {
        vendor_id,
        vendor,
        family: Some(family),
        model: Some(model),
        stepping: Some(stepping),
        model_name,
        hybrid,
        features,
        source: IdentitySource::Cpuid,
        cpuid_core_types,
        notes: Vec::new(),
    })
}

/// Without CPUID there is no live identity; `/proc/cpuinfo` is used instead.
#[cfg(not(target_arch = "x86_64"))]
pub fn read_live(_online: &[u32]) -> Option<CpuIdentity> {
    None
}

/// Runs CPUID leaf 0x1A on each CPU in turn, from a short-lived thread
/// pinned to that CPU, so that the caller's own affinity is left alone.
#[cfg(target_arch = "x86_64")]
fn core_types_on(cpus: &[u32]) -> BTreeMap<u32, CoreType> {
    let cpus = cpus.to_vec();
    std::thread::spawn(move || {
        let mut types = BTreeMap::new();
        for cpu in cpus {
            if pin_to(cpu) {
                if let Some(kind) = CoreType::from_leaf_1a(raw_cpuid::cpuid!(0x1A, 0).eax) {
                    types.insert(cpu, kind);
                }
            }
        }
        types
    })
    .join()
    .unwrap_or_default()
}

#[cfg(target_arch = "x86_64")]
fn pin_to(cpu: u32) -> bool {
    let Ok(index) = usize::try_from(cpu) else { return false };
    // SAFETY: cpu_set_t is a plain bit array; CPU_SET checks nothing beyond
    // the index, which we bound by the set's size first.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if index >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
            return false;
        }
        libc::CPU_SET(index, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// Reads the CPU identity for the machine under `probe`'s root. `online`
/// lists the CPUs on which per-CPU CPUID leaves are read (live only).
pub fn read_identity(probe: &mut Probe<'_>, online: &[u32]) -> CpuIdentity {
    let cpuinfo = probe
        .text_limited("proc/cpuinfo", MAX_CPUINFO_BYTES)
        .and_then(|text| match parse_cpuinfo(&text) {
            Ok(entries) => Some(entries),
            Err(err) => {
                let path = probe.root().path("proc/cpuinfo");
                probe.problems.push(super::root::Problem::parse(&path, &err));
                None
            }
        })
        .unwrap_or_default();
    let from_file = CpuIdentity::from_cpuinfo(&cpuinfo);
    if !probe.root().is_live() {
        return from_file;
    }
    match read_live(online) {
        Some(live) => cross_check(live, &from_file),
        None => from_file,
    }
}

/// Notes where CPUID and `/proc/cpuinfo` disagree, keeping CPUID's answer
/// and filling its gaps from the file.
fn cross_check(mut live: CpuIdentity, file: &CpuIdentity) -> CpuIdentity {
    if file.source != IdentitySource::Cpuinfo {
        return live;
    }
    let mut differ = |what: &str, a: String, b: String| {
        if a != b {
            live.notes.push(format!("CPUID says {what} {a}, /proc/cpuinfo says {b}"));
        }
    };
    differ("vendor", format!("{:?}", live.vendor_id), format!("{:?}", file.vendor_id));
    differ("family", format!("{:?}", live.family), format!("{:?}", file.family));
    differ("model", format!("{:?}", live.model), format!("{:?}", file.model));
    if live.model_name.is_none() {
        live.model_name = file.model_name.clone();
    }
    if live.features.fast_cppc.is_none() {
        live.features.fast_cppc = file.features.fast_cppc;
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_family_and_model() {
        // Meteor Lake: family 6, extended model 0xA, model 0xA -> 170.
        assert_eq!(family_model_stepping(0x000A_06A4), (6, 0xAA, 4));
        // Zen 4 Phoenix: base family 0xF + extended 0xA = 0x19, model 0x74.
        assert_eq!(family_model_stepping(0x00A7_0F41), (0x19, 0x74, 1));
        // A family-5 Pentium ignores the extended model.
        assert_eq!(family_model_stepping(0x0005_0543), (5, 4, 3));
        // Extremes do not overflow.
        assert_eq!(family_model_stepping(u32::MAX), (0xF + 0xFF, 0xFF, 0xF));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn live_identity_agrees_with_cpuinfo() {
        let live = read_live(&[0]).expect("x86_64 has CPUID");
        let text = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        let file = super::super::cpuinfo::parse_cpuinfo(&text).unwrap();
        assert_eq!(live.vendor_id, file[0].vendor_id);
        assert_eq!(live.family, file[0].family);
        assert_eq!(live.model, file[0].model);
    }

    #[test]
    fn cross_check_notes_disagreements() {
        let mut live = CpuIdentity::unknown();
        live.vendor_id = Some("GenuineIntel".into());
        live.family = Some(6);
        live.model = Some(170);
        live.source = IdentitySource::Cpuid;
        let mut file = live.clone();
        file.source = IdentitySource::Cpuinfo;
        file.model = Some(171);
        file.model_name = Some("brand".into());
        let checked = cross_check(live, &file);
        assert_eq!(checked.notes.len(), 1);
        assert!(checked.notes[0].contains("model"));
        assert_eq!(checked.model_name.as_deref(), Some("brand"));
    }
}

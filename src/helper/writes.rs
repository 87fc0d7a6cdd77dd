//! Every file the helper may write on a machine: what its systemd unit's
//! `ReadWritePaths=` must let through (`ProtectKernelTunables=` makes the
//! rest of `/sys` read-only). tests/unit_write_paths.rs resolves each on
//! every fixture, following the links as the kernel's sysfs lays them out,
//! and checks it against the unit file itself (docs/security.md, "The
//! unit's sandbox").

use super::apply::plan_files;
use crate::core::actions;
use crate::core::custom::{CustomProfile, EppSetting};
use crate::core::identity::Vendor;
use crate::core::machine::Machine;
use crate::core::models::ModelTable;
use crate::core::plan::Plan;
use crate::core::profile::{BuiltinProfile, Resolver};
use crate::core::root::{Probe, SysRoot};

/// The files, relative to the root, that the helper may write here: those
/// of every built-in profile, of custom profiles that set each field a
/// custom profile has, of the lab's run at the kernel's value, raw tuning,
/// the driver's mode file, and what the actions write: the charge type of
/// the supplies that follow the profile and, on AMD machines, the panel's
/// power savings and the GPUs' power management level (read from `root`,
/// as the actions find them). Sorted, each once.
pub fn every_write(root: &SysRoot, machine: &Machine, table: &ModelTable) -> Vec<String> {
    let resolver = Resolver::new(machine, table);
    let mut plans: Vec<Plan> = BuiltinProfile::ALL.iter().map(|p| resolver.builtin(*p)).collect();
    plans.extend(custom_probes(machine).iter().filter_map(|p| resolver.custom(p).ok()));
    if let Some(value) = crate::core::measure::kernel_default(&resolver) {
        // Raw tuning writes the files a profile's EPP does.
        plans.extend(super::validate::epp_request(&resolver, &[], u32::from(value)).ok());
    }
    let mut files: Vec<String> = plans.iter().flat_map(plan_files).collect();
    if let Some(control) = machine.mode_control {
        files.push(crate::core::paths::global_file(control.file()));
    }
    files.extend(machine.charging_supplies.iter().filter(|s| s.follows_profile()).map(|s| s.charge_type_file()));
    if machine.identity.vendor == Vendor::Amd {
        let mut probe = Probe::new(root);
        files.extend(actions::panels(&mut probe).into_iter().map(|(file, _)| file));
        files.extend(actions::gpus(&mut probe).into_iter().map(|(file, _)| file));
    }
    files.sort();
    files.dedup();
    files
}

/// Custom profiles that each set one field, with a value this machine takes
/// where one is needed (those it refuses write nothing).
fn custom_probes(machine: &Machine) -> Vec<CustomProfile> {
    let base = CustomProfile { id: "probe".into(), name: "Probe".into(), ..CustomProfile::default() };
    let policy = machine.policies.values().next();
    let mut probes = vec![
        CustomProfile { epp: Some(EppSetting::Name("balance_power".into())), ..base.clone() },
        CustomProfile { epp: Some(EppSetting::Value(100)), ..base.clone() },
        CustomProfile { energy_bias: Some(6), ..base.clone() },
        CustomProfile { turbo: Some(false), ..base.clone() },
        CustomProfile { dynamic_boost: Some(true), ..base.clone() },
        CustomProfile { min_khz: policy.and_then(|p| p.hw_min_khz), ..base.clone() },
        CustomProfile { max_khz: policy.and_then(|p| p.hw_max_khz), ..base.clone() },
    ];
    if let Some(governor) = policy.and_then(|p| p.available_governors.first()) {
        probes.push(CustomProfile { governor: Some(governor.clone()), ..base.clone() });
    }
    for choice in machine.platform_profile.iter().flat_map(|p| p.custom_choices()) {
        probes.push(CustomProfile { platform_profile: Some(choice), ..base.clone() });
    }
    probes
}

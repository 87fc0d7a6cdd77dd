//! The machine as sysfs shows it: CPUs, their cpufreq policies, the driver
//! and its mode, turbo, RAPL zones. Read once, in one pass, into plain data.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::cpuid::read_identity;
pub use super::driver::{DriverKind, DriverMode, ModeControl, ModeSource, TurboControl};
use super::identity::{CoreType, CpuIdentity};
use super::parse::{
    parse_cpu_list, parse_enabled, parse_epb, parse_flag, parse_kernel_version, parse_u32, parse_u64, parse_word,
    plausible_percent, plausible_perf_level, KernelVersion,
};
use super::paths::{self, cpu_file, global_file, numbered};
use super::platform::{CpuHandler, Handlers, PlatformProfile};
pub use super::policy::Policy;
use super::policy::{read_policy, NOT_A_PERF_LEVEL};
use super::root::{EntryKind, IgnoredValue, Probe, Problem, SysRoot};

/// One logical CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cpu {
    /// The CPU number.
    pub id: u32,
    /// Whether it is online.
    pub online: bool,
    /// P- or E-core on hybrid CPUs.
    pub core_type: Option<CoreType>,
    /// The cpufreq policy this CPU belongs to.
    pub policy: Option<u32>,
    /// Energy Performance Bias (0..15), where the CPU has it.
    pub energy_perf_bias: Option<u8>,
    /// The socket.
    pub package: Option<u32>,
    /// The core within the socket.
    pub core_id: Option<u32>,
    /// ACPI CPPC is described for this CPU (`cpuN/acpi_cppc`).
    pub acpi_cppc: bool,
}

/// CPUs that share a hardware frequency range (`cpuinfo_min_freq` and
/// `cpuinfo_max_freq`): on hybrid CPUs and CPUs with favoured cores the
/// range differs from CPU to CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrequencyRange {
    /// The CPUs, ascending.
    pub cpus: Vec<u32>,
    /// Their lowest frequency in kHz.
    pub hw_min_khz: Option<u64>,
    /// Their highest frequency in kHz.
    pub hw_max_khz: Option<u64>,
}

/// One RAPL energy counter zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RaplZone {
    /// The powercap name, `intel-rapl:0` or `intel-rapl:0:0`.
    pub zone: String,
    /// What it measures: `package-0`, `core`, `uncore`, `dram`, `psys`.
    pub name: Option<String>,
    /// Where the counter wraps, in µJ.
    pub max_energy_range_uj: Option<u64>,
}

/// Everything Gearshift knows about the machine.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// The CPU's identity.
    pub identity: CpuIdentity,
    /// The running kernel's release string.
    pub kernel_release: Option<String>,
    /// The running kernel's version.
    pub kernel: Option<KernelVersion>,
    /// Every CPU the kernel shows, by number.
    pub cpus: Vec<Cpu>,
    /// The cpufreq policies of online CPUs, by number.
    pub policies: BTreeMap<u32, Policy>,
    /// The driver name (`scaling_driver` of the first online policy).
    pub driver: Option<String>,
    /// `intel_pstate/status` or `amd_pstate/status`; where neither is
    /// there, the mode the driver's name implies.
    pub mode: Option<String>,
    /// Where [`Machine::mode`] came from.
    pub mode_source: Option<ModeSource>,
    /// The file that switches the mode, where the driver has one.
    pub mode_control: Option<ModeControl>,
    /// Whether turbo/boost is on, and how it is switched.
    pub turbo: Option<(bool, TurboControl)>,
    /// `intel_pstate/hwp_dynamic_boost`.
    pub hwp_dynamic_boost: Option<bool>,
    /// `intel_pstate/max_perf_pct`.
    pub max_perf_pct: Option<u64>,
    /// `intel_pstate/min_perf_pct`.
    pub min_perf_pct: Option<u64>,
    /// `intel_pstate/num_pstates` (absent on hybrid CPUs).
    pub num_pstates: Option<u32>,
    /// `intel_pstate/turbo_pct` (absent on hybrid CPUs).
    pub turbo_pct: Option<u64>,
    /// `amd_pstate/prefcore`: preferred-core ranking in use.
    pub prefcore: Option<bool>,
    /// RAPL energy zones present.
    pub rapl: Vec<RaplZone>,
    /// The firmware's platform profile, where a driver offers one.
    pub platform_profile: Option<PlatformProfile>,
    /// The CPUs' own platform profiles (amd-pstate's dynamic EPP, 7.1).
    pub cpu_profiles: Vec<CpuHandler>,
    /// `amd_pstate/dynamic_epp` (Linux 7.1): the kernel sets EPP itself
    /// (by the power source) and refuses every EPP write with EBUSY.
    pub dynamic_epp: Option<bool>,
    /// `sched_itmt_enabled`: `None` where the file is absent (the kernel
    /// did not enable ITMT) or, in a snapshot, was not copied (see
    /// [`Machine::itmt_missing`]).
    pub sched_itmt: Option<bool>,
    /// Power supplies with a charge type (trickle charge).
    pub charging_supplies: Vec<super::power_supply::ChargingSupply>,
    /// The machine has a battery of its own (a laptop), so "on battery"
    /// means something.
    pub battery: bool,
    /// ThinkPads' lap sensor (`thinkpad_acpi/dytc_lapmode`): on a lap the
    /// firmware limits performance to keep the underside cool.
    pub lap_mode: Option<bool>,
    /// What could not be read or understood.
    pub problems: Vec<Problem>,
    /// Values that were read but cannot be true, and are treated as unknown.
    pub ignored: Vec<IgnoredValue>,
}

impl Machine {
    /// Reads the machine under `root`. Never fails: what cannot be read is
    /// unknown, and what is garbage is listed in [`Machine::problems`].
    pub fn read(root: &SysRoot) -> Machine {
        let mut probe = Probe::new(root);
        let ids = cpu_ids(&mut probe);
        let mask = probe.parsed(paths::ONLINE_MASK, parse_cpu_list);
        let mut cpus: Vec<Cpu> = ids.iter().map(|&id| read_cpu(&mut probe, id, mask.as_deref())).collect();
        let online: Vec<u32> = cpus.iter().filter(|c| c.online).map(|c| c.id).collect();

        let identity = read_identity(&mut probe, &online);
        assign_core_types(&mut probe, &identity, &mut cpus);

        let mut policies = BTreeMap::new();
        for cpu in cpus.iter().filter(|c| c.online) {
            if let Some(id) = cpu.policy {
                policies.entry(id).or_insert_with(|| read_policy(&mut probe, id));
            }
        }
        let intel_status = probe.parsed(&global_file("intel_pstate/status"), parse_word);
        let amd_status = probe.parsed(&global_file("amd_pstate/status"), parse_word);
        // Where no policy names its driver, the status file still tells
        // which one registered them.
        let driver = policies.values().find_map(|p| p.driver.clone()).or_else(|| {
            let implied = match (intel_status.as_deref(), amd_status.as_deref()) {
                (Some("active"), _) => "intel_pstate",
                (Some("passive"), _) => "intel_cpufreq",
                (_, Some("active")) => "amd-pstate-epp",
                (_, Some("passive" | "guided")) => "amd-pstate",
                _ => return None,
            };
            (!policies.is_empty()).then(|| implied.to_owned())
        });
        let mode_control = match (&intel_status, &amd_status) {
            (Some(_), _) => Some(ModeControl::IntelStatus),
            (None, Some(_)) => Some(ModeControl::AmdStatus),
            (None, None) => None,
        };
        let status = intel_status.or(amd_status);
        let (mode, mode_source) = match status {
            Some(mode) => (Some(mode), Some(ModeSource::Status)),
            None => match driver.as_deref().map(DriverKind::from_name).and_then(DriverKind::implied_mode) {
                Some(mode) => (Some(mode.to_owned()), Some(ModeSource::Driver)),
                None => (None, None),
            },
        };
        let turbo = read_turbo(&mut probe, &policies);
        let firmware = Firmware::read(&mut probe);
        let kernel_release = probe.text(paths::OSRELEASE).map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
        let kernel = kernel_release.as_deref().and_then(|r| parse_kernel_version(r).ok());

        Machine {
            hwp_dynamic_boost: probe.parsed(&global_file("intel_pstate/hwp_dynamic_boost"), parse_flag),
            max_perf_pct: percent(&mut probe, "intel_pstate/max_perf_pct"),
            min_perf_pct: percent(&mut probe, "intel_pstate/min_perf_pct"),
            num_pstates: probe.parsed_plausible(
                &global_file("intel_pstate/num_pstates"),
                parse_u32,
                |n| plausible_perf_level(u64::from(*n)),
                NOT_A_PERF_LEVEL,
            ),
            turbo_pct: percent(&mut probe, "intel_pstate/turbo_pct"),
            prefcore: probe.parsed_lenient(&global_file("amd_pstate/prefcore"), parse_enabled),
            rapl: read_rapl(&mut probe),
            platform_profile: firmware.handlers.firmware,
            cpu_profiles: firmware.handlers.cpus,
            dynamic_epp: probe.parsed_lenient(&global_file(paths::DYNAMIC_EPP), parse_enabled),
            lap_mode: firmware.lap_mode,
            charging_supplies: firmware.charging_supplies,
            battery: firmware.battery,
            sched_itmt: probe.parsed(paths::SCHED_ITMT, parse_flag),
            identity,
            kernel_release,
            kernel,
            cpus,
            policies,
            driver,
            mode,
            mode_source,
            mode_control,
            turbo,
            problems: std::mem::take(&mut probe.problems),
            ignored: std::mem::take(&mut probe.ignored),
        }
    }

    /// The online CPUs with a cpufreq policy, grouped by their hardware
    /// frequency range, in the order of each group's first CPU. One group
    /// on most machines; several on hybrid CPUs and CPUs with favoured cores.
    pub fn frequency_ranges(&self) -> Vec<FrequencyRange> {
        let mut ranges: Vec<FrequencyRange> = Vec::new();
        for cpu in &self.cpus {
            let Some(policy) = self.policy_of(cpu) else { continue };
            let (lo, hi) = (policy.hw_min_khz, policy.hw_max_khz);
            match ranges.iter_mut().find(|r| r.hw_min_khz == lo && r.hw_max_khz == hi) {
                Some(range) => range.cpus.push(cpu.id),
                None => ranges.push(FrequencyRange { cpus: vec![cpu.id], hw_min_khz: lo, hw_max_khz: hi }),
            }
        }
        ranges
    }

    /// The driver classified.
    pub fn driver_kind(&self) -> Option<DriverKind> {
        self.driver.as_deref().map(DriverKind::from_name)
    }

    /// True when any online CPU offers EPP.
    pub fn epp_supported(&self) -> bool {
        self.policies.values().any(|p| p.has_epp)
    }

    /// True when any online CPU has an Energy Performance Bias file.
    pub fn epb_supported(&self) -> bool {
        self.cpus.iter().any(|c| c.online && c.energy_perf_bias.is_some())
    }

    /// True when cpufreq runs on this machine at all.
    pub fn has_cpufreq(&self) -> bool {
        !self.policies.is_empty()
    }

    /// True when nothing here takes a profile: no cpufreq, no energy bias,
    /// no platform profile.
    pub fn nothing_to_drive(&self) -> bool {
        !self.has_cpufreq() && !self.epb_supported() && self.platform_profile.is_none()
    }

    /// Reads again what the firmware changes by itself: the platform
    /// profile, the lap sensor, the power supplies, and intel_pstate's
    /// `no_turbo` (where that is how turbo is switched), with the same
    /// readers as [`Machine::read`]. Everything else stays.
    pub fn refresh_firmware(&mut self, root: &SysRoot) {
        let mut probe = Probe::new(root);
        let before = Handlers { firmware: self.platform_profile.clone(), cpus: self.cpu_profiles.clone() };
        let firmware = Firmware::read_again(&mut probe, &before);
        if let Some((_, TurboControl::IntelNoTurbo)) = self.turbo {
            if let Some(off) = probe.parsed(&global_file("intel_pstate/no_turbo"), parse_flag) {
                self.turbo = Some((!off, TurboControl::IntelNoTurbo));
            }
        }
        firmware.set(self);
    }

    /// The CPU with this number.
    pub fn cpu(&self, id: u32) -> Option<&Cpu> {
        self.cpus.iter().find(|c| c.id == id)
    }

    /// The policy of an online CPU.
    pub fn policy_of(&self, cpu: &Cpu) -> Option<&Policy> {
        if !cpu.online {
            return None;
        }
        cpu.policy.and_then(|id| self.policies.get(&id))
    }

    /// The numbers of the online CPUs.
    pub fn online_ids(&self) -> Vec<u32> {
        self.cpus.iter().filter(|c| c.online).map(|c| c.id).collect()
    }

    /// How many online CPUs of each core type there are (P, E).
    pub fn core_counts(&self) -> (usize, usize) {
        let count = |t| self.cpus.iter().filter(|c| c.online && c.core_type == Some(t)).count();
        (count(CoreType::Performance), count(CoreType::Efficiency))
    }

    /// A hybrid Intel CPU with HWP whose firmware does not describe ACPI
    /// CPPC (no `cpuN/acpi_cppc`) and whose kernel did not enable ITMT (no
    /// `sched_itmt_enabled`): kernels 5.19 to 6.9 without the fix then stop
    /// preferring P-cores. Claimed only where the kernel's files were read
    /// (`osrelease` is there), so that a snapshot that never copied
    /// `/proc/sys/kernel` is not taken for such a machine.
    pub fn itmt_missing(&self) -> bool {
        let hwp = self.identity.features.hwp == Some(true) || self.driver_kind() == Some(DriverKind::IntelPstate);
        self.identity.vendor == super::identity::Vendor::Intel
            && self.is_hybrid()
            && hwp
            && self.cpus.iter().filter(|c| c.online).all(|c| !c.acpi_cppc)
            && self.sched_itmt.is_none()
            && self.kernel_release.is_some()
    }

    /// True on a hybrid CPU (from CPUID/cpuinfo, or because sysfs shows both kinds of cores).
    pub fn is_hybrid(&self) -> bool {
        self.identity.hybrid || self.cpus.iter().any(|c| c.core_type.is_some())
    }
}

/// What the firmware changes by itself, read the same way at start and
/// when it says it changed ([`Machine::refresh_firmware`]).
struct Firmware {
    handlers: Handlers,
    lap_mode: Option<bool>,
    charging_supplies: Vec<super::power_supply::ChargingSupply>,
    battery: bool,
}

impl Firmware {
    fn read(probe: &mut Probe<'_>) -> Firmware {
        let handlers = Handlers::read(probe);
        Firmware::read_with(probe, handlers)
    }

    /// Reads it again; the platform profile handlers as [`Handlers::read_again`] does.
    fn read_again(probe: &mut Probe<'_>, before: &Handlers) -> Firmware {
        let handlers = Handlers::read_again(probe, Some(before));
        Firmware::read_with(probe, handlers)
    }

    fn read_with(probe: &mut Probe<'_>, handlers: Handlers) -> Firmware {
        Firmware {
            handlers,
            lap_mode: probe.parsed(paths::DYTC_LAPMODE, parse_flag),
            charging_supplies: super::power_supply::read(probe),
            battery: super::power_supply::has_system_battery(probe),
        }
    }

    fn set(self, machine: &mut Machine) {
        machine.platform_profile = self.handlers.firmware;
        machine.cpu_profiles = self.handlers.cpus;
        machine.lap_mode = self.lap_mode;
        machine.charging_supplies = self.charging_supplies;
        machine.battery = self.battery;
    }
}

/// The `cpuN` directories, as numbers. A tree that has a cpufreq policy
/// but not its CPU's directory (a test harness's, or a snapshot that copied
/// only policies) counts the policy's CPU too: on a real machine every
/// policy belongs to a CPU directory.
fn cpu_ids(probe: &mut Probe<'_>) -> Vec<u32> {
    let mut ids: Vec<u32> = probe.list(paths::CPU_DIR).iter().filter_map(|n| numbered(n, "cpu")).collect();
    let policies: Vec<u32> =
        probe.list(&format!("{}/cpufreq", paths::CPU_DIR)).iter().filter_map(|n| numbered(n, "policy")).collect();
    for policy in policies {
        if !ids.contains(&policy) {
            ids.push(policy);
        }
    }
    ids.sort_unstable();
    ids
}

fn read_cpu(probe: &mut Probe<'_>, id: u32, mask: Option<&[u32]>) -> Cpu {
    // cpu0 often has no online file: it cannot go offline.
    let online = probe
        .parsed(&cpu_file(id, "online"), parse_flag)
        .or_else(|| mask.map(|m| m.binary_search(&id).is_ok()))
        .unwrap_or(true);
    let mut cpu = Cpu {
        id,
        online,
        core_type: None,
        policy: None,
        energy_perf_bias: None,
        package: None,
        core_id: None,
        acpi_cppc: false,
    };
    if !online {
        // An offline CPU's policy is inactive and answers EBUSY: leave it alone.
        return cpu;
    }
    cpu.policy = policy_link(probe, id);
    cpu.energy_perf_bias = probe.parsed(&cpu_file(id, "power/energy_perf_bias"), parse_epb);
    cpu.package = probe.parsed(&cpu_file(id, "topology/physical_package_id"), parse_u32);
    cpu.core_id = probe.parsed(&cpu_file(id, "topology/core_id"), parse_u32);
    cpu.acpi_cppc = probe.root().kind(&cpu_file(id, "acpi_cppc")) != EntryKind::Missing;
    cpu
}

/// Why an impossible percentage is ignored.
const NOT_A_PERCENT: &str = "is not a percentage";

/// An `intel_pstate/*_pct` file: a percentage, or unknown.
fn percent(probe: &mut Probe<'_>, attr: &str) -> Option<u64> {
    probe.parsed_plausible(&global_file(attr), parse_u64, |v| plausible_percent(*v), NOT_A_PERCENT)
}

/// The policy number behind `cpuN/cpufreq` (a link to `../cpufreq/policyM`).
fn policy_link(probe: &mut Probe<'_>, cpu: u32) -> Option<u32> {
    let rel = cpu_file(cpu, "cpufreq");
    let root = probe.root();
    let policy = match root.kind(&rel) {
        // No link at all: the policy of the same number, where the tree
        // has one (see `cpu_ids`).
        EntryKind::Missing => {
            return matches!(root.kind(&paths::policy_dir(cpu)), EntryKind::Dir | EntryKind::LinkToDir).then_some(cpu)
        }
        // Only the link's last component is used, and it is looked up under
        // the root: a snapshot's absolute links cannot escape it.
        EntryKind::LinkToDir | EntryKind::DanglingLink => {
            let target = root.read_link(&rel);
            match target
                .as_ref()
                .and_then(|t| t.file_name())
                .and_then(|n| n.to_str())
                .and_then(|n| numbered(n, "policy"))
            {
                Some(policy) => policy,
                None => {
                    probe.report(
                        &rel,
                        format!("links to {:?}, which is not a cpufreq policy", target.unwrap_or_default()),
                    );
                    return None;
                }
            }
        }
        EntryKind::Dir => cpu,
        EntryKind::LinkLoop => {
            probe.report(&rel, "is a loop of symbolic links");
            return None;
        }
        EntryKind::File | EntryKind::LinkToOther => {
            probe.report(&rel, "is not a directory or a link to a cpufreq policy");
            return None;
        }
    };
    if !matches!(root.kind(&paths::policy_dir(policy)), EntryKind::Dir | EntryKind::LinkToDir) {
        probe.report(&rel, format!("points to cpufreq/policy{policy}, which does not exist"));
        return None;
    }
    Some(policy)
}

/// P- and E-cores: sysfs's hybrid PMUs first, CPUID leaf 0x1A otherwise.
fn assign_core_types(probe: &mut Probe<'_>, identity: &CpuIdentity, cpus: &mut [Cpu]) {
    let core = probe.parsed(paths::CORE_PMU_CPUS, parse_cpu_list);
    let atom = probe.parsed(paths::ATOM_PMU_CPUS, parse_cpu_list);
    let mut types: BTreeMap<u32, CoreType> = BTreeMap::new();
    if core.is_some() || atom.is_some() {
        for id in core.unwrap_or_default() {
            types.insert(id, CoreType::Performance);
        }
        for id in atom.unwrap_or_default() {
            types.insert(id, CoreType::Efficiency);
        }
    } else if identity.hybrid {
        types.clone_from(&identity.cpuid_core_types);
    }
    for cpu in cpus.iter_mut() {
        cpu.core_type = types.get(&cpu.id).copied();
    }
}

fn read_turbo(probe: &mut Probe<'_>, policies: &BTreeMap<u32, Policy>) -> Option<(bool, TurboControl)> {
    if let Some(no_turbo) = probe.parsed(&global_file("intel_pstate/no_turbo"), parse_flag) {
        return Some((!no_turbo, TurboControl::IntelNoTurbo));
    }
    if let Some(boost) = probe.parsed(&global_file("cpufreq/boost"), parse_flag) {
        return Some((boost, TurboControl::GlobalBoost));
    }
    let per_policy: BTreeSet<bool> = policies.values().filter_map(|p| p.boost).collect();
    if per_policy.is_empty() {
        return None;
    }
    Some((per_policy.contains(&true), TurboControl::PolicyBoost))
}

fn read_rapl(probe: &mut Probe<'_>) -> Vec<RaplZone> {
    let names = probe.list(paths::POWERCAP_DIR);
    names
        .into_iter()
        .filter(|n| paths::is_rapl_zone(n))
        .map(|zone| {
            let dir = format!("{}/{zone}", paths::POWERCAP_DIR);
            RaplZone {
                name: probe.parsed(&format!("{dir}/name"), parse_word),
                max_energy_range_uj: probe.parsed(&format!("{dir}/max_energy_range_uj"), parse_u64),
                zone,
            }
        })
        .collect()
}

/// A fixture snapshot of `tests/fixtures`, read: for unit tests.
#[cfg(test)]
pub(crate) fn fixture(name: &str) -> Machine {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    Machine::read(&crate::core::root::SysRoot::open(&dir).unwrap())
}

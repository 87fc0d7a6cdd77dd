//! The machine as sysfs shows it: CPUs, their cpufreq policies, the driver
//! and its mode, turbo, RAPL zones. Read once, in one pass, into plain data.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::cpuid::read_identity;
use super::identity::{CoreType, CpuIdentity};
use super::parse::{
    parse_cpu_list, parse_epb, parse_epp, parse_flag, parse_kernel_version, parse_u64, parse_word, parse_words,
    EppName, EppReading, KernelVersion,
};
use super::paths::{self, cpu_file, global_file, numbered, policy_file};
use super::root::{EntryKind, Probe, Problem, SysRoot};

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

/// One cpufreq policy (usually one per CPU).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Policy {
    /// The policy number (`policyN`).
    pub id: u32,
    /// CPUs that share this policy.
    pub related_cpus: Vec<u32>,
    /// `scaling_driver`.
    pub driver: Option<String>,
    /// `scaling_governor`.
    pub governor: Option<String>,
    /// `scaling_available_governors`.
    pub available_governors: Vec<String>,
    /// `energy_performance_preference`, as the kernel shows it.
    pub epp: Option<EppReading>,
    /// The EPP file exists (the CPU and driver support EPP).
    pub has_epp: bool,
    /// `energy_performance_available_preferences`.
    pub available_preferences: Vec<EppName>,
    /// `scaling_cur_freq` in kHz.
    pub cur_khz: Option<u64>,
    /// `scaling_min_freq` in kHz.
    pub min_khz: Option<u64>,
    /// `scaling_max_freq` in kHz.
    pub max_khz: Option<u64>,
    /// `cpuinfo_min_freq` in kHz: the hardware's lowest.
    pub hw_min_khz: Option<u64>,
    /// `cpuinfo_max_freq` in kHz: the hardware's highest (with turbo).
    pub hw_max_khz: Option<u64>,
    /// `base_frequency` in kHz (Intel HWP).
    pub base_khz: Option<u64>,
    /// Per-policy `boost` (newer amd-pstate).
    pub boost: Option<bool>,
    /// `amd_pstate_prefcore_ranking`: higher runs first.
    pub prefcore_ranking: Option<u32>,
    /// `amd_pstate_highest_perf`.
    pub highest_perf: Option<u32>,
}

/// The cpufreq driver in charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DriverKind {
    /// `intel_pstate` in active mode: its own governors, EPP.
    IntelPstate,
    /// `intel_cpufreq`: intel_pstate in passive mode under generic governors.
    IntelCpufreq,
    /// `amd-pstate-epp`: amd-pstate active mode with EPP.
    AmdPstateEpp,
    /// `amd-pstate`: passive or guided, no EPP.
    AmdPstate,
    /// `acpi-cpufreq`: ACPI P-states.
    AcpiCpufreq,
    /// Anything else.
    Other,
}

impl DriverKind {
    /// Classifies a `scaling_driver` name.
    pub fn from_name(name: &str) -> DriverKind {
        match name {
            "intel_pstate" => DriverKind::IntelPstate,
            "intel_cpufreq" => DriverKind::IntelCpufreq,
            "amd-pstate-epp" => DriverKind::AmdPstateEpp,
            "amd-pstate" => DriverKind::AmdPstate,
            "acpi-cpufreq" => DriverKind::AcpiCpufreq,
            _ => DriverKind::Other,
        }
    }
}

/// How turbo (boost) is switched, if it can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurboControl {
    /// `intel_pstate/no_turbo` (inverted: 1 means turbo off).
    IntelNoTurbo,
    /// `cpufreq/boost`.
    GlobalBoost,
    /// Per-policy `boost` files.
    PolicyBoost,
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
    /// `intel_pstate/status` or `amd_pstate/status`.
    pub mode: Option<String>,
    /// Whether turbo/boost is on, and how it is switched.
    pub turbo: Option<(bool, TurboControl)>,
    /// `intel_pstate/hwp_dynamic_boost`.
    pub hwp_dynamic_boost: Option<bool>,
    /// `intel_pstate/max_perf_pct`.
    pub max_perf_pct: Option<u64>,
    /// `intel_pstate/min_perf_pct`.
    pub min_perf_pct: Option<u64>,
    /// `amd_pstate/prefcore`: preferred-core ranking in use.
    pub prefcore: Option<bool>,
    /// RAPL energy zones present.
    pub rapl: Vec<RaplZone>,
    /// What could not be read or understood.
    pub problems: Vec<Problem>,
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
        let driver = policies.values().find_map(|p| p.driver.clone());
        let mode = probe
            .parsed(&global_file("intel_pstate/status"), parse_word)
            .or_else(|| probe.parsed(&global_file("amd_pstate/status"), parse_word));
        let turbo = read_turbo(&mut probe, &policies);
        let kernel_release = probe.text(paths::OSRELEASE).map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
        let kernel = kernel_release.as_deref().and_then(|r| parse_kernel_version(r).ok());

        Machine {
            hwp_dynamic_boost: probe.parsed(&global_file("intel_pstate/hwp_dynamic_boost"), parse_flag),
            max_perf_pct: probe.parsed(&global_file("intel_pstate/max_perf_pct"), parse_u64),
            min_perf_pct: probe.parsed(&global_file("intel_pstate/min_perf_pct"), parse_u64),
            prefcore: probe.parsed_lenient(&global_file("amd_pstate/prefcore"), |t| match t.trim() {
                "enabled" => Ok(true),
                "disabled" => Ok(false),
                _ => parse_flag(t),
            }),
            rapl: read_rapl(&mut probe),
            identity,
            kernel_release,
            kernel,
            cpus,
            policies,
            driver,
            mode,
            turbo,
            problems: std::mem::take(&mut probe.problems),
        }
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

    /// True on a hybrid CPU (from CPUID/cpuinfo, or because sysfs shows both kinds of cores).
    pub fn is_hybrid(&self) -> bool {
        self.identity.hybrid || self.cpus.iter().any(|c| c.core_type.is_some())
    }
}

/// The `cpuN` directories, as numbers.
fn cpu_ids(probe: &mut Probe<'_>) -> Vec<u32> {
    let mut ids: Vec<u32> = probe.list(paths::CPU_DIR).iter().filter_map(|n| numbered(n, "cpu")).collect();
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

fn parse_u32(text: &str) -> Result<u32, super::parse::ParseError> {
    let value = parse_u64(text)?;
    u32::try_from(value).map_err(|_| super::parse::ParseError::new("a number below 2^32", text))
}

/// The policy number behind `cpuN/cpufreq` (a link to `../cpufreq/policyM`).
fn policy_link(probe: &mut Probe<'_>, cpu: u32) -> Option<u32> {
    let rel = cpu_file(cpu, "cpufreq");
    let root = probe.root();
    let policy = match root.kind(&rel) {
        EntryKind::Missing => return None,
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

fn read_policy(probe: &mut Probe<'_>, id: u32) -> Policy {
    let file = |attr: &str| policy_file(id, attr);
    let epp_rel = file("energy_performance_preference");
    let has_epp = probe.root().kind(&epp_rel) != EntryKind::Missing;
    let available_preferences = probe
        .parsed(&file("energy_performance_available_preferences"), parse_words)
        .unwrap_or_default()
        .iter()
        .filter_map(|w| EppName::from_kernel(w))
        .collect();
    Policy {
        id,
        related_cpus: probe.parsed(&file("related_cpus"), parse_cpu_list).unwrap_or_default(),
        driver: probe.parsed(&file("scaling_driver"), parse_word),
        governor: probe.parsed(&file("scaling_governor"), parse_word),
        available_governors: probe.parsed(&file("scaling_available_governors"), parse_words).unwrap_or_default(),
        epp: if has_epp { probe.parsed(&epp_rel, parse_epp) } else { None },
        has_epp,
        available_preferences,
        // Some drivers print "<unknown>" for the current frequency.
        cur_khz: probe.parsed_lenient(&file("scaling_cur_freq"), parse_u64),
        min_khz: probe.parsed(&file("scaling_min_freq"), parse_u64),
        max_khz: probe.parsed(&file("scaling_max_freq"), parse_u64),
        hw_min_khz: probe.parsed(&file("cpuinfo_min_freq"), parse_u64),
        hw_max_khz: probe.parsed(&file("cpuinfo_max_freq"), parse_u64),
        base_khz: probe.parsed(&file("base_frequency"), parse_u64),
        boost: probe.parsed(&file("boost"), parse_flag),
        prefcore_ranking: probe.parsed(&file("amd_pstate_prefcore_ranking"), parse_u32),
        highest_perf: probe.parsed(&file("amd_pstate_highest_perf"), parse_u32),
    }
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

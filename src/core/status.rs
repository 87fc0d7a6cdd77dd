//! The machine and its profiles as one serialisable report: what
//! `gearshift status --json` prints (the fixed fields are in docs/interfaces.md, plus more).

use serde::Serialize;

use crate::i18n::Text;

use super::custom::CustomProfile;
use super::identity::{CoreType, CpuFeatures, IdentitySource};
use super::machine::{FrequencyRange, ModeSource, TurboControl};
use super::panel::PanelProfile;
use super::parse::{format_cpu_list, EppName, KernelVersion};
use super::plan::{Plan, PreferenceForm};
use super::profile::{BuiltinProfile, Resolver};
use super::root::{IgnoredValue, Problem};

mod config;
mod cpus;
mod holds;

pub use config::ConfigLine;
use cpus::{cpu_lines, cpu_report};
pub use holds::{HoldLine, RuleLine};

/// The CPU part of the report.
#[derive(Debug, Clone, Serialize)]
pub struct CpuReport {
    /// Vendor string (`GenuineIntel`).
    pub vendor: Option<String>,
    /// Display family.
    pub family: Option<u32>,
    /// Display model.
    pub model: Option<u32>,
    /// Stepping.
    pub stepping: Option<u32>,
    /// Brand string.
    pub model_name: Option<String>,
    /// Codename from the model table.
    pub codename: Option<String>,
    /// The codename's variant.
    pub variant: Option<String>,
    /// Two kinds of cores.
    pub hybrid: bool,
    /// Online P-cores (hybrid only).
    pub performance_cores: Option<usize>,
    /// Online E-cores (hybrid only).
    pub efficiency_cores: Option<usize>,
    /// HWP, EPP, EPB, CPPC, Fast CPPC.
    pub features: CpuFeatures,
    /// CPUID or cpuinfo.
    pub identity_source: IdentitySource,
    /// Disagreements between CPUID and cpuinfo.
    pub notes: Vec<String>,
}

/// One CPU in the report.
#[derive(Debug, Clone, Serialize)]
pub struct CpuLine {
    /// CPU number.
    pub id: u32,
    /// Online or not.
    pub online: bool,
    /// `performance` or `efficiency` on hybrid CPUs, null otherwise.
    pub core_type: Option<CoreType>,
    /// Its cpufreq policy.
    pub policy: Option<u32>,
    /// `scaling_governor`.
    pub governor: Option<String>,
    /// `energy_performance_preference` as the kernel shows it.
    pub epp: Option<String>,
    /// The number behind it, where it can be known.
    pub epp_value: Option<u8>,
    /// Energy Performance Bias.
    pub energy_perf_bias: Option<u8>,
    /// Current frequency in kHz.
    pub cur_khz: Option<u64>,
    /// `scaling_min_freq`.
    pub min_khz: Option<u64>,
    /// `scaling_max_freq`.
    pub max_khz: Option<u64>,
    /// `cpuinfo_min_freq`.
    pub hw_min_khz: Option<u64>,
    /// `cpuinfo_max_freq`.
    pub hw_max_khz: Option<u64>,
    /// `base_frequency`.
    pub base_khz: Option<u64>,
    /// `amd_pstate_lowest_nonlinear_freq`: where amd-pstate-epp puts
    /// `scaling_min_freq` by default (above the hardware's lowest).
    pub lowest_nonlinear_khz: Option<u64>,
    /// Socket.
    pub package: Option<u32>,
    /// AMD preferred-core ranking.
    pub prefcore_ranking: Option<u32>,
    /// `amd_pstate_hw_prefcore`: the hardware ranks its cores.
    pub hw_prefcore: Option<bool>,
    /// Governors offered.
    pub available_governors: Vec<String>,
    /// Preference names offered.
    pub available_preferences: Vec<EppName>,
}

/// One profile as it resolves here.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileLine {
    /// Profile id.
    pub id: String,
    /// The name, in English for a built-in profile (JSON is data), as its
    /// owner wrote it for a custom one; [`ProfileLine::title`] is what people
    /// read.
    pub name: String,
    /// Built in (or custom).
    pub builtin: bool,
    /// The EPP number this machine gets (null without EPP; for custom
    /// profiles with per-core-type values, the P-core value).
    pub epp: Option<u8>,
    /// Distinct EPP values per core type, for hybrid custom profiles.
    pub epp_values: Vec<u8>,
    /// The text written to `energy_performance_preference` (or the bias).
    pub written_as: Option<String>,
    /// The governor set with it.
    pub governor: Option<String>,
    /// What this kernel itself uses for the same name.
    pub kernel_epp: Option<u8>,
    /// How the desktop power panel shows it (`core::panel`).
    pub power_panel: PanelProfile,
    /// The firmware's platform profile it sets (null without one; where
    /// handlers get different names, the first handler's).
    pub platform_profile: Option<String>,
    /// Why a custom profile cannot be used here.
    pub error: Option<String>,
    /// The administrator's file that declares it (null for built-in and
    /// saved profiles).
    pub declared_in: Option<String>,
}

impl ProfileLine {
    /// The name to show: a built-in profile's translatable name, a custom
    /// profile's own.
    pub fn title(&self) -> Text {
        match BuiltinProfile::from_id(&self.id).filter(|_| self.builtin) {
            Some(profile) => profile.name(),
            None => Text::from(self.name.clone()),
        }
    }
}

/// Where the model's values come from.
#[derive(Debug, Clone, Serialize)]
pub struct ModelReport {
    /// Kernel source of the values.
    pub source: String,
    /// The model has its own values (not the vendor's generic ones).
    pub model_specific: bool,
    /// The first kernel that knows them.
    pub since_kernel: Option<KernelVersion>,
    /// Whether the running kernel already uses them.
    pub kernel_knows_values: Option<bool>,
}

/// CPUs that share one hardware frequency range.
#[derive(Debug, Clone, Serialize)]
pub struct RangeLine {
    /// The CPUs as a kernel CPU list (`0-3,5,7-11`).
    pub cpus: String,
    /// `cpuinfo_min_freq` in kHz.
    pub hw_min_khz: Option<u64>,
    /// `cpuinfo_max_freq` in kHz.
    pub hw_max_khz: Option<u64>,
}

impl From<FrequencyRange> for RangeLine {
    fn from(range: FrequencyRange) -> Self {
        RangeLine { cpus: format_cpu_list(&range.cpus), hw_min_khz: range.hw_min_khz, hw_max_khz: range.hw_max_khz }
    }
}

/// The hardware frequency ranges in a line, such as
/// "400–4700 MHz (0-3,5,7-11) · 400–4900 MHz (4,6)"; the CPU list is left
/// out when one range covers every CPU, a bound that is not known is shown
/// as "≤" or "≥" the other. `None` when no bound is known at all.
pub fn describe_ranges(ranges: &[RangeLine]) -> Option<String> {
    if ranges.iter().all(|r| r.hw_min_khz.is_none() && r.hw_max_khz.is_none()) {
        return None;
    }
    let mhz = |khz: u64| (khz + 500) / 1000;
    let range = |r: &RangeLine| match (r.hw_min_khz, r.hw_max_khz) {
        (Some(lo), Some(hi)) => format!("{}–{} MHz", mhz(lo), mhz(hi)),
        (None, Some(hi)) => format!("≤ {} MHz", mhz(hi)),
        (Some(lo), None) => format!("≥ {} MHz", mhz(lo)),
        (None, None) => "—".to_owned(),
    };
    let parts: Vec<String> = match ranges {
        [one] => vec![range(one)],
        many => many.iter().map(|r| format!("{} ({})", range(r), r.cpus)).collect(),
    };
    Some(parts.join(" · "))
}

/// The firmware's platform profile in the report.
#[derive(Debug, Clone, Serialize)]
pub struct PlatformLine {
    /// `legacy` and `class:NAME` for each interface that shows it.
    pub interfaces: Vec<String>,
    /// The names every handler offers, in the kernel's order.
    pub choices: Vec<String>,
    /// What it is now (`custom` where handlers disagree).
    pub current: Option<String>,
    /// What the firmware offers in words, as `detect` says it too
    /// (`PlatformProfile::offered`: each handler's own where they differ).
    #[serde(skip)]
    pub offers: String,
}

/// The CPUs' own platform profiles in the report.
#[derive(Debug, Clone, Serialize)]
pub struct CpuProfilesLine {
    /// The CPUs that have one.
    pub cpus: Vec<u32>,
    /// What they show: one name where all agree, else `custom`.
    pub current: Option<String>,
}

/// Where the active profile was learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActiveSource {
    /// The helper said so.
    Helper,
    /// The machine's settings match the profile.
    Settings,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// Gearshift's version.
    pub gearshift_version: &'static str,
    /// The root read (`/` for the live machine).
    pub root: String,
    /// Kernel release.
    pub kernel: Option<String>,
    /// The CPU.
    pub cpu: CpuReport,
    /// `scaling_driver`.
    pub driver: Option<String>,
    /// Driver mode.
    pub mode: Option<String>,
    /// `status` when read from the driver's status file, `driver` when the
    /// driver's name implies it.
    pub mode_source: Option<ModeSource>,
    /// The modes this driver can be switched to (`gearshift mode set`);
    /// empty where it has no mode file.
    pub modes: Vec<crate::core::machine::DriverMode>,
    /// Any online CPU offers EPP.
    pub epp_supported: bool,
    /// How the energy preference is written here.
    pub preference_form: PreferenceForm,
    /// Turbo/boost on.
    pub turbo: Option<bool>,
    /// Which file switches turbo.
    pub turbo_control: Option<TurboControl>,
    /// `hwp_dynamic_boost`.
    pub hwp_dynamic_boost: Option<bool>,
    /// `intel_pstate/max_perf_pct`.
    pub max_perf_pct: Option<u64>,
    /// `intel_pstate/min_perf_pct`.
    pub min_perf_pct: Option<u64>,
    /// `intel_pstate/num_pstates` (null on hybrid CPUs, and where the
    /// kernel showed an impossible number).
    pub num_pstates: Option<u32>,
    /// `intel_pstate/turbo_pct`.
    pub turbo_pct: Option<u64>,
    /// `amd_pstate/prefcore`: preferred-core ranking in use.
    pub prefcore: Option<bool>,
    /// RAPL zones (`package-0`, `core`, ...).
    pub rapl: Vec<String>,
    /// The firmware's platform profile (null where no driver offers one).
    pub platform_profile: Option<PlatformLine>,
    /// `amd_pstate/dynamic_epp` (Linux 7.1; null where the file is absent):
    /// while on, the kernel sets EPP itself and refuses other values.
    pub dynamic_epp: Option<bool>,
    /// The CPUs' own platform profiles (amd-pstate with dynamic EPP), not
    /// the firmware's (null where there are none).
    pub cpu_platform_profiles: Option<CpuProfilesLine>,
    /// ThinkPads: the machine sits on a lap (null where there is no sensor).
    pub lap_mode: Option<bool>,
    /// The machine has a battery of its own (`sys/class/power_supply`).
    pub battery: bool,
    /// `sched_itmt_enabled` (null where absent).
    pub sched_itmt: Option<bool>,
    /// A hybrid Intel CPU whose kernel does not prefer its P-cores (no ACPI
    /// CPPC v2, no ITMT): see the `itmt` finding of `detect`.
    pub itmt_missing: bool,
    /// Online CPUs as a list (`0-21`).
    pub online: String,
    /// Offline CPUs as a list.
    pub offline: String,
    /// The hardware frequency ranges and the CPUs of each (several on
    /// hybrid CPUs and CPUs with favoured cores).
    pub frequency_ranges: Vec<RangeLine>,
    /// Every CPU.
    pub cpus: Vec<CpuLine>,
    /// Every profile.
    pub profiles: Vec<ProfileLine>,
    /// The model table's verdict.
    pub model_table: Option<ModelReport>,
    /// The active profile.
    pub active_profile: Option<String>,
    /// How the active profile was learned.
    pub active_profile_source: Option<ActiveSource>,
    /// Other power managers found (the ids in docs/interfaces.md).
    pub conflicts: Vec<String>,
    /// The same, by program (`tlp-pd` where `conflicts` says `tlp`), which
    /// the advice follows.
    pub conflict_programs: Vec<String>,
    /// Files that could not be read or understood.
    pub problems: Vec<Problem>,
    /// Values the kernel showed that cannot be true, treated as unknown.
    pub ignored_values: Vec<IgnoredValue>,
    /// What the administrator's configuration sets (docs/fleet.md); absent
    /// where there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<ConfigLine>,
    /// What holds a profile now, as the helper says (`gearshift launch`,
    /// the rules, GameMode, the desktop's holds); absent where nothing does
    /// or no helper was asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub holds: Vec<HoldLine>,
    /// The rules in effect (docs/rules.md), the administrator's first;
    /// absent where there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleLine>,
}

impl Status {
    /// Builds the report. `active` is what the helper says, if it was
    /// asked; `conflicts` names other power managers by program.
    pub fn build(
        root: &str,
        resolver: &Resolver<'_>,
        customs: &[CustomProfile],
        active: Option<String>,
        conflicts: Vec<String>,
        extra_problems: &[Problem],
    ) -> Status {
        let machine = resolver.machine;
        let model = resolver.model.as_ref();
        let profiles = profile_lines(resolver, customs);
        let (active_profile, active_profile_source) = match active {
            Some(id) => (Some(id), Some(ActiveSource::Helper)),
            None => match matching_profile(resolver, customs) {
                Some(id) => (Some(id), Some(ActiveSource::Settings)),
                None => (None, None),
            },
        };
        let mut problems = machine.problems.clone();
        problems.extend_from_slice(extra_problems);
        Status {
            gearshift_version: env!("CARGO_PKG_VERSION"),
            root: root.to_owned(),
            kernel: machine.kernel_release.clone(),
            cpu: cpu_report(resolver),
            driver: machine.driver.clone(),
            mode: machine.mode.clone(),
            mode_source: machine.mode_source,
            modes: machine.mode_control.map(|c| c.modes().to_vec()).unwrap_or_default(),
            epp_supported: machine.epp_supported(),
            preference_form: resolver.form,
            turbo: machine.turbo.map(|(on, _)| on),
            turbo_control: machine.turbo.map(|(_, control)| control),
            hwp_dynamic_boost: machine.hwp_dynamic_boost,
            max_perf_pct: machine.max_perf_pct,
            min_perf_pct: machine.min_perf_pct,
            num_pstates: machine.num_pstates,
            turbo_pct: machine.turbo_pct,
            prefcore: machine.prefcore,
            rapl: machine.rapl.iter().filter_map(|z| z.name.clone()).collect(),
            platform_profile: machine.platform_profile.as_ref().map(|p| PlatformLine {
                interfaces: p.interfaces.clone(),
                choices: p.choices.clone(),
                current: p.current.clone(),
                offers: p.offered(),
            }),
            dynamic_epp: machine.dynamic_epp,
            cpu_platform_profiles: (!machine.cpu_profiles.is_empty()).then(|| {
                let first = machine.cpu_profiles[0].current.clone();
                let same = machine.cpu_profiles.iter().all(|h| h.current == first);
                CpuProfilesLine {
                    cpus: machine.cpu_profiles.iter().map(|h| h.cpu).collect(),
                    current: if same { first } else { Some("custom".to_owned()) },
                }
            }),
            lap_mode: machine.lap_mode,
            battery: machine.battery,
            sched_itmt: machine.sched_itmt,
            itmt_missing: machine.itmt_missing(),
            online: format_cpu_list(&machine.online_ids()),
            offline: format_cpu_list(&machine.cpus.iter().filter(|c| !c.online).map(|c| c.id).collect::<Vec<_>>()),
            frequency_ranges: machine.frequency_ranges().into_iter().map(RangeLine::from).collect(),
            cpus: cpu_lines(machine, resolver),
            profiles,
            model_table: model.map(|m| ModelReport {
                source: m.source.clone(),
                model_specific: m.model_specific,
                since_kernel: m.since_kernel,
                kernel_knows_values: m.kernel_knows_model(machine.kernel),
            }),
            active_profile,
            active_profile_source,
            conflicts: super::conflicts::ids_of(&conflicts),
            conflict_programs: conflicts,
            problems,
            ignored_values: machine.ignored.clone(),
            config: None,
            holds: Vec::new(),
            rules: Vec::new(),
        }
    }
}

/// Every profile as this machine gets it: the built-in ones, then `customs`.
fn profile_lines(resolver: &Resolver<'_>, customs: &[CustomProfile]) -> Vec<ProfileLine> {
    let mut profiles: Vec<ProfileLine> = BuiltinProfile::ALL
        .into_iter()
        .map(|p| {
            let plan = resolver.builtin(p);
            ProfileLine {
                id: p.id().to_owned(),
                name: p.name().english(),
                builtin: true,
                epp: resolver.epp_for(p.epp_name()),
                epp_values: plan.epp_values(),
                written_as: first_written(&plan),
                governor: first_governor(&plan),
                kernel_epp: if resolver.epp_for(p.epp_name()).is_some() {
                    resolver.kernel_epp_for(p.epp_name())
                } else {
                    None
                },
                power_panel: PanelProfile::of_builtin(p),
                platform_profile: platform_of(&plan),
                error: None,
                declared_in: None,
            }
        })
        .collect();
    for custom in customs {
        let (plan, error) = match resolver.custom(custom) {
            Ok(plan) => (Some(plan), None),
            Err(err) => (None, Some(err.detail())),
        };
        let values = plan.as_ref().map(Plan::epp_values).unwrap_or_default();
        let p_value = plan.as_ref().and_then(|plan| {
            plan.cpus
                .iter()
                .find(|c| resolver.core_type_of(c.cpu) != Some(CoreType::Efficiency))
                .and_then(|c| c.epp_value)
        });
        profiles.push(ProfileLine {
            id: custom.id.clone(),
            name: custom.name.clone(),
            builtin: false,
            epp: p_value.or_else(|| values.first().copied()),
            epp_values: values,
            written_as: plan.as_ref().and_then(first_written),
            governor: plan.as_ref().and_then(first_governor),
            kernel_epp: None,
            power_panel: custom.panel_profile(resolver.model.as_ref().map(|m| &m.epp)),
            platform_profile: plan.as_ref().and_then(platform_of),
            error,
            declared_in: None,
        });
    }
    profiles
}

fn platform_of(plan: &Plan) -> Option<String> {
    plan.platform.first().map(|p| p.choice.clone())
}

fn first_written(plan: &Plan) -> Option<String> {
    plan.cpus.iter().find_map(|c| c.preference).map(|p| p.to_kernel_text())
}

fn first_governor(plan: &Plan) -> Option<String> {
    plan.cpus.iter().find_map(|c| c.governor.clone())
}

impl Status {
    /// Notes where the administrator's configuration declares each profile
    /// it declares, and the configuration's own line.
    pub fn mark_declared(&mut self, config: &crate::core::config::Config) {
        for declared in &config.profiles {
            if let Some(line) = self.profiles.iter_mut().find(|p| !p.builtin && p.id == declared.value.id) {
                line.declared_in = Some(declared.file.display().to_string());
            }
        }
        self.config = ConfigLine::of(config);
    }

    /// The other built-in profiles that set exactly what `id` sets here
    /// (the same EPP, governor and platform profile), by name: on a
    /// desktop with acpi-cpufreq, Balanced and Efficient both choose
    /// schedutil.
    pub fn same_here(&self, id: &str) -> Vec<String> {
        let values = |p: &ProfileLine| {
            (p.epp_values.clone(), p.written_as.clone(), p.governor.clone(), p.platform_profile.clone())
        };
        let Some(line) = self.profiles.iter().find(|p| p.id == id && p.error.is_none()) else { return Vec::new() };
        self.profiles
            .iter()
            .filter(|p| p.builtin && p.id != id && p.error.is_none() && values(p) == values(line))
            .map(|p| p.title().localized())
            .collect()
    }
}

/// The profile (built-in first, then custom) the machine's settings match.
pub fn matching_profile(resolver: &Resolver<'_>, customs: &[CustomProfile]) -> Option<String> {
    if let Some(p) = resolver.matching_builtin() {
        return Some(p.id().to_owned());
    }
    customs.iter().find(|c| resolver.custom(c).is_ok_and(|plan| resolver.plan_matches(&plan))).map(|c| c.id.clone())
}

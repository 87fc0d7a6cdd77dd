//! The hardware report: what was found, what it means, and what Gearshift
//! recommends. `gearshift detect` prints it and the first-run wizard shows it.

use serde::Serialize;

use super::identity::Vendor;
use super::machine::DriverKind;
use super::parse::EppName;
use super::plan::PreferenceForm;
use super::profile::{BuiltinProfile, Resolver};
use crate::i18n::{gettext, i18n_f};

/// How a finding should be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A plain fact.
    Info,
    /// Good news: something Gearshift can use.
    Good,
    /// Something that limits what Gearshift can do.
    Warning,
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// A stable id (`cpu`, `driver`, `epp`, ...).
    pub id: &'static str,
    /// Good, info or warning.
    pub level: Level,
    /// A short label ("Driver").
    pub label: String,
    /// The value ("intel_pstate, active mode").
    pub value: String,
    /// What it means, in a sentence or two.
    pub detail: String,
}

/// What one profile will write compared with the kernel's own value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileChange {
    /// Profile id.
    pub profile: &'static str,
    /// Display name.
    pub name: String,
    /// The EPP Gearshift writes.
    pub gearshift_epp: Option<u8>,
    /// The EPP this kernel uses for the same name.
    pub kernel_epp: Option<u8>,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct HardwareReport {
    /// Every finding, in reading order.
    pub findings: Vec<Finding>,
    /// Whether Gearshift can steer this machine at all.
    pub can_tune: bool,
    /// When it cannot, why.
    pub why_not: Option<String>,
    /// Profile suggested on AC power.
    pub on_ac: &'static str,
    /// Profile suggested on battery.
    pub on_battery: &'static str,
    /// Per built-in profile: Gearshift's EPP and this kernel's.
    pub changes: Vec<ProfileChange>,
    /// The recommendation in one paragraph.
    pub summary: String,
}

fn yes_no(value: Option<bool>) -> String {
    match value {
        Some(true) => gettext("yes"),
        Some(false) => gettext("no"),
        None => gettext("unknown"),
    }
}

impl HardwareReport {
    /// Builds the report for the resolver's machine.
    pub fn build(resolver: &Resolver<'_>) -> HardwareReport {
        let machine = resolver.machine;
        let id = &machine.identity;
        let model = resolver.model.as_ref();
        let mut findings = Vec::new();
        let mut add = |id: &'static str, level: Level, label: String, value: String, detail: String| {
            findings.push(Finding { id, level, label, value, detail });
        };

        let brand = id.model_name.clone().unwrap_or_else(|| gettext("Unknown CPU"));
        let codename = model.and_then(|m| m.codename.clone());
        add(
            "cpu",
            Level::Info,
            gettext("Processor"),
            brand,
            match &codename {
                Some(name) => i18n_f("{}, {}", &[name, &id.family_model_text()]),
                None => id.family_model_text(),
            },
        );

        let online = machine.online_ids().len();
        let (p, e) = machine.core_counts();
        let cores_detail = if machine.is_hybrid() {
            i18n_f(
                "A hybrid CPU: {} logical CPUs on performance cores and {} on efficiency cores. Custom profiles can give each kind its own EPP.",
                &[&p, &e],
            )
        } else {
            gettext("All cores are of one kind.")
        };
        let offline = machine.cpus.len() - online;
        add(
            "cores",
            Level::Info,
            gettext("CPUs"),
            if offline > 0 {
                i18n_f("{} online, {} offline", &[&online, &offline])
            } else {
                i18n_f("{} online", &[&online])
            },
            cores_detail,
        );

        let (driver_level, driver_value, driver_detail) = driver_finding(resolver);
        add("driver", driver_level, gettext("Frequency driver"), driver_value, driver_detail);

        let f = id.features;
        add(
            "features",
            Level::Info,
            gettext("Power features"),
            match id.vendor {
                Vendor::Amd => i18n_f(
                    "CPPC: {} · Fast CPPC: {} · EPP: {}",
                    &[&yes_no(f.cppc), &yes_no(f.fast_cppc), &yes_no(Some(machine.epp_supported()))],
                ),
                _ => i18n_f(
                    "HWP: {} · HWP EPP: {} · EPB: {}",
                    &[&yes_no(f.hwp), &yes_no(f.hwp_epp), &yes_no(f.epb.or(Some(machine.epb_supported())))],
                ),
            },
            features_detail(resolver),
        );

        let rapl: Vec<String> = machine.rapl.iter().filter_map(|z| z.name.clone()).collect();
        add(
            "rapl",
            if rapl.is_empty() { Level::Info } else { Level::Good },
            gettext("Energy counters"),
            if rapl.is_empty() { gettext("none") } else { rapl.join(", ") },
            if rapl.is_empty() {
                gettext("Without RAPL counters Gearshift cannot show package power.")
            } else {
                gettext("Package power can be shown; the counters are root-only (CVE-2020-8694), so the helper reads them for you.")
            },
        );

        let kernel_value = machine.kernel_release.clone().unwrap_or_else(|| gettext("unknown"));
        let knows = model.and_then(|m| m.kernel_knows_model(machine.kernel));
        let (kernel_level, kernel_detail) = match (model, knows) {
            (Some(m), Some(false)) if m.model_specific && resolver.form == PreferenceForm::Number => (
                Level::Warning,
                i18n_f(
                    "This kernel does not know this model's EPP values (they came with Linux {}): it uses the generic ones. Gearshift writes the model's own numbers.",
                    &[&m.since_kernel.map(|k| k.to_string()).unwrap_or_default()],
                ),
            ),
            (Some(m), Some(true)) if m.model_specific => (
                Level::Good,
                gettext("This kernel already knows this model's EPP values; Gearshift writes the same numbers and keeps them across suspend, reboot and hotplug."),
            ),
            _ => (Level::Info, gettext("This model uses the generic EPP values on every kernel.")),
        };
        add("kernel", kernel_level, gettext("Kernel"), kernel_value, kernel_detail);

        let changes: Vec<ProfileChange> = BuiltinProfile::ALL
            .into_iter()
            .map(|p| ProfileChange {
                profile: p.id(),
                name: p.display_name(),
                gearshift_epp: resolver.epp_for(p.epp_name()),
                kernel_epp: resolver.epp_for(p.epp_name()).and(resolver.kernel_epp_for(p.epp_name())),
            })
            .collect();
        let can_tune = machine.has_cpufreq() || machine.epb_supported();
        let why_not = (!can_tune).then(|| {
            gettext("This machine has no CPU frequency control (no cpufreq driver). Virtual machines usually leave it to the host, so there is nothing Gearshift can tune here; it can still show the hardware report.")
        });
        let summary = summary(resolver, can_tune);
        HardwareReport {
            findings,
            can_tune,
            why_not,
            on_ac: BuiltinProfile::BalancePerformance.id(),
            on_battery: BuiltinProfile::BalancePower.id(),
            changes,
            summary,
        }
    }
}

fn driver_finding(resolver: &Resolver<'_>) -> (Level, String, String) {
    let machine = resolver.machine;
    let Some(driver) = machine.driver.clone() else {
        return (
            Level::Warning,
            gettext("none"),
            gettext("No cpufreq driver is loaded, so CPU frequency cannot be steered from Linux."),
        );
    };
    let value = match &machine.mode {
        Some(mode) => i18n_f("{}, {} mode", &[&driver, mode]),
        None => driver.clone(),
    };
    let detail = match machine.driver_kind() {
        Some(DriverKind::IntelPstate) => gettext("The CPU picks its own frequencies (HWP); the EPP hint steers it. Profiles keep the powersave governor, under which every EPP value is accepted."),
        Some(DriverKind::IntelCpufreq) => gettext("intel_pstate runs in passive mode under a generic governor; EPP still applies."),
        Some(DriverKind::AmdPstateEpp) => gettext("amd-pstate in active mode: the CPU picks its frequencies and takes the EPP names."),
        Some(DriverKind::AmdPstate) => gettext("amd-pstate in passive or guided mode has no EPP; profiles choose a governor. Active mode (amd_pstate=active) would add EPP."),
        Some(DriverKind::AcpiCpufreq) => gettext("The older ACPI driver has no EPP; profiles choose a governor."),
        _ => gettext("Profiles choose a governor."),
    };
    let level = if machine.epp_supported() { Level::Good } else { Level::Info };
    (level, value, detail)
}

fn features_detail(resolver: &Resolver<'_>) -> String {
    match resolver.form {
        PreferenceForm::Number => gettext("EPP is written as a number, which every kernel with HWP EPP accepts."),
        PreferenceForm::Name => gettext("EPP is written as a name: this kernel's amd-pstate takes names only."),
        PreferenceForm::NameOrNumber => {
            gettext("EPP is written as a name; this kernel also accepts numbers for custom values.")
        }
        PreferenceForm::Bias => gettext("No EPP: Gearshift sets the Energy Performance Bias (0 to 15) instead."),
        PreferenceForm::GovernorOnly => gettext("No EPP or EPB: profiles only choose a governor."),
    }
}

fn summary(resolver: &Resolver<'_>, can_tune: bool) -> String {
    if !can_tune {
        return gettext("Nothing to tune on this machine.");
    }
    let balanced = BuiltinProfile::BalancePerformance;
    let gearshift = resolver.epp_for(EppName::BalancePerformance);
    let kernel = resolver.kernel_epp_for(EppName::BalancePerformance);
    let codename = resolver.model.as_ref().and_then(|m| m.codename.clone()).unwrap_or_else(|| gettext("this CPU"));
    let kernel_name = resolver.machine.kernel.map_or_else(|| gettext("this kernel"), |k| i18n_f("Linux {}", &[&k]));
    match (gearshift, kernel) {
        (Some(ours), Some(theirs)) if ours != theirs && resolver.form == PreferenceForm::Number => i18n_f(
            "On {} with {}, \"{}\" means EPP {}: Gearshift will write {} where the kernel would use {}. Suggested: {} on AC power, {} on battery.",
            &[&codename, &kernel_name, &balanced.display_name(), &ours, &ours, &theirs, &BuiltinProfile::BalancePerformance.display_name(), &BuiltinProfile::BalancePower.display_name()],
        ),
        (Some(ours), _) => i18n_f(
            "On {}, \"{}\" means EPP {}, the same as the kernel's own value; Gearshift keeps it applied and adds AC/battery switching. Suggested: {} on AC power, {} on battery.",
            &[&codename, &balanced.display_name(), &ours, &BuiltinProfile::BalancePerformance.display_name(), &BuiltinProfile::BalancePower.display_name()],
        ),
        (None, _) => i18n_f(
            "{} offers no EPP here; profiles set {}. Suggested: {} on AC power, {} on battery.",
            &[
                &codename,
                &if resolver.form == PreferenceForm::Bias { gettext("the energy bias and the governor") } else { gettext("the governor") },
                &BuiltinProfile::BalancePerformance.display_name(),
                &BuiltinProfile::BalancePower.display_name(),
            ],
        ),
    }
}

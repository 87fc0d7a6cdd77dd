//! The hardware report: what was found, what it means, and what Gearshift
//! recommends. `gearshift detect` prints it and the first-run wizard shows it.
//! Its sentences are [`Text`]: English in `detect --json`, translated where
//! people read them.

mod welcome;

use serde::Serialize;

use super::identity::Vendor;
use super::machine::DriverKind;
use super::parse::EppName;
use super::plan::PreferenceForm;
use super::profile::{BuiltinProfile, Resolver};
use super::status::{describe_ranges, RangeLine};
use crate::i18n::{i18n_text, Text};

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
    pub label: Text,
    /// The value ("intel_pstate, active mode").
    pub value: Text,
    /// What it means, in a sentence or two.
    pub detail: Text,
}

impl Finding {
    fn new(id: &'static str, level: Level, label: Text, value: Text, detail: Text) -> Finding {
        Finding { id, level, label, value, detail }
    }
}

/// What one profile will write compared with the kernel's own value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileChange {
    /// Profile id.
    pub profile: &'static str,
    /// Display name.
    pub name: Text,
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
    pub why_not: Option<Text>,
    /// Profile suggested on AC power.
    pub on_ac: &'static str,
    /// Profile suggested on battery (none without a battery).
    pub on_battery: Option<&'static str>,
    /// Per built-in profile: Gearshift's EPP and this kernel's.
    pub changes: Vec<ProfileChange>,
    /// The recommendation in one paragraph.
    pub summary: Text,
    /// The wizard's first page in plain words (`welcome.rs`): what the
    /// machine is, what Gearshift changes, that nothing changes before
    /// Finish. Not part of `detect --json`: the findings say it in full.
    #[serde(skip)]
    pub welcome: Vec<Text>,
}

fn yes_no(value: Option<bool>) -> Text {
    match value {
        Some(true) => i18n_text("yes"),
        Some(false) => i18n_text("no"),
        None => i18n_text("unknown"),
    }
}

impl HardwareReport {
    /// Builds the report for the resolver's machine: a finding per
    /// subject, in the order people read them.
    pub fn build(resolver: &Resolver<'_>) -> HardwareReport {
        let machine = resolver.machine;
        let (driver_level, driver_value, driver_detail) = driver_finding(resolver);
        let driver = Finding::new("driver", driver_level, i18n_text("Frequency driver"), driver_value, driver_detail);
        let mode = mode_advice(resolver)
            .map(|(level, value, detail)| Finding::new("driver_mode", level, i18n_text("Driver mode"), value, detail));
        let findings: Vec<Finding> = [
            Some(cpu_finding(resolver)),
            Some(cores_finding(machine)),
            Some(driver),
            Some(features_finding(resolver)),
            dynamic_epp_finding(machine),
            platform_finding(machine),
            lap_finding(machine),
            mode,
            itmt_finding(machine),
            Some(rapl_finding(machine)),
            Some(kernel_finding(resolver)),
        ]
        .into_iter()
        .flatten()
        .collect();
        let changes: Vec<ProfileChange> = BuiltinProfile::ALL
            .into_iter()
            .map(|p| ProfileChange {
                profile: p.id(),
                name: p.name(),
                gearshift_epp: resolver.epp_for(p.epp_name()),
                kernel_epp: resolver.epp_for(p.epp_name()).and(resolver.kernel_epp_for(p.epp_name())),
            })
            .collect();
        let can_tune = machine.has_cpufreq() || machine.epb_supported();
        let why_not = (!can_tune).then(|| {
            i18n_text("This machine has no CPU frequency control (no cpufreq driver). Virtual machines usually leave it to the host, so there is nothing Gearshift can tune here; it can still show the hardware report.")
        });
        let summary = summary(resolver, can_tune);
        let welcome = welcome::welcome(resolver, can_tune, why_not.as_ref());
        HardwareReport {
            welcome,
            findings,
            can_tune,
            why_not,
            on_ac: BuiltinProfile::BalancePerformance.id(),
            on_battery: machine.battery.then(|| {
                // Under dynamic EPP both balanced profiles are the same, and
                // the kernel follows the power source itself.
                if resolver.form == PreferenceForm::KernelDynamic {
                    BuiltinProfile::BalancePerformance.id()
                } else {
                    BuiltinProfile::BalancePower.id()
                }
            }),
            changes,
            summary,
        }
    }
}

/// The processor: its brand string, code name, family and model.
fn cpu_finding(resolver: &Resolver<'_>) -> Finding {
    let id = &resolver.machine.identity;
    let model = resolver.model.as_ref();
    let codename = model.and_then(|m| m.codename.clone());
    // Without a brand string (a snapshot without /proc/cpuinfo's model
    // name), the code name or the family and model still say what it is.
    let brand = match (&id.model_name, &codename) {
        (Some(name), _) => Text::from(name.clone()),
        (None, Some(name)) => Text::from(name.clone()),
        (None, None) if id.family.is_some() && id.model.is_some() => id.family_model_text(),
        (None, None) => i18n_text("Unknown CPU"),
    };
    Finding::new(
        "cpu",
        Level::Info,
        i18n_text("Processor"),
        brand,
        match &codename {
            // Translators: a CPU's code name, then its family and model.
            Some(name) => i18n_text("{codename}, {family_model}")
                .arg("codename", name)
                .arg_text("family_model", id.family_model_text()),
            None => id.family_model_text(),
        },
    )
}

/// The logical CPUs: how many are online, and of which kinds.
fn cores_finding(machine: &crate::core::machine::Machine) -> Finding {
    let online = machine.online_ids().len();
    let (p, e) = machine.core_counts();
    let ranges: Vec<RangeLine> = machine.frequency_ranges().into_iter().map(RangeLine::from).collect();
    let mut maxima: Vec<u64> = ranges.iter().filter_map(|r| r.hw_max_khz).collect();
    maxima.sort_unstable();
    maxima.dedup();
    let cores_detail = if machine.is_hybrid() {
        // Translators: counts of logical CPUs on each kind of core.
        i18n_text("A hybrid CPU: {performance} logical CPUs on performance cores and {efficiency} on efficiency cores. Custom profiles can give each kind its own EPP.")
            .arg("performance", p)
            .arg("efficiency", e)
    } else if let Some(text) = describe_ranges(&ranges).filter(|_| maxima.len() > 1) {
        // Cores that top out at different frequencies (favoured cores, or
        // a hybrid CPU that sysfs does not mark as one) are not "of one
        // kind": show each CPU's range instead.
        Text::from(text)
    } else {
        i18n_text("All cores are of one kind.")
    };
    let offline = machine.cpus.len() - online;
    Finding::new(
        "cores",
        Level::Info,
        i18n_text("CPUs"),
        if offline > 0 {
            // Translators: counts of CPUs.
            i18n_text("{online} online, {offline} offline").arg("online", online).arg("offline", offline)
        } else {
            i18n_text("{online} online").arg("online", online)
        },
        cores_detail,
    )
}

/// The power features CPUID reports.
fn features_finding(resolver: &Resolver<'_>) -> Finding {
    let machine = resolver.machine;
    let id = &machine.identity;
    let f = id.features;
    Finding::new(
        "features",
        Level::Info,
        i18n_text("Power features"),
        match resolver.vendor {
            // Translators: each value is "yes", "no" or "unknown".
            Vendor::Amd => i18n_text("CPPC: {cppc} · Fast CPPC: {fast_cppc} · EPP: {epp}")
                .arg_text("cppc", yes_no(f.cppc))
                .arg_text("fast_cppc", yes_no(f.fast_cppc))
                .arg_text("epp", yes_no(Some(machine.epp_supported()))),
            // Translators: each value is "yes", "no" or "unknown".
            _ => i18n_text("HWP: {hwp} · HWP EPP: {hwp_epp} · EPB: {epb}")
                .arg_text("hwp", yes_no(f.hwp))
                .arg_text("hwp_epp", yes_no(f.hwp_epp))
                .arg_text("epb", yes_no(f.epb.or(Some(machine.epb_supported())))),
        },
        features_detail(resolver),
    )
}

/// amd-pstate's dynamic EPP (Linux 7.1), where it is on: the kernel owns
/// EPP, and Gearshift goes through each CPU's platform profile.
fn dynamic_epp_finding(machine: &crate::core::machine::Machine) -> Option<Finding> {
    if machine.dynamic_epp != Some(true) {
        return None;
    }
    // Translators: {cpus} is a number of CPUs; {command} a shell command.
    let detail = i18n_text("The kernel's dynamic EPP (amd-pstate, Linux 7.1) sets each CPU's energy preference itself and refuses every other value. Gearshift's profiles still work: Performance and Power Saver set EPP 0 and 255 through the platform profile of each CPU ({cpus} of them), and Balanced and Efficient both get the kernel's balanced value, 0 on AC and 128 on battery, which the kernel changes with the power source. Custom profiles with EPP values of their own need dynamic EPP off: run {command}, or boot with amd_dynamic_epp=disable.")
        .arg("cpus", machine.cpu_profiles.len())
        .arg("command", super::profile::DYNAMIC_EPP_OFF);
    Some(Finding::new("dynamic_epp", Level::Warning, i18n_text("Dynamic EPP"), i18n_text("on"), detail))
}

/// The firmware's platform profile, where there is one.
fn platform_finding(machine: &crate::core::machine::Machine) -> Option<Finding> {
    if let Some(platform) = &machine.platform_profile {
        let low = platform
            .handlers
            .iter()
            .filter_map(|h| crate::core::platform::choice_for(&h.choices, crate::core::platform::Wanted::LowPower))
            .collect::<Vec<_>>()
            .join(" / ");
        Some(Finding::new(
            "platform_profile",
            Level::Good,
            i18n_text("Platform profile"),
            Text::from(platform.current.clone().unwrap_or_else(|| "—".to_owned())),
            // Translators: {choices} are platform profile names such as "low-power, balanced, performance"; {low} the one Power Saver uses.
            i18n_text("The firmware's own profile for fans and power limits offers {choices}. Gearshift's profiles set it together with the CPU: Performance sets performance, Balanced and Efficient set balanced, Power Saver sets {low}. A hotkey that changes it switches Gearshift's profile too.")
                .arg("choices", platform.offered())
                .arg("low", if low.is_empty() { "—".to_owned() } else { low }),
        ))
    } else {
        None
    }
}

/// The lap sensor, where it says the machine sits on a lap.
fn lap_finding(machine: &crate::core::machine::Machine) -> Option<Finding> {
    if machine.lap_mode == Some(true) {
        Some(Finding::new(
            "lap_mode",
            Level::Warning,
            i18n_text("On a lap"),
            i18n_text("yes"),
            i18n_text("The firmware limits performance while the laptop sits on a lap, to keep its underside cool."),
        ))
    } else {
        None
    }
}

/// ITMT, where the firmware leaves it off.
fn itmt_finding(machine: &crate::core::machine::Machine) -> Option<Finding> {
    if machine.itmt_missing() {
        Some(Finding::new(
            "itmt",
            Level::Warning,
            i18n_text("P-core preference (ITMT)"),
            i18n_text("off"),
            i18n_text("The firmware does not acknowledge ACPI CPPC v2, so this kernel does not tell the scheduler which cores are faster: single-threaded work can land on E-cores and run slower. Linux 6.10 and later (or a stable kernel with the backport) enable it from HWP instead."),
        ))
    } else {
        None
    }
}

/// The energy counters.
fn rapl_finding(machine: &crate::core::machine::Machine) -> Finding {
    let rapl: Vec<String> = machine.rapl.iter().filter_map(|z| z.name.clone()).collect();
    Finding::new(
        "rapl",
        if rapl.is_empty() { Level::Info } else { Level::Good },
        i18n_text("Energy counters"),
        if rapl.is_empty() { i18n_text("none") } else { Text::from(rapl.join(", ")) },
        if rapl.is_empty() {
            i18n_text("Without RAPL counters Gearshift cannot show package power.")
        } else {
            i18n_text("RAPL energy counters: psys counts the whole platform, package-N one processor package, core and uncore parts of it. Package power can be shown. Only root may read these counters, since reading them often could reveal secrets from the power a computation draws (CVE-2020-8694), so the helper reads them for you.")
        },
    )
}

/// The kernel, and whether it knows this model's values.
fn kernel_finding(resolver: &Resolver<'_>) -> Finding {
    let machine = resolver.machine;
    let model = resolver.model.as_ref();
    let kernel_value = machine.kernel_release.clone().map_or_else(|| i18n_text("unknown"), Text::from);
    let knows = model.and_then(|m| m.kernel_knows_model(machine.kernel));
    let (kernel_level, kernel_detail) = match (model, knows) {
        // What Gearshift is for: news, not a warning.
        (Some(m), Some(false)) if m.model_specific && resolver.form == PreferenceForm::Number => (
            Level::Info,
            i18n_text("This kernel does not know this model's EPP values (they came with Linux {version}): it uses the generic ones. Gearshift writes the model's own numbers.")
                .arg("version", m.since_kernel.map(|k| k.to_string()).unwrap_or_default()),
        ),
        (Some(m), Some(true)) if m.model_specific => (
            Level::Good,
            i18n_text("This kernel already knows this model's EPP values; Gearshift writes the same numbers and keeps them across suspend, reboot and hotplug."),
        ),
        // Without EPP the kernel's EPP tables say nothing about this CPU.
        _ if !machine.epp_supported() => (
            Level::Info,
            i18n_text("This CPU takes no EPP, so which EPP values a kernel knows does not matter here."),
        ),
        _ => (Level::Info, i18n_text("This model uses the generic EPP values on every kernel.")),
    };
    Finding::new("kernel", kernel_level, i18n_text("Kernel"), kernel_value, kernel_detail)
}

fn driver_finding(resolver: &Resolver<'_>) -> (Level, Text, Text) {
    let machine = resolver.machine;
    let Some(driver) = machine.driver.clone() else {
        if machine.has_cpufreq() {
            // cpufreq policies are there, but not the file naming their
            // driver (a partial snapshot): unknown, not "none".
            return (Level::Info, i18n_text("unknown"), i18n_text("Profiles choose a governor."));
        }
        return (
            Level::Warning,
            i18n_text("none"),
            i18n_text("No cpufreq driver is loaded, so CPU frequency cannot be steered from Linux."),
        );
    };
    let value = match &machine.mode {
        // Translators: a cpufreq driver's name and its mode ("active", "passive").
        Some(mode) => i18n_text("{driver}, {mode} mode").arg("driver", &driver).arg("mode", mode),
        None => Text::from(driver.clone()),
    };
    let detail = match machine.driver_kind() {
        // Without HWP (Ivy Bridge and older), intel_pstate's own algorithm
        // picks the P-states in software; there is no EPP to steer it.
        Some(DriverKind::IntelPstate) if machine.identity.features.hwp == Some(false) => i18n_text("This CPU has no HWP: intel_pstate picks the frequencies itself, in software. There is no EPP; profiles keep the powersave governor and set the energy bias where the CPU has one."),
        Some(DriverKind::IntelPstate) => i18n_text("The CPU picks its own frequencies (HWP); the EPP hint steers it. Profiles keep the powersave governor, under which every EPP value is accepted."),
        Some(DriverKind::IntelCpufreq) => i18n_text("intel_pstate runs in passive mode under a generic governor; EPP still applies."),
        Some(DriverKind::AmdPstateEpp) if machine.dynamic_epp == Some(true) => i18n_text("amd-pstate in active mode: the CPU picks its frequencies; the kernel's dynamic EPP sets the energy preference."),
        Some(DriverKind::AmdPstateEpp) if resolver.form == PreferenceForm::NameOrNumber => i18n_text("amd-pstate in active mode: the CPU picks its frequencies and takes the EPP names or numbers (Linux 7.1)."),
        Some(DriverKind::AmdPstateEpp) => i18n_text("amd-pstate in active mode: the CPU picks its frequencies and takes the EPP names."),
        Some(DriverKind::AmdPstate) => i18n_text("amd-pstate in passive or guided mode has no EPP; profiles choose a governor. Active mode (amd_pstate=active) would add EPP."),
        Some(DriverKind::AcpiCpufreq) => i18n_text("The older ACPI driver has no EPP; profiles choose a governor."),
        _ => i18n_text("Profiles choose a governor."),
    };
    let level = if machine.epp_supported() { Level::Good } else { Level::Info };
    (level, value, detail)
}

/// Active mode where the CPU could take EPP but the driver runs passive or
/// guided: the measured case for amd-pstate-epp, and what intel_pstate's
/// model-specific EPP values were tuned in.
fn mode_advice(resolver: &Resolver<'_>) -> Option<(Level, Text, Text)> {
    let machine = resolver.machine;
    let mode = machine.mode.as_deref()?;
    if machine.mode_control.is_none() || mode == "active" {
        return None;
    }
    let f = machine.identity.features;
    match machine.driver_kind()? {
        DriverKind::AmdPstate if f.cppc != Some(false) => {
            let measured = i18n_text("In {mode} mode a kernel governor picks the frequencies and there is no EPP. In active mode (amd-pstate-epp) the CPU's own controller follows the EPP hint: the kernel developers measured 14 percent more performance per watt than passive mode with schedutil on an EPYC (Rome) server. Switch with `gearshift mode set active`.")
                .arg("mode", mode);
            let detail = if f.fast_cppc == Some(true) {
                // Translators: {measured} is the sentence about active mode before this one.
                i18n_text("{measured} This CPU has Fast CPPC: its shorter 600 µs transition delay (instead of 1000 µs) matters only in passive mode.")
                    .arg_text("measured", measured)
            } else {
                measured
            };
            Some((Level::Warning, i18n_text("active mode recommended"), detail))
        }
        DriverKind::IntelCpufreq if machine.epp_supported() => Some((
            Level::Info,
            i18n_text("active mode recommended"),
            i18n_text("intel_pstate runs in passive mode: EPP still applies, but a kernel governor picks the frequencies. In active mode the CPU's own controller (HWP) follows EPP directly, as the model's EPP values were tuned. Switch with `gearshift mode set active`."),
        )),
        _ => None,
    }
}

fn features_detail(resolver: &Resolver<'_>) -> Text {
    // What the abbreviations on the line above mean, then what follows.
    let terms = match resolver.vendor {
        Vendor::Amd => i18n_text("CPPC: the CPU picks its own frequencies from the kernel's hints; Fast CPPC: it switches between them sooner; EPP: it takes an energy preference from 0 (fastest) to 255 (most frugal)."),
        _ => i18n_text("HWP (hardware P-states): the CPU picks its own frequencies; HWP EPP: it takes an energy preference from 0 (fastest) to 255 (most frugal); EPB: the older energy bias, 0 to 15."),
    };
    // Translators: two sentences: what the abbreviations mean, and how EPP is written here.
    i18n_text("{terms} {how}").arg_text("terms", terms).arg_text("how", how_written(resolver))
}

fn how_written(resolver: &Resolver<'_>) -> Text {
    match resolver.form {
        PreferenceForm::Number => i18n_text("EPP is written as a number, which every kernel with HWP EPP accepts."),
        PreferenceForm::Name => i18n_text("EPP is written as a name: this kernel's amd-pstate takes names only."),
        PreferenceForm::NameOrNumber => {
            i18n_text("EPP is written as a name; this kernel also accepts numbers for custom values.")
        }
        PreferenceForm::KernelDynamic => i18n_text("The kernel's dynamic EPP is on: the kernel sets EPP itself and refuses other values, so Gearshift sets each CPU's platform profile (low-power, balanced or performance) instead."),
        PreferenceForm::Bias => i18n_text("No EPP: Gearshift sets the Energy Performance Bias (0 to 15) instead."),
        PreferenceForm::GovernorOnly => i18n_text("No EPP or EPB: profiles only choose a governor."),
    }
}

fn summary(resolver: &Resolver<'_>, can_tune: bool) -> Text {
    if !can_tune {
        return i18n_text("Nothing to tune on this machine.");
    }
    // Translators: two sentences: what the machine gets, then the suggestion.
    i18n_text("{what} {suggested}").arg_text("what", what_it_gets(resolver)).arg_text("suggested", suggestion(resolver))
}

/// The profiles to use: one for AC power and one for battery on a machine
/// with a battery, the balanced one alone on a desktop, server or VM (it
/// is never on battery).
fn suggestion(resolver: &Resolver<'_>) -> Text {
    let on_ac = BuiltinProfile::BalancePerformance.name();
    if !resolver.machine.battery || resolver.form == PreferenceForm::KernelDynamic {
        // Under dynamic EPP, Balanced follows the power source by itself.
        // Translators: {profile} is a profile name.
        return i18n_text("Suggested: {profile}, all the time.").arg_text("profile", on_ac);
    }
    // Translators: {on_ac} and {on_battery} are profile names.
    i18n_text("Suggested: {on_ac} on AC power, {on_battery} on battery.")
        .arg_text("on_ac", on_ac)
        .arg_text("on_battery", BuiltinProfile::BalancePower.name())
}

/// What the balanced profile means here against the kernel's own value.
fn what_it_gets(resolver: &Resolver<'_>) -> Text {
    let balanced = BuiltinProfile::BalancePerformance;
    let gearshift = resolver.epp_for(EppName::BalancePerformance);
    let kernel = resolver.kernel_epp_for(EppName::BalancePerformance);
    // The code name, else the brand string, else "this CPU".
    let codename = resolver
        .model
        .as_ref()
        .and_then(|m| m.codename.clone())
        .or_else(|| resolver.machine.identity.model_name.clone())
        .map_or_else(|| i18n_text("this CPU"), Text::from);
    let kernel_name = resolver
        .machine
        .kernel
        .map_or_else(|| i18n_text("this kernel"), |k| i18n_text("Linux {version}").arg("version", k));
    match (gearshift, kernel) {
        // Translators: {cpu} is a code name ("Meteor Lake") or "this CPU";
        // {kernel} is "Linux 6.8" or "this kernel"; {profile} is a profile
        // name; the others are EPP numbers.
        (Some(ours), Some(theirs)) if ours != theirs && resolver.form == PreferenceForm::Number => i18n_text(
            "On {cpu} with {kernel}, \"{profile}\" means EPP {ours}: Gearshift will write {ours} where the kernel would use {theirs}.",
        )
        .arg_text("cpu", codename)
        .arg_text("kernel", kernel_name)
        .arg_text("profile", balanced.name())
        .arg("ours", ours)
        .arg("theirs", theirs)
        ,
        // Translators: {cpu} is a code name or "this CPU"; {profile} is a
        // profile name; {ours} an EPP number.
        (Some(ours), _) => i18n_text(
            "On {cpu}, \"{profile}\" means EPP {ours}, the same as the kernel's own value; Gearshift keeps it applied.",
        )
        .arg_text("cpu", codename)
        .arg_text("profile", balanced.name())
        .arg("ours", ours)
        ,
        // Translators: {cpu} is a code name or "this CPU".
        (None, _) if resolver.form == PreferenceForm::KernelDynamic => i18n_text(
            "On {cpu} the kernel's dynamic EPP picks the balanced EPP itself: 0 on AC, 128 on battery.",
        )
        .arg_text("cpu", codename),
        // Translators: {cpu} is a code name or "this CPU"; {what} is "the
        // governor" or "the energy bias and the governor".
        (None, _) => i18n_text("{cpu} offers no EPP here; profiles set {what}.")
            .arg_text("cpu", codename)
            .arg_text(
                "what",
                if resolver.form == PreferenceForm::Bias {
                    i18n_text("the energy bias and the governor")
                } else {
                    i18n_text("the governor")
                },
            )
            ,
    }
}

//! View models: what the window says, computed without a display so that
//! it can be unit-tested for every fixture.

use gearshift::client::ClientError;
use gearshift::core::identity::CoreType;
use gearshift::core::monitor::CpuSample;
use gearshift::core::parse::{EppName, EppReading};
use gearshift::core::plan::PreferenceForm;
use gearshift::core::platform::{choice_for, PlatformProfile};
use gearshift::core::profile::BuiltinProfile;
use gearshift::core::report::HardwareReport;
use gearshift::core::status::{ProfileLine, Status};
use gearshift::i18n::{gettext, i18n_f, i18n_plural, i18n_text};

/// One profile as the switcher shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileRow {
    /// Profile id.
    pub id: String,
    /// "Balanced".
    pub title: String,
    /// What it means on this CPU.
    pub subtitle: String,
    /// False when it cannot be used here (a custom profile that does not fit).
    pub usable: bool,
}

/// The overview page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overview {
    /// The CPU's brand string.
    pub title: String,
    /// Codename, family and model.
    pub subtitle: String,
    /// Label/value pairs about the machine.
    pub facts: Vec<(String, String)>,
    /// The firmware's platform profile now, where there is one (it changes
    /// with the profile and the firmware's hotkeys, so it is not a fact).
    pub platform: Option<String>,
    /// Where among `facts` the platform profile's row goes.
    pub platform_at: usize,
    /// The machine sits on a lap and the firmware limits performance.
    pub on_lap: bool,
    /// Where among `facts` the driver mode's row goes (after the driver).
    pub mode_at: usize,
    /// The profile switcher's rows.
    pub profiles: Vec<ProfileRow>,
    /// Whether anything can be tuned at all.
    pub can_tune: bool,
    /// The machine has a battery (the AC/battery choice has two halves).
    pub battery: bool,
}

fn vendor_word(status: &Status) -> String {
    match status.cpu.vendor.as_deref() {
        Some("GenuineIntel") => "Intel".to_owned(),
        Some("AuthenticAMD") => "AMD".to_owned(),
        _ => gettext("the maker"),
    }
}

/// What a profile means on this machine, in a line: what it sets on the
/// CPU, and the firmware's platform profile it sets where there is one
/// (see [`profile_platform`]).
pub fn profile_subtitle(status: &Status, line: &ProfileLine, platform: Option<&PlatformProfile>) -> String {
    if let Some(err) = &line.error {
        return i18n_f("Cannot be used here: {}", &[err]);
    }
    let setting = cpu_setting(status, line);
    match profile_platform(line, platform) {
        // Translators: {setting} is what a profile sets on the CPU ("EPP 64 (…)"), {platform} the firmware's platform profile it sets ("balanced").
        Some(platform) => {
            i18n_text("{setting} · firmware: {platform}").arg("setting", setting).arg("platform", platform).localized()
        }
        None => setting,
    }
}

/// The firmware's platform profile a profile sets: the status's (the first
/// handler's), or where the machine's handlers (`platform`) get different
/// names for a built-in profile, each one ("quiet / low-power").
pub fn profile_platform(line: &ProfileLine, platform: Option<&PlatformProfile>) -> Option<String> {
    let first = line.platform_profile.clone()?;
    let builtin = BuiltinProfile::from_id(&line.id).filter(|_| line.builtin);
    let (Some(platform), Some(builtin)) = (platform, builtin) else { return Some(first) };
    let mut names: Vec<String> = Vec::new();
    for handler in &platform.handlers {
        if let Some(choice) = choice_for(&handler.choices, builtin.platform_wanted()) {
            if !names.contains(&choice) {
                names.push(choice);
            }
        }
    }
    Some(if names.len() > 1 { names.join(" / ") } else { first })
}

/// What a profile sets on the CPU, in a line.
fn cpu_setting(status: &Status, line: &ProfileLine) -> String {
    match status.preference_form {
        PreferenceForm::Number | PreferenceForm::NameOrNumber => {
            let Some(epp) = line.epp else { return gettext("No EPP on this machine") };
            let model = status.model_table.as_ref();
            let specific = model.is_some_and(|m| m.model_specific);
            match (line.builtin, specific, line.kernel_epp, status.cpu.codename.as_deref()) {
                (true, true, Some(kernel), Some(codename)) if kernel != epp => {
                    // Translators: {value} and {kernel} are EPP numbers, {cpu} a CPU code name, {profile} a profile name.
                    i18n_text("EPP {value} ({cpu}'s value for {profile}; this kernel's default would be {kernel})")
                        .arg("value", epp)
                        .arg("cpu", vendor_word(status))
                        .arg("profile", codename)
                        .arg("kernel", kernel)
                        .localized()
                }
                // Translators: {value} is an EPP number, {cpu} a CPU code name, {profile} a profile name.
                (true, true, _, Some(codename)) => i18n_text("EPP {value} ({cpu}'s value for {profile})")
                    .arg("value", epp)
                    .arg("cpu", vendor_word(status))
                    .arg("profile", codename)
                    .localized(),
                (false, _, _, _) if line.epp_values.len() > 1 => {
                    // Translators: EPP numbers.
                    i18n_text("EPP {performance} on P-cores, {efficiency} on E-cores")
                        .arg("performance", epp)
                        .arg("efficiency", line.epp_values.iter().copied().find(|v| *v != epp).unwrap_or(epp))
                        .localized()
                }
                _ => i18n_f("EPP {}", &[&epp]),
            }
        }
        PreferenceForm::Name => match (&line.written_as, line.epp) {
            (Some(name), Some(epp)) => {
                // Translators: An EPP number, then a short note.
                i18n_text("EPP {value} ({note})").arg("value", name).arg("note", epp).localized()
            }
            _ => gettext("No EPP on this machine"),
        },
        PreferenceForm::Bias => match &line.written_as {
            Some(bias) => i18n_f("Energy bias {} (this CPU has no EPP)", &[bias]),
            None => gettext("No energy bias on this machine"),
        },
        PreferenceForm::GovernorOnly => match &line.governor {
            Some(g) => i18n_f("The {} governor (this driver has no EPP)", &[g]),
            None => gettext("Nothing to change on this machine"),
        },
    }
}

impl Overview {
    /// The overview for a status report alone (the tests' shorthand).
    #[cfg(test)]
    pub fn from_status(status: &Status) -> Overview {
        Overview::from_machine(status, None)
    }

    /// The overview for a status report, with each handler of the
    /// firmware's platform profile (`platform`, from the machine) to say
    /// what they show where they differ.
    pub fn from_machine(status: &Status, platform: Option<&PlatformProfile>) -> Overview {
        let cpu = &status.cpu;
        let title = cpu.model_name.clone().unwrap_or_else(|| gettext("Unknown CPU"));
        let family_model = match (cpu.family, cpu.model) {
            (Some(f), Some(m)) => {
                // Translators: CPUID family and model numbers, then the model in hex.
                i18n_text("family {family} model {model} (0x{hex})")
                    .arg("family", f)
                    .arg("model", m)
                    .arg("hex", format!("{m:02X}"))
                    .localized()
            }
            _ => gettext("unknown family and model"),
        };
        let subtitle = match &cpu.codename {
            Some(code) => format!("{code} · {family_model}"),
            None => family_model,
        };
        let mut facts = Vec::new();
        let online = status.cpus.iter().filter(|c| c.online).count();
        let mut cores = i18n_f("{} online", &[&online]);
        if let (Some(p), Some(e)) = (cpu.performance_cores, cpu.efficiency_cores) {
            // Translators: Counts of CPUs.
            cores = i18n_text("{online} online: {performance} on P-cores, {efficiency} on E-cores")
                .arg("online", online)
                .arg("performance", p)
                .arg("efficiency", e)
                .localized();
        }
        if !status.offline.is_empty() {
            cores.push_str(&i18n_f(" (offline: {})", &[&status.offline]));
        }
        facts.push((gettext("CPUs"), cores));
        facts.push((gettext("Driver"), driver_text(status)));
        let mode_at = facts.len();
        facts.push((gettext("Energy preference"), preference_fact(status)));
        if let Some(turbo) = status.turbo {
            facts.push((gettext("Turbo"), if turbo { gettext("On") } else { gettext("Off") }));
        }
        let platform_at = facts.len();
        facts.push((gettext("Kernel"), status.kernel.clone().unwrap_or_else(|| gettext("unknown"))));
        let profiles = status
            .profiles
            .iter()
            .map(|line| ProfileRow {
                id: line.id.clone(),
                title: line.title().localized(),
                subtitle: profile_subtitle(status, line, platform),
                usable: line.error.is_none(),
            })
            .collect();
        let can_tune = status.driver.is_some() || status.preference_form == PreferenceForm::Bias;
        Overview {
            title,
            subtitle,
            facts,
            platform: platform_text(status, platform),
            platform_at,
            on_lap: on_lap(status),
            mode_at,
            profiles,
            can_tune,
            battery: status.battery,
        }
    }
}

/// The cpufreq driver and its mode ("intel_pstate, active mode").
pub fn driver_text(status: &Status) -> String {
    match (&status.driver, &status.mode) {
        // Translators: A cpufreq driver's name and its mode ("active", "passive").
        (Some(d), Some(m)) => i18n_text("{driver}, {mode} mode").arg("driver", d).arg("mode", m).localized(),
        (Some(d), None) => d.clone(),
        (None, _) => gettext("None (no CPU frequency control)"),
    }
}

/// The overview's row that switches the driver's mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeRow {
    /// The modes the driver takes, in the kernel's words.
    pub modes: Vec<String>,
    /// The one shown as chosen among `modes`: the one asked for while a
    /// switch is in flight, else the current one (where it is one of them).
    pub selected: Option<usize>,
    /// What the modes mean, or why the mode cannot be switched now.
    pub subtitle: String,
    /// Whether the person may switch now.
    pub sensitive: bool,
    /// What a screen reader calls the row ("Driver mode: passive").
    pub accessible: String,
}

/// Why the driver's mode cannot be switched now (the row's subtitle), or
/// `None` when it can: a snapshot is only shown (`snapshot`), and without
/// the helper (`helper_error`) nothing can be changed.
pub fn switch_blocked(snapshot: bool, helper_error: Option<&ErrorView>) -> Option<String> {
    if snapshot {
        return Some(gettext("Cannot be switched in a snapshot: it would change this computer, not the snapshot."));
    }
    helper_error.map(|view| view.title.clone())
}

/// The driver mode's row, or `None` where the driver has no mode file (and
/// the Driver fact alone says the mode). `pending` is the mode asked for
/// while the switch is in flight; `blocked` why switching is off (see
/// [`switch_blocked`]).
pub fn mode_row(status: &Status, pending: Option<&str>, blocked: Option<String>) -> Option<ModeRow> {
    if status.modes.is_empty() {
        return None;
    }
    let modes: Vec<String> = status.modes.iter().map(|m| (*m).to_owned()).collect();
    let shown = pending.or(status.mode.as_deref());
    let selected = shown.and_then(|mode| modes.iter().position(|m| m == mode));
    let (subtitle, sensitive) = match (pending, blocked) {
        (_, Some(why)) => (why, false),
        (Some(_), None) => (gettext("Switching the driver's mode…"), false),
        (None, None) if modes.iter().any(|m| m == "guided") => (
            gettext("active: the CPU picks frequencies guided by EPP; passive/guided: a kernel governor picks them"),
            true,
        ),
        (None, None) => {
            (gettext("active: the CPU picks frequencies guided by EPP; passive: a kernel governor picks them"), true)
        }
    };
    let accessible = match shown {
        // Translators: What a screen reader says for the driver mode's row; {} is a mode ("active", "passive").
        Some(mode) => i18n_f("Driver mode: {}", &[&mode]),
        None => gettext("Driver mode"),
    };
    Some(ModeRow { modes, selected, subtitle, sensitive, accessible })
}

/// Whether the wizard offers to switch the driver to active mode: the
/// hardware report recommends it (its `driver_mode` finding) and the
/// driver takes it.
pub fn offers_active_mode(report: &HardwareReport, status: &Status) -> bool {
    report.findings.iter().any(|f| f.id == "driver_mode")
        && status.modes.contains(&"active")
        && status.mode.as_deref() != Some("active")
}

/// The firmware's platform profile now, in a word or two; `None` where the
/// machine has none. Where handlers show different names (each got its own
/// for the same Gearshift profile, and the status says only `custom`), the
/// names of all of them, "quiet / low-power", when `platform` has them.
pub fn platform_now(status: &Status, platform: Option<&PlatformProfile>) -> Option<String> {
    let line = status.platform_profile.as_ref()?;
    if let Some(platform) = platform.filter(|p| p.handlers.len() > 1) {
        let mut names: Vec<&str> = Vec::new();
        for name in platform.handlers.iter().map(|h| h.current.as_deref()) {
            let Some(name) = name else { break };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        if names.len() > 1 && platform.handlers.iter().all(|h| h.current.is_some()) {
            return Some(names.join(" / "));
        }
    }
    Some(line.current.clone().unwrap_or_else(|| gettext("unknown")))
}

/// The firmware's platform profile now, as the overview's row says it
/// ("balanced (firmware: fans and power limits)"); `None` where the machine
/// has none.
pub fn platform_text(status: &Status, platform: Option<&PlatformProfile>) -> Option<String> {
    let current = platform_now(status, platform)?;
    // Translators: {profile} is a platform profile name ("balanced", "low-power"); the firmware sets fans and power limits for it.
    Some(i18n_text("{profile} (firmware: fans and power limits)").arg("profile", current).localized())
}

/// The machine sits on a lap (a ThinkPad's sensor) and the firmware limits
/// performance.
pub fn on_lap(status: &Status) -> bool {
    status.lap_mode == Some(true)
}

/// What the top of the per-core page says: the driver and its mode, and the
/// firmware's platform profile (see [`platform_now`]), each a part of one
/// line; the lap warning is [`on_lap`]'s.
pub fn cores_header(status: &Status, platform: Option<&PlatformProfile>) -> Vec<String> {
    let mut parts = vec![driver_text(status)];
    if let Some(current) = platform_now(status, platform) {
        parts.push(i18n_f("Platform profile: {}", &[&current]));
    }
    parts
}

fn preference_fact(status: &Status) -> String {
    match status.preference_form {
        PreferenceForm::Number => gettext("EPP, written as numbers (HWP)"),
        PreferenceForm::Name => gettext("EPP, written as names (amd-pstate)"),
        PreferenceForm::NameOrNumber => gettext("EPP, names or numbers (amd-pstate)"),
        PreferenceForm::Bias => gettext("Energy bias only (no EPP)"),
        PreferenceForm::GovernorOnly => gettext("None: profiles choose a governor"),
    }
}

/// The text of a per-core card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreCard {
    /// "CPU 12".
    pub title: String,
    /// "P", "E" or "".
    pub badge: String,
    /// "2.41 GHz" or "Offline".
    pub frequency: String,
    /// "EPP 64 · balance_performance".
    pub epp: String,
    /// The governor.
    pub governor: String,
    /// "0.4–4.8 GHz".
    pub range: String,
    /// What a screen reader says.
    pub accessible: String,
}

/// GHz with two decimals.
pub fn ghz(khz: u64) -> String {
    // Called for every card on every tick: translate the template once.
    thread_local! {
        static TEMPLATE: String = gettext("{} GHz");
    }
    TEMPLATE.with(|t| gearshift::i18n::fill(t, &[&format!("{:.2}", khz as f64 / 1e6)]))
}

/// "EPP 64 · balance_performance": the number where it can be known, and a
/// name: the kernel's, or else the profile (`profile`) whose value it is.
pub fn epp_text(reading: Option<EppReading>, value: Option<u8>, profile: Option<&str>) -> String {
    match (reading, value) {
        (Some(EppReading::Name(name)), Some(v)) => {
            // Translators: An EPP value, then a governor.
            i18n_text("EPP {value} · {governor}").arg("value", v).arg("governor", name).localized()
        }
        (Some(EppReading::Name(EppName::Default)), None) => gettext("EPP default"),
        (Some(EppReading::Name(name)), None) => i18n_f("EPP {}", &[&name]),
        (Some(EppReading::Value(v)), _) => match profile {
            // Translators: An EPP value, then a governor.
            Some(p) => i18n_text("EPP {value} · {governor}").arg("value", v).arg("governor", p).localized(),
            None => i18n_f("EPP {}", &[&v]),
        },
        (None, _) => gettext("No EPP"),
    }
}

impl CoreCard {
    /// The card for a CPU.
    pub fn new(
        id: u32,
        core_type: Option<CoreType>,
        online: bool,
        sample: Option<&CpuSample>,
        epp_value: Option<u8>,
        range_khz: (Option<u64>, Option<u64>),
        profile: Option<&str>,
    ) -> CoreCard {
        let title = i18n_f("CPU {}", &[&id]);
        let (badge, kind) = match core_type {
            Some(CoreType::Performance) => (gettext("P"), gettext("performance core")),
            Some(CoreType::Efficiency) => (gettext("E"), gettext("efficiency core")),
            None => (String::new(), String::new()),
        };
        if !online {
            let accessible = i18n_f("CPU {}, offline", &[&id]);
            return CoreCard {
                title,
                badge,
                frequency: gettext("Offline"),
                epp: String::new(),
                governor: String::new(),
                range: String::new(),
                accessible,
            };
        }
        let frequency = sample.and_then(|s| s.cur_khz).map_or_else(|| "—".to_owned(), ghz);
        let epp = epp_text(sample.and_then(|s| s.epp), epp_value, profile);
        let governor = sample.and_then(|s| s.governor.clone()).unwrap_or_default();
        let range = match range_khz {
            (Some(lo), Some(hi)) => format!("{:.1}–{:.1} GHz", lo as f64 / 1e6, hi as f64 / 1e6),
            _ => String::new(),
        };
        // What a screen reader says: stable facts only. The frequency changes
        // every second; it is in the tooltip, not announced on every tick.
        let mut parts = vec![title.clone()];
        if !kind.is_empty() {
            parts.push(kind);
        }
        parts.push(epp.clone());
        if !governor.is_empty() {
            parts.push(i18n_f("governor {}", &[&governor]));
        }
        CoreCard { title, badge, frequency, epp, governor, range, accessible: parts.join(", ") }
    }
}

impl CoreCard {
    /// The tooltip: everything, the current frequency included.
    pub fn tooltip(&self) -> String {
        if self.epp.is_empty() {
            return self.accessible.clone();
        }
        self.accessible.replacen(&self.epp, &format!("{}, {}", self.frequency, self.epp), 1)
    }
}

/// How an error from the helper is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorView {
    /// The headline (toast, banner title).
    pub title: String,
    /// The explanation and what to do.
    pub body: String,
    /// A command to copy, where one fixes it.
    pub command: Option<String>,
    /// Whether it lasts (a banner) rather than passes (a toast).
    pub lasting: bool,
}

impl ErrorView {
    /// The view of a helper error.
    pub fn from_client(err: &ClientError) -> ErrorView {
        let command = match err {
            ClientError::NotInstalled => {
                if err.advice().contains("systemctl reload dbus") {
                    Some("sudo systemctl reload dbus".to_owned())
                } else {
                    Some("./build-aux/run".to_owned())
                }
            }
            _ => None,
        };
        let lasting = matches!(err, ClientError::NotInstalled | ClientError::NoBus(_));
        ErrorView { title: err.headline(), body: err.advice(), command, lasting }
    }
}

/// The toast after a switch.
pub fn switched_toast(status: &Status, id: &str, changed: u32, cpus: usize) -> String {
    let line = status.profiles.iter().find(|p| p.id == id);
    let name = line.map_or_else(|| id.to_owned(), |l| l.title().localized());
    let n = cpus as u64;
    let text = match (line.and_then(|l| l.epp), changed) {
        // Translators: A profile name and an EPP number.
        (Some(epp), 0) => i18n_plural(
            "{profile} applied: the CPU already had EPP {value}",
            "{profile} applied: all {cpus} CPUs already had EPP {value}",
            n,
        )
        .arg("value", epp),
        // Translators: A profile name and an EPP number.
        (Some(epp), _) => i18n_plural(
            "{profile} applied: EPP {value} on {cpus} CPU",
            "{profile} applied: EPP {value} on {cpus} CPUs",
            n,
        )
        .arg("value", epp),
        // Translators: A profile name.
        (None, 0) => i18n_plural(
            "{profile} applied: the CPU already had these values",
            "{profile} applied: all {cpus} CPUs already had these values",
            n,
        ),
        // Translators: A profile name.
        (None, _) => i18n_plural("{profile} applied on {cpus} CPU", "{profile} applied on {cpus} CPUs", n),
    };
    text.arg("profile", &name).arg("cpus", cpus).localized()
}

/// The saved profile that saving `profile` would replace (the same id, which
/// [`gearshift::core::custom::id_for`] gives a profile of the same name):
/// the window asks before it does.
pub fn replaced<'a>(
    customs: &'a [gearshift::core::custom::CustomProfile],
    profile: &gearshift::core::custom::CustomProfile,
) -> Option<&'a gearshift::core::custom::CustomProfile> {
    customs.iter().find(|p| p.id == profile.id)
}

/// The toast when the helper set back values that something else changed
/// (firmware, another program, a driver mode change): who did it is not
/// known, when it was noticed is.
pub fn outside_toast(change: &gearshift::dbus::OutsideChange) -> String {
    let mut cpus: Vec<u32> = change.values.iter().flat_map(|(_, cpus, _, _)| cpus.iter().copied()).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let cpus = gearshift::core::parse::format_cpu_list(&cpus);
    match change.occasion.as_str() {
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        "resume" => i18n_text("After sleep, settings of CPU {cpus} had been changed outside Gearshift: set back"),
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        "ac" => i18n_text("On AC power, settings of CPU {cpus} had been changed outside Gearshift: set back"),
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        "battery" => i18n_text("On battery, settings of CPU {cpus} had been changed outside Gearshift: set back"),
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        "driver-mode" => i18n_text("The CPU driver was restarted and lost the settings of CPU {cpus}: set back"),
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        _ => i18n_text("Settings of CPU {cpus} had been changed outside Gearshift: set back"),
    }
    .arg("cpus", cpus)
    .localized()
}

/// The profile shown as active: the helper's (`helper`), or else what the
/// machine's settings match.
pub fn active_title(status: &Status, helper: Option<&str>) -> String {
    let active = helper.or(status.active_profile.as_deref());
    if let Some(line) = active.and_then(|id| status.profiles.iter().find(|p| p.id == id)) {
        return line.title().localized();
    }
    match active {
        Some("") => gettext("None (tuned by hand)"),
        Some(other) => other.to_owned(),
        None => {
            // Say what is set instead, when every online CPU agrees.
            let mut values = status.cpus.iter().filter(|c| c.online).map(|c| c.epp_value);
            match values.next().flatten() {
                Some(first) if values.all(|v| v == Some(first)) => i18n_f("None (every CPU is at EPP {})", &[&first]),
                _ => gettext("None (the settings match no profile)"),
            }
        }
    }
}

/// The built-in profile for a desktop power panel name.
pub fn builtin_title(id: &str) -> Option<String> {
    BuiltinProfile::from_id(id).map(|p| p.name().localized())
}

#[cfg(test)]
mod tests {
    #[test]
    fn outside_changes_name_the_occasion_and_the_cpus() {
        let change = gearshift::dbus::OutsideChange {
            occasion: "battery".into(),
            values: vec![
                ("energy_performance_preference".into(), vec![3], "115".into(), "64".into()),
                ("energy_performance_preference".into(), vec![0], "115".into(), "64".into()),
                ("energy_performance_preference".into(), vec![1, 2], "115".into(), "64".into()),
                ("scaling_governor".into(), vec![0], "performance".into(), "powersave".into()),
            ],
        };
        assert_eq!(
            super::outside_toast(&change),
            "On battery, settings of CPU 0-3 had been changed outside Gearshift: set back"
        );
        let mode = gearshift::dbus::OutsideChange { occasion: "driver-mode".into(), ..change };
        assert!(
            super::outside_toast(&mode).starts_with("The CPU driver was restarted"),
            "{}",
            super::outside_toast(&mode)
        );
    }

    use super::*;
    use crate::context::Context;
    use gearshift::core::status::Status;
    use std::path::PathBuf;

    fn status(fixture: &str) -> Status {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture);
        let ctx = Context::load_without_helper(Some(&dir)).unwrap();
        Status::build("x", &ctx.resolver(), &ctx.customs, None, Vec::new(), &[])
    }

    fn machine(fixture: &str) -> gearshift::core::machine::Machine {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture);
        Context::load_without_helper(Some(&dir)).unwrap().machine
    }

    #[test]
    fn overview_says_what_each_profile_means_here() {
        let mtl = Overview::from_status(&status("meteor-lake-155h"));
        assert_eq!(mtl.title, "Intel(R) Core(TM) Ultra 7 155H");
        assert!(mtl.subtitle.starts_with("Meteor Lake · family 6 model 170"));
        let balanced = &mtl.profiles[1];
        assert_eq!(balanced.title, "Balanced");
        assert_eq!(
            balanced.subtitle,
            "EPP 64 (Intel's value for Meteor Lake; this kernel's default would be 128) · firmware: balanced"
        );
        assert!(mtl.facts.iter().any(|(_, v)| v == "22 online: 12 on P-cores, 10 on E-cores"));

        let arl = Overview::from_status(&status("arrow-lake-285k"));
        assert_eq!(arl.profiles[1].subtitle, "EPP 64 (Intel's value for Arrow Lake)");
        let emr = Overview::from_status(&status("emerald-rapids-64"));
        assert_eq!(
            emr.profiles[1].subtitle,
            "EPP 32 (Intel's value for Emerald Rapids; this kernel's default would be 128)"
        );
        let raptor = Overview::from_status(&status("raptor-lake-13700h"));
        assert_eq!(raptor.profiles[1].subtitle, "EPP 128");
        let amd = Overview::from_status(&status("amd-7840hs-epp"));
        assert_eq!(amd.profiles[2].subtitle, "EPP balance_power (191) · firmware: balanced");
        let ivy = Overview::from_status(&status("ivy-bridge-epb"));
        assert_eq!(ivy.profiles[3].subtitle, "Energy bias 15 (this CPU has no EPP)");
        let acpi = Overview::from_status(&status("amd-2600-acpi"));
        assert_eq!(acpi.profiles[0].subtitle, "The performance governor (this driver has no EPP)");
        let vm = Overview::from_status(&status("vm-no-cpufreq"));
        assert!(!vm.can_tune);
        assert!(vm.facts.iter().any(|(_, v)| v.contains("no CPU frequency control")));
        let offline = Overview::from_status(&status("kaby-lake-offline"));
        assert!(offline.facts.iter().any(|(_, v)| v == "4 online (offline: 4-7)"));
    }

    #[test]
    fn the_firmware_platform_profile_shows_where_there_is_one() {
        let mtl_status = status("meteor-lake-155h");
        let mtl = Overview::from_status(&mtl_status);
        assert_eq!(mtl.platform.as_deref(), Some("balanced (firmware: fans and power limits)"));
        // After the driver's facts, before the kernel's.
        assert_eq!(mtl.facts[mtl.platform_at - 1].0, "Turbo");
        // The lap sensor is there, and off.
        assert!(!mtl.on_lap);
        let firmware: Vec<&str> =
            mtl.profiles.iter().map(|p| p.subtitle.rsplit_once(" · firmware: ").map_or("", |(_, f)| f)).collect();
        assert_eq!(firmware, ["performance", "balanced", "balanced", "low-power"]);
        assert_eq!(cores_header(&mtl_status, None), ["intel_pstate, active mode", "Platform profile: balanced"]);

        // Two class handlers: the AMD one calls its lowest "quiet".
        let hx = status("amd-hx370-platform-class");
        let hx_view = Overview::from_status(&hx);
        assert_eq!(hx_view.profiles[3].subtitle, "EPP power (255) · firmware: quiet");
        // Power Saver set: each handler shows its own name, the status says
        // "custom"; the machine's handlers tell which.
        let mut saver = machine("amd-hx370-platform-class").platform_profile.unwrap();
        saver.handlers[0].current = Some("quiet".into());
        saver.handlers[1].current = Some("low-power".into());
        saver.current = Some("custom".into());
        let mut hx_saver = hx.clone();
        hx_saver.platform_profile.as_mut().unwrap().current = Some("custom".into());
        assert_eq!(
            Overview::from_machine(&hx_saver, Some(&saver)).platform.as_deref(),
            Some("quiet / low-power (firmware: fans and power limits)")
        );
        assert_eq!(
            cores_header(&hx_saver, Some(&saver)),
            ["amd-pstate-epp, active mode", "Platform profile: quiet / low-power"]
        );
        assert_eq!(platform_now(&hx_saver, None).as_deref(), Some("custom"));
        // And Power Saver's row says what each handler gets.
        let with_handlers = Overview::from_machine(&hx, Some(&saver));
        assert_eq!(with_handlers.profiles[3].subtitle, "EPP power (255) · firmware: quiet / low-power");
        assert_eq!(with_handlers.profiles[1].subtitle, "EPP balance_performance (128) · firmware: balanced");
        assert_eq!(cores_header(&hx, None), ["amd-pstate-epp, active mode", "Platform profile: balanced"]);

        // On a lap.
        let mut lap = mtl_status.clone();
        lap.lap_mode = Some(true);
        assert!(Overview::from_status(&lap).on_lap);

        // No platform profile: no fact, no firmware in the subtitles.
        let raptor = Overview::from_status(&status("raptor-lake-13700h"));
        assert_eq!(raptor.platform, None);
        assert!(raptor.profiles.iter().all(|p| !p.subtitle.contains("firmware")));
        assert_eq!(cores_header(&status("raptor-lake-13700h"), None), ["intel_pstate, active mode"]);
    }

    #[test]
    fn a_sample_updates_a_card() {
        let sample = CpuSample {
            id: 12,
            cur_khz: Some(2_414_000),
            epp: Some(EppReading::Name(EppName::BalancePerformance)),
            governor: Some("powersave".into()),
        };
        let card = CoreCard::new(
            12,
            Some(CoreType::Efficiency),
            true,
            Some(&sample),
            Some(64),
            (Some(400_000), Some(3_800_000)),
            None,
        );
        assert_eq!(card.frequency, "2.41 GHz");
        assert_eq!(card.epp, "EPP 64 · balance_performance");
        assert_eq!(card.badge, "E");
        assert_eq!(card.range, "0.4–3.8 GHz");
        // Screen readers get the stable facts; the tooltip adds the frequency.
        assert_eq!(card.accessible, "CPU 12, efficiency core, EPP 64 · balance_performance, governor powersave");
        assert_eq!(
            card.tooltip(),
            "CPU 12, efficiency core, 2.41 GHz, EPP 64 · balance_performance, governor powersave"
        );
        let next = CpuSample { cur_khz: Some(800_000), ..sample };
        assert_eq!(CoreCard::new(12, None, true, Some(&next), Some(64), (None, None), None).frequency, "0.80 GHz");
        let off = CoreCard::new(5, None, false, None, None, (None, None), None);
        // A number the kernel has no name for, named after Gearshift's profile.
        let numeric = CpuSample { epp: Some(EppReading::Value(64)), ..next };
        assert_eq!(
            CoreCard::new(12, None, true, Some(&numeric), Some(64), (None, None), Some("Balanced")).epp,
            "EPP 64 · Balanced"
        );
        assert_eq!((off.frequency.as_str(), off.accessible.as_str()), ("Offline", "CPU 5, offline"));
    }

    #[test]
    fn each_helper_error_becomes_a_view() {
        let missing = ErrorView::from_client(&ClientError::NotInstalled);
        assert!(missing.lasting);
        assert!(missing.command.is_some());
        let denied = ErrorView::from_client(&ClientError::NotAuthorized("polkit says no".into()));
        assert!(!denied.lasting);
        assert!(denied.title.contains("not allowed"));
        let busy = ErrorView::from_client(&ClientError::WriteFailed(
            "writing energy_performance_preference for CPU 3 failed: Device or resource busy (EBUSY)".into(),
        ));
        assert!(busy.body.contains("performance governor holds EPP at 0"));
        let unsupported = ErrorView::from_client(&ClientError::Unsupported(
            "amd-pstate runs in passive mode, which has no EPP".into(),
        ));
        assert!(unsupported.body.contains("passive mode"));
        let offline =
            ErrorView::from_client(&ClientError::InvalidArgument("CPU 4 is offline; bring it online first".into()));
        assert!(offline.body.contains("come online"));
        let nobus = ErrorView::from_client(&ClientError::NoBus("no socket".into()));
        assert!(nobus.lasting && nobus.body.contains("system bus"));
    }

    #[test]
    fn saving_over_a_profile_of_the_same_name_asks_and_a_new_name_does_not() {
        use gearshift::core::custom::{id_for, parse_profiles};
        let saved = parse_profiles("[[profile]]\nid = \"büro\"\nname = \"Büro\"\nepp = 90\n").unwrap();
        let named = |name: &str| {
            let mut p = saved[0].clone();
            p.name = name.to_owned();
            p.id = id_for(name, &saved).id().to_owned();
            p
        };
        assert_eq!(replaced(&saved, &named("BÜRO")).map(|p| p.name.as_str()), Some("Büro"));
        assert!(replaced(&saved, &named("B ro")).is_none(), "a new name never replaces");
        assert!(replaced(&saved, &named("Büro!")).is_none(), "another name that makes the same id gets one of its own");
    }

    #[test]
    fn toasts_say_what_was_applied_where() {
        let s = status("meteor-lake-155h");
        assert_eq!(switched_toast(&s, "balance_power", 22, 22), "Efficient applied: EPP 179 on 22 CPUs");
        // Nothing written: said in plain words, not "0 values changed".
        assert_eq!(switched_toast(&s, "balance_power", 0, 22), "Efficient applied: all 22 CPUs already had EPP 179");
        assert_eq!(switched_toast(&s, "power", 1, 1), "Power Saver applied: EPP 255 on 1 CPU");
        assert_eq!(
            switched_toast(&status("vm-no-cpufreq"), "power", 0, 2),
            "Power Saver applied: all 2 CPUs already had these values"
        );
        assert_eq!(active_title(&s, Some("")), "None (tuned by hand)");
        assert_eq!(active_title(&s, Some("power")), "Power Saver");
        // Linux 6.8 left Meteor Lake at the generic 128.
        assert_eq!(active_title(&s, None), "None (every CPU is at EPP 128)");
        assert_eq!(active_title(&status("raptor-lake-13700h"), None), "Efficient");
    }

    #[test]
    fn the_driver_mode_row_offers_what_the_driver_takes() {
        let tiger = status("tiger-lake-passive");
        let row = mode_row(&tiger, None, None).unwrap();
        assert_eq!(row.modes, ["active", "passive"]);
        assert_eq!(row.selected, Some(1));
        assert!(row.sensitive);
        assert_eq!(
            row.subtitle,
            "active: the CPU picks frequencies guided by EPP; passive: a kernel governor picks them"
        );
        assert_eq!(row.accessible, "Driver mode: passive");
        // Right after the Driver fact.
        let view = Overview::from_status(&tiger);
        assert_eq!(view.facts[view.mode_at - 1], ("Driver".to_owned(), "intel_cpufreq, passive mode".to_owned()));
        assert!(view.mode_at < view.platform_at);

        // amd-pstate also takes guided.
        let amd = mode_row(&status("amd-5900x-passive"), None, None).unwrap();
        assert_eq!(amd.modes, ["active", "passive", "guided"]);
        assert_eq!(amd.selected, Some(1));
        assert!(amd.subtitle.contains("passive/guided: a kernel governor"), "{}", amd.subtitle);
        let mtl = mode_row(&status("meteor-lake-155h"), None, None).unwrap();
        assert_eq!((mtl.selected, mtl.accessible.as_str()), (Some(0), "Driver mode: active"));

        // No mode file: no row (the Driver fact says the mode).
        for fixture in ["amd-2600-acpi", "vm-no-cpufreq", "real-intel-kf-m2g5-passive"] {
            assert_eq!(mode_row(&status(fixture), None, None), None, "{fixture}");
        }
        // A mode the row does not offer selects nothing.
        let mut off = tiger.clone();
        off.mode = Some("off".into());
        assert_eq!(mode_row(&off, None, None).unwrap().selected, None);

        // In flight: the mode asked for, and no second switch meanwhile.
        let pending = mode_row(&tiger, Some("active"), None).unwrap();
        assert_eq!(pending.selected, Some(0));
        assert!(!pending.sensitive);
        assert_eq!(pending.subtitle, "Switching the driver's mode…");
        assert_eq!(pending.accessible, "Driver mode: active");
    }

    #[test]
    fn the_driver_mode_row_says_why_it_cannot_be_switched() {
        let tiger = status("tiger-lake-passive");
        assert_eq!(switch_blocked(false, None), None);
        let snapshot = mode_row(&tiger, None, switch_blocked(true, None)).unwrap();
        assert!(!snapshot.sensitive);
        assert_eq!(
            snapshot.subtitle,
            "Cannot be switched in a snapshot: it would change this computer, not the snapshot."
        );
        // The current mode is still shown.
        assert_eq!(snapshot.selected, Some(1));
        // Without the helper: its headline.
        let missing = ErrorView::from_client(&ClientError::NotInstalled);
        let no_helper = mode_row(&tiger, None, switch_blocked(false, Some(&missing))).unwrap();
        assert!(!no_helper.sensitive);
        assert_eq!(no_helper.subtitle, missing.title);
        // A snapshot says so before any helper trouble.
        assert_eq!(switch_blocked(true, Some(&missing)), switch_blocked(true, None));
    }

    #[test]
    fn the_wizard_offers_active_mode_where_the_report_recommends_it() {
        let offers = |fixture: &str| {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture);
            let ctx = Context::load_without_helper(Some(&dir)).unwrap();
            offers_active_mode(&HardwareReport::build(&ctx.resolver()), &status(fixture))
        };
        assert!(offers("tiger-lake-passive"));
        assert!(offers("amd-5900x-passive"));
        // Already active, no modes, or no mode file to switch.
        for fixture in ["meteor-lake-155h", "amd-2600-acpi", "real-intel-kf-m2g5-passive"] {
            assert!(!offers(fixture), "{fixture}");
        }
    }
}

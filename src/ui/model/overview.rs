//! The overview page's view model: the machine's facts and what each
//! profile means on it.

use gearshift::core::plan::PreferenceForm;
use gearshift::core::platform::{choice_for, PlatformProfile};
use gearshift::core::profile::BuiltinProfile;
use gearshift::core::status::{ProfileLine, Status};
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::*;

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
    let shown = match profile_platform(line, platform) {
        // Translators: {setting} is what a profile sets on the CPU ("EPP 64 (…)"), {platform} the firmware's platform profile it sets ("balanced").
        Some(platform) => {
            i18n_text("{setting} · firmware: {platform}").arg("setting", setting).arg("platform", platform).localized()
        }
        None => setting,
    };
    match panel_words(line) {
        Some(panel) => format!("{shown} · {panel}"),
        None => shown,
    }
}

/// How the desktop's power menu shows a profile (`core::panel`, the one
/// rule the helper serves the menu by), where that is not the profile's own
/// name: Efficient and custom profiles.
pub fn panel_words(line: &ProfileLine) -> Option<String> {
    line.power_panel.menu_words(&line.title().localized())
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
                // The number first, the kernel's name beside it.
                // Translators: An EPP number, then a short note.
                i18n_text("EPP {value} ({note})").arg("value", epp).arg("note", name).localized()
            }
            _ => gettext("No EPP on this machine"),
        },
        PreferenceForm::KernelDynamic => match line.epp {
            // Translators: an EPP number; the kernel's dynamic EPP sets it through each CPU's platform profile.
            Some(epp) => i18n_f("EPP {} (set by the kernel's dynamic EPP)", &[&epp]),
            None => gettext("The kernel's balanced EPP: 0 on AC, 128 on battery (dynamic EPP)"),
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
            .chain(hand_back_row(status))
            .collect();
        let can_tune = status.driver.is_some() || status.preference_form == PreferenceForm::Bias;
        Overview {
            title,
            subtitle,
            facts,
            platform: platform_text(status, platform),
            platform_at,
            on_lap: on_lap(status),
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

fn preference_fact(status: &Status) -> String {
    match status.preference_form {
        PreferenceForm::Number => gettext("EPP, written as numbers (HWP)"),
        PreferenceForm::Name => gettext("EPP, written as names (amd-pstate)"),
        PreferenceForm::NameOrNumber => gettext("EPP, names or numbers (amd-pstate)"),
        // Translators: {command} is a shell command.
        PreferenceForm::KernelDynamic => i18n_text("Set by the kernel (amd-pstate's dynamic EPP): Balanced and Efficient get 0 on AC and 128 on battery, Power Saver 255, Performance 0, each through the CPU's own platform profile. Your own EPP values need dynamic EPP off: {command}")
            .arg("command", gearshift::core::profile::DYNAMIC_EPP_OFF)
            .localized(),
        PreferenceForm::Bias => gettext("Energy bias only (no EPP)"),
        PreferenceForm::GovernorOnly => gettext("None: profiles choose a governor"),
    }
}

/// The switcher's last row: handing the CPU back to the kernel
/// (`core::kernel_own`), where there is anything to hand back.
fn hand_back_row(status: &Status) -> Option<ProfileRow> {
    let drives =
        status.driver.is_some() || status.preference_form == PreferenceForm::Bias || status.platform_profile.is_some();
    drives.then(|| ProfileRow {
        id: gearshift::core::kernel_own::KERNEL_OWN.to_owned(),
        title: gearshift::core::kernel_own::name().localized(),
        subtitle: if status.platform_profile.is_some() {
            gettext("Hands the CPU back: EPP, governor, limits and the platform profile as the kernel and the firmware set them at boot. Gearshift then changes nothing, also after sleep or a power change, until you choose a profile.")
        } else {
            gettext("Hands the CPU back: EPP, governor and limits as the kernel set them at boot. Gearshift then changes nothing, also after sleep or a power change, until you choose a profile.")
        },
        usable: true,
    })
}

#[cfg(test)]
mod tests {
    use super::super::firmware::{cores_header, platform_now};
    use super::super::testing::{machine, status};
    use super::*;

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
        // amd-pstate's dynamic EPP (7.1): said, with what it means and the way out.
        let dynamic = Overview::from_status(&status("amd-ai300-7.1-dynamic-epp"));
        let fact = &dynamic.facts.iter().find(|(k, _)| k == "Energy preference").unwrap().1;
        assert!(fact.contains("dynamic EPP") && fact.contains("0 on AC and 128 on battery"), "{fact}");
        assert!(fact.contains("amd_pstate/dynamic_epp"), "{fact}");
        let balanced = dynamic.profiles.iter().find(|p| p.id == "balance_performance").unwrap();
        assert!(balanced.subtitle.contains("0 on AC, 128 on battery"), "{}", balanced.subtitle);

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
        // The number first; Efficient is Balanced in the desktop's menu.
        assert_eq!(
            amd.profiles[2].subtitle,
            "EPP 191 (balance_power) · firmware: balanced · shown as Balanced in the desktop's power menu"
        );
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
        // The profiles' rows (the last row hands the CPU back, no profile).
        let firmware: Vec<&str> = mtl
            .profiles
            .iter()
            .filter(|p| p.id != gearshift::core::kernel_own::KERNEL_OWN)
            .map(|p| p.subtitle.split(" · firmware: ").nth(1).and_then(|f| f.split(" · ").next()).unwrap_or(""))
            .collect();
        assert_eq!(firmware, ["performance", "balanced", "balanced", "low-power"]);
        assert_eq!(mtl.profiles.last().map(|p| p.title.as_str()), Some("The kernel's own values"));
        assert_eq!(cores_header(&mtl_status, None), ["intel_pstate, active mode", "Platform profile: balanced"]);

        // Two class handlers: the AMD one calls its lowest "quiet".
        let hx = status("amd-hx370-platform-class");
        let hx_view = Overview::from_status(&hx);
        assert_eq!(hx_view.profiles[3].subtitle, "EPP 255 (power) · firmware: quiet");
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
        assert_eq!(with_handlers.profiles[3].subtitle, "EPP 255 (power) · firmware: quiet / low-power");
        assert_eq!(with_handlers.profiles[1].subtitle, "EPP 128 (balance_performance) · firmware: balanced");
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
}

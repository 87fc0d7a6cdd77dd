//! Custom profiles: a person's own EPP values (per core type on hybrid
//! CPUs), governor, turbo, dynamic boost and frequency limits.
//!
//! They are kept in a TOML file (`profiles.toml` in the helper's state
//! directory) as `[[profile]]` tables, and validated against the machine
//! with messages that name the bad field.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::identity::CoreType;
use super::machine::DriverKind;
use super::parse::{is_kernel_word, EppName};
use super::plan::{CpuSetting, Plan, Preference, PreferenceForm};
use super::platform::PROFILE_NAMES;
use super::profile::{BuiltinProfile, Resolver};
use crate::i18n::{i18n_text, Text};

/// The file name of the custom profiles in the helper's state directory.
pub const PROFILES_FILE: &str = "profiles.toml";

/// The most custom profiles kept: in the file, over D-Bus, in the window.
pub const MAX_CUSTOM_PROFILES: usize = 64;

/// An EPP setting: a number from 0 to 255, or a preference name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EppSetting {
    /// A raw value.
    Value(u8),
    /// A preference name such as `balance_power`.
    Name(String),
}

/// A person's own profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomProfile {
    /// Lowercase letters (any script), digits, `-` and `_`; not a built-in
    /// id (see [`is_valid_id`], and [`id_for`] for how names become ids).
    pub id: String,
    /// The name people see.
    pub name: String,
    /// EPP for every core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epp: Option<EppSetting>,
    /// EPP for P-cores (hybrid CPUs), overriding `epp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epp_performance_cores: Option<EppSetting>,
    /// EPP for E-cores (hybrid CPUs), overriding `epp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epp_efficiency_cores: Option<EppSetting>,
    /// The Energy Performance Bias (0 fastest .. 15 most frugal): the
    /// preference on CPUs without EPP (Ivy Bridge), written beside EPP
    /// where a CPU has both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_bias: Option<u8>,
    /// The governor; by default the one the built-in profiles use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governor: Option<String>,
    /// Turbo/boost on or off; unchanged when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turbo: Option<bool>,
    /// `hwp_dynamic_boost` on or off; unchanged when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_boost: Option<bool>,
    /// Lowest frequency in kHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_khz: Option<u64>,
    /// Highest frequency in kHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_khz: Option<u64>,
    /// The firmware's platform profile (`low-power`, `balanced`, ...);
    /// where absent, the one the built-in Balanced profile uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform_profile: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfilesFile {
    #[serde(default)]
    profile: Vec<CustomProfile>,
}

/// A custom profile that does not fit, naming the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("profile {profile:?}, {field}: {message}")]
pub struct ProfileError {
    /// The profile's id.
    pub profile: String,
    /// The field at fault.
    pub field: &'static str,
    /// What is wrong and what would be right (English in D-Bus errors and
    /// logs, translated where a person reads it).
    pub message: Text,
}

impl ProfileError {
    /// The field's name as the window labels it, for messages people read
    /// ("Highest frequency: 5000 MHz is outside ..."), never `max_khz`.
    pub fn label(&self) -> Text {
        field_label(self.field)
    }
}

/// A custom profile field's name as people read it.
pub fn field_label(field: &str) -> Text {
    match field {
        "id" => i18n_text("Id"),
        "name" => i18n_text("Name"),
        "epp" => i18n_text("Energy preference (EPP)"),
        "epp_performance_cores" => i18n_text("EPP on P-cores"),
        "epp_efficiency_cores" => i18n_text("EPP on E-cores"),
        "energy_bias" => i18n_text("Energy bias (EPB)"),
        "governor" => i18n_text("Governor"),
        "turbo" => i18n_text("Turbo"),
        "dynamic_boost" => i18n_text("Dynamic boost"),
        "min_khz" => i18n_text("Lowest frequency"),
        "max_khz" => i18n_text("Highest frequency"),
        "platform_profile" => i18n_text("Firmware profile"),
        _ => i18n_text("Profiles file"),
    }
}

/// Parses a profiles file.
///
/// # Errors
/// TOML that does not parse, unknown fields, duplicate ids, or a profile
/// whose id or name is malformed (see [`check_shape`]).
pub fn parse_profiles(text: &str) -> Result<Vec<CustomProfile>, ProfileError> {
    let file: ProfilesFile = toml::from_str(text).map_err(|e| ProfileError {
        profile: String::new(),
        field: "file",
        message: Text::from(e.message().to_owned()),
    })?;
    if file.profile.len() > MAX_CUSTOM_PROFILES {
        return Err(ProfileError {
            profile: String::new(),
            field: "file",
            message: i18n_text("holds {count} profiles; at most {limit} are kept")
                .arg("count", file.profile.len())
                .arg("limit", MAX_CUSTOM_PROFILES),
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    for profile in &file.profile {
        check_shape(profile)?;
        if !seen.insert(profile.id.as_str()) {
            return Err(error(profile, "id", i18n_text("appears twice in the file")));
        }
    }
    Ok(file.profile)
}

/// Writes profiles as TOML.
pub fn format_profiles(profiles: &[CustomProfile]) -> String {
    let file = ProfilesFile { profile: profiles.to_vec() };
    toml::to_string_pretty(&file).unwrap_or_default()
}

fn error(profile: &CustomProfile, field: &'static str, message: Text) -> ProfileError {
    ProfileError { profile: profile.id.clone(), field, message }
}

/// The most characters in a custom profile id.
pub const MAX_ID_CHARS: usize = 32;

/// True for a well-formed custom profile id: 1 to 32 lowercase letters (of
/// any script: "büro", "日本語"), digits, `-` and `_`, starting with a
/// letter or digit. Never a path separator, a dot, a space or a control or
/// text-direction character.
pub fn is_valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    let id_char = |c: char| c == '-' || c == '_' || is_lowercase_alphanumeric(c);
    chars.next().is_some_and(is_lowercase_alphanumeric) && id.chars().count() <= MAX_ID_CHARS && chars.all(id_char)
}

/// A letter or digit that is its own lowercase form.
fn is_lowercase_alphanumeric(c: char) -> bool {
    c.is_alphanumeric() && c.to_lowercase().eq(std::iter::once(c))
}

/// Where saving a profile with a given name goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdChoice {
    /// A new profile under this id, which no saved profile has.
    New(String),
    /// A saved profile already has this name (in any case): saving
    /// replaces it, keeping its id. The user side asks first.
    Replaces(String),
}

impl IdChoice {
    /// The id saved under.
    pub fn id(&self) -> &str {
        match self {
            IdChoice::New(id) | IdChoice::Replaces(id) => id,
        }
    }
}

/// The id a profile named `name` is saved under, among the `existing`
/// ones: the id of the profile of the same name (ignoring case and the
/// spaces around it), or a new id made from the name that no other profile
/// has. Letters of every script are kept ("Büro" is `büro`); other
/// characters become one `-` ("B ro" is `b-ro`); a name that would collapse
/// onto a taken id gets `-2`, `-3`, ...; a built-in id gets `custom-` in
/// front. Ids stay what they were when a profile is saved again.
pub fn id_for(name: &str, existing: &[CustomProfile]) -> IdChoice {
    // Names are kept in NFKC form (core::names): "Ｂüro" is saved as "Büro".
    let wanted = super::names::normalize(name).trim().to_lowercase();
    if let Some(same) = existing.iter().find(|p| super::names::normalize(&p.name).trim().to_lowercase() == wanted) {
        return IdChoice::Replaces(same.id.clone());
    }
    let mut slug = String::new();
    for c in wanted.chars() {
        if is_lowercase_alphanumeric(c) {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.trim_end_matches('-').chars().take(MAX_ID_CHARS).collect();
    let slug = slug.trim_end_matches('-').to_owned();
    let base = if slug.is_empty() {
        "custom".to_owned()
    } else if reserved_id(&slug) {
        format!("custom-{}", slug.chars().take(MAX_ID_CHARS - "custom-".len()).collect::<String>())
    } else {
        slug
    };
    let taken = |id: &str| existing.iter().any(|p| p.id == id);
    if !taken(&base) {
        return IdChoice::New(base);
    }
    (2..)
        .map(|n| {
            let suffix = format!("-{n}");
            let head: String = base.chars().take(MAX_ID_CHARS - suffix.len()).collect();
            format!("{}{suffix}", head.trim_end_matches('-'))
        })
        .find(|id| !taken(id))
        .map(IdChoice::New)
        .unwrap_or_else(|| IdChoice::New(base))
}

/// The id of the profile a person means by `word`: a built-in or custom
/// id, or a name (a built-in profile's English or translated name, a
/// custom profile's name), in any case and without the spaces around it.
/// Ids win over names: a custom profile named "power" does not hide the
/// built-in `power`.
pub fn find_profile(word: &str, customs: &[CustomProfile]) -> Option<String> {
    let word = word.trim();
    if BuiltinProfile::from_id(word).is_some() || customs.iter().any(|p| p.id == word) {
        return Some(word.to_owned());
    }
    let wanted = word.to_lowercase();
    let same = |text: &str| text.trim().to_lowercase() == wanted;
    BuiltinProfile::ALL
        .into_iter()
        .find(|p| same(p.id()) || same(&p.name().english()) || same(&p.name().localized()))
        .map(|p| p.id().to_owned())
        .or_else(|| customs.iter().find(|p| same(&p.id) || same(&p.name)).map(|p| p.id.clone()))
}

/// Ids no custom profile may take: the built-in ones, `default`, and
/// `kernel_default` (the efficiency lab's run at the kernel's generic value,
/// `SetProfile` during a measurement).
fn reserved_id(id: &str) -> bool {
    BuiltinProfile::from_id(id).is_some() || id == "default" || id == crate::core::measure::KERNEL_DEFAULT
}

/// Checks what does not depend on the machine: id, name, value ranges.
///
/// # Errors
/// The first field that is malformed.
pub fn check_shape(profile: &CustomProfile) -> Result<(), ProfileError> {
    if !is_valid_id(&profile.id) {
        return Err(error(
            profile,
            "id",
            i18n_text("use 1 to 32 lowercase letters or digits, '-' or '_', starting with a letter or digit"),
        ));
    }
    if reserved_id(&profile.id) {
        return Err(error(profile, "id", i18n_text("is the name of a built-in profile")));
    }
    let name = profile.name.trim();
    if name.is_empty() || name.chars().count() > 64 || profile.name.chars().any(is_control_or_bidi) {
        return Err(error(
            profile,
            "name",
            i18n_text("use 1 to 64 printable characters, without control or text-direction characters"),
        ));
    }
    for (field, setting) in epp_fields(profile) {
        if let Some(EppSetting::Name(text)) = setting {
            if !EppName::PROFILES.iter().any(|n| n.as_str() == text) {
                return Err(error(
                    profile,
                    field,
                    i18n_text("{value} is not performance, balance_performance, balance_power or power")
                        .arg("value", format!("{text:?}")),
                ));
            }
        }
    }
    if let Some(governor) = &profile.governor {
        if !is_kernel_word(governor) {
            return Err(error(
                profile,
                "governor",
                i18n_text("{value} is not a governor name").arg("value", format!("{governor:?}")),
            ));
        }
    }
    if let Some(choice) = &profile.platform_profile {
        if !PROFILE_NAMES.contains(&choice.as_str()) || choice == "custom" {
            return Err(error(
                profile,
                "platform_profile",
                i18n_text("{value} is not a platform profile name (low-power, cool, quiet, balanced, balanced-performance, performance)")
                    .arg("value", format!("{choice:?}")),
            ));
        }
    }
    if let (Some(min), Some(max)) = (profile.min_khz, profile.max_khz) {
        if min > max {
            return Err(error(
                profile,
                "min_khz",
                // Translators: frequencies in MHz.
                i18n_text("{min} MHz is above the highest frequency, {max} MHz")
                    .arg("min", mhz(min))
                    .arg("max", mhz(max)),
            ));
        }
    }
    if let Some(bias) = profile.energy_bias {
        if bias > 15 {
            return Err(error(profile, "energy_bias", i18n_text("{value} is not 0 to 15").arg("value", bias)));
        }
    }
    Ok(())
}

/// A profile about to be saved among `existing`, as it is kept: its name in
/// NFKC form, checked by [`check_shape`] and by the rules against names
/// and ids that could pass for another profile (`core::names`). The
/// profile of the same id in `existing` is the one it replaces.
///
/// # Errors
/// The first field at fault, saying what is wrong.
pub fn checked_for_saving(
    mut profile: CustomProfile,
    existing: &[CustomProfile],
) -> Result<CustomProfile, ProfileError> {
    use super::names;
    if let Some(problem) = names::name_problem(&profile.name) {
        return Err(error(&profile, "name", problem));
    }
    profile.name = names::normalize(&profile.name);
    check_shape(&profile)?;
    if let Some(problem) = names::id_problem(&profile.id) {
        return Err(error(&profile, "id", problem));
    }
    let others: Vec<(&str, &str)> =
        existing.iter().filter(|p| p.id != profile.id).map(|p| (p.id.as_str(), p.name.as_str())).collect();
    if let Some((field, problem)) = names::look_alike(&profile.id, &profile.name, &others) {
        return Err(error(&profile, field, problem));
    }
    Ok(profile)
}

/// kHz as the MHz people read (rounded).
fn mhz(khz: u64) -> u64 {
    (khz + 500) / 1000
}

/// Control characters, and the invisible marks that reorder text
/// (U+202E would show "Power" for a name that reads otherwise).
fn is_control_or_bidi(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn epp_fields(profile: &CustomProfile) -> [(&'static str, Option<&EppSetting>); 3] {
    [
        ("epp", profile.epp.as_ref()),
        ("epp_performance_cores", profile.epp_performance_cores.as_ref()),
        ("epp_efficiency_cores", profile.epp_efficiency_cores.as_ref()),
    ]
}

impl Resolver<'_> {
    /// The plan for a custom profile on this machine.
    ///
    /// # Errors
    /// A [`ProfileError`] naming the first field this machine cannot honour.
    pub fn custom(&self, profile: &CustomProfile) -> Result<Plan, ProfileError> {
        check_shape(profile)?;
        let machine = self.machine;
        let hybrid = machine.is_hybrid();
        let wants_epp = epp_fields(profile).iter().any(|(_, s)| s.is_some());
        if wants_epp
            && !matches!(self.form, PreferenceForm::Number | PreferenceForm::Name | PreferenceForm::NameOrNumber)
        {
            let field = epp_fields(profile).iter().find(|(_, s)| s.is_some()).map_or("epp", |(f, _)| *f);
            return Err(error(profile, field, no_epp_reason(self)));
        }
        if !hybrid {
            for field in ["epp_performance_cores", "epp_efficiency_cores"] {
                let set = epp_fields(profile).iter().any(|(f, s)| *f == field && s.is_some());
                if set {
                    return Err(error(
                        profile,
                        field,
                        i18n_text("this CPU has only one kind of core: set the energy preference for all cores"),
                    ));
                }
            }
        }
        let per_type = |core: Option<CoreType>| -> Option<(&'static str, &EppSetting)> {
            let specific = match core {
                Some(CoreType::Performance) => {
                    profile.epp_performance_cores.as_ref().map(|s| ("epp_performance_cores", s))
                }
                Some(CoreType::Efficiency) => {
                    profile.epp_efficiency_cores.as_ref().map(|s| ("epp_efficiency_cores", s))
                }
                None => None,
            };
            specific.or(profile.epp.as_ref().map(|s| ("epp", s)))
        };

        let own_algorithm = matches!(machine.driver_kind(), Some(DriverKind::IntelPstate | DriverKind::AmdPstateEpp));
        let mut cpus = Vec::new();
        for cpu in machine.cpus.iter().filter(|c| c.online) {
            let Some(policy) = machine.policy_of(cpu) else { continue };
            let governor = match &profile.governor {
                Some(g) if policy.available_governors.iter().any(|a| a == g) => Some(g.clone()),
                Some(g) => {
                    let offered = policy.available_governors.join(", ");
                    return Err(error(
                        profile,
                        "governor",
                        i18n_text("CPU {cpu} offers {offered}, not {value}")
                            .arg("cpu", cpu.id)
                            .arg("offered", offered)
                            .arg("value", format!("{g:?}")),
                    ));
                }
                None => super::profile::default_governor(machine, policy, BuiltinProfile::BalancePerformance),
            };
            let (preference, epp_value) = match per_type(cpu.core_type) {
                Some((field, setting)) => {
                    let (pref, value) = self.epp_preference(profile, field, setting)?;
                    if own_algorithm && governor.as_deref() == Some("performance") && value > 0 {
                        return Err(error(
                            profile,
                            "governor",
                            i18n_text("the performance governor locks EPP at 0: the kernel refuses any other value (EBUSY). Use powersave with this EPP"),
                        ));
                    }
                    (Some(pref), Some(value))
                }
                None => (None, None),
            };
            let (min_khz, max_khz) = self.frequency_limits(profile, policy)?;
            // The bias alone where there is no EPP; beside EPP otherwise.
            let (preference, companion_bias) = match (profile.energy_bias, cpu.energy_perf_bias) {
                (Some(bias), Some(_)) if self.form == PreferenceForm::Bias => (Some(Preference::Bias(bias)), None),
                (Some(bias), Some(_)) => (preference, Some(bias)),
                _ => (preference, None),
            };
            cpus.push(CpuSetting {
                cpu: cpu.id,
                policy: cpu.policy,
                governor,
                preference,
                epp_value,
                min_khz,
                max_khz,
                companion_bias,
            });
        }
        if profile.energy_bias.is_some() && !machine.cpus.iter().any(|c| c.online && c.energy_perf_bias.is_some()) {
            return Err(error(profile, "energy_bias", i18n_text("this CPU has no energy performance bias")));
        }
        if profile.turbo.is_some() && machine.turbo.is_none() {
            return Err(error(profile, "turbo", i18n_text("this machine has no turbo or boost switch")));
        }
        if profile.dynamic_boost.is_some() && machine.hwp_dynamic_boost.is_none() {
            return Err(error(
                profile,
                "dynamic_boost",
                i18n_text("hwp_dynamic_boost exists only with intel_pstate in active mode with HWP"),
            ));
        }
        let platform = match (&profile.platform_profile, &machine.platform_profile) {
            (None, _) => self.platform_for(BuiltinProfile::BalancePerformance.platform_wanted()),
            (Some(choice), Some(platform)) if platform.offers(choice) => self.platform_exactly(choice),
            (Some(choice), Some(platform)) => {
                return Err(error(
                    profile,
                    "platform_profile",
                    i18n_text("the firmware offers {offered}, not {value}")
                        .arg("offered", platform.choices.join(", "))
                        .arg("value", format!("{choice:?}")),
                ))
            }
            (Some(_), None) => {
                return Err(error(profile, "platform_profile", i18n_text("this machine has no platform profile")))
            }
        };
        Ok(Plan {
            profile: profile.id.clone(),
            cpus,
            turbo: profile.turbo.zip(machine.turbo).map(|(on, (_, control))| crate::core::plan::Turbo { on, control }),
            dynamic_boost: profile.dynamic_boost,
            platform,
        })
    }

    fn epp_preference(
        &self,
        profile: &CustomProfile,
        field: &'static str,
        setting: &EppSetting,
    ) -> Result<(Preference, u8), ProfileError> {
        let model = self.model.as_ref();
        match (setting, self.form) {
            (EppSetting::Value(value), PreferenceForm::Number | PreferenceForm::NameOrNumber) => {
                Ok((Preference::EppNumber(*value), *value))
            }
            (EppSetting::Value(value), _) => {
                // Old amd-pstate takes names only: a value that is a name's
                // generic value is fine, anything else cannot be written.
                let name = model.and_then(|m| m.generic.name_of(*value));
                match name {
                    Some(name) => Ok((Preference::EppName(name), *value)),
                    None => Err(error(
                        profile,
                        field,
                        i18n_text("this kernel's amd-pstate accepts only names (raw values come with Linux 7.1): use performance, balance_performance, balance_power or power, not {value}")
                            .arg("value", value),
                    )),
                }
            }
            (EppSetting::Name(text), form) => {
                let name = EppName::from_kernel(text).unwrap_or(EppName::BalancePerformance);
                let value = self.epp_for(name).unwrap_or(0);
                let pref = if form == PreferenceForm::Number {
                    Preference::EppNumber(value)
                } else {
                    Preference::EppName(name)
                };
                Ok((pref, value))
            }
        }
    }

    fn frequency_limits(
        &self,
        profile: &CustomProfile,
        policy: &super::machine::Policy,
    ) -> Result<(Option<u64>, Option<u64>), ProfileError> {
        let machine = self.machine;
        let lowest = machine.policies.values().filter_map(|p| p.hw_min_khz).min();
        let highest = machine.policies.values().filter_map(|p| p.hw_max_khz).max();
        let check = |field: &'static str, value: Option<u64>| -> Result<Option<u64>, ProfileError> {
            let Some(value) = value else { return Ok(None) };
            match (lowest, highest) {
                (Some(lo), Some(hi)) if (lo..=hi).contains(&value) => {
                    // Each policy gets the value clamped to its own range
                    // (E-cores top out lower than P-cores).
                    let lo = policy.hw_min_khz.unwrap_or(lo);
                    let hi = policy.hw_max_khz.unwrap_or(hi);
                    Ok(Some(value.clamp(lo, hi.max(lo))))
                }
                (Some(lo), Some(hi)) => Err(error(
                    profile,
                    field,
                    // Translators: frequencies in MHz.
                    i18n_text("{value} MHz is outside what this CPU can run at, {lowest} to {highest} MHz")
                        .arg("value", mhz(value))
                        .arg("lowest", mhz(lo))
                        .arg("highest", mhz(hi)),
                )),
                _ => Err(error(profile, field, i18n_text("this machine does not show its frequency range"))),
            }
        };
        Ok((check("min_khz", profile.min_khz)?, check("max_khz", profile.max_khz)?))
    }
}

/// Why the machine takes no EPP, in a sentence (English in errors, which
/// are data; the user side may show it translated).
pub fn no_epp_reason(resolver: &Resolver<'_>) -> Text {
    let machine = resolver.machine;
    match (machine.driver.as_deref(), machine.mode.as_deref()) {
        (None, _) => i18n_text("this machine has no cpufreq driver (a virtual machine?), so there is no EPP to set"),
        (Some("amd-pstate"), mode) => i18n_text(
            "amd-pstate runs in {mode} mode, which has no EPP; active mode (amd_pstate=active on the kernel command line) has it",
        )
        .arg("mode", mode.unwrap_or("passive")),
        (Some(driver), _) => {
            i18n_text("the {driver} driver offers no energy performance preference on this CPU").arg("driver", driver)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_checks_shape() {
        let text = r#"
[[profile]]
id = "quiet"
name = "Quiet office"
epp_performance_cores = 96
epp_efficiency_cores = "balance_power"
governor = "powersave"
turbo = false
max_khz = 3000000
"#;
        let profiles = parse_profiles(text).unwrap();
        assert_eq!(profiles[0].epp_efficiency_cores, Some(EppSetting::Name("balance_power".into())));
        assert_eq!(parse_profiles(&format_profiles(&profiles)).unwrap(), profiles);
    }

    #[test]
    fn shape_errors_name_the_field() {
        let field = |text: &str| parse_profiles(text).unwrap_err().field;
        assert_eq!(field("[[profile]]\nid = \"Bad Id\"\nname = \"x\"\n"), "id");
        assert_eq!(field("[[profile]]\nid = \"../etc\"\nname = \"x\"\n"), "id");
        assert_eq!(field("[[profile]]\nid = \"power\"\nname = \"x\"\n"), "id");
        assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"\"\n"), "name");
        assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\nepp = \"turbo\"\n"), "epp");
        assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\nepp = 256\n"), "file");
        assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\ngovernor = \"a/b\"\n"), "governor");
        assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\nmin_khz = 5\nmax_khz = 4\n"), "min_khz");
        assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\n[[profile]]\nid = \"a\"\nname = \"y\"\n"), "id");
        assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\ncolour = 1\n"), "file");
        // Text-direction overrides and other invisible controls in names.
        for bad in ["\\u202Erewop", "a\\u2066b", "a\\u200Fb", "tab\\there", "a\\u061Cb"] {
            assert_eq!(field(&format!("[[profile]]\nid = \"a\"\nname = \"{bad}\"\n")), "name", "{bad}");
        }
        assert!(parse_profiles("[[profile]]\nid = \"a\"\nname = \"Büro – leise\"\n").is_ok());
    }

    fn named(id: &str, name: &str) -> CustomProfile {
        let text = format!("[[profile]]\nid = \"{id}\"\nname = \"{name}\"\n");
        parse_profiles(&text).unwrap().remove(0)
    }

    #[test]
    fn ids_keep_letters_and_never_collapse_two_names() {
        assert_eq!(id_for("Büro", &[]), IdChoice::New("büro".into()));
        assert_eq!(id_for("  Quiet   office! ", &[]), IdChoice::New("quiet-office".into()));
        assert_eq!(id_for("日本語 プロファイル", &[]), IdChoice::New("日本語-プロファイル".into()));
        assert_eq!(id_for("Power", &[]), IdChoice::New("custom-power".into()));
        assert_eq!(id_for("default", &[]), IdChoice::New("custom-default".into()));
        let mut lab_run = named("kernel-default", "Kernel");
        assert!(check_shape(&lab_run).is_ok());
        lab_run.id = "kernel_default".into();
        assert!(check_shape(&lab_run).is_err_and(|e| e.field == "id"), "the lab's run is reserved");
        assert_eq!(id_for("!!!", &[]), IdChoice::New("custom".into()));
        let long = id_for(&"Ä".repeat(50), &[]);
        assert_eq!(long.id().chars().count(), MAX_ID_CHARS);
        // The issue's case: "Büro" and "B ro" are two profiles.
        let saved = [named("büro", "Büro")];
        assert_eq!(id_for("B ro", &saved), IdChoice::New("b-ro".into()));
        // Two names that make the same id get two ids.
        let saved = [named("b-ro", "B ro")];
        assert_eq!(id_for("B-ro", &saved), IdChoice::New("b-ro-2".into()));
        let saved = [named("b-ro", "B ro"), named("b-ro-2", "B-ro")];
        assert_eq!(id_for("B_ro", &saved), IdChoice::New("b-ro-3".into()));
        // The same name (any case) replaces, keeping the id.
        let saved = [named("büro", "Büro")];
        assert_eq!(id_for("büro ", &saved), IdChoice::Replaces("büro".into()));
        assert_eq!(id_for("BÜRO", &saved), IdChoice::Replaces("büro".into()));
        // A long name's suffix stays within the limit.
        let saved = [named(&"a".repeat(32), "first")];
        let next = id_for(&"a".repeat(40), &saved);
        assert_eq!(next, IdChoice::New(format!("{}-2", "a".repeat(30))));
        for choice in [next, id_for("Büro", &[]), id_for("日本語", &[]), long] {
            assert!(is_valid_id(choice.id()), "{choice:?}");
        }
    }

    #[test]
    fn profiles_are_found_by_id_or_name_in_any_case() {
        let customs = [named("büro", "Büro"), named("quiet", "Power")];
        assert_eq!(find_profile("balance_power", &customs).as_deref(), Some("balance_power"));
        assert_eq!(find_profile("Efficient", &customs).as_deref(), Some("balance_power"));
        assert_eq!(find_profile("efficient", &customs).as_deref(), Some("balance_power"));
        assert_eq!(find_profile(" POWER SAVER ", &customs).as_deref(), Some("power"));
        assert_eq!(find_profile("BALANCE_POWER", &customs).as_deref(), Some("balance_power"));
        assert_eq!(find_profile("BÜRO", &customs).as_deref(), Some("büro"));
        assert_eq!(find_profile("büro", &customs).as_deref(), Some("büro"));
        // The built-in id wins over a custom profile's name.
        assert_eq!(find_profile("power", &customs).as_deref(), Some("power"));
        assert_eq!(find_profile("Turbo", &customs), None);
    }

    #[test]
    fn ids_are_lowercase_words_only() {
        for good in ["büro", "日本語", "a", "quiet_2", "3d"] {
            assert!(is_valid_id(good), "{good}");
        }
        for bad in ["", "Büro", "-a", "_a", "a b", "a/b", "a.b", "..", "a\u{202e}b", "ǅ", &"a".repeat(33)] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn the_file_holds_at_most_the_limit() {
        let file =
            |n: usize| (0..n).map(|i| format!("[[profile]]\nid = \"p{i}\"\nname = \"P{i}\"\n")).collect::<String>();
        assert_eq!(parse_profiles(&file(MAX_CUSTOM_PROFILES)).unwrap().len(), MAX_CUSTOM_PROFILES);
        let err = parse_profiles(&file(2000)).unwrap_err();
        assert_eq!(err.field, "file");
        assert!(err.message.english().contains("2000"), "{err}");
    }
}

//! Custom profiles: a person's own EPP values (per core type on hybrid
//! CPUs), governor, turbo, dynamic boost and frequency limits.
//!
//! They are kept in a TOML file (`profiles.toml` in the helper's state
//! directory) as `[[profile]]` tables, and validated against the machine
//! with messages that name the bad field.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::parse::{is_kernel_word, quote, EppName};
use super::platform::PROFILE_NAMES;
use super::profile::BuiltinProfile;
use crate::i18n::{i18n_text, Text};

mod describe;
mod panel;
mod plan;
pub use plan::no_epp_reason;

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

/// A person's own profile. The default sets nothing and has no id or name
/// yet (a start to fill in, never valid as it is).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// A field of a custom profile (the keys of `profiles.toml`), or the file
/// as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `id`.
    Id,
    /// `name`.
    Name,
    /// `epp`.
    Epp,
    /// `epp_performance_cores`.
    EppPerformanceCores,
    /// `epp_efficiency_cores`.
    EppEfficiencyCores,
    /// `energy_bias`.
    EnergyBias,
    /// `governor`.
    Governor,
    /// `turbo`.
    Turbo,
    /// `dynamic_boost`.
    DynamicBoost,
    /// `min_khz`.
    MinKhz,
    /// `max_khz`.
    MaxKhz,
    /// `platform_profile`.
    PlatformProfile,
    /// The file or text as a whole.
    File,
}

impl Field {
    /// Its key in `profiles.toml` (`file` for the whole).
    pub fn key(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::Name => "name",
            Field::Epp => "epp",
            Field::EppPerformanceCores => "epp_performance_cores",
            Field::EppEfficiencyCores => "epp_efficiency_cores",
            Field::EnergyBias => "energy_bias",
            Field::Governor => "governor",
            Field::Turbo => "turbo",
            Field::DynamicBoost => "dynamic_boost",
            Field::MinKhz => "min_khz",
            Field::MaxKhz => "max_khz",
            Field::PlatformProfile => "platform_profile",
            Field::File => "file",
        }
    }

    /// Its name as people read it (the window's label), never `max_khz`.
    pub fn label(self) -> Text {
        match self {
            Field::Id => i18n_text("Id"),
            Field::Name => i18n_text("Name"),
            Field::Epp => i18n_text("Energy preference (EPP)"),
            Field::EppPerformanceCores => i18n_text("EPP on P-cores"),
            Field::EppEfficiencyCores => i18n_text("EPP on E-cores"),
            Field::EnergyBias => i18n_text("Energy bias (EPB)"),
            Field::Governor => i18n_text("Governor"),
            Field::Turbo => i18n_text("Turbo"),
            Field::DynamicBoost => i18n_text("Dynamic boost"),
            Field::MinKhz => i18n_text("Lowest frequency"),
            Field::MaxKhz => i18n_text("Highest frequency"),
            Field::PlatformProfile => i18n_text("Firmware profile"),
            Field::File => i18n_text("Profiles file"),
        }
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

/// A custom profile that does not fit, naming the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("profile {}, {field}: {message}", quote(.profile))]
pub struct ProfileError {
    /// The profile's id.
    pub profile: String,
    /// The field at fault.
    pub field: Field,
    /// What is wrong and what would be right (English in D-Bus errors and
    /// logs, translated where a person reads it).
    pub message: Text,
}

impl ProfileError {
    /// The field's name as the window labels it, for messages people read
    /// ("Highest frequency: 5000 MHz is outside ..."), never `max_khz`.
    pub fn label(&self) -> Text {
        self.field.label()
    }

    /// The field's key and what is wrong, in English: "max_khz: 5000 MHz is
    /// outside ..." (D-Bus errors, logs, JSON).
    pub fn detail(&self) -> String {
        format!("{}: {}", self.field.key(), self.message)
    }

    /// The field as the window labels it and what is wrong, for people
    /// ("Highest frequency: 5000 MHz is outside ..."): the helper's
    /// refusals, which clients show translated.
    pub fn sentence(&self) -> Text {
        // Translators: a field of a profile and what is wrong with it.
        i18n_text("{field}: {problem}").arg_text("field", self.label()).arg_text("problem", self.message.clone())
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
        field: Field::File,
        message: Text::from(e.message().to_owned()),
    })?;
    if file.profile.len() > MAX_CUSTOM_PROFILES {
        return Err(ProfileError {
            profile: String::new(),
            field: Field::File,
            message: i18n_text("holds {count} profiles; at most {limit} are kept")
                .arg("count", file.profile.len())
                .arg("limit", MAX_CUSTOM_PROFILES),
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    for profile in &file.profile {
        check_shape(profile)?;
        if !seen.insert(profile.id.as_str()) {
            return Err(error(profile, Field::Id, i18n_text("appears twice in the file")));
        }
    }
    Ok(file.profile)
}

/// Writes profiles as TOML.
///
/// # Errors
/// They cannot be written as TOML (never an empty text in their place:
/// that would be saved as a file without profiles).
pub fn format_profiles(profiles: &[CustomProfile]) -> Result<String, toml::ser::Error> {
    let file = ProfilesFile { profile: profiles.to_vec() };
    toml::to_string_pretty(&file)
}

fn error(profile: &CustomProfile, field: Field, message: Text) -> ProfileError {
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
    let kernel = crate::core::kernel_own::name();
    if same(crate::core::kernel_own::KERNEL_OWN) || same(&kernel.english()) || same(&kernel.localized()) {
        return Some(crate::core::kernel_own::KERNEL_OWN.to_owned());
    }
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
    BuiltinProfile::from_id(id).is_some()
        || id == "default"
        || id == crate::core::measure::KERNEL_DEFAULT
        || id == crate::core::kernel_own::KERNEL_OWN
}

/// Checks what does not depend on the machine: id, name, value ranges.
///
/// # Errors
/// The first field that is malformed.
pub fn check_shape(profile: &CustomProfile) -> Result<(), ProfileError> {
    if !is_valid_id(&profile.id) {
        return Err(error(
            profile,
            Field::Id,
            i18n_text("use 1 to 32 lowercase letters or digits, '-' or '_', starting with a letter or digit"),
        ));
    }
    if reserved_id(&profile.id) {
        return Err(error(profile, Field::Id, i18n_text("is the name of a built-in profile")));
    }
    let name = profile.name.trim();
    if name.is_empty() || name.chars().count() > 64 || profile.name.chars().any(is_control_or_bidi) {
        return Err(error(
            profile,
            Field::Name,
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
                        .arg("value", quote(text)),
                ));
            }
        }
    }
    if let Some(governor) = &profile.governor {
        if !is_kernel_word(governor) {
            return Err(error(
                profile,
                Field::Governor,
                i18n_text("{value} is not a governor name").arg("value", quote(governor)),
            ));
        }
    }
    if let Some(choice) = &profile.platform_profile {
        if !PROFILE_NAMES.contains(&choice.as_str()) || choice == "custom" {
            return Err(error(
                profile,
                Field::PlatformProfile,
                i18n_text("{value} is not a platform profile name (low-power, cool, quiet, balanced, balanced-performance, performance)")
                    .arg("value", quote(choice)),
            ));
        }
    }
    if let (Some(min), Some(max)) = (profile.min_khz, profile.max_khz) {
        if min > max {
            return Err(error(
                profile,
                Field::MinKhz,
                // Translators: frequencies in MHz.
                i18n_text("{min} MHz is above the highest frequency, {max} MHz")
                    .arg("min", mhz(min))
                    .arg("max", mhz(max)),
            ));
        }
    }
    if let Some(bias) = profile.energy_bias {
        if bias > 15 {
            return Err(error(profile, Field::EnergyBias, i18n_text("{value} is not 0 to 15").arg("value", bias)));
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
        return Err(error(&profile, Field::Name, problem));
    }
    profile.name = names::normalize(&profile.name);
    check_shape(&profile)?;
    if let Some(problem) = names::id_problem(&profile.id) {
        return Err(error(&profile, Field::Id, problem));
    }
    let others: Vec<(&str, &str)> =
        existing.iter().filter(|p| p.id != profile.id).map(|p| (p.id.as_str(), p.name.as_str())).collect();
    if let Some((part, problem)) = names::look_alike(&profile.id, &profile.name, &others) {
        let field = match part {
            names::Part::Name => Field::Name,
            names::Part::Id => Field::Id,
        };
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

fn epp_fields(profile: &CustomProfile) -> [(Field, Option<&EppSetting>); 3] {
    [
        (Field::Epp, profile.epp.as_ref()),
        (Field::EppPerformanceCores, profile.epp_performance_cores.as_ref()),
        (Field::EppEfficiencyCores, profile.epp_efficiency_cores.as_ref()),
    ]
}

#[cfg(test)]
mod tests;

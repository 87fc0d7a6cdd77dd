//! A custom profile on the wire: an `a{sv}` whose keys are those of
//! `profiles.toml` (docs/dbus-api.md, "State directory"), each with its
//! D-Bus type. TOML stays the file format only; `ListCustomProfiles` and
//! `SaveCustomProfile` carry these.
//!
//! | key | type |
//! |---|---|
//! | `id`, `name` | `s` (both required) |
//! | `epp`, `epp_performance_cores`, `epp_efficiency_cores` | `y` (0..255) or `s` (a preference name) |
//! | `energy_bias` | `y` |
//! | `governor`, `platform_profile` | `s` |
//! | `turbo`, `dynamic_boost` | `b` |
//! | `min_khz`, `max_khz` | `t` |
//!
//! An unknown key, a value of another type, or a text over [`MAX_TEXT`]
//! bytes is refused, saying which; what the values mean is checked after
//! (`core::custom`), as for the file.

use std::collections::HashMap;

use zbus::zvariant::{OwnedValue, Value};

use crate::core::custom::{CustomProfile, EppSetting};

/// A custom profile as it crosses the bus.
pub type WireProfile = HashMap<String, OwnedValue>;

/// The longest text a key may hold, in bytes (a name is at most 64
/// characters: this only bounds what is read before that is checked).
pub const MAX_TEXT: usize = 1024;

fn text(value: &str) -> OwnedValue {
    // A text value of ours is never a file descriptor: the conversion cannot fail.
    OwnedValue::try_from(Value::from(value)).unwrap_or_else(|_| OwnedValue::from(0u8))
}

fn epp(setting: &EppSetting) -> OwnedValue {
    match setting {
        EppSetting::Value(value) => OwnedValue::from(*value),
        EppSetting::Name(name) => text(name),
    }
}

/// The profile as it crosses the bus.
pub fn to_wire(profile: &CustomProfile) -> WireProfile {
    let mut wire = WireProfile::new();
    wire.insert("id".into(), text(&profile.id));
    wire.insert("name".into(), text(&profile.name));
    for (key, setting) in [
        ("epp", &profile.epp),
        ("epp_performance_cores", &profile.epp_performance_cores),
        ("epp_efficiency_cores", &profile.epp_efficiency_cores),
    ] {
        if let Some(setting) = setting {
            wire.insert(key.into(), epp(setting));
        }
    }
    if let Some(bias) = profile.energy_bias {
        wire.insert("energy_bias".into(), OwnedValue::from(bias));
    }
    for (key, word) in [("governor", &profile.governor), ("platform_profile", &profile.platform_profile)] {
        if let Some(word) = word {
            wire.insert(key.into(), text(word));
        }
    }
    for (key, flag) in [("turbo", profile.turbo), ("dynamic_boost", profile.dynamic_boost)] {
        if let Some(flag) = flag {
            wire.insert(key.into(), OwnedValue::from(flag));
        }
    }
    for (key, khz) in [("min_khz", profile.min_khz), ("max_khz", profile.max_khz)] {
        if let Some(khz) = khz {
            wire.insert(key.into(), OwnedValue::from(khz));
        }
    }
    wire
}

/// The profiles `ListCustomProfiles` answered.
///
/// # Errors
/// One of them does not parse (it says which).
pub fn list_from_wire(list: &[WireProfile]) -> Result<Vec<CustomProfile>, String> {
    list.iter().map(from_wire).collect()
}

/// A profile that came over the bus, its keys and types checked.
///
/// # Errors
/// An unknown or missing key, a value of the wrong type, or too long a
/// text, in words.
pub fn from_wire(wire: &WireProfile) -> Result<CustomProfile, String> {
    let mut profile = CustomProfile::default();
    let mut keys: Vec<&String> = wire.keys().collect();
    keys.sort();
    for key in keys {
        let value: &Value<'_> = &wire[key];
        let wrong = |wanted: &str| format!("{key}: expected {wanted}, got a value of type {}", value.value_signature());
        let as_text = || -> Result<String, String> {
            match value {
                Value::Str(s) if s.len() <= MAX_TEXT => Ok(s.as_str().to_owned()),
                Value::Str(s) => Err(format!("{key}: {} bytes long, at most {MAX_TEXT} are read", s.len())),
                _ => Err(wrong("a string (s)")),
            }
        };
        let as_epp = || -> Result<EppSetting, String> {
            match value {
                Value::U8(v) => Ok(EppSetting::Value(*v)),
                Value::Str(_) => as_text().map(EppSetting::Name),
                _ => Err(wrong("a byte (y) from 0 to 255 or a preference name (s)")),
            }
        };
        let as_flag = || match value {
            Value::Bool(b) => Ok(*b),
            _ => Err(wrong("a boolean (b)")),
        };
        let as_khz = || match value {
            Value::U64(v) => Ok(*v),
            _ => Err(wrong("kHz as an unsigned 64-bit number (t)")),
        };
        match key.as_str() {
            "id" => profile.id = as_text()?,
            "name" => profile.name = as_text()?,
            "epp" => profile.epp = Some(as_epp()?),
            "epp_performance_cores" => profile.epp_performance_cores = Some(as_epp()?),
            "epp_efficiency_cores" => profile.epp_efficiency_cores = Some(as_epp()?),
            "energy_bias" => {
                profile.energy_bias = Some(match value {
                    Value::U8(v) => *v,
                    _ => return Err(wrong("a byte (y) from 0 to 15")),
                });
            }
            "governor" => profile.governor = Some(as_text()?),
            "platform_profile" => profile.platform_profile = Some(as_text()?),
            "turbo" => profile.turbo = Some(as_flag()?),
            "dynamic_boost" => profile.dynamic_boost = Some(as_flag()?),
            "min_khz" => profile.min_khz = Some(as_khz()?),
            "max_khz" => profile.max_khz = Some(as_khz()?),
            other => {
                return Err(format!(
                    "unknown key {}; the keys are those of profiles.toml",
                    crate::core::parse::quote(other)
                ));
            }
        }
    }
    for (key, value) in [("id", &profile.id), ("name", &profile.name)] {
        if value.is_empty() && !wire.contains_key(key) {
            return Err(format!("{key}: missing"));
        }
    }
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CustomProfile {
        crate::core::custom::parse_profiles(
            "[[profile]]\nid = \"büro\"\nname = \"Büro\"\nepp_performance_cores = 64\nepp_efficiency_cores = \"balance_power\"\nenergy_bias = 6\ngovernor = \"powersave\"\nturbo = false\ndynamic_boost = true\nmin_khz = 800000\nmax_khz = 3000000\nplatform_profile = \"quiet\"\n",
        )
        .unwrap()
        .remove(0)
    }

    #[test]
    fn every_field_crosses_the_bus_and_back() {
        let profile = sample();
        assert_eq!(from_wire(&to_wire(&profile)), Ok(profile));
        let plain = crate::core::custom::parse_profiles("[[profile]]\nid = \"a\"\nname = \"A\"\nepp = 200\n").unwrap();
        let wire = to_wire(&plain[0]);
        assert_eq!(wire.len(), 3, "only what is set is sent");
        assert_eq!(from_wire(&wire), Ok(plain[0].clone()));
    }

    #[test]
    fn keys_and_types_are_checked() {
        let mut wire = to_wire(&sample());
        wire.insert("epp".into(), OwnedValue::from(300u32));
        assert!(from_wire(&wire).is_err_and(|e| e.starts_with("epp: expected")), "a u32 is no byte");
        let mut wire = to_wire(&sample());
        wire.insert("colour".into(), OwnedValue::from(true));
        assert!(from_wire(&wire).is_err_and(|e| e.contains("unknown key \"colour\"")));
        let mut wire = to_wire(&sample());
        wire.remove("name");
        assert_eq!(from_wire(&wire), Err("name: missing".into()));
        let mut wire = to_wire(&sample());
        wire.insert("name".into(), text(&"x".repeat(MAX_TEXT + 1)));
        assert!(from_wire(&wire).is_err_and(|e| e.contains("1025 bytes")));
        let mut wire = to_wire(&sample());
        wire.insert("turbo".into(), text("yes"));
        assert!(from_wire(&wire).is_err_and(|e| e.starts_with("turbo: expected a boolean")));
    }
}

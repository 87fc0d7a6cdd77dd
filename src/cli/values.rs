//! The values the command line takes, checked as they are read, in the
//! reader's language (clap's own messages are English).

use gearshift::core::custom::EppSetting;
use gearshift::core::parse::EppName;
use gearshift::i18n::gettext;

/// `config check --as NAME`: a file name the helper reads in conf.d.
pub fn drop_in_name(text: &str) -> Result<String, String> {
    let plain = !text.contains('/') && !text.starts_with('.') && text.len() > ".toml".len() && text.ends_with(".toml");
    if plain {
        Ok(text.to_owned())
    } else {
        Err(gettext("a file name in conf.d that ends in .toml, such as 50-fleet.toml"))
    }
}

/// `--epp`: a number from 0 to 255, or one of the four preference names a
/// profile maps to. Whether this machine takes it is checked after (a
/// kernel that takes names only, dynamic EPP), with what it does take.
pub fn epp_setting(text: &str) -> Result<EppSetting, String> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<u8>() {
            Ok(value) => Ok(EppSetting::Value(value)),
            Err(_) => Err(gettext("EPP goes from 0 to 255")),
        };
    }
    if EppName::PROFILES.iter().any(|n| n.as_str() == text) {
        return Ok(EppSetting::Name(text.to_owned()));
    }
    Err(gettext("give a number from 0 to 255, or performance, balance_performance, balance_power or power"))
}

/// `epp set VALUE`: checked as it is read, so that a value out of range is
/// said before anything else (a snapshot, a missing helper).
pub fn epp_number(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(value) if value <= 255 => Ok(value),
        _ => Err(gettext("EPP goes from 0 to 255")),
    }
}

/// A whole number in `range`, or `why` (clap's own range message is English).
pub fn whole_in<T: std::str::FromStr + PartialOrd>(
    text: &str,
    range: std::ops::RangeInclusive<T>,
    why: String,
) -> Result<T, String> {
    match text.trim().parse::<T>() {
        Ok(value) if range.contains(&value) => Ok(value),
        _ => Err(why),
    }
}

pub fn interval_ms(text: &str) -> Result<u64, String> {
    whole_in(text, 50..=3_600_000, gettext("give the milliseconds between samples, a whole number from 50 to 3600000"))
}

pub fn most_rounds(text: &str) -> Result<u64, String> {
    whole_in(text, 3..=20, gettext("give a whole number of rounds from 3 to 20"))
}

pub fn energy_bias(text: &str) -> Result<u8, String> {
    whole_in(text, 0..=15, gettext("the energy bias is a whole number from 0 (fastest) to 15 (saves the most power)"))
}

/// `--count N`: one sample or more, said in words rather than as a range
/// up to 2^64.
pub fn sample_count(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err(gettext("give 1 or more samples")),
        Ok(n) => Ok(n),
        Err(_) => Err(gettext("give a whole number of samples, 1 or more")),
    }
}

/// `measure --repeats`: until the verdict is clear, or a fixed number of
/// rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeats {
    /// At least 3, then one more at a time until clear, at most
    /// `--max-repeats`.
    Auto,
    /// Exactly this many.
    Fixed(u64),
}

pub fn repeats(text: &str) -> Result<Repeats, String> {
    match text.trim() {
        "auto" => Ok(Repeats::Auto),
        n => match n.parse::<u64>() {
            Ok(n @ 1..=20) => Ok(Repeats::Fixed(n)),
            _ => Err(gettext("give auto, or a whole number of rounds from 1 to 20")),
        },
    }
}

/// `launch --profile`: what a hold takes, by the panel's name or
/// Gearshift's id (`power` is Power Saver).
pub fn hold_profile(text: &str) -> Result<String, String> {
    match gearshift::core::panel::PanelProfile::holdable(text.trim()) {
        Some(panel) => Ok(panel.name().to_owned()),
        None => Err(gettext(
            "a hold takes performance or power-saver (when several programs hold at once, Power Saver wins: an order only these two have); choose any other profile with gearshift profile set",
        )),
    }
}

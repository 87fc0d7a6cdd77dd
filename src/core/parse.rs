//! Pure parsers for the text the kernel shows in sysfs and procfs.
//!
//! Every function here takes `&str` and returns a `Result`: nothing panics on
//! odd input (see the property tests at the bottom of this file).

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The largest CPU number Gearshift accepts (the kernel's `NR_CPUS` limit).
pub const MAX_CPU_ID: u32 = 8191;

/// How many characters of someone else's text a message repeats.
const QUOTED_CHARS: usize = 40;

/// Quotes text from elsewhere (a caller, a file) for a message: escaped
/// (control characters, quotes), at most 40 characters, `…` where it was
/// cut. Every text of a caller's that a reply or a message repeats goes
/// through here, so that none grows with what was sent.
pub fn quote(text: &str) -> String {
    let mut chars = text.char_indices();
    let cut = chars.nth(QUOTED_CHARS).map(|(at, _)| at);
    let short = &text[..cut.unwrap_or(text.len())];
    let mut quoted = format!("{short:?}");
    if cut.is_some() {
        quoted.push('…');
    }
    quoted
}

/// [`quote`] for a person: escaped and bounded the same way, between the
/// reader's language's quotation marks (“turbo” in English, „turbo“ in
/// German).
pub fn quoted_text(text: &str) -> crate::i18n::Text {
    let escaped = quote(text);
    // `quote` writes Rust's "…" around the escaped text (and a … after it
    // where it was cut): the marks go, the escapes stay.
    let (inner, cut) = match escaped.strip_suffix('…') {
        Some(rest) => (rest, "…"),
        None => (escaped.as_str(), ""),
    };
    let inner = inner.strip_prefix('"').and_then(|i| i.strip_suffix('"')).unwrap_or(inner);
    // Translators: a word someone typed or a file holds, quoted as your language quotes.
    crate::i18n::i18n_text("“{word}”").arg("word", format!("{inner}{cut}"))
}

/// Text that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what}: {found:?}")]
pub struct ParseError {
    /// What was expected, in words.
    pub what: &'static str,
    /// The offending text, shortened.
    pub found: String,
}

impl ParseError {
    pub(crate) fn new(what: &'static str, found: &str) -> Self {
        let mut short: String = found.chars().take(60).collect();
        if short.len() < found.len() {
            short.push('…');
        }
        ParseError { what, found: short }
    }
}

/// Parses a kernel CPU list such as `0-3,8,10-11` into sorted, unique ids.
///
/// An empty list (or only whitespace) is valid and empty.
///
/// # Errors
/// Anything that is not a comma-separated list of numbers and ascending
/// ranges, or an id above [`MAX_CPU_ID`].
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, ParseError> {
    let text = text.trim();
    let mut ids = Vec::new();
    if text.is_empty() {
        return Ok(ids);
    }
    for part in text.split(',') {
        let part = part.trim();
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (parse_cpu_id(a, text)?, parse_cpu_id(b, text)?),
            None => {
                let id = parse_cpu_id(part, text)?;
                (id, id)
            }
        };
        if first > last {
            return Err(ParseError::new("a CPU range that ascends", text));
        }
        ids.extend(first..=last);
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

fn parse_cpu_id(text: &str, whole: &str) -> Result<u32, ParseError> {
    let id = parse_decimal(text).ok_or_else(|| ParseError::new("a CPU list like 0-3,8", whole))?;
    u32::try_from(id)
        .ok()
        .filter(|id| *id <= MAX_CPU_ID)
        .ok_or_else(|| ParseError::new("CPU numbers up to 8191", whole))
}

/// Formats sorted ids as a kernel CPU list (`0-3,8,10-11`).
pub fn format_cpu_list(ids: &[u32]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = String::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}-{end}"));
        }
        i += 1;
    }
    out
}

/// Parses plain ASCII decimal digits (no sign, no spaces) into a `u64`.
pub fn parse_decimal(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 20 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Parses an unsigned number as sysfs prints it (trailing newline allowed).
///
/// # Errors
/// Anything that is not a non-negative decimal number.
pub fn parse_u64(text: &str) -> Result<u64, ParseError> {
    parse_decimal(text.trim()).ok_or_else(|| ParseError::new("a number", text))
}

/// The highest frequency, in kHz, Gearshift takes for a reading (10 GHz):
/// above it a cpufreq file holds a broken value, not a frequency.
pub const MAX_PLAUSIBLE_KHZ: u64 = 10_000_000;

/// True for a frequency (kHz) a CPU can run at: above 0 and at most
/// [`MAX_PLAUSIBLE_KHZ`]. A 0 or an absurd value is unknown, never data.
pub fn plausible_khz(khz: u64) -> bool {
    (1..=MAX_PLAUSIBLE_KHZ).contains(&khz)
}

/// True for a percentage (0..=100), as `intel_pstate/*_pct` shows them.
pub fn plausible_percent(value: u64) -> bool {
    value <= 100
}

/// True for an 8-bit performance level or P-state count (CPPC perf values,
/// preferred-core rankings, `num_pstates`). A negative errno printed
/// unsigned (4294967285 is -11, -EAGAIN, as a 6.10-rc1 kernel showed it) fails.
pub fn plausible_perf_level(value: u64) -> bool {
    value <= 255
}

/// Parses an unsigned number that fits 32 bits.
///
/// # Errors
/// Anything that is not a non-negative decimal number below 2^32.
pub fn parse_u32(text: &str) -> Result<u32, ParseError> {
    let value = parse_u64(text)?;
    u32::try_from(value).map_err(|_| ParseError::new("a number below 2^32", text))
}

/// Parses a sysfs boolean (`0` or `1`).
///
/// # Errors
/// Anything but `0` or `1`.
pub fn parse_flag(text: &str) -> Result<bool, ParseError> {
    match text.trim() {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(ParseError::new("0 or 1", text)),
    }
}

/// amd-pstate's `enabled`/`disabled` files (`prefcore`, `dynamic_epp`),
/// which older kernels print as 1/0.
///
/// # Errors
/// Anything else.
pub fn parse_enabled(text: &str) -> Result<bool, ParseError> {
    match text.trim() {
        "enabled" => Ok(true),
        "disabled" => Ok(false),
        _ => parse_flag(text),
    }
}

/// Parses a space-separated list of kernel words (governor or preference names).
///
/// # Errors
/// A word with characters other than letters, digits, `_` and `-`, or longer
/// than 32 bytes.
pub fn parse_words(text: &str) -> Result<Vec<String>, ParseError> {
    text.split_whitespace()
        .map(|word| {
            if is_kernel_word(word) {
                Ok(word.to_owned())
            } else {
                Err(ParseError::new("names made of letters, digits, '_' and '-'", text))
            }
        })
        .collect()
}

/// Parses a single kernel word such as a governor or driver name.
///
/// # Errors
/// Empty text, several words, or characters outside letters, digits, `_`, `-`.
pub fn parse_word(text: &str) -> Result<String, ParseError> {
    let word = text.trim();
    if is_kernel_word(word) {
        Ok(word.to_owned())
    } else {
        Err(ParseError::new("a single name", text))
    }
}

/// True for the names the kernel uses for drivers, governors and preferences.
pub fn is_kernel_word(word: &str) -> bool {
    !word.is_empty() && word.len() <= 32 && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The kernel's energy performance preference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EppName {
    /// The power-on value (writing it restores the firmware's choice).
    Default,
    /// 0: as fast as possible.
    Performance,
    /// The "balanced" value; model-specific on some Intel CPUs.
    BalancePerformance,
    /// Leaning to saving energy; model-specific on some Intel CPUs.
    BalancePower,
    /// 255: save as much energy as possible.
    Power,
}

impl EppName {
    /// The four names a profile maps to, from fastest to most frugal.
    pub const PROFILES: [EppName; 4] =
        [EppName::Performance, EppName::BalancePerformance, EppName::BalancePower, EppName::Power];

    /// The name exactly as sysfs spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            EppName::Default => "default",
            EppName::Performance => "performance",
            EppName::BalancePerformance => "balance_performance",
            EppName::BalancePower => "balance_power",
            EppName::Power => "power",
        }
    }

    /// Parses a sysfs preference name.
    pub fn from_kernel(text: &str) -> Option<EppName> {
        Some(match text {
            "default" => EppName::Default,
            "performance" => EppName::Performance,
            "balance_performance" => EppName::BalancePerformance,
            "balance_power" => EppName::BalancePower,
            "power" => EppName::Power,
            _ => return None,
        })
    }
}

impl fmt::Display for EppName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `energy_performance_preference` shows: a name when the value equals
/// one of the kernel's named values, otherwise the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EppReading {
    /// The kernel printed a name.
    Name(EppName),
    /// The kernel printed a number.
    Value(u8),
}

impl Serialize for EppReading {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_kernel_text())
    }
}

impl EppReading {
    /// The text as the kernel shows it.
    pub fn to_kernel_text(self) -> String {
        match self {
            EppReading::Name(name) => name.as_str().to_owned(),
            EppReading::Value(value) => value.to_string(),
        }
    }

    /// How a person reads it: the number first, with the kernel's name
    /// beside it only where this kernel printed that name for it ("64
    /// (balance_performance)" on a kernel that knows the model's values,
    /// "64" where it printed the number). `value` is the number the name
    /// stands for on this machine (`Resolver::reading_value`); a name whose
    /// number is not known shows alone.
    pub fn shown(self, value: Option<u8>) -> String {
        match (self, value) {
            (EppReading::Name(name), Some(v)) => format!("{v} ({})", name.as_str()),
            (EppReading::Name(name), None) => name.as_str().to_owned(),
            (EppReading::Value(v), _) => v.to_string(),
        }
    }
}

/// Parses `energy_performance_preference` in either form.
///
/// # Errors
/// Anything that is neither a known name nor a number from 0 to 255.
pub fn parse_epp(text: &str) -> Result<EppReading, ParseError> {
    let text = text.trim();
    if let Some(name) = EppName::from_kernel(text) {
        return Ok(EppReading::Name(name));
    }
    parse_decimal(text)
        .and_then(|v| u8::try_from(v).ok())
        .map(EppReading::Value)
        .ok_or_else(|| ParseError::new("a preference name or a number from 0 to 255", text))
}

/// Parses `energy_perf_bias` (0..=15; some kernels print names there on write only).
///
/// # Errors
/// Anything but a number from 0 to 15.
pub fn parse_epb(text: &str) -> Result<u8, ParseError> {
    parse_decimal(text.trim())
        .filter(|v| *v <= 15)
        .map(|v| v as u8)
        .ok_or_else(|| ParseError::new("an energy bias from 0 to 15", text))
}

/// A kernel release, compared by its first three numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct KernelVersion {
    /// Major version (the 6 in 6.8.0).
    pub major: u32,
    /// Minor version (the 8 in 6.8.0).
    pub minor: u32,
    /// Patch level (the 0 in 6.8.0).
    pub patch: u32,
}

impl KernelVersion {
    /// Builds a version from its parts.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        KernelVersion { major, minor, patch }
    }
}

impl fmt::Display for KernelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.patch == 0 {
            write!(f, "{}.{}", self.major, self.minor)
        } else {
            write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
        }
    }
}

/// Parses a kernel release such as `6.8.0-45-generic` or `6.11`.
///
/// # Errors
/// Text that does not start with `MAJOR.MINOR`.
pub fn parse_kernel_version(text: &str) -> Result<KernelVersion, ParseError> {
    let text = text.trim();
    let head = text.split(|c: char| !(c.is_ascii_digit() || c == '.')).next().unwrap_or("");
    let mut parts = head.split('.').filter(|p| !p.is_empty());
    let mut next = || parts.next().and_then(parse_decimal).and_then(|v| u32::try_from(v).ok());
    let err = || ParseError::new("a kernel version like 6.8.0", text);
    let major = next().ok_or_else(err)?;
    let minor = next().ok_or_else(err)?;
    let patch = next().unwrap_or(0);
    Ok(KernelVersion { major, minor, patch })
}

mod serde_words;
pub use serde_words::serde_words;

#[cfg(test)]
mod tests;

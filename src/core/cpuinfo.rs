//! The `/proc/cpuinfo` parser.

use super::parse::{parse_decimal, ParseError};

/// One `processor` block of `/proc/cpuinfo`, with the fields Gearshift uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuInfoEntry {
    /// The logical CPU number (`processor`).
    pub processor: u32,
    /// `vendor_id`, such as `GenuineIntel` or `AuthenticAMD`.
    pub vendor_id: Option<String>,
    /// `cpu family`, already combined with the extended family by the kernel.
    pub family: Option<u32>,
    /// `model`, already combined with the extended model by the kernel.
    pub model: Option<u32>,
    /// `stepping`.
    pub stepping: Option<u32>,
    /// `model name`, the brand string.
    pub model_name: Option<String>,
    /// `physical id`: the socket.
    pub physical_id: Option<u32>,
    /// `core id`.
    pub core_id: Option<u32>,
    /// `flags`: the CPU features the kernel knows, space-separated (kept
    /// as one string: 256 CPUs with 150 flags each would otherwise be
    /// tens of thousands of small allocations). `None` when the block has
    /// no `flags` line at all (a partial copy), so that nothing is
    /// concluded from flags nobody showed.
    pub flags: Option<String>,
}

impl CpuInfoEntry {
    /// True when the kernel lists `flag` for this CPU.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.as_deref().is_some_and(|flags| flags.split_whitespace().any(|f| f == flag))
    }

    /// Whether the kernel lists `flag`: `None` when no flags were shown.
    pub fn flag(&self, flag: &str) -> Option<bool> {
        self.flags.as_ref().map(|_| self.has_flag(flag))
    }
}

/// Parses the whole of `/proc/cpuinfo` (x86 layout; other layouts give
/// entries without vendor, family or model).
///
/// # Errors
/// Non-empty text with neither a `processor` line nor an identity line, or a
/// `processor` number that is not a number.
pub fn parse_cpuinfo(text: &str) -> Result<Vec<CpuInfoEntry>, ParseError> {
    let mut entries = Vec::new();
    let mut current: Option<CpuInfoEntry> = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        if key == "processor" {
            if let Some(done) = current.take() {
                entries.push(done);
            }
            let processor = parse_decimal(value)
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| ParseError::new("a processor number in cpuinfo", value))?;
            current = Some(CpuInfoEntry { processor, ..CpuInfoEntry::default() });
            continue;
        }
        // Identity lines before any `processor` line (a cpuinfo cut down to
        // what a test bed needs, as power-profiles-daemon's tests write it)
        // describe processor 0.
        const KEYS: [&str; 8] =
            ["vendor_id", "cpu family", "model", "stepping", "model name", "physical id", "core id", "flags"];
        if current.is_none() && entries.is_empty() && KEYS.contains(&key) {
            current = Some(CpuInfoEntry::default());
        }
        let Some(entry) = current.as_mut() else {
            continue;
        };
        let number = || parse_decimal(value).and_then(|v| u32::try_from(v).ok());
        match key {
            "vendor_id" => entry.vendor_id = Some(value.to_owned()),
            "cpu family" => entry.family = number(),
            "model" => entry.model = number(),
            "stepping" => entry.stepping = number(),
            "model name" => entry.model_name = Some(value.to_owned()),
            "physical id" => entry.physical_id = number(),
            "core id" => entry.core_id = number(),
            "flags" => entry.flags = Some(value.to_owned()),
            _ => {}
        }
    }
    if let Some(done) = current.take() {
        entries.push(done);
    }
    if entries.is_empty() && !text.trim().is_empty() {
        return Err(ParseError::new("cpuinfo with processor entries", text));
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const INTEL: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 170\n\
model name\t: Intel(R) Core(TM) Ultra 7 155H\nstepping\t: 4\nphysical id\t: 0\ncore id\t\t: 0\n\
flags\t\t: fpu vme hwp hwp_epp hybrid_cpu\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n\
model\t\t: 170\nmodel name\t: Intel(R) Core(TM) Ultra 7 155H\nflags\t\t: fpu\n\n";

    #[test]
    fn parses_intel_blocks() {
        let entries = parse_cpuinfo(INTEL).unwrap();
        assert_eq!(entries.len(), 2);
        let first = &entries[0];
        assert_eq!(first.vendor_id.as_deref(), Some("GenuineIntel"));
        assert_eq!((first.family, first.model, first.stepping), (Some(6), Some(170), Some(4)));
        assert_eq!(first.model_name.as_deref(), Some("Intel(R) Core(TM) Ultra 7 155H"));
        assert!(first.has_flag("hwp_epp"));
        assert!(!first.has_flag("hwp_ep"));
        assert_eq!(entries[1].processor, 1);
    }

    #[test]
    fn model_name_may_hold_colons() {
        let entries = parse_cpuinfo("processor : 0\nmodel name : AMD Ryzen: 7\n").unwrap();
        assert_eq!(entries[0].model_name.as_deref(), Some("AMD Ryzen: 7"));
    }

    #[test]
    fn other_layouts_and_garbage() {
        // An ARM-style cpuinfo: processors, but no x86 identity.
        let arm = parse_cpuinfo("processor\t: 0\nBogoMIPS\t: 48.00\nCPU part\t: 0xd08\n").unwrap();
        assert_eq!(arm[0].vendor_id, None);
        assert!(parse_cpuinfo("").unwrap().is_empty());
        assert!(parse_cpuinfo("\u{0}\u{1}garbage").is_err());
        assert!(parse_cpuinfo("processor : x\n").is_err());
        // Only the identity: processor 0.
        let cut = parse_cpuinfo("vendor_id\t: AuthenticAMD\n").unwrap();
        assert_eq!((cut.len(), cut[0].processor, cut[0].vendor_id.as_deref()), (1, 0, Some("AuthenticAMD")));
        assert!(parse_cpuinfo("BogoMIPS : 48.00\n").is_err());
        // A non-numeric model is unknown, not an error.
        assert_eq!(parse_cpuinfo("processor : 0\nmodel : abc\n").unwrap()[0].model, None);
    }

    #[test]
    fn missing_flags_are_unknown_not_absent() {
        let partial =
            parse_cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 63\n").unwrap();
        assert_eq!(partial[0].flags, None);
        assert_eq!(partial[0].flag("hwp"), None);
        assert!(!partial[0].has_flag("hwp"));
        let full = parse_cpuinfo(INTEL).unwrap();
        assert_eq!(full[0].flag("hwp"), Some(true));
        assert_eq!(full[0].flag("epb"), Some(false));
    }

    proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let _ = parse_cpuinfo(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn never_panics_on_cpuinfo_like_text(text in "(processor|model|cpu family|flags|vendor_id)[ \t]*:[ a-z0-9_:]{0,12}\n{0,2}") {
            let _ = parse_cpuinfo(&text);
        }
    }
}

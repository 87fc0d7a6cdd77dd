//! The per-core cards' texts.

use gearshift::core::identity::CoreType;
use gearshift::core::monitor::CpuSample;
use gearshift::core::parse::{EppName, EppReading};
use gearshift::i18n::{gettext, i18n_f, i18n_text};

/// The text of a per-core card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreCard {
    /// "CPU 12".
    pub title: String,
    /// "P", "E" or "".
    pub badge: String,
    /// "2.41 GHz" or "Offline".
    pub frequency: String,
    /// "EPP 64 (balance_performance)".
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
    TEMPLATE.with(|t| gearshift::i18n::fill(t, &[&gearshift::i18n::decimal(khz as f64 / 1e6, 2)]))
}

/// "EPP 64 (balance_performance)": the number where it can be known, with
/// the kernel's name beside it where the kernel printed one; else "EPP 255 ·
/// Power Saver", the profile (`profile`) whose value it is.
pub fn epp_text(reading: Option<EppReading>, value: Option<u8>, profile: Option<&str>) -> String {
    match (reading, value) {
        (Some(EppReading::Name(name)), Some(v)) => {
            // Translators: An EPP number, then a short note.
            i18n_text("EPP {value} ({note})").arg("value", v).arg("note", name).localized()
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
            (Some(lo), Some(hi)) => format!(
                "{}–{} GHz",
                gearshift::i18n::decimal(lo as f64 / 1e6, 1),
                gearshift::i18n::decimal(hi as f64 / 1e6, 1)
            ),
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(card.epp, "EPP 64 (balance_performance)");
        assert_eq!(card.badge, "E");
        assert_eq!(card.range, "0.4–3.8 GHz");
        // Screen readers get the stable facts; the tooltip adds the frequency.
        assert_eq!(card.accessible, "CPU 12, efficiency core, EPP 64 (balance_performance), governor powersave");
        assert_eq!(
            card.tooltip(),
            "CPU 12, efficiency core, 2.41 GHz, EPP 64 (balance_performance), governor powersave"
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
}

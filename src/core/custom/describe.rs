//! A custom profile's values in words: what `gearshift profile show` prints
//! and what the Tuning page's row of a saved profile says, from one place.

use super::{CustomProfile, EppSetting};
use crate::i18n::{gettext, i18n_text, Text};

impl std::fmt::Display for EppSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EppSetting::Value(value) => write!(f, "{value}"),
            EppSetting::Name(name) => f.write_str(name),
        }
    }
}

fn on_off(on: bool) -> String {
    if on {
        gettext("on")
    } else {
        gettext("off")
    }
}

fn mhz(khz: u64) -> String {
    (khz / 1000).to_string()
}

impl CustomProfile {
    /// Each value the profile sets, as (label, value), in the order the
    /// form shows them; what it leaves alone is not listed.
    pub fn values(&self) -> Vec<(Text, String)> {
        let mut out = Vec::new();
        if let Some(epp) = &self.epp {
            out.push((i18n_text("EPP"), epp.to_string()));
        }
        if let Some(epp) = &self.epp_performance_cores {
            out.push((i18n_text("EPP on P-cores"), epp.to_string()));
        }
        if let Some(epp) = &self.epp_efficiency_cores {
            out.push((i18n_text("EPP on E-cores"), epp.to_string()));
        }
        if let Some(bias) = self.energy_bias {
            out.push((i18n_text("Energy bias"), bias.to_string()));
        }
        if let Some(governor) = &self.governor {
            out.push((i18n_text("Governor"), governor.clone()));
        }
        if let Some(platform) = &self.platform_profile {
            out.push((i18n_text("Platform profile"), platform.clone()));
        }
        if let Some(turbo) = self.turbo {
            out.push((i18n_text("Boost"), on_off(turbo)));
        }
        if let Some(boost) = self.dynamic_boost {
            out.push((i18n_text("Dynamic boost"), on_off(boost)));
        }
        match (self.min_khz, self.max_khz) {
            (Some(lo), Some(hi)) => out.push((i18n_text("Limits"), format!("{}–{} MHz", mhz(lo), mhz(hi)))),
            (Some(lo), None) => out.push((i18n_text("Lowest frequency"), format!("{} MHz", mhz(lo)))),
            (None, Some(hi)) => out.push((i18n_text("Highest frequency"), format!("{} MHz", mhz(hi)))),
            (None, None) => {}
        }
        out
    }

    /// [`CustomProfile::values`] in one line: "EPP 200 · Platform profile
    /// low-power", or that it sets nothing.
    pub fn summary(&self) -> String {
        let values = self.values();
        if values.is_empty() {
            return gettext("Sets nothing");
        }
        values.iter().map(|(label, value)| format!("{} {value}", label.localized())).collect::<Vec<_>>().join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_says_each_value_it_sets_and_nothing_else() {
        let profile = CustomProfile {
            id: "quiet".into(),
            name: "Quiet".into(),
            epp_performance_cores: Some(EppSetting::Value(200)),
            epp_efficiency_cores: Some(EppSetting::Name("power".into())),
            platform_profile: Some("low-power".into()),
            turbo: Some(false),
            min_khz: Some(800_000),
            max_khz: Some(3_000_000),
            ..CustomProfile::default()
        };
        assert_eq!(
            profile.summary(),
            "EPP on P-cores 200 · EPP on E-cores power · Platform profile low-power · Boost off · Limits 800–3000 MHz"
        );
        let empty = CustomProfile { id: "x".into(), name: "X".into(), ..CustomProfile::default() };
        assert_eq!(empty.summary(), "Sets nothing");
    }
}

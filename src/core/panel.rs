//! The desktop power panel's three profiles (power-profiles-daemon's API,
//! which GNOME's and KDE's power menus and `powerprofilesctl` speak), and
//! the one rule that shows every Gearshift profile as one of them
//! (docs/interfaces.md, "The desktop panel's names"). Both PowerProfiles
//! names, the window, the tray and the command line ask here; nothing else
//! maps.
//!
//! - `performance` is Performance; `balance_performance` and
//!   `balance_power` are balanced (Efficient is what power-profiles-daemon's
//!   Balanced writes on battery); `power` is power-saver.
//! - A custom profile is placed by its EPP among this model's named values:
//!   below the midpoint of `performance` and `balance_performance` it is
//!   performance, above the midpoint of `balance_power` and `power` it is
//!   power-saver, else balanced. Without EPP, by its platform profile;
//!   else balanced.

use serde::Serialize;

use super::models::EppValues;
use super::platform::Wanted;
use super::profile::BuiltinProfile;

/// The kernel's generic values, for a CPU the model table has no row for
/// (`CustomProfile::panel_profile`).
pub const KERNEL_GENERIC: EppValues =
    EppValues { performance: 0, balance_performance: 128, balance_power: 192, power: 255 };

/// One of the panel's three profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PanelProfile {
    /// `power-saver`.
    PowerSaver,
    /// `balanced`.
    Balanced,
    /// `performance`.
    Performance,
}

impl PanelProfile {
    /// All three, in the order power-profiles-daemon lists them.
    pub const ALL: [PanelProfile; 3] = [PanelProfile::PowerSaver, PanelProfile::Balanced, PanelProfile::Performance];

    /// The name on the bus.
    pub fn name(self) -> &'static str {
        match self {
            PanelProfile::PowerSaver => "power-saver",
            PanelProfile::Balanced => "balanced",
            PanelProfile::Performance => "performance",
        }
    }

    /// The name the desktop's power menu shows for it (GNOME's and KDE's
    /// words: the built-in profiles that `selects` applies share them).
    pub fn title(self) -> crate::i18n::Text {
        self.selects().name()
    }

    /// "shown as Balanced in the desktop's power menu", for a profile titled
    /// `title` that the menu shows under another name (Efficient, custom
    /// profiles); none where the menu uses the profile's own name.
    pub fn menu_words(self, title: &str) -> Option<String> {
        let panel = self.title().localized();
        // Translators: {panel} is one of the desktop power menu's profiles (Power Saver, Balanced, Performance).
        (panel != title).then(|| {
            crate::i18n::i18n_text("shown as {panel} in the desktop's power menu").arg("panel", panel).localized()
        })
    }

    /// The profile for a name on the bus.
    pub fn from_name(name: &str) -> Option<PanelProfile> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// What a hold takes (`gearshift launch --profile`, a rule's
    /// `profile`, `Helper1.HoldProfile`): `performance` or `power-saver`,
    /// also by Gearshift's id of Power Saver, `power`. Balanced is no hold's:
    /// "Power Saver wins" is an order only these two have.
    pub fn holdable(word: &str) -> Option<PanelProfile> {
        match word {
            "power" => Some(PanelProfile::PowerSaver),
            _ => PanelProfile::from_name(word).filter(|p| *p != PanelProfile::Balanced),
        }
    }

    /// The built-in profile that choosing this in the panel applies.
    pub fn selects(self) -> BuiltinProfile {
        match self {
            PanelProfile::PowerSaver => BuiltinProfile::Power,
            PanelProfile::Balanced => BuiltinProfile::BalancePerformance,
            PanelProfile::Performance => BuiltinProfile::Performance,
        }
    }

    /// How the panel shows a built-in profile.
    pub fn of_builtin(profile: BuiltinProfile) -> PanelProfile {
        match profile {
            BuiltinProfile::Performance => PanelProfile::Performance,
            BuiltinProfile::BalancePerformance | BuiltinProfile::BalancePower => PanelProfile::Balanced,
            BuiltinProfile::Power => PanelProfile::PowerSaver,
        }
    }

    /// Where an EPP value falls among `values` (this model's named ones).
    pub fn of_epp(epp: u8, values: &EppValues) -> PanelProfile {
        let epp = u16::from(epp) * 2;
        if epp < u16::from(values.performance) + u16::from(values.balance_performance) {
            PanelProfile::Performance
        } else if epp > u16::from(values.balance_power) + u16::from(values.power) {
            PanelProfile::PowerSaver
        } else {
            PanelProfile::Balanced
        }
    }

    /// How the panel shows a profile that sets no EPP, by the platform
    /// profile it asks for (`None`: none).
    pub fn of_platform(choice: Option<&str>) -> PanelProfile {
        match choice.and_then(Wanted::from_choice) {
            Some(Wanted::Performance) => PanelProfile::Performance,
            Some(Wanted::LowPower) => PanelProfile::PowerSaver,
            Some(Wanted::Balanced) | None => PanelProfile::Balanced,
        }
    }
}

impl std::fmt::Display for PanelProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::custom::{CustomProfile, EppSetting};

    const METEOR_LAKE: EppValues =
        EppValues { performance: 16, balance_performance: 64, balance_power: 179, power: 255 };

    fn custom(epp: Option<EppSetting>, platform: Option<&str>) -> CustomProfile {
        CustomProfile {
            id: "mine".into(),
            name: "Mine".into(),
            epp,
            platform_profile: platform.map(Into::into),
            ..CustomProfile::default()
        }
    }

    #[test]
    fn built_in_profiles_show_as_the_contract_says_and_a_choice_comes_back() {
        let shown: Vec<_> = BuiltinProfile::ALL.into_iter().map(|p| PanelProfile::of_builtin(p).name()).collect();
        assert_eq!(shown, ["performance", "balanced", "balanced", "power-saver"]);
        for panel in PanelProfile::ALL {
            assert_eq!(PanelProfile::of_builtin(panel.selects()), panel);
            assert_eq!(PanelProfile::from_name(panel.name()), Some(panel));
        }
        assert_eq!(PanelProfile::from_name("balance_power"), None);
        assert_eq!(PanelProfile::holdable("power"), Some(PanelProfile::PowerSaver));
        assert_eq!(PanelProfile::holdable(PanelProfile::PowerSaver.name()), Some(PanelProfile::PowerSaver));
        assert_eq!(PanelProfile::holdable("performance"), Some(PanelProfile::Performance));
        for not_held in ["balanced", "balance_performance", "quiet", ""] {
            assert_eq!(PanelProfile::holdable(not_held), None, "{not_held}");
        }
    }

    #[test]
    fn a_custom_epp_falls_between_the_models_midpoints() {
        // Meteor Lake: performance below (16+64)/2 = 40, power-saver above
        // (179+255)/2 = 217.
        let at = |epp| custom(Some(EppSetting::Value(epp)), None).panel_profile(Some(&METEOR_LAKE));
        assert_eq!(at(0), PanelProfile::Performance);
        assert_eq!(at(39), PanelProfile::Performance);
        assert_eq!(at(40), PanelProfile::Balanced);
        assert_eq!(at(128), PanelProfile::Balanced);
        assert_eq!(at(217), PanelProfile::Balanced);
        assert_eq!(at(218), PanelProfile::PowerSaver);
        assert_eq!(at(255), PanelProfile::PowerSaver);
        // The kernel's generic values where the model is unknown: 64 is
        // the midpoint of 0 and 128 (balanced), 223.5 that of 192 and 255.
        let generic = |epp| custom(Some(EppSetting::Value(epp)), None).panel_profile(None);
        assert_eq!(generic(63), PanelProfile::Performance);
        assert_eq!(generic(64), PanelProfile::Balanced);
        assert_eq!(generic(223), PanelProfile::Balanced);
        assert_eq!(generic(224), PanelProfile::PowerSaver);
    }

    #[test]
    fn a_named_epp_counts_as_its_value_and_the_p_cores_speak_first() {
        let named = custom(Some(EppSetting::Name("power".into())), None);
        assert_eq!(named.panel_profile(Some(&METEOR_LAKE)), PanelProfile::PowerSaver);
        let hybrid = CustomProfile {
            epp_performance_cores: Some(EppSetting::Value(0)),
            epp_efficiency_cores: Some(EppSetting::Value(255)),
            ..custom(Some(EppSetting::Value(128)), None)
        };
        assert_eq!(hybrid.panel_profile(Some(&METEOR_LAKE)), PanelProfile::Performance);
        let e_only = CustomProfile { epp_efficiency_cores: Some(EppSetting::Value(255)), ..custom(None, None) };
        assert_eq!(e_only.panel_profile(Some(&METEOR_LAKE)), PanelProfile::PowerSaver);
    }

    #[test]
    fn without_epp_the_platform_profile_decides_else_balanced() {
        let platform = |choice| custom(None, choice).panel_profile(Some(&METEOR_LAKE));
        assert_eq!(platform(Some("low-power")), PanelProfile::PowerSaver);
        assert_eq!(platform(Some("quiet")), PanelProfile::PowerSaver);
        assert_eq!(platform(Some("performance")), PanelProfile::Performance);
        assert_eq!(platform(Some("balanced-performance")), PanelProfile::Balanced);
        assert_eq!(platform(None), PanelProfile::Balanced);
    }
}

//! Why things are as they are: why the profile in effect is in effect (the
//! helper says it on the bus, `ActiveReason`, docs/dbus-api.md; the window
//! and the tray show it: "Power Saver until the power source changes"), and
//! on which occasion the helper set back values changed behind its back.

use serde::Serialize;

/// Why the profile in effect is in effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActiveReason {
    /// A person chose it (or the first start's default), with automatic
    /// switching off: it stays until someone chooses another.
    #[default]
    Chosen,
    /// The AC/battery policy chose it for the power source now.
    Policy,
    /// Chosen by hand while automatic switching is on: the policy's choice
    /// returns when the power source next changes.
    UntilPowerChange,
    /// A program holds it (the desktop's power API, `gearshift launch`).
    Held,
    /// A measurement of the efficiency lab runs it.
    Measuring,
    /// No profile is in effect: the machine was tuned by hand, or the
    /// chosen profile could not be applied.
    Nothing,
}

impl ActiveReason {
    /// Every reason, in the order of the documentation.
    pub const ALL: [ActiveReason; 6] = [
        ActiveReason::Chosen,
        ActiveReason::Policy,
        ActiveReason::UntilPowerChange,
        ActiveReason::Held,
        ActiveReason::Measuring,
        ActiveReason::Nothing,
    ];

    /// The word on the bus.
    pub fn wire(self) -> &'static str {
        match self {
            ActiveReason::Chosen => "chosen",
            ActiveReason::Policy => "policy",
            ActiveReason::UntilPowerChange => "until-power-change",
            ActiveReason::Held => "held",
            ActiveReason::Measuring => "measuring",
            ActiveReason::Nothing => "nothing",
        }
    }

    /// The reason for a word on the bus; a word a newer helper may add
    /// reads as [`ActiveReason::Chosen`], which promises nothing.
    pub fn from_wire(word: &str) -> ActiveReason {
        Self::ALL.into_iter().find(|r| r.wire() == word).unwrap_or_default()
    }

    /// The reason from the helper's state: a measurement, then holds, then
    /// the policy. `chosen` is the profile chosen (by a person or the
    /// policy), `policy_pick` what the AC/battery policy picks for the
    /// power source now (`None` while it is off).
    pub fn of(
        in_effect: bool,
        measuring: bool,
        held: bool,
        chosen: Option<&str>,
        policy_pick: Option<&str>,
    ) -> ActiveReason {
        match (in_effect, measuring, held, policy_pick) {
            (false, _, _, _) => ActiveReason::Nothing,
            (true, true, _, _) => ActiveReason::Measuring,
            (true, false, true, _) => ActiveReason::Held,
            (true, false, false, None) => ActiveReason::Chosen,
            (true, false, false, Some(pick)) if chosen == Some(pick) => ActiveReason::Policy,
            (true, false, false, Some(_)) => ActiveReason::UntilPowerChange,
        }
    }
}

/// When the helper found values changed behind its back and set them back
/// (`ChangedOutside`, the metrics' `occasion` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Occasion {
    /// After sleep: firmware may have reset them.
    Resume,
    /// The driver rebuilt its policies (its mode changed, or it reloaded).
    DriverMode,
    /// The power source became AC.
    Ac,
    /// The power source became the battery.
    Battery,
}

impl Occasion {
    /// Every occasion.
    pub const ALL: [Occasion; 4] = [Occasion::Resume, Occasion::DriverMode, Occasion::Ac, Occasion::Battery];

    /// The word on the bus and in the metrics.
    pub fn wire(self) -> &'static str {
        match self {
            Occasion::Resume => "resume",
            Occasion::DriverMode => "driver-mode",
            Occasion::Ac => "ac",
            Occasion::Battery => "battery",
        }
    }

    /// The occasion for a word on the bus (`None`: a word a newer helper
    /// may add).
    pub fn from_wire(word: &str) -> Option<Occasion> {
        Self::ALL.into_iter().find(|o| o.wire() == word)
    }

    /// The change of power source to `on_battery`.
    pub fn power_source(on_battery: bool) -> Occasion {
        if on_battery {
            Occasion::Battery
        } else {
            Occasion::Ac
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_crosses_the_bus_and_back() {
        for reason in ActiveReason::ALL {
            assert_eq!(ActiveReason::from_wire(reason.wire()), reason);
        }
        assert_eq!(ActiveReason::from_wire("a newer word"), ActiveReason::Chosen);
    }

    #[test]
    fn every_occasion_crosses_the_bus_and_back() {
        for occasion in Occasion::ALL {
            assert_eq!(Occasion::from_wire(occasion.wire()), Some(occasion));
        }
        assert_eq!(Occasion::from_wire("hotplug"), None);
        assert_eq!(Occasion::power_source(true), Occasion::Battery);
    }

    #[test]
    fn the_reason_follows_the_helpers_state() {
        use ActiveReason as R;
        assert_eq!(R::of(false, true, true, Some("power"), Some("power")), R::Nothing);
        assert_eq!(R::of(true, true, true, Some("power"), Some("power")), R::Measuring);
        assert_eq!(R::of(true, false, true, Some("power"), None), R::Held);
        assert_eq!(R::of(true, false, false, Some("power"), None), R::Chosen);
        assert_eq!(R::of(true, false, false, Some("power"), Some("power")), R::Policy);
        assert_eq!(R::of(true, false, false, Some("power"), Some("balance_power")), R::UntilPowerChange);
        assert_eq!(R::of(true, false, false, None, Some("balance_power")), R::UntilPowerChange);
    }
}

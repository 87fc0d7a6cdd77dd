//! The one picture of the helper's state that the window and the tray show:
//! built only from the helper's events ([`super::events`]) and its replies,
//! never from what a view last drew. Each view derives what it shows from
//! a [`Session`]; [`Session::take`] says what an event changed, so that a
//! view redraws only that, and once per change however many signals carry
//! it (docs/flow.md).

use std::collections::BTreeMap;

use serde::Serialize;

use super::events::HelperEvent;
use super::options::PowerOptions;
use super::ClientError;
use crate::core::active::ActiveReason;
use crate::core::profile_id::ProfileId;
pub use crate::core::status::HoldLine as Hold;
use crate::dbus::AutoPolicy;

/// The link to the helper.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Link {
    /// Not heard from yet.
    #[default]
    Waiting,
    /// It answers.
    Connected,
    /// It was there and left the bus (stopped, crashed, restarted by an
    /// upgrade): what it last said is kept, switching waits for it.
    Gone,
    /// It could not be reached, and why.
    Unreachable(ClientError),
}

fn link_word<S: serde::Serializer>(link: &Link, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&link.word())
}

impl Link {
    /// One word for it (the tests' state file, the log).
    pub fn word(&self) -> String {
        match self {
            Link::Waiting => "waiting".into(),
            Link::Connected => "connected".into(),
            Link::Gone => "gone".into(),
            Link::Unreachable(err) => format!("unreachable: {err:?}"),
        }
    }
}

/// The profile in effect, as the helper says it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum InEffect {
    /// The helper has not said yet (a view may show what the files hold).
    #[default]
    NotHeard,
    /// No profile: the machine was tuned by hand (the helper says `""`).
    Nothing,
    /// This profile.
    Profile(ProfileId),
}

impl InEffect {
    /// What the helper's `ActiveProfile` says: `""` (or an id that is no
    /// profile's) is no profile.
    pub fn from_wire(id: &str) -> InEffect {
        ProfileId::parse(id).map_or(InEffect::Nothing, InEffect::Profile)
    }

    /// The profile, where one is in effect.
    pub fn profile(&self) -> Option<&ProfileId> {
        match self {
            InEffect::Profile(id) => Some(id),
            InEffect::NotHeard | InEffect::Nothing => None,
        }
    }
}

/// Serialized as the helper's word: the id, `""` for no profile, null
/// before the helper said.
impl Serialize for InEffect {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            InEffect::NotHeard => serializer.serialize_none(),
            InEffect::Nothing => serializer.serialize_str(""),
            InEffect::Profile(id) => serializer.serialize_str(id.as_str()),
        }
    }
}

/// What the helper has said, folded. The tests' state file serializes it
/// (the link as its [`Link::word`], under `helper`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Session {
    /// The link.
    #[serde(rename = "helper", serialize_with = "link_word")]
    pub link: Link,
    /// The profile in effect as the helper says it.
    pub active: InEffect,
    /// Why it is in effect.
    pub reason: ActiveReason,
    /// The AC/battery policy, once known.
    pub auto: Option<AutoPolicy>,
    /// The administrator's file that locks switching and tuning.
    pub locked_by: Option<String>,
    /// The administrator's declared profiles, by id, with the file of each.
    pub declared: BTreeMap<String, String>,
    /// Battery awareness and the actions.
    pub options: PowerOptions,
    /// Other power managers found (the ids of docs/interfaces.md).
    pub conflicts: Vec<String>,
    /// A measurement of this window's lab runs.
    pub measuring: bool,
    /// What holds a profile now.
    pub holds: Vec<Hold>,
}

/// What an event changed: each view redraws only its part.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changed {
    /// The link.
    pub link: bool,
    /// The profile in effect or its reason.
    pub active: bool,
    /// The AC/battery policy.
    pub auto: bool,
    /// The lock or the declared profiles.
    pub administration: bool,
    /// Battery awareness or the actions.
    pub options: bool,
    /// Other power managers.
    pub conflicts: bool,
    /// A measurement began or ended.
    pub measuring: bool,
    /// The custom profiles changed: list them again.
    pub customs: bool,
    /// Something was written: read EPP and governors again.
    pub applied: bool,
    /// The firmware's platform profile may have changed with it.
    pub firmware: bool,
}

impl Changed {
    /// True when something the views show from the session changed.
    pub fn shown(&self) -> bool {
        self.link || self.active || self.auto || self.administration || self.options || self.conflicts || self.measuring
    }
}

/// Sets `slot` to `value`; true when that changed it.
fn set<T: PartialEq>(slot: &mut T, value: T) -> bool {
    if *slot == value {
        return false;
    }
    *slot = value;
    true
}

impl Session {
    /// The helper can be reached (it answers, is being asked, or stopped:
    /// D-Bus starts it again on the next call) and no administrator locks
    /// switching: a person's switch can go through (a measurement aside,
    /// which the views check).
    pub fn can_switch(&self) -> bool {
        !matches!(self.link, Link::Unreachable(_)) && self.locked_by.is_none()
    }

    /// Automatic switching is on, and a choice by hand overrides it until
    /// the power source next changes: the views offer "Return to
    /// Automatic".
    pub fn overridden(&self) -> bool {
        self.reason == ActiveReason::UntilPowerChange && self.auto.as_ref().is_some_and(|a| a.enabled)
    }

    /// Folds one event; says what it changed. Power readings are not the
    /// session's: they change nothing here.
    pub fn take(&mut self, event: &HelperEvent) -> Changed {
        let mut changed = Changed { firmware: event.may_change_firmware(), ..Changed::default() };
        match event {
            HelperEvent::Connected { active, reason, auto } => {
                changed.link = set(&mut self.link, Link::Connected);
                changed.active = self.set_active(active, *reason);
                changed.auto = set(&mut self.auto, Some(auto.clone()));
                // Listed afresh on every connection: it may have changed
                // while the helper was away.
                changed.customs = true;
                changed.applied = true;
            }
            HelperEvent::Unreachable(err) => changed.link = set(&mut self.link, Link::Unreachable(err.clone())),
            HelperEvent::Gone => {
                changed.link = set(&mut self.link, Link::Gone);
                // The desktop's API went with it; it answers again with
                // the helper (`PowerOptions` then).
                changed.options = set(&mut self.options, PowerOptions::default());
            }
            HelperEvent::ActiveProfile(active, reason) => {
                changed.active = self.set_active(active, *reason);
                changed.applied = true;
            }
            HelperEvent::AutoPolicy(auto) => changed.auto = set(&mut self.auto, Some(auto.clone())),
            HelperEvent::PowerOptions(options) => changed.options = set(&mut self.options, options.clone()),
            HelperEvent::Conflicts(found) => {
                let mut all = self.conflicts.clone();
                for id in found {
                    if !all.contains(id) {
                        all.push(id.clone());
                    }
                }
                changed.conflicts = set(&mut self.conflicts, all);
            }
            HelperEvent::Administration { locked_by, declared } => {
                let lock = set(&mut self.locked_by, Some(locked_by.clone()).filter(|f| !f.is_empty()));
                let declared = set(&mut self.declared, declared.clone());
                changed.administration = lock || declared;
            }
            HelperEvent::Applied | HelperEvent::ChangedOutside(_) => changed.applied = true,
            HelperEvent::CustomProfiles => changed.customs = true,
            HelperEvent::Holds(holds) => {
                // Who holds is part of what the views say of the profile.
                changed.active |= set(&mut self.holds, holds.clone());
            }
            HelperEvent::Power(_) | HelperEvent::NoPower => {}
        }
        changed
    }

    /// Other power managers found on the machine (the window looks too).
    pub fn add_conflicts(&mut self, found: &[String]) -> Changed {
        self.take(&HelperEvent::Conflicts(found.to_vec()))
    }

    /// A measurement began (true) or ended.
    pub fn set_measuring(&mut self, measuring: bool) -> Changed {
        Changed { measuring: set(&mut self.measuring, measuring), ..Changed::default() }
    }

    /// A reply of the helper: a failure that says it cannot be reached
    /// changes the link; every other reply brings its news as signals.
    pub fn reply<T>(&mut self, result: &Result<T, ClientError>) -> Changed {
        match result {
            // The bus knows no helper, after this one was there: it stopped
            // (and is not activatable here), it was not uninstalled.
            Err(ClientError::NotInstalled) if self.link == Link::Gone => Changed::default(),
            Err(err @ (ClientError::NoBus(_) | ClientError::NotInstalled)) => {
                Changed { link: set(&mut self.link, Link::Unreachable(err.clone())), ..Changed::default() }
            }
            _ => Changed::default(),
        }
    }

    /// What to say of a failed request where the session knows better than
    /// the error: a helper that stopped is not "not installed".
    pub fn failure_words(&self, err: &ClientError) -> Option<String> {
        (self.link == Link::Gone && *err == ClientError::NotInstalled).then(|| {
            crate::i18n::gettext("The change could not be made: the Gearshift helper stopped and did not start again.")
        })
    }

    /// Who holds the profile in effect, where a hold puts it there:
    /// "GameMode" for GameMode's, else the application ids of the holds of
    /// that profile, joined ("Steam"-like ids as the holders gave them).
    pub fn held_by(&self) -> Option<String> {
        if self.reason != ActiveReason::Held {
            return None;
        }
        if self.holds.iter().any(|h| h.game_mode) {
            return Some("GameMode".to_owned());
        }
        // The profile that wins, as the helper resolves holds.
        let winning = crate::core::profile::winning_hold(
            self.holds.iter().filter_map(|h| crate::core::profile::BuiltinProfile::from_id(&h.profile)),
        )?
        .id();
        let names: Vec<&str> =
            self.holds.iter().filter(|h| h.profile == winning).map(|h| h.application_id.as_str()).collect();
        (!names.is_empty()).then(|| names.join(", "))
    }

    /// What every view says of a profile a hold put in effect: "Performance,
    /// held by Steam", or "Held by GameMode" where the hold writes no
    /// profile (`active` empty or unknown); `name_of` names a profile id.
    pub fn held_words(&self, active: Option<&str>, name_of: impl Fn(&str) -> String) -> Option<crate::i18n::Text> {
        let holder = self.held_by()?;
        Some(match active.filter(|id| !id.is_empty()) {
            // Translators: {profile} is a profile's name, {holder} a program ("Performance, held by Steam").
            Some(id) => {
                crate::i18n::i18n_text("{profile}, held by {holder}").arg("profile", name_of(id)).arg("holder", holder)
            }
            None => crate::i18n::i18n_text("Held by {holder}").arg("holder", holder),
        })
    }

    fn set_active(&mut self, active: &str, reason: ActiveReason) -> bool {
        let profile = set(&mut self.active, InEffect::from_wire(active));
        set(&mut self.reason, reason) || profile
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(enabled: bool) -> AutoPolicy {
        AutoPolicy { enabled, on_ac: "balance_performance".into(), on_battery: "balance_power".into() }
    }

    fn connected() -> Session {
        let mut session = Session::default();
        session.take(&HelperEvent::Connected {
            active: "balance_performance".into(),
            reason: ActiveReason::Policy,
            auto: policy(true),
        });
        session
    }

    #[test]
    fn a_switch_told_twice_changes_the_session_once() {
        let mut session = connected();
        let event = HelperEvent::ActiveProfile("power".into(), ActiveReason::UntilPowerChange);
        let first = session.take(&event);
        assert!(first.active && first.shown() && first.firmware);
        // The same news again (the reason's own PropertiesChanged, the
        // policy sent unchanged): nothing a view shows changed.
        let again = session.take(&event);
        assert!(!again.shown(), "{again:?}");
        assert!(!session.take(&HelperEvent::AutoPolicy(policy(true))).shown());
        assert!(session.overridden());
        assert_eq!(session.active.profile().map(ProfileId::as_str), Some("power"));
    }

    #[test]
    fn a_machine_tuned_by_hand_is_no_profile_not_silence() {
        let mut session = Session::default();
        assert_eq!(session.active, InEffect::NotHeard);
        assert_eq!(serde_json::to_value(&session).unwrap()["active"], serde_json::Value::Null);
        session.take(&HelperEvent::ActiveProfile("power".into(), ActiveReason::Chosen));
        // The helper says "" after `gearshift epp set`: nothing is in
        // effect, which views must not take for "not heard yet".
        assert!(session.take(&HelperEvent::ActiveProfile(String::new(), ActiveReason::Nothing)).active);
        assert_eq!(session.active, InEffect::Nothing);
        assert_eq!(serde_json::to_value(&session).unwrap()["active"], "");
    }

    #[test]
    fn the_override_ends_with_the_policy_or_the_power_change() {
        let mut session = connected();
        session.take(&HelperEvent::ActiveProfile("power".into(), ActiveReason::UntilPowerChange));
        assert!(session.overridden());
        session.take(&HelperEvent::ActiveProfile("balance_power".into(), ActiveReason::Policy));
        assert!(!session.overridden());
        // With automatic switching off, no choice overrides anything.
        session.take(&HelperEvent::ActiveProfile("power".into(), ActiveReason::UntilPowerChange));
        session.take(&HelperEvent::AutoPolicy(policy(false)));
        assert!(!session.overridden());
    }

    #[test]
    fn a_helper_that_leaves_keeps_its_last_word_and_takes_the_desktops_api_with_it() {
        let mut session = connected();
        let options = PowerOptions { battery_aware: Some(true), actions: vec![("trickle_charge".into(), true)] };
        assert!(session.take(&HelperEvent::PowerOptions(options.clone())).options);
        let gone = session.take(&HelperEvent::Gone);
        assert!(gone.link && gone.options, "{gone:?}");
        assert_eq!(session.active.profile().map(ProfileId::as_str), Some("balance_performance"));
        // A switch would start it again.
        assert!(session.can_switch());
        // It comes back: connected, and its options arrive again.
        let back = session.take(&HelperEvent::Connected {
            active: "balance_performance".into(),
            reason: ActiveReason::Policy,
            auto: policy(true),
        });
        assert!(back.link && back.customs && !back.active, "{back:?}");
        assert!(session.take(&HelperEvent::PowerOptions(options)).options);
        assert!(session.can_switch());
    }

    #[test]
    fn a_reply_that_cannot_reach_the_helper_changes_the_link_and_others_change_nothing() {
        let mut session = connected();
        let refused: Result<(), ClientError> = Err(ClientError::NotAuthorized("no".into()));
        assert_eq!(session.reply(&refused), Changed::default());
        let missing: Result<(), ClientError> = Err(ClientError::NotInstalled);
        // After it left the bus, the bus not knowing it means it stopped.
        session.take(&HelperEvent::Gone);
        assert_eq!(session.reply(&missing), Changed::default());
        assert_eq!(session.link, Link::Gone);
        let said = session.failure_words(&ClientError::NotInstalled).unwrap();
        assert!(said.contains("stopped") && !said.contains("not installed"), "{said}");
        session.take(&HelperEvent::Connected {
            active: "balance_performance".into(),
            reason: ActiveReason::Policy,
            auto: policy(true),
        });
        assert!(session.reply(&missing).link);
        assert_eq!(session.link, Link::Unreachable(ClientError::NotInstalled));
    }

    #[test]
    fn conflicts_add_up_and_the_lock_stops_switching() {
        let mut session = connected();
        assert!(session.add_conflicts(&["tlp".into()]).conflicts);
        assert!(!session.add_conflicts(&["tlp".into()]).conflicts);
        session.add_conflicts(&["tuned".into()]);
        assert_eq!(session.conflicts, ["tlp", "tuned"]);
        let lock = HelperEvent::Administration {
            locked_by: "/etc/gearshift/gearshift.toml".into(),
            declared: BTreeMap::new(),
        };
        assert!(session.take(&lock).administration);
        assert!(!session.can_switch());
        // The state file's form: the link as a word, under "helper".
        let view = serde_json::to_value(&session).unwrap();
        assert_eq!(view["helper"], "connected");
        assert_eq!(view["locked_by"], "/etc/gearshift/gearshift.toml");
    }
}

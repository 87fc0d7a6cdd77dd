//! The requests of the desktop power panel's API (`ppd`), the same on both
//! names: refused with the bus's standard errors there (`HelperError`
//! converts), checked like every other request.

use std::sync::Arc;

use zbus::message::Header;

use super::Request;
use crate::core::panel::PanelProfile;
use crate::core::parse::quoted_text;
use crate::core::profile::BuiltinProfile;
use crate::helper::control::{refuse_hold_texts, Holder};
use crate::helper::engine::{Engine, Permit};
use crate::helper::error::HelperError;
use crate::helper::request::{self, Need};
use crate::i18n::i18n_text;

/// What a machine with nothing to drive cannot deliver.
fn no_performance() -> HelperError {
    HelperError::Unsupported(i18n_text("nothing on this machine can deliver performance").into())
}

/// Setting `ActiveProfile`: a manual switch, which ends every hold.
pub struct SetActive(BuiltinProfile);

impl SetActive {
    /// The request for the panel's name `name`: refused, before polkit is
    /// asked, unless it is one of the three.
    ///
    /// # Errors
    /// Too long, or not power-saver, balanced or performance.
    pub fn parse(name: &str) -> Result<SetActive, HelperError> {
        request::id(i18n_text("profile"), name)?;
        match PanelProfile::from_name(name) {
            Some(panel) => Ok(SetActive(panel.selects())),
            None => Err(HelperError::InvalidArgument(
                i18n_text("{profile} is not power-saver, balanced or performance")
                    .arg_text("profile", quoted_text(name))
                    .into(),
            )),
        }
    }
}

impl Request for SetActive {
    type Answer = ();

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Switch
    }

    fn on_placeholder(&self, _: &Engine, _: &str) -> Option<HelperError> {
        (self.0 == BuiltinProfile::Performance).then(no_performance)
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<(), HelperError> {
        // The engine's notice announces the change (`ppd::notify`).
        engine.manual_switch(permit, self.0.id()).await.map(|_| ())
    }
}

/// `HoldProfile(profile, reason, application_id)`.
pub struct Hold<'a> {
    /// Performance or Power Saver.
    profile: BuiltinProfile,
    /// Why, in the holder's words.
    reason: &'a str,
    /// Who holds it.
    application_id: &'a str,
    /// The bus name it came by.
    origin: &'static str,
    /// GameMode's (`HoldForGameMode`): nothing written while it lasts.
    hands_off: bool,
}

impl<'a> Hold<'a> {
    /// The request to hold the panel's `profile`, which came by `origin`:
    /// refused, before polkit is asked, unless it is power-saver or
    /// performance and the texts are short enough (the count of holds is
    /// checked under the lock).
    ///
    /// # Errors
    /// Another profile, or too long a text.
    pub fn parse(
        (profile, reason, application_id): (&str, &'a str, &'a str),
        origin: &'static str,
    ) -> Result<Hold<'a>, HelperError> {
        request::id(i18n_text("profile"), profile)?;
        let profile = match PanelProfile::from_name(profile) {
            Some(panel @ (PanelProfile::Performance | PanelProfile::PowerSaver)) => panel.selects(),
            _ => {
                return Err(HelperError::InvalidArgument(
                    i18n_text("only power-saver and performance can be held, not {profile}")
                        .arg_text("profile", quoted_text(profile))
                        .into(),
                ))
            }
        };
        if let Some(why) = refuse_hold_texts(reason, application_id) {
            return Err(HelperError::InvalidArgument(why.into()));
        }
        Ok(Hold { profile, reason, application_id, origin, hands_off: false })
    }

    /// `Helper1.HoldForGameMode(reason)`: Performance, held as GameMode's
    /// (`com.feralinteractive.GameMode`), hands off the CPU.
    ///
    /// # Errors
    /// Too long a reason.
    pub fn game_mode(reason: &'a str, origin: &'static str) -> Result<Hold<'a>, HelperError> {
        let mut hold = Hold::parse((PanelProfile::Performance.name(), reason, crate::dbus::GAME_MODE), origin)?;
        hold.hands_off = true;
        Ok(hold)
    }
}

impl Request for Hold<'_> {
    type Answer = u32;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Switch
    }

    fn on_placeholder(&self, _: &Engine, _: &str) -> Option<HelperError> {
        (self.profile == BuiltinProfile::Performance).then(no_performance)
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, header: &Header<'_>) -> Result<u32, HelperError> {
        let uid = engine.authority.caller_uid(header).await?;
        let holder = Holder { name: permit.sender().to_owned(), uid };
        engine.hold(permit, self.profile, self.reason, self.application_id, holder, (self.origin, self.hands_off)).await
    }
}

/// `ReleaseProfile(cookie)`: allowed for the hold's own holder (its bus
/// connection), or for a caller polkit authorizes to switch profiles while
/// no lock is on (docs/dbus-api.md). A cookie that is not the caller's is
/// answered the same whether a hold has it or not, so that nobody learns
/// which exist.
pub struct Release(pub u32);

impl Request for Release {
    type Answer = ();

    fn need(&self, engine: &Engine, caller: &str) -> Need {
        if engine.holder_of(self.0).as_deref() == Some(caller) {
            Need::Nothing
        } else {
            Need::Switch
        }
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<(), HelperError> {
        engine.release(permit, self.0).await
    }
}

/// `SetActionEnabled(action, enabled)`.
pub struct SetAction<'a> {
    /// The action's name (`trickle_charge`).
    pub action: &'a str,
    /// On or off.
    pub enabled: bool,
}

impl Request for SetAction<'_> {
    type Answer = ();

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Tune
    }

    async fn refuse(&self, engine: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        request::id(i18n_text("action"), self.action)?;
        if engine.actions_info().iter().any(|a| a.action.name == self.action) {
            return Ok(());
        }
        Err(HelperError::InvalidArgument(
            i18n_text("No such action {action}").arg_text("action", quoted_text(self.action)).into(),
        ))
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<(), HelperError> {
        engine.set_action_enabled(permit, self.action, self.enabled).await
    }
}

/// Setting `BatteryAware`.
pub struct SetBatteryAware(pub bool);

impl Request for SetBatteryAware {
    type Answer = ();

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Switch
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<(), HelperError> {
        engine.set_battery_aware(permit, self.0).await
    }
}

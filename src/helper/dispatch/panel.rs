//! The requests of the desktop power panel's API (`ppd`), the same on both
//! names: refused with the bus's standard errors there (`HelperError`
//! converts), checked like every other request.

use std::sync::Arc;

use zbus::message::Header;

use super::Request;
use crate::core::panel::PanelProfile;
use crate::core::profile::BuiltinProfile;
use crate::helper::control::{refuse_hold_texts, Holder};
use crate::helper::engine::{Engine, Permit};
use crate::helper::error::HelperError;
use crate::helper::request::{self, Need};

/// What a machine with nothing to drive cannot deliver.
fn no_performance() -> HelperError {
    HelperError::Unsupported("nothing on this machine can deliver performance".into())
}

/// Setting `ActiveProfile`: a manual switch, which ends every hold.
pub struct SetActive<'a>(pub &'a str);

impl SetActive<'_> {
    fn profile(&self) -> Option<BuiltinProfile> {
        PanelProfile::from_name(self.0).map(PanelProfile::selects)
    }
}

impl Request for SetActive<'_> {
    type Answer = ();

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Switch
    }

    async fn refuse(&self, _: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        request::id("profile", self.0)?;
        match self.profile() {
            Some(_) => Ok(()),
            None => Err(HelperError::InvalidArgument(format!(
                "{} is not power-saver, balanced or performance",
                request::quote(self.0)
            ))),
        }
    }

    fn on_placeholder(&self, _: &Engine, _: &str) -> Option<HelperError> {
        (self.profile() == Some(BuiltinProfile::Performance)).then(no_performance)
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<(), HelperError> {
        let Some(profile) = self.profile() else { return Err(HelperError::InvalidArgument("no profile".into())) };
        // The engine's notice announces the change (`ppd::notify`).
        engine.manual_switch(permit, profile.id()).await.map(|_| ())
    }
}

/// `HoldProfile(profile, reason, application_id)`.
pub struct Hold<'a> {
    /// `performance` or `power-saver`.
    pub profile: &'a str,
    /// Why, in the holder's words.
    pub reason: &'a str,
    /// Who holds it.
    pub application_id: &'a str,
    /// The bus name it came by.
    pub origin: &'static str,
}

impl Hold<'_> {
    fn profile(&self) -> Option<BuiltinProfile> {
        match PanelProfile::from_name(self.profile) {
            Some(panel @ (PanelProfile::Performance | PanelProfile::PowerSaver)) => Some(panel.selects()),
            _ => None,
        }
    }
}

impl Request for Hold<'_> {
    type Answer = u32;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Switch
    }

    async fn refuse(&self, _: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        request::id("profile", self.profile)?;
        if self.profile().is_none() {
            return Err(HelperError::InvalidArgument(format!(
                "only power-saver and performance can be held, not {}",
                request::quote(self.profile)
            )));
        }
        // Too long a text needs no polkit to be refused (the count of
        // holds is checked again under the lock).
        match refuse_hold_texts(self.reason, self.application_id) {
            Some(why) => Err(HelperError::InvalidArgument(why)),
            None => Ok(()),
        }
    }

    fn on_placeholder(&self, _: &Engine, _: &str) -> Option<HelperError> {
        (self.profile() == Some(BuiltinProfile::Performance)).then(no_performance)
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, header: &Header<'_>) -> Result<u32, HelperError> {
        let Some(profile) = self.profile() else { return Err(HelperError::InvalidArgument("no profile".into())) };
        let uid = engine.authority.caller_uid(header).await?;
        let holder = Holder { name: permit.sender().to_owned(), uid };
        engine.hold(permit, profile, self.reason, self.application_id, holder, self.origin).await
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
        request::id("action", self.action)?;
        if engine.actions_info().iter().any(|a| a.action.name == self.action) {
            return Ok(());
        }
        Err(HelperError::InvalidArgument(format!("No such action {}", request::quote(self.action))))
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

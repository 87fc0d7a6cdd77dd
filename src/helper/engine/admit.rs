//! Letting a request in (`request` says in which order the checks come),
//! and the permit that proves it: every engine method that changes
//! something for a person takes a [`Permit`], which only [`Engine::admit`]
//! makes, and begins its transaction with it (`Engine::begin_for`). So a
//! D-Bus method cannot write before the caller was checked: the compiler
//! says so.

use zbus::message::Header;

use super::Engine;
use crate::helper::error::HelperError;
use crate::helper::request::{sender, Need, Slot};

/// A request let in: its place among the calls in flight (given back when
/// dropped, also when the call is abandoned half way), and who sent it.
/// Its fields are private to this module: [`Engine::admit`] alone makes one.
#[derive(Debug)]
pub struct Permit {
    sender: String,
    _slot: Slot,
}

impl Permit {
    /// The caller's unique bus name.
    pub fn sender(&self) -> &str {
        &self.sender
    }
}

impl Engine {
    /// Lets a request in: its place among the calls in flight, then the
    /// lock where it would change something, then polkit for what it needs.
    /// The checks that need neither (the arguments' sizes and values) come
    /// before, in the method.
    ///
    /// # Errors
    /// Busy, locked, or not authorized.
    pub async fn admit(&self, header: &Header<'_>, need: Need) -> Result<Permit, HelperError> {
        let sender = sender(header)?;
        let slot = self.calls.take(&sender)?;
        if matches!(need, Need::Switch | Need::Tune) {
            self.check_unlocked()?;
        }
        let action = match need {
            Need::Nothing => None,
            Need::Switch => Some(crate::dbus::ACTION_SWITCH),
            Need::Tune => Some(crate::dbus::ACTION_TUNE),
            Need::ReadPower => Some(crate::dbus::ACTION_READ_POWER),
        };
        if let Some(action) = action {
            self.authority.check(header, action).await?;
        }
        Ok(Permit { sender, _slot: slot })
    }
}

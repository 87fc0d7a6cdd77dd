//! Letting a request in (`request` says in which order the checks come).

use zbus::message::Header;

use super::Engine;
use crate::helper::error::HelperError;
use crate::helper::request::{sender, Need, Permit};

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
        Ok(Permit::new(sender, slot))
    }
}

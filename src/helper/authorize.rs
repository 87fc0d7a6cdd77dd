//! Asking polkit whether the *caller* of a method may do what it asks.
//!
//! The subject is built from the message's sender (its unique bus name), so
//! polkit judges the calling process, never the helper itself. polkit that
//! cannot be reached, or that errs, means "no".

use std::collections::HashMap;

use tokio::sync::OnceCell;
use zbus::message::Header;
use zbus::Connection;
use zbus_polkit::policykit1::{AuthorityProxy, CheckAuthorizationFlags, Subject};

use super::error::HelperError;

/// The polkit authority, reached lazily over the helper's own connection.
pub struct Authority {
    connection: Connection,
    proxy: OnceCell<AuthorityProxy<'static>>,
}

impl Authority {
    /// An authority on `connection` (polkit need not run yet).
    pub fn new(connection: Connection) -> Self {
        Authority { connection, proxy: OnceCell::new() }
    }

    /// Succeeds when polkit authorizes the sender of `header` for `action`,
    /// allowing an authentication agent to prompt.
    ///
    /// # Errors
    /// [`HelperError::NotAuthorized`] with the reason.
    pub async fn check(&self, header: &Header<'_>, action: &str) -> Result<(), HelperError> {
        let subject = Subject::new_for_message_header(header)
            .map_err(|e| HelperError::NotAuthorized(format!("the caller could not be identified: {e}")))?;
        let proxy = self
            .proxy
            .get_or_try_init(|| AuthorityProxy::new(&self.connection))
            .await
            .map_err(|e| HelperError::NotAuthorized(format!("polkit could not be reached: {e}")))?;
        let details: HashMap<&str, &str> = HashMap::new();
        let result = proxy
            .check_authorization(&subject, action, &details, CheckAuthorizationFlags::AllowUserInteraction.into(), "")
            .await
            .map_err(|e| HelperError::NotAuthorized(format!("polkit could not decide ({e}); refusing")))?;
        let what = match action {
            crate::dbus::ACTION_SWITCH => "switching the power profile",
            crate::dbus::ACTION_TUNE => "tuning EPP, governors or custom profiles",
            crate::dbus::ACTION_READ_POWER => "reading the energy counters",
            _ => action,
        };
        if result.is_authorized {
            Ok(())
        } else if result.is_challenge {
            Err(HelperError::NotAuthorized(format!(
                "{what} needs an administrator's password here, and no polkit agent was there to ask for it (polkit action {action})"
            )))
        } else {
            Err(HelperError::NotAuthorized(format!(
                "polkit does not allow {what} for this caller (polkit action {action})"
            )))
        }
    }
}

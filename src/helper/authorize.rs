//! Asking polkit whether the *caller* of a method may do what it asks.
//!
//! The subject is built from the message's sender (its unique bus name), so
//! polkit judges the calling process, never the helper itself. polkit that
//! cannot be reached, or that errs, means "no".
//!
//! Any local user may call the helper as often as they like, over as many
//! connections as they like, and every check is a call to polkitd over the
//! helper's one bus connection, whose pending replies the bus daemon limits
//! (`max_replies_per_connection`, 128 on Debian). So that one user's flood
//! cannot make everyone's checks fail or wait (docs/security.md):
//! - each user has at most [`CHECKS_PER_USER`] checks waiting for polkit,
//!   and all users together [`CHECKS_IN_FLIGHT`]; a call beyond that is
//!   refused at once with `Busy`, before polkit is asked;
//! - root is authorized without asking polkit (polkit always authorizes
//!   uid 0), so that root's requests never queue behind anyone's;
//! - the caller's uid is asked of the bus daemon once per connection (its
//!   calls at once share one question) and kept until that connection
//!   leaves the bus ([`Authority::forget`]); at most [`LOOKUPS_IN_FLIGHT`]
//!   questions wait at once, so that with polkit's checks the helper stays
//!   under the bus daemon's 128 pending replies.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::i18n::{i18n_text, Text};
use tokio::sync::OnceCell;
use zbus::message::Header;
use zbus::Connection;
use zbus_polkit::policykit1::{AuthorityProxy, CheckAuthorizationFlags, Subject};

use super::error::HelperError;
use super::lock;
use super::quota::{Full, Place, Quota};

/// The most polkit checks one user may have waiting at once.
pub const CHECKS_PER_USER: usize = 4;
/// The most polkit checks waiting at once, from everyone: well below the
/// bus daemon's 128 pending replies per connection.
pub const CHECKS_IN_FLIGHT: usize = 32;
/// The most callers whose uid is kept (each connection's, until it leaves;
/// past this many the list starts again).
const KNOWN_CALLERS: usize = 4096;
/// The most questions for a caller's uid waiting for the bus daemon at
/// once; with [`CHECKS_IN_FLIGHT`] well below its 128 pending replies.
pub const LOOKUPS_IN_FLIGHT: usize = 64;

/// The polkit authority, reached lazily over the helper's own connection.
pub struct Authority {
    connection: Connection,
    proxy: OnceCell<AuthorityProxy<'static>>,
    /// The uid of each caller's unique bus name (never given to another
    /// connection while the bus runs), once the bus daemon said it.
    uids: Mutex<HashMap<String, Arc<OnceCell<u32>>>>,
    /// Places among the questions for a uid waiting at once.
    lookups: tokio::sync::Semaphore,
    /// Checks waiting for polkit.
    waiting: Waiting,
}

/// The checks waiting for polkit, per uid.
#[derive(Clone)]
struct Waiting(Quota<u32>);

impl Default for Waiting {
    fn default() -> Self {
        Self(Quota::new(CHECKS_PER_USER, CHECKS_IN_FLIGHT))
    }
}

impl Waiting {
    /// Takes a place among the checks in flight for `uid`.
    fn take(&self, uid: u32) -> Result<Place<u32>, HelperError> {
        self.0.take(&uid).map_err(|full| {
            HelperError::Busy(
                if full == Full::Key {
                    i18n_text("too many requests from this user are waiting for polkit: try again in a moment")
                } else {
                    i18n_text("too many requests are waiting for polkit: try again in a moment")
                }
                .into(),
            )
        })
    }
}

/// The caller's uid or process could not be learnt.
fn unidentified(error: &dyn std::fmt::Display) -> crate::dbus::Sentence {
    i18n_text("the caller could not be identified: {error}").arg("error", error).into()
}

impl Authority {
    /// An authority on `connection` (polkit need not run yet).
    pub fn new(connection: Connection) -> Self {
        Authority {
            connection,
            proxy: OnceCell::new(),
            uids: Mutex::new(HashMap::new()),
            lookups: tokio::sync::Semaphore::new(LOOKUPS_IN_FLIGHT),
            waiting: Waiting::default(),
        }
    }

    /// The uid of the process that sent `header`, as the bus daemon knows it.
    ///
    /// # Errors
    /// The sender is missing or the bus does not know it.
    pub async fn caller_uid(&self, header: &Header<'_>) -> Result<u32, HelperError> {
        let sender = header
            .sender()
            .ok_or_else(|| HelperError::NotAuthorized(i18n_text("the caller could not be identified").into()))?;
        let known = {
            let mut uids = lock(&self.uids);
            if uids.len() >= KNOWN_CALLERS && !uids.contains_key(sender.as_str()) {
                uids.clear();
            }
            uids.entry(sender.to_string()).or_default().clone()
        };
        let uid = known
            .get_or_try_init(|| async {
                let _place =
                    self.lookups.acquire().await.map_err(|e| HelperError::NotAuthorized(e.to_string().into()))?;
                let dbus = zbus::fdo::DBusProxy::new(&self.connection).await?;
                dbus.get_connection_unix_user(sender.clone().into())
                    .await
                    .map_err(|e| HelperError::NotAuthorized(unidentified(&e)))
            })
            .await?;
        Ok(*uid)
    }

    /// A connection left the bus: its uid is no longer kept.
    pub fn forget(&self, unique_name: &str) {
        lock(&self.uids).remove(unique_name);
    }

    /// Succeeds when polkit authorizes the sender of `header` for `action`,
    /// allowing an authentication agent to prompt.
    ///
    /// # Errors
    /// [`HelperError::NotAuthorized`] with the reason, or
    /// [`HelperError::Busy`] when the caller's user has too many checks
    /// waiting already.
    pub async fn check(&self, header: &Header<'_>, action: &str) -> Result<(), HelperError> {
        let uid = self.caller_uid(header).await?;
        if uid == 0 {
            return Ok(());
        }
        let _place = self.waiting.take(uid)?;
        let subject =
            Subject::new_for_message_header(header).map_err(|e| HelperError::NotAuthorized(unidentified(&e)))?;
        let proxy = self.proxy.get_or_try_init(|| AuthorityProxy::new(&self.connection)).await.map_err(|e| {
            HelperError::NotAuthorized(i18n_text("polkit could not be reached: {error}").arg("error", e).into())
        })?;
        let details: HashMap<&str, &str> = HashMap::new();
        let result = proxy
            .check_authorization(&subject, action, &details, CheckAuthorizationFlags::AllowUserInteraction.into(), "")
            .await
            .map_err(|e| {
                HelperError::NotAuthorized(
                    i18n_text("polkit could not decide ({error}); refusing").arg("error", e).into(),
                )
            })?;
        let what = match action {
            crate::dbus::ACTION_SWITCH => i18n_text("switching the power profile"),
            crate::dbus::ACTION_TUNE => i18n_text("tuning EPP, governors or custom profiles"),
            crate::dbus::ACTION_READ_POWER => i18n_text("reading the energy counters"),
            _ => Text::from(action.to_owned()),
        };
        if result.is_authorized {
            Ok(())
        } else if result.is_challenge {
            Err(HelperError::NotAuthorized(
                i18n_text("{what} needs an administrator's password here, and no polkit agent was there to ask for it (polkit action {action})")
                    .arg_text("what", what)
                    .arg("action", action)
                    .into(),
            ))
        } else {
            Err(HelperError::NotAuthorized(
                i18n_text("polkit does not allow {what} for this caller (polkit action {action})")
                    .arg_text("what", what)
                    .arg("action", action)
                    .into(),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_has_a_few_checks_in_flight_and_gets_them_back() {
        let waiting = Waiting::default();
        let mine: Vec<Place<u32>> = (0..CHECKS_PER_USER).map(|_| waiting.take(65534).unwrap()).collect();
        assert!(matches!(waiting.take(65534), Err(HelperError::Busy(text)) if text.contains("this user")));
        assert!(waiting.take(1000).is_ok(), "another user has places of their own");
        drop(mine);
        assert_eq!(waiting.0.taken(), 0, "every place was given back");
        assert!(waiting.take(65534).is_ok());
    }

    #[test]
    fn all_users_together_stay_below_the_bus_limit() {
        let waiting = Waiting::default();
        let held: Vec<Place<u32>> = (0..CHECKS_IN_FLIGHT as u32).map(|uid| waiting.take(uid + 1).unwrap()).collect();
        assert!(matches!(waiting.take(9999), Err(HelperError::Busy(_))));
        assert_eq!(held.len(), CHECKS_IN_FLIGHT);
        const { assert!(CHECKS_IN_FLIGHT < 128, "below the bus daemon's 128 pending replies") };
    }
}

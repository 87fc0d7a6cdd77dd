//! The first steps of every request, the same on all three interfaces
//! (Helper1 and both PowerProfiles names), before anything else looks at
//! what the caller sent (docs/security.md, "Limits"):
//!
//! 1. every text argument is measured before anything formats it
//!    ([`text`], [`id`]): over [`MAX_TEXT`] bytes (or [`MAX_ID`] for a
//!    profile's id or name, a governor, a mode, an action), the request is
//!    refused as invalid, saying only its size;
//! 2. a caller (one bus connection) has at most [`CALLS_PER_SENDER`]
//!    requests in the helper at once, and everyone together
//!    [`CALLS_IN_FLIGHT`]; beyond that the call is answered `Busy` at once
//!    (`Engine::admit`, in `engine/admit.rs`), before polkit is asked or
//!    the apply lock waited for;
//! 3. the administrator's lock, where the request would change something;
//! 4. polkit (`helper::authorize`), for the caller of this message.
//!
//! Anything of the caller's that goes back in a reply goes through
//! [`quote`]: escaped, at most 40 characters. Calls too large to read and
//! object paths too long to place were refused before zbus read them
//! (`helper::inbox`).

use zbus::message::Header;

use super::error::HelperError;
use super::quota::{Full, Place, Quota};
use crate::i18n::{i18n_text, Text};

/// The most bytes of any text argument (a hold's reason and application id
/// have their own, smaller limit: `control::MAX_HOLD_TEXT`).
pub const MAX_TEXT: usize = 4096;
/// The most bytes of a profile's id or name, a governor, a driver mode or
/// an action's name: the longest of them is far shorter.
pub const MAX_ID: usize = 64;
/// The most requests one bus connection may have in the helper at once.
pub const CALLS_PER_SENDER: usize = 8;
/// The most requests in the helper at once, from everyone: each holds its
/// message (at most 64 KiB, `inbox::MAX_CALL_BYTES`) until answered.
pub const CALLS_IN_FLIGHT: usize = 256;

pub use crate::core::parse::quote;

/// Refuses a text argument over `max` bytes, naming only its size.
///
/// # Errors
/// [`HelperError::InvalidArgument`].
pub fn text_at_most(what: Text, value: &str, max: usize) -> Result<(), HelperError> {
    if value.len() <= max {
        return Ok(());
    }
    Err(HelperError::InvalidArgument(
        i18n_text("the {what} is {length} bytes; it may be at most {limit}")
            .arg_text("what", what)
            .arg("length", value.len())
            .arg("limit", max)
            .into(),
    ))
}

/// [`text_at_most`] [`MAX_TEXT`].
///
/// # Errors
/// [`HelperError::InvalidArgument`].
pub fn text(what: Text, value: &str) -> Result<(), HelperError> {
    text_at_most(what, value, MAX_TEXT)
}

/// [`text_at_most`] [`MAX_ID`]: a profile's id or name, a governor, a
/// driver mode, an action.
///
/// # Errors
/// [`HelperError::InvalidArgument`].
pub fn id(what: Text, value: &str) -> Result<(), HelperError> {
    text_at_most(what, value, MAX_ID)
}

/// What a request needs besides its place among the calls in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Nothing more: the caller's own hold or measurement.
    Nothing,
    /// polkit's `switch-profile`, and no lock.
    Switch,
    /// polkit's `tune`, and no lock.
    Tune,
    /// polkit's `read-power` (the lock is about changes, not readings).
    ReadPower,
}

/// The requests in the helper, per sender.
#[derive(Debug, Clone)]
pub struct Calls(Quota<String>);

impl Default for Calls {
    fn default() -> Self {
        Self(Quota::new(CALLS_PER_SENDER, CALLS_IN_FLIGHT))
    }
}

impl Calls {
    /// Takes a place for a request of `sender`.
    ///
    /// # Errors
    /// [`HelperError::Busy`] when the sender, or everyone, has as many
    /// requests in the helper as it takes.
    pub fn take(&self, sender: &str) -> Result<Slot, HelperError> {
        self.0.take(&sender.to_owned()).map_err(|full| {
            HelperError::Busy(
                match full {
                    Full::Key => {
                        i18n_text("this connection has {count} requests waiting already: wait for their answers")
                            .arg("count", CALLS_PER_SENDER)
                    }
                    Full::All => i18n_text("the helper is busy with other requests: try again in a moment"),
                }
                .into(),
            )
        })
    }

    /// Requests in the helper now (the tests read it).
    pub fn in_flight(&self) -> usize {
        self.0.taken()
    }
}

/// A place among the requests in flight.
pub type Slot = Place<String>;

/// The caller's unique bus name.
///
/// # Errors
/// The message names no sender (only a peer-to-peer connection would).
pub fn sender(header: &Header<'_>) -> Result<String, HelperError> {
    header
        .sender()
        .map(ToString::to_string)
        .ok_or_else(|| HelperError::NotAuthorized(i18n_text("the caller could not be identified").into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_over_their_limit_are_refused_by_size_alone() {
        let word = |w: &str| Text::from(w.to_owned());
        assert!(text(word("reason"), &"x".repeat(MAX_TEXT)).is_ok());
        let err = text(word("reason"), &"\u{1}".repeat(7_000_000)).unwrap_err();
        let HelperError::InvalidArgument(message) = err else { panic!("{err:?}") };
        assert_eq!(message.english(), "the reason is 7000000 bytes; it may be at most 4096");
        assert!(id(word("profile"), &"p".repeat(MAX_ID)).is_ok());
        assert!(id(word("profile"), &"p".repeat(MAX_ID + 1)).is_err());
    }

    #[test]
    fn a_sender_has_a_few_calls_in_flight_and_gets_them_back() {
        let calls = Calls::default();
        let mine: Vec<Slot> = (0..CALLS_PER_SENDER).map(|_| calls.take(":1.7").unwrap()).collect();
        assert!(matches!(calls.take(":1.7"), Err(HelperError::Busy(text)) if text.contains("this connection")));
        assert!(calls.take(":1.8").is_ok(), "another connection has places of its own");
        drop(mine);
        assert_eq!(calls.in_flight(), 0, "every place was given back");
        let everyone: Vec<Slot> = (0..CALLS_IN_FLIGHT).map(|n| calls.take(&format!(":1.{n}")).unwrap()).collect();
        assert!(matches!(calls.take(":2.1"), Err(HelperError::Busy(_))));
        assert_eq!(everyone.len(), CALLS_IN_FLIGHT);
    }
}

//! The one door: every request a person makes of the helper, on Helper1
//! and on both PowerProfiles names, is a [`Request`] value that goes
//! through [`dispatch`]. There, and only there, the checks come in their
//! order (docs/security.md, "Limits"):
//!
//! 1. the request's own refusals, which need neither polkit nor the lock
//!    (sizes, known names and values): where a request holds a typed
//!    value, in making it (`parse`), else in [`Request::refuse`];
//! 2. its place among the calls in flight, the administrator's lock where
//!    it changes something, and polkit for what it needs
//!    ([`Engine::admit`], which alone makes a [`Permit`]);
//! 3. on a machine with nothing to drive, the refusal of what means
//!    nothing there ([`Request::on_placeholder`]);
//! 4. the work ([`Request::run`]), which gets the permit: every engine
//!    method that changes something takes one, so a request cannot write
//!    before the caller was checked.
//!
//! The D-Bus methods (`service`, `ppd`) build the request, dispatch it and
//! announce what changed; they repeat no guard.

pub mod helper1;
pub mod panel;

use std::future::Future;
use std::sync::Arc;

use zbus::message::Header;

use super::engine::{Engine, Permit};
use super::error::HelperError;
use super::request::{sender, Need};

/// A request of a person, as the D-Bus method received it.
pub trait Request: Sized + Send {
    /// What it answers.
    type Answer: Send;

    /// What the caller must be allowed: the polkit action, and whether
    /// the lock refuses it. `caller` is the caller's unique bus name.
    fn need(&self, engine: &Engine, caller: &str) -> Need;

    /// The refusals that need neither polkit nor the lock, answered
    /// before them (a malformed request costs no password prompt).
    fn refuse(&self, _engine: &Engine, _header: &Header<'_>) -> impl Future<Output = Result<(), HelperError>> + Send {
        async { Ok(()) }
    }

    /// The refusal of a machine with nothing to drive (the placeholder
    /// the helper runs on where no cpufreq driver is loaded), for a caller
    /// let in; `None` where the request means something there too.
    fn on_placeholder(&self, _engine: &Engine, _caller: &str) -> Option<HelperError> {
        None
    }

    /// The work, for a caller let in.
    fn run(
        self,
        engine: &Arc<Engine>,
        permit: &Permit,
        header: &Header<'_>,
    ) -> impl Future<Output = Result<Self::Answer, HelperError>> + Send;
}

/// Checks `request` in order, then runs it. The permit is kept until the
/// answer: it is this call's place among the calls in flight.
///
/// # Errors
/// The request's refusal, busy, locked, not authorized, or its failure.
pub async fn dispatch<R: Request>(
    engine: &Arc<Engine>,
    header: &Header<'_>,
    request: R,
) -> Result<R::Answer, HelperError> {
    request.refuse(engine, header).await?;
    let caller = sender(header)?;
    let permit = engine.admit(header, request.need(engine, &caller)).await?;
    if engine.is_placeholder() {
        if let Some(refusal) = request.on_placeholder(engine, &caller) {
            return Err(refusal);
        }
    }
    request.run(engine, &permit, header).await
}

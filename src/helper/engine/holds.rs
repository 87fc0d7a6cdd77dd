//! The PowerProfiles API's holds: an application holds `performance` or
//! `power-saver` until it releases the hold, leaves the bus, or a person
//! switches by hand (`helper::control` has the rules).

use super::{Engine, Permit};
use crate::core::profile::BuiltinProfile;
use crate::helper::apply::Rewrite;
use crate::helper::control::Holder;
use crate::helper::error::HelperError;
use crate::i18n::i18n_text;

impl Engine {
    /// An application holds a profile (PowerProfiles API). The hold is kept
    /// only once what it asks for is applied.
    ///
    /// # Errors
    /// Too long a reason or application id, too many holds, or a failed write.
    pub async fn hold(
        &self,
        permit: &Permit,
        profile: BuiltinProfile,
        reason: &str,
        application_id: &str,
        holder: Holder,
        (origin, hands_off): (&'static str, bool),
    ) -> Result<u32, HelperError> {
        let cookie = {
            let mut txn = self.begin_for(permit).await;
            txn.notice_new_policies();
            let (mut control, base) = {
                let state = self.shared.read();
                if let Some(why) = state.control.refuse_hold(reason, application_id, &holder) {
                    return Err(HelperError::InvalidArgument(why.into()));
                }
                (state.control.clone(), state.saved.active_profile.clone())
            };
            let cookie = control.hold(profile, (reason, application_id), &holder, origin);
            if hands_off {
                // GameMode sets the CPU itself: nothing is written, and
                // no profile is claimed for what it writes.
                control.mark_hands_off(cookie);
                log::info!("GameMode holds ({application_id}): hands off the CPU until it ends");
                let mut state = txn.state();
                state.control = control;
                state.now_in_effect(None);
                cookie
            } else {
                let effective = control.effective(base.as_deref()).unwrap_or_default();
                let plan = txn.plan_for(&effective)?;
                txn.apply_plan(&plan)?;
                let mut state = txn.state();
                state.control = control;
                state.now_in_effect(Some(effective));
                cookie
            }
        };
        self.notify().await;
        Ok(cookie)
    }

    /// Ends a hold by its cookie (the caller was checked by the interface).
    ///
    /// # Errors
    /// No hold has that cookie.
    pub async fn release(&self, permit: &Permit, cookie: u32) -> Result<(), HelperError> {
        let hold = {
            let mut txn = self.begin_for(permit).await;
            let Some(hold) = txn.state().control.release(cookie) else {
                return Err(HelperError::InvalidArgument(
                    i18n_text("no hold has the cookie {cookie}").arg("cookie", cookie).into(),
                ));
            };
            // After GameMode, every file is written again: it set them.
            let rewrite = if hold.hands_off { Rewrite::Always } else { Rewrite::IfDifferent };
            txn.apply_automatically("a hold ended", rewrite).await;
            hold
        };
        // Its holder hears ProfileReleased, as from power-profiles-daemon
        // 0.30 on every release.
        self.notify_with(super::Notice { ended: vec![hold], ..super::Notice::default() }).await;
        Ok(())
    }

    /// A bus name left: its holds end, and its measurement (the latest
    /// choice is put back).
    pub async fn holder_gone(&self, name: &str) {
        let released = {
            let mut txn = self.begin().await;
            let game_mode = txn.state().control.hands_off();
            let released = txn.state().control.release_holder(name);
            if !released.is_empty() {
                // After GameMode, every file is written again: it set them.
                let game_mode_ended = game_mode && !txn.state().control.hands_off();
                let rewrite = if game_mode_ended { Rewrite::Always } else { Rewrite::IfDifferent };
                txn.apply_automatically("a holder left the bus", rewrite).await;
            }
            !released.is_empty()
        };
        if released {
            self.notify().await;
        }
        self.lease_holder_gone(name).await;
    }
}

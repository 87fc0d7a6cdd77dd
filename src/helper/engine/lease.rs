//! Measurements (the efficiency lab, docs/dbus-api.md "Measurements"): a
//! lease that lets one client switch profiles run after run without
//! changing anybody's choice, and puts the latest choice back when it ends.
//!
//! - The lab's own switches (`SetProfile` from the lease's client) change
//!   what the files hold, never the saved choice, and end no hold.
//! - What others choose while it lasts (another client's switch, the
//!   AC/battery policy, a firmware hotkey) is saved as always, so that the
//!   end puts back the latest explicit choice; each such change, and
//!   values changed outside Gearshift, counts as a disturbance that the
//!   lab reads (`MeasurementDisturbances`) to set the run aside.
//! - The lease is kept in the state directory: a helper restarted while it
//!   lasted takes it up again when its client is still on the bus, and
//!   otherwise starts as without it (which applies the saved choice: the
//!   put back).
//! - It ends by `EndMeasurement`, when its client leaves the bus, or after
//!   [`MAX_MEASUREMENT`]; its timer ends with it.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::txn::Txn;
use super::{lock, Engine, Permit};
use crate::core::measure::{kernel_default, KERNEL_DEFAULT};
use crate::core::plan::Preference;
use crate::core::profile::{BuiltinProfile, Resolver};
use crate::dbus::ApplySummary;
use crate::helper::apply::Rewrite;
use crate::helper::error::HelperError;
use crate::helper::state::SavedLease;
use crate::i18n::i18n_text;

/// The longest a measurement lease lasts: then the helper ends it and puts
/// the latest choice back.
pub const MAX_MEASUREMENT: Duration = Duration::from_secs(4 * 3600);

fn now_unix() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Why a lease ended, for the log.
#[derive(Debug, Clone, Copy)]
enum Ended {
    /// Its client asked (`EndMeasurement`).
    Asked,
    /// Its client left the bus.
    ClientLeft,
    /// It lasted [`MAX_MEASUREMENT`].
    TooLong,
    /// The administrator's lock arrived.
    Locked,
}

impl Engine {
    /// The unique bus name measuring now, if any.
    pub fn lease_holder(&self) -> Option<String> {
        self.shared.read().control.lease.as_ref().map(|l| l.holder.clone())
    }

    /// Starts a measurement for `holder`. It is kept in the state directory
    /// before the answer, so that a helper restarted meanwhile knows it.
    ///
    /// # Errors
    /// Another client measures already.
    pub async fn begin_measurement(self: &Arc<Self>, permit: &Permit) -> Result<u32, HelperError> {
        let holder = permit.sender();
        let mut txn = self.begin_for(permit).await;
        let began = now_unix();
        let cookie = {
            let mut state = txn.state();
            let current = state.in_effect.clone();
            state.control.begin_lease(holder, current, began).map_err(|why| HelperError::InvalidArgument(why.into()))?
        };
        txn.save_lease(Some(SavedLease { holder: holder.to_owned(), cookie, began })).await;
        self.arm_lease_timer(cookie, MAX_MEASUREMENT);
        let back = self.shared.read().saved.active_profile.clone().unwrap_or_default();
        log::info!("{holder} measures (lease {cookie}); the latest choice ({back:?} now) is put back at the end");
        Ok(cookie)
    }

    /// Ends the measurement `cookie` of `caller` and puts the latest choice
    /// back; returns its id ("" when the latest choice was raw tuning, so
    /// nothing was put back).
    ///
    /// # Errors
    /// No such measurement, another client's, or putting back failed.
    pub async fn end_measurement(&self, permit: &Permit, cookie: u32) -> Result<String, HelperError> {
        let caller = permit.sender();
        let result = {
            let mut txn = self.begin_for(permit).await;
            let lease = txn
                .state()
                .control
                .end_lease(cookie, caller)
                .map_err(|why| HelperError::InvalidArgument(why.into()))?;
            self.stop_lease_timer(true);
            txn.put_back(&lease.holder, Ended::Asked).await
        };
        self.notify().await;
        result
    }

    /// How often something else changed what the machine runs since the
    /// measurement `cookie` of `caller` began.
    ///
    /// # Errors
    /// No such measurement, or another client's.
    pub fn measurement_disturbances(&self, cookie: u32, caller: &str) -> Result<u32, HelperError> {
        let state = self.shared.read();
        state
            .control
            .own_lease(cookie, caller)
            .map(|l| l.disturbances)
            .map_err(|why| HelperError::InvalidArgument(why.into()))
    }

    /// Ends the measurement `cookie` if it still runs (it lasted too long).
    pub async fn expire_measurement(&self, cookie: u32) {
        {
            let mut txn = self.begin().await;
            let Some(lease) = txn.state().control.expire_lease(cookie) else { return };
            // Called by the timer itself: it ends by returning.
            self.stop_lease_timer(false);
            if let Err(err) = txn.put_back(&lease.holder, Ended::TooLong).await {
                log::warn!("cannot put the latest choice back after a measurement: {err}");
            }
        }
        self.notify().await;
    }

    /// Ends a measurement under way in `txn` because the administrator's
    /// lock arrived: the lab can switch no more, and what it ran last
    /// would otherwise stay in effect under the lock.
    pub(super) async fn end_measurement_for_lock(&self, txn: &mut Txn<'_>) {
        let Some(lease) = txn.state().control.lease.take() else { return };
        self.stop_lease_timer(true);
        if let Err(err) = txn.put_back(&lease.holder, Ended::Locked).await {
            log::warn!("cannot put the latest choice back after a measurement: {err}");
        }
    }

    /// Ends the measurement of a client that left the bus.
    pub(super) async fn lease_holder_gone(&self, name: &str) {
        {
            let mut txn = self.begin().await;
            let Some(lease) = txn.state().control.lease_holder_gone(name) else { return };
            self.stop_lease_timer(true);
            if let Err(err) = txn.put_back(&lease.holder, Ended::ClientLeft).await {
                log::warn!("cannot put the latest choice back after a measurement: {err}");
            }
        }
        self.notify().await;
    }

    /// A measurement's run: `id` (a profile, or [`KERNEL_DEFAULT`]) applied
    /// for the lease's client alone. No choice changes, no hold ends.
    ///
    /// # Errors
    /// The caller is not measuring, no such profile (or no kernel's value
    /// here), or a write failed.
    pub async fn measurement_run(&self, permit: &Permit, id: &str) -> Result<ApplySummary, HelperError> {
        let caller = permit.sender();
        let summary;
        {
            let mut txn = self.begin_for(permit).await;
            if self.lease_holder().as_deref() != Some(caller) {
                let why = if id == KERNEL_DEFAULT {
                    i18n_text("{id} is a run of a measurement: only the client that began one (BeginMeasurement) may switch to it")
                        .arg("id", KERNEL_DEFAULT)
                } else {
                    i18n_text("the measurement ended before this switch: nothing was changed")
                };
                return Err(HelperError::InvalidArgument(why.into()));
            }
            txn.notice_new_policies();
            txn.refresh_governors();
            let plan = if id == KERNEL_DEFAULT { txn.kernel_default_plan()? } else { txn.plan_for(id)? };
            summary = txn.write_plan(&plan, Rewrite::IfDifferent)?;
            let mut state = txn.state();
            if let Some(lease) = state.control.lease.as_mut() {
                lease.current = Some(id.to_owned());
            }
            // The kernel's generic value is no profile: ActiveProfile says "".
            state.in_effect = (id != KERNEL_DEFAULT).then(|| id.to_owned());
        }
        self.notify().await;
        Ok(summary)
    }

    /// At start: takes up the measurement kept from before a restart while
    /// its client is still on the bus; otherwise forgets it, and the start
    /// applies the saved choice (the put back).
    pub async fn resume_measurement(self: &Arc<Self>, kept: Option<SavedLease>) {
        let Some(kept) = kept else { return };
        let dbus = zbus::fdo::DBusProxy::new(&self.connection).await;
        let on_bus = match (&dbus, zbus::names::BusName::try_from(kept.holder.as_str())) {
            (Ok(dbus), Ok(name)) => dbus.name_has_owner(name).await.unwrap_or(false),
            _ => false,
        };
        let elapsed = Duration::from_secs(now_unix().saturating_sub(kept.began));
        let mut txn = self.begin().await;
        match MAX_MEASUREMENT.checked_sub(elapsed).filter(|left| on_bus && !left.is_zero()) {
            Some(left) => {
                txn.state().control.resume_lease(kept.cookie, &kept.holder, kept.began);
                self.arm_lease_timer(kept.cookie, left);
                log::info!("{} still measures (lease {}): taken up again after the restart", kept.holder, kept.cookie);
            }
            None => {
                txn.save_lease(None).await;
                log::warn!(
                    "the measurement of {} (lease {}) ended while the helper was stopped: the saved choice is put back",
                    kept.holder,
                    kept.cookie
                );
            }
        }
    }

    /// Drops the timer of the lease that ended (`abort`: it has not fired).
    fn stop_lease_timer(&self, abort: bool) {
        if let Some(timer) = lock(&self.lease_timer).take() {
            if abort {
                timer.abort();
            }
        }
    }

    /// Ends the lease `cookie` after `after`, unless it ends sooner (the
    /// timer is then aborted, and nothing stays behind).
    fn arm_lease_timer(self: &Arc<Self>, cookie: u32, after: Duration) {
        let engine = Arc::downgrade(self);
        let timer = tokio::spawn(async move {
            tokio::time::sleep(after).await;
            if let Some(engine) = engine.upgrade() {
                engine.expire_measurement(cookie).await;
            }
        });
        if let Some(old) = lock(&self.lease_timer).replace(timer.abort_handle()) {
            old.abort();
        }
    }
}

impl Txn<'_> {
    /// Balanced with every CPU's EPP at the value a kernel before 6.11 (and
    /// every other tool) writes for it: what the model's own value is
    /// measured against.
    fn kernel_default_plan(&self) -> Result<crate::core::plan::Plan, HelperError> {
        let value = kernel_default(&Resolver::new(&self.engine.machine(), &self.engine.table)).ok_or_else(|| {
            HelperError::Unsupported(
                i18n_text("this machine's balanced EPP is the kernel's own value (or the driver takes no numbers): there is no {id} run")
                    .arg("id", KERNEL_DEFAULT)
                    .into(),
            )
        })?;
        let mut plan = self.plan_for(BuiltinProfile::BalancePerformance.id())?;
        KERNEL_DEFAULT.clone_into(&mut plan.profile);
        for cpu in &mut plan.cpus {
            if matches!(cpu.preference, Some(Preference::EppNumber(_))) {
                cpu.preference = Some(Preference::EppNumber(value));
                cpu.epp_value = Some(value);
            }
        }
        Ok(plan)
    }

    /// Puts the latest choice back after a lease ended (already taken out
    /// of the control state; the caller notifies).
    async fn put_back(&mut self, holder: &str, ended: Ended) -> Result<String, HelperError> {
        self.save_lease(None).await;
        let (back, effective) = {
            let state = self.engine.shared.read();
            let back = state.saved.active_profile.clone();
            (back.clone(), state.control.effective(back.as_deref()))
        };
        let why = match ended {
            Ended::Asked => "ended its measurement",
            Ended::ClientLeft => "left the bus while measuring",
            Ended::TooLong => "measured for too long",
            Ended::Locked => "was measuring when the administrator's lock arrived",
        };
        log::info!("{holder} {why}: putting {back:?} back");
        // Nothing was chosen but raw tuning: the files stay as the last run left them.
        let Some(id) = effective else { return Ok(String::new()) };
        let plan = self.plan_for(&id)?;
        self.write_plan(&plan, Rewrite::IfDifferent)?;
        self.state().now_in_effect(Some(id));
        Ok(back.unwrap_or_default())
    }
}

//! The requests of `io.github.gearshift.Helper1` (docs/dbus-api.md): what
//! each refuses before polkit, what it needs, and its work.

use std::sync::Arc;

use zbus::message::Header;

use super::Request;
use crate::core::custom::{check_shape, CustomProfile};
use crate::core::kernel_own::KERNEL_OWN;
use crate::core::machine::DriverMode;
use crate::core::measure::KERNEL_DEFAULT;
use crate::core::parse::quoted_text;
use crate::core::profile::BuiltinProfile;
use crate::dbus::{ApplySummary, EnergyReading};
use crate::helper::engine::{Engine, Permit};
use crate::helper::error::HelperError;
use crate::helper::request::{self, Need};
use crate::helper::validate::{self, cheap};
use crate::i18n::i18n_text;

/// `SetProfile(id)`: a built-in or saved custom profile; for the client
/// measuring, a run of the efficiency lab.
pub struct SetProfile<'a>(pub &'a str);

impl Request for SetProfile<'_> {
    type Answer = ApplySummary;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Switch
    }

    async fn refuse(&self, engine: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        request::id(i18n_text("profile id"), self.0)?;
        Ok(cheap::known_profile(&engine.profiles(), self.0, &[KERNEL_DEFAULT, KERNEL_OWN])?)
    }

    fn on_placeholder(&self, engine: &Engine, caller: &str) -> Option<HelperError> {
        let builtin = BuiltinProfile::from_id(self.0).is_some();
        (builtin && !measuring(engine, self.0, caller))
            .then(|| HelperError::Unsupported(validate::nothing_to_switch().into()))
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<ApplySummary, HelperError> {
        if measuring(engine, self.0, permit.sender()) {
            // A run of the efficiency lab, for the client measuring only:
            // it changes no choice (and the kernel's generic value needs
            // no `tune` password mid-run).
            return engine.measurement_run(permit, self.0).await;
        }
        engine.manual_switch(permit, self.0).await
    }
}

/// Whether switching to `id` is a run of `caller`'s measurement.
fn measuring(engine: &Engine, id: &str, caller: &str) -> bool {
    id == KERNEL_DEFAULT || engine.lease_holder().as_deref() == Some(caller)
}

/// `SetDriverMode(mode)`.
pub struct SetDriverMode(pub DriverMode);

impl SetDriverMode {
    /// The request for the mode `word` names.
    ///
    /// # Errors
    /// Not a driver mode.
    pub fn parse(word: &str) -> Result<SetDriverMode, HelperError> {
        request::id(i18n_text("driver mode"), word)?;
        Ok(SetDriverMode(cheap::driver_mode(word)?))
    }
}

impl Request for SetDriverMode {
    type Answer = ApplySummary;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Tune
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<ApplySummary, HelperError> {
        engine.set_driver_mode(permit, self.0).await
    }
}

/// `SetEpp(cpus, value)`.
pub struct SetEpp<'a> {
    /// The CPUs (all online CPUs when empty).
    pub cpus: &'a [u32],
    /// 0..=255.
    pub value: u32,
}

impl Request for SetEpp<'_> {
    type Answer = ApplySummary;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Tune
    }

    async fn refuse(&self, _: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        Ok(cheap::epp_request(self.cpus, self.value)?)
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<ApplySummary, HelperError> {
        engine.raw(permit, |_, resolver| Ok(validate::epp_request(resolver, self.cpus, self.value)?)).await
    }
}

/// `SetGovernor(cpus, governor)`.
pub struct SetGovernor<'a> {
    /// The CPUs (all online CPUs when empty).
    pub cpus: &'a [u32],
    /// One of the CPUs' `scaling_available_governors`.
    pub governor: &'a str,
}

impl Request for SetGovernor<'_> {
    type Answer = ApplySummary;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Tune
    }

    async fn refuse(&self, _: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        request::id(i18n_text("governor"), self.governor)?;
        Ok(cheap::governor_request(self.cpus, self.governor)?)
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<ApplySummary, HelperError> {
        engine.raw(permit, |machine, _| Ok(validate::governor_request(machine, self.cpus, self.governor)?)).await
    }
}

/// `SetAutoPolicy(on_ac, on_battery)` (`Some`) or `DisableAutoPolicy` (`None`).
pub struct SetAutoPolicy<'a>(pub Option<(&'a str, &'a str)>);

impl Request for SetAutoPolicy<'_> {
    type Answer = ApplySummary;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Switch
    }

    async fn refuse(&self, engine: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        let Some((on_ac, on_battery)) = self.0 else { return Ok(()) };
        request::id(i18n_text("profile id for AC power"), on_ac)?;
        request::id(i18n_text("profile id for battery power"), on_battery)?;
        let customs = engine.profiles();
        cheap::known_profile(&customs, on_ac, &[])?;
        Ok(cheap::known_profile(&customs, on_battery, &[])?)
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<ApplySummary, HelperError> {
        engine.set_auto_policy(permit, self.0).await
    }
}

/// `ReloadConfig`: root only, since the files are root's.
pub struct ReloadConfig;

impl Request for ReloadConfig {
    type Answer = Vec<String>;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Nothing
    }

    async fn run(self, engine: &Arc<Engine>, _: &Permit, header: &Header<'_>) -> Result<Vec<String>, HelperError> {
        if engine.authority.caller_uid(header).await? != 0 {
            return Err(HelperError::NotAuthorized(
                "only root may reload the configuration (it lives in /etc/gearshift)".into(),
            ));
        }
        Ok(engine.reload_config("the configuration was reloaded").await)
    }
}

/// `SaveCustomProfile(profile)`, read from the wire already.
pub struct SaveCustom(pub CustomProfile);

impl Request for SaveCustom {
    type Answer = ();

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Tune
    }

    async fn refuse(&self, _: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        check_shape(&self.0).map_err(|e| HelperError::InvalidArgument(e.sentence().into()))
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<(), HelperError> {
        engine.save_custom(permit, self.0).await
    }
}

/// `DeleteCustomProfile(id)`.
pub struct DeleteCustom<'a>(pub &'a str);

impl Request for DeleteCustom<'_> {
    type Answer = ();

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Tune
    }

    async fn refuse(&self, engine: &Engine, _: &Header<'_>) -> Result<(), HelperError> {
        request::id(i18n_text("profile id"), self.0)?;
        if engine.profiles().iter().any(|p| p.id == self.0) {
            return Ok(());
        }
        Err(HelperError::InvalidArgument(
            i18n_text("there is no custom profile {id}").arg_text("id", quoted_text(self.0)).into(),
        ))
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<(), HelperError> {
        engine.delete_custom(permit, self.0).await
    }
}

/// `ReadEnergy`: the RAPL counters, at most 4 times a second per user.
pub struct ReadEnergy;

impl Request for ReadEnergy {
    type Answer = (u64, Vec<EnergyReading>);

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::ReadPower
    }

    async fn refuse(&self, engine: &Engine, header: &Header<'_>) -> Result<(), HelperError> {
        // The rate limit first: a flood of readings costs no polkit call.
        let uid = engine.authority.caller_uid(header).await?;
        engine.energy_allowed(uid)
    }

    async fn run(self, engine: &Arc<Engine>, _: &Permit, _: &Header<'_>) -> Result<Self::Answer, HelperError> {
        Ok((monotonic_us(), engine.read_energy()?))
    }
}

/// `BeginMeasurement`: a measurement switches profiles, so not while the
/// administrator locks them.
pub struct BeginMeasurement;

impl Request for BeginMeasurement {
    type Answer = u32;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Switch
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<u32, HelperError> {
        engine.begin_measurement(permit).await
    }
}

/// `EndMeasurement(cookie)`: the caller's own, so nothing more to ask.
pub struct EndMeasurement(pub u32);

impl Request for EndMeasurement {
    type Answer = String;

    fn need(&self, _: &Engine, _: &str) -> Need {
        Need::Nothing
    }

    async fn run(self, engine: &Arc<Engine>, permit: &Permit, _: &Header<'_>) -> Result<String, HelperError> {
        engine.end_measurement(permit, self.0).await
    }
}

fn monotonic_us() -> u64 {
    // SAFETY: clock_gettime fills the struct we own.
    unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
        u64::try_from(ts.tv_sec).unwrap_or(0) * 1_000_000 + u64::try_from(ts.tv_nsec).unwrap_or(0) / 1000
    }
}

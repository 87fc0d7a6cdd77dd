//! The `io.github.gearshift.Helper1` interface.

use std::sync::Arc;

use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus::{interface, Connection};

use super::dispatch::{dispatch, helper1 as ask};
use super::engine::{Engine, Notice};
use super::error::HelperError;
use super::request;
use crate::dbus::HELPER_PATH;
use crate::dbus::{ApplySummary, AutoPolicy, EnergyReading, HelperState, OutsideChange, WireProfile};

/// The object at `/io/github/gearshift/Helper1`.
pub struct Helper1 {
    /// The engine.
    pub engine: Arc<Engine>,
}

#[interface(name = "io.github.gearshift.Helper1")]
impl Helper1 {
    /// Switches to a built-in or saved custom profile.
    async fn set_profile(
        &self,
        id: &str,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<ApplySummary, HelperError> {
        let summary = dispatch(&self.engine, &header, ask::SetProfile(id)).await?;
        announce(&emitter, &summary).await;
        Ok(summary)
    }

    /// Switches the cpufreq driver's mode (`active`, `passive`, `guided`
    /// where the driver takes it) and applies the profile again.
    async fn set_driver_mode(
        &self,
        mode: &str,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<ApplySummary, HelperError> {
        let summary = dispatch(&self.engine, &header, ask::SetDriverMode::parse(mode)?).await?;
        announce(&emitter, &summary).await;
        Ok(summary)
    }

    /// Sets a raw EPP (0..255) on the listed CPUs (all online CPUs when empty).
    async fn set_epp(
        &self,
        cpus: Vec<u32>,
        value: u32,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<ApplySummary, HelperError> {
        let summary = dispatch(&self.engine, &header, ask::SetEpp { cpus: &cpus, value }).await?;
        announce(&emitter, &summary).await;
        Ok(summary)
    }

    /// Sets a governor on the listed CPUs (all online CPUs when empty).
    async fn set_governor(
        &self,
        cpus: Vec<u32>,
        governor: &str,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<ApplySummary, HelperError> {
        let summary = dispatch(&self.engine, &header, ask::SetGovernor { cpus: &cpus, governor }).await?;
        announce(&emitter, &summary).await;
        Ok(summary)
    }

    /// Turns on automatic switching: `on_ac` on AC power, `on_battery` on
    /// battery; answers what was applied, and (`unsaved`) when the policy
    /// could not be saved.
    async fn set_auto_policy(
        &self,
        on_ac: &str,
        on_battery: &str,
        #[zbus(header)] header: Header<'_>,
    ) -> Result<ApplySummary, HelperError> {
        dispatch(&self.engine, &header, ask::SetAutoPolicy(Some((on_ac, on_battery)))).await
    }

    /// Turns automatic switching off (the active profile stays); the
    /// summary's `unsaved` says when that could not be saved.
    async fn disable_auto_policy(&self, #[zbus(header)] header: Header<'_>) -> Result<ApplySummary, HelperError> {
        dispatch(&self.engine, &header, ask::SetAutoPolicy(None)).await
    }

    /// Reads the administrator's configuration again (as SIGHUP does) and
    /// applies it; answers its problems, a line each (none: every file is
    /// used). Root only: the files are root's.
    async fn reload_config(&self, #[zbus(header)] header: Header<'_>) -> Result<Vec<String>, HelperError> {
        dispatch(&self.engine, &header, ask::ReloadConfig).await
    }

    /// The last applied values and the active profile.
    fn get_state(&self) -> HelperState {
        self.engine.last_state()
    }

    /// The saved custom profiles, each an `a{sv}` with the keys of
    /// `profiles.toml` (`dbus::profile`).
    fn list_custom_profiles(&self) -> Vec<WireProfile> {
        self.engine.profiles().iter().map(crate::dbus::profile::to_wire).collect()
    }

    /// Saves (or replaces) one custom profile.
    async fn save_custom_profile(
        &self,
        profile: WireProfile,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<(), HelperError> {
        let profile = crate::dbus::profile::from_wire(&profile).map_err(|e| HelperError::InvalidArgument(e.into()))?;
        dispatch(&self.engine, &header, ask::SaveCustom(profile)).await?;
        profiles_changed(&emitter).await;
        Ok(())
    }

    /// Deletes a custom profile.
    async fn delete_custom_profile(
        &self,
        id: &str,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<(), HelperError> {
        dispatch(&self.engine, &header, ask::DeleteCustom(id)).await?;
        profiles_changed(&emitter).await;
        Ok(())
    }

    /// The RAPL package (and core) energy counters: `(t µs since boot, a(stt))`.
    async fn read_energy(&self, #[zbus(header)] header: Header<'_>) -> Result<(u64, Vec<EnergyReading>), HelperError> {
        dispatch(&self.engine, &header, ask::ReadEnergy).await
    }

    /// Starts a measurement (the efficiency lab): the caller may now switch
    /// profiles one after another without changing anybody's choice;
    /// `EndMeasurement`, the caller leaving the bus (killed, crashed) or
    /// four hours put the latest choice back. One measurement at a time.
    async fn begin_measurement(&self, #[zbus(header)] header: Header<'_>) -> Result<u32, HelperError> {
        dispatch(&self.engine, &header, ask::BeginMeasurement).await
    }

    /// Ends the caller's measurement and puts the profile back; answers its
    /// id ("" when none was chosen before it began).
    async fn end_measurement(&self, cookie: u32, #[zbus(header)] header: Header<'_>) -> Result<String, HelperError> {
        dispatch(&self.engine, &header, ask::EndMeasurement(cookie)).await
    }

    /// How often something else changed what the machine runs since the
    /// caller's measurement began (another client's switch, the AC/battery
    /// policy, a firmware hotkey, values changed outside Gearshift): the
    /// lab sets aside a run during which this grew.
    fn measurement_disturbances(&self, cookie: u32, #[zbus(header)] header: Header<'_>) -> Result<u32, HelperError> {
        self.engine.measurement_disturbances(cookie, &request::sender(&header)?)
    }

    /// The profile the files hold ("" when the machine was tuned by hand,
    /// or when the files hold no profile).
    #[zbus(property)]
    fn active_profile(&self) -> String {
        self.engine.active_profile()
    }

    /// Read-only: answers `PropertyReadOnly` (zbus would say
    /// `UnknownProperty` for a property without a setter).
    #[zbus(property, name = "ActiveProfile")]
    fn refuse_active_profile_write(&self, _value: String) -> zbus::fdo::Result<()> {
        Err(read_only("ActiveProfile"))
    }

    /// Why the profile in effect is in effect: `chosen`, `policy`,
    /// `until-power-change` (chosen by hand while automatic switching is
    /// on), `held`, `measuring` or `nothing` (docs/dbus-api.md).
    #[zbus(property)]
    fn active_reason(&self) -> String {
        self.engine.active_reason().wire().to_owned()
    }

    /// Read-only.
    #[zbus(property, name = "ActiveReason")]
    fn refuse_active_reason_write(&self, _value: String) -> zbus::fdo::Result<()> {
        Err(read_only("ActiveReason"))
    }

    /// The AC/battery policy: (enabled, profile on AC, profile on battery).
    #[zbus(property)]
    fn auto_policy(&self) -> AutoPolicy {
        self.engine.auto_policy()
    }

    /// Read-only.
    #[zbus(property, name = "AutoPolicy")]
    fn refuse_auto_policy_write(&self, _value: AutoPolicy) -> zbus::fdo::Result<()> {
        Err(read_only("AutoPolicy"))
    }

    /// Other power managers found, by id (`power-profiles-daemon`, `tuned`,
    /// `tlp`, ...).
    #[zbus(property)]
    async fn conflicts(&self) -> Vec<String> {
        self.engine.conflict_ids().await
    }

    /// The same, by program (`tlp-pd` where `Conflicts` says `tlp`): the
    /// advice follows the program.
    #[zbus(property)]
    async fn conflict_programs(&self) -> Vec<String> {
        self.engine.conflicts().await
    }

    /// Read-only.
    #[zbus(property, name = "ConflictPrograms")]
    fn refuse_conflict_programs_write(&self, _value: Vec<String>) -> zbus::fdo::Result<()> {
        Err(read_only("ConflictPrograms"))
    }

    /// Read-only.
    #[zbus(property, name = "Conflicts")]
    fn refuse_conflicts_write(&self, _value: Vec<String>) -> zbus::fdo::Result<()> {
        Err(read_only("Conflicts"))
    }

    /// The directory the helper reads and writes as the machine: `/` for
    /// this computer, a snapshot's canonical path when started with
    /// `--root DIR` (the tests). Clients given `--root` change something
    /// only where this names the same directory.
    /// How often values changed outside Gearshift were set back, per
    /// occasion (`resume`, `ac`, `battery`, `driver-mode`), since the helper
    /// started: `gearshift metrics` reads it.
    #[zbus(property)]
    fn changed_outside_counts(&self) -> std::collections::HashMap<String, u64> {
        self.engine.changed_outside_counts().into_iter().collect()
    }

    #[zbus(property, name = "ChangedOutsideCounts")]
    fn refuse_changed_outside_counts_write(
        &self,
        _value: std::collections::HashMap<String, u64>,
    ) -> zbus::fdo::Result<()> {
        Err(read_only("ChangedOutsideCounts"))
    }

    /// The administrator's file that locks switching and tuning ("" where
    /// none does).
    #[zbus(property)]
    fn administrator_lock(&self) -> String {
        self.engine.locked_by()
    }

    #[zbus(property, name = "AdministratorLock")]
    fn refuse_administrator_lock_write(&self, _value: String) -> zbus::fdo::Result<()> {
        Err(read_only("AdministratorLock"))
    }

    /// The custom profiles the administrator's configuration declares,
    /// each with its file: usable by everyone, changed or deleted by no
    /// one over the bus.
    #[zbus(property)]
    fn declared_profiles(&self) -> std::collections::HashMap<String, String> {
        self.engine.declared_profiles().into_iter().map(|(p, file)| (p.id, file)).collect()
    }

    #[zbus(property, name = "DeclaredProfiles")]
    fn refuse_declared_profiles_write(
        &self,
        _value: std::collections::HashMap<String, String>,
    ) -> zbus::fdo::Result<()> {
        Err(read_only("DeclaredProfiles"))
    }

    /// What holds a profile now, each: the application id, the profile
    /// held (Gearshift's id: `performance`, `power`), the reason, and
    /// whether it is GameMode's (hands off the CPU). Every hold: the
    /// PowerProfiles ones, `gearshift launch`'s, the agent's.
    #[zbus(property)]
    fn holds(&self) -> Vec<(String, String, String, bool)> {
        self.engine
            .holds()
            .into_iter()
            .map(|h| (h.application_id, h.profile.id().to_owned(), h.reason, h.hands_off))
            .collect()
    }

    #[zbus(property, name = "Holds")]
    fn refuse_holds_write(&self, _value: Vec<(String, String, String, bool)>) -> zbus::fdo::Result<()> {
        Err(read_only("Holds"))
    }

    #[zbus(property)]
    fn root(&self) -> String {
        self.engine.root.base().to_string_lossy().into_owned()
    }

    /// Read-only.
    #[zbus(property, name = "Root")]
    fn refuse_root_write(&self, _value: String) -> zbus::fdo::Result<()> {
        Err(read_only("Root"))
    }

    /// The helper's version.
    #[zbus(property)]
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_owned()
    }

    /// Read-only.
    #[zbus(property, name = "Version")]
    fn refuse_version_write(&self, _value: String) -> zbus::fdo::Result<()> {
        Err(read_only("Version"))
    }

    /// Holds `performance` or `power-saver` (`power`) while the caller's
    /// connection lasts, as the PowerProfiles `HoldProfile` does, with
    /// Gearshift's own errors (`gearshift launch`).
    async fn hold_profile(
        &self,
        profile: &str,
        reason: &str,
        application_id: &str,
        #[zbus(header)] header: Header<'_>,
    ) -> Result<u32, HelperError> {
        // Gearshift's id of Power Saver, beside the panel's name.
        let profile = crate::core::panel::PanelProfile::holdable(profile).map_or(profile, |p| p.name());
        let hold =
            super::dispatch::panel::Hold::parse((profile, reason, application_id), crate::dbus::HELPER_INTERFACE)?;
        dispatch(&self.engine, &header, hold).await
    }

    /// A game runs under GameMode (the caller watches its `ClientCount`):
    /// Performance is held as GameMode's, and while it lasts the helper
    /// writes nothing and sets back nothing GameMode writes (its governor);
    /// when it ends, the chosen profile is written again, every file.
    async fn hold_for_game_mode(&self, reason: &str, #[zbus(header)] header: Header<'_>) -> Result<u32, HelperError> {
        let hold = super::dispatch::panel::Hold::game_mode(reason, crate::dbus::HELPER_INTERFACE)?;
        dispatch(&self.engine, &header, hold).await
    }

    /// Ends a hold (its holder, or a caller allowed to switch profiles).
    async fn release_profile(&self, cookie: u32, #[zbus(header)] header: Header<'_>) -> Result<(), HelperError> {
        dispatch(&self.engine, &header, super::dispatch::panel::Release(cookie)).await
    }

    /// A hold taken through this interface ended: released, or cancelled
    /// by a manual switch (sent to its holder only).
    #[zbus(signal)]
    async fn profile_released(emitter: &SignalEmitter<'_>, cookie: u32) -> zbus::Result<()>;

    /// Sent after every apply.
    #[zbus(signal)]
    async fn applied(emitter: &SignalEmitter<'_>, summary: ApplySummary) -> zbus::Result<()>;

    /// The custom profiles changed (saved or deleted): clients list them
    /// again (`ListCustomProfiles`).
    #[zbus(signal)]
    async fn custom_profiles_changed(emitter: &SignalEmitter<'_>) -> zbus::Result<()>;

    /// Values something else had changed (firmware, another program, a
    /// driver mode change), which the helper set back.
    #[zbus(signal)]
    async fn changed_outside(emitter: &SignalEmitter<'_>, change: OutsideChange) -> zbus::Result<()>;
}

/// The answer to setting a read-only property.
pub fn read_only(name: &str) -> zbus::fdo::Error {
    zbus::fdo::Error::PropertyReadOnly(format!("{name} is read-only"))
}

async fn profiles_changed(emitter: &SignalEmitter<'_>) {
    if let Err(err) = Helper1::custom_profiles_changed(emitter).await {
        log::warn!("cannot send CustomProfilesChanged: {err}");
    }
}

async fn announce(emitter: &SignalEmitter<'_>, summary: &ApplySummary) {
    if let Err(err) = Helper1::applied(emitter, summary.clone()).await {
        log::warn!("cannot send Applied: {err}");
    }
}

/// Emits PropertiesChanged for Helper1's changing properties.
///
/// # Errors
/// The interface is not served on `connection`.
/// Subscribes Helper1's property signals to the engine's changes.
pub fn subscribe(engine: &Engine) {
    engine.subscribe(Box::new(|connection, notice| {
        Box::pin(async move {
            if let Err(err) = notify(&connection, &notice).await {
                log::warn!("cannot send PropertiesChanged: {err}");
            }
        })
    }));
}

async fn notify(connection: &Connection, notice: &Notice) -> zbus::Result<()> {
    let iface = connection.object_server().interface::<_, Helper1>(HELPER_PATH).await?;
    let helper = iface.get().await;
    let emitter = iface.signal_emitter();
    // The profile and its reason in one PropertiesChanged: a client sees
    // them change together, never a new profile with the old reason.
    let both = std::collections::HashMap::from([
        ("ActiveProfile", zbus::zvariant::Value::from(helper.active_profile())),
        ("ActiveReason", zbus::zvariant::Value::from(helper.active_reason())),
    ]);
    let interface = zbus::names::InterfaceName::from_static_str_unchecked(crate::dbus::HELPER_INTERFACE);
    zbus::fdo::Properties::properties_changed(emitter, interface, both, std::borrow::Cow::Borrowed(&[])).await?;
    helper.auto_policy_changed(emitter).await?;
    helper.holds_changed(emitter).await?;
    helper.conflicts_changed(emitter).await?;
    helper.conflict_programs_changed(emitter).await?;
    if notice.reloaded {
        helper.administrator_lock_changed(emitter).await?;
        helper.declared_profiles_changed(emitter).await?;
        Helper1::custom_profiles_changed(emitter).await?;
    }
    if let Some(outside) = &notice.outside {
        Helper1::changed_outside(emitter, outside.clone()).await?;
    }
    for hold in notice.ended.iter().filter(|h| h.origin == crate::dbus::HELPER_INTERFACE) {
        let Ok(holder) = zbus::names::BusName::try_from(hold.holder.as_str()) else { continue };
        let _ = Helper1::profile_released(&emitter.clone().set_destination(holder), hold.cookie).await;
    }
    Ok(())
}

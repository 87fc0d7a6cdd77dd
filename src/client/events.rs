//! The user side's live connection to the helper (window and tray), as a
//! stream of [`HelperEvent`]s that a [`super::session::Session`] folds:
//! follows its ActiveProfile, ActiveReason, AutoPolicy and Conflicts, and the desktop
//! power API's BatteryAware and ActionsInfo, through
//! PropertiesChanged and its Applied signal (never by polling), notices when
//! it goes away or comes back, and reads package power while asked to
//! (the window while it is visible; the tray only when its menu opens).
//! No GTK here: the tray must not load it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::watch;

use super::options::PowerOptions;
use super::session::Hold;
use super::{ClientError, Helper};
use crate::core::active::ActiveReason;
use crate::dbus::{AutoPolicy, EnergyReading, Helper1Proxy, OutsideChange, PowerProfilesProxy, HELPER_NAME};

/// The desktop's power API's name (`helper::ppd::UPOWER_NAME`).
const UPOWER_API: &str = "org.freedesktop.UPower.PowerProfiles";

/// What the window learns from the helper.
#[derive(Debug, Clone)]
pub enum HelperEvent {
    /// Reachable: its active profile, why, and its AC/battery policy.
    Connected { active: String, reason: ActiveReason, auto: AutoPolicy },
    /// Not reachable, and why.
    Unreachable(ClientError),
    /// It was there and left the bus (stopped or crashed); D-Bus starts it
    /// again on the next call.
    Gone,
    /// The active profile or its reason changed (from anywhere: tray,
    /// panel, CLI, the policy): both as the helper has them now.
    ActiveProfile(String, ActiveReason),
    /// The AC/battery policy changed.
    AutoPolicy(AutoPolicy),
    /// Other power managers the helper found.
    Conflicts(Vec<String>),
    /// The administrator's configuration (docs/fleet.md): the file that
    /// locks switching and tuning ("" where none does), and the declared
    /// profiles by id with the file of each.
    Administration { locked_by: String, declared: BTreeMap<String, String> },
    /// Battery awareness and the actions, as the desktop's power API shows
    /// them now.
    PowerOptions(PowerOptions),
    /// Something was applied (re-read EPP and governors now).
    Applied,
    /// The custom profiles changed (saved or deleted, from anywhere): list
    /// them again.
    CustomProfiles,
    /// The helper set back values that something else had changed.
    ChangedOutside(OutsideChange),
    /// Package power in watts.
    Power(f64),
    /// Package power cannot be read (not allowed, or no counters).
    NoPower,
    /// What holds a profile now (the helper's `Holds`).
    Holds(Vec<Hold>),
}

impl HelperEvent {
    /// True after events following which the helper has written (or
    /// followed) the firmware's platform profile too: the window and the
    /// tray read it again then, and at no other event.
    pub fn may_change_firmware(&self) -> bool {
        matches!(
            self,
            HelperEvent::Connected { .. }
                | HelperEvent::ActiveProfile(..)
                | HelperEvent::Applied
                | HelperEvent::ChangedOutside(_)
        )
    }
}

/// Runs until the window closes, on the process's [`Helper`] connection.
/// `visible` pauses the power readings while the window is hidden;
/// `interval_ms` paces them.
pub async fn run(
    helper: Helper,
    emit: impl Fn(HelperEvent) + Send + Sync,
    visible: watch::Receiver<bool>,
    interval_ms: Arc<AtomicU64>,
) {
    let connection = match helper.connection().await {
        Ok(c) => c,
        Err(err) => {
            emit(HelperEvent::Unreachable(err));
            return;
        }
    };
    let Ok(dbus) = zbus::fdo::DBusProxy::new(&connection).await else { return };
    let Ok(mut owners) = dbus.receive_name_owner_changed_with_args(&[(0, HELPER_NAME)]).await else { return };
    // The desktop's power API (battery awareness, the actions) is served
    // by the helper a moment after its own name, or by another daemon:
    // read again whenever its owner changes (followed from before the
    // first read, so that no change falls between), so that a window
    // started before the helper, or one that saw it restart, shows it.
    let Ok(mut api_owners) = dbus.receive_name_owner_changed_with_args(&[(0, UPOWER_API)]).await else { return };
    loop {
        match connect(&connection).await {
            Ok((proxy, active, reason, auto)) => {
                emit(HelperEvent::Connected { active, reason, auto });
                if let Some(programs) = conflict_programs(&proxy).await {
                    emit(HelperEvent::Conflicts(programs));
                }
                emit(administration(&proxy).await);
                emit(HelperEvent::Holds(holds(&proxy).await));
                // Changes come through a caching proxy (its streams need
                // the cache); every read asks afresh, as a cache filled
                // while nobody owned the name would answer nothing again.
                let Ok(options) = PowerProfilesProxy::new(&connection).await else { return };
                let uncached =
                    PowerProfilesProxy::builder(&connection).cache_properties(zbus::proxy::CacheProperties::No);
                let Ok(reader) = uncached.build().await else { return };
                emit(HelperEvent::PowerOptions(PowerOptions::read(&reader).await));
                let apis = (&options, &reader);
                follow(&proxy, apis, (&mut owners, &mut api_owners), &emit, visible.clone(), &interval_ms).await;
                emit(HelperEvent::Gone);
            }
            Err(err) => emit(HelperEvent::Unreachable(err)),
        }
        // Wait for the helper to (re)appear on the bus.
        loop {
            let Some(signal) = owners.next().await else { return };
            if signal.args().is_ok_and(|a| a.new_owner().is_some()) {
                break;
            }
        }
    }
}

type Connected = (Helper1Proxy<'static>, String, ActiveReason, AutoPolicy);

async fn connect(connection: &zbus::Connection) -> Result<Connected, ClientError> {
    let proxy = Helper1Proxy::new(connection).await?;
    // Reading a property starts an installed helper through D-Bus activation.
    let active = proxy.active_profile().await?;
    let auto = proxy.auto_policy().await.unwrap_or_default();
    let reason = reason(&proxy).await;
    Ok((proxy, active, reason, auto))
}

/// Why the profile is in effect, as the helper says (an older helper
/// says nothing: a person's choice).
async fn reason(proxy: &Helper1Proxy<'static>) -> ActiveReason {
    proxy.active_reason().await.map_or(ActiveReason::Chosen, |word| ActiveReason::from_wire(&word))
}

/// What holds a profile now (none where the helper cannot say: an older one).
pub async fn holds(proxy: &Helper1Proxy<'static>) -> Vec<Hold> {
    proxy.holds().await.unwrap_or_default().into_iter().map(Hold::from).collect()
}

/// The administrator's lock and declared profiles, as the helper has them
/// now (none where it cannot say: an older helper).
async fn administration(proxy: &Helper1Proxy<'static>) -> HelperEvent {
    let locked_by = proxy.administrator_lock().await.unwrap_or_default();
    let declared = proxy.declared_profiles().await.unwrap_or_default().into_iter().collect();
    HelperEvent::Administration { locked_by, declared }
}

async fn follow(
    proxy: &Helper1Proxy<'static>,
    (options, reader): (&PowerProfilesProxy<'static>, &PowerProfilesProxy<'static>),
    (owners, api_owners): (&mut zbus::fdo::NameOwnerChangedStream, &mut zbus::fdo::NameOwnerChangedStream),
    emit: &(impl Fn(HelperEvent) + Send + Sync),
    visible: watch::Receiver<bool>,
    interval_ms: &AtomicU64,
) {
    let mut active = proxy.receive_active_profile_changed().await;
    let mut reasons = proxy.receive_active_reason_changed().await;
    let mut auto = proxy.receive_auto_policy_changed().await;
    let mut conflicts = proxy.receive_conflicts_changed().await;
    let mut lock = proxy.receive_administrator_lock_changed().await;
    let mut declared = proxy.receive_declared_profiles_changed().await;
    let mut held = proxy.receive_holds_changed().await;
    let mut battery_aware = options.receive_battery_aware_changed().await;
    let mut actions = options.receive_actions_info_changed().await;
    let Ok(mut applied) = proxy.receive_applied().await else { return };
    let Ok(mut outside) = proxy.receive_changed_outside().await else { return };
    let Ok(mut customs) = proxy.receive_custom_profiles_changed().await else { return };
    let mut power = PowerMeter::default();
    let mut read_power = true;
    loop {
        // Within the settings' range (the schema's, src/settings.rs).
        let wait = Duration::from_millis(interval_ms.load(Ordering::Relaxed));
        let reading = read_power && *visible.borrow();
        let mut visibility = visible.clone();
        let tick = async move {
            if reading {
                tokio::time::sleep(wait).await;
            } else {
                // Paused: no timer at all until the window shows again.
                let _ = visibility.changed().await;
            }
        };
        tokio::select! {
            // Either changed: both as cached now (each PropertiesChanged
            // updated the cache before its stream saw it).
            Some(change) = active.next() => {
                if let Ok(value) = change.get().await {
                    emit(HelperEvent::ActiveProfile(value, reason(proxy).await));
                }
            }
            Some(_) = reasons.next() => {
                if let Ok(value) = proxy.active_profile().await {
                    emit(HelperEvent::ActiveProfile(value, reason(proxy).await));
                }
            }
            Some(change) = auto.next() => {
                if let Ok(value) = change.get().await {
                    emit(HelperEvent::AutoPolicy(value));
                }
            }
            Some(_) = conflicts.next() => {
                if let Some(programs) = conflict_programs(proxy).await {
                    emit(HelperEvent::Conflicts(programs));
                }
            }
            // Either changed: both read afresh, so the event is whole.
            Some(_) = lock.next() => emit(administration(proxy).await),
            Some(_) = declared.next() => emit(administration(proxy).await),
            Some(_) = held.next() => emit(HelperEvent::Holds(holds(proxy).await)),
            Some(_) = battery_aware.next() => emit(HelperEvent::PowerOptions(PowerOptions::read(reader).await)),
            Some(_) = actions.next() => emit(HelperEvent::PowerOptions(PowerOptions::read(reader).await)),
            Some(signal) = applied.next() => {
                if signal.args().is_ok() {
                    emit(HelperEvent::Applied);
                }
            }
            Some(_) = customs.next() => emit(HelperEvent::CustomProfiles),
            Some(_) = api_owners.next() => emit(HelperEvent::PowerOptions(PowerOptions::read(reader).await)),
            Some(signal) = outside.next() => {
                if let Ok(args) = signal.args() {
                    emit(HelperEvent::ChangedOutside(args.change));
                }
            }
            Some(signal) = owners.next() => {
                if signal.args().is_ok_and(|a| a.new_owner().is_none()) {
                    return;
                }
            }
            () = tick => {
                if reading {
                    match proxy.read_energy().await {
                        Ok((time_us, zones)) => {
                            if let Some(watts) = power.push(time_us, &zones) {
                                emit(HelperEvent::Power(watts));
                            }
                        }
                        Err(err) => match ClientError::from(err) {
                            ClientError::RateLimited(_) => {}
                            _ => {
                                read_power = false;
                                emit(HelperEvent::NoPower);
                            }
                        },
                    }
                }
            }
        }
    }
}

/// Turns energy counter readings into watts, across counter wrap-around.
#[derive(Debug, Default)]
pub struct PowerMeter {
    last: Option<(u64, u64)>,
}

impl PowerMeter {
    /// Takes a reading (µs, zones); returns package watts from the second on.
    pub fn push(&mut self, time_us: u64, zones: &[EnergyReading]) -> Option<f64> {
        let package: Vec<_> = zones.iter().filter(|z| z.name.starts_with("package")).collect();
        if package.is_empty() {
            return None;
        }
        let energy: u64 = package.iter().map(|z| z.energy_uj).sum();
        let range: u64 = package.iter().map(|z| z.max_energy_range_uj).max().unwrap_or(0);
        let previous = self.last.replace((time_us, energy));
        let (t0, e0) = previous?;
        let dt = time_us.checked_sub(t0).filter(|d| *d > 0)?;
        let de = if energy >= e0 { energy - e0 } else { energy + range.saturating_sub(e0) };
        Some(de as f64 / dt as f64)
    }
}

/// Other power managers by program (`tlp-pd`), read afresh.
async fn conflict_programs(proxy: &Helper1Proxy<'_>) -> Option<Vec<String>> {
    let uncached = Helper1Proxy::builder(proxy.inner().connection())
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .ok()?;
    crate::dbus::proxy::conflict_programs(&uncached).await.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(energy_uj: u64) -> Vec<EnergyReading> {
        vec![EnergyReading { name: "package-0".into(), energy_uj, max_energy_range_uj: 1_000_000 }]
    }

    #[test]
    fn watts_across_wrap_around() {
        let mut meter = PowerMeter::default();
        assert_eq!(meter.push(0, &zone(100_000)), None);
        assert_eq!(meter.push(1_000_000, &zone(112_000)), Some(0.012));
        // The counter wrapped at 1 J.
        assert_eq!(meter.push(2_000_000, &zone(2_000)), Some(0.89));
        assert_eq!(meter.push(2_000_000, &zone(3_000)), None, "no time passed");
    }
}

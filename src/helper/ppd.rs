//! The desktop power panel's API, as power-profiles-daemon serves it:
//! `org.freedesktop.UPower.PowerProfiles` at `/org/freedesktop/UPower/PowerProfiles`
//! and the older `net.hadess.PowerProfiles` at `/net/hadess/PowerProfiles`,
//! one state behind both. GNOME's and KDE's panels and `powerprofilesctl`
//! then switch Gearshift's model-specific profiles.
//!
//! `power-saver`, `balanced` and `performance` map to `power`,
//! `balance_performance` and `performance` (docs/interfaces.md, "Profiles").

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedValue, Value};
use zbus::{interface, Connection};

use super::dispatch::{dispatch, panel, Request};
use values::{actions_info, active, holds, profiles};

mod values;
use super::engine::{lock, Engine, Notice};
use super::service::read_only;

/// The new name and path.
pub const UPOWER_NAME: &str = "org.freedesktop.UPower.PowerProfiles";
/// Its object path.
pub const UPOWER_PATH: &str = "/org/freedesktop/UPower/PowerProfiles";
/// The old name (power-profiles-daemon before 0.20, `powerprofilesctl` 0.12).
pub const HADESS_NAME: &str = "net.hadess.PowerProfiles";
/// Its object path.
pub const HADESS_PATH: &str = "/net/hadess/PowerProfiles";

/// The values last announced on one interface, so that a PropertiesChanged
/// carries what changed, once, and nothing that did not.
#[derive(Debug, Default, Clone, PartialEq)]
struct Shown {
    active: String,
    holds: Vec<Vec<(String, String)>>,
    profiles: Vec<Vec<(String, String)>>,
    degraded: String,
    actions: Vec<String>,
    actions_info: Vec<(String, bool)>,
    battery_aware: bool,
}

/// Comparable text of a list of string dictionaries.
fn flat(list: &[HashMap<String, OwnedValue>]) -> Vec<Vec<(String, String)>> {
    list.iter()
        .map(|entry| {
            let mut pairs: Vec<(String, String)> = entry
                .iter()
                .map(|(k, v)| (k.clone(), <&str>::try_from(v).map(str::to_owned).unwrap_or_default()))
                .collect();
            pairs.sort();
            pairs
        })
        .collect()
}

/// What both interfaces last announced, so that a PropertiesChanged
/// carries each changed property once and nothing else.
#[derive(Debug, Default)]
pub struct Announcer {
    shown: Mutex<HashMap<&'static str, Shown>>,
}

/// The header zbus gives a property's setter, which may have none.
fn identified<'h>(header: Option<&'h Header<'h>>) -> zbus::fdo::Result<&'h Header<'h>> {
    header.ok_or_else(|| zbus::fdo::Error::AccessDenied("the caller could not be identified".into()))
}

/// Dispatches a request of this API, answering the bus's standard errors.
async fn ask<R: Request>(engine: &Arc<Engine>, header: &Header<'_>, request: R) -> zbus::fdo::Result<R::Answer> {
    dispatch(engine, header, request).await.map_err(zbus::fdo::Error::from)
}

/// Defines one of the two identical interfaces (zbus needs a type per
/// interface name).
macro_rules! power_profiles {
    ($(#[$doc:meta])* $type:ident, $name:literal, { $($more:tt)* }) => {
        $(#[$doc])*
        pub struct $type {
            /// The engine.
            pub engine: Arc<Engine>,
            /// What was announced (shared by both interfaces).
            pub announcer: Arc<Announcer>,
        }

        #[interface(name = $name)]
        impl $type {
            /// Holds `performance` or `power-saver` until released or the caller leaves.
            async fn hold_profile(
                &self,
                profile: &str,
                reason: &str,
                application_id: &str,
                #[zbus(header)] header: Header<'_>,
            ) -> zbus::fdo::Result<u32> {
                let hold = panel::Hold::parse((profile, reason, application_id), $name)?;
                ask(&self.engine, &header, hold).await
            }

            /// Ends a hold (its holder, or a caller allowed to switch profiles).
            async fn release_profile(&self, cookie: u32, #[zbus(header)] header: Header<'_>) -> zbus::fdo::Result<()> {
                ask(&self.engine, &header, panel::Release(cookie)).await
            }

            /// The hold ended: released, or cancelled by a manual switch (sent to its holder only).
            #[zbus(signal)]
            async fn profile_released(emitter: &SignalEmitter<'_>, cookie: u32) -> zbus::Result<()>;

            /// `power-saver`, `balanced` or `performance`. Its changes are
            /// announced by `notify`, once, with the other properties that
            /// changed with it: zbus's own announcement after every `Set`,
            /// also of an unchanged value, is off (which introspection
            /// shows as `EmitsChangedSignal` false; it is still announced).
            #[zbus(property(emits_changed_signal = "false"))]
            fn active_profile(&self) -> String {
                active(&self.engine)
            }

            /// Setting it is a manual switch: every hold ends.
            #[zbus(property)]
            async fn set_active_profile(&self, profile: String, #[zbus(header)] header: Option<Header<'_>>) -> zbus::fdo::Result<()> {
                // A wrong name is refused before anything else is looked at.
                let switch = panel::SetActive::parse(&profile)?;
                ask(&self.engine, identified(header.as_ref())?, switch).await
            }

            /// The three profiles and the driver behind them.
            #[zbus(property)]
            fn profiles(&self) -> Vec<HashMap<String, OwnedValue>> {
                profiles(&self.engine)
            }

            /// Read-only (`PropertyReadOnly`).
            #[zbus(property, name = "Profiles")]
            fn refuse_profiles_write(&self, _value: Vec<HashMap<String, OwnedValue>>) -> zbus::fdo::Result<()> {
                Err(read_only("Profiles"))
            }

            /// Why performance is degraded ("" when it is not).
            #[zbus(property)]
            fn performance_degraded(&self) -> String {
                self.engine.performance_degraded()
            }

            /// Read-only (`PropertyReadOnly`).
            #[zbus(property, name = "PerformanceDegraded")]
            fn refuse_performance_degraded_write(&self, _value: String) -> zbus::fdo::Result<()> {
                Err(read_only("PerformanceDegraded"))
            }

            /// Deprecated, always "".
            #[zbus(property)]
            fn performance_inhibited(&self) -> String {
                String::new()
            }

            /// Read-only (`PropertyReadOnly`).
            #[zbus(property, name = "PerformanceInhibited")]
            fn refuse_performance_inhibited_write(&self, _value: String) -> zbus::fdo::Result<()> {
                Err(read_only("PerformanceInhibited"))
            }

            /// Extra actions: `trickle_charge` where a power supply has a charge type.
            #[zbus(property)]
            fn actions(&self) -> Vec<String> {
                self.engine.actions()
            }

            /// Read-only (`PropertyReadOnly`).
            #[zbus(property, name = "Actions")]
            fn refuse_actions_write(&self, _value: Vec<String>) -> zbus::fdo::Result<()> {
                Err(read_only("Actions"))
            }

            /// The active holds.
            #[zbus(property)]
            fn active_profile_holds(&self) -> Vec<HashMap<String, OwnedValue>> {
                holds(&self.engine)
            }

            /// Read-only (`PropertyReadOnly`).
            #[zbus(property, name = "ActiveProfileHolds")]
            fn refuse_active_profile_holds_write(&self, _value: Vec<HashMap<String, OwnedValue>>) -> zbus::fdo::Result<()> {
                Err(read_only("ActiveProfileHolds"))
            }

            /// The helper's version.
            #[zbus(property)]
            fn version(&self) -> String {
                env!("CARGO_PKG_VERSION").to_owned()
            }

            /// Read-only (`PropertyReadOnly`).
            #[zbus(property, name = "Version")]
            fn refuse_version_write(&self, _value: String) -> zbus::fdo::Result<()> {
                Err(read_only("Version"))
            }

            $($more)*
        }
    };
}

power_profiles!(
    /// `org.freedesktop.UPower.PowerProfiles`, with what power-profiles-daemon
    /// 0.30 added to it (not to the old name): the actions' details, turning
    /// them on and off, and battery awareness.
    UPowerProfiles,
    "org.freedesktop.UPower.PowerProfiles",
    {
        /// Turns an action on or off (polkit: Gearshift's `tune`).
        async fn set_action_enabled(
            &self,
            action: &str,
            enabled: bool,
            #[zbus(header)] header: Header<'_>,
        ) -> zbus::fdo::Result<()> {
            ask(&self.engine, &header, panel::SetAction { action, enabled }).await
        }

        /// Each action: `Name`, `Description`, `Enabled`.
        #[zbus(property)]
        fn actions_info(&self) -> Vec<HashMap<String, OwnedValue>> {
            actions_info(&self.engine)
        }

        /// Read-only (`PropertyReadOnly`).
        #[zbus(property, name = "ActionsInfo")]
        fn refuse_actions_info_write(&self, _value: Vec<HashMap<String, OwnedValue>>) -> zbus::fdo::Result<()> {
            Err(read_only("ActionsInfo"))
        }

        /// Balanced on battery takes the Efficient profile's values, and
        /// the panel's savings follow the battery.
        #[zbus(property(emits_changed_signal = "false"))]
        fn battery_aware(&self) -> bool {
            self.engine.battery_aware()
        }

        /// Turning it on or off (polkit: Gearshift's `switch-profile`).
        #[zbus(property)]
        async fn set_battery_aware(&self, on: bool, #[zbus(header)] header: Option<Header<'_>>) -> zbus::fdo::Result<()> {
            ask(&self.engine, identified(header.as_ref())?, panel::SetBatteryAware(on)).await
        }
    }
);
power_profiles!(
    /// `net.hadess.PowerProfiles`.
    HadessProfiles,
    "net.hadess.PowerProfiles",
    {}
);

/// Serves both interfaces on `connection` (the names are taken separately).
///
/// # Errors
/// The object server refused.
pub async fn serve(connection: &Connection, engine: &Arc<Engine>) -> zbus::Result<()> {
    let announcer = Arc::new(Announcer::default());
    let server = connection.object_server();
    server.at(UPOWER_PATH, UPowerProfiles { engine: engine.clone(), announcer: announcer.clone() }).await?;
    server.at(HADESS_PATH, HadessProfiles { engine: engine.clone(), announcer: announcer.clone() }).await?;
    let initial = current(engine);
    for name in [UPOWER_NAME, HADESS_NAME] {
        lock(&announcer.shown).insert(name, initial.clone());
    }
    let subscribed = engine.clone();
    engine.subscribe(Box::new(move |connection, notice| {
        let engine = subscribed.clone();
        let announcer = announcer.clone();
        Box::pin(async move { notify(&connection, &engine, &announcer, &notice).await })
    }));
    Ok(())
}

fn current(engine: &Engine) -> Shown {
    Shown {
        active: active(engine),
        holds: flat(&holds(engine)),
        profiles: flat(&profiles(engine)),
        degraded: engine.performance_degraded(),
        actions: engine.actions(),
        actions_info: engine.actions_info().into_iter().map(|a| (a.action.name.to_owned(), a.enabled)).collect(),
        battery_aware: engine.battery_aware(),
    }
}

/// Emits one PropertiesChanged per interface with the properties whose
/// value changed since it last announced them (none: no signal), and
/// `ProfileReleased` to the holder of each hold that ended (released, or
/// cancelled by a manual switch),
/// on the interface it held through.
async fn notify(connection: &Connection, engine: &Engine, announcer: &Announcer, notice: &Notice) {
    let now = current(engine);
    for (name, path) in [(UPOWER_NAME, UPOWER_PATH), (HADESS_NAME, HADESS_PATH)] {
        let before = lock(&announcer.shown).get(name).cloned().unwrap_or_default();
        let mut changed: HashMap<&str, Value<'_>> = HashMap::new();
        if now.active != before.active {
            changed.insert("ActiveProfile", Value::from(now.active.clone()));
        }
        if now.holds != before.holds {
            changed.insert("ActiveProfileHolds", Value::from(holds(engine)));
        }
        if now.profiles != before.profiles {
            changed.insert("Profiles", Value::from(profiles(engine)));
        }
        if now.actions != before.actions {
            changed.insert("Actions", Value::from(now.actions.clone()));
        }
        if now.degraded != before.degraded {
            changed.insert("PerformanceDegraded", Value::from(now.degraded.clone()));
        }
        if name == UPOWER_NAME && now.actions_info != before.actions_info {
            changed.insert("ActionsInfo", Value::from(actions_info(engine)));
        }
        if name == UPOWER_NAME && now.battery_aware != before.battery_aware {
            changed.insert("BatteryAware", Value::from(now.battery_aware));
        }
        lock(&announcer.shown).insert(name, now.clone());
        if !changed.is_empty() {
            if let (Ok(emitter), Ok(interface)) =
                (SignalEmitter::new(connection, path), zbus::names::InterfaceName::try_from(name))
            {
                let _ =
                    zbus::fdo::Properties::properties_changed(&emitter, interface, changed, Cow::Borrowed(&[])).await;
            }
        }
        for hold in notice.ended.iter().filter(|h| h.origin == name) {
            let (Ok(emitter), Ok(holder)) =
                (SignalEmitter::new(connection, path), zbus::names::BusName::try_from(hold.holder.as_str()))
            else {
                continue;
            };
            let emitter = emitter.set_destination(holder);
            let _ = if name == UPOWER_NAME {
                UPowerProfiles::profile_released(&emitter, hold.cookie).await
            } else {
                HadessProfiles::profile_released(&emitter, hold.cookie).await
            };
        }
    }
}

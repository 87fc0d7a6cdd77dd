//! The desktop power panel's API, as power-profiles-daemon serves it:
//! `org.freedesktop.UPower.PowerProfiles` at `/org/freedesktop/UPower/PowerProfiles`
//! and the older `net.hadess.PowerProfiles` at `/net/hadess/PowerProfiles`,
//! one state behind both. GNOME's and KDE's panels and `powerprofilesctl`
//! then switch Gearshift's model-specific profiles.
//!
//! `power-saver`, `balanced` and `performance` map to `power`,
//! `balance_performance` and `performance` (docs/interfaces.md, "Profiles").

use std::collections::HashMap;
use std::sync::Arc;

use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedValue, Value};
use zbus::{interface, Connection};

use super::control::panel_name;
use super::engine::Engine;
use super::service::read_only;
use crate::core::profile::BuiltinProfile;
use crate::dbus::ACTION_SWITCH;

/// The new name and path.
pub const UPOWER_NAME: &str = "org.freedesktop.UPower.PowerProfiles";
/// Its object path.
pub const UPOWER_PATH: &str = "/org/freedesktop/UPower/PowerProfiles";
/// The old name (power-profiles-daemon before 0.20, `powerprofilesctl` 0.12).
pub const HADESS_NAME: &str = "net.hadess.PowerProfiles";
/// Its object path.
pub const HADESS_PATH: &str = "/net/hadess/PowerProfiles";

fn string(value: &str) -> Option<OwnedValue> {
    OwnedValue::try_from(Value::from(value.to_owned())).ok()
}

fn profiles(engine: &Engine) -> Vec<HashMap<String, OwnedValue>> {
    let driver = engine.machine().driver.clone().unwrap_or_else(|| "gearshift".into());
    ["power-saver", "balanced", "performance"]
        .into_iter()
        .filter_map(|name| {
            let mut entry = HashMap::new();
            entry.insert("Profile".to_owned(), string(name)?);
            entry.insert("Driver".to_owned(), string(&driver)?);
            entry.insert("CpuDriver".to_owned(), string(&driver)?);
            Some(entry)
        })
        .collect()
}

fn holds(engine: &Engine) -> Vec<HashMap<String, OwnedValue>> {
    engine
        .holds()
        .iter()
        .filter_map(|hold| {
            let mut entry = HashMap::new();
            entry.insert("ApplicationId".to_owned(), string(&hold.application_id)?);
            entry.insert("Profile".to_owned(), string(panel_name(Some(hold.profile.id())))?);
            entry.insert("Reason".to_owned(), string(&hold.reason)?);
            Some(entry)
        })
        .collect()
}

async fn set_active(engine: &Engine, profile: &str, header: Option<&Header<'_>>) -> zbus::fdo::Result<()> {
    let Some(builtin) = BuiltinProfile::from_ppd_name(profile) else {
        return Err(zbus::fdo::Error::InvalidArgs(format!("{profile:?} is not power-saver, balanced or performance")));
    };
    let Some(header) = header else {
        return Err(zbus::fdo::Error::AccessDenied("the caller could not be identified".into()));
    };
    engine.authority.check(header, ACTION_SWITCH).await.map_err(zbus::fdo::Error::from)?;
    engine.manual_switch(builtin.id()).await.map(|_| ()).map_err(zbus::fdo::Error::from)
}

async fn hold(
    engine: &Engine,
    profile: &str,
    reason: &str,
    application_id: &str,
    header: &Header<'_>,
) -> zbus::fdo::Result<u32> {
    let builtin = match profile {
        "performance" => BuiltinProfile::Performance,
        "power-saver" => BuiltinProfile::Power,
        other => {
            return Err(zbus::fdo::Error::InvalidArgs(format!(
                "only power-saver and performance can be held, not {other:?}"
            )))
        }
    };
    engine.authority.check(header, ACTION_SWITCH).await.map_err(zbus::fdo::Error::from)?;
    let holder = header.sender().map(|s| s.to_string()).unwrap_or_default();
    engine.hold(builtin, reason, application_id, &holder).await.map_err(zbus::fdo::Error::from)
}

/// Ends a hold: allowed for the hold's own holder, or for a caller polkit
/// authorizes to switch profiles (docs/dbus-api.md).
async fn release(engine: &Engine, cookie: u32, header: &Header<'_>) -> zbus::fdo::Result<()> {
    let Some(holder) = engine.holder_of(cookie) else {
        return Err(zbus::fdo::Error::InvalidArgs(format!("no hold has the cookie {cookie}")));
    };
    let caller = header.sender().map(|s| s.as_str());
    if caller != Some(holder.as_str()) {
        engine.authority.check(header, ACTION_SWITCH).await.map_err(zbus::fdo::Error::from)?;
    }
    engine.release(cookie).await.map_err(zbus::fdo::Error::from)
}

/// Defines one of the two identical interfaces (zbus needs a type per
/// interface name).
macro_rules! power_profiles {
    ($(#[$doc:meta])* $type:ident, $name:literal) => {
        $(#[$doc])*
        pub struct $type {
            /// The engine.
            pub engine: Arc<Engine>,
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
                hold(&self.engine, profile, reason, application_id, &header).await
            }

            /// Ends a hold (its holder, or a caller allowed to switch profiles).
            async fn release_profile(&self, cookie: u32, #[zbus(header)] header: Header<'_>) -> zbus::fdo::Result<()> {
                release(&self.engine, cookie, &header).await
            }

            /// A hold ended (released, holder gone, or a manual switch).
            #[zbus(signal)]
            async fn profile_released(emitter: &SignalEmitter<'_>, cookie: u32) -> zbus::Result<()>;

            /// `power-saver`, `balanced` or `performance`.
            #[zbus(property)]
            fn active_profile(&self) -> String {
                let active = self.engine.active_profile();
                panel_name(Some(active.as_str()).filter(|a| !a.is_empty())).to_owned()
            }

            /// Setting it is a manual switch: every hold ends.
            #[zbus(property)]
            async fn set_active_profile(&self, profile: String, #[zbus(header)] header: Option<Header<'_>>) -> zbus::fdo::Result<()> {
                set_active(&self.engine, &profile, header.as_ref()).await
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
                String::new()
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

            /// Extra actions (none).
            #[zbus(property)]
            fn actions(&self) -> Vec<String> {
                Vec::new()
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
        }
    };
}

power_profiles!(
    /// `org.freedesktop.UPower.PowerProfiles`.
    UPowerProfiles,
    "org.freedesktop.UPower.PowerProfiles"
);
power_profiles!(
    /// `net.hadess.PowerProfiles`.
    HadessProfiles,
    "net.hadess.PowerProfiles"
);

/// Serves both interfaces on `connection` (the names are taken separately).
///
/// # Errors
/// The object server refused.
pub async fn serve(connection: &Connection, engine: &Arc<Engine>) -> zbus::Result<()> {
    connection.object_server().at(UPOWER_PATH, UPowerProfiles { engine: engine.clone() }).await?;
    connection.object_server().at(HADESS_PATH, HadessProfiles { engine: engine.clone() }).await?;
    engine
        .subscribe(Box::new(|connection, notice| Box::pin(async move { notify(&connection, &notice.released).await })));
    Ok(())
}

/// Emits PropertiesChanged for ActiveProfile and ActiveProfileHolds on both
/// names, and ProfileReleased for each ended hold.
async fn notify(connection: &Connection, released: &[u32]) {
    let server = connection.object_server();
    if let Ok(iface) = server.interface::<_, UPowerProfiles>(UPOWER_PATH).await {
        let this = iface.get().await;
        let emitter = iface.signal_emitter();
        let _ = this.active_profile_changed(emitter).await;
        let _ = this.active_profile_holds_changed(emitter).await;
        for cookie in released {
            let _ = UPowerProfiles::profile_released(emitter, *cookie).await;
        }
    }
    if let Ok(iface) = server.interface::<_, HadessProfiles>(HADESS_PATH).await {
        let this = iface.get().await;
        let emitter = iface.signal_emitter();
        let _ = this.active_profile_changed(emitter).await;
        let _ = this.active_profile_holds_changed(emitter).await;
        for cookie in released {
            let _ = HadessProfiles::profile_released(emitter, *cookie).await;
        }
    }
}

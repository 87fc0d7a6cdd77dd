//! The user side's way to the helper: a zbus proxy and the translation of
//! every failure into a sentence that says what to do.

use std::fmt;

use zbus::proxy;

use crate::dbus::HELPER_INSTALLED_PATH;
use crate::helper::energy::EnergyReading;
use crate::helper::service::{ApplySummary, HelperState};
use crate::i18n::{gettext, i18n_f};

/// The helper's interface, as clients see it.
#[proxy(
    interface = "io.github.gearshift.Helper1",
    default_service = "io.github.gearshift.Helper1",
    default_path = "/io/github/gearshift/Helper1"
)]
pub trait Helper1 {
    /// Switches profile.
    fn set_profile(&self, id: &str) -> zbus::Result<ApplySummary>;
    /// Sets a raw EPP.
    fn set_epp(&self, cpus: &[u32], value: u32) -> zbus::Result<ApplySummary>;
    /// Sets a governor.
    fn set_governor(&self, cpus: &[u32], governor: &str) -> zbus::Result<ApplySummary>;
    /// The last applied values.
    fn get_state(&self) -> zbus::Result<HelperState>;
    /// The custom profiles as TOML.
    fn list_custom_profiles(&self) -> zbus::Result<String>;
    /// Saves a custom profile.
    fn save_custom_profile(&self, toml: &str) -> zbus::Result<()>;
    /// Deletes a custom profile.
    fn delete_custom_profile(&self, id: &str) -> zbus::Result<()>;
    /// Energy counters.
    fn read_energy(&self) -> zbus::Result<(u64, Vec<EnergyReading>)>;
    /// Turns the AC/battery policy on.
    fn set_auto_policy(&self, on_ac: &str, on_battery: &str) -> zbus::Result<()>;
    /// Turns the AC/battery policy off.
    fn disable_auto_policy(&self) -> zbus::Result<()>;
    /// (enabled, on AC, on battery).
    #[zbus(property)]
    fn auto_policy(&self) -> zbus::Result<(bool, String, String)>;
    /// Other power managers the helper found.
    #[zbus(property)]
    fn conflicts(&self) -> zbus::Result<Vec<String>>;
    /// The active profile.
    #[zbus(property)]
    fn active_profile(&self) -> zbus::Result<String>;
    /// The helper's version.
    #[zbus(property)]
    fn version(&self) -> zbus::Result<String>;
    /// After every apply.
    #[zbus(signal)]
    fn applied(&self, summary: ApplySummary) -> zbus::Result<()>;
}

/// A warning for a switch that was applied but could not be saved (the
/// helper keeps retrying), or `None` when it was saved.
pub fn unsaved_warning(summary: &ApplySummary) -> Option<String> {
    (!summary.unsaved.is_empty()).then(|| {
        i18n_f(
            "Applied, but the helper could not save this choice ({}). It keeps trying; until it succeeds, a restart brings back the previous profile.",
            &[&summary.unsaved],
        )
    })
}

/// What went wrong talking to the helper, ready to be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientError {
    /// No system bus to talk on.
    NoBus(String),
    /// The helper is not installed (or the bus does not know it yet).
    NotInstalled,
    /// polkit refused.
    NotAuthorized(String),
    /// The request was wrong.
    InvalidArgument(String),
    /// The machine cannot do it.
    Unsupported(String),
    /// A write failed and was undone.
    WriteFailed(String),
    /// Asked too often.
    RateLimited(String),
    /// Anything else.
    Other(String),
}

impl ClientError {
    /// Classifies a zbus error.
    pub fn from_zbus(err: &zbus::Error) -> ClientError {
        match err {
            zbus::Error::MethodError(name, message, _) => {
                let text = message.clone().unwrap_or_default();
                match name.as_str() {
                    "io.github.gearshift.Error.NotAuthorized" => ClientError::NotAuthorized(text),
                    "io.github.gearshift.Error.InvalidArgument" => ClientError::InvalidArgument(text),
                    "io.github.gearshift.Error.Unsupported" => ClientError::Unsupported(text),
                    "io.github.gearshift.Error.WriteFailed" => ClientError::WriteFailed(text),
                    "io.github.gearshift.Error.RateLimited" => ClientError::RateLimited(text),
                    "org.freedesktop.DBus.Error.ServiceUnknown" | "org.freedesktop.DBus.Error.NameHasNoOwner" => {
                        ClientError::NotInstalled
                    }
                    "org.freedesktop.DBus.Error.AccessDenied" => ClientError::NotAuthorized(text),
                    _ => ClientError::Other(format!("{name}: {text}")),
                }
            }
            zbus::Error::FDO(fdo) => match fdo.as_ref() {
                zbus::fdo::Error::ServiceUnknown(_) | zbus::fdo::Error::NameHasNoOwner(_) => ClientError::NotInstalled,
                zbus::fdo::Error::AccessDenied(text) => ClientError::NotAuthorized(text.clone()),
                other => ClientError::Other(other.to_string()),
            },
            zbus::Error::InputOutput(io) => ClientError::NoBus(io.to_string()),
            zbus::Error::Connection(io, address) => ClientError::NoBus(format!("{address}: {io}")),
            zbus::Error::Handshake(text) => ClientError::NoBus(text.clone()),
            zbus::Error::Address(text) => ClientError::NoBus(text.clone()),
            other => ClientError::Other(other.to_string()),
        }
    }

    /// The one sentence to show first.
    pub fn headline(&self) -> String {
        match self {
            ClientError::NoBus(_) => {
                gettext("The system bus cannot be reached, so the Gearshift helper cannot be asked.")
            }
            ClientError::NotInstalled => {
                gettext("The Gearshift helper (gearshift-helper) is not installed, so nothing can be changed.")
            }
            ClientError::NotAuthorized(_) => gettext("You are not allowed to make this change."),
            ClientError::InvalidArgument(_) => gettext("The helper refused the request."),
            ClientError::Unsupported(_) => gettext("This machine cannot do that."),
            ClientError::WriteFailed(_) => gettext("The change could not be written; nothing was left half-done."),
            ClientError::RateLimited(_) => gettext("Asked too often; try again in a moment."),
            ClientError::Other(_) => gettext("The Gearshift helper answered with an error."),
        }
    }

    /// The details and what to do.
    pub fn advice(&self) -> String {
        match self {
            ClientError::NoBus(detail) => format!(
                "{}\n{}",
                sentence(detail),
                gettext("Is dbus running? Inside a container there may be no system bus.")
            ),
            ClientError::NotInstalled => {
                if std::path::Path::new(HELPER_INSTALLED_PATH).exists() {
                    i18n_f(
                        "{} is installed, but the bus does not know it yet. Reload D-Bus with: sudo systemctl reload dbus",
                        &[&HELPER_INSTALLED_PATH],
                    )
                } else {
                    gettext("Install it with ./build-aux/run from Gearshift's source tree (it asks for sudo), or install the gearshift package of your distribution.")
                }
            }
            ClientError::NotAuthorized(detail) => format!(
                "{}\n{}",
                sentence(detail),
                gettext("Run it from your desktop session, where a polkit agent can ask for the password, or ask an administrator to allow it.")
            ),
            ClientError::InvalidArgument(detail)
            | ClientError::Unsupported(detail)
            | ClientError::RateLimited(detail)
            | ClientError::Other(detail) => explain(detail),
            ClientError::WriteFailed(detail) => explain(detail),
        }
    }

    /// The exit status for the command line: every helper failure is a
    /// refused or failed operation.
    pub fn exit_code(&self) -> u8 {
        1
    }
}

/// A message as a sentence: capitalized, ending in a full stop.
fn sentence(text: &str) -> String {
    let mut out = capitalize(text.trim());
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

/// Adds the background people need to the helper's own sentence.
fn explain(detail: &str) -> String {
    let mut text = sentence(detail);
    if detail.contains("EBUSY") {
        text.push('\n');
        text.push_str(&gettext("EBUSY usually means the performance governor holds EPP at 0: switch to a profile (they use the powersave governor) or set the powersave governor first."));
    }
    if detail.contains("offline") {
        text.push('\n');
        text.push_str(&gettext("Offline CPUs cannot be tuned; Gearshift applies the profile when they come online."));
    }
    text
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\n{}", self.headline(), self.advice())
    }
}

/// Connects to the system bus and the helper's proxy.
///
/// # Errors
/// No system bus.
pub async fn connect() -> Result<Helper1Proxy<'static>, ClientError> {
    let connection = zbus::Connection::system().await.map_err(|e| ClientError::from_zbus(&e))?;
    Helper1Proxy::new(&connection).await.map_err(|e| ClientError::from_zbus(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method_error(name: &str, text: &str) -> zbus::Error {
        // The variant zbus produces for an error reply.
        let msg = zbus::message::Message::method_call("/", "Ping").unwrap().build(&()).unwrap();
        zbus::Error::MethodError(zbus::names::OwnedErrorName::try_from(name).unwrap(), Some(text.to_owned()), msg)
    }

    #[test]
    fn each_helper_error_becomes_a_sentence() {
        let cases = [
            ("io.github.gearshift.Error.NotAuthorized", "not allowed"),
            ("io.github.gearshift.Error.InvalidArgument", "refused"),
            ("io.github.gearshift.Error.Unsupported", "cannot do"),
            ("io.github.gearshift.Error.WriteFailed", "nothing was left half-done"),
            ("org.freedesktop.DBus.Error.ServiceUnknown", "not installed"),
        ];
        for (name, words) in cases {
            let err = ClientError::from_zbus(&method_error(name, "detail"));
            assert!(err.headline().contains(words), "{name}: {}", err.headline());
        }
        let busy = ClientError::from_zbus(&method_error(
            "io.github.gearshift.Error.WriteFailed",
            "writing energy_performance_preference for CPU 3 failed: Device or resource busy (EBUSY)",
        ));
        assert!(busy.advice().contains("performance governor holds EPP at 0"));
        let offline =
            ClientError::from_zbus(&method_error("io.github.gearshift.Error.InvalidArgument", "CPU 4 is offline"));
        assert!(offline.advice().starts_with("CPU 4 is offline."));
        assert!(offline.advice().contains("come online"));
        assert!(
            ClientError::NotInstalled.advice().contains("build-aux/run")
                || ClientError::NotInstalled.advice().contains("systemctl reload dbus")
        );
    }
}

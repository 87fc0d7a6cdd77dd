//! The user side's way to the helper: one [`Helper`] handle per process
//! (one bus connection, made on first use and made again after the bus
//! went away), and the translation of every failure into a sentence that
//! says what to do.

pub mod agent;
pub mod events;
pub mod facts;
pub mod install;
pub mod lab;
pub mod options;
pub mod session;

use std::fmt;
use std::future::Future;
use std::sync::Arc;

pub use crate::dbus::error::Cause;
pub use crate::dbus::{ApplySummary, AutoPolicy, EnergyReading, Helper1Proxy, HelperError, HelperState};
use crate::i18n::{gettext, i18n_f, i18n_plural, i18n_text};

/// Why switching and tuning are off where the administrator locked them,
/// naming the file (docs/fleet.md): the window's banner, the tray's menu.
pub fn locked_words(file: &str) -> String {
    // Translators: {file} is a path such as /etc/gearshift/conf.d/50-fleet.toml.
    crate::i18n::i18n_text("Switching and tuning are set by your administrator in {file} (locked = true).")
        .arg("file", file)
        .localized()
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

/// What an apply did, in plain words: "Switched to Efficient on 22 CPUs.
/// All 22 already had these values, so nothing was written." `what` is the
/// sentence's start ("Switched to Efficient").
pub fn applied_words(what: &str, summary: &ApplySummary) -> String {
    let cpus = summary.cpus.len() as u64;
    // Translators: {what} is a phrase such as "Switched to Balanced".
    let first = i18n_plural("{what} on {cpus} CPU.", "{what} on {cpus} CPUs.", cpus)
        .arg("what", what)
        .arg("cpus", cpus)
        .localized();
    let second = match (summary.changed, summary.unchanged) {
        (0, _) => i18n_plural(
            "It already had these values, so nothing was written.",
            "All {cpus} already had these values, so nothing was written.",
            cpus,
        )
        .arg("cpus", cpus),
        // Files, not CPUs: a CPU has several (governor, EPP, limits), and a
        // policy's file serves all of its CPUs.
        (changed, 0) => i18n_plural(
            "Its one kernel file was written.",
            "All {changed} of its kernel files were written.",
            changed.into(),
        )
        .arg("changed", changed),
        (changed, unchanged) => i18n_plural(
            "{changed} of its {total} kernel files was written; the others already held their values.",
            "{changed} of its {total} kernel files were written; the others already held their values.",
            changed.into(),
        )
        .arg("changed", changed)
        .arg("total", u64::from(changed) + u64::from(unchanged)),
    };
    let mut words = format!("{first} {}", second.localized());
    if let Some(left) = summary.left_as_they_were() {
        words.push(' ');
        // Translators: {what} lists files in the kernel's words, such as "boost for CPU 3 (EINVAL)".
        words.push_str(
            &i18n_text("The kernel refused these, which were left as they were: {what}.").arg("what", left).localized(),
        );
    }
    words
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
    /// The administrator's configuration locks switching and tuning: no
    /// password lifts it.
    Locked(String),
    /// The request was wrong (and why, where the helper named a cause).
    InvalidArgument(String, Option<Cause>),
    /// The machine cannot do it.
    Unsupported(String, Option<Cause>),
    /// A write failed and was undone.
    WriteFailed(String, Option<Cause>),
    /// Asked too often.
    RateLimited(String),
    /// Anything else.
    Other(String),
}

impl From<HelperError> for ClientError {
    fn from(err: HelperError) -> Self {
        let cause = err.cause();
        let plain = match err {
            HelperError::Caused(_, inner) => *inner,
            other => other,
        };
        match plain {
            // The helper's sentence in the reader's language (it sends it
            // whole beside the English).
            HelperError::NotAuthorized(text) if cause == Some(Cause::Locked) => ClientError::Locked(text.localized()),
            HelperError::NotAuthorized(text) => ClientError::NotAuthorized(text.localized()),
            HelperError::InvalidArgument(text) => ClientError::InvalidArgument(text.localized(), cause),
            HelperError::Unsupported(text) => ClientError::Unsupported(text.localized(), cause),
            HelperError::WriteFailed(text) => ClientError::WriteFailed(text.localized(), cause),
            // Too many requests waiting: the same advice, try again.
            HelperError::RateLimited(text) | HelperError::Busy(text) => ClientError::RateLimited(text.localized()),
            HelperError::ZBus(err) => ClientError::from(err),
            // A cause of a cause: the helper sends one at most.
            nested @ HelperError::Caused(..) => ClientError::from(nested),
        }
    }
}

impl From<zbus::Error> for ClientError {
    /// The bus's own failures: no bus, no helper, the bus policy said no.
    fn from(err: zbus::Error) -> Self {
        match err {
            zbus::Error::InputOutput(io) => ClientError::NoBus(io_words(&io)),
            zbus::Error::Connection(io, address) => ClientError::NoBus(no_bus_at(&address.to_string(), &io)),
            zbus::Error::Handshake(text) | zbus::Error::Address(text) => ClientError::NoBus(text),
            // An error reply from the bus itself, typed by zbus's fdo table.
            err @ (zbus::Error::MethodError(..) | zbus::Error::FDO(_)) => match zbus::fdo::Error::from(err) {
                zbus::fdo::Error::ServiceUnknown(_) | zbus::fdo::Error::NameHasNoOwner(_) => ClientError::NotInstalled,
                zbus::fdo::Error::AccessDenied(text) => ClientError::NotAuthorized(text),
                other => ClientError::Other(other.to_string()),
            },
            other => ClientError::Other(other.to_string()),
        }
    }
}

impl ClientError {
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
            ClientError::Locked(_) => gettext("Your administrator has locked switching and tuning on this computer."),
            ClientError::InvalidArgument(..) => gettext("The helper refused the request."),
            ClientError::Unsupported(..) => gettext("This machine cannot do that."),
            ClientError::WriteFailed(..) => gettext("The change could not be written; nothing was left half-done."),
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
                match install::helper_program() {
                    Some(path) => i18n_f(
                        "{} is installed, but the bus does not know it yet. Reload D-Bus with: sudo systemctl reload dbus",
                        &[&path.display()],
                    ),
                    None => install::origin().advice(),
                }
            }
            ClientError::NotAuthorized(detail) => format!(
                "{}\n{}",
                sentence(detail),
                gettext("Run it from your desktop session, where a polkit agent can ask for the password, or ask an administrator to allow it.")
            ),
            ClientError::Locked(detail) => format!(
                "{}\n{}",
                sentence(detail),
                gettext("No password lifts this lock: only an administrator can, by setting locked = false in that file (or removing the line) and running: sudo systemctl reload gearshift-helper")
            ),
            ClientError::InvalidArgument(detail, cause)
            | ClientError::Unsupported(detail, cause)
            | ClientError::WriteFailed(detail, cause) => explain(detail, *cause),
            ClientError::RateLimited(detail) | ClientError::Other(detail) => explain(detail, None),
        }
    }

    /// The exit status for the command line: every helper failure is a
    /// refused or failed operation.
    pub fn exit_code(&self) -> u8 {
        1
    }
}

/// A message as a sentence: capitalized, ending in a full stop.
/// An I/O error without the "(os error N)" people cannot use.
fn io_words(io: &std::io::Error) -> String {
    let text = io.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}

/// Why a bus address could not be reached, naming the socket where the
/// address is one ("unix:path=/run/dbus/system_bus_socket").
fn no_bus_at(address: &str, io: &std::io::Error) -> String {
    let lower = address.to_ascii_lowercase();
    let socket = lower.strip_prefix("unix:path=").map(|_| &address["unix:path=".len()..]);
    match socket {
        Some(path) => i18n_f("no system bus at {}: {}", &[&path.split(',').next().unwrap_or(path), &io_words(io)]),
        None => i18n_f("no system bus at {}: {}", &[&address, &io_words(io)]),
    }
}

fn sentence(text: &str) -> String {
    let mut out = capitalize(text.trim());
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

/// Adds the background people need to the helper's own sentence, for the
/// cause the helper named (never by reading its words).
fn explain(detail: &str, cause: Option<Cause>) -> String {
    let mut text = sentence(detail);
    let background = match cause {
        Some(Cause::EppBusy) => gettext("EBUSY usually means the performance governor holds EPP at 0: switch to a profile (they use the powersave governor) or set the powersave governor first."),
        Some(Cause::CpuOffline) => gettext("Offline CPUs cannot be tuned; Gearshift applies the profile when they come online."),
        Some(Cause::DynamicEpp) => gettext("The built-in profiles still work: Gearshift sets each CPU's platform profile, and the kernel picks the balanced value by the power source."),
        // Said by ClientError::Locked's own advice.
        Some(Cause::Locked) | None => return text,
    };
    text.push('\n');
    text.push_str(&background);
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

/// The process's one way to the helper: cheap to clone, connected to the
/// system bus on first use, and connected again on the next call after the
/// bus connection broke. The helper itself restarting needs nothing: calls go
/// to its well-known name, whoever owns it now.
///
/// The connection's tasks run on the tokio runtime of its first use, so a
/// process uses one runtime for all its calls (the window: relm4's; the
/// tray and the command line: their own).
#[derive(Clone, Default)]
pub struct Helper {
    connection: Arc<tokio::sync::Mutex<Option<zbus::Connection>>>,
}

impl Helper {
    /// A handle that has not connected yet.
    pub fn new() -> Helper {
        Helper::default()
    }

    /// The system bus connection, made now if there is none.
    ///
    /// # Errors
    /// No system bus.
    pub async fn connection(&self) -> Result<zbus::Connection, ClientError> {
        let mut slot = self.connection.lock().await;
        if let Some(connection) = slot.as_ref() {
            return Ok(connection.clone());
        }
        let connection = zbus::Connection::system().await?;
        *slot = Some(connection.clone());
        Ok(connection)
    }

    /// The helper's proxy on the shared connection.
    ///
    /// # Errors
    /// No system bus.
    pub async fn proxy(&self) -> Result<Helper1Proxy<'static>, ClientError> {
        let connection = self.connection().await?;
        Ok(Helper1Proxy::new(&connection).await?)
    }

    /// Makes one call with the proxy; every failure arrives as a
    /// [`ClientError`]. A broken connection is dropped, so that the next call
    /// connects afresh.
    ///
    /// # Errors
    /// Whatever the bus or the helper answered.
    pub async fn call<T, F, Fut>(&self, f: F) -> Result<T, ClientError>
    where
        F: FnOnce(Helper1Proxy<'static>) -> Fut,
        Fut: Future<Output = Result<T, HelperError>>,
    {
        let result = match self.proxy().await {
            Ok(proxy) => f(proxy).await.map_err(ClientError::from),
            Err(err) => Err(err),
        };
        if matches!(result, Err(ClientError::NoBus(_))) {
            *self.connection.lock().await = None;
        }
        result
    }

    /// Whether the helper runs now (owns its name); asking starts nothing.
    pub async fn running(&self) -> bool {
        let Ok(connection) = self.connection().await else {
            return false;
        };
        match zbus::fdo::DBusProxy::new(&connection).await {
            Ok(dbus) => match zbus::names::BusName::try_from(crate::dbus::HELPER_NAME) {
                Ok(name) => dbus.name_has_owner(name).await.unwrap_or(false),
                Err(_) => false,
            },
            Err(_) => false,
        }
    }

    /// Whether the helper changes the machine under `root`: always for this
    /// computer; for a snapshot only when a running helper was started on
    /// that same directory (its `Root` property; the tests' setup). A
    /// helper that is not running is not started to ask.
    pub async fn serves(&self, root: &crate::core::root::SysRoot) -> bool {
        if root.is_live() {
            return true;
        }
        if !self.running().await {
            return false;
        }
        match self.proxy().await {
            Ok(proxy) => proxy.root().await.is_ok_and(|served| std::path::Path::new(&served) == root.base()),
            Err(_) => false,
        }
    }

    /// Turns AC/battery switching on (with the pair `known` names, or the
    /// defaults) or off.
    ///
    /// # Errors
    /// Whatever the bus or the helper answered.
    pub async fn set_auto(&self, on: bool, known: Option<&AutoPolicy>) -> Result<ApplySummary, ClientError> {
        let (ac, battery) = AutoPolicy::pair_or_default(known);
        self.call(|p| async move {
            if on {
                p.set_auto_policy(&ac, &battery).await
            } else {
                p.disable_auto_policy().await
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests;

//! The helper's D-Bus errors (`io.github.gearshift.Error.*`). The helper
//! returns them and the clients' proxy gives them back typed: the error
//! name picks the variant, and a reply's second argument, where there is
//! one, names the [`Cause`] a client gives its own advice for. Nothing on
//! the client side reads the English message to decide what it means
//! (docs/dbus-api.md, "Errors").

use zbus::message::{Header, Message};
use zbus::names::ErrorName;

/// An error from the helper, each with a message a person can act on.
#[derive(Debug)]
pub enum HelperError {
    /// A D-Bus level failure, or an error reply from someone else (the bus).
    ZBus(zbus::Error),
    /// polkit said no, or could not be asked.
    NotAuthorized(String),
    /// The request is malformed or names something that does not exist.
    InvalidArgument(String),
    /// This machine cannot do what was asked.
    Unsupported(String),
    /// A write failed; everything this request changed was restored.
    WriteFailed(String),
    /// Asked too often (energy readings).
    RateLimited(String),
    /// Too many requests of the caller's user are waiting already.
    Busy(String),
    /// One of the errors above, for a reason a client explains in its own
    /// words: the same error name, the cause as the reply's second argument.
    Caused(Cause, Box<HelperError>),
}

/// Why a request failed, where the client has advice of its own to add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The performance governor holds EPP at 0: the kernel answers EBUSY to
    /// other values, or the request was refused before it could.
    EppBusy,
    /// A CPU of the request is offline.
    CpuOffline,
    /// amd-pstate's dynamic EPP is on: the kernel sets EPP itself and
    /// answers EBUSY to every write.
    DynamicEpp,
    /// The administrator's configuration locks switching and tuning
    /// (`locked = true`): no password lifts it.
    Locked,
}

impl Cause {
    /// The word on the wire.
    pub fn wire(self) -> &'static str {
        match self {
            Cause::EppBusy => "epp-busy",
            Cause::CpuOffline => "cpu-offline",
            Cause::DynamicEpp => "dynamic-epp",
            Cause::Locked => "locked",
        }
    }

    /// The cause a word names (`None`: a word this client does not know,
    /// from a newer helper).
    pub fn from_wire(word: &str) -> Option<Cause> {
        [Cause::EppBusy, Cause::CpuOffline, Cause::DynamicEpp, Cause::Locked].into_iter().find(|c| c.wire() == word)
    }
}

impl HelperError {
    /// The error with `cause` attached.
    pub fn because(self, cause: Cause) -> HelperError {
        HelperError::Caused(cause, Box::new(self))
    }

    /// The cause, where the helper named one.
    pub fn cause(&self) -> Option<Cause> {
        match self {
            HelperError::Caused(cause, _) => Some(*cause),
            _ => None,
        }
    }

    /// The error without its cause.
    pub fn plain(&self) -> &HelperError {
        match self {
            HelperError::Caused(_, inner) => inner.plain(),
            other => other,
        }
    }

    /// The error name; `None` for a bus failure, which has a name of its
    /// own.
    fn kind(&self) -> Option<&'static str> {
        Some(match self.plain() {
            HelperError::NotAuthorized(_) => concat!("io.github.gearshift.Error.", "NotAuthorized"),
            HelperError::InvalidArgument(_) => concat!("io.github.gearshift.Error.", "InvalidArgument"),
            HelperError::Unsupported(_) => concat!("io.github.gearshift.Error.", "Unsupported"),
            HelperError::WriteFailed(_) => concat!("io.github.gearshift.Error.", "WriteFailed"),
            HelperError::RateLimited(_) => concat!("io.github.gearshift.Error.", "RateLimited"),
            HelperError::Busy(_) => concat!("io.github.gearshift.Error.", "Busy"),
            HelperError::ZBus(_) | HelperError::Caused(..) => return None,
        })
    }

    /// The error a reply named `kind` with `text` stands for.
    fn of_kind(kind: &str, text: String) -> Option<HelperError> {
        Some(match kind {
            "io.github.gearshift.Error.NotAuthorized" => HelperError::NotAuthorized(text),
            "io.github.gearshift.Error.InvalidArgument" => HelperError::InvalidArgument(text),
            "io.github.gearshift.Error.Unsupported" => HelperError::Unsupported(text),
            "io.github.gearshift.Error.WriteFailed" => HelperError::WriteFailed(text),
            "io.github.gearshift.Error.RateLimited" => HelperError::RateLimited(text),
            "io.github.gearshift.Error.Busy" => HelperError::Busy(text),
            _ => return None,
        })
    }
}

impl zbus::DBusError for HelperError {
    fn name(&self) -> ErrorName<'_> {
        match (self.plain(), self.kind()) {
            (HelperError::ZBus(_), _) | (_, None) => ErrorName::from_static_str_unchecked("org.freedesktop.zbus.Error"),
            (_, Some(kind)) => ErrorName::from_static_str_unchecked(kind),
        }
    }

    fn description(&self) -> Option<&str> {
        match self.plain() {
            HelperError::ZBus(err) => err.description(),
            HelperError::NotAuthorized(text)
            | HelperError::InvalidArgument(text)
            | HelperError::Unsupported(text)
            | HelperError::WriteFailed(text)
            | HelperError::RateLimited(text)
            | HelperError::Busy(text) => Some(text),
            HelperError::Caused(..) => None,
        }
    }

    fn create_reply(&self, call: &Header<'_>) -> zbus::Result<Message> {
        let name = self.name();
        let text = match self.plain() {
            // As zbus's derive answers: a relayed error's own words, else
            // the failure in full.
            HelperError::ZBus(zbus::Error::MethodError(_, Some(desc), _)) => desc.clone(),
            HelperError::ZBus(err) => err.to_string(),
            _ => self.description().unwrap_or_default().to_owned(),
        };
        let builder = Message::error(call, name)?;
        match self.cause() {
            Some(cause) => builder.build(&(text, cause.wire())),
            None => builder.build(&(text,)),
        }
    }
}

impl From<zbus::Error> for HelperError {
    /// A reply named `io.github.gearshift.Error.*` becomes its variant
    /// (with its cause, from the second argument); anything else stays a
    /// bus failure.
    fn from(err: zbus::Error) -> HelperError {
        let zbus::Error::MethodError(name, desc, reply) = &err else {
            return HelperError::ZBus(err);
        };
        let Some(plain) = HelperError::of_kind(name.as_str(), desc.clone().unwrap_or_default()) else {
            return HelperError::ZBus(err);
        };
        let cause = reply.body().deserialize::<(String, String)>().ok().and_then(|(_, word)| Cause::from_wire(&word));
        match cause {
            Some(cause) => plain.because(cause),
            None => plain,
        }
    }
}

impl std::fmt::Display for HelperError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = zbus::DBusError::name(self);
        write!(f, "{}: {}", name, zbus::DBusError::description(self).unwrap_or("no description"))
    }
}

impl std::error::Error for HelperError {}

/// The same failure in the words of power-profiles-daemon's API, which
/// answers with the bus's standard errors.
impl From<HelperError> for zbus::fdo::Error {
    fn from(err: HelperError) -> Self {
        match err {
            HelperError::NotAuthorized(msg) => zbus::fdo::Error::AccessDenied(msg),
            HelperError::InvalidArgument(msg) => zbus::fdo::Error::InvalidArgs(msg),
            HelperError::Unsupported(msg) => zbus::fdo::Error::NotSupported(msg),
            HelperError::WriteFailed(msg) | HelperError::RateLimited(msg) => zbus::fdo::Error::Failed(msg),
            HelperError::Busy(msg) => zbus::fdo::Error::LimitsExceeded(msg),
            HelperError::ZBus(err) => zbus::fdo::Error::Failed(err.to_string()),
            HelperError::Caused(_, inner) => zbus::fdo::Error::from(*inner),
        }
    }
}

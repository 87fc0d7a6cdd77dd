//! The helper's D-Bus errors (`io.github.gearshift.Error.*`). The helper
//! returns them and the clients' proxy gives them back typed: the error
//! name picks the variant, and a reply's second argument, where there is
//! one, names the [`Cause`] a client gives its own advice for. Nothing on
//! the client side reads the English message to decide what it means
//! (docs/dbus-api.md, "Errors"). The third argument, where there is one,
//! is the message whole ([`Text::to_wire`]), which a client shows in its
//! reader's language.

use zbus::message::{Header, Message};
use zbus::names::ErrorName;

use crate::i18n::Text;

/// A message of the helper: its English words (the error's first
/// argument, what `busctl` and the logs show) and the sentence they come
/// from, which a client translates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    english: String,
    text: Text,
}

impl Sentence {
    /// The English words.
    pub fn english(&self) -> &str {
        &self.english
    }

    /// The sentence, for a reader who translates it.
    pub fn text(&self) -> &Text {
        &self.text
    }

    /// In the reader's language (English where the catalogue lacks it).
    pub fn localized(&self) -> String {
        self.text.localized()
    }

    /// A message received: `english` as sent, and the sentence from the
    /// wire where one came and reads back (else the English as it is).
    fn received(english: String, wire: Option<&str>) -> Sentence {
        let text = wire.and_then(Text::from_wire).unwrap_or_else(|| Text::from(english.clone()));
        Sentence { english, text }
    }
}

impl From<Text> for Sentence {
    fn from(text: Text) -> Sentence {
        Sentence { english: text.english(), text }
    }
}

impl From<String> for Sentence {
    /// Words that are not translated (a kernel's or a library's message).
    fn from(english: String) -> Sentence {
        Sentence { text: Text::from(english.clone()), english }
    }
}

impl From<&str> for Sentence {
    fn from(english: &str) -> Sentence {
        Sentence::from(english.to_owned())
    }
}

impl std::ops::Deref for Sentence {
    type Target = str;

    fn deref(&self) -> &str {
        &self.english
    }
}

impl std::fmt::Display for Sentence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.english)
    }
}

/// An error from the helper, each with a message a person can act on.
#[derive(Debug)]
pub enum HelperError {
    /// A D-Bus level failure, or an error reply from someone else (the bus).
    ZBus(zbus::Error),
    /// polkit said no, or could not be asked.
    NotAuthorized(Sentence),
    /// The request is malformed or names something that does not exist.
    InvalidArgument(Sentence),
    /// This machine cannot do what was asked.
    Unsupported(Sentence),
    /// A write failed; everything this request changed was restored.
    WriteFailed(Sentence),
    /// Asked too often (energy readings).
    RateLimited(Sentence),
    /// Too many requests of the caller's user are waiting already.
    Busy(Sentence),
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

    /// The helper's message; `None` for a bus failure.
    pub fn sentence(&self) -> Option<&Sentence> {
        match self.plain() {
            HelperError::NotAuthorized(text)
            | HelperError::InvalidArgument(text)
            | HelperError::Unsupported(text)
            | HelperError::WriteFailed(text)
            | HelperError::RateLimited(text)
            | HelperError::Busy(text) => Some(text),
            HelperError::ZBus(_) | HelperError::Caused(..) => None,
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
    fn of_kind(kind: &str, text: Sentence) -> Option<HelperError> {
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
            | HelperError::Busy(text) => Some(text.english()),
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
        let whole = self.sentence().map(Sentence::text).filter(|t| !t.is_verbatim()).map(Text::to_wire);
        match (self.cause(), whole) {
            (cause, Some(whole)) => builder.build(&(text, cause.map_or("", Cause::wire), whole)),
            (Some(cause), None) => builder.build(&(text, cause.wire())),
            (None, None) => builder.build(&(text,)),
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
        let body = reply.body();
        let (cause, whole) = match body.deserialize::<(String, String, String)>() {
            Ok((_, word, whole)) => (word, Some(whole)),
            Err(_) => (body.deserialize::<(String, String)>().map(|(_, word)| word).unwrap_or_default(), None),
        };
        let sentence = Sentence::received(desc.clone().unwrap_or_default(), whole.as_deref());
        let Some(plain) = HelperError::of_kind(name.as_str(), sentence) else {
            return HelperError::ZBus(err);
        };
        let cause = Cause::from_wire(&cause);
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
            HelperError::NotAuthorized(msg) => zbus::fdo::Error::AccessDenied(msg.english),
            HelperError::InvalidArgument(msg) => zbus::fdo::Error::InvalidArgs(msg.english),
            HelperError::Unsupported(msg) => zbus::fdo::Error::NotSupported(msg.english),
            HelperError::WriteFailed(msg) | HelperError::RateLimited(msg) => zbus::fdo::Error::Failed(msg.english),
            HelperError::Busy(msg) => zbus::fdo::Error::LimitsExceeded(msg.english),
            HelperError::ZBus(err) => zbus::fdo::Error::Failed(err.to_string()),
            HelperError::Caused(_, inner) => zbus::fdo::Error::from(*inner),
        }
    }
}

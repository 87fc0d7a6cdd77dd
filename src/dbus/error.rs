//! The helper's D-Bus errors (`io.github.gearshift.Error.*`). The helper
//! returns them and the clients' proxy gives them back typed: zbus matches
//! the error name to the variant (an unknown name arrives as `ZBus`).

/// An error from the helper, each with a message a person can act on.
#[derive(Debug, zbus::DBusError)]
#[zbus(prefix = "io.github.gearshift.Error")]
pub enum HelperError {
    /// A D-Bus level failure, or an error reply from someone else (the bus).
    #[zbus(error)]
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
}

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
        }
    }
}

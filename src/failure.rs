//! A failure the command line reports (and the window and tray print when
//! they cannot start): the message, what to do, and the exit status.

use std::fmt;

/// A failure to report: the message, an optional hint, and the exit status.
#[derive(Debug)]
pub struct CliError {
    /// 1: refused or failed; 2: bad usage or unreadable input.
    pub code: u8,
    /// What failed.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl CliError {
    /// A refused or failed operation (exit 1).
    pub fn failed(message: impl Into<String>) -> Self {
        CliError { code: 1, message: message.into(), hint: None }
    }

    /// Bad usage or unreadable input (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        CliError { code: 2, message: message.into(), hint: None }
    }

    /// Another program's exit status, passed on (`gearshift launch`):
    /// nothing more to say.
    pub fn status(code: u8) -> Self {
        CliError { code, message: String::new(), hint: None }
    }

    /// Adds what to do.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n{hint}")?;
        }
        Ok(())
    }
}

//! What the helper handled, one line each, in the file that
//! `GEARSHIFT_HELPER_JOURNAL` names: a hook for tests (docs/testing.md),
//! unset everywhere else, when nothing is written. A line is written once
//! the helper has acted on the event, so a test that checks that nothing
//! changed after one waits for its line instead of sleeping.
//!
//! Only root sets the helper's environment (D-Bus activation and systemd
//! start it with their own), and the shipped unit's sandbox lets it write
//! nowhere but its own paths.

use std::io::Write;
use std::sync::{Mutex, OnceLock};

static FILE: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();

fn file() -> Option<&'static Mutex<std::fs::File>> {
    FILE.get_or_init(|| {
        let path = std::env::var_os("GEARSHIFT_HELPER_JOURNAL")?;
        std::fs::OpenOptions::new().create(true).append(true).open(path).ok().map(Mutex::new)
    })
    .as_ref()
}

/// Whether the journal is kept (so that a line worth some work to write
/// costs nothing otherwise).
pub fn enabled() -> bool {
    file().is_some()
}

/// Notes that the helper handled `event`.
pub fn handled(event: std::fmt::Arguments<'_>) {
    if let Some(file) = file() {
        let mut file = file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // One short append: a test hook, not worth a thread of its own.
        let _ = writeln!(file, "{event}");
    }
}

//! Diagnostics through the `log` facade: one line per message on stderr,
//! `PROGRAM: message`. Under systemd (stderr connected to the journal, which
//! systemd announces in `JOURNAL_STREAM`) each line starts with the syslog
//! priority in angle brackets (`<3>` error, `<4>` warning, `<6>` info, `<7>`
//! debug), which journald turns into the entry's level, so that
//! `journalctl -p warning -u gearshift-helper` shows what matters.
//!
//! Output meant for a person (the command line's results and errors) is
//! printed, not logged.

use std::io::Write as _;

use log::{Level, LevelFilter, Log, Metadata, Record};

struct Logger {
    program: &'static str,
    journal: bool,
}

impl Log for Logger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let priority = match record.level() {
            Level::Error => "<3>",
            Level::Warn => "<4>",
            Level::Info => "<6>",
            Level::Debug | Level::Trace => "<7>",
        };
        let prefix = if self.journal { priority } else { "" };
        // One write per line, so that lines of two threads never interleave.
        let line = format!("{prefix}{}: {}\n", self.program, record.args());
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    fn flush(&self) {}
}

/// Sends `log` records to stderr as `program: message`, from `level` up
/// (`GEARSHIFT_DEBUG` set: from debug up). Call once, at start.
pub fn init(program: &'static str, level: LevelFilter) {
    let journal = std::env::var_os("JOURNAL_STREAM").is_some();
    let level = if std::env::var_os("GEARSHIFT_DEBUG").is_some() { LevelFilter::Debug } else { level };
    if log::set_boxed_logger(Box::new(Logger { program, journal })).is_ok() {
        log::set_max_level(level);
    }
}

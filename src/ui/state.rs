//! What the window shows, as JSON in a file, for tests
//! (`GEARSHIFT_STATE_FILE`): written each time it changes, on a thread of
//! its own, so that a test waits on what is true (the helper connected,
//! the profile active, a row's state) rather than on words in a log. The
//! keys are for tests and may change with them; nothing else reads them.

use std::path::PathBuf;
use std::sync::mpsc;

use serde::Serialize;

use gearshift::client::session::Session;

use super::efficiency::LabState;
use super::model::ModeRow;

/// What the window shows now: the session as shown, what the window
/// derives from it and from the machine, and its own counts. Built only to
/// be written; the window reads none of it.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct WindowState {
    /// The helper's state as the window shows it (`active`: the helper's
    /// word, else what the files hold).
    #[serde(flatten)]
    pub session: Session,
    /// A choice by hand overrides automatic switching
    /// ([`Session::overridden`]).
    pub overridden: bool,
    /// The helper changes the machine shown (this computer, or a snapshot
    /// the helper serves).
    pub served: bool,
    /// The profile switcher and the automatic rows take input.
    pub switching: bool,
    /// Saving custom profiles and measuring are possible.
    pub writable: bool,
    /// The driver's mode now, and its row.
    pub driver_mode: Option<String>,
    pub mode_row: Option<ModeRow>,
    /// The firmware's platform profile now.
    pub platform_profile: Option<String>,
    /// The custom profiles' ids.
    pub customs: Vec<String>,
    /// The sampling interval.
    pub interval_ms: u64,
    /// What the window counted.
    #[serde(flatten)]
    pub seen: Seen,
}

/// What the window counts and notes for the tests only.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct Seen {
    /// The first frame was drawn.
    pub drawn: bool,
    /// A snapshot's window asked the helper whether it serves it, and
    /// heard back (`served` is the answer).
    pub served_checked: bool,
    /// Sampler ticks taken.
    pub samples: u64,
    /// The first-run wizard was due at start, and how often it opened.
    pub wizard_due: bool,
    pub wizards: u64,
    /// The Efficiency page.
    pub lab: LabState,
    /// How the last chart drawn laid out its bars ("upright", "across").
    pub chart: Option<&'static str>,
    /// The last toast's text, and how many were shown.
    pub toast: Option<String>,
    pub toasts: u64,
    /// How often the pages were told who may switch and what is active
    /// (once per change of the session).
    pub refreshes: u64,
    /// How often the firmware's files were read.
    pub firmware_reads: u64,
    /// The banner's sentence, if one shows.
    pub banner: Option<String>,
}

/// The file, and what was written to it last.
pub struct StateFile {
    to_writer: mpsc::Sender<String>,
    last: String,
}

impl StateFile {
    /// Writes to `path` from now on (a thread that keeps only the newest).
    pub fn open(path: PathBuf) -> StateFile {
        let (to_writer, from_window) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            while let Ok(mut text) = from_window.recv() {
                while let Ok(newer) = from_window.try_recv() {
                    text = newer;
                }
                // Whole or not at all: a reader never sees half a file.
                let part = path.with_extension("part");
                if let Err(err) = std::fs::write(&part, &text).and_then(|()| std::fs::rename(&part, &path)) {
                    log::warn!("cannot write the window's state to {}: {err}", path.display());
                }
            }
        });
        StateFile { to_writer, last: String::new() }
    }

    /// Keeps `shown`, where it changed.
    pub fn publish(&mut self, shown: &WindowState) {
        let Ok(text) = serde_json::to_string_pretty(shown) else { return };
        if text != self.last {
            self.last.clone_from(&text);
            let _ = self.to_writer.send(text);
        }
    }
}

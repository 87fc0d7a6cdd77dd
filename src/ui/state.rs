//! What the window shows, as JSON in a file, for tests
//! (`GEARSHIFT_STATE_FILE`): written each time it changes, on a thread of
//! its own, so that a test waits on what is true (the helper connected,
//! the profile active, a row's state) rather than on words in a log. The
//! keys are for tests and may change with them; nothing else reads them.

use std::path::PathBuf;
use std::sync::mpsc;

use serde::Serialize;

use gearshift::client::options::PowerOptions;
use gearshift::dbus::AutoPolicy;

use super::efficiency::LabState;
use super::model::ModeRow;

/// What the window shows now.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct WindowState {
    /// The first frame was drawn.
    pub drawn: bool,
    /// The helper changes the machine shown (this computer, or a snapshot
    /// the helper serves).
    pub served: bool,
    /// A snapshot's window asked the helper whether it serves it, and
    /// heard back (`served` is the answer).
    pub served_checked: bool,
    /// "waiting", "connected", "gone", or "unreachable: " and why.
    pub helper: String,
    /// The active profile's id as the window shows it.
    pub active: Option<String>,
    /// The AC/battery policy.
    pub auto: Option<AutoPolicy>,
    /// Battery awareness and the actions, as the desktop's power API
    /// answered (empty until it does).
    pub options: PowerOptions,
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
    /// Other power managers found.
    pub conflicts: Vec<String>,
    /// The administrator's file that locks switching and tuning, if one
    /// does (docs/fleet.md).
    pub locked_by: Option<String>,
    /// The custom profiles the administrator declares, by id, with the
    /// file of each.
    pub declared: std::collections::BTreeMap<String, String>,
    /// A measurement runs.
    pub measuring: bool,
    /// The sampling interval.
    pub interval_ms: u64,
    /// Sampler ticks taken.
    pub samples: u64,
    /// The first-run wizard was due at start, and how often it opened.
    pub wizard_due: bool,
    pub wizards: u64,
    /// The Efficiency page.
    pub lab: LabState,
    /// The last toast's text, and how many were shown.
    pub toast: Option<String>,
    pub toasts: u64,
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

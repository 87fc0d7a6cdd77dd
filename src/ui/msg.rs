//! The window's messages: what its pages ask of it ([`AppMsg`]) and what its
//! background work reports ([`CmdOut`]). Pages import these, never the
//! window itself.

use gearshift::client::ClientError;
use gearshift::core::custom::CustomProfile;
use gearshift::core::monitor::CpuSample;
use gearshift::dbus::ApplySummary;

use super::model::ErrorView;
use crate::live::HelperEvent;

/// Messages from the window.
#[derive(Debug)]
pub enum AppMsg {
    /// Switch to a profile.
    Switch(String),
    /// Switch the cpufreq driver's mode ("active", "passive", "guided").
    SetDriverMode(String),
    /// Something else (the wizard) switched the driver's mode: read the
    /// machine again.
    DriverModeChanged,
    /// Turn AC/battery switching on or off.
    SetAuto(bool),
    /// Automatic switching with these profiles (on AC, on battery).
    SetAutoPair(String, String),
    /// The window became visible (true) or hidden/minimized (false).
    Visible(bool),
    /// Re-read EPP and governors of every CPU now.
    Refresh,
    /// Save a custom profile through the helper (asking first where it
    /// replaces a saved one).
    SaveCustom(CustomProfile),
    /// Save it: replacing was confirmed, or nothing is replaced.
    SaveCustomConfirmed(CustomProfile),
    /// Delete a custom profile (the toast offers Undo).
    DeleteCustom(String),
    /// Save the profile deleted last again.
    UndoDelete,
    /// Show the details of an error in a dialog.
    Details(ErrorView),
    /// Show the details of the last error.
    LastError,
    /// Put a command on the clipboard.
    Copy(String),
    /// Show a page of the stack.
    Page(&'static str),
    /// About.
    About,
    /// The first-run wizard (again).
    Wizard,
    /// Keyboard shortcuts.
    Shortcuts,
    /// The preferences window.
    Preferences,
    /// Sample every this many milliseconds (chosen in the preferences).
    SetInterval(u64),
    /// The sampling interval's setting changed (here or elsewhere).
    IntervalChanged(u64),
    /// Measure the profiles' efficiency (asking first on battery or when
    /// the machine is busy).
    Measure(LabRequest),
    /// Stop the measurement; the helper puts the profile back.
    CancelMeasure,
    /// Use a profile on battery (true) or on AC (false): automatic
    /// switching with it on that side, the other side kept.
    UseOn {
        /// The profile.
        id: String,
        /// Battery or AC.
        battery: bool,
    },
}

/// What the Efficiency page asks to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct LabRequest {
    /// The workload.
    pub workload: gearshift::core::measure::Workload,
    /// Profile ids (and `kernel_default`).
    pub profiles: Vec<String>,
    /// Times the standard work.
    pub scale: f64,
    /// Rounds.
    pub repeats: usize,
    /// Measuring on battery was confirmed.
    pub battery_ok: bool,
    /// Measuring on a busy machine was confirmed.
    pub busy_ok: bool,
}

/// Results of background work.
#[derive(Debug)]
pub enum CmdOut {
    /// A sampler tick.
    Samples(Vec<CpuSample>),
    /// The helper link.
    Helper(HelperEvent),
    /// A switch finished.
    Switched(String, Result<ApplySummary, ClientError>),
    /// A driver mode switch finished (the mode asked for).
    ModeSet(String, Result<ApplySummary, ClientError>),
    /// Setting the AC/battery policy finished.
    AutoSet(Result<ApplySummary, ClientError>),
    /// Saving or deleting a custom profile finished; the new list.
    Customs(CustomChange, Result<Vec<gearshift::dbus::WireProfile>, ClientError>),
    /// Whether the helper serves the snapshot shown (its `Root`).
    Served(bool),
    /// The helper's custom profiles, listed after connecting.
    CustomsListed(Result<Vec<gearshift::dbus::WireProfile>, ClientError>),
    /// The CPUs were this busy (a share) with other work: ask first.
    LabBusy(LabRequest, f64),
    /// The energy counters cannot be read: the measurement is time only.
    LabTimeOnly(ClientError),
    /// Run `index` of `total` is on a profile.
    LabProgress(usize, usize, String),
    /// The measurement ended, or could not begin; a finished one as kept.
    LabDone(Result<gearshift::client::lab::Outcome, ClientError>, Option<gearshift::client::lab::Kept>),
}

/// What a change to the custom profiles was, for the toast after it.
#[derive(Debug, Clone)]
pub enum CustomChange {
    /// Saved (new or replacing one of the same name).
    Saved(CustomProfile),
    /// Deleted; the toast's Undo saves it again.
    Deleted(CustomProfile),
}

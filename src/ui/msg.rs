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
    /// The window became visible (true) or hidden/minimized (false).
    Visible(bool),
    /// Re-read EPP and governors of every CPU now.
    Refresh,
    /// Save a custom profile through the helper.
    SaveCustom(CustomProfile),
    /// Delete a custom profile.
    DeleteCustom(String),
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
    AutoSet(Result<(), ClientError>),
    /// Saving or deleting a custom profile finished; the new list.
    Customs(Result<String, ClientError>),
    /// The helper's custom profiles, listed after connecting.
    CustomsListed(Result<String, ClientError>),
}

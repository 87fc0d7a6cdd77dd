//! The window's messages: what its pages and menus ask of it ([`AppMsg`])
//! and what its background work reports ([`CmdOut`]). Each page has its
//! own messages beside it; the window maps their outputs to these.

use gearshift::client::options::PowerOption;
use gearshift::client::ClientError;
use gearshift::core::custom::CustomProfile;
use gearshift::core::machine::DriverMode;
use gearshift::core::machine::Machine;
use gearshift::core::monitor::CpuSample;
use gearshift::core::platform::PlatformProfile;
use gearshift::core::profile_id::ProfileId;
use gearshift::dbus::{ApplySummary, WireProfile};

use super::model::{ErrorView, Notice};
use gearshift::client::events::HelperEvent;

/// Messages to the window.
#[derive(Debug)]
pub enum AppMsg {
    /// Switch to a profile.
    Switch(ProfileId),
    /// Switch the cpufreq driver's mode ("active", "passive", "guided"),
    /// once the person confirmed it.
    SetDriverMode(DriverMode),
    /// The person confirmed the switch of the driver's mode.
    DriverModeConfirmed(DriverMode),
    /// The person kept the driver's mode (Cancel).
    DriverModeKept,
    /// Something else (the wizard) switched the driver's mode: read the
    /// machine again.
    DriverModeChanged,
    /// Turn AC/battery switching on or off.
    SetAuto(bool),
    /// Automatic switching with these profiles (on AC, on battery).
    SetAutoPair(String, String),
    /// End a choice by hand: the AC/battery policy chooses again.
    ReturnToAutomatic,
    /// Battery awareness or an action, on or off.
    SetOption(PowerOption, bool),
    /// Use a profile on battery (true) or on AC (false): automatic
    /// switching with it on that side, the other side kept.
    UseOn {
        /// The profile.
        id: String,
        /// Battery or AC.
        battery: bool,
    },
    /// A measurement began (true) or ended.
    LabRunning(bool),
    /// What the Efficiency page shows (for the state file).
    LabState(Box<super::efficiency::LabState>),
    /// The helper's custom profiles changed (saved or deleted here).
    Customs(Vec<CustomProfile>),
    /// Tell the person something.
    Notice(Notice),
    /// The window became visible (true) or hidden/minimized (false).
    Visible(bool),
    /// Re-read EPP and governors of every CPU now.
    Refresh,
    /// Take back the last change that offered Undo (a deletion, the
    /// AC/battery policy set from the Efficiency page).
    Undo,
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
    /// The first frame was drawn.
    Drawn,
    /// Ask the helper again (the banner's Retry, after it stopped).
    Retry,
    /// The banner's button was pressed: what it does is the banner's.
    BannerPressed,
}

/// The firmware's files as read off the main thread.
#[derive(Debug)]
pub struct FirmwareRead {
    /// The driver's mode now.
    pub mode: Option<String>,
    /// The platform profile.
    pub platform: Option<PlatformProfile>,
    /// The lap sensor.
    pub lap_mode: Option<bool>,
}

/// Results of background work.
#[derive(Debug)]
pub enum CmdOut {
    /// A sampler tick.
    Samples(Vec<CpuSample>),
    /// The helper link.
    Helper(HelperEvent),
    /// A switch finished.
    Switched(ProfileId, Result<ApplySummary, ClientError>),
    /// A driver mode switch finished (the mode asked for).
    ModeSet(DriverMode, Result<ApplySummary, ClientError>),
    /// Setting the AC/battery policy finished.
    AutoSet(Result<ApplySummary, ClientError>),
    /// Setting battery awareness or an action finished.
    OptionSet(Result<(), ClientError>),
    /// The banner's Retry reached the helper, or why not.
    Retried(Result<(), ClientError>),
    /// Whether the helper serves the snapshot shown (its `Root`).
    Served(bool),
    /// The helper's custom profiles, listed after connecting.
    CustomsListed(Result<Vec<WireProfile>, ClientError>),
    /// The firmware's platform profile, lap sensor and driver mode (none
    /// where the read failed).
    Firmware(Option<FirmwareRead>),
    /// The whole machine, read again (none where the read failed).
    Machine(Option<Box<Machine>>),
    /// Other power managers found running.
    Conflicts(Vec<String>),
}

//! The wire between the helper and its clients, neutral ground that both
//! sides import (the user side never imports `helper`): the names, the
//! values that cross the bus ([`types`]), the helper's errors ([`error`]) and
//! the proxy clients call ([`proxy`]). The interface is described in
//! docs/dbus-api.md.

pub mod error;
pub mod profile;
pub mod proxy;
pub mod types;

pub use error::{HelperError, Sentence};
pub use profile::WireProfile;
pub use proxy::{Helper1Proxy, PowerProfilesProxy};
pub use types::{ApplySummary, AutoPolicy, EnergyReading, HelperState, OutsideChange, LEFT_AS_THEY_WERE};

/// The helper's well-known bus name.
pub const HELPER_NAME: &str = "io.github.gearshift.Helper1";
/// The helper's object path.
pub const HELPER_PATH: &str = "/io/github/gearshift/Helper1";
/// The helper's interface.
pub const HELPER_INTERFACE: &str = "io.github.gearshift.Helper1";
/// The prefix of the helper's D-Bus error names.
pub const ERROR_PREFIX: &str = "io.github.gearshift.Error";
/// GameMode's name on the session bus (its object and interface are named
/// the same), and the application id of the hold the agent takes for it.
pub const GAME_MODE: &str = "com.feralinteractive.GameMode";
/// GameMode's object.
pub const GAME_MODE_PATH: &str = "/com/feralinteractive/GameMode";

/// polkit action: switch between profiles.
pub const ACTION_SWITCH: &str = "io.github.gearshift.switch-profile";
/// polkit action: raw tuning and custom profiles.
pub const ACTION_TUNE: &str = "io.github.gearshift.tune";
/// polkit action: read the energy counters.
pub const ACTION_READ_POWER: &str = "io.github.gearshift.read-power";

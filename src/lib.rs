//! Gearshift: run a CPU the way its maker tuned it.
//!
//! The crate is split the way the program is:
//! - [`core`] knows the machine (snapshot root, CPU identity, the sysfs model,
//!   the model-specific EPP table, profile resolution, the hardware report).
//!   It imports nothing of GTK or D-Bus.
//! - [`dbus`] is the wire between the two sides: names, the values that
//!   cross the bus, the helper's errors, the proxy. Both sides import it.
//! - `helper` (the privileged D-Bus service) and [`client`] (the user side's
//!   one handle to it) build on the core and the wire; the user side never
//!   imports `helper`.
//! - [`worker`] is the one thread each side does its blocking file work on.
//!
//! The window, the tray and the command line live in the `gearshift` binary
//! (`src/main.rs`), so that the helper binary never links GTK.

pub mod client;
pub mod core;
pub mod dbus;
pub mod helper;
pub mod i18n;
pub mod logging;
pub mod worker;

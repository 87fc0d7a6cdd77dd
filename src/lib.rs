//! Gearshift: run a CPU the way its maker tuned it.
//!
//! The crate is split the way the program is:
//! - [`core`] knows the machine (snapshot root, CPU identity, the sysfs model,
//!   the model-specific EPP table, profile resolution, the hardware report).
//!   It imports nothing of GTK or D-Bus.
//! - `helper` (the privileged D-Bus service) and `client` (its proxy for the
//!   user side) build on the core.
//!
//! The window, the tray and the command line live in the `gearshift` binary
//! (`src/main.rs`), so that the helper binary never links GTK.

pub mod client;
pub mod core;
pub mod dbus;
pub mod helper;
pub mod i18n;

//! The core: everything Gearshift knows about the machine, with no GTK and
//! no D-Bus. The helper and the user side both build on it; it imports
//! neither.
//!
//! - [`root`]: the snapshot root every read goes through; [`trusted`]: the
//!   files that steer root, read only when only root may change them;
//! - [`parse`], [`cpuinfo`]: pure parsers for kernel text;
//! - [`identity`], [`cpuid`]: which CPU this is;
//! - [`machine`]: the sysfs model (CPUs, policies, driver, turbo, RAPL);
//! - [`platform`]: the firmware's ACPI platform profile;
//! - [`power_supply`]: supplies that can charge slowly (trickle charge);
//! - [`policy`]: one cpufreq policy, with impossible numbers left unknown;
//! - [`models`]: the model-specific EPP table;
//! - [`conflicts`]: other power managers on the machine;
//! - [`profile`], [`custom`], [`plan`]: what each profile writes here;
//! - [`active`]: why the profile in effect is in effect;
//! - [`panel`]: the desktop power panel's three names, and the one rule
//!   that shows every profile as one of them;
//! - [`names`]: custom names and ids that could pass for something else;
//! - [`status`]: the report `gearshift status` prints;
//! - [`monitor`]: the cheap live sampler;
//! - [`measure`]: the efficiency lab's workloads and performance per watt;
//! - [`snapshot`]: copying a machine into a snapshot directory.

pub mod actions;
pub mod active;
pub mod config;
pub mod conflicts;
pub mod cpuid;
pub mod cpuinfo;
pub mod custom;
pub mod driver;
pub mod identity;
pub mod kernel_own;
pub mod machine;
pub mod measure;
pub mod models;
pub mod monitor;
pub mod names;
pub mod panel;
pub mod parse;
pub mod paths;
pub mod plan;
pub mod platform;
pub mod policy;
pub mod power_supply;
pub mod profile;
pub mod profile_id;
pub mod report;
pub mod root;
pub mod rules;
pub mod snapshot;
pub mod status;
pub mod trusted;

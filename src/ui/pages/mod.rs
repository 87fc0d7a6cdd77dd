//! The window's pages, each a relm4 component that receives the session's
//! snapshots and the sampler's frames as messages and owns its widgets:
//! the overview, the cores, tuning (custom profiles), efficiency (the lab)
//! the rules that follow programs, and the first-run wizard.

pub mod cores;
pub mod efficiency;
pub mod overview;
pub mod rules;
pub mod tuning;
pub mod wizard;

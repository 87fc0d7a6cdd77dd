//! View models: what the window says, computed without a display so that
//! it can be unit-tested for every fixture. One file per part of the
//! window; the pages build their widgets from these.

mod auto;
mod banner;
mod cards;
mod feedback;
mod firmware;
mod mode;
mod overview;
#[cfg(test)]
mod testing;

pub use auto::use_on;
pub use banner::{banner, locked_words, Banner, BannerAction, Shown};
pub use cards::{epp_text, ghz, CoreCard};
pub use feedback::{active_title, builtin_title, outside_toast, replaced, switched_toast, ErrorView, Notice};
pub use firmware::{cores_header, on_lap, platform_text};
pub use mode::{mode_row, offers_active_mode, switch_blocked, ModeRow};
pub use overview::{driver_text, Overview, ProfileRow};

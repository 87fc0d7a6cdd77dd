//! The firmware's platform profile and lap sensor, as the overview and
//! the per-core page say them.

use gearshift::core::platform::PlatformProfile;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::*;

/// The firmware's platform profile now, in a word or two; `None` where the
/// machine has none. Where handlers show different names (each got its own
/// for the same Gearshift profile, and the status says only `custom`), the
/// names of all of them, "quiet / low-power", when `platform` has them.
pub fn platform_now(status: &Status, platform: Option<&PlatformProfile>) -> Option<String> {
    let line = status.platform_profile.as_ref()?;
    if let Some(platform) = platform.filter(|p| p.handlers.len() > 1) {
        let mut names: Vec<&str> = Vec::new();
        for name in platform.handlers.iter().map(|h| h.current.as_deref()) {
            let Some(name) = name else { break };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        if names.len() > 1 && platform.handlers.iter().all(|h| h.current.is_some()) {
            return Some(names.join(" / "));
        }
    }
    Some(line.current.clone().unwrap_or_else(|| gettext("unknown")))
}

/// The firmware's platform profile now, as the overview's row says it
/// ("balanced (firmware: fans and power limits)"); `None` where the machine
/// has none.
pub fn platform_text(status: &Status, platform: Option<&PlatformProfile>) -> Option<String> {
    let current = platform_now(status, platform)?;
    // Translators: {profile} is a platform profile name ("balanced", "low-power"); the firmware sets fans and power limits for it.
    Some(i18n_text("{profile} (firmware: fans and power limits)").arg("profile", current).localized())
}

/// The machine sits on a lap (a ThinkPad's sensor) and the firmware limits
/// performance.
pub fn on_lap(status: &Status) -> bool {
    status.lap_mode == Some(true)
}

/// What the top of the per-core page says: the driver and its mode, and the
/// firmware's platform profile (see [`platform_now`]), each a part of one
/// line; the lap warning is [`on_lap`]'s.
pub fn cores_header(status: &Status, platform: Option<&PlatformProfile>) -> Vec<String> {
    let mut parts = vec![driver_text(status)];
    if let Some(current) = platform_now(status, platform) {
        parts.push(i18n_f("Platform profile: {}", &[&current]));
    }
    parts
}

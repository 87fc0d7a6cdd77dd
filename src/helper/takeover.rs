//! Moving over from power-profiles-daemon: on the helper's first start (no
//! state of its own yet), the user's last choices in
//! `/var/lib/power-profiles-daemon/state.ini` are taken over: the profile,
//! battery awareness, and the actions turned on or off
//! (docs/dbus-api.md, "Moving over from power-profiles-daemon").
//!
//! The file is GLib's key file format, written by a root daemon; it is
//! still read as untrusted text: at most 64 KiB, unknown keys and values
//! ignored.

use std::collections::BTreeMap;

use crate::core::actions::ACTIONS;
use crate::core::panel::PanelProfile;
use crate::core::profile::BuiltinProfile;
use crate::core::root::SysRoot;

/// Where power-profiles-daemon keeps its state, relative to the root.
pub const PPD_STATE_FILE: &str = "var/lib/power-profiles-daemon/state.ini";

/// What power-profiles-daemon remembered.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PpdState {
    /// The profile chosen last, as Gearshift's built-in profile.
    pub profile: Option<BuiltinProfile>,
    /// `battery_aware`.
    pub battery_aware: Option<bool>,
    /// The actions turned on or off.
    pub actions: BTreeMap<String, bool>,
}

impl PpdState {
    /// True when it holds nothing worth taking over.
    pub fn is_empty(&self) -> bool {
        self.profile.is_none() && self.battery_aware.is_none() && self.actions.is_empty()
    }
}

fn boolean(value: &str) -> Option<bool> {
    match value {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// Reads `[State]` `Profile` and `battery_aware`, and `[Actions]`.
pub fn parse(text: &str) -> PpdState {
    let mut state = PpdState::default();
    let mut section = "";
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = if name == "State" || name == "Actions" { name } else { "" };
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let (key, value) = (key.trim(), value.trim());
        match (section, key) {
            ("State", "Profile") => state.profile = PanelProfile::from_name(value).map(PanelProfile::selects),
            ("State", "battery_aware") => state.battery_aware = boolean(value),
            ("Actions", name) => {
                if let (Some(action), Some(on)) = (ACTIONS.iter().find(|a| a.name == name), boolean(value)) {
                    state.actions.insert(action.name.to_owned(), on);
                }
            }
            _ => {}
        }
    }
    state
}

/// power-profiles-daemon's state under `root`, if it left one.
pub fn read(root: &SysRoot) -> Option<PpdState> {
    let text = root.read_trusted_text(PPD_STATE_FILE, 64 * 1024).ok().flatten()?;
    Some(parse(&text)).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_choices_are_read_and_nothing_else() {
        let text = "[State]\nDriver=multiple\nCpuDriver=intel_pstate\nPlatformDriver=placeholder\n\
                    Profile=power-saver\nbattery_aware=false\n\n[Actions]\ntrickle_charge=false\n\
                    amdgpu_panel_power=true\nrm -rf=true\n[Other]\nProfile=performance\n";
        let state = parse(text);
        assert_eq!(state.profile, Some(BuiltinProfile::Power));
        assert_eq!(state.battery_aware, Some(false));
        assert_eq!(
            state.actions,
            [("amdgpu_panel_power".to_owned(), true), ("trickle_charge".to_owned(), false)].into()
        );
    }

    #[test]
    fn garbage_takes_over_nothing() {
        assert!(parse("Profile=performance\n[State]\nProfile=turbo\nbattery_aware=maybe\n").is_empty());
        assert!(parse("\u{0}\u{1}").is_empty());
        assert_eq!(parse("[State]\nProfile = balanced\n").profile, Some(BuiltinProfile::BalancePerformance));
    }
}

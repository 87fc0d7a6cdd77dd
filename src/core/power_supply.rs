//! Power supplies that can charge slowly: power-profiles-daemon's
//! `trickle_charge` action writes `Trickle` to their `charge_type` in
//! power-saver and `Fast` otherwise. Like power-profiles-daemon it changes
//! only supplies of `Device` scope (a phone or a mouse charging from the
//! laptop), never the machine's own battery (`System` scope, or none).
//!
//! The names come from the kernel's own directory listing of
//! `sys/class/power_supply`, never from a client.

use serde::Serialize;

use super::root::Probe;

/// The class directory.
pub const POWER_SUPPLY_DIR: &str = "sys/class/power_supply";

/// One supply with a charge type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChargingSupply {
    /// The directory name (`BAT0`, `MFi Fastcharge`).
    pub name: String,
    /// `scope`: `Device`, `System`, or unknown.
    pub scope: Option<String>,
    /// What it charges with now.
    pub charge_type: Option<String>,
    /// What `charge_types` offers (newer kernels), empty where unknown.
    pub offered: Vec<String>,
}

impl ChargingSupply {
    /// `charge_type`, relative to the root.
    pub fn charge_type_file(&self) -> String {
        format!("{POWER_SUPPLY_DIR}/{}/charge_type", self.name)
    }

    /// True when the trickle charge action changes this supply: a device's
    /// battery, not the machine's own.
    pub fn follows_profile(&self) -> bool {
        self.scope.as_deref() == Some("Device")
    }

    /// True when it may be asked for `kind` (unknown offers: it may).
    pub fn takes(&self, kind: &str) -> bool {
        self.offered.is_empty() || self.offered.iter().any(|o| o == kind)
    }
}

/// A directory name the kernel could have made (no path separators, no
/// dot entries, printable, not absurdly long).
fn plausible_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name != "."
        && name != ".."
        && !name.contains('/')
        && name.chars().all(|c| !c.is_control())
}

/// `charge_types` lists the types with the current one in brackets:
/// `Standard [Fast] Trickle`.
fn parse_charge_types(text: &str) -> (Vec<String>, Option<String>) {
    let mut offered = Vec::new();
    let mut current = None;
    for word in text.split_whitespace() {
        let bare = word.trim_start_matches('[').trim_end_matches(']');
        if bare.len() != word.len() {
            current = Some(bare.to_owned());
        }
        offered.push(bare.to_owned());
    }
    (offered, current)
}

/// Whether the machine runs on a battery of its own: a supply of `type`
/// `Battery` whose scope is not `Device` (a mouse's or a phone's battery is
/// not the machine's). A desktop, a server or a VM has none, and then there
/// is no "on battery" to choose a profile for.
pub fn has_system_battery(probe: &mut Probe<'_>) -> bool {
    probe.list(POWER_SUPPLY_DIR).into_iter().filter(|n| plausible_name(n)).any(|name| {
        let dir = format!("{POWER_SUPPLY_DIR}/{name}");
        let word =
            |probe: &mut Probe<'_>, file: &str| probe.text(&format!("{dir}/{file}")).map(|t| t.trim().to_owned());
        word(probe, "type").as_deref() == Some("Battery") && word(probe, "scope").as_deref() != Some("Device")
    })
}

/// Whether the machine runs on battery now: it has a battery of its own
/// and every mains supply (`type` `Mains`) says `online` 0. Without any
/// mains supply nothing says so, and the answer is no.
pub fn on_battery(probe: &mut Probe<'_>) -> bool {
    if !has_system_battery(probe) {
        return false;
    }
    let mut mains = Vec::new();
    for name in probe.list(POWER_SUPPLY_DIR).into_iter().filter(|n| plausible_name(n)) {
        if probe.text(&format!("{POWER_SUPPLY_DIR}/{name}/type")).is_some_and(|t| t.trim() == "Mains") {
            mains.extend(probe.text(&format!("{POWER_SUPPLY_DIR}/{name}/online")));
        }
    }
    !mains.is_empty() && mains.iter().all(|online| online.trim() == "0")
}

/// The supplies that have a charge type.
pub fn read(probe: &mut Probe<'_>) -> Vec<ChargingSupply> {
    let names = probe.list(POWER_SUPPLY_DIR);
    names
        .into_iter()
        .filter(|n| plausible_name(n))
        .filter_map(|name| {
            let dir = format!("{POWER_SUPPLY_DIR}/{name}");
            let word = |t: String| Some(t.trim().to_owned()).filter(|t| !t.is_empty() && t.len() <= 32);
            let charge_type = probe.text(&format!("{dir}/charge_type")).and_then(word);
            let (offered, bracketed) =
                probe.text(&format!("{dir}/charge_types")).map(|t| parse_charge_types(&t)).unwrap_or_default();
            let charge_type = charge_type.or(bracketed)?;
            let scope = probe.text(&format!("{dir}/scope")).and_then(word);
            Some(ChargingSupply { name, scope, charge_type: Some(charge_type), offered })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::root::SysRoot;
    use std::fs;

    #[test]
    fn supplies_with_a_charge_type() {
        let dir = tempfile::tempdir().unwrap();
        let put = |rel: &str, text: &str| {
            let path = dir.path().join(POWER_SUPPLY_DIR).join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        put("BAT0/charge_types", "Standard [Fast] Trickle\n");
        put("BAT0/scope", "System\n");
        put("MFi Fastcharge/charge_type", "Trickle\n");
        put("MFi Fastcharge/scope", "Device\n");
        put("AC/online", "1\n");
        let root = SysRoot::open(dir.path()).unwrap();
        let supplies = read(&mut Probe::new(&root));
        // Neither has a type: no battery of the machine's own yet.
        assert!(!has_system_battery(&mut Probe::new(&root)));
        put("MFi Fastcharge/type", "Battery\n");
        assert!(!has_system_battery(&mut Probe::new(&root)), "a device's battery is not the machine's");
        put("BAT0/type", "Battery\n");
        assert!(has_system_battery(&mut Probe::new(&root)));
        // AC has no type yet: nothing says the machine runs on battery.
        assert!(!on_battery(&mut Probe::new(&root)));
        put("AC/type", "Mains\n");
        assert!(!on_battery(&mut Probe::new(&root)));
        put("AC/online", "0\n");
        assert!(on_battery(&mut Probe::new(&root)));
        assert_eq!(supplies.len(), 2);
        assert_eq!(supplies[0].charge_type.as_deref(), Some("Fast"));
        assert_eq!(supplies[0].offered, ["Standard", "Fast", "Trickle"]);
        assert!(!supplies[0].follows_profile());
        assert_eq!(supplies[1].name, "MFi Fastcharge");
        assert!(supplies[1].follows_profile() && supplies[1].takes("Trickle"));
        assert_eq!(supplies[1].charge_type_file(), "sys/class/power_supply/MFi Fastcharge/charge_type");
    }
}

//! Other power managers on this machine: two daemons writing the same EPP
//! files fight, so Gearshift finds the others, names them, says how to
//! resolve it, and never fights them.
//!
//! Found here (no D-Bus): by their processes (`proc/<pid>/comm`) and, where
//! systemd runs, by their enabled units. The user side and the helper add
//! what the bus shows (who owns the power panel's names).

use serde::Serialize;

use super::root::SysRoot;
use crate::i18n::{gettext, i18n_f};

/// The power managers Gearshift knows (CONTRACT.md ids).
pub const KNOWN: [&str; 5] = ["power-profiles-daemon", "tuned", "tlp", "auto-cpufreq", "system76-power"];

/// How another power manager was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// Its process runs.
    Process,
    /// Its systemd unit is enabled.
    Unit,
    /// It owns a D-Bus name.
    BusName,
}

/// One other power manager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    /// The CONTRACT.md id.
    pub id: &'static str,
    /// How it was found.
    pub evidence: Evidence,
    /// What was seen ("power-profiles-daemon.service is enabled").
    pub detail: String,
}

/// The CONTRACT.md id of a power manager by its process name (`comm`,
/// which the kernel cuts to 15 characters).
pub fn id_for_process(comm: &str) -> Option<&'static str> {
    match comm {
        c if c.starts_with("power-profiles") => Some("power-profiles-daemon"),
        c if c.starts_with("tuned") => Some("tuned"),
        "tlp" => Some("tlp"),
        c if c.starts_with("auto-cpufreq") => Some("auto-cpufreq"),
        c if c.starts_with("system76-power") => Some("system76-power"),
        _ => None,
    }
}

/// systemd units and the power manager each belongs to.
const UNITS: [(&str, &str); 6] = [
    ("power-profiles-daemon.service", "power-profiles-daemon"),
    ("tuned.service", "tuned"),
    ("tuned-ppd.service", "tuned"),
    ("tlp.service", "tlp"),
    ("auto-cpufreq.service", "auto-cpufreq"),
    ("com.system76.PowerDaemon.service", "system76-power"),
];

/// D-Bus names and the power manager that owns each.
pub const BUS_NAMES: [(&str, &str); 4] = [
    ("net.hadess.PowerProfiles", "power-profiles-daemon"),
    ("org.freedesktop.UPower.PowerProfiles", "power-profiles-daemon"),
    ("com.redhat.tuned", "tuned"),
    ("com.system76.PowerDaemon", "system76-power"),
];

/// Finds other power managers by process and enabled unit under `root`.
/// A snapshot has neither, so it shows none. `own_pids` are processes to
/// ignore (Gearshift's own).
pub fn detect(root: &SysRoot, own_pids: &[u32]) -> Vec<Conflict> {
    let mut found: Vec<Conflict> = Vec::new();
    let mut add = |conflict: Conflict| {
        if !found.iter().any(|c| c.id == conflict.id) {
            found.push(conflict);
        }
    };
    for name in root.list_dir("proc").unwrap_or_default() {
        let Some(pid) = super::parse::parse_decimal(&name).and_then(|p| u32::try_from(p).ok()) else { continue };
        if own_pids.contains(&pid) {
            continue;
        }
        let Ok(Some(comm)) = root.read_text(&format!("proc/{pid}/comm"), 64) else { continue };
        if let Some(id) = id_for_process(comm.trim()) {
            add(Conflict {
                id,
                evidence: Evidence::Process,
                detail: i18n_f("{} runs (process {})", &[&comm.trim(), &pid]),
            });
        }
    }
    // Enabled units, read from the symlinks systemctl enable makes.
    if root.kind("run/systemd/system") != super::root::EntryKind::Missing {
        for wants in root.list_dir("etc/systemd/system").unwrap_or_default().iter().filter(|d| d.ends_with(".wants")) {
            let entries = root.list_dir(&format!("etc/systemd/system/{wants}")).unwrap_or_default();
            for (unit, id) in UNITS {
                if entries.iter().any(|e| e == unit) {
                    add(Conflict { id, evidence: Evidence::Unit, detail: i18n_f("{} is enabled", &[&unit]) });
                }
            }
        }
    }
    found
}

/// What to do about another power manager, as a command to run.
pub fn fix(id: &str) -> String {
    match id {
        "power-profiles-daemon" => "sudo systemctl mask --now power-profiles-daemon.service".into(),
        "tuned" => "sudo systemctl disable --now tuned.service tuned-ppd.service".into(),
        "tlp" => "sudo systemctl disable --now tlp.service".into(),
        "auto-cpufreq" => "sudo auto-cpufreq --remove".into(),
        "system76-power" => "sudo systemctl disable --now com.system76.PowerDaemon.service".into(),
        other => i18n_f("stop {}", &[&other]),
    }
}

/// What it means, in a sentence.
pub fn explain(id: &str) -> String {
    match id {
        "power-profiles-daemon" => gettext("power-profiles-daemon also sets EPP, with the generic values, whenever the desktop's power mode changes. Gearshift serves the same power mode menu itself, with your CPU's own values, once power-profiles-daemon is masked."),
        "tuned" => gettext("tuned also sets EPP and governors from its own profiles. Two managers writing the same files undo each other's changes."),
        "tlp" => gettext("TLP sets EPP on every power-source change and at boot. Turn it off, or set CPU_ENERGY_PERF_POLICY_ON_AC/BAT to empty in /etc/tlp.conf, so that the two do not undo each other."),
        "auto-cpufreq" => gettext("auto-cpufreq sets governors and EPP on its own schedule. Two managers writing the same files undo each other's changes."),
        "system76-power" => gettext("system76-power sets its own profiles. Two managers writing the same files undo each other's changes."),
        _ => gettext("Another power manager writes the same files."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn found_by_process_and_by_enabled_unit() {
        let dir = tempfile::tempdir().unwrap();
        for (pid, comm) in [(1, "systemd"), (412, "power-profiles-"), (500, "tuned"), (77, "gearshift-helpe")] {
            fs::create_dir_all(dir.path().join(format!("proc/{pid}"))).unwrap();
            fs::write(dir.path().join(format!("proc/{pid}/comm")), format!("{comm}\n")).unwrap();
        }
        fs::create_dir_all(dir.path().join("proc/self")).unwrap();
        fs::create_dir_all(dir.path().join("run/systemd/system")).unwrap();
        let wants = dir.path().join("etc/systemd/system/multi-user.target.wants");
        fs::create_dir_all(&wants).unwrap();
        symlink("/lib/systemd/system/tlp.service", wants.join("tlp.service")).unwrap();
        symlink("/lib/systemd/system/ssh.service", wants.join("ssh.service")).unwrap();
        let root = SysRoot::open(dir.path()).unwrap();
        let found = detect(&root, &[500]);
        let ids: Vec<&str> = found.iter().map(|c| c.id).collect();
        assert_eq!(ids, ["power-profiles-daemon", "tlp"]);
        assert_eq!(found[0].evidence, Evidence::Process);
        assert_eq!(found[1].detail, "tlp.service is enabled");
        assert!(fix("power-profiles-daemon").contains("mask"));
        // Without systemd running, units say nothing.
        fs::remove_dir(dir.path().join("run/systemd/system")).unwrap();
        assert_eq!(detect(&root, &[500]).len(), 1);
    }

    #[test]
    fn snapshots_show_no_other_managers() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/meteor-lake-155h");
        assert!(detect(&SysRoot::open(&fixture).unwrap(), &[]).is_empty());
    }
}

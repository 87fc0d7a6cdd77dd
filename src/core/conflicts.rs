//! Other power managers on this machine: two daemons writing the same EPP
//! files fight, so Gearshift finds the others, names them, says how to
//! resolve it, and never fights them.
//!
//! Found here (no D-Bus): by their processes (`proc/<pid>/comm`) and, where
//! systemd runs, by their enabled units. The user side and the helper add
//! what the bus shows (who owns the power panel's names).
//!
//! A process name proves nothing: any user may copy `/bin/sleep` to a file
//! named `tlp` and run it. The real daemons run as root, so a process counts
//! only when its real and effective uid are 0 and, where its executable can
//! be examined, that file belongs to root (docs/dbus-api.md, "Other power
//! managers").

use serde::Serialize;

use super::root::SysRoot;
use crate::i18n::{i18n_text, Text};

/// The power managers Gearshift knows (the ids in docs/interfaces.md).
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
    /// Its id (docs/interfaces.md).
    pub id: &'static str,
    /// How it was found.
    pub evidence: Evidence,
    /// What was seen ("power-profiles-daemon.service is enabled").
    pub detail: Text,
}

/// The id (docs/interfaces.md) of a power manager by its process name (`comm`,
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
        let Some(id) = id_for_process(comm.trim()) else { continue };
        if runs_as_root(root, pid) {
            add(Conflict {
                id,
                evidence: Evidence::Process,
                // Translators: a program's name and its process id.
                detail: i18n_text("{program} runs (process {pid})").arg("program", comm.trim()).arg("pid", pid),
            });
        }
    }
    // Enabled units, read from the symlinks systemctl enable makes.
    if root.kind("run/systemd/system") != super::root::EntryKind::Missing {
        for wants in root.list_dir("etc/systemd/system").unwrap_or_default().iter().filter(|d| d.ends_with(".wants")) {
            let entries = root.list_dir(&format!("etc/systemd/system/{wants}")).unwrap_or_default();
            for (unit, id) in UNITS {
                if entries.iter().any(|e| e == unit) {
                    add(Conflict {
                        id,
                        evidence: Evidence::Unit,
                        detail: i18n_text("{unit} is enabled").arg("unit", unit),
                    });
                }
            }
        }
    }
    found
}

/// True when process `pid` runs as root (real and effective uid 0) from an
/// executable that belongs to root. `proc/<pid>/exe` can only be examined by
/// a process allowed to trace the target (the helper, without capabilities,
/// is not, for root daemons): where it cannot be, the uid decides, which is
/// enough, since only root can start a root process from a file it chose
/// (setuid programs are root's own files).
fn runs_as_root(root: &SysRoot, pid: u32) -> bool {
    let Ok(Some(status)) = root.read_text(&format!("proc/{pid}/status"), 16 * 1024) else { return false };
    // "Uid:\treal\teffective\tsaved\tfilesystem"
    let Some(uids) = status.lines().find_map(|l| l.strip_prefix("Uid:")) else { return false };
    let mut ids = uids.split_whitespace();
    if ids.next() != Some("0") || ids.next() != Some("0") {
        return false;
    }
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(root.path(&format!("proc/{pid}/exe"))) {
        Ok(exe) => exe.uid() == 0,
        Err(_) => true,
    }
}

/// What to do about another power manager, as a command to run.
pub fn fix(id: &str) -> Text {
    let command = |c: &str| Text::from(c.to_owned());
    match id {
        "power-profiles-daemon" => command("sudo systemctl mask --now power-profiles-daemon.service"),
        "tuned" => command("sudo systemctl disable --now tuned.service tuned-ppd.service"),
        "tlp" => command("sudo systemctl disable --now tlp.service"),
        "auto-cpufreq" => command("sudo auto-cpufreq --remove"),
        "system76-power" => command("sudo systemctl disable --now com.system76.PowerDaemon.service"),
        other => i18n_text("stop {program}").arg("program", other),
    }
}

/// What it means, in a sentence.
pub fn explain(id: &str) -> Text {
    match id {
        "power-profiles-daemon" => i18n_text("power-profiles-daemon also sets EPP, with the generic values, whenever the desktop's power mode changes. Gearshift serves the same power mode menu itself, with your CPU's own values, once power-profiles-daemon is masked."),
        "tuned" => i18n_text("tuned also sets EPP and governors from its own profiles. Two managers writing the same files undo each other's changes."),
        "tlp" => i18n_text("TLP sets EPP on every power-source change and at boot. Turn it off, or set CPU_ENERGY_PERF_POLICY_ON_AC/BAT to empty in /etc/tlp.conf, so that the two do not undo each other."),
        "auto-cpufreq" => i18n_text("auto-cpufreq sets governors and EPP on its own schedule. Two managers writing the same files undo each other's changes."),
        "system76-power" => i18n_text("system76-power sets its own profiles. Two managers writing the same files undo each other's changes."),
        _ => i18n_text("Another power manager writes the same files."),
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
            fake_process(dir.path(), pid, comm, 0);
        }
        // Anyone may name a program tlp: not a power manager unless root runs it.
        fake_process(dir.path(), 901, "tlp", 65534);
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
        assert_eq!(found[1].detail.english(), "tlp.service is enabled");
        assert!(fix("power-profiles-daemon").english().contains("mask"));
        // Without systemd running, units say nothing.
        fs::remove_dir(dir.path().join("run/systemd/system")).unwrap();
        assert_eq!(detect(&root, &[500]).len(), 1);
    }

    /// A process as /proc shows it: `comm`, and `status` with its uids.
    fn fake_process(root: &std::path::Path, pid: u32, comm: &str, uid: u32) {
        let dir = root.join(format!("proc/{pid}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("comm"), format!("{comm}\n")).unwrap();
        fs::write(dir.join("status"), format!("Name:\t{comm}\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t0\t0\t0\t0\n"))
            .unwrap();
    }

    #[test]
    fn a_renamed_program_of_an_ordinary_user_is_no_power_manager() {
        let dir = tempfile::tempdir().unwrap();
        let root = SysRoot::open(dir.path()).unwrap();
        // Real uid 0 but effective uid of a user: not root's daemon either.
        fake_process(dir.path(), 10, "tlp", 65534);
        let status = dir.path().join("proc/11");
        fs::create_dir_all(&status).unwrap();
        fs::write(status.join("comm"), "tuned\n").unwrap();
        fs::write(status.join("status"), "Uid:\t0\t1000\t0\t0\n").unwrap();
        // No status file at all: unknown, so not counted.
        fs::create_dir_all(dir.path().join("proc/12")).unwrap();
        fs::write(dir.path().join("proc/12/comm"), "auto-cpufreq\n").unwrap();
        assert!(detect(&root, &[]).is_empty());
        // Root, but from an executable an ordinary user owns (a copy in /tmp).
        fake_process(dir.path(), 13, "tlp", 0);
        let exe = dir.path().join("sleep-copy");
        fs::write(&exe, "").unwrap();
        std::os::unix::fs::chown(&exe, Some(65534), Some(65534)).unwrap();
        symlink(&exe, dir.path().join("proc/13/exe")).unwrap();
        assert!(detect(&root, &[]).is_empty());
        std::os::unix::fs::chown(&exe, Some(0), Some(0)).unwrap();
        assert_eq!(detect(&root, &[]).iter().map(|c| c.id).collect::<Vec<_>>(), ["tlp"]);
    }

    #[test]
    fn snapshots_show_no_other_managers() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/meteor-lake-155h");
        assert!(detect(&SysRoot::open(&fixture).unwrap(), &[]).is_empty());
    }
}

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

/// A program that manages power, by what it is: the advice follows the
/// program, the id (one of [`KNOWN`], fixed by the interface) its family.
/// TLP 1.9's `tlp-pd` serves the power panel's names as
/// power-profiles-daemon does, but is TLP's, and is stopped as TLP's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Program {
    /// power-profiles-daemon.
    PowerProfilesDaemon,
    /// TuneD.
    Tuned,
    /// TuneD's stand-in for power-profiles-daemon.
    TunedPpd,
    /// TLP (its boot and power-source runs).
    Tlp,
    /// TLP's profiles daemon (TLP 1.9, December 2025).
    TlpPd,
    /// auto-cpufreq.
    AutoCpufreq,
    /// System76's power daemon.
    System76Power,
}

impl Program {
    /// Every program, in the order they are listed.
    pub const ALL: [Program; 7] = [
        Program::PowerProfilesDaemon,
        Program::Tuned,
        Program::TunedPpd,
        Program::Tlp,
        Program::TlpPd,
        Program::AutoCpufreq,
        Program::System76Power,
    ];

    /// Its name, as people and its packages call it.
    pub fn name(self) -> &'static str {
        match self {
            Program::PowerProfilesDaemon => "power-profiles-daemon",
            Program::Tuned => "tuned",
            Program::TunedPpd => "tuned-ppd",
            Program::Tlp => "tlp",
            Program::TlpPd => "tlp-pd",
            Program::AutoCpufreq => "auto-cpufreq",
            Program::System76Power => "system76-power",
        }
    }

    /// Its id in `conflicts` (docs/interfaces.md).
    pub fn id(self) -> &'static str {
        match self {
            Program::PowerProfilesDaemon => "power-profiles-daemon",
            Program::Tuned | Program::TunedPpd => "tuned",
            Program::Tlp | Program::TlpPd => "tlp",
            Program::AutoCpufreq => "auto-cpufreq",
            Program::System76Power => "system76-power",
        }
    }

    /// The program a name stands for: a program's name, or an id (which
    /// is its family's main program).
    pub fn from_name(name: &str) -> Option<Program> {
        Program::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The program by its process name (`comm`, which the kernel cuts to
    /// 15 characters: `power-profiles-`).
    pub fn for_process(comm: &str) -> Option<Program> {
        Some(match comm {
            c if c.starts_with("power-profiles") => Program::PowerProfilesDaemon,
            "tuned-ppd" => Program::TunedPpd,
            c if c.starts_with("tuned") => Program::Tuned,
            "tlp" => Program::Tlp,
            "tlp-pd" => Program::TlpPd,
            c if c.starts_with("auto-cpufreq") => Program::AutoCpufreq,
            c if c.starts_with("system76-power") => Program::System76Power,
            _ => return None,
        })
    }
}

/// The id of a program's name (as [`Program::name`] spells it, or an id);
/// `None` for a name Gearshift does not know.
pub fn id_of(name: &str) -> Option<&'static str> {
    Program::from_name(name).map(Program::id)
}

/// The ids (docs/interfaces.md) of programs' names, each once; a program
/// Gearshift does not know owns the power panel's names, in
/// power-profiles-daemon's stead.
pub fn ids_of(programs: &[String]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for program in programs {
        let id = id_of(program).unwrap_or("power-profiles-daemon");
        if !ids.iter().any(|i| i == id) {
            ids.push(id.to_owned());
        }
    }
    ids
}

/// The program that owns the power panel's names, by the owner's process
/// name: a known program's name; an unknown one's process name where that
/// is a plain word; else power-profiles-daemon, whose API it serves.
pub fn owner_program(comm: &str) -> String {
    if let Some(program) = Program::for_process(comm) {
        return program.name().to_owned();
    }
    let plain = !comm.is_empty()
        && comm.len() <= 15
        && comm.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain {
        comm.to_owned()
    } else {
        Program::PowerProfilesDaemon.name().to_owned()
    }
}

/// systemd units and the program each belongs to.
const UNITS: [(&str, Program); 7] = [
    ("power-profiles-daemon.service", Program::PowerProfilesDaemon),
    ("tuned.service", Program::Tuned),
    ("tuned-ppd.service", Program::TunedPpd),
    ("tlp.service", Program::Tlp),
    ("tlp-pd.service", Program::TlpPd),
    ("auto-cpufreq.service", Program::AutoCpufreq),
    ("com.system76.PowerDaemon.service", Program::System76Power),
];

/// D-Bus names and the power manager that owns each. Who owns the power
/// panel's names is asked of the bus (the owner's process, see
/// `helper::watch`); this id is what a name says where that cannot be asked.
pub const BUS_NAMES: [(&str, &str); 4] = [
    ("net.hadess.PowerProfiles", "power-profiles-daemon"),
    ("org.freedesktop.UPower.PowerProfiles", "power-profiles-daemon"),
    ("com.redhat.tuned", "tuned"),
    ("com.system76.PowerDaemon", "system76-power"),
];

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
    /// What it is (its id is [`Program::id`]).
    pub program: Program,
    /// How it was found.
    pub evidence: Evidence,
    /// What was seen ("power-profiles-daemon.service is enabled").
    pub detail: Text,
}

/// Finds other power managers by process and enabled unit under `root`.
/// A snapshot has neither, so it shows none. `own_pids` are processes to
/// ignore (Gearshift's own).
pub fn detect(root: &SysRoot, own_pids: &[u32]) -> Vec<Conflict> {
    let mut found: Vec<Conflict> = Vec::new();
    let mut add = |conflict: Conflict| {
        if !found.iter().any(|c| c.program == conflict.program) {
            found.push(conflict);
        }
    };
    for name in root.list_dir("proc").unwrap_or_default() {
        let Some(pid) = super::parse::parse_decimal(&name).and_then(|p| u32::try_from(p).ok()) else { continue };
        if own_pids.contains(&pid) {
            continue;
        }
        let Ok(Some(comm)) = root.read_text(&format!("proc/{pid}/comm"), 64) else { continue };
        let Some(program) = Program::for_process(comm.trim()) else { continue };
        if runs_as_root(root, pid) {
            add(Conflict {
                program,
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
            for (unit, program) in UNITS {
                if entries.iter().any(|e| e == unit) {
                    add(Conflict {
                        program,
                        evidence: Evidence::Unit,
                        detail: i18n_text("{unit} is enabled").arg("unit", unit),
                    });
                }
            }
        }
    }
    found
}

/// The programs [`detect`] finds, by name.
pub fn programs_found(root: &SysRoot, own_pids: &[u32]) -> Vec<String> {
    detect(root, own_pids).into_iter().map(|c| c.program.name().to_owned()).collect()
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

/// What to do about another power manager (a program's name or an id),
/// as a command to run.
pub fn fix(name: &str) -> Text {
    let command = |c: &str| Text::from(c.to_owned());
    match Program::from_name(name) {
        Some(Program::PowerProfilesDaemon) => command("sudo systemctl mask --now power-profiles-daemon.service"),
        Some(Program::Tuned) => command("sudo systemctl disable --now tuned.service tuned-ppd.service"),
        Some(Program::TunedPpd) => command("sudo systemctl disable --now tuned-ppd.service tuned.service"),
        Some(Program::Tlp) => command("sudo systemctl disable --now tlp.service"),
        // TLP's own page for tlp-pd: the daemon is its own unit; TLP itself
        // may stay (explain() says how).
        Some(Program::TlpPd) => command("sudo systemctl disable --now tlp-pd.service"),
        Some(Program::AutoCpufreq) => command("sudo auto-cpufreq --remove"),
        Some(Program::System76Power) => command("sudo systemctl disable --now com.system76.PowerDaemon.service"),
        None => i18n_text("stop {program}").arg("program", name),
    }
}

/// What it means, in a sentence.
pub fn explain(name: &str) -> Text {
    match Program::from_name(name) {
        Some(Program::PowerProfilesDaemon) => i18n_text("power-profiles-daemon also sets EPP, with the generic values, whenever the desktop's power mode changes. Gearshift serves the same power mode menu itself, with your CPU's own values, once power-profiles-daemon is masked."),
        Some(Program::Tuned) => i18n_text("tuned also sets EPP and governors from its own profiles. Two managers writing the same files undo each other's changes."),
        Some(Program::TunedPpd) => i18n_text("tuned-ppd serves the desktop's power mode menu and switches tuned's profiles, which set EPP and governors. Gearshift serves the same menu itself once both are off."),
        Some(Program::Tlp) => i18n_text("TLP sets EPP on every power-source change and at boot. Turn it off, or set CPU_ENERGY_PERF_POLICY_ON_AC/BAT to empty in /etc/tlp.conf, so that the two do not undo each other."),
        Some(Program::TlpPd) => i18n_text("tlp-pd (TLP 1.9 and later) serves the desktop's power mode menu and applies TLP's profiles, EPP included. Disable tlp-pd.service so that Gearshift serves the menu; TLP itself may stay if CPU_ENERGY_PERF_POLICY_ON_AC, _ON_BAT and _ON_SAV are empty in /etc/tlp.conf."),
        Some(Program::AutoCpufreq) => i18n_text("auto-cpufreq sets governors and EPP on its own schedule. Two managers writing the same files undo each other's changes."),
        Some(Program::System76Power) => i18n_text("system76-power sets its own profiles. Two managers writing the same files undo each other's changes."),
        None => i18n_text("Another power manager writes the same files."),
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
        let ids: Vec<&str> = found.iter().map(|c| c.program.id()).collect();
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
        assert_eq!(detect(&root, &[]).iter().map(|c| c.program.id()).collect::<Vec<_>>(), ["tlp"]);
    }

    /// TLP 1.9's tlp-pd and TuneD's tuned-ppd are named as themselves, with
    /// their families' ids and their own advice.
    #[test]
    fn tlp_pd_and_tuned_ppd_by_program() {
        assert_eq!(Program::for_process("tlp-pd"), Some(Program::TlpPd));
        assert_eq!(Program::for_process("tuned-ppd"), Some(Program::TunedPpd));
        assert_eq!(Program::for_process("power-profiles-"), Some(Program::PowerProfilesDaemon));
        assert_eq!(Program::TlpPd.id(), "tlp");
        assert_eq!(Program::TunedPpd.id(), "tuned");
        assert!(Program::ALL.iter().all(|p| KNOWN.contains(&p.id())));
        assert_eq!(fix("tlp-pd").english(), "sudo systemctl disable --now tlp-pd.service");
        assert_eq!(fix("tlp").english(), "sudo systemctl disable --now tlp.service");
        assert!(explain("tlp-pd").english().contains("CPU_ENERGY_PERF_POLICY_ON_AC"));
        assert_eq!(owner_program("tlp-pd"), "tlp-pd");
        assert_eq!(owner_program("my-daemon"), "my-daemon");
        assert_eq!(owner_program("bad name\u{1b}"), "power-profiles-daemon");
        assert_eq!(owner_program(""), "power-profiles-daemon");
        assert_eq!(id_of("my-daemon"), None);
        // The snapshot of a machine with TLP 1.9: both programs, one id.
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tlp-pd-laptop");
        let found = detect(&SysRoot::open(&fixture).unwrap(), &[]);
        let programs: Vec<Program> = found.iter().map(|c| c.program).collect();
        assert!(programs.contains(&Program::TlpPd) && programs.contains(&Program::Tlp), "{programs:?}");
        assert!(found.iter().all(|c| c.program.id() == "tlp"));
    }

    #[test]
    fn snapshots_show_no_other_managers() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/meteor-lake-155h");
        assert!(detect(&SysRoot::open(&fixture).unwrap(), &[]).is_empty());
    }
}

//! `gearshift snapshot OUTDIR`: copy the files the machine model reads, laid
//! out as on the machine, so that `--root OUTDIR` shows the same status.

use std::fs;
use std::io;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::custom::PROFILES_FILE;
use super::models::OVERRIDE_DIR;
use super::parse::parse_flag;
use super::paths::{self, cpu_file, numbered, CPU_DIR};
use super::platform;
use super::root::{EntryKind, Problem, SysRoot, MAX_ATTRIBUTE_BYTES, MAX_CPUINFO_BYTES};

/// Where custom profiles live under the root (the helper's default state directory).
pub const STATE_DIR: &str = "var/lib/gearshift";

/// What a snapshot copied.
#[derive(Debug, Default)]
pub struct SnapshotSummary {
    /// Files written.
    pub files: usize,
    /// Links written.
    pub links: usize,
    /// Files that exist but could not be copied.
    pub skipped: Vec<Problem>,
}

/// The snapshot could not be written.
#[derive(Debug, Error)]
pub enum SnapshotError {
    /// The output directory holds something already.
    #[error("{0} is not empty: give a new or empty directory for the snapshot")]
    NotEmpty(PathBuf),
    /// Writing failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

struct Copier<'a> {
    root: &'a SysRoot,
    out: &'a Path,
    summary: SnapshotSummary,
}

impl Copier<'_> {
    fn copy(&mut self, rel: &str, limit: u64) -> Result<(), SnapshotError> {
        match self.root.read_text(rel, limit) {
            Ok(Some(text)) => {
                let dest = self.out.join(rel);
                write_file(&dest, text.as_bytes())?;
                self.summary.files += 1;
            }
            Ok(None) => {}
            Err(problem) => self.summary.skipped.push(problem),
        }
        Ok(())
    }

    fn link(&mut self, rel: &str, target: &str) -> Result<(), SnapshotError> {
        let dest = self.out.join(rel);
        make_parent(&dest)?;
        symlink(target, &dest).map_err(|source| SnapshotError::Write { path: dest, source })?;
        self.summary.links += 1;
        Ok(())
    }

    fn mkdir(&self, rel: &str) -> Result<(), SnapshotError> {
        let dest = self.out.join(rel);
        fs::create_dir_all(&dest).map_err(|source| SnapshotError::Write { path: dest, source })
    }
}

/// Copies the machine under `root` into `out` (created if needed).
///
/// # Errors
/// `out` is not empty, or a file cannot be written there. Files that cannot
/// be read are listed in the summary, not fatal.
pub fn take_snapshot(root: &SysRoot, out: &Path) -> Result<SnapshotSummary, SnapshotError> {
    if out.exists() {
        let mut entries = fs::read_dir(out).map_err(|source| SnapshotError::Write { path: out.to_owned(), source })?;
        if entries.next().is_some() {
            return Err(SnapshotError::NotEmpty(out.to_owned()));
        }
    }
    fs::create_dir_all(out).map_err(|source| SnapshotError::Write { path: out.to_owned(), source })?;
    let mut copier = Copier { root, out, summary: SnapshotSummary::default() };

    copier.copy(paths::CPUINFO, MAX_CPUINFO_BYTES)?;
    copier.copy(paths::OSRELEASE, MAX_ATTRIBUTE_BYTES)?;
    copier.copy(paths::SCHED_ITMT, MAX_ATTRIBUTE_BYTES)?;
    for file in paths::GLOBAL_FILES {
        copier.copy(&paths::global_file(file), MAX_ATTRIBUTE_BYTES)?;
    }
    copier.copy(paths::CORE_PMU_CPUS, MAX_ATTRIBUTE_BYTES)?;
    copier.copy(paths::ATOM_PMU_CPUS, MAX_ATTRIBUTE_BYTES)?;

    let names = root.list_dir(CPU_DIR).unwrap_or_default();
    let mut policies = Vec::new();
    for cpu in names.iter().filter_map(|n| numbered(n, "cpu")) {
        copier.mkdir(&cpu_file(cpu, ""))?;
        copier.copy(&cpu_file(cpu, "online"), MAX_ATTRIBUTE_BYTES)?;
        let offline =
            matches!(root.read_text(&cpu_file(cpu, "online"), 16), Ok(Some(t)) if parse_flag(&t) == Ok(false));
        if let Some(policy) = policy_target(root, cpu) {
            copier.link(&cpu_file(cpu, "cpufreq"), &format!("../cpufreq/policy{policy}"))?;
            // An offline CPU's policy is inactive: its files answer EBUSY.
            // The directory is kept so that the link resolves.
            copier.mkdir(&paths::policy_dir(policy))?;
            if !offline {
                policies.push(policy);
            }
        }
        if offline {
            continue;
        }
        for file in paths::CPU_FILES.iter().filter(|f| **f != "online") {
            copier.copy(&cpu_file(cpu, file), MAX_ATTRIBUTE_BYTES)?;
        }
        if root.kind(&cpu_file(cpu, "acpi_cppc")) != EntryKind::Missing {
            copier.mkdir(&cpu_file(cpu, "acpi_cppc"))?;
        }
    }
    policies.sort_unstable();
    policies.dedup();
    for policy in policies {
        for file in paths::POLICY_FILES {
            copier.copy(&paths::policy_file(policy, file), MAX_ATTRIBUTE_BYTES)?;
        }
    }

    for zone in root.list_dir(paths::POWERCAP_DIR).unwrap_or_default().iter().filter(|z| paths::is_rapl_zone(z)) {
        for file in paths::RAPL_FILES {
            copier.copy(&format!("{}/{zone}/{file}", paths::POWERCAP_DIR), MAX_ATTRIBUTE_BYTES)?;
        }
    }
    copier.copy(platform::LEGACY_PROFILE, MAX_ATTRIBUTE_BYTES)?;
    copier.copy(platform::LEGACY_CHOICES, MAX_ATTRIBUTE_BYTES)?;
    // Class entries are links into the devices of their drivers: copied as
    // plain directories, which read the same.
    for number in platform::class_numbers(&root.list_dir(platform::CLASS_DIR).unwrap_or_default()) {
        for file in ["name", "profile", "choices"] {
            copier.copy(&format!("{}/platform-profile-{number}/{file}", platform::CLASS_DIR), MAX_ATTRIBUTE_BYTES)?;
        }
    }
    copier.copy(paths::DYTC_LAPMODE, MAX_ATTRIBUTE_BYTES)?;
    let supplies = crate::core::power_supply::POWER_SUPPLY_DIR;
    for name in root.list_dir(supplies).unwrap_or_default().iter().filter(|n| !n.contains('/') && !n.starts_with('.')) {
        for file in ["type", "charge_type", "charge_types", "scope"] {
            copier.copy(&format!("{supplies}/{name}/{file}"), MAX_ATTRIBUTE_BYTES)?;
        }
    }
    for name in root.list_dir(OVERRIDE_DIR).unwrap_or_default().iter().filter(|n| n.ends_with(".toml")) {
        copier.copy(&format!("{OVERRIDE_DIR}/{name}"), MAX_ATTRIBUTE_BYTES * 16)?;
    }
    copier.copy(&format!("{STATE_DIR}/{PROFILES_FILE}"), MAX_ATTRIBUTE_BYTES * 16)?;
    Ok(copier.summary)
}

/// The policy number a CPU's `cpufreq` link names, when it resolves under the root.
fn policy_target(root: &SysRoot, cpu: u32) -> Option<u32> {
    let rel = cpu_file(cpu, "cpufreq");
    match root.kind(&rel) {
        EntryKind::LinkToDir | EntryKind::DanglingLink => {
            let target = root.read_link(&rel)?;
            let policy = numbered(target.file_name()?.to_str()?, "policy")?;
            (root.kind(&paths::policy_dir(policy)) != EntryKind::Missing).then_some(policy)
        }
        EntryKind::Dir => Some(cpu),
        _ => None,
    }
}

fn make_parent(path: &Path) -> Result<(), SnapshotError> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|source| SnapshotError::Write { path: parent.to_owned(), source })?;
    }
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), SnapshotError> {
    make_parent(path)?;
    fs::write(path, bytes).map_err(|source| SnapshotError::Write { path: path.to_owned(), source })
}

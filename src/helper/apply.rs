//! Writing a plan to sysfs, all or nothing.
//!
//! Each target file is opened, read, and written only when it does not hold
//! the wanted value already. Globals go first, then frequency limits, then
//! governors, then energy preferences (the kernel refuses EPP above 0 under
//! the `performance` governor). If any write fails, every write this plan
//! already made is undone, newest first, and the failure is reported with
//! CPU, attribute and errno.
//!
//! Paths are built only from the plan's integers and the fixed attribute
//! names below: nothing received from a client becomes part of a path. Each
//! is opened with `openat2(RESOLVE_BENEATH)` relative to the root's CPU
//! directory, so a symlinked policy directory that leads out of the tree is
//! refused (EXDEV) instead of followed (docs/dbus-api.md, "Path safety").

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

mod files;
mod steps;
#[cfg(test)]
mod tests;

pub use files::errno_name;
use files::{is_fuse, is_sysfs, open_beneath, read_bytes, read_value, value_of};
pub use steps::plan_files;
use steps::{holds, steps, Step};

use crate::core::parse::EppReading;
use crate::core::paths;
use crate::core::plan::Plan;
use crate::core::platform::HandlerId;
use crate::core::root::SysRoot;

/// What is written where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Target {
    /// A global file under the CPU tree (`intel_pstate/no_turbo`).
    Global(&'static str),
    /// A policy attribute (`scaling_governor`), for the CPUs of policy N.
    Policy(u32, &'static str),
    /// A per-CPU attribute (`power/energy_perf_bias`).
    Cpu(u32, &'static str),
    /// A platform profile handler's `profile` file.
    Platform(HandlerId),
    /// A CPU's own platform profile (amd-pstate's dynamic EPP).
    CpuPlatform(HandlerId),
}

impl Target {
    fn rel_path(self) -> String {
        match self {
            Target::Global(attr) => paths::global_file(attr),
            Target::Policy(policy, attr) => paths::policy_file(policy, attr),
            Target::Cpu(cpu, attr) => paths::cpu_file(cpu, attr),
            Target::Platform(handler) | Target::CpuPlatform(handler) => handler.profile_file(),
        }
    }

    /// The directory the target is opened beneath, and the path below it.
    /// CPU files stay beneath the CPU directory; a platform profile's beneath
    /// `sys/` (its class entries are links into the devices of their
    /// drivers, `sys/devices/platform/...`).
    fn below_base(self) -> (Base, String) {
        let full = self.rel_path();
        let (base, prefix) = match self {
            Target::Platform(_) | Target::CpuPlatform(_) => (Base::Sys, "sys"),
            _ => (Base::CpuDir, paths::CPU_DIR),
        };
        let below = full.strip_prefix(prefix).map_or(full.clone(), |rest| rest.trim_start_matches('/').to_owned());
        (base, below)
    }

    /// The attribute's name.
    pub fn attr(self) -> &'static str {
        match self {
            Target::Global(a) | Target::Policy(_, a) | Target::Cpu(_, a) => a,
            Target::Platform(_) | Target::CpuPlatform(_) => "platform_profile",
        }
    }

    /// Whether it is a CPU's energy performance preference.
    pub fn is_epp(self) -> bool {
        matches!(self, Target::Policy(_, "energy_performance_preference"))
    }

    /// What it is, for messages: "scaling_governor for CPU 0-3", or "the
    /// platform profile (sys/firmware/acpi/platform_profile)".
    pub fn describe(self, cpus: &[u32]) -> String {
        self.said(cpus).english()
    }

    /// [`Target::describe`], for a reader who translates it.
    pub fn said(self, cpus: &[u32]) -> crate::i18n::Text {
        use crate::i18n::i18n_text;
        let cpus = crate::core::parse::format_cpu_list(cpus);
        match self {
            Target::Platform(handler) => i18n_text("the platform profile ({file})").arg("file", handler.profile_file()),
            Target::CpuPlatform(handler) => i18n_text("the platform profile of CPU {cpus} ({file})")
                .arg("cpus", cpus)
                .arg("file", handler.profile_file()),
            _ => i18n_text("{attribute} for CPU {cpus}").arg("attribute", self.attr()).arg("cpus", cpus),
        }
    }
}

/// Which directory a target is opened beneath.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    CpuDir,
    Sys,
}

/// One write that was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Where.
    pub target: Target,
    /// The CPUs it affects.
    pub cpus: Vec<u32>,
    /// The value before.
    pub from: String,
    /// The value written.
    pub to: String,
    /// What the file showed before, byte for byte: a plain file (a
    /// snapshot, a test's testbed) is put back exactly so when the change
    /// is undone.
    #[serde(skip)]
    pub original: Vec<u8>,
}

/// Whether a file that already shows the wanted value is written anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rewrite {
    /// Only what differs is written (every request).
    IfDifferent,
    /// Every file is written (after resume: firmware may have reset the
    /// hardware while sysfs still shows the text last written).
    Always,
}

/// What applying a plan did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ApplyReport {
    /// Every write of a value that differed.
    pub changes: Vec<Change>,
    /// Best-effort writes the kernel refused (AMD's boost off in Power
    /// Saver): left as they were, and said in the summary.
    pub skipped: Vec<FailedWrite>,
    /// Files that already held the value (with [`Rewrite::Always`], written
    /// again all the same).
    pub unchanged: usize,
    /// The CPUs the plan covers.
    pub cpus: Vec<u32>,
}

/// What one step wrote.
enum Written {
    /// A value that differed.
    Changed(Change),
    /// The value the file held already; written again (with what it showed
    /// before, to undo) or not.
    SameValue(Option<Change>),
}

/// One write that failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedWrite {
    /// Where.
    pub target: Target,
    /// The CPUs it affects.
    pub cpus: Vec<u32>,
    /// The errno name (`EBUSY`), when there is one.
    pub errno: Option<&'static str>,
    /// What the system said.
    pub message: String,
    /// For EBUSY: why, as the files showed right after.
    pub busy: Option<Busy>,
}

/// Why the kernel answered EBUSY, found out after the fact rather than
/// guessed: the kernel has several reasons, and each has its own remedy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Busy {
    /// amd-pstate's dynamic EPP is on: every EPP write is refused.
    DynamicEpp,
    /// A CPU of the write is offline (its policy is inactive).
    CpuOffline,
    /// The performance governor holds EPP at 0.
    PerformanceGovernor,
    /// None of those: the files do not say.
    Unknown,
}

/// Why a plan could not be applied, and whether undoing it worked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApplyFailure {
    /// The write that failed.
    pub failed: Box<FailedWrite>,
    /// Writes undone successfully.
    pub restored: usize,
    /// Writes that could not be undone.
    pub not_restored: Vec<FailedWrite>,
}

/// Writes plans under a root.
///
/// The files it writes stay open between requests, so that a switch costs
/// a read and (where the value differs) a write per file, not an open and
/// a close too. [`Applier::forget_files`] drops them when CPUs come or go.
pub struct Applier {
    root: SysRoot,
    /// The root's CPU directory, which every CPU file stays beneath.
    cpu_dir: Option<File>,
    /// The root's `sys/`, which platform profile files stay beneath.
    sys_dir: Option<File>,
    /// sysfs replaces a file's content on each write; a snapshot's plain
    /// files need truncating to behave the same, and may be replaced
    /// behind our back (a test breaking a file), which sysfs files are not.
    plain_files: bool,
    /// Plain files that show what was last written to them, byte for byte
    /// (a snapshot or a test's testbed on an ordinary file system, not the
    /// kernel emulator, which answers as sysfs does): one that holds the
    /// wanted value in other bytes (`powersave\n` for `powersave`) is
    /// written again, so that it shows exactly what sysfs would have been
    /// given, as power-profiles-daemon's own tests compare. Such a write
    /// changes no value: it is undone with the rest, and not reported.
    exact_bytes: bool,
    open: Mutex<HashMap<Target, File>>,
}

impl Applier {
    /// An applier for `root`.
    pub fn new(root: SysRoot) -> Self {
        let plain_files = !is_sysfs(&root.path(paths::CPU_DIR));
        let exact_bytes = plain_files && !is_fuse(&root.path(paths::CPU_DIR));
        let open_dir = |rel: &str| {
            OpenOptions::new().read(true).custom_flags(libc::O_CLOEXEC | libc::O_DIRECTORY).open(root.path(rel)).ok()
        };
        let cpu_dir = open_dir(paths::CPU_DIR);
        let sys_dir = open_dir("sys");
        Applier { root, cpu_dir, sys_dir, plain_files, exact_bytes, open: Mutex::new(HashMap::new()) }
    }

    /// Closes every kept file (after hotplug: policies may have changed).
    pub fn forget_files(&self) {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// The root written to.
    pub fn root(&self) -> &SysRoot {
        &self.root
    }

    /// Applies a plan. `epp_value` tells which number an EPP name stands
    /// for on this kernel, so that a file showing `balance_performance`
    /// counts as holding 64 where the kernel says so.
    ///
    /// # Errors
    /// An [`ApplyFailure`] after every write already made was undone.
    pub fn apply(
        &self,
        plan: &Plan,
        epp_value: &dyn Fn(EppReading) -> Option<u8>,
        rewrite: Rewrite,
    ) -> Result<ApplyReport, ApplyFailure> {
        let steps = steps(plan);
        let mut files = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let mut report = ApplyReport { cpus: plan.cpus.iter().map(|c| c.cpu).collect(), ..ApplyReport::default() };
        // Every write, in order, to undo on a failure: the changes and the
        // rewrites of equal values in other bytes.
        let mut written: Vec<Change> = Vec::new();
        for step in &steps {
            match self.write_step(&mut files, step, epp_value, rewrite) {
                Ok(Written::Changed(change)) => {
                    written.push(change.clone());
                    report.changes.push(change);
                }
                Ok(Written::SameValue(rewritten)) => {
                    written.extend(rewritten);
                    report.unchanged += 1;
                }
                Err(failed) if step.best_effort => {
                    log::info!("{} refused ({}): left as it was", failed.target.describe(&failed.cpus), failed.message);
                    report.skipped.push(failed);
                }
                Err(mut failed) => {
                    failed.busy = self.why_busy(&failed);
                    return Err(self.roll_back(&mut files, &written, failed));
                }
            }
        }
        Ok(report)
    }

    /// Why a write answered EBUSY, read from the files right after: the
    /// kernel's dynamic EPP (every EPP write), an offline CPU (every file
    /// of its policy), the performance governor (EPP above 0), in that
    /// order; `None` for other errors.
    fn why_busy(&self, failed: &FailedWrite) -> Option<Busy> {
        if failed.errno != Some("EBUSY") {
            return None;
        }
        let read = |rel: &str| self.root.read_text(rel, 64).ok().flatten().map(|t| t.trim().to_owned());
        let dynamic = read(&paths::global_file(paths::DYNAMIC_EPP))
            .is_some_and(|t| crate::core::parse::parse_enabled(&t) == Ok(true));
        if failed.target.is_epp() && dynamic {
            return Some(Busy::DynamicEpp);
        }
        if failed.cpus.iter().any(|cpu| read(&paths::cpu_file(*cpu, "online")).as_deref() == Some("0")) {
            return Some(Busy::CpuOffline);
        }
        if let Target::Policy(policy, "energy_performance_preference") = failed.target {
            if read(&paths::policy_file(policy, "scaling_governor")).as_deref() == Some("performance") {
                return Some(Busy::PerformanceGovernor);
            }
        }
        Some(Busy::Unknown)
    }

    /// The kept file for a target, opened (or reopened) as needed.
    fn file<'f>(&self, files: &'f mut HashMap<Target, File>, target: Target) -> io::Result<&'f File> {
        let stale = match files.get(&target) {
            // A snapshot's file may have been replaced; sysfs files are not.
            Some(file) => self.plain_files && file.metadata().map_or(true, |m| m.nlink() == 0),
            None => true,
        };
        if stale {
            files.remove(&target);
            let (base, below) = target.below_base();
            let dir = match base {
                Base::CpuDir => self.cpu_dir.as_ref(),
                Base::Sys => self.sys_dir.as_ref(),
            };
            let dir = dir.ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))?;
            let file = open_beneath(dir, &below)?;
            files.insert(target, file);
        }
        files.get(&target).ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    /// True when every file of `plan` holds its value already (nothing is
    /// written). Used where the helper must not write (another power manager
    /// runs) but must not claim a profile the files do not hold either.
    pub fn holds_plan(&self, plan: &Plan, epp_value: &dyn Fn(EppReading) -> Option<u8>) -> bool {
        let mut files = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        steps(plan).iter().all(|step| {
            self.file(&mut files, step.target)
                .and_then(read_value)
                .is_ok_and(|current| holds(&current, &step.text, step.want, epp_value))
        })
    }

    /// The files of `plan` that show something else than the plan's value
    /// (nothing is written): what changed behind the helper's back since
    /// the plan was applied. `from` is what the file shows, `to` the plan's
    /// value; a file that cannot be read counts as holding it (the apply
    /// that follows reports the error).
    pub fn differences(&self, plan: &Plan, epp_value: &dyn Fn(EppReading) -> Option<u8>) -> Vec<Change> {
        let mut files = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = Vec::new();
        for step in steps(plan) {
            let Ok(original) = self.file(&mut files, step.target).and_then(read_bytes) else {
                files.remove(&step.target);
                continue;
            };
            let current = value_of(&original);
            if !holds(&current, &step.text, step.want, epp_value) {
                out.push(Change { target: step.target, cpus: step.cpus, from: current, to: step.text, original });
            }
        }
        out
    }

    /// True when the files kept open belong to cpufreq policies that are
    /// gone: a driver mode change (`intel_pstate/status`,
    /// `amd_pstate/status`) unregisters the driver and creates every policy
    /// afresh, and a kept sysfs file then answers ENODEV. One read of one
    /// kept policy file tells (they all go together). The kernel announces
    /// such a change in no other way (docs/dbus-api.md, "When the helper
    /// applies by itself").
    pub fn policies_replaced(&self) -> bool {
        let files = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(file) = files.iter().find_map(|(t, f)| matches!(t, Target::Policy(..)).then_some(f)) else {
            return false;
        };
        let mut buf = [0u8; 64];
        matches!(file.read_at(&mut buf, 0), Err(e) if e.raw_os_error() == Some(libc::ENODEV))
    }

    /// What one global file of the CPU tree shows (a driver's `status`),
    /// read through a kept file: one pread.
    pub fn read_global(&self, attr: &'static str) -> Option<String> {
        let mut files = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let target = Target::Global(attr);
        let value = self.file(&mut files, target).and_then(read_value);
        if value.is_err() {
            files.remove(&target);
        }
        value.ok()
    }

    /// Writes one global file of the CPU tree (a driver's `status`) and
    /// answers what it held before; every kept file is closed afterwards
    /// (a mode change creates the policies afresh).
    ///
    /// # Errors
    /// The write failed, with the errno.
    pub fn write_global(&self, attr: &'static str, text: &str) -> Result<String, FailedWrite> {
        let mut files = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let target = Target::Global(attr);
        let result = self.file(&mut files, target).and_then(|file| {
            let before = read_value(file)?;
            self.write_value(file, text)?;
            Ok(before)
        });
        files.clear();
        result.map_err(|err| FailedWrite {
            busy: None,
            target,
            cpus: Vec::new(),
            errno: errno_name(&err),
            message: err.to_string(),
        })
    }

    /// Writes `text` to `rel` (a path under `sys/` that the helper built
    /// from the kernel's own directory names), opened beneath `sys/`, and
    /// only when it holds something else. True when it wrote.
    ///
    /// # Errors
    /// The file cannot be opened, read or written.
    pub fn write_beneath_sys(&self, rel: &str, text: &str) -> io::Result<bool> {
        let dir = self.sys_dir.as_ref().ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))?;
        let below = rel.strip_prefix("sys/").ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        let file = open_beneath(dir, below)?;
        if read_value(&file)? == text {
            return Ok(false);
        }
        self.write_value(&file, text)?;
        Ok(true)
    }

    /// What `scaling_governor` of `policy` holds now (read through the kept
    /// file: one pread).
    ///
    /// # Errors
    /// The file cannot be opened or read.
    pub fn governor_now(&self, policy: u32) -> io::Result<String> {
        let mut files = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let target = Target::Policy(policy, "scaling_governor");
        let result = self.file(&mut files, target).and_then(read_value);
        if result.is_err() {
            files.remove(&target);
        }
        result
    }

    fn write_step(
        &self,
        files: &mut HashMap<Target, File>,
        step: &Step,
        epp_value: &dyn Fn(EppReading) -> Option<u8>,
        rewrite: Rewrite,
    ) -> Result<Written, FailedWrite> {
        let result = self.file(files, step.target).and_then(|file| {
            let original = read_bytes(file)?;
            let current = value_of(&original);
            let (target, cpus, to) = (step.target, step.cpus.clone(), step.text.clone());
            if holds(&current, &step.text, step.want, epp_value) {
                let other_bytes = self.exact_bytes && current == step.text && original != step.text.as_bytes();
                if rewrite == Rewrite::Always || other_bytes {
                    // The same value again: what the file shows stays, what
                    // the hardware holds is set.
                    self.write_value(file, &step.text)?;
                    return Ok(Written::SameValue(Some(Change { target, cpus, from: current, to, original })));
                }
                return Ok(Written::SameValue(None));
            }
            self.write_value(file, &step.text)?;
            Ok(Written::Changed(Change { target, cpus, from: current, to, original }))
        });
        result.map_err(|err| {
            // Whatever went wrong, open the file afresh next time.
            files.remove(&step.target);
            FailedWrite {
                target: step.target,
                cpus: step.cpus.clone(),
                errno: errno_name(&err),
                message: err.to_string(),
                busy: None,
            }
        })
    }

    /// Writes the value alone, without a newline, as power-profiles-daemon
    /// does (sysfs takes both); a plain file keeps nothing of its old
    /// content (docs/dbus-api.md, "Differences from power-profiles-daemon").
    fn write_value(&self, file: &File, text: &str) -> io::Result<()> {
        self.write_bytes(file, text.as_bytes())
    }

    fn write_bytes(&self, file: &File, bytes: &[u8]) -> io::Result<()> {
        let written = file.write_at(bytes, 0)?;
        if written != bytes.len() {
            return Err(io::Error::new(io::ErrorKind::WriteZero, "short write"));
        }
        if self.plain_files {
            file.set_len(bytes.len() as u64)?;
        }
        Ok(())
    }

    fn roll_back(&self, files: &mut HashMap<Target, File>, changes: &[Change], failed: FailedWrite) -> ApplyFailure {
        let mut restored = 0;
        let mut not_restored = Vec::new();
        for change in changes.iter().rev() {
            // A plain file gets its bytes back; sysfs, the value.
            let result = self.file(files, change.target).and_then(|file| {
                if self.plain_files {
                    self.write_bytes(file, &change.original)
                } else {
                    self.write_value(file, &change.from)
                }
            });
            match result {
                Ok(()) => restored += 1,
                Err(err) => not_restored.push(FailedWrite {
                    target: change.target,
                    cpus: change.cpus.clone(),
                    errno: errno_name(&err),
                    message: err.to_string(),
                    busy: None,
                }),
            }
        }
        ApplyFailure { failed: Box::new(failed), restored, not_restored }
    }
}

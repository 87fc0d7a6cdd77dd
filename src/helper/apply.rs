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

use crate::core::machine::TurboControl;
use crate::core::parse::{parse_epp, EppReading};
use crate::core::paths;
use crate::core::plan::{Plan, Preference};
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
}

impl Target {
    fn rel_path(self) -> String {
        match self {
            Target::Global(attr) => paths::global_file(attr),
            Target::Policy(policy, attr) => paths::policy_file(policy, attr),
            Target::Cpu(cpu, attr) => paths::cpu_file(cpu, attr),
            Target::Platform(handler) => handler.profile_file(),
        }
    }

    /// The directory the target is opened beneath, and the path below it.
    /// CPU files stay beneath the CPU directory; a platform profile's beneath
    /// `sys/` (its class entries are links into the devices of their
    /// drivers, `sys/devices/platform/...`).
    fn below_base(self) -> (Base, String) {
        let full = self.rel_path();
        let (base, prefix) = match self {
            Target::Platform(_) => (Base::Sys, "sys"),
            _ => (Base::CpuDir, paths::CPU_DIR),
        };
        let below = full.strip_prefix(prefix).map_or(full.clone(), |rest| rest.trim_start_matches('/').to_owned());
        (base, below)
    }

    /// The attribute's name.
    pub fn attr(self) -> &'static str {
        match self {
            Target::Global(a) | Target::Policy(_, a) | Target::Cpu(_, a) => a,
            Target::Platform(_) => "platform_profile",
        }
    }

    /// What it is, for messages: "scaling_governor for CPU 0-3", or "the
    /// platform profile (sys/firmware/acpi/platform_profile)".
    pub fn describe(self, cpus: &[u32]) -> String {
        match self {
            Target::Platform(handler) => format!("the platform profile ({})", handler.profile_file()),
            _ => format!("{} for CPU {}", self.attr(), crate::core::parse::format_cpu_list(cpus)),
        }
    }
}

/// Which directory a target is opened beneath.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    CpuDir,
    Sys,
}

/// How "already holds the value" is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// The same word (governor, preference name).
    Word,
    /// The same number.
    Number,
    /// An EPP number, where the file may show the name of that number.
    EppNumber(u8),
}

#[derive(Debug, Clone)]
struct Step {
    target: Target,
    /// The CPUs this write affects (for reports).
    cpus: Vec<u32>,
    text: String,
    want: Want,
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
    /// Files that already held the value (with [`Rewrite::Always`], written
    /// again all the same).
    pub unchanged: usize,
    /// The CPUs the plan covers.
    pub cpus: Vec<u32>,
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
}

/// Why a plan could not be applied, and whether undoing it worked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApplyFailure {
    /// The write that failed.
    pub failed: FailedWrite,
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
    open: Mutex<HashMap<Target, File>>,
}

impl Applier {
    /// An applier for `root`.
    pub fn new(root: SysRoot) -> Self {
        let plain_files = !is_sysfs(&root.path(paths::CPU_DIR));
        let open_dir = |rel: &str| {
            OpenOptions::new().read(true).custom_flags(libc::O_CLOEXEC | libc::O_DIRECTORY).open(root.path(rel)).ok()
        };
        let cpu_dir = open_dir(paths::CPU_DIR);
        let sys_dir = open_dir("sys");
        Applier { root, cpu_dir, sys_dir, plain_files, open: Mutex::new(HashMap::new()) }
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
        for step in &steps {
            match self.write_step(&mut files, step, epp_value, rewrite) {
                Ok(Some(change)) => report.changes.push(change),
                Ok(None) => report.unchanged += 1,
                Err(failed) => return Err(self.roll_back(&mut files, &report.changes, failed)),
            }
        }
        Ok(report)
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
            let Ok(current) = self.file(&mut files, step.target).and_then(read_value) else {
                files.remove(&step.target);
                continue;
            };
            if !holds(&current, &step.text, step.want, epp_value) {
                out.push(Change { target: step.target, cpus: step.cpus, from: current, to: step.text });
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
    ) -> Result<Option<Change>, FailedWrite> {
        let result = self.file(files, step.target).and_then(|file| {
            let current = read_value(file)?;
            if holds(&current, &step.text, step.want, epp_value) {
                if rewrite == Rewrite::Always {
                    // The same value again: what the file shows stays, what
                    // the hardware holds is set.
                    self.write_value(file, &step.text)?;
                }
                return Ok(None);
            }
            self.write_value(file, &step.text)?;
            Ok(Some(Change { target: step.target, cpus: step.cpus.clone(), from: current, to: step.text.clone() }))
        });
        result.map_err(|err| {
            // Whatever went wrong, open the file afresh next time.
            files.remove(&step.target);
            FailedWrite {
                target: step.target,
                cpus: step.cpus.clone(),
                errno: errno_name(&err),
                message: err.to_string(),
            }
        })
    }

    fn write_value(&self, file: &File, text: &str) -> io::Result<()> {
        // A snapshot's plain file is made to read back as sysfs would show
        // it: the value and a newline, nothing left of the old content.
        let shown;
        let bytes = if self.plain_files {
            shown = format!("{text}\n");
            shown.as_bytes()
        } else {
            text.as_bytes()
        };
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
            let result = self.file(files, change.target).and_then(|file| self.write_value(file, &change.from));
            match result {
                Ok(()) => restored += 1,
                Err(err) => not_restored.push(FailedWrite {
                    target: change.target,
                    cpus: change.cpus.clone(),
                    errno: errno_name(&err),
                    message: err.to_string(),
                }),
            }
        }
        ApplyFailure { failed, restored, not_restored }
    }
}

/// Opens `rel` read-write beneath `dir`: no `..`, no symlink that leads out
/// of `dir`, no magic links, no symlink as the last component.
fn open_beneath(dir: &File, rel: &str) -> io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let c_rel = std::ffi::CString::new(rel).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: open_how is plain integers; all-zero is its documented default.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_RDWR | libc::O_CLOEXEC | libc::O_NOFOLLOW) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: openat2 reads the NUL-terminated path and the open_how struct
    // we own, of the size we pass; a descriptor it returns is ours alone.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir.as_raw_fd(),
            c_rel.as_ptr(),
            std::ptr::addr_of!(how),
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::ENOSYS) {
            // A kernel before 5.6, or a sandbox (valgrind) that lacks openat2.
            return open_walking(dir, &c_rel);
        }
        return Err(err);
    }
    let fd = i32::try_from(fd).map_err(|_| io::Error::from_raw_os_error(libc::EBADF))?;
    // SAFETY: fd is a fresh descriptor that nothing else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// `open_beneath` without openat2: one component at a time, each opened
/// with `O_NOFOLLOW` below the previous one, so that no symbolic link at all
/// is followed (stricter than `RESOLVE_BENEATH`; the paths the helper writes
/// have none) and `..` is refused.
fn open_walking(dir: &File, rel: &std::ffi::CStr) -> io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let bytes = rel.to_bytes();
    let mut parts = bytes.split(|b| *b == b'/').filter(|p| !p.is_empty() && *p != b".").peekable();
    let mut held: Option<OwnedFd> = None;
    while let Some(part) = parts.next() {
        if part == b".." {
            return Err(io::Error::from_raw_os_error(libc::EXDEV));
        }
        let name = std::ffi::CString::new(part).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        let last = parts.peek().is_none();
        let flags =
            libc::O_CLOEXEC | libc::O_NOFOLLOW | if last { libc::O_RDWR } else { libc::O_PATH | libc::O_DIRECTORY };
        let at = held.as_ref().map_or(dir.as_raw_fd(), AsRawFd::as_raw_fd);
        // SAFETY: openat reads the NUL-terminated name; a descriptor it
        // returns is ours alone.
        let fd = unsafe { libc::openat(at, name.as_ptr(), flags) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        if last {
            return Ok(File::from(fd));
        }
        held = Some(fd);
    }
    Err(io::Error::from_raw_os_error(libc::EINVAL))
}

fn read_value(file: &File) -> io::Result<String> {
    let mut buf = [0u8; 256];
    let n = file.read_at(&mut buf, 0)?;
    Ok(String::from_utf8_lossy(&buf[..n]).trim().to_owned())
}

fn holds(current: &str, wanted: &str, want: Want, epp_value: &dyn Fn(EppReading) -> Option<u8>) -> bool {
    match want {
        Want::Word => current == wanted,
        Want::Number => current.parse::<u64>().ok().is_some_and(|c| Some(c) == wanted.parse::<u64>().ok()),
        Want::EppNumber(value) => parse_epp(current).ok().and_then(epp_value) == Some(value),
    }
}

/// The writes a plan needs, in the order the kernel needs them.
fn steps(plan: &Plan) -> Vec<Step> {
    let mut out = Vec::new();
    let all: Vec<u32> = plan.cpus.iter().map(|c| c.cpu).collect();
    // The firmware's profile first: it sets the power limits the CPU
    // settings then work within, as power-profiles-daemon orders them.
    for setting in &plan.platform {
        out.push(Step {
            target: Target::Platform(setting.handler),
            cpus: all.clone(),
            text: setting.choice.clone(),
            want: Want::Word,
        });
    }
    if let Some(turbo) = plan.turbo {
        let on = if turbo.on { "1" } else { "0" };
        match turbo.control {
            TurboControl::IntelNoTurbo => out.push(Step {
                target: Target::Global("intel_pstate/no_turbo"),
                cpus: all.clone(),
                text: if turbo.on { "0" } else { "1" }.into(),
                want: Want::Number,
            }),
            TurboControl::GlobalBoost => out.push(Step {
                target: Target::Global("cpufreq/boost"),
                cpus: all.clone(),
                text: on.into(),
                want: Want::Number,
            }),
            TurboControl::PolicyBoost => {
                let mut policies: Vec<(u32, Vec<u32>)> = Vec::new();
                for setting in &plan.cpus {
                    let Some(policy) = setting.policy else { continue };
                    match policies.iter_mut().find(|(p, _)| *p == policy) {
                        Some((_, cpus)) => cpus.push(setting.cpu),
                        None => policies.push((policy, vec![setting.cpu])),
                    }
                }
                out.extend(policies.into_iter().map(|(policy, cpus)| Step {
                    target: Target::Policy(policy, "boost"),
                    cpus,
                    text: on.into(),
                    want: Want::Number,
                }));
            }
        }
    }
    if let Some(boost) = plan.dynamic_boost {
        out.push(Step {
            target: Target::Global("intel_pstate/hwp_dynamic_boost"),
            cpus: all.clone(),
            text: if boost { "1" } else { "0" }.into(),
            want: Want::Number,
        });
    }
    let per_policy = |attr: &'static str, value: &dyn Fn(&crate::core::plan::CpuSetting) -> Option<(String, Want)>| {
        let mut seen: Vec<u32> = Vec::new();
        let mut steps: Vec<Step> = Vec::new();
        for setting in &plan.cpus {
            let (Some(policy), Some((text, want))) = (setting.policy, value(setting)) else { continue };
            if let Some(i) = seen.iter().position(|p| *p == policy) {
                steps[i].cpus.push(setting.cpu);
                continue;
            }
            seen.push(policy);
            steps.push(Step { target: Target::Policy(policy, attr), cpus: vec![setting.cpu], text, want });
        }
        steps
    };
    // Raising the floor above the old ceiling fails, and so does lowering
    // the ceiling under the old floor: the ceiling goes first when it rises.
    let max = per_policy("scaling_max_freq", &|s| s.max_khz.map(|v| (v.to_string(), Want::Number)));
    let min = per_policy("scaling_min_freq", &|s| s.min_khz.map(|v| (v.to_string(), Want::Number)));
    out.extend(max);
    out.extend(min);
    out.extend(per_policy("scaling_governor", &|s| s.governor.clone().map(|g| (g, Want::Word))));
    out.extend(per_policy("energy_performance_preference", &|s| match s.preference {
        Some(Preference::EppNumber(v)) => Some((v.to_string(), Want::EppNumber(v))),
        Some(Preference::EppName(name)) => Some((name.as_str().to_owned(), Want::Word)),
        _ => None,
    }));
    for setting in &plan.cpus {
        let bias = match setting.preference {
            Some(Preference::Bias(bias)) => Some(bias),
            _ => setting.companion_bias,
        };
        if let Some(bias) = bias {
            out.push(Step {
                target: Target::Cpu(setting.cpu, "power/energy_perf_bias"),
                cpus: vec![setting.cpu],
                text: bias.to_string(),
                want: Want::Number,
            });
        }
    }
    out
}

/// Every file `plan` writes, relative to the root, in the order written.
pub fn plan_files(plan: &Plan) -> Vec<String> {
    steps(plan).into_iter().map(|step| step.target.rel_path()).collect()
}

/// True when `path` is on sysfs.
fn is_sysfs(path: &std::path::Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: statfs fills the zeroed struct we own; the path is NUL-terminated.
    unsafe {
        let mut stat: libc::statfs = std::mem::zeroed();
        libc::statfs(c_path.as_ptr(), &mut stat) == 0 && stat.f_type == libc::SYSFS_MAGIC
    }
}

/// The symbolic name of an errno.
pub fn errno_name(err: &io::Error) -> Option<&'static str> {
    Some(match err.raw_os_error()? {
        libc::EBUSY => "EBUSY",
        libc::EINVAL => "EINVAL",
        libc::EPERM => "EPERM",
        libc::EACCES => "EACCES",
        libc::EIO => "EIO",
        libc::ENOENT => "ENOENT",
        libc::EISDIR => "EISDIR",
        libc::ENOTDIR => "ENOTDIR",
        libc::ELOOP => "ELOOP",
        libc::EROFS => "EROFS",
        libc::ENODEV => "ENODEV",
        libc::ENXIO => "ENXIO",
        libc::EAGAIN => "EAGAIN",
        libc::ENOSPC => "ENOSPC",
        libc::EXDEV => "EXDEV",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::parse::EppName;
    use crate::core::plan::CpuSetting;
    use std::fs;

    fn setting(cpu: u32, governor: &str, preference: Preference) -> CpuSetting {
        CpuSetting {
            cpu,
            policy: Some(cpu),
            governor: Some(governor.into()),
            preference: Some(preference),
            epp_value: None,
            min_khz: None,
            max_khz: None,
            companion_bias: None,
        }
    }

    fn tree(cpus: u32) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for cpu in 0..cpus {
            let p = dir.path().join(paths::policy_dir(cpu));
            fs::create_dir_all(&p).unwrap();
            fs::write(p.join("scaling_governor"), "performance\n").unwrap();
            fs::write(p.join("energy_performance_preference"), "balance_performance\n").unwrap();
        }
        dir
    }

    fn read(dir: &tempfile::TempDir, cpu: u32, attr: &str) -> String {
        fs::read_to_string(dir.path().join(paths::policy_file(cpu, attr))).unwrap()
    }

    #[test]
    fn governor_first_then_epp_and_equal_values_are_skipped() {
        let dir = tree(2);
        let applier = Applier::new(SysRoot::open(dir.path()).unwrap());
        let plan = Plan {
            profile: "x".into(),
            cpus: vec![
                setting(0, "powersave", Preference::EppNumber(64)),
                setting(1, "powersave", Preference::EppNumber(64)),
            ],
            turbo: None,
            dynamic_boost: None,
            platform: Vec::new(),
        };
        let names = |r: EppReading| match r {
            EppReading::Value(v) => Some(v),
            EppReading::Name(EppName::BalancePerformance) => Some(128),
            EppReading::Name(_) => None,
        };
        let report = applier.apply(&plan, &names, Rewrite::IfDifferent).unwrap();
        let order: Vec<&str> = report.changes.iter().map(|c| c.target.attr()).collect();
        assert_eq!(
            order,
            ["scaling_governor", "scaling_governor", "energy_performance_preference", "energy_performance_preference"]
        );
        assert_eq!(read(&dir, 1, "energy_performance_preference"), "64\n");
        assert_eq!(read(&dir, 0, "scaling_governor"), "powersave\n");
        // Again: nothing to write.
        let again = applier.apply(&plan, &names, Rewrite::IfDifferent).unwrap();
        assert!(again.changes.is_empty());
        assert_eq!(again.unchanged, 4);
        // A name that stands for the wanted number counts as holding it.
        fs::write(dir.path().join(paths::policy_file(0, "energy_performance_preference")), "balance_performance\n")
            .unwrap();
        let named = |r: EppReading| match r {
            EppReading::Name(EppName::BalancePerformance) => Some(64),
            EppReading::Value(v) => Some(v),
            EppReading::Name(_) => None,
        };
        assert!(applier.apply(&plan, &named, Rewrite::IfDifferent).unwrap().changes.is_empty());
    }

    #[test]
    fn turbo_is_switched_by_the_machines_own_file() {
        use crate::core::plan::Turbo;
        let plan = |control| Plan {
            profile: "x".into(),
            cpus: vec![
                setting(0, "powersave", Preference::EppNumber(64)),
                setting(1, "powersave", Preference::EppNumber(64)),
            ],
            turbo: Some(Turbo { on: false, control }),
            dynamic_boost: None,
            platform: Vec::new(),
        };
        let turbo_files = |control| -> Vec<String> {
            plan_files(&plan(control)).into_iter().filter(|f| f.contains("turbo") || f.ends_with("boost")).collect()
        };
        assert_eq!(turbo_files(TurboControl::IntelNoTurbo), ["sys/devices/system/cpu/intel_pstate/no_turbo"]);
        assert_eq!(turbo_files(TurboControl::GlobalBoost), ["sys/devices/system/cpu/cpufreq/boost"]);
        assert_eq!(
            turbo_files(TurboControl::PolicyBoost),
            ["sys/devices/system/cpu/cpufreq/policy0/boost", "sys/devices/system/cpu/cpufreq/policy1/boost"]
        );
        let off: Vec<String> = steps(&plan(TurboControl::GlobalBoost)).into_iter().map(|s| s.text).collect();
        assert_eq!(off[0], "0", "boost 0 is off; no_turbo is the inverted one");
        let steps = steps(&plan(TurboControl::IntelNoTurbo));
        assert_eq!(steps[0].text, "1");
    }

    #[test]
    fn a_policy_directory_that_leads_out_of_the_tree_is_not_followed() {
        let dir = tree(2);
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("scaling_governor"), "performance\n").unwrap();
        fs::write(outside.path().join("energy_performance_preference"), "balance_performance\n").unwrap();
        let policy1 = dir.path().join(paths::policy_dir(1));
        fs::remove_dir_all(&policy1).unwrap();
        std::os::unix::fs::symlink(outside.path(), &policy1).unwrap();
        let applier = Applier::new(SysRoot::open(dir.path()).unwrap());
        let plan = Plan {
            profile: "x".into(),
            cpus: (0..2).map(|c| setting(c, "powersave", Preference::EppName(EppName::Power))).collect(),
            turbo: None,
            dynamic_boost: None,
            platform: Vec::new(),
        };
        let failure = applier.apply(&plan, &|_| None, Rewrite::IfDifferent).unwrap_err();
        assert_eq!(failure.failed.target, Target::Policy(1, "scaling_governor"));
        assert_eq!(failure.failed.errno, Some("EXDEV"));
        assert_eq!(fs::read_to_string(outside.path().join("scaling_governor")).unwrap(), "performance\n");
        assert_eq!(read(&dir, 0, "scaling_governor"), "performance\n", "policy 0 was not restored");
        // A link that stays inside the tree is fine (sysfs has them).
        fs::remove_file(&policy1).unwrap();
        fs::create_dir_all(dir.path().join("sys/devices/system/cpu/cpufreq/real1")).unwrap();
        for (attr, text) in [("scaling_governor", "performance\n"), ("energy_performance_preference", "power\n")] {
            fs::write(dir.path().join("sys/devices/system/cpu/cpufreq/real1").join(attr), text).unwrap();
        }
        std::os::unix::fs::symlink("real1", &policy1).unwrap();
        let report = applier.apply(&plan, &|_| None, Rewrite::IfDifferent).unwrap();
        assert_eq!(report.changes.len(), 3);
        assert!(applier.holds_plan(&plan, &|_| None));
    }

    #[test]
    fn without_openat2_no_link_is_followed_and_dot_dot_is_refused() {
        let dir = tree(2);
        let cpu_dir = File::open(dir.path().join(paths::CPU_DIR)).unwrap();
        let file = open_walking(&cpu_dir, c"cpufreq/policy0/scaling_governor").unwrap();
        assert_eq!(read_value(&file).unwrap(), "performance");
        let errno = |rel: &std::ffi::CStr| open_walking(&cpu_dir, rel).unwrap_err().raw_os_error();
        assert_eq!(errno(c"cpufreq/../cpufreq/policy0/scaling_governor"), Some(libc::EXDEV));
        assert_eq!(errno(c"cpufreq/policy0/missing"), Some(libc::ENOENT));
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("scaling_governor"), "performance\n").unwrap();
        let policy1 = dir.path().join(paths::policy_dir(1));
        fs::remove_dir_all(&policy1).unwrap();
        std::os::unix::fs::symlink(outside.path(), &policy1).unwrap();
        // A linked directory: O_NOFOLLOW | O_DIRECTORY on the link itself.
        assert_eq!(errno(c"cpufreq/policy1/scaling_governor"), Some(libc::ENOTDIR));
        fs::remove_file(&policy1).unwrap();
        fs::create_dir(&policy1).unwrap();
        std::os::unix::fs::symlink(outside.path().join("scaling_governor"), policy1.join("scaling_governor")).unwrap();
        assert_eq!(errno(c"cpufreq/policy1/scaling_governor"), Some(libc::ELOOP));
    }

    #[test]
    fn a_failed_write_undoes_the_others() {
        let dir = tree(3);
        let broken = dir.path().join(paths::policy_file(2, "energy_performance_preference"));
        fs::remove_file(&broken).unwrap();
        fs::create_dir(&broken).unwrap();
        let applier = Applier::new(SysRoot::open(dir.path()).unwrap());
        let plan = Plan {
            profile: "x".into(),
            cpus: (0..3).map(|c| setting(c, "powersave", Preference::EppName(EppName::Power))).collect(),
            turbo: None,
            dynamic_boost: None,
            platform: Vec::new(),
        };
        let failure = applier.apply(&plan, &|_| None, Rewrite::IfDifferent).unwrap_err();
        assert_eq!(failure.failed.target, Target::Policy(2, "energy_performance_preference"));
        assert_eq!(failure.failed.errno, Some("EISDIR"));
        assert_eq!(failure.restored, 5);
        assert!(failure.not_restored.is_empty());
        for cpu in 0..3 {
            assert_eq!(read(&dir, cpu, "scaling_governor"), "performance\n");
        }
        for cpu in 0..2 {
            assert_eq!(read(&dir, cpu, "energy_performance_preference"), "balance_performance\n");
        }
    }
}

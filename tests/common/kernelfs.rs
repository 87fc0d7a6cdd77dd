//! The kernel-faithful sysfs (`tests/kernelfs/kernelfs.py`, docs/testing.md)
//! mounted over a copy of a fixture snapshot, or over a directory in place;
//! unmounted when dropped.

use std::ffi::CString;
use std::fs;
use std::io::{Read, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The tree the emulator serves from.
pub struct Backing {
    path: PathBuf,
    /// The fixture copy, when this owns it.
    _copy: Option<tempfile::TempDir>,
}

impl Backing {
    /// The backing directory. While the emulator serves a directory in
    /// place this is the mount point, so what it holds is the emulator's view.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A mounted emulator.
pub struct KernelFs {
    /// What the emulator serves from (a fixture copy, or the directory itself).
    pub backing: Backing,
    mountpoint: PathBuf,
    /// The mount point, when this owns it.
    _own: Option<tempfile::TempDir>,
    child: Option<Child>,
}

impl KernelFs {
    /// Mounts a fresh copy of `fixture`; `table` is the kernel's EPP name
    /// table as `kernelfs.json` takes it (`None`: the generic one).
    pub fn mount(fixture: &str, table: Option<&str>) -> KernelFs {
        KernelFs::mount_with(fixture, table, |_| {})
    }

    /// Like [`KernelFs::mount`], after `prepare` has changed the fixture copy
    /// (added a platform profile, say); it gets the copy's root.
    pub fn mount_with(fixture: &str, table: Option<&str>, prepare: impl FnOnce(&Path)) -> KernelFs {
        let own = tempfile::tempdir().unwrap();
        let copy = super::copy_fixture(fixture);
        prepare(copy.path());
        let backing = Backing { path: copy.path().to_owned(), _copy: Some(copy) };
        let mut fs = KernelFs::start(backing, own.path(), table);
        fs._own = Some(own);
        fs
    }

    /// Like [`KernelFs::mount`], over the existing directory `mountpoint`
    /// (a helper's root, say); what it held is hidden until the unmount.
    pub fn mount_at(fixture: &str, table: Option<&str>, mountpoint: &Path) -> KernelFs {
        let copy = super::copy_fixture(fixture);
        let backing = Backing { path: copy.path().to_owned(), _copy: Some(copy) };
        KernelFs::start(backing, mountpoint, table)
    }

    /// Serves `dir` in place: mounted over itself, with its own former
    /// contents behind the kernel's rules; they are visible unchanged again
    /// after the unmount (modelled writes are kept in memory). Nothing is
    /// added to `dir`.
    pub fn serve_in_place(dir: &Path, table: Option<&str>) -> KernelFs {
        let dir = dir.canonicalize().expect("the directory to serve exists");
        KernelFs::start(Backing { path: dir.clone(), _copy: None }, &dir, table)
    }

    fn start(backing: Backing, mountpoint: &Path, table: Option<&str>) -> KernelFs {
        let mountpoint = mountpoint.canonicalize().expect("the mount point exists");
        let before = mounts_at(&mountpoint);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernelfs/kernelfs.py");
        let mut log = tempfile::tempfile().unwrap();
        let mut command = Command::new("/usr/bin/python3");
        command.arg(script);
        if let Some(table) = table {
            command.arg("--config").arg(table);
        }
        let child = command
            .arg(backing.path())
            .arg(&mountpoint)
            .stdout(Stdio::null())
            .stderr(log.try_clone().unwrap())
            .spawn()
            .expect("python3 (Debian's, with python3-fusepy)");
        let mut fs = KernelFs { backing, mountpoint, _own: None, child: Some(child) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while mounts_at(&fs.mountpoint) <= before {
            let exited = fs.child.as_mut().and_then(|c| c.try_wait().ok().flatten());
            if exited.is_some() || Instant::now() > deadline {
                let mut text = String::new();
                let _ = log.rewind().and_then(|()| log.read_to_string(&mut text));
                panic!("kernelfs did not mount (needs /dev/fuse, libfuse2, python3-fusepy): {exited:?}\n{text}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        fs
    }

    /// The root the emulator serves (what `--root` takes).
    pub fn root(&self) -> &Path {
        &self.mountpoint
    }

    /// A path below the root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.mountpoint.join(rel)
    }

    /// A policy attribute's path.
    pub fn policy(&self, policy: u32, attr: &str) -> PathBuf {
        self.path(&format!("sys/devices/system/cpu/cpufreq/policy{policy}/{attr}"))
    }

    /// Plays the firmware: one command to `kernelfs/control` (`resume`,
    /// `firmware-epp VALUE [POLICY ...]`, `offline CPU`, `online CPU`,
    /// `mode MODE`, `platform-profile NAME [HANDLER ...]`, `lap-mode 0|1`,
    /// `load-platform-profile legacy CHOICE[,CHOICE...] CURRENT`,
    /// `load-platform-profile class DRIVER CHOICE[,CHOICE...] CURRENT`,
    /// `unload-platform-profile HANDLER`). The emulator sends no uevents:
    /// a test that loads a driver late sends them itself
    /// (`Helper::send_uevent`, docs/testing.md).
    ///
    /// # Panics
    /// With the errno when the emulator refuses the command.
    pub fn firmware(&self, command: &str) {
        let written = fs::OpenOptions::new()
            .write(true)
            .open(self.path("kernelfs/control"))
            .and_then(|mut control| control.write_all(command.as_bytes()));
        if let Err(e) = written {
            panic!("kernelfs refused {command:?}: errno {:?} ({e})", e.raw_os_error());
        }
    }

    /// What the hardware holds (`kernelfs/hardware`): `{"policies": {"0":
    /// {"epp": 128, "governor": "powersave"}, ...}, "epb": {"0": 6, ...}}`.
    pub fn hardware(&self) -> serde_json::Value {
        let text = fs::read_to_string(self.path("kernelfs/hardware")).expect("kernelfs/hardware");
        serde_json::from_str(&text).expect("kernelfs/hardware is JSON")
    }

    /// The EPP a policy's register holds (it differs from what sysfs shows
    /// after a `resume`); `None` without EPP or without the policy.
    pub fn hardware_epp(&self, policy: u32) -> Option<u8> {
        let epp = self.hardware()["policies"][policy.to_string()]["epp"].as_u64()?;
        u8::try_from(epp).ok()
    }
}

/// An inotify watch on files below the emulator's root, set through the
/// mount as the helper sets its own: what the emulator's notifications
/// (`sysfs_notify()`, docs/testing.md) look like to a watcher. Only
/// `IN_MODIFY` is asked for.
pub struct Watch {
    fd: OwnedFd,
    /// Watch descriptor -> the label of the first path that set it (paths
    /// that reach the same file through a link share one).
    labels: Vec<(i32, String)>,
}

impl Watch {
    /// Watches each `rel` (links are followed, as inotify does), labelled
    /// by its path.
    ///
    /// # Panics
    /// When a path cannot be watched.
    pub fn new(fs: &KernelFs, rels: &[&str]) -> Watch {
        // SAFETY: inotify_init1 returns a fresh descriptor or -1.
        let raw = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        assert!(raw >= 0, "inotify_init1: {}", std::io::Error::last_os_error());
        // SAFETY: raw is a descriptor of ours alone.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut watch = Watch { fd, labels: Vec::new() };
        for rel in rels {
            let path = CString::new(fs.path(rel).as_os_str().as_bytes()).unwrap();
            // SAFETY: a NUL-terminated path and a descriptor we own.
            let wd = unsafe { libc::inotify_add_watch(watch.fd.as_raw_fd(), path.as_ptr(), libc::IN_MODIFY) };
            assert!(wd >= 0, "inotify_add_watch {rel}: {}", std::io::Error::last_os_error());
            if !watch.labels.iter().any(|(w, _)| *w == wd) {
                watch.labels.push((wd, (*rel).to_owned()));
            }
        }
        watch
    }

    /// The labels of the `IN_MODIFY` events that come, in order: read until
    /// every label of `expected` was seen or `timeout` passed, then for
    /// `grace` more (so that an event that should not come has its chance).
    pub fn events(&mut self, expected: &[&str], timeout: Duration, grace: Duration) -> Vec<String> {
        let mut seen = Vec::new();
        let mut deadline = Instant::now() + timeout;
        let mut settled = false;
        loop {
            if !settled && expected.iter().all(|e| seen.iter().any(|s: &String| s == e)) {
                settled = true;
                deadline = Instant::now() + grace;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return seen;
            }
            let mut poll = libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX).max(1);
            // SAFETY: one pollfd of ours, for the count we pass.
            if unsafe { libc::poll(&mut poll, 1, ms) } <= 0 {
                continue;
            }
            seen.extend(self.read_events());
        }
    }

    /// Reads the queued events: their labels.
    fn read_events(&mut self) -> Vec<String> {
        let mut buf = [0u8; 4096];
        let mut out = Vec::new();
        loop {
            // SAFETY: a read into a buffer we own, of the length we pass.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            let Ok(n) = usize::try_from(n) else { return out };
            if n == 0 {
                return out;
            }
            let mut at = 0;
            let header = std::mem::size_of::<libc::inotify_event>();
            while at + header <= n {
                // SAFETY: the kernel wrote a whole inotify_event at `at`; read
                // unaligned, since the buffer is bytes.
                let event: libc::inotify_event = unsafe { std::ptr::read_unaligned(buf.as_ptr().add(at).cast()) };
                if event.mask & libc::IN_MODIFY != 0 {
                    let label = self.labels.iter().find(|(w, _)| *w == event.wd).map(|(_, l)| l.clone());
                    out.push(label.unwrap_or_else(|| format!("wd {}", event.wd)));
                }
                at += header + event.len as usize;
            }
        }
    }
}

/// True when something is mounted at `path` (a test that mounted the
/// emulator itself).
pub fn is_mounted(path: &Path) -> bool {
    path.canonicalize().is_ok_and(|p| mounts_at(&p) > 0)
}

/// How many mounts there are at `path` (a directory can be mounted over twice).
fn mounts_at(path: &Path) -> usize {
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let wanted = path.to_string_lossy().replace(' ', "\\040");
    mounts.lines().filter(|l| l.split(' ').nth(4) == Some(wanted.as_str())).count()
}

impl Drop for KernelFs {
    fn drop(&mut self) {
        let unmounted = Command::new("umount").arg(&self.mountpoint).stderr(Stdio::null()).status();
        if !unmounted.is_ok_and(|s| s.success()) {
            // Busy (a process still inside): detach it, so nothing is left behind.
            let _ = Command::new("umount").arg("-l").arg(&self.mountpoint).status();
        }
        if let Some(mut child) = self.child.take() {
            let deadline = Instant::now() + Duration::from_secs(2);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

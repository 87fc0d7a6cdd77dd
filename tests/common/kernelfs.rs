//! The kernel-faithful sysfs (`tests/kernelfs/kernelfs.py`) mounted over a
//! copy of a fixture snapshot; unmounted when dropped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A mounted emulator.
pub struct KernelFs {
    /// What the emulator serves from (a fixture copy).
    pub backing: tempfile::TempDir,
    mountpoint: PathBuf,
    /// The mount point, when this owns it.
    _own: Option<tempfile::TempDir>,
    child: Option<Child>,
}

impl KernelFs {
    /// Mounts a fresh copy of `fixture`; `table` is the kernel's EPP name
    /// table as `kernelfs.json` takes it (`None`: the generic one).
    pub fn mount(fixture: &str, table: Option<&str>) -> KernelFs {
        let own = tempfile::tempdir().unwrap();
        let mut fs = KernelFs::mount_at(fixture, table, own.path());
        fs._own = Some(own);
        fs
    }

    /// Like [`KernelFs::mount`], over the existing directory `mountpoint`
    /// (a helper's root, say); what it held is hidden until the unmount.
    pub fn mount_at(fixture: &str, table: Option<&str>, mountpoint: &Path) -> KernelFs {
        let backing = super::copy_fixture(fixture);
        if let Some(table) = table {
            fs::write(backing.path().join("kernelfs.json"), table).unwrap();
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernelfs/kernelfs.py");
        let child = Command::new("/usr/bin/python3")
            .arg(script)
            .arg(backing.path())
            .arg(mountpoint)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 (Debian's, with python3-fusepy)");
        let fs = KernelFs { backing, mountpoint: mountpoint.to_owned(), _own: None, child: Some(child) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !fs.mounted() {
            assert!(Instant::now() < deadline, "kernelfs did not mount (needs /dev/fuse, libfuse2, python3-fusepy)");
            std::thread::sleep(Duration::from_millis(20));
        }
        fs
    }

    fn mounted(&self) -> bool {
        let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let wanted = self.mountpoint.to_string_lossy().into_owned();
        mounts.lines().any(|l| l.split(' ').nth(4) == Some(wanted.as_str()))
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
}

impl Drop for KernelFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mountpoint).status();
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

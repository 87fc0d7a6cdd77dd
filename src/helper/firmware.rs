//! Following what the firmware changes, without polling: the platform
//! profile (a hotkey such as Fn+L/M/H, or a driver that loads late), the
//! ThinkPad lap sensor, and intel_pstate's `no_turbo`.
//!
//! The kernel's `sysfs_notify()` on these attributes reaches user space as
//! an inotify `IN_MODIFY` on the file (kernfs turns the notification into
//! an fsnotify event; docs/dbus-api.md, "What the helper follows"). Their
//! directories are watched too, so that files that appear (a driver loaded
//! after the helper started, where the kernel creates them in a watched
//! directory, and in test trees) are noticed; on real sysfs a late driver
//! announces itself with a uevent instead (see `watch::uevents`). Every
//! event only asks the engine to read these few files again.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use super::engine::Engine;
use crate::core::paths::{self, DYTC_LAPMODE};
use crate::core::platform::{class_numbers, HandlerId, CLASS_DIR, LEGACY_DIR};
use crate::core::root::SysRoot;

/// What is watched, relative to the root: directories for files that
/// appear, and the files themselves (an inotify watch on a directory also
/// reports writes to the files in it, but the class devices are links into
/// another directory).
fn watched_paths(engine: &Engine) -> Vec<String> {
    let mut out = vec![
        "sys/firmware".to_owned(),
        LEGACY_DIR.to_owned(),
        CLASS_DIR.to_owned(),
        "sys/bus/platform/devices/thinkpad_acpi".to_owned(),
        DYTC_LAPMODE.to_owned(),
        paths::global_file("intel_pstate/no_turbo"),
    ];
    let names = engine.root.list_dir(CLASS_DIR).unwrap_or_default();
    out.extend(class_numbers(&names).into_iter().map(|n| HandlerId::Class(n).profile_file()));
    out
}

const MASK: u32 = libc::IN_MODIFY | libc::IN_CLOSE_WRITE | libc::IN_CREATE | libc::IN_DELETE | libc::IN_MOVED_TO;

fn add_watches(fd: &OwnedFd, root: &SysRoot, paths: &[String]) {
    for rel in paths {
        let Ok(path) = CString::new(root.path(rel).as_os_str().as_bytes()) else { continue };
        // SAFETY: a NUL-terminated path and a descriptor we own; adding a
        // watch twice only updates it.
        unsafe {
            libc::inotify_add_watch(fd.as_raw_fd(), path.as_ptr(), MASK);
        }
    }
}

fn inotify() -> std::io::Result<OwnedFd> {
    // SAFETY: inotify_init1 returns a fresh descriptor or -1.
    let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd is ours alone.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The watches, set now (before the helper applies anything at start, so
/// that no change between the two is missed); `None` (logged) without
/// inotify.
pub fn watch(engine: &Engine) -> Option<OwnedFd> {
    match inotify() {
        Ok(fd) => {
            add_watches(&fd, &engine.root, &watched_paths(engine));
            Some(fd)
        }
        Err(err) => {
            log::warn!("cannot watch the platform profile ({err}); firmware changes are seen at the next request");
            None
        }
    }
}

/// Watches the firmware's files and tells the engine when they change.
/// Returns when inotify cannot be had (the helper then notices changes at
/// the next request or event).
pub async fn follow(engine: Arc<Engine>, fd: Option<OwnedFd>) {
    let Some(fd) = fd else { return };
    // SAFETY: the AsyncFd owns the OwnedFd, which stays open and the same
    // descriptor for the AsyncFd's whole life.
    let Ok(fd) = (unsafe { tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) })
    else {
        return;
    };
    let mut buf = vec![0u8; 4096];
    loop {
        let mut ready = tokio::select! {
            ready = fd.readable() => match ready {
                Ok(ready) => ready,
                Err(_) => return,
            },
            () = engine.rewatch_firmware.notified() => {
                add_watches(fd.get_ref(), &engine.root, &watched_paths(&engine));
                continue;
            }
        };
        let mut any = false;
        loop {
            // SAFETY: read into a buffer we own, of the length we pass.
            let n = unsafe { libc::read(fd.get_ref().as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                ready.clear_ready();
                break;
            }
            any = true;
        }
        if any {
            // Files may have appeared: watch them too, then read them.
            add_watches(fd.get_ref(), &engine.root, &watched_paths(&engine));
            log::debug!("File monitor change happened for the firmware's files");
            engine.firmware_changed().await;
            super::journal::handled(format_args!("firmware files changed"));
        }
    }
}

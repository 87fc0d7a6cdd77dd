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
use crate::core::platform::{class_numbers, cpu_of_handler, HandlerId, CLASS_DIR, LEGACY_DIR};
use crate::core::root::SysRoot;

/// What is watched, relative to the root: directories for files that
/// appear, and the files themselves (an inotify watch on a directory also
/// reports writes to the files in it, but the class devices are links into
/// another directory).
/// `cpu_handlers` are class devices known to be the CPUs' own (their names
/// need no reading again).
fn watched_paths(root: &SysRoot, cpu_handlers: &[HandlerId]) -> Vec<String> {
    let mut out = vec![
        "sys/firmware".to_owned(),
        LEGACY_DIR.to_owned(),
        CLASS_DIR.to_owned(),
        "sys/bus/platform/devices/thinkpad_acpi".to_owned(),
        DYTC_LAPMODE.to_owned(),
        paths::global_file("intel_pstate/no_turbo"),
        // Devices the actions follow (a snapshot's or a test bed's
        // directories; sysfs announces them by uevent).
        crate::core::power_supply::POWER_SUPPLY_DIR.to_owned(),
        crate::core::actions::DRM_DIR.to_owned(),
    ];
    // The firmware's handlers; not the CPUs' own (amd-pstate's dynamic
    // EPP), which only the helper writes: 24 notifications per switch
    // would each read the firmware again for nothing.
    let names = root.list_dir(CLASS_DIR).unwrap_or_default();
    out.extend(
        class_numbers(&names)
            .into_iter()
            .filter(|n| {
                if cpu_handlers.contains(&HandlerId::Class(*n)) {
                    return false;
                }
                let name = HandlerId::Class(*n).name_file().and_then(|file| root.read_text(&file, 128).ok().flatten());
                name.is_none_or(|name| cpu_of_handler(&name).is_none())
            })
            .map(|n| HandlerId::Class(n).profile_file()),
    );
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

/// The watches, set now (before the helper reads the machine at start, so
/// that no change between the two is missed); `None` (logged) without
/// inotify.
pub fn watch(root: &SysRoot) -> Option<OwnedFd> {
    match inotify() {
        Ok(fd) => {
            add_watches(&fd, root, &watched_paths(root, &[]));
            Some(fd)
        }
        Err(err) => {
            log::warn!("cannot watch the platform profile ({err}); firmware changes are seen at the next request");
            None
        }
    }
}

/// How long the firmware's files must be quiet before they are read.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(100);

/// The class devices the engine knows as the CPUs' own.
fn cpu_handlers(engine: &Engine) -> Vec<HandlerId> {
    engine.machine().cpu_profiles.iter().map(|h| h.id).collect()
}

/// Reads every pending inotify event; true when there was one.
fn drain(fd: &OwnedFd, buf: &mut [u8]) -> bool {
    let mut any = false;
    loop {
        // SAFETY: read into a buffer we own, of the length we pass.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            return any;
        }
        any = true;
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
                add_watches(fd.get_ref(), &engine.root, &watched_paths(&engine.root, &cpu_handlers(&engine)));
                continue;
            }
        };
        let any = drain(fd.get_ref(), &mut buf);
        ready.clear_ready();
        // A driver that loads writes its files one after another (the
        // choices, then the profile): wait until they are quiet (no event
        // for SETTLE, at most ten times) and read them once, so that a
        // value the driver shows as it appears is never taken for a hotkey
        // pressed after the helper applied (docs/dbus-api.md, "Platform
        // profile"). Only after an event: the idle helper sets no timer.
        for _ in 0..10 {
            if !any {
                break;
            }
            match tokio::time::timeout(SETTLE, fd.readable()).await {
                Ok(Ok(mut more)) => {
                    drain(fd.get_ref(), &mut buf);
                    more.clear_ready();
                }
                Ok(Err(_)) => return,
                Err(_) => break,
            }
        }
        if any {
            // Files may have appeared: watch them too, then read them.
            add_watches(fd.get_ref(), &engine.root, &watched_paths(&engine.root, &cpu_handlers(&engine)));
            log::debug!("File monitor change happened for the firmware's files");
            engine.firmware_changed().await;
            super::journal::handled(format_args!("firmware files changed"));
        }
    }
}

//! inotify(7) on tokio: the agent's one way to hear that a program was
//! started (its file opened by an exec), that a desktop started an app (a
//! scope appeared in the person's `app.slice`), and that the person's rules
//! changed, without waking while nothing does.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::Path;

use tokio::io::unix::AsyncFd;

/// One inotify instance.
pub struct Inotify {
    fd: AsyncFd<OwnedFd>,
}

/// One event: the watch it came from, what happened, and the name in the
/// watched directory it happened to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The watch descriptor.
    pub wd: i32,
    /// `IN_*` bits.
    pub mask: u32,
    /// The entry of a watched directory.
    pub name: Option<OsString>,
}

impl Inotify {
    /// A new instance on the current tokio runtime.
    ///
    /// # Errors
    /// The kernel refused one (too many instances for this user).
    pub fn new() -> io::Result<Inotify> {
        // SAFETY: inotify_init1 takes flags and returns a new fd or -1.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the fd was just made and is ours alone.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Inotify { fd: readable(fd)? })
    }

    /// Watches `path` for `mask`; its watch descriptor, or `None` where it
    /// cannot be watched (gone, not allowed).
    pub fn watch(&self, path: &Path, mask: u32) -> Option<i32> {
        let path = super::procs::c_path(path)?;
        // SAFETY: a valid fd and a NUL-terminated path.
        let wd = unsafe { libc::inotify_add_watch(self.fd.get_ref().as_raw_fd(), path.as_ptr(), mask) };
        (wd >= 0).then_some(wd)
    }

    /// Stops a watch (one the kernel dropped already is no error).
    pub fn unwatch(&self, wd: i32) {
        // SAFETY: a valid fd; a stale wd gives EINVAL, nothing else.
        unsafe { libc::inotify_rm_watch(self.fd.get_ref().as_raw_fd(), wd) };
    }

    /// The events that came, waiting for the first.
    ///
    /// # Errors
    /// The instance broke.
    pub async fn events(&self) -> io::Result<Vec<Event>> {
        let mut buffer = [0u8; 4096];
        loop {
            let mut ready = self.fd.readable().await?;
            // SAFETY: reads at most the buffer's length into it.
            let read = unsafe { libc::read(self.fd.get_ref().as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) };
            if read < 0 {
                let err = io::Error::last_os_error();
                if err.kind() == io::ErrorKind::WouldBlock {
                    ready.clear_ready();
                    continue;
                }
                return Err(err);
            }
            return Ok(parse(&buffer[..usize::try_from(read).unwrap_or(0)]));
        }
    }
}

/// A timer of the kernel's (timerfd) that fires every `every`: one wake-up
/// each time, where tokio's own timer wheel wakes at its coarser levels'
/// slots on the way to a long timeout.
///
/// # Errors
/// The kernel refused one.
pub fn every(every: std::time::Duration) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: timerfd_create takes a clock and flags and returns a new fd or -1.
    let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the fd was just made and is ours alone.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let period = libc::timespec {
        tv_sec: libc::time_t::try_from(every.as_secs()).unwrap_or(libc::time_t::MAX),
        tv_nsec: libc::c_long::from(i32::try_from(every.subsec_nanos()).unwrap_or(0)),
    };
    let spec = libc::itimerspec { it_interval: period, it_value: period };
    // SAFETY: a valid fd and timer spec; the old value is not asked for.
    if unsafe { libc::timerfd_settime(fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } < 0 {
        return Err(io::Error::last_os_error());
    }
    readable(fd)
}

/// Waits for a timerfd from [`every`] to fire (and takes its count).
///
/// # Errors
/// The timer broke.
pub async fn fired(timer: &AsyncFd<OwnedFd>) -> io::Result<()> {
    loop {
        let mut ready = timer.readable().await?;
        let mut count = [0u8; 8];
        // SAFETY: reads at most 8 bytes into the buffer.
        let read = unsafe { libc::read(timer.get_ref().as_raw_fd(), count.as_mut_ptr().cast(), count.len()) };
        if read == 8 {
            return Ok(());
        }
        ready.clear_ready();
    }
}

/// An fd of ours, registered with the tokio reactor to be read.
///
/// # Errors
/// The reactor refused it.
pub fn readable(fd: OwnedFd) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: `fd` is open and owned by the AsyncFd from now on, which
    // closes it when dropped; an OwnedFd's as_raw_fd is always that fd.
    unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) }.map_err(|e| e.into_parts().1)
}

/// `struct inotify_event`s, one after another: wd, mask, cookie, len, then
/// `len` bytes of NUL-padded name.
fn parse(mut bytes: &[u8]) -> Vec<Event> {
    let mut events = Vec::new();
    let word = |b: &[u8], at: usize| b.get(at..at + 4).map(|w| [w[0], w[1], w[2], w[3]]);
    while let (Some(wd), Some(mask), Some(len)) = (word(bytes, 0), word(bytes, 4), word(bytes, 12)) {
        let len = u32::from_ne_bytes(len) as usize;
        let Some(raw) = bytes.get(16..16 + len) else { break };
        let name: Vec<u8> = raw.iter().copied().take_while(|b| *b != 0).collect();
        events.push(Event {
            wd: i32::from_ne_bytes(wd),
            mask: u32::from_ne_bytes(mask),
            name: (!name.is_empty()).then(|| OsString::from_vec(name)),
        });
        bytes = &bytes[16 + len..];
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_whole_and_a_short_buffer_is_no_event() {
        let mut bytes = Vec::new();
        for (wd, mask, name) in [(1i32, libc::IN_CREATE, &b"app-x-1.scope\0\0\0"[..]), (2, libc::IN_OPEN, &b""[..])] {
            bytes.extend(wd.to_ne_bytes());
            bytes.extend(mask.to_ne_bytes());
            bytes.extend(0u32.to_ne_bytes());
            bytes.extend(u32::try_from(name.len()).unwrap().to_ne_bytes());
            bytes.extend(name);
        }
        let events = parse(&bytes);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].name.as_deref(), Some(std::ffi::OsStr::new("app-x-1.scope")));
        assert_eq!((events[1].wd, events[1].mask, events[1].name.is_none()), (2, libc::IN_OPEN, true));
        assert!(parse(&bytes[..20]).is_empty());
        assert_eq!(parse(&bytes[..bytes.len() - 16]).len(), 1);
    }

    #[test]
    fn a_new_directory_entry_is_heard() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let dir = tempfile::tempdir().unwrap();
            let inotify = Inotify::new().unwrap();
            let wd = inotify.watch(dir.path(), libc::IN_CREATE | libc::IN_ONLYDIR).unwrap();
            std::fs::create_dir(dir.path().join("app-gnome-org.example.App-1.scope")).unwrap();
            let events =
                tokio::time::timeout(std::time::Duration::from_secs(2), inotify.events()).await.unwrap().unwrap();
            assert_eq!(events[0].wd, wd);
            assert!(events[0].mask & libc::IN_CREATE != 0);
            assert!(inotify.watch(&dir.path().join("gone"), libc::IN_CREATE).is_none());
        });
    }
}

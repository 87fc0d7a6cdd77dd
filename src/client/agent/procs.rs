//! The person's processes as the agent sees them: which run a rule's
//! program (`/proc`), where each program's file is (`$PATH`), and a pidfd
//! that becomes readable when a process ends (Linux 5.3), so that nothing
//! is polled while nothing happens.

use std::ffi::CString;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// `/proc/PID/comm` holds at most this many bytes of the name.
const COMM_BYTES: usize = 15;

/// The processes of `uid` now running `program` (an executable's file
/// name), by `/proc`: the kernel's short name (`comm`, which a script
/// gets from its own file name) first, then, for a name longer than
/// `comm` holds, the executable or the command line's program.
pub fn running(proc_dir: &Path, uid: u32, program: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(proc_dir) else { return Vec::new() };
    let short = shortened(program);
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let dir = entry.path();
        // The directory's owner is the process's effective uid.
        if std::fs::metadata(&dir).map(|m| m.uid()).ok() != Some(uid) {
            continue;
        }
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim_end_matches('\n') != short {
            continue;
        }
        if program.len() <= COMM_BYTES || runs_by_name(&dir, program) {
            found.push(pid);
        }
    }
    found.sort_unstable();
    found
}

/// `program` as `comm` holds it: its first 15 bytes (on a character's edge).
fn shortened(program: &str) -> &str {
    let mut end = program.len().min(COMM_BYTES);
    while !program.is_char_boundary(end) {
        end -= 1;
    }
    &program[..end]
}

/// The process's executable, or its command line's program (a script's
/// interpreter runs it as the first argument), is called `program`.
fn runs_by_name(dir: &Path, program: &str) -> bool {
    let base = |path: &str| Path::new(path).file_name().is_some_and(|n| n == program);
    let exe = std::fs::read_link(dir.join("exe")).ok();
    if exe.as_deref().and_then(Path::to_str).is_some_and(|e| base(e.trim_end_matches(" (deleted)"))) {
        return true;
    }
    let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
    cmdline.split(|b| *b == 0).take(2).filter_map(|a| std::str::from_utf8(a).ok()).any(base)
}

/// The files `program` would be run from, by the directories of `path`
/// (the session's `$PATH`): what an exec opens, so that an inotify watch
/// on them hears each start.
pub fn files_of(program: &str, path: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .filter(|file| std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0))
        .collect();
    files.dedup();
    files
}

/// A pidfd for `pid`: readable once the process has ended. `None` where
/// the process is gone already or the kernel has no pidfd_open.
pub fn pidfd(pid: u32) -> Option<OwnedFd> {
    let pid = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = i32::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: the fd was just made and is ours alone.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A path as the C library takes it.
pub fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_encoded_bytes()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_found_by_its_names_and_nobody_elses_is() {
        let me = std::process::id();
        let uid = unsafe { libc::geteuid() };
        let exe = std::fs::read_link("/proc/self/exe").unwrap();
        let name = exe.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(running(Path::new("/proc"), uid, &name).contains(&me), "{name}");
        assert!(!running(Path::new("/proc"), uid.wrapping_add(1), &name).contains(&me));
        assert!(running(Path::new("/proc"), uid, "no-such-program-anywhere").is_empty());
        assert_eq!(shortened("a-very-long-program-name"), "a-very-long-pro");
        assert_eq!(shortened("äöüäöüäöü"), "äöüäöüä");
    }

    #[test]
    fn programs_are_found_on_the_path_and_ends_are_heard() {
        assert!(files_of("sh", "/nonexistent:/usr/bin:/bin:relative").iter().all(|f| f.is_absolute()));
        assert!(!files_of("sh", "/usr/bin:/bin").is_empty());
        assert!(files_of("no-such-program-anywhere", "/usr/bin").is_empty());
        let mut child = std::process::Command::new("sleep").arg("0.1").spawn().unwrap();
        let fd = pidfd(child.id()).expect("pidfd_open (Linux 5.3)");
        child.wait().unwrap();
        let mut poll = libc::pollfd { fd: std::os::fd::AsRawFd::as_raw_fd(&fd), events: libc::POLLIN, revents: 0 };
        // SAFETY: one pollfd, ours.
        assert_eq!(unsafe { libc::poll(&mut poll, 1, 1000) }, 1);
    }
}

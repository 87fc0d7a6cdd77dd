//! Opening the files a plan writes: beneath the root's directories with
//! `openat2(RESOLVE_BENEATH)` (or a walk of `O_NOFOLLOW` opens where the
//! kernel has no openat2), reading them, and naming errnos.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// How often an open is tried again when openat2 answers EAGAIN: one in
/// ten tries failed while another thread renamed without pause.
const EAGAIN_TRIES: u32 = 64;

/// Opens `rel` read-write beneath `dir`: no `..`, no symlink that leads out
/// of `dir`, no magic links, no symlink as the last component.
pub(super) fn open_beneath(dir: &File, rel: &str) -> io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let c_rel = std::ffi::CString::new(rel).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: open_how is plain integers; all-zero is its documented default.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_RDWR | libc::O_CLOEXEC | libc::O_NOFOLLOW) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    let mut tries = 0;
    let fd = loop {
        // SAFETY: openat2 reads the NUL-terminated path and the open_how
        // struct we own, of the size we pass; a descriptor it returns is
        // ours alone.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                c_rel.as_ptr(),
                std::ptr::addr_of!(how),
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd >= 0 {
            break fd;
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            // A kernel before 5.6, or a sandbox (valgrind) that lacks openat2.
            Some(libc::ENOSYS) => return open_walking(dir, &c_rel),
            // A rename anywhere on the system raced with a `..` of the walk
            // (sysfs links are `../../devices/...`): the kernel could not
            // prove the walk stayed beneath and asks to try again.
            Some(libc::EAGAIN) if tries < EAGAIN_TRIES => tries += 1,
            _ => return Err(err),
        }
    };
    let fd = i32::try_from(fd).map_err(|_| io::Error::from_raw_os_error(libc::EBADF))?;
    // SAFETY: fd is a fresh descriptor that nothing else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// `open_beneath` without openat2: one component at a time, each opened
/// with `O_NOFOLLOW` below the previous one, so that no symbolic link at all
/// is followed (stricter than `RESOLVE_BENEATH`; the paths the helper writes
/// have none) and `..` is refused.
pub(super) fn open_walking(dir: &File, rel: &std::ffi::CStr) -> io::Result<File> {
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

/// What the file shows, byte for byte (the first 256 bytes: every value
/// the helper writes is shorter).
pub(super) fn read_bytes(file: &File) -> io::Result<Vec<u8>> {
    let mut buf = [0u8; 256];
    let n = file.read_at(&mut buf, 0)?;
    Ok(buf[..n].to_vec())
}

/// The value a file's bytes show, without the newline sysfs adds.
pub(super) fn value_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_owned()
}

pub(super) fn read_value(file: &File) -> io::Result<String> {
    read_bytes(file).map(|bytes| value_of(&bytes))
}

/// The kind of file system `path` is on (`statfs`'s magic number).
fn fs_type(path: &std::path::Path) -> Option<libc::c_long> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statfs fills the zeroed struct we own; the path is NUL-terminated.
    unsafe {
        let mut stat: libc::statfs = std::mem::zeroed();
        (libc::statfs(c_path.as_ptr(), &mut stat) == 0).then_some(stat.f_type)
    }
}

/// True when `path` is on sysfs.
pub(super) fn is_sysfs(path: &std::path::Path) -> bool {
    fs_type(path) == Some(libc::SYSFS_MAGIC)
}

/// True when `path` is on a FUSE file system (the tests' kernel emulator,
/// whose files answer as sysfs does).
pub(super) fn is_fuse(path: &std::path::Path) -> bool {
    const FUSE_SUPER_MAGIC: libc::c_long = 0x6573_5546;
    fs_type(path) == Some(FUSE_SUPER_MAGIC)
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

//! Files that steer what root does: the administrator's configuration
//! (`/etc/gearshift/gearshift.toml`, `conf.d/*.toml`), the model table's
//! overrides (`/etc/gearshift/cpu-models.d`), power-profiles-daemon's last
//! choices. The helper reads them as root, so they are read only as sudo
//! and polkit read their own:
//! - opened without blocking (a FIFO in their place would hang a plain
//!   open, and with it every reload) and read only when a regular file;
//! - owned by root (or by the user reading them, where that is not root:
//!   `gearshift config check` on one's own drafts), and writable by nobody
//!   else: not by its group, not by others;
//! - in directories, up to the root, that nobody else may write either
//!   (where anyone may, anyone could put a file there or swap one).
//!
//! Symbolic links are followed (NixOS links `/etc` into its store); what
//! they lead to must pass the same checks. Anything else is a [`Problem`]
//! that says why, and the file is set aside like any broken one.

use std::fs;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use super::root::{absent_or_problem, read_small_text, Problem, SysRoot};

/// Why `meta` (of `path`, a file or a directory) may not steer root.
fn untrusted(meta: &fs::Metadata, directory: bool) -> Option<String> {
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    let owner = meta.uid();
    if owner != 0 && owner != me {
        return Some(format!("belongs to uid {owner}, not root: it is not read"));
    }
    let mode = meta.mode() & 0o7777;
    // A directory its group may write is fine when that group is root's.
    let foreign_writers = if directory && meta.gid() == 0 { 0o002 } else { 0o022 };
    if mode & foreign_writers != 0 {
        return Some(format!(
            "may be written by others than its owner (mode {mode:04o}): it is not read; make it writable by root alone"
        ));
    }
    None
}

impl SysRoot {
    /// Reads a small text file that tells root what to do, as the module
    /// says: a regular file of root's that only root may change, in
    /// directories only root may change.
    ///
    /// # Errors
    /// A [`Problem`] when the file is no regular file, is another user's,
    /// may be written by others, sits in such a directory, or cannot be
    /// read as text (as [`SysRoot::read_text`]). A missing file is
    /// `Ok(None)`.
    pub fn read_trusted_text(&self, rel: &str, limit: u64) -> Result<Option<String>, Problem> {
        let path = self.path(rel);
        let file = match fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
            .open(&path)
        {
            Ok(file) => file,
            Err(err) => return absent_or_problem(&path, &err),
        };
        let meta = file.metadata().map_err(|err| Problem::io(&path, &err))?;
        if !meta.is_file() {
            let kind = match meta.mode() & libc::S_IFMT {
                libc::S_IFIFO => "a FIFO",
                libc::S_IFSOCK => "a socket",
                libc::S_IFCHR | libc::S_IFBLK => "a device",
                libc::S_IFDIR => "a directory",
                _ => "something else",
            };
            return Err(Problem::new(&path, format!("is not a regular file but {kind}: it is not read")));
        }
        if let Some(why) = untrusted(&meta, false) {
            return Err(Problem::new(&path, why));
        }
        self.check_directories(&path)?;
        read_small_text(file, &path, limit)
    }

    /// Each directory from `path`'s up to the root's own.
    fn check_directories(&self, path: &Path) -> Result<(), Problem> {
        for dir in path.ancestors().skip(1) {
            if !dir.starts_with(self.base()) {
                break;
            }
            let meta = fs::metadata(dir).map_err(|err| Problem::io(dir, &err))?;
            if let Some(why) = untrusted(&meta, true) {
                return Err(Problem::new(path, format!("is in {}, which {why}", dir.display())));
            }
            if dir == self.base() {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path, mode: u32) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn only_regular_files_writable_by_their_owner_alone_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = SysRoot::open(dir.path()).unwrap();
        let etc = dir.path().join("etc");
        fs::create_dir(&etc).unwrap();
        mode(&etc, 0o755);
        fs::write(etc.join("good.toml"), "locked = true\n").unwrap();
        mode(&etc.join("good.toml"), 0o644);
        assert_eq!(root.read_trusted_text("etc/good.toml", 100).unwrap().as_deref(), Some("locked = true\n"));
        assert_eq!(root.read_trusted_text("etc/missing.toml", 100).unwrap(), None);

        fs::write(etc.join("shared.toml"), "x = 1\n").unwrap();
        mode(&etc.join("shared.toml"), 0o666);
        let problem = root.read_trusted_text("etc/shared.toml", 100).unwrap_err();
        assert!(problem.what.contains("mode 0666"), "{problem}");
        mode(&etc.join("shared.toml"), 0o664);
        assert!(root.read_trusted_text("etc/shared.toml", 100).is_err(), "its group may write it");

        let fifo = etc.join("fifo.toml");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
        let problem = root.read_trusted_text("etc/fifo.toml", 100).unwrap_err();
        assert!(problem.what.contains("a FIFO"), "{problem}");

        std::os::unix::fs::symlink("good.toml", etc.join("link.toml")).unwrap();
        assert!(root.read_trusted_text("etc/link.toml", 100).unwrap().is_some(), "a link to a good file");
        std::os::unix::fs::symlink("shared.toml", etc.join("bad-link.toml")).unwrap();
        assert!(root.read_trusted_text("etc/bad-link.toml", 100).is_err(), "a link to a shared file");
    }

    #[test]
    fn a_directory_others_may_write_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let root = SysRoot::open(dir.path()).unwrap();
        let open = dir.path().join("etc/conf.d");
        fs::create_dir_all(&open).unwrap();
        fs::write(open.join("a.toml"), "x = 1\n").unwrap();
        mode(&open.join("a.toml"), 0o644);
        mode(&dir.path().join("etc"), 0o755);
        mode(&open, 0o1777);
        let problem = root.read_trusted_text("etc/conf.d/a.toml", 100).unwrap_err();
        assert!(problem.what.contains("conf.d, which may be written by others"), "{problem}");
        mode(&open, 0o755);
        mode(&dir.path().join("etc"), 0o777);
        assert!(root.read_trusted_text("etc/conf.d/a.toml", 100).is_err(), "a parent others may write");
        mode(&dir.path().join("etc"), 0o755);
        assert!(root.read_trusted_text("etc/conf.d/a.toml", 100).unwrap().is_some());
    }
}

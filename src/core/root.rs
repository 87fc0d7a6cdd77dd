//! The snapshot root: every read of the machine goes through here.
//!
//! The root is `/` on the live machine, or a directory holding `sys/` and
//! `proc/` laid out the same way (a snapshot, a test fixture). Reads are
//! bounded in size; a missing file is "unknown" (`Ok(None)`), while a file
//! that cannot be read or holds garbage becomes a [`Problem`] that callers
//! collect and report.

use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use super::parse::ParseError;

/// The most a sysfs attribute may hold (the kernel's limit is one page).
pub const MAX_ATTRIBUTE_BYTES: u64 = 64 * 1024;
/// The most `/proc/cpuinfo` may hold (about 1.5 KiB per CPU; 8192 CPUs fit).
pub const MAX_CPUINFO_BYTES: u64 = 16 * 1024 * 1024;

/// A directory that stands for `/` when reading the machine.
#[derive(Debug, Clone)]
pub struct SysRoot {
    base: PathBuf,
    live: bool,
}

/// The root could not be used at all.
#[derive(Debug, Error)]
pub enum RootError {
    /// The directory is not there.
    #[error("the snapshot directory {0} does not exist")]
    Missing(PathBuf),
    /// The path names something that is not a directory.
    #[error("{0} is not a directory: --root expects a directory holding sys/ and proc/")]
    NotDirectory(PathBuf),
    /// The path exists but cannot be examined.
    #[error("cannot open the snapshot directory {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

impl RootError {
    /// The error in the reader's language.
    pub fn localized(&self) -> String {
        match self {
            // Translators: {dir} is the directory given to --root.
            RootError::Missing(dir) => crate::i18n::i18n_text("the snapshot directory {dir} does not exist")
                .arg("dir", dir.display())
                .localized(),
            // Translators: {dir} is the path given to --root.
            RootError::NotDirectory(dir) => {
                crate::i18n::i18n_text("{dir} is not a directory: --root expects a directory holding sys/ and proc/")
                    .arg("dir", dir.display())
                    .localized()
            }
            // Translators: {dir} is the directory given to --root; {why} what the system said.
            RootError::Io { path, source } => crate::i18n::i18n_text("cannot open the snapshot directory {dir}: {why}")
                .arg("dir", path.display())
                .arg("why", source)
                .localized(),
        }
    }
}

impl SysRoot {
    /// The live machine.
    pub fn live() -> Self {
        SysRoot { base: PathBuf::from("/"), live: true }
    }

    /// A snapshot directory (or `/`, which is the live machine).
    ///
    /// # Errors
    /// The directory does not exist, is not a directory, or cannot be read.
    pub fn open(dir: &Path) -> Result<Self, RootError> {
        let meta = fs::metadata(dir).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => RootError::Missing(dir.to_owned()),
            _ => RootError::Io { path: dir.to_owned(), source },
        })?;
        if !meta.is_dir() {
            return Err(RootError::NotDirectory(dir.to_owned()));
        }
        let base = fs::canonicalize(dir).map_err(|source| RootError::Io { path: dir.to_owned(), source })?;
        let live = base == Path::new("/");
        Ok(SysRoot { base, live })
    }

    /// True when this root is the running machine (CPU identity then comes
    /// from the CPUID instruction).
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// The directory standing for `/`.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The path of `rel` (written without a leading `/`) under the root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.base.join(rel.trim_start_matches('/'))
    }

    /// Reads a small text file.
    ///
    /// # Errors
    /// A [`Problem`] when the file exists but cannot be read, is larger than
    /// `limit` bytes, or is not UTF-8 text. A missing file, or one only root
    /// may read, is `Ok(None)`.
    pub fn read_text(&self, rel: &str, limit: u64) -> Result<Option<String>, Problem> {
        let path = self.path(rel);
        let file = match fs::File::open(&path) {
            Ok(file) => file,
            Err(err) => return absent_or_problem(&path, &err),
        };
        read_small_text(file, &path, limit)
    }

    /// Lists the names in a directory (sorted); a missing directory is empty.
    ///
    /// # Errors
    /// A [`Problem`] when the directory exists but cannot be listed.
    pub fn list_dir(&self, rel: &str) -> Result<Vec<String>, Problem> {
        let path = self.path(rel);
        let entries = match fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(err) => return absent_or_problem::<()>(&path, &err).map(|_| Vec::new()),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|err| Problem::io(&path, &err))?;
            if let Some(name) = entry.file_name().to_str() {
                names.push(name.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// What kind of thing `rel` is, without following a final symlink.
    pub fn kind(&self, rel: &str) -> EntryKind {
        let path = self.path(rel);
        match fs::symlink_metadata(&path) {
            Err(_) => EntryKind::Missing,
            Ok(meta) if meta.file_type().is_symlink() => match fs::metadata(&path) {
                Ok(target) if target.is_dir() => EntryKind::LinkToDir,
                Ok(_) => EntryKind::LinkToOther,
                Err(err) if err.raw_os_error() == Some(libc::ELOOP) => EntryKind::LinkLoop,
                Err(_) => EntryKind::DanglingLink,
            },
            Ok(meta) if meta.is_dir() => EntryKind::Dir,
            Ok(_) => EntryKind::File,
        }
    }

    /// The target of a symbolic link, as stored.
    pub fn read_link(&self, rel: &str) -> Option<PathBuf> {
        fs::read_link(self.path(rel)).ok()
    }

    /// The path shown to people: absolute on the live machine, under the
    /// snapshot directory otherwise.
    pub fn display(&self, rel: &str) -> String {
        self.path(rel).display().to_string()
    }
}

/// What a path under the root is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// Nothing there.
    Missing,
    /// A plain file.
    File,
    /// A directory.
    Dir,
    /// A symlink to a directory.
    LinkToDir,
    /// A symlink to a file or device.
    LinkToOther,
    /// A symlink whose target does not exist.
    DanglingLink,
    /// A symlink that loops.
    LinkLoop,
}

/// Reads an open `file` (at `path`) of at most `limit` bytes as text:
/// larger, binary (a NUL) or not UTF-8 is a [`Problem`].
pub(crate) fn read_small_text(file: fs::File, path: &Path, limit: u64) -> Result<Option<String>, Problem> {
    let mut bytes = Vec::new();
    if let Err(err) = file.take(limit + 1).read_to_end(&mut bytes) {
        return absent_or_problem(path, &err);
    }
    if bytes.len() as u64 > limit {
        return Err(Problem::new(path, format!("is larger than {limit} bytes")));
    }
    if bytes.contains(&0) {
        return Err(Problem::new(path, "holds binary data, not text"));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| Problem::new(path, "is not UTF-8 text"))
}

pub(crate) fn absent_or_problem<T>(path: &Path, err: &io::Error) -> Result<Option<T>, Problem> {
    match err.kind() {
        io::ErrorKind::NotFound => Ok(None),
        // Some attributes (cpuinfo_cur_freq, energy_uj) are root-only by
        // design; not being allowed to read them is "unknown", not garbage.
        io::ErrorKind::PermissionDenied => Ok(None),
        _ => Err(Problem::io(path, err)),
    }
}

/// Something in the machine's files that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file, as a person would look for it.
    pub path: String,
    /// What is wrong with it.
    pub what: String,
}

impl Problem {
    /// A problem with `path`.
    pub fn new(path: &Path, what: impl Into<String>) -> Self {
        Problem { path: path.display().to_string(), what: what.into() }
    }

    pub(crate) fn io(path: &Path, err: &io::Error) -> Self {
        let what = match err.raw_os_error() {
            Some(libc::ELOOP) => "is a loop of symbolic links".to_owned(),
            Some(libc::EISDIR) => "is a directory where a file was expected".to_owned(),
            Some(libc::ENOTDIR) => "has a file where a directory was expected".to_owned(),
            Some(libc::EBUSY) => "answers \"device or resource busy\" (is its CPU offline?)".to_owned(),
            _ => format!("cannot be read: {err}"),
        };
        Problem::new(path, what)
    }

    /// A problem for unparsable content.
    pub fn parse(path: &Path, err: &ParseError) -> Self {
        Problem::new(path, format!("holds {:?} where {} was expected", err.found, err.what))
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.path, self.what)
    }
}

/// A value the kernel printed that cannot be true (a frequency of 0, a
/// negative errno printed unsigned, a minimum above its maximum). It is
/// treated as unknown and listed here, not as a problem: the file was read
/// as it is, only its number means nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IgnoredValue {
    /// The file as it is named on a machine (`/sys/...`), whatever the root.
    pub file: String,
    /// The text it held, trimmed.
    pub text: String,
    /// Why it cannot be true.
    pub why: String,
}

impl IgnoredValue {
    /// An ignored value of the file `rel` (relative to the root).
    pub fn new(rel: &str, text: &str, why: impl Into<String>) -> Self {
        IgnoredValue {
            file: format!("/{}", rel.trim_start_matches('/')),
            text: text.trim().to_owned(),
            why: why.into(),
        }
    }
}

/// Reads attributes under a root and collects what went wrong on the way.
pub struct Probe<'a> {
    root: &'a SysRoot,
    /// Every problem met so far.
    pub problems: Vec<Problem>,
    /// Values that were read but cannot be true.
    pub ignored: Vec<IgnoredValue>,
}

impl<'a> Probe<'a> {
    /// A probe of `root` with no problems yet.
    pub fn new(root: &'a SysRoot) -> Self {
        Probe { root, problems: Vec::new(), ignored: Vec::new() }
    }

    /// The root being read.
    pub fn root(&self) -> &'a SysRoot {
        self.root
    }

    /// The text of a sysfs attribute, or `None` when unknown.
    pub fn text(&mut self, rel: &str) -> Option<String> {
        self.text_limited(rel, MAX_ATTRIBUTE_BYTES)
    }

    /// The text of a file up to `limit` bytes, or `None` when unknown.
    pub fn text_limited(&mut self, rel: &str, limit: u64) -> Option<String> {
        match self.root.read_text(rel, limit) {
            Ok(text) => text,
            Err(problem) => {
                self.problems.push(problem);
                None
            }
        }
    }

    /// An attribute run through `parser`; garbage is recorded and unknown.
    pub fn parsed<T>(&mut self, rel: &str, parser: impl FnOnce(&str) -> Result<T, ParseError>) -> Option<T> {
        let text = self.text(rel)?;
        match parser(&text) {
            Ok(value) => Some(value),
            Err(err) => {
                self.problems.push(Problem::parse(&self.root.path(rel), &err));
                None
            }
        }
    }

    /// Like [`Probe::parsed`], but a value that `plausible` rejects is
    /// unknown and recorded in [`Probe::ignored`] with `why`.
    pub fn parsed_plausible<T>(
        &mut self,
        rel: &str,
        parser: impl FnOnce(&str) -> Result<T, ParseError>,
        plausible: impl FnOnce(&T) -> bool,
        why: &str,
    ) -> Option<T> {
        let text = self.text(rel)?;
        match parser(&text) {
            Ok(value) if plausible(&value) => Some(value),
            Ok(_) => {
                self.ignored.push(IgnoredValue::new(rel, &text, why));
                None
            }
            Err(err) => {
                self.problems.push(Problem::parse(&self.root.path(rel), &err));
                None
            }
        }
    }

    /// Like [`Probe::parsed`], but an unparsable value is silently unknown:
    /// for attributes where the kernel itself prints placeholders such as
    /// `<unknown>`.
    pub fn parsed_lenient<T>(&mut self, rel: &str, parser: impl FnOnce(&str) -> Result<T, ParseError>) -> Option<T> {
        self.text(rel).and_then(|text| parser(&text).ok())
    }

    /// The names in a directory; problems are recorded.
    pub fn list(&mut self, rel: &str) -> Vec<String> {
        match self.root.list_dir(rel) {
            Ok(names) => names,
            Err(problem) => {
                self.problems.push(problem);
                Vec::new()
            }
        }
    }

    /// Records a problem found by the caller.
    pub fn report(&mut self, rel: &str, what: impl Into<String>) {
        let problem = Problem::new(&self.root.path(rel), what);
        self.problems.push(problem);
    }
}

#[cfg(test)]
mod tests;

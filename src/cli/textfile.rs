//! Handing the metrics over between the timer's two steps, and writing
//! them where node_exporter reads them (docs/fleet.md).
//!
//! The timer's unit gathers the metrics as a user made for the run
//! (`DynamicUser=`), then copies them as root (`!`) into the textfile
//! directory. What the first step left is not trusted by the second: it
//! could have put a symbolic link to `/etc/shadow` there, a FIFO, or
//! `/dev/zero`. So `--from` reads only:
//! - a regular file, opened without following a final symbolic link and
//!   without blocking;
//! - owned by root, or by the owner of its directory (the runtime
//!   directory systemd made for the first step), in a directory only its
//!   owner may write;
//! - at most [`MAX_FROM_BYTES`], holding nothing but well-formed series
//!   named `gearshift_...` and their `# HELP` and `# TYPE` lines.
//!
//! The file written is made beside its target as a new file
//! (`O_EXCL | O_NOFOLLOW`: a link planted under the temporary name is not
//! followed), synced, and renamed into place. As root, a target directory
//! that others may write is refused: anyone could swap what root writes.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// The most the first step may hand over: a 8,192-CPU machine's metrics
/// are under 400 KiB.
pub const MAX_FROM_BYTES: u64 = 1 << 20;

/// Why a file cannot be handed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn euid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// Reads what the unprivileged step wrote at `path`, as the module says.
///
/// # Errors
/// The file is not there or not as it must be.
pub fn read_from(path: &Path) -> Result<String, Refused> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|err| match err.raw_os_error() {
            Some(libc::ELOOP) => Refused("is a symbolic link; only a plain file is read".into()),
            _ => Refused(err.to_string()),
        })?;
    let meta = file.metadata().map_err(|err| Refused(err.to_string()))?;
    if !meta.is_file() {
        return Err(Refused("is not a plain file".into()));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir_meta = fs::metadata(dir).map_err(|err| Refused(format!("its directory: {err}")))?;
    let owner = meta.uid();
    if owner != 0 && owner != dir_meta.uid() && owner != euid() {
        return Err(Refused(format!(
            "belongs to uid {owner}, neither root nor the owner of its directory (uid {})",
            dir_meta.uid()
        )));
    }
    if dir_meta.mode() & 0o022 != 0 {
        return Err(Refused(format!("is in a directory others may write (mode {:04o})", dir_meta.mode() & 0o7777)));
    }
    if meta.len() > MAX_FROM_BYTES {
        return Err(Refused(format!("is {} bytes, more than {MAX_FROM_BYTES}", meta.len())));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FROM_BYTES + 1).read_to_end(&mut bytes).map_err(|err| Refused(err.to_string()))?;
    if bytes.len() as u64 > MAX_FROM_BYTES {
        return Err(Refused(format!("is more than {MAX_FROM_BYTES} bytes")));
    }
    let text = String::from_utf8(bytes).map_err(|_| Refused("is not UTF-8 text".into()))?;
    if let Some((number, why)) = text.lines().enumerate().find_map(|(n, line)| bad_line(line).map(|why| (n + 1, why))) {
        return Err(Refused(format!("line {number} {why}")));
    }
    Ok(text)
}

/// Why a line is no part of Gearshift's metrics, if it is not.
fn bad_line(line: &str) -> Option<&'static str> {
    if line.is_empty() {
        return None;
    }
    if let Some(rest) = line.strip_prefix("# HELP ") {
        let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
        return (!is_our_name(name) || help.chars().any(char::is_control))
            .then_some("is a HELP line for something else");
    }
    if let Some(rest) = line.strip_prefix("# TYPE ") {
        let ok =
            rest.split_once(' ').is_some_and(|(name, kind)| is_our_name(name) && ["gauge", "counter"].contains(&kind));
        return (!ok).then_some("is a TYPE line for something else");
    }
    if !is_sample(line) {
        return Some("is not a gearshift_ series");
    }
    None
}

fn is_our_name(name: &str) -> bool {
    name.strip_prefix("gearshift_").is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    })
}

/// `name{label="value",...} number`, as the text format writes a sample.
fn is_sample(line: &str) -> bool {
    let name_end = line.find(['{', ' ']).unwrap_or(line.len());
    if !is_our_name(&line[..name_end]) {
        return false;
    }
    let mut rest = &line[name_end..];
    if let Some(labels) = rest.strip_prefix('{') {
        let Some(after) = labels_end(labels) else { return false };
        rest = after;
    }
    let Some(value) = rest.strip_prefix(' ') else { return false };
    matches!(value, "NaN" | "+Inf" | "-Inf") || value.parse::<f64>().is_ok_and(f64::is_finite)
}

/// What follows a label set's closing brace, when the set is well formed.
fn labels_end(mut text: &str) -> Option<&str> {
    if let Some(after) = text.strip_prefix('}') {
        return Some(after);
    }
    loop {
        let eq = text.find('=')?;
        let key = &text[..eq];
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        let mut chars = text[eq + 1..].strip_prefix('"')?.char_indices();
        let close = loop {
            match chars.next()? {
                (_, '\\') => {
                    chars.next()?;
                }
                (at, '"') => break at,
                (_, c) if c.is_control() => return None,
                _ => {}
            }
        };
        text = &text[eq + 2 + close + 1..];
        if let Some(after) = text.strip_prefix('}') {
            return Some(after);
        }
        text = text.strip_prefix(',')?;
    }
}

/// Writes `text` to `path` whole: a new file beside it (a name the
/// textfile collector skips), synced, renamed into place.
///
/// # Errors
/// As root, the directory may be written by others; or the writing failed.
pub fn write_whole(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if euid() == 0 {
        let meta = fs::metadata(dir)?;
        if meta.mode() & 0o002 != 0 {
            return Err(std::io::Error::other(format!(
                "{} may be written by anyone (mode {:04o}): root does not write there",
                dir.display(),
                meta.mode() & 0o7777
            )));
        }
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut last = None;
    for attempt in 0..8u32 {
        let temporary = dir.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&temporary);
        let mut file = match file {
            Ok(file) => file,
            // Something is there already (planted, or a crashed run's):
            // never written through, another name is tried.
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                last = Some(err);
                continue;
            }
            Err(err) => return Err(err),
        };
        let written =
            file.write_all(text.as_bytes()).and_then(|()| file.sync_all()).and_then(|()| fs::rename(&temporary, path));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        return written;
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary name was free")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_gearshift_series_pass() {
        assert_eq!(bad_line("# HELP gearshift_info Gearshift's version."), None);
        assert_eq!(bad_line("# TYPE gearshift_changed_outside_total counter"), None);
        assert_eq!(bad_line(r#"gearshift_info{version="0.1.0",codename="Meteor \"Lake\""} 1"#), None);
        assert_eq!(bad_line("gearshift_measurement_timestamp_seconds{workload=\"build\"} 1796410017.5"), None);
        assert_eq!(bad_line("gearshift_x 1"), None);
        assert!(bad_line("root:$6$abc:19000:0:99999:7:::").is_some());
        assert!(bad_line("node_cpu_seconds_total 1").is_some());
        assert!(bad_line("# TYPE node_load1 gauge").is_some());
        assert!(bad_line("gearshift_info{version=\"1\"} 1 extra").is_some());
        assert!(bad_line("gearshift_info{version=\"1} 1").is_some());
        assert!(bad_line("gearshift_info{version=\"1\",} 1").is_some());
        assert!(bad_line("\0\0\0").is_some());
    }

    #[test]
    fn a_link_a_fifo_a_device_or_too_much_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("gearshift.prom");
        fs::write(&good, "# TYPE gearshift_info gauge\ngearshift_info{version=\"1\"} 1\n").unwrap();
        assert!(read_from(&good).is_ok());
        let link = dir.path().join("link.prom");
        std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
        assert!(read_from(&link).unwrap_err().0.contains("symbolic link"));
        assert!(read_from(Path::new("/dev/zero")).is_err());
        let fifo = dir.path().join("fifo.prom");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
        assert!(read_from(&fifo).unwrap_err().0.contains("not a plain file"));
        let big = dir.path().join("big.prom");
        fs::write(&big, "gearshift_x 1\n".repeat(80_000)).unwrap();
        assert!(read_from(&big).unwrap_err().0.contains("bytes"));
        let other = dir.path().join("passwd.prom");
        fs::write(&other, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
        assert!(read_from(&other).unwrap_err().0.contains("line 1"));
    }

    #[test]
    fn the_temporary_file_never_follows_a_planted_link() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("gearshift.prom");
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        for attempt in 0..3 {
            let planted = dir.path().join(format!(".gearshift.prom.{}.{attempt}.tmp", std::process::id()));
            std::os::unix::fs::symlink(&victim, planted).unwrap();
        }
        write_whole(&target, "gearshift_x 1\n").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(fs::read_to_string(&target).unwrap(), "gearshift_x 1\n");
    }
}

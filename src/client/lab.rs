//! The efficiency lab through the helper, for `gearshift measure` and the
//! window's Efficiency page alike: a measurement lease (`BeginMeasurement`,
//! so that the helper puts the profile back even when this process is
//! killed), the runs of [`Session::run`], then `EndMeasurement`. The method
//! is in docs/efficiency.md.
//!
//! Blocking: call it from a thread of its own (the window: a blocking task
//! on relm4's runtime; the command line: its main thread), with a handle to
//! the multi-threaded runtime the helper's connection lives on.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::runtime::Handle;

use super::{ClientError, Helper};

mod estimate;
mod words;
use crate::core::custom::CustomProfile;
use crate::core::measure::{Bench, End, Progress, Report, Session, Zone, KERNEL_DEFAULT};
use crate::core::profile::{BuiltinProfile, Resolver};
use crate::core::status::Status;
use crate::i18n::i18n_f;
pub use estimate::{Basis, Estimate, Plan, Span};
pub use words::{before_words, claims, estimate_words, figure, left_words, verdict, with_interval};

/// The helper as the lab's [`Bench`].
struct HelperBench<'a> {
    helper: &'a Helper,
    runtime: &'a Handle,
    /// The measurement lease.
    cookie: u32,
}

impl HelperBench<'_> {
    fn block<T>(&self, f: impl std::future::Future<Output = Result<T, ClientError>>) -> Result<T, ClientError> {
        self.runtime.block_on(f)
    }
}

impl Bench for HelperBench<'_> {
    type Error = ClientError;

    fn switch(&mut self, id: &str) -> Result<(), ClientError> {
        let id = id.to_owned();
        self.block(self.helper.call(|p| async move { p.set_profile(&id).await.map(|_| ()) }))
    }

    fn energy(&mut self) -> Option<Vec<Zone>> {
        read_energy(self.helper, self.runtime).ok()
    }

    fn disturbances(&mut self) -> Option<u32> {
        let cookie = self.cookie;
        self.block(self.helper.call(|p| async move { p.measurement_disturbances(cookie).await })).ok()
    }
}

/// The energy counters through the helper (polkit `read-power`).
///
/// # Errors
/// The helper refused, or there is none.
pub fn read_energy(helper: &Helper, runtime: &Handle) -> Result<Vec<Zone>, ClientError> {
    let (_, zones) = runtime.block_on(helper.call(|p| async move { p.read_energy().await }))?;
    Ok(zones
        .into_iter()
        .map(|z| Zone { name: z.name, energy_uj: z.energy_uj, max_uj: z.max_energy_range_uj })
        .collect())
}

/// Which energy counter a measurement reads (`psys`, `package`), `None`
/// where the helper found none useful; an error where it could not be asked
/// (the results are then time only).
///
/// # Errors
/// The helper refused, or there is none.
pub fn energy_source(helper: &Helper, runtime: &Handle) -> Result<Option<&'static str>, ClientError> {
    read_energy(helper, runtime).map(|zones| crate::core::measure::energy_source(&zones))
}

/// How a measurement through the helper ended.
#[derive(Debug)]
pub struct Outcome {
    /// The report of the runs made (all of them when `end` is `Done`).
    pub report: Report,
    /// How the runs ended.
    pub end: End<ClientError>,
    /// Putting the profile back failed (the helper also tries when this
    /// process leaves the bus).
    pub restore_failed: Option<ClientError>,
}

/// Measures `session` through the helper, reading `source` (from
/// [`energy_source`]): the lease first, the runs, the profile put back.
///
/// # Errors
/// The lease was refused (polkit, another measurement running, no helper):
/// nothing was switched.
pub fn measure(
    helper: &Helper,
    runtime: &Handle,
    session: &Session,
    source: Option<&'static str>,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Outcome, ClientError> {
    let cookie = runtime.block_on(helper.call(|p| async move { p.begin_measurement().await }))?;
    let mut bench = HelperBench { helper, runtime, cookie };
    let measured = session.run(&mut bench, source, cancel, progress);
    // Put back what was chosen before, whatever happened; a lost bus also
    // ends the lease, and then the helper puts it back by itself.
    let end_lease = runtime.block_on(helper.call(|p| async move { p.end_measurement(cookie).await }));
    let (restored, restore_failed) = match end_lease {
        Ok(id) => (id, None),
        Err(err) => (String::new(), Some(err)),
    };
    let report = session.report(&measured, &restored);
    Ok(Outcome { report, end: measured.end, restore_failed })
}

/// A profile's name for people: the built-in names, a custom profile's
/// own, "Kernel default (128)" for [`KERNEL_DEFAULT`].
pub fn profile_name(id: &str, customs: &[CustomProfile], kernel_epp: Option<u8>) -> String {
    match BuiltinProfile::from_id(id) {
        Some(p) => p.name().localized(),
        // Translators: {} is an EPP number such as 128.
        None if id == KERNEL_DEFAULT => i18n_f("Kernel default ({})", &[&kernel_epp.unwrap_or(128)]),
        None => customs.iter().find(|p| p.id == id).map_or_else(|| id.to_owned(), |p| p.name.clone()),
    }
}

/// Each profile's EPP here, for the report: what the status says each
/// applies, the kernel's generic value for [`KERNEL_DEFAULT`].
pub fn epps(ids: &[String], status: &Status, kernel_default: Option<u8>) -> Vec<(String, Option<u8>)> {
    ids.iter()
        .map(|id| {
            let epp = if id == KERNEL_DEFAULT {
                kernel_default
            } else {
                status.profiles.iter().find(|p| &p.id == id).and_then(|p| p.epp)
            };
            (id.clone(), epp)
        })
        .collect()
}

/// What a measurement ran on, for [`Kept`]: the kernel release and the
/// CPU's codename (else its model name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The kernel release ("" where unknown).
    pub kernel: String,
    /// The CPU ("" where unknown).
    pub cpu: String,
}

impl Origin {
    /// This machine's.
    pub fn of(resolver: &Resolver<'_>) -> Origin {
        let cpu = resolver
            .model
            .as_ref()
            .and_then(|m| m.codename.clone())
            .or_else(|| resolver.machine.identity.model_name.clone())
            .unwrap_or_default();
        Origin { kernel: resolver.machine.kernel_release.clone().unwrap_or_default(), cpu }
    }

    /// Keeps a finished measurement's report, made now, in [`results_dir`]
    /// (no directory: `None`, where there is no home).
    pub fn keep(self, report: &Report) -> (Kept, Option<std::io::Result<PathBuf>>) {
        self.keep_timed(report, None)
    }

    /// [`Origin::keep`], with the seconds the whole measurement took (for
    /// the next one's estimate).
    pub fn keep_timed(self, report: &Report, took: Option<f64>) -> (Kept, Option<std::io::Result<PathBuf>>) {
        let kept = Kept { time: now(), kernel: self.kernel, cpu: self.cpu, report: report.clone(), took };
        let path = results_dir().map(|dir| keep(&dir, &kept));
        (kept, path)
    }
}

/// A finished measurement as kept on disk: the report and where and when
/// it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// Seconds since 1970 (UTC).
    pub time: u64,
    /// The kernel release it ran on.
    pub kernel: String,
    /// The CPU model's name (or its codename).
    pub cpu: String,
    /// The report.
    pub report: Report,
    /// Seconds the whole measurement took, from its lease to the profile
    /// put back (kept by the window; the estimate of the next one reads it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub took: Option<f64>,
}

/// The directory results are kept in: `$XDG_DATA_HOME/gearshift/measurements`
/// (`~/.local/share/...`); for root without `XDG_DATA_HOME` (a measurement
/// run on a server by an administrator or a playbook), the system's
/// [`SYSTEM_RESULTS_DIR`], which `gearshift metrics` reads.
pub fn results_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()).map(PathBuf::from);
    // SAFETY: geteuid has no preconditions.
    if data.is_none() && unsafe { libc::geteuid() } == 0 {
        return Some(PathBuf::from("/").join(SYSTEM_RESULTS_DIR));
    }
    let data = data.or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("gearshift").join("measurements"))
}

/// Where root's measurements are kept, under the root (`/`).
pub const SYSTEM_RESULTS_DIR: &str = "var/lib/gearshift/measurements";

/// The most results kept; the oldest go first.
pub const MAX_KEPT: usize = 50;

/// Keeps a result (written whole: a temporary file renamed into place);
/// returns its path.
///
/// # Errors
/// The directory cannot be made or written.
pub fn keep(dir: &Path, kept: &Kept) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let text = serde_json::to_string_pretty(kept).map_err(std::io::Error::other)?;
    let mut name = format!("{}-{}.json", kept.time, kept.report.workload);
    let mut n = 1;
    while dir.join(&name).exists() {
        n += 1;
        name = format!("{}-{}-{n}.json", kept.time, kept.report.workload);
    }
    let path = dir.join(&name);
    let temporary = dir.join(format!(".{name}.tmp"));
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, &path)?;
    let old = listed(dir);
    for (stale, _) in old.iter().skip(MAX_KEPT) {
        let _ = std::fs::remove_file(stale);
    }
    Ok(path)
}

/// The results kept in `dir`, newest first; files that do not parse are
/// left out (and left alone).
pub fn listed(dir: &Path) -> Vec<(PathBuf, Kept)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut kept: Vec<(PathBuf, Kept)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() < 1 << 20))
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            match serde_json::from_str::<Kept>(&text) {
                Ok(k) => Some((p, k)),
                Err(err) => {
                    log::info!("{}: not a kept measurement ({err})", p.display());
                    None
                }
            }
        })
        .collect();
    kept.sort_by(|a, b| b.1.time.cmp(&a.1.time).then_with(|| b.0.cmp(&a.0)));
    kept
}

/// The time now, for [`Kept::time`].
pub fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::measure::{summarize, Rounds, Run};

    fn kept(time: u64) -> Kept {
        let runs = [Run { profile: "power".into(), work: 10.0, seconds: 2.0, joules: Some(5.0), ..Run::default() }];
        Kept {
            time,
            kernel: "6.12.0".into(),
            cpu: "Meteor Lake".into(),
            report: summarize("build", "MB", Rounds::Fixed(1), Some("package"), &runs, &|_| Some(179), "power"),
            took: (time % 2 == 0).then_some(30.0),
        }
    }

    #[test]
    fn results_are_kept_whole_listed_newest_first_and_bounded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = keep(dir.path(), &kept(100)).expect("kept");
        let second = keep(dir.path(), &kept(100)).expect("same second, another name");
        assert_ne!(first, second);
        keep(dir.path(), &kept(200)).expect("kept");
        std::fs::write(dir.path().join("broken.json"), "{").expect("write");
        let list = listed(dir.path());
        assert_eq!(list.iter().map(|(_, k)| k.time).collect::<Vec<_>>(), vec![200, 100, 100]);
        assert_eq!(list[0].1, kept(200));
        assert!(dir.path().join("broken.json").exists(), "a foreign file is left alone");
        assert!(!std::fs::read_dir(dir.path())
            .expect("dir")
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".tmp")));
        for t in 0..MAX_KEPT as u64 {
            keep(dir.path(), &kept(1000 + t)).expect("kept");
        }
        let list = listed(dir.path());
        assert_eq!(list.len(), MAX_KEPT);
        assert_eq!(list.last().map(|(_, k)| k.time), Some(1000), "the oldest went first");
    }
}

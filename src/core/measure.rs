//! The efficiency lab's method (docs/efficiency.md): fixed workloads, the
//! energy they cost, and performance per watt (PPW = work / energy) per
//! profile, the way the kernel and CPU vendors compare EPP values.
//!
//! No D-Bus and no GTK here: the caller switches profiles and reads the
//! energy counters (through the helper), this module runs the work, keeps
//! the schedule (profiles interleaved, A B C A B C ...), adds up energy
//! across counter wrap-around and turns runs into figures.
//!
//! The parts: `measure/workload.rs` (the work), `measure/energy.rs` (the
//! counters), `measure/report.rs` (the figures); this module holds the
//! session that runs them in turn.

mod energy;
mod report;
mod workload;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use energy::{energy_source, measured, EnergyMeter, Zone};
pub use report::{summarize, ProfileFigures, Report, Run};
pub use workload::Workload;

/// A profile id for the run at the kernel's generic EPP (128 on Intel
/// HWP), beside the model's own balanced value.
pub const KERNEL_DEFAULT: &str = "kernel_default";

/// The order of the runs: each profile once per round, `repeats` rounds,
/// so that a slow drift (heat, a background task) spreads over all.
pub fn schedule(profiles: &[String], repeats: usize) -> Vec<String> {
    (0..repeats.max(1)).flat_map(|_| profiles.iter().cloned()).collect()
}

/// Busier than this (a share of the CPUs' time) at the start, and the
/// lab asks first.
pub const BUSY_LIMIT: f64 = 0.15;

/// The share of half a second the CPUs were busy with other work
/// (/proc/stat): above [`BUSY_LIMIT`] the figures are spoiled.
pub fn busy_share() -> Option<f64> {
    let read = || -> Option<(u64, u64)> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let fields: Vec<u64> = stat.lines().next()?.split_whitespace().skip(1).filter_map(|v| v.parse().ok()).collect();
        let idle = fields.get(3)? + fields.get(4).unwrap_or(&0);
        Some((fields.iter().take(8).sum(), idle))
    };
    let (t0, i0) = read()?;
    std::thread::sleep(Duration::from_millis(500));
    let (t1, i1) = read()?;
    let total = t1.checked_sub(t0).filter(|t| *t > 0)?;
    Some(1.0 - (i1 - i0) as f64 / total as f64)
}

/// What to measure: the profiles, the work, how often.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// Profile ids in the order of a round (may hold [`KERNEL_DEFAULT`]).
    pub profiles: Vec<String>,
    /// Each profile's EPP here (for the report).
    pub epps: Vec<(String, Option<u8>)>,
    /// A built-in workload, or `None` for `command`.
    pub workload: Option<Workload>,
    /// The person's own command (one successful run = one unit).
    pub command: Option<String>,
    /// Rounds.
    pub repeats: usize,
    /// Times the standard amount of work.
    pub scale: f64,
    /// Online CPUs, for the workloads that use all.
    pub cpus: usize,
}

impl Session {
    /// The workload's id and unit.
    pub fn work_id_unit(&self) -> (&'static str, &'static str) {
        match (&self.command, self.workload) {
            (Some(_), _) => ("command", "runs"),
            (None, w) => {
                let w = w.unwrap_or(Workload::Build);
                (w.id(), w.unit())
            }
        }
    }

    /// Runs one measurement with `bench` switching profiles and reading
    /// energy from `source` (the counter the caller found, `None`: time
    /// only); `progress` hears each run as it starts (index from 0, the
    /// number of runs, the profile). The caller puts the profile back
    /// (the helper's measurement lease) whatever this returns.
    pub fn run<B: Bench>(
        &self,
        bench: &mut B,
        source: Option<&'static str>,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(usize, usize, &str),
    ) -> Measured<B::Error> {
        let schedule = schedule(&self.profiles, self.repeats);
        let mut runs = Vec::new();
        for (i, id) in schedule.iter().enumerate() {
            if cancel.load(Ordering::SeqCst) {
                break;
            }
            progress(i, schedule.len(), id);
            // The kernel's generic value is a switch too: the helper applies
            // Balanced with the EPP the kernel itself would write.
            let switched = bench.switch(id);
            if let Err(err) = switched {
                return Measured { runs, source, end: End::Failed(err) };
            }
            let disturbances = bench.disturbances();
            // A short idle settle, so that one run's heat and boost budget
            // do not start the next.
            bench.settle(Duration::from_secs_f64((2.0 * self.scale.min(1.0)).max(0.2)));
            let work = || match &self.command {
                Some(command) => {
                    let ok =
                        std::process::Command::new("sh").arg("-c").arg(command).status().is_ok_and(|s| s.success());
                    f64::from(u8::from(ok))
                }
                None => self.workload.unwrap_or(Workload::Build).run(self.cpus, self.scale, cancel),
            };
            let read = || source.and_then(|_| bench.energy());
            let (done, seconds, joules) = measured(work, read, Duration::from_secs(2));
            log::debug!("run {}: {id}: {done} in {seconds:.2} s, {joules:?} J", i + 1);
            if cancel.load(Ordering::SeqCst) {
                break;
            }
            if done == 0.0 && self.command.is_some() {
                return Measured { runs, source, end: End::CommandFailed };
            }
            // A change by someone else since the switch spoils the run.
            let disturbed = disturbances.zip(bench.disturbances()).is_some_and(|(before, after)| after > before);
            if disturbed {
                log::info!("run {}: {id}: the profile was changed meanwhile, the run is set aside", i + 1);
            }
            runs.push(Run { profile: id.clone(), work: done, seconds, joules: joules.filter(|j| *j > 0.0), disturbed });
        }
        let end = if cancel.load(Ordering::SeqCst) { End::Cancelled } else { End::Done };
        Measured { runs, source, end }
    }

    /// The report of finished runs; `restored` is the profile put back.
    pub fn report(&self, measured: &Measured<impl Sized>, restored: &str) -> Report {
        let (id, unit) = self.work_id_unit();
        // Work per joule only where every run could read the counters.
        let energy = measured.runs.iter().all(|r| r.joules.is_some()).then_some(measured.source).flatten();
        let runs: Vec<Run> = measured.runs.iter().map(|r| Run { joules: energy.and(r.joules), ..r.clone() }).collect();
        let epp = |p: &str| self.epps.iter().find(|(id, _)| id == p).and_then(|(_, e)| *e);
        summarize(id, unit, self.repeats, energy, &runs, &epp, restored)
    }
}

/// The kernel's generic balanced EPP, where it differs from the model's own
/// and the driver takes numbers (Intel HWP): the run the model's value is
/// measured against.
pub fn kernel_default(resolver: &crate::core::profile::Resolver<'_>) -> Option<u8> {
    use crate::core::parse::EppName;
    let generic = resolver.model.as_ref().and_then(|m| m.generic.get(EppName::BalancePerformance));
    let model = resolver.epp_for(EppName::BalancePerformance);
    (resolver.form == crate::core::plan::PreferenceForm::Number && generic != model).then_some(generic).flatten()
}

/// The profiles a measurement compares when none are named: the four
/// built-in ones, with the kernel's generic value after Balanced where it
/// differs.
pub fn default_profiles(kernel_default: Option<u8>) -> Vec<String> {
    let mut ids: Vec<String> = crate::core::profile::BuiltinProfile::ALL.iter().map(|p| p.id().to_owned()).collect();
    if kernel_default.is_some() {
        ids.insert(2, KERNEL_DEFAULT.to_owned());
    }
    ids
}

/// What a measurement asks of the machine: the helper, in the programs; a
/// model, in the tests.
pub trait Bench {
    /// Why a switch failed.
    type Error;
    /// Switches to a profile, or to [`KERNEL_DEFAULT`].
    ///
    /// # Errors
    /// The helper refused or could not write.
    fn switch(&mut self, id: &str) -> Result<(), Self::Error>;
    /// The energy counters now, where they can be read.
    fn energy(&mut self) -> Option<Vec<Zone>>;
    /// How often something else changed what the machine runs since the
    /// measurement began (`None` where that cannot be told).
    fn disturbances(&mut self) -> Option<u32> {
        None
    }
    /// Waits between runs.
    fn settle(&mut self, pause: Duration) {
        std::thread::sleep(pause);
    }
}

/// How a measurement ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End<E> {
    /// Every run was made.
    Done,
    /// Cancelled (Ctrl-C, the window's Cancel).
    Cancelled,
    /// A switch failed.
    Failed(E),
    /// The person's command failed.
    CommandFailed,
}

/// The runs made and how it ended.
#[derive(Debug, Clone)]
pub struct Measured<E> {
    /// The runs, in the order made.
    pub runs: Vec<Run>,
    /// The energy source read (`psys`, `package`), if any.
    pub source: Option<&'static str>,
    /// How it ended.
    pub end: End<E>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(name: &str, uj: u64, max: u64) -> Zone {
        Zone { name: name.into(), energy_uj: uj, max_uj: max }
    }

    /// A bench that logs what it was asked, counts energy at a fixed rate
    /// per reading, and fails the switch to `fail`.
    #[derive(Default)]
    struct Fake {
        asked: Vec<String>,
        uj: u64,
        fail: Option<&'static str>,
        /// The disturbance counter goes up at this call of `disturbances`
        /// (run i reads it at calls 2i+1 and 2i+2).
        disturb_at: Option<usize>,
        calls: usize,
        disturbances: u32,
    }

    impl Bench for Fake {
        type Error = String;
        fn switch(&mut self, id: &str) -> Result<(), String> {
            self.asked.push(id.to_owned());
            if self.fail == Some(id) {
                return Err(format!("cannot switch to {id}"));
            }
            Ok(())
        }
        fn energy(&mut self) -> Option<Vec<Zone>> {
            self.uj += 1_000_000;
            Some(vec![zone("package-0", self.uj, 1 << 40)])
        }
        fn disturbances(&mut self) -> Option<u32> {
            self.calls += 1;
            if self.disturb_at == Some(self.calls) {
                self.disturbances += 1;
            }
            Some(self.disturbances)
        }
        fn settle(&mut self, _: Duration) {}
    }

    fn session(profiles: &[&str], repeats: usize) -> Session {
        Session {
            profiles: profiles.iter().map(|p| (*p).to_owned()).collect(),
            epps: vec![("power".into(), Some(255)), (KERNEL_DEFAULT.into(), Some(128))],
            workload: Some(Workload::Burst),
            command: None,
            repeats,
            scale: 0.002,
            cpus: 1,
        }
    }

    #[test]
    fn a_session_switches_in_rounds_and_reports() {
        let mut bench = Fake::default();
        let s = session(&["power", KERNEL_DEFAULT], 2);
        let mut heard = Vec::new();
        let measured = s.run(&mut bench, Some("package"), &AtomicBool::new(false), &mut |i, n, id| {
            heard.push(format!("{i}/{n} {id}"))
        });
        assert_eq!(measured.end, End::Done);
        assert_eq!(bench.asked, ["power", KERNEL_DEFAULT, "power", KERNEL_DEFAULT]);
        assert_eq!(heard, ["0/4 power", "1/4 kernel_default", "2/4 power", "3/4 kernel_default"]);
        assert_eq!(measured.source, Some("package"));
        let report = s.report(&measured, "balance_power");
        assert_eq!(report.restored, "balance_power");
        assert_eq!(report.energy_source.as_deref(), Some("package"));
        assert_eq!(
            report.runs.iter().map(|f| (f.profile.as_str(), f.epp)).collect::<Vec<_>>(),
            [("power", Some(255)), (KERNEL_DEFAULT, Some(128))]
        );
        assert!(report.runs.iter().all(|f| f.ppw.is_some_and(|p| p > 0.0)));
    }

    #[test]
    fn a_run_during_which_someone_else_switched_is_set_aside() {
        // Run 2 (index 1, the first kernel_default run) is disturbed.
        let mut bench = Fake { disturb_at: Some(4), ..Fake::default() };
        let s = session(&["power", KERNEL_DEFAULT], 2);
        let measured = s.run(&mut bench, Some("package"), &AtomicBool::new(false), &mut |_, _, _| {});
        let flags: Vec<bool> = measured.runs.iter().map(|r| r.disturbed).collect();
        assert_eq!(flags, [false, true, false, false]);
        let report = s.report(&measured, "balance_power");
        let kernel = report.runs.iter().find(|f| f.profile == KERNEL_DEFAULT).unwrap();
        assert_eq!(kernel.disturbed, 1);
        // The undisturbed run alone makes the figures: its work per joule,
        // with no spread (one run).
        assert!(kernel.ppw.is_some() && kernel.ppw_spread.is_some_and(|s| s.abs() < 1e-9), "{kernel:?}");
        assert_eq!(report.runs.iter().find(|f| f.profile == "power").unwrap().disturbed, 0);
    }

    #[test]
    fn a_session_stops_at_a_failed_switch_and_when_cancelled() {
        let mut bench = Fake { fail: Some("performance"), ..Fake::default() };
        let measured = session(&["power", "performance"], 3).run(
            &mut bench,
            Some("package"),
            &AtomicBool::new(false),
            &mut |_, _, _| {},
        );
        assert_eq!(measured.end, End::Failed("cannot switch to performance".to_owned()));
        assert_eq!(measured.runs.len(), 1, "the run before the failure is kept");
        let cancel = AtomicBool::new(false);
        let mut bench = Fake::default();
        let measured =
            session(&["power", "performance"], 3).run(&mut bench, Some("package"), &cancel, &mut |i, _, _| {
                if i == 1 {
                    cancel.store(true, Ordering::SeqCst);
                }
            });
        assert_eq!(measured.end, End::Cancelled);
        assert_eq!(measured.runs.len(), 1, "the cancelled run is not counted");
        assert_eq!(bench.asked, ["power", "performance"]);
    }

    #[test]
    fn profiles_are_interleaved() {
        let ids: Vec<String> = ["a", "b", "c"].iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(schedule(&ids, 2), ["a", "b", "c", "a", "b", "c"]);
        assert_eq!(schedule(&ids, 0), ["a", "b", "c"]);
    }
}

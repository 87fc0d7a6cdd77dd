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
pub mod stats;
mod workload;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use energy::{energy_source, measured, EnergyMeter, Zone};
pub use report::{summarize, verdict, Comparison, Lead, ProfileFigures, Report, Run, MISSED_FRAMES_LIMIT};
pub use stats::Rounds;
pub use workload::{Done, Workload, FRAMES_PER_SECOND};

/// A profile id for the run at the kernel's generic EPP (128 on Intel
/// HWP), beside the model's own balanced value.
pub const KERNEL_DEFAULT: &str = "kernel_default";

/// Where a measurement is: run `run` (from 0) of `fewest` to `most`, on
/// `profile`. `fewest` grows as the rounds go on without a clear verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress<'a> {
    /// The run starting now, from 0.
    pub run: usize,
    /// The runs it takes at least, counting this round.
    pub fewest: usize,
    /// The runs it takes at most.
    pub most: usize,
    /// The profile of this run.
    pub profile: &'a str,
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

/// The idle pause before each run at `scale` (2 s at a full run, less for
/// a shorter one), so that one run's heat and boost budget do not start the
/// next; the estimate counts it too.
pub fn settle_seconds(scale: f64) -> f64 {
    (2.0 * scale.min(1.0)).max(0.2)
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
    /// How many rounds: fixed, or until the verdict is clear.
    pub rounds: Rounds,
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
    /// only): each profile once a round, in turn, so that a slow drift
    /// (heat, a background task) spreads over all; with [`Rounds::Auto`],
    /// after each round from the fewest on, it stops once the verdict is
    /// clear (docs/efficiency.md, "The statistics"). `progress` hears each
    /// run as it starts. The caller puts the profile back (the helper's
    /// measurement lease) whatever this returns.
    pub fn run<B: Bench>(
        &self,
        bench: &mut B,
        source: Option<&'static str>,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Measured<B::Error> {
        let (fewest, most) = self.rounds.range();
        let (fewest, most) = (fewest.max(1), most.max(1));
        let per_round = self.profiles.len();
        let mut runs: Vec<Run> = Vec::new();
        for round in 0..most {
            if round >= fewest && verdict(&runs, source, self.rounds.alpha()).0.is_some() {
                log::debug!("the verdict is clear after {round} rounds");
                break;
            }
            for id in &self.profiles {
                let i = runs.len();
                if cancel.load(Ordering::SeqCst) {
                    break;
                }
                let at_least = fewest.max(round + 1) * per_round;
                progress(Progress { run: i, fewest: at_least, most: most * per_round, profile: id });
                if let Some(end) = self.run_once(bench, source, cancel, i, id, &mut runs) {
                    return Measured { runs, source, end };
                }
            }
            if cancel.load(Ordering::SeqCst) {
                break;
            }
        }
        let end = if cancel.load(Ordering::SeqCst) { End::Cancelled } else { End::Done };
        Measured { runs, source, end }
    }

    /// Runs `id` once (run `i`) and adds it to `runs`; how the measurement
    /// ends, where this run ends it.
    fn run_once<B: Bench>(
        &self,
        bench: &mut B,
        source: Option<&'static str>,
        cancel: &AtomicBool,
        i: usize,
        id: &str,
        runs: &mut Vec<Run>,
    ) -> Option<End<B::Error>> {
        // The kernel's generic value is a switch too: the helper applies
        // Balanced with the EPP the kernel itself would write.
        let switched = bench.switch(id);
        if let Err(err) = switched {
            return Some(End::Failed(err));
        }
        let disturbances = bench.disturbances();
        // A short idle settle, so that one run's heat and boost budget
        // do not start the next.
        bench.settle(Duration::from_secs_f64(settle_seconds(self.scale)));
        let work = || match &self.command {
            Some(command) => {
                let ok = std::process::Command::new("sh").arg("-c").arg(command).status().is_ok_and(|s| s.success());
                Done { work: f64::from(u8::from(ok)), missed_frames: None }
            }
            None => self.workload.unwrap_or(Workload::Build).run(self.cpus, self.scale, cancel),
        };
        let read = || source.and_then(|_| bench.energy());
        let (done, seconds, joules) = measured(work, read, Duration::from_secs(2));
        log::debug!("run {}: {id}: {done:?} in {seconds:.2} s, {joules:?} J", i + 1);
        if cancel.load(Ordering::SeqCst) {
            return None;
        }
        if done.work == 0.0 && self.command.is_some() {
            return Some(End::CommandFailed);
        }
        // A change by someone else since the switch spoils the run.
        let disturbed = disturbances.zip(bench.disturbances()).is_some_and(|(before, after)| after > before);
        if disturbed {
            log::info!("run {}: {id}: the profile was changed meanwhile, the run is set aside", i + 1);
        }
        runs.push(Run {
            profile: id.to_owned(),
            work: done.work,
            seconds,
            joules: joules.filter(|j| *j > 0.0),
            disturbed,
            missed_frames: done.missed_frames,
        });
        None
    }

    /// The report of finished runs; `restored` is the profile put back.
    pub fn report(&self, measured: &Measured<impl Sized>, restored: &str) -> Report {
        let (id, unit) = self.work_id_unit();
        // Work per joule only where every run could read the counters.
        let energy = measured.runs.iter().all(|r| r.joules.is_some()).then_some(measured.source).flatten();
        let runs: Vec<Run> = measured.runs.iter().map(|r| Run { joules: energy.and(r.joules), ..r.clone() }).collect();
        let epp = |p: &str| self.epps.iter().find(|(id, _)| id == p).and_then(|(_, e)| *e);
        summarize(id, unit, self.rounds, energy, &runs, &epp, restored)
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
mod tests;

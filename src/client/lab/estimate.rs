//! How long a measurement takes, from this computer's own runs: each
//! profile's seconds per run from the newest kept measurement of the same
//! workload on this CPU (its speed there, the work planned now, the pause
//! before each run and what the rest of a run cost then), else a first
//! guess; once runs finish, from their own times. No words here: the
//! page says it (`words.rs`), and `cargo bench --bench lab` checks it.

use crate::core::measure::{settle_seconds, Rounds, Workload};

use super::Kept;

/// A run's work at scale 1 when nothing was kept here yet: the middle of
/// docs/efficiency.md's "10 to 30 s on a laptop".
pub const GUESS_SECONDS: f64 = 20.0;

/// What a run costs besides its work and its pause, where no kept
/// measurement says: the switch through the helper, the energy readings,
/// the bookkeeping (`cargo bench --bench lab`, docs/efficiency.md).
pub const RUN_OVERHEAD_SECONDS: f64 = 0.3;

/// What a measurement costs once, before its first run: the lease, finding
/// the energy counters.
pub const START_SECONDS: f64 = 0.5;

/// What a measurement will do.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The workload.
    pub workload: Workload,
    /// Times the standard work (the dev scale included).
    pub scale: f64,
    /// The CPUs the work runs on.
    pub cpus: usize,
    /// The profiles, in the order of a round.
    pub profiles: Vec<String>,
    /// How many rounds.
    pub rounds: Rounds,
}

/// Where an estimate's figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Nothing measured on this computer yet.
    Guess,
    /// An earlier measurement of the same workload here.
    Kept,
    /// This measurement's own runs so far.
    Runs,
}

/// Each profile's seconds per run, corrected as the runs finish.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    profiles: Vec<String>,
    /// Each profile's seconds per run before any ran (work, pause, the rest).
    planned: Vec<f64>,
    /// Each profile's runs timed so far.
    timed: Vec<Vec<f64>>,
    kept: bool,
}

impl Estimate {
    /// Before starting: from the newest of `kept` (newest first, as
    /// [`super::listed`] gives them) that measured `plan`'s workload on
    /// `cpu`, else from [`GUESS_SECONDS`].
    pub fn new(plan: &Plan, kept: &[Kept], cpu: &str) -> Estimate {
        let work = plan.workload.planned_work(plan.cpus, plan.scale);
        let pause = settle_seconds(plan.scale);
        let earlier = kept.iter().find(|k| {
            k.report.workload == plan.workload.id()
                && !cpu.is_empty()
                && k.cpu == cpu
                && k.report.runs.iter().any(|f| f.n > 0 && f.throughput > 0.0)
        });
        let planned = match earlier {
            Some(k) => {
                // A profile this one did not run goes as fast as the
                // average of those it did.
                let speeds: Vec<(&str, f64)> = k
                    .report
                    .runs
                    .iter()
                    .filter(|f| f.n > 0 && f.throughput > 0.0)
                    .map(|f| (f.profile.as_str(), work / f.throughput))
                    .collect();
                let average = speeds.iter().map(|(_, s)| s).sum::<f64>() / speeds.len() as f64;
                let overhead = overhead(k, plan).unwrap_or(RUN_OVERHEAD_SECONDS);
                plan.profiles
                    .iter()
                    .map(|id| speeds.iter().find(|(p, _)| p == id).map_or(average, |(_, s)| *s) + pause + overhead)
                    .collect()
            }
            None => vec![GUESS_SECONDS * plan.scale + pause + RUN_OVERHEAD_SECONDS; plan.profiles.len()],
        };
        Estimate {
            profiles: plan.profiles.clone(),
            timed: vec![Vec::new(); planned.len()],
            planned,
            kept: earlier.is_some(),
        }
    }

    /// Where the figures come from now.
    pub fn basis(&self) -> Basis {
        if self.timed.iter().any(|t| !t.is_empty()) {
            Basis::Runs
        } else if self.kept {
            Basis::Kept
        } else {
            Basis::Guess
        }
    }

    /// Run `run` (from 0, in round order) took `seconds`, from its start to
    /// the next one's.
    pub fn ran(&mut self, run: usize, seconds: f64) {
        if let Some(timed) = self.timed.get_mut(run % self.profiles.len().max(1)) {
            if seconds.is_finite() && seconds >= 0.0 {
                timed.push(seconds);
            }
        }
    }

    /// A profile's seconds per run now: its own runs' mean where it ran,
    /// else the plan, scaled by how the profiles that ran compared with
    /// theirs (the first run's time calibrates the rest).
    fn per_run(&self, profile: usize) -> f64 {
        let mean = |t: &[f64]| t.iter().sum::<f64>() / t.len() as f64;
        if let Some(own) = self.timed.get(profile).filter(|t| !t.is_empty()) {
            return mean(own);
        }
        let (took, planned) = self
            .timed
            .iter()
            .zip(&self.planned)
            .filter(|(t, _)| !t.is_empty())
            .fold((0.0, 0.0), |(took, planned), (t, p)| (took + mean(t), planned + p));
        let ratio = if planned > 0.0 { took / planned } else { 1.0 };
        self.planned.get(profile).copied().unwrap_or(0.0) * ratio
    }

    /// Seconds for runs `from` to `to` (from 0, each profile once a
    /// round, in turn).
    pub fn seconds(&self, from: usize, to: usize) -> f64 {
        let n = self.profiles.len().max(1);
        (from..to).map(|run| self.per_run(run % n)).sum()
    }

    /// Before starting: the seconds of the fewest rounds and of the most.
    pub fn before(&self, rounds: Rounds) -> (f64, f64) {
        let (fewest, most) = rounds.range();
        let n = self.profiles.len();
        (START_SECONDS + self.seconds(0, fewest * n), START_SECONDS + self.seconds(0, most * n))
    }

    /// While it runs, run `next` starting: the seconds left to the fewest
    /// runs (`fewest`, as they stand now) and to the most.
    pub fn left(&self, next: usize, fewest: usize, most: usize) -> (f64, f64) {
        (self.seconds(next, fewest.max(next)), self.seconds(next, most.max(next)))
    }
}

/// What each run of the kept measurement `k` cost besides its work and
/// its pause, where it says how long it took in all.
fn overhead(k: &Kept, plan: &Plan) -> Option<f64> {
    let took = k.took?;
    let runs: usize = k.report.runs.iter().map(|f| f.n + f.disturbed).sum();
    if runs == 0 {
        return None;
    }
    let work: f64 = k.report.runs.iter().map(|f| f.seconds * (f.n + f.disturbed) as f64).sum();
    // Its scale, from the work a run did there against a run at scale 1.
    let done = k.report.runs.iter().find(|f| f.n > 0).map(|f| f.throughput * f.seconds)?;
    let scale = done / plan.workload.planned_work(plan.cpus, 1.0);
    let rest = (took - START_SECONDS - work) / runs as f64 - settle_seconds(scale);
    Some(rest.clamp(0.0, 30.0))
}

/// A duration as people say it before a measurement, rounded to whole
/// minutes: never "2 to 2 minutes".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// Both ends under three quarters of a minute.
    UnderAMinute,
    /// About this many minutes (both ends round to it).
    About(u64),
    /// From this many minutes to that many.
    Between(u64, u64),
}

impl Span {
    /// From the seconds of the shortest and the longest way.
    pub fn of(soonest: f64, latest: f64) -> Span {
        let latest = latest.max(soonest);
        if latest < 45.0 {
            return Span::UnderAMinute;
        }
        let minutes = |s: f64| (s / 60.0).round().max(1.0) as u64;
        match (minutes(soonest), minutes(latest)) {
            (a, b) if a == b => Span::About(a),
            (a, b) => Span::Between(a, b),
        }
    }
}

#[cfg(test)]
mod tests;

//! A measurement's figures: each run, and per profile the means with their
//! 95% intervals, the comparison with the kernel's generic value, and the
//! verdict the runs support (the JSON of docs/interfaces.md; the method in
//! docs/efficiency.md, "The statistics").

use serde::{Deserialize, Serialize};

use super::stats::{self, Rounds};
use super::KERNEL_DEFAULT;

/// The share of its frames a playback profile may miss and still be best.
pub const MISSED_FRAMES_LIMIT: f64 = 0.01;

/// One run's outcome.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    /// The profile id (or [`KERNEL_DEFAULT`]).
    pub profile: String,
    /// The work done, in the workload's unit.
    pub work: f64,
    /// How long it took.
    pub seconds: f64,
    /// What it cost, where counters could be read.
    pub joules: Option<f64>,
    /// Something else changed what the machine ran during it (another
    /// client, a firmware hotkey): its figures are not used.
    pub disturbed: bool,
    /// Playback: the frames finished after their deadline.
    pub missed_frames: Option<u64>,
}

impl Run {
    /// What runs are ranked by: work per joule where energy was read, else
    /// work per second.
    fn key(&self, energy: bool) -> Option<f64> {
        if energy {
            self.joules.filter(|j| *j > 0.0).map(|j| self.work / j)
        } else {
            Some(self.work / self.seconds.max(1e-9))
        }
    }
}

/// One profile against another: the difference in per cent with its 95%
/// interval, and whether the runs support it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// +7.0: 7% more work per joule (or speed, without counters).
    pub pct: f64,
    /// The interval, in per cent: Welch's, at the measurement's per-look
    /// level (docs/efficiency.md), so 95% for the whole measurement.
    pub ci95_pct: [f64; 2],
    /// The interval excludes 0 and the difference is at least
    /// [`stats::MIN_CLEAR_PCT`].
    pub clear: bool,
}

impl Comparison {
    fn of(d: stats::Difference) -> Comparison {
        Comparison { pct: d.pct, ci95_pct: [d.ci_pct.0, d.ci_pct.1], clear: d.clear }
    }
}

/// A profile's figures over its runs (the JSON `runs[]` entry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileFigures {
    /// The profile id.
    pub profile: String,
    /// The EPP it holds here (null where there is no EPP).
    pub epp: Option<u8>,
    /// Work per second, the mean over runs.
    pub throughput: f64,
    /// The workload's unit (per second, for `throughput`).
    pub unit: String,
    /// Seconds per run, the mean.
    pub seconds: f64,
    /// Joules per run, the mean.
    pub joules: Option<f64>,
    /// Mean power.
    pub watts: Option<f64>,
    /// Work per joule, the mean over runs.
    pub ppw: Option<f64>,
    /// The runs' spread of PPW: their standard deviation as a share of the
    /// mean, in per cent.
    pub ppw_spread: Option<f64>,
    /// PPW against the run at the kernel's generic EPP, in per cent (+7.0:
    /// 7% more work per joule); null for that run itself and without it.
    pub vs_kernel_default_pct: Option<f64>,
    /// Runs set aside because something else changed the profile while
    /// they ran (the figures above are of the others).
    #[serde(default)]
    pub disturbed: usize,
    /// The runs the figures are of.
    #[serde(default)]
    pub n: usize,
    /// The 95% interval of the mean PPW (null below 2 runs).
    #[serde(default)]
    pub ppw_ci95: Option<[f64; 2]>,
    /// The 95% interval of the mean throughput.
    #[serde(default)]
    pub throughput_ci95: Option<[f64; 2]>,
    /// The 95% interval of the mean power.
    #[serde(default)]
    pub watts_ci95: Option<[f64; 2]>,
    /// Runs far from the others of this profile (a background task, heat):
    /// flagged, and still in the figures.
    #[serde(default)]
    pub outliers: usize,
    /// Against the kernel's generic value, with its interval; null for that
    /// run itself, without it, or below 2 runs on either side.
    #[serde(default)]
    pub vs_kernel_default: Option<Comparison>,
    /// Playback: the frames finished late, over all its runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missed_frames: Option<u64>,
}

impl ProfileFigures {
    /// Playback: more than [`MISSED_FRAMES_LIMIT`] of its frames were late,
    /// so it cannot be best however little power it drew.
    pub fn fell_behind(&self) -> bool {
        let frames = self.throughput * self.seconds * self.n as f64;
        self.missed_frames.is_some_and(|m| frames > 0.0 && m as f64 / frames > MISSED_FRAMES_LIMIT)
    }
}

/// The best profile against the runner-up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lead {
    /// The profile with the most work per joule.
    pub profile: String,
    /// The one after it.
    pub over: String,
    /// How far ahead, with its interval.
    #[serde(flatten)]
    pub by: Comparison,
}

/// The lab's result (`gearshift measure --json`; the schema is in
/// docs/interfaces.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// `build`, `burst`, `wake`, `playback` or `command`.
    pub workload: String,
    /// Rounds made (each profile once a round).
    pub repeats: usize,
    /// `psys`, `package`, or null without counters.
    pub energy_source: Option<String>,
    /// One entry per profile, in the order first run.
    pub runs: Vec<ProfileFigures>,
    /// The profile clearly ahead of every other in work per joule (in
    /// speed, without counters); null when the runs cannot tell.
    pub best: Option<String>,
    /// The profile put back afterwards.
    pub restored: String,
    /// Without a best: the profiles the runs cannot tell apart from the
    /// front runner (it first); with one, just the best.
    #[serde(default)]
    pub tied_best: Vec<String>,
    /// How the rounds were decided: `pocock` (until the verdict is clear,
    /// each look at Pocock's level) or `fixed`.
    #[serde(default)]
    pub method: String,
    /// The front runner against the profile after it.
    #[serde(default)]
    pub lead: Option<Lead>,
}

/// Each profile's runs that count (not disturbed), in the order the
/// profiles first ran.
fn by_profile(runs: &[Run]) -> Vec<(&str, Vec<&Run>)> {
    let mut groups: Vec<(&str, Vec<&Run>)> = Vec::new();
    for run in runs {
        let at = match groups.iter().position(|(id, _)| *id == run.profile) {
            Some(at) => at,
            None => {
                groups.push((&run.profile, Vec::new()));
                groups.len() - 1
            }
        };
        if !run.disturbed {
            groups[at].1.push(run);
        }
    }
    groups
}

/// Whether every counted run could read the counters: then runs are
/// ranked by work per joule.
fn with_energy(runs: &[Run], energy_source: Option<&str>) -> bool {
    energy_source.is_some() && runs.iter().all(|r| r.joules.is_some_and(|j| j > 0.0))
}

/// The verdict the runs support so far: which profile is clearly best, or
/// which cannot be told apart. `alpha` is the per-look level of the rule
/// ([`Rounds::alpha`]). Playback profiles that fell behind cannot be best.
pub fn verdict(runs: &[Run], energy_source: Option<&str>, alpha: f64) -> (Option<String>, Vec<String>) {
    let energy = with_energy(runs, energy_source);
    let groups = by_profile(runs);
    let values: Vec<Vec<f64>> =
        groups.iter().map(|(_, rs)| rs.iter().filter_map(|r| r.key(energy)).collect()).collect();
    let eligible: Vec<bool> = groups
        .iter()
        .map(|(_, rs)| {
            let (frames, missed) =
                rs.iter().fold((0.0, 0u64), |(f, m), r| (f + r.work, m + r.missed_frames.unwrap_or(0)));
            frames <= 0.0 || missed as f64 / frames <= MISSED_FRAMES_LIMIT
        })
        .collect();
    let ranking = stats::rank(&values, &eligible, alpha);
    let id = |i: usize| groups[i].0.to_owned();
    (ranking.best.map(id), ranking.tied.into_iter().map(id).collect())
}

/// The 95% interval of `values`' mean, for the JSON.
fn interval(values: &[f64]) -> Option<[f64; 2]> {
    stats::estimate(values, 0.05).and_then(|e| e.ci).map(|(low, high)| [low, high])
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Sums runs up per profile: means with their intervals, spread, outliers,
/// each against the kernel's generic value where that was run, and the
/// verdict at `rounds`' level. `epp` says each profile's EPP here.
pub fn summarize(
    workload: &str,
    unit: &str,
    rounds: Rounds,
    energy_source: Option<&str>,
    runs: &[Run],
    epp: &dyn Fn(&str) -> Option<u8>,
    restored: &str,
) -> Report {
    let energy = with_energy(runs, energy_source);
    let groups = by_profile(runs);
    let mut figures: Vec<ProfileFigures> =
        groups.iter().map(|(id, mine)| figures_of(id, mine, runs, energy, unit, epp)).collect();
    let alpha = rounds.alpha();
    let keys = |id: &str| -> Vec<f64> {
        groups
            .iter()
            .find(|(g, _)| *g == id)
            .map(|(_, rs)| rs.iter().filter_map(|r| r.key(energy)).collect())
            .unwrap_or_default()
    };
    let base = keys(KERNEL_DEFAULT);
    let base_ppw = figures.iter().find(|f| f.profile == KERNEL_DEFAULT).and_then(|f| f.ppw);
    for f in figures.iter_mut().filter(|f| f.profile != KERNEL_DEFAULT) {
        f.vs_kernel_default_pct = base_ppw.zip(f.ppw).map(|(b, p)| (p / b - 1.0) * 100.0);
        if energy {
            f.vs_kernel_default = stats::difference(&keys(&f.profile), &base, alpha).map(Comparison::of);
        }
    }
    let (best, tied_best) = verdict(runs, energy_source, alpha);
    // The front runner against the next: the best against the runner-up,
    // or the first two the runs cannot tell apart.
    let front = best.clone().or_else(|| tied_best.first().cloned());
    let key_of = |f: &ProfileFigures| if energy { f.ppw.unwrap_or(0.0) } else { f.throughput };
    let runner_up = front.as_ref().and_then(|front| {
        figures
            .iter()
            .filter(|f| &f.profile != front && f.n > 0 && !f.fell_behind())
            .max_by(|a, b| key_of(a).total_cmp(&key_of(b)))
            .map(|f| f.profile.clone())
    });
    let lead = front.zip(runner_up).and_then(|(profile, over)| {
        let by = stats::difference(&keys(&profile), &keys(&over), alpha).map(Comparison::of)?;
        Some(Lead { profile, over, by })
    });
    let repeats = groups.iter().map(|(id, _)| runs.iter().filter(|r| r.profile == *id).count()).max().unwrap_or(0);
    Report {
        workload: workload.to_owned(),
        repeats,
        energy_source: energy_source.map(str::to_owned),
        runs: figures,
        best,
        restored: restored.to_owned(),
        tied_best,
        method: rounds.method().to_owned(),
        lead,
    }
}

/// One profile's figures from its runs (`mine`; `runs` for the disturbed
/// ones set aside): throughput, and where energy was read, joules, watts
/// and the work per joule with their intervals.
fn figures_of(
    id: &str,
    mine: &[&Run],
    runs: &[Run],
    energy: bool,
    unit: &str,
    epp: &dyn Fn(&str) -> Option<u8>,
) -> ProfileFigures {
    let disturbed = runs.iter().filter(|r| r.profile == *id && r.disturbed).count();
    let speeds: Vec<f64> = mine.iter().map(|r| r.work / r.seconds.max(1e-9)).collect();
    let keys: Vec<f64> = mine.iter().filter_map(|r| r.key(energy)).collect();
    let joules: Vec<f64> = mine.iter().filter_map(|r| r.joules).collect();
    let (joules, watts, ppw, spread, ppw_ci95, watts_ci95) = if energy && !joules.is_empty() {
        let ppw = mean(&keys);
        let watts: Vec<f64> = mine.iter().zip(&joules).map(|(r, j)| j / r.seconds.max(1e-9)).collect();
        let sd = stats::estimate(&keys, 0.05).map_or(0.0, |e| e.sd);
        (Some(mean(&joules)), Some(mean(&watts)), Some(ppw), Some(sd / ppw * 100.0), interval(&keys), interval(&watts))
    } else {
        (None, None, None, None, None, None)
    };
    let missed = mine.iter().map(|r| r.missed_frames).sum::<Option<u64>>();
    ProfileFigures {
        profile: (*id).to_owned(),
        epp: epp(id),
        throughput: mean(&speeds),
        unit: format!("{unit}/s"),
        seconds: mean(&mine.iter().map(|r| r.seconds).collect::<Vec<_>>()),
        joules,
        watts,
        ppw,
        ppw_spread: spread,
        vs_kernel_default_pct: None,
        disturbed,
        n: mine.len(),
        ppw_ci95,
        throughput_ci95: interval(&speeds),
        watts_ci95,
        outliers: stats::outliers(&keys).into_iter().filter(|o| *o).count(),
        vs_kernel_default: None,
        missed_frames: missed.filter(|_| !mine.is_empty()),
    }
}

#[cfg(test)]
mod tests;

//! A measurement's figures: each run, and per profile the means, the
//! spread, and the comparison with the kernel's generic value (the JSON of
//! docs/interfaces.md).

use serde::{Deserialize, Serialize};

use super::KERNEL_DEFAULT;

/// One run's outcome.
#[derive(Debug, Clone, PartialEq)]
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
}

/// The lab's result (`gearshift measure --json`; the schema is in
/// docs/interfaces.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// `build`, `burst`, `wake` or `command`.
    pub workload: String,
    /// Runs per profile.
    pub repeats: usize,
    /// `psys`, `package`, or null without counters.
    pub energy_source: Option<String>,
    /// One entry per profile, in the order first run.
    pub runs: Vec<ProfileFigures>,
    /// The profile with the most work per joule (the most throughput
    /// without counters).
    pub best: Option<String>,
    /// The profile put back afterwards.
    pub restored: String,
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Sums runs up per profile: means, spread, and each against the kernel's
/// generic value where that was run. `epp` says each profile's EPP here.
pub fn summarize(
    workload: &str,
    unit: &str,
    repeats: usize,
    energy_source: Option<&str>,
    runs: &[Run],
    epp: &dyn Fn(&str) -> Option<u8>,
    restored: &str,
) -> Report {
    let mut order: Vec<&str> = Vec::new();
    for run in runs {
        if !order.contains(&run.profile.as_str()) {
            order.push(&run.profile);
        }
    }
    let mut figures: Vec<ProfileFigures> = order
        .iter()
        .map(|id| {
            let all = runs.iter().filter(|r| r.profile == *id);
            let disturbed = all.clone().filter(|r| r.disturbed).count();
            let mine: Vec<&Run> = all.filter(|r| !r.disturbed).collect();
            let throughput = mean(&mine.iter().map(|r| r.work / r.seconds.max(1e-9)).collect::<Vec<_>>());
            let seconds = mean(&mine.iter().map(|r| r.seconds).collect::<Vec<_>>());
            let joules: Option<Vec<f64>> = mine.iter().map(|r| r.joules.filter(|j| *j > 0.0)).collect();
            let (joules, watts, ppw, spread) = match joules {
                Some(js) if !js.is_empty() => {
                    let ppws: Vec<f64> = mine.iter().zip(&js).map(|(r, j)| r.work / j).collect();
                    let ppw = mean(&ppws);
                    let var = mean(&ppws.iter().map(|p| (p - ppw).powi(2)).collect::<Vec<_>>());
                    let watts = mean(&mine.iter().zip(&js).map(|(r, j)| j / r.seconds.max(1e-9)).collect::<Vec<_>>());
                    (Some(mean(&js)), Some(watts), Some(ppw), Some(var.sqrt() / ppw * 100.0))
                }
                _ => (None, None, None, None),
            };
            ProfileFigures {
                profile: (*id).to_owned(),
                epp: epp(id),
                throughput,
                unit: format!("{unit}/s"),
                seconds,
                joules,
                watts,
                ppw,
                ppw_spread: spread,
                vs_kernel_default_pct: None,
                disturbed,
            }
        })
        .collect();
    let base = figures.iter().find(|f| f.profile == KERNEL_DEFAULT).and_then(|f| f.ppw);
    for f in figures.iter_mut().filter(|f| f.profile != KERNEL_DEFAULT) {
        f.vs_kernel_default_pct = base.zip(f.ppw).map(|(b, p)| (p / b - 1.0) * 100.0);
    }
    let key = |f: &ProfileFigures| f.ppw.unwrap_or(f.throughput);
    let best = figures
        .iter()
        .filter(|f| f.throughput > 0.0)
        .max_by(|a, b| key(a).total_cmp(&key(b)))
        .map(|f| f.profile.clone());
    Report {
        workload: workload.to_owned(),
        repeats,
        energy_source: energy_source.map(str::to_owned),
        runs: figures,
        best,
        restored: restored.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_rank_by_work_per_joule_and_compare_with_the_kernel_default() {
        let run = |p: &str, work: f64, seconds: f64, joules: f64| Run {
            profile: p.into(),
            work,
            seconds,
            joules: Some(joules),
            disturbed: false,
        };
        let runs = [
            run("balance_performance", 1000.0, 10.0, 100.0),
            run(KERNEL_DEFAULT, 1000.0, 11.0, 110.0),
            run("power", 1000.0, 20.0, 90.0),
            run("balance_performance", 1000.0, 10.0, 100.0),
            run(KERNEL_DEFAULT, 1000.0, 11.0, 110.0),
            run("power", 1000.0, 20.0, 90.0),
        ];
        let epp = |id: &str| match id {
            "balance_performance" => Some(64),
            KERNEL_DEFAULT => Some(128),
            _ => Some(255),
        };
        let report = summarize("build", "MB", 2, Some("package"), &runs, &epp, "balance_performance");
        assert_eq!(report.best.as_deref(), Some("power"));
        let bp = &report.runs[0];
        assert_eq!((bp.profile.as_str(), bp.epp, bp.unit.as_str()), ("balance_performance", Some(64), "MB/s"));
        assert!((bp.throughput - 100.0).abs() < 1e-9 && (bp.watts.unwrap() - 10.0).abs() < 1e-9);
        assert!((bp.ppw.unwrap() - 10.0).abs() < 1e-9 && bp.ppw_spread.unwrap().abs() < 1e-9);
        // 10 MB/J against 1000/110 = 9.09 MB/J: 10% more work per joule.
        assert!((bp.vs_kernel_default_pct.unwrap() - 10.0).abs() < 1e-6, "{:?}", bp.vs_kernel_default_pct);
        assert_eq!(report.runs[1].vs_kernel_default_pct, None);
        // Without counters: time only, the fastest is best.
        let timed: Vec<Run> = runs.iter().map(|r| Run { joules: None, ..r.clone() }).collect();
        let report = summarize("build", "MB", 2, None, &timed, &epp, "balance_performance");
        assert!(report.runs.iter().all(|r| r.ppw.is_none() && r.watts.is_none()));
        assert_eq!(report.best.as_deref(), Some("balance_performance"));
        let json = serde_json::to_value(&report).unwrap();
        for key in ["workload", "repeats", "energy_source", "runs", "best", "restored"] {
            assert!(json.get(key).is_some(), "{key}");
        }
        for key in [
            "profile",
            "epp",
            "throughput",
            "unit",
            "seconds",
            "joules",
            "watts",
            "ppw",
            "ppw_spread",
            "vs_kernel_default_pct",
        ] {
            assert!(json["runs"][0].get(key).is_some(), "{key}");
        }
    }
}

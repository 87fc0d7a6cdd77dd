use super::*;

fn run(p: &str, work: f64, seconds: f64, joules: f64) -> Run {
    Run { profile: p.into(), work, seconds, joules: Some(joules), ..Run::default() }
}

fn epp(id: &str) -> Option<u8> {
    match id {
        "balance_performance" => Some(64),
        KERNEL_DEFAULT => Some(128),
        _ => Some(255),
    }
}

/// Three rounds of three profiles, each run `jitter` (a share) above or
/// below its profile's joules in turn.
fn three_rounds(jitter: f64) -> Vec<Run> {
    let mut runs = Vec::new();
    for k in [1.0 - jitter, 1.0, 1.0 + jitter] {
        runs.push(run("balance_performance", 1000.0, 10.0, 100.0 * k));
        runs.push(run(KERNEL_DEFAULT, 1000.0, 11.0, 110.0 * k));
        runs.push(run("power", 1000.0, 20.0, 90.0 * k));
    }
    runs
}

#[test]
fn figures_rank_by_work_per_joule_and_compare_with_the_kernel_default() {
    let runs = three_rounds(0.01);
    let report = summarize("build", "MB", Rounds::Fixed(3), Some("package"), &runs, &epp, "balance_performance");
    assert_eq!(report.best.as_deref(), Some("power"));
    assert_eq!(report.tied_best, ["power"]);
    assert_eq!((report.repeats, report.method.as_str()), (3, "fixed"));
    let bp = &report.runs[0];
    assert_eq!((bp.profile.as_str(), bp.epp, bp.unit.as_str(), bp.n), ("balance_performance", Some(64), "MB/s", 3));
    assert!((bp.throughput - 100.0).abs() < 1e-9 && (bp.watts.unwrap() - 10.0).abs() < 1e-9);
    assert!((bp.ppw.unwrap() - 10.0).abs() < 0.01 && bp.ppw_spread.unwrap() < 1.1);
    let [low, high] = bp.ppw_ci95.unwrap();
    assert!(low < 10.0 && high > 10.0 && high - low < 1.0, "{low}..{high}");
    // 10 MB/J against 1000/110 = 9.09 MB/J: 10% more work per joule,
    // with an interval around it that excludes 0.
    assert!((bp.vs_kernel_default_pct.unwrap() - 10.0).abs() < 0.01, "{:?}", bp.vs_kernel_default_pct);
    let vs = bp.vs_kernel_default.as_ref().unwrap();
    assert!(vs.clear && vs.ci95_pct[0] > 0.0 && vs.ci95_pct[0] < 10.0 && vs.ci95_pct[1] > 10.0, "{vs:?}");
    assert_eq!((report.runs[1].vs_kernel_default_pct, &report.runs[1].vs_kernel_default), (None, &None));
    let lead = report.lead.as_ref().unwrap();
    assert_eq!((lead.profile.as_str(), lead.over.as_str(), lead.by.clear), ("power", "balance_performance", true));
    // Without counters: time only, the fastest is best.
    let timed: Vec<Run> = runs.iter().map(|r| Run { joules: None, ..r.clone() }).collect();
    let report = summarize("build", "MB", Rounds::Fixed(3), None, &timed, &epp, "balance_performance");
    assert!(report.runs.iter().all(|r| r.ppw.is_none() && r.watts.is_none() && r.vs_kernel_default.is_none()));
    assert_eq!(report.best.as_deref(), Some("balance_performance"));
    let json = serde_json::to_value(&report).unwrap();
    for key in ["workload", "repeats", "energy_source", "runs", "best", "restored", "tied_best", "method", "lead"] {
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
        "n",
        "ppw_ci95",
        "throughput_ci95",
        "watts_ci95",
        "outliers",
        "disturbed",
        "vs_kernel_default",
    ] {
        assert!(json["runs"][0].get(key).is_some(), "{key}");
    }
    assert!(json["runs"][0].get("missed_frames").is_none(), "only playback has missed frames");
}

#[test]
fn noisy_runs_give_no_best_but_the_profiles_they_cannot_tell_apart() {
    let runs: Vec<Run> = [1.0, 1.06, 0.95]
        .iter()
        .zip([1.04, 0.97, 1.0])
        .flat_map(|(a, b)| [run("balance_performance", 100.0, 1.0, 10.0 * a), run("power", 100.0, 1.0, 10.0 * b)])
        .collect();
    let report = summarize("build", "MB", Rounds::DEFAULT, Some("psys"), &runs, &epp, "power");
    assert_eq!(report.best, None);
    assert_eq!(report.tied_best.len(), 2);
    assert_eq!(report.method, "pocock");
    let lead = report.lead.unwrap();
    assert!(!lead.by.clear && lead.by.ci95_pct[0] < 0.0 && lead.by.ci95_pct[1] > 0.0, "{lead:?}");
}

#[test]
fn a_playback_profile_that_fell_behind_cannot_be_best() {
    let mut runs = Vec::new();
    for _ in 0..3 {
        // Power Saver draws half the power, but misses a tenth of its frames.
        runs.push(Run { missed_frames: Some(3), ..run("power", 30.0, 1.1, 5.0) });
        runs.push(Run { missed_frames: Some(0), ..run("balance_power", 30.0, 1.0, 10.0) });
        runs.push(Run { missed_frames: Some(0), ..run("performance", 30.0, 1.0, 20.0) });
    }
    let report = summarize("playback", "frames", Rounds::Fixed(3), Some("psys"), &runs, &epp, "power");
    assert_eq!(report.best.as_deref(), Some("balance_power"));
    let power = &report.runs[0];
    assert_eq!(power.missed_frames, Some(9));
    assert!(power.fell_behind() && !report.runs[1].fell_behind());
}

#[test]
fn outliers_are_flagged_and_kept() {
    let mut runs: Vec<Run> = (0..6).map(|i| run("power", 100.0, 1.0, 10.0 + 0.01 * f64::from(i))).collect();
    runs.push(run("power", 100.0, 1.0, 14.0));
    let report = summarize("build", "MB", Rounds::Fixed(7), Some("psys"), &runs, &epp, "power");
    assert_eq!((report.runs[0].outliers, report.runs[0].n), (1, 7));
}

#[test]
fn an_old_kept_report_still_reads() {
    let old = r#"{"workload": "build", "repeats": 3, "energy_source": "psys", "best": "power", "restored": "power",
            "runs": [{"profile": "power", "epp": 255, "throughput": 1.0, "unit": "MB/s", "seconds": 1.0,
                      "joules": 1.0, "watts": 1.0, "ppw": 1.0, "ppw_spread": 0.5, "vs_kernel_default_pct": null}]}"#;
    let report: Report = serde_json::from_str(old).expect("reads");
    assert_eq!((report.runs[0].n, report.tied_best.len(), report.lead.is_none()), (0, 0, true));
}

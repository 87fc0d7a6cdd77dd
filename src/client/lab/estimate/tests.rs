use super::*;
use crate::core::measure::{summarize, Run};

fn plan(workload: Workload, scale: f64, profiles: &[&str], rounds: Rounds) -> Plan {
    Plan { workload, scale, cpus: 4, profiles: profiles.iter().map(|p| (*p).to_owned()).collect(), rounds }
}

/// A kept build measurement on `cpu`: each profile's runs did `work` MB in
/// `seconds`; `took` in all, where the window kept it.
fn kept(cpu: &str, workload: &str, runs: &[(&str, f64, f64)], rounds: usize, took: Option<f64>) -> Kept {
    let runs: Vec<Run> = (0..rounds)
        .flat_map(|_| {
            runs.iter().map(|(p, work, seconds)| Run {
                profile: (*p).into(),
                work: *work,
                seconds: *seconds,
                ..Run::default()
            })
        })
        .collect();
    Kept {
        time: 1,
        kernel: "6.12".into(),
        cpu: cpu.into(),
        report: summarize(workload, "MB", Rounds::DEFAULT, None, &runs, &|_| None, "power"),
        took,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * b.abs().max(1.0)
}

#[test]
fn spans_round_to_whole_minutes_and_never_say_the_same_end_twice() {
    // The "2 to 2 minutes": 66 s to 110 s, rounded up at both ends.
    assert_eq!(Span::of(66.0, 110.0), Span::Between(1, 2));
    assert_eq!(Span::of(100.0, 140.0), Span::About(2));
    assert_eq!(Span::of(170.0, 170.0), Span::About(3));
    assert_eq!(Span::of(150.0, 290.0), Span::Between(3, 5));
    assert_eq!(Span::of(10.0, 44.0), Span::UnderAMinute);
    assert_eq!(Span::of(10.0, 50.0), Span::About(1));
    assert_eq!(Span::of(300.0, 100.0), Span::About(5), "a latest below the soonest counts as the soonest");
    for soonest in (0..2000).step_by(7) {
        for latest in (soonest..4000).step_by(13) {
            if let Span::Between(a, b) = Span::of(f64::from(soonest), f64::from(latest)) {
                assert!(a < b, "{soonest} s to {latest} s gave {a} to {b}");
            }
        }
    }
}

#[test]
fn without_a_kept_measurement_it_guesses_and_says_so() {
    let plan = plan(Workload::Build, 0.2, &["power", "performance"], Rounds::Auto { min: 3, max: 5 });
    let estimate = Estimate::new(&plan, &[], "Meteor Lake");
    assert_eq!(estimate.basis(), Basis::Guess);
    let per_run = GUESS_SECONDS * 0.2 + settle_seconds(0.2) + RUN_OVERHEAD_SECONDS;
    let (soonest, latest) = estimate.before(plan.rounds);
    assert!(close(soonest, START_SECONDS + 6.0 * per_run), "{soonest}");
    assert!(close(latest, START_SECONDS + 10.0 * per_run), "{latest}");
    // Another CPU's or another workload's measurement says nothing here.
    let elsewhere = [
        kept("Lunar Lake", "build", &[("power", 100.0, 1.0)], 3, None),
        kept("Meteor Lake", "playback", &[("power", 600.0, 20.0)], 3, None),
        kept("", "build", &[("power", 100.0, 1.0)], 3, None),
    ];
    assert_eq!(Estimate::new(&plan, &elsewhere, "Meteor Lake").basis(), Basis::Guess);
    assert_eq!(Estimate::new(&plan, &elsewhere, "").basis(), Basis::Guess);
}

#[test]
fn a_kept_measurement_gives_each_profiles_speed_for_the_work_planned_now() {
    // Power Saver did 100 MB/s there, Performance 200 MB/s; Balanced did
    // not run, so it goes at their average time.
    let plan = plan(Workload::Build, 0.5, &["power", "performance", "balance_performance"], Rounds::Fixed(2));
    let older = kept("Meteor Lake", "build", &[("power", 10.0, 10.0)], 3, None);
    let newest = kept("Meteor Lake", "build", &[("power", 1000.0, 10.0), ("performance", 1000.0, 5.0)], 3, None);
    let estimate = Estimate::new(&plan, &[newest, older], "Meteor Lake");
    assert_eq!(estimate.basis(), Basis::Kept);
    let work = Workload::Build.planned_work(4, 0.5);
    let rest = settle_seconds(0.5) + RUN_OVERHEAD_SECONDS;
    let power = work / 100.0 + rest;
    let performance = work / 200.0 + rest;
    let balanced = (work / 100.0 + work / 200.0) / 2.0 + rest;
    assert!(close(estimate.seconds(0, 1), power));
    assert!(close(estimate.seconds(1, 2), performance));
    assert!(close(estimate.seconds(2, 3), balanced));
    let (soonest, latest) = estimate.before(plan.rounds);
    assert!(close(soonest, latest) && close(soonest, START_SECONDS + 2.0 * (power + performance + balanced)));
}

#[test]
fn a_measurement_the_window_kept_says_what_its_runs_cost_besides_the_work() {
    // Scale 0.5 there: 768 chunks on each of 4 CPUs a run, in 10 s; six
    // runs and the start took 75 s, so each cost 2.5 s besides its work,
    // of which 1 s was the pause.
    let work = Workload::Build.planned_work(4, 0.5);
    let there = kept("Meteor Lake", "build", &[("power", work, 10.0)], 6, Some(START_SECONDS + 6.0 * 12.5));
    let plan = plan(Workload::Build, 1.0, &["power"], Rounds::Fixed(3));
    let estimate = Estimate::new(&plan, &[there], "Meteor Lake");
    let per_run = 20.0 + settle_seconds(1.0) + 1.5;
    assert!(close(estimate.seconds(0, 1), per_run), "{}", estimate.seconds(0, 1));
}

#[test]
fn the_runs_made_correct_the_rest() {
    let plan = plan(Workload::Build, 1.0, &["performance", "power"], Rounds::Auto { min: 3, max: 8 });
    let mut estimate = Estimate::new(&plan, &[], "Meteor Lake");
    let guessed = GUESS_SECONDS + settle_seconds(1.0) + RUN_OVERHEAD_SECONDS;
    // The first run took twice the guess: Power Saver, not run yet, is
    // expected to as well.
    estimate.ran(0, 2.0 * guessed);
    assert_eq!(estimate.basis(), Basis::Runs);
    assert!(close(estimate.seconds(1, 2), 2.0 * guessed));
    // Power Saver took three times the guess; each profile goes at its own.
    estimate.ran(1, 3.0 * guessed);
    estimate.ran(2, 2.0 * guessed);
    let (soonest, latest) = estimate.left(3, 6, 16);
    assert!(close(soonest, (3.0 + 2.0 + 3.0) * guessed), "{soonest}");
    assert!(close(latest, (3.0 + 6.0 * 2.0 + 6.0 * 3.0) * guessed), "{latest}");
    // Past the fewest, nothing is left to them.
    assert_eq!(estimate.left(7, 6, 16).0, 0.0);
    estimate.ran(3, f64::NAN);
    assert!(close(estimate.seconds(3, 4), 3.0 * guessed), "a time that is no time is left out");
}

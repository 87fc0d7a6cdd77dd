use super::*;
use crate::core::measure::{summarize, Rounds, Run};

fn run(profile: &str, joules: f64) -> Run {
    Run { profile: profile.into(), work: 10.0, seconds: 2.0, joules: Some(joules), ..Run::default() }
}

fn name(id: &str) -> String {
    id.to_owned()
}

#[test]
fn the_verdict_says_how_many_runs_were_set_aside() {
    let report =
        |runs: &[Run]| summarize("build", "MB", Rounds::Fixed(2), Some("package"), runs, &|_| Some(255), "power");
    let clean = verdict(&report(&[run("power", 5.0), run("power", 5.0)]), "Meteor Lake", &name);
    assert!(!clean.iter().any(|w| w.contains("set aside")), "{clean:?}");
    let spoiled =
        [Run { disturbed: true, ..run("power", 5.0) }, run("power", 5.0), Run { disturbed: true, ..run("power", 5.0) }];
    let spoiled = verdict(&report(&spoiled), "Meteor Lake", &name);
    assert!(spoiled.iter().any(|w| w.starts_with("2 runs were set aside")), "{spoiled:?}");
}

/// Three rounds of each profile, with joules per run (work 10 each).
fn measured(profiles: &[(&str, [f64; 3])]) -> Report {
    let runs: Vec<Run> = (0..3).flat_map(|i| profiles.iter().map(move |(id, joules)| run(id, joules[i]))).collect();
    let epp = |id: &str| {
        Some(match id {
            KERNEL_DEFAULT => 128,
            "power" => 255,
            _ => 64,
        })
    };
    summarize("build", "MB", Rounds::DEFAULT, Some("psys"), &runs, &epp, "balance_performance")
}

/// Balanced (EPP 64) against the kernel's 128.
fn balanced_against_kernel(balanced: [f64; 3], kernel: [f64; 3]) -> Report {
    measured(&[("balance_performance", balanced), (KERNEL_DEFAULT, kernel)])
}

#[test]
fn a_winner_is_named_only_when_clear_and_a_tie_says_so_with_its_interval() {
    let clear = verdict(&balanced_against_kernel([5.0, 5.05, 4.95], [6.0, 6.06, 5.94]), "Meteor Lake", &name);
    assert_eq!(clear.len(), 1, "the kernel's value is the next, said once: {clear:?}");
    assert!(clear[0].starts_with("On this Meteor Lake, balance_performance did the most work per joule."), "{clear:?}");
    assert!(clear[0].contains("Against kernel_default, the next: +20.0% (between +"), "{clear:?}");
    // Power Saver ahead of both; Balanced still against the kernel's value.
    let three = measured(&[
        ("balance_performance", [5.0, 5.05, 4.95]),
        (KERNEL_DEFAULT, [6.0, 6.06, 5.94]),
        ("power", [2.0, 2.02, 1.98]),
    ]);
    let words = verdict(&three, "Meteor Lake", &name);
    assert!(words[0].starts_with("On this Meteor Lake, power did the most work per joule."), "{words:?}");
    assert!(words[0].contains("Against balance_performance, the next: +150.0% (between +"), "{words:?}");
    assert!(
        words[1].starts_with("balance_performance (EPP 64) against the kernel's 128: +20.0% work per joule (between"),
        "{words:?}"
    );
    assert!(words[2].starts_with("power (EPP 255) against the kernel's 128: +200.0% work per joule"), "{words:?}");
    let tie = verdict(
        &measured(&[
            ("balance_performance", [5.0, 5.2, 4.8]),
            (KERNEL_DEFAULT, [5.1, 4.9, 5.0]),
            ("power", [9.0, 9.1, 8.9]),
        ]),
        "Meteor Lake",
        &name,
    );
    assert!(
        tie[0].starts_with("balance_performance and kernel_default: no clear difference (")
            && tie[0].contains(", between -"),
        "{tie:?}"
    );
    assert!(!tie.iter().any(|w| w.contains("did the most")), "{tie:?}");
    assert_eq!(tie.len(), 2, "said once: {tie:?}");
    assert!(tie[1].starts_with("power (EPP 255) against the kernel's 128: "), "{tie:?}");
    // The kernel's value in front: the tie is still said once.
    let behind = verdict(&balanced_against_kernel([5.1, 5.2, 5.0], [5.0, 5.1, 4.95]), "Meteor Lake", &name);
    assert!(behind[0].starts_with("kernel_default and balance_performance: no clear difference ("), "{behind:?}");
    assert_eq!(behind.len(), 1, "said once: {behind:?}");
    // Without the kernel's value as the next, its own sentence says the
    // tie: a_tie_names_what_its_figure_is_compared_with.
}

#[test]
fn an_earlier_measurement_without_intervals_says_so() {
    let old = r#"{"workload": "build", "repeats": 3, "energy_source": "psys", "best": "balance_performance",
            "restored": "power", "runs": [
            {"profile": "balance_performance", "epp": 64, "throughput": 800.0, "unit": "MB/s", "seconds": 12.0,
             "joules": 230.0, "watts": 19.0, "ppw": 42.0, "ppw_spread": 1.5, "vs_kernel_default_pct": 7.0},
            {"profile": "kernel_default", "epp": 128, "throughput": 790.0, "unit": "MB/s", "seconds": 12.2,
             "joules": 246.0, "watts": 20.2, "ppw": 39.2, "ppw_spread": 1.7, "vs_kernel_default_pct": null}]}"#;
    let report: Report = serde_json::from_str(old).unwrap();
    let words = verdict(&report, "Meteor Lake", &name);
    assert_eq!(
            words,
            [
                "On this Meteor Lake, balance_performance did the most work per joule on average; this earlier measurement has no intervals to say how clearly.",
                "balance_performance (EPP 64) against the kernel's 128: +7.0% work per joule, without an interval.",
            ]
        );
}

#[test]
fn the_makers_figures_stand_beside_the_result_with_whether_they_agree() {
    let claims = |pct: f64| Claim {
        benchmark: "Speedometer".into(),
        epp: 64,
        against: 128,
        work_per_joule_pct: pct,
        speed_pct: Some(19.0),
        energy_pct: None,
    };
    // +20% (joules 5 against 6), the interval a few points either side.
    let report = balanced_against_kernel([5.0, 5.05, 4.95], [6.0, 6.06, 5.94]);
    let agree = super::claims(&report, "Meteor Lake", &[claims(19.25)], &name);
    assert_eq!(
            agree[0],
            "The maker measured this Meteor Lake at EPP 64 against 128: +19.25% work per joule in Speedometer (19% faster)."
        );
    assert!(agree[1].ends_with("agrees with the maker's figures within its interval."), "{agree:?}");
    let less = super::claims(&report, "Meteor Lake", &[claims(40.0)], &name);
    assert!(less[1].contains("less than the maker measured"), "{less:?}");
    assert!(super::claims(&report, "Meteor Lake", &[], &name).is_empty());
}

#[test]
fn estimates_name_each_end_once_and_say_the_runs() {
    assert_eq!(estimate_words(Span::About(2), 15, 25), "About 2 minutes for 15 to 25 runs.");
    assert_eq!(estimate_words(Span::Between(5, 14), 15, 40), "About 5 to 14 minutes for 15 to 40 runs.");
    assert_eq!(estimate_words(Span::About(1), 3, 3), "About 1 minute for 3 runs.");
    assert_eq!(estimate_words(Span::UnderAMinute, 15, 40), "Less than a minute for 15 to 40 runs.");
    assert_eq!(left_words(Span::About(4)), "About 4 minutes left.");
    assert_eq!(left_words(Span::Between(1, 3)), "About 1 to 3 minutes left.");
    assert_eq!(left_words(Span::UnderAMinute), "Less than a minute left.");
    let before = before_words(true, Some(0.42), "About 3 minutes for 15 runs.");
    assert_eq!(before.len(), 4, "{before:?}");
    assert!(before[0].contains("runs on battery") && before[1].starts_with("The CPUs are 42 per cent busy"));
    assert_eq!(before[2], "About 3 minutes for 15 runs.");
    assert!(before[3].contains("comes back afterwards"), "{before:?}");
    assert_eq!(before_words(false, None, "x").len(), 2);
    assert_eq!(figure(13.686), "13.7");
    assert_eq!(figure(0.12345), "0.123");
}

#[test]
fn a_tie_names_what_its_figure_is_compared_with() {
    let tie = verdict(&balanced_against_kernel([5.0, 5.2, 4.8], [5.1, 4.9, 5.0]), "Meteor Lake", &name);
    assert!(
        tie[0].eq(
            "balance_performance and kernel_default: no clear difference (balance_performance gave +0.1% work per joule compared with kernel_default, between -13.5% and +13.7%)."
        ),
        "{tie:?}"
    );
    // The kernel's value ahead but not next to Balanced: Balanced's own
    // sentence says the tie, with its figure.
    let apart = measured(&[
        ("balance_performance", [5.0, 5.2, 4.8]),
        ("power", [4.95, 5.05, 5.0]),
        (KERNEL_DEFAULT, [5.3, 5.1, 5.2]),
    ]);
    let words = verdict(&apart, "Meteor Lake", &name);
    assert!(
        words.iter().any(|w| w.contains(
            "balance_performance (EPP 64) against the kernel's 128: no clear difference (+4.1% work per joule, between -10.4% and +18.6%)."
        )),
        "{words:?}"
    );
    // Without counters, speed.
    let timed: Vec<Run> = (0..3)
        .flat_map(|_| [("balance_performance", 2.0), ("power", 2.01)])
        .map(|(p, s)| Run { profile: p.into(), work: 10.0, seconds: s, joules: None, ..Run::default() })
        .collect();
    let report = summarize("build", "MB", Rounds::DEFAULT, None, &timed, &|_| None, "power");
    let words = verdict(&report, "Meteor Lake", &name);
    assert!(words[0].contains("balance_performance ran at +0.5% speed compared with power, between"), "{words:?}");
}

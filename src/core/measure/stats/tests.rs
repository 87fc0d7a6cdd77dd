use super::*;

fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance
}

/// splitmix64: tiny, seedable, and plenty for Monte Carlo noise.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Box–Muller, from uniforms in (0, 1]: never 0, so the logarithm stays finite.
    fn normal(&mut self) -> f64 {
        let mut uniform = || ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
        (-2.0 * uniform().ln()).sqrt() * (2.0 * PI * uniform()).cos()
    }
}

fn run(rng: &mut Rng, true_mean: f64, sigma: f64) -> f64 {
    true_mean * (1.0 + sigma * rng.normal())
}

/// One adaptive measurement as the lab makes it: rounds of one run per profile, a look after each
/// round from `min` on, stopping at the first best. Returns the best and the rounds it took.
fn measure(rng: &mut Rng, true_means: &[f64], sigma: f64, rounds: Rounds) -> Option<(usize, usize)> {
    let (min, max) = rounds.range();
    let eligible = vec![true; true_means.len()];
    let mut groups = vec![Vec::new(); true_means.len()];
    for round in 1..=max {
        for (group, &true_mean) in groups.iter_mut().zip(true_means) {
            group.push(run(rng, true_mean, sigma));
        }
        if round < min {
            continue;
        }
        if let Some(best) = rank(&groups, &eligible, rounds.alpha()).best {
            return Some((best, round));
        }
    }
    None
}

const SIGMAS: [f64; 4] = [0.01, 0.02, 0.03, 0.05];

#[test]
fn tied_profiles_rarely_get_a_verdict() {
    let mut rng = Rng(1);
    for k in [2, 5] {
        for sigma in SIGMAS {
            let tie = vec![1.0; k];
            let verdicts = (0..1000).filter(|_| measure(&mut rng, &tie, sigma, Rounds::DEFAULT).is_some()).count();
            eprintln!("ties k={k} sigma={}%: {verdicts}/1000 with a best", sigma * 100.0);
            assert!(verdicts <= 50, "k={k} sigma={sigma}: {verdicts}/1000 false verdicts");
        }
    }
}

#[test]
fn a_tied_pair_looked_at_every_round_is_rarely_clear() {
    let mut rng = Rng(2);
    let (min, max) = Rounds::DEFAULT.range();
    for sigma in SIGMAS {
        let clear = (0..1000)
            .filter(|_| {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                (1..=max).any(|round| {
                    a.push(run(&mut rng, 1.0, sigma));
                    b.push(run(&mut rng, 1.0, sigma));
                    round >= min && difference(&a, &b, Rounds::DEFAULT.alpha()).is_some_and(|d| d.clear)
                })
            })
            .count();
        eprintln!("tied pair sigma={}%: clear at some look in {clear}/1000", sigma * 100.0);
        assert!(clear <= 50, "sigma={sigma}: {clear}/1000 clear");
    }
}

#[test]
fn a_five_percent_gain_is_usually_found() {
    let mut rng = Rng(3);
    let (mut found, mut wrong, mut rounds_taken) = (0, 0, 0);
    for _ in 0..1000 {
        match measure(&mut rng, &[1.05, 1.00], 0.02, Rounds::DEFAULT) {
            Some((0, rounds)) => (found, rounds_taken) = (found + 1, rounds_taken + rounds),
            Some(_) => wrong += 1,
            None => {}
        }
    }
    let mean_rounds = rounds_taken as f64 / found as f64;
    eprintln!("power k=2 +5% sigma=2%: {found}/1000 found ({wrong} wrong), {mean_rounds:.1} rounds on average");
    assert!(found >= 800 && wrong == 0);
}

#[test]
fn t_quantile_matches_tables() {
    let table = [(0.975, 1.0, 12.706), (0.975, 2.0, 4.303), (0.975, 4.0, 2.776), (0.975, 10.0, 2.228)];
    let more = [(0.975, 30.0, 2.042), (0.975, 1e6, 1.960), (0.995, 5.0, 4.032), (0.975, 4.5, 2.659)];
    for (p, df, expected) in table.into_iter().chain(more) {
        assert!(close(t_quantile(p, df), expected, 1e-3), "p={p} df={df}: {}", t_quantile(p, df));
        assert_eq!(t_quantile(1.0 - p, df), -t_quantile(p, df));
    }
    assert!(t_quantile(0.975, 4.5) < t_quantile(0.975, 4.0) && t_quantile(0.975, 4.5) > t_quantile(0.975, 5.0));
    assert_eq!(t_quantile(0.5, 3.0), 0.0);
    for (p, df) in [(0.0, 3.0), (1.0, 3.0), (f64::NAN, 3.0), (0.9, 0.0), (0.9, -1.0), (0.9, f64::NAN)] {
        assert!(t_quantile(p, df).is_nan());
    }
}

#[test]
fn t_quantile_matches_closed_forms_far_into_the_tails() {
    for p in [0.6, 0.9, 0.975, 0.999, 0.999_99] {
        let cauchy = (PI * (p - 0.5)).tan();
        let two_df = (2.0 * p - 1.0) / (2.0 * p * (1.0 - p)).sqrt();
        assert!(close(t_quantile(p, 1.0) / cauchy, 1.0, 1e-9), "df 1, p {p}");
        assert!(close(t_quantile(p, 2.0) / two_df, 1.0, 1e-9), "df 2, p {p}");
    }
    // Checked against mpmath: a fractional df below 1, where the tail is very heavy.
    assert!(close(t_quantile(0.975, 0.5), 164.557_673_48, 1e-6));
}

#[test]
fn estimate_by_hand() {
    let e = estimate(&[1.0, 2.0, 3.0], 0.05).unwrap();
    assert_eq!((e.n, e.mean, e.sd), (3, 2.0, 1.0));
    // t(0.975, 2) = 4.30265, so the half width is 4.30265 / sqrt(3) = 2.48414.
    let (low, high) = e.ci.unwrap();
    assert!(close(low, -0.48414, 1e-4) && close(high, 4.48414, 1e-4));
    assert_eq!(estimate(&[7.0], 0.05), Some(Estimate { n: 1, mean: 7.0, sd: 0.0, ci: None }));
    assert_eq!(estimate(&[], 0.05), None);
    assert_eq!(estimate(&[1.0, f64::NAN], 0.05), None);
    assert_eq!(estimate(&[1.0, 2.0], 0.0).unwrap().ci, None);
}

#[test]
fn difference_verdicts() {
    // Means 12 and 10; squared standard errors 4/3 and 1/6; Welch df 2.50515; t(0.975, df) 3.56940
    // (mpmath); half width 3.56940 * sqrt(1.5) / 10 * 100 = 43.716 per cent.
    let d = difference(&[10.0, 12.0, 14.0], &[9.0, 10.0, 11.0, 10.0], 0.05).unwrap();
    assert!(close(d.pct, 20.0, 1e-9));
    assert!(close(d.ci_pct.0, -23.716, 1e-3) && close(d.ci_pct.1, 63.716, 1e-3));
    assert!(!d.clear);

    let base = [1.0, 1.01, 0.99];
    let same = difference(&base, &base, 0.05).unwrap();
    assert!(same.pct == 0.0 && !same.clear && same.ci_pct.0 < 0.0 && same.ci_pct.1 > 0.0);
    let double = difference(&[2.0, 2.02, 1.98], &base, 0.05).unwrap();
    assert!(close(double.pct, 100.0, 1e-9) && double.clear);
    let worse = difference(&base, &[2.0, 2.02, 1.98], 0.05).unwrap();
    assert!(close(worse.pct, -50.0, 1e-9) && worse.clear);
    // Real (the interval excludes 0) but below MIN_CLEAR_PCT.
    let small = difference(&[1.005, 1.00501, 1.00499], &[1.0, 1.00001, 0.99999], 0.05).unwrap();
    assert!(small.ci_pct.0 > 0.0 && !small.clear);
    let constant = difference(&[2.0, 2.0], &[1.0, 1.0], 0.05).unwrap();
    assert_eq!(constant, Difference { pct: 100.0, ci_pct: (100.0, 100.0), clear: true });
    assert_eq!(difference(&[1.0], &base, 0.05), None);
    assert_eq!(difference(&base, &[0.0, 0.0, 0.0], 0.05), None);
    assert_eq!(difference(&base, &[1.0, f64::INFINITY], 0.05), None);
    assert_eq!(difference(&base, &base, 1.5), None);
}

#[test]
fn outlier_flags() {
    let runs = [10.0, 10.1, 9.9, 10.05, 9.95, 13.0];
    assert_eq!(outliers(&runs), [false, false, false, false, false, true]);
    assert_eq!(outliers(&[10.0, 10.1, 9.9, 10.05, 9.95, 10.02]), [false; 6]);
    assert_eq!(outliers(&[1.0, 1.0, 1.0, 1.0, 1.3]), [false, false, false, false, true]);
    assert_eq!(outliers(&[5.0, 5.0, 5.0]), [false; 3]);
    assert_eq!(outliers(&[1.0, 100.0]), [false; 2]);
    assert_eq!(outliers(&[1.0, f64::NAN, 1.1, 0.9]), [false, true, false, false]);
    assert!(outliers(&[]).is_empty());
}

#[test]
fn ranking() {
    let high = vec![1.10, 1.11, 1.09];
    let mid = vec![1.00, 1.01, 0.99];
    let low = vec![0.90, 0.91, 0.89];
    let groups = [high.clone(), mid.clone(), low.clone()];
    assert_eq!(rank(&groups, &[true; 3], 0.05), Ranking { best: Some(0), tied: vec![0] });
    // An ineligible group (ahead, by doing less) does not stand in the way of the top eligible one.
    assert_eq!(rank(&groups, &[false, true, true], 0.05), Ranking { best: Some(1), tied: vec![1] });
    // Nor is the only eligible group best because the others fell behind: it has no rival to be ahead of.
    assert_eq!(rank(&groups, &[false, true, false], 0.05), Ranking { best: None, tied: vec![1] });
    assert_eq!(rank(&groups, &[true, true, false], 0.05), Ranking { best: Some(0), tied: vec![0] });
    // A missing eligibility counts as ineligible: group 0 has no eligible rival.
    assert_eq!(rank(&groups, &[true], 0.05), Ranking { best: None, tied: vec![0] });

    let noisy = [vec![1.00, 1.05, 0.95], vec![1.01, 0.96, 1.06], vec![0.50, 0.51, 0.49]];
    assert_eq!(rank(&noisy, &[true; 3], 0.05), Ranking { best: None, tied: vec![1, 0] });

    let with_single = [high.clone(), vec![5.0], mid.clone()];
    assert_eq!(rank(&with_single, &[true; 3], 0.05), Ranking { best: Some(0), tied: vec![0] });
    let all_single = [vec![1.0], vec![2.0], vec![], vec![1.5]];
    assert_eq!(rank(&all_single, &[true; 4], 0.05), Ranking { best: None, tied: vec![1, 3, 0] });
    assert_eq!(rank(&all_single, &[true, false, true, true], 0.05), Ranking { best: None, tied: vec![3, 0] });
    assert_eq!(rank(&[], &[], 0.05), Ranking { best: None, tied: vec![] });
    assert_eq!(rank(&[high, mid], &[false, false], 0.05), Ranking { best: None, tied: vec![] });
}

#[test]
fn pocock_alphas_and_rounds() {
    assert_eq!(pocock_alpha(1), 0.05);
    assert_eq!(pocock_alpha(0), 0.05);
    assert!(close(pocock_alpha(2), 0.0294, 1e-4));
    assert!(close(pocock_alpha(6), 0.0142, 1e-4));
    assert_eq!(pocock_alpha(12), 0.05 / 12.0);
    assert!((1..=12).all(|k| pocock_alpha(k + 1) < pocock_alpha(k)));

    let default = Rounds::DEFAULT;
    assert_eq!((default.range(), default.looks(), default.method()), ((3, 8), 6, "pocock"));
    assert_eq!(default.alpha(), pocock_alpha(6));
    let fixed = Rounds::Fixed(5);
    assert_eq!((fixed.range(), fixed.looks(), fixed.alpha(), fixed.method()), ((5, 5), 1, 0.05, "fixed"));
    let inverted = Rounds::Auto { min: 5, max: 3 };
    assert_eq!((inverted.range(), inverted.looks(), inverted.alpha()), ((5, 5), 1, 0.05));
}

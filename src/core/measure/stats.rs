//! Statistics for the efficiency lab: confidence intervals, Welch comparisons between CPU profiles,
//! outlier flags and a ranking whose adaptive stopping keeps false findings at or below 5%.
//!
//! Runs are compared as work per joule, higher being better. A difference only counts when its
//! interval excludes zero *and* it is at least [`MIN_CLEAR_PCT`]: a smaller gain is not worth a profile
//! switch even when it is real. An adaptive measurement looks at the verdict after every round, and each
//! look is a fresh chance of a false finding, so each uses the stricter nominal alpha of
//! [`Rounds::alpha`]. The simulations in the tests check the overall rates.
//!
//! Nothing here panics on odd input: empty slices, zeros and non-finite values give `None`, no flag
//! or an empty ranking instead.

use std::f64::consts::{PI, SQRT_2};

/// The smallest gain or loss, in per cent, that counts as a difference at all.
pub const MIN_CLEAR_PCT: f64 = 1.0;

/// The false-finding rate a whole measurement, all its looks together, is held to.
const OVERALL_ALPHA: f64 = 0.05;

/// Student's t distribution's quantile: the t with P(T <= t) = p for `df` degrees of freedom (df may be
/// fractional, as Welch's is). p in (0,1), df > 0; otherwise NaN.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if !(p > 0.0 && p < 1.0 && df > 0.0) {
        return f64::NAN;
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    if p == 0.5 {
        return 0.0;
    }
    // Past 1e7 degrees of freedom t is within a few millionths of its limit, the normal, while the ln Γ terms
    // of the beta function grow large enough to lose digits.
    let df = df.min(1e7);
    // Bracket the root first, so that a Newton step that overshoots (the tails are heavy at small df)
    // can fall back to bisection instead of diverging.
    let (mut low, mut high) = (0.0, 1.0);
    while t_cdf(high, df) < p {
        low = high;
        high *= 2.0;
        if !high.is_finite() {
            return f64::INFINITY;
        }
    }
    let mut t = (low + high) / 2.0;
    for _ in 0..200 {
        let gap = t_cdf(t, df) - p;
        if gap < 0.0 {
            low = t;
        } else {
            high = t;
        }
        let newton = t - gap / t_density(t, df);
        let next = if newton > low && newton < high { newton } else { (low + high) / 2.0 };
        if (next - t).abs() <= 1e-12 * t.max(1.0) {
            return next;
        }
        t = next;
    }
    t
}

/// P(T <= t) for t >= 0, the only half the quantile search visits.
fn t_cdf(t: f64, df: f64) -> f64 {
    let (x, rest) = (df / (df + t * t), t * t / (df + t * t));
    1.0 - 0.5 * incomplete_beta(df / 2.0, 0.5, x, rest)
}

/// The density: the derivative of `t_cdf` that Newton's steps need.
fn t_density(t: f64, df: f64) -> f64 {
    let ln_scale = ln_gamma((df + 1.0) / 2.0) - ln_gamma(df / 2.0) - 0.5 * (df * PI).ln();
    (ln_scale - (df + 1.0) / 2.0 * (t * t / df).ln_1p()).exp()
}

/// The regularized incomplete beta function I_x(a, b) (Numerical Recipes, 6.4). `rest` is 1 - x, computed by
/// the caller: at large df x is close to 1, at large t `rest` is close to 0, and `1.0 - x` would lose the digits.
fn incomplete_beta(a: f64, b: f64, x: f64, rest: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if rest <= 0.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * rest.ln()).exp();
    // The continued fraction converges quickly only below the distribution's mean; above it, use
    // the symmetry I_x(a, b) = 1 - I_(1-x)(b, a).
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_continued_fraction(b, a, rest) / b
    }
}

/// The continued fraction of I_x(a, b), by the modified Lentz method.
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    // Lentz divides by partial results; a tiny stand-in for zero keeps those divisions finite.
    let nonzero = |v: f64| if v.abs() < 1e-300 { 1e-300 } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / nonzero(1.0 - (a + b) * x / (a + 1.0));
    let mut fraction = d;
    for m in 1..=10_000 {
        let m = f64::from(m);
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        for coefficient in [even, odd] {
            d = 1.0 / nonzero(1.0 + coefficient * d);
            c = nonzero(1.0 + coefficient / c);
            fraction *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    fraction
}

/// ln Γ(x) for x > 0 by the Lanczos approximation (g = 7, nine terms; about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // The series is accurate only from 1/2 up; the reflection formula covers the rest.
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let series = COEFFICIENTS.iter().skip(1).zip(1..).fold(COEFFICIENTS[0], |sum, (c, i)| sum + c / (x + f64::from(i)));
    let shifted = x + 7.5;
    0.5 * (2.0 * PI).ln() + (x + 0.5) * shifted.ln() - shifted + series.ln()
}

/// The complementary error function for x >= 0 (Abramowitz & Stegun 7.1.26; absolute error below 1.5e-7).
fn erfc(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let coefficients = [0.254_829_592, -0.284_496_736, 1.421_413_741, -1.453_152_027, 1.061_405_429];
    t * coefficients.iter().rev().fold(0.0, |sum, c| sum * t + c) * (-x * x).exp()
}

/// Mean, sample standard deviation and a two-sided confidence interval of the mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// How many values.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// Their sample standard deviation (n - 1 in the denominator); 0 for a single value.
    pub sd: f64,
    /// The confidence interval of the mean; None below 2 values or for an alpha outside (0, 1).
    pub ci: Option<(f64, f64)>,
}

/// The estimate of `values` with a (1 - alpha) interval from Student's t with n-1 degrees of freedom; None when
/// `values` is empty or holds a non-finite value.
pub fn estimate(values: &[f64], alpha: f64) -> Option<Estimate> {
    let (n, mean, sd) = moments(values)?;
    let half_width = t_quantile(1.0 - alpha / 2.0, (n - 1) as f64) * sd / (n as f64).sqrt();
    let ci = (n >= 2 && half_width.is_finite()).then_some((mean - half_width, mean + half_width));
    Some(Estimate { n, mean, sd, ci })
}

/// Count, mean and sample standard deviation, without the t quantile that `estimate` would spend.
fn moments(values: &[f64]) -> Option<(usize, f64, f64)> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let squares = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>();
    let sd = if n < 2 { 0.0 } else { (squares / (n - 1) as f64).sqrt() };
    mean.is_finite().then_some((n, mean, sd))
}

/// A against B in per cent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// (mean A / mean B - 1) * 100
    pub pct: f64,
    /// its (1 - alpha) interval, in per cent of mean B
    pub ci_pct: (f64, f64),
    /// the interval excludes 0 and |pct| >= MIN_CLEAR_PCT
    pub clear: bool,
}

/// Welch's t interval for mean(a) - mean(b) (Welch–Satterthwaite degrees of freedom), scaled to per cent of
/// mean(b). None when either side has fewer than 2 values or a non-finite one, mean(b) <= 0 or alpha is outside
/// (0, 1). If both variances are 0, the interval is the point (pct, pct).
pub fn difference(a: &[f64], b: &[f64], alpha: f64) -> Option<Difference> {
    let (n_a, mean_a, sd_a) = moments(a)?;
    let (n_b, mean_b, sd_b) = moments(b)?;
    if n_a < 2 || n_b < 2 || mean_b <= 0.0 || !(alpha > 0.0 && alpha < 1.0) {
        return None;
    }
    let pct = (mean_a / mean_b - 1.0) * 100.0;
    // The squared standard errors of the two means.
    let (var_a, var_b) = (sd_a * sd_a / n_a as f64, sd_b * sd_b / n_b as f64);
    let ci_pct = if var_a + var_b == 0.0 {
        (pct, pct)
    } else {
        // Welch–Satterthwaite, written with the shares of the variance so that tiny variances cannot underflow.
        let share_a = var_a / (var_a + var_b);
        let df = 1.0 / (share_a.powi(2) / (n_a - 1) as f64 + (1.0 - share_a).powi(2) / (n_b - 1) as f64);
        let half_width = t_quantile(1.0 - alpha / 2.0, df) * (var_a + var_b).sqrt() / mean_b * 100.0;
        (pct - half_width, pct + half_width)
    };
    if !(ci_pct.0.is_finite() && ci_pct.1.is_finite()) {
        return None;
    }
    let clear = (ci_pct.0 > 0.0 || ci_pct.1 < 0.0) && pct.abs() >= MIN_CLEAR_PCT;
    Some(Difference { pct, ci_pct, clear })
}

/// Flags runs far from their group's median: modified z-score 0.6745 * (x - median) / MAD above 3.5 (Iglewicz &
/// Hoaglin). With MAD 0 (most runs identical) a run is flagged when it is more than 10% off the median; below 3
/// finite values nothing is, as there is no majority to be off from. Non-finite runs are always flagged.
pub fn outliers(values: &[f64]) -> Vec<bool> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.len() < 3 {
        return values.iter().map(|v| !v.is_finite()).collect();
    }
    let center = median(&finite);
    let deviations: Vec<f64> = finite.iter().map(|v| (v - center).abs()).collect();
    let mad = median(&deviations);
    // The z-score limit as a distance from the median. With MAD 0 (most runs identical) the z-score is
    // undefined, and a 10% band around the median stands in.
    let limit = if mad > 0.0 { 3.5 * mad / 0.6745 } else { 0.1 * center.abs() };
    values.iter().map(|&v| !v.is_finite() || (v - center).abs() > limit).collect()
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    // For an odd count both indices are the middle one.
    (sorted[(sorted.len() - 1) / 2] + sorted[sorted.len() / 2]) / 2.0
}

/// How many rounds a measurement makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounds {
    /// Exactly this many (one look at the end).
    Fixed(usize),
    /// At least `min`, then one more at a time until the verdict is clear, at most `max`.
    Auto {
        /// The rounds made before the first look.
        min: usize,
        /// The rounds after which the measurement stops with or without a verdict.
        max: usize,
    },
}

impl Rounds {
    /// The default: Auto { min: 3, max: 8 }.
    pub const DEFAULT: Rounds = Rounds::Auto { min: 3, max: 8 };

    /// The fewest and the most rounds it can take (a `max` below `min` counts as `min`).
    pub fn range(self) -> (usize, usize) {
        match self {
            Rounds::Fixed(rounds) => (rounds, rounds),
            Rounds::Auto { min, max } => (min, max.max(min)),
        }
    }

    /// How many times the verdict is looked at (Fixed: 1; Auto: max - min + 1, at least 1).
    pub fn looks(self) -> usize {
        let (fewest, most) = self.range();
        most - fewest + 1
    }

    /// The nominal two-sided alpha each look uses so that the whole sequence keeps an overall false-finding rate
    /// of at most 5%.
    pub fn alpha(self) -> f64 {
        pocock_alpha(self.looks())
    }

    /// The rule's name for the report's JSON ("fixed" or "pocock").
    pub fn method(self) -> &'static str {
        match self {
            Rounds::Fixed(_) => "fixed",
            Rounds::Auto { .. } => "pocock",
        }
    }
}

/// Pocock's nominal two-sided per-look alpha for `looks` equally spaced looks at an overall 0.05 (Pocock 1977;
/// Jennison & Turnbull, table 2.1); above 10 looks, the more conservative Bonferroni 0.05 / looks.
pub fn pocock_alpha(looks: usize) -> f64 {
    // Pocock's critical z for K = 2..=10 looks; K = 1 is the plain 1.960.
    const CRITICAL_Z: [f64; 9] = [2.178, 2.289, 2.361, 2.413, 2.453, 2.485, 2.512, 2.535, 2.555];
    match looks {
        0 | 1 => OVERALL_ALPHA,
        2..=10 => erfc(CRITICAL_Z[looks - 2] / SQRT_2),
        _ => OVERALL_ALPHA / looks as f64,
    }
}

/// Which group is ahead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranking {
    /// The group clearly ahead of every other (its Difference against each other group is clear and positive);
    /// None otherwise.
    pub best: Option<usize>,
    /// When best is None: the groups the runs cannot tell apart from the one with the highest mean (that one
    /// first, then others in descending mean); with best Some, just [best].
    pub tied: Vec<usize>,
}

/// Ranks groups of values (higher is better) at per-look `alpha`. `eligible[i]` false (or missing) means group
/// i can never be best nor in `tied`, nor stand in the way of another's being best; a best needs at least one
/// eligible rival it is clearly ahead of. Groups with fewer than 2 values take no
/// part unless every group has fewer than 2: then best None and tied = all eligible non-empty groups by
/// descending mean.
pub fn rank(groups: &[Vec<f64>], eligible: &[bool], alpha: f64) -> Ranking {
    let means: Vec<f64> = groups.iter().map(|g| moments(g).map_or(f64::NAN, |(_, mean, _)| mean)).collect();
    let by_descending_mean = |ids: &mut Vec<usize>| ids.sort_by(|&x, &y| means[y].total_cmp(&means[x]));
    let is_eligible = |i: usize| eligible.get(i).copied().unwrap_or(false);

    if groups.iter().all(|g| g.len() < 2) {
        let mut tied: Vec<usize> = (0..groups.len()).filter(|&i| is_eligible(i) && means[i].is_finite()).collect();
        by_descending_mean(&mut tied);
        return Ranking { best: None, tied };
    }
    let measured: Vec<usize> = (0..groups.len()).filter(|&i| groups[i].len() >= 2 && means[i].is_finite()).collect();
    let mut candidates: Vec<usize> = measured.iter().copied().filter(|&i| is_eligible(i)).collect();
    by_descending_mean(&mut candidates);
    let Some(&top) = candidates.first() else {
        return Ranking { best: None, tied: Vec::new() };
    };

    let clearly = |a: usize, b: usize| difference(&groups[a], &groups[b], alpha).filter(|d| d.clear);
    let tied: Vec<usize> = candidates.into_iter().filter(|&i| i == top || clearly(i, top).is_none()).collect();
    // Only the eligible count as rivals: a playback profile that dropped frames used less power by doing less,
    // and must not stand in the way of one that kept up. Nor does its falling behind make the other the best:
    // a best is clearly ahead of at least one rival that kept up.
    let rivals: Vec<usize> = measured.iter().copied().filter(|&i| i != top && is_eligible(i)).collect();
    let ahead_of_all = !rivals.is_empty() && rivals.iter().all(|&i| clearly(top, i).is_some_and(|d| d.pct > 0.0));
    let best = (tied.len() == 1 && ahead_of_all).then_some(top);
    Ranking { best, tied }
}

#[cfg(test)]
mod tests {
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
}

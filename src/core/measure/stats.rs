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
mod tests;

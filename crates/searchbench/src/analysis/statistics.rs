//! Statistics for comparisons: a seeded, deterministic bootstrap confidence interval of the
//! relative difference between two sets of samples.
//!
//! Per-second samples of one run are autocorrelated (a merge slows several seconds in a row),
//! so resampling single seconds would give intervals that are too narrow. We use a circular
//! block bootstrap with blocks of `ceil(n^(1/3))` consecutive samples; for independent samples
//! (one value per repeated run, one per query coverage) the block length is 1, the classic
//! bootstrap. One value per repeated run is few values (2 to 10): there the percentile
//! bootstrap is too narrow, and Welch's t interval is used instead (Welch–Satterthwaite
//! degrees of freedom, the t quantile for them), from 2 runs a side. When its interval holds
//! zero, [`min_detectable`] says how large a change those runs could have seen.

use crate::rng::Rng;
use serde::Serialize;

/// Fewer samples than this on either side: no verdict, only the difference (within-run
/// samples: seconds, coverages, requests).
pub const MIN_SAMPLES: usize = 5;
/// Fewer runs than this in a group: no verdict over runs (Welch's t needs a spread per side).
pub const MIN_RUNS: usize = 2;
/// Bootstrap resamples.
pub const RESAMPLES: usize = 2000;
/// Two-sided confidence level.
pub const CONFIDENCE: f64 = 0.95;
/// The fixed seed: the same inputs always give the same interval.
pub const SEED: u64 = 0x5EA2_C4BE_4C40_0007;

/// How the samples relate to each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleKind {
    /// Consecutive seconds of one run: block bootstrap.
    PerSecond,
    /// Independent measurements (one per query coverage): classic bootstrap.
    PerCoverage,
    /// One value per repeated run: classic bootstrap.
    PerRun,
    /// One value per request, read back from a stored HDR histogram: classic bootstrap of a
    /// quantile (see [`quantile_diff`]).
    PerRequest,
}

impl SampleKind {
    pub fn name(self) -> &'static str {
        match self {
            SampleKind::PerSecond => "seconds",
            SampleKind::PerCoverage => "coverages",
            SampleKind::PerRun => "runs",
            SampleKind::PerRequest => "seconds of requests",
        }
    }
    fn block(self, n: usize) -> usize {
        match self {
            SampleKind::PerSecond => ((n as f64).cbrt().ceil() as usize).clamp(1, n.max(1)),
            _ => 1,
        }
    }
}

pub fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// `(b - a) / a` in percent; `None` when `a` is zero and `b` is not (0 → 0 is 0 %).
pub fn pct_diff(a: f64, b: f64) -> Option<f64> {
    if a == 0.0 {
        return (b == 0.0).then_some(0.0);
    }
    Some((b - a) / a.abs() * 100.0)
}

/// The fewest samples a side needs for an interval: [`MIN_RUNS`] runs, else [`MIN_SAMPLES`].
pub fn min_samples(kind: SampleKind) -> usize {
    if kind == SampleKind::PerRun {
        MIN_RUNS
    } else {
        MIN_SAMPLES
    }
}

fn resample_mean(v: &[f64], block: usize, rng: &mut Rng) -> f64 {
    let n = v.len();
    let mut sum = 0.0;
    let mut taken = 0;
    while taken < n {
        let start = rng.below(n as u64) as usize;
        for j in 0..block.min(n - taken) {
            sum += v[(start + j) % n];
        }
        taken += block.min(n - taken);
    }
    sum / n as f64
}

/// The bootstrap interval of the relative difference of means, contender vs base, in percent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub low_pct: f64,
    pub high_pct: f64,
}

impl Interval {
    /// The interval does not contain zero.
    pub fn excludes_zero(&self) -> bool {
        self.low_pct > 0.0 || self.high_pct < 0.0
    }
}

/// Two-sided 95 % Student t quantiles (0.975) for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];
/// One-sided 0.80 Student t quantiles for 1..=30 degrees of freedom (80 % power).
const T80: [f64; 30] = [
    1.376, 1.061, 0.978, 0.941, 0.920, 0.906, 0.896, 0.889, 0.883, 0.879, 0.876, 0.873, 0.870,
    0.868, 0.866, 0.865, 0.863, 0.862, 0.861, 0.860, 0.859, 0.858, 0.858, 0.857, 0.856, 0.856,
    0.855, 0.855, 0.854, 0.854,
];

/// The quantile for (fractional) `df` degrees of freedom, interpolated linearly between the
/// table's whole degrees (close enough: the table is smooth in df), `normal` beyond 30.
fn t_quantile(table: &[f64; 30], normal: f64, df: f64) -> f64 {
    if !df.is_finite() {
        return normal;
    }
    let df = df.max(1.0);
    if df >= 30.0 {
        // 1/df interpolation towards the normal quantile.
        let w = 30.0 / df;
        return normal + (table[29] - normal) * w;
    }
    let lo = df.floor() as usize;
    let frac = df - lo as f64;
    let a = table[lo - 1];
    let b = table[lo.min(29)];
    a + (b - a) * frac
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom.
pub fn t975(df: f64) -> f64 {
    t_quantile(&T975, 1.960, df)
}

fn variance(v: &[f64], m: f64) -> f64 {
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64
}

/// Sample standard deviation over the mean, in percent (`None` under 2 values or a zero mean).
pub fn cv_pct(v: &[f64]) -> Option<f64> {
    let m = mean(v)?;
    (v.len() >= 2 && m != 0.0).then(|| variance(v, m).sqrt() / m.abs() * 100.0)
}

/// Welch's standard error of the difference of means and its Welch–Satterthwaite degrees of
/// freedom.
fn welch_se_df(base: &[f64], contender: &[f64]) -> Option<(f64, f64)> {
    let (ma, mb) = (mean(base)?, mean(contender)?);
    if base.len() < 2 || contender.len() < 2 {
        return None;
    }
    let (va, vb) = (
        variance(base, ma) / base.len() as f64,
        variance(contender, mb) / contender.len() as f64,
    );
    let se = (va + vb).sqrt();
    let df = if se == 0.0 {
        f64::INFINITY
    } else {
        (va + vb).powi(2)
            / (va * va / (base.len() - 1) as f64 + vb * vb / (contender.len() - 1) as f64)
    };
    Some((se, df))
}

/// Welch's t interval of the change from base to contender, in percent. Used for one value
/// per run: with few runs the percentile bootstrap is too narrow.
///
/// When every value is positive (throughput, latency, CPU per document) the interval is taken
/// on the logarithms and turned back into a ratio of geometric means: run-to-run noise in such
/// figures is multiplicative (a slow run is slower by a factor), so a ratio's interval is the
/// honest one, asymmetric as it should be. Values that can be zero (error counts) stay on the
/// linear scale.
pub fn welch_diff(base: &[f64], contender: &[f64]) -> Option<Interval> {
    if let (Some(la), Some(lb)) = (logs(base), logs(contender)) {
        let d = mean(&lb)? - mean(&la)?;
        let (se, df) = welch_se_df(&la, &lb)?;
        let t = t975(df);
        return Some(Interval {
            low_pct: ((d - t * se).exp() - 1.0) * 100.0,
            high_pct: ((d + t * se).exp() - 1.0) * 100.0,
        });
    }
    let (ma, mb) = (mean(base)?, mean(contender)?);
    if ma == 0.0 {
        return None;
    }
    let (se, df) = welch_se_df(base, contender)?;
    let t = t975(df);
    let d = mb - ma;
    Some(Interval {
        low_pct: (d - t * se) / ma.abs() * 100.0,
        high_pct: (d + t * se) / ma.abs() * 100.0,
    })
}

/// The natural logarithms of `values` when all are positive and finite.
fn logs(values: &[f64]) -> Option<Vec<f64>> {
    values
        .iter()
        .map(|&v| (v > 0.0 && v.is_finite()).then(|| v.ln()))
        .collect()
}

/// The smallest change (percent of the base mean) that runs with this spread would detect
/// at 95 % confidence with 80 % power: `(t_0.975 + t_0.80) × se / |mean(base)|`, Welch's
/// standard error and degrees of freedom (on the logarithms, as a ratio, when all values are
/// positive; see [`welch_diff`]). For one value per run.
pub fn min_detectable(base: &[f64], contender: &[f64]) -> Option<f64> {
    if let (Some(la), Some(lb)) = (logs(base), logs(contender)) {
        let (se, df) = welch_se_df(&la, &lb)?;
        let x = (t975(df) + t_quantile(&T80, 0.8416, df)) * se;
        return Some((x.exp() - 1.0) * 100.0);
    }
    let ma = mean(base)?;
    if ma == 0.0 {
        return None;
    }
    let (se, df) = welch_se_df(base, contender)?;
    Some((t975(df) + t_quantile(&T80, 0.8416, df)) * se / ma.abs() * 100.0)
}

/// The smallest change (percent) detectable with `k` runs a side when one run's coefficient
/// of variation is `cv_pct` and the noise is the same on both sides: the same rule as
/// [`min_detectable`], with `df = 2(k - 1)`.
pub fn min_detectable_for(cv_pct: f64, k: usize) -> Option<f64> {
    if k < 2 {
        return None;
    }
    let se = cv_pct * (2.0 / k as f64).sqrt();
    let df = 2.0 * (k as f64 - 1.0);
    Some((t975(df) + t_quantile(&T80, 0.8416, df)) * se)
}

/// CI of `(mean(contender) - mean(base)) / mean(base)`, in percent: Welch's t for one value
/// per run (from [`MIN_RUNS`] a side), else the percentile bootstrap (blocks for seconds).
/// `None` with fewer than [`min_samples`] on a side or a base mean of zero.
pub fn bootstrap_diff(base: &[f64], contender: &[f64], kind: SampleKind) -> Option<Interval> {
    if base.len() < min_samples(kind) || contender.len() < min_samples(kind) {
        return None;
    }
    if kind == SampleKind::PerRun {
        return welch_diff(base, contender);
    }
    let (bb, cb) = (kind.block(base.len()), kind.block(contender.len()));
    let mut rng = Rng::new(
        SEED ^ ((base.len() as u64) << 32) ^ (contender.len() as u64),
        0,
    );
    let mut diffs = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        let a = resample_mean(base, bb, &mut rng);
        let b = resample_mean(contender, cb, &mut rng);
        if a != 0.0 {
            diffs.push((b - a) / a.abs() * 100.0);
        }
    }
    percentile_interval(diffs, RESAMPLES)
}

/// A recorded distribution as (value, cumulative count) steps, ascending: what an HDR
/// histogram holds, ready for resampling.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    values: Vec<f64>,
    cumulative: Vec<u64>,
    /// Values drawn per resample: the independent units the values stand for (see
    /// [`Recorded::independent_units`]); all of them by default.
    draws: u64,
}

impl Recorded {
    /// `per_unit`: histogram units per reported unit (1000 for µs shown as ms).
    pub fn from_hdr(h: &hdrhistogram::Histogram<u64>, per_unit: f64) -> Recorded {
        let mut values = Vec::new();
        let mut cumulative = Vec::new();
        let mut total = 0;
        for v in h.iter_recorded() {
            total += v.count_at_value();
            values.push(h.highest_equivalent(v.value_iterated_to()) as f64 / per_unit);
            cumulative.push(total);
        }
        Recorded {
            values,
            cumulative,
            draws: total,
        }
    }

    /// Requests of one run are not independent: a merge or a busy machine slows the requests
    /// of the same seconds together. Resampling `units` values (e.g. the run's seconds) instead
    /// of every request treats each unit as one independent observation, which widens the
    /// interval to what the run can support (an m-out-of-n bootstrap, not rescaled).
    pub fn independent_units(mut self, units: u64) -> Recorded {
        self.draws = units.clamp(1, self.len().max(1));
        self
    }

    /// Values drawn per resample.
    pub fn draws(&self) -> u64 {
        self.draws
    }

    pub fn len(&self) -> u64 {
        self.cumulative.last().copied().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of rank `max(1, ceil(q × n))` among `n` values counted per step in `counts`.
    fn quantile(&self, counts: &[u64], n: u64, q: f64) -> f64 {
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (i, c) in counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return self.values[i];
            }
        }
        self.values.last().copied().unwrap_or(0.0)
    }

    /// One bootstrap resample ([`Recorded::draws`] draws with replacement), as counts per step.
    fn resample(&self, counts: &mut [u64], rng: &mut Rng) {
        counts.iter_mut().for_each(|c| *c = 0);
        let n = self.len();
        for _ in 0..self.draws {
            let r = rng.below(n);
            let step = self.cumulative.partition_point(|&c| c <= r);
            counts[step] += 1;
        }
    }
}

/// Draws per side the quantile bootstrap spends at most (resamples × requests); above it,
/// fewer resamples (never under 200).
const QUANTILE_DRAW_BUDGET: u64 = 40_000_000;

/// CI of `(q(contender) - q(base)) / q(base)`, in percent, for the `q` quantile of two sets of
/// per-request values: a seeded percentile bootstrap drawing [`Recorded::draws`] values per
/// side and resample. `None` with fewer than [`MIN_SAMPLES`] draws, or when a resample would
/// hold no value above the quantile (its quantile would always be the maximum).
pub fn quantile_diff(base: &Recorded, contender: &Recorded, q: f64) -> Option<Interval> {
    let (da, db) = (base.draws(), contender.draws());
    let enough = |n: u64| n >= MIN_SAMPLES as u64 && (n as f64 * (1.0 - q)) >= 1.0;
    if base.is_empty() || contender.is_empty() || !enough(da) || !enough(db) {
        return None;
    }
    if !(0.0..=1.0).contains(&q) {
        return None;
    }
    let resamples = (QUANTILE_DRAW_BUDGET / da.max(db)).clamp(200, RESAMPLES as u64) as usize;
    let mut rng = Rng::new(SEED ^ (da << 32) ^ db ^ q.to_bits(), 0);
    let (mut ca, mut cb) = (vec![0; base.values.len()], vec![0; contender.values.len()]);
    let mut diffs = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        base.resample(&mut ca, &mut rng);
        contender.resample(&mut cb, &mut rng);
        let a = base.quantile(&ca, da, q);
        let b = contender.quantile(&cb, db, q);
        if a != 0.0 {
            diffs.push((b - a) / a.abs() * 100.0);
        }
    }
    percentile_interval(diffs, resamples)
}

/// The central [`CONFIDENCE`] interval of bootstrap differences (`None` if over half of the
/// `resamples` had a zero base).
fn percentile_interval(mut diffs: Vec<f64>, resamples: usize) -> Option<Interval> {
    if diffs.len() < resamples / 2 || diffs.is_empty() {
        return None;
    }
    diffs.sort_by(f64::total_cmp);
    let tail = (1.0 - CONFIDENCE) / 2.0;
    let at = |q: f64| diffs[((q * (diffs.len() - 1) as f64).round() as usize).min(diffs.len() - 1)];
    Some(Interval {
        low_pct: at(tail),
        high_pct: at(1.0 - tail),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(values: impl Iterator<Item = u64>) -> Recorded {
        let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for v in values {
            h.record(v).unwrap();
        }
        Recorded::from_hdr(&h, 1000.0)
    }

    #[test]
    fn positive_values_compare_as_ratios_and_a_big_effect_shows_through_noisy_runs() {
        // Three noisy base runs (CV ~26 %) against three runs four times slower: on the
        // linear scale the interval reaches past zero; as a ratio it does not.
        let base = [2500.0, 3500.0, 4300.0];
        let slow = [800.0, 850.0, 880.0];
        let i = welch_diff(&base, &slow).unwrap();
        assert!(i.high_pct < 0.0, "{i:?}");
        assert!(
            i.low_pct > -100.0,
            "a ratio cannot fall below -100 %: {i:?}"
        );
        // The same configuration twice: no change.
        let a = [1000.0, 1100.0, 950.0];
        let b = [1020.0, 980.0, 1090.0];
        let i = welch_diff(&a, &b).unwrap();
        assert!(i.low_pct < 0.0 && i.high_pct > 0.0, "{i:?}");
        // A count that can be zero stays linear.
        let i = welch_diff(&[0.0, 1.0, 0.0], &[5.0, 6.0, 4.0]).unwrap();
        assert!(i.low_pct > 0.0, "{i:?}");
    }

    #[test]
    fn quantile_intervals_see_a_shift_and_not_a_reshuffle() {
        // 400 requests between 10 and 30 ms; the contender 20 % slower across the board.
        let base = recorded((0..400u64).map(|i| 10_000 + (i * 7919 % 400) * 50));
        let slower = recorded((0..400u64).map(|i| (10_000 + (i * 104_729 % 400) * 50) * 6 / 5));
        let same = recorded((0..400u64).map(|i| 10_000 + (i * 104_729 % 400) * 50));
        for q in [0.5, 0.9, 0.99] {
            let up = quantile_diff(&base, &slower, q).unwrap();
            assert!(up.low_pct > 5.0 && up.high_pct < 35.0, "q {q}: {up:?}");
            let flat = quantile_diff(&base, &same, q).unwrap();
            assert!(!flat.excludes_zero(), "q {q}: {flat:?}");
        }
        // Deterministic.
        assert_eq!(
            quantile_diff(&base, &slower, 0.9),
            quantile_diff(&base, &slower, 0.9)
        );
        // Treating the 400 requests as 20 independent seconds widens the interval.
        let wide = quantile_diff(
            &base.clone().independent_units(20),
            &slower.clone().independent_units(20),
            0.5,
        )
        .unwrap();
        let narrow = quantile_diff(&base, &slower, 0.5).unwrap();
        assert!(wide.high_pct - wide.low_pct > 2.0 * (narrow.high_pct - narrow.low_pct));
        assert_eq!(
            quantile_diff(&base.clone().independent_units(20), &slower, 0.99),
            None
        );
        // p99.9 of 400 requests: no value above it, no interval.
        assert_eq!(quantile_diff(&base, &slower, 0.999), None);
        assert_eq!(base.len(), 400);
        assert_eq!(base.quantile(&[400], 400, 0.5), base.values[0]);
    }

    fn noisy(n: usize, level: f64, spread: f64, seed: u64) -> Vec<f64> {
        let mut r = Rng::new(seed, 0);
        (0..n)
            .map(|_| level + spread * ((r.next_u64() % 10_000) as f64 / 10_000.0 - 0.5))
            .collect()
    }

    #[test]
    fn deterministic() {
        let a = noisy(60, 100.0, 20.0, 1);
        let b = noisy(60, 101.0, 20.0, 2);
        assert_eq!(
            bootstrap_diff(&a, &b, SampleKind::PerSecond),
            bootstrap_diff(&a, &b, SampleKind::PerSecond)
        );
    }

    #[test]
    fn clear_shift_is_significant_and_same_level_is_not() {
        let a = noisy(60, 100.0, 20.0, 1);
        let up = noisy(60, 120.0, 20.0, 2);
        let same = noisy(60, 100.0, 20.0, 3);
        let i = bootstrap_diff(&a, &up, SampleKind::PerSecond).unwrap();
        assert!(i.excludes_zero() && i.low_pct > 10.0, "{i:?}");
        let i = bootstrap_diff(&a, &same, SampleKind::PerSecond).unwrap();
        assert!(!i.excludes_zero(), "{i:?}");
    }

    #[test]
    fn too_few_samples_give_no_interval() {
        assert!(bootstrap_diff(&[1.0], &[1.0, 2.0, 3.0, 4.0, 5.0], SampleKind::PerRun).is_none());
        assert!(bootstrap_diff(&[1.0, 2.0], &[1.0, 2.0], SampleKind::PerSecond).is_none());
    }

    #[test]
    fn three_runs_a_side_give_a_verdict_on_a_large_effect_and_say_what_they_could_see() {
        let a = [10_000.0, 10_300.0, 9_800.0];
        let up = [14_400.0, 14_100.0, 14_700.0];
        let i = bootstrap_diff(&a, &up, SampleKind::PerRun).unwrap();
        assert!(i.low_pct > 30.0, "{i:?}");
        let same = [10_100.0, 9_900.0, 10_250.0];
        let i = bootstrap_diff(&a, &same, SampleKind::PerRun).unwrap();
        assert!(!i.excludes_zero(), "{i:?}");
        let mde = min_detectable(&a, &same).unwrap();
        assert!(mde > 2.0 && mde < 20.0, "{mde}");
        // Fewer runs, a larger detectable change.
        assert!(min_detectable_for(3.0, 2).unwrap() > min_detectable_for(3.0, 5).unwrap());
    }

    #[test]
    fn t_quantiles_match_the_table_and_interpolate() {
        assert!((t975(1.0) - 12.706).abs() < 1e-9);
        assert!((t975(4.0) - 2.776).abs() < 1e-9);
        let mid = t975(4.5);
        assert!(mid < 2.776 && mid > 2.571);
        assert!((t975(f64::INFINITY) - 1.96).abs() < 1e-9);
        assert!(t975(60.0) < 2.042 && t975(60.0) > 1.96);
    }

    #[test]
    fn two_run_aa_comparisons_rarely_raise_a_false_alarm() {
        // Normal-ish noise (sum of uniforms), 2 runs a side, identical configurations.
        let mut rng = Rng::new(7, 0);
        let mut draw = || {
            (0..6)
                .map(|_| (rng.next_u64() % 10_000) as f64 / 10_000.0)
                .sum::<f64>()
        };
        let trials = 2000;
        let mut alarms = 0;
        for _ in 0..trials {
            let a: Vec<f64> = (0..2).map(|_| 1000.0 + 30.0 * draw()).collect();
            let b: Vec<f64> = (0..2).map(|_| 1000.0 + 30.0 * draw()).collect();
            if bootstrap_diff(&a, &b, SampleKind::PerRun).is_some_and(|i| i.excludes_zero()) {
                alarms += 1;
            }
        }
        assert!(alarms * 100 <= trials * 5, "{alarms} of {trials}");
    }

    #[test]
    fn pct_diff_edges() {
        assert_eq!(pct_diff(0.0, 0.0), Some(0.0));
        assert_eq!(pct_diff(0.0, 1.0), None);
        assert_eq!(pct_diff(200.0, 150.0), Some(-25.0));
    }
}

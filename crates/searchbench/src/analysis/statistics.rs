//! Statistics for comparisons over runs: Welch's t interval of the relative difference of
//! two groups of runs, the prediction interval of one run against a group, and the smallest
//! change a number of runs could have seen.
//!
//! One value per repeated run is few values (2 to 10): Welch's t interval (Welch–Satterthwaite
//! degrees of freedom, the t quantile for them) from 2 runs a side, on the logarithms when
//! every value is positive. When its interval holds zero, [`min_detectable`] says how large a
//! change those runs could have seen. The seconds or requests inside one run are not used for
//! a verdict: they say nothing of the noise from one run to the next.

use serde::Serialize;

/// Fewer runs than this in a group: no verdict over runs (Welch's t needs a spread per side).
pub const MIN_RUNS: usize = 2;
/// Two-sided confidence level.
pub const CONFIDENCE: f64 = 0.95;

/// How the samples relate to each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleKind {
    /// Consecutive seconds of one run.
    PerSecond,
    /// Measurements of one run's query coverages.
    PerCoverage,
    /// One value per repeated run: what a verdict is over.
    PerRun,
}

impl SampleKind {
    pub fn name(self) -> &'static str {
        match self {
            SampleKind::PerSecond => "seconds",
            SampleKind::PerCoverage => "coverages",
            SampleKind::PerRun => "runs",
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

/// An interval of the relative difference, contender vs base, in percent.
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

/// The two-sided p-value of Student's t statistic `t` with `df` degrees of freedom (the
/// normal's beyond any finite table): how often a change at least this large would be seen
/// if there were none. What a correction over many metrics ([`super::multiple`]) reads.
pub fn t_p_value(t: f64, df: f64) -> Option<f64> {
    use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
    if !t.is_finite() {
        return None;
    }
    let tail = if df.is_finite() && df < 1e7 {
        StudentsT::new(0.0, 1.0, df.max(1e-3)).ok()?.cdf(-t.abs())
    } else {
        Normal::new(0.0, 1.0).ok()?.cdf(-t.abs())
    };
    Some((2.0 * tail).clamp(0.0, 1.0))
}

/// The p-value of Welch's test behind [`welch_diff`] (the same scale: logarithms when every
/// value is positive).
pub fn welch_p(base: &[f64], contender: &[f64]) -> Option<f64> {
    let (a, b) = match (logs(base), logs(contender)) {
        (Some(la), Some(lb)) => (la, lb),
        _ => (base.to_vec(), contender.to_vec()),
    };
    let d = mean(&b)? - mean(&a)?;
    let (se, df) = welch_se_df(&a, &b)?;
    (se > 0.0).then(|| t_p_value(d / se, df))?
}

/// The p-value of the paired test behind [`paired_diff`].
pub fn paired_p(pairs: &[(f64, f64)]) -> Option<f64> {
    let (changes, _) = round_changes(pairs)?;
    let (m, se, df) = paired_se(&changes)?;
    (se > 0.0).then(|| t_p_value(m / se, df))?
}

/// The p-value of one value against `base` runs, behind [`prediction_diff`]: how far outside
/// a new run like them it falls.
pub fn prediction_p(base: &[f64], value: f64) -> Option<f64> {
    let p = predicted(base, value)?;
    (p.scale > 0.0).then(|| t_p_value(p.d / p.scale, p.df))?
}

/// The fewest rounds a paired comparison is made from: with fewer, Welch's t over the two
/// groups has more degrees of freedom than the pairs would (n − 1) and is used instead.
pub const MIN_PAIRS: usize = 3;

/// Which test a verdict over runs came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Welch's t over two independent groups of runs.
    Welch,
    /// Student's paired t over rounds: each round's contender against its base, run side by
    /// side, so the machine's drift from round to round cancels.
    PairedT,
}

impl Test {
    pub fn name(self) -> &'static str {
        match self {
            Test::Welch => "Welch's t",
            Test::PairedT => "paired t",
        }
    }
}

/// Each round's change from base to contender: the log ratio when every value is positive
/// (as [`welch_diff`] takes ratios), else the difference; and the scale that turns the
/// linear case into percent (the base mean), `None` for ratios.
fn round_changes(pairs: &[(f64, f64)]) -> Option<(Vec<f64>, Option<f64>)> {
    let base: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let contender: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    if let (Some(la), Some(lb)) = (logs(&base), logs(&contender)) {
        return Some((lb.iter().zip(&la).map(|(b, a)| b - a).collect(), None));
    }
    let m = mean(&base)?;
    (m != 0.0 && pairs.iter().all(|p| p.0.is_finite() && p.1.is_finite()))
        .then(|| (pairs.iter().map(|p| p.1 - p.0).collect(), Some(m.abs())))
}

/// The mean change over rounds and its standard error, degrees of freedom `n − 1`.
fn paired_se(changes: &[f64]) -> Option<(f64, f64, f64)> {
    let n = changes.len();
    if n < 2 {
        return None;
    }
    let m = mean(changes)?;
    let se = (variance(changes, m) / n as f64).sqrt();
    Some((m, se, (n - 1) as f64))
}

fn to_pct(x: f64, scale: Option<f64>) -> f64 {
    match scale {
        None => (x.exp() - 1.0) * 100.0,
        Some(m) => x / m * 100.0,
    }
}

/// Student's paired t interval of the change from base to contender over rounds, each pair
/// `(base, contender)` run in one round, in percent: the mean of the rounds' log ratios
/// ± `t(n−1) · s / √n`, turned back into a ratio (linear, relative to the base mean, when a
/// value is not positive). What the two sides share in a round (the machine's level that
/// hour, a co-tenant) cancels in its ratio, where Welch's t counts it as noise.
pub fn paired_diff(pairs: &[(f64, f64)]) -> Option<Interval> {
    let (changes, scale) = round_changes(pairs)?;
    let (m, se, df) = paired_se(&changes)?;
    let t = t975(df);
    Some(Interval {
        low_pct: to_pct(m - t * se, scale),
        high_pct: to_pct(m + t * se, scale),
    })
}

/// The smallest change (percent) these rounds could have seen at 95 % confidence and 80 %
/// power, as [`min_detectable`] is for two groups.
pub fn paired_min_detectable(pairs: &[(f64, f64)]) -> Option<f64> {
    let (changes, scale) = round_changes(pairs)?;
    let (_, se, df) = paired_se(&changes)?;
    let x = (t975(df) + t_quantile(&T80, 0.8416, df)) * se;
    Some(to_pct(x, scale).abs())
}

/// The spread of the rounds' changes: the standard deviation of their log ratios (≈ the
/// coefficient of variation of the ratio), in percent; linear relative to the base mean when
/// a value is not positive.
pub fn paired_spread_pct(pairs: &[(f64, f64)]) -> Option<f64> {
    let (changes, scale) = round_changes(pairs)?;
    let m = mean(&changes)?;
    (changes.len() >= 2).then(|| {
        let sd = variance(&changes, m).sqrt();
        match scale {
            None => sd * 100.0,
            Some(b) => sd / b * 100.0,
        }
    })
}

/// The spread a round's ratio would have, read off one configuration's runs made one after
/// another: the root mean square of the successive log differences divided by √2 would be each
/// run's own noise; undivided, it is the spread of the ratio of two back-to-back runs, which a
/// round pairs. A slow drift of the machine moves the runs' mean, not their successive
/// differences (von Neumann's successive differences), so this is what pairing leaves; the CV
/// keeps the drift. Percent; `None` under 3 runs or for a value that is not positive.
pub fn successive_spread_pct(values: &[f64]) -> Option<f64> {
    if values.len() < 3 {
        return None;
    }
    let l = logs(values)?;
    let mssd = l.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum::<f64>() / (l.len() - 1) as f64;
    Some(mssd.sqrt() * 100.0)
}

/// The smallest change `rounds` paired rounds detect (95 % confidence, 80 % power) when their
/// ratios spread by `spread_pct`.
pub fn paired_min_detectable_for(spread_pct: f64, rounds: usize) -> Option<f64> {
    if rounds < MIN_PAIRS {
        return None;
    }
    let df = (rounds - 1) as f64;
    Some((t975(df) + t_quantile(&T80, 0.8416, df)) * spread_pct / (rounds as f64).sqrt())
}

/// The fewest rounds that detect `threshold_pct` when the rounds' changes spread by
/// `spread_pct` (see [`paired_spread_pct`]); `None` beyond [`MAX_RUNS_SAID`].
pub fn rounds_needed(spread_pct: f64, threshold_pct: f64) -> Option<usize> {
    (MIN_PAIRS..=MAX_RUNS_SAID)
        .find(|&n| paired_min_detectable_for(spread_pct, n).is_some_and(|d| d <= threshold_pct))
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

/// The prediction interval of one new value against `base` runs, as a change in percent:
/// where a new run like the `base` runs would fall, `mean ± t(n−1) · s · √(1 + 1/n)`, on the
/// logarithms when every value is positive (a ratio), else linear relative to the mean.
/// `None` under [`MIN_RUNS`] base values.
pub fn prediction_diff(base: &[f64], value: f64) -> Option<Interval> {
    let p = predicted(base, value)?;
    let half = t975(p.df) * p.scale;
    let d = p.d;
    if p.positive {
        Some(Interval {
            low_pct: ((d - half).exp() - 1.0) * 100.0,
            high_pct: ((d + half).exp() - 1.0) * 100.0,
        })
    } else if p.mean != 0.0 {
        Some(Interval {
            low_pct: (d - half) / p.mean.abs() * 100.0,
            high_pct: (d + half) / p.mean.abs() * 100.0,
        })
    } else {
        None
    }
}

/// One value against `base` runs, on the scale they are compared on (logarithms when every
/// value is positive): its distance from their mean, the spread of one more run like them
/// (`s · √(1 + 1/n)`), its degrees of freedom.
struct Predicted {
    d: f64,
    scale: f64,
    df: f64,
    positive: bool,
    mean: f64,
}

fn predicted(base: &[f64], value: f64) -> Option<Predicted> {
    let n = base.len();
    if n < MIN_RUNS || !value.is_finite() {
        return None;
    }
    let positive = value > 0.0 && base.iter().all(|v| *v > 0.0 && v.is_finite());
    let (values, x): (Vec<f64>, f64) = if positive {
        (base.iter().map(|v| v.ln()).collect(), value.ln())
    } else {
        (base.to_vec(), value)
    };
    let mean = self::mean(&values)?;
    Some(Predicted {
        d: x - mean,
        scale: variance(&values, mean).sqrt() * (1.0 + 1.0 / n as f64).sqrt(),
        df: (n - 1) as f64,
        positive,
        mean,
    })
}

/// The interval of `b` against `a` from the interval of `a` against `b`, both ratios in
/// percent: `a/b − 1 ∈ [lo, hi]` is `b/a − 1 ∈ [1/(1+hi) − 1, 1/(1+lo) − 1]`. `None` when the
/// interval reaches −100 % (no ratio).
pub fn inverse(i: Interval) -> Option<Interval> {
    (i.low_pct > -100.0).then(|| Interval {
        low_pct: (100.0 / (100.0 + i.high_pct) - 1.0) * 100.0,
        high_pct: (100.0 / (100.0 + i.low_pct) - 1.0) * 100.0,
    })
}

/// The most runs a side a comparison proposes.
pub const MAX_RUNS_SAID: usize = 100_000;

/// The fewest runs a side that detect `threshold_pct` when one run's spread is `cv_pct`
/// (95 % confidence, 80 % power); `None` beyond [`MAX_RUNS_SAID`].
pub fn runs_needed(cv_pct: f64, threshold_pct: f64) -> Option<usize> {
    (MIN_RUNS..=MAX_RUNS_SAID)
        .find(|&k| min_detectable_for(cv_pct, k).is_some_and(|d| d <= threshold_pct))
}

#[cfg(test)]
mod tests {
    #[test]
    fn successive_differences_leave_out_a_drift_the_cv_keeps() {
        // Forty runs at ±3 % noise (uniform, seeded) on a level falling by a third.
        let mut rng = crate::rng::Rng::new(7, 0);
        let noise: Vec<f64> = (0..40).map(|_| 1.0 + 0.06 * (rng.unit() - 0.5)).collect();
        let drifting: Vec<f64> = noise
            .iter()
            .enumerate()
            .map(|(i, n)| 30_000.0 * (1.0 - i as f64 / 120.0) * n)
            .collect();
        let cv = cv_pct(&drifting).unwrap();
        let pairs = successive_spread_pct(&drifting).unwrap();
        assert!(cv > 8.0, "the drift is in the CV: {cv}");
        assert!(
            pairs < 4.0,
            "and not in the successive differences: {pairs}"
        );
        // Without a drift both say the same noise: √2 × CV against the successive spread.
        let level: Vec<f64> = noise.iter().map(|n| 30_000.0 * n).collect();
        let (cv, pairs) = (
            cv_pct(&level).unwrap(),
            successive_spread_pct(&level).unwrap(),
        );
        assert!(
            (pairs / (cv * 2f64.sqrt()) - 1.0).abs() < 0.3,
            "{cv} {pairs}"
        );
        assert!(successive_spread_pct(&[1.0, 2.0]).is_none());
        assert!(successive_spread_pct(&[1.0, 0.0, 2.0]).is_none());
        // What the rounds see shrinks with √rounds; rounds_needed is its inverse.
        let d3 = paired_min_detectable_for(4.0, 3).unwrap();
        let d10 = paired_min_detectable_for(4.0, 10).unwrap();
        assert!(d10 < d3 / 2.0, "{d3} {d10}");
        let n = rounds_needed(4.0, 5.0).unwrap();
        assert!(paired_min_detectable_for(4.0, n).unwrap() <= 5.0);
        assert!(paired_min_detectable_for(4.0, n - 1).unwrap() > 5.0);
    }

    use super::*;
    use crate::rng::Rng;

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

    /// Rounds whose level drifts by a third (the machine got busier), the contender 8 %
    /// slower than the base in every round: Welch's t over the two groups sees the drift as
    /// noise and cannot tell; the paired test, each round's ratio, sees the 8 %.
    #[test]
    fn a_drift_that_hides_a_change_from_welch_does_not_hide_it_from_pairs() {
        let mut rng = Rng::new(11, 0);
        let mut welch_saw = 0;
        let mut paired_saw = 0;
        for _ in 0..200 {
            let pairs: Vec<(f64, f64)> = (0..5)
                .map(|round| {
                    let level = 1000.0 * (1.0 + 0.33 * round as f64 / 4.0);
                    let noise = |rng: &mut Rng| 1.0 + 0.01 * rng.normalish();
                    let base = level * noise(&mut rng);
                    (base, level * 0.92 * noise(&mut rng))
                })
                .collect();
            let (a, b): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
            welch_saw += usize::from(welch_diff(&a, &b).unwrap().excludes_zero());
            let i = paired_diff(&pairs).unwrap();
            paired_saw += usize::from(i.high_pct < 0.0);
            assert!(i.low_pct < -8.0 + 4.0 && i.high_pct > -8.0 - 4.0, "{i:?}");
        }
        assert!(welch_saw < 20, "Welch saw it in {welch_saw} of 200");
        assert!(paired_saw > 190, "paired saw it in {paired_saw} of 200");
    }

    /// No change under the same drift: the paired interval holds zero about 95 % of the time
    /// (its false alarms are what its level says), and its reach is small.
    #[test]
    fn pairs_of_one_configuration_false_alarm_at_the_tests_level() {
        let mut rng = Rng::new(12, 0);
        let mut alarms = 0;
        for _ in 0..1000 {
            let pairs: Vec<(f64, f64)> = (0..3)
                .map(|round| {
                    let level = 1000.0 * (1.0 + 0.2 * round as f64);
                    let mut noisy = || level * (1.0 + 0.02 * rng.normalish());
                    (noisy(), noisy())
                })
                .collect();
            alarms += usize::from(paired_diff(&pairs).unwrap().excludes_zero());
        }
        assert!((20..=90).contains(&alarms), "{alarms} false alarms in 1000");
        // Two pairs are enough for an interval, one is not.
        assert!(paired_diff(&[(1.0, 2.0)]).is_none());
        assert!(paired_diff(&[(1.0, 2.0), (1.1, 2.1)]).is_some());
        // Spread and reach: rounds changing by 2 % ± 1 % see about 1.5 % at n = 6.
        let pairs: Vec<(f64, f64)> = [1.01, 1.03, 1.02, 1.01, 1.03, 1.02]
            .iter()
            .enumerate()
            .map(|(i, r)| (100.0 + 10.0 * i as f64, (100.0 + 10.0 * i as f64) * r))
            .collect();
        let spread = paired_spread_pct(&pairs).unwrap();
        assert!((0.7..1.0).contains(&spread), "{spread}");
        let reach = paired_min_detectable(&pairs).unwrap();
        assert!((0.8..2.0).contains(&reach), "{reach}");
        assert_eq!(rounds_needed(spread, 5.0), Some(MIN_PAIRS));
        assert!(rounds_needed(10.0, 5.0).unwrap() > 10);
        // A count that can be zero pairs linearly.
        let i = paired_diff(&[(0.0, 5.0), (1.0, 6.0), (0.0, 4.0)]).unwrap();
        assert!(i.low_pct > 0.0, "{i:?}");
    }

    #[test]
    fn too_few_samples_give_no_interval() {
        assert!(welch_diff(&[1.0], &[1.0, 2.0, 3.0, 4.0, 5.0]).is_none());
        assert!(prediction_diff(&[1.0], 2.0).is_none());
    }

    #[test]
    fn three_runs_a_side_give_a_verdict_on_a_large_effect_and_say_what_they_could_see() {
        let a = [10_000.0, 10_300.0, 9_800.0];
        let up = [14_400.0, 14_100.0, 14_700.0];
        let i = welch_diff(&a, &up).unwrap();
        assert!(i.low_pct > 30.0, "{i:?}");
        let same = [10_100.0, 9_900.0, 10_250.0];
        let i = welch_diff(&a, &same).unwrap();
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
            if welch_diff(&a, &b).is_some_and(|i| i.excludes_zero()) {
                alarms += 1;
            }
        }
        assert!(alarms * 100 <= trials * 5, "{alarms} of {trials}");
    }

    #[test]
    fn a_new_run_far_outside_the_runs_spread_is_significant_and_turns_round() {
        let base = [1000.0, 1030.0, 980.0, 1010.0, 995.0];
        let slow = prediction_diff(&base, 800.0).unwrap();
        assert!(slow.high_pct < 0.0, "{slow:?}");
        let same = prediction_diff(&base, 1005.0).unwrap();
        assert!(!same.excludes_zero(), "{same:?}");
        // Turned round: the base against the new run, a ratio the other way.
        let back = inverse(slow).unwrap();
        assert!(back.low_pct > 0.0, "{back:?}");
        let there = inverse(back).unwrap();
        assert!((there.low_pct - slow.low_pct).abs() < 1e-9);
        assert!((there.high_pct - slow.high_pct).abs() < 1e-9);
        assert!(inverse(Interval {
            low_pct: -100.0,
            high_pct: 5.0
        })
        .is_none());
    }

    #[test]
    fn noisier_runs_need_more_of_them_to_see_a_change() {
        assert_eq!(runs_needed(0.5, 5.0), Some(2));
        let (few, many) = (
            runs_needed(3.0, 5.0).unwrap(),
            runs_needed(10.0, 5.0).unwrap(),
        );
        assert!(few < many, "{few} {many}");
        // What they need sees it; one run fewer does not.
        assert!(min_detectable_for(10.0, many).unwrap() <= 5.0);
        assert!(min_detectable_for(10.0, many - 1).unwrap() > 5.0);
        assert_eq!(runs_needed(1e6, 0.01), None);
    }

    #[test]
    fn pct_diff_edges() {
        assert_eq!(pct_diff(0.0, 0.0), Some(0.0));
        assert_eq!(pct_diff(0.0, 1.0), None);
        assert_eq!(pct_diff(200.0, 150.0), Some(-25.0));
    }
}

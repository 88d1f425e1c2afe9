//! Change points: where the level of a series of per-run values shifts.
//!
//! The method is E-divisive with means (Matteson & James, "A Nonparametric Approach for
//! Multiple Change Point Analysis of Multivariate Data", JASA 2014), the one Apache
//! Otava (formerly Hunter) applies to performance histories. For a split of a segment into
//! `X` (before) and `Y` (after), with `m` and `n` values,
//!
//! ```text
//! Q(X, Y) = m n / (m + n) · ( 2/(m n) Σ|x - y| − 1/C(m,2) Σ|x - x'| − 1/C(n,2) Σ|y - y'| )
//! ```
//!
//! (the divergence in energy distance, exponent 1, scaled by the sample sizes). The split with
//! the largest `Q` is the candidate; a permutation test says whether it is real: the segment's
//! values are shuffled [`Options::permutations`] times (seeded, so the same series always gives
//! the same answer) and the p-value is `(1 + #{shuffles with a max Q ≥ the observed}) /
//! (1 + shuffles)`. A candidate with `p < alpha` is accepted and the search goes on in every
//! segment the accepted points delimit (the best candidate over all segments first), until one
//! is not significant. `Q` is scale-free and makes no assumption of normality; a scan over a
//! segment costs O(n log n) (running sums, and a Fenwick tree over the values' ranks).
//!
//! Each change point is then described by the values on either side up to the neighbouring
//! change points: the relative shift with Welch's t interval (on the logarithms for positive
//! values, see [`statistics::welch_diff`]), and whether it is a regression or an improvement
//! given the metric's [`Direction`].

use serde::Serialize;

use super::metrics::Direction;
use super::statistics::{self, Interval};
use crate::rng::Rng;

/// How the search runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Significance level of the permutation test.
    pub alpha: f64,
    /// Shuffles per test.
    pub permutations: usize,
    /// The fewest values a segment keeps on each side of a change point.
    pub min_size: usize,
    /// Seed of the shuffles.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            alpha: 0.05,
            permutations: 199,
            min_size: 2,
            seed: 0xC4A6_E901_D7E5_0001,
        }
    }
}

/// Which way a shift goes for the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shift {
    Regression,
    Improvement,
    /// A metric where neither way is better.
    Change,
}

impl Shift {
    pub fn name(self) -> &'static str {
        match self {
            Shift::Regression => "regression",
            Shift::Improvement => "improvement",
            Shift::Change => "change",
        }
    }
}

/// One detected shift.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangePoint {
    /// The first value of the new level.
    pub index: usize,
    pub shift: Shift,
    /// Relative change of the level, percent (ratio of geometric means for positive values,
    /// else of means).
    pub size_pct: Option<f64>,
    /// 95 % interval of that change (Welch's t over the values either side).
    pub interval: Option<Interval>,
    pub p_value: f64,
    /// Mean of the values before and after (up to the neighbouring change points).
    pub before: f64,
    pub after: f64,
}

/// The change points of `values`, in index order. `allowed(i)` says whether a new level may
/// start at index `i` (runs repeated at one version are one group: a level cannot start
/// inside it). Non-finite values give no change points.
pub fn detect(
    values: &[f64],
    direction: Direction,
    allowed: &dyn Fn(usize) -> bool,
    options: &Options,
) -> Vec<ChangePoint> {
    if values.iter().any(|v| !v.is_finite()) || options.min_size == 0 {
        return Vec::new();
    }
    let n = values.len();
    let mut rng = Rng::new(options.seed, n as u64);
    // Accepted change points (indices where a level starts), with their p-values.
    let mut found: Vec<(usize, f64)> = Vec::new();
    loop {
        let mut bounds: Vec<usize> = found.iter().map(|(i, _)| *i).collect();
        bounds.push(0);
        bounds.push(n);
        bounds.sort_unstable();
        // The best candidate over every segment.
        let best = bounds
            .windows(2)
            .filter_map(|w| {
                let segment = Segment::new(&values[w[0]..w[1]]);
                let order: Vec<usize> = (0..segment.len()).collect();
                let (at, q) =
                    segment.best_split(&order, options.min_size, &|k| allowed(w[0] + k))?;
                Some((w[0], segment, at, q))
            })
            .max_by(|a, b| a.3.total_cmp(&b.3));
        let Some((start, segment, at, q)) = best else {
            break;
        };
        let p = permutation_p(&segment, start, q, allowed, options, &mut rng);
        if p >= options.alpha {
            break;
        }
        found.push((start + at, p));
    }
    found.sort_unstable_by_key(|(i, _)| *i);
    describe(values, direction, &found)
}

/// The values of one segment and what of their distances does not depend on their order:
/// each value's rank, and the sum of its distances to every value of the segment. A scan
/// over any order of them then costs O(len log len) (a Fenwick tree over the ranks gives a
/// value's distances to those already on the left), not the O(len²) of summing distances
/// pair by pair: a history of a thousand nights is tested in milliseconds, not seconds.
struct Segment {
    values: Vec<f64>,
    /// Rank of each value in ascending order (ties broken by position: distinct ranks).
    rank: Vec<usize>,
    /// Σ_j |v_i − v_j| over the segment, for each i.
    total: Vec<f64>,
    /// Σ over pairs i < j of |v_i − v_j|.
    within: f64,
}

impl Segment {
    fn new(values: &[f64]) -> Segment {
        // Distances do not change with a shift, and rounding shrinks with the magnitudes:
        // from the smallest value up, equal values are exactly 0 and their distances exactly
        // nothing (a series of one value has no change point, however long).
        let least = values.iter().copied().fold(f64::INFINITY, f64::min);
        let values: Vec<f64> = values.iter().map(|v| v - least).collect();
        let values = values.as_slice();
        let len = values.len();
        let mut by_value: Vec<usize> = (0..len).collect();
        by_value.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
        let mut rank = vec![0; len];
        let mut total = vec![0.0; len];
        let sum: f64 = values.iter().sum();
        let mut below = 0.0;
        for (r, &i) in by_value.iter().enumerate() {
            rank[i] = r;
            let v = values[i];
            let above = sum - below - v;
            total[i] = (v * r as f64 - below) + (above - v * (len - 1 - r) as f64);
            below += v;
        }
        let within = total.iter().sum::<f64>() / 2.0;
        Segment {
            values: values.to_vec(),
            rank,
            total,
            within,
        }
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    /// The split of the segment's values in `order` (positions in the segment) with the
    /// largest `Q`, as (position in `order` where the second part starts, Q).
    fn best_split(
        &self,
        order: &[usize],
        min_size: usize,
        allowed: &dyn Fn(usize) -> bool,
    ) -> Option<(usize, f64)> {
        let len = order.len();
        if len < 2 * min_size {
            return None;
        }
        // Running sums for the split at `t` (left = 0..t, right = t..len).
        let mut left = Fenwick::new(len);
        let mut within_left = 0.0;
        let mut within_right = self.within;
        let mut between = 0.0;
        let mut best: Option<(usize, f64)> = None;
        for t in 1..len {
            // Move element t-1 from the right to the left.
            let x = order[t - 1];
            let v = self.values[x];
            let (below_n, below_sum) = left.below(self.rank[x]);
            let (left_n, left_sum) = ((t - 1) as f64, left.sum);
            let to_left =
                (v * below_n - below_sum) + ((left_sum - below_sum) - v * (left_n - below_n));
            let to_right = self.total[x] - to_left;
            left.add(self.rank[x], v);
            within_left += to_left;
            within_right -= to_right;
            between += to_right - to_left;
            let (m, k) = (t, len - t);
            if m < min_size || k < min_size || !allowed(t) {
                continue;
            }
            let (mf, kf) = (m as f64, k as f64);
            let pairs = |c: f64| if c > 1.0 { c * (c - 1.0) / 2.0 } else { 1.0 };
            let e = 2.0 * between / (mf * kf) - within_left / pairs(mf) - within_right / pairs(kf);
            let q = mf * kf / (mf + kf) * e;
            if best.is_none_or(|(_, b)| q > b) {
                best = Some((t, q));
            }
        }
        best
    }
}

/// Counts and sums of the values on the left of a scan, by rank.
struct Fenwick {
    count: Vec<f64>,
    value: Vec<f64>,
    sum: f64,
}

impl Fenwick {
    fn new(len: usize) -> Fenwick {
        Fenwick {
            count: vec![0.0; len + 1],
            value: vec![0.0; len + 1],
            sum: 0.0,
        }
    }

    fn add(&mut self, rank: usize, v: f64) {
        self.sum += v;
        let mut i = rank + 1;
        while i < self.count.len() {
            self.count[i] += 1.0;
            self.value[i] += v;
            i += i & i.wrapping_neg();
        }
    }

    /// How many values of rank below `rank` were added, and their sum.
    fn below(&self, rank: usize) -> (f64, f64) {
        let (mut n, mut s) = (0.0, 0.0);
        let mut i = rank;
        while i > 0 {
            n += self.count[i];
            s += self.value[i];
            i -= i & i.wrapping_neg();
        }
        (n, s)
    }
}

/// The permutation p-value of a candidate with statistic `q` found in the segment starting
/// at `start`.
fn permutation_p(
    segment: &Segment,
    start: usize,
    q: f64,
    allowed: &dyn Fn(usize) -> bool,
    options: &Options,
    rng: &mut Rng,
) -> f64 {
    let mut order: Vec<usize> = (0..segment.len()).collect();
    let mut at_least = 0usize;
    let all = (1 + options.permutations) as f64;
    for _ in 0..options.permutations {
        rng.shuffle(&mut order);
        let shuffled = segment.best_split(&order, options.min_size, &|k| allowed(start + k));
        if shuffled.is_some_and(|(_, s)| s >= q * (1.0 - 1e-12)) {
            at_least += 1;
            // Already at the level whatever the shuffles left would give: not significant,
            // said with the p-value so far (a bound from below). A search at a family's small
            // level shuffles thousands of times only where a change is plain.
            if (1 + at_least) as f64 >= options.alpha * all {
                return (1 + at_least) as f64 / all;
            }
        }
    }
    (1 + at_least) as f64 / all
}

fn describe(values: &[f64], direction: Direction, found: &[(usize, f64)]) -> Vec<ChangePoint> {
    found
        .iter()
        .enumerate()
        .map(|(k, &(index, p_value))| {
            let from = if k == 0 { 0 } else { found[k - 1].0 };
            let to = found.get(k + 1).map_or(values.len(), |f| f.0);
            let (before, after) = (&values[from..index], &values[index..to]);
            let size_pct = relative_shift(before, after);
            let (mb, ma) = (
                statistics::mean(before).unwrap_or(0.0),
                statistics::mean(after).unwrap_or(0.0),
            );
            let up = size_pct.map_or(ma > mb, |s| s > 0.0);
            let shift = match direction {
                Direction::Info => Shift::Change,
                Direction::HigherBetter if up => Shift::Improvement,
                Direction::LowerBetter if !up => Shift::Improvement,
                _ => Shift::Regression,
            };
            ChangePoint {
                index,
                shift,
                size_pct,
                interval: statistics::welch_diff(before, after),
                p_value,
                before: mb,
                after: ma,
            }
        })
        .collect()
}

/// The relative shift from `before` to `after`, percent: the ratio of geometric means when
/// every value is positive (the centre of [`statistics::welch_diff`]'s interval), else of
/// means.
pub fn relative_shift(before: &[f64], after: &[f64]) -> Option<f64> {
    let log_mean = |v: &[f64]| -> Option<f64> {
        if v.is_empty() || v.iter().any(|x| *x <= 0.0) {
            return None;
        }
        Some(v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64)
    };
    if let (Some(a), Some(b)) = (log_mean(before), log_mean(after)) {
        return Some(((b - a).exp() - 1.0) * 100.0);
    }
    statistics::pct_diff(statistics::mean(before)?, statistics::mean(after)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `levels` (value, count) with multiplicative noise of coefficient of variation `cv`.
    fn series(levels: &[(f64, usize)], cv: f64, seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed, 7);
        levels
            .iter()
            .flat_map(|&(level, count)| std::iter::repeat_n(level, count))
            .map(|level| level * (1.0 + cv * rng.normalish()))
            .collect()
    }

    /// The scan as the method defines it: every distance summed pair by pair, O(len²).
    fn naive_best_split(values: &[f64], order: &[usize], min_size: usize) -> Option<(usize, f64)> {
        let len = order.len();
        let d = |a: &[usize], b: &[usize]| -> f64 {
            a.iter()
                .flat_map(|&i| b.iter().map(move |&j| (values[i] - values[j]).abs()))
                .sum()
        };
        let mut best: Option<(usize, f64)> = None;
        for t in min_size.max(1)..=len.saturating_sub(min_size) {
            let (x, y) = order.split_at(t);
            let (m, k) = (x.len() as f64, y.len() as f64);
            let pairs = |c: f64| if c > 1.0 { c * (c - 1.0) } else { 2.0 };
            // Within a part every pair is counted twice by `d`.
            let e = 2.0 * d(x, y) / (m * k) - d(x, x) / pairs(m) - d(y, y) / pairs(k);
            let q = m * k / (m + k) * e;
            if best.is_none_or(|(_, b)| q > b) {
                best = Some((t, q));
            }
        }
        best
    }

    #[test]
    fn a_long_series_of_one_value_has_no_change_point() {
        for v in [65.87706031839441, 0.1, 1e9 / 3.0] {
            let values = vec![v; 1000];
            assert!(detect(&values, Direction::LowerBetter, &any, &Options::default()).is_empty());
            // And one level shift in it is found once, where it is.
            let mut shifted = values.clone();
            for x in &mut shifted[600..] {
                *x *= 1.1;
            }
            let found = detect(&shifted, Direction::LowerBetter, &any, &Options::default());
            assert_eq!(
                found.iter().map(|c| c.index).collect::<Vec<_>>(),
                [600],
                "{v}"
            );
        }
    }

    #[test]
    fn the_fast_scan_finds_the_split_summing_every_distance_finds() {
        let mut rng = Rng::new(11, 3);
        for trial in 0..200u64 {
            let len = 4 + (trial as usize % 37);
            // Ties too: every third series takes values from a handful of levels.
            let values: Vec<f64> = (0..len)
                .map(|_| {
                    let v = 1.0 + 0.3 * rng.normalish();
                    if trial % 3 == 0 {
                        (v * 4.0).round()
                    } else {
                        v * 100.0
                    }
                })
                .collect();
            let mut order: Vec<usize> = (0..len).collect();
            rng.shuffle(&mut order);
            let segment = Segment::new(&values);
            let fast = segment.best_split(&order, 2, &any).unwrap();
            let slow = naive_best_split(&values, &order, 2).unwrap();
            assert!(
                (fast.1 - slow.1).abs() <= 1e-9 * slow.1.abs().max(1.0),
                "trial {trial}: Q {} against {}",
                fast.1,
                slow.1
            );
            // With ties two splits can share the largest Q: the same Q is what matters.
            if trial % 3 != 0 {
                assert_eq!(fast.0, slow.0, "trial {trial}: {values:?} in {order:?}");
            }
        }
    }

    fn any(_: usize) -> bool {
        true
    }

    #[test]
    fn a_ten_percent_shift_in_five_percent_noise_is_found_where_it_is() {
        // 15 + 15 runs, the level 10 % higher from run 15. A shift of two standard
        // deviations cannot be placed exactly every time (any estimator misses by a run or two
        // now and then): it must be found nearly always, mostly at 15, nearly always within 2.
        let (mut found_it, mut exact, mut near) = (0, 0, 0);
        for seed in 0..100 {
            let v = series(&[(1000.0, 15), (1100.0, 15)], 0.05, seed);
            let found = detect(&v, Direction::HigherBetter, &any, &Options::default());
            let Some(c) = found.iter().min_by_key(|c| c.index.abs_diff(15)) else {
                continue;
            };
            found_it += 1;
            exact += usize::from(c.index == 15);
            near += usize::from(c.index.abs_diff(15) <= 2);
            assert_eq!(c.shift, Shift::Improvement, "seed {seed}: {found:?}");
            assert!(c.p_value < 0.05);
            if c.index == 15 {
                let size = c.size_pct.unwrap();
                assert!((3.0..20.0).contains(&size), "{size}");
                let i = c.interval.unwrap();
                assert!(
                    i.low_pct < size && size < i.high_pct && i.low_pct > 0.0,
                    "{c:?}"
                );
            }
        }
        assert!(found_it >= 90, "found in {found_it} of 100");
        assert!(exact >= 40, "exactly at 15 in {exact} of 100");
        assert!(near >= 85, "within 2 of 15 in {near} of 100");
        // The same for a latency: higher is a regression. Deterministic.
        let v = series(&[(10.0, 15), (11.0, 15)], 0.05, 3);
        let found = detect(&v, Direction::LowerBetter, &any, &Options::default());
        assert_eq!(found[0].index, 15);
        assert_eq!(found[0].shift, Shift::Regression);
        assert_eq!(
            found,
            detect(&v, Direction::LowerBetter, &any, &Options::default())
        );
    }

    #[test]
    fn pure_noise_gives_no_change_point_in_at_least_95_percent_of_seeds() {
        let mut alarms = 0;
        for seed in 0..100 {
            let v = series(&[(1000.0, 30)], 0.05, 1000 + seed);
            if !detect(&v, Direction::HigherBetter, &any, &Options::default()).is_empty() {
                alarms += 1;
            }
        }
        assert!(
            alarms <= 5,
            "{alarms} of 100 noise series had a change point"
        );
    }

    #[test]
    fn two_shifts_are_both_found() {
        // Up 15 % at 12, down to 5 % under the start at 24. Each further test may raise a
        // false alarm at the level alpha, so an extra point is allowed now and then.
        let (mut both, mut only_them) = (0, 0);
        for seed in 0..20 {
            let v = series(&[(1000.0, 12), (1150.0, 12), (950.0, 12)], 0.04, seed);
            let found = detect(&v, Direction::HigherBetter, &any, &Options::default());
            let near = |at: usize| found.iter().find(|c| c.index.abs_diff(at) <= 1);
            if let (Some(up), Some(down)) = (near(12), near(24)) {
                both += 1;
                only_them += usize::from(found.len() == 2);
                assert_eq!(up.shift, Shift::Improvement);
                assert_eq!(down.shift, Shift::Regression);
            }
        }
        assert!(both >= 18, "both shifts in {both} of 20");
        assert!(only_them >= 16, "exactly the two in {only_them} of 20");
    }

    #[test]
    fn a_level_starts_only_where_allowed() {
        // Three runs per version; the shift at run 9 (version 4 of 6).
        let v = series(&[(1000.0, 9), (800.0, 9)], 0.03, 5);
        let found = detect(
            &v,
            Direction::HigherBetter,
            &|i| i % 3 == 0,
            &Options::default(),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].index, 9);
        assert_eq!(found[0].shift, Shift::Regression);
        // Too short, a constant or a NaN: nothing.
        let o = Options::default();
        assert!(detect(&[1.0, 2.0, 3.0], Direction::Info, &any, &o).is_empty());
        assert!(detect(&[5.0; 20], Direction::Info, &any, &o).is_empty());
        assert!(detect(&[1.0, f64::NAN, 3.0, 4.0], Direction::Info, &any, &o).is_empty());
    }

    #[test]
    fn shifts_of_values_that_can_be_zero_are_relative_to_the_mean() {
        assert_eq!(relative_shift(&[0.0, 2.0], &[2.0, 4.0]), Some(200.0));
        let s = relative_shift(&[100.0, 100.0], &[110.0, 110.0]).unwrap();
        assert!((s - 10.0).abs() < 1e-9);
    }
}

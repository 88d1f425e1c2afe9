//! Many metrics, one verdict. A comparison judges some 80 metrics at once; at the 5 % level
//! each, two identical groups of runs would see about four "changes" by chance, and a gate
//! (`compare --fail-on-worse`, `check`) would fail one night in three for nothing. So the
//! metrics one contender is judged on are one family, and a change counts only when it stays
//! significant after Holm's step-down correction over that family: the chance that any metric
//! of two identical sides is called better or worse is then at most [`ALPHA`] (the
//! family-wise error rate), in every view alike (compare, check, report), so a figure's
//! verdict means the same wherever it is read. Holm, not Benjamini–Hochberg, for tables too:
//! one rule everywhere, and a table is read as a list of verdicts.
//!
//! The headline is what a run is for, so it is not one metric among 80: the correction is
//! Holm's weighted one, the headline weighing [`PRIMARY_SHARE`] of the family and the other
//! metrics sharing the rest. Its p-value is then at most doubled, where an even share would
//! multiply it by the family's size: three runs a side still see a real change of the headline
//! (a 12-metric ingest family: ×2 instead of ×12), and the family-wise error stays at most
//! [`ALPHA`] (weighted Holm keeps it for any weights).
//!
//! Error counts are not in the family: any rise in errors is worse, a rule and not a test.

use serde::Serialize;

/// The family-wise error rate a comparison keeps.
pub const ALPHA: f64 = 0.05;

/// The correction a comparison made, as the output and `--json` say it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Correction {
    /// `holm`.
    pub method: &'static str,
    /// The family-wise error rate kept.
    pub alpha: f64,
    /// Per contender: the metrics with a test in its family.
    pub family: Vec<usize>,
    /// The headline metric of the family, weighing [`PRIMARY_SHARE`] of it (`None`: every
    /// metric weighs the same).
    pub primary: Option<String>,
    /// The primary's share of the weight.
    pub primary_share: f64,
}

/// The share of the family's weight the headline metric carries (the rest share the other
/// part evenly): its p-value is at most doubled by the correction.
pub const PRIMARY_SHARE: f64 = 0.5;

/// Holm's adjusted p-values of `p`, in `p`'s order: sorted ascending, the `j`-th (from 0)
/// multiplied by `m − j`, each at least the one before, at most 1. A test is significant at
/// level α (family-wise) when its adjusted p-value is at most α.
pub fn holm(p: &[f64]) -> Vec<f64> {
    weighted_holm(p, &vec![1.0; p.len()])
}

/// Holm's weighted step-down (Holm 1979): the tests in order of `p / w`, each step's
/// `p / w` multiplied by the weight of the tests not yet rejected (itself included), each at
/// least the one before, at most 1; in `p`'s order. Equal weights give [`holm`]. Weights must
/// be positive; a test of zero weight could never be rejected and is given 1.
pub fn weighted_holm(p: &[f64], w: &[f64]) -> Vec<f64> {
    let m = p.len();
    let ratio = |i: usize| {
        if w[i] > 0.0 {
            p[i] / w[i]
        } else {
            f64::INFINITY
        }
    };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| ratio(a).total_cmp(&ratio(b)));
    let mut remaining: f64 = order.iter().map(|&i| w[i].max(0.0)).sum();
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for &i in &order {
        let step = if ratio(i).is_finite() {
            (ratio(i) * remaining).min(1.0)
        } else {
            1.0
        };
        running = running.max(step);
        adjusted[i] = running;
        remaining -= w[i].max(0.0);
    }
    adjusted
}

/// The weights of a family whose `primary` test (if any) carries [`PRIMARY_SHARE`] and the
/// `m − 1` others the rest evenly. A family of one, or one without a primary, weighs evenly.
pub fn primary_weights(m: usize, primary: Option<usize>) -> Vec<f64> {
    match primary {
        Some(k) if m > 1 && k < m => (0..m)
            .map(|i| {
                if i == k {
                    PRIMARY_SHARE
                } else {
                    (1.0 - PRIMARY_SHARE) / (m - 1) as f64
                }
            })
            .collect(),
        _ => vec![1.0; m],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holm_adjusts_as_the_step_down_procedure_does() {
        // Checked by hand: sorted 0.01, 0.02, 0.03, 0.04 × 4, 3, 2, 1 = 0.04, 0.06, 0.06, 0.04
        // → running max 0.04, 0.06, 0.06, 0.06.
        let a = holm(&[0.03, 0.01, 0.04, 0.02]);
        let want = [0.06, 0.04, 0.06, 0.06];
        for (x, y) in a.iter().zip(want) {
            assert!((x - y).abs() < 1e-12, "{a:?}");
        }
        assert_eq!(holm(&[0.5]), vec![0.5]);
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn weighted_holm_with_even_weights_is_holm_and_a_heavy_test_is_divided_by_its_share() {
        let p = [0.03, 0.01, 0.04, 0.02, 0.2];
        let even = weighted_holm(&p, &[2.0; 5]);
        for (x, y) in even.iter().zip(holm(&p)) {
            assert!((x - y).abs() < 1e-12, "{even:?}");
        }
        // By hand, weights 0.5 (the first) and 0.125 × 4: p/w = 0.06, 0.08, 0.32, 0.16, 1.6;
        // in that order × the weight left (1, 0.5, 0.375, 0.25, 0.125) = 0.06, 0.04, 0.06,
        // 0.08, 0.2 → running max 0.06, 0.06, 0.06, 0.08, 0.2.
        let w = primary_weights(5, Some(0));
        assert_eq!(w, vec![0.5, 0.125, 0.125, 0.125, 0.125]);
        let a = weighted_holm(&p, &w);
        let want = [0.06, 0.06, 0.08, 0.06, 0.2];
        for (x, y) in a.iter().zip(want) {
            assert!((x - y).abs() < 1e-12, "{a:?}");
        }
        // The primary of a family of 12 alone in its change: twice its p, not 12 times.
        let mut p = vec![0.6; 12];
        p[0] = 0.0074;
        let a = weighted_holm(&p, &primary_weights(12, Some(0)));
        assert!((a[0] - 0.0148).abs() < 1e-12, "{a:?}");
        assert!((holm(&p)[0] - 12.0 * 0.0074).abs() < 1e-12);
        assert_eq!(primary_weights(1, Some(0)), vec![1.0]);
        assert_eq!(primary_weights(3, None), vec![1.0; 3]);
        assert_eq!(weighted_holm(&[0.01, 0.02], &[0.0, 1.0]), vec![1.0, 0.02]);
    }
}

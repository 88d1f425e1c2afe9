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
}

/// Holm's adjusted p-values of `p`, in `p`'s order: sorted ascending, the `j`-th (from 0)
/// multiplied by `m − j`, each at least the one before, at most 1. A test is significant at
/// level α (family-wise) when its adjusted p-value is at most α.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (j, &i) in order.iter().enumerate() {
        running = running.max(((m - j) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
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
}

//! The accuracy row every workload fills for each of its variants: how many answers were
//! checked, how many were wrong and in what (the counters its checks use), and which checks
//! apply to it, so that every view shows a row in its workload's own terms.
//!
//! The row's fields are the stored form of results: `analysis::metrics` reads them as
//! `accuracy.<variant>.wrong` and `accuracy.<variant>.pct_max_err`.

use serde::{Deserialize, Serialize};

use super::variant::Variant;

/// One kind of check a workload makes on an answer (a column of its accuracy table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// The exact hit count (`count_wrong`).
    Count,
    /// Sums, to the last bits (`sum_wrong`).
    Sums,
    /// Percentiles within the algorithm's bound (`pct_*`, `bound`).
    Percentiles,
    /// The newest hits, in order (`hits_wrong`).
    NewestHits,
    /// The first ids the user expected (`hits_wrong`).
    FirstIds,
    /// Buckets of a bucket aggregation (`buckets_wrong`).
    Buckets,
    /// Aggregation values the user expected (`aggs_wrong`).
    Aggregations,
    /// k-NN hits that could be neighbours (`hits_wrong`: outside the filter, unknown,
    /// twice, past k), and their recall against the exact ones (`recall_*`).
    Neighbours,
}

impl Check {
    /// Every check, in the order tables show them.
    pub const ALL: [Check; 8] = [
        Check::Count,
        Check::Sums,
        Check::Percentiles,
        Check::NewestHits,
        Check::FirstIds,
        Check::Buckets,
        Check::Aggregations,
        Check::Neighbours,
    ];

    /// The wrong answers of this kind in `row` (percentiles: over the bound or null).
    pub fn wrong(self, row: &VariantAccuracy) -> u64 {
        match self {
            Check::Count => row.count_wrong,
            Check::Sums => row.sum_wrong,
            Check::Percentiles => row.pct_over_bound + row.pct_null,
            Check::NewestHits | Check::FirstIds | Check::Neighbours => row.hits_wrong,
            Check::Buckets => row.buckets_wrong,
            Check::Aggregations => row.aggs_wrong,
        }
    }

    /// The column heading of this check's wrong answers.
    pub fn heading(self) -> &'static str {
        match self {
            Check::Count => "wrong counts",
            Check::Sums => "wrong sums",
            Check::Percentiles => "percentiles over bound",
            Check::NewestHits => "wrong newest hits",
            Check::FirstIds => "wrong first ids",
            Check::Buckets => "wrong buckets",
            Check::Aggregations => "wrong aggregations",
            Check::Neighbours => "impossible neighbours",
        }
    }
}

/// Accuracy of one variant over all its answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VariantAccuracy {
    pub variant: Variant,
    /// The percentile algorithm (`t-digest`, `hdr`) when the variant asks for percentiles.
    pub algo: Option<String>,
    /// The largest accepted percentile error (a fraction of the exact value).
    pub bound: Option<f64>,
    pub answers: u64,
    pub count_wrong: u64,
    pub sum_wrong: u64,
    /// Percentile values compared.
    pub pct_values: u64,
    /// Percentile values the engine returned as null (failures).
    pub pct_null: u64,
    pub pct_over_bound: u64,
    pub pct_max_err: f64,
    pub pct_mean_err: f64,
    /// Largest error per percent asked for, in the order asked.
    pub pct_max_err_by_percent: [f64; 4],
    /// Answers whose hits (newest, or the first ids expected) were not the expected ones.
    #[serde(default)]
    pub hits_wrong: u64,
    /// Answers whose buckets were not the expected ones.
    #[serde(default)]
    pub buckets_wrong: u64,
    /// Answers whose aggregation value was not the expected one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub aggs_wrong: u64,
    /// k-NN answers whose recall was measured, the sum of their recall@k (the mean is
    /// [`VariantAccuracy::recall_mean`]; parts merge by adding both) and the lowest.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub recall_answers: u64,
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub recall_sum: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall_min: Option<f64>,
    /// The checks that apply to this variant (none: nothing was expected of it; absent in
    /// results stored before rows named them: see [`VariantAccuracy::checks_or_inferred`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<Check>>,
    #[serde(skip, default)]
    err_sum: f64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_f64(n: &f64) -> bool {
    *n == 0.0
}

impl VariantAccuracy {
    pub fn new(variant: Variant, checks: Vec<Check>) -> Self {
        VariantAccuracy {
            variant,
            algo: None,
            bound: None,
            answers: 0,
            count_wrong: 0,
            sum_wrong: 0,
            pct_values: 0,
            pct_null: 0,
            pct_over_bound: 0,
            pct_max_err: 0.0,
            pct_mean_err: 0.0,
            pct_max_err_by_percent: [0.0; 4],
            hits_wrong: 0,
            buckets_wrong: 0,
            aggs_wrong: 0,
            recall_answers: 0,
            recall_sum: 0.0,
            recall_min: None,
            checks: Some(checks),
            err_sum: 0.0,
        }
    }

    /// Records the recall@k of one answer (0 to 1).
    pub fn record_recall(&mut self, recall: f64) {
        self.recall_answers += 1;
        self.recall_sum += recall;
        self.recall_min = Some(self.recall_min.map_or(recall, |m| m.min(recall)));
    }

    /// The mean recall@k of the answers measured, if any were.
    pub fn recall_mean(&self) -> Option<f64> {
        (self.recall_answers > 0).then(|| self.recall_sum / self.recall_answers as f64)
    }

    /// A row of percentile checks with `algo`'s `bound`.
    pub fn with_percentiles(mut self, algo: &str, bound: f64) -> Self {
        self.algo = Some(algo.to_string());
        self.bound = Some(bound);
        self
    }

    /// Records the error of one percentile value (the `j`-th percent asked for); says
    /// whether it is within the bound.
    pub fn percentile_error(&mut self, j: usize, err: f64) -> bool {
        self.pct_values += 1;
        self.err_sum += err;
        self.pct_max_err = self.pct_max_err.max(err);
        if let Some(m) = self.pct_max_err_by_percent.get_mut(j) {
            *m = m.max(err);
        }
        let n = self.pct_values - self.pct_null;
        self.pct_mean_err = if n > 0 { self.err_sum / n as f64 } else { 0.0 };
        let within = self.bound.is_none_or(|b| err <= b) && !err.is_nan();
        if !within {
            self.pct_over_bound += 1;
        }
        within
    }

    /// Records a percentile value the engine returned as null.
    pub fn percentile_null(&mut self) {
        self.pct_values += 1;
        self.pct_null += 1;
    }

    /// Adds `other`'s answers (the same variant checked by another part of a run in parts):
    /// what one process checking every answer would have counted. The mean error is over the
    /// percentile values returned (not the nulls), as [`Self::percentile_error`] keeps it.
    pub fn add(&mut self, other: &VariantAccuracy) {
        let returned = |a: &VariantAccuracy| a.pct_values.saturating_sub(a.pct_null);
        let (mine, theirs) = (returned(self), returned(other));
        if mine + theirs > 0 {
            self.err_sum = self.pct_mean_err * mine as f64 + other.pct_mean_err * theirs as f64;
            self.pct_mean_err = self.err_sum / (mine + theirs) as f64;
        }
        self.pct_values += other.pct_values;
        self.pct_null += other.pct_null;
        self.pct_over_bound += other.pct_over_bound;
        self.pct_max_err = self.pct_max_err.max(other.pct_max_err);
        for (mine, theirs) in self
            .pct_max_err_by_percent
            .iter_mut()
            .zip(other.pct_max_err_by_percent)
        {
            *mine = mine.max(theirs);
        }
        self.answers += other.answers;
        self.count_wrong += other.count_wrong;
        self.sum_wrong += other.sum_wrong;
        self.hits_wrong += other.hits_wrong;
        self.buckets_wrong += other.buckets_wrong;
        self.aggs_wrong += other.aggs_wrong;
        self.recall_answers += other.recall_answers;
        self.recall_sum += other.recall_sum;
        self.recall_min = match (self.recall_min, other.recall_min) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
    }

    pub fn failed(&self) -> bool {
        self.count_wrong > 0
            || self.sum_wrong > 0
            || self.pct_over_bound > 0
            || self.pct_null > 0
            || self.hits_wrong > 0
            || self.buckets_wrong > 0
            || self.aggs_wrong > 0
    }

    /// The checks of this row; for a row stored before rows named them, the ones its
    /// variant's name and counters tell (the built-in variants of that time, and a queries
    /// file's expectations, `workload` `queries:…`).
    pub fn checks_or_inferred(&self, workload: &str) -> Vec<Check> {
        if let Some(checks) = &self.checks {
            return checks.clone();
        }
        let name = self.variant.name();
        let mut checks = vec![Check::Count];
        if ["B", "D_td", "D_hdr"].contains(&name) {
            checks.push(Check::Sums);
        }
        if self.algo.is_some() {
            checks.push(Check::Percentiles);
        }
        if workload.starts_with("queries:") {
            checks.extend([Check::FirstIds, Check::Aggregations]);
        } else {
            if name.ends_with("_s10") {
                checks.push(Check::NewestHits);
            }
            if name.starts_with("histogram_") || name.starts_with("top_hosts_") {
                checks.push(Check::Buckets);
            }
        }
        checks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_errors_count_against_the_bound() {
        let mut row = VariantAccuracy::new(Variant::new("C_hdr"), vec![Check::Percentiles])
            .with_percentiles("hdr", 0.02);
        assert!(row.percentile_error(1, 0.01));
        assert!(!row.percentile_error(2, 0.03));
        row.percentile_null();
        assert_eq!(
            (row.pct_values, row.pct_over_bound, row.pct_null),
            (3, 1, 1)
        );
        assert_eq!(row.pct_max_err_by_percent, [0.0, 0.01, 0.03, 0.0]);
        assert!((row.pct_mean_err - 0.02).abs() < 1e-12);
        assert!(row.failed());
        assert_eq!(Check::Percentiles.wrong(&row), 2);
    }

    /// Differential: the answers of one variant checked by one process, and the same
    /// answers split between parts whose rows are stored (JSON) and added, give the same row.
    #[test]
    fn rows_of_parts_added_are_the_row_of_one_process() {
        let mut rng = crate::rng::Rng::new(98, 3);
        for _ in 0..50 {
            let fresh = || {
                VariantAccuracy::new(Variant::new("C_td"), vec![Check::Percentiles])
                    .with_percentiles("t-digest", 0.01)
            };
            let parts = 1 + rng.below(4) as usize;
            let (mut one, mut each) = (fresh(), vec![fresh(); parts]);
            for _ in 0..rng.below(60) {
                let p = rng.below(parts as u64) as usize;
                for row in [&mut one, &mut each[p]] {
                    row.answers += 1;
                }
                match rng.below(10) {
                    0 => [&mut one, &mut each[p]].map(VariantAccuracy::percentile_null),
                    1 => [&mut one, &mut each[p]].map(|r| r.count_wrong += 1),
                    2 => [&mut one, &mut each[p]].map(|r| r.record_recall(0.9)),
                    _ => {
                        let (j, err) = (rng.below(4) as usize, rng.unit() * 0.02);
                        [&mut one, &mut each[p]].map(|r| {
                            r.percentile_error(j, err);
                        })
                    }
                };
            }
            let stored: Vec<VariantAccuracy> = each
                .iter()
                .map(|r| serde_json::from_value(serde_json::to_value(r).unwrap()).unwrap())
                .collect();
            let mut added = stored[0].clone();
            for r in &stored[1..] {
                added.add(r);
            }
            assert!((added.pct_mean_err - one.pct_mean_err).abs() < 1e-12);
            assert!((added.recall_sum - one.recall_sum).abs() < 1e-9);
            let shown = |r: &VariantAccuracy| {
                let mut v = serde_json::to_value(r).unwrap();
                for k in ["pct_mean_err", "recall_sum"] {
                    v[k] = serde_json::Value::Null;
                }
                v
            };
            assert_eq!(shown(&added), shown(&one));
        }
    }

    #[test]
    fn rows_stored_without_checks_get_them_from_their_names() {
        let row = |name: &str| {
            let mut row = VariantAccuracy::new(Variant::new(name), Vec::new());
            row.checks = None;
            row
        };
        assert_eq!(
            row("D_td")
                .with_percentiles("t-digest", 0.05)
                .checks_or_inferred("cluster-metrics"),
            [Check::Count, Check::Sums, Check::Percentiles]
        );
        assert_eq!(
            row("histogram_s10").checks_or_inferred("logs"),
            [Check::Count, Check::NewestHits, Check::Buckets]
        );
        assert_eq!(
            row("all_docs").checks_or_inferred("queries:shops"),
            [Check::Count, Check::FirstIds, Check::Aggregations]
        );
        let named = VariantAccuracy::new(Variant::new("x"), vec![Check::Buckets]);
        assert_eq!(named.checks_or_inferred("logs"), [Check::Buckets]);
        let unchecked = VariantAccuracy::new(Variant::new("x"), Vec::new());
        assert!(unchecked.checks_or_inferred("queries:q").is_empty());
    }
}

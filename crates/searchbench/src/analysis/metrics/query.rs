//! The metrics of a query result (`QueryResult`, alone or as a run's query phase), read back
//! as the type it was written with: per cell took and wall with one sample per coverage, the
//! failed searches, and per variant the wrong answers of its checks.

use serde_json::Value;

use super::MACHINE_PREFIX;
use super::{key_part, query_part, read, rows, Judged::*, Metric, Of::*, Row};
use crate::analysis::statistics::SampleKind::PerCoverage;
use crate::query::accuracy::VariantAccuracy;
use crate::query::cells::{CellResult, CoverageSample};
use crate::query::report::QueryResult;
use crate::query::{Transport, Variant};

/// A variant's checked answers: its percentiles' largest error (stored as a fraction of the
/// exact value, shown in percent everywhere) when it has any, its recall when it has any, and
/// its wrong answers, whatever check found them.
#[rustfmt::skip]
const ACCURACY: &[Row<VariantAccuracy>] = &[
    Row("pct_max_err", "largest percentile error", "%", Lower, One(|a| Some(a.pct_max_err * 100.0).filter(|_| a.algo.is_some()))),
    Row("recall", "recall@k (mean)", "", Higher, One(|a| a.recall_mean())),
    Row("recall_min", "recall@k (lowest)", "", Higher, One(|a| a.recall_mean().and(a.recall_min))),
    Row("wrong", "wrong answers", "", Errors, One(|a| Some(wrong_answers(a) as f64))),
];

/// The failed searches and wrong answers of the whole.
#[rustfmt::skip]
const TOTALS: &[Row<QueryResult>] = &[
    Row("errors.query.failed_searches", "errors: failed searches (all cells)", "", Errors, One(|r| Some(r.cells.iter().map(|c| c.errors as f64).sum()))),
    Row("errors.query.wrong_answers", "errors: wrong answers (all checks)", "", Errors, One(|r| Some(r.failures_total as f64))),
];

/// A cell's figures: took and wall, one sample per coverage answered, and its failed searches.
#[rustfmt::skip]
const CELL: &[Row<CellResult>] = &[
    Row("took_ms", "took per coverage", "ms", Lower, Sampled(PerCoverage, "", |c| answered(&c.samples, |s| s.took_ms as f64), |c| Some(c.took_ms.mean))),
    Row("wall_ms", "wall per coverage", "ms", Lower, Sampled(PerCoverage, "", |c| answered(&c.samples, |s| s.wall_ms), |c| Some(c.wall_ms.mean))),
    Row("errors", "failed searches", "", Errors, One(|c| Some(c.errors as f64))),
];

/// A cell of the cold pass (`--cold`): keys of its own, so a cold figure is only ever
/// compared with another cold one.
#[rustfmt::skip]
const COLD: &[Row<CellResult>] = &[
    Row("cold_wall_ms", "wall per coverage, cold", "ms", Lower, Sampled(PerCoverage, "", |c| answered(&c.samples, |s| s.wall_ms), |_| None)),
    Row("cold_errors", "failed searches, cold", "", Errors, One(|c| Some(c.errors as f64))),
];

/// A cell under write beside idle (`--beside-idle`): its halves under write, and the slowdown
/// the pairs of passes measured.
struct UnderWrite {
    of: crate::analysis::under_write::UnderWrite,
    /// The wall of each coverage answered under write.
    walls: Vec<f64>,
}

#[rustfmt::skip]
const UNDER_WRITE: &[Row<UnderWrite>] = &[
    Row("under_write_wall_ms", "wall per coverage, under write", "ms", Lower, Sampled(PerCoverage, "", |w| w.walls.clone(), |w| Some(w.of.write.mean_ms))),
    Row("under_write_slowdown_pct", "slower under write than idle", "%", Lower, One(|w| w.of.ratio.map(|x| (x - 1.0) * 100.0))),
    Row("under_write_errors", "failed searches, under write", "", Errors, One(|w| Some(w.of.errors as f64))),
];

/// The samples of the coverages answered.
fn answered(samples: &[CoverageSample], f: fn(&CoverageSample) -> f64) -> Vec<f64> {
    samples.iter().filter(|s| s.ok).map(f).collect()
}

pub(super) fn metrics(r: &Value, _: &[Value], out: &mut Vec<Metric>) {
    let Some(r) = query_part(r) else {
        return;
    };
    let Some(r) = read::<QueryResult>("query", r, out) else {
        return;
    };
    // A user's query names may hold spaces; a key does not.
    let named = |v: &Variant, t: Transport| {
        let (v, t) = (v.name(), t.name());
        (
            format!("query.{}.{}.", key_part(v), key_part(t)),
            format!("{v} {t}: "),
        )
    };
    for cell in &r.cells {
        let (mut key, mut label) = named(&cell.variant, cell.transport);
        // With shards as an axis (`--shards`) each count is a cell of its own.
        if let Some(n) = cell.shards {
            key = format!("{}shards{n}.", key);
            label = format!("{} at {n} shard(s): ", label.trim_end_matches(": "));
        }
        rows(cell, &key, &label, CELL, out);
    }
    for cell in &r.cold_cells {
        let (key, label) = named(&cell.variant, cell.transport);
        rows(cell, &key, &label, COLD, out);
    }
    for of in crate::analysis::under_write::of(&r) {
        let (key, label) = named(&of.variant, of.transport);
        let cell = r.write_cells.iter().find(|c| {
            c.variant == of.variant && c.transport == of.transport && c.shards == of.shards
        });
        let walls = cell.map(|c| answered(&c.samples, |s| s.wall_ms));
        let w = UnderWrite {
            of,
            walls: walls.unwrap_or_default(),
        };
        rows(&w, &key, &label, UNDER_WRITE, out);
    }
    for acc in &r.accuracy {
        let v = acc.variant.name();
        rows(
            acc,
            &format!("accuracy.{}.", key_part(v)),
            &format!("{v}: "),
            ACCURACY,
            out,
        );
    }
    // A run's load came first and keeps the machine's background of its own: one set of
    // `machine.*` a run, the load's (the phase that moves with a co-tenant the most).
    if let Some(b) = &r.background {
        if !out.iter().any(|m| m.key.starts_with(MACHINE_PREFIX)) {
            super::machine(b, out);
        }
    }
    rows(&r, "", "", TOTALS, out);
}

/// Every wrong answer of a variant, whatever check found it. Added without wrapping: a
/// stored count near `u64::MAX` is many wrong answers, never a few.
fn wrong_answers(a: &VariantAccuracy) -> u64 {
    [
        a.sum_wrong,
        a.pct_over_bound,
        a.pct_null,
        a.hits_wrong,
        a.buckets_wrong,
        a.aggs_wrong,
    ]
    .into_iter()
    .fold(a.count_wrong, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored run whose counts of wrong answers add past `u64::MAX` has the most wrong
    /// answers a count holds, never the few a wrapped sum would say.
    #[test]
    fn wrong_answers_near_the_top_of_a_count_do_not_wrap_to_none() {
        let mut a = VariantAccuracy::new(crate::query::Variant::new("C_td"), Vec::new());
        (a.count_wrong, a.sum_wrong, a.aggs_wrong) = (u64::MAX, 1, 1);
        assert_eq!(wrong_answers(&a), u64::MAX);
        (a.count_wrong, a.sum_wrong, a.aggs_wrong) = (2, 3, 4);
        assert_eq!(wrong_answers(&a), 9);
    }
}

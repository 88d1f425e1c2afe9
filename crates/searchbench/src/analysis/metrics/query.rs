//! The metrics of a query result (`QueryResult`, alone or as a run's query phase), read back
//! as the type it was written with: per cell took and wall with one sample per coverage, the
//! failed searches, and per variant the wrong answers of its checks.

use serde_json::Value;

use super::MACHINE_PREFIX;
use super::{figure, key_part, query_part, read, rows, sampled, Judged::*, Metric, Row};
use crate::analysis::statistics::SampleKind::PerCoverage;
use crate::query::accuracy::VariantAccuracy;
use crate::query::report::QueryResult;

/// A variant's checked answers: its percentiles' largest error (stored as a fraction of the
/// exact value, shown in percent everywhere) when it has any, its recall when it has any, and
/// its wrong answers, whatever check found them.
#[rustfmt::skip]
const ACCURACY: &[Row<VariantAccuracy>] = &[
    Row("pct_max_err", "largest percentile error", "%", Lower, |a| Some(a.pct_max_err * 100.0).filter(|_| a.algo.is_some())),
    Row("recall", "recall@k (mean)", "", Higher, |a| a.recall_mean()),
    Row("recall_min", "recall@k (lowest)", "", Higher, |a| a.recall_mean().and(a.recall_min)),
    Row("wrong", "wrong answers", "", Errors, |a| Some(wrong_answers(a) as f64)),
];

/// The failed searches and wrong answers of the whole.
#[rustfmt::skip]
const TOTALS: &[Row<QueryResult>] = &[
    Row("errors.query.failed_searches", "errors: failed searches (all cells)", "", Errors, |r| Some(r.cells.iter().map(|c| c.errors as f64).sum())),
    Row("errors.query.wrong_answers", "errors: wrong answers (all checks)", "", Errors, |r| Some(r.failures_total as f64)),
];

pub(super) fn metrics(r: &Value, _: &[Value], out: &mut Vec<Metric>) {
    let Some(r) = query_part(r) else {
        return;
    };
    let Some(r) = read::<QueryResult>("query", r, out) else {
        return;
    };
    for cell in &r.cells {
        let (v, t) = (cell.variant.name(), cell.transport.name());
        // A user's query names may hold spaces; a key does not.
        let (kv, mut kt) = (key_part(v), key_part(t));
        // With shards as an axis (`--shards`) each count is a cell of its own.
        let t = match cell.shards {
            Some(n) => {
                kt = format!("{kt}.shards{n}");
                format!("{t} at {n} shard(s)")
            }
            None => t.to_string(),
        };
        let ok: Vec<_> = cell.samples.iter().filter(|s| s.ok).collect();
        let took = ok.iter().map(|s| s.took_ms as f64).collect();
        let wall = ok.iter().map(|s| s.wall_ms).collect();
        for (field, label, samples, mean) in [
            ("took_ms", "took", took, cell.took_ms.mean),
            ("wall_ms", "wall", wall, cell.wall_ms.mean),
        ] {
            let key = format!("query.{kv}.{kt}.{field}");
            let label = format!("{v} {t}: {label} per coverage");
            let samples = (PerCoverage, samples, "");
            out.extend(sampled((&key, &label, "ms", Lower), samples, Some(mean)));
        }
        out.extend(figure(
            &format!("query.{kv}.{kt}.errors"),
            &format!("{v} {t}: failed searches"),
            "",
            Errors,
            Some(cell.errors as f64),
        ));
    }
    // The cold pass (`--cold`): its own keys, so a cold figure is only ever compared with
    // another cold one.
    for cell in &r.cold_cells {
        let (v, t) = (cell.variant.name(), cell.transport.name());
        let key = format!("query.{}.{}.cold_", key_part(v), key_part(t));
        let ok = cell.samples.iter().filter(|s| s.ok).map(|s| s.wall_ms);
        let label = format!("{v} {t}: wall per coverage, cold");
        let samples = (PerCoverage, ok.collect(), "");
        out.extend(sampled(
            (&format!("{key}wall_ms"), &label, "ms", Lower),
            samples,
            None,
        ));
        let label = format!("{v} {t}: failed searches, cold");
        let errors = Some(cell.errors as f64);
        out.extend(figure(&format!("{key}errors"), &label, "", Errors, errors));
    }
    // Under write beside idle (`--beside-idle`): the halves under write under keys of their
    // own, and the slowdown the pairs of passes measured.
    for w in crate::analysis::under_write::of(&r) {
        let (v, t) = (w.variant.name(), w.transport.name());
        let key = format!("query.{}.{}.under_write_", key_part(v), key_part(t));
        let cell = r
            .write_cells
            .iter()
            .find(|c| c.variant == w.variant && c.transport == w.transport && c.shards == w.shards);
        let ok = cell.into_iter().flat_map(|c| &c.samples).filter(|s| s.ok);
        let label = format!("{v} {t}: wall per coverage, under write");
        let samples = (PerCoverage, ok.map(|s| s.wall_ms).collect(), "");
        out.extend(sampled(
            (&format!("{key}wall_ms"), &label, "ms", Lower),
            samples,
            Some(w.write.mean_ms),
        ));
        out.extend(figure(
            &format!("{key}slowdown_pct"),
            &format!("{v} {t}: slower under write than idle"),
            "%",
            Lower,
            w.ratio.map(|x| (x - 1.0) * 100.0),
        ));
        let label = format!("{v} {t}: failed searches, under write");
        let errors = Some(w.errors as f64);
        out.extend(figure(&format!("{key}errors"), &label, "", Errors, errors));
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

/// Every wrong answer of a variant, whatever check found it.
fn wrong_answers(a: &VariantAccuracy) -> u64 {
    a.count_wrong
        + a.sum_wrong
        + a.pct_over_bound
        + a.pct_null
        + a.hits_wrong
        + a.buckets_wrong
        + a.aggs_wrong
}

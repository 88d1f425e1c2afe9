//! The metrics of a query result (`QueryResult`, alone or as a run's query phase), read back
//! as the type it was written with: per cell took and wall with one sample per coverage, the
//! failed searches, and per variant the wrong answers of its checks.

use serde_json::Value;

use super::{errors, key_part, point, read, sampled, Direction::*, Metric, MACHINE_PREFIX};
use crate::analysis::statistics::SampleKind;
use crate::query::accuracy::VariantAccuracy;
use crate::query::report::QueryResult;

pub(super) fn metrics(r: &Value, out: &mut Vec<Metric>) {
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
        for (field, label, samples, mean) in [
            (
                "took_ms",
                "took",
                ok.iter().map(|s| s.took_ms as f64).collect::<Vec<_>>(),
                cell.took_ms.mean,
            ),
            (
                "wall_ms",
                "wall",
                ok.iter().map(|s| s.wall_ms).collect(),
                cell.wall_ms.mean,
            ),
        ] {
            let key = format!("query.{kv}.{kt}.{field}");
            let label = format!("{v} {t}: {label} per coverage");
            out.extend(if samples.is_empty() {
                point(&key, &label, "ms", LowerBetter, Some(mean))
            } else {
                sampled(
                    &key,
                    &label,
                    "ms",
                    LowerBetter,
                    SampleKind::PerCoverage,
                    samples,
                )
            });
        }
        out.extend(errors(
            &format!("query.{kv}.{kt}.errors"),
            &format!("{v} {t}: failed searches"),
            Some(cell.errors as f64),
        ));
    }
    // The cold pass (`--cold`): its own keys, so a cold figure is only ever compared with
    // another cold one.
    for cell in &r.cold_cells {
        let (v, t) = (cell.variant.name(), cell.transport.name());
        let (kv, kt) = (key_part(v), key_part(t));
        let ok: Vec<f64> = cell
            .samples
            .iter()
            .filter(|s| s.ok)
            .map(|s| s.wall_ms)
            .collect();
        if !ok.is_empty() {
            out.extend(sampled(
                &format!("query.{kv}.{kt}.cold_wall_ms"),
                &format!("{v} {t}: wall per coverage, cold"),
                "ms",
                LowerBetter,
                SampleKind::PerCoverage,
                ok,
            ));
        }
        out.extend(errors(
            &format!("query.{kv}.{kt}.cold_errors"),
            &format!("{v} {t}: failed searches, cold"),
            Some(cell.errors as f64),
        ));
    }
    for acc in &r.accuracy {
        let v = acc.variant.name();
        let kv = key_part(v);
        if acc.algo.is_some() {
            out.extend(point(
                &format!("accuracy.{kv}.pct_max_err"),
                &format!("{v}: largest percentile error"),
                "%",
                LowerBetter,
                // Stored as a fraction of the exact value; shown in percent everywhere.
                Some(acc.pct_max_err * 100.0),
            ));
        }
        if let Some(recall) = acc.recall_mean() {
            out.extend(point(
                &format!("accuracy.{kv}.recall"),
                &format!("{v}: recall@k (mean)"),
                "",
                HigherBetter,
                Some(recall),
            ));
            out.extend(point(
                &format!("accuracy.{kv}.recall_min"),
                &format!("{v}: recall@k (lowest)"),
                "",
                HigherBetter,
                acc.recall_min,
            ));
        }
        out.extend(errors(
            &format!("accuracy.{kv}.wrong"),
            &format!("{v}: wrong answers"),
            Some(wrong_answers(acc) as f64),
        ));
    }
    // A run's load came first and keeps the machine's background of its own: one set of
    // `machine.*` a run, the load's (the phase that moves with a co-tenant the most).
    if let Some(b) = &r.background {
        if !out.iter().any(|m| m.key.starts_with(MACHINE_PREFIX)) {
            out.extend(super::machine(b));
        }
    }
    out.extend(errors(
        "errors.query.failed_searches",
        "errors: failed searches (all cells)",
        Some(r.cells.iter().map(|c| c.errors as f64).sum()),
    ));
    out.extend(errors(
        "errors.query.wrong_answers",
        "errors: wrong answers (all checks)",
        Some(r.failures_total as f64),
    ));
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

//! The telemetry figures of a result (GC, heap, rejections, merges), per phase: an ingest's
//! (or a query command's) under `telemetry.`, a run's query phase under `query.telemetry.`;
//! read back as the `measure::telemetry::Summary` they were written as.

use serde_json::Value;

use super::{read, rows, Judged::*, Metric, Of::*, Row};
use crate::analysis::statistics::SampleKind::PerSecond;
use crate::measure::telemetry::Summary;

pub(super) fn metrics(result: &Value, _: &[Value], out: &mut Vec<Metric>) {
    let own = result.get("telemetry");
    let query_phase = result
        .get("query")
        .filter(|q| q.is_object())
        .and_then(|q| q.get("telemetry"));
    for (prefix, label, t) in [("", "", own), ("query.", "query: ", query_phase)] {
        let Some(t) = t.filter(|t| t.is_object()) else {
            continue;
        };
        if let Some(t) = read::<Summary>(&format!("{prefix}telemetry"), t, out) {
            rows(&t, &format!("{prefix}telemetry."), label, TELEMETRY, out);
        }
    }
}

/// A phase's telemetry: the GC time per second (its seconds, or the whole's over its span),
/// the heap, the thread pools' rejections and the merges' throttling.
#[rustfmt::skip]
const TELEMETRY: &[Row<Summary>] = &[
    Row("gc_ms_per_s", "GC time per second (all nodes)", "ms/s", Lower, Sampled(PerSecond, "", |t| t.per_second.gc_ms.clone(), |t| Some(t.gc_secs? * 1000.0 / Some(t.span_secs).filter(|s| *s > 0.0)?))),
    Row("gc_share_pct", "GC share of wall (worst node)", "%", Lower, One(|t| Some(t.gc_share? * 100.0))),
    Row("old_gcs", "old-generation collections", "", Lower, One(|t| t.old_gcs)),
    Row("heap_peak_mb", "heap peak", "MB", Lower, One(|t| Some(t.heap_peak_bytes? / 1e6))),
    Row("heap_used_mb", "heap used (per-second, all nodes)", "MB", Lower, Sampled(PerSecond, "", |t| t.per_second.heap_used_mb.clone(), |_| None)),
    Row("write_rejections", "write thread pool rejections", "", Errors, One(|t| t.write_rejections)),
    Row("search_rejections", "search thread pool rejections", "", Errors, One(|t| t.search_rejections)),
    Row("merge_throttled_secs", "merges throttled", "s", Lower, One(|t| t.merge_throttled_secs)),
];

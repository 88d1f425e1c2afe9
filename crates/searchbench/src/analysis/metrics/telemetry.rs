//! The telemetry figures of a result (GC, heap, rejections, merges), per phase: an ingest's
//! (or a query command's) under `telemetry.`, a run's query phase under `query.telemetry.`;
//! read back as the `measure::telemetry::Summary` they were written as.

use serde_json::Value;

use super::{read, rows, sampled, Judged::*, Metric, Row};
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
            phase(&t, prefix, label, out);
        }
    }
}

#[rustfmt::skip]
const GC_AND_HEAP: &[Row<Summary>] = &[
    Row("gc_share_pct", "GC share of wall (worst node)", "%", Lower, |t| Some(t.gc_share? * 100.0)),
    Row("old_gcs", "old-generation collections", "", Lower, |t| t.old_gcs),
    Row("heap_peak_mb", "heap peak", "MB", Lower, |t| Some(t.heap_peak_bytes? / 1e6)),
];

#[rustfmt::skip]
const REJECTIONS_AND_MERGES: &[Row<Summary>] = &[
    Row("write_rejections", "write thread pool rejections", "", Errors, |t| t.write_rejections),
    Row("search_rejections", "search thread pool rejections", "", Errors, |t| t.search_rejections),
    Row("merge_throttled_secs", "merges throttled", "s", Lower, |t| t.merge_throttled_secs),
];

fn phase(t: &Summary, prefix: &str, label: &str, out: &mut Vec<Metric>) {
    let key = format!("{prefix}telemetry.");
    let span = Some(t.span_secs).filter(|s| *s > 0.0);
    let whole = t.gc_secs.zip(span).map(|(g, s)| g * 1000.0 / s);
    out.extend(sampled(
        (
            &format!("{key}gc_ms_per_s"),
            &format!("{label}GC time per second (all nodes)"),
            "ms/s",
            Lower,
        ),
        (PerSecond, t.per_second.gc_ms.clone(), ""),
        whole,
    ));
    rows(t, &key, label, GC_AND_HEAP, out);
    out.extend(sampled(
        (
            &format!("{key}heap_used_mb"),
            &format!("{label}heap used (per-second, all nodes)"),
            "MB",
            Lower,
        ),
        (PerSecond, t.per_second.heap_used_mb.clone(), ""),
        None,
    ));
    rows(t, &key, label, REJECTIONS_AND_MERGES, out);
}

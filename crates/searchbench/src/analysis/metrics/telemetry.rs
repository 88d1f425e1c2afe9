//! The telemetry figures of a result (GC, heap, rejections, merges), per phase: an ingest's
//! (or a query command's) under `telemetry.`, a run's query phase under `query.telemetry.`;
//! read back as the `measure::telemetry::Summary` they were written as.

use serde_json::Value;

use super::{errors, point, read, sampled, Direction::*, Metric};
use crate::analysis::statistics::SampleKind;
use crate::measure::telemetry::Summary;

pub(super) fn metrics(result: &Value, out: &mut Vec<Metric>) {
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

fn phase(t: &Summary, prefix: &str, label: &str, out: &mut Vec<Metric>) {
    let key = |k: &str| format!("{prefix}telemetry.{k}");
    let name = |l: &str| format!("{label}{l}");
    let span = Some(t.span_secs).filter(|s| *s > 0.0);
    let gc_key = key("gc_ms_per_s");
    let gc_name = name("GC time per second (all nodes)");
    out.extend(if t.per_second.gc_ms.is_empty() {
        point(
            &gc_key,
            &gc_name,
            "ms/s",
            LowerBetter,
            t.gc_secs.zip(span).map(|(g, s)| g * 1000.0 / s),
        )
    } else {
        sampled(
            &gc_key,
            &gc_name,
            "ms/s",
            LowerBetter,
            SampleKind::PerSecond,
            t.per_second.gc_ms.clone(),
        )
    });
    out.extend(point(
        &key("gc_share_pct"),
        &name("GC share of wall (worst node)"),
        "%",
        LowerBetter,
        t.gc_share.map(|s| s * 100.0),
    ));
    out.extend(point(
        &key("old_gcs"),
        &name("old-generation collections"),
        "",
        LowerBetter,
        t.old_gcs,
    ));
    out.extend(point(
        &key("heap_peak_mb"),
        &name("heap peak"),
        "MB",
        LowerBetter,
        t.heap_peak_bytes.map(|b| b / 1e6),
    ));
    if !t.per_second.heap_used_mb.is_empty() {
        out.extend(sampled(
            &key("heap_used_mb"),
            &name("heap used (per-second, all nodes)"),
            "MB",
            LowerBetter,
            SampleKind::PerSecond,
            t.per_second.heap_used_mb.clone(),
        ));
    }
    out.extend(errors(
        &key("write_rejections"),
        &name("write thread pool rejections"),
        t.write_rejections,
    ));
    out.extend(errors(
        &key("search_rejections"),
        &name("search thread pool rejections"),
        t.search_rejections,
    ));
    out.extend(point(
        &key("merge_throttled_secs"),
        &name("merges throttled"),
        "s",
        LowerBetter,
        t.merge_throttled_secs,
    ));
}

//! The metrics of an ingest result (`IngestReport`), read back typed: its parts are the types
//! it was written with (`measure::Summary`, `ingest::Counts`, `Requests`, `Cpu`,
//! `measure::Attribution`, `measure::TimelineRow`), so a renamed field is a compile error
//! here, not a missing metric.
//!
//! Throughput is the run's headline (`docs_per_sec`: documents acknowledged after the warm-up
//! ÷ the steady window), the same figure every view shows; it, MB/s and mean service time come
//! with per-second samples from the steady part of the timeline for their interval.

use serde::Deserialize;
use serde_json::Value;

use super::{
    errors, key_part, point, read, sampled, steady_seconds, Direction::*, Metric, THROUGHPUT,
};
use crate::analysis::statistics::SampleKind;
use crate::ingest::{Counts, Cpu, Requests};
use crate::measure::{Attribution, Summary, TimelineRow};

/// The metric of what a load left the target holding.
pub const KEPT_MB: &str = "kept_mb";

/// What an ingest result holds that its metrics read. The headline and the counts are what
/// make a result an ingest; the rest may be missing from older results.
#[derive(Debug, Deserialize)]
struct Ingest {
    docs_per_sec: f64,
    counts: Counts,
    #[serde(default)]
    mb_per_sec: Option<f64>,
    #[serde(default)]
    service: Summary,
    #[serde(default)]
    took: Summary,
    /// Set when the server's took moved in cached-clock steps.
    #[serde(default)]
    took_clock_ms: Option<u64>,
    #[serde(default)]
    requests: Option<Requests>,
    #[serde(default)]
    cpu: Option<Cpu>,
    #[serde(default)]
    attribution: Option<Attribution>,
    #[serde(default)]
    background: Option<crate::measure::background::Background>,
    #[serde(default)]
    server_stats: Option<crate::cluster::IndexStats>,
}

pub(super) fn metrics(r: &Value, timeline: &[Value], out: &mut Vec<Metric>) {
    let Some(r) = read::<Ingest>("ingest", r, out) else {
        return;
    };
    let steady: Vec<TimelineRow> = steady_seconds(timeline)
        .iter()
        .filter_map(|s| TimelineRow::deserialize(s).ok())
        .collect();
    let col = |f: fn(&TimelineRow) -> f64| -> Vec<f64> { steady.iter().map(f).collect() };
    // The value is the headline; the steady seconds give its interval.
    let docs = col(|s| s.docs as f64);
    out.extend(if docs.is_empty() {
        point(
            THROUGHPUT,
            "throughput (headline)",
            "docs/s",
            HigherBetter,
            Some(r.docs_per_sec),
        )
    } else {
        sampled(
            THROUGHPUT,
            "throughput (headline)",
            "docs/s",
            HigherBetter,
            SampleKind::PerSecond,
            docs,
        )
        .map(|mut m| {
            m.value = r.docs_per_sec;
            m
        })
    });
    let mb = col(|s| s.bytes as f64 / 1_000_000.0);
    out.extend(if mb.is_empty() {
        point(
            "mb_per_sec",
            "bulk bytes",
            "MB/s",
            HigherBetter,
            r.mb_per_sec,
        )
    } else {
        sampled(
            "mb_per_sec",
            "bulk bytes (per-second mean)",
            "MB/s",
            HigherBetter,
            SampleKind::PerSecond,
            mb,
        )
    });
    // Seconds without a completed request have no service time.
    let busy: Vec<f64> = steady
        .iter()
        .filter(|s| s.requests > 0)
        .map(|s| s.service_mean_ms)
        .collect();
    out.extend(if busy.is_empty() {
        point(
            "service_mean_ms",
            "service time mean",
            "ms",
            LowerBetter,
            r.service.mean_ms,
        )
    } else {
        sampled(
            "service_mean_ms",
            "service time mean (per-second)",
            "ms",
            LowerBetter,
            SampleKind::PerSecond,
            busy,
        )
    });
    let s = &r.service;
    for (k, label, v) in [
        ("p50_ms", "service time p50", s.p50_ms),
        ("p90_ms", "service time p90", s.p90_ms),
        ("p99_ms", "service time p99", s.p99_ms),
        ("p999_ms", "service time p99.9", s.p999_ms),
        ("max_ms", "service time max", s.max_ms),
    ] {
        out.extend(point(&format!("service_{k}"), label, "ms", LowerBetter, v));
    }
    // A took that moved in cached-clock steps has no per-request percentiles to compare.
    if r.took_clock_ms.is_none() {
        for (k, label, v) in [
            ("p50_ms", "server took p50", r.took.p50_ms),
            ("p99_ms", "server took p99", r.took.p99_ms),
        ] {
            out.extend(point(&format!("took_{k}"), label, "ms", LowerBetter, v));
        }
    }
    // Error rate: failed attempts / attempts, per second where there are requests.
    let per_second_errors: Vec<f64> = steady
        .iter()
        .filter(|s| s.requests > 0)
        .map(|s| s.failed_attempts as f64 / s.requests as f64 * 100.0)
        .collect();
    let overall = r.requests.as_ref().and_then(|q| {
        (q.attempts > 0).then(|| q.failed_attempts as f64 / q.attempts as f64 * 100.0)
    });
    out.extend(if per_second_errors.is_empty() {
        point(
            "error_rate_pct",
            "failed attempts",
            "%",
            LowerBetter,
            overall,
        )
    } else {
        sampled(
            "error_rate_pct",
            "failed attempts (per-second)",
            "%",
            LowerBetter,
            SampleKind::PerSecond,
            per_second_errors,
        )
    });
    let c = &r.counts;
    for (key, label, n) in [
        (
            "errors.ingest.unacknowledged",
            "errors: documents of failed bulk requests",
            c.unacknowledged,
        ),
        (
            "errors.ingest.not_sent",
            "errors: documents never sent (the run stopped first)",
            c.not_sent,
        ),
        (
            "errors.ingest.refused",
            "errors: documents refused (item failures)",
            c.refused,
        ),
    ] {
        out.extend(errors(key, label, Some(n as f64)));
    }
    if let Some(cpu) = &r.cpu {
        out.extend(point(
            "driver_cpu_secs_per_million_docs",
            "driver CPU per million docs",
            "s",
            LowerBetter,
            cpu.driver_secs_per_million_docs,
        ));
        out.extend(point(
            "engine_cpu_share",
            "engine CPU share of machine",
            "%",
            Info,
            cpu.engine_machine_share.map(|x| x * 100.0),
        ));
        // The engine's work per document: on a machine shared with other processes it moves
        // less than the rate does (a co-tenant slows the load, not the work a document needs).
        out.extend(point(
            "engine_cpu_us_per_doc",
            "engine CPU per document",
            "µs",
            LowerBetter,
            cpu.engine_secs
                .filter(|_| r.counts.indexed > 0)
                .map(|s| s * 1e6 / r.counts.indexed as f64),
        ));
    }
    if let Some(b) = &r.background {
        out.extend(super::machine(b));
    }
    // Left out when not read (older results, a cluster that hid its store).
    if let Some(s) = r.server_stats.filter(|s| s.store_bytes > 0) {
        out.extend(point(
            KEPT_MB,
            "data kept after the load (the index's store; the sketch store's memory)",
            "MB",
            Info,
            Some(s.store_bytes as f64 / 1e6),
        ));
    }
    if let Some(a) = &r.attribution {
        for (section, rows) in [("budget", &a.budget), ("background", &a.background)] {
            for row in rows {
                out.extend(point(
                    &format!("attribution.{section}.{}", key_part(&row.name)),
                    &format!("attribution: {} (share of wall)", row.name),
                    "%",
                    Info,
                    Some(row.share * 100.0),
                ));
            }
        }
    }
}

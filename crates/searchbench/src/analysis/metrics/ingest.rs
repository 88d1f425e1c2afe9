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
    is_ingest, key_part, read, rows, sampled, steady_seconds, Judged::*, Metric, Row, THROUGHPUT,
};
use crate::analysis::statistics::SampleKind::PerSecond;
use crate::ingest::freshness::Freshness;
use crate::ingest::{Counts, Cpu, Requests};
use crate::measure::{Attribution, Summary, TimelineRow};

/// The metric of what a load left the target holding.
pub const KEPT_MB: &str = "kept_mb";

/// What an ingest result holds that its metrics read. The headline and the counts are what
/// make a result an ingest (`is_ingest` asks for both before it is read); the rest may be
/// missing from older results.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Ingest {
    docs_per_sec: f64,
    counts: Counts,
    mb_per_sec: Option<f64>,
    service: Summary,
    took: Summary,
    /// Set when the server's took moved in cached-clock steps.
    took_clock_ms: Option<u64>,
    requests: Option<Requests>,
    cpu: Option<Cpu>,
    attribution: Option<Attribution>,
    background: Option<crate::measure::background::Background>,
    server_stats: Option<crate::cluster::IndexStats>,
    freshness: Option<Freshness>,
}

/// The service time's percentiles, and the server's took unless it moved in cached-clock steps
/// (then it has no per-request percentiles to compare).
#[rustfmt::skip]
const LATENCY: &[Row<Ingest>] = &[
    Row("service_p50_ms", "service time p50", "ms", Lower, |r| r.service.p50_ms),
    Row("service_p90_ms", "service time p90", "ms", Lower, |r| r.service.p90_ms),
    Row("service_p99_ms", "service time p99", "ms", Lower, |r| r.service.p99_ms),
    Row("service_p999_ms", "service time p99.9", "ms", Lower, |r| r.service.p999_ms),
    Row("service_max_ms", "service time max", "ms", Lower, |r| r.service.max_ms),
    Row("took_p50_ms", "server took p50", "ms", Lower, |r| r.steps_free(r.took.p50_ms)),
    Row("took_p99_ms", "server took p99", "ms", Lower, |r| r.steps_free(r.took.p99_ms)),
];

/// The documents lost, and the CPU: the driver's, the engine's share of the machine, and the
/// engine's work per document (on a machine shared with other processes it moves less than
/// the rate does: a co-tenant slows the load, not the work a document needs).
#[rustfmt::skip]
const LOST_AND_CPU: &[Row<Ingest>] = &[
    Row("errors.ingest.unacknowledged", "errors: documents of failed bulk requests", "", Errors, |r| Some(r.counts.unacknowledged as f64)),
    Row("errors.ingest.not_sent", "errors: documents never sent (the run stopped first)", "", Errors, |r| Some(r.counts.not_sent as f64)),
    Row("errors.ingest.refused", "errors: documents refused (item failures)", "", Errors, |r| Some(r.counts.refused as f64)),
    Row("driver_cpu_secs_per_million_docs", "driver CPU per million docs", "s", Lower, |r| r.cpu.as_ref()?.driver_secs_per_million_docs),
    Row("engine_cpu_share", "engine CPU share of machine", "%", Info, |r| Some(r.cpu.as_ref()?.engine_machine_share? * 100.0)),
    Row("engine_cpu_us_per_doc", "engine CPU per document", "µs", Lower, |r| r.engine_us_per_doc()),
];

/// How soon the acknowledged documents were searchable (left out when the load was not
/// probed; a lag left out when no document became searchable, the share then 100 %): a
/// load's, and a track's bulk's (`track::metrics`).
#[rustfmt::skip]
pub(super) const SEARCHABLE: &[Row<Freshness>] = &[
    Row("searchable_p50_s", "time to searchable p50", "s", Lower, |f| f.p50_secs),
    Row("searchable_p99_s", "time to searchable p99", "s", Lower, |f| f.p99_secs),
    Row("searchable_max_s", "time to searchable max", "s", Lower, |f| f.max_secs),
    Row("not_searchable_pct", "documents not searchable within the bound", "%", Lower, |f| f.unseen_pct()),
    Row("searchable_primary_p99_s", "time to searchable on the primaries p99", "s", Lower, |f| f.p99_on("primary")),
    Row("searchable_replica_p99_s", "time to searchable on the replicas p99", "s", Lower, |f| f.p99_on("replica")),
];

/// What the load left the target holding: left out when not read (older results, a cluster
/// that hid its store).
#[rustfmt::skip]
const KEPT: &[Row<Ingest>] = &[
    Row(KEPT_MB, "data kept after the load (the index's store; the sketch store's memory)", "MB", Info,
        |r| Some(r.server_stats.as_ref()?.store_bytes as f64 / 1e6).filter(|mb| *mb > 0.0)),
];

impl Ingest {
    fn steps_free(&self, took: Option<f64>) -> Option<f64> {
        took.filter(|_| self.took_clock_ms.is_none())
    }

    fn engine_us_per_doc(&self) -> Option<f64> {
        let indexed = Some(self.counts.indexed).filter(|n| *n > 0)? as f64;
        Some(self.cpu.as_ref()?.engine_secs? * 1e6 / indexed)
    }
}

pub(super) fn metrics(r: &Value, timeline: &[Value], out: &mut Vec<Metric>) {
    if !is_ingest(r) {
        return;
    }
    let Some(r) = read::<Ingest>("ingest", r, out) else {
        return;
    };
    let steady: Vec<TimelineRow> = steady_seconds(timeline)
        .iter()
        .filter_map(|s| TimelineRow::deserialize(s).ok())
        .collect();
    let col = |f: fn(&TimelineRow) -> f64| -> Vec<f64> { steady.iter().map(f).collect() };
    // Seconds without a completed request have no service time nor error rate.
    let busy = |f: fn(&TimelineRow) -> f64| -> Vec<f64> {
        steady.iter().filter(|s| s.requests > 0).map(f).collect()
    };
    // The value is the headline; the steady seconds give its interval.
    let docs = (PerSecond, col(|s| s.docs as f64), "");
    let headline = Some(r.docs_per_sec);
    out.extend(
        sampled(
            (THROUGHPUT, "throughput (headline)", "docs/s", Higher),
            docs,
            headline,
        )
        .map(|mut m| {
            m.value = r.docs_per_sec;
            m
        }),
    );
    let mb = (
        PerSecond,
        col(|s| s.bytes as f64 / 1e6),
        " (per-second mean)",
    );
    out.extend(sampled(
        ("mb_per_sec", "bulk bytes", "MB/s", Higher),
        mb,
        r.mb_per_sec,
    ));
    let service = (PerSecond, busy(|s| s.service_mean_ms), " (per-second)");
    let whole = r.service.mean_ms;
    out.extend(sampled(
        ("service_mean_ms", "service time mean", "ms", Lower),
        service,
        whole,
    ));
    rows(&r, "", "", LATENCY, out);
    // Error rate: failed attempts / attempts.
    let failed = |s: &TimelineRow| s.failed_attempts as f64 / s.requests as f64 * 100.0;
    let per_second = (PerSecond, busy(failed), " (per-second)");
    let q = r.requests.as_ref().filter(|q| q.attempts > 0);
    let whole = q.map(|q| q.failed_attempts as f64 / q.attempts as f64 * 100.0);
    out.extend(sampled(
        ("error_rate_pct", "failed attempts", "%", Lower),
        per_second,
        whole,
    ));
    rows(&r, "", "", LOST_AND_CPU, out);
    if let Some(b) = &r.background {
        super::machine(b, out);
    }
    rows(&r, "", "", KEPT, out);
    if let Some(f) = &r.freshness {
        rows(f, "", "", SEARCHABLE, out);
    }
    if let Some(a) = &r.attribution {
        for (section, rows) in [("budget", &a.budget), ("background", &a.background)] {
            for row in rows {
                out.extend(super::figure(
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

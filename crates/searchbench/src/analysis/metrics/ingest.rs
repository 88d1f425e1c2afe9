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

use super::THROUGHPUT;
use super::{is_ingest, key_part, read, rows, steady_seconds, Judged::*, Metric, Of::*, Row};
use crate::analysis::statistics::SampleKind::PerSecond;
use crate::ingest::freshness::Freshness;
use crate::ingest::stored::StoredLoad;
use crate::measure::TimelineRow;

/// The metric of what a load left the target holding.
pub const KEPT_MB: &str = "kept_mb";

/// A stored load (the headline and the counts make a result one: `is_ingest` asks for both
/// before it is read), with the steady seconds of its timeline (see `steady_seconds`).
struct Ingest {
    load: StoredLoad,
    steady: Vec<TimelineRow>,
}

impl std::ops::Deref for Ingest {
    type Target = StoredLoad;

    fn deref(&self) -> &StoredLoad {
        &self.load
    }
}

/// The headline, the bytes and the service time, each with its steady seconds for its
/// interval (the headline's value is its own: documents after the warm-up ÷ the steady window).
#[rustfmt::skip]
const PER_SECOND: &[Row<Ingest>] = &[
    Row(THROUGHPUT, "throughput (headline)", "docs/s", Higher, Headline(PerSecond, |r| r.each(|s| s.docs as f64), |r| Some(r.docs_per_sec))),
    Row("mb_per_sec", "bulk bytes", "MB/s", Higher, Sampled(PerSecond, " (per-second mean)", |r| r.each(|s| s.bytes as f64 / 1e6), |r| r.mb_per_sec)),
    Row("service_mean_ms", "service time mean", "ms", Lower, Sampled(PerSecond, " (per-second)", |r| r.busy(|s| s.service_mean_ms), |r| r.service.mean_ms)),
];

/// Failed attempts ÷ attempts, per busy second and for the whole.
#[rustfmt::skip]
const ERROR_RATE: &[Row<Ingest>] = &[
    Row("error_rate_pct", "failed attempts", "%", Lower, Sampled(PerSecond, " (per-second)", |r| r.busy(|s| s.failed_attempts as f64 / s.requests as f64 * 100.0), |r| r.error_rate())),
];

/// The service time's percentiles, and the server's took unless it moved in cached-clock steps
/// (then it has no per-request percentiles to compare).
#[rustfmt::skip]
const LATENCY: &[Row<Ingest>] = &[
    Row("service_p50_ms", "service time p50", "ms", Lower, One(|r| r.service.p50_ms)),
    Row("service_p90_ms", "service time p90", "ms", Lower, One(|r| r.service.p90_ms)),
    Row("service_p99_ms", "service time p99", "ms", Lower, One(|r| r.service.p99_ms)),
    Row("service_p999_ms", "service time p99.9", "ms", Lower, One(|r| r.service.p999_ms)),
    Row("service_max_ms", "service time max", "ms", Lower, One(|r| r.service.max_ms)),
    Row("took_p50_ms", "server took p50", "ms", Lower, One(|r| r.steps_free(r.took.p50_ms))),
    Row("took_p99_ms", "server took p99", "ms", Lower, One(|r| r.steps_free(r.took.p99_ms))),
];

/// The documents lost, and the CPU: the driver's, the engine's share of the machine, and the
/// engine's work per document (on a machine shared with other processes it moves less than
/// the rate does: a co-tenant slows the load, not the work a document needs).
#[rustfmt::skip]
const LOST_AND_CPU: &[Row<Ingest>] = &[
    Row("errors.ingest.unacknowledged", "errors: documents of failed bulk requests", "", Errors, One(|r| Some(r.counts.unacknowledged as f64))),
    Row("errors.ingest.not_sent", "errors: documents never sent (the run stopped first)", "", Errors, One(|r| Some(r.counts.not_sent as f64))),
    Row("errors.ingest.refused", "errors: documents refused (item failures)", "", Errors, One(|r| Some(r.counts.refused as f64))),
    Row("driver_cpu_secs_per_million_docs", "driver CPU per million docs", "s", Lower, One(|r| r.cpu.driver_secs_per_million_docs)),
    Row("engine_cpu_share", "engine CPU share of machine", "%", Info, One(|r| Some(r.cpu.engine_machine_share? * 100.0))),
    Row("engine_cpu_us_per_doc", "engine CPU per document", "µs", Lower, One(|r| r.engine_us_per_doc())),
];

/// How soon the acknowledged documents were searchable (left out when the load was not
/// probed; a lag left out when no document became searchable, the share then 100 %): a
/// load's, and a track's bulk's (`track::metrics`).
#[rustfmt::skip]
pub(super) const SEARCHABLE: &[Row<Freshness>] = &[
    Row("searchable_p50_s", "time to searchable p50", "s", Lower, One(|f| f.p50_secs)),
    Row("searchable_p99_s", "time to searchable p99", "s", Lower, One(|f| f.p99_secs)),
    Row("searchable_max_s", "time to searchable max", "s", Lower, One(|f| f.max_secs)),
    Row("not_searchable_pct", "documents not searchable within the bound", "%", Lower, One(|f| f.unseen_pct())),
    Row("searchable_primary_p99_s", "time to searchable on the primaries p99", "s", Lower, One(|f| f.p99_on("primary"))),
    Row("searchable_replica_p99_s", "time to searchable on the replicas p99", "s", Lower, One(|f| f.p99_on("replica"))),
];

/// What the load left the target holding: left out when not read (older results, a cluster
/// that hid its store).
#[rustfmt::skip]
const KEPT: &[Row<Ingest>] = &[
    Row(KEPT_MB, "data kept after the load (the index's store; the sketch store's memory)", "MB", Info,
        One(|r| Some(r.server_stats.as_ref()?.store_bytes as f64 / 1e6).filter(|mb| *mb > 0.0))),
];

impl Ingest {
    fn each(&self, f: fn(&TimelineRow) -> f64) -> Vec<f64> {
        self.steady.iter().map(f).collect()
    }

    /// Seconds without a completed request have no service time nor error rate.
    fn busy(&self, f: fn(&TimelineRow) -> f64) -> Vec<f64> {
        self.steady
            .iter()
            .filter(|s| s.requests > 0)
            .map(f)
            .collect()
    }

    fn error_rate(&self) -> Option<f64> {
        let q = Some(&self.requests).filter(|q| q.attempts > 0)?;
        Some(q.failed_attempts as f64 / q.attempts as f64 * 100.0)
    }

    fn steps_free(&self, took: Option<f64>) -> Option<f64> {
        took.filter(|_| self.took_clock_ms.is_none())
    }

    fn engine_us_per_doc(&self) -> Option<f64> {
        let indexed = Some(self.counts.indexed).filter(|n| *n > 0)? as f64;
        Some(self.cpu.engine_secs? * 1e6 / indexed)
    }
}

pub(super) fn metrics(r: &Value, timeline: &[Value], out: &mut Vec<Metric>) {
    if !is_ingest(r) {
        return;
    }
    let Some(load) = read::<StoredLoad>("ingest", r, out) else {
        return;
    };
    let steady = steady_seconds(timeline).iter();
    let steady = steady.filter_map(|s| TimelineRow::deserialize(s).ok());
    let r = Ingest {
        load,
        steady: steady.collect(),
    };
    rows(&r, "", "", PER_SECOND, out);
    rows(&r, "", "", LATENCY, out);
    rows(&r, "", "", ERROR_RATE, out);
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

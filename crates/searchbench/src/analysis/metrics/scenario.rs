//! The metrics of the many-shards and snapshots scenarios, of the searches that ran beside a
//! load, and of `dates cost`, each part read back as the type it was written with
//! (`workload::scenario_result`, `query::beside::SearchesBeside`, `experiment::dates::Measure`).

use serde::Deserialize;
use serde_json::Value;

use super::{errors, point, read, sampled, Direction::*, Metric};
use crate::analysis::statistics::SampleKind;
use crate::experiment::dates::Measure;
use crate::query::beside::SearchesBeside;
use crate::workload::scenario_result::{Creation, Latency, Snapshots};

/// What a scenario result holds that its metrics read.
#[derive(Debug, Deserialize)]
struct Scenario {
    #[serde(default)]
    creation: Option<Creation>,
    #[serde(default)]
    indexing: Option<Indexing>,
    #[serde(default)]
    field_caps: Option<Latency>,
    #[serde(default)]
    snapshots: Option<Snapshots>,
}

/// The logs load of many-shards: an ingest, of which the headline is read here.
#[derive(Debug, Deserialize)]
struct Indexing {
    docs_per_sec: f64,
}

/// The searches that ran beside a load (of an ingest or run, or of the many-shards logs
/// phase), then the scenario's own figures.
pub(super) fn scenario_and_beside(r: &Value, out: &mut Vec<Metric>) {
    let beside = r
        .get("searches_beside")
        .or_else(|| r.get("indexing")?.get("searches_beside"))
        .filter(|b| b.is_object());
    if let Some(b) = beside.and_then(|b| read::<SearchesBeside>("searches beside", b, out)) {
        let ms = |us: u64| Some(us as f64 / 1000.0);
        out.extend(
            [
                point(
                    "beside.searches_per_sec",
                    "searches beside the load: searches/s",
                    "/s",
                    HigherBetter,
                    Some(b.searches_per_sec),
                ),
                point(
                    "beside.latency_p50_ms",
                    "searches beside the load: latency p50",
                    "ms",
                    LowerBetter,
                    ms(b.latency.p50_us),
                ),
                point(
                    "beside.latency_p99_ms",
                    "searches beside the load: latency p99",
                    "ms",
                    LowerBetter,
                    ms(b.latency.p99_us),
                ),
                errors(
                    "beside.errors",
                    "searches beside the load: failed",
                    Some(b.errors as f64),
                ),
            ]
            .into_iter()
            .flatten(),
        );
    }
    if r.get("scenario").and_then(Value::as_str).is_none() {
        return;
    }
    let Some(s) = read::<Scenario>("scenario", r, out) else {
        return;
    };
    if let Some(c) = &s.creation {
        let last_state_mb = c.cluster_state.last().map(|s| s.bytes as f64 / 1e6);
        out.extend(
            [
                point(
                    "creation.indices_per_sec",
                    "index creation: indices/s",
                    "/s",
                    HigherBetter,
                    Some(c.indices_per_sec),
                ),
                point(
                    "creation.docs_per_sec",
                    "index creation: docs/s",
                    "docs/s",
                    HigherBetter,
                    Some(c.docs_per_sec),
                ),
                point(
                    "creation.last_tenth_indices_per_sec",
                    "index creation: indices/s over the last tenth",
                    "/s",
                    HigherBetter,
                    Some(c.last_tenth_indices_per_sec),
                ),
                point(
                    "creation.create_p99_ms",
                    "index creation: create request p99",
                    "ms",
                    LowerBetter,
                    Some(c.create_ms.p99_us as f64 / 1000.0),
                ),
                errors(
                    "creation.errors",
                    "index creation: errors",
                    Some(c.errors as f64),
                ),
                point(
                    "cluster_state_mb",
                    "cluster state at the end of creation",
                    "MB",
                    Info,
                    last_state_mb,
                ),
            ]
            .into_iter()
            .flatten(),
        );
    }
    if let Some(i) = &s.indexing {
        out.extend(point(
            "indexing.docs_per_sec",
            "logs indexing with searches beside: docs/s",
            "docs/s",
            HigherBetter,
            Some(i.docs_per_sec),
        ));
    }
    if let Some(f) = &s.field_caps {
        out.extend(
            [
                point(
                    "field_caps.p50_ms",
                    "field caps p50",
                    "ms",
                    LowerBetter,
                    Some(f.p50_ms),
                ),
                point(
                    "field_caps.p99_ms",
                    "field caps p99",
                    "ms",
                    LowerBetter,
                    Some(f.p99_ms),
                ),
                errors(
                    "field_caps.errors",
                    "field caps: failed",
                    Some(f.errors as f64),
                ),
            ]
            .into_iter()
            .flatten(),
        );
    }
    if let Some(sn) = &s.snapshots {
        out.extend(
            [
                point(
                    "snapshots.create_mean_ms",
                    "create snapshot: mean service time",
                    "ms",
                    LowerBetter,
                    Some(sn.create.mean_ms),
                ),
                point(
                    "snapshots.create_p99_ms",
                    "create snapshot: p99 service time",
                    "ms",
                    LowerBetter,
                    Some(sn.create.p99_ms),
                ),
                point(
                    "snapshots.wait_secs",
                    "snapshots: wait after the last create",
                    "s",
                    LowerBetter,
                    Some(sn.wait_secs),
                ),
                point(
                    "snapshots.total_secs",
                    "snapshots: all done after the first create",
                    "s",
                    LowerBetter,
                    Some(sn.total_secs),
                ),
                point(
                    "snapshots.gc_ms",
                    "snapshots: GC time of the nodes",
                    "ms",
                    LowerBetter,
                    sn.gc_ms.map(|g| g as f64),
                ),
                errors(
                    "snapshots.failures",
                    "snapshots not SUCCESS",
                    Some(sn.failures as f64),
                ),
                point(
                    "snapshots.error_rate",
                    "snapshots: error rate",
                    "",
                    LowerBetter,
                    Some(sn.error_rate),
                ),
            ]
            .into_iter()
            .flatten(),
        );
    }
}

/// One date-handling variant of `dates cost`: its id and words (a `'static` variant
/// when written, so read here by name) and its repeats, as written.
#[derive(Debug, Deserialize)]
struct DatesVariant {
    id: String,
    #[serde(default)]
    what: Option<String>,
    runs: Vec<Measure>,
}

/// `dates cost` on one cluster: per date-handling variant, its repeats' throughput,
/// engine CPU and `_stats` index time per document, and the documents it lost.
pub(super) fn dates_experiment(r: &Value, out: &mut Vec<Metric>) {
    let Some(variants) = r.get("variants").and_then(Value::as_array) else {
        return;
    };
    for v in variants {
        let Some(v) = read::<DatesVariant>("dates variant", v, out) else {
            continue;
        };
        let id = &v.id;
        let label = v.what.as_deref().unwrap_or(id);
        let per_run =
            |f: fn(&Measure) -> Option<f64>| -> Vec<f64> { v.runs.iter().filter_map(f).collect() };
        for (field, what, unit, direction, values) in [
            (
                "docs_per_sec",
                "docs/s",
                "docs/s",
                HigherBetter,
                per_run(|m| Some(m.docs_per_sec)),
            ),
            (
                "engine_cpu_us_per_doc",
                "engine CPU per doc",
                "µs",
                LowerBetter,
                per_run(|m| m.engine_cpu_us_per_doc),
            ),
            (
                "index_time_us_per_doc",
                "_stats index time per doc",
                "µs",
                LowerBetter,
                per_run(|m| m.index_time_us_per_doc),
            ),
        ] {
            out.extend(sampled(
                &format!("dates.{id}.{field}"),
                &format!("dates ({id}) {label}: {what}"),
                unit,
                direction,
                SampleKind::PerRun,
                values,
            ));
        }
        let failed: f64 = v.runs.iter().map(|m| m.failed as f64).sum();
        out.extend(errors(
            &format!("errors.dates.{id}.failed_docs"),
            &format!("errors: dates ({id}) documents not indexed"),
            (!v.runs.is_empty()).then_some(failed),
        ));
    }
}

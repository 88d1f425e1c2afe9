//! The metrics of the many-shards and snapshots scenarios, of the searches that ran beside a
//! load, and of `dates cost`, each part read back as the type it was written with
//! (`workload::scenario_result`, `query::beside::SearchesBeside`, `experiment::dates::Measure`).

use serde::Deserialize;
use serde_json::Value;

use super::{read, rows, Judged::*, Metric, Of::*, Row};
use crate::analysis::statistics::SampleKind::PerRun;
use crate::experiment::dates::Measure;
use crate::ingest::stored::StoredLoad;
use crate::query::beside::SearchesBeside;
use crate::workload::scenario_result::{Creation, Latency, Snapshots, StoredScenario};

#[rustfmt::skip]
const BESIDE: &[Row<SearchesBeside>] = &[
    Row("searches_per_sec", "searches/s", "/s", Higher, One(|b| Some(b.searches_per_sec))),
    Row("latency_p50_ms", "latency p50", "ms", Lower, One(|b| Some(b.latency.p50_us as f64 / 1e3))),
    Row("latency_p99_ms", "latency p99", "ms", Lower, One(|b| Some(b.latency.p99_us as f64 / 1e3))),
    Row("errors", "failed", "", Errors, One(|b| Some(b.errors as f64))),
];

/// The searches that ran beside a load (of an ingest or run, or of the many-shards logs
/// phase).
pub(super) fn beside(r: &Value, _: &[Value], out: &mut Vec<Metric>) {
    let beside = r
        .get("searches_beside")
        .or_else(|| r.get("indexing")?.get("searches_beside"))
        .filter(|b| b.is_object());
    if let Some(b) = beside.and_then(|b| read::<SearchesBeside>("searches beside", b, out)) {
        rows(&b, "beside.", "searches beside the load: ", BESIDE, out);
    }
}

#[rustfmt::skip]
const CREATION: &[Row<Creation>] = &[
    Row("creation.indices_per_sec", "index creation: indices/s", "/s", Higher, One(|c| Some(c.indices_per_sec))),
    Row("creation.docs_per_sec", "index creation: docs/s", "docs/s", Higher, One(|c| Some(c.docs_per_sec))),
    Row("creation.last_tenth_indices_per_sec", "index creation: indices/s over the last tenth", "/s", Higher, One(|c| Some(c.last_tenth_indices_per_sec))),
    Row("creation.create_p99_ms", "index creation: create request p99", "ms", Lower, One(|c| Some(c.create_ms.p99_us as f64 / 1e3))),
    Row("creation.errors", "index creation: errors", "", Errors, One(|c| Some(c.errors as f64))),
    Row("cluster_state_mb", "cluster state at the end of creation", "MB", Info, One(|c| Some(c.cluster_state.last()?.bytes as f64 / 1e6))),
];

#[rustfmt::skip]
const INDEXING: &[Row<StoredLoad>] = &[
    Row("indexing.docs_per_sec", "logs indexing with searches beside: docs/s", "docs/s", Higher, One(|i| Some(i.docs_per_sec))),
];

#[rustfmt::skip]
const FIELD_CAPS: &[Row<Latency>] = &[
    Row("field_caps.p50_ms", "field caps p50", "ms", Lower, One(|f| Some(f.p50_ms))),
    Row("field_caps.p99_ms", "field caps p99", "ms", Lower, One(|f| Some(f.p99_ms))),
    Row("field_caps.errors", "field caps: failed", "", Errors, One(|f| Some(f.errors as f64))),
];

#[rustfmt::skip]
const SNAPSHOTS: &[Row<Snapshots>] = &[
    Row("snapshots.create_mean_ms", "create snapshot: mean service time", "ms", Lower, One(|s| Some(s.create.mean_ms))),
    Row("snapshots.create_p99_ms", "create snapshot: p99 service time", "ms", Lower, One(|s| Some(s.create.p99_ms))),
    Row("snapshots.wait_secs", "snapshots: wait after the last create", "s", Lower, One(|s| Some(s.wait_secs))),
    Row("snapshots.total_secs", "snapshots: all done after the first create", "s", Lower, One(|s| Some(s.total_secs))),
    Row("snapshots.gc_ms", "snapshots: GC time of the nodes", "ms", Lower, One(|s| Some(s.gc_ms? as f64))),
    Row("snapshots.failures", "snapshots not SUCCESS", "", Errors, One(|s| Some(s.failures as f64))),
    Row("snapshots.error_rate", "snapshots: error rate", "", Lower, One(|s| Some(s.error_rate))),
];

/// The many-shards and snapshots scenarios' own figures.
pub(super) fn metrics(r: &Value, _: &[Value], out: &mut Vec<Metric>) {
    if r.get("scenario").and_then(Value::as_str).is_none() {
        return;
    }
    let Some(s) = read::<StoredScenario>("scenario", r, out) else {
        return;
    };
    if let Some(c) = &s.creation {
        rows(c, "", "", CREATION, out);
    }
    if let Some(i) = &s.indexing {
        rows(i, "", "", INDEXING, out);
    }
    if let Some(f) = &s.field_caps {
        rows(f, "", "", FIELD_CAPS, out);
    }
    if let Some(sn) = &s.snapshots {
        rows(sn, "", "", SNAPSHOTS, out);
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

impl DatesVariant {
    fn per_run(&self, f: fn(&Measure) -> Option<f64>) -> Vec<f64> {
        self.runs.iter().filter_map(f).collect()
    }
}

/// A variant's repeats, one sample each.
#[rustfmt::skip]
const DATES: &[Row<DatesVariant>] = &[
    Row("docs_per_sec", "docs/s", "docs/s", Higher, Sampled(PerRun, "", |v| v.per_run(|m| Some(m.docs_per_sec)), |_| None)),
    Row("engine_cpu_us_per_doc", "engine CPU per doc", "µs", Lower, Sampled(PerRun, "", |v| v.per_run(|m| m.engine_cpu_us_per_doc), |_| None)),
    Row("index_time_us_per_doc", "_stats index time per doc", "µs", Lower, Sampled(PerRun, "", |v| v.per_run(|m| m.index_time_us_per_doc), |_| None)),
];

/// The documents a variant's repeats did not index.
#[rustfmt::skip]
const DATES_LOST: &[Row<DatesVariant>] = &[
    Row("failed_docs", "documents not indexed", "", Errors, One(|v| Some(v.runs.iter().map(|m| m.failed as f64).sum()).filter(|_| !v.runs.is_empty()))),
];

/// `dates cost` on one cluster: per date-handling variant, its repeats' throughput,
/// engine CPU and `_stats` index time per document, and the documents it lost.
pub(super) fn dates(r: &Value, _: &[Value], out: &mut Vec<Metric>) {
    let Some(variants) = r.get("variants").and_then(Value::as_array) else {
        return;
    };
    for v in variants {
        let Some(v) = read::<DatesVariant>("dates variant", v, out) else {
            continue;
        };
        let (id, what) = (&v.id, v.what.as_deref().unwrap_or(&v.id));
        let label = format!("dates ({id}) {what}: ");
        rows(&v, &format!("dates.{id}."), &label, DATES, out);
        let label = format!("errors: dates ({id}) ");
        rows(&v, &format!("errors.dates.{id}."), &label, DATES_LOST, out);
    }
}

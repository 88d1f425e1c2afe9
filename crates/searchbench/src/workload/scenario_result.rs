//! What a scenario run (many-shards, snapshots) returns: typed, serializable, printed by
//! `cli/output/scenario.rs`; its parts read back by `analysis::metrics` (leniently: a field an
//! older result lacks takes its default).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::ingest::figures::MOST_SECONDS;
use crate::ingest::IngestReport;
use crate::measure::Measurements;
use crate::query::cells::HdrSummary;
use crate::workload::Scenario;

/// The stored histogram of the creation phase's index-creation requests (µs).
pub const CREATE_HISTOGRAM: &str = "creation:create";
/// The stored histogram of many-shards' field-caps requests (µs).
pub const FIELD_CAPS_HISTOGRAM: &str = "field_caps";
/// The scenario's phase that creates the indices (its measurements hold
/// [`CREATE_HISTOGRAM`]).
pub const CREATION_PHASE: &str = "creation";
/// Many-shards' field-caps phase (its measurements hold [`FIELD_CAPS_HISTOGRAM`]).
pub const FIELD_CAPS_PHASE: &str = "field-caps";

/// One second of the creation phase.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CreationSecond {
    pub second: u64,
    /// Indices created and filled during this second.
    pub indices: u64,
    pub docs: u64,
    /// Indices done by the end of this second.
    pub indices_total: u64,
}

/// The size of the cluster state at one moment of the creation phase.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StateSample {
    pub secs: f64,
    /// Our indices done at that moment.
    pub indices: u64,
    /// Bytes of `GET /_cluster/state` (JSON).
    pub bytes: u64,
}

/// The creation phase: indices created and filled, at what rate, and the cluster state.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Creation {
    pub indices_requested: u64,
    pub docs_per_index: u64,
    pub clients: usize,
    pub bulk_docs: usize,
    pub indices_created: u64,
    pub docs_indexed: u64,
    pub secs: f64,
    pub indices_per_sec: f64,
    pub docs_per_sec: f64,
    /// Indices per second over the first and the last tenth of the indices: how much creation
    /// slowed as the cluster state grew.
    pub first_tenth_indices_per_sec: f64,
    pub last_tenth_indices_per_sec: f64,
    /// Index creation requests (PUT), service time.
    pub create_ms: HdrSummary,
    pub errors: u64,
    pub error_examples: Vec<String>,
    pub timeline: Vec<CreationSecond>,
    pub cluster_state: Vec<StateSample>,
    /// When the phase began (Unix ms), and each index made, in order: (seconds since the
    /// phase began, documents acknowledged). Kept by a part of a run in parts before its
    /// phase's record held them (schema 12); read only to make that record
    /// ([`Creation::recorded`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done: Option<Vec<(f64, u64)>>,
}

/// Whether every index exists and holds its documents.
#[derive(Debug, Clone, Serialize)]
pub struct IndexCounts {
    pub expected_indices: u64,
    pub found_indices: u64,
    /// Indices whose `docs.count` is exactly `docs_per_index`.
    pub complete_indices: u64,
    pub docs: u64,
    pub reconciled: bool,
}

/// Latency of one kind of request from a few clients.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Latency {
    pub clients: usize,
    pub requests: u64,
    pub errors: u64,
    pub error_examples: Vec<String>,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// The snapshot phase.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Snapshots {
    pub repository: String,
    /// We registered the repository (and removed it at the end).
    pub registered: bool,
    pub requested: u64,
    /// Create-snapshot requests (`wait_for_completion=false`), service time.
    pub create: Latency,
    /// From the first create request until every snapshot completed.
    pub total_secs: f64,
    /// From the answer to the last create request until every snapshot completed.
    pub wait_secs: f64,
    /// Final state → snapshots.
    pub states: std::collections::BTreeMap<String, u64>,
    /// Snapshots not `SUCCESS` (or never created).
    pub failures: u64,
    /// (failed create requests + failed snapshots) ÷ requested.
    pub error_rate: f64,
    /// GC time of all nodes during the phase, young + old, ms.
    pub gc_ms: Option<u64>,
    /// GC time of all nodes since they started, at the end of the phase, ms.
    pub gc_ms_since_start: Option<u64>,
}

/// What we removed at the end.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Cleanup {
    pub indices_deleted: u64,
    pub snapshots_deleted: u64,
    pub repository_removed: bool,
    pub errors: Vec<String>,
}

/// A scenario's result: what it is kept and compared by.
#[derive(Debug, Serialize)]
pub struct ScenarioResult {
    pub scenario: Scenario,
    pub tool: &'static str,
    pub tool_version: &'static str,
    pub product: String,
    pub engine_version: String,
    pub target_url: String,
    pub seed: u64,
    /// Index names: `<prefix><number>`, 5 digits.
    pub prefix: String,
    /// When the run began (Unix ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_unix_ms: Option<u64>,
    pub wall_secs: f64,
    pub creation: Creation,
    pub counts: IndexCounts,
    /// many-shards: the logs load with searches beside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexing: Option<IngestReport>,
    /// many-shards: `_field_caps` over all the indices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_caps: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<Snapshots>,
    pub cleanup: Cleanup,
    pub interrupted: bool,
    pub warnings: Vec<String>,
    /// Where the engine's CPU and allocations went over the scenario's measured phase
    /// (`--profile`: many-shards' logs load, the snapshots), when it was profiled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::measure::profile::Profile>,
}

/// A scenario's result as stored, read back as the types it was written with: the one reader
/// of it for its metrics and for the merge of its parts (each field an older result lacks
/// reads its default).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct StoredScenario {
    /// `many-shards`, `snapshots`.
    pub scenario: Option<String>,
    /// When the run began (Unix ms).
    pub started_unix_ms: Option<u64>,
    pub wall_secs: f64,
    pub creation: Option<Creation>,
    /// many-shards' logs load.
    pub indexing: Option<crate::ingest::stored::StoredLoad>,
    pub field_caps: Option<Latency>,
    pub snapshots: Option<Snapshots>,
    pub interrupted: bool,
    pub warnings: Vec<String>,
}

/// How the creation phase was asked to run.
pub struct CreationSetup {
    pub indices_requested: u64,
    pub docs_per_index: u64,
    pub clients: usize,
    pub bulk_docs: usize,
}

/// The creation phase's record, in its measurements: when each index was made, with the
/// documents acknowledged into it (the list [`INDEX_DONE`]); the cluster state's size as
/// sampled ([`CLUSTER_STATE`]), both on the wall clock; its errors; when it began and ended;
/// the index-creation requests' histogram ([`CREATE_HISTOGRAM`]). A group's parts' records
/// merge into the one one process would have kept.
pub const INDEX_DONE: &str = "index_done";
pub const CLUSTER_STATE: &str = "cluster_state";
const BEGAN: &str = "began_unix_us";
const ENDED: &str = "ended_unix_us";
const ERRORS: &str = "errors";
const CLIENTS: &str = "clients";
const REQUESTS: &str = "requests";

/// Records into a creation phase's record (its lists' fields are their own: a row is never
/// refused).
pub mod record {
    use super::*;

    pub fn began(m: &mut Measurements, at_unix_us: u64) {
        m.least(BEGAN, at_unix_us);
    }
    pub fn ended(m: &mut Measurements, at_unix_us: u64) {
        m.most(ENDED, at_unix_us);
    }
    pub fn index_done(m: &mut Measurements, at_unix_us: u64, docs: u64) {
        let _ = m.at(INDEX_DONE, &["docs"], at_unix_us, &[docs as f64]);
    }
    pub fn cluster_state(m: &mut Measurements, at_unix_us: u64, bytes: u64) {
        let _ = m.at(CLUSTER_STATE, &["bytes"], at_unix_us, &[bytes as f64]);
    }
    pub fn error(m: &mut Measurements) {
        m.count(ERRORS, 1);
    }
    /// Whether `m` is a creation phase's record (a part kept before it was has its histogram
    /// alone).
    pub fn kept(m: &Measurements) -> bool {
        m.bounds.least.contains_key(BEGAN)
    }
}

impl Creation {
    /// How it was asked to run.
    pub fn setup(&self) -> CreationSetup {
        CreationSetup {
            indices_requested: self.indices_requested,
            docs_per_index: self.docs_per_index,
            clients: self.clients,
            bulk_docs: self.bulk_docs,
        }
    }

    /// The record of a part kept before its phase held one, from what its result said: its
    /// per-index times and its cluster state samples put back on the wall clock (`None`
    /// without them: only a part of a run in parts kept them).
    pub fn recorded(&self) -> Option<Measurements> {
        let began = self.started_unix_ms?.saturating_mul(1000);
        let at = |secs: f64| began.saturating_add((secs * 1e6).round() as u64);
        let mut m = Measurements::default();
        record::began(&mut m, began);
        record::ended(&mut m, at(self.secs));
        // Rows as said, in any order: put in order once.
        let done = self
            .done
            .as_ref()?
            .iter()
            .map(|(secs, docs)| (at(*secs), vec![*docs as f64]));
        let _ = m.at_all(INDEX_DONE, &["docs"], done.collect());
        let states = self
            .cluster_state
            .iter()
            .map(|s| (at(s.secs), vec![s.bytes as f64]));
        let _ = m.at_all(CLUSTER_STATE, &["bytes"], states.collect());
        m.count(ERRORS, self.errors);
        Some(m)
    }
}

/// The creation phase's figures from its record (`m`: one process's, or a group's parts'
/// merged), `examples` the first errors it met: `None` for a record that is not one (see
/// [`record::kept`]).
pub fn derive(setup: &CreationSetup, m: &Measurements, examples: Vec<String>) -> Option<Creation> {
    let began = *m.bounds.least.get(BEGAN)?;
    let secs = m.bounds.most.get(ENDED)?.saturating_sub(began) as f64 / 1e6;
    let timed = |name: &str, field: &str| -> Vec<(f64, u64)> {
        let list = m.timed.get(name).into_iter();
        let rows = list.flat_map(|t| t.of(field));
        let since = |at: u64| at.saturating_sub(began) as f64 / 1e6;
        rows.map(|(at, v)| (since(at), v as u64)).collect()
    };
    let done = timed(INDEX_DONE, "docs");
    // Each sample with the indices done by then, whichever process made them (`done` is in
    // time order, as its list is).
    let cluster_state = timed(CLUSTER_STATE, "bytes")
        .into_iter()
        .map(|(secs, bytes)| StateSample {
            secs,
            indices: done.partition_point(|(t, _)| *t <= secs) as u64,
            bytes,
        })
        .collect();
    let created = done.len() as u64;
    let docs = done.iter().fold(0u64, |n, d| n.saturating_add(d.1));
    // A record read back that claims to span more than a week is not one this tool made: its
    // timeline stops there rather than fill memory (no other figure comes from it).
    let seconds = secs.ceil().clamp(1.0, MOST_SECONDS as f64) as usize;
    let mut timeline: Vec<CreationSecond> = (0..seconds)
        .map(|s| CreationSecond {
            second: s as u64,
            indices: 0,
            docs: 0,
            indices_total: 0,
        })
        .collect();
    for (at, d) in done.iter().filter(|(at, _)| *at < MOST_SECONDS as f64) {
        let s = &mut timeline[(*at as usize).min(seconds - 1)];
        s.indices += 1;
        s.docs = s.docs.saturating_add(*d);
    }
    let mut total = 0;
    for s in &mut timeline {
        total += s.indices;
        s.indices_total = total;
    }
    // The rate over a tenth of the indices: from the end of the one before it to its end.
    let tenth = |from: usize, to: usize| -> f64 {
        if to <= from || to > done.len() {
            return 0.0;
        }
        let start = if from == 0 { 0.0 } else { done[from - 1].0 };
        let span = done[to - 1].0 - start;
        if span > 0.0 {
            (to - from) as f64 / span
        } else {
            0.0
        }
    };
    let n = done.len();
    let k = (n / 10).max(1);
    let empty = crate::measure::recorder::histogram();
    let h = m
        .histograms
        .get(CREATE_HISTOGRAM)
        .map_or(&empty, |(_, h)| h);
    let h = HdrSummary::of(h);
    Some(Creation {
        indices_requested: setup.indices_requested,
        docs_per_index: setup.docs_per_index,
        clients: setup.clients,
        bulk_docs: setup.bulk_docs,
        indices_created: created,
        docs_indexed: docs,
        secs,
        indices_per_sec: created as f64 / secs.max(1e-9),
        docs_per_sec: docs as f64 / secs.max(1e-9),
        first_tenth_indices_per_sec: tenth(0, k.min(n)),
        last_tenth_indices_per_sec: tenth(n.saturating_sub(k), n),
        create_ms: h,
        errors: m.counts.get(ERRORS).copied().unwrap_or(0),
        error_examples: examples,
        timeline,
        cluster_state,
        started_unix_ms: None,
        done: None,
    })
}

/// Many-shards' field-caps phase's record: its clients, requests and failed requests as
/// counts, and its answers' histogram ([`FIELD_CAPS_HISTOGRAM`], µs). A group's parts'
/// records merge into the one one process with all their clients would have kept.
impl Latency {
    /// The field-caps phase's record of this latency, `h` its answers' histogram (for a part
    /// kept before its phase held its counts, the histogram is already in its phase).
    pub fn recorded(&self, h: Option<&Histogram<u64>>) -> Measurements {
        let mut m = Measurements::default();
        m.count(CLIENTS, self.clients as u64);
        m.count(REQUESTS, self.requests);
        m.count(ERRORS, self.errors);
        if let Some(h) = h {
            // The record's one histogram: nothing to disagree with.
            let _ = m.add_histogram(FIELD_CAPS_HISTOGRAM, "us", h);
        }
        m
    }
}

/// The field-caps latency from its phase's record (one process's, or a group's parts'
/// merged), `examples` the first errors it met: `None` for a record without its counts or
/// its histogram.
pub fn field_caps_of(m: &Measurements, examples: Vec<String>) -> Option<Latency> {
    let count = |name: &str| m.counts.get(name).copied();
    let (_, h) = m.histograms.get(FIELD_CAPS_HISTOGRAM)?;
    let clients = usize::try_from(count(CLIENTS)?).ok()?;
    Some(latency_of(
        h,
        clients,
        count(REQUESTS)?,
        count(ERRORS)?,
        examples,
    ))
}

/// A latency figure from the histogram of its requests (µs).
pub fn latency_of(
    h: &Histogram<u64>,
    clients: usize,
    requests: u64,
    errors: u64,
    error_examples: Vec<String>,
) -> Latency {
    let s = HdrSummary::of(h);
    let ms = |us: u64| us as f64 / 1000.0;
    Latency {
        clients,
        requests,
        errors,
        error_examples,
        mean_ms: s.mean_us / 1000.0,
        p50_ms: ms(s.p50_us),
        p90_ms: ms(s.p90_us),
        p99_ms: ms(s.p99_us),
        max_ms: ms(s.max_us),
    }
}

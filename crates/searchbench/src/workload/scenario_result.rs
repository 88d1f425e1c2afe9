//! What a scenario run (many-shards, snapshots) returns: typed, serializable, printed by
//! `cli/output/scenario.rs`; its parts read back by `analysis::metrics` (leniently: a field an
//! older result lacks takes its default).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::ingest::IngestReport;
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
    /// When the phase began (Unix ms): the parts of a run line up on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_unix_ms: Option<u64>,
    /// Each index made, in order: (seconds since the phase began, documents acknowledged).
    /// Kept by a part of a run in parts, whose merge derives the group's creation from them.
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

/// What the creation phase counted, from which its figures are derived (for a part of a run
/// in parts, again after the merge, from every part's).
pub struct Tally {
    /// (seconds since start, docs) per index done.
    pub done: Vec<(f64, u64)>,
    pub create_us: Histogram<u64>,
    pub errors: u64,
    pub examples: Vec<String>,
}

/// How the creation phase was asked to run.
pub struct CreationSetup {
    pub indices_requested: u64,
    pub docs_per_index: u64,
    pub clients: usize,
    pub bulk_docs: usize,
}

/// The creation phase's figures from what it counted over `secs` seconds.
pub fn derive(
    setup: &CreationSetup,
    mut t: Tally,
    secs: f64,
    cluster_state: Vec<StateSample>,
) -> Creation {
    t.done.sort_by(|a, b| a.0.total_cmp(&b.0));
    let created = t.done.len() as u64;
    let docs: u64 = t.done.iter().map(|d| d.1).sum();
    let seconds = secs.ceil().max(1.0) as usize;
    let mut timeline: Vec<CreationSecond> = (0..seconds)
        .map(|s| CreationSecond {
            second: s as u64,
            indices: 0,
            docs: 0,
            indices_total: 0,
        })
        .collect();
    for (at, d) in &t.done {
        let s = (*at as usize).min(seconds - 1);
        timeline[s].indices += 1;
        timeline[s].docs += d;
    }
    let mut total = 0;
    for s in &mut timeline {
        total += s.indices;
        s.indices_total = total;
    }
    // The rate over a tenth of the indices: from the end of the one before it to its end.
    let tenth = |from: usize, to: usize| -> f64 {
        if to <= from || to > t.done.len() {
            return 0.0;
        }
        let start = if from == 0 { 0.0 } else { t.done[from - 1].0 };
        let span = t.done[to - 1].0 - start;
        if span > 0.0 {
            (to - from) as f64 / span
        } else {
            0.0
        }
    };
    let n = t.done.len();
    let k = (n / 10).max(1);
    let h = HdrSummary::of(&t.create_us);
    Creation {
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
        errors: t.errors,
        error_examples: t.examples,
        timeline,
        cluster_state,
        started_unix_ms: None,
        done: None,
    }
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

//! What a scenario run (many-shards, snapshots) returns: typed, serializable, printed by
//! `cli/output/scenario.rs`; its parts read back by `analysis::metrics` (leniently: a field an
//! older result lacks takes its default).

use serde::{Deserialize, Serialize};

use crate::ingest::IngestReport;
use crate::query::cells::HdrSummary;
use crate::workload::Scenario;

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

impl ScenarioResult {
    /// Counts reconcile, every snapshot succeeded, the logs load reconciled.
    pub fn passed(&self) -> bool {
        self.counts.reconciled
            && self.creation.errors == 0
            && self.snapshots.as_ref().is_none_or(|s| s.failures == 0)
            && self
                .indexing
                .as_ref()
                .is_none_or(|r| r.counts.reconciled && r.error.is_none())
    }
}

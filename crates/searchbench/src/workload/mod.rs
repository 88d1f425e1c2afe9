//! Built-in workloads: corpus + index setup (+ ground truth where they have one).
//!
//! # Using a workload (for the ingest and run commands)
//!
//! ```no_run
//! use searchbench::workload::{self, WorkloadSpec};
//! # fn main() -> Result<(), searchbench::corpus::CorpusError> {
//! let w = workload::find("cluster-metrics").expect("built in");
//! let index = w.default_index();            // "searchbench-cluster-metrics"
//! let body = w.index_body();                // PUT /{index} with this JSON (settings + mappings)
//! let mut spec = WorkloadSpec::new(42);     // seed
//! spec.docs = Some(2_000_000);
//! spec.params.truth = true;                 // cluster-metrics only: keep ground truth
//! let opened = w.open(&spec)?;
//! let source = opened.source;               // Box<dyn DocSource>: hand it to the driver
//! let truth = opened.truth;                 // Some(TruthHandle) for cluster-metrics + truth
//! # let _ = (index, body, source, truth); Ok(()) }
//! ```
//!
//! * [`names`] lists the workloads, [`find`] looks one up by name.
//! * Each workload lives in its own file or folder and implements [`Workload`]: its corpus,
//!   index setup, file shapes and query phase (a [`QueryPlan`]: its variants, request bodies,
//!   answer checks and words; `cluster_metrics/queries.rs`, `logs/queries.rs`). Adding one
//!   means a new file or folder here and a line in [`all`]; nothing else names workloads.
//! * [`Workload::open`] validates the spec (errors are [`CorpusError::Invalid`], a usage
//!   error at the CLI) and returns the document source; the same spec always yields the
//!   same bytes.
//! * Ground truth of `cluster-metrics`: [`TruthHandle::take`] returns the
//!   [`PartitionTruth`] of every epoch finished so far (an epoch is published the moment its
//!   last row is produced); see [`crate::corpus::cluster_metrics`] for definitions.
//!
//! Index names start with `searchbench-` so that what we create is recognisably ours (and
//! the only thing we ever delete).

pub mod cluster_metrics;
pub mod file;
pub mod folder;
pub mod json_file;
pub mod logs;
mod many_shards;
mod numbers;
pub mod queries_file;
pub mod scenario_result;
pub mod track;
mod transactions;
pub mod vectors;

use serde_json::{json, Value};

use crate::corpus::{CorpusError, DocSource, TruthHandle};
use crate::query::beside::BesideSearch;
use crate::query::report::Component;
use crate::query::{Answerer, Dialect, QueryPlan, Transport, Variant};

pub use crate::corpus::PartitionTruth;
pub use cluster_metrics::metrics_spec;
pub use logs::logs_spec;
pub use many_shards::{auditbeat_body, auditbeat_spec};
pub use transactions::transactions_spec;

/// Workload-specific parameters; each workload reads the ones it knows and rejects the ones
/// that make no sense for it (so a typo'd flag combination is an error, not ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params {
    /// cluster-metrics: rows per epoch (default 1,000,000).
    pub rows_per_epoch: Option<u64>,
    /// cluster-metrics: number of epochs (default: as many as `docs` needs, else 1).
    pub epochs: Option<u64>,
    /// cluster-metrics: compute ground truth while generating.
    pub truth: bool,
    /// logs: first `@timestamp`, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS[.fff]Z` (default
    /// 2023-01-01).
    pub start: Option<String>,
    /// logs: time window the timestamps spread over, e.g. `1d`, `6h` (default `1d`).
    pub window: Option<String>,
    /// transactions: year of the mutations (default 2023).
    pub year: Option<i32>,
    /// cluster-metrics: the first epoch's number (default 1).
    pub first_epoch: Option<u64>,
    /// logs: time slices of the window its queries cut (one search per variant and slice).
    pub slices: Option<usize>,
    /// vectors: dimensions of each vector (default 128).
    pub dims: Option<usize>,
    /// vectors: how the vector field is indexed (default HNSW without quantization).
    pub vector_index: Option<vectors::VectorIndex>,
}

/// What to generate: seed, document count and workload parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadSpec {
    pub seed: u64,
    /// Documents (rows). Required for `logs` and `transactions`; optional for
    /// `cluster-metrics` (rows per epoch × epochs).
    pub docs: Option<u64>,
    pub params: Params,
}

impl WorkloadSpec {
    pub fn new(seed: u64) -> Self {
        WorkloadSpec {
            seed,
            docs: None,
            params: Params::default(),
        }
    }
}

/// A workload's document source, plus its ground truth when it has one.
pub struct Opened {
    pub source: Box<dyn DocSource>,
    pub truth: Option<TruthHandle>,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("source", &self.source.describe())
            .field("truth", &self.truth.is_some())
            .finish()
    }
}

/// The shape of a corpus written to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileShape {
    /// One JSON document per line.
    Ndjson,
    /// CSV with a header line.
    Csv,
}

/// A corpus being written to a file: its first bytes (a CSV header), then one record at a
/// time, with the ground truth (and its file header) where the workload has one.
pub struct CorpusWriter {
    pub header: Vec<u8>,
    pub len_hint: Option<u64>,
    /// Appends the next record (without its newline) and says whether there was one.
    pub next: Box<NextRecord>,
    /// The truth file's header line and the handle the generator publishes truth through.
    pub truth: Option<(Value, TruthHandle)>,
}

/// Appends one record to a buffer; `Ok(false)` at the end.
pub type NextRecord = dyn FnMut(&mut Vec<u8>) -> Result<bool, CorpusError> + Send;

/// A built-in workload: a corpus, its index setup, and (for some) a query phase whose answers
/// are checked against the corpus's ground truth.
pub trait Workload: Sync + std::fmt::Debug {
    fn name(&self) -> &'static str;
    /// One line for `--help` and listings.
    fn about(&self) -> &'static str;
    /// The index the workload uses unless told otherwise (always `searchbench-…`).
    fn default_index(&self) -> &'static str;
    /// Settings and mappings: the body of `PUT /{index}`.
    fn index_body(&self) -> Value;
    /// The body for the corpus of `spec`, when its parameters shape the mapping (vectors:
    /// `--dims`).
    fn index_body_for(&self, _spec: &WorkloadSpec) -> Value {
        self.index_body()
    }
    /// The document source for `spec`; the same spec always yields the same bytes.
    fn open(&self, spec: &WorkloadSpec) -> Result<Opened, CorpusError>;
    /// Documents `run` generates when `--docs` is not given; `None` when the workload's own
    /// parameters decide (cluster-metrics: rows per epoch × epochs).
    fn default_docs(&self) -> Option<u64> {
        Some(200_000)
    }
    /// Whether the query phase needs the truth the generator computes while it runs.
    fn wants_truth(&self) -> bool {
        false
    }
    /// The query phase in `dialect` on an index (or store) holding the corpus of `spec`, if
    /// the workload has queries in that dialect (`None` otherwise). `truth` is what the
    /// generator published while loading (or a truth file held) for a workload that [wants
    /// it](Workload::wants_truth); without it the workload recomputes what it needs from
    /// `spec`. The same coverages and truth in every dialect it speaks. `answerer` is the
    /// product and release that answers, when it said (vectors write their searches in its
    /// words).
    fn query_plan(
        &self,
        _dialect: &dyn Dialect,
        _answerer: Option<&Answerer>,
        _spec: &WorkloadSpec,
        _truth: Option<Vec<PartitionTruth>>,
    ) -> Result<Option<Box<dyn QueryPlan>>, CorpusError> {
        Ok(None)
    }
    /// Whether its index holds vectors: a node we start for it must search them (OpenSearch's
    /// k-NN plugin).
    fn searches_vectors(&self) -> bool {
        false
    }
    /// The variants of its query phase (none without one), known before any truth is.
    fn query_variants(&self) -> Vec<Variant> {
        Vec::new()
    }
    /// Variants its query phase measures only when named (`--variants`), never by default.
    fn query_named_only(&self) -> Vec<Variant> {
        Vec::new()
    }
    /// The transports its queries are measured over unless told otherwise.
    fn query_transports(&self) -> Vec<Transport> {
        vec![Transport::Serial]
    }
    /// The subtractive attribution of its query phase over a group of parts merged (`took(v)`:
    /// variant `v`'s mean took per coverage), by the formula its plan applies to one run
    /// (`QueryPlan::attribution`); none by default.
    fn attribution(&self, _took: &dyn Fn(&Variant) -> Option<f64>) -> Vec<Component> {
        Vec::new()
    }
    /// Searches that can run while the index is still growing (`--search-clients`), if its
    /// queries need no truth to be sent.
    fn searches_beside(
        &self,
        _spec: &WorkloadSpec,
    ) -> Result<Option<Vec<BesideSearch>>, CorpusError> {
        Ok(None)
    }
    /// The documents an index holds once the corpus of `spec` is loaded, when `spec` says,
    /// with the flags that say it (for "but --docs says N").
    fn docs(&self, spec: &WorkloadSpec) -> Option<(&'static str, u64)> {
        spec.docs.map(|n| ("--docs", n))
    }
    /// The most documents `spec`'s corpus can hold whatever --docs says, when other flags fix
    /// its size (cluster-metrics' --rows-per-epoch × --epochs); `None` when --docs alone may.
    fn most_docs(&self, _spec: &WorkloadSpec) -> Option<u64> {
        None
    }
    /// The flags that give its corpus (for "load it with the same … as here").
    fn corpus_flags(&self) -> &'static str {
        "--seed and --docs"
    }
    /// A multi-phase scenario over many indices (run by `searchbench run`), instead of one
    /// index loaded and queried.
    fn scenario(&self) -> Option<Scenario> {
        None
    }
    /// The file shape `generate` writes unless told otherwise.
    fn default_shape(&self) -> FileShape {
        FileShape::Ndjson
    }
    /// The corpus as `generate` writes it.
    fn writer(&self, spec: &WorkloadSpec, shape: FileShape) -> Result<CorpusWriter, CorpusError>;
}

/// The multi-phase scenarios (see [`Workload::scenario`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scenario {
    /// Create and fill many small indices, index logs with searches beside, field caps.
    ManyShards,
    /// Many small indices, then sequential snapshots and their completion.
    Snapshots,
}

/// The registry: a new workload is its folder and one line here.
static WORKLOADS: &[&dyn Workload] = &[
    &logs::LogsWorkload,
    &cluster_metrics::ClusterMetricsWorkload,
    &transactions::TransactionsWorkload,
    &many_shards::MANY_SHARDS,
    &many_shards::SNAPSHOTS,
    &numbers::NumbersWorkload,
    &vectors::VectorsWorkload,
];

/// All built-in workloads.
pub fn all() -> &'static [&'static dyn Workload] {
    WORKLOADS
}

/// Names of the built-in workloads.
pub fn names() -> Vec<&'static str> {
    WORKLOADS.iter().map(|w| w.name()).collect()
}

/// "unknown workload …", with the closest built-in name when one is close.
pub fn unknown(name: &str) -> String {
    crate::suggest::unknown("workload", name, names())
}

/// The workload called `name`.
pub fn find(name: &str) -> Option<&'static dyn Workload> {
    WORKLOADS.iter().copied().find(|w| w.name() == name)
}

pub(crate) fn reject(workload: &str, what: &str, given: bool) -> Result<(), CorpusError> {
    if given {
        Err(CorpusError::Invalid(format!(
            "{what} does not apply to the {workload} workload"
        )))
    } else {
        Ok(())
    }
}

pub(crate) fn required_docs(workload: &str, spec: &WorkloadSpec) -> Result<u64, CorpusError> {
    match spec.docs {
        None => Err(CorpusError::Invalid(format!(
            "--docs is required for the {workload} workload"
        ))),
        Some(0) => Err(CorpusError::Invalid("--docs must be at least 1".into())),
        Some(n) => Ok(n),
    }
}

/// One primary, no replica: a single-node lab cluster stays green, and results do not
/// depend on replication unless a run asks for it.
pub(crate) fn settings() -> Value {
    json!({ "index": { "number_of_shards": 1, "number_of_replicas": 0 } })
}

/// A source whose generator has nothing more to say than its documents.
fn plain(source: Box<dyn DocSource>) -> Opened {
    Opened {
        source,
        truth: None,
    }
}

/// Writes a [`DocSource`]'s documents, one per line.
fn ndjson_writer(mut source: Box<dyn DocSource>) -> CorpusWriter {
    CorpusWriter {
        header: Vec::new(),
        len_hint: source.len_hint(),
        next: Box::new(move |out| match source.next_into(out)? {
            Some(crate::corpus::Item::Doc) => Ok(true),
            Some(crate::corpus::Item::Bad(b)) => Err(CorpusError::Invalid(format!(
                "{}:{}: {}",
                b.source, b.line, b.reason
            ))),
            None => Ok(false),
        }),
        truth: None,
    }
}

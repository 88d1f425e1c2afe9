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
//! * [`Workload::open`] validates the spec (errors are [`CorpusError::Invalid`], a usage
//!   error at the CLI) and returns the document source; the same spec always yields the
//!   same bytes.
//! * Ground truth of `cluster-metrics`: [`TruthHandle::take`] returns the
//!   [`PartitionTruth`] of every epoch finished so far (an epoch is published the moment its
//!   last row is produced); see [`crate::corpus::metrics`] for definitions.
//!
//! Index names start with `searchbench-` so that what we create is recognisably ours (and
//! the only thing we ever delete).

use serde_json::{json, Value};

use crate::corpus::metrics::MetricsSpec;
use crate::corpus::text::{parse_duration_ms, parse_start};
use crate::corpus::{
    ClusterMetrics, CorpusError, DocSource, Logs, LogsSpec, Transactions, TransactionsSpec,
    TruthHandle,
};

pub use crate::corpus::PartitionTruth;

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

/// A built-in workload.
#[derive(Debug)]
pub struct Workload {
    pub name: &'static str,
    /// One line for `--help` and listings.
    pub about: &'static str,
    index: &'static str,
    body: fn() -> Value,
    open: fn(&WorkloadSpec) -> Result<Opened, CorpusError>,
}

impl Workload {
    /// The index the workload uses unless told otherwise (always `searchbench-…`).
    pub fn default_index(&self) -> &'static str {
        self.index
    }

    /// Settings and mappings: the body of `PUT /{index}`.
    pub fn index_body(&self) -> Value {
        (self.body)()
    }

    /// The document source for `spec`.
    pub fn open(&self, spec: &WorkloadSpec) -> Result<Opened, CorpusError> {
        (self.open)(spec)
    }
}

static WORKLOADS: [Workload; 3] = [
    Workload {
        name: "logs",
        about: "CloudWatch-style syslog documents, ~1 KB each (field note 001)",
        index: "searchbench-logs",
        body: logs_body,
        open: |spec| {
            Ok(Opened {
                source: Box::new(Logs::new(logs_spec(spec)?)?),
                truth: None,
            })
        },
    },
    Workload {
        name: "cluster-metrics",
        about: "epoch/node/task rows with cpu, mem, net floats and exact percentile truth (field note 002)",
        index: "searchbench-cluster-metrics",
        body: metrics_body,
        open: |spec| {
            let g = ClusterMetrics::new(metrics_spec(spec)?)?;
            let truth = spec.params.truth.then(|| g.truth_handle());
            Ok(Opened {
                source: Box::new(g),
                truth,
            })
        },
    },
    Workload {
        name: "transactions",
        about: "French property sales shaped like DVF open data, CSV or mapped documents (field note 004)",
        index: "searchbench-transactions",
        body: transactions_body,
        open: |spec| {
            Ok(Opened {
                source: Box::new(Transactions::new(transactions_spec(spec)?)?),
                truth: None,
            })
        },
    },
];

/// All built-in workloads.
pub fn all() -> &'static [Workload] {
    &WORKLOADS
}

/// Names of the built-in workloads.
pub fn names() -> Vec<&'static str> {
    WORKLOADS.iter().map(|w| w.name).collect()
}

/// The workload called `name`.
pub fn find(name: &str) -> Option<&'static Workload> {
    WORKLOADS.iter().find(|w| w.name == name)
}

fn reject(workload: &str, what: &str, given: bool) -> Result<(), CorpusError> {
    if given {
        Err(CorpusError::Invalid(format!(
            "{what} does not apply to the {workload} workload"
        )))
    } else {
        Ok(())
    }
}

fn required_docs(workload: &str, spec: &WorkloadSpec) -> Result<u64, CorpusError> {
    match spec.docs {
        None => Err(CorpusError::Invalid(format!(
            "--docs is required for the {workload} workload"
        ))),
        Some(0) => Err(CorpusError::Invalid("--docs must be at least 1".into())),
        Some(n) => Ok(n),
    }
}

/// The `logs` generator spec for `spec`.
pub fn logs_spec(spec: &WorkloadSpec) -> Result<LogsSpec, CorpusError> {
    let p = &spec.params;
    reject("logs", "--rows-per-epoch", p.rows_per_epoch.is_some())?;
    reject("logs", "--epochs", p.epochs.is_some())?;
    reject("logs", "--truth", p.truth)?;
    reject("logs", "--year", p.year.is_some())?;
    let mut s = LogsSpec::new(spec.seed, required_docs("logs", spec)?);
    if let Some(start) = &p.start {
        s.start_ms = parse_start(start)?;
    }
    if let Some(window) = &p.window {
        s.window_ms = parse_duration_ms(window)?;
    }
    Ok(s)
}

/// The `cluster-metrics` generator spec for `spec`.
pub fn metrics_spec(spec: &WorkloadSpec) -> Result<MetricsSpec, CorpusError> {
    let p = &spec.params;
    reject("cluster-metrics", "--start", p.start.is_some())?;
    reject("cluster-metrics", "--window", p.window.is_some())?;
    reject("cluster-metrics", "--year", p.year.is_some())?;
    let mut s = MetricsSpec::new(spec.seed);
    if let Some(r) = p.rows_per_epoch {
        s.rows_per_epoch = r;
    }
    s.epochs = p.epochs;
    s.docs = spec.docs;
    s.truth = p.truth;
    s.resolve()?;
    Ok(s)
}

/// The `transactions` generator spec for `spec`.
pub fn transactions_spec(spec: &WorkloadSpec) -> Result<TransactionsSpec, CorpusError> {
    let p = &spec.params;
    reject(
        "transactions",
        "--rows-per-epoch",
        p.rows_per_epoch.is_some(),
    )?;
    reject("transactions", "--epochs", p.epochs.is_some())?;
    reject("transactions", "--truth", p.truth)?;
    reject("transactions", "--start", p.start.is_some())?;
    reject("transactions", "--window", p.window.is_some())?;
    let mut s = TransactionsSpec::new(spec.seed, required_docs("transactions", spec)?);
    if let Some(y) = p.year {
        s.year = y;
    }
    Ok(s)
}

/// One primary, no replica: a single-node lab cluster stays green, and results do not
/// depend on replication unless a run asks for it.
fn settings() -> Value {
    json!({ "index": { "number_of_shards": 1, "number_of_replicas": 0 } })
}

/// `dynamic: strict` on every built-in mapping: a generator that drifts from its mapping
/// fails loudly at index time instead of silently creating dynamic fields.
fn logs_body() -> Value {
    let kw = json!({ "type": "keyword" });
    let long = json!({ "type": "long" });
    let date = json!({ "type": "date" });
    json!({
        "settings": settings(),
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "@timestamp": date,
                "aws": { "properties": { "cloudwatch": { "properties": {
                    "log_stream": kw, "ingestion_time": kw, "log_group": kw } } } },
                "cloud": { "properties": { "region": kw } },
                "log": { "properties": { "file": { "properties": { "path": kw } } } },
                "input": { "properties": { "type": kw } },
                "data_stream": { "properties": { "namespace": kw, "type": kw, "dataset": kw } },
                "process": { "properties": { "name": kw } },
                "message": { "type": "text" },
                "event": { "properties": { "id": kw, "ingested": date, "dataset": kw } },
                "host": { "properties": { "name": kw } },
                "metrics": { "properties": { "size": long, "tmin": long } },
                "agent": { "properties": {
                    "id": kw, "name": kw, "type": kw, "version": kw, "ephemeral_id": kw } },
                "tags": kw
            }
        }
    })
}

fn metrics_body() -> Value {
    json!({
        "settings": settings(),
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "epoch": { "type": "long" },
                "node": { "type": "keyword" },
                "task": { "type": "keyword" },
                "cpu": { "type": "float" },
                "mem": { "type": "float" },
                "net": { "type": "float" }
            }
        }
    })
}

fn transactions_body() -> Value {
    json!({
        "settings": settings(),
        "mappings": {
            "dynamic": "strict",
            "properties": crate::corpus::transactions::MAPPING.properties()
        }
    })
}

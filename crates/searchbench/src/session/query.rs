//! The query phase: the `002` method on a built-in workload's index, answers checked against
//! the corpus's ground truth, recorded as it goes.

use std::path::PathBuf;

use super::ingest::{load, LoadSpec};
use super::record::{save_outcome, Recording, SaveSpec};
use super::{Event, Job, Observer, SessionError};
use crate::cluster::Target;
use crate::corpus::cluster_metrics::MetricsSpec;
use crate::corpus::{truth_file, ClusterMetrics, Logs, LogsSpec};
use crate::ingest::control::Cancel;
use crate::query::{self, QueryOptions, QueryPlan, QueryResult, Truth};
use crate::store::Kind;
use crate::workload::{PartitionTruth, WorkloadSpec};

/// The corpus the queried index holds (its truth is recomputed from it).
#[derive(Debug, Clone)]
pub enum QueryCorpus {
    ClusterMetrics(MetricsSpec),
    Logs { spec: LogsSpec, slices: usize },
}

impl QueryCorpus {
    pub fn workload(&self) -> &'static str {
        match self {
            QueryCorpus::ClusterMetrics(_) => "cluster-metrics",
            QueryCorpus::Logs { .. } => "logs",
        }
    }

    pub fn seed(&self) -> u64 {
        match self {
            QueryCorpus::ClusterMetrics(s) => s.seed,
            QueryCorpus::Logs { spec, .. } => spec.seed,
        }
    }
}

/// `searchbench query`: what to measure and how.
#[derive(Debug, Clone)]
pub struct QuerySpec {
    pub corpus: QueryCorpus,
    pub options: QueryOptions,
    /// Create the index and load the corpus first (through the ingest path).
    pub load: bool,
    /// A truth file (cluster-metrics) instead of recomputing the truth.
    pub truth_file: Option<PathBuf>,
    /// A previous `--json` result to report drift against.
    pub baseline: Option<PathBuf>,
    /// Delay added between the driver and the cluster (`--rtt`) by a proxy on 127.0.0.1.
    pub rtt: Option<crate::cluster::delay::Rtt>,
    /// The engine sampled beside the queries (see [`super::telemetry`]).
    pub telemetry: super::TelemetrySpec,
}

/// Runs a query workload on `target` and keeps the result.
pub async fn query(
    spec: QuerySpec,
    target: Target,
    urls: &[String],
    save: &SaveSpec,
    observer: &dyn Observer,
) -> Result<QueryResult, SessionError> {
    let options = &spec.options;
    let config = serde_json::json!({
        "workload": spec.corpus.workload(),
        "index": options.index,
        "urls": crate::cluster::redact_urls(urls),
        "seed": spec.corpus.seed(),
        "docs": match &spec.corpus {
            QueryCorpus::Logs { spec, .. } => Some(spec.docs),
            QueryCorpus::ClusterMetrics(_) => None,
        },
        "variants": options.variants.iter().map(|v| v.name()).collect::<Vec<_>>(),
        "transports": options.transports.iter().map(|t| t.name()).collect::<Vec<_>>(),
        "passes": options.passes,
        "rate": options.rate,
        "search_clients": options.clients,
        "profile": options.profile,
        "rtt_ms": spec.rtt.map(|r| r.rtt_ms),
        "jitter_ms": spec.rtt.map(|r| r.jitter_ms),
    });
    let recording = Recording::begin(
        save,
        Kind::Query,
        spec.corpus.workload(),
        Some(spec.corpus.seed()),
        None,
        config,
        observer,
    );
    let outcome = async {
        // The proxies live until the queries are done (`_delay` is dropped at the end).
        let (target, _delay) = through_delay(target, spec.rtt).await?;
        // Kept as a failed run when it fails, like a load that cannot reach its target.
        let engine = check_target(&target, &spec).await?;
        let cancel = Some(&spec.options.cancel);
        let plan = match &spec.corpus {
            QueryCorpus::ClusterMetrics(metrics) => {
                let parts = if spec.load {
                    load_metrics(&target, metrics, &spec.options.index, observer, cancel).await?
                } else if let Some(path) = &spec.truth_file {
                    truth_file::read(path)?
                } else {
                    truth_file::compute(metrics)?
                };
                QueryPlan::ClusterMetrics(Truth::new(parts))
            }
            QueryCorpus::Logs { spec: logs, slices } => {
                if spec.load {
                    load_logs(&target, logs, &spec.options.index, observer, cancel).await?;
                }
                QueryPlan::Logs {
                    spec: logs.clone(),
                    slices: *slices,
                }
            }
        };
        let mut result = measure_sampled(
            plan,
            target,
            spec.options.clone(),
            &spec.telemetry,
            recording.as_ref(),
        )
        .await?;
        result.engine = Some(engine);
        result.rtt = spec.rtt;
        if let Some(path) = &spec.baseline {
            result.compare_baseline(path).map_err(usage)?;
        }
        if let Some(r) = &recording {
            r.histograms(&result.histograms());
        }
        Ok(result)
    }
    .await;
    save_outcome(recording, &outcome, false);
    outcome
}

/// Checks, before anything is measured, that the target answers and (unless the run loads
/// it) that the index exists and holds documents: a dead port or a missing index would
/// otherwise fail every search of every pass. Returns the engine (`opensearch-2.19.1`).
async fn check_target(target: &Target, spec: &QuerySpec) -> Result<String, SessionError> {
    let url = target.url().as_str().trim_end_matches('/').to_string();
    let engine = engine_name(target).await?;
    if spec.load {
        return Ok(engine);
    }
    let index = &spec.options.index;
    let load_first = || {
        let workload = spec.corpus.workload();
        let shape = match &spec.corpus {
            QueryCorpus::ClusterMetrics(_) => "--seed, --rows-per-epoch and --epochs",
            QueryCorpus::Logs { .. } => "--seed, --docs, --start and --window",
        };
        format!(
            "load it first with `searchbench ingest {workload} --url {url} --index {index}` \
             (the same {shape} as here), or add --load to this command"
        )
    };
    #[derive(serde::Deserialize)]
    struct Count {
        count: u64,
    }
    // The truth is recomputed from the flags: an index holding another number of documents
    // would fail thousands of answers for a reason that is not the engine's. Without checks
    // (`--no-check`) the corpus does not matter.
    let expected = match &spec.corpus {
        _ if !spec.options.check => None,
        QueryCorpus::Logs { spec: logs, .. } => Some(("--docs", logs.docs)),
        QueryCorpus::ClusterMetrics(m) if spec.truth_file.is_none() => m
            .resolve()
            .ok()
            .map(|(_, rows)| ("--rows-per-epoch × --epochs", rows)),
        QueryCorpus::ClusterMetrics(_) => None,
    };
    match target.get_json::<Count>(&format!("/{index}/_count")).await {
        Ok(c) if c.count > 0 => match expected {
            Some((flags, docs)) if docs != c.count => Err(SessionError::usage(format!(
                "index {index:?} on {url} holds {} documents, but {flags} says {docs}: the \
                 answers would be checked against another corpus, nothing was measured; give \
                 the values it was loaded with, or add --load to load this corpus",
                c.count
            ))),
            _ => Ok(engine),
        },
        Ok(_) => Err(SessionError::Other(format!(
            "index {index:?} on {url} holds no documents, nothing was measured; {}",
            load_first()
        ))),
        Err(e) if e.status() == Some(404) => Err(SessionError::Other(format!(
            "no index {index:?} on {url}, nothing was measured; {}",
            load_first()
        ))),
        Err(e) => Err(SessionError::Other(format!(
            "cannot count the documents of {index:?}, nothing was measured: {}",
            crate::cluster::error_chain(&e)
        ))),
    }
}

/// The engine that answers (`opensearch-2.19.1`), or why nothing can be measured.
pub(super) async fn engine_name(target: &Target) -> Result<String, SessionError> {
    let (product, version, _) = target.product().await.map_err(|e| {
        SessionError::Other(format!(
            "the target does not answer, nothing was measured: {}",
            crate::cluster::error_chain(&e)
        ))
    })?;
    Ok(format!(
        "{}-{version}",
        product.to_string().to_ascii_lowercase()
    ))
}

pub(super) fn usage(e: query::QueryError) -> SessionError {
    SessionError::usage(e.to_string())
}

/// `target`, or the same cluster through a delay proxy per endpoint (`--rtt`); the proxies
/// live as long as the returned guard.
pub(super) async fn through_delay(
    target: Target,
    rtt: Option<crate::cluster::delay::Rtt>,
) -> Result<(Target, Option<Vec<crate::cluster::delay::DelayProxy>>), SessionError> {
    Ok(match rtt {
        Some(rtt) => {
            let (t, proxies) = crate::cluster::delay::delayed(&target, rtt).await?;
            (t, Some(proxies))
        }
        None => (target, None),
    })
}

/// Runs `plan` with the method's `options` on a thread of its own while the sampler watches
/// `target`; the result carries the telemetry summary.
pub(super) async fn measure_sampled(
    plan: QueryPlan,
    target: Target,
    options: QueryOptions,
    telemetry: &super::TelemetrySpec,
    recording: Option<&Recording<'_>>,
) -> Result<QueryResult, SessionError> {
    let sampled_target = target.clone();
    let measure = on_own_thread(move || async move { plan.run(&target, options).await });
    let (measured, sampled) =
        super::telemetry::beside(telemetry, &sampled_target, &[], "query", recording, measure)
            .await;
    let mut result = measured?.map_err(usage)?;
    result.telemetry = sampled.map(|t| t.summary(None));
    Ok(result)
}

/// Loads a cluster-metrics corpus into `index` the way `query --load` does (the workload's
/// index setup, the ingest path) and returns its truth.
pub async fn load_metrics(
    target: &Target,
    spec: &MetricsSpec,
    index: &str,
    observer: &dyn Observer,
    cancel: Option<&Cancel>,
) -> Result<Vec<PartitionTruth>, SessionError> {
    let mut spec = spec.clone();
    spec.truth = true;
    let generator = ClusterMetrics::new(spec.clone())?;
    let truth = generator.truth_handle();
    let job = workload_job("cluster-metrics", Box::new(generator), index, spec.seed)?;
    load_quietly(target, job, observer, cancel).await?;
    Ok(truth.take())
}

/// Loads a logs corpus into `index` the way `query --load` does.
pub async fn load_logs(
    target: &Target,
    spec: &LogsSpec,
    index: &str,
    observer: &dyn Observer,
    cancel: Option<&Cancel>,
) -> Result<(), SessionError> {
    let job = workload_job("logs", Box::new(Logs::new(spec.clone())?), index, spec.seed)?;
    load_quietly(target, job, observer, cancel).await
}

fn workload_job(
    name: &str,
    source: Box<dyn crate::corpus::DocSource>,
    index: &str,
    seed: u64,
) -> Result<Job, SessionError> {
    let w = super::job::find_workload(name)?;
    Ok(Job {
        source,
        index: index.to_string(),
        index_body: w.index_body(),
        workload: w.name().to_string(),
        seed: Some(seed),
        truth: None,
        csv_mapping: None,
    })
}

/// Loads a query corpus with the driver's defaults; anything short of a reconciled load is
/// an error, since the answers would then be checked against the wrong truth. `cancel`
/// (Ctrl-C) stops the load, and the session with it.
async fn load_quietly(
    target: &Target,
    job: Job,
    observer: &dyn Observer,
    cancel: Option<&Cancel>,
) -> Result<(), SessionError> {
    let mut spec = LoadSpec::new(job.index.clone());
    spec.telemetry = super::TelemetrySpec::off();
    spec.cancel = cancel.cloned();
    let report = load(target, job, spec, Vec::new(), None, observer).await?;
    if report.interrupted {
        return Err(SessionError::Interrupted(format!(
            "loading {} was stopped before any query",
            report.index
        )));
    }
    if report.error.is_some() || !report.counts.reconciled {
        return Err(SessionError::Other(format!(
            "loading {} did not complete: {}",
            report.index,
            report
                .error
                .clone()
                .unwrap_or_else(|| "counts do not reconcile".into())
        )));
    }
    Ok(())
}

type Measured = Result<QueryResult, query::QueryError>;

/// Runs `job` on a single-threaded runtime of its own: the requests are few at a time (one,
/// or `--search-clients`), and one thread spares every response a cross-thread wake-up (~10 µs
/// per request on this path).
pub(super) async fn on_own_thread<F, Fut>(job: F) -> Result<Measured, SessionError>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Measured>,
{
    tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| SessionError::Other(format!("cannot start a query runtime: {e}")))?;
        Ok(runtime.block_on(job()))
    })
    .await
    .map_err(|e| SessionError::Other(format!("the query task failed: {e}")))?
}

/// The query phase of `searchbench run`, after the ingest of a built-in workload: the
/// workload's variants with the default method, answers checked against the corpus's truth.
/// `None` for workloads without queries (transactions).
pub async fn after_ingest(
    target: Target,
    index: &str,
    workload: &str,
    spec: &WorkloadSpec,
    truth: Vec<PartitionTruth>,
    progress: query::Progress,
    observer: &dyn Observer,
) -> Result<Option<QueryResult>, SessionError> {
    let plan = super::job::find_workload(workload)?.query_plan(spec, truth)?;
    observer.event(Event::Querying {
        index,
        workload,
        has_queries: plan.is_some(),
    });
    let Some(plan) = plan else {
        return Ok(None);
    };
    let mut options = plan.default_options(index);
    options.progress = progress;
    let measured = on_own_thread(move || async move { plan.run(&target, options).await }).await?;
    Ok(Some(measured?))
}

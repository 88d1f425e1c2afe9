//! The query phase: the `002` method on a built-in workload's index, answers checked against
//! the corpus's ground truth, recorded as it goes.

use crate::session::record::Keep;
use std::path::PathBuf;

use super::ingest::{load, LoadSpec};
use super::record::{save_outcome, Recording, SaveSpec};
use super::{Event, Job, Observer, SessionError};
use crate::cancel::Cancel;
use crate::cluster::Target;
use crate::corpus::truth_file;
use crate::query::{self, QueryOptions, QueryPlan, QueryResult};
use crate::store::Kind;
use crate::workload::{PartitionTruth, Workload, WorkloadSpec};

/// `searchbench query`: what to measure and how.
#[derive(Debug, Clone)]
pub struct QuerySpec {
    /// The workload whose queries run, on an index holding the corpus of `corpus`.
    pub workload: &'static dyn Workload,
    pub corpus: WorkloadSpec,
    pub options: QueryOptions,
    /// Create the index and load the corpus first (through the ingest path).
    pub load: bool,
    /// A truth file (cluster-metrics) instead of recomputing the truth.
    pub truth_file: Option<PathBuf>,
    /// A previous `--json` result to report drift against.
    pub baseline: Option<PathBuf>,
    /// Delay added between the driver and the cluster (`--rtt`) by a proxy on 127.0.0.1.
    pub rtt: Option<crate::cluster::delay::Rtt>,
    /// The engine sampled during the queries (see [`super::telemetry`]).
    pub telemetry: super::TelemetrySpec,
}

impl QuerySpec {
    /// Fills in the workload's variants and transports where none were given (so the stored
    /// configuration names them), or says what cannot run before anything is sent: a
    /// workload without queries, a truth file for one without a truth, a corpus its
    /// generator refuses, an unknown variant.
    fn resolve(&mut self) -> Result<(), SessionError> {
        let w = self.workload;
        let known = w.query_variants();
        if known.is_empty() {
            return Err(SessionError::usage(format!(
                "the {} workload has no queries{}",
                w.name(),
                with_queries()
            )));
        }
        if self.truth_file.is_some() && !w.wants_truth() {
            return Err(SessionError::usage(format!(
                "--truth is for workloads with a ground truth file (cluster-metrics); the {} \
                 truth is recomputed from {}",
                w.name(),
                w.corpus_flags()
            )));
        }
        w.open(&self.corpus)?;
        if self.options.variants.is_empty() {
            self.options.variants = known;
        } else {
            self.options.variants = self
                .options
                .variants
                .iter()
                .map(|v| {
                    crate::query::Variant::find_in(&known, v.name()).ok_or_else(|| {
                        SessionError::usage(crate::suggest::unknown(
                            &format!("{} variant", w.name()),
                            v.name(),
                            known.iter().map(|v| v.name()),
                        ))
                    })
                })
                .collect::<Result<_, _>>()?;
        }
        if self.options.transports.is_empty() {
            self.options.transports = w.query_transports();
        }
        Ok(())
    }
}

/// Which workloads have queries, for errors.
fn with_queries() -> String {
    let names: Vec<&str> = crate::workload::all()
        .iter()
        .filter(|w| !w.query_variants().is_empty())
        .map(|w| w.name())
        .collect();
    format!(
        " (these have: {}; or give --queries FILE)",
        names.join(", ")
    )
}

/// Runs a query workload on `target` and keeps the result.
pub async fn query(
    spec: QuerySpec,
    target: Target,
    urls: &[String],
    save: &SaveSpec,
    observer: &dyn Observer,
) -> Result<QueryResult, SessionError> {
    let mut spec = spec;
    spec.resolve()?;
    let options = &spec.options;
    let workload = spec.workload.name();
    let config = serde_json::json!({
        "workload": workload,
        "index": options.index,
        "urls": crate::cluster::redact_urls(urls),
        "seed": spec.corpus.seed,
        // As stored before the workloads owned their queries: logs' document count only.
        "docs": spec
            .workload
            .docs(&spec.corpus)
            .filter(|_| !spec.workload.wants_truth())
            .map(|(_, n)| n),
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
        workload,
        Some(spec.corpus.seed),
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
        let truth = if spec.load {
            Some(
                load_corpus(
                    &target,
                    spec.workload,
                    &spec.corpus,
                    &spec.options.index,
                    observer,
                    cancel,
                )
                .await?,
            )
        } else if let Some(path) = &spec.truth_file {
            Some(truth_file::read(path)?)
        } else {
            None
        };
        let truth = truth.filter(|_| spec.workload.wants_truth());
        let Some(plan) = spec.workload.query_plan(&spec.corpus, truth)? else {
            return Err(SessionError::usage(format!(
                "the {workload} workload has no queries"
            )));
        };
        let headline = plan.headline();
        let mut result = measure_sampled(
            plan,
            target,
            spec.options.clone(),
            &spec.telemetry,
            recording.as_ref().map(|r| r as &dyn Keep),
        )
        .await?;
        result.engine = Some(engine);
        result.rtt = spec.rtt;
        if let Some(path) = &spec.baseline {
            result.compare_baseline(path, headline).map_err(usage)?;
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
        let workload = spec.workload.name();
        let shape = spec.workload.corpus_flags();
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
    let expected = if spec.options.check && spec.truth_file.is_none() {
        spec.workload.docs(&spec.corpus)
    } else {
        None
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
    plan: Box<dyn QueryPlan>,
    target: Target,
    options: QueryOptions,
    telemetry: &super::TelemetrySpec,
    keep: Option<&dyn Keep>,
) -> Result<QueryResult, SessionError> {
    let sampled_target = target.clone();
    let measure =
        on_own_thread(move || async move { query::run(plan.as_ref(), &target, &options).await });
    let (measured, sampled) =
        super::telemetry::around(telemetry, &sampled_target, &[], "query", keep, measure).await;
    let mut result = measured?.map_err(usage)?;
    result.telemetry = sampled.map(|t| t.summary(None));
    Ok(result)
}

/// Loads the corpus of `spec` into `index` the way `query --load` does (the workload's index
/// setup, the ingest path) and returns the truth its generator published (none for a
/// workload without one).
pub async fn load_corpus(
    target: &Target,
    workload: &dyn Workload,
    spec: &WorkloadSpec,
    index: &str,
    observer: &dyn Observer,
    cancel: Option<&Cancel>,
) -> Result<Vec<PartitionTruth>, SessionError> {
    let mut spec = spec.clone();
    spec.params.truth = workload.wants_truth();
    let opened = workload.open(&spec)?;
    let job = Job {
        source: opened.source,
        index: index.to_string(),
        index_body: workload.index_body(),
        workload: workload.name().to_string(),
        seed: Some(spec.seed),
        truth: None,
        csv_mapping: None,
    };
    load_quietly(target, job, observer, cancel).await?;
    Ok(opened.truth.map(|t| t.take()).unwrap_or_default())
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
    let w = super::job::find_workload(workload)?;
    let plan = w.query_plan(spec, w.wants_truth().then_some(truth))?;
    observer.event(Event::Querying {
        index,
        workload,
        has_queries: plan.is_some(),
    });
    let Some(plan) = plan else {
        return Ok(None);
    };
    let mut options = QueryOptions::new(index);
    options.progress = progress;
    let measured =
        on_own_thread(move || async move { query::run(plan.as_ref(), &target, &options).await })
            .await?;
    Ok(Some(measured?))
}

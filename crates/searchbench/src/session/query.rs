//! The query phase: the `002` method on a built-in workload's index, answers checked against
//! the corpus's ground truth, recorded as it goes.

use std::path::PathBuf;

use super::attach::{Attach, Identity, Over, Scope};
use super::background::{BackgroundInstrument, BACKGROUND};
use super::ingest::{load, LoadSpec};
use super::lifecycle::{self, Measurements, Plan, Stage, Step, Work};
use super::profile::PROFILE;
use super::record::Keep;
use super::telemetry::TELEMETRY;
use super::{ClusterSpec, Event, Job, Observer, SessionError};
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
    /// The corpus written again over itself beside the searches (see [`super::rewrites`]);
    /// `None`: the index is left alone.
    pub rewrites: Option<super::rewrites::RewriteSpec>,
    /// Shard counts to measure the index at (`--shards`): copies made by the engine at the
    /// setup and removed after the query phase; empty: the index as it is.
    pub shards: Vec<u32>,
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
            let known: Vec<_> = known.into_iter().chain(w.query_named_only()).collect();
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
    attach: &Attach,
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
        "rewrite_clients": spec.rewrites.map(|r| r.clients),
        "rewrite_rate": spec.rewrites.and_then(|r| r.rate),
    });
    let mut config = crate::query::with_part(config, options);
    crate::query::with_axes(&mut config, options, &spec.shards);
    // The shape of a vectors corpus, where given: runs of other dimensions or graphs are other
    // configurations (left out when not given, as stored before there was a choice).
    if let Some(map) = config.as_object_mut() {
        let p = &spec.corpus.params;
        if let Some(dims) = p.dims {
            map.insert("dims".into(), dims.into());
        }
        if let Some(index) = p.vector_index {
            map.insert("vector_index".into(), index.name().into());
        }
    }
    let identity = attach.identity(Kind::Query, workload, Some(spec.corpus.seed), None, config);
    let cluster = ClusterSpec::given(target, urls, spec.rtt);
    let setup = Setup {
        spec: &spec,
        prepared: None,
    };
    let queries = WorkloadQueries {
        spec: &spec,
        prepared: None,
        measured: None,
    };
    setup_then_query(
        &cluster,
        identity,
        [Box::new(setup), Box::new(queries)],
        attach,
        observer,
    )
    .await
}

/// A query command's run: its setup then the query method (the run's instruments, with the
/// machine's background, watch the method alone), kept in the store; the result is what the
/// query phase handed on.
pub(super) async fn setup_then_query<'p>(
    cluster: &ClusterSpec,
    identity: Identity,
    [setup, queries]: [Box<dyn lifecycle::Phase + 'p>; 2],
    attach: &Attach,
    observer: &'p dyn Observer,
) -> Result<QueryResult, SessionError> {
    let scope = Scope {
        telemetry: Over::Only(QUERY),
        profile: Over::Only(QUERY),
        report: false,
    };
    let kit = attach
        .kit(&identity, scope, observer)
        .instrument(lifecycle::around(QUERY, BackgroundInstrument::new()));
    let plan = Plan::new(identity, vec![Step::One(setup), Step::One(queries)]).attach(kit);
    lifecycle::run(cluster, plan, observer, |outcome| {
        outcome
            .take(&QUERIED)
            .ok_or_else(|| SessionError::Other("the query phase handed on no result".into()))
    })
    .await
    .result
}

/// Measures `plan` with the method's `options` on a thread of its own (see [`on_own_thread`])
/// against the stage's cluster; the result names the engine that answered and the delay.
pub(super) async fn measure_on(
    stage: &Stage<'_>,
    plan: Box<dyn QueryPlan>,
    options: QueryOptions,
    engine: String,
) -> Result<QueryResult, SessionError> {
    let measured = on_own_thread(stage.target, move |target| async move {
        query::run(plan.as_ref(), &target, &options).await
    })
    .await?;
    let mut result = measured.map_err(usage)?;
    result.engine = Some(engine);
    result.rtt = stage.rtt;
    Ok(result)
}

/// The phase the query method's telemetry is kept under.
pub(super) const QUERY: &str = crate::store::QUERY;

/// What a query command's query phase hands on: the method's result.
pub(super) const QUERIED: lifecycle::Hand<QueryResult> = lifecycle::Hand::new(QUERY);

/// The setup of a query command's run, what it finds handed on to the query phase.
pub(super) const SETUP: &str = "setup";

/// What the workload's setup hands on to its query phase.
const PREPARED: lifecycle::Hand<Prepared> = lifecycle::Hand::new(SETUP);

/// What the setup of a query run found: the engine that answers, and the truth to check the
/// answers against.
struct Prepared {
    engine: String,
    truth: Option<Vec<PartitionTruth>>,
    /// The index at each shard count of `--shards` (copies made here).
    at_shards: Vec<query::shards::AtShards>,
}

/// The setup of `searchbench query`: the target answers and the index holds the corpus (or,
/// with `--load`, the corpus is loaded), and the truth is at hand. A failure is kept as a
/// failed run, like a load that cannot reach its target.
struct Setup<'p> {
    spec: &'p QuerySpec,
    /// What it found, from its end until it is handed on.
    prepared: Option<Prepared>,
}

impl lifecycle::Phase for Setup<'_> {
    fn name(&self) -> String {
        SETUP.into()
    }

    fn ended(&mut self, _: &Stage<'_>, _: &mut lifecycle::StepEnd) -> Option<lifecycle::Report> {
        self.prepared.take().map(|p| PREPARED.report(p))
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let spec = self.spec;
            // What an ended run left changed on the index (closed for a cold pass, blocked to
            // writes, a load's settings) is put back before the index is read.
            let index = &spec.options.index;
            let settled = crate::cluster::owed::settle(stage.target, index).await;
            for said in settled.map_err(SessionError::Other)? {
                stage.observer.event(super::Event::Warning(said));
            }
            let engine = check_target(stage.target, spec).await?;
            let truth = if spec.load {
                Some(
                    load_corpus(
                        stage.target,
                        spec.workload,
                        &spec.corpus,
                        &spec.options.index,
                        stage.observer,
                        Some(&spec.options.cancel),
                    )
                    .await?,
                )
            } else if let Some(path) = &spec.truth_file {
                Some(truth_file::read(path)?)
            } else {
                None
            };
            let truth = truth.filter(|_| spec.workload.wants_truth());
            let at_shards = if spec.shards.is_empty() {
                Vec::new()
            } else {
                let progress = &spec.options.progress;
                query::shards::prepare(
                    stage.target,
                    &spec.options.index,
                    &spec.shards,
                    &|line: &str| progress.say(line),
                    &spec.options.cancel,
                )
                .await
                .map_err(|e| match e.starts_with(query::shards::INTERRUPTED) {
                    true => SessionError::Interrupted(e),
                    false => SessionError::usage(e),
                })?
            };
            self.prepared = Some(Prepared {
                engine,
                truth,
                at_shards,
            });
            Ok(Measurements::default())
        })
    }
}

/// The query method on a built-in workload's index (`searchbench query`), after its setup:
/// answers checked against the truth, drift against a baseline when one is given.
struct WorkloadQueries<'p> {
    spec: &'p QuerySpec,
    /// What the setup handed on.
    prepared: Option<Prepared>,
    /// What the method measured, from its end until it is handed on.
    measured: Option<QueryResult>,
}

impl lifecycle::Phase for WorkloadQueries<'_> {
    fn name(&self) -> String {
        QUERY.into()
    }

    fn given(&mut self, before: &mut lifecycle::Outcome) {
        self.prepared = before.take(&PREPARED);
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let spec = self.spec;
            let Prepared {
                engine,
                truth,
                at_shards,
            } = self.prepared.take().ok_or_else(|| {
                SessionError::Other("the query phase ran before its setup".into())
            })?;
            let mut options = spec.options.clone();
            options.shards = at_shards;
            // The copies go whatever the method gave.
            let measured = measure_workload(stage, spec, options.clone(), engine, truth).await;
            for left in query::shards::remove(stage.target, &options.shards).await {
                stage.observer.event(super::Event::Warning(left));
            }
            let (mut result, headline) = measured?;
            if let Some(path) = &spec.baseline {
                result.compare_baseline(path, headline).map_err(usage)?;
            }
            let measurements = kept(&result, &stage.feed);
            stage.measured_from.set(result.measured_from);
            self.measured = Some(result);
            Ok(measurements)
        })
    }

    fn ended(&mut self, _: &Stage<'_>, end: &mut lifecycle::StepEnd) -> Option<lifecycle::Report> {
        let mut result = self.measured.take()?;
        summarise(&mut result, &mut end.watched);
        Some(QUERIED.report(result))
    }
}

/// The method on the workload's plan with `options`, with the rewrites beside it when asked;
/// the result and the workload's headline variant.
async fn measure_workload(
    stage: &Stage<'_>,
    spec: &QuerySpec,
    options: QueryOptions,
    engine: String,
    truth: Option<Vec<PartitionTruth>>,
) -> Result<(QueryResult, Option<query::Variant>), SessionError> {
    // `searchbench query` asks an index it counted with `_count`: the search
    // engines' dialect.
    let search = &query::dialect::SEARCH;
    let answerer = query::Answerer::of(stage.target).await;
    let Some(plan) = spec
        .workload
        .query_plan(search, answerer.as_ref(), &spec.corpus, truth)?
    else {
        return Err(SessionError::usage(format!(
            "the {} workload has no queries",
            spec.workload.name()
        )));
    };
    let headline = plan.headline();
    let result = match spec.rewrites {
        None => measure_on(stage, plan, options, engine).await?,
        Some(how) => {
            let measure = |options| measure_on(stage, plan, options, engine);
            let (mut result, writes) = super::rewrites::around(
                stage.target,
                spec.workload,
                &spec.corpus,
                how,
                options,
                measure,
            )
            .await?;
            result.rewrites = Some(writes);
            result
        }
    };
    Ok((result, headline))
}

/// A query result's raw measurements: its HDR histograms, streamed to the run's sinks.
pub(super) fn kept(result: &QueryResult, feed: &lifecycle::Feed) -> Measurements {
    let histograms = result.histograms();
    feed.histograms(&histograms);
    let mut measurements = Measurements::default();
    for h in &histograms {
        // Made here, so they decode; one that did not would only be missing from the merge.
        let _ = measurements.histogram(h);
    }
    measurements
}

/// What the run's instruments saw around a query phase, summarised into its result: the
/// telemetry sampled, the profile recorded, the machine's background (each when the run has
/// the instrument).
pub(super) fn summarise(result: &mut QueryResult, watched: &mut lifecycle::Watched) {
    if let Some(t) = watched.take(&TELEMETRY) {
        result.telemetry = Some(t.summary(None));
    }
    if let Some(p) = watched.take(&PROFILE) {
        result.profile = Some(p);
    }
    if let Some(b) = watched.take(&BACKGROUND) {
        result.background = Some(b);
    }
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
    Ok(format!("{}-{version}", product.traits().word))
}

pub(super) fn usage(e: query::QueryError) -> SessionError {
    SessionError::usage(e.to_string())
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
        index_body: workload.index_body_for(&spec),
        portable_body: true,
        workload: workload.name().to_string(),
        seed: Some(spec.seed),
        truth: None,
        csv_mapping: None,
        byte_share: None,
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

/// Runs `job` against `target` on a single-threaded runtime of its own: the requests are few
/// at a time (one, or `--search-clients`), and one thread spares every response a
/// cross-thread wake-up (~10 µs per request on this path). The job gets the target with a
/// connection pool of its own ([`Target::with_own_pool`]): what else runs beside it (the
/// writes beside the searches) never sends on a connection this runtime drops when it ends.
pub(super) async fn on_own_thread<F, Fut>(target: &Target, job: F) -> Result<Measured, SessionError>
where
    F: FnOnce(Target) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Measured>,
{
    let target = target
        .with_own_pool()
        .map_err(|e| SessionError::Other(format!("cannot make the query client: {e}")))?;
    tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| SessionError::Other(format!("cannot start a query runtime: {e}")))?;
        Ok(runtime.block_on(job(target)))
    })
    .await
    .map_err(|e| SessionError::Other(format!("the query task failed: {e}")))?
}

/// The query phase of `searchbench run`, after the ingest of a built-in workload: the
/// workload's variants with the default method, answers checked against the corpus's truth.
/// `None` for workloads without queries (transactions).
pub async fn after_ingest(
    target: Target,
    workload: &str,
    spec: &WorkloadSpec,
    truth: Option<Vec<PartitionTruth>>,
    options: QueryOptions,
    observer: &dyn Observer,
) -> Result<Option<QueryResult>, SessionError> {
    let index = options.index.as_str();
    let w = super::job::find_workload(workload)?;
    // No truth collected (a part's load saw only its share): computed from the spec.
    let truth = truth.filter(|_| w.wants_truth());
    // The dialect of the product that answers (a cluster that cannot say is asked in the
    // search engines', as before: its answers say what went wrong).
    let answerer = query::Answerer::of(&target).await;
    let dialect = match &answerer {
        Some(a) => query::dialect::spoken_by(a.product),
        None => &query::dialect::SEARCH,
    };
    let plan = w.query_plan(dialect, answerer.as_ref(), spec, truth)?;
    observer.event(Event::Querying {
        index,
        workload,
        has_queries: plan.is_some(),
    });
    let Some(plan) = plan else {
        return Ok(None);
    };
    let measured = on_own_thread(&target, move |target| async move {
        query::run(plan.as_ref(), &target, &options).await
    })
    .await?;
    Ok(Some(measured?))
}

//! `searchbench run`: the whole job for a built-in workload: start an engine (or use the given
//! cluster), set the index up, ingest, run the workload's queries, keep the result with its
//! HTML report, stop the engine.

use serde::Serialize;

use super::attach::{Attach, Over, Scope};
use super::background::BackgroundInstrument;
use super::ingest::{load_identity, load_report, load_step, LoadPhase, LoadSpec, LOADED};
use super::lifecycle::{self, around, Plan, Step};
use super::query::{after_ingest, kept, summarise, QUERY};
use super::{ClusterSpec, Event, Job, Observer, SessionError};
use crate::ingest::{Cancel, IngestReport};
use crate::query::QueryResult;
use crate::store::Kind;
use crate::workload::WorkloadSpec;

/// What a run keeps: the ingest report (flattened, so it reads like one) and the query phase.
#[derive(Debug, Serialize)]
pub struct RunResult {
    #[serde(flatten)]
    pub ingest: IngestReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<QueryResult>,
    /// Stopped (Ctrl-C) during the query phase: the load is whole, the queries are not.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub query_interrupted: bool,
}

/// What to run besides the load.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// The generator spec the job was made from (the query phase recomputes truth from it).
    pub workload_spec: WorkloadSpec,
    /// Run the workload's queries after the load.
    pub queries: bool,
    /// Where the query phase says what it is doing.
    pub progress: crate::query::Progress,
    /// The user's queries instead of the workload's (a workload file).
    pub user_queries: Option<super::user_queries::UserQueryPhase>,
    /// This run is part of one run split over several drivers (`--part`).
    pub split: Option<RunPart>,
    /// The corpus written again over itself beside the query phase (`--rewrite-clients`).
    pub rewrites: Option<super::rewrites::RewriteSpec>,
}

pub use super::join::{RunPart, PARTS_WAIT};

/// Waits until `index` holds `docs` documents (the other parts have loaded theirs), saying so
/// every 10 s; `false` when `cancel` came first.
async fn whole_index(
    target: &crate::cluster::Target,
    index: &str,
    split: &RunPart,
    progress: &crate::query::Progress,
    cancel: &Cancel,
) -> Result<bool, SessionError> {
    let started = std::time::Instant::now();
    let mut said = started;
    loop {
        let n = crate::ingest::count(target, index)
            .await
            .map_err(|e| SessionError::Other(format!("counting {index}: {e}")))?;
        if n >= split.whole_docs {
            return Ok(true);
        }
        if started.elapsed() > split.wait {
            return Err(SessionError::Other(format!(
                "part {}: {index} holds {n} of the run's {} documents after {} s: the other                  parts have not loaded theirs (each part queries the whole index)",
                split.part,
                split.whole_docs,
                split.wait.as_secs()
            )));
        }
        if said.elapsed() >= std::time::Duration::from_secs(10) {
            progress.say(&format!(
                "part {}: waiting for the other parts: {n} of {} documents in {index}",
                split.part, split.whole_docs
            ));
            said = std::time::Instant::now();
        }
        tokio::select! {
            () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
            () = cancel.cancelled() => return Ok(false),
        }
    }
}

/// Runs `job` then its queries, through the run's lifecycle: the load, then (when it loaded
/// whole) the query phase, with the telemetry sampler around each on one clock and their rows
/// streamed into the store. Each phase's result is told to the observer as soon as the phase
/// ends ([`Event::Ingested`], [`Event::Queried`]) and returned together at the end.
pub async fn run(
    mut job: Job,
    cluster: &ClusterSpec,
    load_spec: LoadSpec,
    spec: &RunSpec,
    attach: &Attach,
    observer: &dyn Observer,
) -> Result<RunResult, SessionError> {
    super::ingest::preflight(&job.index, &load_spec)?;
    let identity = load_identity(Kind::Run, &job, cluster, &load_spec, attach);
    // The profile is of the load: the engine's indexing, where the field note found it. The
    // machine's background is read around the queries (the load reads its own).
    let scope = Scope {
        profile: Over::Only(super::ingest::LOAD),
        ..Scope::EVERY
    };
    let kit = attach
        .kit(&identity, scope, observer)
        .instrument(around(QUERY, BackgroundInstrument::new()));
    let queries = QueryPhase {
        index: job.index.clone(),
        workload: job.workload.clone(),
        truth: job.truth.take(),
        spec,
        cancel: load_spec.cancel.clone().unwrap_or_else(Cancel::never),
        queried: None,
    };
    let mut load = LoadPhase::new(job, load_spec);
    load.tell = true;
    let plan = Plan::new(
        identity,
        vec![load_step(load, None), Step::One(Box::new(queries))],
    )
    .attach(kit);
    lifecycle::run(cluster, plan, observer, |outcome| {
        let ingest = load_report(outcome)?;
        let queried = outcome.take(&QUERIED).unwrap_or_default();
        Ok(RunResult {
            ingest,
            query: queried.result,
            query_interrupted: queried.interrupted,
        })
    })
    .await
    .result
}

/// The query phase of a run: the workload's queries (or the user's) against the index the
/// load made, when the load was whole and the run was not stopped. Ctrl-C during it ends the
/// run there, kept as interrupted.
struct QueryPhase<'p> {
    index: String,
    workload: String,
    truth: Option<crate::corpus::TruthHandle>,
    spec: &'p RunSpec,
    cancel: Cancel,
    /// What the phase measured, from its end until it is handed on.
    queried: Option<Queried>,
}

/// What a run's query phase hands on.
const QUERIED: lifecycle::Hand<Queried> = lifecycle::Hand::new(QUERY);

/// What a run's query phase hands on: what it measured, and whether it was stopped.
#[derive(Debug, Default)]
struct Queried {
    result: Option<QueryResult>,
    interrupted: bool,
}

impl lifecycle::Phase for QueryPhase<'_> {
    fn name(&self) -> String {
        QUERY.into()
    }

    /// Only after a whole load (its report says so).
    fn wanted(&self, before: &lifecycle::Outcome) -> bool {
        let loaded = before
            .report(&LOADED)
            .is_some_and(|r| r.error.is_none() && !r.interrupted);
        loaded && self.spec.queries && !self.cancel.is_cancelled()
    }

    fn run<'a>(
        &'a mut self,
        stage: &'a lifecycle::Stage<'a>,
    ) -> lifecycle::Work<'a, Result<lifecycle::Measurements, SessionError>> {
        Box::pin(async move {
            let spec = self.spec;
            // A part's truth is of its share: the whole corpus's is computed from its spec.
            let parts = self.truth.take().map(|t| t.take()).unwrap_or_default();
            let truth = spec.split.is_none().then_some(parts);
            let target = stage.target.clone();
            // Only a phase with queries waits (the user's, or the workload's own).
            let has_queries = spec.user_queries.is_some()
                || super::job::find_workload(&self.workload)
                    .is_ok_and(|w| !w.query_variants().is_empty());
            if let Some(split) = spec.split.as_ref().filter(|_| has_queries) {
                let whole = whole_index(&target, &self.index, split, &spec.progress, &self.cancel);
                if !whole.await? {
                    self.queried = Some(Queried {
                        result: None,
                        interrupted: true,
                    });
                    return Ok(lifecycle::Measurements::default());
                }
            }
            let phase = async {
                match &spec.user_queries {
                    Some(user) => {
                        super::user_queries::after_ingest(
                            target,
                            &self.index,
                            user,
                            spec.progress.clone(),
                            spec.split.as_ref(),
                            stage.observer,
                        )
                        .await
                    }
                    None => {
                        let mut options = crate::query::QueryOptions::new(&self.index);
                        options.progress = spec.progress.clone();
                        if let Some(split) = &spec.split {
                            options.part = split.part;
                            options.group = split.group.clone();
                        }
                        let queries = |options| {
                            after_ingest(
                                target.clone(),
                                &self.workload,
                                &spec.workload_spec,
                                truth,
                                options,
                                stage.observer,
                            )
                        };
                        match spec.rewrites {
                            None => queries(options).await,
                            Some(how) => {
                                let w = super::job::find_workload(&self.workload)?;
                                let (result, writes) = super::rewrites::around(
                                    &target,
                                    w,
                                    &spec.workload_spec,
                                    how,
                                    options,
                                    queries,
                                )
                                .await?;
                                Ok(result.map(|mut r| {
                                    r.rewrites = Some(writes);
                                    r
                                }))
                            }
                        }
                    }
                }
            };
            let (result, interrupted) = tokio::select! {
                result = phase => (result?, false),
                () = self.cancel.cancelled() => (None, true),
            };
            let measurements = result
                .as_ref()
                .map(|r| kept(r, &stage.feed))
                .unwrap_or_default();
            self.queried = Some(Queried {
                result,
                interrupted,
            });
            Ok(measurements)
        })
    }

    fn ended(
        &mut self,
        stage: &lifecycle::Stage<'_>,
        end: &mut lifecycle::StepEnd,
    ) -> Option<lifecycle::Report> {
        let mut queried = self.queried.take()?;
        if let Some(result) = queried.result.as_mut() {
            summarise(result, &mut end.watched);
            stage.observer.event(Event::Queried(result));
        }
        Some(QUERIED.report(queried))
    }
}

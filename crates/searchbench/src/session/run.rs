//! `searchbench run`: the whole job for a built-in workload: start an engine (or use the given
//! cluster), set the index up, ingest, run the workload's queries, keep the result with its
//! HTML report, stop the engine.

use serde::Serialize;

use super::ingest::{begin_recording, LoadSpec};
use super::query::after_ingest;
use super::record::{save_outcome, SaveSpec};
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
}

/// Runs `job` then its queries. Each phase's result is told to the observer as soon as the
/// phase ends ([`Event::Ingested`], [`Event::Queried`]) and returned together at the end.
pub async fn run(
    mut job: Job,
    cluster: &ClusterSpec,
    load_spec: LoadSpec,
    spec: &RunSpec,
    save: &SaveSpec,
    observer: &dyn Observer,
) -> Result<RunResult, SessionError> {
    super::ingest::preflight(&job.index, &load_spec)?;
    let recording = begin_recording(Kind::Run, &job, cluster, &load_spec, save, observer);
    let index = job.index.clone();
    let workload = job.workload.clone();
    let truth = job.truth.take();
    let outcome = super::lifecycle::with_cluster(cluster, observer, async |connected| {
        let cancel = load_spec.cancel.clone().unwrap_or_else(Cancel::never);
        let phases = async {
            // One telemetry clock for both phases: the query phase's seconds follow on.
            let mut load_spec = load_spec;
            let telemetry = super::TelemetrySpec {
                origin: Some(std::time::Instant::now()),
                ..load_spec.telemetry
            };
            load_spec.telemetry = telemetry;
            let ingest = connected
                .load(job, load_spec, recording.as_ref(), observer)
                .await?;
            observer.event(Event::Ingested(&ingest));
            let loaded = ingest.error.is_none() && !ingest.interrupted;
            let mut query_interrupted = false;
            let query = if loaded && spec.queries && !cancel.is_cancelled() {
                let parts = truth.map(|t| t.take()).unwrap_or_default();
                let phase = async {
                    match &spec.user_queries {
                        Some(user) => {
                            super::user_queries::after_ingest(
                                connected.target.clone(),
                                &index,
                                user,
                                spec.progress.clone(),
                                observer,
                            )
                            .await
                        }
                        None => {
                            after_ingest(
                                connected.target.clone(),
                                &index,
                                &workload,
                                &spec.workload_spec,
                                parts,
                                spec.progress.clone(),
                                observer,
                            )
                            .await
                        }
                    }
                };
                // Ctrl-C during the queries ends the run there, kept as interrupted.
                let phase = async {
                    tokio::select! {
                        result = phase => result.map(|r| (r, false)),
                        () = cancel.cancelled() => Ok((None, true)),
                    }
                };
                let (outcome, sampled) = super::telemetry::around(
                    &telemetry,
                    &connected.target,
                    &connected.engine_pids,
                    "query",
                    recording.as_ref(),
                    phase,
                )
                .await;
                let (mut result, interrupted) = outcome?;
                query_interrupted = interrupted;
                if let (Some(r), Some(sampled)) = (&mut result, sampled) {
                    r.telemetry = Some(sampled.summary(None));
                }
                if let Some(r) = &result {
                    observer.event(Event::Queried(r));
                    if let Some(rec) = &recording {
                        rec.histograms(&r.histograms());
                    }
                }
                result
            } else {
                None
            };
            Ok::<_, SessionError>(RunResult {
                ingest,
                query,
                query_interrupted,
            })
        }
        .await;
        phases
    })
    .await;
    save_outcome(recording, &outcome, true);
    outcome
}

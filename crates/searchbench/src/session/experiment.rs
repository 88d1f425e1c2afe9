//! `dates cost` as a session: on each cluster in turn (one we start, or one given), the
//! experiment runs with the engine sampled during it, and its result is kept in the store like
//! any run (kind `experiment`, workload `dates`), so that runs of it compare and show.

use super::cluster::ClusterSpec;
use super::record::{save_outcome, Recording, SaveSpec};
use super::{Observer, SessionError, TelemetrySpec};
use crate::experiment::dates::{self, EngineResult, ExperimentError};
use crate::session::record::Keep;
use crate::store::Kind;

/// What `dates cost` runs, and where.
#[derive(Debug, Clone)]
pub struct DatesSpec {
    pub config: dates::Config,
    /// One entry per cluster, run one after the other.
    pub clusters: Vec<ClusterSpec>,
    /// The engine sampled during each experiment.
    pub telemetry: TelemetrySpec,
}

/// Runs the experiment on every cluster of `spec`, keeping each result in the store as it
/// ends; `log` hears one line per load and `each` every cluster's result as it comes. Stops
/// at the first cluster that cannot run it.
pub async fn dates(
    spec: &DatesSpec,
    save: &SaveSpec,
    observer: &dyn Observer,
    log: &(dyn Fn(&str) + Sync),
    each: &(dyn Fn(&EngineResult) + Sync),
) -> Result<Vec<EngineResult>, SessionError> {
    let mut results = Vec::new();
    for cluster in &spec.clusters {
        let result = on_cluster(spec, cluster, save, observer, log).await?;
        each(&result);
        results.push(result);
    }
    Ok(results)
}

async fn on_cluster(
    spec: &DatesSpec,
    cluster: &ClusterSpec,
    save: &SaveSpec,
    observer: &dyn Observer,
    log: &(dyn Fn(&str) + Sync),
) -> Result<EngineResult, SessionError> {
    let cfg = &spec.config;
    let engine = cluster.engine_name().map(str::to_string);
    let config = serde_json::json!({
        "experiment": "dates",
        "docs": cfg.docs,
        "repeats": cfg.repeats,
        "warmup_docs": cfg.warmup_docs,
        "seed": cfg.seed,
        "clients": cfg.clients,
        "bulk_size": cfg.bulk_size,
        "engine": engine,
    });
    let recording = Recording::begin(
        save,
        Kind::Experiment,
        "dates",
        Some(cfg.seed),
        engine.as_deref(),
        config,
        observer,
    );
    let outcome = async {
        let (measured, sampled) =
            super::lifecycle::with_cluster(cluster, observer, async |connected| {
                let target = connected.target.clone();
                log(&format!(
            "date-cost experiment on {}: {} docs per load, {} repeat(s), warm-up {} docs per \
             variant",
            target.url(),
            cfg.docs,
            cfg.repeats,
            cfg.warmup_docs
        ));
                let work = dates::run(&target, engine.clone(), &connected.engine_pids, cfg, log);
                let (measured, sampled) = super::telemetry::around(
                    &spec.telemetry,
                    &target,
                    &connected.engine_pids,
                    "experiment",
                    recording.as_ref().map(|r| r as &dyn Keep),
                    work,
                )
                .await;
                Ok::<_, SessionError>((measured, sampled))
            })
            .await?;
        let mut result = measured.map_err(|e| match e {
            ExperimentError::Config(m) => SessionError::usage(m),
            ExperimentError::Interrupted => {
                SessionError::Interrupted("the date-cost experiment was stopped".into())
            }
            other => SessionError::Other(other.to_string()),
        })?;
        result.telemetry = sampled.map(|t| t.summary(None));
        Ok(result)
    }
    .await;
    save_outcome(recording, &outcome, false);
    outcome
}

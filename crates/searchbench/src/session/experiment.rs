//! `dates cost` as a session: on each cluster in turn (one we start, or one given), the
//! experiment runs with the engine sampled during it, and its result is kept in the store like
//! any run (kind `experiment`, workload `dates`), so that runs of it compare and show.

use std::cell::RefCell;

use super::cluster::ClusterSpec;
use super::lifecycle::{self, Measurements, Plan, Stage, Step, Work};
use super::record::{Recording, SaveSpec, StoreSink};
use super::telemetry::{Sampled, TelemetryInstrument};
use super::{Observer, SessionError, TelemetrySpec};
use crate::experiment::dates::{self, EngineResult, ExperimentError};
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
    let sampled = Sampled::default();
    let telemetry = TelemetryInstrument::new(&spec.telemetry, &sampled);
    let measured = RefCell::new(None);
    let phase = Dates {
        config: cfg,
        engine,
        log,
        measured: &measured,
        sampled: &sampled,
    };
    let plan = Plan::new(vec![Step::One(Box::new(phase))])
        .instrument(telemetry)
        .sink(recording.map(StoreSink::new));
    lifecycle::run(cluster, plan, observer, |_| {
        measured
            .take()
            .ok_or_else(|| SessionError::Other("the experiment kept no result".into()))
    })
    .await
    .result
}

/// The date-cost experiment as the phase of a run, on the stage's cluster.
struct Dates<'p> {
    config: &'p dates::Config,
    engine: Option<String>,
    log: &'p (dyn Fn(&str) + Sync),
    measured: &'p RefCell<Option<EngineResult>>,
    sampled: &'p Sampled,
}

impl lifecycle::Phase for Dates<'_> {
    fn name(&self) -> String {
        "experiment".into()
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let cfg = self.config;
            (self.log)(&format!(
                "date-cost experiment on {}: {} docs per load, {} repeat(s), warm-up {} docs \
                 per variant",
                stage.target.url(),
                cfg.docs,
                cfg.repeats,
                cfg.warmup_docs
            ));
            let measured = dates::run(
                stage.target,
                self.engine.clone(),
                stage.engine_pids,
                cfg,
                self.log,
            )
            .await;
            let result = measured.map_err(|e| match e {
                ExperimentError::Config(m) => SessionError::usage(m),
                ExperimentError::Interrupted => {
                    SessionError::Interrupted("the date-cost experiment was stopped".into())
                }
                other => SessionError::Other(other.to_string()),
            })?;
            *self.measured.borrow_mut() = Some(result);
            Ok(Measurements::default())
        })
    }

    fn ended(&mut self, _stage: &Stage<'_>) {
        let sampled = self.sampled.borrow_mut().remove(&self.name());
        if let (Some(result), Some(t)) = (self.measured.borrow_mut().as_mut(), sampled) {
            result.telemetry = Some(t.summary(None));
        }
    }
}

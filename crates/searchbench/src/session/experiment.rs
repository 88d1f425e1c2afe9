//! `dates cost` as a session: on each cluster in turn (one we start, or one given), the
//! experiment runs with the run's instruments around it (the engine sampled during it), and its result is kept in the store like
//! any run (kind `experiment`, workload `dates`), so that runs of it compare and show.

use std::collections::BTreeMap;

use std::path::Path;

use super::attach::{Attach, Over, Scope};
use super::cluster::ClusterSpec;
use super::lifecycle::{self, Measurements, Plan, Stage, Step, Work};
use super::profile::{combine, Recorded, Recorder};
use super::telemetry::TELEMETRY;
use super::{Observer, SessionError};
use crate::experiment::dates::{self, EngineResult, ExperimentError};
use crate::store::Kind;

/// What `dates cost` runs, and where.
#[derive(Debug, Clone)]
pub struct DatesSpec {
    pub config: dates::Config,
    /// One entry per cluster, run one after the other.
    pub clusters: Vec<ClusterSpec>,
}

/// Runs the experiment on every cluster of `spec`, keeping each result in the store as it
/// ends; `log` hears one line per load and `each` every cluster's result as it comes. Stops
/// at the first cluster that cannot run it.
pub async fn dates(
    spec: &DatesSpec,
    attach: &Attach,
    observer: &dyn Observer,
    log: &(dyn Fn(&str) + Sync),
    each: &(dyn Fn(&EngineResult) + Sync),
) -> Result<Vec<EngineResult>, SessionError> {
    let mut results = Vec::new();
    for cluster in &spec.clusters {
        let result = on_cluster(spec, cluster, attach, observer, log).await?;
        each(&result);
        results.push(result);
    }
    Ok(results)
}

async fn on_cluster(
    spec: &DatesSpec,
    cluster: &ClusterSpec,
    attach: &Attach,
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
    let identity = attach.identity(
        Kind::Experiment,
        "dates",
        Some(cfg.seed),
        engine.as_deref(),
        config,
    );
    // The experiment records its variants' loads itself (one profile per variant).
    let scope = Scope {
        profile: Over::Never,
        report: false,
        ..Scope::EVERY
    };
    let kit = attach.kit(&identity, scope, observer);
    let profiles = attach.profile.as_ref().map(|p| VariantProfiles {
        recorder: Recorder::new(p, kit.profiles_dir().map(Path::to_path_buf)),
        engine_pids: Vec::new(),
        spans: BTreeMap::new(),
        warnings: Vec::new(),
    });
    let phase = Dates {
        config: cfg,
        engine,
        log,
        measured: None,
        profiles,
    };
    let plan = Plan::new(identity, vec![Step::One(Box::new(phase))]).attach(kit);
    lifecycle::run(cluster, plan, observer, |outcome| {
        outcome
            .take(&MEASURED)
            .ok_or_else(|| SessionError::Other("the experiment handed on no result".into()))
    })
    .await
    .result
}

/// The date-cost experiment as the phase of a run, on the stage's cluster.
struct Dates<'p> {
    config: &'p dates::Config,
    engine: Option<String>,
    log: &'p (dyn Fn(&str) + Sync),
    /// What it measured, from its end until it is handed on.
    measured: Option<EngineResult>,
    profiles: Option<VariantProfiles>,
}

/// The engine profile of each variant: every measured load of it recorded, the loads of one
/// variant summed into its profile (so the variants' date-parsing shares compare).
struct VariantProfiles {
    recorder: Recorder,
    engine_pids: Vec<u32>,
    /// Variant id → its loads' recordings.
    spans: BTreeMap<&'static str, Vec<Recorded>>,
    warnings: Vec<String>,
}

impl dates::LoadWatch for VariantProfiles {
    fn before<'a>(&'a mut self, variant: &'a dates::Variant, repeat: u32) -> dates::Watching<'a> {
        Box::pin(async move {
            let label = format!("dates-{}-{repeat}", variant.id);
            if let Err(e) = self.recorder.start(&label, &self.engine_pids).await {
                self.warnings.push(format!("profile of {label}: {e}"));
            }
        })
    }

    fn after<'a>(&'a mut self, variant: &'a dates::Variant, repeat: u32) -> dates::Watching<'a> {
        Box::pin(async move {
            if !self.recorder.running() {
                return;
            }
            match self.recorder.stop(None).await {
                Ok((recorded, errors)) => {
                    self.spans.entry(variant.id).or_default().push(recorded);
                    self.warnings.extend(errors);
                }
                Err(e) => self
                    .warnings
                    .push(format!("profile of dates-{}-{repeat}: {e}", variant.id)),
            }
        })
    }
}

/// The experiment's phase.
const EXPERIMENT: &str = "experiment";

/// What the experiment's phase hands on: the engine's result.
const MEASURED: lifecycle::Hand<EngineResult> = lifecycle::Hand::new(EXPERIMENT);

impl lifecycle::Phase for Dates<'_> {
    fn name(&self) -> String {
        EXPERIMENT.into()
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
            let mut profiles = self.profiles.take();
            if let Some(p) = profiles.as_mut() {
                p.engine_pids = stage.engine_pids.to_vec();
            }
            let measured = dates::run(
                stage.target,
                self.engine.clone(),
                stage.engine_pids,
                cfg,
                self.log,
                profiles.as_mut().map(|p| p as &mut dyn dates::LoadWatch),
            )
            .await;
            if let Some(p) = &profiles {
                for w in &p.warnings {
                    stage.observer.event(super::Event::Warning(w.clone()));
                }
            }
            let result = measured.map_err(|e| match e {
                ExperimentError::Config(m) => SessionError::usage(m),
                ExperimentError::Interrupted => {
                    SessionError::Interrupted("the date-cost experiment was stopped".into())
                }
                other => SessionError::Other(other.to_string()),
            })?;
            let mut result = result;
            if let Some(mut p) = profiles {
                for v in &mut result.variants {
                    v.profile = combine(p.spans.remove(v.variant.id).unwrap_or_default());
                }
            }
            self.measured = Some(result);
            Ok(Measurements::default())
        })
    }

    fn ended(&mut self, _: &Stage<'_>, end: &mut lifecycle::StepEnd) -> Option<lifecycle::Report> {
        let mut result = self.measured.take()?;
        if let Some(t) = end.watched.take(&TELEMETRY) {
            result.telemetry = Some(t.summary(None));
        }
        Some(MEASURED.report(result))
    }
}

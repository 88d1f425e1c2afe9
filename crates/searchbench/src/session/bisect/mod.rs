//! `searchbench bisect`: which release between a good and a bad one first changed a metric.
//! The search is [`search`] (pure: it asks a probe for one more value); here its probe is a
//! real run of the workload on the release, kept in the store with a `bisect=<id>` tag.

pub mod search;

use serde::Serialize;
use serde_json::Value;

use super::ingest::LoadSpec;
use super::run::{run, RunSpec};
use super::{Attach, ClusterSpec, Job, SessionError};
use crate::analysis::check;
use crate::analysis::metrics;
use crate::engine::{self, EngineSpec, StartOptions};
use crate::ingest::Cancel;
use crate::workload::WorkloadSpec;
use search::{bisect as search_versions, Bisection, Policy, Probe};

/// What to bisect, and how each run goes.
#[derive(Debug, Clone)]
pub struct BisectSpec {
    pub workload: String,
    pub workload_spec: WorkloadSpec,
    pub index: Option<String>,
    /// Run the workload's queries after each load.
    pub queries: bool,
    pub good: String,
    pub bad: String,
    /// A metric key or its last part (see [`check::resolve_metric`]).
    pub metric: String,
    pub policy: Policy,
    /// How to start each release's nodes (`engine` is set per release).
    pub start: StartOptions,
    pub load: LoadSpec,
    /// What the flags attach to each run (its store, telemetry, tags).
    pub attach: Attach,
    /// One line per run and per decision.
    pub progress: crate::query::Progress,
}

#[derive(Debug, Serialize)]
pub struct BisectResult {
    /// The `bisect=<id>` tag of every run.
    pub id: String,
    /// The metric's key.
    pub metric: String,
    /// The releases searched, by index: the good end first, the bad end last.
    pub versions: Vec<String>,
    pub bisection: Bisection,
}

/// The releases from `good` to `bad` (both included) of the same product and kind.
pub async fn releases(good: &str, bad: &str) -> Result<Vec<EngineSpec>, SessionError> {
    let usage = |e: engine::EngineError| SessionError::usage(e.to_string());
    let good = engine::resolve_fresh(good).await.map_err(usage)?;
    let bad = engine::resolve_fresh(bad).await.map_err(usage)?;
    if good.product != bad.product || good.kind != bad.kind {
        return Err(SessionError::usage(format!(
            "--good {} and --bad {} must be releases of the same product and kind ({} {} vs {} {})",
            good.name, bad.name, good.product, good.kind, bad.product, bad.kind
        )));
    }
    let (from, to) = (good.parsed_version(), bad.parsed_version());
    if from == to {
        return Err(SessionError::usage(format!(
            "--good and --bad are the same release, {}",
            good.name
        )));
    }
    let (low, high) = if from < to { (from, to) } else { (to, from) };
    let mut list: Vec<EngineSpec> = engine::all()
        .into_iter()
        .filter(|s| s.product == good.product && s.kind == good.kind)
        .filter(|s| (&low..=&high).contains(&&s.parsed_version()))
        .collect();
    // The good end first, whichever is older (an improvement bisects backwards too).
    if good.parsed_version() > bad.parsed_version() {
        list.reverse();
    }
    Ok(list)
}

/// Bisects the releases from `spec.good` to `spec.bad`.
pub async fn bisect(spec: &BisectSpec) -> Result<BisectResult, SessionError> {
    let versions = releases(&spec.good, &spec.bad).await?;
    let id = bisect_id();
    spec.progress.say(&format!(
        "bisect {id}: {} releases from {} (good) to {} (bad); runs tagged bisect={id}",
        versions.len(),
        spec.good,
        spec.bad
    ));
    let mut probe = Runs {
        spec,
        versions: &versions,
        id: id.clone(),
        key: None,
        cancel: spec.load.cancel.clone().unwrap_or_else(Cancel::never),
    };
    let bisection = search_versions(versions.len(), spec.policy, &mut probe).await?;
    Ok(BisectResult {
        metric: probe.key.clone().unwrap_or_else(|| spec.metric.clone()),
        id,
        versions: versions.into_iter().map(|s| s.name).collect(),
        bisection,
    })
}

fn bisect_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{:08x}",
        (nanos as u64 ^ u64::from(std::process::id())) as u32
    )
}

/// The probe: one real run of the workload on release `i`.
struct Runs<'a> {
    spec: &'a BisectSpec,
    versions: &'a [EngineSpec],
    id: String,
    /// The metric's key, resolved on the first result.
    key: Option<String>,
    cancel: Cancel,
}

/// Hears nothing of a run but whether it could not be saved.
#[derive(Default)]
struct NotSavedHeard(std::sync::atomic::AtomicBool);

impl super::Observer for NotSavedHeard {
    fn event(&self, event: super::Event<'_>) {
        if matches!(event, super::Event::NotSaved) {
            self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Probe for Runs<'_> {
    type Error = SessionError;

    async fn measure(&mut self, i: usize) -> Result<f64, SessionError> {
        let spec = self.spec;
        let engine = &self.versions[i].name;
        if self.cancel.is_cancelled() {
            return Err(SessionError::Interrupted(format!(
                "bisect {} stopped before a run of {engine}",
                self.id
            )));
        }
        let job = Job::generated(&spec.workload, &spec.workload_spec, spec.index.clone(), &[])?;
        let mut start = spec.start.clone();
        start.engine = engine.clone();
        let cluster = ClusterSpec::local(start);
        let mut attach = spec.attach.clone();
        attach.save.tags.push(("bisect".into(), self.id.clone()));
        let run_spec = RunSpec {
            workload_spec: spec.workload_spec.clone(),
            queries: spec.queries,
            progress: crate::query::Progress::default(),
            user_queries: None,
            split: None,
            rewrites: None,
        };
        // The job names the index (the workload's unless --index).
        let mut load = spec.load.clone();
        load.driver.index = job.index.clone();
        let heard = NotSavedHeard::default();
        let result = run(job, &cluster, load, &run_spec, &attach, &heard).await?;
        if heard.0.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(SessionError::Other(format!(
                "the run of {engine} could not be saved in the results store (see the warning): \
                 a bisection keeps every run it makes"
            )));
        }
        if result.ingest.interrupted || result.query_interrupted {
            return Err(SessionError::Interrupted(format!(
                "bisect {} stopped during a run of {engine}",
                self.id
            )));
        }
        let value =
            serde_json::to_value(&result).map_err(|e| SessionError::Other(e.to_string()))?;
        let (state, why) = crate::store::outcome_of(&value);
        if state != crate::store::State::Complete {
            return Err(SessionError::Other(format!(
                "the run of {engine} did not complete ({}): a bisection needs whole runs",
                why.unwrap_or_else(|| state.name().into())
            )));
        }
        let timeline = value
            .get("timeline")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let found = metrics::extract(&value, &timeline);
        let key = match &self.key {
            Some(k) => k.clone(),
            None => {
                let keys: Vec<String> = found.iter().map(|m| m.key.clone()).collect();
                let k = check::resolve_metric(&spec.metric, &keys)
                    .map_err(|e| SessionError::usage(e.to_string()))?;
                self.key = Some(k.clone());
                k
            }
        };
        let m = found
            .iter()
            .find(|m| m.key == key)
            .ok_or_else(|| SessionError::Other(format!("the run of {engine} has no {key}")))?;
        spec.progress.say(&format!(
            "  {engine}: {} {}",
            crate::units::format_value(m.value),
            m.unit
        ));
        Ok(m.value)
    }
}

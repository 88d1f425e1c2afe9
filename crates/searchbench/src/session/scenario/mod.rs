//! The multi-phase scenarios over many small indices (`many-shards`, `snapshots`), run by
//! `searchbench run`. Both start by creating N auditbeat-like indices and filling each with
//! its documents from C clients (the rate of index creation over time, and the size of the
//! cluster state as it grows); then
//!
//! * many-shards: logs indexing at bulk 1,000 with searches beside it, then field-capabilities
//!   latency over all the indices from 2 clients;
//! * snapshots: K sequential create-snapshot requests (`wait_for_completion=false`) into an
//!   `fs` repository, then waiting until every snapshot has completed (create service time,
//!   wait duration, failures, GC time of the nodes, error rate).
//!
//! Every name we make carries a stamp of this run (`searchbench-shards-<stamp>-00042`), so
//! nothing of anyone else is ever touched; everything made (indices, snapshots, the
//! repository when we registered it) is deleted at the end, also after an error or a cancel.
//!
//! Here: the spec, the run's plan and its result, and the cleanup; the phases as the
//! lifecycle runs them in `phases.rs`, their work in `creation.rs` (both scenarios),
//! `many_shards.rs` and `snapshots.rs`; the typed results in `workload/scenario_result.rs`.

mod creation;
mod many_shards;
mod phases;
mod snapshots;

use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use hdrhistogram::Histogram;
use reqwest::Method;

use super::attach::{Attach, Over, Scope};
use super::ingest::{load_step, LoadPhase, LOAD, LOADED};
use super::lifecycle::{self, Outcome, Plan, Step};
use super::{ClusterSpec, Observer, SessionError};
use crate::cluster::Target;
use crate::ingest::Cancel;
use crate::store::Kind;
use crate::workload::Scenario;

use crate::workload::scenario_result::latency_of;
pub use crate::workload::scenario_result::{
    Cleanup, Creation, CreationSecond, IndexCounts, Latency, ScenarioResult, Snapshots, StateSample,
};
use many_shards::logs_load;
use phases::{ScenarioPhase, ScenarioStep, Shared};
use snapshots::Repository;

/// How big a scenario is and how it loads.
#[derive(Debug, Clone)]
pub struct ScenarioSpec {
    pub scenario: Scenario,
    pub seed: u64,
    /// Indices to create and fill.
    pub indices: u64,
    pub docs_per_index: u64,
    /// Clients creating and filling indices (and loading logs, many-shards).
    pub clients: usize,
    /// Documents per bulk request while filling the indices.
    pub fill_bulk: usize,
    /// many-shards: logs documents of the indexing phase, bulk size, searching clients.
    pub logs_docs: u64,
    pub logs_bulk: usize,
    pub search_clients: usize,
    /// many-shards: field-caps requests (from 2 clients).
    pub field_caps_requests: u64,
    /// snapshots: sequential create-snapshot requests.
    pub snapshots: u64,
    /// snapshots: a repository the user registered (else we register an `fs` one).
    pub repository: Option<String>,
    pub cancel: Option<Cancel>,
    /// many-shards: the clients sending the field-caps requests.
    pub field_caps_clients: usize,
    /// One part of a scenario split over several drivers: it makes its share of the indices
    /// (by number) and loads its share of the logs; part 1 alone takes the snapshots and
    /// cleans up; the parts wait for each other between the phases. Its clients, search
    /// clients and field-caps requests are its shares already.
    pub part: Option<crate::session::join::PartOf>,
}

impl ScenarioSpec {
    /// The defaults: sizes that finish in a few minutes on a 2-core machine with a 1 GB heap.
    pub fn new(scenario: Scenario) -> Self {
        ScenarioSpec {
            scenario,
            seed: 1,
            indices: 500,
            docs_per_index: 100,
            clients: 2,
            fill_bulk: 100,
            logs_docs: 100_000,
            logs_bulk: 1_000,
            search_clients: 2,
            field_caps_requests: 50,
            snapshots: 20,
            repository: None,
            cancel: None,
            field_caps_clients: 2,
            part: None,
        }
    }

    /// The numbers of the indices this run makes: all, or its part's share.
    pub fn index_range(&self) -> (u64, u64) {
        match &self.part {
            Some(p) => p.part.share(self.indices),
            None => (0, self.indices),
        }
    }

    /// Part 1 (or a whole run): it sets up the repository, takes the snapshots, cleans up.
    fn is_first(&self) -> bool {
        self.part.as_ref().is_none_or(|p| p.part.index == 1)
    }

    /// The phase `--profile` records: many-shards' logs load (the cluster with thousands of
    /// shards at work), the snapshots.
    pub fn profiled_phase(&self) -> &'static str {
        match self.scenario {
            Scenario::ManyShards => LOAD,
            Scenario::Snapshots => "snapshots",
        }
    }

    fn validate(&self) -> Result<(), SessionError> {
        let at_least_one = [
            ("--indices", self.indices),
            ("--docs-per-index", self.docs_per_index),
            ("--clients", self.clients as u64),
            ("--bulk-size", self.fill_bulk as u64),
        ];
        for (flag, v) in at_least_one {
            if v == 0 {
                return Err(SessionError::usage(format!("{flag} must be at least 1")));
            }
        }
        if self.indices > 99_999 {
            return Err(SessionError::usage("--indices is at most 99999"));
        }
        match self.scenario {
            Scenario::ManyShards => {
                if self.logs_docs == 0 || self.search_clients == 0 {
                    return Err(SessionError::usage(
                        "--docs and --search-clients must be at least 1",
                    ));
                }
            }
            Scenario::Snapshots => {
                if self.snapshots == 0 {
                    return Err(SessionError::usage("--snapshots must be at least 1"));
                }
            }
        }
        Ok(())
    }
}

/// Runs `spec` on the given cluster or on an engine started for it, keeps the result.
pub async fn run(
    spec: ScenarioSpec,
    cluster: &ClusterSpec,
    attach: &Attach,
    observer: &dyn Observer,
) -> Result<ScenarioResult, SessionError> {
    spec.validate()?;
    let name = match spec.scenario {
        Scenario::ManyShards => "many-shards",
        Scenario::Snapshots => "snapshots",
    };
    let mut cluster = cluster.clone();
    // An engine we start gets room for the shards the run asks for (the default limit is
    // 1,000 per node); a given cluster is checked instead, never changed.
    if cluster.given.is_none()
        && !cluster
            .start
            .settings
            .iter()
            .any(|(k, _)| k == "cluster.max_shards_per_node")
    {
        let room = (spec.indices + 100).max(1_000);
        cluster
            .start
            .settings
            .push(("cluster.max_shards_per_node".into(), room.to_string()));
    }
    let mut config = serde_json::json!({
        "workload": name,
        "seed": spec.seed,
        "engine": cluster.engine_name(),
        "urls": crate::cluster::redact_urls(&cluster.urls),
        "heap": cluster.given.is_none().then_some(&cluster.start.heap),
        "indices": spec.indices,
        "docs_per_index": spec.docs_per_index,
        "clients": spec.clients,
        "bulk_docs": spec.fill_bulk,
        "logs_docs": (spec.scenario == Scenario::ManyShards).then_some(spec.logs_docs),
        "logs_bulk_docs": (spec.scenario == Scenario::ManyShards).then_some(spec.logs_bulk),
        "search_clients": (spec.scenario == Scenario::ManyShards).then_some(spec.search_clients),
        "snapshots": (spec.scenario == Scenario::Snapshots).then_some(spec.snapshots),
        "repository": spec.repository,
    });
    if let Some(p) = &spec.part {
        config["part"] = p.part.to_string().into();
        config["group"] = p.group.clone().into();
    }
    let identity = attach.identity(
        Kind::Run,
        name,
        Some(spec.seed),
        cluster.engine_name(),
        config,
    );
    // The logs load is sampled (the scenario's own phases are not); the profile is of the
    // scenario's measured phase.
    let scope = Scope {
        telemetry: Over::Only(LOAD),
        profile: Over::Only(spec.profiled_phase()),
        report: true,
    };
    let kit = attach.kit(&identity, scope, observer);
    // The parts of a group name the same indices: the stamp is the group's.
    let stamp = match &spec.part {
        Some(p) => base36(crate::rng::fnv1a([p.group.as_bytes()])),
        None => stamp(),
    };
    let shared = Shared::new(&spec, stamp);
    let logs = match spec.scenario {
        Scenario::ManyShards => {
            let index = format!("{}logs", shared.prefix);
            // Known before it exists, so the cleanup removes it whatever happens.
            shared
                .made
                .indices
                .lock()
                .map_err(poisoned)?
                .push(index.clone());
            Some(logs_load(&spec, &index)?)
        }
        Scenario::Snapshots => None,
    };
    let phase = |step| {
        Box::new(ScenarioPhase {
            step,
            shared: &shared,
            repository: None,
            report: None,
            snapshots: None,
        })
    };
    let joins = std::cell::OnceCell::new();
    let join = |point: &str, end: bool| {
        crate::session::join::JoinPhase::step(
            spec.part.as_ref(),
            &joins,
            &shared.cancel,
            point.to_string(),
            end,
        )
    };
    // A part joins the others before anything, once every index is made (so that each
    // counts them all), after the logs load, and at the end (then part 1 cleans up).
    let mut steps: Vec<Step> = Vec::new();
    steps.extend(join("start", false));
    steps.push(Step::One(phase(ScenarioStep::Setup)));
    steps.push(Step::One(phase(ScenarioStep::Creation)));
    steps.extend(join("created", false));
    steps.push(Step::One(phase(ScenarioStep::Counting)));
    match logs {
        Some((job, load)) => {
            let load = LoadPhase::new(job, load);
            // Not after Ctrl-C: only the cleanup is left to do then.
            steps.push(load_step(load, Some(shared.cancel.clone())));
            steps.extend(join("loaded", false));
            steps.push(Step::One(phase(ScenarioStep::FieldCaps)));
        }
        None if spec.is_first() => steps.push(Step::One(phase(ScenarioStep::Snapshots))),
        None => {}
    }
    steps.extend(join(crate::session::join::END, true));
    steps.push(Step::Finally(phase(ScenarioStep::Cleanup)));
    let plan = Plan::new(identity, steps).attach(kit);
    lifecycle::run(&cluster, plan, observer, |outcome| {
        result_of(outcome, &shared)
    })
    .await
    .result
}

/// The scenario's result, from what its phases handed on.
fn result_of(outcome: &mut Outcome, shared: &Shared<'_>) -> Result<ScenarioResult, SessionError> {
    let spec = shared.spec;
    let missing = |what: &str| SessionError::Other(format!("the scenario kept no {what}"));
    let began = outcome
        .take(&phases::BEGAN)
        .ok_or_else(|| missing("engine"))?;
    let (product, engine_version, target_url) = began.engine;
    let cleaned = outcome.take(&phases::CLEANED);
    let cleanup = cleaned
        .as_ref()
        .map(|c| c.cleanup.clone())
        .unwrap_or_default();
    let taken = outcome.take(&phases::TAKEN);
    // The profile of the measured phase: the logs load's is the scenario's, not its own.
    let mut indexing = outcome.take(&LOADED);
    let profile = match indexing.as_mut() {
        Some(report) => report.profile.take(),
        None => taken.as_ref().and_then(|t| t.profile.clone()),
    };
    let mut warnings = Vec::new();
    if !cleanup.errors.is_empty() {
        warnings.push(format!(
            "cleanup was incomplete: {}",
            cleanup.errors.join("; ")
        ));
    }
    let wall_secs = cleaned.map_or(0.0, |c| {
        c.ended
            .saturating_duration_since(began.started)
            .as_secs_f64()
    });
    Ok(ScenarioResult {
        scenario: spec.scenario,
        tool: "searchbench",
        tool_version: env!("CARGO_PKG_VERSION"),
        product,
        engine_version,
        target_url,
        seed: spec.seed,
        prefix: shared.prefix.clone(),
        started_unix_ms: began.started_unix_ms,
        wall_secs,
        creation: outcome
            .take(&phases::CREATED)
            .ok_or_else(|| missing("creation"))?,
        counts: outcome
            .take(&phases::COUNTED)
            .ok_or_else(|| missing("counts"))?,
        indexing,
        field_caps: outcome.take(&phases::FIELD_CAPS),
        snapshots: taken.and_then(|t| t.snapshots),
        cleanup,
        interrupted: shared.cancel.is_cancelled(),
        warnings,
        profile,
    })
}

/// A stamp unique to this run, so that our names never meet anyone else's.
fn stamp() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    base36((now.as_millis() as u64) ^ (u64::from(std::process::id()) << 40))
}

fn base36(n: u64) -> String {
    let mut s = String::new();
    let mut v = n;
    while v > 0 {
        let d = (v % 36) as u32;
        s.push(char::from_digit(d, 36).unwrap_or('0'));
        v /= 36;
    }
    s.chars().rev().collect()
}

fn poisoned<T>(_: std::sync::PoisonError<T>) -> SessionError {
    SessionError::Other("a scenario worker panicked".into())
}

/// Everything the run made, for the cleanup.
#[derive(Default)]
struct Made {
    indices: Mutex<Vec<String>>,
    snapshots: Mutex<Vec<String>>,
}

fn histogram() -> Histogram<u64> {
    Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("static bounds")
}

/// Runs the futures concurrently on this task and waits for all.
async fn join_all<F: std::future::Future<Output = ()>>(futures: Vec<F>) {
    let mut pinned: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut done = vec![false; pinned.len()];
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, d) in pinned.iter_mut().zip(done.iter_mut()) {
            if !*d {
                if f.as_mut().poll(cx).is_ready() {
                    *d = true;
                } else {
                    pending = true;
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
}

/// Deletes what we made: snapshots, then the repository if we registered it, then the
/// indices by name (never a pattern), in groups that keep the request line short.
async fn clean_up(target: &Target, made: &Made, repo: Option<&Repository>) -> Cleanup {
    let mut cleanup = Cleanup::default();
    let snapshots = made.snapshots.lock().map(|s| s.clone()).unwrap_or_default();
    if let Some(repo) = repo {
        for name in &snapshots {
            match target
                .send(
                    Method::DELETE,
                    &format!("/_snapshot/{}/{name}", repo.name),
                    None,
                )
                .await
            {
                Ok(_) => cleanup.snapshots_deleted += 1,
                Err(e) if e.status() == Some(404) => {}
                Err(e) => cleanup.errors.push(format!(
                    "snapshot {name}: {}",
                    crate::cluster::error_chain(&e)
                )),
            }
        }
        if repo.registered {
            match target
                .send(Method::DELETE, &format!("/_snapshot/{}", repo.name), None)
                .await
            {
                Ok(_) => cleanup.repository_removed = true,
                Err(e) => cleanup.errors.push(format!(
                    "repository {}: {}",
                    repo.name,
                    crate::cluster::error_chain(&e)
                )),
            }
        }
    }
    let indices = made.indices.lock().map(|s| s.clone()).unwrap_or_default();
    for group in indices.chunks(60) {
        let path = format!("/{}?ignore_unavailable=true", group.join(","));
        match target.send(Method::DELETE, &path, None).await {
            Ok(_) => cleanup.indices_deleted += group.len() as u64,
            Err(e) => cleanup.errors.push(format!(
                "deleting indices: {}",
                crate::cluster::error_chain(&e)
            )),
        }
    }
    cleanup
}

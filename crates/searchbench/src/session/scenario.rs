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

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hdrhistogram::Histogram;
use reqwest::Method;
use serde::Serialize;
use serde_json::Value;

use super::ingest::LoadSpec;
use super::record::{save_outcome, Recording, SaveSpec};
use super::{ClusterSpec, Connected, Job, Observer, SessionError};
use crate::cluster::Target;
use crate::corpus::{Auditbeat, AuditbeatSpec, DocSource, Item};
use crate::ingest::{Cancel, IngestReport};
use crate::query::cells::HdrSummary;
use crate::store::Kind;
use crate::workload::{Scenario, WorkloadSpec};

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

/// One second of the creation phase.
#[derive(Debug, Clone, Serialize)]
pub struct CreationSecond {
    pub second: u64,
    /// Indices created and filled during this second.
    pub indices: u64,
    pub docs: u64,
    /// Indices done by the end of this second.
    pub indices_total: u64,
}

/// The size of the cluster state at one moment of the creation phase.
#[derive(Debug, Clone, Serialize)]
pub struct StateSample {
    pub secs: f64,
    /// Our indices done at that moment.
    pub indices: u64,
    /// Bytes of `GET /_cluster/state` (JSON).
    pub bytes: u64,
}

/// The creation phase: indices created and filled, at what rate, and the cluster state.
#[derive(Debug, Clone, Serialize)]
pub struct Creation {
    pub indices_requested: u64,
    pub docs_per_index: u64,
    pub clients: usize,
    pub bulk_docs: usize,
    pub indices_created: u64,
    pub docs_indexed: u64,
    pub secs: f64,
    pub indices_per_sec: f64,
    pub docs_per_sec: f64,
    /// Indices per second over the first and the last tenth of the indices: how much creation
    /// slowed as the cluster state grew.
    pub first_tenth_indices_per_sec: f64,
    pub last_tenth_indices_per_sec: f64,
    /// Index creation requests (PUT), service time.
    pub create_ms: HdrSummary,
    pub errors: u64,
    pub error_examples: Vec<String>,
    pub timeline: Vec<CreationSecond>,
    pub cluster_state: Vec<StateSample>,
}

/// Whether every index exists and holds its documents.
#[derive(Debug, Clone, Serialize)]
pub struct IndexCounts {
    pub expected_indices: u64,
    pub found_indices: u64,
    /// Indices whose `docs.count` is exactly `docs_per_index`.
    pub complete_indices: u64,
    pub docs: u64,
    pub reconciled: bool,
}

/// Latency of one kind of request from a few clients.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub clients: usize,
    pub requests: u64,
    pub errors: u64,
    pub error_examples: Vec<String>,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// The snapshot phase.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshots {
    pub repository: String,
    /// We registered the repository (and removed it at the end).
    pub registered: bool,
    pub requested: u64,
    /// Create-snapshot requests (`wait_for_completion=false`), service time.
    pub create: Latency,
    /// From the first create request until every snapshot completed.
    pub total_secs: f64,
    /// From the answer to the last create request until every snapshot completed.
    pub wait_secs: f64,
    /// Final state → snapshots.
    pub states: std::collections::BTreeMap<String, u64>,
    /// Snapshots not `SUCCESS` (or never created).
    pub failures: u64,
    /// (failed create requests + failed snapshots) ÷ requested.
    pub error_rate: f64,
    /// GC time of all nodes during the phase, young + old, ms.
    pub gc_ms: Option<u64>,
    /// GC time of all nodes since they started, at the end of the phase, ms.
    pub gc_ms_since_start: Option<u64>,
}

/// What we removed at the end.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Cleanup {
    pub indices_deleted: u64,
    pub snapshots_deleted: u64,
    pub repository_removed: bool,
    pub errors: Vec<String>,
}

/// A scenario's result: what it is kept and compared by.
#[derive(Debug, Serialize)]
pub struct ScenarioResult {
    pub scenario: Scenario,
    pub tool: &'static str,
    pub tool_version: &'static str,
    pub product: String,
    pub engine_version: String,
    pub target_url: String,
    pub seed: u64,
    /// Index names: `<prefix><number>`, 5 digits.
    pub prefix: String,
    pub wall_secs: f64,
    pub creation: Creation,
    pub counts: IndexCounts,
    /// many-shards: the logs load with searches beside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexing: Option<IngestReport>,
    /// many-shards: `_field_caps` over all the indices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_caps: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<Snapshots>,
    pub cleanup: Cleanup,
    pub interrupted: bool,
    pub warnings: Vec<String>,
}

impl ScenarioResult {
    /// Counts reconcile, every snapshot succeeded, the logs load reconciled.
    pub fn passed(&self) -> bool {
        self.counts.reconciled
            && self.creation.errors == 0
            && self.snapshots.as_ref().is_none_or(|s| s.failures == 0)
            && self
                .indexing
                .as_ref()
                .is_none_or(|r| r.counts.reconciled && r.error.is_none())
    }
}

/// Runs `spec` on the given cluster or on an engine started for it, keeps the result.
pub async fn run(
    spec: ScenarioSpec,
    cluster: &ClusterSpec,
    save: &SaveSpec,
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
    let config = serde_json::json!({
        "workload": name,
        "seed": spec.seed,
        "engine": cluster.engine_name(),
        "urls": crate::cluster::redact_urls(&cluster.urls),
        "heap": cluster.start.heap,
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
    let recording = Recording::begin(
        save,
        Kind::Run,
        name,
        Some(spec.seed),
        cluster.engine_name(),
        config,
        observer,
    );
    let outcome = async {
        let connected = cluster.connect(observer).await?;
        let result = phases(&spec, &connected, recording.as_ref(), observer).await;
        connected.stop().await;
        result
    }
    .await;
    save_outcome(recording, &outcome, true);
    outcome
}

/// A stamp unique to this run, so that our names never meet anyone else's.
fn stamp() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let n = (now.as_millis() as u64) ^ (u64::from(std::process::id()) << 40);
    let mut s = String::new();
    let mut v = n;
    while v > 0 {
        let d = (v % 36) as u32;
        s.push(char::from_digit(d, 36).unwrap_or('0'));
        v /= 36;
    }
    s.chars().rev().collect()
}

async fn phases(
    spec: &ScenarioSpec,
    connected: &Connected,
    recording: Option<&Recording<'_>>,
    observer: &dyn Observer,
) -> Result<ScenarioResult, SessionError> {
    let target = &connected.target;
    let started = Instant::now();
    let (product, engine_version, _) = target.product().await?;
    let cancel = spec.cancel.clone().unwrap_or_else(Cancel::never);
    check_shard_room(target, spec.indices + 1).await?;
    let stamp = stamp();
    let prefix = format!("searchbench-shards-{stamp}-");
    // The repository is settled before anything is made: a cluster without `path.repo` fails
    // here, with nothing to clean up.
    let repository = match spec.scenario {
        Scenario::Snapshots => Some(repository(target, spec, &stamp).await?),
        Scenario::ManyShards => None,
    };
    let made = Made::default();
    let mut warnings = Vec::new();
    let work = async {
        let creation = create_indices(target, spec, &prefix, &made, &cancel).await;
        let counts = count_indices(target, &prefix, spec).await?;
        let mut indexing = None;
        let mut field_caps = None;
        let mut snapshots = None;
        match spec.scenario {
            Scenario::ManyShards if !cancel.is_cancelled() => {
                let index = format!("{prefix}logs");
                made.indices.lock().map_err(poisoned)?.push(index.clone());
                indexing = Some(load_logs(connected, spec, &index, recording, observer).await?);
                if !cancel.is_cancelled() {
                    field_caps = Some(field_caps_latency(target, spec, &prefix, &cancel).await);
                }
            }
            Scenario::Snapshots if !cancel.is_cancelled() => {
                if let Some(repo) = &repository {
                    snapshots = Some(
                        take_snapshots(target, spec, repo, &prefix, &stamp, &made, &cancel).await,
                    );
                }
            }
            _ => {}
        }
        Ok::<_, SessionError>((creation, counts, indexing, field_caps, snapshots))
    }
    .await;
    let cleanup = clean_up(target, &made, repository.as_ref()).await;
    let (creation, counts, indexing, field_caps, snapshots) = work?;
    if !cleanup.errors.is_empty() {
        warnings.push(format!(
            "cleanup was incomplete: {}",
            cleanup.errors.join("; ")
        ));
    }
    let mut url = target.url().clone();
    url.set_query(None);
    Ok(ScenarioResult {
        scenario: spec.scenario,
        tool: "searchbench",
        tool_version: env!("CARGO_PKG_VERSION"),
        product: product.to_string(),
        engine_version,
        target_url: url.to_string(),
        seed: spec.seed,
        prefix,
        wall_secs: started.elapsed().as_secs_f64(),
        creation,
        counts,
        indexing,
        field_caps,
        snapshots,
        cleanup,
        interrupted: cancel.is_cancelled(),
        warnings,
    })
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

/// The repository to snapshot into: the user's (`--repository`), or an `fs` one we register
/// under the first `path.repo` folder of the nodes.
async fn repository(
    target: &Target,
    spec: &ScenarioSpec,
    stamp: &str,
) -> Result<Repository, SessionError> {
    if let Some(name) = &spec.repository {
        target
            .send(Method::GET, &format!("/_snapshot/{name}"), None)
            .await
            .map_err(|e| {
                SessionError::usage(format!(
                    "repository {name:?} is not usable on this cluster: {}",
                    crate::cluster::error_chain(&e)
                ))
            })?;
        return Ok(Repository {
            name: name.clone(),
            registered: false,
        });
    }
    let settings: Value = target
        .get_json("/_nodes/settings?filter_path=nodes.*.settings.path.repo")
        .await?;
    let path = settings
        .get("nodes")
        .and_then(Value::as_object)
        .and_then(|nodes| nodes.values().next())
        .and_then(|n| n.pointer("/settings/path/repo"))
        .and_then(|r| match r {
            Value::String(s) => Some(s.clone()),
            Value::Array(a) => a.first().and_then(Value::as_str).map(str::to_string),
            _ => None,
        })
        .ok_or_else(|| {
            SessionError::usage(
                "the cluster's nodes have no path.repo, so there is nowhere to register an fs \
                 snapshot repository; register one yourself and pass --repository NAME",
            )
        })?;
    let name = format!("searchbench-{stamp}");
    let location = format!("{}/{name}", path.trim_end_matches('/'));
    target
        .send_json::<Value>(
            Method::PUT,
            &format!("/_snapshot/{name}"),
            &serde_json::json!({ "type": "fs", "settings": { "location": location } }),
        )
        .await?;
    Ok(Repository {
        name,
        registered: true,
    })
}

#[derive(Debug, Clone)]
struct Repository {
    name: String,
    registered: bool,
}

/// Fails before anything is made when the cluster's shard limit leaves no room for `shards`.
async fn check_shard_room(target: &Target, shards: u64) -> Result<(), SessionError> {
    let settings: Value = match target
        .get_json(
            "/_cluster/settings?include_defaults=true&flat_settings=true\
             &filter_path=*.cluster.max_shards_per_node",
        )
        .await
    {
        Ok(v) => v,
        // Not allowed to read settings: the creation errors will say it instead.
        Err(_) => return Ok(()),
    };
    let limit = ["transient", "persistent", "defaults"]
        .iter()
        .find_map(|k| settings.get(*k)?.get("cluster.max_shards_per_node"))
        .and_then(|v| {
            v.as_str()
                .and_then(|s| s.parse::<u64>().ok())
                .or(v.as_u64())
        });
    let Some(limit) = limit else { return Ok(()) };
    let health = target.health(None).await?;
    let data_nodes = health.number_of_nodes.max(1);
    let used = health.active_shards + health.unassigned_shards;
    let room = (limit * data_nodes).saturating_sub(used);
    if shards > room {
        return Err(SessionError::usage(format!(
            "the cluster has room for {room} more shards (cluster.max_shards_per_node={limit}, \
             {used} in use) and the run needs {shards}; lower --indices or raise the limit"
        )));
    }
    Ok(())
}

/// The `_bulk` body of documents `from..to` of `docs` for `index`, ids their positions.
fn bulk_body(docs: &[Vec<u8>], index: &str, from: usize) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        body.extend_from_slice(b"{\"index\":{\"_index\":\"");
        body.extend_from_slice(index.as_bytes());
        body.extend_from_slice(b"\",\"_id\":\"");
        body.extend_from_slice((from + i).to_string().as_bytes());
        body.extend_from_slice(b"\"}}\n");
        body.extend_from_slice(doc);
        body.push(b'\n');
    }
    body
}

/// The documents of index number `n` (its own stream of the seed).
fn index_docs(spec: &ScenarioSpec, n: u64) -> Result<Vec<Vec<u8>>, SessionError> {
    let mut a = AuditbeatSpec::new(spec.seed, spec.docs_per_index);
    a.stream = n;
    let mut g = Auditbeat::new(a)?;
    let mut docs = Vec::with_capacity(spec.docs_per_index as usize);
    loop {
        let mut doc = Vec::new();
        match g.next_into(&mut doc)? {
            Some(Item::Doc) => docs.push(doc),
            Some(Item::Bad(_)) | None => break,
        }
    }
    Ok(docs)
}

/// Acknowledged items of a `_bulk` answer, and the first item error.
fn bulk_acked(body: &[u8]) -> (u64, Option<String>) {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return (0, Some("malformed _bulk answer".into()));
    };
    let mut acked = 0;
    let mut first = None;
    for item in v
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(op) = item.as_object().and_then(|o| o.values().next()) else {
            continue;
        };
        let status = op.get("status").and_then(Value::as_u64).unwrap_or(0);
        if (200..300).contains(&status) {
            acked += 1;
        } else if first.is_none() {
            first = Some(format!(
                "item status {status}: {}",
                op.get("error").map(Value::to_string).unwrap_or_default()
            ));
        }
    }
    (acked, first)
}

struct Tally {
    /// (seconds since start, docs) per index done.
    done: Vec<(f64, u64)>,
    create_us: Histogram<u64>,
    errors: u64,
    examples: Vec<String>,
}

impl Tally {
    fn error(&mut self, e: String) {
        self.errors += 1;
        if self.examples.len() < 5 {
            self.examples.push(e);
        }
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("static bounds")
}

/// Phase 1: `clients` workers take index numbers in turn, create the index, fill it in
/// bulks; the cluster state is sampled every 2 seconds meanwhile.
async fn create_indices(
    target: &Target,
    spec: &ScenarioSpec,
    prefix: &str,
    made: &Made,
    cancel: &Cancel,
) -> Creation {
    let body = crate::ingest::index::marked_body(&crate::workload::auditbeat_body());
    let body = serde_json::to_vec(&body).unwrap_or_default();
    let next = AtomicU64::new(0);
    let finished = AtomicU64::new(0);
    let started = Instant::now();
    let tally = Mutex::new(Tally {
        done: Vec::new(),
        create_us: histogram(),
        errors: 0,
        examples: Vec::new(),
    });
    let worker = || async {
        loop {
            let n = next.fetch_add(1, Ordering::Relaxed);
            if n >= spec.indices || cancel.is_cancelled() {
                break;
            }
            let index = format!("{prefix}{n:05}");
            let t0 = Instant::now();
            let created = target
                .send(
                    Method::PUT,
                    &format!("/{index}"),
                    Some(("application/json", body.clone())),
                )
                .await;
            let create_us = t0.elapsed().as_micros() as u64;
            if let Err(e) = created {
                if let Ok(mut t) = tally.lock() {
                    t.error(format!(
                        "creating {index}: {}",
                        crate::cluster::error_chain(&e)
                    ));
                }
                continue;
            }
            if let Ok(mut m) = made.indices.lock() {
                m.push(index.clone());
            }
            let docs = match index_docs(spec, n) {
                Ok(d) => d,
                Err(e) => {
                    if let Ok(mut t) = tally.lock() {
                        t.error(e.to_string());
                    }
                    continue;
                }
            };
            let mut acked = 0;
            for (c, chunk) in docs.chunks(spec.fill_bulk).enumerate() {
                let body = bulk_body(chunk, &index, c * spec.fill_bulk);
                match target
                    .send(Method::POST, "/_bulk", Some(("application/x-ndjson", body)))
                    .await
                {
                    Ok(reply) => {
                        let (n, error) = bulk_acked(&reply.body);
                        acked += n;
                        if let (Some(e), Ok(mut t)) = (error, tally.lock()) {
                            t.error(format!("filling {index}: {e}"));
                        }
                    }
                    Err(e) => {
                        if let Ok(mut t) = tally.lock() {
                            t.error(format!(
                                "filling {index}: {}",
                                crate::cluster::error_chain(&e)
                            ));
                        }
                    }
                }
            }
            finished.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut t) = tally.lock() {
                let _ = t.create_us.record(create_us.max(1));
                t.done.push((started.elapsed().as_secs_f64(), acked));
            }
        }
    };
    let (stop_tx, stop) = Cancel::new();
    let workers = async {
        let all: Vec<_> = (0..spec.clients).map(|_| worker()).collect();
        join_all(all).await;
        let _ = stop_tx.send(true);
    };
    let sampler = async {
        let mut samples = Vec::new();
        loop {
            let secs = started.elapsed().as_secs_f64();
            let indices = finished.load(Ordering::Relaxed);
            if let Ok(reply) = target.send(Method::GET, "/_cluster/state", None).await {
                samples.push(StateSample {
                    secs,
                    indices,
                    bytes: reply.body.len() as u64,
                });
            }
            if stop.is_cancelled() {
                break;
            }
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(2)) => {}
                () = stop.cancelled() => {}
            }
        }
        samples
    };
    let ((), cluster_state) = tokio::join!(workers, sampler);
    let secs = started.elapsed().as_secs_f64();
    let t = tally.into_inner().unwrap_or_else(|p| p.into_inner());
    creation_result(spec, t, secs, cluster_state)
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

fn creation_result(
    spec: &ScenarioSpec,
    mut t: Tally,
    secs: f64,
    cluster_state: Vec<StateSample>,
) -> Creation {
    t.done.sort_by(|a, b| a.0.total_cmp(&b.0));
    let created = t.done.len() as u64;
    let docs: u64 = t.done.iter().map(|d| d.1).sum();
    let seconds = secs.ceil().max(1.0) as usize;
    let mut timeline: Vec<CreationSecond> = (0..seconds)
        .map(|s| CreationSecond {
            second: s as u64,
            indices: 0,
            docs: 0,
            indices_total: 0,
        })
        .collect();
    for (at, d) in &t.done {
        let s = (*at as usize).min(seconds - 1);
        timeline[s].indices += 1;
        timeline[s].docs += d;
    }
    let mut total = 0;
    for s in &mut timeline {
        total += s.indices;
        s.indices_total = total;
    }
    // The rate over a tenth of the indices: from the end of the one before it to its end.
    let tenth = |from: usize, to: usize| -> f64 {
        if to <= from || to > t.done.len() {
            return 0.0;
        }
        let start = if from == 0 { 0.0 } else { t.done[from - 1].0 };
        let span = t.done[to - 1].0 - start;
        if span > 0.0 {
            (to - from) as f64 / span
        } else {
            0.0
        }
    };
    let n = t.done.len();
    let k = (n / 10).max(1);
    let h = HdrSummary::of(&t.create_us);
    Creation {
        indices_requested: spec.indices,
        docs_per_index: spec.docs_per_index,
        clients: spec.clients,
        bulk_docs: spec.fill_bulk,
        indices_created: created,
        docs_indexed: docs,
        secs,
        indices_per_sec: created as f64 / secs.max(1e-9),
        docs_per_sec: docs as f64 / secs.max(1e-9),
        first_tenth_indices_per_sec: tenth(0, k.min(n)),
        last_tenth_indices_per_sec: tenth(n.saturating_sub(k), n),
        create_ms: h,
        errors: t.errors,
        error_examples: t.examples,
        timeline,
        cluster_state,
    }
}

/// Refreshes our indices and checks that every one exists with all its documents.
async fn count_indices(
    target: &Target,
    prefix: &str,
    spec: &ScenarioSpec,
) -> Result<IndexCounts, SessionError> {
    let pattern = format!("{prefix}0*,{prefix}1*,{prefix}2*,{prefix}3*,{prefix}4*,{prefix}5*,{prefix}6*,{prefix}7*,{prefix}8*,{prefix}9*");
    target
        .send(
            Method::POST,
            &format!("/{pattern}/_refresh?allow_no_indices=true"),
            None,
        )
        .await?;
    let rows: Vec<Value> = target
        .get_json(&format!(
            "/_cat/indices/{pattern}?format=json&h=index,docs.count&expand_wildcards=all"
        ))
        .await
        .or_else(|e| match e.status() {
            Some(404) => Ok(Vec::new()),
            _ => Err(e),
        })?;
    let mut found = 0;
    let mut complete = 0;
    let mut docs = 0;
    for row in &rows {
        let count = row
            .get("docs.count")
            .and_then(|v| {
                v.as_str()
                    .and_then(|s| s.parse::<u64>().ok())
                    .or(v.as_u64())
            })
            .unwrap_or(0);
        found += 1;
        docs += count;
        if count == spec.docs_per_index {
            complete += 1;
        }
    }
    Ok(IndexCounts {
        expected_indices: spec.indices,
        found_indices: found,
        complete_indices: complete,
        docs,
        reconciled: found == spec.indices
            && complete == spec.indices
            && docs == spec.indices * spec.docs_per_index,
    })
}

/// Phase 2 of many-shards: logs at bulk 1,000 from the clients, searches beside.
async fn load_logs(
    connected: &Connected,
    spec: &ScenarioSpec,
    index: &str,
    recording: Option<&Recording<'_>>,
    observer: &dyn Observer,
) -> Result<IngestReport, SessionError> {
    let mut workload_spec = WorkloadSpec::new(spec.seed);
    workload_spec.docs = Some(spec.logs_docs);
    let mut job = Job::generated("logs", &workload_spec, Some(index.to_string()), &[])?;
    job.workload = "logs".into();
    let mut load = LoadSpec::new(index);
    load.driver.clients = spec.clients;
    load.driver.bulk_docs = spec.logs_bulk;
    load.cancel = spec.cancel.clone();
    load.max_failures = Some(crate::ingest::MaxFailures::Count(0));
    load.failures = Some(std::env::temp_dir().join(format!("{index}-failures.ndjson")));
    load.beside = Some(super::beside::plan(
        "logs",
        &workload_spec,
        spec.search_clients,
    )?);
    connected.load(job, load, recording, observer).await
}

/// Runs `requests` GETs of `path` from `clients` clients and summarizes their latency.
async fn latency(
    target: &Target,
    path: &str,
    clients: usize,
    requests: u64,
    cancel: &Cancel,
) -> Latency {
    let next = AtomicU64::new(0);
    let tally = Mutex::new((histogram(), 0u64, Vec::<String>::new(), 0u64));
    let client = || async {
        loop {
            if next.fetch_add(1, Ordering::Relaxed) >= requests || cancel.is_cancelled() {
                break;
            }
            let t0 = Instant::now();
            let r = target.send(Method::GET, path, None).await;
            let us = t0.elapsed().as_micros() as u64;
            if let Ok(mut t) = tally.lock() {
                t.3 += 1;
                match r {
                    Ok(_) => {
                        let _ = t.0.record(us.max(1));
                    }
                    Err(e) => {
                        t.1 += 1;
                        if t.2.len() < 5 {
                            t.2.push(crate::cluster::error_chain(&e));
                        }
                    }
                }
            }
        }
    };
    join_all((0..clients).map(|_| client()).collect()).await;
    let (h, errors, examples, sent) = tally.into_inner().unwrap_or_else(|p| p.into_inner());
    latency_of(&h, clients, sent, errors, examples)
}

fn latency_of(
    h: &Histogram<u64>,
    clients: usize,
    requests: u64,
    errors: u64,
    error_examples: Vec<String>,
) -> Latency {
    let s = HdrSummary::of(h);
    let ms = |us: u64| us as f64 / 1000.0;
    Latency {
        clients,
        requests,
        errors,
        error_examples,
        mean_ms: s.mean_us / 1000.0,
        p50_ms: ms(s.p50_us),
        p90_ms: ms(s.p90_us),
        p99_ms: ms(s.p99_us),
        max_ms: ms(s.max_us),
    }
}

/// Phase 3 of many-shards: `_field_caps` over every index we made, from 2 clients.
async fn field_caps_latency(
    target: &Target,
    spec: &ScenarioSpec,
    prefix: &str,
    cancel: &Cancel,
) -> Latency {
    let path = format!("/{prefix}*/_field_caps?fields=*");
    latency(target, &path, 2, spec.field_caps_requests, cancel).await
}

/// GC time of all nodes since they started, young + old, ms.
async fn gc_millis(target: &Target) -> Option<u64> {
    let v: Value = target
        .get_json("/_nodes/stats/jvm?filter_path=nodes.*.jvm.gc.collectors")
        .await
        .ok()?;
    let mut total = 0;
    for node in v.get("nodes")?.as_object()?.values() {
        for c in node.pointer("/jvm/gc/collectors")?.as_object()?.values() {
            total += c.get("collection_time_in_millis")?.as_u64()?;
        }
    }
    Some(total)
}

/// The snapshot phase: K sequential create requests without waiting, then the wait.
async fn take_snapshots(
    target: &Target,
    spec: &ScenarioSpec,
    repo: &Repository,
    prefix: &str,
    stamp: &str,
    made: &Made,
    cancel: &Cancel,
) -> Snapshots {
    let gc_before = gc_millis(target).await;
    let body = serde_json::json!({
        "indices": format!("{prefix}*"),
        "include_global_state": false,
        "ignore_unavailable": true,
    });
    let started = Instant::now();
    let mut h = histogram();
    let mut errors = 0;
    let mut examples = Vec::new();
    let mut names = Vec::new();
    for k in 0..spec.snapshots {
        if cancel.is_cancelled() {
            break;
        }
        let name = format!("searchbench-snap-{stamp}-{k:04}");
        let t0 = Instant::now();
        let r = target
            .send_json::<Value>(
                Method::PUT,
                &format!("/_snapshot/{}/{name}?wait_for_completion=false", repo.name),
                &body,
            )
            .await;
        let us = t0.elapsed().as_micros() as u64;
        match r {
            Ok(_) => {
                let _ = h.record(us.max(1));
                if let Ok(mut m) = made.snapshots.lock() {
                    m.push(name.clone());
                }
                names.push(name);
            }
            Err(e) => {
                errors += 1;
                if examples.len() < 5 {
                    examples.push(crate::cluster::error_chain(&e));
                }
            }
        }
    }
    let issued = started.elapsed();
    let states = wait_for_snapshots(target, &repo.name, &names, cancel).await;
    let total = started.elapsed();
    let gc_after = gc_millis(target).await;
    let succeeded = states.get("SUCCESS").copied().unwrap_or(0);
    let failures = spec.snapshots.saturating_sub(succeeded);
    Snapshots {
        repository: repo.name.clone(),
        registered: repo.registered,
        requested: spec.snapshots,
        create: latency_of(&h, 1, names.len() as u64 + errors, errors, examples),
        total_secs: total.as_secs_f64(),
        wait_secs: (total - issued).as_secs_f64(),
        states,
        failures,
        error_rate: failures as f64 / spec.snapshots.max(1) as f64,
        gc_ms: gc_before.zip(gc_after).map(|(b, a)| a.saturating_sub(b)),
        gc_ms_since_start: gc_after,
    }
}

/// States a snapshot ends in.
fn finished_state(state: &str) -> bool {
    matches!(state, "SUCCESS" | "FAILED" | "PARTIAL" | "INCOMPATIBLE")
}

/// Polls the snapshots until each is in a final state (or a cancel); returns state → count.
async fn wait_for_snapshots(
    target: &Target,
    repo: &str,
    names: &[String],
    cancel: &Cancel,
) -> std::collections::BTreeMap<String, u64> {
    let mut states = std::collections::BTreeMap::new();
    if names.is_empty() {
        return states;
    }
    let mut pause = Duration::from_millis(50);
    loop {
        let mut current: std::collections::BTreeMap<String, u64> = Default::default();
        let mut done = true;
        // In groups, so the request line stays short.
        for group in names.chunks(40) {
            let path = format!("/_snapshot/{repo}/{}", group.join(","));
            match target.get_json::<Value>(&path).await {
                Ok(v) => {
                    let list = v.get("snapshots").and_then(Value::as_array);
                    let seen = list.map_or(0, Vec::len);
                    for s in list.into_iter().flatten() {
                        let state = s.get("state").and_then(Value::as_str).unwrap_or("UNKNOWN");
                        done &= finished_state(state);
                        *current.entry(state.to_string()).or_insert(0) += 1;
                    }
                    if seen < group.len() {
                        done = false;
                    }
                }
                Err(_) => done = false,
            }
        }
        states = current;
        if done || cancel.is_cancelled() {
            return states;
        }
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = cancel.cancelled() => return states,
        }
        pause = (pause * 2).min(Duration::from_secs(1));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_answers_count_acknowledged_items() {
        let body = br#"{"errors":true,"items":[{"index":{"status":201}},{"index":{"status":400,"error":{"type":"x"}}}]}"#;
        let (acked, first) = bulk_acked(body);
        assert_eq!(acked, 1);
        assert!(first.is_some_and(|e| e.contains("400")));
        assert_eq!(bulk_acked(b"nonsense").0, 0);
    }

    #[test]
    fn the_creation_rate_is_measured_per_tenth() {
        let spec = ScenarioSpec::new(Scenario::ManyShards);
        let t = Tally {
            done: (1..=20)
                .map(|i| (i as f64 * if i > 10 { 2.0 } else { 1.0 }, 100))
                .collect(),
            create_us: histogram(),
            errors: 0,
            examples: Vec::new(),
        };
        let c = creation_result(&spec, t, 40.0, Vec::new());
        assert_eq!(c.indices_created, 20);
        assert_eq!(c.docs_indexed, 2_000);
        assert_eq!(c.timeline.iter().map(|s| s.indices).sum::<u64>(), 20);
        assert!(c.first_tenth_indices_per_sec > c.last_tenth_indices_per_sec);
    }
}

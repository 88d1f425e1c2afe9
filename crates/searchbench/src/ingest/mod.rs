//! Ingest: batcher, bulk driver (clients, retries, backpressure), failure file, reconciliation.
//!
//! [`ingest`] is the whole job: set the index up, hold the load-time settings, drive the bulk
//! requests, restore the settings (also after an error), refresh, count, and say where the time
//! went. The pieces are usable alone: [`driver::load`] for the bulk loop, [`index`] for setup.

pub mod backoff;
pub mod batch;
mod batcher;
pub mod bulk_answer;
mod clients;
pub mod columnar;
pub mod config;
pub mod conflicts;
pub mod control;
pub mod driver;
mod exchange;
pub mod extras;
pub mod failures;
pub mod figures;
pub mod freshness;
pub mod gzip;
pub mod index;
pub mod pace;
pub mod response;
pub mod retry;
mod sender;
mod shared;
pub mod source;
pub mod stored;
mod ticker;
pub mod vector_field;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::Method;
use serde::{Deserialize, Serialize};

pub use batch::{Batch, BulkAction, IdMode, PoolStats};
pub use config::DriverConfig;
pub use control::{Cancel, Controls, Progress, ProgressTx, SecondsTx};
pub use driver::LoadOutcome;
pub use failures::FailureFile;
pub use index::{Existing, LoadSettings, Previous};

use crate::cluster::IndexStats;
use crate::cluster::{Target, TargetError};
use crate::corpus::{CorpusError, DocSource};
use crate::measure::{
    Attribution, AttributionInput, Headline, Machine, SerializedHistogram, Summary, TimelineRow,
};

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("reading the corpus: {0}")]
    Corpus(#[from] CorpusError),
    #[error("index {index:?} already exists and was not created by searchbench, so it is left alone. Pick another name with --index, pass --append to load into it as it is, or --replace to delete it and start afresh")]
    Foreign { index: String },
    #[error("{request}: {reason}")]
    Bulk { request: String, reason: String },
    #[error("failure file {}: {source}", path.display())]
    Failures {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}:{line}: {reason} (stopped here because of --fail-fast)")]
    FailFast {
        file: String,
        line: u64,
        reason: String,
    },
    #[error("{0}")]
    Config(String),
}

/// Everything [`ingest`] needs besides the target and the documents.
#[derive(Debug, Clone)]
pub struct Plan {
    pub driver: DriverConfig,
    /// Index settings + mappings (the workload's), `{}` for none.
    pub index_body: serde_json::Value,
    /// `index_body` is a built-in workload's, in Elasticsearch's words: its vector fields
    /// are written in the product's before the index is made ([`vector_field`]).
    pub portable_body: bool,
    /// Delete an existing index we did not create.
    pub replace: bool,
    /// Load into an existing index (ours or not) as it is, instead of creating it afresh;
    /// the count check is then on the increase of `_count`.
    pub append: bool,
    pub load_settings: LoadSettings,
    pub failures: PathBuf,
    /// The engine's processes when they are local (for their CPU time): one pid per node,
    /// each leading its node's process group. Empty when unknown.
    pub engine_pids: Vec<u32>,
    /// Measure how soon the acknowledged documents are searchable ([`freshness`]); `None`:
    /// not measured.
    pub freshness: Option<freshness::FreshnessSpec>,
}

impl Plan {
    /// Why this load's time to searchable cannot be measured by the index's count, if it
    /// cannot: what else changes the count besides its own new documents. `starts_empty`:
    /// the index held no document when the load began (made afresh, or appended to empty),
    /// so sequential ids write over nothing.
    fn unprobed(&self, starts_empty: bool) -> Option<&'static str> {
        let d = &self.driver;
        match () {
            () if !d.part.is_whole() => Some("the other parts write into the same index"),
            () if d.conflicts.is_some() => Some("its id conflicts write over documents"),
            () if d.action == BulkAction::FromCorpus => {
                Some("its corpus's own action lines may update or delete")
            }
            () if self.append && !starts_empty && d.action.ids(d.ids) == IdMode::Sequential => {
                Some("appending with sequential ids may write over the documents there")
            }
            () => None,
        }
    }
}

/// Whether a refused index body was refused for what only the k-NN plugin knows (its
/// setting or its field type, whichever the engine checks first).
fn mentions_knn(refusal: &str) -> bool {
    refusal.contains("knn_vector") || refusal.contains("[index.knn]")
}

/// Read back by `analysis::metrics` (a field missing from an older result reads as 0).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    /// Documents and bad lines taken from the corpus.
    pub read: u64,
    /// Acknowledged by the target.
    pub indexed: u64,
    /// In the failure file: refused + unacknowledged + not sent + bad lines.
    pub failed: u64,
    pub refused: u64,
    /// Sent, and no answer (or no item) said what became of them.
    pub unacknowledged: u64,
    /// Read but never sent: the run stopped after an error first.
    pub not_sent: u64,
    pub bad_lines: u64,
    pub retried_items: u64,
    /// Answers of 429 (too many requests): whole requests plus single documents, each
    /// attempt counted; the cluster pushing back, whether or not a retry then got through.
    pub throttled: u64,
    /// `_count` of the index after a refresh.
    pub index_count: Option<u64>,
    /// `_count` before the load, when it went into an existing index (`--append`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_count_before: Option<u64>,
    /// With id conflicts, the acknowledged documents that were written over an id already
    /// used: the index gains that many fewer documents than were indexed.
    #[serde(skip_serializing_if = "is_zero")]
    pub overwritten: u64,
    /// `read == indexed + failed` and `index_count - index_count_before == indexed -
    /// overwritten` (with id conflicts, only when no document failed: which of the failed
    /// were overwrites is not known).
    pub reconciled: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Counts {
    /// Why an index that gained `added` documents (counted as `how` says) does not hold what
    /// `who` acknowledged, or `None` when it does: with id conflicts the overwrites add
    /// nothing, and only a load where every document was taken says how many distinct ids
    /// the index gained. One rule for a load alone and for the parts of a group merged.
    pub fn unreconciled(&self, added: u64, how: &str, who: &str) -> Option<String> {
        match self.overwritten {
            n if n > 0 && self.failed > 0 => Some(format!(
                "{} documents failed, and which of them were written over ids already used is \
                 not known",
                self.failed
            )),
            n if added != self.indexed.saturating_sub(n) => Some(format!(
                "the index gained {added} documents ({how}), {who} acknowledged {}{}",
                self.indexed,
                match n {
                    0 => String::new(),
                    n => format!(", {n} of them over ids already used"),
                }
            )),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Cpu {
    pub driver_secs: f64,
    pub driver_secs_per_million_docs: Option<f64>,
    /// Driver CPU / (wall × cores).
    pub driver_machine_share: f64,
    pub engine_secs: Option<f64>,
    pub engine_machine_share: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Requests {
    pub attempts: u64,
    pub failed_attempts: u64,
    pub retries: u64,
}

/// How many documents may fail (refused, unacknowledged, bad lines) before a load counts as
/// failed: a number, or a percentage of the documents read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum MaxFailures {
    Count(u64),
    Percent(f64),
}

impl Default for MaxFailures {
    fn default() -> Self {
        MaxFailures::Count(0)
    }
}

impl MaxFailures {
    /// `N` or `P%` (0 to 100).
    pub fn parse(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let bad = || {
            format!("{s:?} is not a failure limit; give a number of documents (e.g. 10) or a percentage from 0% to 100% (e.g. 0.5%)")
        };
        if let Some(p) = t.strip_suffix('%') {
            let p: f64 = p.trim().parse().map_err(|_| bad())?;
            if !(0.0..=100.0).contains(&p) {
                return Err(bad());
            }
            return Ok(MaxFailures::Percent(p));
        }
        t.parse().map(MaxFailures::Count).map_err(|_| bad())
    }

    /// Whether `failed` of `read` documents is past the limit.
    pub fn exceeded(self, failed: u64, read: u64) -> bool {
        match self {
            MaxFailures::Count(n) => failed > n,
            MaxFailures::Percent(p) => (failed as f64) > p / 100.0 * read as f64,
        }
    }
}

impl std::fmt::Display for MaxFailures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MaxFailures::Count(n) => write!(f, "{n}"),
            MaxFailures::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// The failure limit of a load against what failed.
#[derive(Debug, Clone, Serialize)]
pub struct FailureLimit {
    /// As given: `0`, `10`, `0.5%`.
    pub max: String,
    pub failed: u64,
    pub read: u64,
    pub exceeded: bool,
}

impl FailureLimit {
    pub fn check(max: MaxFailures, counts: &Counts) -> Self {
        FailureLimit {
            max: max.to_string(),
            failed: counts.failed,
            read: counts.read,
            exceeded: max.exceeded(counts.failed, counts.read),
        }
    }
}

/// The result of one ingest: enough to compare it and to run it again.
#[derive(Debug, Clone, Serialize)]
pub struct IngestReport {
    pub tool: &'static str,
    pub tool_version: &'static str,
    pub started_unix: u64,
    /// When the load itself began (its timeline's second 0), in Unix milliseconds: what lines
    /// up the timelines of parts of one run (`--part`) loaded from several processes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_started_unix_ms: Option<u64>,
    pub corpus: String,
    pub index: String,
    pub previous_index: Previous,
    /// The index that was there before the run (then replaced, or appended to).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub existing_index: Option<Existing>,
    pub target_url: String,
    pub product: String,
    pub engine_version: String,
    /// The JVM the engine runs on (vendor, version, GC, heap), as the node reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_jvm: Option<crate::cluster::JvmInfo>,
    pub config: DriverConfig,
    pub load_settings: LoadSettings,
    pub machine: Machine,
    pub wall_secs: f64,
    pub counts: Counts,
    /// The headline: documents acknowledged after the warm-up ÷ the steady window
    /// (`headline.definition` says which applied). Every view shows this one figure.
    pub docs_per_sec: f64,
    pub headline: Headline,
    /// Uncompressed bulk body bytes per second (action lines included).
    pub mb_per_sec: f64,
    pub wire_mb_per_sec: f64,
    pub requests: Requests,
    pub service: Summary,
    pub took: Summary,
    /// The engine's `took` moved in steps of this many ms (its cached clock, not a timer per
    /// request): its percentiles are not shown or compared; the attribution's sum still
    /// holds on average.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub took_clock_ms: Option<u64>,
    pub server_stats: Option<IndexStats>,
    pub cpu: Cpu,
    /// What else the machine did during the load (other processes, steal, CPU pressure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<crate::measure::background::Background>,
    pub attribution: Attribution,
    pub timeline: Vec<TimelineRow>,
    /// How soon the acknowledged documents were searchable, when the load was probed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<freshness::Freshness>,
    /// Why time to searchable was asked for and not measured (what else changes the count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness_not_measured: Option<String>,
    pub failures_file: Option<PathBuf>,
    /// Where the failure file of an earlier run went (it was at the same path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_failures_file: Option<PathBuf>,
    pub buffers: PoolStats,
    pub interrupted: bool,
    /// The error that stopped the run early, if any.
    pub error: Option<String>,
    pub warnings: Vec<String>,
    /// The documents allowed to fail (`--max-failures`) and whether the load went past it;
    /// `None` when the caller set no limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_limit: Option<FailureLimit>,
    /// Open loop (`--rate`): offered against achieved, latency from the due time, the
    /// schedule's lag, and what limited the load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<pace::RateReport>,
    /// The delay added between the driver and the cluster (`--rtt`), when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt: Option<crate::cluster::delay::Rtt>,
    /// How the node we started was warmed before this load (`None`: a cluster the user gave,
    /// or `--no-warm-node`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_up: Option<crate::measure::warm_up::WarmUp>,
    /// Searches that ran beside the load (`--search-clients`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub searches_beside: Option<crate::query::beside::SearchesBeside>,
    /// Service time and `took` histograms, HDR-encoded for the results store (not in the
    /// JSON: the summaries above are).
    #[serde(skip)]
    pub histograms: Vec<SerializedHistogram>,
    /// What the engine was doing meanwhile (the session's sampler), when it was sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<crate::measure::telemetry::Summary>,
    /// Where the engine's CPU and allocations went (`--profile`), when it was profiled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::measure::profile::Profile>,
    /// When the steady window began, in this process, when the warm-up applied: what an
    /// instrument around the load summarises from (the profile skips the warm-up).
    #[serde(skip)]
    pub measured_from: Option<std::time::Instant>,
    /// What the load did as measurements that add up over the parts of one run: what its
    /// figures above are derived from ([`figures`]), and what its phase keeps.
    #[serde(skip)]
    pub measurements: crate::measure::Measurements,
}

impl IngestReport {
    /// Documents that went to the failure file.
    pub fn failed(&self) -> u64 {
        self.counts.failed
    }
}

/// Sets the index up, loads `source`, restores the settings, counts, and reports.
///
/// Errors before the load starts (unreachable target, foreign index, bad settings) are
/// returned as `Err`. Once the load has started, the result is always a report: an error that
/// stopped the load is in [`IngestReport::error`], with every document accounted for.
pub async fn ingest(
    target: &Target,
    source: Box<dyn DocSource>,
    plan: Plan,
) -> Result<IngestReport, IngestError> {
    ingest_streaming(target, source, plan, Controls::default()).await
}

/// [`ingest`] with progress reports, a cancel signal and the timeline streamed out while the
/// load runs (see [`Controls`]). A cancelled load still restores the settings, counts, and
/// reports, with [`IngestReport::interrupted`] set.
pub async fn ingest_streaming(
    target: &Target,
    source: Box<dyn DocSource>,
    plan: Plan,
    controls: Controls,
) -> Result<IngestReport, IngestError> {
    let started_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let index = plan.driver.index.clone();
    let (product, engine_version, _) = target.product().await?;
    if !product.traits().search_api {
        return columnar::ingest(target, source, plan, controls, started_unix, engine_version)
            .await;
    }
    // Recorded, not required: a cluster that hides `_nodes` still gets its load.
    let engine_jvm = target.jvm().await.ok();
    let reuse = index::Reuse {
        replace: plan.replace,
        append: plan.append,
        data_stream: plan.driver.action == BulkAction::Create,
        shared: !plan.driver.part.is_whole(),
    };
    let body = match plan.portable_body {
        true => vector_field::in_words_of(&plan.index_body, product)
            .map_err(|e| IngestError::Config(format!("index {index}: {e}")))?,
        false => plan.index_body.clone(),
    };
    // What an ended load (or query) left changed on this index is put back before the index
    // is read as the user's; what that load wrote is then made searchable, so this load's
    // counts start after it (its refresh interval may have hidden it).
    let mut warnings = crate::cluster::owed::settle(target, &index)
        .await
        .map_err(IngestError::Config)?;
    if !warnings.is_empty() {
        let _ = target
            .send(reqwest::Method::POST, &format!("/{index}/_refresh"), None)
            .await;
    }
    let prepared = match index::setup(target, &index, &body, reuse).await {
        Ok(prepared) => prepared,
        // A node without the k-NN plugin refuses the field we wrote in its words.
        Err(e) if body != plan.index_body && mentions_knn(&e.to_string()) => {
            return Err(IngestError::Config(format!(
                "index {index}: {} has no knn_vector without its k-NN plugin: start the \
                 node with --knn (a node searchbench starts for the vectors workload has \
                 it), or install opensearch-knn on your cluster; the cluster said: {e}",
                product.traits().display
            )));
        }
        Err(e) => return Err(e),
    };
    let index_count_before = match prepared.previous {
        Previous::Appended => prepared.existing.as_ref().and_then(|e| e.docs),
        _ => None,
    };
    let saved = index::apply(target, &index, &plan.load_settings).await?;
    let before = match IndexStats::fetch(target, &index).await {
        Ok(s) => Some(s),
        Err(e) => {
            warnings.push(format!("no index stats before the load: {e}"));
            None
        }
    };
    let corpus = source.describe();
    let failures = Arc::new(FailureFile::new(&plan.failures));
    let previous_failures_file = failures.set_aside_previous()?;
    // A cluster whose processes are not ours (given by --url, no --engine-pid) says its
    // nodes' CPU itself: the engine's CPU per document then works on any cluster.
    // Not for a part: the nodes' CPU is every part's.
    let nodes_cpu_before = match plan.engine_pids.is_empty() && plan.driver.part.is_whole() {
        true => nodes_cpu(target).await.ok(),
        false => None,
    };
    let mut controls = controls;
    let cancel = controls.cancel.clone();
    // A track's create-index made the index its bulks append to: empty, nothing is written over.
    let starts_empty = match prepared.previous {
        Previous::Appended => prepared.existing.as_ref().and_then(|e| e.docs) == Some(0),
        _ => true,
    };
    let not_measured = plan
        .freshness
        .and(plan.unprobed(starts_empty))
        .map(|why| format!("time to searchable not measured: {why}"));
    let probe = match plan.freshness.filter(|_| not_measured.is_none()) {
        Some(spec) => {
            let acked = freshness::Acked::default();
            controls.acked = Some(acked.clone());
            match freshness::Probe::start(target, &index, acked, spec).await {
                Ok(probe) => Some(probe),
                Err(e) => {
                    warnings.push(format!(
                        "time to searchable not measured: {index} could not be counted: {e}"
                    ));
                    None
                }
            }
        }
        None => None,
    };
    let around = crate::measure::background::Around::start(&plan.engine_pids);

    let outcome = driver::load(
        target,
        source,
        plan.driver.clone(),
        failures.clone(),
        controls,
    )
    .await;

    let crate::measure::background::Spent {
        driver_cpu,
        engine_cpu,
        background,
    } = around.stop(&plan.engine_pids);
    // Before the settings are restored and the index refreshed: the last documents are
    // waited for as the load left the index.
    let freshness = match probe {
        Some(probe) => {
            let how = match outcome.interrupted || outcome.error.is_some() {
                true => freshness::Over::Stopped,
                false => freshness::Over::Loaded,
            };
            match probe.finish(how, cancel.as_ref()).await {
                Ok(m) => Some(m),
                Err(e) => {
                    warnings.push(format!("time to searchable not measured: {e}"));
                    None
                }
            }
        }
        None => None,
    };
    // After an interrupt the target may be why (stalled, overloaded): the calls that follow
    // share one short deadline, so the user gets the partial report promptly.
    let limit = outcome
        .interrupted
        .then(|| tokio::time::Instant::now() + control::GRACE);
    let after = match within(limit, IndexStats::fetch(target, &index)).await {
        Ok(s) => Some(s),
        Err(e) => {
            warnings.push(format!("no index stats after the load: {e}"));
            None
        }
    };
    if let Err(e) = within(limit, index::restore(target, &index, &saved)).await {
        warnings.push(format!(
            "could not restore the index settings changed for the load: {e}"
        ));
    }
    let engine_cpu = match (engine_cpu, nodes_cpu_before) {
        (None, Some(before)) => within(limit, nodes_cpu(target))
            .await
            .ok()
            .map(|after| after.saturating_sub(before)),
        (cpu, _) => cpu,
    };
    let index_count = match within(limit, count(target, &index)).await {
        Ok(n) => Some(n),
        Err(e) => {
            warnings.push(format!("could not count the index: {e}"));
            None
        }
    };
    let mut stats = before.zip(after).map(|(b, a)| a.delta(&b));
    // Once refreshed (the count did it): the segments the load wrote are searchable.
    if let (Some(s), Ok(size)) = (
        stats.as_mut(),
        within(limit, IndexStats::segments_size(target, &index)).await,
    ) {
        s.store_bytes = size;
    }
    Ok(report(ReportParts {
        started_unix,
        corpus,
        index,
        prepared,
        target,
        product: product.to_string(),
        engine_version,
        engine_jvm,
        plan,
        outcome,
        driver_cpu,
        engine_cpu,
        background,
        stats,
        index_count,
        index_count_before,
        failures: &failures,
        previous_failures_file,
        warnings,
        server_time: None,
        freshness,
        freshness_not_measured: not_measured,
    }))
}

/// The wall-clock time (Unix µs) of `at`, an instant in the past.
fn unix_us_at(at: std::time::Instant) -> Option<u64> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
    let ago = at.elapsed();
    u64::try_from(now.checked_sub(ago)?.as_micros()).ok()
}

/// `call`, cut off at `deadline` when there is one.
/// The CPU the cluster's nodes have used since they started: the sum of each node's
/// `process.cpu.total_in_millis` (`GET /_nodes/stats/process`), as the engines count it.
async fn nodes_cpu(target: &Target) -> Result<Duration, String> {
    let stats: serde_json::Value = target
        .get_json("/_nodes/stats/process")
        .await
        .map_err(|e| e.to_string())?;
    let nodes = stats
        .get("nodes")
        .and_then(serde_json::Value::as_object)
        .ok_or("no `nodes` in _nodes/stats")?;
    let mut ms = 0u64;
    for node in nodes.values() {
        let n = node
            .pointer("/process/cpu/total_in_millis")
            .and_then(serde_json::Value::as_u64)
            .ok_or("a node without process.cpu.total_in_millis")?;
        ms = ms.saturating_add(n);
    }
    Ok(Duration::from_millis(ms))
}

async fn within<T, E: std::fmt::Display>(
    deadline: Option<tokio::time::Instant>,
    call: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, String> {
    let Some(deadline) = deadline else {
        return call.await.map_err(|e| e.to_string());
    };
    match tokio::time::timeout_at(deadline, call).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err(format!(
            "no answer within {} s after the interrupt",
            control::GRACE.as_secs()
        )),
    }
}

/// Refresh, then `_count`.
pub async fn count(target: &Target, index: &str) -> Result<u64, TargetError> {
    target
        .send(Method::POST, &format!("/{index}/_refresh"), None)
        .await?;
    #[derive(serde::Deserialize)]
    struct CountAnswer {
        count: u64,
    }
    let c: CountAnswer = target.get_json(&format!("/{index}/_count")).await?;
    Ok(c.count)
}

struct ReportParts<'a> {
    started_unix: u64,
    corpus: String,
    index: String,
    prepared: index::Prepared,
    target: &'a Target,
    product: String,
    engine_version: String,
    engine_jvm: Option<crate::cluster::JvmInfo>,
    plan: Plan,
    outcome: LoadOutcome,
    driver_cpu: Duration,
    engine_cpu: Option<Duration>,
    background: Option<crate::measure::background::Background>,
    stats: Option<IndexStats>,
    index_count: Option<u64>,
    index_count_before: Option<u64>,
    failures: &'a FailureFile,
    previous_failures_file: Option<PathBuf>,
    warnings: Vec<String>,
    /// The server's own time in the load, when it counts it finer than `took`'s whole ms (the
    /// sketch store, in µs): the attribution's server time.
    server_time: Option<Duration>,
    /// What the freshness probe measured, when it ran.
    freshness: Option<crate::measure::Measurements>,
    /// Why it did not run though asked for.
    freshness_not_measured: Option<String>,
}

fn report(mut p: ReportParts<'_>) -> IngestReport {
    // Settles the warm-up; every figure is then derived from the load's measurements.
    let settled = p.outcome.recorder.finish(p.outcome.wall);
    let o = &p.outcome;
    let measured_from = settled
        .warmup_applied
        .then(|| o.started + Duration::from_secs_f64(settled.warmup_secs));
    let machine = Machine::detect();
    let added = p
        .index_count
        .map(|n| n.saturating_sub(p.index_count_before.unwrap_or(0)));
    let mut counts = Counts {
        read: o.read,
        indexed: o.acked,
        failed: o.failed(),
        refused: o.refused,
        unacknowledged: o.unacknowledged,
        not_sent: o.not_sent,
        bad_lines: o.bad_lines,
        retried_items: o.retried_items,
        throttled: o.throttled,
        index_count: p.index_count,
        index_count_before: p.index_count_before,
        overwritten: o.overwrites,
        reconciled: false,
    };
    // A part shares its index with the other parts: its `_count` is theirs too, and is
    // checked when the parts are merged.
    counts.reconciled = o.balanced()
        && (!p.plan.driver.part.is_whole()
            || added.is_some_and(|a| counts.unreconciled(a, "", "").is_none()));
    let recorder = &o.recorder;
    let began_unix_us = unix_us_at(o.started).unwrap_or(p.started_unix * 1_000_000);
    let (mut measurements, figures) = figures::LoadFigures::measured(figures::Tally {
        recorder,
        headline: &settled,
        counts: &counts,
        began_unix_us,
        wall: o.wall,
        driver_cpu: p.driver_cpu,
        engine_cpu: p.engine_cpu,
        cores: machine.cores as u64,
        freshness: p.freshness.as_ref(),
    });
    let attribution = Attribution::compute(&AttributionInput {
        wall: o.wall,
        clients: p.plan.driver.clients,
        service_sum: recorder.service_sum,
        took_sum: p
            .server_time
            .unwrap_or(Duration::from_millis(recorder.took_sum_ms)),
        stats: p.stats.unwrap_or_default(),
        driver_cpu: p.driver_cpu,
        engine_cpu: p.engine_cpu,
        cores: machine.cores,
    });
    if o.missing_items > 0 {
        p.warnings.push(format!(
            "the target's bulk answers had no item for {} documents (fewer items than \
             documents, none, or an answer cut off); they were sent again. A real engine always \
             answers one item per document: check any proxy in between",
            o.missing_items
        ));
    }
    if let Some(step) = figures.took_clock_ms {
        p.warnings.push(format!(
            "the engine's bulk `took` moved in {step} ms steps (Elasticsearch 8.15.1 and later \
             time bulk requests with a cached clock, elastic/elasticsearch#129894): its \
             percentiles are left out; the attribution uses its sum, which averages out"
        ));
    }
    let mut histograms = recorder.histograms();
    // The probe's lags: what a reader saw, and on the primaries and replicas when read apart.
    histograms.extend(
        measurements
            .histograms
            .iter()
            .filter(|(name, _)| name.starts_with(freshness::LAG))
            .filter_map(|(name, (unit, h))| SerializedHistogram::encode(name, unit, h)),
    );
    // The pacing kept in the record, its report derived from it as a group's is from its
    // parts' records added.
    let rate = o.pace.as_ref().and_then(|pace| {
        let measured = pace.finish(settled.warmup_applied);
        measured.record(p.plan.driver.clients, &mut measurements);
        histograms.extend(measured.histograms.iter().cloned());
        let share = p.driver_cpu.as_secs_f64() / o.wall.as_secs_f64().max(1e-9);
        let (rate, warnings) = pace::RateReport::of(&measurements, o.wall, share)?;
        p.warnings.extend(warnings);
        Some(rate)
    });
    let mut url = p.target.url().clone();
    url.set_query(None);
    IngestReport {
        tool: "searchbench",
        tool_version: env!("CARGO_PKG_VERSION"),
        started_unix: p.started_unix,
        load_started_unix_ms: Some(began_unix_us / 1000),
        corpus: p.corpus,
        index: p.index,
        previous_index: p.prepared.previous,
        existing_index: p.prepared.existing,
        target_url: url.to_string(),
        product: p.product,
        engine_version: p.engine_version,
        engine_jvm: p.engine_jvm,
        config: p.plan.driver.clone(),
        load_settings: p.plan.load_settings.clone(),
        machine,
        wall_secs: figures.wall_secs,
        counts,
        docs_per_sec: figures.docs_per_sec,
        headline: figures.headline,
        mb_per_sec: figures.mb_per_sec,
        wire_mb_per_sec: figures.wire_mb_per_sec,
        requests: figures.requests,
        service: figures.service,
        took: figures.took,
        took_clock_ms: figures.took_clock_ms,
        server_stats: p.stats,
        cpu: figures.cpu,
        background: p.background,
        attribution,
        timeline: figures.timeline,
        freshness: figures.freshness,
        freshness_not_measured: p.freshness_not_measured,
        histograms,
        failures_file: (p.failures.written() > 0).then(|| p.failures.path().to_path_buf()),
        previous_failures_file: p.previous_failures_file,
        buffers: o.pool,
        interrupted: o.interrupted,
        error: o.error.as_ref().map(|e| e.to_string()),
        warnings: p.warnings,
        failure_limit: None,
        rate,
        rtt: None,
        telemetry: None,
        profile: None,
        measured_from,
        warm_up: None,
        searches_beside: None,
        measurements,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(append: bool, action: BulkAction) -> Plan {
        let mut driver = DriverConfig::new("i");
        driver.action = action;
        Plan {
            driver,
            index_body: serde_json::json!({}),
            portable_body: false,
            replace: false,
            append,
            load_settings: LoadSettings::default(),
            failures: PathBuf::from("f.ndjson"),
            engine_pids: Vec::new(),
            freshness: Some(freshness::FreshnessSpec::default()),
        }
    }

    #[test]
    fn the_index_holds_what_was_acknowledged_less_what_was_written_over() {
        let counts = |indexed, failed, overwritten| Counts {
            read: indexed + failed,
            indexed,
            failed,
            overwritten,
            ..Counts::default()
        };
        assert_eq!(counts(100, 0, 0).unreconciled(100, "", ""), None);
        assert_eq!(
            counts(100, 0, 0).unreconciled(99, "counted at the merge", "the parts"),
            Some(
                "the index gained 99 documents (counted at the merge), the parts acknowledged 100"
                    .into()
            )
        );
        // Id conflicts: the overwrites add nothing, told only when every document was taken.
        assert_eq!(counts(100, 0, 30).unreconciled(70, "", ""), None);
        assert!(counts(100, 0, 30)
            .unreconciled(100, "", "the load")
            .is_some_and(
                |why| why.ends_with("the load acknowledged 100, 30 of them over ids already used")
            ));
        assert!(counts(100, 2, 30)
            .unreconciled(70, "", "")
            .is_some_and(|why| why.starts_with("2 documents failed")));
    }

    #[test]
    fn sequential_ids_appended_are_probed_only_into_an_empty_index() {
        // A track's bulk appends to the index its create-index made: nothing to write over.
        assert_eq!(plan(true, BulkAction::Index).unprobed(true), None);
        assert!(plan(true, BulkAction::Index)
            .unprobed(false)
            .is_some_and(|why| why.contains("sequential ids")));
        // Made afresh, or the engine picks the ids: probed either way.
        assert_eq!(plan(false, BulkAction::Index).unprobed(false), None);
        assert_eq!(plan(true, BulkAction::Create).unprobed(false), None);
        // Its own action lines may update or delete, into an empty index too.
        assert!(plan(true, BulkAction::FromCorpus).unprobed(true).is_some());
    }
}

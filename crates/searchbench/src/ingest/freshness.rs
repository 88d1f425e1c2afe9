//! Time to searchable: while a load runs, how long its acknowledged documents take to show in
//! a search. A logs or metrics cluster is judged by how fast it takes documents and how soon
//! they can be found; the second is what `refresh_interval`, replicas and bulk size trade away.
//!
//! The markers are the load's own documents, none added: every probe interval the probe notes
//! how many documents the driver has had acknowledged so far (a slice of the load, stamped
//! with that instant), and asks the index's `_count`, which a search answers from the
//! refreshed segments only (no refresh is asked for). A slice is searchable once the count has
//! risen by every document acknowledged up to it; its lag is that instant less its own, and
//! each of its documents has that lag. Neither is exact to more than one probe interval
//! ([`EVERY`]) either way: a slice is stamped when the probe sees it (up to an interval after
//! the answers came), and is found visible when the probe asks (up to an interval after the
//! refresh). A document searchable before its bulk was answered (another shard of the bulk
//! was slower) counts as searchable when answered, at lag 0.
//!
//! So that the count means the load's documents, the probe runs only where nothing else
//! changes it: one process writing new documents (no `--part`, no id conflicts, no updates
//! or deletes). A slice not searchable within the bound is `unseen`; one still waiting when
//! the load was stopped is `cut`. At the load's end the probe waits for the last slices, up
//! to the bound, before the load's settings are restored and the index refreshed.
//!
//! The count is asked only when a refresh may have shown something new. An index refreshes on
//! a fixed delay (the next refresh starts an interval after the last one ended), so after the
//! probe has seen the count rise it waits until two probe intervals before the next refresh
//! can end, then asks every interval until it rises again: a few counts per refresh instead of
//! twenty a second, the lags as fine. That holds for one shard copy: each copy refreshes on a
//! clock of its own, so a count summed over several shards, or answered by either copy, is
//! asked every interval. With refresh off it asks once a second (a refresh the user asks for
//! is still seen); when the interval cannot be read, every interval.
//! ([`FreshnessSpec::eager`] asks every interval whatever the refresh.)
//!
//! On a cluster of several nodes whose every shard has a started replica, readers hit either
//! copy: the probe also reads the primaries and the replicas apart, a `_count` per shard with
//! the search preference of that copy's node (`_shards:N|_only_nodes:NODE`).
//!
//! The probe's searches keep the index's shards from going search-idle (Elasticsearch skips
//! the scheduled refresh of a shard no one has searched for 30 s when `refresh_interval` is
//! not set): what is measured is the freshness a reader searching all along sees.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Method;
use tokio::sync::watch;

use crate::cancel::Cancel;
use crate::cluster::{Target, TargetError};
use crate::measure::Measurements;

/// How often the probe looks: the resolution of every lag it reports, either way.
pub const EVERY: Duration = Duration::from_millis(50);
/// The histogram of every probed document's lag, in µs.
pub const LAG: &str = "freshness";
/// The documents probed: searchable, unseen and cut.
pub const PROBED: &str = "freshness_docs";
/// The documents not searchable within the bound.
pub const UNSEEN: &str = "freshness_unseen";
/// The documents still waiting when the load was stopped (neither seen nor timed out).
pub const CUT: &str = "freshness_cut";
/// The bound, in ms (a bound of the measurements: the most of any part).
pub const BOUND_MS: &str = "freshness_bound_ms";
/// The count answers the probe did not get (an error, or no answer within its deadline).
pub const MISSED: &str = "freshness_missed_counts";
/// The counts the probe asked for.
pub const ASKED: &str = "freshness_counts";
/// The resolution of each lag, in ms (a bound: the most of any part).
pub const RESOLUTION_MS: &str = "freshness_resolution_ms";
/// How often the probe asks the count when the index's refresh is off.
const OFF_EVERY: Duration = Duration::from_secs(1);
/// The upper edges (ms) of the lag buckets each second of the load keeps: a count per wall-clock
/// second of acknowledgment and bucket (`freshness_le_<ms>ms`, lags over the last one
/// `freshness_beyond`), so that they add up as every count does. About 1.5× apart: a
/// second's p50 or p99 is said as at most its bucket's edge.
const EDGES_MS: [u64; 20] = [
    50, 100, 150, 250, 400, 600, 1_000, 1_500, 2_500, 4_000, 6_000, 10_000, 15_000, 25_000, 40_000,
    60_000, 100_000, 150_000, 300_000, 600_000,
];
/// Lags over the last edge, by second.
const BEYOND: &str = "freshness_beyond";

/// The count of a second's documents whose lag falls in the bucket up to `edge_ms`.
fn bucket(edge_ms: u64) -> String {
    format!("freshness_le_{edge_ms}ms")
}

/// The most shards the probe reads copy by copy (one `_count` per shard and copy each time it
/// asks).
const MOST_SHARDS_BY_COPY: usize = 16;

/// The acknowledged documents' counter: the driver adds each answer's acknowledged documents
/// to it, the probe reads it.
pub type Acked = Arc<AtomicU64>;

/// Whether a load is probed, and how long a document may take before it counts as unseen.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct FreshnessSpec {
    /// `None`: twice the index's refresh interval plus 5 s, at least 10 s (see
    /// [`default_bound`]).
    pub bound: Option<Duration>,
    /// Ask the count every probe interval, whether or not a refresh is due: for a cluster
    /// whose refreshes are not on the index's fixed delay (what the default saves: BENCHMARKS).
    #[serde(default)]
    pub eager: bool,
}

/// How the load ended, told to the probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    Running,
    /// Every answer is in: the probe waits for the last slices, up to the bound.
    Loaded,
    /// Stopped early (Ctrl-C, an error): what still waits is cut.
    Stopped,
}

/// A probe running beside a load.
pub struct Probe {
    over: watch::Sender<Over>,
    task: tokio::task::JoinHandle<Measurements>,
}

/// A slice of the load: the documents acknowledged since the last one, up to `upto` in all,
/// first seen by the probe at `at`.
#[derive(Debug, Clone, Copy)]
struct Slice {
    at: Instant,
    /// The second of `at`, keyed as the load keys its own (see `figures::second_zero`).
    second: u64,
    upto: u64,
    docs: u64,
}

impl Probe {
    /// Starts probing `index`, whose documents the load acknowledges into `acked`. Fails when
    /// the index cannot be counted (the load then goes on unprobed, saying why).
    pub async fn start(
        target: &Target,
        index: &str,
        acked: Acked,
        spec: FreshnessSpec,
    ) -> Result<Probe, TargetError> {
        let refresh = match spec.eager {
            true => Refresh::Unknown,
            false => refresh_interval(target, index).await,
        };
        let bound = match spec.bound {
            Some(b) => b,
            None => default_bound(refresh.every()),
        };
        // What a reader sees (the copy the engine picks), and on a cluster whose every shard
        // has a replica on another node, the primary and a replica apart: readers hit either.
        let layout = layout(target, index).await;
        let mut readers = vec![Reader::any()];
        if let Some((primaries, replicas)) = layout.apart.clone() {
            readers.push(Reader::of(Copies::Primary, primaries));
            readers.push(Reader::of(Copies::Replica, replicas));
        }
        let mut trackers = Vec::new();
        for reader in readers {
            let base = reader.count(target, index).await?;
            let refresh = match refresh {
                Refresh::Every(_) if !reader.on_one_clock(&layout) => Refresh::Unknown,
                r => r,
            };
            trackers.push(Tracker {
                asking: Asking::new(refresh, base),
                base,
                reader,
                pending: VecDeque::new(),
                lags: crate::measure::recorder::histogram(),
            });
        }
        let (over, told) = watch::channel(Over::Running);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        let probing = Probing {
            target: target.clone(),
            index: index.to_string(),
            acked,
            bound,
            clock: (Instant::now(), now),
            trackers,
        };
        Ok(Probe {
            over,
            task: tokio::spawn(probing.run(told)),
        })
    }

    /// Tells the probe how the load ended and takes what it measured: at most the bound after
    /// the last answer when `Loaded` (less if `cancel` fires meanwhile: Ctrl-C while the last
    /// documents are waited for cuts them), at once when `Stopped`.
    pub async fn finish(self, how: Over, cancel: Option<&Cancel>) -> Result<Measurements, String> {
        let failed = |e: tokio::task::JoinError| format!("the freshness probe failed: {e}");
        let _ = self.over.send(how);
        let mut task = self.task;
        if let Some(cancel) = cancel.filter(|_| how == Over::Loaded) {
            tokio::select! {
                done = &mut task => return done.map_err(failed),
                () = cancel.cancelled() => {
                    let _ = self.over.send(Over::Stopped);
                }
            }
        }
        task.await.map_err(failed)
    }
}

/// The bound when none is given: twice the refresh interval plus 5 s (a document acknowledged
/// just after a refresh waits one interval, a refresh under load takes its own time), at least
/// 10 s and at most an hour (the load's end waits up to it); 10 s when refresh is off or the
/// interval cannot be read.
pub fn default_bound(refresh: Option<Duration>) -> Duration {
    let least = Duration::from_secs(10);
    refresh.map_or(least, |r| {
        r.saturating_mul(2)
            .saturating_add(Duration::from_secs(5))
            .clamp(least, Duration::from_secs(3600))
    })
}

struct Probing {
    target: Target,
    index: String,
    acked: Acked,
    bound: Duration,
    /// An instant and its wall-clock time (Unix µs): the second of an acknowledgment, counted
    /// from the probe's start as the load counts its own from its start.
    clock: (Instant, u64),
    /// One for what a reader sees, one each for the primaries and the replicas when read apart.
    trackers: Vec<Tracker>,
}

/// Which copies of the index's shards a count reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copies {
    /// The copy the engine picks for each shard: what a reader sees.
    Any,
    Primary,
    Replica,
}

impl Copies {
    /// The measurements' names of its lags, its documents not searchable within the bound and
    /// those still waiting when the load stopped.
    fn names(self) -> [&'static str; 3] {
        match self {
            Copies::Any => [LAG, UNSEEN, CUT],
            Copies::Primary => [
                "freshness_primary",
                "freshness_primary_unseen",
                "freshness_primary_cut",
            ],
            Copies::Replica => [
                "freshness_replica",
                "freshness_replica_unseen",
                "freshness_replica_cut",
            ],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Copies::Any => "any",
            Copies::Primary => "primary",
            Copies::Replica => "replica",
        }
    }
}

/// How a count is read: `_count` as a reader asks it, or one per shard with the search
/// preference that takes that shard's primary (or replica) on its node, summed.
#[derive(Debug, Clone)]
struct Reader {
    copies: Copies,
    preferences: Vec<String>,
}

impl Reader {
    fn any() -> Reader {
        Reader {
            copies: Copies::Any,
            preferences: Vec::new(),
        }
    }

    fn of(copies: Copies, preferences: Vec<String>) -> Reader {
        Reader {
            copies,
            preferences,
        }
    }

    /// Whether its count is one shard copy's, refreshed on one clock. Each copy refreshes on
    /// a clock of its own: a count summed over several shards, or answered by either copy as
    /// the engine picks, has no one refresh to wait for, so it is asked every interval.
    fn on_one_clock(&self, layout: &Layout) -> bool {
        match self.copies {
            Copies::Any => layout.shards == Some(1) && layout.apart.is_none(),
            _ => self.preferences.len() == 1,
        }
    }

    /// The requests one reading takes.
    fn requests(&self) -> u64 {
        self.preferences.len().max(1) as u64
    }

    async fn count(&self, target: &Target, index: &str) -> Result<u64, TargetError> {
        if self.preferences.is_empty() {
            return searchable(target, index, None).await;
        }
        let mut sum = 0u64;
        for p in &self.preferences {
            sum = sum.saturating_add(searchable(target, index, Some(p)).await?);
        }
        Ok(sum)
    }
}

/// One reader's slices and what it found of them.
struct Tracker {
    reader: Reader,
    /// Its count before the load.
    base: u64,
    asking: Asking,
    pending: VecDeque<Slice>,
    lags: hdrhistogram::Histogram<u64>,
}

impl Tracker {
    /// Drops the slices older than the bound at `now`, counted as not searchable within it
    /// (by second too, for what a reader sees).
    fn expire(&mut self, now: Instant, bound: Duration, m: &mut Measurements) {
        while let Some(s) = self.pending.front() {
            if now.duration_since(s.at) <= bound {
                break;
            }
            let unseen = self.reader.copies.names()[1];
            m.count(unseen, s.docs);
            if self.reader.copies == Copies::Any {
                m.count_at(s.second, unseen, s.docs);
            }
            self.pending.pop_front();
        }
    }

    /// The count `count`, asked at `at`: every slice it covers is searchable, with its lag
    /// (and in its second's bucket, for what a reader sees).
    fn answered(&mut self, at: Instant, count: u64, m: &mut Measurements) {
        self.asking.answered(at, count);
        let shown = count.saturating_sub(self.base);
        while let Some(s) = self.pending.front().filter(|s| s.upto <= shown) {
            let lag = at.duration_since(s.at);
            let us = u64::try_from(lag.as_micros()).unwrap_or(u64::MAX);
            self.lags.saturating_record_n(us, s.docs);
            if self.reader.copies == Copies::Any {
                let ms = us / 1000;
                match EDGES_MS.iter().find(|edge| ms <= **edge) {
                    Some(edge) => m.count_at(s.second, &bucket(*edge), s.docs),
                    None => m.count_at(s.second, BEYOND, s.docs),
                }
            }
            self.pending.pop_front();
        }
    }

    /// Its figures into `m`: the lags, the documents still waiting (cut), and a zero count of
    /// the unseen, so that a reader that saw everything still says it was read.
    fn end(self, m: &mut Measurements) {
        let [lag, unseen, cut] = self.reader.copies.names();
        m.count(unseen, 0);
        let waiting: u64 = self.pending.iter().map(|s| s.docs).sum();
        if waiting > 0 {
            m.count(cut, waiting);
        }
        if !self.lags.is_empty() {
            // Made with the recorder's own bounds: the units agree.
            let _ = m.add_histogram(lag, "us", &self.lags);
        }
    }
}

/// How the index's documents lie: how many shards (of every index a name covers), and on a
/// cluster of several nodes the `_count` preferences that read the primary and a replica of
/// each shard apart, each on its node (see [`routes`]). Replicas just made are waited for, up
/// to 10 s. What cannot be read is not known.
#[derive(Debug, Clone, Default)]
struct Layout {
    shards: Option<usize>,
    apart: Option<(Vec<String>, Vec<String>)>,
}

async fn layout(target: &Target, index: &str) -> Layout {
    #[derive(serde::Deserialize)]
    struct Health {
        number_of_data_nodes: u64,
    }
    let health: Option<Health> = target.get_json("/_cluster/health").await.ok();
    let nodes = health.map_or(1, |h| h.number_of_data_nodes);
    let several = nodes >= 2;
    let path = format!("/_cat/shards/{index}?format=json&h=index,shard,prirep,state,node");
    let Ok(mut rows) = target.get_json::<Vec<ShardCopy>>(&path).await else {
        return Layout::default();
    };
    if several && replicas_coming(&rows, nodes) {
        let green = format!("/_cluster/health/{index}?wait_for_status=green&timeout=10s");
        let _ = target.send(Method::GET, &green, None).await;
        match target.get_json::<Vec<ShardCopy>>(&path).await {
            Ok(again) => rows = again,
            Err(_) => return Layout::default(),
        }
    }
    let mut shards: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r.index.as_str(), r.shard.as_str()))
        .collect();
    shards.sort_unstable();
    shards.dedup();
    Layout {
        shards: Some(shards.len()),
        apart: several.then(|| routes(&rows)).flatten(),
    }
}

/// Whether some replica of the index is not started yet but can be: the cluster has a node
/// for every copy of a shard. An index whose replicas can never all be placed (two replicas
/// on two nodes) is not waited for: its load would start 10 s late for nothing.
fn replicas_coming(rows: &[ShardCopy], data_nodes: u64) -> bool {
    let pending = rows.iter().any(|r| r.prirep == "r" && r.state != "STARTED");
    let copies_of_a_shard = rows
        .iter()
        .filter(|r| {
            rows.first()
                .is_some_and(|f| f.index == r.index && f.shard == r.shard)
        })
        .count() as u64;
    pending && copies_of_a_shard <= data_nodes
}

/// A shard copy as `_cat/shards` lists it.
#[derive(Debug, Clone, serde::Deserialize)]
struct ShardCopy {
    index: String,
    shard: String,
    prirep: String,
    state: String,
    node: Option<String>,
}

/// The preferences that read the primary and a replica of each shard apart, from the index's
/// shard copies: `None` unless every shard of the index (one index, at most
/// [`MOST_SHARDS_BY_COPY`] shards) has both started.
fn routes(rows: &[ShardCopy]) -> Option<(Vec<String>, Vec<String>)> {
    // A data stream's backing indices share shard numbers: not read copy by copy.
    let first = rows.first()?;
    if rows.iter().any(|r| r.index != first.index) {
        return None;
    }
    let mut shards: Vec<u32> = rows.iter().filter_map(|r| r.shard.parse().ok()).collect();
    shards.sort_unstable();
    shards.dedup();
    if shards.len() > MOST_SHARDS_BY_COPY {
        return None;
    }
    let route = |shard: u32, prirep: &str| {
        let copy = rows
            .iter()
            .find(|r| r.shard == shard.to_string() && r.prirep == prirep && r.state == "STARTED")?;
        Some(format!(
            "_shards:{shard}|_only_nodes:{}",
            copy.node.as_ref()?
        ))
    };
    let primaries: Option<Vec<String>> = shards.iter().map(|s| route(*s, "p")).collect();
    let replicas: Option<Vec<String>> = shards.iter().map(|s| route(*s, "r")).collect();
    Some((primaries?, replicas?))
}

/// How the index refreshes, as its settings say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    Every(Duration),
    /// `refresh_interval: -1`.
    Off,
    /// Not read.
    Unknown,
}

impl Refresh {
    fn every(self) -> Option<Duration> {
        match self {
            Refresh::Every(d) => Some(d),
            _ => None,
        }
    }
}

/// When the probe asks the count: only when a refresh may have shown something new.
#[derive(Debug)]
struct Asking {
    refresh: Refresh,
    /// When the count was last seen to rise (the probe's instant of asking).
    rose: Option<Instant>,
    asked: Option<Instant>,
    count: u64,
}

impl Asking {
    fn new(refresh: Refresh, base: u64) -> Asking {
        Asking {
            refresh,
            rose: None,
            asked: None,
            count: base,
        }
    }

    /// Whether to ask at `now`. The next refresh starts an interval after the last one ended,
    /// which was before the probe saw its rise and after the probe's ask before that (an
    /// interval earlier, give or take its request): it cannot end before two probe intervals
    /// short of an interval after the rise was seen.
    fn due(&self, now: Instant) -> bool {
        match (self.refresh, self.rose) {
            (Refresh::Off, _) => self.asked.is_none_or(|t| now >= t + OFF_EVERY),
            // An interval past the clock's end: asked every interval, as when not known.
            (Refresh::Every(r), Some(rose)) => rose
                .checked_add(r)
                .is_none_or(|next| now + 2 * EVERY >= next),
            _ => true,
        }
    }

    fn answered(&mut self, at: Instant, count: u64) {
        if count > self.count {
            self.rose = Some(at);
        }
        self.count = count;
        self.asked = Some(at);
    }

    /// The resolution of a lag: how late after a document became visible the probe can ask.
    fn resolution(&self) -> Duration {
        match self.refresh {
            Refresh::Off => OFF_EVERY,
            _ => EVERY,
        }
    }
}

impl Probing {
    async fn run(mut self, told: watch::Receiver<Over>) -> Measurements {
        let mut m = Measurements::default();
        let mut seen = self.acked.load(Relaxed);
        let mut tick = tokio::time::interval(EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // A count that takes longer than this is missed, not waited for: the probe looks again.
        let deadline = self.bound.min(Duration::from_secs(5));
        m.most(BOUND_MS, self.bound.as_millis() as u64);
        let resolution = self
            .trackers
            .first()
            .map_or(EVERY, |t| t.asking.resolution());
        m.most(RESOLUTION_MS, resolution.as_millis() as u64);
        loop {
            tick.tick().await;
            // Read before the counter: once `Loaded` is seen, the counter is final. A probe
            // whose load was dropped unfinished (its sender gone) stops as if stopped.
            let over = match told.has_changed() {
                Ok(_) => *told.borrow(),
                Err(_) => Over::Stopped,
            };
            if over == Over::Stopped {
                break;
            }
            let now = Instant::now();
            let acked = self.acked.load(Relaxed);
            if acked > seen {
                // Numbered as the load's timeline numbers its seconds (from the second that
                // holds its start's middle), the probe starting with the load.
                let (start, unix_us) = self.clock;
                let since = now.duration_since(start).as_secs();
                let slice = Slice {
                    at: now,
                    second: super::figures::second_zero(unix_us).saturating_add(since),
                    upto: acked,
                    docs: acked - seen,
                };
                for t in &mut self.trackers {
                    t.pending.push_back(slice);
                }
                m.count(PROBED, acked - seen);
                m.count_at(slice.second, PROBED, acked - seen);
                seen = acked;
            }
            for t in &mut self.trackers {
                t.expire(now, self.bound, &mut m);
            }
            if self.trackers.iter().all(|t| t.pending.is_empty()) {
                match over {
                    Over::Running => continue,
                    _ => break,
                }
            }
            for t in &mut self.trackers {
                if t.pending.is_empty() || !t.asking.due(now) {
                    continue;
                }
                m.count(ASKED, t.reader.requests());
                // Each reader's lag from when it asked (a reader after another's slow count
                // does not take that time as its own).
                let asked = Instant::now();
                let count = t.reader.count(&self.target, &self.index);
                match tokio::time::timeout(deadline, count).await {
                    Ok(Ok(count)) => t.answered(asked, count, &mut m),
                    _ => m.count(MISSED, 1),
                }
            }
        }
        for t in self.trackers {
            t.end(&mut m);
        }
        m
    }
}

/// The index's documents a search sees now: `_count`, no refresh asked for, on the copies
/// `preference` names (the engine's pick when none).
async fn searchable(
    target: &Target,
    index: &str,
    preference: Option<&str>,
) -> Result<u64, TargetError> {
    #[derive(serde::Deserialize)]
    struct Answer {
        count: u64,
    }
    let path = match preference {
        None => format!("/{index}/_count"),
        Some(p) => {
            let p: String = url::form_urlencoded::byte_serialize(p.as_bytes()).collect();
            format!("/{index}/_count?preference={p}")
        }
    };
    let answer: Answer = target.get_json(&path).await?;
    Ok(answer.count)
}

/// The index's refresh interval as the engine applies it (its setting, else its default).
async fn refresh_interval(target: &Target, index: &str) -> Refresh {
    let path = format!(
        "/{index}/_settings/index.refresh_interval?include_defaults=true&flat_settings=true"
    );
    let Ok(reply) = target.send(Method::GET, &path, None).await else {
        return Refresh::Unknown;
    };
    serde_json::from_slice(&reply.body)
        .ok()
        .and_then(|v: serde_json::Value| refresh_of(&v))
        .unwrap_or(Refresh::Unknown)
}

/// The refresh an index's `_settings` answer names (its setting, else its default).
fn refresh_of(settings: &serde_json::Value) -> Option<Refresh> {
    // A data stream answers for each backing index: the newest is the one written.
    let (_, newest) = settings.as_object()?.iter().next_back()?;
    let value = ["settings", "defaults"]
        .iter()
        .find_map(|k| newest.get(k)?.get("index.refresh_interval")?.as_str())?;
    match value.trim() {
        "-1" => Some(Refresh::Off),
        v => time_value(v).map(Refresh::Every),
    }
}

/// An engine time value (`1s`, `500ms`, `2m`); `None` for `-1` or what does not parse.
pub fn time_value(v: &str) -> Option<Duration> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit() && c != '.')?;
    let (n, unit) = v.split_at(split);
    let n: f64 = n.parse().ok()?;
    let secs = match unit {
        "nanos" => n / 1e9,
        "micros" => n / 1e6,
        "ms" => n / 1e3,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        "d" => n * 86400.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(secs).ok()
}

/// What the probe measured, as a load's figures show it.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Freshness {
    /// Documents probed (every one acknowledged while the probe ran).
    pub docs: u64,
    /// Of them, not searchable within the bound.
    pub unseen: u64,
    /// Of them, still waiting when the load was stopped.
    #[serde(default)]
    pub cut: u64,
    pub bound_secs: f64,
    /// The lag of the documents that became searchable, in seconds; `None` when none did.
    pub p50_secs: Option<f64>,
    pub p90_secs: Option<f64>,
    pub p99_secs: Option<f64>,
    pub max_secs: Option<f64>,
    /// The resolution of each lag, either way, in ms.
    pub resolution_ms: u64,
    /// Count answers the probe did not get.
    #[serde(default)]
    pub missed_counts: u64,
    /// Counts the probe asked for (its cost on the cluster).
    #[serde(default)]
    pub counts_asked: u64,
    /// On a cluster whose shards each have a replica on another node: the lag on the primaries
    /// and on the replicas, read apart (readers hit either).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copies: Vec<CopyFreshness>,
    /// Second by second of the load (by when the documents were acknowledged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seconds: Vec<FreshnessSecond>,
}

/// The documents acknowledged in one second of the load, and how soon they were searchable:
/// each lag said as at most the edge of its bucket (see [`EDGES_MS`]).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct FreshnessSecond {
    /// Seconds from the load's start, as its timeline counts them.
    pub second: u64,
    pub docs: u64,
    /// Not searchable within the bound.
    pub unseen: u64,
    /// Half (99 %, all) of the second's searchable documents were searchable within this.
    pub p50_le_secs: Option<f64>,
    pub p99_le_secs: Option<f64>,
    pub max_le_secs: Option<f64>,
}

impl FreshnessSecond {
    /// The share of the second's documents not searchable within the bound, in percent.
    pub fn unseen_pct(&self) -> Option<f64> {
        (self.docs > 0).then(|| self.unseen as f64 * 100.0 / self.docs as f64)
    }
}

/// Each second's figures from the buckets `m` keeps by wall-clock second, numbered from the
/// load's start (`began_unix_us`; the first probed second when not known).
fn by_second(m: &Measurements) -> Vec<FreshnessSecond> {
    let probed: Vec<(u64, &std::collections::BTreeMap<String, u64>)> = m
        .seconds
        .iter()
        .filter(|(_, counts)| counts.contains_key(PROBED))
        .map(|(s, counts)| (*s, counts))
        .collect();
    let Some(first) = probed.first().map(|(s, _)| *s) else {
        return Vec::new();
    };
    let start = super::figures::began_unix_us(m).map_or(first, super::figures::second_zero);
    probed
        .into_iter()
        .map(|(second, counts)| {
            let count = |name: &str| counts.get(name).copied().unwrap_or(0);
            let buckets: Vec<(f64, u64)> = EDGES_MS
                .iter()
                .map(|edge| (*edge as f64 / 1000.0, count(&bucket(*edge))))
                .chain([(f64::INFINITY, count(BEYOND))])
                .collect();
            let seen = buckets.iter().fold(0u64, |n, b| n.saturating_add(b.1));
            // The edge of the bucket holding the document at quantile `q` of the searchable.
            let at = |q: f64| {
                let rank = ((seen as f64 * q).ceil() as u64).max(1);
                let mut so_far = 0u64;
                buckets.iter().find_map(|(edge, n)| {
                    so_far = so_far.saturating_add(*n);
                    (so_far >= rank).then_some(*edge).filter(|e| e.is_finite())
                })
            };
            let seen_any = seen > 0;
            FreshnessSecond {
                second: second.saturating_sub(start),
                docs: count(PROBED),
                unseen: count(UNSEEN),
                p50_le_secs: at(0.5).filter(|_| seen_any),
                p99_le_secs: at(0.99).filter(|_| seen_any),
                max_le_secs: at(1.0).filter(|_| seen_any),
            }
        })
        .collect()
}

/// The lag of the documents on one kind of copy of the index's shards.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct CopyFreshness {
    /// `primary` or `replica`.
    pub copies: String,
    pub unseen: u64,
    #[serde(default)]
    pub cut: u64,
    pub p50_secs: Option<f64>,
    pub p99_secs: Option<f64>,
    pub max_secs: Option<f64>,
}

impl CopyFreshness {
    /// `primaries`, `replicas`.
    fn plural(&self) -> String {
        match self.copies.as_str() {
            "primary" => "primaries".into(),
            other => format!("{other}s"),
        }
    }
}

/// The p50, p99 and max of the lag histogram `name` of `m`, in seconds.
fn lag_quantiles(m: &Measurements, name: &str) -> [Option<f64>; 4] {
    let lags = m.histograms.get(name).map(|(_, h)| h);
    let at = |q: f64| lags.map(|h| h.value_at_quantile(q) as f64 / 1e6);
    [
        at(0.5),
        at(0.9),
        at(0.99),
        lags.map(|h| h.max() as f64 / 1e6),
    ]
}

impl Freshness {
    /// The figures of the probe's measurements in `m`; `None` when the load was not probed.
    pub fn of(m: &Measurements) -> Option<Freshness> {
        let bound_ms = *m.bounds.most.get(BOUND_MS)?;
        let resolution_ms = m.bounds.most.get(RESOLUTION_MS).copied();
        let count = |name: &str| m.counts.get(name).copied().unwrap_or(0);
        let [p50_secs, p90_secs, p99_secs, max_secs] = lag_quantiles(m, LAG);
        // A kind of copy read apart always counts its unseen, if only as 0.
        let copies = [Copies::Primary, Copies::Replica]
            .into_iter()
            .filter(|c| m.counts.contains_key(c.names()[1]))
            .map(|c| {
                let [lag, unseen, cut] = c.names();
                let [p50_secs, _, p99_secs, max_secs] = lag_quantiles(m, lag);
                CopyFreshness {
                    copies: c.name().to_string(),
                    unseen: count(unseen),
                    cut: count(cut),
                    p50_secs,
                    p99_secs,
                    max_secs,
                }
            })
            .collect();
        Some(Freshness {
            docs: count(PROBED),
            unseen: count(UNSEEN),
            cut: count(CUT),
            bound_secs: bound_ms as f64 / 1000.0,
            p50_secs,
            p90_secs,
            p99_secs,
            max_secs,
            resolution_ms: resolution_ms.unwrap_or(EVERY.as_millis() as u64),
            missed_counts: count(MISSED),
            counts_asked: count(ASKED),
            copies,
            seconds: by_second(m),
        })
    }

    /// The share of the probed documents not searchable within the bound, in percent.
    pub fn unseen_pct(&self) -> Option<f64> {
        (self.docs > 0).then(|| self.unseen as f64 * 100.0 / self.docs as f64)
    }

    /// A line for a person: `searchable after p50 0.52 s / p99 1.04 s (max 1.1 s)`, or what
    /// was not.
    pub fn line(&self) -> String {
        // Figures read back from a store or a published document may not add up: never below 0.
        let seen = self
            .docs
            .saturating_sub(self.unseen.saturating_add(self.cut));
        let mut line = match (self.p50_secs, self.p99_secs) {
            (Some(p50), Some(p99)) if seen > 0 => format!(
                "searchable after p50 {p50:.2} s / p99 {p99:.2} s (max {:.2} s, ±{} ms)",
                self.max_secs.unwrap_or(p99),
                self.resolution_ms
            ),
            _ if self.docs == 0 => "searchable: no document acknowledged to probe".to_string(),
            _ if self.unseen > 0 => format!(
                "never searchable within {:.0} s: none of the {} documents probed became \
                 searchable (is refresh off?)",
                self.bound_secs, self.docs
            ),
            _ => "searchable: not known, the load stopped before any document was".to_string(),
        };
        if self.unseen > 0 && seen > 0 {
            line.push_str(&format!(
                "; {} documents ({:.1} %) not searchable within {:.0} s",
                self.unseen,
                self.unseen_pct().unwrap_or(0.0),
                self.bound_secs
            ));
        }
        if self.cut > 0 {
            line.push_str(&format!(
                "; {} documents still waiting when the load stopped",
                self.cut
            ));
        }
        for c in &self.copies {
            line.push_str(&match (c.p50_secs, c.p99_secs) {
                (Some(p50), Some(p99)) => {
                    format!("; on the {} p50 {p50:.2} s / p99 {p99:.2} s", c.plural())
                }
                _ => format!("; on the {} never within the bound", c.plural()),
            });
        }
        line
    }

    /// The p99 on the kind of copy `copies` (`primary`, `replica`), when read apart.
    pub fn p99_on(&self, copies: &str) -> Option<f64> {
        self.copies.iter().find(|c| c.copies == copies)?.p99_secs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A histogram of `(lag µs, documents)`.
    fn lags(values_us: &[(u64, u64)]) -> hdrhistogram::Histogram<u64> {
        let mut h = crate::measure::recorder::histogram();
        for (v, n) in values_us {
            h.saturating_record_n(*v, *n);
        }
        h
    }

    fn copy(index: &str, shard: u32, prirep: &str, state: &str, node: Option<&str>) -> ShardCopy {
        ShardCopy {
            index: index.into(),
            shard: shard.to_string(),
            prirep: prirep.into(),
            state: state.into(),
            node: node.map(str::to_string),
        }
    }

    /// A merged group's buckets of one second (each part's up to 2^53, a thousand parts)
    /// give their percentiles without overflow.
    #[test]
    fn a_seconds_buckets_past_u64_give_their_percentiles() {
        let mut m = Measurements::default();
        m.count_at(100, PROBED, 1);
        for edge in EDGES_MS {
            m.count_at(100, &bucket(edge), u64::MAX);
        }
        let seconds = by_second(&m);
        assert_eq!(seconds.len(), 1);
    }

    #[test]
    fn each_shard_is_read_on_its_primary_and_on_a_started_replica_apart() {
        let rows = vec![
            copy("i", 0, "p", "STARTED", Some("n1")),
            copy("i", 0, "r", "STARTED", Some("n2")),
            copy("i", 1, "r", "INITIALIZING", Some("n3")),
            copy("i", 1, "r", "STARTED", Some("n1")),
            copy("i", 1, "p", "STARTED", Some("n2")),
        ];
        let (primaries, replicas) = routes(&rows).expect("both read apart");
        assert_eq!(
            primaries,
            ["_shards:0|_only_nodes:n1", "_shards:1|_only_nodes:n2"]
        );
        assert_eq!(
            replicas,
            ["_shards:0|_only_nodes:n2", "_shards:1|_only_nodes:n1"]
        );
        // A shard whose replica is not started (one node: unassigned), or a data stream's
        // backing indices, are not read apart.
        let unassigned = vec![
            copy("i", 0, "p", "STARTED", Some("n1")),
            copy("i", 0, "r", "UNASSIGNED", None),
        ];
        assert_eq!(routes(&unassigned), None);
        let stream = vec![
            copy(".ds-a-1", 0, "p", "STARTED", Some("n1")),
            copy(".ds-a-1", 0, "r", "STARTED", Some("n2")),
            copy(".ds-a-2", 0, "p", "STARTED", Some("n2")),
            copy(".ds-a-2", 0, "r", "STARTED", Some("n1")),
        ];
        assert_eq!(routes(&stream), None);
        let many: Vec<ShardCopy> = (0..=MOST_SHARDS_BY_COPY as u32)
            .flat_map(|s| {
                [
                    copy("i", s, "p", "STARTED", Some("n1")),
                    copy("i", s, "r", "STARTED", Some("n2")),
                ]
            })
            .collect();
        assert_eq!(routes(&many), None, "too many shards to read copy by copy");
        assert_eq!(routes(&[]), None);
    }

    #[test]
    fn replicas_are_waited_for_only_when_they_can_be_placed() {
        let starting = vec![
            copy("i", 0, "p", "STARTED", Some("n1")),
            copy("i", 0, "r", "INITIALIZING", Some("n2")),
        ];
        assert!(replicas_coming(&starting, 2));
        // Two replicas on two nodes: one never has a node; the load is not held 10 s.
        let never = vec![
            copy("i", 0, "p", "STARTED", Some("n1")),
            copy("i", 0, "r", "STARTED", Some("n2")),
            copy("i", 0, "r", "UNASSIGNED", None),
        ];
        assert!(!replicas_coming(&never, 2));
        assert!(replicas_coming(&never, 3));
        let started = vec![
            copy("i", 0, "p", "STARTED", Some("n1")),
            copy("i", 0, "r", "STARTED", Some("n2")),
        ];
        assert!(!replicas_coming(&started, 2), "nothing to wait for");
    }

    #[test]
    fn only_a_count_of_one_shard_copy_waits_for_its_refresh() {
        let one = Layout {
            shards: Some(1),
            apart: None,
        };
        let any = Reader::any();
        assert!(any.on_one_clock(&one));
        let two = Layout {
            shards: Some(2),
            ..one.clone()
        };
        assert!(!any.on_one_clock(&two), "two shards, two clocks");
        assert!(
            !any.on_one_clock(&Layout::default()),
            "not known: asked always"
        );
        let p = |n: usize| vec!["_shards:0|_only_nodes:n1".to_string(); n];
        let apart = Layout {
            shards: Some(1),
            apart: Some((p(1), p(1))),
        };
        assert!(!any.on_one_clock(&apart), "either copy answers");
        assert!(Reader::of(Copies::Primary, p(1)).on_one_clock(&apart));
        assert!(!Reader::of(Copies::Replica, p(2)).on_one_clock(&apart));
    }

    #[test]
    fn the_primaries_and_replicas_read_apart_have_figures_of_their_own() {
        let mut m = Measurements::default();
        m.most(BOUND_MS, 10_000);
        m.count(PROBED, 100);
        m.count(UNSEEN, 0);
        let _ = m.add_histogram(LAG, "us", &lags(&[(600_000, 100)]));
        m.count("freshness_primary_unseen", 0);
        let _ = m.add_histogram("freshness_primary", "us", &lags(&[(500_000, 100)]));
        m.count("freshness_replica_unseen", 10);
        let _ = m.add_histogram("freshness_replica", "us", &lags(&[(900_000, 90)]));
        let f = Freshness::of(&m).expect("probed");
        assert_eq!(f.copies.len(), 2);
        assert!((f.p99_on("primary").unwrap() - 0.5).abs() < 0.01);
        assert!((f.p99_on("replica").unwrap() - 0.9).abs() < 0.01);
        assert_eq!(f.copies[1].unseen, 10);
        let line = f.line();
        assert!(
            line.contains("; on the primaries p50 0.50 s / p99 0.50 s; on the replicas p50 0.90"),
            "{line}"
        );
        // Not read apart: no such figures, none said.
        let mut alone = Measurements::default();
        alone.most(BOUND_MS, 10_000);
        alone.count(PROBED, 1);
        let f = Freshness::of(&alone).expect("probed");
        assert!(f.copies.is_empty() && f.p99_on("primary").is_none());
        assert!(!f.line().contains(" on the "));
    }

    /// Each second keeps its documents in lag buckets: its p50, p99 and max are the edges of
    /// the buckets they fall in, numbered from the load's start, and what was never
    /// searchable is said per second.
    #[test]
    fn each_second_says_how_soon_its_documents_were_searchable() {
        let began = 1_700_000_000u64;
        let mut m = Measurements::default();
        m.least(super::super::figures::BEGAN, began * 1_000_000 + 300_000);
        m.most(BOUND_MS, 10_000);
        // Second 0: 98 documents within 400 ms, 2 within 2.5 s.
        m.count_at(began, PROBED, 100);
        m.count_at(began, &bucket(400), 98);
        m.count_at(began, &bucket(2_500), 2);
        // Second 1: half within 1 s, the rest never searchable within the bound.
        m.count_at(began + 1, PROBED, 50);
        m.count_at(began + 1, &bucket(1_000), 25);
        m.count_at(began + 1, UNSEEN, 25);
        // Second 3: nothing searchable.
        m.count_at(began + 3, PROBED, 10);
        m.count_at(began + 3, UNSEEN, 10);
        let f = Freshness::of(&m).expect("probed");
        let s = &f.seconds;
        assert_eq!(s.iter().map(|s| s.second).collect::<Vec<_>>(), [0, 1, 3]);
        assert_eq!(
            (s[0].p50_le_secs, s[0].p99_le_secs, s[0].max_le_secs),
            (Some(0.4), Some(2.5), Some(2.5))
        );
        assert_eq!(s[0].unseen_pct(), Some(0.0));
        assert_eq!((s[1].p50_le_secs, s[1].max_le_secs), (Some(1.0), Some(1.0)));
        assert_eq!(s[1].unseen_pct(), Some(50.0));
        assert_eq!((s[2].p50_le_secs, s[2].docs, s[2].unseen), (None, 10, 10));
        // Lags over the last edge are beyond it: no number for the second's max.
        let mut beyond = Measurements::default();
        beyond.count_at(began, PROBED, 2);
        beyond.count_at(began, &bucket(50), 1);
        beyond.count_at(began, BEYOND, 1);
        let s = by_second(&beyond);
        assert_eq!(
            (s[0].second, s[0].p50_le_secs, s[0].max_le_secs),
            (0, Some(0.05), None)
        );
    }

    #[test]
    fn engine_time_values_read_as_the_engines_write_them() {
        assert_eq!(time_value("1s"), Some(Duration::from_secs(1)));
        assert_eq!(time_value("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(time_value("2m"), Some(Duration::from_secs(120)));
        assert_eq!(time_value("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(time_value("-1"), None);
        assert_eq!(time_value("30"), None);
        assert_eq!(time_value("5 parsecs"), None);
        assert_eq!(time_value("99999999999999999999999d"), None);
    }

    #[test]
    fn the_count_is_asked_only_when_a_refresh_may_have_shown_something_new() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut every = Asking::new(Refresh::Every(Duration::from_secs(1)), 10);
        assert!(every.due(at(0)), "before any rise: every interval");
        every.answered(at(0), 10);
        assert!(every.due(at(50)), "no rise yet");
        every.answered(at(400), 25);
        assert!(!every.due(at(450)), "just after a rise");
        assert!(
            !every.due(at(1299)),
            "more than two intervals short of the next"
        );
        assert!(every.due(at(1300)));
        every.answered(at(1300), 25);
        assert!(every.due(at(1350)), "until it rises again");
        every.answered(at(1400), 40);
        assert!(!every.due(at(1450)));

        let mut off = Asking::new(Refresh::Off, 0);
        assert!(off.due(at(0)));
        off.answered(at(0), 0);
        assert!(!off.due(at(999)));
        assert!(off.due(at(1000)));
        assert_eq!(off.resolution(), Duration::from_secs(1));

        let unknown = Asking::new(Refresh::Unknown, 0);
        assert!(unknown.due(at(0)) && unknown.resolution() == EVERY);

        // A server's absurd interval: never an overflow, asked as when not known.
        let mut absurd = Asking::new(Refresh::Every(Duration::MAX), 0);
        absurd.answered(at(0), 5);
        assert!(absurd.due(at(50)));
        assert_eq!(
            default_bound(Some(Duration::MAX)),
            Duration::from_secs(3600)
        );
    }

    #[test]
    fn the_refresh_is_read_from_the_setting_else_the_default_of_the_newest_index() {
        let answer = |v: Value| refresh_of(&v);
        assert_eq!(
            answer(
                json!({"logs": {"settings": {"index.refresh_interval": "5s"},
                "defaults": {"index.refresh_interval": "1s"}}})
            ),
            Some(Refresh::Every(Duration::from_secs(5)))
        );
        assert_eq!(
            answer(json!({"logs": {"settings": {}, "defaults": {"index.refresh_interval": "1s"}}})),
            Some(Refresh::Every(Duration::from_secs(1)))
        );
        assert_eq!(
            answer(
                json!({".ds-logs-000001": {"settings": {"index.refresh_interval": "1s"}},
                ".ds-logs-000002": {"settings": {"index.refresh_interval": "-1"}}})
            ),
            Some(Refresh::Off)
        );
        assert_eq!(answer(json!({"logs": {"settings": {}}})), None);
        assert_eq!(
            answer(json!({"logs": {"settings": {"index.refresh_interval": "soon"}}})),
            None
        );
        assert_eq!(answer(json!([])), None);
    }

    #[test]
    fn the_default_bound_follows_the_refresh_interval() {
        assert_eq!(default_bound(None), Duration::from_secs(10));
        assert_eq!(
            default_bound(Some(Duration::from_secs(1))),
            Duration::from_secs(10)
        );
        assert_eq!(
            default_bound(Some(Duration::from_secs(30))),
            Duration::from_secs(65)
        );
    }

    #[test]
    fn figures_come_from_the_measurements_and_say_what_was_not_seen() {
        let mut m = Measurements::default();
        assert_eq!(Freshness::of(&m), None, "not probed");
        m.most(BOUND_MS, 10_000);
        m.count(PROBED, 1000);
        m.add_histogram(LAG, "us", &lags(&[(400_000, 500), (600_000, 490)]))
            .unwrap();
        m.count(UNSEEN, 10);
        let f = Freshness::of(&m).unwrap();
        assert!((f.p50_secs.unwrap() - 0.4).abs() < 0.01, "{f:?}");
        assert!((f.p99_secs.unwrap() - 0.6).abs() < 0.01, "{f:?}");
        assert_eq!(f.unseen_pct(), Some(1.0));
        let line = f.line();
        assert!(
            line.starts_with("searchable after p50 0.40 s / p99 0.60 s"),
            "{line}"
        );
        assert!(
            line.contains("10 documents (1.0 %) not searchable within 10 s"),
            "{line}"
        );

        // Refresh off: never a number.
        let mut off = Measurements::default();
        off.most(BOUND_MS, 10_000);
        off.count(PROBED, 300);
        off.count(UNSEEN, 300);
        let f = Freshness::of(&off).unwrap();
        assert_eq!((f.p50_secs, f.p99_secs), (None, None));
        assert!(
            f.line().starts_with("never searchable within 10 s"),
            "{}",
            f.line()
        );

        // Figures that do not add up (a lying store) still make a line.
        let lying = Freshness {
            docs: 1,
            unseen: u64::MAX,
            cut: u64::MAX,
            ..Freshness::default()
        };
        assert!(
            lying.line().contains("never searchable within"),
            "{}",
            lying.line()
        );

        // Parts add up: the merged figures are those of one probe that saw both.
        let mut merged = m.clone();
        merged.merge(&off).unwrap();
        let f = Freshness::of(&merged).unwrap();
        assert_eq!((f.docs, f.unseen), (1300, 310));
        assert!((f.p50_secs.unwrap() - 0.4).abs() < 0.01);
    }
}

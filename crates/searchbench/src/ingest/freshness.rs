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
//! twenty a second, the lags as fine. With refresh off it asks once a second (a refresh the
//! user asks for is still seen); when the interval cannot be read, every interval.
//! ([`FreshnessSpec::eager`] asks every interval whatever the refresh.)
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
struct Slice {
    at: Instant,
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
        let base = searchable(target, index).await?;
        let refresh = match spec.eager {
            true => Refresh::Unknown,
            false => refresh_interval(target, index).await,
        };
        let bound = match spec.bound {
            Some(b) => b,
            None => default_bound(refresh.every()),
        };
        let (over, told) = watch::channel(Over::Running);
        let probing = Probing {
            target: target.clone(),
            index: index.to_string(),
            acked,
            base,
            bound,
            asking: Asking::new(refresh, base),
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
    /// The index's searchable count before the load.
    base: u64,
    bound: Duration,
    asking: Asking,
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
        let mut lags = crate::measure::recorder::histogram();
        let mut pending: VecDeque<Slice> = VecDeque::new();
        let mut seen = self.acked.load(Relaxed);
        let mut tick = tokio::time::interval(EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // A count that takes longer than this is missed, not waited for: the probe looks again.
        let deadline = self.bound.min(Duration::from_secs(5));
        m.most(BOUND_MS, self.bound.as_millis() as u64);
        m.most(RESOLUTION_MS, self.asking.resolution().as_millis() as u64);
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
                pending.push_back(Slice {
                    at: now,
                    upto: acked,
                    docs: acked - seen,
                });
                m.count(PROBED, acked - seen);
                seen = acked;
            }
            while let Some(s) = pending.front() {
                if now.duration_since(s.at) <= self.bound {
                    break;
                }
                m.count(UNSEEN, s.docs);
                pending.pop_front();
            }
            if pending.is_empty() {
                match over {
                    Over::Running => continue,
                    _ => break,
                }
            }
            if !self.asking.due(now) {
                continue;
            }
            m.count(ASKED, 1);
            match tokio::time::timeout(deadline, searchable(&self.target, &self.index)).await {
                Ok(Ok(count)) => {
                    self.asking.answered(now, count);
                    let shown = count.saturating_sub(self.base);
                    while let Some(s) = pending.front().filter(|s| s.upto <= shown) {
                        let lag = now.duration_since(s.at).as_micros();
                        lags.saturating_record_n(u64::try_from(lag).unwrap_or(u64::MAX), s.docs);
                        pending.pop_front();
                    }
                }
                _ => m.count(MISSED, 1),
            }
        }
        let cut: u64 = pending.iter().map(|s| s.docs).sum();
        if cut > 0 {
            m.count(CUT, cut);
        }
        if !lags.is_empty() {
            // Made here with the recorder's own bounds: the units agree.
            let _ = m.add_histogram(LAG, "us", &lags);
        }
        m
    }
}

/// The index's documents a search sees now: `_count`, no refresh asked for.
async fn searchable(target: &Target, index: &str) -> Result<u64, TargetError> {
    #[derive(serde::Deserialize)]
    struct Answer {
        count: u64,
    }
    let answer: Answer = target.get_json(&format!("/{index}/_count")).await?;
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
}

impl Freshness {
    /// The figures of the probe's measurements in `m`; `None` when the load was not probed.
    pub fn of(m: &Measurements) -> Option<Freshness> {
        let bound_ms = *m.bounds.most.get(BOUND_MS)?;
        let resolution_ms = m.bounds.most.get(RESOLUTION_MS).copied();
        let count = |name: &str| m.counts.get(name).copied().unwrap_or(0);
        let lags = m.histograms.get(LAG).map(|(_, h)| h);
        let at = |q: f64| lags.map(|h| h.value_at_quantile(q) as f64 / 1e6);
        Some(Freshness {
            docs: count(PROBED),
            unseen: count(UNSEEN),
            cut: count(CUT),
            bound_secs: bound_ms as f64 / 1000.0,
            p50_secs: at(0.5),
            p90_secs: at(0.9),
            p99_secs: at(0.99),
            max_secs: lags.map(|h| h.max() as f64 / 1e6),
            resolution_ms: resolution_ms.unwrap_or(EVERY.as_millis() as u64),
            missed_counts: count(MISSED),
            counts_asked: count(ASKED),
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
        line
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

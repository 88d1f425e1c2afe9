//! A load's figures from its measurements: the one derivation of a load's counts, headline,
//! rates, percentiles, CPU and timeline, for a load alone and for the parts of one load merged
//! (`results merge`), so a merged run and a single run of the same load give the same figures
//! by the same code.
//!
//! [`measure`] keeps what a load did as [`Measurements`] that add up over the processes of
//! one run: counts, histograms, counts per wall-clock second, and bounds (when it began, when
//! its steady window began, when it ended). [`LoadFigures::of`] derives every figure from
//! them, after any merge.

use std::time::Duration;

use serde::Serialize;

use super::stored::StoredLoad;
use super::{Counts, Cpu, Requests};
use crate::measure::recorder::{self, levelled, summarize, Headline, Recorder, Summary};
use crate::measure::{Measurements, TimelineRow};

/// The counts a load keeps: its documents (as [`Counts`] names them) and its requests.
const COUNTS: [&str; 9] = [
    "read",
    "indexed",
    "failed",
    "refused",
    "unacknowledged",
    "not_sent",
    "bad_lines",
    "retried_items",
    "throttled",
];

/// With id conflicts, the acknowledged documents written over an id already used: kept only
/// when there are some, so a load without conflicts keeps what it always kept.
const OVERWRITTEN: &str = "overwritten";

// The names of what a load keeps besides its document counts.
const ATTEMPTS: &str = "attempts";
const FAILED_ATTEMPTS: &str = "failed_attempts";
const RETRIES: &str = "retries";
const BYTES: &str = "bytes";
const WIRE_BYTES: &str = "wire_bytes";
/// Documents acknowledged in the steady window (all of them when no warm-up applied).
const STEADY_DOCS: &str = "steady_docs";
const WARMUP_DOCS: &str = "warmup_docs";
const WARMUP_ATTEMPTS: &str = "warmup_attempts";
const DRIVER_CPU_US: &str = "driver_cpu_us";
/// The cores of the machines the parts ran on (a machine running two parts counts twice).
const CORES: &str = "machine_cores";
/// How the engine's `took` fell on its cached clock's steps (see [`recorder::took_clock`]).
const TOOK_SEEN: &str = "took_seen";
const TOOK_ON_STEP: &str = "took_on_step";
const TOOK_PAST_STEP: &str = "took_past_step";
pub(crate) const BEGAN: &str = "began_unix_us";
const STEADY_FROM: &str = "steady_from_unix_us";
const ENDED: &str = "ended_unix_us";
const WARMUP_ASKED: &str = "warmup_us";
const ENGINE_CPU_US: &str = "engine_cpu_us";
/// Per second: the service time of its requests, summed.
pub(super) const SERVICE_US: &str = "service_us";
const DOCS: &str = "docs";
const REQUESTS: &str = "requests";

/// What a load did, as [`measure`] reads it.
pub struct Tally<'a> {
    /// The load's recorder, its warm-up settled ([`Recorder::finish`]).
    pub recorder: &'a Recorder,
    /// What [`Recorder::finish`] said of the warm-up.
    pub headline: &'a Headline,
    pub counts: &'a Counts,
    /// When the load's second 0 was, in Unix µs.
    pub began_unix_us: u64,
    pub wall: Duration,
    pub driver_cpu: Duration,
    pub engine_cpu: Option<Duration>,
    pub cores: u64,
    /// What the freshness probe measured beside the load, when it ran.
    pub freshness: Option<&'a Measurements>,
}

/// What a load did as measurements that add up over the processes of one run.
pub fn measure(t: Tally<'_>) -> Measurements {
    let mut m = Measurements::default();
    count_documents(&mut m, t.counts);
    let r = t.recorder;
    let h = t.headline;
    let (seen, on_step, past_step) = r.took_steps();
    for (name, n) in [
        (ATTEMPTS, r.requests),
        (FAILED_ATTEMPTS, r.failed_attempts),
        (RETRIES, r.retried_attempts),
        (BYTES, r.bytes),
        (WIRE_BYTES, r.wire_bytes),
        (STEADY_DOCS, h.docs),
        (WARMUP_DOCS, h.warmup_docs),
        (WARMUP_ATTEMPTS, h.warmup_attempts),
        (DRIVER_CPU_US, t.driver_cpu.as_micros() as u64),
        (CORES, t.cores),
        (TOOK_SEEN, seen),
        (TOOK_ON_STEP, on_step),
        (TOOK_PAST_STEP, past_step),
    ] {
        m.count(name, n);
    }
    keep_span(
        &mut m,
        t.began_unix_us,
        t.wall.as_micros() as u64,
        secs_us(h.warmup_secs),
        h.warmup_applied,
        t.engine_cpu.map(|e| e.as_micros() as u64),
    );
    count_seconds(&mut m, t.began_unix_us, &r.timeline());
    for (name, unit, h) in r.each_histogram() {
        // Empty here, with the recorder's bounds: it adds.
        let _ = m.add_histogram(name, unit, h);
    }
    if let Some(f) = t.freshness {
        // Its own names, with the recorder's bounds: it adds.
        let _ = m.merge(f);
    }
    m
}

/// Seconds as µs (none for a negative or non-finite figure; the largest at most).
fn secs_us(s: f64) -> u64 {
    (s.max(0.0) * 1e6).round() as u64
}

/// Keeps a load's span: it began at `began`, ran `wall_us`, its steady window began
/// `warmup_us` later when the warm-up `applied` (else at once); the engine's CPU.
fn keep_span(
    m: &mut Measurements,
    began: u64,
    wall_us: u64,
    warmup_us: u64,
    applied: bool,
    engine_cpu_us: Option<u64>,
) {
    m.least(BEGAN, began);
    m.least(
        STEADY_FROM,
        began.saturating_add(if applied { warmup_us } else { 0 }),
    );
    m.most(ENDED, began.saturating_add(wall_us));
    m.most(WARMUP_ASKED, warmup_us);
    if let Some(e) = engine_cpu_us {
        m.most(ENGINE_CPU_US, e);
    }
}

/// Keeps a load's seconds on the wall clock, its second 0 at `began`.
fn count_seconds(m: &mut Measurements, began: u64, timeline: &[TimelineRow]) {
    let zero = second_zero(began);
    for row in timeline {
        let at = zero.saturating_add(row.second);
        m.count_at(at, DOCS, row.docs);
        m.count_at(at, REQUESTS, row.requests);
        m.count_at(at, FAILED_ATTEMPTS, row.failed_attempts);
        m.count_at(at, BYTES, row.bytes);
        m.count_at(at, SERVICE_US, row.service_sum_us());
    }
}

/// Keeps the documents' counts of `c`.
fn count_documents(m: &mut Measurements, c: &Counts) {
    for (name, n) in COUNTS.iter().zip([
        c.read,
        c.indexed,
        c.failed,
        c.refused,
        c.unacknowledged,
        c.not_sent,
        c.bad_lines,
        c.retried_items,
        c.throttled,
    ]) {
        m.count(name, n);
    }
    if c.overwritten > 0 {
        m.count(OVERWRITTEN, c.overwritten);
    }
}

/// The wall-clock second a load's second 0 falls in: the one holding its middle, so the
/// seconds of parts begun apart line up by the clock.
pub(super) fn second_zero(began_unix_us: u64) -> u64 {
    began_unix_us.saturating_add(500_000) / 1_000_000
}

/// The most seconds a load's timeline is derived over: a week (600,000 rows). Bounds and
/// seconds read back from a store or a published document that claim more are not a load
/// this tool ran; its timeline stops there rather than fill memory (its counts, headline and
/// percentiles do not come from the timeline).
pub(crate) const MOST_SECONDS: u64 = 7 * 86_400;

/// Every figure of a load, derived from its measurements.
#[derive(Debug, Clone, Serialize)]
pub struct LoadFigures {
    pub wall_secs: f64,
    /// The documents' counts (the index's `_count` and the reconciliation are the caller's).
    pub counts: Counts,
    pub docs_per_sec: f64,
    pub headline: Headline,
    pub mb_per_sec: f64,
    pub wire_mb_per_sec: f64,
    pub requests: Requests,
    pub service: Summary,
    pub took: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub took_clock_ms: Option<u64>,
    pub cpu: Cpu,
    pub timeline: Vec<TimelineRow>,
    /// How soon the acknowledged documents were searchable, when the load was probed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness: Option<super::freshness::Freshness>,
}

impl LoadFigures {
    /// The figures of the load `m` measured; `None` when `m` holds no load (no start).
    pub fn of(m: &Measurements) -> Option<LoadFigures> {
        Some(LoadFigures::from(m, *m.bounds.least.get(BEGAN)?))
    }

    /// What a load did as measurements, and its figures derived from them.
    pub fn measured(t: Tally<'_>) -> (Measurements, LoadFigures) {
        let began = t.began_unix_us;
        let m = measure(t);
        let figures = LoadFigures::from(&m, began);
        (m, figures)
    }

    /// The figures of `m`, a load that began at `began` (its least start).
    fn from(m: &Measurements, began: u64) -> LoadFigures {
        let count = |name: &str| m.counts.get(name).copied().unwrap_or(0);
        let ended = m
            .bounds
            .most
            .get(ENDED)
            .copied()
            .unwrap_or(began)
            .max(began);
        let steady_from = m
            .bounds
            .least
            .get(STEADY_FROM)
            .copied()
            .unwrap_or(began)
            .clamp(began, ended);
        let wall = ((ended - began) as f64 / 1e6).max(1e-9);
        let applied = steady_from > began;
        let window = if applied {
            ((ended - steady_from) as f64 / 1e6).max(1e-9)
        } else {
            wall
        };
        let warmup_secs = m.bounds.most.get(WARMUP_ASKED).copied().unwrap_or(0) as f64 / 1e6;
        let timeline = timeline(m, began, steady_from);
        // The whole seconds of the measured window (the last one is cut short by the end).
        let measured: Vec<u64> = timeline
            .iter()
            .filter(|s| !s.warmup)
            .map(|s| s.docs)
            .collect();
        let level = levelled(&measured[..measured.len().saturating_sub(1)]);
        let docs = count(STEADY_DOCS);
        let headline = Headline {
            docs_per_sec: docs as f64 / window,
            docs,
            window_secs: window,
            warmup_secs,
            warmup_applied: applied,
            warmup_docs: count(WARMUP_DOCS),
            warmup_attempts: count(WARMUP_ATTEMPTS),
            definition: recorder::definition(applied, warmup_secs, window, wall),
            levelled: level.map(|l| l.0),
            rise_pct: level.map(|l| l.1),
        };
        let indexed = count("indexed");
        let cores = count(CORES).max(1) as f64;
        let driver_secs = count(DRIVER_CPU_US) as f64 / 1e6;
        let engine_secs = m.bounds.most.get(ENGINE_CPU_US).map(|us| *us as f64 / 1e6);
        let summary = |name: &str, per_ms: f64| {
            m.histograms
                .get(name)
                .map_or_else(Summary::default, |(_, h)| summarize(h, per_ms))
        };
        LoadFigures {
            wall_secs: wall,
            counts: Counts {
                read: count("read"),
                indexed,
                failed: count("failed"),
                refused: count("refused"),
                unacknowledged: count("unacknowledged"),
                not_sent: count("not_sent"),
                bad_lines: count("bad_lines"),
                retried_items: count("retried_items"),
                throttled: count("throttled"),
                index_count: None,
                index_count_before: None,
                overwritten: count(OVERWRITTEN),
                reconciled: false,
            },
            docs_per_sec: headline.docs_per_sec,
            headline,
            mb_per_sec: count(BYTES) as f64 / wall / 1e6,
            wire_mb_per_sec: count(WIRE_BYTES) as f64 / wall / 1e6,
            requests: Requests {
                attempts: count(ATTEMPTS),
                failed_attempts: count(FAILED_ATTEMPTS),
                retries: count(RETRIES),
            },
            service: summary("service", 1000.0),
            took: summary("took", 1.0),
            took_clock_ms: recorder::took_clock(
                count(TOOK_SEEN),
                count(TOOK_ON_STEP),
                count(TOOK_PAST_STEP),
            ),
            cpu: Cpu {
                driver_secs,
                driver_secs_per_million_docs: (indexed > 0)
                    .then(|| driver_secs * 1e6 / indexed as f64),
                driver_machine_share: driver_secs / (wall * cores),
                engine_secs,
                // The engine's CPU is read around the whole ingest (setup and refresh
                // included) but divided by the load's wall time: past 100 % is that
                // mismatch, not a reading.
                engine_machine_share: engine_secs.map(|e| (e / (wall * cores)).min(1.0)),
            },
            timeline,
            freshness: super::freshness::Freshness::of(m),
        }
    }
}

/// The load's seconds from its second 0 to its last, each second's counts summed over the
/// parts; a second before the steady window is a warm-up second.
fn timeline(m: &Measurements, began: u64, steady_from: u64) -> Vec<TimelineRow> {
    let zero = second_zero(began);
    // The load's own seconds: what else is kept by second (the freshness probe's slices,
    // stamped up to a probe interval after their answers) may fall a second past its last.
    let Some(last) = m
        .seconds
        .iter()
        .rev()
        .find(|(_, c)| {
            [DOCS, REQUESTS, FAILED_ATTEMPTS, BYTES, SERVICE_US]
                .iter()
                .any(|name| c.contains_key(*name))
        })
        .map(|(s, _)| *s)
    else {
        return Vec::new();
    };
    (zero..=last.clamp(zero, zero.saturating_add(MOST_SECONDS)))
        .map(|at| {
            let second = at - zero;
            let c = m.seconds.get(&at);
            let get = |name: &str| c.and_then(|c| c.get(name)).copied().unwrap_or(0);
            TimelineRow::new(
                second,
                get(REQUESTS),
                get(FAILED_ATTEMPTS),
                get(DOCS),
                get(BYTES),
                get(SERVICE_US),
                began.saturating_add(second * 1_000_000) < steady_from,
            )
        })
        .collect()
}

/// The measurements of a part that kept none of its load (a part killed before its load
/// ended; one stored before loads kept them whole): its seconds from the timeline it
/// streamed, from `began_unix_us`, and what its written report says (`written`), else its
/// acknowledged documents from the timeline and its wall as long as the timeline. Its
/// histograms are the ones it stored (none for a killed part: its percentiles are unknown);
/// `cores`: its machine's.
pub fn from_written(
    written: Option<&StoredLoad>,
    timeline: &[TimelineRow],
    histograms: &[crate::measure::SerializedHistogram],
    began_unix_us: u64,
    cores: u64,
) -> Measurements {
    let mut m = Measurements::default();
    m.count(CORES, cores);
    count_seconds(&mut m, began_unix_us, timeline);
    for h in histograms
        .iter()
        .filter(|h| ["service", "took"].contains(&h.name.as_str()))
    {
        // One that does not decode leaves its percentiles out, as a killed part's are.
        let _ = m.histogram(h);
    }
    m.least(BEGAN, began_unix_us);
    // Stopping at the most a `u64` holds, as `Measurements::count` does: only a made-up
    // timeline gets there.
    let sum = |f: fn(&TimelineRow) -> u64| timeline.iter().map(f).fold(0, u64::saturating_add);
    let Some(w) = written else {
        m.count("indexed", sum(|r| r.docs));
        m.count(ATTEMPTS, sum(|r| r.requests));
        m.count(FAILED_ATTEMPTS, sum(|r| r.failed_attempts));
        m.count(BYTES, sum(|r| r.bytes));
        let warm = timeline.iter().take_while(|r| r.warmup).count() as u64;
        m.count(STEADY_DOCS, sum(|r| if r.warmup { 0 } else { r.docs }));
        let s = 1_000_000;
        keep_span(
            &mut m,
            began_unix_us,
            timeline.len() as u64 * s,
            warm * s,
            warm > 0,
            None,
        );
        return m;
    };
    count_documents(&mut m, &w.counts);
    let h = &w.headline;
    for (name, n) in [
        (ATTEMPTS, w.requests.attempts),
        (FAILED_ATTEMPTS, w.requests.failed_attempts),
        (RETRIES, w.requests.retries),
        (BYTES, sum(|r| r.bytes)),
        (
            WIRE_BYTES,
            // MB to bytes, as the µs of seconds.
            secs_us(w.wire_mb_per_sec * w.wall_secs),
        ),
        (STEADY_DOCS, h.docs),
        (WARMUP_DOCS, h.warmup_docs),
        (WARMUP_ATTEMPTS, h.warmup_attempts),
        (DRIVER_CPU_US, secs_us(w.cpu.driver_secs)),
    ] {
        m.count(name, n);
    }
    keep_span(
        &mut m,
        began_unix_us,
        secs_us(w.wall_secs),
        secs_us(h.warmup_secs),
        h.warmup_applied,
        w.cpu.engine_secs.map(secs_us),
    );
    m
}

/// Whether `m` holds a load's measurements whole (kept since loads keep their bounds).
pub fn is_whole_load(m: &Measurements) -> bool {
    m.bounds.least.contains_key(BEGAN)
}

/// When the load `m` measured began, in Unix µs (the earliest part's start).
pub fn began_unix_us(m: &Measurements) -> Option<u64> {
    m.bounds.least.get(BEGAN).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Sample;

    /// A load alone: the figures derived from its measurements are the recorder's own
    /// (headline, percentiles, timeline with its warm-up seconds, the took clock), so the
    /// one derivation changes no figure a load reports.
    #[test]
    fn a_load_alone_derives_the_figures_its_recorder_made() {
        for (warmup, wall_ms) in [(0, 9_500), (3, 9_500), (3, 5_000)] {
            let mut rec = Recorder::with_warmup(Duration::from_secs(warmup));
            for i in 0..3_000u64 {
                let service = 5 + i * 7 % 190;
                rec.record(&Sample {
                    start: Duration::from_millis(i * 3),
                    service: Duration::from_millis(service),
                    took_ms: Some([0, 200, 403][(i % 3) as usize]),
                    docs: 10,
                    acked: if i % 97 == 0 { 0 } else { 10 },
                    bytes: 1_000,
                    wire_bytes: 300,
                    status: if i % 97 == 0 { 503 } else { 200 },
                    retry: u32::from(i % 50 == 0),
                });
            }
            let wall = Duration::from_millis(wall_ms);
            let headline = rec.finish(wall);
            let counts = Counts {
                indexed: rec.docs_acked,
                ..Counts::default()
            };
            let tally = |freshness| Tally {
                recorder: &rec,
                headline: &headline,
                counts: &counts,
                began_unix_us: 1_700_000_000_700_000,
                wall,
                driver_cpu: Duration::from_millis(250),
                engine_cpu: None,
                cores: 4,
                freshness,
            };
            let (m, f) = LoadFigures::measured(tally(None));
            let json = |v: &dyn erased::Json| v.json();
            let case = format!("warm-up {warmup} s, wall {wall_ms} ms");
            assert_eq!(json(&f.headline), json(&headline), "{case}");
            assert_eq!(json(&f.service), json(&rec.service()), "{case}");
            assert_eq!(json(&f.took), json(&rec.took()), "{case}");
            assert_eq!(f.took_clock_ms, rec.took_clock_ms(), "{case}");
            assert_eq!(json(&f.timeline), json(&rec.timeline()), "{case}");
            assert_eq!(f.wall_secs, 9.5_f64.min(wall_ms as f64 / 1e3));
            assert_eq!(f.mb_per_sec, rec.bytes as f64 / f.wall_secs / 1e6);
            assert_eq!(f.requests.attempts, 3_000);
            assert_eq!(f.cpu.driver_secs, 0.25);
            assert_eq!(f.cpu.driver_machine_share, 0.25 / (f.wall_secs * 4.0));
            // Read back from what a store keeps, the same figures.
            let again = LoadFigures::of(&m).unwrap();
            assert_eq!(json(&again), json(&f), "{case}");
            // What the freshness probe keeps by second may fall past the load's last second
            // (a slice stamped after the last answer): the timeline stays the load's.
            let mut probe = Measurements::default();
            probe.count_at(1_700_000_000 + 20, "freshness_docs", 10);
            let (_, probed) = LoadFigures::measured(tally(Some(&probe)));
            assert_eq!(json(&probed.timeline), json(&f.timeline), "{case}");
        }
        assert!(LoadFigures::of(&Measurements::default()).is_none());
    }

    /// A part that kept no measurements of its load is read from what it streamed and
    /// wrote: its figures are what it reported.
    #[test]
    fn a_part_that_kept_no_measurements_is_read_from_what_it_wrote() {
        let mut rec = Recorder::with_warmup(Duration::from_secs(2));
        for i in 0..800u64 {
            rec.record(&Sample {
                start: Duration::from_millis(i * 10),
                service: Duration::from_millis(3 + i % 40),
                took_ms: Some(2),
                docs: 5,
                acked: 5,
                bytes: 500,
                wire_bytes: 500,
                status: 200,
                retry: 0,
            });
        }
        let wall = Duration::from_millis(8_200);
        let headline = rec.finish(wall);
        let counts = Counts {
            read: 4_000,
            indexed: 4_000,
            ..Counts::default()
        };
        let began = 1_700_000_000_000_000;
        let (_, f) = LoadFigures::measured(Tally {
            recorder: &rec,
            headline: &headline,
            counts: &counts,
            began_unix_us: began,
            wall,
            driver_cpu: Duration::from_millis(100),
            engine_cpu: Some(Duration::from_secs(2)),
            cores: 2,
            freshness: None,
        });
        let written: StoredLoad =
            serde_json::from_value(serde_json::to_value(&f).unwrap()).unwrap();
        let back = LoadFigures::of(&from_written(
            Some(&written),
            &f.timeline,
            &rec.histograms(),
            began,
            2,
        ))
        .unwrap();
        let json = |v: &dyn erased::Json| v.json();
        assert_eq!(json(&back), json(&f));
        // Killed before it wrote: its acknowledged documents from its seconds, no
        // percentiles.
        let killed = LoadFigures::of(&from_written(None, &f.timeline[..4], &[], began, 2)).unwrap();
        assert_eq!(
            killed.counts.indexed,
            f.timeline[..4].iter().map(|r| r.docs).sum::<u64>()
        );
        assert_eq!(killed.wall_secs, 4.0);
        assert_eq!(killed.service.count, 0);
    }

    /// Bounds and seconds read back from a lying store or document (the clock's end, a
    /// second ten weeks past the start, figures that are no numbers) give figures without a
    /// panic, and a timeline of at most a week.
    #[test]
    fn a_lying_record_gives_bounded_figures_without_a_panic() {
        let mut m = Measurements::default();
        m.least(BEGAN, u64::MAX - 5);
        m.most(ENDED, u64::MAX);
        m.count_at(u64::MAX, DOCS, 1);
        m.count(STEADY_DOCS, u64::MAX);
        let f = LoadFigures::of(&m).unwrap();
        assert!(f.timeline.len() as u64 <= MOST_SECONDS + 1);
        assert!(f.docs_per_sec.is_finite());
        let mut far = Measurements::default();
        far.least(BEGAN, 1_700_000_000_000_000);
        far.count_at(1_700_000_000 + 10 * MOST_SECONDS, DOCS, 1);
        let f = LoadFigures::of(&far).unwrap();
        assert_eq!(f.timeline.len() as u64, MOST_SECONDS + 1);
        let written = StoredLoad {
            load_started_unix_ms: Some(u64::MAX),
            wall_secs: f64::NAN,
            wire_mb_per_sec: f64::INFINITY,
            ..StoredLoad::default()
        };
        let rows = [TimelineRow::new(u64::MAX, 1, 0, 1, 1, 1, false)];
        let lying = from_written(Some(&written), &rows, &[], u64::MAX, u64::MAX);
        let f = LoadFigures::of(&lying).unwrap();
        assert!(f.wall_secs.is_finite() && f.docs_per_sec.is_finite());
    }

    /// Serialises what the tests compare (the figures have no `PartialEq`).
    mod erased {
        pub trait Json {
            fn json(&self) -> String;
        }
        impl<T: serde::Serialize> Json for T {
            fn json(&self) -> String {
                serde_json::to_string(self).unwrap()
            }
        }
    }
}

//! One [`Sample`] per bulk request attempt, folded into HDR histograms and a per-second timeline.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// One measured request attempt.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// When the attempt started, since the start of the run.
    pub start: Duration,
    /// Send to last byte of the answer (or to the error).
    pub service: Duration,
    /// The server's own `took`, when it answered with one.
    pub took_ms: Option<u64>,
    /// Documents in the request.
    pub docs: u32,
    /// Documents the server acknowledged in this answer.
    pub acked: u32,
    /// Uncompressed body size.
    pub bytes: u64,
    /// Bytes on the wire (the gzip size with `--gzip`).
    pub wire_bytes: u64,
    /// HTTP status; 0 when there was no answer (connect error, timeout, reset).
    pub status: u16,
    /// 0 for the first attempt of a request, 1 for the first retry, ...
    pub retry: u32,
}

impl Sample {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// One second of the run (by completion time). Read back by `analysis::metrics`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TimelineRow {
    pub second: u64,
    pub requests: u64,
    pub failed_attempts: u64,
    pub docs: u64,
    pub bytes: u64,
    pub service_mean_ms: f64,
    /// A warm-up second: its documents were loaded but are not in the headline or the
    /// histograms.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub warmup: bool,
    #[serde(skip)]
    service_sum_us: u64,
}

impl TimelineRow {
    /// A second with its counts and the service time of its requests summed.
    pub fn new(
        second: u64,
        requests: u64,
        failed_attempts: u64,
        docs: u64,
        bytes: u64,
        service_sum_us: u64,
        warmup: bool,
    ) -> TimelineRow {
        TimelineRow {
            second,
            requests,
            failed_attempts,
            docs,
            bytes,
            service_mean_ms: if requests > 0 {
                service_sum_us as f64 / requests as f64 / 1000.0
            } else {
                0.0
            },
            warmup,
            service_sum_us,
        }
    }

    /// The service time of the second's requests, summed (from its mean for a row read
    /// back).
    pub fn service_sum_us(&self) -> u64 {
        if self.service_sum_us > 0 {
            self.service_sum_us
        } else {
            (self.service_mean_ms * 1000.0 * self.requests as f64).round() as u64
        }
    }
}

/// Warm-up of an ingest unless told otherwise: the JVM compiles its hot paths in the first
/// seconds (Elasticsearch 7.10 loads at a third of its later rate for ~20 s).
pub const DEFAULT_WARMUP: Duration = Duration::from_secs(10);

/// The one throughput figure of an ingest, used by every view: documents acknowledged in the
/// steady window ÷ the window's length. The steady window runs from the end of the warm-up
/// to the end of the load; a run shorter than twice its warm-up is measured whole (and says
/// so).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Headline {
    pub docs_per_sec: f64,
    /// Documents acknowledged in the steady window.
    pub docs: u64,
    pub window_secs: f64,
    /// The warm-up asked for, and whether it was applied.
    pub warmup_secs: f64,
    pub warmup_applied: bool,
    /// Documents loaded and request attempts completed during the warm-up (not measured).
    pub warmup_docs: u64,
    pub warmup_attempts: u64,
    /// How the figure was made, in words.
    pub definition: String,
    /// Whether the rate levelled off over the measured window: `false` when its last third
    /// ran more than [`RISING_PCT`] faster than its first (the node was still warming up: the
    /// figure is a warm-up's), `None` under [`LEVEL_SECS`] whole seconds to judge from.
    pub levelled: Option<bool>,
    /// The last third's rate over the first third's, percent.
    pub rise_pct: Option<f64>,
}

/// A measured window whose last third is this much faster than its first (percent) was
/// still warming up. Above a second-to-second wobble (a few per cent over thirds of a
/// window), below the JIT's climb on a fresh node (11.6k → 24.2k → 28.2k docs/s, three loads).
pub const RISING_PCT: f64 = 10.0;

/// How a headline was made, in words: after a warm-up of `w` seconds when it `applied`,
/// else over the whole `wall`.
pub fn definition(applied: bool, w: f64, window: f64, wall: f64) -> String {
    if applied {
        format!(
            "documents acknowledged after the {w:.0} s warm-up ÷ the {window:.1} s steady window"
        )
    } else if w > 0.0 {
        format!("no steady headline: the run is too short for its {w:.0} s warm-up (needs {:.0} s); all documents ÷ the whole {wall:.1} s run, warm-up included (left out of verdicts beside steady runs)", 2.0 * w)
    } else {
        format!("no warm-up (--warmup 0): all documents ÷ the whole {wall:.1} s run")
    }
}

/// `Some(step)` when the engine's `took` moves in steps of the cached clock rather than per
/// request (see [`Recorder::took_clock_ms`]), from `n` answers with a `took`, `on_step` of
/// them near a step and `past_step` a whole step or more.
pub fn took_clock(n: u64, on_step: u64, past_step: u64) -> Option<u64> {
    // In u128: a merged group's counts (each part's up to 2^53) do not overflow the products.
    let (n, on_step, past_step) = (u128::from(n), u128::from(on_step), u128::from(past_step));
    (n >= 50 && on_step * 100 >= n * 95 && past_step * 20 >= n).then_some(CACHED_CLOCK_MS)
}

/// The fewest whole measured seconds a run's levelling is judged from (two per third).
pub const LEVEL_SECS: usize = 6;

/// Whether `per_second` (documents each whole second of the measured window, in order)
/// levelled off: `(levelled, rise %)`, `None` when too few seconds.
pub fn levelled(per_second: &[u64]) -> Option<(bool, f64)> {
    if per_second.len() < LEVEL_SECS {
        return None;
    }
    let third = per_second.len() / 3;
    let mean = |s: &[u64]| s.iter().map(|n| *n as f64).sum::<f64>() / s.len() as f64;
    let (first, last) = (
        mean(&per_second[..third]),
        mean(&per_second[per_second.len() - third..]),
    );
    if first <= 0.0 {
        return None;
    }
    let rise = (last / first - 1.0) * 100.0;
    Some((rise <= RISING_PCT, rise))
}

/// What a run's levelling says, in words (`None` when it was not judged): still rising (the
/// figure is a warm-up's), levelled off (the last third within [`RISING_PCT`] of the first,
/// either way), or slowed (the last third that much slower: the figure averages a falling
/// rate). Each says the change it measured, so no wording claims more than the figure.
pub fn level_words(rise_pct: Option<f64>) -> Option<String> {
    let rise = rise_pct?;
    Some(if rise > RISING_PCT {
        format!(
            "STILL RISING: the rate grew {rise:.0} % from the first to the last third of the \
             measured window: this figure is a warm-up, not the node's steady speed (a longer \
             run, or a longer --warmup, measures that)"
        )
    } else if rise < -RISING_PCT {
        format!(
            "SLOWED: the last third of the measured window ran {:.0} % slower than the first \
             ({rise:+.1} %): this figure averages a falling rate (merges, flushes or the \
             node's collector catching up with the load; a longer run measures where it settles)",
            -rise
        )
    } else {
        format!(
            "levelled off: the last third of the measured window ran within {RISING_PCT:.0} % \
             of the first ({rise:+.1} %)"
        )
    })
}

/// Distribution summary. A percentile is given only with enough samples to mean something:
/// p90 from 10 samples, p99 from 100, p99.9 from 1000.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Summary {
    pub count: u64,
    pub mean_ms: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p90_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    pub max_ms: Option<f64>,
}

/// Folds samples as they come. Memory is fixed (histograms) plus one entry per second.
#[derive(Debug)]
pub struct Recorder {
    /// Service time of successful attempts, microseconds.
    service_us: Histogram<u64>,
    /// Server `took` of successful attempts, milliseconds.
    took_ms: Histogram<u64>,
    pub requests: u64,
    pub failed_attempts: u64,
    pub retried_attempts: u64,
    /// Service time of every attempt, successful or not: the time requests were in flight.
    pub service_sum: Duration,
    pub took_sum_ms: u64,
    /// Successful attempts with a `took`; of them, those on a step of [`CACHED_CLOCK_MS`] and
    /// those a whole step or more (see [`Recorder::took_clock_ms`]).
    took_seen: u64,
    took_on_step: u64,
    took_past_step: u64,
    pub docs_acked: u64,
    pub bytes: u64,
    pub wire_bytes: u64,
    timeline: Vec<TimelineRow>,
    /// Requests completing before this are warm-up: kept apart (see [`Recorder::finish`]).
    warmup: Duration,
    warm_service_us: Histogram<u64>,
    warm_took_ms: Histogram<u64>,
    warm_docs: u64,
    warm_attempts: u64,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

/// The step of Elasticsearch's cached clock (`thread_pool.estimated_time_interval`), which
/// times bulk requests from 8.15.1 on (elastic/elasticsearch#129894).
pub const CACHED_CLOCK_MS: u64 = 200;

pub(crate) fn histogram() -> Histogram<u64> {
    // 1 µs .. 1 hour at 3 significant digits; values beyond are clamped by `saturating_record`.
    Histogram::new_with_bounds(1, 3_600_000_000, DIGITS as u8)
        .expect("constant, valid histogram bounds")
}

/// The significant digits every histogram here keeps (a stored one keeping more is refused:
/// see [`SerializedHistogram::decode`]).
pub(crate) const DIGITS: u32 = 3;

impl Recorder {
    pub fn new() -> Self {
        Recorder {
            service_us: histogram(),
            took_ms: histogram(),
            requests: 0,
            failed_attempts: 0,
            retried_attempts: 0,
            service_sum: Duration::ZERO,
            took_sum_ms: 0,
            took_seen: 0,
            took_on_step: 0,
            took_past_step: 0,
            docs_acked: 0,
            bytes: 0,
            wire_bytes: 0,
            timeline: Vec::new(),
            warmup: Duration::ZERO,
            warm_service_us: histogram(),
            warm_took_ms: histogram(),
            warm_docs: 0,
            warm_attempts: 0,
        }
    }

    /// A recorder whose first `warmup` (by completion time) is loaded but not measured:
    /// those requests stay out of the histograms and the headline, and their seconds are
    /// marked in the timeline.
    pub fn with_warmup(warmup: Duration) -> Self {
        Recorder {
            warmup,
            ..Recorder::new()
        }
    }

    /// Ends the run at `wall`: the headline, and the warm-up settled. A run shorter than twice
    /// its warm-up is measured whole: the warm-up samples join the histograms and no second
    /// stays marked.
    pub fn finish(&mut self, wall: Duration) -> Headline {
        let wall_s = wall.as_secs_f64().max(1e-9);
        let w = self.warmup.as_secs_f64();
        let applied = w > 0.0 && wall_s >= 2.0 * w;
        if !applied {
            // Cannot fail: same bounds.
            let _ = self.service_us.add(&self.warm_service_us);
            let _ = self.took_ms.add(&self.warm_took_ms);
            self.warm_service_us.reset();
            self.warm_took_ms.reset();
            self.timeline.iter_mut().for_each(|s| s.warmup = false);
        }
        let (docs, window) = if applied {
            (self.docs_acked - self.warm_docs, wall_s - w)
        } else {
            (self.docs_acked, wall_s)
        };
        let definition = definition(applied, w, window, wall_s);
        // The whole seconds of the measured window (the last one is cut short by the end).
        let measured: Vec<u64> = self
            .timeline
            .iter()
            .filter(|s| !s.warmup)
            .map(|s| s.docs)
            .collect();
        let whole = &measured[..measured.len().saturating_sub(1)];
        let level = levelled(whole);
        Headline {
            levelled: level.map(|l| l.0),
            rise_pct: level.map(|l| l.1),
            docs_per_sec: docs as f64 / window.max(1e-9),
            docs,
            window_secs: window,
            warmup_secs: w,
            warmup_applied: applied,
            warmup_docs: if applied { self.warm_docs } else { 0 },
            warmup_attempts: if applied { self.warm_attempts } else { 0 },
            definition,
        }
    }

    pub fn record(&mut self, s: &Sample) {
        let service_us = (s.service.as_micros() as u64).max(1);
        self.requests += 1;
        self.service_sum += s.service;
        if s.retry > 0 {
            self.retried_attempts += 1;
        }
        let ok = s.is_success();
        let warm = s.start + s.service < self.warmup;
        if warm {
            self.warm_docs += u64::from(s.acked);
            self.warm_attempts += 1;
        }
        if ok {
            let (service_h, took_h) = if warm {
                (&mut self.warm_service_us, &mut self.warm_took_ms)
            } else {
                (&mut self.service_us, &mut self.took_ms)
            };
            service_h.saturating_record(service_us);
            if let Some(took) = s.took_ms {
                took_h.saturating_record(took.max(1));
                self.took_sum_ms += took;
                self.took_seen += 1;
                // The clock's steps run a little long (a 200 ms sleep wakes late), so a
                // reading's distance from a multiple grows with its size: 403, 1203.
                let off = took % CACHED_CLOCK_MS;
                let slack = 2 + took / 100;
                self.took_on_step +=
                    u64::from(off <= slack || off >= CACHED_CLOCK_MS.saturating_sub(slack));
                self.took_past_step += u64::from(took >= CACHED_CLOCK_MS - 2);
            }
            self.bytes += s.bytes;
            self.wire_bytes += s.wire_bytes;
        } else {
            self.failed_attempts += 1;
        }
        self.docs_acked += u64::from(s.acked);
        let second = (s.start + s.service).as_secs() as usize;
        if self.timeline.len() <= second {
            let from = self.timeline.len();
            let warmup = self.warmup;
            self.timeline.extend((from..=second).map(|i| TimelineRow {
                second: i as u64,
                warmup: Duration::from_secs(i as u64) < warmup,
                ..Default::default()
            }));
        }
        let slot = &mut self.timeline[second];
        slot.requests += 1;
        slot.docs += u64::from(s.acked);
        if ok {
            slot.bytes += s.bytes;
        } else {
            slot.failed_attempts += 1;
        }
        slot.service_sum_us += service_us;
    }

    pub fn service(&self) -> Summary {
        summarize(&self.service_us, 1000.0)
    }

    pub fn took(&self) -> Summary {
        summarize(&self.took_ms, 1.0)
    }

    /// `Some(step)` when the engine's `took` moves in steps of the cached clock rather than
    /// per request: at least 50 answers, 95 % of them near a step (2 ms plus 1 % of the
    /// value: an Elasticsearch 8.19 run gave 200, 403, 1203), and one in 20
    /// a whole step or more (so fast requests, whose true `took` is 0–2 ms, do not count).
    /// Its percentiles are then not per-request figures; its sum still averages out, since
    /// the clock's lag at the start and at the end of a request cancel on average.
    pub fn took_clock_ms(&self) -> Option<u64> {
        took_clock(self.took_seen, self.took_on_step, self.took_past_step)
    }

    /// The answers with a `took`, those on a step of the cached clock, those a whole step or
    /// more: what [`took_clock`] judges from (they add up over the parts of a load).
    pub fn took_steps(&self) -> (u64, u64, u64) {
        (self.took_seen, self.took_on_step, self.took_past_step)
    }

    pub fn timeline(&self) -> Vec<TimelineRow> {
        self.timeline_from(0)
    }

    /// The seconds from `from` on (empty when there are none yet): what a store that streams
    /// the timeline in has not seen.
    pub fn timeline_from(&self, from: usize) -> Vec<TimelineRow> {
        self.timeline
            .get(from..)
            .unwrap_or_default()
            .iter()
            .map(|s| {
                let mut s = s.clone();
                if s.requests > 0 {
                    s.service_mean_ms = s.service_sum_us as f64 / s.requests as f64 / 1000.0;
                }
                s
            })
            .collect()
    }

    /// The histograms in HDR's portable V2 + deflate form, for the results store.
    pub fn histograms(&self) -> Vec<SerializedHistogram> {
        self.each_histogram()
            .into_iter()
            .filter_map(|(name, unit, h)| SerializedHistogram::encode(name, unit, h))
            .collect()
    }

    /// The histograms by name and unit, as recorded.
    pub fn each_histogram(&self) -> [(&'static str, &'static str, &Histogram<u64>); 2] {
        [
            ("service", "us", &self.service_us),
            ("took", "ms", &self.took_ms),
        ]
    }
}

/// The first four bytes of HDR's V2 deflate encoding (`V2_COMPRESSED_COOKIE` in the library).
const V2_DEFLATE_COOKIE: u32 = 0x1c84_9314;
/// The bytes of a V2 encoding before its counts: cookie, counts' length, offset, digits,
/// lowest, highest, ratio.
const V2_HEADER: usize = 40;
/// The most a stored histogram may inflate to: 64 MiB, far past any this tool records (3
/// significant digits from 1 µs to an hour take under 1 MiB).
const INFLATED: usize = 64 << 20;

/// A histogram as stored: HDR's V2 deflate encoding, readable by any HdrHistogram library.
#[derive(Debug, Clone, PartialEq)]
pub struct SerializedHistogram {
    /// What was measured, e.g. `service`, `took`, `query:<cell>:latency`.
    pub name: String,
    /// The unit of the recorded values: `us` or `ms`.
    pub unit: String,
    pub v2_deflate: Vec<u8>,
}

impl SerializedHistogram {
    /// `None` only if the encoder fails, which it does not for histograms made here.
    pub fn encode(name: &str, unit: &str, h: &Histogram<u64>) -> Option<SerializedHistogram> {
        use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
        let mut v2_deflate = Vec::new();
        V2DeflateSerializer::new()
            .serialize(h, &mut v2_deflate)
            .ok()?;
        Some(SerializedHistogram {
            name: name.to_string(),
            unit: unit.to_string(),
            v2_deflate,
        })
    }

    /// The histogram, or why its bytes are not one. A stored histogram is only as honest as
    /// the store or document it came from: the length its inflated bytes claim for their
    /// counts is checked against what they hold before the library sizes a buffer by it
    /// (4 GiB for a few bytes claiming `u32::MAX`), and they inflate to at most [`INFLATED`].
    pub fn decode(&self) -> Result<Histogram<u64>, String> {
        use std::io::Read;
        let bad = |why: String| format!("histogram {}: {why}", self.name);
        let b = &self.v2_deflate;
        if b.get(..4) != Some(&V2_DEFLATE_COOKIE.to_be_bytes()[..]) {
            return Err(bad("not HDR's V2 deflate encoding".into()));
        }
        let mut v2 = Vec::new();
        let inflating = flate2::read::ZlibDecoder::new(b.get(8..).unwrap_or_default());
        (inflating.take(INFLATED as u64 + 1).read_to_end(&mut v2))
            .map_err(|e| bad(format!("its bytes do not inflate: {e}")))?;
        let claimed = v2
            .get(4..8)
            .map(|l| u32::from_be_bytes([l[0], l[1], l[2], l[3]]));
        let held = v2.len().saturating_sub(V2_HEADER);
        let digits = v2
            .get(12..16)
            .map(|d| u32::from_be_bytes([d[0], d[1], d[2], d[3]]));
        match claimed {
            _ if v2.len() > INFLATED => Err(bad(format!("it inflates past {INFLATED} bytes"))),
            // The library sizes its counts by the header's precision and bounds, whatever the
            // bytes hold: 5 digits up to 2^64 is 48 MiB for a few bytes. At the 3 digits every
            // histogram here keeps, any bounds make at most about half a megabyte.
            _ if digits.is_some_and(|d| d > DIGITS) => Err(bad(format!(
                "it keeps {} significant digits; histograms here keep {DIGITS}",
                digits.unwrap_or_default()
            ))),
            Some(n) if n as usize > held => Err(bad(format!(
                "it claims {n} bytes of counts and holds {held}"
            ))),
            _ => hdrhistogram::serialization::Deserializer::new()
                .deserialize(&mut v2.as_slice())
                .map_err(|e| bad(format!("{e:?}"))),
        }
    }
}

/// The fewest requests from which a run reports its p99: below, the p99 would be its
/// maximum under another name.
pub const P99_MIN_REQUESTS: u64 = 100;

/// `per_ms`: how many histogram units make a millisecond.
pub(crate) fn summarize(h: &Histogram<u64>, per_ms: f64) -> Summary {
    let n = h.len();
    if n == 0 {
        return Summary::default();
    }
    let q =
        |quantile: f64, min: u64| (n >= min).then(|| h.value_at_quantile(quantile) as f64 / per_ms);
    Summary {
        count: n,
        mean_ms: Some(h.mean() / per_ms),
        p50_ms: q(0.50, 1),
        p90_ms: q(0.90, 10),
        p99_ms: q(0.99, P99_MIN_REQUESTS),
        p999_ms: q(0.999, 1000),
        max_ms: Some(h.max() as f64 / per_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes `v2` deflated and framed as HDR's V2 deflate encoding frames them.
    fn framed(v2: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(v2).unwrap();
        let z = z.finish().unwrap();
        let mut out = V2_DEFLATE_COOKIE.to_be_bytes().to_vec();
        out.extend((z.len() as u32).to_be_bytes());
        out.extend(z);
        out
    }

    /// A stored histogram whose bytes lie is refused, named, before anything is sized by the
    /// lie: counts claimed past what it holds (the library would zero 4 GiB for `u32::MAX`),
    /// a blob inflating past 64 MiB, a precision sizing its counts at megabytes, bytes that
    /// are not the encoding; a true one decodes.
    #[test]
    fn a_stored_histogram_that_lies_about_its_size_is_refused_unread() {
        let mut h = histogram();
        for v in [5, 50, 500_000] {
            h.record(v).unwrap();
        }
        let good = SerializedHistogram::encode("service", "us", &h).unwrap();
        assert_eq!(good.decode().unwrap(), h);
        let mut v2 = Vec::new();
        let z = flate2::read::ZlibDecoder::new(&good.v2_deflate[8..]);
        std::io::Read::read_to_end(&mut { z }, &mut v2).unwrap();
        assert_eq!(framed(&v2), good.v2_deflate, "the framing is the library's");
        let lying = |v2: Vec<u8>| SerializedHistogram {
            v2_deflate: framed(&v2),
            ..good.clone()
        };
        let mut claims = v2.clone();
        claims[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
        let err = lying(claims).decode().unwrap_err();
        assert!(
            err.contains("histogram service: it claims 4294967295 bytes"),
            "{err}"
        );
        let err = lying(vec![0; INFLATED + 1]).decode().unwrap_err();
        assert!(err.contains("inflates past 67108864 bytes"), "{err}");
        // 5 digits up to 2^64: the library would zero 48 MiB of counts for an empty payload.
        let mut wide = v2[..V2_HEADER].to_vec();
        wide[4..8].copy_from_slice(&0u32.to_be_bytes());
        wide[12..16].copy_from_slice(&5u32.to_be_bytes());
        wide[24..32].copy_from_slice(&u64::MAX.to_be_bytes());
        let err = lying(wide.clone()).decode().unwrap_err();
        assert!(err.contains("keeps 5 significant digits"), "{err}");
        // At the digits kept here, the widest bounds decode (about half a megabyte of counts).
        wide[12..16].copy_from_slice(&DIGITS.to_be_bytes());
        assert_eq!(lying(wide).decode().map(|h| h.len()), Ok(0));
        let err = SerializedHistogram {
            v2_deflate: b"not a histogram".to_vec(),
            ..good.clone()
        };
        assert!(err.decode().unwrap_err().contains("not HDR's V2 deflate"));
        let mut cut = good.clone();
        cut.v2_deflate.truncate(20);
        assert!(cut.decode().is_err());
    }

    /// A rate that fell by a quarter was once "levelled off ... within 10 % of the first
    /// (-25.0 %)": each wording now says what was measured.
    #[test]
    fn the_levelling_words_say_the_change_measured() {
        // A merged group's counts (each part's up to 2^53, a whole timeline of them) judge
        // without overflow.
        assert_eq!(levelled(&[u64::MAX; 7]), Some((true, 0.0)));
        assert_eq!(
            took_clock(u64::MAX, u64::MAX, u64::MAX),
            Some(CACHED_CLOCK_MS)
        );
        let per_second = |first: u64, last: u64| {
            let mut s = vec![first; 4];
            s.extend([(first + last) / 2; 4]);
            s.extend([last; 4]);
            s
        };
        let words = |first, last| {
            let (_, rise) = levelled(&per_second(first, last)).unwrap();
            level_words(Some(rise)).unwrap()
        };
        let fell = words(20_000, 15_000);
        assert!(
            fell.starts_with("SLOWED") && fell.contains("25 % slower"),
            "{fell}"
        );
        assert!(!fell.contains("levelled"), "{fell}");
        let rose = words(15_000, 20_000);
        assert!(
            rose.starts_with("STILL RISING") && rose.contains("33 %"),
            "{rose}"
        );
        let flat = words(20_000, 19_000);
        assert!(
            flat.starts_with("levelled off") && flat.contains("(-5.0 %)"),
            "{flat}"
        );
        assert_eq!(level_words(None), None);
    }

    fn sample(start_ms: u64, service_ms: u64, status: u16) -> Sample {
        Sample {
            start: Duration::from_millis(start_ms),
            service: Duration::from_millis(service_ms),
            took_ms: Some(service_ms / 2),
            docs: 10,
            acked: if status == 200 { 10 } else { 0 },
            bytes: 100,
            wire_bytes: 100,
            status,
            retry: 0,
        }
    }

    #[test]
    fn a_took_in_cached_clock_steps_is_told_apart_from_a_timed_one() {
        let took_of = |tooks: &[u64]| {
            let mut r = Recorder::new();
            for (i, &t) in tooks.iter().enumerate() {
                let mut s = sample(i as u64 * 10, 90, 200);
                s.took_ms = Some(t);
                r.record(&s);
            }
            r.took_clock_ms()
        };
        // Requests of ~90 ms timed by a clock that moves every 200 ms: 0 mostly, 200 when
        // a step fell inside, 201 from the clock's own jitter.
        let stepped: Vec<u64> = (0..100)
            .map(|i| [0, 0, 200, 0, 201, 403, 0, 1203][i % 8])
            .collect();
        assert_eq!(took_of(&stepped), Some(CACHED_CLOCK_MS));
        // Timed per request: spread over 40–600 ms.
        let timed: Vec<u64> = (0..100).map(|i| 40 + i * 47 % 560).collect();
        assert_eq!(took_of(&timed), None);
        // Fast requests really take 0–2 ms: on a step, but never a whole step.
        let fast: Vec<u64> = (0..100).map(|i| i % 3).collect();
        assert_eq!(took_of(&fast), None);
        // Too few answers to tell.
        assert_eq!(took_of(&stepped[..20]), None);
    }

    #[test]
    fn histograms_round_trip_through_the_v2_encoding() {
        let mut r = Recorder::new();
        for i in 1..=500 {
            r.record(&sample(i, i % 97 + 1, 200));
        }
        let stored = r.histograms();
        assert_eq!(
            stored.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
            ["service", "took"]
        );
        let back = stored[0].decode().unwrap();
        assert_eq!(back, r.service_us);
        assert_eq!(back.len(), 500);
        let corrupt = SerializedHistogram {
            v2_deflate: stored[0].v2_deflate[..10].to_vec(),
            ..stored[0].clone()
        };
        assert!(corrupt.decode().unwrap_err().contains("service"));
    }

    #[test]
    fn warm_up_is_loaded_marked_and_not_measured() {
        let mut r = Recorder::with_warmup(Duration::from_secs(2));
        // Seconds 0-1: slow warm-up requests; 2-5: fast.
        for i in 0..60 {
            let slow = i < 20;
            r.record(&sample(i * 100, if slow { 90 } else { 10 }, 200));
        }
        let h = r.finish(Duration::from_secs(6));
        assert!(h.warmup_applied);
        assert_eq!((h.warmup_docs, h.warmup_attempts), (200, 20));
        assert_eq!(h.docs, 400);
        assert!((h.docs_per_sec - 100.0).abs() < 1e-9, "{h:?}");
        assert_eq!(r.service().count, 40);
        assert!(r.service().max_ms.unwrap() < 20.0);
        let t = r.timeline();
        assert!(t[0].warmup && t[1].warmup && !t[2].warmup);
        // Too short for its warm-up: measured whole, and said so.
        let mut r = Recorder::with_warmup(Duration::from_secs(10));
        for i in 0..30 {
            r.record(&sample(i * 100, 10, 200));
        }
        let h = r.finish(Duration::from_secs(3));
        assert!(!h.warmup_applied && h.definition.contains("too short"));
        assert_eq!(r.service().count, 30);
        assert!((h.docs_per_sec - 100.0).abs() < 1e-9);
        assert!(r.timeline().iter().all(|s| !s.warmup));
    }

    #[test]
    fn a_rate_still_rising_is_said_to_be_a_warm_up() {
        // 9 measured seconds climbing from 100 to 180 documents a second, then a cut one.
        let rising: Vec<u64> = (0..9).map(|i| 100 + i * 10).collect();
        let (flat, rise) = levelled(&rising).unwrap();
        assert!(!flat && rise > 50.0, "{rise}");
        let steady = [100, 104, 97, 101, 99, 103, 98, 102, 100];
        let (flat, rise) = levelled(&steady).unwrap();
        assert!(flat && rise.abs() < 5.0, "{rise}");
        assert_eq!(levelled(&[1, 2, 3]), None);
        // Through the recorder: seconds 0-9 of a run whose rate doubles.
        let mut r = Recorder::with_warmup(Duration::ZERO);
        for second in 0..10u64 {
            let n = 10 + second;
            for k in 0..n {
                r.record(&sample(second * 1000 + k * (1000 / n), 5, 200));
            }
        }
        let h = r.finish(Duration::from_secs(10));
        assert_eq!(h.levelled, Some(false), "{h:?}");
    }

    #[test]
    fn timeline_from_gives_only_the_later_seconds() {
        let mut r = Recorder::new();
        r.record(&sample(100, 10, 200));
        r.record(&sample(2100, 10, 200));
        assert_eq!(r.timeline_from(1).len(), 2);
        assert_eq!(r.timeline_from(2)[0].second, 2);
        assert!(r.timeline_from(9).is_empty());
    }

    #[test]
    fn percentiles_need_enough_samples() {
        let mut r = Recorder::new();
        for i in 0..50 {
            r.record(&sample(i * 10, 10 + i, 200));
        }
        let s = r.service();
        assert_eq!(s.count, 50);
        assert!(s.p90_ms.is_some());
        assert!(s.p99_ms.is_none());
        assert!((s.max_ms.unwrap() - 59.0).abs() < 0.1);
        assert_eq!(r.docs_acked, 500);
    }

    #[test]
    fn timeline_is_per_completion_second_and_counts_failures() {
        let mut r = Recorder::new();
        r.record(&sample(100, 100, 200));
        r.record(&sample(1900, 200, 200));
        r.record(&sample(2500, 10, 503));
        let t = r.timeline();
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].docs, 10);
        assert_eq!(t[1].docs, 0);
        assert_eq!(t[2].docs, 10);
        assert_eq!(t[2].failed_attempts, 1);
        assert_eq!(r.failed_attempts, 1);
        assert_eq!(r.took_sum_ms, 150);
    }
}

//! One [`Sample`] per bulk request attempt, folded into HDR histograms and a per-second timeline.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

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

/// One second of the run (by completion time).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Second {
    pub second: u64,
    pub requests: u64,
    pub failed_attempts: u64,
    pub docs: u64,
    pub bytes: u64,
    pub service_mean_ms: f64,
    pub service_max_ms: f64,
    #[serde(skip)]
    service_sum_us: u64,
}

/// Distribution summary. A percentile is given only with enough samples to mean something:
/// p90 from 10 samples, p99 from 100, p99.9 from 1000.
#[derive(Debug, Clone, Default, Serialize)]
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
    pub docs_acked: u64,
    pub bytes: u64,
    pub wire_bytes: u64,
    timeline: Vec<Second>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

fn histogram() -> Histogram<u64> {
    // 1 µs .. 1 hour at 3 significant digits; values beyond are clamped by `saturating_record`.
    Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("constant, valid histogram bounds")
}

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
            docs_acked: 0,
            bytes: 0,
            wire_bytes: 0,
            timeline: Vec::new(),
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
        if ok {
            self.service_us.saturating_record(service_us);
            if let Some(took) = s.took_ms {
                self.took_ms.saturating_record(took.max(1));
                self.took_sum_ms += took;
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
            self.timeline.extend((from..=second).map(|i| Second {
                second: i as u64,
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
        slot.service_max_ms = slot.service_max_ms.max(service_us as f64 / 1000.0);
    }

    pub fn service(&self) -> Summary {
        summarize(&self.service_us, 1000.0)
    }

    pub fn took(&self) -> Summary {
        summarize(&self.took_ms, 1.0)
    }

    pub fn timeline(&self) -> Vec<Second> {
        self.timeline_from(0)
    }

    /// The seconds from `from` on (empty when there are none yet): what a store that streams
    /// the timeline in has not seen.
    pub fn timeline_from(&self, from: usize) -> Vec<Second> {
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
        [
            ("service", "us", &self.service_us),
            ("took", "ms", &self.took_ms),
        ]
        .into_iter()
        .filter_map(|(name, unit, h)| SerializedHistogram::encode(name, unit, h))
        .collect()
    }
}

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

    pub fn decode(&self) -> Result<Histogram<u64>, String> {
        hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut self.v2_deflate.as_slice())
            .map_err(|e| format!("histogram {}: {e:?}", self.name))
    }
}

/// `per_ms`: how many histogram units make a millisecond.
fn summarize(h: &Histogram<u64>, per_ms: f64) -> Summary {
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
        p99_ms: q(0.99, 100),
        p999_ms: q(0.999, 1000),
        max_ms: Some(h.max() as f64 / per_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

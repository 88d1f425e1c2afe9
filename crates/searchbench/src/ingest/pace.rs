//! Open-loop ingest (`--rate`): each bulk request is due at a fixed time on one shared
//! [`Schedule`] (the documents it carries ÷ the rate after the one before), whichever client
//! sends it. A client waits for its request's due time; when every client is busy the request
//! waits in the queue and goes out late, and that lag is measured. Latency runs from the due
//! time to the last answer (retries included), service time from the actual send (per attempt,
//! in the usual recorder), so a slow cluster shows in latency instead of slowing the offered
//! load down (no coordinated omission).
//!
//! Without `--rate` none of this runs: the driver takes no lock and reads no clock more than
//! before.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::measure::recorder::{histogram, summarize};
use crate::measure::{Measurements, Schedule, SerializedHistogram, Summary};

/// A request that goes out this much after its due time counts as late: past the timer's
/// granularity (about a millisecond) and the hand-over between tasks.
pub const LATE: Duration = Duration::from_millis(2);

/// Achieved below this share of the offered rate: the target (or the driver) did not keep up.
pub const KEPT_UP: f64 = 0.97;

/// Driver CPU above this share of one core: the driver, not the cluster, may be the limit.
pub const DRIVER_CPU_LIMIT: f64 = 0.85;

/// Clients busier than this share of the run while the schedule fell behind: the clients were
/// all waiting on the target (it is the limit at this many clients); less busy while behind,
/// the driver could not hand requests out in time.
pub const CLIENTS_BUSY: f64 = 0.8;

/// The schedule and what it measured, shared by the clients of one load.
#[derive(Debug)]
pub struct Pace {
    pub schedule: Schedule,
    /// Requests completing before this are warm-up (as in the recorder).
    warmup: Duration,
    tally: Mutex<Tally>,
}

#[derive(Debug)]
struct Tally {
    steady: Part,
    warm: Part,
    /// The achieved rate of the whole run, and of the part after the warm-up.
    all_rate: Slope,
    steady_rate: Slope,
}

/// The achieved rate: the least-squares slope of documents answered so far against the time
/// of each answer. Every answer weighs in, so one late first or last answer moves it little
/// (a first-to-last ratio would take the whole lateness of either end).
#[derive(Debug, Default)]
struct Slope {
    n: f64,
    t: f64,
    tt: f64,
    y: f64,
    ty: f64,
    docs: f64,
}

impl Slope {
    fn add(&mut self, at: Duration, docs: u64) {
        let t = at.as_secs_f64();
        self.docs += docs as f64;
        self.n += 1.0;
        self.t += t;
        self.tt += t * t;
        self.y += self.docs;
        self.ty += t * self.docs;
    }

    fn rate(&self) -> Option<f64> {
        let d = self.n * self.tt - self.t * self.t;
        (self.n >= 2.0 && d > 0.0).then(|| (self.n * self.ty - self.t * self.y) / d)
    }
}

/// The figures of one part of the run (the warm-up, or the rest).
#[derive(Debug)]
struct Part {
    /// Due time to the last answer, µs.
    latency_us: Histogram<u64>,
    /// Due time to the send, µs (0 when on time).
    lag_us: Histogram<u64>,
    requests: u64,
    late: u64,
}

impl Part {
    fn new() -> Self {
        Part {
            latency_us: histogram(),
            lag_us: histogram(),
            requests: 0,
            late: 0,
        }
    }

    fn merge(&mut self, other: &Part) {
        // Cannot fail: same bounds.
        let _ = self.latency_us.add(&other.latency_us);
        let _ = self.lag_us.add(&other.lag_us);
        self.requests += other.requests;
        self.late += other.late;
    }
}

/// One request as the pacing saw it.
#[derive(Debug, Clone, Copy)]
pub struct Paced {
    /// Since the start of the run.
    pub due: Duration,
    pub sent: Duration,
    pub answered: Duration,
    /// Documents the request carried; counted for the achieved rate when it was delivered.
    pub docs: u64,
    pub delivered: bool,
}

impl Pace {
    pub fn new(rate: f64, start: Instant, warmup: Duration) -> Self {
        Pace {
            schedule: Schedule::new(rate, start),
            warmup,
            tally: Mutex::new(Tally {
                steady: Part::new(),
                warm: Part::new(),
                all_rate: Slope::default(),
                steady_rate: Slope::default(),
            }),
        }
    }

    pub fn record(&self, p: Paced) {
        let mut tally = self.tally.lock().unwrap_or_else(|e| e.into_inner());
        let warm = p.answered < self.warmup;
        if p.delivered {
            tally.all_rate.add(p.answered, p.docs);
            if !warm {
                tally.steady_rate.add(p.answered, p.docs);
            }
        }
        let part = if warm {
            &mut tally.warm
        } else {
            &mut tally.steady
        };
        let lag = p.sent.saturating_sub(p.due);
        let latency = p.answered.saturating_sub(p.due);
        part.requests += 1;
        part.lag_us.saturating_record(lag.as_micros() as u64);
        part.latency_us
            .saturating_record((latency.as_micros() as u64).max(1));
        if lag > LATE {
            part.late += 1;
        }
    }

    /// What the pacing measured; `warmup_applied` as the run's headline decided (a run too
    /// short for its warm-up is measured whole).
    pub fn finish(&self, warmup_applied: bool) -> Measured {
        let tally = self.tally.lock().unwrap_or_else(|e| e.into_inner());
        let mut part = Part::new();
        part.merge(&tally.steady);
        if !warmup_applied {
            part.merge(&tally.warm);
        }
        Measured {
            offered: self.schedule.rate(),
            achieved: if warmup_applied {
                tally.steady_rate.rate()
            } else {
                tally.all_rate.rate()
            },
            requests: part.requests,
            late: part.late,
            latency: summarize(&part.latency_us, 1e3),
            lag: summarize(&part.lag_us, 1e3),
            histograms: [
                ("latency", &part.latency_us),
                ("schedule_lag", &part.lag_us),
            ]
            .into_iter()
            .filter_map(|(name, h)| SerializedHistogram::encode(name, "us", h))
            .collect(),
        }
    }
}

/// What a paced load keeps in its record, beside its `latency` and `schedule_lag` histograms:
/// counts that add up over a group's parts, as parts side by side offer and achieve their rates
/// together (rates in thousandths of a document a second).
const OFFERED: &str = "paced_offered_mdocs_per_sec";
const ACHIEVED: &str = "paced_achieved_mdocs_per_sec";
const REQUESTS: &str = "paced_requests";
const LATE_REQUESTS: &str = "paced_late_requests";
const CLIENTS: &str = "paced_clients";
const LATENCY: &str = "latency";
const LAG: &str = "schedule_lag";

/// The pacing's figures at the end of a load.
#[derive(Debug)]
pub struct Measured {
    pub offered: f64,
    pub achieved: Option<f64>,
    pub requests: u64,
    pub late: u64,
    pub latency: Summary,
    pub lag: Summary,
    pub histograms: Vec<SerializedHistogram>,
}

impl Measured {
    /// Keeps it, and the load's `clients`, in the load's record `m`.
    pub fn record(&self, clients: usize, m: &mut Measurements) {
        let milli = |rate: f64| (rate * 1e3).round() as u64;
        m.count(OFFERED, milli(self.offered));
        if let Some(a) = self.achieved {
            m.count(ACHIEVED, milli(a));
        }
        m.count(REQUESTS, self.requests);
        m.count(LATE_REQUESTS, self.late);
        m.count(CLIENTS, clients as u64);
        for h in &self.histograms {
            // Made here: it decodes.
            let _ = m.histogram(h);
        }
    }

    /// What a load's record `m` (one load's, or a group's parts' added) says its pacing
    /// measured, with its clients; `None` when the load was not paced.
    pub fn of(m: &Measurements) -> Option<(Measured, u64)> {
        let offered = *m.counts.get(OFFERED)? as f64 / 1e3;
        let count = |name: &str| m.counts.get(name).copied().unwrap_or(0);
        let summary = |name: &str| m.histograms.get(name).map(|(_, h)| summarize(h, 1e3));
        let histograms = [LATENCY, LAG].into_iter().filter_map(|name| {
            let (unit, h) = m.histograms.get(name)?;
            SerializedHistogram::encode(name, unit, h)
        });
        let measured = Measured {
            offered,
            achieved: m.counts.get(ACHIEVED).map(|a| *a as f64 / 1e3),
            requests: count(REQUESTS),
            late: count(LATE_REQUESTS),
            latency: summary(LATENCY).unwrap_or_default(),
            lag: summary(LAG).unwrap_or_default(),
            histograms: histograms.collect(),
        };
        Some((measured, count(CLIENTS)))
    }
}

/// What limited an open-loop load, as far as the driver can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The achieved rate held the offered one.
    None,
    /// Every client was waiting on the target: the target's latency at this many clients.
    Target,
    /// The driver: its CPU near a core, or requests late while clients sat idle.
    Driver,
}

/// An open-loop load in the result: offered against achieved, latency from the due time,
/// the schedule's lag, and what limited it.
#[derive(Debug, Clone, Serialize)]
pub struct RateReport {
    /// The rate asked for (`--rate`), documents per second.
    pub offered_docs_per_sec: f64,
    /// The least-squares slope of documents answered against the time of each answer
    /// (warm-up excluded like the headline); `None` with fewer than 2 requests.
    pub achieved_docs_per_sec: Option<f64>,
    /// Requests the schedule handed out (measured part).
    pub requests: u64,
    /// Requests sent more than `late_after_ms` after their due time.
    pub late_requests: u64,
    pub late_after_ms: f64,
    /// Due time to the last answer (retries included).
    pub latency: Summary,
    /// Due time to the actual send: how far the schedule fell behind.
    pub schedule_lag: Summary,
    /// Service time in flight ÷ (wall × clients): how busy the clients were.
    pub clients_busy: f64,
    /// Driver CPU ÷ wall: the share of one core the driver used.
    pub driver_core_share: f64,
    pub limit: Limit,
}

impl RateReport {
    /// Whether the achieved rate held the offered one (within [`KEPT_UP`]).
    pub fn kept_up(&self) -> bool {
        self.achieved_docs_per_sec
            .is_none_or(|a| a >= KEPT_UP * self.offered_docs_per_sec)
    }

    /// What limited the load, in words that say what was measured: a driver that sent late
    /// while the rate held is not said to have fallen behind.
    pub fn limit_words(&self) -> &'static str {
        match (self.limit, self.kept_up()) {
            (Limit::None, _) => "kept up",
            (Limit::Target, _) => "fell behind: the cluster at this many clients",
            (Limit::Driver, false) => "fell behind: the driver is the limit",
            (Limit::Driver, true) => {
                "kept up, but requests went out late: the driver's lag is most of the tail latency"
            }
        }
    }

    /// The report of a paced load from its record `m` (one load's, or a group's parts'
    /// added: the one derivation of both), and the warnings it calls for; `None` when it was
    /// not paced. `driver_core_share`: the driver's CPU ÷ the wall (a group's busiest part's).
    pub fn of(
        m: &Measurements,
        wall: Duration,
        driver_core_share: f64,
    ) -> Option<(RateReport, Vec<String>)> {
        let (measured, clients) = Measured::of(m)?;
        let service_us = (m.seconds.values())
            .filter_map(|s| s.get(super::figures::SERVICE_US))
            .fold(0u64, |a, n| a.saturating_add(*n));
        let driver_cpu =
            Duration::try_from_secs_f64(wall.as_secs_f64() * driver_core_share).unwrap_or_default();
        Some(RateReport::new(
            &measured,
            clients as usize,
            Duration::from_micros(service_us),
            wall,
            driver_cpu,
        ))
    }

    /// The report and the warnings it calls for.
    pub fn new(
        m: &Measured,
        clients: usize,
        service_sum: Duration,
        wall: Duration,
        driver_cpu: Duration,
    ) -> (RateReport, Vec<String>) {
        let wall_s = wall.as_secs_f64().max(1e-9);
        let clients_busy = (service_sum.as_secs_f64() / (wall_s * clients.max(1) as f64)).min(1.0);
        let driver_core_share = driver_cpu.as_secs_f64() / wall_s;
        let kept_up = m.achieved.is_none_or(|a| a >= KEPT_UP * m.offered);
        let mut warnings = Vec::new();
        let behind = !kept_up;
        // Lag while clients sat idle is the driver's (or its machine's) doing; when it is most
        // of the tail latency, the latency figures describe the driver more than the cluster.
        // On p99s only: below 100 requests there is none, and one slow first request would
        // decide a maximum.
        let (lag_tail, latency_tail) = (
            m.lag.p99_ms.unwrap_or(0.0),
            m.latency.p99_ms.unwrap_or(f64::INFINITY),
        );
        let lag_dominated = clients_busy < CLIENTS_BUSY
            && lag_tail > LATE.as_secs_f64() * 1e3
            && lag_tail > 0.5 * latency_tail;
        let limit = if driver_core_share >= DRIVER_CPU_LIMIT && behind {
            warnings.push(format!(
                "the driver used {:.0}% of a core and the schedule fell behind: the driver, not the cluster, may be the limit at this rate",
                100.0 * driver_core_share
            ));
            Limit::Driver
        } else if behind && clients_busy < CLIENTS_BUSY {
            warnings.push(format!(
                "{} of {} requests went out late while the clients were busy only {:.0}% of the time: the driver could not hand requests out in time, so the driver, not the cluster, is the limit",
                m.late,
                m.requests,
                100.0 * clients_busy
            ));
            Limit::Driver
        } else if behind {
            warnings.push(format!(
                "all {clients} clients were busy ({:.0}%) and {} of {} requests went out late: the cluster's latency at {clients} clients is the limit (more --clients may go further)",
                100.0 * clients_busy,
                m.late,
                m.requests
            ));
            Limit::Target
        } else if lag_dominated {
            warnings.push(format!(
                "schedule lag (p99 {lag_tail:.1} ms, while the clients were busy only {:.0}% of the time) is most of the p99 latency ({:.1} ms): the driver or its machine sent requests late, so the latency overstates the cluster's",
                100.0 * clients_busy,
                latency_tail
            ));
            Limit::Driver
        } else {
            Limit::None
        };
        (
            RateReport {
                offered_docs_per_sec: m.offered,
                achieved_docs_per_sec: m.achieved,
                requests: m.requests,
                late_requests: m.late,
                late_after_ms: LATE.as_secs_f64() * 1e3,
                latency: m.latency.clone(),
                schedule_lag: m.lag.clone(),
                clients_busy,
                driver_core_share,
                limit,
            },
            warnings,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paced(due_ms: u64, sent_ms: u64, answered_ms: u64) -> Paced {
        Paced {
            due: Duration::from_millis(due_ms),
            sent: Duration::from_millis(sent_ms),
            answered: Duration::from_millis(answered_ms),
            docs: 100,
            delivered: true,
        }
    }

    #[test]
    fn latency_runs_from_the_due_time_and_lag_counts_late_sends() {
        let pace = Pace::new(1000.0, Instant::now(), Duration::ZERO);
        // Every 100 ms, answered 10 ms after the send; the third went out 50 ms late.
        pace.record(paced(0, 0, 10));
        pace.record(paced(100, 100, 110));
        pace.record(paced(200, 250, 260));
        pace.record(paced(300, 300, 310));
        let m = pace.finish(true);
        assert_eq!((m.requests, m.late), (4, 1));
        assert!(
            (m.latency.max_ms.unwrap() - 60.0).abs() < 0.1,
            "{:?}",
            m.latency
        );
        assert!((m.lag.max_ms.unwrap() - 50.0).abs() < 0.1);
        // Answers of 100 documents at 10, 110, 260 and 310 ms: a slope near 1000 docs/s.
        let a = m.achieved.unwrap();
        assert!((900.0..1100.0).contains(&a), "{a}");
        // Evenly spaced answers give the rate exactly; one late last answer moves it little.
        let even = Pace::new(1000.0, Instant::now(), Duration::ZERO);
        for i in 0..20 {
            even.record(paced(i * 100, i * 100, i * 100 + 10));
        }
        assert!((even.finish(true).achieved.unwrap() - 1000.0).abs() < 1e-6);
        even.record(paced(2000, 2000, 2200));
        let a = even.finish(true).achieved.unwrap();
        assert!(a > 950.0, "{a}");
        assert_eq!(m.histograms.len(), 2);
    }

    #[test]
    fn warm_up_counts_only_when_the_run_was_too_short_for_it() {
        let pace = Pace::new(1000.0, Instant::now(), Duration::from_millis(150));
        pace.record(paced(0, 0, 100));
        pace.record(paced(100, 100, 200));
        pace.record(paced(200, 200, 300));
        assert_eq!(pace.finish(true).requests, 2);
        assert_eq!(pace.finish(false).requests, 3);
    }

    #[test]
    fn the_limit_is_named_from_cpu_lag_and_busy_clients() {
        let m = |achieved: f64, late: u64| Measured {
            offered: 1000.0,
            achieved: Some(achieved),
            requests: 100,
            late,
            latency: Summary::default(),
            lag: Summary::default(),
            histograms: Vec::new(),
        };
        let s = Duration::from_secs;
        let (r, w) = RateReport::new(&m(1000.0, 0), 2, s(1), s(10), s(1));
        assert_eq!((r.limit, w.len()), (Limit::None, 0));
        let mut lagging = m(1000.0, 30);
        lagging.lag.p99_ms = Some(40.0);
        lagging.latency.p99_ms = Some(50.0);
        let (r, w) = RateReport::new(&lagging, 2, s(1), s(10), s(1));
        assert_eq!(r.limit, Limit::Driver);
        assert!(w[0].contains("overstates"), "{w:?}");
        // It held the offered rate: late, never "fell behind" (once "offered 8000, achieved
        // 8000 (fell behind: the driver is the limit)").
        assert!(r.kept_up() && !r.limit_words().contains("fell behind"));
        // Too few requests for a p99: one slow first request (a maximum) decides nothing.
        let mut one_slow = m(1000.0, 2);
        one_slow.lag.max_ms = Some(18.0);
        one_slow.latency.max_ms = Some(20.0);
        let (r, w) = RateReport::new(&one_slow, 2, s(1), s(10), s(1));
        assert_eq!((r.limit, w.len()), (Limit::None, 0), "{w:?}");
        let (r, w) = RateReport::new(&m(600.0, 50), 2, s(19), s(10), s(1));
        assert_eq!(r.limit, Limit::Target);
        assert!(!r.kept_up() && r.limit_words().starts_with("fell behind"));
        assert!(w[0].contains("more --clients"), "{w:?}");
        let (r, w) = RateReport::new(&m(600.0, 50), 2, s(2), s(10), s(1));
        assert_eq!(r.limit, Limit::Driver);
        assert!(w[0].contains("driver"), "{w:?}");
        let (r, _) = RateReport::new(&m(600.0, 50), 2, s(19), s(10), s(9));
        assert_eq!(r.limit, Limit::Driver);
    }
}

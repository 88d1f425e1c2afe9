//! One task driven as the tools drive it: `clients` clients each run the operation for the
//! warm-up (`warmup-iterations` each, or `warmup-time-period`), then for the measured part
//! (`iterations` each, or `time-period`; one iteration when neither is given). With a target
//! throughput (`target-throughput` ops/s over all clients, or one op per `target-interval`),
//! requests are due at fixed times (Rally's `poisson` schedule: at random gaps of the same
//! mean) and latency counts from the due time; service time always counts from the send. A
//! scheduler the track's Python registers gives each client's due times from the worker. Only
//! the measured part is counted.

use std::borrow::Cow;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use super::operation::{Context, Done, Failed, Kind, Operation};
use crate::cancel::Cancel;
use crate::measure::schedule::Schedule;
use crate::measure::Measurements;
use crate::workload::track::model::Resolved;

/// What to run: the resolved task with its operation.
#[derive(Debug, Clone)]
pub struct TaskSpec {
    pub name: String,
    pub operation_type: String,
    pub operation: Operation,
    pub clients: u64,
    /// Per client.
    pub warmup_iterations: u64,
    /// Per client; one when neither this nor a time period is given.
    pub iterations: Option<u64>,
    pub warmup_time: Option<Duration>,
    pub time: Option<Duration>,
    /// Operations per second over all clients.
    pub rate: Option<f64>,
    /// How the requests are spread in time at that rate (Rally's `schedule`).
    pub arrivals: Arrivals,
}

/// When a task's requests are due: Rally's `schedule`.
#[derive(Debug, Clone, PartialEq)]
pub enum Arrivals {
    /// `deterministic`, the default: one every 1/rate s.
    Deterministic,
    /// `poisson`: random, independent arrivals at the rate (exponential gaps). Rally gives each
    /// client a Poisson process at its share of the rate; together they are one Poisson
    /// process at the whole rate, which the clients share here.
    Poisson,
    /// A scheduler the track's Python registers (`register_scheduler`), by its name: each
    /// client's due times are asked of it in the worker, as the tool's driver asks, with or
    /// without a target throughput.
    Python(String),
}

/// Arrivals at random gaps, exponential of mean 1/rate, from `start`: seeded by the task's
/// name, so a run repeats its arrivals.
#[derive(Debug)]
struct PoissonArrivals {
    start: Instant,
    rate: f64,
    /// Seconds from the start of the last arrival, and the draws.
    last: Mutex<(f64, crate::rng::Rng)>,
}

impl PoissonArrivals {
    fn new(rate: f64, start: Instant, name: &str) -> Self {
        let seed = crate::rng::fnv1a([name.as_bytes()]);
        PoissonArrivals {
            start,
            rate,
            last: Mutex::new((0.0, crate::rng::Rng::new(seed, 0))),
        }
    }

    fn next(&self) -> Instant {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let (at, draws) = &mut *last;
        // Inverse transform: -ln(1 - U) / rate, U in [0, 1).
        *at += -(1.0 - draws.unit()).ln() / self.rate;
        self.start + Duration::from_secs_f64(*at)
    }
}

/// How a task's requests are paced.
#[derive(Debug)]
enum Pace {
    /// As fast as they go (or as the worker's scheduler says).
    Open,
    Fixed(Schedule),
    Poisson(PoissonArrivals),
}

impl Pace {
    fn next(&self) -> Option<Instant> {
        match self {
            Pace::Open => None,
            Pace::Fixed(s) => Some(s.next(1)),
            Pace::Poisson(p) => Some(p.next()),
        }
    }
}

/// The counts and histograms a task's measured part left, with its wall-clock window.
#[derive(Debug, Default)]
pub struct TaskRun {
    /// `ops`, `errors`, `units` (pages, documents); `latency`/`service_time` in µs; per second
    /// `ops` and `errors`.
    pub measurements: Measurements,
    /// From the first measured send to the last measured answer.
    pub window: Option<(SystemTime, SystemTime)>,
    /// The first error, to say why a task failed.
    pub first_error: Option<String>,
    /// Stopped before it was done: Ctrl-C, or the task that completes its parallel block ended.
    pub stopped: bool,
}

/// The operations per second task `t` aims at (`target-throughput`, or one over
/// `target-interval`), `None` for as fast as it goes.
pub fn rate_of(t: &Resolved) -> Result<Option<f64>, String> {
    // A throughput or interval of 0 is no target at all: both tools test the value for truth
    // (`elif target_throughput:`), and tracks write `default(0)` to mean "as fast as it goes".
    let rate = match (&t.target_throughput, t.target_interval) {
        (Some(v), None) => Some(throughput(v)?).filter(|r| *r != 0.0),
        (None, Some(0.0)) => None,
        (None, Some(i)) if i > 0.0 => Some(1.0 / i),
        (None, Some(i)) => return Err(format!("target-interval: {i} is not above 0")),
        (None, None) => None,
        (Some(_), Some(_)) => {
            return Err("both target-throughput and target-interval: give one of them".into())
        }
    };
    rate.map(crate::measure::schedule::check_rate)
        .transpose()
        .map_err(|e| format!("target throughput: {e}"))
}

/// The most clients a task may have.
pub const MOST_CLIENTS: u64 = 1024;

/// `t`'s clients checked as the tools check them, before anything is sized by them (a vector
/// task keeps a place per client).
pub fn checked_clients(t: &Resolved) -> Result<(), String> {
    if (1..=MOST_CLIENTS).contains(&t.clients) {
        return Ok(());
    }
    Err(format!(
        "clients: {} is not accepted; use a whole number from 1 to {MOST_CLIENTS}",
        t.clients
    ))
}

impl TaskSpec {
    /// The task `t` with its operation, its counts checked as the tools check them.
    pub fn of(t: &Resolved, operation: Operation) -> Result<TaskSpec, String> {
        let at = |what: &str| format!("task {}: {what}", t.name);
        checked_clients(t).map_err(|e| at(&e))?;
        if t.iterations.is_some() && t.time_period.is_some() {
            return Err(at("both iterations and time-period: give one of them"));
        }
        if t.warmup_iterations.is_some() && t.warmup_time_period.is_some() {
            return Err(at(
                "both warmup-iterations and warmup-time-period: give one of them",
            ));
        }
        let rate = rate_of(t).map_err(|e| at(&e))?;
        Ok(TaskSpec {
            name: t.name.clone(),
            operation_type: t.operation_type.clone(),
            operation,
            clients: t.clients,
            warmup_iterations: t.warmup_iterations.unwrap_or(0),
            iterations: t.iterations,
            warmup_time: t.warmup_time_period.map(Duration::from_secs),
            time: t.time_period.map(Duration::from_secs),
            rate,
            arrivals: Arrivals::Deterministic,
        })
    }

    /// The task as the tools' test mode runs it: at most one iteration (and one warm-up
    /// iteration) per client, no warm-up period, at most 10 s of time period, no target
    /// throughput (as fast as it goes), and a retried operation gives up after
    /// [`super::operation::TEST_MODE_GIVE_UP`].
    pub fn for_test_mode(mut self) -> Self {
        let clients = self.clients;
        self.warmup_iterations = self.warmup_iterations.min(clients);
        self.iterations = self.iterations.map(|n| n.min(clients));
        self.warmup_time = None;
        self.time = self.time.map(|t| t.min(Duration::from_secs(10)));
        self.rate = None;
        self.operation.give_up = super::operation::TEST_MODE_GIVE_UP;
        self
    }

    /// Runs the task until it is done, or `stop` (Ctrl-C, or the end of the task that
    /// completes its parallel block).
    pub async fn run(&self, ctx: &Context, stop: &Cancel) -> TaskRun {
        self.operation.begin();
        let start = Instant::now();
        let pace = match (self.rate, &self.arrivals) {
            (Some(r), Arrivals::Deterministic) => Pace::Fixed(Schedule::new(r, start)),
            (Some(r), Arrivals::Poisson) => {
                Pace::Poisson(PoissonArrivals::new(r, start, &self.name))
            }
            _ => Pace::Open,
        };
        let clients = (0..self.clients as usize).map(|c| self.client(c, ctx, start, &pace, stop));
        let mut all = TaskRun::default();
        for part in futures_util::future::join_all(clients).await {
            if let Err(e) = all.measurements.merge(&part.measurements) {
                all.first_error.get_or_insert(e);
            }
            all.window = match (all.window, part.window) {
                (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
                (w, None) | (None, w) => w,
            };
            if all.first_error.is_none() {
                all.first_error = part.first_error;
            }
            all.stopped |= part.stopped;
        }
        all
    }

    /// One client's loop.
    async fn client(
        &self,
        client: usize,
        ctx: &Context,
        start: Instant,
        pace: &Pace,
        stop: &Cancel,
    ) -> TaskRun {
        let mut mine = TaskRun::default();
        // A vector data set runs until the client's share is sent, unless iterations say less.
        let wanted = self
            .iterations
            .unwrap_or(if self.operation.finite(Some(ctx)) {
                u64::MAX
            } else {
                1
            });
        let (mut i, mut measured) = (0u64, 0u64);
        loop {
            if stop.is_cancelled() {
                mine.stopped = true;
                break;
            }
            if self.operation.exhausted(client) {
                break;
            }
            let elapsed = start.elapsed();
            let warm = match (self.time, self.warmup_time) {
                (Some(time), warmup) => {
                    let warmup = warmup.unwrap_or_default();
                    if elapsed >= warmup + time {
                        break;
                    }
                    elapsed < warmup
                }
                (None, Some(warmup)) if elapsed < warmup => true,
                (None, None) if i < self.warmup_iterations => true,
                (None, _) if measured >= wanted => break,
                (None, _) => false,
            };
            // What this client sends next, and when (the track's Python may say it has no
            // more).
            let next = tokio::select! {
                n = self.next_due(ctx, client, start, pace) => n,
                () = stop.cancelled() => { mine.stopped = true; break; }
            };
            let (operation, due) = match next {
                Ok(Some(next)) => next,
                Ok(None) => break,
                Err(e) => {
                    mine.measurements.count("ops", 1);
                    mine.measurements.count("errors", 1);
                    mine.first_error.get_or_insert(e.0);
                    break;
                }
            };
            if let Some(at) = due {
                tokio::select! {
                    () = tokio::time::sleep_until(at.into()) => {}
                    () = stop.cancelled() => { mine.stopped = true; break; }
                }
            }
            // A scheduler in the worker hears of the request before and after it (a runner's
            // hears it there, around the runner).
            let told = self
                .tells(&operation)
                .then_some(ctx.worker.as_ref())
                .flatten();
            if let Some(w) = told {
                if let Err(e) = w.tell(&self.name, client, None).await {
                    mine.first_error
                        .get_or_insert(format!("schedule {}: {e}", self.schedule_name()));
                }
            }
            let sent = Instant::now();
            let sent_wall = SystemTime::now();
            let outcome = tokio::select! {
                o = operation.run(ctx, client) => o,
                () = stop.cancelled() => { mine.stopped = true; break; }
            };
            let end = Instant::now();
            if let Some(w) = told {
                let after = match &outcome {
                    Ok(done) => (
                        done.units as f64,
                        done.unit.as_deref().unwrap_or("ops"),
                        true,
                    ),
                    Err(_) => (0.0, "ops", false),
                };
                if let Err(e) = w.tell(&self.name, client, Some(after)).await {
                    mine.first_error
                        .get_or_insert(format!("schedule {}: {e}", self.schedule_name()));
                }
            }
            // A runner whose parameters were used up sent nothing: the client is done.
            if matches!(outcome, Ok(Done { ended: true, .. })) {
                break;
            }
            i += 1;
            if warm {
                continue;
            }
            measured += 1;
            let m = &mut mine.measurements;
            let second = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            m.count("ops", 1);
            m.count_at(second, "ops", 1);
            // The runner's own timing when it gives one (a runner of the track's Python).
            let mut service = end - sent;
            match outcome {
                Ok(done) => {
                    service = done.service.unwrap_or(service);
                    m.count("units", done.units);
                    m.count_at(second, "units", done.units);
                    if let Some(unit) = &done.unit {
                        m.record(super::figures::WEIGHT, unit, done.units);
                    }
                    if let Some(r) = done.recall {
                        // Sums in millionths, so the mean over the parts of a run is exact.
                        let ppm = |x: f64| (x.clamp(0.0, 1.0) * 1e6).round() as u64;
                        m.count("recall_answers", 1);
                        m.count("recall_at_k_ppm", ppm(r.at_k));
                        m.count("recall_at_1_ppm", ppm(r.at_1));
                        m.record("recall_at_k", "ppm", ppm(r.at_k));
                    }
                }
                Err(e) => {
                    m.count("errors", 1);
                    m.count_at(second, "errors", 1);
                    mine.first_error.get_or_insert(e.0);
                }
            }
            let micros = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
            m.record("service_time", "us", micros(service));
            // Unscheduled, the latency is the service time (as the tools have it).
            let latency = due.map_or(service, |due| end - due);
            m.record("latency", "us", micros(latency));
            let now = SystemTime::now();
            mine.window = Some(match mine.window {
                Some((first, _)) => (first, now),
                None => (sent_wall, now),
            });
        }
        mine
    }
}

impl TaskSpec {
    /// Client `client`'s next operation (the track's Python may say it has no more) and when
    /// it is due: by the task's pace, or as the track's scheduler in the worker says (its due
    /// time asked first, then the client's parameters, as the tool's driver asks them).
    async fn next_due<'s>(
        &'s self,
        ctx: &Context,
        client: usize,
        start: Instant,
        pace: &Pace,
    ) -> Result<Option<(Cow<'s, Operation>, Option<Instant>)>, Failed> {
        let Arrivals::Python(schedule) = &self.arrivals else {
            let next = self.operation.next(ctx, client, self.clients).await?;
            return Ok(next.map(|op| (op, pace.next())));
        };
        let worker = ctx
            .worker
            .as_ref()
            .ok_or_else(|| Failed("no Python worker runs for this track".into()))?;
        let python_params = matches!(self.operation.kind, Kind::Python(_));
        let asked = worker
            .scheduled(&self.name, client, self.clients, python_params)
            .await
            .map_err(|e| Failed(format!("schedule {schedule}: {e}")))?;
        if asked.done {
            return Ok(None);
        }
        // A due time of 0 or less is at once, unthrottled, as the tool's driver takes it.
        let due = match asked.at {
            at if at > 0.0 => Some(
                Duration::try_from_secs_f64(at)
                    .ok()
                    .and_then(|d| start.checked_add(d))
                    .ok_or_else(|| {
                        Failed(format!(
                            "schedule {schedule}: a due time of {at} s is too far"
                        ))
                    })?,
            ),
            _ => None,
        };
        let op = match asked.params.into_iter().next() {
            Some(params) => Some(self.operation.with_params(params)?),
            None if python_params => None,
            None => self.operation.next(ctx, client, self.clients).await?,
        };
        Ok(op.map(|op| (op, due)))
    }

    /// Whether the worker's scheduler is told of `operation`'s requests from here (a runner's
    /// hears of them in the worker).
    fn tells(&self, operation: &Operation) -> bool {
        matches!(self.arrivals, Arrivals::Python(_)) && !matches!(operation.kind, Kind::Runner(_))
    }

    /// The name of the task's schedule, as the track gives it.
    fn schedule_name(&self) -> &str {
        match &self.arrivals {
            Arrivals::Deterministic => "deterministic",
            Arrivals::Poisson => "poisson",
            Arrivals::Python(name) => name,
        }
    }
}

/// A target throughput: a number of ops/s, or a string with its unit (`"100 ops/s"`,
/// `"2 ops/min"`), as the tools take it.
fn throughput(v: &serde_json::Value) -> Result<f64, String> {
    if let Some(n) = v.as_f64() {
        return Ok(n);
    }
    let text = v.as_str().ok_or_else(|| {
        format!(
            "target-throughput: {} is not a number",
            crate::shown::Shown(v)
        )
    })?;
    let (n, unit) = text
        .trim()
        .split_once(' ')
        .unwrap_or((text.trim(), "ops/s"));
    let n: f64 = n.parse().map_err(|_| {
        format!(
            "target-throughput: {:?} is not a number with a unit",
            crate::shown::Shown(text).to_string()
        )
    })?;
    match unit.trim() {
        "ops/s" | "docs/s" => Ok(n),
        "ops/min" | "docs/min" => Ok(n / 60.0),
        other => Err(format!(
            "target-throughput: unit {other:?} is not ops/s or ops/min"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rally's `poisson`: random gaps whose mean is 1/rate, the same on every run of the task,
    /// another for another task.
    #[test]
    fn poisson_arrivals_come_at_random_gaps_of_the_rates_mean() {
        let t0 = Instant::now();
        let gaps = |name: &str| {
            let p = PoissonArrivals::new(50.0, t0, name);
            let mut last = t0;
            (0..20_000)
                .map(|_| {
                    let at = p.next();
                    let gap = (at - last).as_secs_f64();
                    last = at;
                    gap
                })
                .collect::<Vec<f64>>()
        };
        let a = gaps("search");
        let mean = a.iter().sum::<f64>() / a.len() as f64;
        assert!((mean - 0.02).abs() < 0.001, "mean gap {mean}");
        // Exponential: its standard deviation is its mean; a fixed pace's is 0.
        let sd = (a.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / a.len() as f64).sqrt();
        assert!(
            (sd / mean - 1.0).abs() < 0.05,
            "sd {sd} against mean {mean}"
        );
        assert_eq!(a, gaps("search"));
        assert_ne!(a, gaps("another"));
        let fixed = Pace::Fixed(Schedule::new(50.0, t0));
        assert_eq!(fixed.next(), Some(t0));
        assert_eq!(fixed.next(), Some(t0 + Duration::from_millis(20)));
        assert_eq!(Pace::Open.next(), None);
    }
}

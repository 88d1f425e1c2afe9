//! The telemetry sampler: around an ingest or query phase, every interval it reads
//! `_nodes/stats` (any target) and `/proc` (nodes we started, or the `--engine-pid` given),
//! plus the driver's own CPU and scheduler lag, and streams the rows to the run's sinks as they
//! come: an instrument of the run's lifecycle ([`TelemetryInstrument`]).
//!
//! It runs on a thread of its own with its own small runtime, so its CPU is its thread's CPU
//! (measured, and kept apart from the driver's), and a slow answer never holds up the load.
//! Every request has a deadline of one interval: a node that stops answering costs a missed
//! sample (counted), never a hang.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};

use super::lifecycle::{Hand, Instrument, Seen, Stage, Streamed, Work};
use crate::cluster::Target;
use crate::measure::telemetry::{self, Context, DriverReading, NodeReading, Row, Series, Summary};

/// Telemetry samples once a second unless told otherwise.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Whether and how often to sample. Second 0 of the samples is the run's (the stage's
/// `started`), so the seconds of one run's phases follow on.
#[derive(Debug, Clone, Copy)]
pub struct TelemetrySpec {
    /// `None`: no telemetry (`--no-telemetry`).
    pub interval: Option<Duration>,
}

impl Default for TelemetrySpec {
    fn default() -> Self {
        TelemetrySpec {
            interval: Some(DEFAULT_INTERVAL),
        }
    }
}

impl TelemetrySpec {
    pub fn off() -> Self {
        TelemetrySpec { interval: None }
    }
}

/// What a phase's sampler collected.
#[derive(Debug, Default)]
pub struct Telemetry {
    pub rows: Vec<Row>,
    pub samples: u64,
    pub missed: u64,
    pub interval: Duration,
    /// The cores the engine's processes may use, when they are ours to read.
    pub engine_cpu_limit: Option<crate::measure::cpu_limit::CpuLimit>,
}

impl Telemetry {
    /// The samples of several spans of one run (a track's steps) as one: rows in order,
    /// samples and misses added. `None` when nothing was sampled.
    pub fn combine<'t>(spans: impl IntoIterator<Item = &'t Telemetry>) -> Option<Telemetry> {
        let mut all: Option<Telemetry> = None;
        for t in spans {
            let a = all.get_or_insert_with(|| Telemetry {
                interval: t.interval,
                engine_cpu_limit: t.engine_cpu_limit.clone(),
                ..Telemetry::default()
            });
            a.rows.extend(t.rows.iter().cloned());
            a.samples += t.samples;
            a.missed += t.missed;
            if a.engine_cpu_limit.is_none() {
                a.engine_cpu_limit.clone_from(&t.engine_cpu_limit);
            }
        }
        all
    }

    /// The phase's figures; `timeline_offset` is where the load's second 0 lies on the
    /// telemetry clock.
    pub fn summary(&self, timeline_offset: Option<Duration>) -> Summary {
        telemetry::summarize(
            &self.rows,
            Context {
                interval: self.interval,
                samples: self.samples,
                missed: self.missed,
                cores: crate::measure::machine::cores(),
                engine_cpu_limit: self.engine_cpu_limit.clone(),
                timeline_offset,
            },
        )
    }
}

/// The telemetry instrument's name: what a phase takes its [`Telemetry`] under.
pub const TELEMETRY: Hand<Telemetry> = Hand::new("telemetry");

/// The telemetry sampler as an instrument of the run's lifecycle: started before each phase
/// and stopped after it, on the run's clock (second 0 is the run's start, so the seconds of
/// its phases follow on), its rows streamed to the run's sinks as they come. What it sampled
/// around a step is what it saw ([`Telemetry`]): the step's phase summarises it.
pub struct TelemetryInstrument {
    interval: Duration,
    running: Option<Sampler>,
}

impl TelemetryInstrument {
    /// The instrument `spec` asks for; `None` with telemetry off.
    pub fn new(spec: &TelemetrySpec) -> Option<Self> {
        Some(TelemetryInstrument {
            interval: spec.interval?,
            running: None,
        })
    }
}

impl Instrument for TelemetryInstrument {
    fn name(&self) -> String {
        TELEMETRY.name().into()
    }

    fn start<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<(), String>> {
        Box::pin(async move {
            let feed = stage.feed.clone();
            // Sampled on a runtime of its own, with connections of its own: none the phase's
            // requests could be sent on as the sampler's runtime ends.
            let target = stage
                .target
                .with_own_pool()
                .map_err(|e| format!("no client to sample {phase} with: not sampled: {e}"))?;
            let job = Job {
                target,
                engine_pids: stage.engine_pids.to_vec(),
                interval: self.interval,
                origin: stage.started,
                phase: phase.to_string(),
                rows: Box::new(move |rows| feed.send(Streamed::Telemetry(rows))),
                lag: Arc::new(AtomicU64::new(0)),
            };
            self.running = Sampler::start(job);
            match self.running {
                Some(_) => Ok(()),
                None => Err(format!("no thread to sample {phase} on: not sampled")),
            }
        })
    }

    fn stop<'a>(
        &'a mut self,
        _phase: &'a str,
        _stage: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<Seen>, String>> {
        Box::pin(async move {
            let Some(sampler) = self.running.take() else {
                return Ok(None);
            };
            // The rows went to the sinks as they came: the phase keeps the summary.
            Ok(Some(TELEMETRY.seen(sampler.stop().await)))
        })
    }
}

struct Sampler {
    stop: watch::Sender<bool>,
    done: oneshot::Receiver<Telemetry>,
    lag_probe: tokio::task::JoinHandle<()>,
}

impl Sampler {
    /// Starts the sampler's thread and, on the caller's runtime, the lag probe. `None` when
    /// no thread can be started (the run goes on without telemetry).
    fn start(job: Job) -> Option<Sampler> {
        let lag = job.lag.clone();
        let (stop, stop_rx) = watch::channel(false);
        let (done_tx, done) = oneshot::channel();
        std::thread::Builder::new()
            .name("telemetry".into())
            .spawn(move || {
                let collected = job.run(stop_rx);
                let _ = done_tx.send(collected);
            })
            .ok()?;
        Some(Sampler {
            stop,
            done,
            lag_probe: tokio::spawn(probe_lag(lag)),
        })
    }

    async fn stop(self) -> Telemetry {
        let _ = self.stop.send(true);
        self.lag_probe.abort();
        self.done.await.unwrap_or_default()
    }
}

/// How often the lag probe wakes: the resolution of the scheduler lag it reports.
const PROBE_EVERY: Duration = Duration::from_millis(50);

/// Wakes on a fixed schedule on the driver's runtime and keeps the worst lateness (µs) in
/// `lag`: a runtime too busy to wake a timer on time is too busy to send on time.
async fn probe_lag(lag: Arc<AtomicU64>) {
    let mut next = tokio::time::Instant::now() + PROBE_EVERY;
    loop {
        tokio::time::sleep_until(next).await;
        let now = tokio::time::Instant::now();
        let late = now.saturating_duration_since(next);
        lag.fetch_max(u64::try_from(late.as_micros()).unwrap_or(u64::MAX), Relaxed);
        next += PROBE_EVERY;
        if next <= now {
            next = now + PROBE_EVERY;
        }
    }
}

/// What the sampler's thread needs.
struct Job {
    target: Target,
    engine_pids: Vec<u32>,
    interval: Duration,
    origin: Instant,
    /// The phase the rows are stored under (`ingest`, `query`).
    phase: String,
    /// Where each sample's rows go, from the sampler's thread.
    rows: Box<dyn Fn(Vec<Row>) + Send>,
    lag: Arc<AtomicU64>,
}

/// The local processes of the nodes, by node name; `only` when one group is known but could
/// not be matched by pid (one node we started: it is that node).
#[derive(Debug, Default)]
struct Locals {
    by_name: BTreeMap<String, Vec<u32>>,
    only: Option<Vec<u32>>,
}

impl Locals {
    /// Every engine process we read, once.
    fn pids(&self) -> Vec<u32> {
        let mut all: Vec<u32> = self
            .by_name
            .values()
            .chain(self.only.iter())
            .flatten()
            .copied()
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    fn of(&self, node: &str, nodes: usize) -> Option<&[u32]> {
        match self.by_name.get(node) {
            Some(pids) => Some(pids),
            None if nodes == 1 => self.only.as_deref(),
            None => None,
        }
    }
}

impl Job {
    fn run(self, stop: watch::Receiver<bool>) -> Telemetry {
        let mut collected = Telemetry {
            interval: self.interval,
            ..Telemetry::default()
        };
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return collected;
        };
        runtime.block_on(self.sample(stop, &mut collected));
        collected
    }

    async fn sample(&self, mut stop: watch::Receiver<bool>, out: &mut Telemetry) {
        let locals = tokio::select! {
            l = self.locals() => l,
            _ = stop.wait_for(|s| *s) => return,
        };
        out.engine_cpu_limit = crate::measure::cpu_limit::of(&locals.pids());
        // Ticks on the origin's grid, from the next one on: the seconds of two phases of one
        // run never collide.
        let elapsed = self.origin.elapsed().as_secs_f64();
        let step = self.interval.as_secs_f64();
        let first = (elapsed / step).ceil() as u32;
        let start = self.origin + self.interval * first;
        let mut tick =
            tokio::time::interval_at(tokio::time::Instant::from_std(start), self.interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut series = Series::new();
        let mut endpoint = 0usize;
        loop {
            let scheduled = tokio::select! {
                t = tick.tick() => t.into_std(),
                _ = stop.wait_for(|s| *s) => return,
            };
            let second = scheduled.saturating_duration_since(self.origin).as_secs();
            let answer = tokio::select! {
                a = tokio::time::timeout(self.interval, self.target.node_stats(endpoint)) => a,
                _ = stop.wait_for(|s| *s) => return,
            };
            let mut rows = Vec::new();
            match answer {
                Ok(Ok(nodes)) if !nodes.is_empty() => {
                    out.samples += 1;
                    let at = self.origin.elapsed();
                    let count = nodes.len();
                    for node in nodes {
                        let proc = locals.of(&node.name, count).and_then(crate::os::proc_stats);
                        let reading = NodeReading {
                            second,
                            at,
                            node: node.name,
                            stats: node.stats,
                            proc,
                        };
                        rows.push(series.node(&reading, &self.phase));
                    }
                }
                // No answer in time, an error, or no node: skipped and counted; the next
                // reading asks the next URL.
                _ => {
                    out.missed += 1;
                    endpoint = endpoint.wrapping_add(1);
                }
            }
            let driver = DriverReading {
                second,
                at: self.origin.elapsed(),
                process_cpu: crate::os::self_cpu(),
                sampler_cpu: crate::os::thread_cpu(),
                lag_max: Duration::from_micros(self.lag.swap(0, Relaxed)),
                missed: out.missed,
            };
            rows.push(series.driver(driver, &self.phase));
            out.rows.extend(rows.iter().cloned());
            (self.rows)(rows);
        }
    }

    /// Which nodes are ours to read `/proc` for: each node's pid (`_nodes/process`) matched
    /// with the process groups of the engine pids.
    async fn locals(&self) -> Locals {
        if self.engine_pids.is_empty() {
            return Locals::default();
        }
        let groups: Vec<(u32, Vec<u32>)> = self
            .engine_pids
            .iter()
            .map(|&pgid| {
                let members = crate::os::group_members(pgid);
                (
                    pgid,
                    if members.is_empty() {
                        vec![pgid]
                    } else {
                        members
                    },
                )
            })
            .collect();
        let mut locals = Locals::default();
        if let [(_, members)] = groups.as_slice() {
            locals.only = Some(members.clone());
        }
        let deadline = self.interval.max(Duration::from_secs(5));
        if let Ok(Ok(pids)) = tokio::time::timeout(deadline, self.target.node_pids()).await {
            for (name, pid) in pids {
                let group = crate::os::group_of(pid);
                if let Some((_, members)) = groups
                    .iter()
                    .find(|(pgid, members)| members.contains(&pid) || group == Some(*pgid))
                {
                    locals.by_name.insert(name, members.clone());
                }
            }
        }
        locals
    }
}

//! The query method of docs/architecture.md, for any workload's [`QueryPlan`]: one uncounted
//! warm-up pass, `passes` measurement passes each sending every (variant, transport,
//! coverage) task once in a seeded shuffle so variants interleave, caches off
//! (`request_cache=false`), optionally paced (`--rate`) or from several clients, optionally one
//! `profile: true` pass reported apart. A *coverage* is the group of searches a workload times
//! together (cluster-metrics: all nodes of one epoch; logs and queries files: one search).
//! Every answer goes to the plan's checker; request failures are counted per cell, never fatal.
//!
//! The workloads own their queries (`workload::cluster_metrics::queries`, `workload::logs::
//! queries`, `workload::queries_file`); this module owns scheduling, transports, cells,
//! sending and recording.

pub mod accuracy;
pub mod answer;
pub mod beside;
pub mod cells;
pub mod cold;
pub mod dialect;
pub mod plan;
pub mod report;
pub mod rewrites;
pub mod send;
pub mod shards;
pub mod sketch;
pub mod transport;
pub mod under_write;
pub mod variant;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

pub use accuracy::{Check, VariantAccuracy};
pub use answer::Answer;
pub use cells::{CellResult, CoverageSample};
pub use dialect::{Answerer, Dialect};
pub use plan::{Checker, Described, QueryPlan};
pub use report::QueryResult;
pub use rewrites::Rewrites;
pub use transport::Transport;
pub use variant::Variant;

use futures_util::StreamExt;

use crate::cancel::Cancel;
use crate::cluster::Target;
use crate::rng::Rng;
use send::{Endpoints, Prepared};
use under_write::Side;

/// The most time slices a workload's queries may cut (`--slices`, a queries file's
/// `time_slices.slices`).
pub const MAX_SLICES: u64 = 10_000;

/// Errors that stop a query run before it measures anything.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("the workload gave nothing to query (no coverages: an empty truth or corpus)")]
    NoTruth,
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Target(#[from] crate::cluster::TargetError),
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
}

/// Where the query phase says what it is doing: a line at a time, to whoever listens.
#[derive(Clone, Default)]
pub struct Progress(Option<std::sync::Arc<SayLine>>);

type SayLine = dyn Fn(&str) + Send + Sync;

impl Progress {
    pub fn new(say: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Progress(Some(std::sync::Arc::new(say)))
    }

    pub fn say(&self, line: &str) {
        if let Some(say) = &self.0 {
            say(line);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(on)"
        } else {
            "Progress(off)"
        })
    }
}

/// How to run a query plan.
#[derive(Debug, Clone)]
pub struct QueryOptions {
    pub index: String,
    /// The variants to measure, by name (any case); empty: all of the plan's.
    pub variants: Vec<Variant>,
    /// Empty: the plan's default transports.
    pub transports: Vec<Transport>,
    /// Measurement passes (each runs every task once).
    pub passes: u32,
    /// Run one uncounted warm-up pass first.
    pub warmup: bool,
    /// Seed of the task shuffle.
    pub shuffle_seed: u64,
    /// Run one extra pass with `profile: true`, reported apart.
    pub profile: bool,
    /// Run one more pass last, each coverage after the index was closed, the OS page cache
    /// dropped and the index opened again (see [`cold`]), reported apart beside the warm
    /// figures. Whether it can run here is the caller's to check ([`cold::refused`]).
    pub cold: bool,
    /// The index at each shard count (`--shards`), measured in the same passes: every task
    /// runs on each; empty: `index` alone.
    pub shards: Vec<shards::AtShards>,
    /// Coverages per second; latency then counts from the scheduled start.
    pub rate: Option<f64>,
    /// Search clients of the measurement passes: up to this many coverages in flight, taken
    /// in the shuffled order (1: one after another, the method's default).
    pub clients: usize,
    /// This run is part I of N of one run (`--part`): it measures its share of each variant's
    /// coverages (`[(I-1)·C/N, I·C/N)`), the other parts the rest.
    pub part: crate::corpus::part::Part,
    /// The run the parts belong to (`--group`), kept with the run.
    pub group: Option<String>,
    /// Compare answers with the truth (off only for sinks that answer nonsense).
    pub check: bool,
    /// Where to say what the phase is doing (warm-up, passes); nowhere by default.
    pub progress: Progress,
    /// Stops the method between coverages (Ctrl-C): what was measured is kept, marked
    /// interrupted. Never fires by default.
    pub cancel: Cancel,
    /// Writes beside the passes to pause for half of each (`--beside-idle`): every pass then
    /// runs idle and under write (see [`under_write`]), the halves under write measured into
    /// cells of their own. `None`: each pass runs once, as the index is.
    pub writes: Option<under_write::WriteSwitch>,
}

/// `config` (a query run's stored configuration) with its part and group, when it has them:
/// what `results merge` finds the parts of a group by.
pub fn with_part(mut config: serde_json::Value, options: &QueryOptions) -> serde_json::Value {
    if let Some(map) = config.as_object_mut() {
        if !options.part.is_whole() {
            map.insert("part".into(), options.part.to_string().into());
        }
        if let Some(group) = &options.group {
            map.insert("group".into(), group.clone().into());
        }
    }
    config
}

/// `config` with the cold pass and the shard counts, when the run has them: left out
/// otherwise, so that a run without them is the configuration it was before they existed.
pub fn with_axes(config: &mut serde_json::Value, options: &QueryOptions, shards: &[u32]) {
    if let Some(map) = config.as_object_mut() {
        if options.cold {
            map.insert("cold".into(), true.into());
        }
        if !shards.is_empty() {
            map.insert("shards".into(), shards.into());
        }
    }
}

impl QueryOptions {
    pub fn new(index: impl Into<String>) -> Self {
        QueryOptions {
            index: index.into(),
            variants: Vec::new(),
            transports: Vec::new(),
            passes: 3,
            warmup: true,
            shuffle_seed: 1,
            profile: false,
            cold: false,
            shards: Vec::new(),
            rate: None,
            clients: 1,
            part: crate::corpus::part::Part::WHOLE,
            group: None,
            check: true,
            progress: Progress::default(),
            cancel: Cancel::never(),
            writes: None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Task {
    variant: usize,
    transport: Transport,
    coverage: usize,
    /// Which of the endpoints (one per shard count, else one).
    at: usize,
}

/// A cell's key while running: variant, transport and endpoint.
type CellKey = (usize, Transport, usize);

/// Samples of one (variant, transport) cell while running.
struct Cell {
    samples: Vec<CoverageSample>,
    errors: u64,
    error_examples: Vec<String>,
    error_kinds: Vec<cells::ErrorKind>,
    service: Histogram<u64>,
    latency: Histogram<u64>,
    overhead: Histogram<u64>,
}

impl Cell {
    fn new() -> Self {
        let h = || Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("static bounds");
        Cell {
            samples: Vec::new(),
            errors: 0,
            error_examples: Vec::new(),
            error_kinds: Vec::new(),
            service: h(),
            latency: h(),
            overhead: h(),
        }
    }
}

/// The options with the plan's defaults filled in and its variants by their own names, or
/// why they cannot run.
fn resolve(plan: &dyn QueryPlan, options: &QueryOptions) -> Result<QueryOptions, QueryError> {
    let mut known = plan.variants();
    let mut resolved = options.clone();
    if options.variants.is_empty() {
        resolved.variants = known.clone();
    } else {
        known.extend(plan.named_only());
        resolved.variants = options
            .variants
            .iter()
            .map(|v| {
                Variant::find_in(&known, v.name()).ok_or_else(|| {
                    QueryError::Invalid(crate::suggest::unknown(
                        &format!("{} variant", plan.workload()),
                        v.name(),
                        known.iter().map(Variant::name),
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
    }
    if options.transports.is_empty() {
        resolved.transports = plan.default_transports();
    }
    if resolved.variants.is_empty() || resolved.transports.is_empty() {
        return Err(QueryError::Invalid(
            "at least one variant and one transport are needed".into(),
        ));
    }
    if let Some(r) = options.rate {
        if !(r.is_finite() && r > 0.0) {
            return Err(QueryError::Invalid(
                "--rate must be a positive number".into(),
            ));
        }
    }
    Ok(resolved)
}

/// What the measurement loop gave, before the workload adds its derived figures.
pub(crate) struct Measured {
    pub cells: Vec<CellResult>,
    pub profile_cells: Vec<CellResult>,
    pub cold_cells: Vec<CellResult>,
    pub cold: Option<cold::ColdSummary>,
    /// The halves of the passes run under write (`QueryOptions::writes`).
    pub write_cells: Vec<CellResult>,
    pub failures: Vec<String>,
    pub failures_total: u64,
    pub warmup_coverages: u64,
    /// When the measurement passes began (after the warm-up pass, when there was one).
    pub passes_started: Option<Instant>,
    pub measured: Duration,
    /// Stopped by `options.cancel` before every pass was done.
    pub interrupted: bool,
}

/// Runs `plan` on `target` with `options` (empty variants or transports: the plan's) and
/// checks every answer with the plan's checker (unless `options.check` is off).
pub async fn run(
    plan: &dyn QueryPlan,
    target: &Target,
    options: &QueryOptions,
) -> Result<QueryResult, QueryError> {
    let options = resolve(plan, options)?;
    if plan.coverages() == 0 {
        return Err(QueryError::NoTruth);
    }
    let mut checker = plan.checker(&options.variants, options.check, &options.progress)?;
    let prepare = |profile: bool| -> Vec<Vec<Prepared>> {
        options
            .variants
            .iter()
            .map(|v| {
                (0..plan.coverages_of(v))
                    .map(|c| {
                        Prepared::from_bodies(
                            plan.dialect(),
                            plan.coverage_label(c),
                            plan.bodies(v, c, profile),
                        )
                    })
                    .collect()
            })
            .collect()
    };
    let check = |task: &Task, cov: &send::Coverage| {
        let mut local = Vec::new();
        checker.check(task.variant, task.coverage, &cov.answers, &mut local);
        local
    };
    let endpoints: Vec<Endpoints> = if options.shards.is_empty() {
        vec![Endpoints::new(plan.dialect(), target, &options.index)]
    } else {
        options
            .shards
            .iter()
            .map(|a| Endpoints::new(plan.dialect(), target, &a.index))
            .collect()
    };
    let measured = measure(target, &endpoints, &options, prepare, check).await;
    let accuracy = checker.rows();
    Ok(report::assemble(plan, &options, measured, accuracy))
}

/// The loop of the method: one uncounted warm-up pass, `passes` shuffled measurement passes
/// (optionally paced), an optional profile pass. Every (variant, transport, coverage) is one
/// task; `prepare(profile)` gives the requests per variant (in `options.variants` order) and
/// coverage; `check` returns the wrong answers of one coverage as sentences (called only
/// when `options.check`).
async fn measure<P, C>(
    target: &Target,
    endpoints: &[Endpoints],
    options: &QueryOptions,
    prepare: P,
    mut check: C,
) -> Measured
where
    P: Fn(bool) -> Vec<Vec<Prepared>>,
    C: FnMut(&Task, &send::Coverage) -> Vec<String>,
{
    let client = target;
    let prepared = prepare(false);
    let mut tasks = Vec::new();
    for (variant, coverages) in prepared.iter().enumerate() {
        let (from, to) = options.part.share(coverages.len() as u64);
        for at in 0..endpoints.len() {
            for &transport in &options.transports {
                for coverage in from as usize..to as usize {
                    tasks.push(Task {
                        variant,
                        transport,
                        coverage,
                        at,
                    });
                }
            }
        }
    }
    let mut rng = Rng::new(options.shuffle_seed, 0x9e57);
    // Each distinct wrong answer once, with how often it came (the same slice is wrong in the
    // warm-up, in every pass and on every transport): a list of the same line four times
    // hides the other wrong answers behind it.
    let mut failures: Vec<(String, u64)> = Vec::new();
    let mut failures_total = 0u64;
    let mut check = |task: &Task, cov: &send::Coverage, failures: &mut Vec<(String, u64)>| {
        if !options.check {
            return 0u64;
        }
        let local = check(task, cov);
        let n = local.len() as u64;
        for f in local {
            match failures.iter().position(|(seen, _)| *seen == f) {
                Some(at) => failures[at].1 += 1,
                None if failures.len() < 50 => failures.push((f, 1)),
                None => {}
            }
        }
        n
    };

    let say = |msg: String| options.progress.say(&msg);
    let started = Instant::now();
    let cancel = &options.cancel;
    let mut warmup_coverages = 0;
    if options.warmup {
        say(format!("warm-up: {} coverages (not counted)", tasks.len()));
        let mut order = tasks.clone();
        rng.shuffle(&mut order);
        for task in &order {
            if cancel.is_cancelled() {
                break;
            }
            let p = &prepared[task.variant][task.coverage];
            let cov = send::coverage(client, &endpoints[task.at], p, task.transport).await;
            failures_total += check(task, &cov, &mut failures);
            warmup_coverages += 1;
        }
    }

    let passes_started = options.warmup.then(Instant::now);
    let mut cells: BTreeMap<CellKey, Cell> = BTreeMap::new();
    let mut write_cells: BTreeMap<CellKey, Cell> = BTreeMap::new();
    // The halves under write and the settling around them: not the idle cells' time.
    let mut aside = Duration::ZERO;
    let paced = || {
        options
            .rate
            .map(|r| crate::measure::Schedule::new(r, Instant::now()))
    };
    let mut schedule = paced();
    'passes: for pass in 1..=options.passes {
        let sides = match &options.writes {
            Some(_) => under_write::halves(pass).to_vec(),
            None => vec![Side::Idle],
        };
        for side in sides {
            if cancel.is_cancelled() {
                break 'passes;
            }
            let half = Instant::now();
            if let Some(switch) = &options.writes {
                switch.set(side == Side::UnderWrite);
                tokio::select! {
                    () = tokio::time::sleep(under_write::SETTLE) => {}
                    () = cancel.cancelled() => break 'passes,
                }
                // A paced half's schedule starts after the settling.
                schedule = paced();
                aside += half.elapsed();
            }
            let half = Instant::now();
            say(format!(
                "pass {pass}/{}{}: {} coverages",
                options.passes,
                match (&options.writes, side) {
                    (None, _) => "",
                    (Some(_), Side::Idle) => ", idle",
                    (Some(_), Side::UnderWrite) => ", under write",
                },
                tasks.len()
            ));
            let into = match side {
                Side::Idle => &mut cells,
                Side::UnderWrite => &mut write_cells,
            };
            let mut order = tasks.clone();
            rng.shuffle(&mut order);
            // Each client takes the next task of the shuffled order when it is free (with
            // --rate, its due time is fixed when it is taken); answers are checked and
            // recorded as they come back. One client is the strictly serial method.
            let endpoints = &endpoints;
            let schedule = schedule.as_ref();
            let prepared = &prepared;
            // A cancel stops taking tasks; those in flight are awaited and recorded.
            let mut in_flight = futures_util::stream::iter(order)
                .take_while(|_| std::future::ready(!cancel.is_cancelled()))
                .map(|task| {
                    let scheduled = schedule.map(|s| s.next(1));
                    async move {
                        if let Some(at) = scheduled {
                            tokio::select! {
                                () = tokio::time::sleep_until(at.into()) => {}
                                () = cancel.cancelled() => return None,
                            }
                        }
                        let begin = Instant::now();
                        let p = &prepared[task.variant][task.coverage];
                        let cov =
                            send::coverage(client, &endpoints[task.at], p, task.transport).await;
                        Some((task, p.epoch, cov, begin, Instant::now(), scheduled))
                    }
                })
                .buffer_unordered(options.clients.max(1));
            while let Some(done) = in_flight.next().await {
                // A task still waiting for its due time when the cancel came was never sent.
                let Some((task, epoch, cov, begin, end, scheduled)) = done else {
                    continue;
                };
                failures_total += check(&task, &cov, &mut failures);
                let cell = into
                    .entry((task.variant, task.transport, task.at))
                    .or_insert_with(Cell::new);
                record(cell, pass, epoch, &cov, begin, end, scheduled);
            }
            if side == Side::UnderWrite {
                aside += half.elapsed();
            }
        }
    }
    // What follows the passes (the profile pass) runs as without the pauses: writes beside.
    if let Some(switch) = &options.writes {
        switch.set(true);
    }
    let measured = started.elapsed().saturating_sub(aside);

    let mut profile_cells: BTreeMap<CellKey, Cell> = BTreeMap::new();
    if options.profile && !cancel.is_cancelled() {
        say(format!("profile pass: {} coverages", tasks.len()));
        let profiled = prepare(true);
        let mut order = tasks.clone();
        rng.shuffle(&mut order);
        for task in &order {
            if cancel.is_cancelled() {
                break;
            }
            let begin = Instant::now();
            let p = &profiled[task.variant][task.coverage];
            let cov = send::coverage(client, &endpoints[task.at], p, task.transport).await;
            let end = Instant::now();
            failures_total += check(task, &cov, &mut failures);
            let cell = profile_cells
                .entry((task.variant, task.transport, task.at))
                .or_insert_with(Cell::new);
            record(cell, 0, p.epoch, &cov, begin, end, None);
        }
    }

    let mut cold_cells: BTreeMap<CellKey, Cell> = BTreeMap::new();
    let mut cold = None;
    if options.cold && !cancel.is_cancelled() {
        say(format!(
            "cold pass: {} coverages, each after closing the index, dropping the OS page \
             cache and opening the index again",
            tasks.len()
        ));
        // A cold pass that cannot run or stops is a failure of the run, said first.
        let failed = |why: String| (format!("cold pass: {why}"), 1u64);
        match cold::Chiller::new(client, &options.index).await {
            Err(e) => {
                failures.insert(0, failed(e));
                failures_total += 1;
            }
            Ok(chiller) => {
                let mut summary = chiller.summary();
                let mut order = tasks.clone();
                rng.shuffle(&mut order);
                for task in &order {
                    if cancel.is_cancelled() {
                        break;
                    }
                    match chiller.chill(client).await {
                        Ok(chilled) => summary.add(&chilled),
                        Err(e) => {
                            failures.insert(0, failed(format!("stopped: {e}")));
                            failures_total += 1;
                            break;
                        }
                    }
                    let begin = Instant::now();
                    let p = &prepared[task.variant][task.coverage];
                    let cov = send::coverage(client, &endpoints[task.at], p, task.transport).await;
                    let end = Instant::now();
                    failures_total += check(task, &cov, &mut failures);
                    let cell = cold_cells
                        .entry((task.variant, task.transport, task.at))
                        .or_insert_with(Cell::new);
                    record(cell, 0, p.epoch, &cov, begin, end, None);
                }
                cold = Some(summary);
            }
        }
    }

    let finish = |cells: BTreeMap<CellKey, Cell>| -> Vec<CellResult> {
        cells
            .into_iter()
            .map(|((v, t, at), c)| {
                let mut cell = cells::cell_result(
                    options.variants[v].clone(),
                    t,
                    c.samples,
                    c.errors,
                    c.error_examples,
                    c.error_kinds,
                    &c.service,
                    &c.latency,
                    &c.overhead,
                    options.rate.is_some(),
                );
                cell.shards = options.shards.get(at).map(|a| a.shards);
                cell
            })
            .collect()
    };
    Measured {
        cells: finish(cells),
        profile_cells: finish(profile_cells),
        cold_cells: finish(cold_cells),
        cold,
        write_cells: finish(write_cells),
        failures: failures
            .into_iter()
            .map(|(f, times)| match times {
                1 => f,
                n => format!("{n}× {f}"),
            })
            .collect(),
        failures_total,
        warmup_coverages,
        passes_started,
        measured,
        interrupted: cancel.is_cancelled(),
    }
}

fn record(
    cell: &mut Cell,
    pass: u32,
    epoch: u64,
    cov: &send::Coverage,
    begin: Instant,
    end: Instant,
    scheduled: Option<Instant>,
) {
    let service = end.duration_since(begin);
    let latency = scheduled.map_or(service, |s| end.duration_since(s));
    let errors = cov.errors.len() as u64;
    cell.errors += errors;
    for e in &cov.errors {
        if cell.error_examples.len() < 5 {
            cell.error_examples.push(e.clone());
        }
    }
    cells::count_error_kinds(&mut cell.error_kinds, &cov.errors);
    for &o in &cov.overhead_us {
        let _ = cell.overhead.record(o.max(1));
    }
    let ok = errors == 0;
    if ok {
        let _ = cell.service.record((cov.wall.as_micros() as u64).max(1));
        let _ = cell.latency.record((latency.as_micros() as u64).max(1));
    }
    cell.samples.push(CoverageSample {
        pass,
        epoch,
        ok,
        errors,
        took_ms: cov.took_ms,
        wall_ms: cov.wall.as_secs_f64() * 1e3,
        latency_ms: latency.as_secs_f64() * 1e3,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_cold_or_shards_keeps_the_configuration_it_had_before_them() {
        let before = serde_json::json!({"workload": "cluster-metrics", "passes": 3});
        let mut config = before.clone();
        let mut options = QueryOptions::new("metrics");
        with_axes(&mut config, &options, &[]);
        assert_eq!(config, before);
        options.cold = true;
        with_axes(&mut config, &options, &[1, 2, 4]);
        assert_eq!(config["cold"], true);
        assert_eq!(config["shards"], serde_json::json!([1, 2, 4]));
    }
}

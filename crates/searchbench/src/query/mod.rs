//! Query workloads measured with the query method of docs/architecture.md, automatically, with accuracy checks.
//!
//! For `cluster-metrics`: the production query (`bool.filter` on node + epoch, 3× sum,
//! 3× percentiles) is decomposed into variants ([`Variant`]: A filter only, B sums, C_td/C_hdr
//! percentiles, D_td production, D_hdr) and sent over two transports ([`Transport`]: one
//! `_search` per node, or one `_msearch` per epoch). A *coverage* is all nodes of one epoch.
//!
//! Method ([`run_cluster_metrics`]): one full warm-up pass (not counted), then `passes`
//! measurement passes, each with every (variant, transport, epoch) task once, shuffled with a
//! seeded RNG so variants interleave; caches off (`request_cache=false`). Optionally one
//! `profile: true` pass, reported apart. Every answer is checked against the ground truth
//! ([`accuracy`]). Request failures are counted per cell, never fatal.
//!
//! For `logs` ([`run_logs`], [`logs`]): typical log searches (range + terms, per-minute
//! histogram, `match` on `message`, top hosts), each with `size: 0` and `size: 10`, one search
//! per time slice, measured by the same loop and checked against a truth recomputed from the
//! generator spec.

pub mod accuracy;
pub mod answer;
pub mod beside;
pub mod cells;
pub mod custom;
pub mod logs;
pub mod plan;
pub mod report;
pub mod send;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

pub use accuracy::{Truth, VariantAccuracy};
pub use cells::{CellResult, CoverageSample};
pub use logs::{LogsQueryOptions, LogsTruth};
pub use plan::{Algo, LogsQuery, Transport, Variant};
pub use report::QueryResult;

use futures_util::StreamExt;

use crate::cluster::Target;
use crate::corpus::LogsSpec;
use crate::rng::Rng;
use send::{Endpoints, Prepared};

/// Errors that stop a query run before it measures anything.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("the ground truth has no partitions: nothing to query")]
    NoTruth,
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Target(#[from] crate::cluster::TargetError),
    #[error(transparent)]
    Corpus(#[from] crate::corpus::CorpusError),
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

/// How to run the query workload.
#[derive(Debug, Clone)]
pub struct QueryOptions {
    pub index: String,
    pub variants: Vec<Variant>,
    pub transports: Vec<Transport>,
    /// Measurement passes (each runs every task once).
    pub passes: u32,
    /// Run one uncounted warm-up pass first.
    pub warmup: bool,
    /// Seed of the task shuffle.
    pub shuffle_seed: u64,
    /// Run one extra pass with `profile: true`, reported apart.
    pub profile: bool,
    /// Coverages per second; latency then counts from the scheduled start.
    pub rate: Option<f64>,
    /// Search clients of the measurement passes: up to this many coverages in flight, taken
    /// in the shuffled order (1: one after another, the method's default).
    pub clients: usize,
    /// Compare answers with the truth (off only for sinks that answer nonsense).
    pub check: bool,
    /// Where to say what the phase is doing (warm-up, passes); nowhere by default.
    pub progress: Progress,
    /// Stops the method between coverages (Ctrl-C): what was measured is kept, marked
    /// interrupted. Never fires by default.
    pub cancel: crate::ingest::control::Cancel,
}

impl QueryOptions {
    pub fn new(index: impl Into<String>) -> Self {
        QueryOptions {
            index: index.into(),
            variants: Variant::ALL.to_vec(),
            transports: Transport::ALL.to_vec(),
            passes: 3,
            warmup: true,
            shuffle_seed: 1,
            profile: false,
            rate: None,
            clients: 1,
            check: true,
            progress: Progress::default(),
            cancel: crate::ingest::control::Cancel::never(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Task {
    variant: usize,
    transport: Transport,
    coverage: usize,
}

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

fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

/// Checks the options every workload shares; `allowed` are the workload's variants.
fn validate(options: &QueryOptions, allowed: &[Variant]) -> Result<(), QueryError> {
    if options.variants.is_empty() || options.transports.is_empty() {
        return Err(QueryError::Invalid(
            "at least one variant and one transport are needed".into(),
        ));
    }
    if let Some(v) = options.variants.iter().find(|v| !allowed.contains(v)) {
        return Err(QueryError::Invalid(format!(
            "variant {} does not belong to this workload",
            v.name()
        )));
    }
    if let Some(r) = options.rate {
        if !(r.is_finite() && r > 0.0) {
            return Err(QueryError::Invalid(
                "--rate must be a positive number".into(),
            ));
        }
    }
    Ok(())
}

/// What the measurement loop gave, before the workload adds its derived figures.
pub(crate) struct Measured {
    pub cells: Vec<CellResult>,
    pub profile_cells: Vec<CellResult>,
    pub failures: Vec<String>,
    pub failures_total: u64,
    pub warmup_coverages: u64,
    pub measured: Duration,
    /// Stopped by `options.cancel` before every pass was done.
    pub interrupted: bool,
}

/// The query method (docs/architecture.md), shared by every query workload: one uncounted warm-up pass,
/// `passes` shuffled measurement passes (optionally paced), an optional profile pass. Every
/// (variant, transport, coverage) is one task; `prepare(profile)` gives the requests per
/// variant (in `options.variants` order) and coverage; `check` returns the wrong answers of
/// one coverage as sentences (called only when `options.check`).
async fn measure<P, C>(
    target: &Target,
    options: &QueryOptions,
    prepare: P,
    mut check: C,
) -> Measured
where
    P: Fn(bool) -> Vec<Vec<Prepared>>,
    C: FnMut(&Task, &send::Coverage) -> Vec<String>,
{
    let endpoints = Endpoints::new(target, &options.index);
    let client = target;
    let prepared = prepare(false);
    let mut tasks = Vec::new();
    for (variant, coverages) in prepared.iter().enumerate() {
        for &transport in &options.transports {
            for coverage in 0..coverages.len() {
                tasks.push(Task {
                    variant,
                    transport,
                    coverage,
                });
            }
        }
    }
    let mut rng = Rng::new(options.shuffle_seed, 0x9e57);
    let mut failures = Vec::new();
    let mut failures_total = 0u64;
    let mut check = |task: &Task, cov: &send::Coverage, failures: &mut Vec<String>| {
        if !options.check {
            return 0u64;
        }
        let local = check(task, cov);
        let n = local.len() as u64;
        for f in local {
            if failures.len() < 50 {
                failures.push(f);
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
        shuffle(&mut order, &mut rng);
        for task in &order {
            if cancel.is_cancelled() {
                break;
            }
            let p = &prepared[task.variant][task.coverage];
            let cov = send::coverage(client, &endpoints, p, task.transport).await;
            failures_total += check(task, &cov, &mut failures);
            warmup_coverages += 1;
        }
    }

    let mut cells: BTreeMap<(usize, Transport), Cell> = BTreeMap::new();
    let schedule = options
        .rate
        .map(|r| crate::measure::Schedule::new(r, Instant::now()));
    for pass in 1..=options.passes {
        if cancel.is_cancelled() {
            break;
        }
        say(format!(
            "pass {pass}/{}: {} coverages",
            options.passes,
            tasks.len()
        ));
        let mut order = tasks.clone();
        shuffle(&mut order, &mut rng);
        // Each client takes the next task of the shuffled order when it is free (with --rate,
        // its due time is fixed when it is taken); answers are checked and recorded as they
        // come back. One client is the strictly serial method.
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
                    let cov = send::coverage(client, endpoints, p, task.transport).await;
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
            let cell = cells
                .entry((task.variant, task.transport))
                .or_insert_with(Cell::new);
            record(cell, pass, epoch, &cov, begin, end, scheduled);
        }
    }
    let measured = started.elapsed();

    let mut profile_cells: BTreeMap<(usize, Transport), Cell> = BTreeMap::new();
    if options.profile && !cancel.is_cancelled() {
        say(format!("profile pass: {} coverages", tasks.len()));
        let profiled = prepare(true);
        let mut order = tasks.clone();
        shuffle(&mut order, &mut rng);
        for task in &order {
            if cancel.is_cancelled() {
                break;
            }
            let begin = Instant::now();
            let p = &profiled[task.variant][task.coverage];
            let cov = send::coverage(client, &endpoints, p, task.transport).await;
            let end = Instant::now();
            failures_total += check(task, &cov, &mut failures);
            let cell = profile_cells
                .entry((task.variant, task.transport))
                .or_insert_with(Cell::new);
            record(cell, 0, p.epoch, &cov, begin, end, None);
        }
    }

    let finish = |cells: BTreeMap<(usize, Transport), Cell>| -> Vec<CellResult> {
        cells
            .into_iter()
            .map(|((v, t), c)| {
                cells::cell_result(
                    options.variants[v],
                    t,
                    c.samples,
                    c.errors,
                    c.error_examples,
                    c.error_kinds,
                    &c.service,
                    &c.latency,
                    &c.overhead,
                    options.rate.is_some(),
                )
            })
            .collect()
    };
    Measured {
        cells: finish(cells),
        profile_cells: finish(profile_cells),
        failures,
        failures_total,
        warmup_coverages,
        measured,
        interrupted: cancel.is_cancelled(),
    }
}

/// Runs the cluster-metrics query workload on `target` and checks every answer.
pub async fn run_cluster_metrics(
    target: &Target,
    truth: &Truth,
    options: &QueryOptions,
) -> Result<QueryResult, QueryError> {
    if truth.coverages.is_empty() {
        return Err(QueryError::NoTruth);
    }
    validate(options, &Variant::ALL)?;
    let prepare = |profile: bool| -> Vec<Vec<Prepared>> {
        options
            .variants
            .iter()
            .map(|&v| {
                truth
                    .coverages
                    .iter()
                    .map(|(epoch, nodes)| Prepared::new(v, *epoch, nodes, profile))
                    .collect()
            })
            .collect()
    };
    let mut accuracy: Vec<VariantAccuracy> = options
        .variants
        .iter()
        .map(|&v| VariantAccuracy::new(v))
        .collect();
    let check = |task: &Task, cov: &send::Coverage| {
        let (epoch, nodes) = &truth.coverages[task.coverage];
        let mut local = Vec::new();
        for (i, answer) in &cov.answers {
            if let Some(t) = nodes.get(*i).and_then(|n| truth.get(*epoch, n)) {
                accuracy::check(&mut accuracy[task.variant], t, answer, &mut local);
            }
        }
        local
    };
    let measured = measure(target, options, prepare, check).await;
    Ok(report::assemble(
        options,
        "cluster-metrics",
        truth.coverages.len(),
        truth.partitions(),
        measured,
        accuracy,
    ))
}

/// Runs the `logs` query workload on `target` (an index holding the corpus of `spec`) and,
/// unless `options.query.check` is off, checks every answer against the truth recomputed from
/// `spec`. A coverage is one search (one time slice).
pub async fn run_logs(
    target: &Target,
    spec: &LogsSpec,
    options: &LogsQueryOptions,
) -> Result<QueryResult, QueryError> {
    let q = &options.query;
    validate(q, &Variant::LOGS)?;
    if options.slices == 0 {
        return Err(QueryError::Invalid("--slices must be at least 1".into()));
    }
    let truth = if q.check {
        q.progress.say(&format!(
            "computing the ground truth of {} logs documents …",
            spec.docs
        ));
        Some(logs::compute_truth(spec, options.slices)?)
    } else {
        None
    };
    let slices = logs::slices(spec, options.slices);
    let prepare = |profile: bool| -> Vec<Vec<Prepared>> {
        q.variants
            .iter()
            .map(|&v| {
                slices
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        Prepared::from_bodies(v, i as u64, vec![logs::search_body(v, s, profile)])
                    })
                    .collect()
            })
            .collect()
    };
    let mut accuracy: Vec<VariantAccuracy> = q
        .variants
        .iter()
        .map(|&v| VariantAccuracy::new(v))
        .collect();
    let check = |task: &Task, cov: &send::Coverage| {
        let mut local = Vec::new();
        if let Some(truth) = &truth {
            for (_, answer) in &cov.answers {
                logs::check(
                    &mut accuracy[task.variant],
                    truth,
                    task.coverage,
                    answer,
                    &mut local,
                );
            }
        }
        local
    };
    let measured = measure(target, q, prepare, check).await;
    Ok(report::assemble(
        q,
        "logs",
        slices.len(),
        slices.len(),
        measured,
        accuracy,
    ))
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

/// A workload's query phase: what the index holds, so that every answer can be checked.
#[derive(Debug, Clone)]
pub enum QueryPlan {
    /// cluster-metrics: the exact per-(epoch, node) truth of what was loaded.
    ClusterMetrics(Truth),
    /// logs: the corpus spec (its truth is recomputed per time slice).
    Logs { spec: LogsSpec, slices: usize },
    /// The user's queries (named `workload` in the result), checked against their expected
    /// answers.
    Custom {
        workload: String,
        queries: Vec<custom::Resolved>,
    },
}

impl QueryPlan {
    /// The default method for this plan on `index`: every variant of the workload, and both
    /// transports where the workload has `_msearch` cells.
    pub fn default_options(&self, index: &str) -> QueryOptions {
        match self {
            QueryPlan::ClusterMetrics(_) => QueryOptions::new(index),
            QueryPlan::Logs { .. } => LogsQueryOptions::new(index).query,
            QueryPlan::Custom { queries, .. } => {
                let mut o = QueryOptions::new(index);
                o.variants = queries.iter().map(|q| q.variant).collect();
                o.transports = vec![Transport::Serial];
                o
            }
        }
    }

    /// Runs the plan with `options`.
    pub async fn run(
        &self,
        target: &Target,
        options: QueryOptions,
    ) -> Result<QueryResult, QueryError> {
        match self {
            QueryPlan::ClusterMetrics(truth) => run_cluster_metrics(target, truth, &options).await,
            QueryPlan::Logs { spec, slices } => {
                let options = LogsQueryOptions {
                    query: options,
                    slices: *slices,
                };
                run_logs(target, spec, &options).await
            }
            QueryPlan::Custom { workload, queries } => {
                custom::run(target, queries, &options, workload).await
            }
        }
    }
}

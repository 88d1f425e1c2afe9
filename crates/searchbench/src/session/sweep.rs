//! `searchbench sweep`: one engine, a grid of ingest configurations (bulk size × clients ×
//! settings), each cell loaded on a fresh index in a shuffled order, in rounds of repeats
//! until every cell's interval is tight enough; then the answer (see `analysis::sweep`).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::attach::Attach;
use super::ingest::{stored_load, LoadSpec};
use super::{ClusterSpec, Connected, Event, Job, Observer, SessionError};
use crate::analysis::sweep::{self, Cell, CellParams, Grid, RunFigures, SweepResult};
use crate::ingest::{self, IngestReport};
use crate::rng::Rng;
use crate::workload::WorkloadSpec;

/// What to sweep and how long to keep repeating.
#[derive(Debug, Clone)]
pub struct SweepSpec {
    pub workload: String,
    /// The corpus of every run (`docs` documents per run).
    pub workload_spec: WorkloadSpec,
    /// Index the runs load into (default: `<workload index>-sweep`), created and deleted by
    /// each run.
    pub index: Option<String>,
    pub grid: Grid,
    /// Target half-width, percent of the median.
    pub ci_pct: f64,
    pub min_repeats: usize,
    pub max_repeats: usize,
    pub order_seed: u64,
    /// The sweep's id, also the `sweep=<id>` tag of its runs (the caller puts it in the tags).
    pub id: String,
    /// Unmeasured runs before the first round.
    pub warmup_runs: usize,
    /// Size each cell's runs to last about this long: one unmeasured run of every cell
    /// (with `docs` documents) measures its rate first. `None`: every run loads `docs`.
    pub run_secs: Option<f64>,
    /// The load every cell starts from (warm-up, retries, cancel); the cell sets the rest.
    pub base: LoadSpec,
}

/// One finished run, told to the caller as it happens.
#[derive(Debug)]
pub struct Tick<'a> {
    pub round: usize,
    /// 1-based position in the round, and the round's length.
    pub position: usize,
    pub of: usize,
    pub cell: &'a Cell,
    pub run: &'a RunFigures,
}

/// Passes on what matters during a sweep (engine start, warnings), not each run's own lines.
struct Quiet<'a>(&'a dyn Observer);

impl Observer for Quiet<'_> {
    fn event(&self, event: Event<'_>) {
        match event {
            Event::Loading { .. }
            | Event::Progress(_)
            | Event::Ingested(_)
            | Event::Saved { .. }
            | Event::ReportWritten { .. } => {}
            other => self.0.event(other),
        }
    }
}

fn now_unix_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// A new sweep's id (its tag): the start time in hex milliseconds.
pub fn new_id() -> String {
    format!("{:x}", now_unix_millis())
}

/// A seed from the clock, for an order the user did not fix.
pub fn clock_seed() -> u64 {
    now_unix_millis() as u64
}

/// Checks the grid: every axis given has values, each sensible.
pub fn check_grid(grid: &Grid) -> Result<(), SessionError> {
    let bad = |m: String| Err(SessionError::usage(m));
    if grid.bulk_docs.is_empty() || grid.clients.is_empty() {
        return bad("a sweep needs --bulk-size and --clients values".into());
    }
    if grid.bulk_docs.contains(&0) {
        return bad("--bulk-size: 0 documents per request; use 1 or more".into());
    }
    if let Some(c) = grid.clients.iter().find(|&&c| c == 0 || c > 1024) {
        return bad(format!("--clients: {c} clients; use 1 to 1024"));
    }
    if grid.shards.contains(&0) {
        return bad("--shards: 0 shards; use 1 or more".into());
    }
    for r in &grid.refresh_interval {
        if r != "-1" && !is_time_value(r) {
            return bad(format!(
                "--refresh-interval: {r:?} is not an interval; use e.g. 1s, 30s, 500ms or -1 (off)"
            ));
        }
    }
    for d in &grid.translog_durability {
        if d != "request" && d != "async" {
            return bad(format!(
                "--translog-durability: {d:?}; use request or async"
            ));
        }
    }
    Ok(())
}

/// An index setting's time value: a number and a unit (`500ms`, `1s`, `30s`, `5m`, `1h`, `1d`).
fn is_time_value(s: &str) -> bool {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    !digits.is_empty() && matches!(unit, "ms" | "s" | "m" | "h" | "d" | "micros" | "nanos")
}

/// The workload's index body with `shards` primaries.
fn with_shards(mut body: Value, shards: Option<u32>) -> Value {
    let Some(n) = shards else {
        return body;
    };
    if !body.is_object() {
        body = serde_json::json!({});
    }
    let settings = &mut body["settings"];
    if let Some(map) = settings.as_object_mut() {
        map.remove("number_of_shards");
        map.remove("index.number_of_shards");
    }
    if !settings["index"].is_object() {
        settings["index"] = serde_json::json!({});
    }
    settings["index"]["number_of_shards"] = n.into();
    body
}

/// The load of one cell: the base with the cell's parameters.
fn cell_load(base: &LoadSpec, index: &str, p: &CellParams) -> LoadSpec {
    let mut load = base.clone();
    load.driver.index = index.to_string();
    load.driver.bulk_docs = p.bulk_docs;
    load.driver.clients = p.clients;
    load.driver.bulk_bytes = p.bulk_bytes;
    if let Some(g) = p.gzip {
        load.driver.gzip = g;
    }
    if p.refresh_interval.is_some() {
        load.load_settings.refresh_interval = p.refresh_interval.clone();
    }
    if p.translog_durability.is_some() {
        load.load_settings.translog_durability = p.translog_durability.clone();
    }
    if p.replicas.is_some() {
        load.load_settings.replicas = p.replicas;
    }
    load
}

/// What one run showed, as the sweep keeps it.
fn figures(report: &IngestReport, run_id: Option<String>) -> RunFigures {
    let indexed = report.counts.indexed;
    let per_doc = |secs: f64| (indexed > 0).then(|| secs * 1e6 / indexed as f64);
    let error = if report.interrupted {
        Some("interrupted".to_string())
    } else if let Some(e) = &report.error {
        Some(e.clone())
    } else if !report.counts.reconciled {
        Some("counts do not reconcile".into())
    } else {
        None
    };
    RunFigures {
        run_id,
        docs_per_sec: report.docs_per_sec,
        service_p50_ms: report.service.p50_ms,
        service_p99_ms: report.service.p99_ms,
        throttled: report.counts.throttled,
        pushback: report.requests.failed_attempts + report.counts.retried_items,
        failed_docs: report.counts.failed,
        error,
        engine_cpu_us_per_doc: report.cpu.engine_secs.and_then(per_doc),
        driver_cpu_us_per_doc: per_doc(report.cpu.driver_secs),
        driver_machine_share: report.cpu.driver_machine_share,
        wall_secs: report.wall_secs,
        searchable_p99_s: report.freshness.as_ref().and_then(|f| f.p99_secs),
        not_searchable_pct: report.freshness.as_ref().and_then(|f| f.unseen_pct()),
    }
}

/// A run that could not start its load (the index could not be set up, the target went).
fn failed_run(error: &SessionError, run_id: Option<String>) -> RunFigures {
    RunFigures {
        run_id,
        docs_per_sec: 0.0,
        service_p50_ms: None,
        service_p99_ms: None,
        throttled: 0,
        pushback: 0,
        failed_docs: 0,
        error: Some(crate::cluster::error_chain(error)),
        engine_cpu_us_per_doc: None,
        driver_cpu_us_per_doc: None,
        driver_machine_share: 0.0,
        wall_secs: 0.0,
        searchable_p99_s: None,
        not_searchable_pct: None,
    }
}

/// Sizing runs a cell gets at most before its measured runs start.
const MAX_SIZING_RUNS: usize = 3;

/// Documents per second of a whole run, warm-up included: what sets how long a run lasts.
fn whole_run_rate(report: &IngestReport) -> f64 {
    if report.wall_secs > 0.0 {
        report.counts.indexed as f64 / report.wall_secs
    } else {
        f64::NAN
    }
}

/// A sizing run of `ran` documents that says `next`: close enough (within a quarter) to keep.
fn settled(ran: u64, next: u64) -> bool {
    let (a, b) = (ran.max(1) as f64, next.max(1) as f64);
    (a / b).max(b / a) <= 1.25
}

/// Documents for a run of about `secs` at `rate` docs/s: whole waves of `wave` documents
/// (one request per client), two waves at least.
fn sized_docs(rate: f64, secs: f64, wave: u64) -> u64 {
    let wave = wave.max(1);
    let want = if rate.is_finite() { rate * secs } else { 0.0 };
    let waves = (want / wave as f64).round().max(2.0) as u64;
    waves.saturating_mul(wave)
}

/// `0..n` shuffled by `rng` (Fisher–Yates).
fn shuffled(mut items: Vec<usize>, rng: &mut Rng) -> Vec<usize> {
    rng.shuffle(&mut items);
    items
}

/// Runs the sweep on one cluster (started once, or given). `each` hears every finished run.
/// A Ctrl-C (the base load's cancel) stops it: the cells keep the runs that finished, and
/// the result says `interrupted`.
pub async fn sweep(
    spec: &SweepSpec,
    cluster: &ClusterSpec,
    attach: &Attach,
    observer: &dyn Observer,
    mut each: impl FnMut(&Tick<'_>),
) -> Result<SweepResult, SessionError> {
    check_grid(&spec.grid)?;
    // Resolve the workload before anything starts (a bad name is bad usage).
    let probe = Job::generated(&spec.workload, &spec.workload_spec, spec.index.clone(), &[])?;
    let index = spec
        .index
        .clone()
        .unwrap_or_else(|| format!("{}-sweep", probe.index));
    super::ingest::preflight(&index, &spec.base)?;
    drop(probe);
    let started = Instant::now();
    let started_unix = (now_unix_millis() / 1000) as u64;
    let quiet = Quiet(observer);
    let (target_url, outcome) =
        super::lifecycle::with_cluster(cluster, &quiet, async |connected| {
            let target_url = connected.target.url().to_string();
            let outcome =
                run_grid(spec, cluster, connected, &index, attach, &quiet, &mut each).await;
            Ok::<_, SessionError>((target_url, outcome))
        })
        .await?;
    let (cells, rounds, interrupted, mut warnings, product) = outcome?;
    let answer = sweep::answer(&cells, &rounds);
    let drift = sweep::drift(&cells, &rounds);
    if let Some(d) = drift.filter(|d| d.pct.abs() >= (2.0 * spec.ci_pct).max(10.0)) {
        warnings.push(format!(
            "throughput drifted {:+.0} % from the first third of the runs to the last (each run \
             against its own cell's median; the shuffled rounds spread it over every cell): the \
             machine or the engine changed while the sweep ran, which widens every interval; \
             a quieter machine would tighten them",
            d.pct
        ));
    }
    Ok(SweepResult {
        id: spec.id.clone(),
        workload: spec.workload.clone(),
        docs_per_run: spec.workload_spec.docs.unwrap_or(0),
        run_secs: spec.run_secs,
        seed: spec.workload_spec.seed,
        engine: cluster.engine_name().map(str::to_string),
        target_url,
        product: product.as_ref().map(|p| p.0.clone()),
        engine_version: product.map(|p| p.1),
        grid: spec.grid.clone(),
        ci_pct: spec.ci_pct,
        min_repeats: spec.min_repeats,
        max_repeats: spec.max_repeats,
        order_seed: spec.order_seed,
        warmup_secs: spec.base.driver.warmup.as_secs_f64(),
        warmup_runs: spec.warmup_runs,
        rounds,
        cells,
        answer,
        started_unix,
        wall_secs: started.elapsed().as_secs_f64(),
        interrupted,
        drift,
        warnings,
    })
}

type Grown = (
    Vec<Cell>,
    Vec<Vec<usize>>,
    bool,
    Vec<String>,
    Option<(String, String)>,
);

async fn run_grid(
    spec: &SweepSpec,
    cluster: &ClusterSpec,
    connected: &Connected,
    index: &str,
    attach: &Attach,
    observer: &dyn Observer,
    each: &mut impl FnMut(&Tick<'_>),
) -> Result<Grown, SessionError> {
    let mut cells: Vec<Cell> = spec.grid.cells().into_iter().map(Cell::new).collect();
    let mut rounds = Vec::new();
    let mut warnings = Vec::new();
    let mut product = None;
    let cancelled = || spec.base.cancel.as_ref().is_some_and(|c| c.is_cancelled());
    let job_for = |params: &CellParams, docs: u64| -> Result<Job, SessionError> {
        let mut workload = spec.workload_spec.clone();
        workload.docs = Some(docs);
        let mut job = Job::generated(&spec.workload, &workload, Some(index.to_string()), &[])?;
        job.index_body = with_shards(job.index_body, params.shards);
        Ok(job)
    };
    let docs = spec.workload_spec.docs.unwrap_or(0);
    // An unmeasured run of a cell with `docs` documents, its index deleted after it.
    let unmeasured = |params: &CellParams| {
        Ok::<_, SessionError>((job_for(params, docs)?, cell_load(&spec.base, index, params)))
    };
    for cell in &mut cells {
        cell.docs_per_run = docs;
    }
    // Warm the engine's JVM with the likely fastest cell: largest requests, most clients.
    if let Some(warm) = cells
        .iter()
        .map(|c| &c.params)
        .max_by_key(|p| (p.bulk_docs, p.clients))
        .cloned()
    {
        for _ in 0..spec.warmup_runs {
            let (job, load) = unmeasured(&warm)?;
            let report = load_unmeasured(connected, job, load, observer, &mut warnings).await?;
            if report.interrupted {
                return Ok((cells, rounds, true, warnings, product));
            }
        }
    }
    // Sizing: unmeasured runs of each cell until its run length settles (a cell first run
    // while the node is still cold would otherwise be sized from a rate it never shows
    // again), then each cell's runs last about the warm-up plus `run_secs`.
    if let Some(secs) = spec.run_secs {
        let order = shuffled(
            (0..cells.len()).collect(),
            &mut Rng::new(spec.order_seed, 0),
        );
        let target = secs + spec.base.driver.warmup.as_secs_f64();
        for i in order {
            let params = cells[i].params.clone();
            let wave = (params.bulk_docs * params.clients) as u64;
            let mut size = docs;
            for _ in 0..MAX_SIZING_RUNS {
                if cancelled() {
                    return Ok((cells, rounds, true, warnings, product));
                }
                let load = cell_load(&spec.base, index, &params);
                let job = job_for(&params, size)?;
                let report =
                    match load_unmeasured(connected, job, load, observer, &mut warnings).await {
                        Ok(report) if report.interrupted => {
                            return Ok((cells, rounds, true, warnings, product));
                        }
                        Ok(report) => report,
                        Err(e) if e.is_usage() => return Err(e),
                        // The cell's measured runs will say what is wrong.
                        Err(_) => break,
                    };
                let rate = whole_run_rate(&report);
                let next = sized_docs(rate, target, wave);
                cells[i].docs_per_run = next;
                if settled(size, next) {
                    break;
                }
                size = next;
            }
        }
    }
    let mut round = 0;
    loop {
        let pending: Vec<usize> = (0..cells.len())
            .filter(|&i| cells[i].needs_more(spec.min_repeats, spec.max_repeats))
            .collect();
        if pending.is_empty() {
            break;
        }
        round += 1;
        let order = shuffled(pending, &mut Rng::new(spec.order_seed, round as u64));
        rounds.push(order.clone());
        for (k, &i) in order.iter().enumerate() {
            if cancelled() {
                return Ok((cells, rounds, true, warnings, product));
            }
            let params = cells[i].params.clone();
            let load = cell_load(&spec.base, index, &params);
            let job = job_for(&params, cells[i].docs_per_run)?;
            let mut cell = attach.clone();
            cell.save.tags.extend(params.tags());
            // The round, so that `compare` sets two cells' runs against each other round by
            // round (what the shuffled rounds share, the machine's level, cancels).
            cell.save.tags.push(("round".into(), round.to_string()));
            let (outcome, run_id) =
                stored_load(connected, job, cluster, load, &cell, observer).await;
            clean_up(connected, index, &mut warnings).await;
            let run = match outcome {
                Ok(report) if report.interrupted => {
                    return Ok((cells, rounds, true, warnings, product));
                }
                Ok(report) => {
                    product.get_or_insert((report.product.clone(), report.engine_version.clone()));
                    figures(&report, run_id)
                }
                Err(e) if e.is_usage() => return Err(e),
                Err(e) => failed_run(&e, run_id),
            };
            cells[i].add(run, spec.ci_pct);
            if let Some(run) = cells[i].runs.last() {
                each(&Tick {
                    round,
                    position: k + 1,
                    of: order.len(),
                    cell: &cells[i],
                    run,
                });
            }
        }
    }
    Ok((cells, rounds, false, warnings, product))
}

/// A load that is not measured nor stored (a warm-up, a sizing run); its index deleted after.
async fn load_unmeasured(
    connected: &Connected,
    job: Job,
    load: LoadSpec,
    observer: &dyn Observer,
    warnings: &mut Vec<String>,
) -> Result<IngestReport, SessionError> {
    let index = load.driver.index.clone();
    let outcome = super::ingest::load_on(connected, job, load, observer).await;
    clean_up(connected, &index, warnings).await;
    outcome
}

/// Deletes the run's index (ours only); a failure is a warning.
async fn clean_up(connected: &Connected, index: &str, warnings: &mut Vec<String>) {
    if let Err(e) = ingest::index::delete_ours(&connected.target, index).await {
        warnings.push(format!("could not delete index {index} after a run: {e}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_override_the_workload_setting() {
        let body = serde_json::json!({"settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0}}, "mappings": {}});
        let b = with_shards(body.clone(), Some(4));
        assert_eq!(b["settings"]["index"]["number_of_shards"], 4);
        assert_eq!(b["settings"]["index"]["number_of_replicas"], 0);
        assert_eq!(with_shards(body.clone(), None), body);
        let flat = serde_json::json!({"settings": {"number_of_shards": 2}});
        let b = with_shards(flat, Some(3));
        assert!(b["settings"].get("number_of_shards").is_none());
        assert_eq!(b["settings"]["index"]["number_of_shards"], 3);
    }

    #[test]
    fn sized_runs_are_whole_waves_of_about_the_time_asked() {
        // 5,000 docs/s for 6 s, 100 × 4 a wave: 30,000 docs = 75 waves.
        assert_eq!(sized_docs(5000.0, 6.0, 400), 30_000);
        assert_eq!(
            sized_docs(5000.0, 6.0, 7000),
            28_000,
            "rounded to whole waves"
        );
        assert_eq!(sized_docs(10.0, 1.0, 1000), 2000, "two waves at least");
        assert_eq!(sized_docs(f64::NAN, 1.0, 10), 20);
    }

    #[test]
    fn a_sizing_run_is_kept_when_the_next_size_is_within_a_quarter() {
        assert!(settled(100_000, 100_000));
        assert!(settled(100_000, 124_000));
        assert!(settled(124_000, 100_000));
        assert!(!settled(32_000, 128_000), "a cold run's size is run again");
        assert!(!settled(0, 10));
    }

    #[test]
    fn rounds_are_shuffled_the_same_way_for_the_same_seed() {
        let a = shuffled((0..12).collect(), &mut Rng::new(7, 1));
        let b = shuffled((0..12).collect(), &mut Rng::new(7, 1));
        assert_eq!(a, b);
        assert_ne!(a, (0..12).collect::<Vec<_>>());
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn bad_grids_are_usage_errors() {
        let ok = Grid {
            bulk_docs: vec![10, 100],
            clients: vec![1, 4],
            ..Grid::default()
        };
        assert!(check_grid(&ok).is_ok());
        let zero_clients = Grid {
            clients: vec![0, 4],
            ..ok.clone()
        };
        let e = check_grid(&zero_clients).expect_err("0 clients");
        assert!(e.is_usage() && e.to_string().contains("--clients"), "{e}");
        let refresh = Grid {
            refresh_interval: vec!["1s".into(), "soon".into()],
            ..ok.clone()
        };
        let e = check_grid(&refresh).expect_err("bad interval");
        assert!(e.to_string().contains("\"soon\""), "{e}");
        let refresh = Grid {
            refresh_interval: vec!["1s".into(), "-1".into(), "500ms".into()],
            ..ok
        };
        assert!(check_grid(&refresh).is_ok());
    }
}

//! `searchbench sweep WORKLOAD`: a grid of ingest configurations (bulk size × clients ×
//! settings) on one engine, repeated until each cell's interval is tight, and the answer:
//! the recommended configuration, the knee of each axis, a USL fit on the clients axis.

use std::path::PathBuf;

use clap::Args;

use super::args::{parse_duration, parse_size, ClusterArgs, GeneratorArgs, OutputArgs};
use super::output::{self, Terminal};
use super::{CliError, CliResult};
use crate::analysis::sweep::Grid;
use crate::ingest::MaxFailures;
use crate::session::ingest::LoadSpec;
use crate::session::sweep::{self, SweepSpec, Tick};
use crate::session::Job;

#[derive(Debug, Args)]
#[command(
    long_about = "Sweep a grid of ingest configurations on one engine (started once, or given \
        by --url) and say which one to use.\n\n\
        Every combination of the values given (a cell) loads the same corpus (--docs \
        documents) into a fresh index, created and deleted by the sweep, with the usual \
        warm-up and steady-state docs/s. Cells run in a shuffled order (seeded, recorded), in \
        rounds: after --min-repeats runs, a cell gets another round only while its interval \
        (95 %, Student's t, around the median of its runs) is wider than --ci of its median, \
        up to --max-repeats. Each run is stored like an ingest, tagged sweep=<id> and with \
        the cell's parameters (bulk_size=100, clients=4, ...).\n\n\
        The answer: the recommended cell is the cheapest clean cell (no failed document, no \
        error) whose interval overlaps the fastest cell's: fewer clients first, then smaller \
        requests, then fewer shards, then the safer settings. The knee of each axis is the \
        cheapest value there whose cell is as good as the fastest (the recommendation's own \
        rule, so through the recommended cell the knee is its value). With intervals wider \
        than --ci there is no recommendation (exit 125), and no cell is marked best and no \
        axis gets a knee. A cell without a p99 says why (its runs made fewer than 100 \
        requests each). A Universal Scalability Law \
        curve X(N) = λN / (1 + σ(N−1) + κN(N−1)) is fitted (least squares) to the clients \
        axis of each bulk size: σ is contention, κ coherency, N* = √((1−σ)/κ) the peak.",
    after_help = "Examples:\n  \
        searchbench sweep transactions --bulk-size 10,100,1000 --clients 1,4,8,16 --docs 200000\n  \
        searchbench sweep logs --bulk-size 500,5000 --clients 2,8 --translog-durability request,async\n  \
        searchbench sweep logs --bulk-size 100,1000 --clients 1,4 --refresh-interval 1s,-1 --ci 3%"
)]
pub struct SweepArgs {
    /// Built-in workload whose generator to use: logs, cluster-metrics, transactions.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true)]
    pub workload: String,
    /// Documents per bulk request: the grid's rows.
    #[arg(long, value_name = "N,...", value_delimiter = ',', required = true,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub bulk_size: Vec<u64>,
    /// Concurrent bulk requests: the grid's columns.
    #[arg(long, value_name = "N,...", value_delimiter = ',', required = true,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub clients: Vec<u64>,
    /// Also close a request once its body reaches this size, e.g. 1mb,5mb.
    #[arg(long, value_name = "SIZE,...", value_delimiter = ',', value_parser = parse_size)]
    pub bulk_bytes: Vec<usize>,
    /// Primary shards of the index.
    #[arg(long, value_name = "N,...", value_delimiter = ',',
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub shards: Vec<u32>,
    /// index.refresh_interval during the load, e.g. 1s,-1.
    #[arg(
        long,
        value_name = "T,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub refresh_interval: Vec<String>,
    /// index.translog.durability during the load: request,async.
    #[arg(long, value_name = "MODE,...", value_delimiter = ',',
          value_parser = ["request", "async"])]
    pub translog_durability: Vec<String>,
    /// index.number_of_replicas during the load, e.g. 0,1.
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    pub replicas: Vec<u32>,
    /// Compress request bodies: off,on (both, an axis); bare --gzip is on, as on every
    /// other command.
    #[arg(long, value_name = "off|on,...", value_delimiter = ',', value_parser = parse_on_off,
          num_args = 0..=1, default_missing_value = "on")]
    pub gzip: Vec<bool>,
    /// Documents each run loads (the same corpus in every cell); with --run-secs, the
    /// documents of each cell's sizing run.
    #[arg(long, default_value_t = 100_000, value_name = "N", value_parser = crate::cli::args::units::parse_positive_count)]
    pub docs: u64,
    /// Size each cell's runs so that their measured part lasts about this long (e.g. 5s; the
    /// --warmup comes on top): unmeasured sizing runs of every cell measure its rate (the
    /// first with --docs documents, then re-sized until the size moves by less than a
    /// quarter, three at most, so a cell first met while the node is cold is not sized from
    /// that), then its runs load rate × time documents, in whole waves of bulk size ×
    /// clients. Cells then load different amounts (a slow cell a smaller index); without it
    /// every run loads --docs.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub run_secs: Option<std::time::Duration>,
    /// Target half-width of each cell's interval, in percent of its median, e.g. 5%.
    #[arg(long, value_name = "P%", default_value = "5%", value_parser = parse_pct)]
    pub ci: f64,
    /// Runs of every cell before the interval decides.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(2..=100))]
    pub min_repeats: u64,
    /// Runs of a cell at most, however wide its interval.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(2..=100))]
    pub max_repeats: u64,
    /// Unmeasured runs before the first round (the engine's JVM warms up across runs).
    #[arg(long, default_value_t = 1)]
    pub warmup_runs: u64,
    /// Warm-up of each run: documents loaded in this first stretch are not measured.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_duration)]
    pub warmup: std::time::Duration,
    /// Seed of the shuffled order of the cells (default: from the clock; recorded).
    #[arg(long)]
    pub order_seed: Option<u64>,
    /// Generator seed (the same documents in every run).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Index the runs load into (default: <workload index>-sweep); each run creates and
    /// deletes it.
    #[arg(long)]
    pub index: Option<String>,
    /// Retries of a request or an item (see `ingest --help`).
    #[arg(long, default_value_t = 8)]
    pub max_retries: u32,
    /// Do not measure time to searchable (see `ingest --help`). Measured, each cell's p99 is
    /// shown, and the cells no other beats on both docs/s and it are listed as the front.
    #[arg(long)]
    pub no_freshness: bool,
    /// How long a document may take to become searchable before it counts as not (see
    /// `ingest --help`).
    #[arg(long, value_name = "DURATION", value_parser = crate::cli::args::units::parse_bound,
          conflicts_with = "no_freshness")]
    pub freshness_bound: Option<std::time::Duration>,
    /// Write the sweep's HTML page (heatmap, per-axis curves) here, and its JSON beside it
    /// [default: reports/sweep-<id>.html next to the results store].
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub generator: GeneratorArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub warm: super::args::WarmArgs,
    /// Every run of the sweep profiled (its load), each run keeping its own profile.
    #[command(flatten)]
    pub profile: crate::cli::args::ProfileArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

fn parse_on_off(s: &str) -> Result<bool, String> {
    match s.trim() {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(format!("{s:?}: use off or on")),
    }
}

/// `5%` or `5`: a percentage above 0 and below 100.
fn parse_pct(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let t = t.strip_suffix('%').unwrap_or(t);
    match t.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p),
        _ => Err(format!("{s:?} is not a percentage; use e.g. 5% or 2.5%")),
    }
}

fn sizes(v: &[u64]) -> Vec<usize> {
    v.iter()
        .map(|&n| usize::try_from(n).unwrap_or(usize::MAX))
        .collect()
}

pub async fn run(a: SweepArgs) -> CliResult {
    if a.min_repeats > a.max_repeats {
        return Err(CliError::usage(anyhow::anyhow!(
            "--min-repeats {} is above --max-repeats {}",
            a.min_repeats,
            a.max_repeats
        )));
    }
    let grid = Grid {
        bulk_docs: sizes(&a.bulk_size),
        clients: sizes(&a.clients),
        bulk_bytes: a.bulk_bytes.clone(),
        shards: a.shards.clone(),
        refresh_interval: a.refresh_interval.clone(),
        translog_durability: a.translog_durability.clone(),
        replicas: a.replicas.clone(),
        gzip: a.gzip.clone(),
    };
    sweep::check_grid(&grid).map_err(CliError::session)?;
    let workload_spec = a.generator.spec(a.seed, Some(a.docs), false);
    // Resolve the workload before anything starts (a bad name is bad usage).
    Job::generated(&a.workload, &workload_spec, a.index.clone(), &[]).map_err(CliError::session)?;
    let mut cluster = a.cluster.spec()?;
    cluster.serve(&a.workload);
    let mut base = LoadSpec::new(a.index.clone().unwrap_or_default());
    base.driver.warmup = a.warmup;
    base.driver.max_retries = a.max_retries;
    base.max_failures = Some(MaxFailures::Count(0));
    base.freshness = (!a.no_freshness).then_some(crate::ingest::freshness::FreshnessSpec {
        bound: a.freshness_bound,
        ..Default::default()
    });
    let mut attach = a.out.attach(None, a.profile.spec(&cluster)?)?;
    // The first Ctrl-C stops the sweep after keeping the finished runs; a second quits.
    let begun = super::ending::listen();
    let cancel = begun.cancel.clone();
    cluster.start.stop = cancel.clone();
    base.cancel = Some(cancel);
    cluster.warm = a.warm.generated(&a.workload, &workload_spec, &base);
    let id = sweep::new_id();
    let spec = SweepSpec {
        workload: a.workload.clone(),
        workload_spec,
        index: a.index.clone(),
        grid,
        ci_pct: a.ci,
        min_repeats: a.min_repeats as usize,
        max_repeats: a.max_repeats as usize,
        order_seed: a.order_seed.unwrap_or_else(sweep::clock_seed),
        id: id.clone(),
        warmup_runs: a.warmup_runs as usize,
        run_secs: a.run_secs.map(|d| d.as_secs_f64()).filter(|s| *s > 0.0),
        base,
    };
    attach.save.tags.push(("sweep".into(), id.clone()));
    let save = &attach.save;
    let terminal = Terminal::for_output(&a.out);
    let cells = spec.grid.cells().len();
    if !a.out.quiet {
        let runs = match spec.run_secs {
            Some(secs) => format!("{} runs sized to ~{secs:.0} s", a.workload),
            None => format!("runs of {} {} documents", a.docs, a.workload),
        };
        errln!(
            "sweep {id}: {cells} cells × {}..{} {runs} (order seed {}, target ±{} %)",
            spec.min_repeats,
            spec.max_repeats,
            spec.order_seed,
            a.ci
        );
    }
    let quiet = a.out.quiet;
    let result = sweep::sweep(&spec, &cluster, &attach, &terminal, |t: &Tick<'_>| {
        if !quiet {
            output::sweep::tick(t);
        }
    })
    .await
    .map_err(CliError::session)?;
    let html = match &a.html {
        Some(p) => Some(p.clone()),
        None if !save.skip => save
            .open()
            .ok()
            .map(|s| crate::report::sweep_html::default_path(s.path(), &result.id)),
        None => None,
    };
    super::ending::study::end(&a.out.json, save, &terminal, &result, |result| {
        if let Some(path) = &html {
            write_pages(result, path);
        }
        Ok(())
    })
}

/// The sweep's page at `path` and its whole result beside it (the runs are in the store, the
/// answer here); one that cannot be written is a warning (the JSON asked for is written).
fn write_pages(result: &crate::analysis::sweep::SweepResult, path: &std::path::Path) {
    match crate::report::sweep_html::write(result, path) {
        Ok(()) => errln!("sweep page: {}", path.display()),
        Err(e) => errln!("warning: writing the sweep page: {e}"),
    }
    let json = path.with_extension("json");
    let written = serde_json::to_string_pretty(result)
        .map_err(|e| e.to_string())
        .and_then(|text| {
            crate::out_folder::write_file(&json, (text + "\n").as_bytes())
                .map_err(|e| e.to_string())
        });
    if let Err(e) = written {
        errln!("warning: writing {}: {e}", json.display());
    }
}

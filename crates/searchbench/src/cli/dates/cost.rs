//! `searchbench dates cost` (once `experiment dates`, still taken): variants of one job
//! measured side by side.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde::Serialize;

use crate::cli::args::{ClusterArgs, NodeArgs, TargetArgs};
use crate::cli::output::{self, Terminal};
use crate::cli::{CliError, CliResult};
use crate::engine;
use crate::experiment::dates::{self, EngineResult, VARIANTS};
use crate::session::experiment::DatesSpec;

#[derive(Debug, Subcommand)]
pub enum ExperimentCommand {
    /// The old spelling of `dates cost`.
    Dates(DatesArgs),
}

const DATES_HELP: &str = "\
The same logs corpus (seeded, so the same documents every time) is loaded into a fresh index \
per variant; only the two date fields (@timestamp, event.ingested) change:

  (a) ISO strings (2023-01-01T00:00:00.000Z), the mapping's default date format \
strict_date_optional_time||epoch_millis: what most clusters do.
  (b) epoch-millis numbers (1672531200000), default format: the client parses the dates \
(--convert-dates, the isodate crate) and the engine still tries the ISO parser first.
  (c) epoch-millis numbers, mapping format epoch_millis: the engine reads a number only.
  (d) ISO strings, mapping format strict_date_time: one fixed ISO shape instead of the \
optional-parts one (the generator's timestamps have milliseconds and Z, so they fit).

Columns (median over the repeats, min-max in brackets):
  docs/s               documents acknowledged per second of wall time
  engine CPU us/doc    the engine process's CPU time (user + system) during the load, per \
document: everything the node spent, including merges and GC. Needs the engine's pid, so \
only for engines we start (not with --url)
  _stats index us/doc  indexing.index_time_in_millis from _stats, per document: time in the \
indexing code path (parsing, mapping, Lucene), summed over indexing threads
  client CPU us/doc    this process's own CPU per document (generator, conversion, HTTP)
  ... vs a             engine CPU (index time) per document relative to variant (a) of the \
same round, so drift between rounds cancels out: median of the per-round ratios (min…max)

Method: an unmeasured warm-up round of all four variants first (--warmup-docs), then \
--repeats rounds a b c d a b c d ... so drift on a noisy machine hits all variants alike. \
Each index (searchbench-dates-<variant>) is created afresh and deleted after its load. With \
--engine, each engine is started for the experiment (attached) and stopped afterwards. Each \
engine's experiment is kept in the results store (kind experiment, workload dates) with the \
engine's telemetry: `searchbench compare ID ID` compares two of them variant by variant.

Examples:
  searchbench dates cost --docs 200000 --repeats 3
  searchbench dates cost --engine opensearch-2.19.1,elasticsearch-7.10.2 --export-json dates.json
  searchbench dates cost --url http://127.0.0.1:9200 --docs 20000 --repeats 1

Exit code 3 when a load did not index every document.";

#[derive(Debug, Args)]
#[command(after_long_help = DATES_HELP)]
pub struct DatesArgs {
    /// Engine(s) to start, one after the other (repeat or comma-separate) [default:
    /// opensearch-2.19.1 unless --url is given].
    #[arg(long = "engine", value_delimiter = ',', conflicts_with = "urls")]
    pub engines: Vec<String>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub node: NodeArgs,
    /// Pid of a local engine given by --url, to report its CPU time.
    #[arg(long, hide = true)]
    pub engine_pid: Option<u32>,
    /// Documents per load.
    #[arg(long, default_value_t = 200_000, value_name = "N", value_parser = crate::cli::args::units::parse_positive_count)]
    pub docs: u64,
    /// Measured rounds of the four variants.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeats: u32,
    /// Documents per variant in the unmeasured warm-up round; 0 for none [default: --docs,
    /// a whole round: a JVM that has loaded only a little is still compiling and warming].
    #[arg(long)]
    pub warmup_docs: Option<u64>,
    /// Concurrent bulk requests.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub clients: u64,
    /// Documents per bulk request.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub bulk_size: u64,
    /// Generator seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Folder for failure files (written only when documents fail).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub failures_dir: PathBuf,
    #[command(flatten)]
    pub telemetry: crate::cli::args::TelemetryArgs,
    /// Each variant's measured loads profiled: its date parsing share of CPU and allocations
    /// beside the others'.
    #[command(flatten)]
    pub profile: crate::cli::args::ProfileArgs,
    #[command(flatten)]
    pub save: crate::cli::args::SaveArgs,
    #[command(flatten)]
    pub json: crate::cli::args::JsonArgs,
}

/// What `--json` writes: the study's whole result.
#[derive(Debug, Serialize)]
struct DatesOutput<'a> {
    experiment: &'static str,
    variants: &'static [dates::Variant],
    results: &'a [EngineResult],
}

impl crate::cli::ending::Verdict for DatesOutput<'_> {
    /// A variant that did not index every document is no measure of its cost (exit 3).
    fn verdict(&self) -> CliResult {
        let incomplete: Vec<String> = self
            .results
            .iter()
            .flat_map(|r| {
                r.variants
                    .iter()
                    .filter(|v| !v.complete)
                    .map(move |v| format!("{} {} ({})", r.product, r.version, v.variant.id))
            })
            .collect();
        if incomplete.is_empty() {
            return Ok(());
        }
        Err(CliError::check(anyhow::anyhow!(
            "not every document was indexed in: {} (see the failure files)",
            incomplete.join(", ")
        )))
    }
}

impl crate::cli::ending::study::Study for DatesOutput<'_> {
    /// Each engine's tables were printed as it ended.
    fn print(&self) {}
}

pub async fn run(cmd: ExperimentCommand) -> CliResult {
    match cmd {
        ExperimentCommand::Dates(args) => run_dates(args).await,
    }
}

pub async fn run_dates(args: DatesArgs) -> CliResult {
    let clusters: Vec<Option<String>> = if !args.target.urls.is_empty() {
        vec![None]
    } else if args.engines.is_empty() {
        vec![Some(engine::DEFAULT_ENGINE.to_string())]
    } else {
        args.engines.iter().cloned().map(Some).collect()
    };
    // Every name is checked before the first engine starts.
    let mut resolved = Vec::new();
    for name in clusters {
        resolved.push(match name {
            Some(name) => Some(
                engine::resolve_fresh(&name)
                    .await
                    .map_err(CliError::usage)?
                    .name,
            ),
            None => None,
        });
    }
    let begun = crate::cli::ending::listen();
    let cancel = begun.cancel.clone();
    let config = dates::Config {
        docs: args.docs,
        repeats: args.repeats,
        warmup_docs: args.warmup_docs.unwrap_or(args.docs),
        seed: args.seed,
        clients: usize::try_from(args.clients).unwrap_or(1),
        bulk_size: usize::try_from(args.bulk_size).unwrap_or(usize::MAX),
        failures_dir: args.failures_dir.clone(),
        cancel: Some(cancel),
    };
    let clusters = resolved
        .into_iter()
        .map(|name| {
            ClusterArgs {
                target: args.target.clone(),
                engine: name,
                engine_dir: None,
                node: args.node.clone(),
                engine_pid: args.engine_pid,
                network: Default::default(),
            }
            .spec()
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Every cluster must be one the profile can record (one given by URL needs a pid).
    let mut profile = None;
    for cluster in &clusters {
        profile = args.profile.spec(cluster)?;
    }
    let attach = args.save.attach(Some(&args.telemetry), profile)?;
    let spec = DatesSpec { config, clusters };
    let to_stdout = args.json.on_stdout();
    let terminal = Terminal::new(false);
    let log = |line: &str| errln!("  {line}");
    let print = |result: &EngineResult| {
        if !to_stdout {
            output::experiment::dates(result);
            output::telemetry::print(result.telemetry.as_ref(), output::Detail::Full);
            output::profile::print_variants(result);
        }
    };
    let results = crate::session::experiment::dates(&spec, &attach, &terminal, &log, &print)
        .await
        .map_err(CliError::session)?;
    let output = DatesOutput {
        experiment: "dates",
        variants: &VARIANTS,
        results: &results,
    };
    let (json, save) = (&args.json, &attach.save);
    crate::cli::ending::study::end(
        json,
        save,
        &terminal,
        &output,
        crate::cli::ending::study::no_pages,
    )
}

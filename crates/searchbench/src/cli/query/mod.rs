//! `searchbench query WORKLOAD`: measure a query workload with the query method of docs/architecture.md.

use std::path::PathBuf;

use clap::Args;

mod file;

use crate::cancel::Cancel;
use crate::cli::args::TargetArgs;
use crate::cli::ending;
use crate::cli::output::{self, Terminal};
use crate::cli::{CliError, CliResult};
use crate::query::{self, QueryOptions, Transport, Variant};
use crate::session::query::QuerySpec;
use crate::workload;

#[derive(Debug, Args)]
#[command(
    after_help = "cluster-metrics variants: A filter only, B 3× sum, C_td/C_hdr 3× percentiles \
    (t-digest/HDR), D_td production (sums + t-digest), D_hdr; only when named, C at other \
    precisions: C_hdr2 and C_hdr4 (HDR at 2 and 4 significant digits; C_hdr is 3) and C_td1000 \
    (t-digest at compression 1,000; C_td is 100): the accuracy table gives each one's largest \
    error at p0/p50/p90/p100 against the truth.\n\
    logs variants (each _s0 = size 0, _s10 = size 10 newest first): range_terms (range + terms \
    on process.name), histogram (per-minute date_histogram), match (match on message), \
    top_hosts (terms agg on host.name); one search per time slice (--slices).\n\
    Before measuring, the target must answer and the index must hold documents (else exit 1).\n\
    Exit code 3 when an answer is wrong (count, sum, percentile beyond its bound, hits, \
    buckets) or a request failed.\n\n\
    Examples:\n  \
    searchbench query cluster-metrics --url http://127.0.0.1:9200 --epochs 2 --load\n  \
    searchbench query logs --url http://127.0.0.1:9200 --docs 200000 --passes 5\n  \
    searchbench query cluster-metrics --url http://127.0.0.1:9200 --variants D_td --rate 20\n  \
    searchbench query cluster-metrics --url http://127.0.0.1:9200 --variants C_hdr2,C_hdr4,C_td1000"
)]
pub struct QueryArgs {
    /// The workload: cluster-metrics or logs (or none, with --queries).
    #[arg(required_unless_present = "queries")]
    pub workload: Option<String>,
    /// Named search bodies from this file (JSON name→body, or NDJSON {"name","body"}), with
    /// {{param}} slots and optional expected answers, run on --index. See --help.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["workload", "load", "truth", "rewrite_clients"],
          value_parser = crate::cli::args::input_file)]
    pub queries: Option<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub network: crate::cli::args::NetworkArgs,
    /// Index to query [default: the workload's, e.g. searchbench-logs].
    #[arg(long)]
    pub index: Option<String>,
    /// Ground truth file (NDJSON as written by the generator); else computed from the spec below.
    #[arg(long, value_name = "FILE", value_parser = crate::cli::args::input_file)]
    pub truth: Option<PathBuf>,
    /// The corpus the index holds, as it was generated (the truth is recomputed from it).
    #[command(flatten)]
    pub corpus: crate::cli::args::CorpusArgs,
    /// cluster-metrics: the first epoch's number [default: 1].
    #[arg(long, value_name = "N", help_heading = "cluster-metrics")]
    pub first_epoch: Option<u64>,
    /// logs: time slices of the window; one search per variant and slice [default: 8].
    #[arg(long, help_heading = "logs",
          value_parser = clap::value_parser!(u64).range(1..=query::MAX_SLICES))]
    pub slices: Option<u64>,
    /// Create the index and load the corpus first (the index must not exist).
    #[arg(long)]
    pub load: bool,
    /// Measurement passes.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub passes: u32,
    /// Variants to run (comma-separated) [default: all of the workload's].
    #[arg(long, value_delimiter = ',')]
    pub variants: Option<Vec<String>>,
    /// Transports: serial, msearch (comma-separated) [default: the workload's: both for
    /// cluster-metrics, serial for the others].
    #[arg(long, value_delimiter = ',')]
    pub transports: Option<Vec<String>>,
    /// Skip the warm-up pass.
    #[arg(long)]
    pub no_warmup: bool,
    /// Seed of the task shuffle.
    #[arg(long, default_value_t = 1)]
    pub shuffle_seed: u64,
    /// Also run one pass with `profile: true` and report its overhead.
    #[arg(long)]
    pub profile: bool,
    /// Also measure cold: one more pass, last, each coverage sent after the index was
    /// closed, the OS page cache dropped (sync, then 3 into /proc/sys/vm/drop_caches) and the
    /// index opened again with its caches cleared; the report sets each cell cold beside warm,
    /// and says how much of the index's files was still in memory. Closing first matters: the
    /// engines map their files, and the kernel keeps mapped pages. Needs root, and a cluster
    /// on this machine (a loopback --url); the index is unavailable while it is closed.
    #[arg(long, conflicts_with_all = ["rewrite_clients", "part", "shards"])]
    pub cold: bool,
    /// Measure the index at each of these shard counts (e.g. 1,2,4), in the same shuffled
    /// passes: serial vs _msearch per count. The index serves its own count; the engine makes
    /// each other one a copy (_split to a multiple of its shards, _shrink to a divisor; the
    /// index is closed to writes meanwhile), expunges the deletes a split leaves, and the copy
    /// is removed at the end.
    #[arg(long, value_name = "N,N,...", conflicts_with_all = ["rewrite_clients", "part", "queries"])]
    pub shards: Option<String>,
    /// Profile this local engine process (repeatable) with Java Flight Recorder over the
    /// query phase: where its CPU and allocations went, in categories (search and
    /// aggregations, Lucene, networking, ...), kept with the run (`profile.cpu.*`). The engine
    /// profile of `run` and `ingest --profile`; here `--profile` is the search profile pass.
    #[arg(long = "profile-pid", value_name = "PID")]
    pub profile_pids: Vec<u32>,
    /// Coverages per second (latency then counts from the scheduled start).
    #[arg(long, value_name = "R", value_parser = crate::cli::args::parse_rate)]
    pub rate: Option<f64>,
    /// Search clients: up to N coverages of a measurement pass in flight at once, taken in
    /// the shuffled order (the warm-up and profile passes stay serial). Service times then
    /// include the contention of N clients.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=256))]
    pub search_clients: u64,
    /// Do not check answers (for sinks and doubles).
    #[arg(long, conflicts_with = "rewrite_clients")]
    pub no_check: bool,
    #[command(flatten)]
    pub rewrites: crate::cli::args::RewriteArgs,
    /// No progress lines on stderr (pass by pass); the report and errors stay.
    #[arg(long, short, help_heading = "Output and results")]
    pub quiet: bool,
    #[command(flatten)]
    pub json: crate::cli::args::JsonArgs,
    /// A previous --export-json result: report the drift of the production cell against it.
    #[arg(long, value_name = "FILE", value_parser = crate::cli::args::input_file)]
    pub baseline: Option<PathBuf>,
    #[command(flatten)]
    pub telemetry: crate::cli::args::TelemetryArgs,
    #[command(flatten)]
    pub save: crate::cli::args::SaveArgs,
    #[command(flatten)]
    pub part: crate::cli::args::PartArgs,
}

pub async fn run(args: QueryArgs) -> CliResult {
    // The first Ctrl-C stops the method between coverages; what was measured is kept and
    // stored `interrupted` (exit 130).
    let begun = ending::listen();
    let cancel = begun.cancel.clone();
    if args.queries.is_some() {
        return file::run(args, &begun).await;
    }
    let name = args.workload.clone().unwrap_or_default();
    let Some(workload) = workload::find(&name) else {
        return Err(CliError::usage(anyhow::anyhow!(workload::unknown(&name))));
    };
    let index = args
        .index
        .clone()
        .unwrap_or_else(|| workload.default_index().to_string());
    let target = args.target.connect()?;
    let mut options = method(&args, &index, cancel.clone());
    options.cold = cold(&args, &index, &target)?;
    args.part.apply_query(&mut options, args.load, args.quiet)?;
    options.variants = args
        .variants
        .iter()
        .flatten()
        .map(|v| Variant::new(v.trim()))
        .collect();
    options.transports = match &args.transports {
        Some(list) => transports(list)?,
        None => Vec::new(),
    };
    let mut corpus = args.corpus.spec(false);
    corpus.params.first_epoch = args.first_epoch;
    corpus.params.slices = args.slices.map(|n| n as usize);
    let spec = QuerySpec {
        workload,
        corpus,
        options,
        load: args.load,
        truth_file: args.truth.clone(),
        baseline: args.baseline.clone(),
        rtt: args.network.rtt()?,
        shards: match &args.shards {
            Some(given) => {
                one_index("--shards copies", &index)?;
                query::shards::parse(given).map_err(|e| CliError::usage(anyhow::anyhow!(e)))?
            }
            None => Vec::new(),
        },
        rewrites: args.rewrites.spec(),
    };
    let attach = args.save.attach(
        Some(&args.telemetry),
        crate::cli::args::profile::of_pids(&args.profile_pids)?,
    )?;
    begun.start_at(&args.part, args.quiet).await?;
    let terminal = Terminal::new(args.quiet);
    let result = crate::session::query::query(spec, target, &args.target.urls, &attach, &terminal)
        .await
        .map_err(CliError::session)?;
    finish(&result, &args, &terminal)
}

/// Prints the result, then the one ending: --json written, wrong answers exit 3.
pub(crate) fn finish(
    result: &query::QueryResult,
    args: &QueryArgs,
    terminal: &Terminal,
) -> CliResult {
    let json_on_stdout = args.json.on_stdout();
    if !json_on_stdout {
        output::query::print(result, output::Detail::Full);
        output::telemetry::print(result.telemetry.as_ref(), output::Detail::Full);
        if let Some(p) = &result.profile {
            output::profile::print(p, output::Detail::Full);
        }
    }
    ending::end(&args.json, terminal, result)
}

/// Transports by name.
pub(super) fn transports(list: &[String]) -> Result<Vec<Transport>, CliError> {
    list.iter()
        .map(|s| {
            Transport::parse(s).ok_or_else(|| {
                CliError::usage(anyhow::anyhow!(crate::suggest::unknown(
                    "transport",
                    s,
                    ["serial", "msearch"]
                )))
            })
        })
        .collect()
}

/// Whether to run the cold pass, or why it cannot run against `target` from here (exit 2,
/// before anything is sent).
pub(super) fn cold(
    args: &QueryArgs,
    index: &str,
    target: &crate::cluster::Target,
) -> Result<bool, CliError> {
    if !args.cold {
        return Ok(false);
    }
    one_index("--cold closes", index)?;
    match query::cold::refused(target.urls()) {
        Some(why) => Err(CliError::usage(anyhow::anyhow!(why))),
        None => Ok(true),
    }
}

/// `index` when it names one index or alias (no pattern, `_all` or list): what `--cold`
/// closes and `--shards` copies is then what the user named.
fn one_index(what: &str, index: &str) -> Result<(), CliError> {
    crate::ingest::index::check_name(index).map_err(|e| {
        CliError::usage(anyhow::anyhow!(
            "{what} the index it measures, so --index must name one index or alias: {e}"
        ))
    })
}

/// The method's options from the flags (passes, warm-up, shuffle, profile, rate, checks).
pub(crate) fn method(args: &QueryArgs, index: &str, cancel: Cancel) -> QueryOptions {
    let mut options = QueryOptions::new(index);
    options.passes = args.passes;
    options.warmup = !args.no_warmup;
    options.shuffle_seed = args.shuffle_seed;
    options.profile = args.profile;
    options.rate = args.rate;
    options.clients = args.search_clients as usize;
    options.check = !args.no_check;
    if !args.quiet {
        options.progress = output::stderr_lines();
    }
    options.cancel = cancel;
    options
}

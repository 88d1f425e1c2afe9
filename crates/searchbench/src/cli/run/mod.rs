//! `searchbench run`: the whole job for a built-in workload: start an engine (attached), set
//! the index up, ingest, run the workload's queries, print summary, attribution and query
//! tables, keep the result and write its HTML report, stop the engine.

mod file;
mod scenario;
mod track;

use clap::Args;

use crate::cli::args::{ClusterArgs, CorpusArgs, LoadArgs, OutputArgs, WarmArgs};
use crate::cli::ending;
use crate::cli::output::{self, Terminal};
use crate::cli::{CliError, CliResult};
use crate::session::ingest::LoadSpec;
use crate::session::warm::WarmSpec;
use crate::session::{self, run::RunSpec, Job};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    searchbench run logs --docs 200000\n  \
    searchbench run cluster-metrics --epochs 2 --rows-per-epoch 200000 --engine elasticsearch-7.10.2\n  \
    searchbench run transactions --docs 100000 --clients 4 --bulk-size 500\n  \
    searchbench run logs --docs 500000 --search-clients 2\n  \
    searchbench run many-shards --indices 1000 --clients 4\n  \
    searchbench run snapshots --indices 1000 --snapshots 20\n\n\
    The result is kept in the results store (see `searchbench results`) and an HTML report is \
    written next to it; its path is printed at the end.")]
pub struct RunArgs {
    /// Built-in workload: logs, cluster-metrics, transactions, or a scenario over many
    /// indices: many-shards, snapshots (or none, with --workload-file).
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true, required_unless_present = "workload_file")]
    pub workload: Option<String>,
    /// Your own workload from a JSON file (corpus, index body, template, pipeline, queries
    /// with expected answers, default flags), or an esrally track.json / opensearch-benchmark
    /// workload.json with local corpora. A track's own track.py (workload.py) gives the
    /// parameters of its param-source tasks and runs its own runners: it is loaded by esrally
    /// 2.13.0 (opensearch-benchmark 2.4.0) in a Python worker, installed from PyPI into the
    /// cache on first use (python3, or SEARCHBENCH_PYTHON). See the README.
    #[arg(long, value_name = "FILE", conflicts_with = "workload")]
    pub workload_file: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub track: crate::cli::args::TrackArgs,
    /// Index to load into (default: the workload's).
    #[arg(long)]
    pub index: Option<String>,
    /// Skip the query phase (logs and cluster-metrics have one).
    #[arg(long)]
    pub no_query: bool,
    /// Run the workload's searches from N clients in a loop during the load (logs); their
    /// latency is reported beside the docs/s (answers unchecked while the index grows).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub search_clients: Option<u64>,
    #[command(flatten)]
    pub rewrites: crate::cli::args::RewriteArgs,
    #[command(flatten)]
    pub scenario: scenario::ScenarioArgs,
    #[command(flatten)]
    pub setup: crate::cli::args::SetupArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub warm: WarmArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub profile: crate::cli::args::ProfileArgs,
    #[command(flatten)]
    pub part: crate::cli::args::PartArgs,
    /// Every table on the terminal (the measures, where the wall time went, the telemetry,
    /// the accuracy, the query method's breakdowns), not only what the run came to.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    #[command(flatten)]
    pub out: OutputArgs,
}

pub async fn run(mut args: RunArgs) -> CliResult {
    let split = args.part.part.filter(|p| !p.is_whole());
    if let Some(part) = split {
        let refuse = |why: &str| {
            Err(CliError::usage(anyhow::anyhow!(
                "--part {part}: {why} (`ingest --part` and `query --part` split any load or \
                 query run)"
            )))
        };
        if args.cluster.target.urls.is_empty() {
            return refuse("the parts share one cluster: give it with --url");
        }
    }
    if args.rewrites.rewrite_clients.is_some() {
        refuse_rewrites(&args)?;
    }
    if args.workload_file.is_some() {
        return file::run_file(args).await;
    }
    if let Some(given) = args.track.given() {
        return Err(CliError::usage(anyhow::anyhow!(
            "{given} for a Rally track or an opensearch-benchmark workload \
             (--workload-file track.json), not a built-in workload"
        )));
    }
    let name = args.workload.clone().unwrap_or_default();
    let w = session::job::find_workload(&name).map_err(CliError::session)?;
    if let Some(kind) = w.scenario() {
        return scenario::run(kind, args).await;
    }
    if let (Some(part), Some(_)) = (split, args.search_clients) {
        return Err(CliError::usage(anyhow::anyhow!(
            "--part {part}: searches beside the load are not split in parts yet (the \
             many-shards scenario's are; `query --part` splits any query run)"
        )));
    }
    if args.scenario.any() {
        return Err(CliError::usage(anyhow::anyhow!(
            "--indices, --docs-per-index, --snapshots, --repository and --field-caps-requests \
             are for the many-shards and snapshots scenarios"
        )));
    }
    if args.corpus.docs.is_none() {
        args.corpus.docs = w.default_docs();
    }
    let workload_spec = args.corpus.spec(w.wants_truth() && !args.no_query);
    let mut job = Job::generated(&name, &workload_spec, args.index.clone(), &[])
        .map_err(CliError::session)?;
    let mut load = args.load.spec(&job.index, args.out.progress());
    args.setup
        .spec()
        .apply(&mut job, &mut load.extras)
        .map_err(CliError::session)?;
    if let Some(n) = args.search_clients {
        load.beside = Some(
            session::beside::plan(&name, &workload_spec, n as usize).map_err(CliError::session)?,
        );
    }
    let whole_docs = job.source.len_hint();
    args.part.apply(&mut job, &mut load, args.out.quiet, None)?;
    let warm = |load: &LoadSpec| args.warm.generated(&name, &workload_spec, load);
    let spec = RunSpec {
        workload_spec: workload_spec.clone(),
        queries: !args.no_query,
        progress: query_progress(),
        user_queries: None,
        split: run_part(split, whole_docs, &args),
        rewrites: args.rewrites.spec(),
    };
    execute(job, load, spec, &args, &warm).await
}

/// `--rewrite-clients` is for the query phase of a built-in workload's run, whole: the
/// writes go over the corpus this process loaded, and the answers are checked against it.
fn refuse_rewrites(args: &RunArgs) -> Result<(), CliError> {
    let why = if args.no_query {
        Some("it writes beside the query phase, which --no-query leaves out")
    } else if args.workload_file.is_some() || args.track.given().is_some() {
        Some("it is for a built-in workload's query phase (`query --rewrite-clients` measures any index loaded with sequential ids)")
    } else if args.part.part.is_some_and(|p| !p.is_whole()) {
        Some("the parts would each write the whole corpus over the others' searches")
    } else {
        let w = args.workload.as_deref().unwrap_or_default();
        session::job::find_workload(w)
            .ok()
            .filter(|w| w.scenario().is_some() || w.query_variants().is_empty())
            .map(|_| "the workload has no query phase to write beside")
    };
    match why {
        Some(why) => Err(CliError::usage(anyhow::anyhow!("--rewrite-clients: {why}"))),
        None => Ok(()),
    }
}

/// How a command warms the node it starts, from the load it will measure (its cancel set):
/// see [`crate::session::warm`].
pub type Warm<'a> = dyn Fn(&LoadSpec) -> Option<WarmSpec> + 'a;

/// What the run's query phase knows of its part: which, and the documents of the whole run
/// it waits for in the index.
fn run_part(
    split: Option<crate::corpus::part::Part>,
    whole_docs: Option<u64>,
    args: &RunArgs,
) -> Option<session::run::RunPart> {
    Some(session::run::RunPart {
        part: split?,
        group: args.part.group.clone(),
        whole_docs: whole_docs?,
        wait: session::run::PARTS_WAIT,
    })
}

/// Where the query phase says what it is doing: stderr lines on a terminal.
fn query_progress() -> crate::query::Progress {
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        crate::cli::output::stderr_lines()
    } else {
        crate::query::Progress::default()
    }
}

/// Runs a resolved job with its query phase, prints, and turns the outcome into an exit code.
/// A node started for the run is warmed as `warm` says first.
async fn execute(
    job: Job,
    mut load: LoadSpec,
    spec: RunSpec,
    args: &RunArgs,
    warm: &Warm<'_>,
) -> CliResult {
    let mut cluster = args.cluster.spec()?;
    cluster.serve(&job.workload);
    let attach = args
        .out
        .attach(Some(&args.load.telemetry), args.profile.spec(&cluster)?)?;
    // The first Ctrl-C stops the load and keeps what was done; a second quits at once.
    let begun = ending::begin(Some(&args.part), args.out.quiet).await?;
    load.cancel = Some(begun.cancel.clone());
    cluster.start.stop = begun.cancel.clone();
    cluster.warm = warm(&load);
    let mut terminal = Terminal::for_output(&args.out);
    terminal.detail = output::detail(args.verbose);
    let result = session::run::run(job, &cluster, load, &spec, &attach, &terminal)
        .await
        .map_err(CliError::session)?;
    ending::end(&args.out.json, &terminal, &result)
}

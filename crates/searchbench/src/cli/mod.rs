//! The `searchbench` command line: argument parsing, dispatch, exit codes.

#[macro_use]
mod macros;

mod ab;
mod annotate;
mod args;
mod bisect;
mod calibrate;
mod check;
mod compare;
mod dashboards;
mod dates;
mod deploy;
mod ending;
pub mod engine;
mod error;
mod generate;
mod help;
mod history;
mod ingest;
mod matrix;
pub mod output;
mod progress;
mod query;
mod report;
pub mod results;
mod run;
mod saturate;
mod shell;
mod site;
mod sketch_serve;
mod sweep;
mod target;
mod workload;

pub use args::TargetArgs;

use clap::{Parser, Subcommand};

pub use crate::exit;

pub use error::{CliError, CliResult};
pub use help::command;

/// `--version`: the package version, the commit it was built from and the build profile.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("SEARCHBENCH_COMMIT"),
    ", ",
    env!("SEARCHBENCH_PROFILE"),
    " build)"
);

#[derive(Debug, Parser)]
#[command(
    name = "searchbench",
    version = VERSION,
    about = "A performance lab for Elasticsearch and OpenSearch ingestion and queries",
    long_about = "A performance lab for Elasticsearch and OpenSearch ingestion and queries.\n\n\
        searchbench starts real engines locally from Maven Central artifacts (or talks to your \
        cluster), generates data locally, and measures how fast they ingest and answer: where \
        the time went, whether the answers were right, and whether a change made things worse.\n\n\
        Start here:\n  \
        searchbench run logs --docs 200000           the whole job on a local OpenSearch node\n  \
        searchbench results list                     every run kept so far\n  \
        searchbench compare RUN_A RUN_B              differences with confidence intervals\n  \
        searchbench engine list                      what can run on this machine\n  \
        searchbench target --url URL                 what a cluster is and how it is doing",
    after_help = "Exit codes: 0 ok, 1 failure (the work could not be done), 2 bad usage or input, 3 a check failed (counts, answers, a regression), 125 cannot tell (check, bisect), 130 interrupted (Ctrl-C or SIGTERM, or a track's Python worker dying)."
)]
pub struct Cli {
    /// Colour verdicts: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN", hide_short_help = true)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

/// `--color`: when verdicts are coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Says it the standard way, for this process: `NO_COLOR` for never, `CLICOLOR_FORCE`
    /// for always (see `output::colour`). Called once, before any thread starts.
    fn apply(self) {
        match self {
            ColorChoice::Auto => {}
            ColorChoice::Always => {
                std::env::remove_var("NO_COLOR");
                std::env::set_var("CLICOLOR_FORCE", "1");
            }
            ColorChoice::Never => std::env::set_var("NO_COLOR", "1"),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start, stop and list real engines provisioned from Maven Central.
    #[command(subcommand)]
    Engine(engine::EngineCommand),
    /// Look at a cluster: product, version, nodes, health (`target --url URL`).
    Target(target::TargetInfoCommand),
    /// Write a built-in workload's corpus (deterministic: same seed, same bytes).
    Generate(generate::GenerateArgs),
    /// Bulk-load documents into a target and say where the time went.
    Ingest(ingest::IngestArgs),
    /// Measure a query workload (variants × transports) and check every answer.
    Query(query::QueryArgs),
    /// Do the whole thing for a built-in workload: provision, set up, ingest, query, report, stop.
    Run(run::RunArgs),
    /// Start one run in parts on many hosts: a Kubernetes Indexed Job (`deploy kubernetes`)
    /// or the commands for ssh (`deploy ssh`), with no daemon of ours.
    #[command(subcommand)]
    Deploy(deploy::DeployCommand),
    /// The stored results: list, show, import.
    #[command(subcommand)]
    Results(results::ResultsCommand),
    /// Compare stored runs metric by metric, with confidence intervals and verdicts.
    Compare(compare::CompareArgs),
    /// Two configurations of one command, round by round (A B, B A, ...), until the verdict is known.
    Ab(ab::AbArgs),
    /// The nightly or pull-request gate: start and warm an engine, run `ab`'s rounds until the
    /// verdict is known, exit 0 (not worse), 3 (worse) or 125 (cannot tell).
    Gate(ab::gate::GateArgs),
    /// The highest ingest rate the cluster sustains within a p99 latency and error-rate limit.
    Saturate(saturate::SaturateArgs),
    /// Check a run against a baseline: exit 0 pass, 3 regressed, 125 cannot tell (CI, git bisect).
    Check(check::CheckArgs),
    /// Find the first release between a good and a bad one that changed a metric.
    Bisect(bisect::BisectArgs),
    /// Run one ingest configuration N times: run-to-run noise and the change k runs can see.
    Calibrate(calibrate::CalibrateArgs),
    /// A grid of ingest configurations (bulk size × clients × settings): the one to use.
    Sweep(sweep::SweepArgs),
    /// Render stored runs as an offline HTML page, Markdown or CSV.
    Report(report::ReportArgs),
    /// The stored runs of one configuration over engine versions or time, with change points.
    History(history::HistoryArgs),
    /// A note beside the runs ("JDK 21.0.5" on build=n05, or from a date on), marked on
    /// every chart of their history and of the site.
    Annotate(annotate::AnnotateArgs),
    /// The team's nightly site: a static, offline page per configuration, from the store or
    /// the team's results cluster.
    Site(site::SiteArgs),
    /// Kibana or OpenSearch Dashboards saved objects (NDJSON) over the published runs:
    /// dashboards charting each metric over time and engine versions, change points marked.
    #[command(subcommand)]
    Dashboards(dashboards::DashboardsCommand),
    /// One workload and configuration over several engines, interleaved, with change points.
    Matrix(matrix::MatrixArgs),
    /// Dates as Elasticsearch/OpenSearch `date` fields read them: parse them (`dates parse`),
    /// or measure what date handling costs the engine (`dates cost`).
    #[command(subcommand)]
    Dates(dates::DatesCommand),
    /// The old spelling of `dates cost` (`experiment dates`).
    #[command(subcommand, hide = true)]
    Experiment(dates::cost::ExperimentCommand),
    /// The built-in workloads (list, info) and your own (`workload init` writes a workload
    /// file from an existing index).
    #[command(visible_alias = "workloads")]
    Workload(workload::WorkloadArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff), generated from these very flags.
    Man(shell::ManArgs),
    /// The sketch store's own process, as `engine start sketch` runs it.
    #[command(name = "sketch-serve", hide = true)]
    SketchServe(sketch_serve::SketchServeArgs),
}

/// Parses the arguments, runs the command, prints errors, returns the exit code.
pub fn main() -> i32 {
    let argv = args::legacy::rewrite(std::env::args_os().collect());
    let parsed = command()
        .try_get_matches_from(argv)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
        }
    };
    cli.color.apply();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            errln!("error: cannot start the async runtime: {e}");
            return exit::FAILURE;
        }
    };
    let outcome = runtime.block_on(run(cli));
    // What is left on the runtime's blocking threads once the command has ended (a wait for
    // another process's lock that Ctrl-C gave up on, a read of an idle pipe) is not waited
    // for: dropped, the runtime would wait for it, deaf to every signal.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    // Every command ends saying what it could not publish (whatever it was: a run, a sweep's
    // cells, a merge), and with `--publish-required` exits with its own code for it.
    let not_published = args::publish_ledger().take();
    if let Some(words) = crate::publish::ledger::said(&not_published) {
        errln!("warning: {words}");
    }
    match outcome {
        Ok(()) if !not_published.is_empty() && args::publish_required() => {
            errln!(
                "error: --publish-required: the work was done and kept, but {} run(s) are not \
                 published",
                not_published.len()
            );
            exit::NOT_PUBLISHED
        }
        Ok(()) => exit::OK,
        Err(CliError { code, error }) => {
            errln!("error: {}", crate::cluster::error_chain(&*error));
            code
        }
    }
}

pub async fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Engine(cmd) => engine::run(cmd).await,
        Command::Target(cmd) => target::run(cmd).await,
        Command::Generate(args) => generate::run(args).await,
        Command::Ingest(args) => ingest::run(args).await,
        Command::Run(args) => run::run(args).await,
        Command::Query(args) => query::run(args).await,
        Command::Dates(cmd) => dates::run(cmd).await,
        Command::Experiment(cmd) => dates::cost::run(cmd).await,
        Command::Results(cmd) => results::run(cmd).await,
        Command::Deploy(cmd) => deploy::run(cmd).await,
        Command::Compare(args) => compare::run(args).await,
        Command::Ab(args) => ab::run(args).await,
        Command::Gate(args) => ab::gate::run(args).await,
        Command::Check(args) => check::run(args).await,
        Command::Bisect(args) => bisect::run(args).await,
        Command::Calibrate(args) => calibrate::run(args).await,
        Command::Saturate(args) => saturate::run(args).await,
        Command::Report(args) => report::run(args).await,
        Command::History(args) => history::run(args).await,
        Command::Site(args) => site::run(args).await,
        Command::Dashboards(c) => dashboards::run(c).await,
        Command::Matrix(args) => matrix::run(args).await,
        Command::Annotate(args) => annotate::run(args).await,
        Command::Workload(args) => workload::run(args).await,
        Command::Sweep(args) => sweep::run(args).await,
        Command::Completions(args) => shell::completions(args),
        Command::Man(args) => shell::man(args),
        Command::SketchServe(args) => sketch_serve::run(args).await,
    }
}

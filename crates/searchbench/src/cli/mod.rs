//! The `searchbench` command line: argument parsing, dispatch, exit codes.

/// `println!` for the CLI: a closed stdout (`searchbench check … | head -1`) drops the rest of
/// the output quietly and the command goes on to exit with its own code, so a verdict survives
/// the pipe (`set -o pipefail` then sees it). Any other write error fails as `println!` does.
macro_rules! outln {
    () => {
        $crate::cli::output::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `outln!` for prose: wrapped between words at the terminal's width (see
/// [`output::say`]).
macro_rules! sayln {
    ($($arg:tt)*) => {
        $crate::cli::output::say(format_args!($($arg)*))
    };
}

/// `print!` for the CLI; see [`outln`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!($($arg)*))
    };
}

mod ab;
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
mod generate;
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

/// An error at the CLI edge, carrying the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub error: anyhow::Error,
}

impl CliError {
    pub fn usage(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: exit::USAGE,
            error: error.into(),
        }
    }
    /// A session's error: bad usage or input exits 2, an interruption 130, anything else 1.
    pub fn session(error: crate::session::SessionError) -> Self {
        CliError {
            code: session_code(&error),
            error: error.into(),
        }
    }
    pub fn check(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: exit::CHECK_FAILED,
            error: error.into(),
        }
    }
}

fn session_code(error: &crate::session::SessionError) -> i32 {
    match error {
        e if e.is_usage() => exit::USAGE,
        crate::session::SessionError::Interrupted(_) => exit::INTERRUPTED,
        _ => exit::FAILURE,
    }
}

/// Exit 1, except for a session's error that reaches here through `?`: it keeps the code
/// [`CliError::session`] gives it, so a command cannot exit 1 where another exits 2 (and the
/// rounds' errors theirs).
impl<E: Into<anyhow::Error>> From<E> for CliError {
    fn from(error: E) -> Self {
        let error = error.into();
        let rounds = || {
            error
                .downcast_ref::<crate::session::rounds::RoundsError>()
                .map(|e| e.code())
        };
        let code = error
            .downcast_ref::<crate::session::SessionError>()
            .map(session_code)
            .or_else(rounds)
            .unwrap_or(exit::FAILURE);
        CliError { code, error }
    }
}

pub type CliResult = Result<(), CliError>;

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
    after_help = "Exit codes: 0 ok, 1 failure (the work could not be done), 2 bad usage or input, 3 a check failed (counts, answers, a regression), 125 cannot tell (check, bisect), 130 interrupted (Ctrl-C or SIGTERM)."
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
/// The flags `-h` shows: what people use on most runs. `--help` shows every flag, grouped.
const SHORT_HELP_FLAGS: [&str; 12] = [
    "engine",
    "urls",
    "url",
    "docs",
    "clients",
    "bulk_size",
    "index",
    "json",
    "tag",
    "store",
    "workload_file",
    "metric",
];

/// The command line as parsed: [`Cli`], with `-h` kept short (the flags of
/// [`SHORT_HELP_FLAGS`], the arguments, and a pointer to `--help`) on every command.
pub fn command() -> clap::Command {
    fn shorten(cmd: clap::Command) -> clap::Command {
        let hidden: Vec<String> = cmd
            .get_arguments()
            .filter(|a| !a.is_positional() && !SHORT_HELP_FLAGS.contains(&a.get_id().as_str()))
            .map(|a| a.get_id().to_string())
            .collect();
        let mut cmd = cmd;
        for id in &hidden {
            cmd = cmd.mut_arg(id.as_str(), |a| a.hide_short_help(true));
        }
        if !hidden.is_empty() {
            let before = cmd
                .get_after_help()
                .map(|h| format!("{h}\n\n"))
                .unwrap_or_default();
            let all = cmd.get_arguments().filter(|a| !a.is_positional()).count();
            cmd = cmd.after_help(format!(
                "{before}(-h shows the common flags; --help all {all} of them.)"
            ));
        }
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        for name in names {
            cmd = cmd.mut_subcommand(name, shorten);
        }
        cmd
    }
    let root = <Cli as clap::CommandFactory>::command();
    let names: Vec<String> = root
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    names
        .into_iter()
        .fold(root, |root, name| root.mut_subcommand(name, shorten))
}

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
            eprintln!("error: cannot start the async runtime: {e}");
            return exit::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => exit::OK,
        Err(CliError { code, error }) => {
            eprintln!("error: {}", crate::cluster::error_chain(&*error));
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
        Command::Workload(args) => workload::run(args).await,
        Command::Sweep(args) => sweep::run(args).await,
        Command::Completions(args) => shell::completions(args),
        Command::Man(args) => shell::man(args),
        Command::SketchServe(args) => sketch_serve::run(args).await,
    }
}

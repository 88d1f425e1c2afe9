//! `searchbench matrix`: one workload and configuration over several engines, interleaved;
//! at the end the same table as `searchbench history` and an HTML page.

use clap::Args;

use super::args::SaveArgs;
use super::args::{CorpusArgs, LoadArgs, NodeArgs};
use super::output::Terminal;
use super::{output, CliError, CliResult};
use crate::session::matrix::{self, MatrixSpec, Step};
use crate::session::run::RunSpec;
use crate::session::ClusterSpec;

#[derive(Debug, Args)]
#[command(
    long_about = "Run one workload and configuration on several engines, each run exactly \
        what `searchbench run` does (one engine start per run), --repeats rounds in an \
        interleaved order: each round is a fresh seeded permutation of the engines, so that \
        drift of the machine spreads over all of them. The order is printed first and kept \
        with every run as tags (matrix=ID, matrix_round, matrix_position).\n\n\
        At the end: the table of `searchbench history --tag matrix=ID` (each metric's median \
        and interval per engine, change points between versions) and an offline HTML page \
        next to the store's reports. An engine that fails to start is recorded and left out \
        of later rounds; the matrix goes on, and exits 1 at the end when a run did not \
        complete. Ctrl-C stops it and keeps what is done (exit 130).",
    after_help = "Examples:\n  \
        searchbench matrix logs --engines opensearch-2.11.0,opensearch-2.19.1 --repeats 3\n  \
        searchbench matrix logs --engines opensearch-2.0.0..opensearch-3.3.0 --per-minor --docs 1000000\n  \
        searchbench history --tag matrix=ID --html matrix.html      the same table again"
)]
pub struct MatrixArgs {
    /// Built-in workload: logs, cluster-metrics, transactions.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true)]
    pub workload: String,
    /// The engines: A,B,C, or FROM..TO for every release of one product between them
    /// (inclusive; of one kind when FROM and TO are: runner or distribution).
    #[arg(long, value_name = "A,B,C|FROM..TO")]
    pub engines: String,
    /// With FROM..TO: only the newest release of each minor version.
    #[arg(long)]
    pub per_minor: bool,
    /// Rounds: runs per engine.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub repeats: u64,
    /// Seed of the order's permutations.
    #[arg(long, default_value_t = 1)]
    pub order_seed: u64,
    /// Index to load into (default: the workload's).
    #[arg(long)]
    pub index: Option<String>,
    /// Skip the query phase (logs and cluster-metrics have one).
    #[arg(long)]
    pub no_query: bool,
    /// The whole matrix (its order, runs and history) as JSON at the end.
    #[command(flatten)]
    pub json: super::args::JsonArgs,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub node: NodeArgs,
    #[command(flatten)]
    pub warm: super::args::WarmArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Every run's load profiled, each run keeping its own profile (`history` and `compare`
    /// see profile.cpu.* across the engines).
    #[command(flatten)]
    pub profile: crate::cli::args::ProfileArgs,
    #[command(flatten)]
    pub save: SaveArgs,
}

pub async fn run(mut args: MatrixArgs) -> CliResult {
    let w = crate::session::job::find_workload(&args.workload).map_err(CliError::session)?;
    if args.corpus.docs.is_none() {
        args.corpus.docs = w.default_docs();
    }
    if args.save.no_store {
        return Err(CliError::usage(anyhow::anyhow!(
            "a matrix keeps its runs in the store: drop --no-store"
        )));
    }
    let engines = matrix::engines(&args.engines, args.per_minor).map_err(CliError::session)?;
    let workload_spec = args.corpus.spec(w.wants_truth() && !args.no_query);
    let index = args
        .index
        .clone()
        .unwrap_or_else(|| w.default_index().to_string());
    let progress = !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut load = args.load.spec(&index, progress);
    let begun = super::ending::listen();
    let cancel = begun.cancel.clone();
    load.cancel = Some(cancel);
    let mut cluster = ClusterSpec::local(args.node.options(crate::engine::DEFAULT_ENGINE));
    cluster.start.stop = begun.cancel.clone();
    cluster.serve(&args.workload);
    let attach = args
        .save
        .attach(Some(&args.load.telemetry), args.profile.spec(&cluster)?)?;
    // Every run's fresh node is warmed before its measured load.
    cluster.warm = args.warm.generated(&args.workload, &workload_spec, &load);
    let spec = MatrixSpec {
        id: matrix::new_id(),
        workload: args.workload.clone(),
        run: RunSpec {
            workload_spec,
            queries: !args.no_query,
            progress: crate::query::Progress::default(),
            user_queries: None,
            split: None,
            rewrites: None,
        },
        index: args.index.clone(),
        engines,
        repeats: args.repeats as usize,
        order_seed: args.order_seed,
        cluster,
        load,
        attach,
    };
    let order = matrix::order(&spec.engines, spec.repeats, spec.order_seed);
    output::matrix::print_order(&spec.id, &order, spec.order_seed);
    // Each run's own tables would bury the matrix: status lines only, the summary at the end.
    let mut terminal = Terminal::new(true);
    terminal.tables = false;
    let step = |s: Step<'_>| output::matrix::step(&s);
    let m = matrix::matrix(&spec, &terminal, &step)
        .await
        .map_err(CliError::session)?;
    let save = &spec.attach.save;
    super::ending::study::end(
        &args.json,
        save,
        &terminal,
        &m,
        super::ending::study::no_pages,
    )
}

//! `searchbench bisect WORKLOAD --good ENGINE --bad ENGINE --metric M`: the first release
//! between the two that changed the metric.

use clap::Args;

use super::args::parse_percent;
use super::args::SaveArgs;
use super::args::{CorpusArgs, LoadArgs, NodeArgs};
use super::{output, CliError, CliResult};
use crate::session::bisect::search::Policy;
use crate::session::{self, bisect::BisectSpec};

#[derive(Debug, Args)]
#[command(
    long_about = "Find the first release between a good and a bad one that changed a metric: \
        a binary search over the catalogue's releases of the same product and kind, with \
        real runs of the workload (each kept in the store with a bisect=<id> tag).\n\n\
        Both ends are run until they differ (Welch's t interval excludes zero and the change \
        is at least --threshold); if the runs could have seen such a change and did not, \
        there is nothing to bisect. Each probe is then run until its mean is clearly on the \
        good or the bad side of the midpoint between the good and the bad level (95 % \
        interval; the levels pool the runs of the versions already placed). A probe still \
        undecided after --max-repeats runs stops the search, which then names the range \
        that remains instead of guessing.\n\n\
        Exit codes: 0 found (or no change between the ends), 125 cannot tell, 2 bad usage, \
        1 a run failed.",
    after_help = "Examples:\n  \
        searchbench bisect logs --good opensearch-2.11.0 --bad opensearch-2.17.0 --metric docs_per_sec\n  \
        searchbench bisect logs --max-repeats 6 --good es-8.14.3 --bad es-8.17.4 --metric service_p99_ms"
)]
pub struct BisectArgs {
    /// Built-in workload: logs, cluster-metrics, transactions.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true)]
    pub workload: String,
    /// A release without the change, e.g. opensearch-2.11.0.
    #[arg(long)]
    pub good: String,
    /// A release with the change, e.g. opensearch-2.17.0 (same product and kind).
    #[arg(long)]
    pub bad: String,
    /// The metric: a key as `searchbench compare --json` names it, or its last part, e.g.
    /// docs_per_sec, service_p99_ms.
    #[arg(long)]
    pub metric: String,
    /// The smallest change worth bisecting, e.g. 5% or 2.5.
    #[arg(long, default_value = "5%", value_parser = parse_percent)]
    pub threshold: f64,
    /// Runs of one release at most (the ends get 3 to start with, a probe 2).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(3..=100))]
    pub max_repeats: u64,
    /// Index to load into (default: the workload's).
    #[arg(long)]
    pub index: Option<String>,
    /// Skip the query phase of each run.
    #[arg(long)]
    pub no_query: bool,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub node: NodeArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub save: SaveArgs,
    #[command(flatten)]
    pub json: super::args::JsonArgs,
}

pub async fn run(mut a: BisectArgs) -> CliResult {
    let w = session::job::find_workload(&a.workload).map_err(CliError::session)?;
    if a.corpus.docs.is_none() {
        a.corpus.docs = w.default_docs();
    }
    let queries = !a.no_query;
    let workload_spec = a.corpus.spec(w.wants_truth() && queries);
    // Each run's job names its index.
    let mut load = a
        .load
        .spec(a.index.as_deref().unwrap_or(&a.workload), false);
    let begun = super::ending::listen();
    let cancel = begun.cancel.clone();
    load.cancel = Some(cancel);
    let spec = BisectSpec {
        workload: a.workload.clone(),
        workload_spec,
        index: a.index.clone(),
        queries,
        good: a.good.clone(),
        bad: a.bad.clone(),
        metric: a.metric.clone(),
        policy: Policy {
            max_repeats: usize::try_from(a.max_repeats).unwrap_or(10),
            threshold_pct: a.threshold,
            ..Policy::default()
        },
        start: crate::engine::StartOptions {
            stop: begun.cancel.clone(),
            ..a.node.options(&a.good)
        },
        load,
        attach: a.save.attach(Some(&a.load.telemetry), None)?,
        progress: output::stderr_lines(),
    };
    let result = session::bisect::bisect(&spec)
        .await
        .map_err(CliError::session)?;
    let save = &spec.attach.save;
    // Each run's session tells its own observer; the bisection's verdict is its own.
    let terminal = output::Terminal::new(true);
    super::ending::study::end(
        &a.json,
        save,
        &terminal,
        &result,
        super::ending::study::no_pages,
    )
}

//! `searchbench calibrate WORKLOAD`: one ingest configuration run N times on one target, to
//! measure the run-to-run noise and say how many runs a side a comparison needs.

use clap::Args;

use super::args::{ClusterArgs, GeneratorArgs, LoadArgs, OutputArgs};
use super::ending::Verdict;
use super::output::Terminal;
use super::{CliError, CliResult};
use crate::session::calibrate::{self, CalibrateSpec};
use crate::session::Job;

#[derive(Debug, Args)]
#[command(
    long_about = "Run one ingest configuration several times on one target and measure the \
        noise: each run's headline docs/s (documents acknowledged after the warm-up ÷ the \
        steady window), their mean, standard deviation and coefficient of variation (CV), \
        and the smallest change a comparison of k runs a side could detect (k = 2..5; 95 % \
        confidence, 80 % power, Welch's t with 2(k-1) degrees of freedom): \
        (t_0.975 + t_0.80) × CV × sqrt(2/k).\n\n\
        Every run is kept in the results store like an ingest (use --tag to group them).",
    after_help = "Examples:\n  \
        searchbench calibrate logs --docs 100000 --runs 6\n  \
        searchbench calibrate logs --docs 50000 --runs 5 --url http://127.0.0.1:9200 --tag cal=1"
)]
pub struct CalibrateArgs {
    /// Built-in workload whose generator to use: logs, cluster-metrics, transactions.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true)]
    pub workload: String,
    /// Documents per run.
    #[arg(long, default_value_t = 100_000, value_name = "N", value_parser = crate::cli::args::units::parse_positive_count)]
    pub docs: u64,
    /// Runs of the configuration (2 at least).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(2..=100))]
    pub runs: u64,
    /// Runs made first and not counted: a fresh node's JVM also warms up across runs.
    #[arg(long, default_value_t = 1)]
    pub warmup_runs: u64,
    /// Generator seed (the same documents every run).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Index to load into (default: the workload's).
    #[arg(long)]
    pub index: Option<String>,
    #[command(flatten)]
    pub generator: GeneratorArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

pub async fn run(a: CalibrateArgs) -> CliResult {
    let workload_spec = a.generator.spec(a.seed, Some(a.docs), false);
    // Resolve the workload before anything starts (a bad name is bad usage).
    let job = Job::generated(&a.workload, &workload_spec, a.index.clone(), &[])
        .map_err(CliError::session)?;
    let spec = CalibrateSpec {
        workload: a.workload.clone(),
        workload_spec,
        index: a.index.clone(),
        runs: a.runs,
        warmup_runs: a.warmup_runs,
    };
    let mut cluster = a.cluster.spec()?;
    let mut load = a.load.spec(&job.index, a.out.progress());
    // The first Ctrl-C stops the load and keeps what was done; a second quits at once.
    let begun = super::ending::listen();
    let cancel = begun.cancel.clone();
    cluster.start.stop = cancel.clone();
    load.cancel = Some(cancel);
    let terminal = Terminal::new(a.out.quiet);
    let attach = a.out.attach(Some(&a.load.telemetry), None)?;
    let c = calibrate::calibrate(&spec, &cluster, load, &attach, &terminal, |i, report| {
        report.verdict()?;
        errln!(
            "run {i}/{}: {:.0} docs/s ({})",
            a.runs,
            report.docs_per_sec,
            report.headline.definition
        );
        Ok::<_, CliError>(())
    })
    .await?;
    super::ending::study::end(
        &a.out.json,
        &attach.save,
        &terminal,
        &c,
        super::ending::study::no_pages,
    )
}

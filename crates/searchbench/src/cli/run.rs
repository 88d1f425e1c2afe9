//! `searchbench run`: the whole job for a built-in workload: start an engine (attached), set
//! the index up, ingest, run the workload's queries, print summary, attribution and query
//! tables, keep the result and write its HTML report, stop the engine.

use clap::Args;
use serde::Serialize;

use super::generate::GeneratorArgs;
use super::ingest::{
    begin_recording, connect, load, print_report, save_outcome, stop, verdict, write_json,
    ClusterArgs, Job, Tuning,
};
use super::{query, CliError, CliResult};
use crate::engine::Node;
use crate::ingest::IngestReport;
use crate::query::QueryResult;
use crate::store::Kind;

#[derive(Debug, Args)]
#[command(after_long_help = "Examples:\n  \
    searchbench run logs --docs 200000\n  \
    searchbench run cluster-metrics --epochs 2 --rows-per-epoch 200000 --engine elasticsearch-7.10.2\n  \
    searchbench run transactions --docs 100000 --clients 4 --bulk-size 500\n\n\
    The result is kept in the results store (see `searchbench results`) and an HTML report is \
    written next to it; its path is printed at the end.")]
pub struct RunArgs {
    /// Built-in workload: logs, cluster-metrics, transactions.
    pub workload: String,
    /// Documents to generate [default: 200000; cluster-metrics: rows per epoch × epochs].
    #[arg(long)]
    pub docs: Option<u64>,
    /// Generator seed: same seed, same documents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Index to load into (default: the workload's).
    #[arg(long)]
    pub index: Option<String>,
    /// Skip the query phase (logs and cluster-metrics have one).
    #[arg(long)]
    pub no_query: bool,
    #[command(flatten)]
    pub generator: GeneratorArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub tuning: Tuning,
}

/// What a run keeps: the ingest report (flattened, so it reads like one) and the query phase.
#[derive(Debug, Serialize)]
struct RunResult {
    #[serde(flatten)]
    ingest: IngestReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<QueryResult>,
}

pub async fn run(args: RunArgs) -> CliResult {
    let metrics = args.workload == "cluster-metrics";
    let docs = match args.docs {
        None if !metrics => Some(200_000),
        docs => docs,
    };
    let spec = args
        .generator
        .spec(args.seed, docs, metrics && !args.no_query);
    let mut job = Job::generated(&args.workload, &spec, args.index.clone())?;
    crate::ingest::index::check_name(&job.index).map_err(CliError::usage)?;
    let recording = begin_recording(Kind::Run, &job, &args.cluster, &args.tuning);
    let index = job.index.clone();
    let truth = job.truth.take();

    let outcome = async {
        let (target, node) = connect(&args.cluster).await?;
        let engine_pid = node.as_ref().map(Node::pid).or(args.cluster.engine_pid);
        let phases = async {
            let ingest = load(&target, job, &args.tuning, engine_pid, recording.as_ref()).await?;
            print_report(&ingest);
            let loaded = ingest.error.is_none() && !ingest.interrupted;
            let query = if loaded && !args.no_query {
                let parts = truth.map(|t| t.take()).unwrap_or_default();
                eprintln!("\nquerying {index} ({} workload)", args.workload);
                let result =
                    query::after_ingest(target.clone(), &index, &args.workload, &spec, parts)
                        .await?;
                if let Some(r) = &result {
                    crate::query::print(r);
                    if let Some(rec) = &recording {
                        rec.histograms(&r.histograms());
                    }
                }
                result
            } else {
                None
            };
            Ok::<_, CliError>(RunResult { ingest, query })
        }
        .await;
        stop(node).await;
        phases
    }
    .await;
    let result = save_outcome(recording, outcome, true)?;
    write_json(&result, &args.tuning)?;
    verdict(&result.ingest)?;
    match &result.query {
        Some(q) if !q.passed() => Err(CliError::check(anyhow::anyhow!(
            "queries: {} wrong answer(s), {} failed request(s)",
            q.failures_total,
            q.request_errors()
        ))),
        _ => Ok(()),
    }
}

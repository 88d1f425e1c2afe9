//! `searchbench results`: the stored runs (list, show; import, merge and publish, a file
//! each). The flags that say where results go are `args::StoreArgs` and `args::SaveArgs`.

use clap::{Args, Subcommand};
use serde_json::Value;

use super::args::{tag_arg, ReadArgs};
use super::{output, CliError, CliResult};
use crate::store::{self, Filter};

mod import;
mod merge;
mod prune;
mod publish;
mod verify;

pub use import::ImportArgs;
pub use merge::MergeArgs;
pub use prune::PruneCmd;
pub use publish::PublishCmd;
pub use verify::VerifyCmd;

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Every ingest, run and query is saved as it goes (see --store, --tag). \
    A run killed halfway stays in the store as `incomplete`.\n\n\
    Examples:\n  \
    searchbench results list --workload logs --tag build=nightly\n  \
    searchbench results show 3fa9c2e1\n  \
    searchbench results import result.json --tag build=old\n  \
    searchbench results import host2/results.db\n  \
    searchbench results merge nightly-42 --url http://10.0.0.5:9200\n  \
    searchbench results publish --publish https://results:9200 --publish-user bench\n  \
    searchbench results verify --publish https://results:9200\n  \
    searchbench results prune --older-than 90d --publish https://results:9200"
)]
pub enum ResultsCommand {
    /// The stored runs, newest first.
    List(ListArgs),
    /// Everything about one run: configuration, machine, figures, tags.
    Show(ShowArgs),
    /// Store a result written by `ingest --json` or `query --json`, or copy in every run of
    /// another results store (another driver host's parts of a run, to merge here).
    Import(ImportArgs),
    /// Make one run of the parts of a run split over several processes or hosts
    /// (`--part I/N --group ID`).
    Merge(Box<MergeArgs>),
    /// Send stored runs to the team's results cluster (`--publish URL`): every run not yet
    /// there as it now is, or the runs named.
    Publish(PublishCmd),
    /// Whether the team's results cluster (`--publish URL`) still holds every run published
    /// there; a run it lost is pending again.
    Verify(VerifyCmd),
    /// Forget the runs older than an age (--older-than 90d), in the store and, with
    /// --publish URL, in the team's results cluster.
    Prune(PruneCmd),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub store: ReadArgs,
    /// Only this workload.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true, long)]
    pub workload: Option<String>,
    /// Only engines whose name starts with this (opensearch, opensearch-2.19).
    #[arg(value_parser = crate::cli::args::suggest::engines(), hide_possible_values = true, long)]
    pub engine: Option<String>,
    /// Only runs with this tag (repeatable: all must match).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag_arg)]
    pub tags: Vec<(String, String)>,
    /// Only runs made where and by whom this says (repeatable: all must match): host, user,
    /// commit (searchbench's own), ci (the CI system), ci.job, ci.pipeline, ci.commit, as
    /// `results show RUN` shows a run's provenance.
    #[arg(long = "where", value_name = "KEY=VALUE", value_parser = crate::cli::args::where_arg)]
    pub provenance: Vec<(String, String)>,
    /// At most this many runs.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Print JSON (without the results) instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub store: ReadArgs,
    /// Run id (a unique prefix is enough).
    pub id: String,
    /// Print the whole stored run as JSON (result and timeline included).
    #[arg(long)]
    pub json: bool,
}

pub async fn run(cmd: ResultsCommand) -> CliResult {
    match cmd {
        ResultsCommand::List(a) => list(a).await,
        ResultsCommand::Show(a) => show(a).await,
        ResultsCommand::Import(a) => import::import(a),
        ResultsCommand::Merge(a) => merge::merge(*a).await,
        ResultsCommand::Publish(a) => publish::publish(a).await,
        ResultsCommand::Verify(a) => verify::verify(a).await,
        ResultsCommand::Prune(a) => prune::prune(a).await,
    }
}

async fn list(a: ListArgs) -> CliResult {
    let filter = Filter {
        workload: a.workload,
        engine: a.engine,
        tags: crate::cli::args::selected_tags(a.tags),
        provenance: a.provenance,
        limit: Some(a.limit),
        ..Default::default()
    };
    let store = a.store.open_newest(&filter, a.limit).await?;
    let rows = store.list(&filter)?;
    // Where each run was published, or is pending (a publish failed, or it changed since).
    let published = rows
        .iter()
        .map(|r| store.publish_states(&r.id))
        .collect::<Result<Vec<_>, _>>()?;
    if a.json {
        let mut slim = Vec::with_capacity(rows.len());
        for (mut r, states) in rows.into_iter().zip(&published) {
            r.result = None;
            let mut v = serde_json::to_value(&r)?;
            v["published"] = serde_json::to_value(states)?;
            v["publish_state"] = store::publish_word(states, r.state).into();
            slim.push(v);
        }
        output::json(&slim)?;
        return Ok(());
    }
    if rows.is_empty() {
        errln!("no runs in {} match", a.store.place(&store));
        return Ok(());
    }
    let words: Vec<&str> = rows
        .iter()
        .zip(&published)
        .map(|(r, states)| store::publish_word(states, r.state))
        .collect();
    output::results::list(&rows, &words);
    Ok(())
}

async fn show(a: ShowArgs) -> CliResult {
    let store = a.store.open().await?;
    let row = store.get(&a.id).map_err(CliError::usage)?;
    let run = crate::analysis::runs::Loaded::read(&store, row)?;
    let metrics = run.metrics();
    let published = store.publish_states(&run.row.id)?;
    let histograms: Vec<Value> = run
        .histograms
        .iter()
        .map(store::histogram_summary)
        .collect();
    if a.json {
        let mut v = serde_json::to_value(&run.row)?;
        if run.row.result_timeline().is_none() {
            v["timeline"] = Value::Array(run.timeline.clone());
        }
        v["histograms"] = Value::Array(histograms);
        v["published"] = serde_json::to_value(&published)?;
        // Every metric as every view reads it, and each phase's record: what it counted,
        // its bounds, its timed lists, what each instrument kept around it.
        v["metrics"] = serde_json::to_value(&metrics)?;
        v["phases"] = run
            .phases
            .iter()
            .map(|p| {
                let m = &p.measurements;
                serde_json::json!({"phase": p.phase, "counts": m.counts, "bounds": m.bounds,
                    "timed": m.timed, "kept": p.kept})
            })
            .collect();
        output::json(&v)?;
        return Ok(());
    }
    output::results::show(&run.row, &run.timeline, &histograms, &metrics, &published);
    Ok(())
}

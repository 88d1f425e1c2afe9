//! `searchbench results`: the stored runs (list, show, import). The flags that say where
//! results go are `args::StoreArgs` and `args::SaveArgs`.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde_json::Value;

use super::args::{tag_arg, SaveArgs, StoreArgs};
use super::{output, CliError, CliResult};
use crate::analysis::metrics;
use crate::store::{self, Filter, Kind, NewRun, RunRow};

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Every ingest, run and query is saved as it goes (see --store, --tag). \
    A run killed halfway stays in the store as `incomplete`.\n\n\
    Examples:\n  \
    searchbench results list --workload logs --tag build=nightly\n  \
    searchbench results show 3fa9c2e1\n  \
    searchbench results import result.json --tag build=old"
)]
pub enum ResultsCommand {
    /// The stored runs, newest first.
    List(ListArgs),
    /// Everything about one run: configuration, machine, figures, tags.
    Show(ShowArgs),
    /// Store a result written by `ingest --json` or `query --json`.
    Import(ImportArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Only this workload.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true, long)]
    pub workload: Option<String>,
    /// Only engines whose name starts with this (opensearch, opensearch-2.19).
    #[arg(value_parser = crate::cli::args::suggest::engines(), hide_possible_values = true, long)]
    pub engine: Option<String>,
    /// Only runs with this tag (repeatable: all must match).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag_arg)]
    pub tags: Vec<(String, String)>,
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
    pub store: StoreArgs,
    /// Run id (a unique prefix is enough).
    pub id: String,
    /// Print the whole stored run as JSON (result and timeline included).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub save: SaveArgs,
    /// A JSON result file.
    #[arg(value_parser = super::args::input_file)]
    pub file: PathBuf,
    /// Workload name (default: the result's, else the file name).
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true, long)]
    pub workload: Option<String>,
}

pub async fn run(cmd: ResultsCommand) -> CliResult {
    match cmd {
        ResultsCommand::List(a) => list(a),
        ResultsCommand::Show(a) => show(a),
        ResultsCommand::Import(a) => import(a),
    }
}

fn list(a: ListArgs) -> CliResult {
    let store = a.store.open()?;
    let rows = store.list(&Filter {
        workload: a.workload,
        engine: a.engine,
        tags: a.tags,
        limit: Some(a.limit),
        ..Default::default()
    })?;
    if a.json {
        let slim: Vec<RunRow> = rows
            .into_iter()
            .map(|mut r| {
                r.result = None;
                r
            })
            .collect();
        output::json(&slim)?;
        return Ok(());
    }
    if rows.is_empty() {
        eprintln!("no runs in {} match", store.path().display());
        return Ok(());
    }
    output::results::list(&rows);
    Ok(())
}

fn show(a: ShowArgs) -> CliResult {
    let store = a.store.open()?;
    let row = store.get(&a.id).map_err(CliError::usage)?;
    let timeline = crate::analysis::compare::timeline_of(&store, &row)?;
    let histograms: Vec<Value> = store
        .histograms(&row.id)?
        .iter()
        .map(store::histogram_summary)
        .collect();
    if a.json {
        let mut v = serde_json::to_value(&row)?;
        if row.result_timeline().is_none() {
            v["timeline"] = Value::Array(timeline);
        }
        v["histograms"] = Value::Array(histograms);
        output::json(&v)?;
        return Ok(());
    }
    output::results::show(&row, &timeline, &histograms);
    Ok(())
}

fn import(a: ImportArgs) -> CliResult {
    let text = std::fs::read(&a.file)
        .with_context(|| format!("cannot read {}", a.file.display()))
        .map_err(CliError::usage)?;
    let result: Value = serde_json::from_slice(&text)
        .with_context(|| format!("{}: not JSON", a.file.display()))
        .map_err(CliError::usage)?;
    let kind = if metrics::is_ingest(&result) {
        Kind::Ingest
    } else if metrics::is_query(&result) {
        Kind::Query
    } else {
        return Err(CliError::usage(anyhow::anyhow!(
            "{}: neither an ingest result (docs_per_sec, counts) nor a query result (cells)",
            a.file.display()
        )));
    };
    // The workload is stored by name alone (what `results list --workload` matches); the
    // corpus's parameters stay in the result and its seed goes in the seed column.
    let corpus = result.get("corpus").and_then(Value::as_str);
    let workload = a
        .workload
        .or_else(|| result.get("workload")?.as_str().map(str::to_string))
        .or_else(|| {
            let corpus = corpus?;
            Some(
                if corpus.starts_with("NDJSON file") || corpus.starts_with("CSV file") {
                    "files".to_string()
                } else {
                    store::workload_name(corpus).to_string()
                },
            )
        })
        .or_else(|| result.get("index")?.as_str().map(str::to_string))
        .unwrap_or_else(|| a.file.display().to_string());
    let config = result
        .get("config")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({ "imported_from": a.file.display().to_string() }));
    let store = a.save.store.open_or_create()?;
    let mut run = NewRun::new(kind, workload, config);
    run.seed = corpus.and_then(store::seed_in);
    run.tags = a.save.tags;
    let id = store.save(&run, &result)?;
    outln!("{id}");
    eprintln!("saved as run {id} in {}", store.path().display());
    Ok(())
}

//! `searchbench results`: the stored runs (list, show, import). The flags that say where
//! results go are `args::StoreArgs` and `args::SaveArgs`.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde_json::Value;

use super::args::{tag_arg, SaveArgs, StoreArgs};
use super::{output, CliError, CliResult};
use crate::analysis::{merge, metrics};
use crate::store::{self, Filter, Kind, NewRun, RunRow};

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Every ingest, run and query is saved as it goes (see --store, --tag). \
    A run killed halfway stays in the store as `incomplete`.\n\n\
    Examples:\n  \
    searchbench results list --workload logs --tag build=nightly\n  \
    searchbench results show 3fa9c2e1\n  \
    searchbench results import result.json --tag build=old\n  \
    searchbench results import host2/results.db\n  \
    searchbench results merge nightly-42 --url http://10.0.0.5:9200"
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
    Merge(MergeArgs),
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
    /// A JSON result file, or another results store (an SQLite file: each of its runs is
    /// copied in with its timeline, histograms and telemetry, under its own id; a run already
    /// here is skipped).
    #[arg(value_parser = super::args::input_file)]
    pub file: PathBuf,
    /// Workload name (default: the result's, else the file name).
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true, long)]
    pub workload: Option<String>,
}

/// `results merge GROUP`.
#[derive(Debug, Args)]
#[command(
    after_help = "The parts of a group are the runs started with `--part I/N --group ID`; \
    copy other hosts' stores in first (`results import THEIR_STORE`). Counts add, histograms \
    add (lossless), timelines line up by wall-clock second; every rate and percentile is \
    derived after. A part missing or unfinished makes the group `incomplete`, a failed part \
    `failed`. Merging again replaces the earlier merge. compare, report, history and check \
    merge the groups they meet the same way (`compare group=a group=b`).\n\n\
    Exit codes: 0 the group is complete, 2 bad usage (no such group, runs that are not \
    parts of one run), 3 the group is not complete (a part missing, unfinished, failed or \
    interrupted, or counts that do not reconcile)."
)]
pub struct MergeArgs {
    #[command(flatten)]
    pub save: SaveArgs,
    /// The group (`--group` of the parts).
    pub group: String,
    /// Count the index now, at this cluster, to reconcile the parts' documents against it
    /// (without it, the count the last part to end took is used).
    #[command(flatten)]
    pub target: super::args::TargetArgs,
    /// Print the merged run as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(cmd: ResultsCommand) -> CliResult {
    match cmd {
        ResultsCommand::List(a) => list(a),
        ResultsCommand::Show(a) => show(a),
        ResultsCommand::Import(a) => import(a),
        ResultsCommand::Merge(a) => merge(a).await,
    }
}

async fn merge(a: MergeArgs) -> CliResult {
    let store = a.save.store.open_or_create()?;
    let usage = |e: merge::MergeError| {
        if e.is_usage() {
            CliError::usage(anyhow::Error::new(e))
        } else {
            CliError::from(e)
        }
    };
    // The index the parts loaded, counted now when a cluster is given.
    let counted = if a.target.urls.is_empty() {
        None
    } else {
        let index = merge::index_of(&store, &a.group)
            .map_err(|e| usage(merge::MergeError::Store(e)))?
            .ok_or_else(|| {
                CliError::usage(anyhow::anyhow!(
                    "group {}: no part of it is here, or none says which index it loaded",
                    a.group
                ))
            })?;
        let target = a.target.connect()?;
        let n = crate::ingest::count(&target, &index)
            .await
            .with_context(|| format!("counting index {index}"))?;
        Some(n)
    };
    let mut merged = merge::merge(&store, &a.group, counted).map_err(usage)?;
    for (k, v) in a.save.tags {
        merged.run.tags.insert(k, v);
    }
    let id = merge::store_merged(&store, &merged).map_err(usage)?;
    let state = merged.run.state;
    if a.json {
        let mut v = serde_json::to_value(merged.row())?;
        v["id"] = id.0.clone().into();
        output::json(&v)?;
    } else {
        output::results::merged(&id, &merged);
    }
    eprintln!("saved as run {id} in {}", store.path().display());
    if state == store::State::Complete {
        Ok(())
    } else {
        Err(CliError::check(anyhow::anyhow!(
            "group {} is {}: {}",
            a.group,
            state.name(),
            merged.run.error.as_deref().unwrap_or("see the parts")
        )))
    }
}

/// Copies every run of the store at `path` into the store `save` names.
fn import_store(path: &std::path::Path, save: SaveArgs) -> CliResult {
    let from = store::Store::open_read(path)
        .with_context(|| format!("{}: reading it as a results store", path.display()))
        .map_err(CliError::usage)?;
    let to = save.store.open_or_create()?;
    if std::fs::canonicalize(path).ok() == std::fs::canonicalize(to.path()).ok() {
        return Err(CliError::usage(anyhow::anyhow!(
            "{} is the store runs are imported into",
            path.display()
        )));
    }
    let (mut copied, mut skipped) = (0, 0);
    for row in from.list(&Filter::default())? {
        // The same run here already: kept, unless it was copied while it still ran and has
        // ended since (a part imported before it finished), then copied again in its place.
        let same = to
            .get(&row.id.0)
            .ok()
            .filter(|h| h.started_unix == row.started_unix && h.kind == row.kind);
        let mut run = store::WholeRun::read(&from, &row.id)?;
        let replaces = match same {
            Some(h) if h.status == run.state.name() => {
                skipped += 1;
                continue;
            }
            Some(h) => vec![h.id],
            None => Vec::new(),
        };
        for (k, v) in &save.tags {
            run.tags.insert(k.clone(), v.clone());
        }
        let id = to.put_whole(&run, Some(&row.id.0), &replaces)?;
        outln!("{id}");
        copied += 1;
    }
    eprintln!(
        "copied {copied} run(s) from {} into {}{}",
        path.display(),
        to.path().display(),
        if skipped > 0 {
            format!(" ({skipped} already there)")
        } else {
            String::new()
        }
    );
    Ok(())
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
    let mut head = [0u8; 16];
    let is_store = std::fs::File::open(&a.file)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == b"SQLite format 3\0");
    if is_store {
        return import_store(&a.file, a.save);
    }
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

//! `searchbench results`: the stored runs (list, show, import). The flags that say where
//! results go are `args::StoreArgs` and `args::SaveArgs`.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde_json::Value;

use super::args::{tag_arg, ReadArgs, SaveArgs, StoreArgs};
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
    searchbench results merge nightly-42 --url http://10.0.0.5:9200\n  \
    searchbench results publish --publish https://results:9200 --publish-user bench"
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
}

/// `results publish [RUN...]`.
#[derive(Debug, Args)]
#[command(
    after_help = "Each run goes whole into PREFIX-runs (one document, the stored run \
    kept whole under `row`), PREFIX-metrics (one document per figure compare and history read), \
    PREFIX-timeline, PREFIX-telemetry and PREFIX-tasks, under ids made of the run's: \
    publishing again replaces, never doubles. The store notes where each run went, in which \
    state; without RUN, what is not there as it now is is sent (a run still going waits until \
    it has ended). What is sent is what the store holds, and the store holds no secret.\n\n\
    Exit codes: 0 every run sent, 1 a run could not be sent (it stays pending: run again), \
    2 bad usage (no --publish, no such run)."
)]
pub struct PublishCmd {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Runs to send (ids or unique prefixes), whether or not they were sent before. Without
    /// any: every run not yet published there as it now is.
    pub runs: Vec<String>,
    /// Send the runs not yet published there (what happens without RUN; say it to be plain).
    #[arg(long, conflicts_with = "runs")]
    pub pending: bool,
    /// Only runs with this tag (repeatable: all must match).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag_arg, conflicts_with = "runs")]
    pub tags: Vec<(String, String)>,
    #[command(flatten)]
    pub publish: super::args::PublishArgs,
    /// Print what was sent as JSON.
    #[arg(long)]
    pub json: bool,
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
    copy other hosts' stores in first (`results import THEIR_STORE`), or merge the parts as \
    they published themselves (`--from URL`: nothing to copy). Counts add, histograms \
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
    /// Merge the parts as published to the team's cluster (each part run with --publish)
    /// rather than as stored here; the merged run is stored here all the same.
    #[command(flatten)]
    pub from: super::args::FromArgs,
    /// Print the merged run as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(cmd: ResultsCommand) -> CliResult {
    match cmd {
        ResultsCommand::List(a) => list(a).await,
        ResultsCommand::Show(a) => show(a).await,
        ResultsCommand::Import(a) => import(a),
        ResultsCommand::Merge(a) => merge(*a).await,
        ResultsCommand::Publish(a) => publish(a).await,
    }
}

/// What `results publish` did, as `--json` prints it.
#[derive(Debug, serde::Serialize)]
struct Published {
    destination: String,
    sent: Vec<SentRun>,
    failed: Vec<FailedRun>,
    /// Change points of the sent runs' configurations published (none: not sent, said).
    change_points: Option<usize>,
}

#[derive(Debug, serde::Serialize)]
struct SentRun {
    run: String,
    documents: usize,
}

#[derive(Debug, serde::Serialize)]
struct FailedRun {
    run: String,
    error: String,
}

async fn publish(a: PublishCmd) -> CliResult {
    let Some(publisher) = a.publish.publisher()? else {
        return Err(CliError::usage(anyhow::anyhow!(
            "say where to publish: --publish URL (or SEARCHBENCH_PUBLISH)"
        )));
    };
    let store = a.store.open_existing()?;
    let destination = publisher.destination();
    let rows = if a.runs.is_empty() {
        let filter = Filter {
            tags: a.tags,
            ..Default::default()
        };
        store.pending(&destination, &filter)?
    } else {
        a.runs
            .iter()
            .map(|id| store.get(id).map_err(CliError::usage))
            .collect::<Result<Vec<_>, _>>()?
    };
    let mut done = Published {
        destination: destination.clone(),
        sent: Vec::new(),
        failed: Vec::new(),
        change_points: None,
    };
    if !rows.is_empty() {
        if let Err(e) = publisher.prepare().await {
            // Nothing can be sent: every run stays pending.
            let error = crate::cluster::error_chain(&e);
            done.failed = rows
                .iter()
                .map(|r| FailedRun {
                    run: r.id.0.clone(),
                    error: error.clone(),
                })
                .collect();
        } else {
            for row in &rows {
                match publisher.publish(&store, &row.id).await {
                    Ok(sent) => done.sent.push(SentRun {
                        run: row.id.0.clone(),
                        documents: sent.documents,
                    }),
                    Err(e) => done.failed.push(FailedRun {
                        run: row.id.0.clone(),
                        error: crate::cluster::error_chain(&e),
                    }),
                }
            }
        }
    }
    // The change points of what was sent, each configuration's history once.
    let sent_rows: Vec<RunRow> = rows
        .into_iter()
        .filter(|r| done.sent.iter().any(|s| s.run == r.id.0))
        .collect();
    if !sent_rows.is_empty() {
        match publisher.publish_changes(&store, &sent_rows).await {
            Ok(n) => done.change_points = Some(n),
            Err(e) => eprintln!(
                "warning: change points not published: {}; the next publish sends them",
                crate::cluster::error_chain(&e)
            ),
        }
    }
    if a.json {
        output::json(&done)?;
    } else {
        for s in &done.sent {
            eprintln!("published run {} ({} documents)", s.run, s.documents);
        }
        for f in &done.failed {
            eprintln!("not published: run {}: {}", f.run, f.error);
        }
        eprintln!(
            "{} run(s) published to {destination}; {} still pending",
            done.sent.len(),
            done.failed.len()
        );
    }
    if done.failed.is_empty() {
        Ok(())
    } else {
        Err(CliError {
            code: super::exit::FAILURE,
            error: anyhow::anyhow!(
                "{} run(s) not published to {destination}; they stay pending: run \
                 `searchbench results publish --pending` again",
                done.failed.len()
            ),
        })
    }
}

async fn merge(a: MergeArgs) -> CliResult {
    let store = a.save.store.open_or_create()?;
    // The parts as the team's cluster holds them (each part published itself), or here.
    let read_back = a.from.read(store.path().to_path_buf()).await?;
    let parts = read_back.as_ref().unwrap_or(&store);
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
        let index = merge::index_of(parts, &a.group)
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
    let mut merged = merge::merge(parts, &a.group, counted).map_err(usage)?;
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
    // Published as every stored run is, when asked: a failure leaves it pending.
    if let Some(publisher) = a.save.publish.publisher()? {
        if let Err(e) = publisher.prepare_and_publish(&store, &id).await {
            eprintln!(
                "warning: run {id} not published: {}; it is kept in the store and stays \
                 pending there: `searchbench results publish --pending` sends it",
                crate::cluster::error_chain(&e)
            );
        }
    }
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

async fn list(a: ListArgs) -> CliResult {
    let filter = Filter {
        workload: a.workload,
        engine: a.engine,
        tags: a.tags,
        limit: Some(a.limit),
        ..Default::default()
    };
    let store = a.store.open_newest(&filter, a.limit).await?;
    let rows = store.list(&filter)?;
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
        eprintln!("no runs in {} match", a.store.place(&store));
        return Ok(());
    }
    output::results::list(&rows);
    Ok(())
}

async fn show(a: ShowArgs) -> CliResult {
    let store = a.store.open().await?;
    let row = store.get(&a.id).map_err(CliError::usage)?;
    let run = crate::analysis::runs::Loaded::read(&store, row)?;
    let metrics = run.metrics();
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
        // Every metric as every view reads it, and what each phase counted and each
        // instrument kept around it.
        v["metrics"] = serde_json::to_value(&metrics)?;
        v["phases"] = run
            .phases
            .iter()
            .map(|p| serde_json::json!({"phase": p.phase, "counts": p.measurements.counts, "kept": p.kept}))
            .collect();
        output::json(&v)?;
        return Ok(());
    }
    output::results::show(&run.row, &run.timeline, &histograms, &metrics);
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

//! `searchbench results`: the stored runs (list, show, import), and the flags and helper that
//! `ingest`, `run` and `query` use to save their results as they go.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde_json::Value;

use super::{output, CliError, CliResult};
use crate::measure::SerializedHistogram;
use crate::report::{self, compare::format_value, metrics};
use crate::store::{self, Filter, Kind, NewRun, RunRow, Store};

/// Where the results database is.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// Results database (SQLite, created when missing). Default:
    /// $XDG_DATA_HOME/searchbench/results.db, else ~/.local/share/searchbench/results.db.
    #[arg(long, value_name = "PATH", env = "SEARCHBENCH_STORE")]
    pub store: Option<PathBuf>,
}

impl StoreArgs {
    pub fn open(&self) -> anyhow::Result<Store> {
        Ok(match &self.store {
            Some(p) => Store::open(p)?,
            None => Store::open_default()?,
        })
    }
}

/// How a measuring command saves its result (flatten into its arguments).
#[derive(Debug, Clone, Args)]
pub struct SaveArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Label the run, e.g. --tag build=nightly-1234 --tag heap=1g (repeatable). Runs that
    /// share tags can be compared as a group: `searchbench compare build=a build=b`.
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag_arg)]
    pub tags: Vec<(String, String)>,
    /// Do not save this run in the results store.
    #[arg(long)]
    pub no_store: bool,
}

impl SaveArgs {
    pub fn spec(&self) -> crate::session::SaveSpec {
        crate::session::SaveSpec {
            store: self.store.store.clone(),
            tags: self.tags.clone(),
            skip: self.no_store,
        }
    }
}

fn tag_arg(s: &str) -> Result<(String, String), String> {
    store::parse_tag(s).map_err(|e| e.to_string())
}

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
    #[arg(long)]
    pub workload: Option<String>,
    /// Only engines whose name starts with this (opensearch, opensearch-2.19).
    #[arg(long)]
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
    pub file: PathBuf,
    /// Workload name (default: the result's, else the file name).
    #[arg(long)]
    pub workload: Option<String>,
}

pub async fn run(cmd: ResultsCommand) -> CliResult {
    match cmd {
        ResultsCommand::List(a) => list(a),
        ResultsCommand::Show(a) => show(a),
        ResultsCommand::Import(a) => import(a),
    }
}

/// The one number that says most about a run.
pub fn headline(row: &RunRow) -> String {
    let Some(r) = &row.result else {
        return String::new();
    };
    if metrics::is_ingest(r) {
        if let Some(d) = r.get("docs_per_sec").and_then(Value::as_f64) {
            return format!("{} docs/s", format_value(d));
        }
    }
    if let Some(q) = metrics::query_part(r) {
        let cells = q.get("cells").and_then(Value::as_array);
        let prod = cells.into_iter().flatten().find(|c| {
            c.get("variant").and_then(Value::as_str) == Some("D_td")
                && c.get("transport").and_then(Value::as_str) == Some("serial")
        });
        if let Some(t) = prod.and_then(|c| c.get("took_ms")?.get("mean")?.as_f64()) {
            return format!("D_td took {} ms", format_value(t));
        }
    }
    String::new()
}

fn tags_text(row: &RunRow) -> String {
    row.tags
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
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
    let mut t = output::table([
        "id", "started", "kind", "workload", "engine", "state", "result", "tags",
    ]);
    for r in &rows {
        t.add_row([
            r.id.0.clone(),
            report::utc(r.started_unix),
            r.kind.clone(),
            r.workload.clone(),
            r.engine.clone().unwrap_or_default(),
            r.state.name().to_string(),
            headline(r),
            tags_text(r),
        ]);
    }
    println!("{t}");
    Ok(())
}

fn show(a: ShowArgs) -> CliResult {
    let store = a.store.open()?;
    let row = store.get(&a.id).map_err(CliError::usage)?;
    let timeline = report::compare::timeline_of(&store, &row)?;
    let histograms: Vec<Value> = store
        .histograms(&row.id)?
        .iter()
        .map(histogram_summary)
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
    let m = &row.machine;
    let mut t = output::table(["", ""]);
    for (k, v) in [
        ("run", row.id.0.clone()),
        ("kind", row.kind.clone()),
        ("workload", row.workload.clone()),
        ("engine", row.engine.clone().unwrap_or_else(|| "?".into())),
        ("state", row.state.name().into()),
        ("started", report::utc(row.started_unix)),
        (
            "finished",
            row.finished_unix
                .map(report::utc)
                .unwrap_or_else(|| "-".into()),
        ),
        ("searchbench", row.tool_version.clone()),
        (
            "seed",
            row.seed
                .map(|s| s.to_string())
                .unwrap_or_else(|| "-".into()),
        ),
        (
            "machine",
            format!(
                "{}, {} cores, {}",
                m.get("cpu_model").and_then(Value::as_str).unwrap_or("?"),
                m.get("cores").and_then(Value::as_u64).unwrap_or(0),
                m.get("memory_bytes")
                    .and_then(Value::as_u64)
                    .map(output::bytes)
                    .unwrap_or_else(|| "?".into())
            ),
        ),
        ("tags", tags_text(&row)),
        ("timeline", format!("{} seconds", timeline.len())),
    ] {
        t.add_row([k.to_string(), v]);
    }
    if let Some(e) = &row.error {
        t.add_row(["error".to_string(), e.clone()]);
    }
    println!("{t}");
    let ms = metrics::extract(row.result.as_ref().unwrap_or(&Value::Null), &timeline);
    if !ms.is_empty() {
        let mut t = output::table(["metric", "value", "unit", "samples"]);
        for m in ms {
            let n = m
                .samples
                .as_ref()
                .map(|(k, v)| format!("{} {}", v.len(), k.name()))
                .unwrap_or_else(|| "1".into());
            t.add_row([m.label, format_value(m.value), m.unit.to_string(), n]);
        }
        println!("{t}");
    }
    if !histograms.is_empty() {
        let cols = ["count", "p50", "p90", "p99", "p99.9", "max"];
        let mut t = output::table(
            ["histogram", "unit"]
                .into_iter()
                .chain(cols)
                .map(String::from),
        );
        for h in &histograms {
            let cell = |k: &str| h.get(k).map(|v| v.to_string()).unwrap_or_default();
            let mut row = vec![cell("name").replace('"', ""), cell("unit").replace('"', "")];
            match h.get("error").and_then(Value::as_str) {
                Some(e) => row.push(e.to_string()),
                None => row.extend(cols.iter().map(|c| {
                    let v = cell(c);
                    if v.is_empty() {
                        "-".to_string()
                    } else {
                        v
                    }
                })),
            }
            t.add_row(row);
        }
        println!("{t}");
        println!("({PERCENTILE_RULE}; '-' when fewer)");
    }
    if let Some(def) = row
        .result
        .as_ref()
        .and_then(|r| r.get("headline")?.get("definition")?.as_str())
    {
        println!("headline throughput: {def}");
    }
    match row.state {
        store::State::Interrupted => println!("this run was INTERRUPTED (Ctrl-C): its figures are partial; compare and tag groups leave it out unless --include-partial"),
        store::State::Failed => println!("this run FAILED: {}", row.error.as_deref().unwrap_or("see the result")),
        _ => {}
    }
    if row.state == store::State::Incomplete {
        println!("this run never finished (killed or crashed): only its start and the timeline rows saved so far are here");
    }
    Ok(())
}

/// When a percentile is shown.
pub const PERCENTILE_RULE: &str =
    "a percentile is shown only with enough values: p90 from 10, p99 from 100, p99.9 from 1000";

/// A stored histogram decoded back into its count and percentiles (in its own unit), or the
/// reason it could not be decoded.
fn histogram_summary(h: &SerializedHistogram) -> Value {
    let mut v = serde_json::json!({
        "name": h.name,
        "unit": h.unit,
        "encoding": store::HISTOGRAM_ENCODING,
        "bytes": h.v2_deflate.len(),
    });
    match h.decode() {
        Ok(d) => {
            v["count"] = d.len().into();
            if !d.is_empty() {
                // A percentile only with enough values to mean something (see PERCENTILE_RULE).
                for (k, q, min) in [
                    ("p50", 0.5, 1),
                    ("p90", 0.9, 10),
                    ("p99", 0.99, 100),
                    ("p99.9", 0.999, 1000),
                ] {
                    if d.len() >= min {
                        v[k] = d.value_at_quantile(q).into();
                    }
                }
                v["max"] = d.max().into();
            }
        }
        Err(e) => v["error"] = e.into(),
    }
    v
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
    let workload = a
        .workload
        .or_else(|| {
            ["workload", "corpus", "index"]
                .iter()
                .find_map(|k| result.get(k)?.as_str().map(str::to_string))
        })
        .unwrap_or_else(|| a.file.display().to_string());
    let config = result
        .get("config")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({ "imported_from": a.file.display().to_string() }));
    let store = a.save.store.open()?;
    let mut run = NewRun::new(kind, workload, config);
    run.tags = a.save.tags;
    let id = store.save(&run, &result)?;
    println!("{id}");
    eprintln!("saved as run {id} in {}", store.path().display());
    Ok(())
}

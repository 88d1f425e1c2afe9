//! `results import FILE`: another store's runs copied in (`Store::import_runs`), or a
//! result file kept as a run.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use serde_json::Value;

use crate::analysis::metrics;
use crate::cli::args::SaveArgs;
use crate::cli::{CliError, CliResult};
use crate::store::{self, Kind, NewRun};

#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub save: SaveArgs,
    /// A JSON result file, or another results store (an SQLite file: each of its runs is
    /// copied in with its timeline, histograms and telemetry, under its own id; a run already
    /// here is skipped).
    #[arg(value_parser = crate::cli::args::input_file)]
    pub file: PathBuf,
    /// Workload name (default: the result's, else the file name).
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true, long)]
    pub workload: Option<String>,
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
    let imported = to.import_runs(&from, &save.tags)?;
    for id in &imported.copied {
        outln!("{id}");
    }
    let (copied, skipped) = (imported.copied.len(), imported.skipped);
    errln!(
        "copied {copied} run(s) from {} into {}{}",
        path.display(),
        to.path().display(),
        if skipped > 0 {
            format!(" ({skipped} already there)")
        } else {
            String::new()
        }
    );
    match imported.refused.as_slice() {
        [] => Ok(()),
        refused => {
            let each: Vec<String> = refused
                .iter()
                .map(|(id, why)| format!("run {id:?}: {}", crate::cli::output::printable(why)))
                .collect();
            Err(CliError::usage(anyhow::anyhow!(
                "{}: {} run(s) not copied (the others were): {}",
                path.display(),
                refused.len(),
                each.join("; ")
            )))
        }
    }
}

pub fn import(a: ImportArgs) -> CliResult {
    let mut head = [0u8; 16];
    let is_store = std::fs::File::open(&a.file)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == b"SQLite format 3\0");
    if is_store {
        return import_store(&a.file, a.save);
    }
    let text = crate::user_file::read(&a.file)
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
    let said = crate::analysis::said::Said::of_result(&result);
    let corpus = said.corpus.as_deref();
    let workload = a
        .workload
        .or(said.workload.clone())
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
        .or(said.index.clone())
        .unwrap_or_else(|| a.file.display().to_string());
    let config = said
        .config
        .clone()
        .unwrap_or_else(|| serde_json::json!({ "imported_from": a.file.display().to_string() }));
    let store = a.save.store.open_or_create()?;
    let mut run = NewRun::new(kind, workload, config);
    run.seed = corpus.and_then(store::seed_in);
    run.tags = a.save.tags;
    let id = store.save(&run, &result)?;
    outln!("{id}");
    errln!("saved as run {id} in {}", store.path().display());
    Ok(())
}

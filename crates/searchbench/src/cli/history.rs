//! `searchbench history`: every stored complete run of one configuration, ordered by engine
//! version or by time, each metric's level per point and where it shifted.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::args::{tag_arg, ReadArgs};
use super::{output, CliError, CliResult};
use crate::analysis::history::{self, Axis, HistoryError, Selection};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// Engine version: product, then numeric version; runs of one version are a group.
    Version,
    /// When the runs started; runs sharing a build= or commit= tag are a group.
    Time,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Every stored complete run of one configuration (same kind, workload and \
        stored configuration apart from the engine, the seed and the tags), ordered by engine \
        version or by time, with each metric's median and interval per point and the change \
        points of every metric.\n\n\
        Change points come from E-divisive means (Matteson & James 2014, as Apache Otava \
        does it): the split with the largest energy divergence, kept when a seeded permutation \
        test gives p < 0.05, then the same within each part. A new level can only start \
        where the version (or build) changes. Each change point says its direction for the \
        metric (regression or improvement), its size with a 95 % interval (Welch's t over the \
        runs either side) and its p-value. An improvement that comes with more errors, more \
        GC time or fewer documents acknowledged is flagged SUSPECT.\n\n\
        A selection that holds several configurations is refused (exit 2) with the list of \
        them and how they differ: narrow it with --workload, --tag, --engine or --config.",
    after_help = "Examples:\n  \
        searchbench history --workload logs\n  \
        searchbench history --tag matrix=3fa9c2e1 --html history.html\n  \
        searchbench history --tag job=nightly --by time --metric docs_per_sec\n  \
        searchbench history --workload logs --engine opensearch-2 --json"
)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub store: ReadArgs,
    /// Only this workload.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true, long)]
    pub workload: Option<String>,
    /// Only runs with this tag (repeatable: all must match).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = tag_arg)]
    pub tags: Vec<(String, String)>,
    /// Only runs made where and by whom this says (repeatable: all must match): host, user,
    /// commit (searchbench's own), ci (the CI system), ci.job, ci.pipeline, ci.commit, as
    /// `results show RUN` shows a run's provenance.
    #[arg(long = "where", value_name = "KEY=VALUE", value_parser = crate::cli::args::where_arg)]
    pub provenance: Vec<(String, String)>,
    /// Pool runs made on different classes of machine (CPU model, cores, memory) into one
    /// configuration; by default each class is a configuration of its own. Said in the output.
    #[arg(long)]
    pub any_machine: bool,
    /// Only engines whose name starts with this (opensearch, opensearch-2.1).
    #[arg(value_parser = crate::cli::args::suggest::engines(), hide_possible_values = true, long, value_name = "PREFIX")]
    pub engine: Option<String>,
    /// Only the configuration with this id (or prefix), as a refusal lists them.
    #[arg(long = "config", value_name = "ID")]
    pub configuration: Option<String>,
    /// Only these metrics (repeatable): a key such as docs_per_sec, or a prefix
    /// ending in a dot (query.). Default: every metric, the headline ones and those with a
    /// change point in the table.
    #[arg(long = "metric", value_name = "KEY")]
    pub metrics: Vec<String>,
    /// The axis.
    #[arg(long, value_enum, default_value_t = By::Version)]
    pub by: By,
    /// Print the whole history as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Also write an offline HTML page with one chart per metric.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

pub async fn run(a: HistoryArgs) -> CliResult {
    let store = a.store.open().await?;
    let mut selection = Selection::new(match a.by {
        By::Version => Axis::Version,
        By::Time => Axis::Time,
    });
    selection.workload = a.workload;
    selection.tags = crate::cli::args::selected_tags(a.tags);
    selection.provenance = a.provenance;
    if a.any_machine {
        selection.machines = crate::analysis::configuration::Machines::Any;
    }
    selection.engine = a.engine;
    selection.configuration = a.configuration;
    selection.metrics = a.metrics;
    let h = history::load(&store, &selection).map_err(history_error)?;
    if a.json {
        output::json(&h)?;
    } else {
        output::history::print(&h);
        // A matrix of cluster-metrics runs (engines beside the sketch store): the note's tables.
        if let Ok(Some(b)) = crate::analysis::baseline::load(&store, &selection) {
            output::baseline::print(&b);
        }
    }
    if let Some(path) = &a.html {
        crate::report::history_html::write(&h, path)?;
        if a.json {
            errln!("report: {}", path.display());
        } else {
            outln!("report: {}", path.display());
        }
    }
    Ok(())
}

/// A selection's fault exits 2, the store's 1.
pub fn history_error(e: HistoryError) -> CliError {
    if e.is_usage() {
        CliError::usage(e)
    } else {
        CliError::from(anyhow::Error::from(e))
    }
}

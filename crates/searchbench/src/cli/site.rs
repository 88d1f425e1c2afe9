//! `searchbench site`: the team's nightly site, static and offline, from the store or the
//! team's results cluster (`--from`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::args::ReadArgs;
use super::{output, CliError, CliResult};
use crate::analysis::history::{self, Axis, Selection};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// When the runs started; runs sharing a build= or commit= tag are one point (nightlies).
    Time,
    /// Engine version: product, then numeric version.
    Version,
}

#[derive(Debug, Args)]
#[command(
    long_about = "The team's nightly site: static pages that open offline, from the store or \
        from the team's results cluster (--from URL, what `--publish` wrote there).\n\n\
        index.html lists every configuration with its newest point, that point against the \
        one before on the headline metrics, and its latest change point. Each configuration \
        has its page (config-<id>.html): every metric over time (or engine version), a dot a \
        run so each night's spread shows, errors and GC beside speed, change points marked \
        between the runs either side with the builds or versions they fall between, and the \
        runs, each linked to its own report (runs/<id>.html). Nothing is fetched when a page \
        is opened: charts are inline SVG.\n\n\
        Files in the folder that are not the site's are left alone; the site's own are \
        written again.",
    after_help = "Examples:\n  \
        searchbench site --out site\n  \
        searchbench site --out site --from https://results.example:9200 --tag job=nightly\n  \
        searchbench site --out site --by version --workload logs --json"
)]
pub struct SiteArgs {
    #[command(flatten)]
    pub store: ReadArgs,
    /// The folder to write the site into (made when missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Only this workload.
    #[arg(value_parser = crate::cli::args::suggest::workloads(), hide_possible_values = true, long)]
    pub workload: Option<String>,
    /// Only runs with this tag (repeatable: all must match).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = crate::cli::args::tag_arg)]
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
    /// Only engines whose name starts with this.
    #[arg(value_parser = crate::cli::args::suggest::engines(), hide_possible_values = true, long, value_name = "PREFIX")]
    pub engine: Option<String>,
    /// The axis of every configuration's page.
    #[arg(long, value_enum, default_value_t = By::Time)]
    pub by: By,
    /// Leave out the runs' own reports (runs/<id>.html): the configurations' pages only.
    #[arg(long)]
    pub no_run_pages: bool,
    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(a: SiteArgs) -> CliResult {
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
    let each = history::load_each(&store, &selection).map_err(|e| {
        if e.is_usage() {
            CliError::usage(e)
        } else {
            CliError::from(anyhow::Error::from(e))
        }
    })?;
    for why in &each.left_out {
        errln!("warning: left out of the site: {why}");
    }
    let histories = each.histories;
    let mut site =
        crate::report::site::write(&histories, (!a.no_run_pages).then_some(&store), &a.out)?;
    for why in &site.left_out {
        errln!("warning: its page is left out of the site: {why}");
    }
    site.left_out.extend(each.left_out);
    if a.json {
        output::json(&site)?;
    } else {
        outln!(
            "site: {} ({} configuration(s), {} run(s), {} page(s), the largest {} KiB)",
            a.out.join("index.html").display(),
            site.configurations.len(),
            site.runs,
            site.pages,
            site.largest_page_bytes.div_ceil(1024)
        );
    }
    Ok(())
}

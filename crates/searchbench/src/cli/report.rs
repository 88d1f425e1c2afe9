//! `searchbench report ID...`: an offline HTML page, Markdown or CSV for stored runs.

use std::path::PathBuf;

use clap::Args;

use super::args::ReadArgs;
use super::{CliError, CliResult};
use crate::report;

#[derive(Debug, Args)]
#[command(
    long_about = "Render stored runs: an HTML page that works offline (one file, charts \
        included: throughput over time, service-time percentiles, where the time went, query \
        cells, accuracy, configuration), Markdown, or CSV (long form: one value per line).\n\n\
        Each RUN is what it is to `compare`: a run id (a unique prefix is enough) or a tag \
        selector `key=value[,key=value]` that picks every complete run with those tags, a \
        group of repeated runs. With two or more, the first is the base and the others are \
        compared with it group against group, as `compare` does; the page opens with what \
        changed, then the charts (one colour and one legend entry per group), then every \
        metric.\n\n\
        A sweep, a saturation search or a matrix named by its tag (sweep=<id>, saturate=<id>, \
        matrix=<id>) gets its own page again, drawn from the store: heatmap, curves and \
        answer; the saturation curve and its steps; the history of the matrix's runs over \
        versions with its change points (--markdown/--csv still give the runs).\n\n\
        Without --html/--markdown/--export-markdown/--csv the HTML goes next to the store, in \
        reports/<first id>.html (reports/sweep-<id>.html for a sweep, and so on), and its \
        path is printed.",
    after_help = "Examples:\n  \
        searchbench report 3fa9c2e1 --html run.html\n  \
        searchbench report 3fa9c2e1 7b01d4aa --html compare.html --export-markdown compare.md\n  \
        searchbench report build=old build=new --markdown >> \"$GITHUB_STEP_SUMMARY\"\n  \
        searchbench report build=old build=new --html builds.html\n  \
        searchbench report build=nightly --csv nightly.csv\n  \
        searchbench report sweep=1a213e75175 --html sweep.html"
)]
pub struct ReportArgs {
    #[command(flatten)]
    pub store: ReadArgs,
    /// Run ids (unique prefixes are enough) or key=value[,key=value] tag selectors, one group
    /// each; the first is the base.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// Also take runs of a tag group that are not complete (interrupted, failed, never
    /// finished).
    #[arg(long)]
    pub include_partial: bool,
    /// Write a self-contained HTML page here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print the Markdown on stdout (as `compare --markdown` does).
    #[arg(long)]
    pub markdown: bool,
    /// Write the Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Write CSV here (run_id,kind,workload,engine,state,metric,unit,second,value).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Compare groups of different configurations, workloads or kinds anyway (refused
    /// otherwise, as `compare` refuses them); the page says MIXED first.
    #[arg(long)]
    pub allow_mixed: bool,
}

pub async fn run(a: ReportArgs) -> CliResult {
    let store = a.store.open().await?;
    // Read back from the team's cluster, the runs drawn need their telemetry too.
    let drawn: Vec<_> = a
        .runs
        .iter()
        .filter_map(|s| store.select_with(s, true).ok())
        .flatten()
        .map(|row| row.id)
        .collect();
    a.store.telemetry(&store, &drawn).await?;
    let tables = a.markdown || a.export_markdown.is_some() || a.csv.is_some();
    // With the Markdown on stdout, the paths written go to stderr so stdout is Markdown only.
    let markdown_on_stdout = a.markdown;
    let written = |path: &std::path::Path| {
        if markdown_on_stdout {
            errln!("{}", path.display());
        } else {
            outln!("{}", path.display());
        }
    };
    // A stored sweep, saturation search or matrix named by its tag: its own page again.
    let named = match a.runs.as_slice() {
        [one] => report::named_page(&store, one)?,
        _ => None,
    };
    if let Some((page, default)) = &named {
        if a.html.is_some() || !tables {
            let path = a.html.clone().unwrap_or_else(|| default.clone());
            report::write_page(&path, page)?;
            written(&path);
        }
        if !tables {
            return Ok(());
        }
    }
    let runs = report::load(&store, &a.runs, a.include_partial).map_err(CliError::usage)?;
    // The verdicts of a report are compare's: groups it refuses are refused here.
    if let Some(why) = crate::analysis::compare::mixed_groups(&runs).filter(|_| !a.allow_mixed) {
        return Err(CliError::usage(anyhow::anyhow!(why)));
    }
    let mut html = a.html.clone().filter(|_| named.is_none());
    if html.is_none() && !tables {
        if let Some(first) = report::runs_of(&runs).first() {
            html = Some(report::default_html_path(&store, &first.row.id)?);
        }
    }
    if let Some(path) = &html {
        report::write_html(&runs, path)?;
        written(path);
    }
    if let Some(path) = &a.export_markdown {
        report::write_markdown(&runs, path)?;
        written(path);
    }
    if a.markdown {
        out!("{}", report::markdown(&runs));
    }
    if let Some(path) = &a.csv {
        report::write_csv(&runs, path)?;
        written(path);
    }
    Ok(())
}

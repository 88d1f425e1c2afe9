//! `searchbench report ID...`: an offline HTML page, Markdown or CSV for stored runs.

use std::path::PathBuf;

use clap::Args;

use super::results::StoreArgs;
use super::{CliError, CliResult};
use crate::report;

#[derive(Debug, Args)]
#[command(
    long_about = "Render stored runs: an HTML page that works offline (one file, charts \
        included: throughput over time, service-time percentiles, where the time went, query \
        cells, accuracy, configuration; for several runs overlays and the comparison table, \
        the first run being the base), Markdown, or CSV (long form: one value per line).\n\n\
        Without --html/--markdown/--csv the HTML goes next to the store, in \
        reports/<first id>.html, and its path is printed.",
    after_help = "Examples:\n  \
        searchbench report 3fa9c2e1 --html run.html\n  \
        searchbench report 3fa9c2e1 7b01d4aa --html compare.html --markdown compare.md\n  \
        searchbench report build=nightly --csv nightly.csv"
)]
pub struct ReportArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Run ids (unique prefixes are enough) or key=value tag selectors.
    #[arg(required = true)]
    pub runs: Vec<String>,
    /// Write a self-contained HTML page here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write Markdown here.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write CSV here (run_id,kind,workload,engine,metric,unit,second,value).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

pub async fn run(a: ReportArgs) -> CliResult {
    let store = a.store.open()?;
    let runs = report::load(&store, &a.runs).map_err(CliError::usage)?;
    let mut html = a.html.clone();
    if html.is_none() && a.markdown.is_none() && a.csv.is_none() {
        html = Some(report::default_html_path(&store, &runs[0].row.id));
    }
    if let Some(path) = &html {
        report::write_html(&runs, path)?;
        println!("{}", path.display());
    }
    if let Some(path) = &a.markdown {
        report::write_markdown(&runs, path)?;
        println!("{}", path.display());
    }
    if let Some(path) = &a.csv {
        report::write_csv(&runs, path)?;
        println!("{}", path.display());
    }
    Ok(())
}

//! `searchbench dashboards export`: Kibana or OpenSearch Dashboards saved objects over what
//! `--publish` wrote to the team's results cluster.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use super::{output, CliError, CliResult};
use crate::publish::dashboards::{self, App};
use crate::publish::DEFAULT_PREFIX;

#[derive(Debug, Subcommand)]
pub enum DashboardsCommand {
    /// Write the saved objects (NDJSON) to import into Kibana or OpenSearch Dashboards.
    Export(ExportArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum For {
    /// Kibana 8 (Elastic's app; 7.10 and later import them too).
    Kibana,
    /// OpenSearch Dashboards 2.
    Opensearch,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Saved objects (NDJSON) for Kibana or OpenSearch Dashboards over the runs \
        `--publish` (or `results publish`) wrote to the team's results cluster: two \
        dashboards, one a point a night over time, one a point an engine over versions, each \
        charting throughput beside the error rate, service time p50 and p99, GC time and heap \
        peak, one line per workload and configuration, each point's runs as a bar from the \
        lowest to the highest, and the change points `publish` found as dashed rules; and an \
        index pattern (data view) for each published index.\n\n\
        The charts are Vega-Lite with their queries written out: the dashboard's search bar, \
        filters and time range reach them. Only complete runs are charted. Runs published \
        before this release lack the configuration the charts group by: publish them again \
        (`results publish RUN...`).\n\n\
        Import with the app's Stack Management (Dashboards Management) → Saved objects → \
        Import, or its saved objects API: curl -X POST \
        'http://APP:5601/api/saved_objects/_import?overwrite=true' -H 'kbn-xsrf: true' (for \
        OpenSearch Dashboards 'osd-xsrf: true') --form file=@FILE. Importing again replaces \
        the objects: their ids come from the prefix and the metric. OpenSearch Dashboards \
        draws them from 2.5 (Vega-Lite 5).",
    after_help = "Examples:\n  \
        searchbench dashboards export --for kibana --out searchbench.ndjson\n  \
        searchbench dashboards export --for opensearch --prefix nightly > osd.ndjson\n  \
        searchbench dashboards export --for kibana --metric query.took_ms=took --out q.ndjson"
)]
pub struct ExportArgs {
    /// The app the objects are for.
    #[arg(long = "for", value_enum, value_name = "APP")]
    pub app: For,
    /// The published indices' prefix (as --publish-prefix wrote them): PREFIX-metrics,
    /// PREFIX-changes, ...
    #[arg(
        long = "prefix",
        value_name = "PREFIX",
        env = "SEARCHBENCH_PUBLISH_PREFIX",
        default_value = DEFAULT_PREFIX
    )]
    pub prefix: String,
    /// A metric to chart instead of the six (repeatable, in the order given), as `results
    /// show` names it; `=TITLE` names its chart.
    #[arg(long = "metric", value_name = "KEY[=TITLE]")]
    pub metrics: Vec<String>,
    /// The file to write (replaced when there); stdout when absent or `-`.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print what was written as JSON (with --out).
    #[arg(long, requires = "out")]
    pub json: bool,
}

pub async fn run(command: DashboardsCommand) -> CliResult {
    let DashboardsCommand::Export(a) = command;
    let app = match a.app {
        For::Kibana => App::Kibana,
        For::Opensearch => App::OpenSearchDashboards,
    };
    let metrics: Vec<(String, String)> = a
        .metrics
        .iter()
        .map(|m| {
            let (key, title) = match m.split_once('=') {
                Some((key, title)) if !title.trim().is_empty() => (key, Some(title.trim())),
                Some((key, _)) => (key, None),
                None => (m.as_str(), None),
            };
            // An old name of a metric is today's key (what the published documents hold), as
            // `history` and `check` take it; any other key is checked as given.
            let mut aliases = crate::analysis::metrics::ALIASES.iter();
            let key = (aliases.find(|(old, _)| *old == key))
                .map_or(key, |(_, now)| now)
                .to_string();
            let title = title.map_or_else(|| key.clone(), str::to_string);
            (key, title)
        })
        .collect();
    let to_stdout = a.out.as_deref().is_none_or(|p| p == Path::new("-"));
    if a.json && to_stdout {
        return Err(CliError::usage(anyhow::anyhow!(
            "--json says what was written to a file: with --out -, the objects are the output"
        )));
    }
    let export = dashboards::export(app, &a.prefix, &metrics).map_err(CliError::usage)?;
    let text = export.ndjson();
    match a.out.as_deref().filter(|p| *p != Path::new("-")) {
        None => {
            out!("{text}");
        }
        Some(path) => {
            write_whole(path, text.as_bytes())?;
            if a.json {
                output::json(&serde_json::json!({
                    "out": path,
                    "app": app_name(a.app),
                    "objects": export.objects.len(),
                    "dashboards": export.dashboards,
                    "visualizations": export.visualizations,
                    "index_patterns": export.index_patterns,
                }))?;
            } else {
                outln!(
                    "{}: {} saved objects for {} ({} dashboards, {} charts, {} index patterns over {}-*); import them with the app's saved objects page, or: curl -X POST 'APP_URL/api/saved_objects/_import?overwrite=true' -H '{}' --form file=@{}",
                    path.display(),
                    export.objects.len(),
                    app_name(a.app),
                    export.dashboards.len(),
                    export.visualizations,
                    export.index_patterns,
                    a.prefix,
                    app.xsrf_header(),
                    path.display()
                );
            }
        }
    }
    Ok(())
}

fn app_name(app: For) -> &'static str {
    match app {
        For::Kibana => "Kibana",
        For::Opensearch => "OpenSearch Dashboards",
    }
}

/// Writes `bytes` to `path` whole or not at all (an interrupted export leaves the file that
/// was there), never through a link ([`crate::out_folder`]).
fn write_whole(path: &Path, bytes: &[u8]) -> CliResult {
    if path.is_dir() {
        return Err(CliError::usage(anyhow::anyhow!(
            "--out {} is a folder: name the file to write",
            path.display()
        )));
    }
    crate::out_folder::write_file(path, bytes)
        .map_err(|e| CliError::from(anyhow::anyhow!("writing {e}")))
}

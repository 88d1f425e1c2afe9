//! `searchbench target ...`: what a cluster is (the flags to reach one are `args::TargetArgs`).

use clap::{Args, Subcommand};

use super::args::TargetArgs;
use super::{output, CliError, CliResult};

/// `searchbench target --url URL`: product (Elasticsearch or OpenSearch), version, nodes and
/// health of a cluster; with several URLs, whether each answers (exit 1 when one does not).
/// `target info --url URL`, the old spelling, is still taken.
#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  \
        searchbench target --url http://127.0.0.1:9200\n  \
        searchbench target --url https://a:9200,https://b:9200 --user elastic --json"
)]
pub struct TargetInfoCommand {
    #[command(subcommand)]
    old: Option<TargetCommand>,
    #[command(flatten)]
    info: InfoArgs,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum TargetCommand {
    /// The old spelling of `target`.
    #[command(hide = true)]
    Info(InfoArgs),
}

pub async fn run(cmd: TargetInfoCommand) -> CliResult {
    let info = match cmd.old {
        Some(TargetCommand::Info(info)) => info,
        None => cmd.info,
    };
    let InfoArgs { target, json } = info;
    if target.urls.is_empty() {
        return Err(CliError::usage(anyhow::anyhow!(
            "--url is required (or set SEARCHBENCH_URL)"
        )));
    }
    let target = target.connect()?;
    let info = target.info().await?;
    let unreachable: Vec<_> = info.endpoints.iter().filter(|e| !e.reachable).collect();
    let verdict = if unreachable.is_empty() {
        Ok(())
    } else {
        Err(CliError::from(anyhow::anyhow!(
            "{} of {} URLs did not answer: {}",
            unreachable.len(),
            info.endpoints.len(),
            unreachable
                .iter()
                .map(|e| e.url.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )))
    };
    if json {
        output::json(&info)?;
        return verdict;
    }
    outln!("{} {} at {}", info.product, info.version, target.url());
    outln!(
        "cluster {:?}: health {}, {} node(s), {} active shard(s), {} unassigned",
        info.cluster_name,
        info.health.status,
        info.health.number_of_nodes,
        info.health.active_shards,
        info.health.unassigned_shards
    );
    let mut table = output::table(["node", "version", "roles", "heap"]);
    for node in &info.nodes {
        table.add_row([
            node.name.clone(),
            node.version.clone(),
            node.roles.join(","),
            node.heap_max_bytes
                .map(output::bytes)
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    outln!("{table}");
    if info.endpoints.len() > 1 {
        let mut table = output::table(["url", "answers"]);
        for e in &info.endpoints {
            table.add_row([
                e.url.clone(),
                e.error
                    .as_ref()
                    .map_or_else(|| "yes".to_string(), |err| format!("no: {err}")),
            ]);
        }
        outln!("{table}");
    }
    verdict
}

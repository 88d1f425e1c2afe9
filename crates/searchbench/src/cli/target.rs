//! `searchbench target ...` and the flags every command that talks to a cluster shares.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::args::parse_size;
use super::{output, CliError, CliResult};
use crate::cluster::{Auth, Secret, Target, TargetConfig};

/// How to reach a cluster. Secrets can come from the environment so they stay out of shell history.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Cluster")]
pub struct TargetArgs {
    /// Cluster URL(s), e.g. http://127.0.0.1:9200; repeat or comma-separate for several nodes.
    /// (The environment's value is never shown in help: a URL may carry a password.)
    #[arg(
        long = "url",
        env = "SEARCHBENCH_URL",
        hide_env_values = true,
        value_delimiter = ','
    )]
    pub urls: Vec<String>,
    /// User for HTTP basic auth (the password comes from --password or SEARCHBENCH_PASSWORD).
    #[arg(long, env = "SEARCHBENCH_USER")]
    pub user: Option<String>,
    /// Password for basic auth. Prefer the SEARCHBENCH_PASSWORD environment variable.
    #[arg(
        long,
        env = "SEARCHBENCH_PASSWORD",
        hide_env_values = true,
        requires = "user"
    )]
    pub password: Option<String>,
    /// Elasticsearch API key (the base64 `id:key` form).
    #[arg(long, env = "SEARCHBENCH_API_KEY", hide_env_values = true, conflicts_with_all = ["user", "bearer"])]
    pub api_key: Option<String>,
    /// Bearer token.
    #[arg(
        long,
        env = "SEARCHBENCH_BEARER",
        hide_env_values = true,
        conflicts_with = "user"
    )]
    pub bearer: Option<String>,
    /// PEM file with a CA certificate to trust (for self-signed clusters).
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Do not verify TLS certificates. Unsafe; for throwaway test clusters only.
    #[arg(long)]
    pub insecure: bool,
    /// Per-request timeout in seconds (at least 1).
    #[arg(long, default_value_t = 30, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Largest answer read for a search or an API call, e.g. 64mb, 1gb: a larger one is
    /// refused with the request named. A bulk answer's bound follows from its documents.
    #[arg(long, value_name = "SIZE", default_value = "64mb", value_parser = parse_size)]
    pub max_answer: usize,
}

impl TargetArgs {
    pub fn config(&self) -> TargetConfig {
        let auth = if let Some(key) = &self.api_key {
            Auth::ApiKey(Secret::new(key))
        } else if let Some(token) = &self.bearer {
            Auth::Bearer(Secret::new(token))
        } else if let Some(user) = &self.user {
            Auth::Basic {
                user: user.clone(),
                password: Secret::new(self.password.clone().unwrap_or_default()),
            }
        } else {
            Auth::None
        };
        TargetConfig {
            urls: self.urls.clone(),
            auth,
            ca_cert: self.ca_cert.clone(),
            insecure: self.insecure,
            timeout: Duration::from_secs(self.timeout.max(1)),
            max_answer: self.max_answer as u64,
        }
    }

    pub fn connect(&self) -> Result<Target, CliError> {
        if self.insecure {
            eprintln!("warning: --insecure: TLS certificates are not verified");
        }
        Target::new(&self.config()).map_err(CliError::usage)
    }
}

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

//! `searchbench deploy kubernetes|ssh -- <the run's flags>`: one run in parts started on many
//! hosts by Kubernetes (an Indexed Job written to a file) or by ssh (the commands printed).
//! The run's flags are checked here by the same parser that reads them on the hosts; its
//! files travel with it; a secret on the command line is refused (it would land in the
//! manifest or in shell histories): it goes in a Kubernetes Secret or the hosts' environment.

use std::time::{Duration, SystemTime};

use clap::{Args, Parser, Subcommand};

use crate::cli::{CliError, CliResult};
use crate::deploy::{self, run_flags, Deployment};

mod hosts;
mod kube;

pub use hosts::SshArgs;
pub use kube::KubernetesArgs;

#[derive(Debug, Subcommand)]
pub enum DeployCommand {
    /// Write a Kubernetes Indexed Job that runs the parts, one pod a part on nodes of their
    /// own: `kubectl apply -f` it, then collect the stores and merge (the steps are printed).
    Kubernetes(Box<KubernetesArgs>),
    /// Print the command each host runs for its part, and how to collect the stores (nothing
    /// is run here: give the lines to ssh, pdsh or your own tool).
    Ssh(SshArgs),
}

/// What every deployment takes.
#[derive(Debug, Args)]
pub struct PartsArgs {
    /// The group of the parts (default: parts-<date>-<time>).
    #[arg(long, value_name = "ID")]
    pub group: Option<String>,
    /// When every part starts, e.g. 2026-11-26T15:00:00Z (default: now + --start-in).
    #[arg(long, value_name = "TIME")]
    pub start_at: Option<String>,
    /// How long from now the parts start, when --start-at is not given: time to pull the
    /// image and schedule every pod.
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = crate::cli::args::parse_duration)]
    pub start_in: Duration,
    /// The run, after `--`: `run WORKLOAD --url URL ...`, `run --workload-file track.json
    /// --url URL`, `ingest ...` or `query ...`, as on one host (its --part, --group,
    /// --start-at and --store are added per part; its password goes in the Secret or the
    /// hosts' environment: SEARCHBENCH_PASSWORD, SEARCHBENCH_API_KEY, SEARCHBENCH_BEARER).
    #[arg(
        last = true,
        required = true,
        value_name = "RUN",
        allow_hyphen_values = true
    )]
    pub run: Vec<String>,
}

fn usage(message: String) -> CliError {
    CliError::usage(anyhow::anyhow!(message))
}

/// The run's flags parsed by the very parser the hosts use, as part 1 of `parts`.
fn parse_run(run: &[String], group: &str, parts: u32, start_at: &str) -> Result<(), CliError> {
    let with_part: Vec<String> = std::iter::once("searchbench".to_string())
        .chain(run.iter().cloned())
        .chain([
            "--part".into(),
            format!("1/{parts}"),
            "--group".into(),
            group.into(),
            "--start-at".into(),
            start_at.into(),
            "--store".into(),
            std::env::temp_dir()
                .join("searchbench-deploy-check.db")
                .display()
                .to_string(),
        ])
        .collect();
    crate::cli::Cli::try_parse_from(with_part)
        .map(|_| ())
        .map_err(|e| {
            usage(format!(
                "the run's flags: {}",
                e.render().to_string().trim()
            ))
        })
}

/// The deployment the common flags describe, with its files' paths under `into`.
fn deployment(common: &PartsArgs, parts: u32, into: &str) -> Result<Deployment, CliError> {
    let now = SystemTime::now();
    let group = common
        .group
        .clone()
        .unwrap_or_else(|| deploy::default_group(now));
    let start_at = match &common.start_at {
        Some(t) => {
            let at = crate::cli::args::parse_start_at(t)
                .map_err(|e| usage(format!("--start-at {e}")))?;
            // The parts refuse a start further off than this: say so here, not on every host.
            if at
                .duration_since(now)
                .is_ok_and(|w| w > crate::cli::args::MAX_WAIT)
            {
                return Err(usage(format!(
                    "--start-at {t}: more than {} h ahead; the parts wait at most that long",
                    crate::cli::args::MAX_WAIT.as_secs() / 3600
                )));
            }
            t.clone()
        }
        None => deploy::rfc3339(now + common.start_in),
    };
    run_flags::check_run(&common.run).map_err(|e| usage(e.to_string()))?;
    parse_run(&common.run, &group, parts, &start_at)?;
    let (args, files) =
        run_flags::ship_files(&common.run, into).map_err(|e| usage(e.to_string()))?;
    let d = Deployment {
        group,
        parts,
        start_at,
        args,
        files,
    };
    d.check().map_err(|e| usage(e.to_string()))?;
    Ok(d)
}

pub async fn run(cmd: DeployCommand) -> CliResult {
    match cmd {
        DeployCommand::Kubernetes(args) => kube::kubernetes_run(&args),
        DeployCommand::Ssh(args) => hosts::ssh_run(&args),
    }
}

//! `searchbench engine list|start|stop|status`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Subcommand;

use anyhow::Context;

use super::args::NodeArgs;
use super::{output, CliError, CliResult};
use crate::engine::{self, EngineError, StartOptions};
use crate::session::engines;

#[derive(Debug, Subcommand)]
pub enum EngineCommand {
    /// The engines searchbench can start: what each needs and whether it is cached.
    ///
    /// Without --available: the default engine and those already in the cache. With
    /// --available: every release Maven Central lists (OpenSearch 1.x–3.x, Elasticsearch
    /// 7.x–8.x), from a cached copy of its metadata (--refresh fetches it again).
    List {
        /// Every release Maven Central lists, not only the cached ones.
        #[arg(long)]
        available: bool,
        /// Fetch Maven Central's newest release lists first (needs the network).
        #[arg(long)]
        refresh: bool,
        /// Only engines whose name contains this, e.g. elasticsearch-8 or 2.11.
        filter: Option<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Start a cluster bound to 127.0.0.1 (or --bind) and print its URL once it is healthy.
    ///
    /// The first start of an engine resolves its artifacts from Maven Central into the cache
    /// ($XDG_CACHE_HOME/searchbench or ~/.cache/searchbench); later starts reuse them. The
    /// nodes keep running after this command returns; `searchbench engine stop` stops them.
    /// Distributions refuse to run as root: as root, searchbench runs them as `nobody`.
    Start {
        /// Engine name (`opensearch-2.11.0`, `elasticsearch-8.17.x` for the newest 8.17, or
        /// `sketch`: the cluster-metrics store built into searchbench, one process in memory,
        /// no JDK), see `searchbench engine list --available`.
        #[arg(value_parser = crate::cli::args::suggest::engines(), hide_possible_values = true, default_value = engine::DEFAULT_ENGINE)]
        name: String,
        /// Start a local, unpacked Elasticsearch or OpenSearch distribution folder instead of
        /// a catalogue engine (your own build): product and version are read from its lib/
        /// jars.
        #[arg(long, value_name = "DIR", conflicts_with = "name")]
        engine_dir: Option<PathBuf>,
        #[command(flatten)]
        node: NodeArgs,
        /// Data folder to keep (with several nodes, one sub-folder each); by default fresh
        /// folders in the cache, deleted on stop. With --security the node lasts: its CA and
        /// its users are kept in DIR/searchbench-security, the passwords are said at the first
        /// start only, and a restart with the same DIR needs the admin's password in
        /// SEARCHBENCH_PASSWORD (a team's results node: see the README).
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// Serve HTTP on this address instead of 127.0.0.1, for a team's network, e.g.
        /// --bind 10.0.0.5. Needs --security: the node certificate names the address, and
        /// clients reach the node as https://ADDR:PORT with the printed --ca-cert.
        #[arg(long, value_name = "ADDR")]
        bind: Option<std::net::IpAddr>,
        /// Seconds to wait for the cluster to become healthy (yellow for one node, green
        /// with every node for several).
        #[arg(long, default_value_t = 180, value_name = "SECS")]
        timeout: u64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Stop nodes started by searchbench: one engine's, the cluster of the node on a port, or
    /// all of them (--all).
    ///
    /// Sends SIGTERM, then SIGKILL if the node has not exited after the grace period. Without
    /// an engine, --port or --all it asks first on a terminal, and refuses without one (a
    /// script must say --all to stop every node its session started, --all --any-owner for
    /// every node searchbench started on this machine).
    Stop {
        /// Only nodes of this engine.
        name: Option<String>,
        /// Only the cluster of the node on this HTTP port.
        #[arg(long)]
        port: Option<u16>,
        /// Every node this session started (its owner: `SEARCHBENCH_OWNER`, else this
        /// terminal's or CI job's session; `engine status` shows each node's).
        #[arg(long, conflicts_with_all = ["name", "port"])]
        all: bool,
        /// With --all: every node searchbench started on this machine, whoever started it
        /// (another terminal, another CI job of this user).
        #[arg(long, requires = "all")]
        any_owner: bool,
        /// Seconds between SIGTERM and SIGKILL.
        #[arg(long, default_value_t = 30, value_name = "SECS")]
        grace: u64,
    },
    /// Nodes started by searchbench: engine, cluster, URL, pid, health, memory. Forgets
    /// dead ones.
    Status {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Delete what killed nodes left behind: stale records, data, node folders and logs
    /// that no running node uses.
    Clean,
}

pub async fn run(cmd: EngineCommand) -> CliResult {
    match cmd {
        EngineCommand::List {
            available,
            refresh,
            filter,
            json,
        } => list(available, refresh, filter, json).await,
        EngineCommand::Start {
            name,
            engine_dir,
            node,
            data,
            bind,
            timeout,
            json,
        } => {
            let mut options = node.options_for(&name, engine_dir.as_deref())?;
            options.data = data;
            options.bind = bind;
            options.timeout = Duration::from_secs(timeout);

            start(options, json).await
        }
        EngineCommand::Stop {
            name,
            port,
            all,
            any_owner,
            grace,
        } => {
            if name.is_none() && port.is_none() && !all && !confirm_stop_all()? {
                return Ok(());
            }
            let owners = if any_owner {
                engines::Owners::Any
            } else {
                engines::Owners::Mine
            };
            stop(name, port, owners, Duration::from_secs(grace))
        }
        EngineCommand::Status { json } => status(json).await,
        EngineCommand::Clean => {
            let removed = engine::clean();
            output::engine::cleaned(&removed);
            Ok(())
        }
    }
}

async fn list(available: bool, refresh: bool, filter: Option<String>, json: bool) -> CliResult {
    if refresh {
        engine::maven::refresh().await.context(
            "fetching Maven Central's release lists (without --refresh the cached lists answer)",
        )?;
    }
    let rows = engines::catalogue(available, filter.as_deref());
    if json {
        return Ok(output::json(&rows)?);
    }
    output::engine::list(&rows, available);
    Ok(())
}

async fn start(options: StartOptions, json: bool) -> CliResult {
    let cached = engine::find(&options.engine).is_some_and(|s| engine::is_cached(&s));
    let spinner = (!json).then(|| {
        let message = if cached {
            format!("starting {}", options.engine)
        } else {
            format!(
                "resolving {} from Maven Central (first start only), then starting it",
                options.engine
            )
        };
        super::progress::spinner(message)
    });
    let result = engine::start(&options).await;
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    let started = engines::Started::of(&result.map_err(engine_error)?);
    if json {
        output::json(&started)?;
    } else {
        output::engine::started(&started);
    }
    Ok(())
}

/// Bad names, ports and options are the user's to fix (exit 2); the rest are failures.
fn engine_error(e: EngineError) -> CliError {
    if e.is_usage() {
        CliError::usage(e)
    } else {
        e.into()
    }
}

/// `engine stop` with nothing named: on a terminal, asks (listing what would stop); without
/// one, refuses as bad usage. `Ok(false)` when the answer is no (or nothing runs).
fn confirm_stop_all() -> Result<bool, CliError> {
    use std::io::{BufRead, IsTerminal, Write};
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(CliError::usage(anyhow::anyhow!(
            "engine stop without an engine name or --port would stop every node this \
             session started: say --all to mean that (--all --any-owner for every node \
             searchbench started on this machine), or name the engine or --port"
        )));
    }
    let me = crate::engine::process::owner();
    let records: Vec<_> = crate::engine::NodeRecord::all()
        .into_iter()
        .filter(|r| r.owner == me)
        .collect();
    if records.is_empty() {
        output::engine::none_stopped();
        return Ok(false);
    }
    errln!("These nodes this session started are running:");
    for r in &records {
        errln!("  {} on port {} (pid {})", r.engine, r.http_port, r.pid);
    }
    err!("Stop all {}? [y/N] ", records.len());
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::usage(anyhow::anyhow!("reading the answer: {e}")))?;
    let yes = matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes");
    if !yes {
        errln!("nothing stopped");
    }
    Ok(yes)
}

fn stop(
    name: Option<String>,
    port: Option<u16>,
    owners: engines::Owners,
    grace: Duration,
) -> CliResult {
    let (n, left) = engines::stop(
        name.as_deref(),
        port,
        owners,
        grace,
        output::engine::stopped,
    )
    .map_err(engine_error)?;
    if n == 0 {
        output::engine::none_stopped();
    }
    output::engine::others_left(left);
    Ok(())
}

async fn status(json: bool) -> CliResult {
    let status = engines::status().await;
    output::engine::set_aside(&status);
    if json {
        return Ok(output::json(&status.rows)?);
    }
    output::engine::status(&status.rows);
    Ok(())
}

//! `searchbench engine list|start|stop|status`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Subcommand;
use serde::Serialize;

use anyhow::Context;

use super::args::NodeArgs;
use super::{output, CliError, CliResult};
use crate::engine::{self, EngineError, NodeRecord, StartOptions, StopOutcome};

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
    /// Start a cluster bound to 127.0.0.1 and print its URL once it is healthy.
    ///
    /// The first start of an engine resolves its artifacts from Maven Central into the cache
    /// ($XDG_CACHE_HOME/searchbench or ~/.cache/searchbench); later starts reuse them. The
    /// nodes keep running after this command returns; `searchbench engine stop` stops them.
    /// Distributions refuse to run as root: as root, searchbench runs them as `nobody`.
    Start {
        /// Engine name (`opensearch-2.11.0`, `elasticsearch-8.17.x` for the newest 8.17),
        /// see `searchbench engine list --available`.
        #[arg(default_value = engine::DEFAULT_ENGINE)]
        name: String,
        /// Start a local, unpacked Elasticsearch or OpenSearch distribution folder instead of
        /// a catalogue engine (your own build): product and version are read from its lib/
        /// jars.
        #[arg(long, value_name = "DIR", conflicts_with = "name")]
        engine_dir: Option<PathBuf>,
        #[command(flatten)]
        node: NodeArgs,
        /// Data folder to keep (with several nodes, one sub-folder each); by default fresh
        /// folders in the cache, deleted on stop.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// Seconds to wait for the cluster to become healthy (yellow for one node, green
        /// with every node for several).
        #[arg(long, default_value_t = 180, value_name = "SECS")]
        timeout: u64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Stop nodes started by searchbench: all of them, or one engine's, or the cluster of
    /// the node on a port.
    ///
    /// Sends SIGTERM, then SIGKILL if the node has not exited after the grace period.
    Stop {
        /// Only nodes of this engine.
        name: Option<String>,
        /// Only the cluster of the node on this HTTP port.
        #[arg(long)]
        port: Option<u16>,
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
            timeout,
            json,
        } => {
            let mut options = node.options_for(&name, engine_dir.as_deref())?;
            options.data = data;
            options.timeout = Duration::from_secs(timeout);
            start(options, json).await
        }
        EngineCommand::Stop { name, port, grace } => stop(name, port, Duration::from_secs(grace)),
        EngineCommand::Status { json } => status(json).await,
        EngineCommand::Clean => {
            let removed = engine::clean();
            output::engine::cleaned(&removed);
            Ok(())
        }
    }
}

#[derive(Serialize)]
pub struct ListRow {
    pub name: String,
    pub product: String,
    pub version: String,
    pub kind: engine::Kind,
    pub artifact: String,
    /// JDK feature releases the engine runs on, e.g. `17–23`.
    pub jdk_needed: String,
    /// The JDK it would run on here, if any.
    pub jdk: Option<String>,
    pub cached: bool,
}

async fn list(available: bool, refresh: bool, filter: Option<String>, json: bool) -> CliResult {
    if refresh {
        engine::maven::refresh().await.context(
            "fetching Maven Central's release lists (without --refresh the cached lists answer)",
        )?;
    }
    let jdks = engine::jdk::discover();
    let rows: Vec<ListRow> = engine::all()
        .into_iter()
        .filter(|spec| available || spec.name == engine::DEFAULT_ENGINE || engine::is_cached(spec))
        .filter(|spec| {
            filter
                .as_ref()
                .is_none_or(|f| spec.name.contains(f.as_str()))
        })
        .map(|spec| ListRow {
            product: spec.product.to_string(),
            version: spec.version.clone(),
            kind: spec.kind,
            jdk_needed: spec.jdk.to_string(),
            jdk: jdks
                .iter()
                .filter(|j| spec.jdk.admits(j.feature))
                .max_by_key(|j| j.feature)
                .map(|j| format!("{} ({})", j.feature, j.home.display())),
            cached: engine::is_cached(&spec),
            artifact: spec.artifact,
            name: spec.name,
        })
        .collect();
    if json {
        return Ok(output::json(&rows)?);
    }
    output::engine::list(&rows, available);
    Ok(())
}

#[derive(Serialize)]
pub struct Started<'a> {
    pub engine: &'a str,
    pub url: &'a str,
    pub urls: Vec<String>,
    pub pid: u32,
    pub pids: Vec<u32>,
    pub jdk: String,
    pub fetched: bool,
    pub provision_secs: f64,
    pub boot_secs: f64,
    pub rss_bytes: Option<u64>,
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
    let node = result.map_err(engine_error)?;
    let rss: Vec<u64> = node.records.iter().filter_map(|r| r.rss_bytes()).collect();
    let started = Started {
        engine: &node.spec.name,
        url: node.url(),
        urls: node.urls(),
        pid: node.pid(),
        pids: node.pids(),
        jdk: format!(
            "{} {} ({})",
            node.jdk.vendor,
            node.jdk.version,
            node.jdk.home.display()
        ),
        fetched: node.provisioned.fetched,
        provision_secs: node.provisioned.took.as_secs_f64(),
        boot_secs: node.boot.as_secs_f64(),
        rss_bytes: (!rss.is_empty()).then(|| rss.iter().sum()),
    };
    if json {
        output::json(&started)?;
    } else {
        output::engine::started(&started, node.records[0].http_port);
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

fn stop(name: Option<String>, port: Option<u16>, grace: Duration) -> CliResult {
    let name = match name {
        Some(name) => Some(engine::resolve(&name).map_err(CliError::usage)?.name),
        None => None,
    };
    let records = NodeRecord::all();
    // A port names a node; stopping it stops its whole cluster.
    let cluster_of_port: Option<String> = port.and_then(|p| {
        records
            .iter()
            .find(|r| r.http_port == p && !r.cluster.is_empty())
            .map(|r| r.cluster.clone())
    });
    let chosen: Vec<NodeRecord> = records
        .into_iter()
        .filter(|r| name.as_ref().is_none_or(|n| &r.engine == n))
        .filter(|r| {
            port.is_none_or(|p| {
                r.http_port == p || cluster_of_port.as_ref().is_some_and(|c| &r.cluster == c)
            })
        })
        .collect();
    if chosen.is_empty() {
        eprintln!("no node started by searchbench matches; nothing to stop");
        return Ok(());
    }
    for record in chosen {
        let outcome = engine::stop_record(&record, grace);
        let what = match outcome {
            StopOutcome::Stopped => "stopped",
            StopOutcome::Killed => "did not stop in time: killed",
            StopOutcome::Stale => "was no longer running: forgot its stale record",
        };
        println!(
            "{} on port {} (pid {}) {what}",
            record.engine, record.http_port, record.pid
        );
    }
    Ok(())
}

#[derive(Serialize)]
pub struct StatusRow {
    pub engine: String,
    pub cluster: String,
    pub node: String,
    pub url: String,
    pub pid: u32,
    pub health: String,
    pub rss_bytes: Option<u64>,
    pub data_dir: PathBuf,
    pub log: PathBuf,
}

async fn status(json: bool) -> CliResult {
    let mut rows = Vec::new();
    let (records, unreadable) = NodeRecord::scan();
    for path in unreadable {
        eprintln!(
            "warning: ignoring unreadable node record {}",
            path.display()
        );
    }
    for record in records {
        if !record.is_alive() {
            eprintln!(
                "{} on port {} (pid {}) is gone: forgot its stale record",
                record.engine, record.http_port, record.pid
            );
            record.remove();
            continue;
        }
        let mut config = crate::cluster::TargetConfig::local(&record.url);
        config.timeout = Duration::from_secs(3);
        let health = match crate::cluster::Target::new(&config) {
            Ok(t) => match t.health(None).await {
                Ok(h) => h.status,
                Err(e) => format!("not answering ({e})"),
            },
            Err(e) => e.to_string(),
        };
        rows.push(StatusRow {
            engine: record.engine.clone(),
            cluster: record.cluster.clone(),
            node: record.node_name.clone(),
            url: record.url.clone(),
            pid: record.pid,
            health,
            rss_bytes: record.rss_bytes(),
            data_dir: record.data_dir.clone(),
            log: record.log.clone(),
        });
    }
    if json {
        return Ok(output::json(&rows)?);
    }
    output::engine::status(&rows);
    Ok(())
}

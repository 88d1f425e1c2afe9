//! `searchbench engine list|start|stop|status`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Subcommand;
use serde::Serialize;

use super::{output, CliError, CliResult};
use crate::engine::{self, jdk, EngineError, NodeRecord, StartOptions, StopOutcome};

#[derive(Debug, Subcommand)]
pub enum EngineCommand {
    /// The engines searchbench can start, what each needs, and whether it is cached.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Start a node bound to 127.0.0.1 and print its URL once it is healthy.
    ///
    /// The first start of an engine resolves its artifacts from Maven Central into the cache
    /// ($XDG_CACHE_HOME/searchbench or ~/.cache/searchbench); later starts reuse them. The
    /// node keeps running after this command returns; `searchbench engine stop` stops it.
    Start {
        /// Engine name, see `searchbench engine list`.
        #[arg(default_value = engine::DEFAULT_ENGINE)]
        name: String,
        /// HTTP port (a free one by default).
        #[arg(long)]
        port: Option<u16>,
        /// JVM heap (-Xms and -Xmx), e.g. 512m, 1g, 4g.
        #[arg(long, default_value = "1g", value_parser = parse_heap)]
        heap: String,
        /// Data folder to keep; by default a fresh folder in the cache, deleted on stop.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// Seconds to wait for the node to become healthy (yellow or green).
        #[arg(long, default_value_t = 180, value_name = "SECS")]
        timeout: u64,
        /// Print the node (engine, URL, pid, …) as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Stop nodes started by searchbench: all of them, or one engine's, or the one on a port.
    ///
    /// Sends SIGTERM, then SIGKILL if the node has not exited after the grace period.
    Stop {
        /// Only nodes of this engine.
        name: Option<String>,
        /// Only the node on this HTTP port.
        #[arg(long)]
        port: Option<u16>,
        /// Seconds between SIGTERM and SIGKILL.
        #[arg(long, default_value_t = 30, value_name = "SECS")]
        grace: u64,
    },
    /// Nodes started by searchbench: engine, URL, pid, health, memory. Forgets dead ones.
    Status {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

fn parse_heap(s: &str) -> Result<String, String> {
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let ok_unit = matches!(unit, "m" | "M" | "g" | "G");
    match digits.parse::<u32>() {
        Ok(n) if n > 0 && ok_unit => Ok(s.to_string()),
        _ => Err(format!("{s:?} is not a heap size; use e.g. 512m or 2g")),
    }
}

pub async fn run(cmd: EngineCommand) -> CliResult {
    match cmd {
        EngineCommand::List { json } => list(json),
        EngineCommand::Start {
            name,
            port,
            heap,
            data,
            timeout,
            json,
        } => {
            let options = StartOptions {
                engine: name,
                port,
                heap,
                data,
                timeout: Duration::from_secs(timeout),
                attached: false,
            };
            start(options, json).await
        }
        EngineCommand::Stop { name, port, grace } => stop(name, port, Duration::from_secs(grace)),
        EngineCommand::Status { json } => status(json).await,
    }
}

#[derive(Serialize)]
pub struct ListRow {
    pub name: &'static str,
    pub product: String,
    pub version: &'static str,
    pub artifact: &'static str,
    pub min_jdk: u32,
    pub jdk: Option<String>,
    pub cached: bool,
}

fn list(json: bool) -> CliResult {
    let rows: Vec<ListRow> = engine::CATALOGUE
        .iter()
        .map(|spec| ListRow {
            name: spec.name,
            product: spec.product.to_string(),
            version: spec.version,
            artifact: spec.artifact,
            min_jdk: spec.min_jdk,
            jdk: jdk::find_at_least(spec.min_jdk)
                .map(|j| format!("{} ({})", j.feature, j.home.display())),
            cached: engine::is_cached(spec),
        })
        .collect();
    if json {
        return Ok(output::json(&rows)?);
    }
    output::engine::list(&rows);
    Ok(())
}

#[derive(Serialize)]
pub struct Started<'a> {
    pub engine: &'a str,
    pub url: &'a str,
    pub pid: u32,
    pub fetched: bool,
    pub provision_secs: f64,
    pub boot_secs: f64,
    pub rss_bytes: Option<u64>,
}

async fn start(options: StartOptions, json: bool) -> CliResult {
    let cached = engine::find(&options.engine).is_some_and(engine::is_cached);
    let spinner = (!json).then(|| {
        let message = if cached {
            format!("starting {}", options.engine)
        } else {
            format!(
                "resolving {} from Maven Central (first start only), then starting it",
                options.engine
            )
        };
        let bar = indicatif::ProgressBar::new_spinner().with_message(message);
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    let result = engine::start(&options).await;
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    let node = result.map_err(engine_error)?;
    let started = Started {
        engine: node.spec.name,
        url: node.url(),
        pid: node.pid(),
        fetched: node.provisioned.fetched,
        provision_secs: node.provisioned.took.as_secs_f64(),
        boot_secs: node.boot.as_secs_f64(),
        rss_bytes: node.record.rss_bytes(),
    };
    if json {
        output::json(&started)?;
    } else {
        output::engine::started(&started, node.record.http_port);
    }
    Ok(())
}

/// Bad names and taken ports are the user's to fix (exit 2); the rest are failures.
fn engine_error(e: EngineError) -> CliError {
    match e {
        EngineError::Unknown { .. } | EngineError::PortTaken { .. } => CliError::usage(e),
        other => other.into(),
    }
}

fn stop(name: Option<String>, port: Option<u16>, grace: Duration) -> CliResult {
    if let Some(name) = &name {
        if engine::find(name).is_none() {
            return Err(CliError::usage(EngineError::Unknown { name: name.clone() }));
        }
    }
    let chosen: Vec<NodeRecord> = NodeRecord::all()
        .into_iter()
        .filter(|r| name.as_ref().is_none_or(|n| &r.engine == n))
        .filter(|r| port.is_none_or(|p| r.http_port == p))
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

//! Engines: the catalogue, provisioning from Maven Central, and node processes.

mod catalog;
pub mod jdk;
pub mod paths;
pub mod process;
mod provision;

pub use catalog::{find, names, EngineSpec, Product, CATALOGUE, DEFAULT_ENGINE};
pub use process::NodeRecord;
pub use provision::{is_cached, provision, Provisioned};

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::cluster::{Target, TargetConfig};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("unknown engine {name:?}; known engines: {}", names().join(", "))]
    Unknown { name: String },
    #[error("{engine} needs a JDK {min}+ and none was found (looked in $JAVA_HOME and the JVM folders{dirs}); found: {found}. Install one, e.g. `apt-get install openjdk-{min}-jdk-headless`, or set JAVA_HOME")]
    NoJdk {
        engine: String,
        min: u32,
        dirs: String,
        found: String,
    },
    #[error("`mvn` is not on PATH: searchbench resolves engines from Maven Central with Maven. Install it, e.g. `apt-get install maven`")]
    NoMaven,
    #[error("could not resolve {engine} ({artifact}) with Maven; last lines of the Maven log:\n{log_tail}")]
    Provision {
        engine: String,
        artifact: String,
        log_tail: String,
    },
    #[error("port {port} on 127.0.0.1 is already in use{by}")]
    PortTaken { port: u16, by: String },
    #[error(
        "{engine} exited during start-up (exit status {status}); last lines of {log}:\n{log_tail}"
    )]
    Exited {
        engine: String,
        status: String,
        log: PathBuf,
        log_tail: String,
    },
    #[error("{engine} did not become healthy within {secs} s (last: {last}); it was stopped. Last lines of {log}:\n{log_tail}")]
    Unhealthy {
        engine: String,
        secs: u64,
        last: String,
        log: PathBuf,
        log_tail: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl EngineError {
    pub(crate) fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        EngineError::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }
}

/// What `engine start` needs to know.
#[derive(Debug, Clone)]
pub struct StartOptions {
    pub engine: String,
    /// HTTP port; a free one when `None`.
    pub port: Option<u16>,
    /// JVM heap, e.g. `1g`.
    pub heap: String,
    /// Data folder; a fresh one under the cache when `None` (deleted on stop).
    pub data: Option<PathBuf>,
    /// How long to wait for yellow/green health.
    pub timeout: Duration,
    /// Tie the node's life to ours: it stops when this process exits, however it exits.
    pub attached: bool,
}

impl StartOptions {
    pub fn new(engine: &str) -> Self {
        StartOptions {
            engine: engine.to_string(),
            port: None,
            heap: "1g".into(),
            data: None,
            timeout: Duration::from_secs(120),
            attached: false,
        }
    }
}

/// A running node we started.
#[derive(Debug)]
pub struct Node {
    pub record: NodeRecord,
    pub spec: &'static EngineSpec,
    pub provisioned: Provisioned,
    /// Time from spawning the JVM to healthy.
    pub boot: Duration,
    /// Held open for attached nodes: closing it (dropping us) stops the node.
    child: Option<Child>,
}

impl Node {
    pub fn url(&self) -> &str {
        &self.record.url
    }

    pub fn pid(&self) -> u32 {
        self.record.pid
    }

    pub fn target(&self) -> Result<Target, crate::cluster::TargetError> {
        Target::new(&TargetConfig::local(self.url()))
    }

    /// Stops the node and cleans up what we created.
    pub fn stop(mut self) -> StopOutcome {
        let outcome = stop_record(&self.record, Duration::from_secs(30));
        if let Some(mut child) = self.child.take() {
            let _ = child.wait();
        }
        outcome
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // Attached: closing stdin asks the node to stop; make sure, then reap.
            drop(child.stdin.take());
            crate::os::terminate(self.record.pid, Duration::from_secs(20));
            let _ = child.wait();
            self.record.remove();
            remove_data(&self.record);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopOutcome {
    /// Stopped by SIGTERM within the grace period.
    Stopped,
    /// Had to SIGKILL.
    Killed,
    /// The record was stale: the process was already gone.
    Stale,
}

/// Starts a node: provisions on first use, spawns the JVM, waits until healthy.
pub async fn start(options: &StartOptions) -> Result<Node, EngineError> {
    let spec = find(&options.engine).ok_or_else(|| EngineError::Unknown {
        name: options.engine.clone(),
    })?;
    let jdk = jdk::find_at_least(spec.min_jdk).ok_or_else(|| EngineError::NoJdk {
        engine: spec.name.to_string(),
        min: spec.min_jdk,
        dirs: jdk::searched_folders(),
        found: describe_jdks(),
    })?;
    let http_port = match options.port {
        Some(port) => claim_port(port)?,
        None => free_port()?,
    };
    let transport_port = free_port()?;
    let provisioned = provision(spec, &jdk)?;

    let nodes_dir = paths::nodes_dir();
    std::fs::create_dir_all(&nodes_dir).map_err(|e| EngineError::io(&nodes_dir, e))?;
    let (data_dir, data_is_ours) = match &options.data {
        Some(dir) => (dir.clone(), false),
        None => (
            paths::data_dir().join(format!("{}-{http_port}", spec.name)),
            true,
        ),
    };
    if data_is_ours {
        let _ = std::fs::remove_dir_all(&data_dir);
    }
    std::fs::create_dir_all(&data_dir).map_err(|e| EngineError::io(&data_dir, e))?;
    let log = nodes_dir.join(format!("{http_port}.log"));
    let log_file = std::fs::File::create(&log).map_err(|e| EngineError::io(&log, e))?;
    let log_err = log_file.try_clone().map_err(|e| EngineError::io(&log, e))?;

    let mut command = Command::new(jdk.java());
    command
        .arg(format!("-Xms{}", options.heap))
        .arg(format!("-Xmx{}", options.heap))
        .arg("-XX:+UseG1GC")
        .arg("-Djava.awt.headless=true")
        .arg("-Dlog4j2.formatMsgNoLookups=true")
        .arg("-cp")
        .arg(provisioned.classpath())
        .arg(process::LAUNCHER_CLASS)
        .args([
            "--http",
            &http_port.to_string(),
            "--transport",
            &transport_port.to_string(),
        ])
        .arg("--data")
        .arg(&data_dir)
        .stdout(log_file)
        .stderr(log_err);
    if options.attached {
        command.arg("--watch-stdin").stdin(Stdio::piped());
    } else {
        command.stdin(Stdio::null());
    }
    // Own process group: a Ctrl-C meant for searchbench does not hit the node half-way.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let spawned = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| EngineError::io(jdk.java(), e))?;

    let record = NodeRecord {
        engine: spec.name.to_string(),
        pid: child.id(),
        http_port,
        transport_port,
        url: format!("http://127.0.0.1:{http_port}"),
        data_dir,
        data_is_ours,
        log: log.clone(),
        started_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        heap: options.heap.clone(),
    };
    record.save()?;

    if let Err(e) = wait_healthy(spec, &record, &mut child, options.timeout).await {
        crate::os::terminate(record.pid, Duration::from_secs(10));
        let _ = child.wait();
        record.remove();
        remove_data(&record);
        return Err(e);
    }
    let boot = spawned.elapsed();
    let child = if options.attached { Some(child) } else { None };
    Ok(Node {
        record,
        spec,
        provisioned,
        boot,
        child,
    })
}

async fn wait_healthy(
    spec: &EngineSpec,
    record: &NodeRecord,
    child: &mut Child,
    timeout: Duration,
) -> Result<(), EngineError> {
    let mut config = TargetConfig::local(&record.url);
    config.timeout = Duration::from_secs(3);
    let target =
        Target::new(&config).map_err(|e| EngineError::io(&record.log, std::io::Error::other(e)))?;
    let deadline = Instant::now() + timeout;
    let mut last = String::from("no answer yet");
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(EngineError::Exited {
                engine: spec.name.to_string(),
                status: status.to_string(),
                log: record.log.clone(),
                log_tail: process::tail(&record.log, 40),
            });
        }
        match target.health(Some("yellow")).await {
            Ok(h) if !h.timed_out && (h.status == "yellow" || h.status == "green") => return Ok(()),
            Ok(h) => last = format!("health {}", h.status),
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    Err(EngineError::Unhealthy {
        engine: spec.name.to_string(),
        secs: timeout.as_secs(),
        last,
        log: record.log.clone(),
        log_tail: process::tail(&record.log, 40),
    })
}

/// Stops the node of a record: SIGTERM, SIGKILL after `grace`; removes the record and our data.
pub fn stop_record(record: &NodeRecord, grace: Duration) -> StopOutcome {
    let outcome = if !record.is_alive() {
        StopOutcome::Stale
    } else if crate::os::terminate(record.pid, grace) {
        StopOutcome::Killed
    } else {
        StopOutcome::Stopped
    };
    record.remove();
    remove_data(record);
    outcome
}

/// Deletes what we created for a node: its data folder (unless the user chose it) and its log.
fn remove_data(record: &NodeRecord) {
    if record.data_is_ours {
        let _ = std::fs::remove_dir_all(&record.data_dir);
    }
    let _ = std::fs::remove_file(&record.log);
}

fn describe_jdks() -> String {
    let found: Vec<String> = jdk::discover()
        .iter()
        .map(|j| format!("JDK {} at {}", j.feature, j.home.display()))
        .collect();
    if found.is_empty() {
        "none".into()
    } else {
        found.join(", ")
    }
}

fn free_port() -> Result<u16, EngineError> {
    let listener =
        TcpListener::bind(("127.0.0.1", 0)).map_err(|e| EngineError::io("127.0.0.1:0", e))?;
    let port = listener
        .local_addr()
        .map_err(|e| EngineError::io("127.0.0.1:0", e))?
        .port();
    Ok(port)
}

/// Fails clearly when the port is taken, naming our node if it is one of ours.
fn claim_port(port: u16) -> Result<u16, EngineError> {
    if TcpListener::bind(("127.0.0.1", port)).is_ok() {
        return Ok(port);
    }
    let by = NodeRecord::all()
        .into_iter()
        .find(|r| r.http_port == port && r.is_alive())
        .map(|r| format!(" by {} (pid {}) started by searchbench; `searchbench engine stop --port {port}` stops it", r.engine, r.pid))
        .unwrap_or_else(|| " by another process".into());
    Err(EngineError::PortTaken { port, by })
}

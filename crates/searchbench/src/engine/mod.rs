//! Engines: the catalogue (every release Maven Central lists), provisioning, and local
//! clusters of one or more node processes.

pub mod builtin;
mod catalog;
pub mod jdk;
mod launch;
mod local;
pub mod maven;
pub mod paths;
pub mod plugins;
pub mod process;
mod provision;
pub mod security;

pub use catalog::{
    all, find, resolve, sketch, CatalogError, EngineSpec, JdkRange, Kind, Product, Version,
    DEFAULT_ENGINE, DIST_SUFFIX, SKETCH,
};
pub use jdk::Jdk;
pub use local::inspect as inspect_dir;
pub use process::NodeRecord;
pub use provision::{is_cached, provision, provision_with, Provisioned};

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::cluster::{Target, TargetConfig};
use launch::NodePlan;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Unknown(#[from] CatalogError),
    #[error("{engine} runs on JDK {range} and none was found (looked in $JAVA_HOME and the JVM folders{dirs}); found: {found}. Install one, e.g. `apt-get install openjdk-{min}-jdk-headless`, or set JAVA_HOME")]
    NoJdk {
        engine: String,
        range: JdkRange,
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
    #[error("{what}: {reason}")]
    BadOption { what: String, reason: String },
    /// A folder searchbench would keep engines in, and run them from, that another user may
    /// control.
    #[error("{0}")]
    Unsafe(String),
    #[error(
        "{engine} node {node} exited during start-up ({status}); the log is kept at {log}. Its last meaningful lines:\n{log_tail}"
    )]
    Exited {
        engine: String,
        node: String,
        status: String,
        log: PathBuf,
        log_tail: String,
    },
    #[error("{engine} did not become healthy within {secs} s (last: {last}); it was stopped. The log is kept at {log}. Its last meaningful lines:\n{log_tail}")]
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
    /// Asked to stop (Ctrl-C, SIGTERM) while it was provisioned or started: what was begun is
    /// stopped, and nothing runs.
    #[error("interrupted: {0}; nothing was started")]
    Interrupted(String),
}

impl EngineError {
    pub(crate) fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        EngineError::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// The user's to fix: a name, a port, an option.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            EngineError::Unknown(_) | EngineError::PortTaken { .. } | EngineError::BadOption { .. }
        )
    }
}

/// Names JVM options (space-separated) that every JVM node searchbench starts gets before its
/// own [`StartOptions::jvm_opts`]: a setting of the machine or the CI job rather than of one
/// command, e.g. `-XX:TieredStopAtLevel=1` where nodes live a minute and C2's compiling would
/// cost more than it gives back (the test suite's nodes). Runs record them with the rest.
pub const JVM_OPTS_ENV: &str = "SEARCHBENCH_JVM_OPTS";

/// What `engine start` needs to know.
#[derive(Debug, Clone)]
pub struct StartOptions {
    pub engine: String,
    /// A local, unpacked distribution folder to start instead of a catalogue engine (see
    /// [`inspect_dir`]); `engine` is then the name read from it.
    pub engine_dir: Option<PathBuf>,
    /// Nodes in the cluster, each its own process and heap.
    pub nodes: u16,
    /// HTTP port of the first node (the next ones count up); free ones when `None`.
    pub port: Option<u16>,
    /// Transport port of the first node (the next ones count up); free ones when `None`.
    pub transport_port: Option<u16>,
    /// JVM heap of each node, e.g. `1g`.
    pub heap: String,
    /// Extra JVM options of each node.
    pub jvm_opts: Vec<String>,
    /// Node settings `key=value`, applied after ours.
    pub settings: Vec<(String, String)>,
    /// Data folder; fresh ones under the cache when `None` (deleted on stop). With several
    /// nodes, each gets a sub-folder `node-N`.
    pub data: Option<PathBuf>,
    /// How long to wait for health (yellow for one node, green with all nodes for several).
    pub timeout: Duration,
    /// Tie the nodes' life to ours: they stop when this process exits, however it exits.
    pub attached: bool,
    /// Start the release's distribution with the security plugin: TLS with our own CA, an
    /// admin and a read-only user (see [`security`]).
    pub security: Option<security::SecurityOptions>,
    /// Start a node that can search vectors: OpenSearch's distribution with its k-NN plugin
    /// (see [`plugins`]); Elasticsearch has them in its core, and is started as it is.
    pub knn: bool,
    /// The address HTTP is served on instead of 127.0.0.1 (a team's results node); only a
    /// secured node, whose certificate then names it. Transport stays on the loopback.
    pub bind: Option<std::net::IpAddr>,
    /// The run's stop (Ctrl-C, SIGTERM): provisioning (its Maven killed) and the wait for the
    /// nodes end once it fires, and what was begun is stopped.
    pub stop: crate::cancel::Cancel,
}

impl StartOptions {
    pub fn new(engine: &str) -> Self {
        StartOptions {
            engine: engine.to_string(),
            engine_dir: None,
            nodes: 1,
            port: None,
            transport_port: None,
            heap: "1g".into(),
            jvm_opts: Vec::new(),
            settings: Vec::new(),
            data: None,
            timeout: Duration::from_secs(180),
            attached: false,
            security: None,
            knn: false,
            bind: None,
            stop: crate::cancel::Cancel::never(),
        }
    }

    /// The JVM options each node is started with: [`JVM_OPTS_ENV`]'s, then `jvm_opts`. The
    /// sketch store, no JVM, starts without the machine's (and refuses `jvm_opts`); its runs
    /// record them all the same, as they do the heap: a configuration is what was asked, so a
    /// matrix of an engine and the sketch on one machine stays one configuration.
    pub fn node_jvm_opts(&self) -> Result<Vec<String>, EngineError> {
        let mut opts = match std::env::var(JVM_OPTS_ENV) {
            Ok(given) => given.split_whitespace().map(String::from).collect(),
            Err(std::env::VarError::NotPresent) => Vec::new(),
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(EngineError::BadOption {
                    what: JVM_OPTS_ENV.into(),
                    reason: "holds bytes that are not UTF-8".into(),
                })
            }
        };
        opts.extend(self.jvm_opts.iter().cloned());
        Ok(opts)
    }
}

/// Parses `key=value` node settings, naming the bad one.
pub fn parse_setting(s: &str) -> Result<(String, String), EngineError> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !k.contains(char::is_whitespace) => {
            Ok((k.to_string(), v.to_string()))
        }
        _ => Err(EngineError::BadOption {
            what: format!("--setting {s:?}"),
            reason: "node settings are key=value, e.g. indices.memory.index_buffer_size=20%".into(),
        }),
    }
}

/// A local cluster we started: one or more node processes.
#[derive(Debug)]
pub struct Node {
    /// One record per node, the first node first.
    pub records: Vec<NodeRecord>,
    pub spec: EngineSpec,
    /// The JDK it runs on; `None` for the engine built into searchbench.
    pub jdk: Option<Jdk>,
    /// Where it was provisioned; `None` for the engine built into searchbench.
    pub provisioned: Option<Provisioned>,
    /// Time from spawning the first process to healthy.
    pub boot: Duration,
    /// How to reach a secured cluster (CA, users); `None` for a plain one.
    pub access: Option<security::Access>,
    /// Held open for attached nodes: closing them (dropping us) stops the nodes.
    children: Vec<Child>,
}

impl Node {
    /// The first node's URL.
    pub fn url(&self) -> &str {
        &self.records[0].url
    }

    /// Every node's URL.
    pub fn urls(&self) -> Vec<String> {
        self.records.iter().map(|r| r.url.clone()).collect()
    }

    /// The first node's pid (the leader of its process group).
    pub fn pid(&self) -> u32 {
        self.records[0].pid
    }

    pub fn pids(&self) -> Vec<u32> {
        self.records.iter().map(|r| r.pid).collect()
    }

    /// A client that spreads requests over every node.
    pub fn target(&self) -> Result<Target, crate::cluster::TargetError> {
        let mut config = self.target_config();
        config.urls = self.urls();
        Target::new(&config)
    }

    /// How to reach the first node: plain, or over TLS with our CA as the admin.
    pub fn target_config(&self) -> TargetConfig {
        let mut config = TargetConfig::local(self.url());
        if let Some(access) = &self.access {
            access.apply(&mut config);
        }
        config
    }

    /// Stops every node and cleans up what we created.
    pub fn stop(mut self) -> StopOutcome {
        let outcomes: Vec<StopOutcome> = self
            .records
            .iter()
            .map(|r| stop_record(r, Duration::from_secs(30)))
            .collect();
        for mut child in self.children.drain(..) {
            let _ = child.wait();
        }
        outcomes
            .into_iter()
            .max_by_key(|o| *o as u8)
            .unwrap_or(StopOutcome::Stale)
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if self.children.is_empty() {
            return;
        }
        for child in &mut self.children {
            // Attached: closing stdin asks the node to stop.
            drop(child.stdin.take());
        }
        for record in &self.records {
            crate::os::terminate_group(record.pid, Duration::from_secs(20));
            record.remove();
            remove_data(record);
        }
        for mut child in self.children.drain(..) {
            let _ = child.wait();
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopOutcome {
    /// The record was stale: the process was already gone.
    Stale,
    /// Stopped by SIGTERM within the grace period.
    Stopped,
    /// Had to SIGKILL.
    Killed,
}

/// The JDK an engine will run on, or why there is none.
pub fn jdk_for(spec: &EngineSpec) -> Result<Jdk, EngineError> {
    jdk::pick(&spec.jdk).ok_or_else(|| EngineError::NoJdk {
        engine: spec.name.clone(),
        range: spec.jdk,
        min: spec.jdk.min,
        dirs: jdk::searched_folders(),
        found: jdk::describe_found(),
    })
}

/// Resolves an engine name, fetching Maven Central's newest lists once if the name is not
/// in the cached ones (a release newer than the cache).
pub async fn resolve_fresh(name: &str) -> Result<EngineSpec, EngineError> {
    match catalog::resolve(name) {
        Ok(spec) => Ok(spec),
        Err(e) => {
            let may_be_newer = catalog::is_release_name(name);
            if may_be_newer
                && maven::stale(Duration::from_secs(3600))
                && maven::refresh().await.is_ok()
            {
                return Ok(catalog::resolve(name)?);
            }
            Err(e.into())
        }
    }
}

/// Starts a cluster: provisions on first use, spawns each node, waits until healthy.
pub async fn start(options: &StartOptions) -> Result<Node, EngineError> {
    paths::check_chosen().map_err(EngineError::Unsafe)?;
    // Read before anything is resolved or downloaded: an unreadable variable is refused at once.
    let jvm_opts = options.node_jvm_opts()?;
    check_reach(options)?;
    let (spec, local_home) = match &options.engine_dir {
        Some(dir) => {
            let (spec, home) = inspect_dir(dir)?;
            (spec, Some(home))
        }
        None => (resolve_fresh(&options.engine).await?, None),
    };
    let mut plugins =
        plugins::Plugins::for_product(&spec, options.security.is_some(), options.knn)?;
    if spec.kind == Kind::Builtin {
        return builtin::start(spec, options).await;
    }
    if local_home.is_some() {
        // A folder of the user's own is started as it is: it searches vectors if its own
        // plugins do (a vectors index on one without says so when it is made).
        plugins.knn = false;
    }
    let spec = match (plugins.any(), &local_home) {
        (false, _) => spec,
        (true, None) => plugins::distribution_for(spec, plugins)?,
        (true, Some(_)) => {
            return Err(EngineError::BadOption {
                what: "--security with --engine-dir".into(),
                reason: "the plugin is installed into a catalogue distribution searchbench \
                         provisions; a folder of your own is started as it is"
                    .into(),
            })
        }
    };
    if options.nodes == 0 {
        return Err(EngineError::BadOption {
            what: "--nodes 0".into(),
            reason: "a cluster has at least one node".into(),
        });
    }

    let jdk = jdk_for(&spec)?;
    let count = usize::from(options.nodes);
    let http_ports = ports(options.port, count, &[])?;
    let transport_ports = match (options.transport_port, options.port) {
        (Some(first), _) => ports(Some(first), count, &http_ports)?,
        // Next to a chosen HTTP port, as 9200 goes with 9300, when those are free.
        (None, Some(http)) => http
            .checked_add(100)
            .and_then(|first| ports(Some(first), count, &http_ports).ok())
            .map_or_else(|| ports(None, count, &http_ports), Ok)?,
        (None, None) => ports(None, count, &http_ports)?,
    };
    let provisioned = match local_home {
        // The user's own build: started where it is, never unpacked or changed.
        Some(dir) => Provisioned {
            dir,
            fetched: false,
            took: Duration::ZERO,
        },
        None if plugins.any() => provision_with(&options.stop, &spec, &jdk, plugins)?,
        None => provision(&options.stop, &spec, &jdk)?,
    };
    // A data folder nothing was in yet: a first secured start that fails leaves it so.
    let data_was_empty = options
        .data
        .as_deref()
        .is_some_and(|d| std::fs::read_dir(d).map_or(true, |mut e| e.next().is_none()));
    let (node_security, access) = match &options.security {
        Some(wanted) => {
            let placement = security::Placement {
                ca_cert: security::ca_file(&paths::node_dir(http_ports[0])),
                keep: options.data.as_deref().map(security::kept::folder),
                addresses: options.bind.into_iter().collect(),
            };
            let (files, access) = security::prepare(wanted, &placement)?;
            (Some(files), Some(access))
        }
        None => (None, None),
    };
    let mut undo = UndoFirstStart::of(access.as_ref(), options.data.as_deref(), data_was_empty);

    let nodes_dir = paths::nodes_dir();
    std::fs::create_dir_all(&nodes_dir).map_err(|e| EngineError::io(&nodes_dir, e))?;
    let cluster = format!("searchbench-{}", http_ports[0]);
    let masters: Vec<String> = (1..=count).map(|i| format!("node-{i}")).collect();
    let data_root = match spec.kind {
        Kind::Runner | Kind::Builtin => paths::data_dir(),
        Kind::Distribution => paths::shared_root().join("data"),
    };
    let repo_dir = data_root.join(format!("{cluster}-repo"));
    let spawned = Instant::now();
    let mut started = Started::default();
    for i in 0..count {
        let (data_dir, data_is_ours) = match (&options.data, count) {
            (Some(dir), 1) => (dir.clone(), false),
            (Some(dir), _) => (dir.join(&masters[i]), false),
            (None, _) => (
                data_root.join(format!("{}-{}", spec.name, http_ports[i])),
                true,
            ),
        };
        if data_is_ours {
            let _ = std::fs::remove_dir_all(&data_dir);
        }
        std::fs::create_dir_all(&data_dir).map_err(|e| EngineError::io(&data_dir, e))?;
        let plan = NodePlan {
            name: masters[i].clone(),
            cluster: cluster.clone(),
            http_port: http_ports[i],
            transport_port: transport_ports[i],
            seeds: transport_ports.clone(),
            masters: masters.clone(),
            data_dir,
            repo_dir: repo_dir.clone(),
            node_dir: paths::node_dir(http_ports[i]),
            heap: options.heap.clone(),
            jvm_opts: jvm_opts.clone(),
            settings: options.settings.clone(),
            attached: options.attached,
            security: node_security.clone(),
            http_host: options.bind,
        };
        match spawn(&spec, &jdk, &provisioned, &plan, data_is_ours, i == 0) {
            Ok((record, child)) => {
                started.records.push(record);
                started.children.push(child);
            }
            Err(e) => {
                started.abandon(false);
                return Err(e);
            }
        }
    }

    let healthy = wait_healthy(
        &options.stop,
        &spec,
        &mut started,
        count,
        options.timeout,
        access.as_ref(),
    );
    if let Err(e) = healthy.await {
        started.abandon(true);
        return Err(e);
    }
    // The engine writes its keystore readable by its group (0660) at its first start: made
    // the node's alone once it is there (a secured node's keystore holds its secrets).
    for port in http_ports.iter().take(count) {
        if let Err(e) = security::keep_keystore_private(&paths::node_dir(*port).join("config")) {
            started.abandon(true);
            return Err(e);
        }
    }
    undo.disarm();
    let boot = spawned.elapsed();
    let Started { records, children } = std::mem::take(&mut started);
    let children = if options.attached {
        children
    } else {
        Vec::new()
    };
    Ok(Node {
        records,
        spec,
        jdk: Some(jdk),
        provisioned: Some(provisioned),
        boot,
        access,
        children,
    })
}

/// Refuses what would open a node to others without its guard: `--bind` without
/// `--security` (no TLS, no users: anyone on the network could read and delete), or an
/// address no client can reach it by; and a data folder a secured node kept started without
/// `--security` (its indices, and its users' index, served to anyone).
fn check_reach(options: &StartOptions) -> Result<(), EngineError> {
    if let Some(address) = options.bind {
        let refused = |reason: &str| EngineError::BadOption {
            what: format!("--bind {address}"),
            reason: reason.into(),
        };
        if options.security.is_none() {
            return Err(refused(
                "a node served beyond the loopback needs --security (TLS and users); without \
                 it anyone who reaches the port could read and delete every index",
            ));
        }
        if address.is_unspecified() {
            return Err(refused(
                "name the address clients will use (the node certificate names it, and TLS \
                 checks it), not every address",
            ));
        }
    }
    if let (Some(data), None) = (&options.data, &options.security) {
        let kept = security::kept::folder(data);
        if kept.exists() {
            return Err(EngineError::BadOption {
                what: format!("--data {}", data.display()),
                reason: format!(
                    "a secured node keeps its users there ({}): start it with --security",
                    kept.display()
                ),
            });
        }
    }
    Ok(())
}

/// A first secured start of a node that lasts (`--data DIR`) that fails is undone: its kept
/// CA and users go, and the data it began in a folder that was empty, so the next start makes
/// them anew and says the passwords. Kept, they would ask for an admin's password this start
/// made and never said, and the data would hold users no one knows the passwords of.
struct UndoFirstStart {
    kept: Option<PathBuf>,
    data: Option<PathBuf>,
}

impl UndoFirstStart {
    fn of(access: Option<&security::Access>, data: Option<&Path>, data_was_empty: bool) -> Self {
        // Passwords made here: this start made the kept folder.
        let first = access.filter(|a| a.kept.is_some() && a.reader_password.is_some());
        UndoFirstStart {
            kept: first.and_then(|a| a.kept.clone()),
            data: first
                .and(data)
                .filter(|_| data_was_empty)
                .map(Path::to_path_buf),
        }
    }

    fn disarm(&mut self) {
        self.kept = None;
        self.data = None;
    }
}

impl Drop for UndoFirstStart {
    fn drop(&mut self) {
        if let Some(kept) = &self.kept {
            let _ = std::fs::remove_dir_all(kept);
        }
        if let Some(data) = &self.data {
            if let Ok(entries) = std::fs::read_dir(data) {
                for entry in entries.flatten() {
                    let path = entry.path();
                    let _ = if path.is_dir() {
                        std::fs::remove_dir_all(&path)
                    } else {
                        std::fs::remove_file(&path)
                    };
                }
            }
        }
    }
}

/// Nodes spawned so far; on a failed start they are stopped and forgotten, their logs kept.
#[derive(Default)]
struct Started {
    records: Vec<NodeRecord>,
    children: Vec<Child>,
}

impl Started {
    fn abandon(&mut self, keep_logs: bool) {
        for record in &self.records {
            crate::os::terminate_group(record.pid, Duration::from_secs(10));
            record.remove();
            remove_dirs(record);
            if !keep_logs {
                let _ = std::fs::remove_file(&record.log);
            }
        }
        for mut child in self.children.drain(..) {
            let _ = child.wait();
        }
        self.records.clear();
    }
}

fn spawn(
    spec: &EngineSpec,
    jdk: &Jdk,
    provisioned: &Provisioned,
    plan: &NodePlan,
    data_is_ours: bool,
    first: bool,
) -> Result<(NodeRecord, Child), EngineError> {
    let (command, mark) =
        launch::command(spec, jdk, &provisioned.dir, &provisioned.classpath(), plan)?;
    let (child, log) = spawn_logged(command, plan.http_port, plan.attached)?;
    let record = NodeRecord {
        engine: spec.name.clone(),
        pid: child.id(),
        http_port: plan.http_port,
        transport_port: plan.transport_port,
        url: format!(
            "{}://{}",
            if plan.security.is_some() {
                "https"
            } else {
                "http"
            },
            std::net::SocketAddr::new(
                plan.http_host
                    .unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)),
                plan.http_port
            )
        ),
        data_dir: plan.data_dir.clone(),
        data_is_ours,
        log,
        started_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        heap: plan.heap.clone(),
        cluster: plan.cluster.clone(),
        node_name: plan.name.clone(),
        mark,
        node_dir: (spec.kind == Kind::Distribution).then(|| plan.node_dir.clone()),
        repo_dir: (first && data_is_ours).then(|| plan.repo_dir.clone()),
        ca_cert: plan
            .security
            .as_ref()
            .map(|_| security::ca_file(&plan.node_dir)),
        owner: process::owner(),
        process_mark: crate::os::process_mark(child.id()),
    };
    record.save()?;
    Ok((record, child))
}

/// Spawns a node's process: its output into `nodes/<port>.log`, its stdin a pipe when it is
/// attached (closing it asks the node to stop), in a process group of its own (a Ctrl-C meant
/// for searchbench does not hit the node half-way, and the group holds everything the node
/// spawns), with no secret of ours in its environment.
fn spawn_logged(
    mut command: std::process::Command,
    port: u16,
    attached: bool,
) -> Result<(Child, PathBuf), EngineError> {
    let log = paths::nodes_dir().join(format!("{port}.log"));
    let log_file = std::fs::File::create(&log).map_err(|e| EngineError::io(&log, e))?;
    let log_err = log_file.try_clone().map_err(|e| EngineError::io(&log, e))?;
    command.stdout(log_file).stderr(log_err).stdin(if attached {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    crate::os::without_secrets(&mut command);
    let child = command
        .spawn()
        .map_err(|e| EngineError::io(command.get_program(), e))?;
    Ok((child, log))
}

async fn wait_healthy(
    stop: &crate::cancel::Cancel,
    spec: &EngineSpec,
    started: &mut Started,
    nodes: usize,
    timeout: Duration,
    access: Option<&security::Access>,
) -> Result<(), EngineError> {
    let first = started.records[0].clone();
    let mut config = TargetConfig::local(&first.url);
    config.timeout = Duration::from_secs(3);
    if let Some(access) = access {
        access.apply(&mut config);
    }
    let target =
        Target::new(&config).map_err(|e| EngineError::io(&first.log, std::io::Error::other(e)))?;
    // One node is ready at yellow (replicas have nowhere to go); a cluster at green with
    // every node in.
    let status = if nodes > 1 { "green" } else { "yellow" };
    let deadline = Instant::now() + timeout;
    let mut last = String::from("no answer yet");
    while Instant::now() < deadline {
        for (record, child) in started.records.iter().zip(started.children.iter_mut()) {
            if let Ok(Some(exit)) = child.try_wait() {
                return Err(EngineError::Exited {
                    engine: spec.name.clone(),
                    node: record.node_name.clone(),
                    status: exit.to_string(),
                    log: record.log.clone(),
                    log_tail: process::meaningful_tail(&record.log, 12),
                });
            }
        }
        match target.health(Some(status)).await {
            Ok(h) if !h.timed_out && h.number_of_nodes as usize >= nodes => {
                let ok = if nodes > 1 {
                    h.status == "green"
                } else {
                    h.status == "yellow" || h.status == "green"
                };
                if ok {
                    return Ok(());
                }
                last = format!("health {}", h.status);
            }
            Ok(h) => {
                last = format!(
                    "health {}, {} of {nodes} nodes",
                    h.status, h.number_of_nodes
                )
            }
            Err(e) => last = e.to_string(),
        }
        if stop.is_cancelled() {
            return Err(EngineError::Interrupted(format!(
                "{} was being started",
                spec.name
            )));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    Err(EngineError::Unhealthy {
        engine: spec.name.clone(),
        secs: timeout.as_secs(),
        last,
        log: first.log.clone(),
        log_tail: process::meaningful_tail(&first.log, 12),
    })
}

/// Stops the node of a record: SIGTERM to its process group, SIGKILL after `grace`;
/// removes the record and our data.
pub fn stop_record(record: &NodeRecord, grace: Duration) -> StopOutcome {
    let outcome = if !record.is_alive() {
        StopOutcome::Stale
    } else if crate::os::terminate_group(record.pid, grace) {
        StopOutcome::Killed
    } else {
        StopOutcome::Stopped
    };
    record.remove();
    remove_data(record);
    outcome
}

/// Deletes what we created for a node: its folders and its log.
fn remove_data(record: &NodeRecord) {
    remove_dirs(record);
    let _ = std::fs::remove_file(&record.log);
}

/// Deletes a node's data (unless the user chose the folder), its own folder and the
/// cluster's snapshot folder (kept by the first node's record).
fn remove_dirs(record: &NodeRecord) {
    if record.data_is_ours {
        let _ = std::fs::remove_dir_all(&record.data_dir);
    }
    for dir in record.node_dir.iter().chain(record.repo_dir.iter()) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Deletes what killed nodes left: records of dead processes with their folders and logs,
/// and data, node and log folders that no live record names. Returns what was removed.
pub fn clean() -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let (records, unreadable) = NodeRecord::scan();
    let mut live = Vec::new();
    for record in records {
        if record.is_alive() {
            live.push(record);
        } else {
            removed.push(NodeRecord::path_for(record.http_port));
            record.remove();
            remove_data(&record);
        }
    }
    for path in unreadable {
        let _ = std::fs::remove_file(&path);
        removed.push(path);
    }
    let in_use = |p: &Path| {
        live.iter().any(|r| {
            r.data_dir == p
                || r.log == p
                || r.node_dir.as_deref() == Some(p)
                || r.repo_dir.as_deref() == Some(p)
                || p.starts_with(&r.data_dir)
        })
    };
    let roots = [
        paths::data_dir(),
        paths::shared_root().join("data"),
        paths::shared_root().join("nodes"),
        paths::nodes_dir(),
    ];
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            let is_record = path.extension().is_some_and(|x| x == "json");
            if is_record || in_use(&path) {
                continue;
            }
            let gone = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            if gone.is_ok() {
                removed.push(path);
            }
        }
    }
    removed
}

/// A port free now, for a node to bind seconds later. Chosen outside the kernel's range for
/// outgoing connections (`ip_local_port_range`), at random: a port from that range, free when
/// checked, may be taken by any connection made before the node binds it (seen: a node's
/// transport port lost to a test's client, "Address already in use"), and a random pick keeps
/// two nodes started at once from choosing one port. The kernel's own choice when no port
/// outside that range is free.
fn free_port(taken: &[u16]) -> Result<u16, EngineError> {
    let (low, high) = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| {
            let mut n = r.split_whitespace().map(|n| n.parse::<u16>().ok());
            Some((n.next()??, n.next()??))
        })
        .unwrap_or((32768, 60999));
    // Above the well-known and most services' ports, below or above the outgoing range.
    let (from, to) = match (low.checked_sub(1), high.checked_add(1)) {
        (Some(below), _) if below >= 20_000 => (10_000, below),
        (_, Some(above)) if above <= 55_000 => (above, 65_000),
        _ => (0, 0),
    };
    if from < to {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut draws = crate::rng::Rng::new(now ^ u64::from(std::process::id()), 7);
        for _ in 0..200 {
            let port = u16::try_from(draws.range(u64::from(from), u64::from(to))).unwrap_or(from);
            if !taken.contains(&port) && TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return Ok(port);
            }
        }
    }
    loop {
        let listener =
            TcpListener::bind(("127.0.0.1", 0)).map_err(|e| EngineError::io("127.0.0.1:0", e))?;
        let port = listener
            .local_addr()
            .map_err(|e| EngineError::io("127.0.0.1:0", e))?
            .port();
        if !taken.contains(&port) {
            return Ok(port);
        }
    }
}

/// `count` ports: from `first` counting up (each must be free), or free ones.
fn ports(first: Option<u16>, count: usize, taken: &[u16]) -> Result<Vec<u16>, EngineError> {
    let mut chosen: Vec<u16> = Vec::with_capacity(count);
    for i in 0..count {
        let port = match first {
            Some(p) => {
                let port = p
                    .checked_add(i as u16)
                    .ok_or_else(|| EngineError::BadOption {
                        what: format!("port {p}"),
                        reason: format!("{count} nodes need {count} ports from {p}, past 65535"),
                    })?;
                if taken.contains(&port) {
                    return Err(EngineError::BadOption {
                        what: format!("port {port}"),
                        reason: "the HTTP and transport port ranges overlap".into(),
                    });
                }
                claim_port(port)?
            }
            None => {
                let all: Vec<u16> = taken.iter().chain(chosen.iter()).copied().collect();
                free_port(&all)?
            }
        };
        chosen.push(port);
    }
    Ok(chosen)
}

/// Fails clearly when the port is taken, naming our node if it is one of ours.
fn claim_port(port: u16) -> Result<u16, EngineError> {
    if TcpListener::bind(("127.0.0.1", port)).is_ok() {
        return Ok(port);
    }
    let by = NodeRecord::all()
        .into_iter()
        .find(|r| (r.http_port == port || r.transport_port == port) && r.is_alive())
        .map(|r| format!(" by {} (pid {}) started by searchbench; `searchbench engine stop --port {}` stops it", r.engine, r.pid, r.http_port))
        .unwrap_or_else(|| " by another process".into());
    Err(EngineError::PortTaken { port, by })
}

#[cfg(test)]
mod port_tests {
    use super::*;

    /// A node's port is never one an outgoing connection may take before the node binds it,
    /// is free, and is not one already chosen.
    #[test]
    fn a_free_port_is_outside_the_range_for_outgoing_connections() {
        let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
            .unwrap_or_else(|_| "32768 60999".into());
        let mut n = range.split_whitespace().map(|n| n.parse::<u16>().unwrap());
        let (low, high) = (n.next().unwrap(), n.next().unwrap());
        let mut taken = Vec::new();
        for _ in 0..50 {
            let port = free_port(&taken).unwrap();
            assert!(!(low..=high).contains(&port), "{port} is in {low}-{high}");
            assert!(!taken.contains(&port));
            assert!(TcpListener::bind(("127.0.0.1", port)).is_ok());
            taken.push(port);
        }
    }
}

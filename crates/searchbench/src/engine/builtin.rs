//! The engine built into searchbench: the sketch store (field note 002's baseline), started as
//! a child of this very binary (`searchbench sketch-serve --port P`, a hidden command) with a
//! node record like any engine's, so `engine list`, `engine stop`, its own process group and
//! an attached start hold for it as for a JVM.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use super::{
    paths, ports, spawn_logged, wait_healthy, EngineError, EngineSpec, Node, NodeRecord,
    StartOptions,
};

/// The hidden command that serves the store.
pub const SERVE_COMMAND: &str = "sketch-serve";

/// Starts the sketch store on 127.0.0.1 and waits until it answers.
pub(super) async fn start(spec: EngineSpec, options: &StartOptions) -> Result<Node, EngineError> {
    refuse_what_it_lacks(&spec, options)?;
    let exe = std::env::current_exe().map_err(|e| EngineError::io("the searchbench binary", e))?;
    let port = ports(options.port, 1, &[])?[0];
    let nodes_dir = paths::nodes_dir();
    std::fs::create_dir_all(&nodes_dir).map_err(|e| EngineError::io(&nodes_dir, e))?;
    let mut command = Command::new(&exe);
    command.args([SERVE_COMMAND, "--port", &port.to_string()]);
    if options.attached {
        command.arg("--attached");
    }
    let spawned = Instant::now();
    let (child, log) = spawn_logged(command, port, options.attached)?;
    let record = NodeRecord {
        engine: spec.name.clone(),
        pid: child.id(),
        http_port: port,
        // It has no transport port: nothing else joins it.
        transport_port: 0,
        url: format!("http://127.0.0.1:{port}"),
        // It keeps nothing on disk: a folder never made, never the user's.
        data_dir: PathBuf::from(format!("{}-memory-only", log.display())),
        data_is_ours: false,
        log,
        started_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        heap: "none (in memory)".into(),
        cluster: format!("searchbench-{port}"),
        node_name: "sketch".into(),
        mark: SERVE_COMMAND.into(),
        node_dir: None,
        repo_dir: None,
        ca_cert: None,
        owner: super::process::owner(),
        process_mark: crate::os::process_mark(child.id()),
    };
    let mut started = super::Started::default();
    started.children.push(child);
    if let Err(e) = record.save() {
        started.records.push(record);
        started.abandon(false);
        return Err(e);
    }
    started.records.push(record);
    if let Err(e) = wait_healthy(&options.stop, &spec, &mut started, 1, options.timeout, None).await
    {
        started.abandon(true);
        return Err(e);
    }
    let boot = spawned.elapsed();
    let super::Started { records, children } = std::mem::take(&mut started);
    Ok(Node {
        records,
        spec,
        jdk: None,
        provisioned: None,
        boot,
        access: None,
        children: if options.attached {
            children
        } else {
            Vec::new()
        },
    })
}

/// The start options that mean nothing to a store of one process in memory, refused rather
/// than dropped.
fn refuse_what_it_lacks(spec: &EngineSpec, options: &StartOptions) -> Result<(), EngineError> {
    let lacks = |what: &str, why: &str| {
        Err(EngineError::BadOption {
            what: format!("{what} with {}", spec.name),
            reason: why.into(),
        })
    };
    if options.nodes != 1 {
        return lacks(
            "--nodes",
            "the sketch store is one process; it has no cluster",
        );
    }
    if options.security.is_some() {
        return lacks(
            "--security",
            "the sketch store serves plain HTTP on 127.0.0.1 only",
        );
    }
    if options.engine_dir.is_some() {
        return lacks("--engine-dir", "the sketch store is built into searchbench");
    }
    if options.data.is_some() {
        return lacks(
            "--data",
            "the sketch store keeps its sketches in memory only",
        );
    }
    if options.transport_port.is_some() {
        return lacks(
            "--transport-port",
            "the sketch store has no transport layer",
        );
    }
    if !options.jvm_opts.is_empty() {
        return lacks("--jvm-opt", "the sketch store is no JVM");
    }
    if !options.settings.is_empty() {
        return lacks("--setting", "the sketch store has no node settings");
    }
    Ok(())
}

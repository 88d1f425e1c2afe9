//! Shared fixture: one real node per test binary, started through the same provisioning code
//! as `searchbench engine start`, stopped when the test binary exits.
#![allow(dead_code)]

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use searchbench::engine::{self, Node, StartOptions};
use searchbench::target::{Target, TargetConfig};

/// The engine tests run against; `SEARCHBENCH_TEST_ENGINE` picks another.
pub fn test_engine() -> String {
    std::env::var("SEARCHBENCH_TEST_ENGINE").unwrap_or_else(|_| engine::DEFAULT_ENGINE.to_string())
}

static NODE: Mutex<Option<Node>> = Mutex::new(None);
static URL: OnceLock<String> = OnceLock::new();

extern "C" fn stop_shared_node() {
    if let Ok(mut guard) = NODE.lock() {
        if let Some(node) = guard.take() {
            node.stop();
        }
    }
}

/// URL of the shared node, starting it on first use.
pub fn node_url() -> &'static str {
    URL.get_or_init(|| {
        let mut options = StartOptions::new(&test_engine());
        options.heap = "512m".into();
        options.attached = true; // dies with the test binary even if it is killed
        let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
        let node = runtime
            .block_on(engine::start(&options))
            .unwrap_or_else(|e| panic!("starting the shared test node: {e}"));
        let url = node.url().to_string();
        *NODE.lock().expect("node lock") = Some(node);
        // The test harness leaves through exit(), which runs atexit handlers: a clean stop.
        // SAFETY: registering a plain extern "C" fn with no captured state.
        unsafe {
            libc::atexit(stop_shared_node);
        }
        url
    })
}

/// Pid of the shared node (after `node_url()`).
pub fn node_pid() -> Option<u32> {
    NODE.lock().ok().and_then(|g| g.as_ref().map(|n| n.pid()))
}

/// A target on the shared node.
pub fn target() -> Target {
    let mut config = TargetConfig::local(node_url());
    config.timeout = Duration::from_secs(60);
    Target::new(&config).expect("target on the shared node")
}

/// The built `searchbench` binary, for CLI tests.
/// Runs that a test does not give a `--store` go to a scratch store, not the user's.
pub fn bin() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_searchbench"));
    cmd.env(
        "SEARCHBENCH_STORE",
        std::env::temp_dir().join(format!("searchbench-test-{}.db", std::process::id())),
    );
    cmd
}

/// Asserts a CLI run exited 0 (showing both streams if not) and returns its stdout.
pub fn succeeded(out: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

//! The helpers every test module shares: one real node for the whole test binary (started on
//! first use through the same provisioning code as `searchbench engine start`, stopped when
//! the binary exits), targets and runtimes on it, the CLI binary with a scratch store, and the
//! test doubles for conditions no real engine produces on demand.

pub mod answers;
pub mod browser;
pub mod netns;
pub mod proxy;
pub mod results;
pub mod track_corpus;
pub mod track_runs;
pub mod webhook;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::Duration;

use searchbench::cluster::{Target, TargetConfig};
use searchbench::engine::{self, Node, StartOptions};

/// The engine tests run against; `SEARCHBENCH_TEST_ENGINE` picks another.
pub fn test_engine() -> String {
    std::env::var("SEARCHBENCH_TEST_ENGINE").unwrap_or_else(|_| engine::DEFAULT_ENGINE.to_string())
}

/// The JVM options of every node the tests start, in-process or through the CLI: C1 only. A
/// test node lives a minute, and C2's compiling on 2 cores took more than it gave back: the
/// engine tier ran in 30 % less time without it (BENCHMARKS.md, "The tiers"). A
/// `SEARCHBENCH_JVM_OPTS` of the caller's own wins; set it empty for the full JIT.
pub const TEST_JVM_OPTS: &str = "-XX:TieredStopAtLevel=1";

/// Start options of a node of `engine` as the tests start them: attached (it dies with the
/// test binary even if that is killed), 512 MB of heap, [`TEST_JVM_OPTS`].
pub fn node_options(engine: &str) -> StartOptions {
    let mut options = StartOptions::new(engine);
    options.heap = "512m".into();
    options.attached = true;
    if std::env::var_os(engine::JVM_OPTS_ENV).is_none() {
        options.jvm_opts = vec![TEST_JVM_OPTS.into()];
    }
    options
}

/// Starts a node of the test engine, attached (it dies with the test binary even if that is
/// killed). On its own thread, so callers inside an async runtime may call it too.
/// The shared node is for tests that only send it requests; a test that freezes, kills or
/// restarts a node starts its own with this and stops it.
pub fn start_node() -> Result<Node, String> {
    start_node_with_heap("512m")
}

/// [`start_node`] with a heap of `heap` (as `-Xmx` takes it), for a test whose searches hold
/// more than the 512 MB node's parent breaker lets through beside a busy machine's slow GC.
pub fn start_node_with_heap(heap: &str) -> Result<Node, String> {
    // The offline binary promises a run without Java or a download.
    assert_ne!(
        env!("CARGO_CRATE_NAME"),
        "offline",
        "a test in tests/offline wants an engine: move it to tests/it"
    );
    let heap = heap.to_string();
    std::thread::spawn(move || {
        let mut options = node_options(&test_engine());
        options.heap = heap;
        let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
        runtime
            .block_on(engine::start(&options))
            .map_err(|e| e.to_string())
    })
    .join()
    .unwrap_or_else(|_| Err("the thread starting the node panicked".into()))
}

static NODE: Mutex<Option<Node>> = Mutex::new(None);
/// The shared node's URL, or why it did not start (kept, so that the other tests fail at once
/// with the same reason instead of each trying again).
static URL: OnceLock<Result<String, String>> = OnceLock::new();

/// Names a node already running (`searchbench engine start`) for the tests that would share
/// one: a developer's loop skips the node's start on every run. Its engine must be the test
/// engine's, on 127.0.0.1; it is left running at the end.
pub const GIVEN_NODE: &str = "SEARCHBENCH_TEST_URL";

/// URL of the shared node, starting it on first use (or the node [`GIVEN_NODE`] names).
/// Callable from sync and async tests.
pub fn node_url() -> &'static str {
    let url = URL.get_or_init(|| {
        if let Ok(given) = std::env::var(GIVEN_NODE) {
            return Ok(given.trim_end_matches('/').to_string());
        }
        let node = start_node()?;
        let url = node.url().to_string();
        *NODE.lock().map_err(|e| e.to_string())? = Some(node);
        clean_up_at_exit();
        Ok(url)
    });
    match url {
        Ok(url) => url,
        Err(e) => panic!("the shared test node did not start: {e}"),
    }
}

/// The admin's password of the shared secured node: `@`, `#` and `?` in it, as a URL's user
/// info must carry them.
pub const SECURED_PASSWORD: &str = "Sec7Adm@Pw9#Lq2?Zx5";

/// The shared secured node: OpenSearch with the security plugin (`--security`), TLS with its
/// own CA, the admin's password [`SECURED_PASSWORD`].
#[derive(Debug, Clone)]
pub struct Secured {
    pub url: String,
    pub ca_cert: String,
    pub reader_password: String,
    pub pid: u32,
}

static SECURED_NODE: Mutex<Option<Node>> = Mutex::new(None);
static SECURED: OnceLock<Result<Secured, String>> = OnceLock::new();

/// The shared secured node, started on first use (one per test binary, like the plain one).
pub fn secured() -> &'static Secured {
    let secured = SECURED.get_or_init(|| {
        let node = std::thread::spawn(|| {
            let mut options = node_options(&test_engine());
            options.security = Some(engine::security::SecurityOptions {
                admin_password: Some(searchbench::cluster::Secret::new(SECURED_PASSWORD)),
            });
            let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
            runtime
                .block_on(engine::start(&options))
                .map_err(|e| e.to_string())
        })
        .join()
        .unwrap_or_else(|_| Err("the thread starting the secured node panicked".into()))?;
        let access = node.access.clone().ok_or("no access to the secured node")?;
        let secured = Secured {
            url: node.url().to_string(),
            ca_cert: access.ca_cert.display().to_string(),
            reader_password: access
                .reader_password
                .as_ref()
                .ok_or("no reader's password")?
                .expose()
                .to_string(),
            pid: node.pid(),
        };
        *SECURED_NODE.lock().map_err(|e| e.to_string())? = Some(node);
        clean_up_at_exit();
        Ok(secured)
    });
    match secured {
        Ok(s) => s,
        Err(e) => panic!("the shared secured node did not start: {e}"),
    }
}

/// Pid of the shared node (after `node_url()`); of a [`GIVEN_NODE`], as the node says it.
pub fn node_pid() -> Option<u32> {
    let started = NODE.lock().ok().and_then(|g| g.as_ref().map(|n| n.pid()));
    started.or_else(|| {
        std::env::var(GIVEN_NODE).ok()?;
        let said: serde_json::Value = runtime()
            .block_on(target().get_json("/_nodes/_local/process"))
            .ok()?;
        let nodes = said["nodes"].as_object()?;
        let pid = nodes.values().next()?["process"]["id"].as_u64()?;
        u32::try_from(pid).ok()
    })
}

/// A target on the shared node.
pub fn target() -> Target {
    target_at(node_url(), Duration::from_secs(60))
}

/// A target on any URL (a double, a proxy) with the given request timeout.
pub fn target_at(url: &str, timeout: Duration) -> Target {
    let mut config = TargetConfig::local(url);
    config.timeout = timeout;
    Target::new(&config).expect("target")
}

/// A runtime for sync tests that drive the library's async API.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A directory for this test binary's scratch files, removed when the binary exits.
pub fn scratch_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch_path();
        std::fs::create_dir_all(&dir).expect("scratch dir");
        clean_up_at_exit();
        dir
    })
}

/// A fresh results store path, unique to the caller (tests run in parallel threads).
pub fn scratch_store() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    scratch_dir().join(format!("store-{n}.db"))
}

/// A fresh, empty folder unique to the caller.
pub fn scratch_folder() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = scratch_dir().join(format!("cwd-{n}"));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The built `searchbench` binary, for CLI tests.
/// A command that is not given `--store` (or `SEARCHBENCH_STORE`) records its run in a
/// scratch store of its own, never the user's store; it runs in a folder of its own, so the
/// failure files and reports it writes beside it land there, not in the crate.
pub fn bin() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_searchbench"));
    cmd.env("SEARCHBENCH_STORE", scratch_store());
    cmd.current_dir(scratch_folder());
    if std::env::var_os(engine::JVM_OPTS_ENV).is_none() {
        cmd.env(engine::JVM_OPTS_ENV, TEST_JVM_OPTS);
    }
    cmd
}

/// Runs the CLI with `args` (see [`bin`]) and returns what it did.
pub fn run(args: &[&str]) -> std::process::Output {
    bin().args(args).output().expect("running searchbench")
}

/// Writes `n` small NDJSON documents (`{"n": i}`) to `path`.
pub fn write_docs(path: &std::path::Path, n: usize) {
    let body: String = (0..n).map(|i| format!("{{\"n\":{i}}}\n")).collect();
    std::fs::write(path, body).expect("writing the documents");
}

/// A CLI run's exit code and both streams, for assertion messages.
pub fn streams(out: &std::process::Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A URL on 127.0.0.1 where nothing listens (a port just freed).
pub fn dead_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

/// Deletes `index` on the shared node if it is there; with `body` (a `PUT /{index}` body)
/// creates it afresh.
pub fn fresh_index(index: &str, body: Option<&[u8]>) {
    fresh_index_on(&target(), index, body);
}

/// [`fresh_index`] on the node `t` reaches.
pub fn fresh_index_on(t: &Target, index: &str, body: Option<&[u8]>) {
    runtime().block_on(async {
        let _ = t
            .send(reqwest::Method::DELETE, &format!("/{index}"), None)
            .await;
        if let Some(body) = body {
            t.send(
                reqwest::Method::PUT,
                &format!("/{index}"),
                Some(("application/json", body.to_vec())),
            )
            .await
            .expect("create the index");
        }
    });
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

/// A server on 127.0.0.1 that reads a request and answers `reply` (raw bytes) on every
/// connection; `None` never answers (holds the connection for `hold`). Returns its URL.
pub fn raw_server(reply: Option<&'static [u8]>, hold: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}", listener.local_addr().expect("local addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 64 * 1024];
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let _ = stream.read(&mut buf);
                match reply {
                    Some(bytes) => {
                        let _ = stream.write_all(bytes);
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                    }
                    None => std::thread::sleep(hold),
                }
            });
        }
    });
    url
}

extern "C" fn at_exit() {
    for shared in [&NODE, &SECURED_NODE, &ES8_NODE, &KNN_NODE] {
        if let Ok(mut guard) = shared.lock() {
            if let Some(node) = guard.take() {
                node.stop();
            }
        }
    }
    let _ = std::fs::remove_dir_all(scratch_path());
}

fn scratch_path() -> PathBuf {
    std::env::temp_dir().join(format!("searchbench-it-{}", std::process::id()))
}

/// The test harness leaves through exit(), which runs atexit handlers: the shared node stops
/// cleanly and the scratch files go.
fn clean_up_at_exit() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: registering a plain extern "C" fn with no captured state.
        unsafe {
            libc::atexit(at_exit);
        }
    });
}

/// `experiment dates` loads into fixed index names (`searchbench-dates-*`) on the shared node:
/// tests that run it, or that put those names there, hold this lock.
pub static DATES_INDICES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Holds [`DATES_INDICES`], whether or not a test that held it before panicked.
pub fn dates_indices() -> std::sync::MutexGuard<'static, ()> {
    DATES_INDICES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sends SIGINT (Ctrl-C) to a child we spawned and waits for it to end; kills it and fails
/// the test when it is still running after `limit`.
pub fn interrupt_and_wait(
    child: &mut std::process::Child,
    limit: Duration,
) -> std::process::ExitStatus {
    // SAFETY: signalling the child we spawned, by its pid.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let started = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait for the child") {
            return s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("still running {} s after SIGINT", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A copy of the folder `from` at `to`, sub-folders included.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Held while a heavy load runs on one shared node: real tracks name their indices (`so`,
/// `geonames`, `logs-*`) and delete them first, so two at once on one node would delete each
/// other's; the other heavy loads (the parts, the vectors) keep a 512 MB node's breaker clear.
/// One lock per node, so a load on the Elasticsearch 8 node never waits for one on the plain
/// node. Take it once the node's URL is known: a shared node's start is not held under it.
pub fn heavy_on(url: &str) -> std::sync::MutexGuard<'static, ()> {
    static LOCKS: Mutex<Vec<(String, &'static Mutex<()>)>> = Mutex::new(Vec::new());
    let lock = {
        let mut locks = LOCKS.lock().unwrap_or_else(|p| p.into_inner());
        let url = url.trim_end_matches('/');
        match locks.iter().find(|(u, _)| u == url) {
            Some((_, lock)) => *lock,
            None => {
                // One small lock per shared node, for the binary's life.
                let lock: &'static Mutex<()> = Box::leak(Box::new(Mutex::new(())));
                locks.push((url.to_string(), lock));
                lock
            }
        }
    };
    lock.lock().unwrap_or_else(|p| p.into_inner())
}

/// [`heavy_on`] the shared plain node (started first if it is not yet).
pub fn one_track_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    heavy_on(node_url())
}

static ES8_NODE: Mutex<Option<Node>> = Mutex::new(None);
static ES8_URL: OnceLock<Result<String, String>> = OnceLock::new();
static KNN_NODE: Mutex<Option<Node>> = Mutex::new(None);
static KNN_URL: OnceLock<Result<String, String>> = OnceLock::new();

/// The URL of the binary's shared Elasticsearch 8.17.4 node (512 MB heap), started on first
/// use and stopped at exit: one start serves every test that needs Elasticsearch 8 (a start
/// is half a minute of both cores). Hold [`one_track_at_a_time`] while loading it, and use
/// index names of the test's own.
pub fn elasticsearch_8_url() -> &'static str {
    shared_own_node(&ES8_NODE, &ES8_URL, "elasticsearch-8.17.4", false)
}

/// The URL of the binary's shared OpenSearch 2.19.1 node with the k-NN plugin (the
/// distribution, the plugin from Maven Central), as [`elasticsearch_8_url`]'s.
pub fn opensearch_knn_url() -> &'static str {
    shared_own_node(&KNN_NODE, &KNN_URL, "opensearch-2.19.1", true)
}

fn shared_own_node(
    node: &'static Mutex<Option<Node>>,
    url: &'static OnceLock<Result<String, String>>,
    engine: &'static str,
    knn: bool,
) -> &'static str {
    let url = url.get_or_init(|| {
        let started = std::thread::spawn(move || {
            let mut options = node_options(engine);
            options.knn = knn;
            tokio::runtime::Runtime::new()
                .map_err(|e| e.to_string())?
                .block_on(engine::start(&options))
                .map_err(|e| e.to_string())
        })
        .join()
        .unwrap_or_else(|_| Err(format!("the thread starting {engine} panicked")))?;
        let url = started.url().trim_end_matches('/').to_string();
        *node.lock().map_err(|e| e.to_string())? = Some(started);
        clean_up_at_exit();
        Ok(url)
    });
    match url {
        Ok(url) => url,
        Err(e) => panic!("the shared {engine} node did not start: {e}"),
    }
}

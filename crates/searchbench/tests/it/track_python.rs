//! A Rally track's own Python (issue 101): its `track.py` loaded by esrally itself in the
//! worker, its param sources partitioned per client as esrally partitions them, their
//! parameters sent and timed by the driver on the shared node; a Python error named by file and
//! line before anything is sent; a run stopped mid-way leaves no worker behind.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::track_runs::{self, row, run_track};
use crate::common::{self, node_url};

const INDEX: &str = "searchbench-test-track-python";

/// A track whose tasks take their parameters from `track.py`: documents written by a
/// `raw-request` per parameter (their ids name the client's partition), searches from an
/// endless source (bounded by iterations) and from one that ends (each client's partition
/// holds 2 + its index). Its module writes to descriptor 1 as a library in C would: the
/// worker's answers are on a descriptor of their own, so that noise goes to stderr.
fn write_track(dir: &Path, py: &str) {
    std::fs::write(
        dir.join("track.json"),
        format!(
            r#"{{
  "version": 2,
  "indices": [{{"name": "{INDEX}"}}],
  "schedule": [
    {{"operation": "delete-index"}},
    {{"operation": {{"operation-type": "create-index", "settings": {{"index.number_of_replicas": 0}}}}}},
    {{"operation": {{"name": "write", "operation-type": "raw-request", "param-source": "writes"}}, "clients": 2, "iterations": 4}},
    {{"operation": "refresh"}},
    {{"operation": {{"name": "terms", "operation-type": "search", "param-source": "terms"}}, "clients": 2, "iterations": 3}},
    {{"operation": {{"name": "ends", "operation-type": "search", "param-source": "ends"}}, "clients": 2}}
  ]
}}"#
        ),
    )
    .unwrap();
    std::fs::write(dir.join("track.py"), py).unwrap();
}

const PY: &str = r#"
import os

INDEX = "searchbench-test-track-python"

# A library writing to descriptor 1 from C, without a newline: it must not reach the answers.
os.write(1, b"noise on descriptor 1 ")

class Writes:
    def __init__(self, track, params, **kwargs):
        self.infinite = True
        self._n = 0
    def partition(self, partition_index, total_partitions):
        self._client = partition_index
        return self
    def params(self):
        self._n += 1
        return {"method": "PUT", "path": f"/{INDEX}/_doc/c{self._client}-of-{2}-{self._n}",
                "body": {"client": self._client, "n": self._n}}

class Terms:
    def __init__(self, track, params, **kwargs):
        self.infinite = True
    def partition(self, partition_index, total_partitions):
        self._client = partition_index
        return self
    def params(self):
        return {"index": INDEX, "body": {"query": {"term": {"client": self._client}}}}

class Ends:
    def __init__(self, track, params, **kwargs):
        self.infinite = False
    def partition(self, partition_index, total_partitions):
        self._left = 2 + partition_index
        return self
    def params(self):
        if self._left == 0:
            raise StopIteration()
        self._left -= 1
        return {"index": INDEX, "body": {"query": {"match_all": {}}}}

def register(registry):
    registry.register_param_source("writes", Writes)
    registry.register_param_source("terms", Terms)
    registry.register_param_source("ends", Ends)
"#;

fn ids(url: &str) -> Vec<String> {
    let t = common::target_at(url, Duration::from_secs(30));
    let reply = common::runtime()
        .block_on(t.send(
            reqwest::Method::GET,
            &format!("/{INDEX}/_search?size=100&_source=false"),
            None,
        ))
        .expect("searching the index");
    let v: Value = serde_json::from_slice(&reply.body).unwrap();
    let mut ids: Vec<String> = v["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_tracks_param_sources_run_in_the_worker_partitioned_per_client() {
    let dir = tempfile::tempdir().unwrap();
    write_track(dir.path(), PY);
    let track = dir.path().join("track.json");

    // `workload check` says which tasks run in the worker.
    let out = common::run(&["workload", "check", &track.display().to_string(), "--json"]);
    assert!(out.status.success(), "{}", common::streams(&out));
    let check: Value = serde_json::from_slice(&out.stdout).unwrap();
    for task in ["write (raw-request)", "terms (search)", "ends (search)"] {
        let item = check["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["what"] == format!("task {task}"))
            .unwrap_or_else(|| panic!("{task} in {check}"));
        assert_eq!(
            (&item["runs"], &item["worker"]),
            (&Value::Bool(true), &Value::Bool(true)),
            "{item}"
        );
        assert!(
            item["how"].as_str().unwrap().contains("param-source"),
            "{item}"
        );
    }

    let json = dir.path().join("result.json");
    let _one = common::one_track_at_a_time();
    let out = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--workload-file"])
        .arg(&track)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::streams(&out));
    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    // Each client wrote its own partition's documents: 4 each, named by the worker.
    let expected: Vec<String> = {
        let mut e: Vec<String> = (0..2)
            .flat_map(|c| (1..=4).map(move |n| format!("c{c}-of-2-{n}")))
            .collect();
        e.sort();
        e
    };
    assert_eq!(ids(node_url()), expected);
    for (task, ops) in [("write", 8), ("terms", 6), ("ends", 5)] {
        let r = row(&result, task);
        assert_eq!(
            (r["ops"].as_u64(), r["errors"].as_u64()),
            (Some(ops), Some(0)),
            "{task}: {r}"
        );
    }
    common::fresh_index(INDEX, None);
}

#[test]
fn a_python_error_names_its_file_and_line_and_nothing_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let broken = PY.replace(
        "def register(registry):",
        "def register(registry):\n    raise ValueError(\"no such corpus\")",
    );
    write_track(dir.path(), &broken);
    // No other test's track makes the index meanwhile.
    let _one = common::one_track_at_a_time();
    common::fresh_index(INDEX, None);
    let out = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--workload-file"])
        .arg(dir.path().join("track.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
    let line = broken
        .lines()
        .position(|l| l.contains("no such corpus"))
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!("track.py, line {line}"))
            && err.contains("ValueError: no such corpus"),
        "{err}"
    );
    nothing_was_sent();
}

/// Ctrl-C while the run waits for another process making the track's Python environment
/// (its lock held) ends the run at once: it stayed up, deaf to every signal, until the other
/// process was done.
#[test]
fn ctrl_c_while_another_process_makes_the_environment_ends_the_run() {
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    write_track(dir.path(), PY);
    let cache = dir.path().join("cache");
    let env = cache.join("python").join(format!(
        "{}-{}",
        searchbench::tasks::python::venv::ESRALLY.package,
        searchbench::tasks::python::venv::ESRALLY.version
    ));
    std::fs::create_dir_all(env.parent().unwrap()).unwrap();
    let mut name = env.file_name().unwrap().to_os_string();
    name.push(".lock");
    let held = std::fs::File::create(env.with_file_name(name)).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let mut child = common::bin()
        .args(["run", "--url", node_url(), "--no-store", "--workload-file"])
        .arg(dir.path().join("track.json"))
        .env("SEARCHBENCH_CACHE", &cache)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if began.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run did not end within 20 s of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    drop(held);
}

/// The track's first tasks would have made its index: it is not there.
fn nothing_was_sent() {
    track_runs::nothing_was_sent(INDEX);
}

/// The processes whose working folder is `dir`: the worker runs in the track's folder.
fn processes_in(dir: &Path) -> Vec<u32> {
    let dir = dir.canonicalize().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir))
        .collect()
}

/// A run of the track whose endless source searches for a minute, started in the background
/// into its own store, once its worker runs and its searches are under way: the run, its
/// store and the worker's pid. The caller waits for the run.
#[allow(clippy::zombie_processes)] // handed to the caller, which waits for it
fn a_long_run_under_way(dir: &Path) -> (std::process::Child, std::path::PathBuf, u32) {
    write_track(dir, PY);
    let long = std::fs::read_to_string(dir.join("track.json"))
        .unwrap()
        .replace(
            r#""clients": 2, "iterations": 3"#,
            r#""clients": 2, "time-period": 60"#,
        );
    std::fs::write(dir.join("track.json"), long).unwrap();
    let store = dir.join("results.db");
    let mut child = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--workload-file"])
        .arg(dir.join("track.json"))
        .arg("--store")
        .arg(&store)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let began = Instant::now();
    loop {
        if began.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no worker started");
        }
        if let Some(pid) = processes_in(dir).first().copied() {
            if began.elapsed() > Duration::from_secs(8) {
                return (child, store, pid);
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The state the only run of `store` was kept in.
fn kept_state(store: &Path) -> Value {
    let out = common::run(&[
        "results",
        "list",
        "--store",
        &store.display().to_string(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", common::streams(&out));
    let runs: Value = serde_json::from_slice(&out.stdout).unwrap();
    runs[0]["state"].clone()
}

#[test]
fn a_run_stopped_mid_way_keeps_what_it_did_and_leaves_no_worker() {
    let dir = tempfile::tempdir().unwrap();
    let _one = common::one_track_at_a_time();
    let (mut child, store, _) = a_long_run_under_way(dir.path());
    let status = common::interrupt_and_wait(&mut child, Duration::from_secs(30));
    assert_eq!(status.code(), Some(130), "{status:?}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        processes_in(dir.path()),
        Vec::<u32>::new(),
        "a worker was left behind"
    );
    // The run is kept, interrupted, with what it did.
    assert_eq!(kept_state(&store), "interrupted");
    common::fresh_index(INDEX, None);
}

/// The worker killed mid-run stops the run as Ctrl-C does: it is kept interrupted (never
/// complete) with what it did, says why, and nothing is left running.
#[test]
fn a_worker_that_dies_mid_run_interrupts_the_run_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let _one = common::one_track_at_a_time();
    let (mut child, store, worker) = a_long_run_under_way(dir.path());
    // SAFETY: killing the worker process the run started, by its pid.
    unsafe {
        libc::kill(worker as libc::pid_t, libc::SIGKILL);
    }
    let ended = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            ended.elapsed() < Duration::from_secs(60),
            "the run went on without its worker"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("the Python worker ended"), "{err}");
    assert_eq!(processes_in(dir.path()), Vec::<u32>::new());
    assert_eq!(kept_state(&store), "interrupted");
    common::fresh_index(INDEX, None);
}

/// searchbench killed (SIGKILL: no cleanup runs) while the worker runs a runner that awaits
/// for minutes: the worker sees its parent gone and ends within seconds, sending nothing more.
#[test]
fn a_worker_ends_when_searchbench_is_killed_mid_runner() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = r#"[{"operation": {"name": "nap", "operation-type": "nap"}, "iterations": 1}]"#;
    let py = r#"
import asyncio

async def nap(es, params):
    await asyncio.sleep(600)
    return 1, "ops"

def register(registry):
    registry.register_runner("nap", nap, async_runner=True)
"#;
    let track = write_definition(dir.path(), false, schedule, Some(py));
    let folder = track.parent().unwrap().to_path_buf();
    let _one = common::one_track_at_a_time();
    let mut child = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--workload-file"])
        .arg(&track)
        .arg("--store")
        .arg(dir.path().join("results.db"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let began = Instant::now();
    while processes_in(&folder).is_empty() {
        if began.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no worker started");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    // Well into its runner's nap.
    std::thread::sleep(Duration::from_secs(3));
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = Instant::now();
    while !processes_in(&folder).is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "the worker outlived searchbench: {:?}",
            processes_in(&folder)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A nested track's 1,000-document sample, as the tools' test mode downloads it.
fn nested_sample(track: &Path) {
    let docs: String = (0..1000)
        .map(|i| {
            format!(
                r#"{{"user": "u{i}", "creationDate": "2008-07-31T21:42:52.667Z", "title": "q {i}", "qid": "{i}", "tag": ["{}"], "answer_count": 2, "answers": [{{"user": "a{i}", "date": "2008-08-01T00:00:00Z"}}, {{"user": "b{i}", "date": "2008-08-02T00:00:00Z"}}]}}"#,
                ["java", "python", "rust", "jquery", "c#"][i % 5]
            ) + "\n"
        })
        .collect();
    std::fs::write(track.join("documents-1k.json"), docs).unwrap();
}

/// Runs `file` in test mode on the shared node: every step ran, its five randomized query tasks
/// (from the track's own Python) included, none failed.
fn runs_every_step_with_its_python(dir: &Path, file: &Path) {
    let _one = common::one_track_at_a_time();
    let (out, result) = run_track(dir, file, &["--test-mode"]);
    assert!(out.status.success(), "{}", common::streams(&out));
    assert_eq!(result["not_run"], Value::Array(vec![]), "{result:#}");
    for task in [
        "randomized-nested-queries",
        "randomized-term-queries",
        "randomized-sorted-term-queries",
        "randomized-nested-queries-with-inner-hits_default",
        "randomized-nested-queries-with-inner-hits_default_big_size",
    ] {
        let r = row(&result, task);
        assert!(
            r["ops"].as_u64().unwrap() >= 1 && r["errors"] == 0,
            "{task}: {r}"
        );
    }
    common::fresh_index("sonested", None);
}

/// Rally's nested track as written, with its own `track.py`, in test mode on the shared node.
#[test]
fn rallys_nested_track_runs_with_its_own_python() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracks");
    let dir = tempfile::tempdir().unwrap();
    let track = dir.path().join("nested");
    common::copy_dir(&fixtures.join("rally/nested"), &track);
    common::copy_dir(&fixtures.join("rally-python/nested"), &track);
    nested_sample(&track);
    runs_every_step_with_its_python(dir.path(), &track.join("track.json"));
}

/// opensearch-benchmark's nested workload as written, with its own `workload.py` run by
/// opensearch-benchmark's library, in test mode on the shared node.
#[test]
fn osbs_nested_workload_runs_with_its_own_python() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracks");
    let dir = tempfile::tempdir().unwrap();
    let workload = dir.path().join("nested");
    common::copy_dir(&fixtures.join("osb/nested"), &workload);
    common::copy_dir(
        &fixtures.join("osb/common_operations"),
        &dir.path().join("common_operations"),
    );
    common::copy_dir(&fixtures.join("osb-python/nested"), &workload);
    nested_sample(&workload);
    runs_every_step_with_its_python(dir.path(), &workload.join("workload.json"));
}

/// The runners of `RUNNERS_PY`'s track: documents put by a runner whose parameters come from
/// a param source that ends (3 per client), counted by another, a runner that sleeps before
/// one quick request (cut short once by the end of its parallel block while the worker runs
/// it: the next runner takes its own answer, not that one's), one that says it failed.
const RUNNERS: &str = r#"[
    {"operation": "delete-index"},
    {"operation": {"operation-type": "create-index", "settings": {"index.number_of_replicas": 0}}},
    {"operation": {"name": "put", "operation-type": "put-doc", "param-source": "docs"}, "clients": 2},
    {"parallel": {"completed-by": "quick", "tasks": [
      {"operation": {"name": "cut-short", "operation-type": "slow-then-quick"}, "iterations": 5},
      {"operation": {"name": "quick", "operation-type": "cluster-health"}}]}},
    {"operation": {"name": "count", "operation-type": "count-docs"}},
    {"operation": {"name": "slow", "operation-type": "slow-then-quick"}, "iterations": 2},
    {"operation": {"name": "refuses", "operation-type": "refuses"}}
  ]"#;

const RUNNERS_PY: &str = r#"
import asyncio

INDEX = "searchbench-test-track-python"

class Docs:
    def __init__(self, track, params, **kwargs):
        self.infinite = False
    def partition(self, partition_index, total_partitions):
        self._client, self._left = partition_index, 3
        return self
    def params(self):
        if self._left == 0:
            raise StopIteration()
        self._left -= 1
        return {"id": f"r{self._client}-{self._left}"}

async def put_doc(es, params):
    await es.index(index=INDEX, id=params["id"], body={"by": "runner"})
    return {"weight": 1, "unit": "docs"}

async def count_docs(es, params):
    await es.indices.refresh(index=INDEX)
    counted = await es.count(index=INDEX)
    return {"weight": counted["count"], "unit": "docs", "counted": counted["count"]}

async def slow_then_quick(es, params):
    await asyncio.sleep(0.5)
    await es.cluster.health()
    return 1, "ops"

async def refuses(es, params):
    return {"success": False, "error-description": "the runner says no"}

def register(registry):
    registry.register_param_source("docs", Docs)
    registry.register_runner("put-doc", put_doc, async_runner=True)
    registry.register_runner("count-docs", count_docs, async_runner=True)
    registry.register_runner("slow-then-quick", slow_then_quick, async_runner=True)
    registry.register_runner("refuses", refuses, async_runner=True)
"#;

/// A definition of `schedule` in `dir/runners`, a Rally track or an opensearch-benchmark
/// workload, with `py` as its Python.
fn write_definition(dir: &Path, osb: bool, schedule: &str, py: Option<&str>) -> std::path::PathBuf {
    track_runs::write_definition(dir, "runners", osb, INDEX, schedule, py)
}

/// The track's runners run in the worker with the tool's own client: what they send reaches
/// the node, their weights and units, successes and errors are the task's figures, and the
/// service time is the tool's.
fn runners_run_in_the_worker(osb: bool) {
    let dir = tempfile::tempdir().unwrap();
    let track = write_definition(dir.path(), osb, RUNNERS, Some(RUNNERS_PY));
    let out = common::run(&["workload", "check", &track.display().to_string(), "--json"]);
    assert!(out.status.success(), "{}", common::streams(&out));
    let check: Value = serde_json::from_slice(&out.stdout).unwrap();
    let item = check["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["what"] == "task count (count-docs)")
        .unwrap_or_else(|| panic!("count in {check}"));
    assert_eq!(
        (&item["runs"], &item["worker"]),
        (&json!(true), &json!(true))
    );
    assert!(item["how"].as_str().unwrap().contains("runner"), "{item}");

    let _one = common::one_track_at_a_time();
    let (out, result) = run_track(dir.path(), &track, &[]);
    // The runner that says it failed fails the run, after every task ran.
    assert_eq!(out.status.code(), Some(3), "{}", common::streams(&out));
    let expected: Vec<String> = ["r0-0", "r0-1", "r0-2", "r1-0", "r1-1", "r1-2"]
        .map(String::from)
        .to_vec();
    assert_eq!(ids(node_url()), expected);
    for (task, ops, errors, unit) in [
        ("put", 6, 0, "docs/s"),
        ("count", 1, 0, "docs/s"),
        ("slow", 2, 0, "ops/s"),
        ("refuses", 1, 1, "ops/s"),
    ] {
        let r = row(&result, task);
        assert_eq!(
            (
                r["ops"].as_u64(),
                r["errors"].as_u64(),
                r["throughput_unit"].as_str()
            ),
            (Some(ops), Some(errors), Some(unit)),
            "{task}: {r}"
        );
    }
    // Rally times a runner's requests (its client marks each); opensearch-benchmark marks only
    // its own runners' and times the rest whole, the sleep included.
    assert_eq!(row(&result, "cut-short")["stopped"], true);
    let slowest = row(&result, "slow")["service_time_ms"][3].as_f64().unwrap();
    match osb {
        false => assert!(slowest < 400.0, "the sleep was timed: {slowest} ms"),
        true => assert!(slowest >= 500.0, "the sleep was not timed: {slowest} ms"),
    }
    let refused = row(&result, "refuses")["first_error"].as_str().unwrap();
    assert!(refused.contains("the runner says no"), "{refused}");
    common::fresh_index(INDEX, None);
}

#[test]
fn a_tracks_runners_run_in_the_worker_with_rallys_client() {
    runners_run_in_the_worker(false);
}

#[test]
fn a_workloads_runners_run_in_the_worker_with_opensearch_benchmarks_client() {
    runners_run_in_the_worker(true);
}

/// An operation type searchbench does not run, which the track's Python registers no runner
/// for either: the run stops before anything is sent, naming the task and what it registers.
#[test]
fn an_operation_type_no_runner_is_registered_for_stops_the_run_first() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = RUNNERS.replace(
        "\"refuses\", \"operation-type\": \"refuses\"",
        "\"refuses\", \"operation-type\": \"no-such-op\"",
    );
    let track = write_definition(dir.path(), false, &schedule, Some(RUNNERS_PY));
    // No other test's track makes the index meanwhile.
    let _one = common::one_track_at_a_time();
    common::fresh_index(INDEX, None);
    let out = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--workload-file"])
        .arg(&track)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("task refuses (no-such-op)")
            && err.contains("nor the track's Python has a runner for it")
            && err.contains("count-docs"),
        "{err}"
    );
    nothing_was_sent();
}

/// An operation type the tool runs with a runner of its own, which searchbench does not, runs
/// in the worker by that runner, with no Python of the track's at all: on OpenSearch,
/// opensearch-benchmark's `list-all-point-in-time`; on Elasticsearch, Rally's `field-caps`.
#[test]
fn a_tools_own_runner_runs_in_the_worker_without_the_tracks_python() {
    let dir = tempfile::tempdir().unwrap();
    let elasticsearch = common::test_engine().starts_with("elasticsearch");
    let task = match elasticsearch {
        true => format!(
            r#"{{"operation": {{"name": "tools", "operation-type": "field-caps", "index": "{INDEX}", "fields": "*"}}, "iterations": 3}}"#
        ),
        false => r#"{"operation": {"name": "tools", "operation-type": "list-all-point-in-time"}, "iterations": 3}"#.to_string(),
    };
    let schedule = format!(
        r#"[{{"operation": "delete-index"}},
  {{"operation": {{"operation-type": "create-index", "settings": {{"index.number_of_replicas": 0}}}}}},
  {task}]"#
    );
    let file = write_definition(dir.path(), !elasticsearch, &schedule, None);
    let _one = common::one_track_at_a_time();
    let (out, result) = run_track(dir.path(), &file, &[]);
    assert!(out.status.success(), "{}", common::streams(&out));
    let ran = row(&result, "tools");
    assert_eq!(
        (ran["ops"].as_u64(), ran["errors"].as_u64()),
        (Some(3), Some(0)),
        "{ran}"
    );
    common::fresh_index(INDEX, None);
}

const BULKS_PY: &str = r#"
INDEX = "searchbench-test-track-python"

class Bulks:
    """Five bulks of ten documents a client, as objects with their action lines, then as the
    byte lines Rally's readers give, the index in the path; the last one client's refused."""
    def __init__(self, track, params, **kwargs):
        self.infinite = False
        self._bad = params.get("bad", False)
    def partition(self, partition_index, total_partitions):
        self._client = partition_index
        self._n = 0
        return self
    def params(self):
        if self._n == 5:
            raise StopIteration()
        self._n += 1
        first = 1000 * self._client + 10 * self._n
        if self._n % 2:
            body = []
            for k in range(10):
                body.append({"index": {"_index": INDEX, "_id": str(first + k)}})
                body.append({"n": first + k})
            return {"body": body, "bulk-size": 10, "unit": "docs",
                    "action-metadata-present": True}
        body = []
        for k in range(10):
            body.append(b'{"index": {"_id": "%d"}}\n' % (first + k))
            n = b'"not a number"' if self._bad and k == 3 else b"%d" % (first + k)
            body.append(b'{"n": ' + n + b'}\n')
        return {"body": body, "bulk-size": 10, "unit": "docs",
                "action-metadata-present": False, "index": INDEX}

def register(registry):
    registry.register_param_source("bulks", Bulks)
"#;

/// A bulk whose documents the track's Python gives: the body is made in the worker before the
/// request is timed, sent and timed by the Rust driver; its weight is the task's documents,
/// an item refused is the execution's error with its reason.
#[test]
fn a_bulk_whose_documents_come_from_the_tracks_python_is_sent_by_the_driver() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = r#"[{"operation": "delete-index"},
  {"operation": {"operation-type": "create-index", "settings": {"index.number_of_replicas": 0},
    "body": {"mappings": {"properties": {"n": {"type": "long"}}}}}},
  {"operation": {"name": "bulks", "operation-type": "bulk", "param-source": "bulks"}, "clients": 2},
  {"operation": "refresh"},
  {"operation": {"name": "refused", "operation-type": "bulk", "param-source": "bulks", "bad": true}}]"#;
    let file = write_definition(dir.path(), false, schedule, Some(BULKS_PY));
    let _one = common::one_track_at_a_time();
    let (out, result) = run_track(dir.path(), &file, &[]);
    // The refused document fails its task, and so the run.
    assert_eq!(out.status.code(), Some(3), "{}", common::streams(&out));
    let bulks = row(&result, "bulks");
    assert_eq!(
        (bulks["ops"].as_u64(), bulks["errors"].as_u64()),
        (Some(10), Some(0)),
        "{bulks}"
    );
    assert_eq!(bulks["throughput_unit"], "docs/s", "{bulks}");
    let refused = row(&result, "refused");
    assert_eq!(refused["errors"].as_u64(), Some(2), "{refused}");
    assert!(
        refused["first_error"]
            .as_str()
            .unwrap()
            .contains("1 of 10 documents not taken; the first (document 4): 400"),
        "{refused}"
    );
    // Both clients' fifty documents, each under the id its body gave.
    let ids = ids(node_url());
    assert_eq!(ids.len(), 100, "{ids:?}");
    assert!(ids.contains(&"1050".to_string()) && ids.contains(&"10".to_string()));
    common::fresh_index(INDEX, None);
}

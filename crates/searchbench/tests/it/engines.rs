//! The engine range: an old OpenSearch 2.x through its runner, an Elasticsearch 8 distribution
//! (run as `nobody` when the tests run as root), and a three-node OpenSearch cluster. Each
//! ingests and answers the logs queries through `run`; stopping leaves no process and no port.

use std::net::TcpListener;
use std::time::Duration;

use searchbench::engine::{self, NodeRecord};
use searchbench::os;

use crate::common;

const OLD_OPENSEARCH: &str = "opensearch-2.11.0";
const ELASTICSEARCH_8: &str = "elasticsearch-8.17.4";

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `run logs` with a small corpus, no warm-up window and the node's warm-up bounded to 5 s;
/// its JSON result, which `--json -` puts alone on stdout (the tables stay off it).
fn run_logs(extra: &[&str]) -> (std::process::Output, serde_json::Value) {
    let mut args = vec![
        "run",
        "logs",
        "--docs",
        "5000",
        "--warmup",
        "0",
        "--warm-node-max",
        "5s",
        "--json",
        "-",
    ];
    args.extend_from_slice(extra);
    let out = common::bin().args(&args).output().expect("run");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not the JSON result alone ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            stderr(&out)
        )
    });
    (out, json)
}

/// The run indexed every document and every query answer was right.
/// `started`: the run started its node (else it was given by --url).
fn assert_run_ok(
    out: &std::process::Output,
    json: &serde_json::Value,
    version: &str,
    started: bool,
) {
    assert!(out.status.success(), "run failed: {}", stderr(out));
    // The load's figures are at the top level, the query phase under `query`.
    let ingest = json;
    assert_eq!(ingest["engine_version"], version, "{}", stderr(out));
    // A node the run started is warmed first, and the run says how; a cluster given by
    // --url never is.
    let warm = &ingest["warm_up"];
    if !started {
        assert!(warm.is_null(), "{warm}");
    } else {
        assert!(
            warm["slices"].as_array().is_some_and(|s| !s.is_empty()),
            "{warm}"
        );
        assert_eq!(warm["max_secs"], 5.0, "{warm}");
        assert!(stderr(out).contains("warmed the node: "), "{}", stderr(out));
    }
    assert_eq!(ingest["counts"]["indexed"], 5000);
    assert_eq!(ingest["counts"]["reconciled"], true);
    assert!(
        ingest["engine_jvm"]["version"].is_string(),
        "the engine's JVM is recorded: {}",
        ingest["engine_jvm"]
    );
    assert!(!ingest["machine"]["kernel"]
        .as_str()
        .unwrap_or("")
        .is_empty());
    let query = &json["query"];
    assert!(query.is_object(), "the run has a query phase: {json}");
    assert_eq!(query["accuracy_checked"], true, "{}", stderr(out));
    assert_eq!(
        query["failures_total"],
        0,
        "every answer right: {}",
        stderr(out)
    );
    let errors: u64 = query["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| c["errors"].as_u64().unwrap_or(1))
        .sum();
    assert_eq!(errors, 0, "every search answered");
}

/// The URL the run's engine came up at, from its progress lines.
fn started_port(stderr: &str) -> u16 {
    let line = stderr
        .lines()
        .find(|l| l.contains(" is up at http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no 'is up at' line in: {stderr}"));
    let after = line.split("http://127.0.0.1:").nth(1).expect("url");
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port")
}

/// Nothing of the node is left: no record, no process of ours on it, the port free.
fn assert_gone(port: u16) {
    assert!(
        !NodeRecord::all().iter().any(|r| r.http_port == port),
        "the node record on port {port} must be gone"
    );
    assert!(
        TcpListener::bind(("127.0.0.1", port)).is_ok(),
        "port {port} must be free after the run"
    );
}

#[test]
fn old_opensearch_runs_through_its_runner() {
    let (out, json) = run_logs(&["--engine", OLD_OPENSEARCH]);
    assert_run_ok(&out, &json, "2.11.0", true);
    assert_gone(started_port(&stderr(&out)));
}

#[test]
fn elasticsearch_8_distribution_runs_unprivileged() {
    // Started on its own (not attached) so the test can look at its processes.
    let out = common::bin()
        .args([
            "engine",
            "start",
            ELASTICSEARCH_8,
            "--heap",
            "512m",
            "--json",
        ])
        .output()
        .expect("engine start");
    assert!(out.status.success(), "engine start: {}", stderr(&out));
    let started: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let pid = started["pid"].as_u64().expect("pid") as u32;
    let url = started["url"].as_str().expect("url").to_string();
    let port: u16 = url
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port");
    let members = os::group_members(pid);
    let stop = || {
        common::bin()
            .args(["engine", "stop", "--port", &port.to_string()])
            .output()
            .expect("engine stop")
    };
    // The node's JVMs (Elasticsearch 8 runs the server as a child of its launcher).
    let uids: Vec<String> = members
        .iter()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/status")).ok())
        .filter_map(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
        })
        .collect();
    let (out, json) = run_logs(&["--url", &url]);
    let stopped = stop();
    assert!(stopped.status.success(), "{}", stderr(&stopped));
    assert!(members.len() >= 2, "launcher and server JVMs: {members:?}");
    if os::is_root() {
        assert!(
            uids.iter().all(|u| u == "65534"),
            "as root, the distribution runs as nobody: uids {uids:?}"
        );
    }
    assert_run_ok(&out, &json, "8.17.4", false);
    assert_eq!(json["product"], "Elasticsearch");
    assert!(
        members.iter().all(|p| !os::pid_alive(*p)),
        "every process of the node is gone after stop"
    );
    assert_gone(port);
}

#[test]
fn three_node_opensearch_cluster() {
    let node = std::thread::spawn(|| {
        let mut options = common::node_options(&common::test_engine());
        options.nodes = 3;
        options.heap = "384m".into();
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        runtime.block_on(engine::start(&options))
    })
    .join()
    .expect("thread")
    .expect("a 3-node cluster starts");
    let ports: Vec<u16> = node.records.iter().map(|r| r.http_port).collect();
    let pids = node.pids();
    let urls = node.urls();
    let target = common::target_at(node.url(), Duration::from_secs(60));
    let runtime = common::runtime();

    let cat = runtime
        .block_on(target.send(reqwest::Method::GET, "/_cat/nodes?h=name", None))
        .expect("_cat/nodes");
    let names = String::from_utf8_lossy(&cat.body).to_string();
    assert_eq!(names.lines().count(), 3, "_cat/nodes: {names}");

    // A replica has somewhere to go: the index turns green.
    let body = serde_json::json!({"settings": {"number_of_shards": 3, "number_of_replicas": 1}});
    runtime
        .block_on(target.send_json::<serde_json::Value>(reqwest::Method::PUT, "/replicated", &body))
        .expect("create index");
    let health = runtime
        .block_on(target.get_json::<serde_json::Value>(
            "/_cluster/health/replicated?wait_for_status=green&timeout=60s",
        ))
        .expect("health");
    assert_eq!(health["status"], "green", "{health}");
    assert_eq!(health["active_shards"], 6, "{health}");

    // The run profiles every node (`--profile-pid` each: a cluster given by URL).
    let urls = urls.join(",");
    let pid_args: Vec<String> = pids.iter().map(|p| p.to_string()).collect();
    let mut args = vec!["--url", urls.as_str(), "--replicas", "1"];
    for pid in &pid_args {
        args.extend(["--profile-pid", pid.as_str()]);
    }
    let (out, json) = run_logs(&args);
    assert_run_ok(&out, &json, &node.spec.version, false);
    // Readers hit the primary or the replica: the time to searchable is read on each apart,
    // each copy counted on its own node (issue 102).
    let copies = json["freshness"]["copies"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let kinds: Vec<&str> = copies.iter().filter_map(|c| c["copies"].as_str()).collect();
    assert_eq!(kinds, ["primary", "replica"], "{}", json["freshness"]);
    for c in &copies {
        assert_eq!(c["unseen"], 0, "{c}");
        let p99 = c["p99_secs"].as_f64().unwrap_or(f64::NAN);
        assert!((0.0..=5.0).contains(&p99), "{c}");
    }
    let profiled: Vec<u64> = json["profile"]["pids"]
        .as_array()
        .map(|a| a.iter().filter_map(serde_json::Value::as_u64).collect())
        .unwrap_or_default();
    let mut want: Vec<u64> = pids.iter().map(|p| u64::from(*p)).collect();
    let mut got = profiled.clone();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want, "every node profiled: {}", json["profile"]);
    assert!(
        json["profile"]["cpu_samples"].as_u64().unwrap_or(0) > 0,
        "{}",
        json["profile"]
    );

    drop(node);
    assert!(pids.iter().all(|p| !os::pid_alive(*p)), "nodes stopped");
    for port in ports {
        assert_gone(port);
    }
}

#[test]
fn catalogue_lists_every_release_and_names_the_nearest() {
    // The build's copy of Maven Central's lists answers without the network.
    let cache = tempfile::tempdir().expect("cache");
    let offline = |args: &[&str]| {
        common::bin()
            .args(args)
            .env("SEARCHBENCH_CACHE", cache.path())
            // A refresh (for a release the lists lack) fails at once: nothing leaves the machine.
            .env("SEARCHBENCH_MAVEN_REPO", "http://127.0.0.1:9/maven2")
            .output()
            .expect("run")
    };
    let out = offline(&["engine", "list", "--available", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let names: Vec<&str> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    for expected in [
        "opensearch-2.0.0",
        "opensearch-2.11.0",
        "opensearch-3.8.0",
        "elasticsearch-7.4.2",
        "elasticsearch-7.17.29",
        "elasticsearch-8.15.0",
        "elasticsearch-8.19.21",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(names.len() > 100, "{} releases", names.len());
    let es8 = rows
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["name"] == "elasticsearch-8.15.0")
        .expect("8.15.0");
    assert_eq!(es8["kind"], "distribution");
    assert_eq!(es8["jdk_needed"], "17–23");

    // An unknown release: exit 2, the nearest releases named.
    let out = offline(&["engine", "start", "elasticsearch-8.17.2"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("elasticsearch-8.17.3") && err.contains("elasticsearch-8.17.0"),
        "{err}"
    );
    // The same in `run`, before anything starts.
    let out = offline(&[
        "run",
        "logs",
        "--engine",
        "elasticsearch-8.17.2",
        "--docs",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    // Nearest in release order, listed oldest first: the releases on each side of it.
    assert!(err.contains("nearest: elasticsearch-"), "{err}");
    assert!(
        err.contains("elasticsearch-8.17.0, elasticsearch-8.17.3"),
        "{err}"
    );
}

#[test]
fn a_failed_start_keeps_its_log_and_quotes_why() {
    common::node_url(); // provisioned already: the failure is the node's, not Maven's
    let out = common::bin()
        .args([
            "engine",
            "start",
            &common::test_engine(),
            "--heap",
            "256m",
            "--setting",
            "no.such.setting=1",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("exited during start-up (exit status: "),
        "{err}"
    );
    assert!(!err.contains("exit status exit status"), "{err}");
    assert!(err.contains("unknown setting [no.such.setting]"), "{err}");
    assert!(!err.contains("\tat "), "no stack frames: {err}");
    let log = err
        .split("the log is kept at ")
        .nth(1)
        .and_then(|rest| rest.split(". ").next())
        .expect("the log is named");
    let log = std::path::Path::new(log);
    assert!(log.is_file(), "the log is kept: {}", log.display());
    let _ = std::fs::remove_file(log);

    // A setting that is not key=value is refused before anything starts.
    let out = common::bin()
        .args(["engine", "start", "--setting", "oops"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("key=value"), "{}", stderr(&out));
}

#[test]
fn clean_removes_what_killed_nodes_left() {
    let cache = tempfile::tempdir().expect("cache");
    let data = cache.path().join("data").join("opensearch-2.19.1-1");
    std::fs::create_dir_all(&data).expect("data");
    std::fs::create_dir_all(cache.path().join("nodes")).expect("nodes");
    let log = cache.path().join("nodes").join("1.log");
    std::fs::write(&log, "old").expect("log");
    // A record of a node whose process is gone.
    let record = serde_json::json!({
        "engine": "opensearch-2.19.1", "pid": 999_999_999u32, "http_port": 1,
        "transport_port": 2, "url": "http://127.0.0.1:1", "data_dir": data,
        "data_is_ours": true, "log": log, "started_unix": 0, "heap": "1g"
    });
    let record_path = cache.path().join("nodes").join("1.json");
    std::fs::write(&record_path, record.to_string()).expect("record");
    let out = common::bin()
        .args(["engine", "clean"])
        .env("SEARCHBENCH_CACHE", cache.path())
        .env("SEARCHBENCH_SHARED_DIR", cache.path())
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!record_path.exists() && !data.exists() && !log.exists());
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed"));
}

/// Rally's tracks on Elasticsearch 8 need modules (mapper-extras, aggregations, painless)
/// that its distribution on Maven Central lacks, and nothing on Maven Central carries. On a
/// node searchbench started (the binary's shared one): a module the track's indices need
/// refuses the run before any task runs, naming it, what needs it and that the track needs a
/// full cluster at --url; a module only a search needs leaves that search out, listed as not
/// run with why, and the rest runs.
#[test]
fn tracks_needing_modules_the_maven_distribution_lacks_are_told_before_anything_runs() {
    let url = common::elasticsearch_8_url();
    let _heavy = common::heavy_on(url);
    let dir = tempfile::tempdir().unwrap();
    let track = |fare: &str| {
        std::fs::write(
            dir.path().join("track.json"),
            r#"{"indices": [{"name": "taxis", "body": "index.json"}],
 "corpora": [{"name": "taxis", "documents": [{"source-file": "docs.json", "document-count": 2}]}],
 "schedule": [
  {"operation": {"operation-type": "delete-index"}},
  {"operation": {"operation-type": "create-index"}},
  {"operation": {"name": "load", "operation-type": "bulk", "bulk-size": 10}},
  {"operation": {"operation-type": "refresh"}},
  {"operation": {"name": "histo", "operation-type": "search", "body": {"size": 0,
    "aggs": {"by": {"auto_date_histogram": {"field": "at", "buckets": 4}}}}}},
  {"operation": {"name": "all", "operation-type": "search", "body": {"query": {"match_all": {}}}}}]}"#,
        )
        .unwrap();
        std::fs::write(
            dir.path().join("index.json"),
            format!(
                r#"{{"mappings": {{"properties": {{"fare": {fare}, "at": {{"type": "date"}}}}}}}}"#
            ),
        )
        .unwrap();
    };
    std::fs::write(
        dir.path().join("docs.json"),
        "{\"fare\": 1.5, \"at\": \"2024-01-01\"}\n{\"fare\": 2.5, \"at\": \"2024-01-02\"}\n",
    )
    .unwrap();
    let run = || {
        common::bin()
            .args(["run", "--url", url, "--no-warm-node"])
            .arg("--workload-file")
            .arg(dir.path().join("track.json"))
            .arg("--store")
            .arg(dir.path().join("results.db"))
            .arg("--json")
            .arg(dir.path().join("result.json"))
            .output()
            .expect("run")
    };
    // The index needs scaled_float (mapper-extras): refused before any task.
    track(r#"{"type": "scaled_float", "scaling_factor": 100}"#);
    let out = run();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for says in [
        "lacks module(s) the track needs to make its indices, so no task was run",
        "mapper-extras (scaled_float): task create-index",
        "--url",
    ] {
        assert!(err.contains(says), "{says:?} not in: {err}");
    }
    assert!(!dir.path().join("result.json").exists(), "no result");
    // Only a search needs a module (aggregations): it is left out, said why, the rest runs.
    track(r#"{"type": "float"}"#);
    let out = run();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("result.json")).unwrap())
            .expect("json");
    let not_run = r["not_run"].as_array().unwrap();
    assert_eq!(not_run.len(), 1, "{r}");
    assert_eq!(not_run[0]["what"], "task histo (search)");
    let why = not_run[0]["how"].as_str().unwrap();
    assert!(
        why.contains("aggregations (auto_date_histogram)") && why.contains("--url"),
        "{why}"
    );
    let ran: Vec<&str> = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task"].as_str().unwrap_or_default())
        .collect();
    assert!(ran.contains(&"all") && !ran.contains(&"histo"), "{r}");
}

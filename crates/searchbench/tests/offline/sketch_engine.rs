//! The sketch store (field note 002's baseline) as an engine: started from this very binary
//! (no JVM, hence offline), loaded with cluster-metrics rows in columnar batches through the
//! run's lifecycle, queried with every answer checked against the ground truth, stopped. Each
//! test keeps its node records in a cache of its own, so nothing real is seen or stopped.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{scratch_folder, scratch_store, streams};

/// The CLI with a cache and shared folder of its own (its node records live there).
fn searchbench(own: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_searchbench"));
    cmd.args(args)
        .env("SEARCHBENCH_CACHE", own.join("cache"))
        .env("SEARCHBENCH_SHARED_DIR", own.join("shared"))
        .env("SEARCHBENCH_STORE", scratch_store())
        .current_dir(own)
        .stdin(Stdio::null());
    cmd
}

fn output(own: &Path, args: &[&str]) -> Output {
    searchbench(own, args)
        .output()
        .expect("running searchbench")
}

/// The node records left in `own`'s cache: none once every sketch it started has stopped.
fn records(own: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(own.join("cache").join("nodes")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.display().to_string())
        .collect()
}

fn alive(pid: u64) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.split_whitespace().nth(2) == Some("Z"))
}

#[test]
fn a_run_of_cluster_metrics_on_the_sketch_checks_every_answer() {
    let own = scratch_folder();
    let out = output(
        &own,
        &[
            "run",
            "cluster-metrics",
            "--engine",
            "sketch",
            "--rows-per-epoch",
            "6000",
            "--epochs",
            "3",
            "--clients",
            "2",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let run: Value = serde_json::from_slice(&out.stdout).expect("the run's JSON");
    assert_eq!(run["product"], "sketch");
    // The load: every row in, counted by the store as by the driver.
    let counts = &run["counts"];
    assert_eq!(counts["read"], 18_000, "{counts}");
    assert_eq!(counts["indexed"], 18_000, "{counts}");
    assert_eq!(counts["failed"], 0, "{counts}");
    assert_eq!(counts["index_count"], 18_000, "{counts}");
    assert_eq!(counts["reconciled"], true, "{counts}");
    assert!(run["docs_per_sec"].as_f64().unwrap() > 0.0);
    // The store's own time stands for the server's in the time split.
    let budget = run["attribution"]["budget"].as_array().unwrap();
    let server: f64 = budget
        .iter()
        .filter(|s| s["name"].as_str().unwrap().starts_with("server"))
        .map(|s| s["secs"].as_f64().unwrap())
        .sum();
    assert!(server > 0.0, "{budget:?}");
    // The queries: one variant over both transports, every answer checked.
    let query = &run["query"];
    let cells = query["cells"].as_array().expect("cells");
    let transports: Vec<&str> = cells
        .iter()
        .map(|c| c["transport"].as_str().unwrap())
        .collect();
    assert_eq!(transports, ["serial", "msearch"], "{cells:?}");
    for cell in cells {
        assert_eq!(cell["variant"], "D_dd");
        assert_eq!(cell["errors"], 0, "{cell}");
        assert!(cell["coverages"].as_u64().unwrap() > 0, "{cell}");
    }
    let accuracy = &query["accuracy"][0];
    assert_eq!(accuracy["algo"], "ddsketch", "{accuracy}");
    let partitions = query["partitions"].as_u64().unwrap();
    assert_eq!(partitions, 90);
    // Each partition answered by both transports in the warm-up and in each of 3 passes.
    assert_eq!(accuracy["answers"], partitions * 2 * 4, "{accuracy}");
    for wrong in ["count_wrong", "sum_wrong", "pct_null", "pct_over_bound"] {
        assert_eq!(accuracy[wrong], 0, "{wrong}: {accuracy}");
    }
    let worst = accuracy["pct_max_err"].as_f64().unwrap();
    // Within the sketch's stated 1 %, and not exact (or the check says nothing).
    assert!(worst > 0.0 && worst <= 0.01 + 1e-9, "{accuracy}");
    assert_eq!(query["failures_total"], 0);
    // The store the run started is stopped with it.
    assert!(records(&own).is_empty(), "{:?}", records(&own));
}

#[test]
fn the_sketch_starts_and_stops_like_an_engine_and_refuses_what_it_lacks() {
    let own = scratch_folder();
    let out = output(&own, &["engine", "start", "sketch", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let started: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let (url, pid, port) = (
        started["url"].as_str().unwrap().to_string(),
        started["pid"].as_u64().unwrap(),
        started["http_port"].as_u64().unwrap().to_string(),
    );
    assert!(alive(pid));
    assert_eq!(records(&own).len(), 1);
    let out = output(&own, &["target", "--url", &url]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with("sketch "), "{}", streams(&out));
    let out = output(&own, &["engine", "stop", "--port", &port]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(pid), "the store outlived its stop");
    assert!(records(&own).is_empty());

    // What a store of one process in memory has not: refused, naming why.
    for (flag, value, why) in [
        ("--nodes", "2", "one process"),
        ("--data", "/tmp", "in memory"),
        ("--setting", "a=b", "no node settings"),
        ("--knn", "--json", "numbers, not vectors"),
    ] {
        let out = output(&own, &["engine", "start", "sketch", flag, value]);
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", streams(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(why),
            "{flag}: {}",
            streams(&out)
        );
    }
    // It holds cluster-metrics rows only: another workload's load fails, saying so.
    let out = output(
        &own,
        &["run", "logs", "--engine", "sketch", "--docs", "1000"],
    );
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cluster-metrics rows only"),
        "{}",
        streams(&out)
    );
    assert!(records(&own).is_empty(), "{:?}", records(&own));
}

#[test]
fn a_store_killed_mid_load_fails_the_run_with_every_row_accounted_for() {
    let own = scratch_folder();
    let (url, pid) = start_store(&own);
    // Once rows are arriving, the store dies.
    let run = load_until_rows_arrive(&own, &url, &["--max-retries", "1"]);
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = wait_at_most(run, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("the load's JSON");
    let counts = &report["counts"];
    let n = |k: &str| counts[k].as_u64().unwrap();
    assert_eq!(n("read"), n("indexed") + n("failed"), "{counts}");
    assert!(n("indexed") > 0 && n("failed") > 0, "{counts}");
    assert_eq!(counts["reconciled"], false, "{counts}");
    assert!(report["error"].as_str().is_some(), "{report}");
    // Every row not acknowledged is in the failure file, as its document.
    let failures = report["failures_file"].as_str().expect("a failure file");
    let path = own.join(failures);
    let lines = std::fs::read_to_string(&path).expect("the failure file");
    assert_eq!(lines.lines().count() as u64, n("failed"), "{counts}");
    let first: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert!(
        first["doc"]["node"].as_str().unwrap().starts_with('N'),
        "{first}"
    );
    let _ = output(&own, &["engine", "stop", "--all"]);
}

/// A store frozen mid-load (SIGSTOP), then Ctrl-C: the run ends within its grace periods, not
/// the requests' --timeout, with every row accounted for and the store's unread status said.
#[test]
fn a_store_frozen_mid_load_lets_ctrl_c_end_the_run_promptly() {
    let own = scratch_folder();
    let (url, pid) = start_store(&own);
    let run = load_until_rows_arrive(&own, &url, &["--timeout", "120"]);
    let pid = pid.to_string();
    let signal = |sig: &str, pid: &str| {
        let sent = Command::new("kill")
            .args([sig, pid])
            .status()
            .expect("kill");
        assert!(sent.success(), "kill {sig} {pid}");
    };
    signal("-STOP", &pid);
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    signal("-INT", &run.id().to_string());
    let out = wait_at_most(run, Duration::from_secs(60));
    let took = asked.elapsed();
    signal("-CONT", &pid);
    let _ = output(&own, &["engine", "stop", "--all"]);
    let out = out.unwrap_or_else(|e| panic!("{e}"));
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(130), "{text}");
    // Two grace periods of 3 s (the requests in flight, then the store's status), and room.
    assert!(
        took < Duration::from_secs(30),
        "{took:?} after Ctrl-C: {text}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("the load's JSON");
    let counts = &report["counts"];
    let n = |k: &str| counts[k].as_u64().unwrap();
    assert_eq!(n("read"), n("indexed") + n("failed"), "{counts}");
    assert_eq!(report["interrupted"], true, "{report}");
    assert!(
        text.contains("could not read the sketch store's rows after the load"),
        "{text}"
    );
}

/// SIGTERM (Kubernetes, systemd, `docker stop`) is an interrupt: alone, or after a Ctrl-C, the
/// run keeps its grace, prints its summary and is stored `interrupted` (it ended with 143 and
/// was left `incomplete` before). So is SIGHUP (the terminal or ssh session gone), which
/// killed the run where it stood.
#[test]
fn sigterm_alone_or_after_ctrl_c_stops_a_run_as_ctrl_c_does() {
    for signals in [&["-TERM"][..], &["-INT", "-TERM"][..], &["-HUP"][..]] {
        let own = scratch_folder();
        let store = own.join("runs.db");
        let store_flag = store.display().to_string();
        let (url, _pid) = start_store(&own);
        let run = load_until_rows_arrive(&own, &url, &["--store", &store_flag]);
        let pid = run.id().to_string();
        for sig in signals {
            let sent = Command::new("kill")
                .args([*sig, &pid])
                .status()
                .expect("kill");
            assert!(sent.success(), "kill {sig} {pid}");
            std::thread::sleep(Duration::from_millis(700));
        }
        let out = wait_at_most(run, Duration::from_secs(60));
        let _ = output(&own, &["engine", "stop", "--all"]);
        let out = out.unwrap_or_else(|e| panic!("{signals:?}: {e}"));
        let text = streams(&out);
        assert_eq!(out.status.code(), Some(130), "{signals:?}: {text}");
        let report: Value = serde_json::from_slice(&out.stdout).expect("the load's JSON");
        assert_eq!(report["interrupted"], true, "{report}");
        let counts = &report["counts"];
        let n = |k: &str| counts[k].as_u64().unwrap();
        assert_eq!(n("read"), n("indexed") + n("failed"), "{counts}");
        let listed = output(&own, &["results", "list", "--json", "--store", &store_flag]);
        let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
        assert!(
            listed.contains("\"interrupted\"") && !listed.contains("\"incomplete\""),
            "{signals:?}: {listed}"
        );
    }
}

/// `engine start sketch` in `own`: the store's URL and pid.
fn start_store(own: &Path) -> (String, u64) {
    let out = output(own, &["engine", "start", "sketch", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let started: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let url = started["url"].as_str().unwrap().to_string();
    (url, started["pid"].as_u64().unwrap())
}

/// A load of 2M rows into the store at `url` (`more` its other flags), returned once the store
/// holds rows (within 60 s).
fn load_until_rows_arrive(own: &Path, url: &str, more: &[&str]) -> std::process::Child {
    let mut args = vec![
        "ingest",
        "cluster-metrics",
        "--url",
        url,
        "--rows-per-epoch",
        "1000000",
        "--epochs",
        "2",
        "--json",
    ];
    args.extend_from_slice(more);
    let mut run = searchbench(own, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting the load");
    let deadline = Instant::now() + Duration::from_secs(60);
    while rows_at(url).unwrap_or(0) == 0 && Instant::now() < deadline {
        if let Ok(Some(status)) = run.try_wait() {
            let out = run.wait_with_output().expect("the load's output");
            panic!(
                "the load ended before a row arrived ({status}): {}",
                streams(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(rows_at(url).unwrap_or(0) > 0, "no row arrived in 60 s");
    run
}

/// The output of `run` once it ends, or, past `limit`, an error (the run killed).
fn wait_at_most(run: std::process::Child, limit: Duration) -> Result<Output, String> {
    let pid = run.id().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.map_err(|e| format!("waiting for the load: {e}")),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid]).status();
            Err(format!("the load did not end within {limit:?}"))
        }
    }
}

/// The rows the store at `url` holds (`GET /`), `None` when it does not answer.
fn rows_at(url: &str) -> Option<u64> {
    use std::io::{Read, Write};
    let address = url.strip_prefix("http://")?;
    let mut stream = std::net::TcpStream::connect(address).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream
        .write_all(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let body = answer.split("\r\n\r\n").nth(1)?;
    serde_json::from_str::<Value>(body).ok()?["rows"].as_u64()
}

/// One answer for every request of a store that lies: it says it is the sketch store (`GET /`)
/// and that it inserted one row of every batch.
const LYING_STORE: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n\
{\"name\":\"searchbench-sketch\",\"cluster_name\":\"liar\",\"version\":{\"number\":\"0.0.0\",\
\"distribution\":\"searchbench-sketch\"},\"rows\":0,\"memory_bytes\":0,\"insert_time_us\":0,\
\"inserted\":1}";

#[test]
fn a_store_that_takes_fewer_rows_than_it_is_sent_loses_none() {
    let own = scratch_folder();
    let url = crate::common::raw_server(Some(LYING_STORE), Duration::ZERO);
    let out = output(
        &own,
        &[
            "ingest",
            "cluster-metrics",
            "--url",
            &url,
            "--docs",
            "2500",
            "--json",
        ],
    );
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("the load's JSON");
    let counts = &report["counts"];
    // No row is taken on a word that does not add up: all 2,500 unacknowledged, none lost.
    assert_eq!(counts["read"], 2500, "{counts}");
    assert_eq!(counts["indexed"], 0, "{counts}");
    assert_eq!(counts["unacknowledged"], 2500, "{counts}");
    let path = own.join(report["failures_file"].as_str().expect("a failure file"));
    let lines = std::fs::read_to_string(path).expect("the failure file");
    assert_eq!(lines.lines().count(), 2500);
    assert!(
        lines.contains("inserted 1 of the batch's 1000 rows")
            && lines.contains("inserted 1 of the batch's 500 rows"),
        "{}",
        lines.lines().next().unwrap_or_default()
    );
}

/// `SEARCHBENCH_JVM_OPTS` is for JVM nodes: the sketch store starts as it is with one set, and a
/// variable that is not UTF-8 is refused by name before any engine is resolved or fetched.
#[test]
fn the_machines_jvm_options_are_read_before_anything_and_spare_the_sketch() {
    use std::os::unix::ffi::OsStrExt;
    let own = scratch_folder();
    let bad = std::ffi::OsStr::from_bytes(b"-Xss1m \xff");
    let out = searchbench(&own, &["engine", "start", "opensearch-2.19.1"])
        .env("SEARCHBENCH_JVM_OPTS", bad)
        .output()
        .expect("running searchbench");
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("SEARCHBENCH_JVM_OPTS") && text.contains("not UTF-8"),
        "{text}"
    );
    assert!(!own.join("cache").join("engines").exists(), "{text}");
    assert!(records(&own).is_empty(), "{text}");

    let out = searchbench(&own, &["engine", "start", "sketch", "--json"])
        .env("SEARCHBENCH_JVM_OPTS", "-XX:TieredStopAtLevel=1")
        .output()
        .expect("running searchbench");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let stopped = output(&own, &["engine", "stop", "--all"]);
    assert_eq!(stopped.status.code(), Some(0), "{}", streams(&stopped));
    assert!(records(&own).is_empty());
}

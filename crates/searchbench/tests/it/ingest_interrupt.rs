//! Stopping a load: Ctrl-C on a stalled engine, and requests that can never fit.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::common;

/// The tests here freeze their node (SIGSTOP) or shrink its request breaker, which would upset
/// every other test on the shared node: they have a node of their own, one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// The URL and pid of this module's own node, started on first use (attached: it dies with
/// the test binary).
fn own_node() -> (&'static str, u32) {
    static NODE: OnceLock<Result<searchbench::engine::Node, String>> = OnceLock::new();
    match NODE.get_or_init(common::start_node) {
        Ok(node) => (node.url(), node.pid()),
        Err(e) => panic!("starting the node of the interrupt tests: {e}"),
    }
}

/// Resumes a SIGSTOPped process when dropped, also when the test fails.
struct Stopped(i32);

impl Stopped {
    fn stop(pid: u32) -> Self {
        let pid = pid as i32;
        // SAFETY: plain signal to a process we started (the shared test node).
        assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        // SAFETY: as above.
        unsafe {
            libc::kill(self.0, libc::SIGCONT);
        }
    }
}

fn json_of(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn ctrl_c_on_a_stalled_engine_stops_retrying_and_reports_the_partial_load() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let (url, pid) = own_node();
    let dir = tempfile::tempdir().unwrap();
    let failures = dir.path().join("failures.ndjson");
    let result = dir.path().join("result.json");
    let mut child = common::bin()
        .args([
            "ingest",
            "logs",
            "--docs",
            "5000000",
            "--quiet",
            "--replace",
        ])
        .args(["--index", "searchbench-interrupt", "--url", url])
        .arg("--failures")
        .arg(&failures)
        .arg("--json")
        .arg(&result)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stall the engine once the load is under way (some documents indexed).
    let rt = tokio::runtime::Runtime::new().unwrap();
    let target = common::target_at(url, Duration::from_secs(10));
    let waiting = Instant::now();
    loop {
        assert!(child.try_wait().unwrap().is_none(), "the load ended early");
        let stats: Option<serde_json::Value> = rt
            .block_on(target.get_json("/searchbench-interrupt/_stats/indexing"))
            .ok();
        let indexed = stats
            .and_then(|s| s["_all"]["primaries"]["indexing"]["index_total"].as_u64())
            .unwrap_or(0);
        if indexed >= 10_000 {
            break;
        }
        assert!(
            waiting.elapsed() < Duration::from_secs(120),
            "nothing indexed"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    let stalled = Stopped::stop(pid);
    // Long enough for the clients to be waiting on requests that will not be answered.
    std::thread::sleep(Duration::from_secs(1));
    // SAFETY: SIGINT to the child we spawned.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if sent.elapsed() > Duration::from_secs(30) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = sent.elapsed();
    drop(stalled);
    let Some(status) = status else {
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        panic!(
            "still running 30 s after SIGINT:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        took < Duration::from_secs(10),
        "took {took:?} to stop\n{stderr}"
    );
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stdout.contains("interrupted"), "{stdout}\n{stderr}");

    // The partial result adds up: everything read is indexed or in the failure file, and the
    // requests that were in flight are there as interrupted.
    let r = json_of(&result);
    assert_eq!(r["interrupted"], true);
    let c = &r["counts"];
    let n = |k: &str| c[k].as_u64().unwrap_or_else(|| panic!("{k} in {c}"));
    assert!(n("indexed") > 0, "{c}");
    assert!(n("read") < 5_000_000, "{c}");
    assert_eq!(n("read"), n("indexed") + n("failed"), "{c}");
    assert!(n("unacknowledged") > 0, "{c}");
    let text = std::fs::read_to_string(&failures).unwrap();
    let interrupted = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| {
            v["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("interrupted"))
        })
        .count() as u64;
    assert_eq!(interrupted, n("unacknowledged"));
}

/// Sets the node's in-flight request breaker limit while alive (back to the default after).
struct InflightLimit;

impl InflightLimit {
    fn set(limit: &str) -> Self {
        put_limit(serde_json::json!(limit));
        InflightLimit
    }
}

impl Drop for InflightLimit {
    fn drop(&mut self) {
        put_limit(serde_json::Value::Null);
    }
}

fn put_limit(limit: serde_json::Value) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let body = serde_json::json!({"transient": {"network.breaker.inflight_requests.limit": limit}});
    let body = ("application/json", body.to_string().into_bytes());
    let target = common::target_at(own_node().0, Duration::from_secs(60));
    rt.block_on(target.send(reqwest::Method::PUT, "/_cluster/settings", Some(body)))
        .unwrap();
}

#[test]
fn a_document_larger_than_the_breaker_allows_is_refused_at_once_with_its_file_and_line() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let (url, _) = own_node();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.ndjson");
    let mut text = String::from("{\"n\":1}\n\n{\"big\":\"");
    text.push_str(&"x".repeat(2 << 20));
    text.push_str("\"}\n{\"n\":\"not a number\"}\n{\"n\":4}\n");
    std::fs::write(&input, text).unwrap();
    let failures = dir.path().join("failures.ndjson");
    let result = dir.path().join("result.json");
    let limit = InflightLimit::set("1mb");
    let out = common::bin()
        .args([
            "ingest",
            "--quiet",
            "--replace",
            "--bulk-size",
            "1",
            "--clients",
            "1",
        ])
        .args(["--index", "searchbench-too-big", "--url", url])
        .arg("--file")
        .arg(&input)
        .arg("--failures")
        .arg(&failures)
        .arg("--json")
        .arg(&result)
        .output()
        .unwrap();
    drop(limit);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let r = json_of(&result);
    let c = &r["counts"];
    assert!(r["error"].is_null(), "{stderr}");
    assert_eq!(
        (c["read"].as_u64(), c["indexed"].as_u64()),
        (Some(4), Some(2)),
        "{c}"
    );
    assert_eq!(c["refused"], 2, "{c}");
    let records: Vec<serde_json::Value> = std::fs::read_to_string(&failures)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{records:?}");
    let name = input.to_str().unwrap();
    let big = &records[0];
    assert_eq!(
        (&big["source"], &big["line"]),
        (&name.into(), &3.into()),
        "{big}"
    );
    assert_eq!(big["status"], 429);
    assert_eq!(big["attempts"], 1, "retried: {big}");
    let reason = big["reason"].as_str().unwrap();
    assert!(reason.contains("circuit_breaking_exception"), "{reason}");
    assert!(
        reason.contains("above the circuit breaker's limit"),
        "{reason}"
    );
    let mapping = &records[1];
    assert_eq!(
        (&mapping["source"], &mapping["line"]),
        (&name.into(), &4.into()),
        "{mapping}"
    );
    assert_eq!(mapping["status"], 400);
}

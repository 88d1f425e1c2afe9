//! Bad input gets a clear error (exit 2 naming the flag or field, its value and what is
//! accepted), never a crash, a silent clamp, a wait without end or a wrong count (issue 39).

use std::io::Read;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use searchbench::store::{State, Store};

use crate::common::{bin, interrupt_and_wait, node_url, scratch_store, streams, succeeded};

/// Exit 2, and stderr names every one of `needles`.
fn refused(out: &Output, needles: &[&str]) {
    let text = streams(out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for n in needles {
        assert!(stderr.contains(n), "no {n:?} in: {text}");
    }
    assert!(!stderr.contains("panicked"), "{text}");
}

#[test]
fn a_rate_outside_its_range_is_refused_with_the_range() {
    // 1e-300 overflowed a Duration in a worker; 1e-9 waited 3,000 years between requests.
    for rate in ["1e-300", "1e-9", "0", "-5", "2e9", "NaN", "inf"] {
        for (command, flag) in [
            (&["ingest", "logs", "--docs", "10"][..], "--rate"),
            (&["query", "logs", "--docs", "10"][..], "--rate"),
            (&["saturate", "logs", "--p99", "1s"][..], "--start-rate"),
        ] {
            let out = bin()
                .args(command)
                .arg(format!("{flag}={rate}"))
                .args(["--url", "http://127.0.0.1:9"])
                .output()
                .unwrap();
            refused(&out, &[rate, "0.01 to 1e9 per second"]);
        }
    }
}

#[test]
fn zero_query_passes_are_refused_not_raised_to_one() {
    let out = bin()
        .args(["query", "logs", "--docs", "10", "--passes", "0"])
        .args(["--url", "http://127.0.0.1:9"])
        .output()
        .unwrap();
    refused(&out, &["--passes", "0"]);
}

/// Loads `docs` logs documents into `index` on the shared node.
fn load_logs(index: &str, docs: &str) {
    succeeded(
        &bin()
            .args(["ingest", "logs", "--docs", docs, "--quiet", "--no-store"])
            .args(["--index", index, "--url", node_url()])
            .output()
            .unwrap(),
    );
}

#[test]
fn query_docs_other_than_the_index_count_are_refused_before_measuring() {
    let index = "searchbench-test-bad-docs";
    load_logs(index, "2500");
    // Was: "10504 wrong answers" after measuring every pass.
    let out = bin()
        .args(["query", "logs", "--docs", "10000", "--index", index])
        .args(["--url", node_url()])
        .output()
        .unwrap();
    refused(&out, &["holds 2500 documents", "--docs says 10000"]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("pass 1/"),
        "{}",
        streams(&out)
    );
    // The same corpus is measured.
    let out = bin()
        .args(["query", "logs", "--docs", "2500", "--index", index])
        .args(["--passes", "1", "--url", node_url()])
        .output()
        .unwrap();
    succeeded(&out);
}

#[test]
fn ctrl_c_stops_the_query_command_and_stores_it_interrupted() {
    let index = "searchbench-test-query-sigint";
    load_logs(index, "2000");
    let store = scratch_store();
    // Enough passes, paced, that the whole run would take minutes.
    let mut child = bin()
        .args(["query", "logs", "--docs", "2000", "--index", index])
        .args(["--passes", "1000", "--rate", "20", "--url", node_url()])
        .arg("--store")
        .arg(&store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first measurement pass runs.
    let mut stderr = child.stderr.take().unwrap();
    let mut seen = Vec::new();
    let started = Instant::now();
    while !String::from_utf8_lossy(&seen).contains("pass 1/") {
        let mut buf = [0u8; 1024];
        let n = stderr.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "ended before its first pass: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no first pass"
        );
    }
    std::thread::sleep(Duration::from_millis(500));
    let status = interrupt_and_wait(&mut child, Duration::from_secs(30));
    let mut rest = String::new();
    let _ = stderr.read_to_string(&mut rest);
    let text = format!("{}{rest}", String::from_utf8_lossy(&seen));
    assert_eq!(status.code(), Some(130), "{text}");
    assert!(!text.contains("pass 2/"), "went on after Ctrl-C: {text}");
    let runs = Store::open(&store)
        .unwrap()
        .list(&Default::default())
        .unwrap();
    assert_eq!(runs.len(), 1, "{text}");
    assert_eq!(runs[0].state, State::Interrupted, "{:?}", runs[0].error);
    let result = runs[0].result.as_ref().expect("the partial result is kept");
    assert_eq!(result["interrupted"], true);
}

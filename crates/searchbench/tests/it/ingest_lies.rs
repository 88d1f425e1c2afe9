//! Servers that lie: bulk answers that say `"errors":false` without an item per document,
//! answers without end (fast or slow), and an input line without end. Every document read is
//! acknowledged by an item of its own or is in the failure file with its reason, and memory
//! stays bounded.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use searchbench::ingest::{self, IdMode, Plan};
use serde_json::Value;

use crate::common::proxy::{self, Fault};
use crate::common::{self, node_url, target_at};
use crate::ingest_faults::ingest_within;

/// [`crate::ingest_faults::plan`] from one client, so the faults meet requests in order.
fn plan(index: &str, dir: &std::path::Path, ids: IdMode) -> Plan {
    let mut p = crate::ingest_faults::plan(index, dir, ids);
    p.driver.clients = 1;
    p.driver.backoff_base = Duration::from_millis(5);
    p.driver.backoff_max = Duration::from_millis(50);
    p
}

fn failure_records(dir: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("failures.ndjson"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect()
}

/// The lies a server can tell in a 2xx bulk answer, one after another.
fn lie(n: u64) -> Fault {
    match n {
        0 => Fault::FewerItems(3),
        1 => Fault::NoItems,
        2 => Fault::ItemsNotAnArray,
        3 => Fault::ItemsCutOff,
        _ => Fault::Pass,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_without_an_item_are_sent_again_with_sequential_ids() {
    let proxy = proxy::start(node_url(), lie).await;
    let target = target_at(&proxy.url, Duration::from_secs(10));
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-lies-sequential";
    let report = ingest_within(
        120,
        &target,
        1000,
        plan(index, dir.path(), IdMode::Sequential),
    )
    .await;
    assert_eq!(report.error, None);
    assert_eq!(report.counts.read, 1000);
    assert_eq!(report.counts.indexed, 1000, "{:?}", report.counts);
    assert_eq!(report.counts.failed, 0);
    // The first request's 197 documents without an item were sent again, and met the next
    // three lies in turn: 4 × 197 documents sent again.
    assert_eq!(report.counts.retried_items, 788, "{:?}", report.counts);
    assert!(report.counts.reconciled, "{:?}", report.counts);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("no item for 788 documents")),
        "{:?}",
        report.warnings
    );
    assert!(failure_records(dir.path()).is_empty());
    assert_eq!(ingest::count(&common::target(), index).await.unwrap(), 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_auto_ids_documents_without_an_item_go_to_the_failure_file_and_stop_the_run() {
    for (n, fault, acked, why) in [
        (
            0,
            Fault::FewerItems(3),
            3,
            "the answer has 3 items for 200 documents)",
        ),
        (1, Fault::NoItems, 0, "no `items` in the answer"),
        (2, Fault::ItemsNotAnArray, 0, "`items` is not an array"),
        (3, Fault::ItemsCutOff, 0, "cut off after 0 complete items"),
    ] {
        let proxy = proxy::start(
            node_url(),
            move |k| if k == 0 { fault } else { Fault::Pass },
        )
        .await;
        let target = target_at(&proxy.url, Duration::from_secs(10));
        let dir = tempfile::tempdir().unwrap();
        let index = format!("searchbench-test-lies-auto-{n}");
        let report = ingest_within(60, &target, 400, plan(&index, dir.path(), IdMode::Auto)).await;
        let error = report.error.clone().expect("the run stops");
        let without = 200 - acked;
        assert!(error.contains("/_bulk"), "{error}");
        assert!(
            error.contains(&format!(
                "no item in the bulk answer for {without} of 200 documents"
            )),
            "{error}"
        );
        assert!(error.contains(why), "{error}");
        let c = &report.counts;
        assert_eq!(c.indexed, acked, "{fault:?}: {c:?}");
        assert_eq!(c.read, c.indexed + c.failed, "{fault:?}: {c:?}");
        assert_eq!(c.unacknowledged, without, "{fault:?}: {c:?}");
        assert_eq!(c.failed, c.unacknowledged + c.not_sent, "{fault:?}: {c:?}");
        let records = failure_records(dir.path());
        assert_eq!(records.len() as u64, c.failed);
        let no_item: Vec<&Value> = records
            .iter()
            .filter(|r| {
                r["reason"]
                    .as_str()
                    .unwrap()
                    .starts_with("no item in the bulk answer (")
            })
            .collect();
        assert_eq!(no_item.len() as u64, without, "{fault:?}");
        for r in &no_item {
            let reason = r["reason"].as_str().unwrap();
            assert!(reason.contains(why), "{reason}");
            assert!(
                reason.ends_with("not sent again: with --ids auto a resend could index them twice"),
                "{reason}"
            );
            // Documents of the first request, after those that had an item.
            let ordinal = r["ordinal"].as_u64().unwrap();
            assert!((acked..200).contains(&ordinal), "{ordinal}");
        }
        // The rest of the documents read were never sent: in the file, said so.
        let not_sent: Vec<&Value> = records
            .iter()
            .filter(|r| r["ordinal"].as_u64().unwrap() >= 200)
            .collect();
        assert_eq!(not_sent.len() as u64, c.not_sent);
        assert!(not_sent
            .iter()
            .all(|r| r["reason"].as_str().unwrap().starts_with("not sent")));
    }
}

/// More items than documents: none can be matched, and a server that does it once does it
/// again. Said as it is (not "fewer items"), never resent, the run stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_items_than_documents_are_said_as_such_and_never_resent() {
    let proxy = proxy::start(node_url(), |k| {
        if k == 0 {
            Fault::MoreItems(2)
        } else {
            Fault::Pass
        }
    })
    .await;
    let target = target_at(&proxy.url, Duration::from_secs(10));
    let dir = tempfile::tempdir().unwrap();
    let p = plan("searchbench-test-lies-more", dir.path(), IdMode::Sequential);
    let report = ingest_within(60, &target, 1000, p).await;
    let error = report.error.clone().expect("the run stops");
    assert!(
        error.contains("lists 202 items for 200 documents"),
        "{error}"
    );
    assert!(!error.contains("fewer"), "{error}");
    assert_eq!(
        proxy.counts.bulk.load(std::sync::atomic::Ordering::Relaxed),
        1
    );
    let c = &report.counts;
    assert_eq!(
        (c.indexed, c.retried_items, c.unacknowledged),
        (0, 0, 200),
        "{c:?}"
    );
    assert_eq!(c.read, c.indexed + c.failed, "{c:?}");
    assert!(
        report.warnings.iter().all(|w| !w.contains("fewer items")),
        "{:?}",
        report.warnings
    );
}

/// A 307 on `_bulk` is not followed: the documents went nowhere (refused), the run stops
/// with where the server pointed, and the node received nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirected_bulk_request_is_not_followed_and_says_where_to_point() {
    let proxy = proxy::start(node_url(), |_| Fault::Redirect).await;
    let target = target_at(&proxy.url, Duration::from_secs(10));
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-lies-redirect";
    let report = ingest_within(
        60,
        &target,
        1000,
        plan(index, dir.path(), IdMode::Sequential),
    )
    .await;
    let error = report.error.clone().expect("the run stops");
    assert!(
        error.contains("HTTP 307") && error.contains(&format!("redirected to {}", node_url())),
        "{error}"
    );
    assert!(error.contains("point --url"), "{error}");
    let c = &report.counts;
    assert_eq!((c.indexed, c.unacknowledged), (0, 0), "{c:?}");
    assert!(c.refused >= 200, "{c:?}");
    assert_eq!(c.read, c.indexed + c.failed, "{c:?}");
    assert_eq!(ingest::count(&common::target(), index).await.unwrap(), 0);
}

/// A 401 mid-load (a password that stopped working) is the server's answer: the documents
/// are refused, not "unacknowledged", and the run stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_mid_load_refuses_the_documents_and_stops() {
    let proxy = proxy::start(node_url(), |k| {
        if k >= 2 {
            Fault::Unauthorized
        } else {
            Fault::Pass
        }
    })
    .await;
    let target = target_at(&proxy.url, Duration::from_secs(10));
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan("searchbench-test-lies-401", dir.path(), IdMode::Sequential);
    p.driver.clients = 1;
    let report = ingest_within(60, &target, 1000, p).await;
    let error = report.error.clone().expect("the run stops");
    assert!(error.contains("401"), "{error}");
    let c = &report.counts;
    assert_eq!(
        (c.indexed, c.refused, c.unacknowledged),
        (400, 200, 0),
        "{c:?}"
    );
    assert_eq!(c.read, c.indexed + c.failed, "{c:?}");
    let refused: Vec<Value> = failure_records(dir.path())
        .into_iter()
        .filter(|r| r["status"] == 401)
        .collect();
    assert_eq!(refused.len(), 200);
}

/// An answer gzip-compressed without being asked (a proxy that compresses everything) is
/// decoded: every document acknowledged by its item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_answer_compressed_unasked_is_decoded() {
    let proxy = proxy::start(node_url(), |_| Fault::GzipUnasked).await;
    let target = target_at(&proxy.url, Duration::from_secs(10));
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-lies-gzip";
    let report = ingest_within(
        60,
        &target,
        1000,
        plan(index, dir.path(), IdMode::Sequential),
    )
    .await;
    assert_eq!(report.error, None);
    assert_eq!((report.counts.indexed, report.counts.failed), (1000, 0));
    assert!(failure_records(dir.path()).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_used_up_on_a_lying_server_leave_exact_counts() {
    let proxy = proxy::start(node_url(), |_| Fault::FewerItems(3)).await;
    let target = target_at(&proxy.url, Duration::from_secs(10));
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan(
        "searchbench-test-lies-budget",
        dir.path(),
        IdMode::Sequential,
    );
    p.driver.max_retries = 2;
    let report = ingest_within(120, &target, 1000, p).await;
    let error = report.error.clone().expect("the run stops");
    assert!(error.contains("for 191 of 194 documents"), "{error}");
    let c = &report.counts;
    // The first request of 200: 3 acknowledged in each of 3 attempts, 191 given up.
    assert_eq!(c.indexed, 9, "{c:?}");
    assert_eq!(c.read, c.indexed + c.failed, "{c:?}");
    let records = failure_records(dir.path());
    assert_eq!(records.len() as u64, c.failed);
    let given_up: Vec<&Value> = records.iter().filter(|r| r["attempts"] == 3).collect();
    assert_eq!(given_up.len(), 191);
    assert!(given_up.iter().all(|r| {
        let reason = r["reason"].as_str().unwrap();
        reason.starts_with("no item in the bulk answer (the answer has 3 items for 194 documents)")
            && reason.ends_with("not sent again: retries used up")
    }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_endless_answer_ends_at_the_timeout() {
    let proxy = proxy::start(node_url(), |_| Fault::Trickle).await;
    let target = target_at(&proxy.url, Duration::from_secs(2));
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan("searchbench-test-trickle", dir.path(), IdMode::Sequential);
    p.driver.max_retries = 1;
    let started = Instant::now();
    let report = ingest_within(60, &target, 400, p).await;
    let error = report.error.expect("stopped");
    assert!(
        error.contains("/_bulk") && error.contains("timeout"),
        "{error}"
    );
    // Two attempts of 2 s each, and the setup before them.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let c = &report.counts;
    assert_eq!((c.read, c.indexed, c.failed), (400, 0, 400), "{c:?}");
    assert_eq!(failure_records(dir.path()).len(), 400);
}

/// Runs `cmd` to its end (at most `limit`), feeding its stdin with `feed`; returns its output
/// and its peak resident memory (VmHWM, KiB) as last seen in /proc.
pub(crate) fn run_measured(
    mut cmd: Command,
    feed: Option<Box<dyn FnOnce(std::process::ChildStdin) + Send>>,
    limit: Duration,
) -> (std::process::ExitStatus, String, u64) {
    cmd.stdin(if feed.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn the CLI");
    let feeder = feed.map(|f| {
        let stdin = child.stdin.take().expect("stdin");
        std::thread::spawn(move || f(stdin))
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let status_path = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    let mut peak_kib = 0;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_path) {
            if let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the CLI ran past {limit:?} (peak {peak_kib} KiB)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if let Some(f) = feeder {
        let _ = f.join();
    }
    (status, reader.join().unwrap_or_default(), peak_kib)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_answer_of_10_gb_is_refused_in_bounded_memory() {
    let proxy = proxy::start(node_url(), |_| Fault::Huge(10 << 30)).await;
    let dir = tempfile::tempdir().unwrap();
    let failures = dir.path().join("failures.ndjson");
    let mut cmd = common::bin();
    cmd.args([
        "ingest",
        "logs",
        "--docs",
        "400",
        "--bulk-size",
        "200",
        "--clients",
        "1",
    ])
    .args([
        "--max-retries",
        "1",
        "--index",
        "searchbench-test-huge-answer",
        "--quiet",
    ])
    .args(["--url", &proxy.url])
    .arg("--failures")
    .arg(&failures);
    let (status, stderr, peak_kib) =
        tokio::task::spawn_blocking(move || run_measured(cmd, None, Duration::from_secs(90)))
            .await
            .unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("/_bulk") && stderr.contains("the answer is larger than"),
        "{stderr}"
    );
    assert!(peak_kib < 200 << 10, "peak RSS {peak_kib} KiB");
    let records = failure_records(dir.path());
    assert_eq!(records.len(), 400, "{stderr}");
    eprintln!("10 GB bulk answer: peak RSS {} MiB", peak_kib >> 10);
}

#[test]
fn a_600_mb_line_without_a_newline_is_a_bad_line_in_bounded_memory() {
    const LINE: usize = 600_000_000;
    let dir = tempfile::tempdir().unwrap();
    let failures = dir.path().join("failures.ndjson");
    let mut cmd = common::bin();
    cmd.args([
        "ingest",
        "--file",
        "-",
        "--index",
        "searchbench-test-long-line",
        "--quiet",
    ])
    .args(["--url", node_url()])
    .arg("--failures")
    .arg(&failures);
    let feed = Box::new(|mut stdin: std::process::ChildStdin| {
        let block = vec![b'x'; 1 << 20];
        let mut left = LINE;
        while left > 0 {
            let n = left.min(block.len());
            if stdin.write_all(&block[..n]).is_err() {
                return;
            }
            left -= n;
        }
        let mut tail = String::from("\n");
        for i in 0..10 {
            tail.push_str(&format!("{{\"n\":{i}}}\n"));
        }
        let _ = stdin.write_all(tail.as_bytes());
    });
    let (status, stderr, peak_kib) = run_measured(cmd, Some(feed), Duration::from_secs(120));
    // One bad line is over the default failure limit (0): exit 3, as the README says.
    assert_eq!(status.code(), Some(3), "{stderr}");
    assert!(peak_kib < 350 << 10, "peak RSS {peak_kib} KiB");
    let records = failure_records(dir.path());
    assert_eq!(records.len(), 1, "{stderr}");
    let r = &records[0];
    assert_eq!(r["kind"], "bad_line");
    assert_eq!(r["line"], 1);
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("line of 600000000 bytes, longer than the limit of 104857600 bytes"),
        "{reason}"
    );
    eprintln!("600 MB line: peak RSS {} MiB", peak_kib >> 10);
    let count = common::runtime()
        .block_on(ingest::count(
            &common::target(),
            "searchbench-test-long-line",
        ))
        .unwrap();
    assert_eq!(count, 10);
}

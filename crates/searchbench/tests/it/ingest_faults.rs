//! Ingest under faults: 429 storms, dropped connections, stalls and item rejections injected
//! by a proxy in front of the real node; servers that answer garbage or hang.

use std::time::Duration;

use searchbench::cluster::Target;
use searchbench::corpus::Counter;
use searchbench::ingest::{self, DriverConfig, IdMode, LoadSettings, Plan};
use serde_json::json;

use crate::common::proxy::{self, Fault};
use crate::common::{self, node_url, target_at};

/// Ingests `n` counter documents, failing the test if the load hangs past `secs`.
pub(crate) async fn ingest_within(
    secs: u64,
    target: &Target,
    n: u64,
    p: Plan,
) -> ingest::IngestReport {
    tokio::time::timeout(
        Duration::from_secs(secs),
        ingest::ingest(target, Box::new(Counter { n, at: 0 }), p),
    )
    .await
    .expect("no hang")
    .expect("ingest")
}

/// A load of 200-document requests from 3 clients, with short backoffs.
pub(crate) fn plan(index: &str, dir: &std::path::Path, ids: IdMode) -> Plan {
    let mut driver = DriverConfig::new(index);
    driver.bulk_docs = 200;
    driver.clients = 3;
    driver.ids = ids;
    driver.max_retries = 6;
    driver.backoff_base = Duration::from_millis(20);
    driver.backoff_max = Duration::from_millis(200);
    Plan {
        driver,
        index_body: json!({"settings": {"number_of_shards": 1, "number_of_replicas": 0}}),
        portable_body: false,
        replace: false,
        append: false,
        load_settings: LoadSettings::default(),
        failures: dir.join("failures.ndjson"),
        engine_pids: Vec::new(),
        freshness: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_sequential_ids_nothing_is_lost_and_nothing_duplicated_under_faults() {
    let upstream = node_url();
    let proxy = proxy::start(upstream, |n| match n % 9 {
        1 => Fault::TooMany,
        3 => Fault::DropAfter,
        4 => Fault::RejectFirstItem,
        5 => Fault::DropBefore,
        7 if n < 40 => Fault::Stall(Duration::from_secs(5)),
        _ => Fault::Pass,
    })
    .await;
    // Shorter than the stall, so the client gives up and retries while the original is
    // indexed; long enough for the refresh and count after the load on the shared node, which
    // other tests keep busy.
    let target = target_at(&proxy.url, Duration::from_secs(3));
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-faults";
    let mut p = plan(index, dir.path(), IdMode::Sequential);
    // Five in nine requests fail: a request can meet seven faults in a row (1.6 % each time).
    // This test is about nothing lost or duplicated, not about giving up: retry enough.
    p.driver.max_retries = 20;
    let report = ingest_within(120, &target, 10_000, p).await;
    assert_eq!(report.error, None);
    assert!(
        proxy
            .counts
            .faults
            .load(std::sync::atomic::Ordering::Relaxed)
            >= 10
    );
    assert!(report.requests.retries >= 10, "{:?}", report.requests);
    assert!(report.counts.retried_items >= 1);
    assert_eq!(report.counts.read, 10_000);
    assert_eq!(report.counts.indexed, 10_000);
    assert_eq!(report.counts.failed, 0);
    // Counted on the node itself, not through the proxy.
    let direct = common::target();
    assert_eq!(ingest::count(&direct, index).await.unwrap(), 10_000);
    assert!(
        report.counts.reconciled,
        "{:?} {:?}",
        report.counts, report.warnings
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_429_is_counted_whether_the_request_or_one_item_got_it() {
    let proxy = proxy::start(node_url(), |n| match n % 4 {
        1 => Fault::TooMany,
        3 => Fault::RejectFirstItem,
        _ => Fault::Pass,
    })
    .await;
    let target = target_at(&proxy.url, Duration::from_secs(5));
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan("searchbench-test-429s", dir.path(), IdMode::Sequential);
    p.driver.max_retries = 20;
    p.driver.backoff_base = Duration::from_millis(1);
    p.driver.backoff_max = Duration::from_millis(5);
    let report = ingest_within(60, &target, 4000, p).await;
    assert_eq!(report.error, None);
    assert!(report.counts.reconciled, "{:?}", report.counts);
    let faults = proxy
        .counts
        .faults
        .load(std::sync::atomic::Ordering::Relaxed);
    assert!(faults >= 10, "{faults} faults");
    // One 429 a fault: a whole request answered 429, or one item of a forwarded request.
    assert_eq!(report.counts.throttled, faults, "{:?}", report.counts);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_header_is_honoured_over_a_shorter_backoff() {
    let proxy = proxy::start(node_url(), |n| {
        if n == 1 {
            Fault::TooManyRetryAfter(2)
        } else {
            Fault::Pass
        }
    })
    .await;
    let target = target_at(&proxy.url, Duration::from_secs(5));
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan(
        "searchbench-test-retry-after",
        dir.path(),
        IdMode::Sequential,
    );
    p.driver.clients = 1;
    p.driver.backoff_base = Duration::from_millis(1);
    let report = ingest_within(60, &target, 1000, p).await;
    assert_eq!(report.error, None);
    assert_eq!(report.requests.retries, 1, "{:?}", report.requests);
    assert!(report.counts.reconciled);
    // Our own backoff would have retried after ~1 ms; the server asked for 2 s.
    assert!(report.wall_secs >= 2.0, "wall {:.3} s", report.wall_secs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_used_up_put_the_documents_in_the_failure_file_and_stop() {
    let proxy = proxy::start(node_url(), |n| {
        if n >= 2 {
            Fault::TooMany
        } else {
            Fault::Pass
        }
    })
    .await;
    let target = target_at(&proxy.url, Duration::from_secs(5));
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan("searchbench-test-giveup", dir.path(), IdMode::Sequential);
    p.driver.max_retries = 2;
    p.driver.clients = 1;
    let report = ingest_within(60, &target, 5000, p).await;
    let error = report.error.clone().expect("stopped");
    assert!(error.contains("_bulk") && error.contains("429"), "{error}");
    assert_eq!(
        report.counts.read,
        report.counts.indexed + report.counts.failed
    );
    assert_eq!(report.counts.indexed, 400);
    // The request given up was answered (429, to the end): its documents are refused, not
    // unacknowledged; what was read after it was never sent, and is counted so.
    assert_eq!(report.counts.refused, 200);
    assert_eq!(report.counts.unacknowledged, 0);
    assert_eq!(report.counts.not_sent, report.counts.read - 600);
    assert!(report.counts.reconciled, "{:?}", report.counts);
    let lines = std::fs::read_to_string(dir.path().join("failures.ndjson")).unwrap();
    assert_eq!(lines.lines().count() as u64, report.counts.failed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_bulk_answer_is_a_clear_error_naming_the_request() {
    let proxy = proxy::start(node_url(), |_| Fault::Garbage).await;
    let target = target_at(&proxy.url, Duration::from_secs(5));
    let dir = tempfile::tempdir().unwrap();
    let report = tokio::time::timeout(
        Duration::from_secs(60),
        ingest::ingest(
            &target,
            Box::new(Counter { n: 1000, at: 0 }),
            plan("searchbench-test-garbage", dir.path(), IdMode::Sequential),
        ),
    )
    .await
    .expect("no hang")
    .expect("ingest");
    let error = report.error.expect("error");
    assert!(
        error.contains("POST http://") && error.contains("/searchbench-test-garbage/_bulk"),
        "{error}"
    );
    assert!(error.contains("not a bulk answer"), "{error}");
    assert_eq!(
        report.counts.read,
        report.counts.indexed + report.counts.failed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_that_never_answers_times_out_with_the_request_named() {
    let proxy = proxy::start(node_url(), |_| Fault::Hang).await;
    // Long enough for index creation on the busy shared node, short for the test.
    let target = target_at(&proxy.url, Duration::from_secs(8));
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan("searchbench-test-hang", dir.path(), IdMode::Sequential);
    p.driver.max_retries = 1;
    let report = ingest_within(60, &target, 1000, p).await;
    let error = report.error.expect("error");
    assert!(
        error.contains("_bulk") && error.contains("timeout"),
        "{error}"
    );
    assert_eq!(report.counts.indexed, 0);
    assert_eq!(report.counts.read, report.counts.failed);
}

#[test]
fn cli_against_servers_that_answer_garbage_or_hang_fails_clearly_and_quickly() {
    let garbage = common::raw_server(
        Some(b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot json!"),
        Duration::ZERO,
    );
    let hang = common::raw_server(None, Duration::from_secs(30));
    for (url, expect) in [(&garbage, "not what we expected"), (&hang, "timeout")] {
        let started = std::time::Instant::now();
        let out = common::bin()
            .args([
                "ingest",
                "logs",
                "--docs",
                "10",
                "--quiet",
                "--timeout",
                "1",
                "--url",
                url,
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&format!("GET {url}/")), "{stderr}");
        assert!(stderr.contains(expect), "{stderr}");
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}

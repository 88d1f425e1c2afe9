//! Time to searchable (issue 102): while a load runs, how soon a search sees the documents it
//! had acknowledged, on OpenSearch and Elasticsearch, at the refresh interval the load set.

use std::path::Path;
use std::time::{Duration, Instant};

use searchbench::corpus::Counter;
use searchbench::ingest::freshness::{Acked, Freshness, FreshnessSpec, Over, Probe, LAG};
use searchbench::ingest::{self, DriverConfig, IngestReport, LoadSettings, Plan};
use serde_json::{json, Value};

use crate::common::{self, bin, node_url, streams};

/// A paced load of `docs` small documents (4,000 a second, so it spans several refreshes)
/// into `index` on `url`, the index refreshed every `refresh` during the load.
fn paced_load(
    url: &str,
    index: &str,
    docs: u64,
    refresh: &str,
    bound: Option<Duration>,
    dir: &Path,
) -> IngestReport {
    let mut driver = DriverConfig::new(index);
    driver.bulk_docs = 200;
    driver.clients = 2;
    driver.rate = Some(4000.0);
    driver.warmup = Duration::ZERO;
    let plan = Plan {
        driver,
        index_body: json!({"settings": {"number_of_shards": 1, "number_of_replicas": 0}}),
        portable_body: false,
        replace: true,
        append: false,
        load_settings: LoadSettings {
            refresh_interval: Some(refresh.into()),
            ..LoadSettings::default()
        },
        failures: dir.join(format!("{index}-failures.ndjson")),
        engine_pids: Vec::new(),
        freshness: Some(FreshnessSpec {
            bound,
            ..FreshnessSpec::default()
        }),
    };
    let target = common::target_at(url, Duration::from_secs(30));
    common::runtime()
        .block_on(async {
            tokio::time::timeout(
                Duration::from_secs(120),
                ingest::ingest(&target, Box::new(Counter { n: docs, at: 0 }), plan),
            )
            .await
        })
        .expect("the load ends within 120 s")
        .expect("the load")
}

/// The load's freshness, checked whole: every acknowledged document probed, each either
/// searchable (in the lag histogram) or not within the bound.
fn probed(r: &IngestReport) -> &Freshness {
    assert_eq!(r.error, None);
    assert!(r.counts.reconciled, "{:?}", r.counts);
    let f = r.freshness.as_ref().expect("the load was probed");
    assert_eq!(
        f.docs, r.counts.indexed,
        "every acknowledged document probed"
    );
    assert_eq!(f.cut, 0, "{f:?}");
    let seen = r
        .measurements
        .histograms
        .get(LAG)
        .map_or(0, |(_, h)| h.len());
    assert_eq!(seen + f.unseen, f.docs, "{f:?}");
    // What the figures say is what the measurements say (one derivation).
    assert_eq!(Freshness::of(&r.measurements).as_ref(), Some(f));
    // Second by second: every probed document in one second of the load, numbered as the
    // timeline numbers them, each second's quantiles in order.
    let by_second: u64 = f.seconds.iter().map(|s| s.docs).sum();
    assert_eq!(by_second, f.docs, "{:?}", f.seconds);
    let unseen: u64 = f.seconds.iter().map(|s| s.unseen).sum();
    assert_eq!(unseen, f.unseen, "{:?}", f.seconds);
    let last = r.timeline.last().map_or(0, |t| t.second);
    for s in &f.seconds {
        assert!(s.second <= last + 1, "{s:?} beyond the timeline's {last}");
        assert!(
            s.p50_le_secs <= s.p99_le_secs && s.p99_le_secs <= s.max_le_secs,
            "{s:?}"
        );
    }
    f
}

#[test]
fn documents_are_searchable_about_half_a_refresh_after_acknowledgement_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    for (engine, url) in [
        ("opensearch", node_url()),
        ("elasticsearch 8", common::elasticsearch_8_url()),
    ] {
        let r = paced_load(url, "it-freshness-1s", 12_000, "1s", None, dir.path());
        let f = probed(&r);
        assert_eq!(f.unseen, 0, "{engine}: {f:?}");
        assert_eq!(f.bound_secs, 10.0, "{engine}: the default bound at 1 s");
        let (p50, max) = (f.p50_secs.unwrap(), f.max_secs.unwrap());
        // Acknowledged evenly over 3 s, refreshed each second: lags spread over a second,
        // half of them under about half of it (plus the refresh's own time).
        assert!((0.15..=1.5).contains(&p50), "{engine}: p50 {p50} s: {f:?}");
        assert!(max <= 4.0, "{engine}: max {max} s: {f:?}");
        assert!(f.line().starts_with("searchable after p50"), "{}", f.line());
    }
    // A longer interval: later, by about half the interval.
    let one = paced_load(
        node_url(),
        "it-freshness-1s",
        12_000,
        "1s",
        None,
        dir.path(),
    );
    let five = paced_load(
        node_url(),
        "it-freshness-5s",
        12_000,
        "5s",
        None,
        dir.path(),
    );
    let (p1, p5) = (
        probed(&one).p50_secs.unwrap(),
        probed(&five).p50_secs.unwrap(),
    );
    assert_eq!(probed(&five).bound_secs, 15.0);
    assert!(p5 > 1.0 && p5 > p1 + 0.5, "p50 at 5 s {p5}, at 1 s {p1}");
}

/// The probe asks the count only when a refresh may have shown something new: beside one that
/// asks every 50 ms on the same load, it finds the same lags with a fraction of the counts.
#[test]
fn asking_only_when_a_refresh_is_due_finds_the_lags_asking_always_finds() {
    let index = "it-freshness-due";
    let target = common::target();
    common::fresh_index(
        index,
        Some(br#"{"settings": {"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "1s"}}"#),
    );
    let (due, eager) = common::runtime().block_on(async {
        let acked = Acked::default();
        let start = |eager: bool| {
            let spec = FreshnessSpec {
                eager,
                ..FreshnessSpec::default()
            };
            Probe::start(&target, index, acked.clone(), spec)
        };
        let (due, eager) = (start(false).await.unwrap(), start(true).await.unwrap());
        // 40 documents every 50 ms for 4 s, each bulk counted once answered.
        let mut n = 0u64;
        for _ in 0..80 {
            let body: String = (0..40)
                .map(|_| {
                    n += 1;
                    format!("{{\"index\":{{}}}}\n{{\"n\":{n}}}\n")
                })
                .collect();
            let reply = target
                .send(
                    reqwest::Method::POST,
                    &format!("/{index}/_bulk"),
                    Some(("application/x-ndjson", body.into_bytes())),
                )
                .await
                .expect("bulk");
            assert!(!String::from_utf8_lossy(&reply.body).contains("\"errors\":true"));
            acked.fetch_add(40, std::sync::atomic::Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let within = |p: Probe| async move {
            tokio::time::timeout(Duration::from_secs(30), p.finish(Over::Loaded, None))
                .await
                .expect("the probe ends within its bound")
                .expect("the probe")
        };
        (within(due).await, within(eager).await)
    });
    let (due, eager) = (Freshness::of(&due).unwrap(), Freshness::of(&eager).unwrap());
    assert_eq!((due.docs, eager.docs), (3200, 3200));
    assert_eq!((due.unseen, eager.unseen), (0, 0));
    for (a, b, what) in [
        (due.p50_secs, eager.p50_secs, "p50"),
        (due.p90_secs, eager.p90_secs, "p90"),
        (due.max_secs, eager.max_secs, "max"),
    ] {
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!(
            (a - b).abs() <= 0.12,
            "{what}: when due {a} s, always {b} s"
        );
    }
    assert!(
        eager.counts_asked >= 3 * due.counts_asked,
        "asked {} counts when due, {} always",
        due.counts_asked,
        eager.counts_asked
    );
}

#[test]
fn a_load_with_refresh_off_is_never_searchable_within_the_bound_never_a_number() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let r = paced_load(
        node_url(),
        "it-freshness-off",
        4_000,
        "-1",
        Some(Duration::from_secs(2)),
        dir.path(),
    );
    let f = probed(&r);
    assert_eq!(f.unseen, f.docs, "{f:?}");
    assert_eq!((f.p50_secs, f.p99_secs, f.max_secs), (None, None, None));
    assert!(
        f.line().starts_with("never searchable within 2 s"),
        "{}",
        f.line()
    );
    // It waited the bound after the last document, no longer (the load is about a second).
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    // The refresh at the end still makes every document count.
    assert_eq!(r.counts.index_count, Some(4_000));
}

/// The id of the newest run in `store`.
fn newest(store: &Path) -> String {
    let db = searchbench::store::Store::open_read(store).unwrap();
    let rows = db.list(&searchbench::store::Filter::default()).unwrap();
    rows.first().expect("a stored run").id.0.clone()
}

/// The CLI says it under the headline, stores it, and `compare` judges it; `--no-freshness`
/// leaves it out.
#[test]
fn the_cli_says_how_soon_documents_were_searchable_and_compare_judges_it() {
    let store = common::scratch_store();
    let ingest = |extra: &[&str]| -> (String, Value) {
        let out = bin()
            .args(["ingest", "logs", "--url", node_url(), "--docs", "8000"])
            .args(["--index", "it-freshness-cli", "--replace", "--warmup", "0"])
            .args(["--rate", "4000", "--refresh-interval", "1s", "--store"])
            .arg(&store)
            .args(extra)
            .output()
            .expect("searchbench ingest");
        assert!(out.status.success(), "{}", streams(&out));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        (text, json)
    };
    let (text, _) = ingest(&[]);
    assert!(text.contains("\nsearchable after p50 "), "{text}");
    let runs: Vec<String> = (0..2)
        .map(|_| {
            let (_, v) = ingest(&["--json", "-q"]);
            let f = &v["freshness"];
            assert!(f["p50_secs"].as_f64().is_some(), "{v}");
            assert_eq!(f["unseen"], 0, "{f}");
            newest(&store)
        })
        .collect();
    let compared: Value = serde_json::from_slice(
        &bin()
            .args(["compare", &runs[0], &runs[1], "--json", "--store"])
            .arg(&store)
            .output()
            .expect("compare")
            .stdout,
    )
    .expect("compare's JSON");
    let rows = compared["rows"].as_array().expect("rows");
    for key in ["searchable_p50_s", "searchable_p99_s", "not_searchable_pct"] {
        let row = rows
            .iter()
            .find(|r| r["key"] == key)
            .unwrap_or_else(|| panic!("{key} not compared: {compared}"));
        assert_eq!(row["direction"], "lower_better", "{row}");
    }

    let (_, off) = ingest(&["--json", "-q", "--no-freshness"]);
    assert!(off.get("freshness").is_none(), "{off}");
}

/// Ctrl-C while the load's last documents are waited for (refresh off, a long bound) ends the
/// wait at once: the documents still waiting are said as such, none as unseen.
#[test]
fn ctrl_c_while_the_last_documents_are_waited_for_ends_the_wait() {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result.json");
    let mut child = bin()
        .args(["ingest", "logs", "--url", node_url(), "--docs", "3000"])
        .args([
            "--index",
            "it-freshness-ctrl-c",
            "--replace",
            "--warmup",
            "0",
            "-q",
        ])
        .args([
            "--refresh-interval=-1",
            "--freshness-bound",
            "10m",
            "--no-store",
        ])
        .arg("--json")
        .arg(&result)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("searchbench ingest");
    // The load is over once the engine has indexed every document (none is searchable).
    let target = common::target();
    let waiting = Instant::now();
    loop {
        let stats: Option<Value> = common::runtime()
            .block_on(target.get_json("/it-freshness-ctrl-c/_stats/indexing"))
            .ok();
        let indexed = stats
            .and_then(|s| s["_all"]["primaries"]["indexing"]["index_total"].as_u64())
            .unwrap_or(0);
        if indexed >= 3000 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "ended before the wait");
        assert!(
            waiting.elapsed() < Duration::from_secs(60),
            "nothing indexed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    let status = common::interrupt_and_wait(&mut child, Duration::from_secs(20));
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "{:?} after Ctrl-C",
        sent.elapsed()
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let f = &r["freshness"];
    assert_eq!(f["docs"], 3000, "{f} (exit {status:?})");
    assert_eq!(f["cut"], 3000, "{f}");
    assert_eq!(f["unseen"], 0, "{f}");
    assert_eq!(r["counts"]["indexed"], 3000);
}

//! The many-shards and snapshots scenarios on a real node at small sizes, and searches beside
//! a load (`--search-clients`): counts exact, figures present, what we made removed, what
//! someone else made untouched, bad flags refused.

use reqwest::Method;
use serde_json::Value;

use crate::common::{self, bin, node_url};

fn json_of(out: &std::process::Output) -> Value {
    let stdout = common::succeeded(out);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `GET path` on the shared node: status and JSON body (Null when not JSON).
fn get(path: &str) -> (u16, Value) {
    let t = common::target();
    common::runtime().block_on(async {
        let r = t
            .client()
            .get(t.endpoint(0, path))
            .send()
            .await
            .expect("node answers");
        let status = r.status().as_u16();
        let body = r.bytes().await.expect("body");
        (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
    })
}

/// An index of someone else's, with one document: the scenarios must leave it alone.
fn someone_elses_index(name: &str) {
    common::fresh_index(name, Some(b"{}"));
    let t = common::target();
    common::runtime().block_on(async {
        t.send(
            Method::PUT,
            &format!("/{name}/_doc/1?refresh=true"),
            Some(("application/json", br#"{"mine":true}"#.to_vec())),
        )
        .await
        .expect("index a document");
    });
}

fn ours_left(prefix: &str) -> usize {
    let (_, rows) = get(&format!("/_cat/indices/{prefix}*?format=json"));
    rows.as_array().map_or(0, Vec::len)
}

fn assert_untouched(name: &str) {
    let (status, count) = get(&format!("/{name}/_count"));
    assert_eq!(status, 200, "{name} is gone");
    assert_eq!(count["count"], 1, "{name} changed: {count}");
}

/// The report page of the only run in `store` draws its scenario's `titles`, each with data
/// visible in a browser.
fn scenario_charts_drawn(store: &std::path::Path, titles: &[&str]) {
    let db = searchbench::store::Store::open(store).unwrap();
    let runs = db.list(&searchbench::store::Filter::default()).unwrap();
    assert_eq!(runs.len(), 1, "one run stored");
    let groups = searchbench::report::load(&db, &[runs[0].id.0.clone()], false).unwrap();
    let page = store.with_extension("html");
    searchbench::report::write_html(&groups, &page).unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    for t in titles {
        assert!(html.contains(&format!("<h3>{t}</h3>")), "no chart {t}");
    }
    common::browser::assert_charts_drawn(&page, titles.len(), false);
}

#[test]
fn many_shards_creates_fills_measures_and_cleans_up() {
    let other = "searchbench-shards-not-ours";
    someone_elses_index(other);
    let store = common::scratch_store();
    let out = bin()
        .env("SEARCHBENCH_STORE", &store)
        .args(["run", "many-shards", "--url", node_url(), "--indices", "30"])
        .args([
            "--docs-per-index",
            "20",
            "--docs",
            "5000",
            "--search-clients",
            "2",
        ])
        .args([
            "--field-caps-requests",
            "10",
            "--warmup",
            "0",
            "--json",
            "-",
            // Honoured by the scenario as by every run (issue 77): nothing sampled or kept.
            "--no-telemetry",
        ])
        .output()
        .expect("run");
    let r = json_of(&out);
    assert!(
        r["indexing"]["telemetry"].is_null(),
        "{}",
        r["indexing"]["telemetry"]
    );
    {
        let db = searchbench::store::Store::open(&store).unwrap();
        let runs = db.list(&searchbench::store::Filter::default()).unwrap();
        assert_eq!(runs.len(), 1);
        assert!(
            db.telemetry(&runs[0].id).unwrap().is_empty(),
            "telemetry sampled"
        );
    }
    let c = &r["counts"];
    assert_eq!(c["found_indices"], 30, "{c}");
    assert_eq!(c["complete_indices"], 30, "{c}");
    assert_eq!(c["docs"], 600, "{c}");
    assert_eq!(c["reconciled"], true);
    let creation = &r["creation"];
    assert_eq!(creation["indices_created"], 30);
    assert_eq!(creation["errors"], 0);
    assert!(creation["indices_per_sec"].as_f64().unwrap_or(0.0) > 0.0);
    assert!(!creation["cluster_state"]
        .as_array()
        .expect("samples")
        .is_empty());
    let ix = &r["indexing"];
    assert_eq!(ix["counts"]["indexed"], 5000);
    assert_eq!(ix["counts"]["reconciled"], true);
    assert_eq!(ix["config"]["bulk_docs"], 1000);
    let beside = &ix["searches_beside"];
    assert_eq!(beside["clients"], 2);
    assert!(beside["requests"].as_u64().unwrap_or(0) > 0, "{beside}");
    assert_eq!(r["field_caps"]["requests"], 10);
    assert_eq!(r["field_caps"]["errors"], 0);
    assert!(r["field_caps"]["p50_ms"].as_f64().unwrap_or(0.0) > 0.0);
    // The one reader of a stored scenario (its metrics, its parts' merge) reads what it wrote.
    let stored: searchbench::workload::scenario_result::StoredScenario =
        serde_json::from_value(r.clone()).expect("a stored scenario");
    assert_eq!(stored.scenario.as_deref(), Some("many-shards"));
    assert_eq!(stored.started_unix_ms, r["started_unix_ms"].as_u64());
    assert_eq!(Some(stored.wall_secs), r["wall_secs"].as_f64());
    assert!(stored.wall_secs > 0.0 && !stored.interrupted);
    assert_eq!(stored.creation.map(|c| c.indices_created), Some(30));
    let load = stored.indexing.expect("its logs load");
    assert_eq!(load.counts.indexed, 5000);
    assert_eq!(load.searches_beside.map(|b| b.clients), Some(2));
    assert_eq!(stored.field_caps.map(|f| f.requests), Some(10));
    // 30 auditbeat indices and the logs index, every one deleted.
    assert_eq!(r["cleanup"]["indices_deleted"], 31);
    let prefix = r["prefix"].as_str().expect("prefix");
    assert!(prefix.starts_with("searchbench-shards-"));
    assert_eq!(ours_left(prefix), 0);
    assert_untouched(other);
    let metrics = searchbench::analysis::metrics::extract(&r, &[]);
    for key in [
        "creation.indices_per_sec",
        "indexing.docs_per_sec",
        "field_caps.p99_ms",
        "beside.latency_p99_ms",
    ] {
        assert!(metrics.iter().any(|m| m.key == key), "no {key}");
    }
    common::fresh_index(other, None);
    scenario_charts_drawn(
        &store,
        &[
            "Index creation rate over time (indices created and filled per second)",
            "Cluster state size as indices are added",
        ],
    );
}

#[test]
fn snapshots_all_succeed_and_are_removed_with_their_repository() {
    let other = "searchbench-snapshots-not-ours";
    someone_elses_index(other);
    let store = common::scratch_store();
    let url = node_url();
    // The snapshots phase profiled too (the node's pid: a cluster given by URL).
    let pid = common::node_pid()
        .expect("the shared node's pid")
        .to_string();
    let out = bin()
        .env("SEARCHBENCH_STORE", &store)
        .args(["run", "snapshots", "--url", url, "--indices", "50"])
        .args(["--docs-per-index", "10", "--snapshots", "5", "--json", "-"])
        .args(["--profile-pid", &pid])
        .output()
        .expect("run");
    let r = json_of(&out);
    let p = &r["profile"];
    assert_eq!(
        p["pids"][0].as_u64().map(|p| p.to_string()),
        Some(pid),
        "{p}"
    );
    assert!(p["cpu_samples"].as_u64().is_some(), "{p}");
    assert_eq!(r["counts"]["found_indices"], 50);
    assert_eq!(r["counts"]["complete_indices"], 50);
    assert_eq!(r["counts"]["docs"], 500);
    let s = &r["snapshots"];
    assert_eq!(s["requested"], 5);
    assert_eq!(s["states"]["SUCCESS"], 5, "{s}");
    assert_eq!(s["failures"], 0);
    assert_eq!(s["error_rate"], 0.0);
    assert_eq!(s["create"]["requests"], 5);
    assert!(s["create"]["mean_ms"].as_f64().unwrap_or(0.0) > 0.0);
    assert!(s["total_secs"].as_f64().unwrap_or(0.0) >= s["wait_secs"].as_f64().unwrap_or(-1.0));
    assert!(s["gc_ms_since_start"].is_u64(), "{s}");
    assert_eq!(s["registered"], true);
    assert_eq!(r["cleanup"]["snapshots_deleted"], 5);
    assert_eq!(r["cleanup"]["indices_deleted"], 50);
    assert_eq!(r["cleanup"]["repository_removed"], true);
    let repo = s["repository"].as_str().expect("repository");
    assert_eq!(get(&format!("/_snapshot/{repo}")).0, 404);
    assert_eq!(ours_left(r["prefix"].as_str().expect("prefix")), 0);
    assert_untouched(other);
    let metrics = searchbench::analysis::metrics::extract(&r, &[]);
    for key in [
        "snapshots.create_mean_ms",
        "snapshots.wait_secs",
        "snapshots.failures",
    ] {
        assert!(metrics.iter().any(|m| m.key == key), "no {key}");
    }
    common::fresh_index(other, None);
    scenario_charts_drawn(&store, &["Snapshot timings"]);
}

#[test]
fn search_clients_report_query_latency_beside_the_docs_per_sec() {
    let index = "searchbench-beside-logs";
    let out = bin()
        .args(["ingest", "logs", "--url", node_url(), "--index", index])
        .args(["--docs", "20000", "--search-clients", "2", "--warmup", "0"])
        .args(["--json", "-"])
        .output()
        .expect("ingest");
    let r = json_of(&out);
    assert_eq!(r["counts"]["reconciled"], true);
    assert!(r["docs_per_sec"].as_f64().unwrap_or(0.0) > 0.0);
    let b = &r["searches_beside"];
    assert_eq!(b["clients"], 2);
    assert!(b["requests"].as_u64().unwrap_or(0) > 0, "{b}");
    assert_eq!(b["errors"], 0, "{b}");
    assert!(b["latency"]["p50_us"].as_u64().unwrap_or(0) > 0);
    assert!(
        b["latency"]["p99_us"].as_u64().unwrap_or(0)
            >= b["latency"]["p50_us"].as_u64().unwrap_or(0)
    );
    assert!(b["note"].as_str().unwrap_or("").contains("not checked"));
    assert_eq!(r["config"]["clients"], 2);
    // The searches ran in one step with the load, which is watched as the load: its
    // telemetry is the load's.
    assert!(
        r["telemetry"]["samples"].as_u64().is_some(),
        "{}",
        r["telemetry"]
    );
    common::fresh_index(index, None);
}

#[test]
fn bad_scenario_flags_exit_2() {
    let url = node_url();
    let cases: &[&[&str]] = &[
        &["run", "many-shards", "--url", url, "--snapshots", "3"],
        &["run", "snapshots", "--url", url, "--search-clients", "2"],
        &["run", "snapshots", "--url", url, "--indices", "0"],
        &["run", "logs", "--url", url, "--indices", "5"],
        &[
            "run",
            "many-shards",
            "--url",
            url,
            "--index",
            "searchbench-x",
        ],
        &["run", "many-shards", "--url", url, "--search-clients", "0"],
        &[
            "ingest",
            "transactions",
            "--url",
            url,
            "--docs",
            "10",
            "--search-clients",
            "2",
        ],
        &[
            "run",
            "snapshots",
            "--url",
            url,
            "--indices",
            "2",
            "--repository",
            "no-such-repo",
        ],
    ];
    for args in cases {
        let out = bin().args(*args).output().expect("run");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            common::streams(&out)
        );
    }
}

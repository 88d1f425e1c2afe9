//! Bookkeeping: a query run names its engine, an imported run its workload (by name alone,
//! so `--workload` finds it, old rows too), a workload without queries says so, and a run
//! that never finished is titled with the engine it started with.

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use searchbench::store::{Kind, NewRun, Store};

use crate::common::{bin, fresh_index, node_url, scratch_store, streams};

fn ok(out: Output) -> Output {
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    out
}

fn list(db: &Path, extra: &[&str]) -> Vec<Value> {
    let out = ok(bin()
        .env("SEARCHBENCH_STORE", db)
        .args(["results", "list", "--json"])
        .args(extra)
        .output()
        .expect("run"));
    serde_json::from_slice::<Value>(&out.stdout)
        .expect("JSON")
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_query_run_stores_the_engine_that_answered() {
    let db = scratch_store();
    let index = "manners-query-engine";
    fresh_index(index, None);
    ok(bin()
        .env("SEARCHBENCH_STORE", &db)
        .args(["query", "cluster-metrics", "--url", node_url(), "--load"])
        .args(["--index", index, "--rows-per-epoch", "600", "--epochs", "1"])
        .args([
            "--passes",
            "1",
            "--no-warmup",
            "--variants",
            "A",
            "--transports",
            "serial",
        ])
        .output()
        .expect("run"));
    let runs = list(&db, &["--engine", "opensearch"]);
    assert_eq!(runs.len(), 1, "{runs:?}");
    let engine = runs[0]["engine"].as_str().unwrap_or_default();
    let expected = crate::common::test_engine();
    let product = expected.split('-').next().unwrap_or_default();
    assert!(engine.starts_with(&format!("{product}-")), "{engine:?}");
    fresh_index(index, None);
}

#[test]
fn an_imported_run_is_found_by_its_workload_name() {
    let db = scratch_store();
    let dir = tempfile::tempdir().expect("temp dir");
    let json_file = dir.path().join("t.json");
    ok(bin()
        .args([
            "ingest",
            "transactions",
            "--url",
            node_url(),
            "--docs",
            "300",
        ])
        .args([
            "--index",
            "manners-import",
            "--warmup",
            "0",
            "--no-store",
            "--quiet",
        ])
        .arg("--json")
        .arg(&json_file)
        .output()
        .expect("run"));
    let result: Value =
        serde_json::from_slice(&std::fs::read(&json_file).expect("the JSON")).expect("JSON");
    assert!(
        result["corpus"]
            .as_str()
            .is_some_and(|c| c.starts_with("transactions (seed 1")),
        "{}",
        result["corpus"]
    );
    ok(bin()
        .env("SEARCHBENCH_STORE", &db)
        .args(["results", "import"])
        .arg(&json_file)
        .output()
        .expect("run"));
    let runs = list(&db, &["--workload", "transactions"]);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["workload"], "transactions");
    assert_eq!(runs[0]["seed"], 1);

    // A row stored the old way (the corpus description as its workload) reads by name too.
    let store = Store::open(&db).expect("store");
    let old = NewRun::new(Kind::Ingest, "transactions (seed 2, 100 rows)", json!({}));
    store.save(&old, &result).expect("save");
    let runs = list(&db, &["--workload", "transactions"]);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(
        runs.iter().all(|r| r["workload"] == "transactions"),
        "{runs:?}"
    );
    fresh_index("manners-import", None);
}

#[test]
fn a_workload_without_queries_says_so() {
    let out = ok(bin()
        .args(["run", "transactions", "--url", node_url(), "--docs", "300"])
        .args(["--index", "manners-run-tx", "--warmup", "0", "--no-store"])
        .output()
        .expect("run"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the transactions workload has no query phase"),
        "{}",
        streams(&out)
    );
    assert!(!stderr.contains("querying"), "{}", streams(&out));
    fresh_index("manners-run-tx", None);
}

/// The title of the HTML report of run `id`.
fn report_title(db: &Path, id: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("r.html");
    ok(bin()
        .env("SEARCHBENCH_STORE", db)
        .args(["report", id, "--html"])
        .arg(&html)
        .output()
        .expect("run"));
    let page = std::fs::read_to_string(&html).expect("the page");
    let start = page.find("<title>").expect("a title") + "<title>".len();
    let end = page[start..].find("</title>").expect("end of title") + start;
    page[start..end].to_string()
}

#[test]
fn a_run_that_never_finished_is_titled_with_its_engine_or_says_it_is_unknown() {
    let db = scratch_store();
    let store = Store::open(&db).expect("store");
    // Killed before its result named the engine: the record of its start still does
    // (runs started before the engine column was filled at the start have it in the config).
    let started = NewRun::new(
        Kind::Run,
        "logs",
        json!({"engine": "opensearch-2.19.1", "urls": []}),
    );
    let with_engine = store.begin_run(&started).expect("begin");
    let given = NewRun::new(
        Kind::Run,
        "logs",
        json!({"engine": null, "urls": ["http://x"]}),
    );
    let unknown = store.begin_run(&given).expect("begin");
    drop(store);
    let title = report_title(&db, &with_engine.0);
    assert!(title.contains("run logs on opensearch-2.19.1"), "{title}");
    let title = report_title(&db, &unknown.0);
    assert!(title.contains("run logs on engine unknown"), "{title}");
    assert!(!title.contains('?'), "{title}");
}

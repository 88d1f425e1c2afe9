//! Runs stored by an earlier release stay readable: their metric keys are the ones they were
//! stored with, they show and render, and they compare with runs made now.
//!
//! `tests/fixtures/store-0100004.db` was written by the release at commit 0100004 (before the
//! query side moved into the workloads) against opensearch-2.19.1:
//!
//! * `28273fc6` `run logs --docs 3000` (ingest, then the logs query phase);
//! * `83346b53` `query cluster-metrics --epochs 2 --rows-per-epoch 2000 --load --passes 2`
//!   (failed: partitions of ~70 rows put percentiles beyond their bounds);
//! * `a99edf40` the same with `--rows-per-epoch 20000` on index `searchbench-cm2` (complete);
//! * `e1467e7e` `query --queries store-0100004-queries.json --index searchbench-logs --passes 2`;
//! * `edf19d92` `run transactions --docs 2000`.
//!
//! `store-0100004.keys` holds the metric keys each run gave when it was stored (as `compare`
//! read them then); renamed since, each is an alias of today's key. Set `SEARCHBENCH_BLESS=1`
//! to rewrite it, only ever for a new fixture.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, bin, succeeded};

const RUNS: [&str; 5] = ["28273fc6", "83346b53", "a99edf40", "e1467e7e", "edf19d92"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A copy of the old store (tests write fresh runs into it, never into the fixture).
fn old_store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("results.db");
    std::fs::copy(fixtures().join("store-0100004.db"), &db).expect("copy the fixture");
    (dir, db)
}

fn compare(db: &Path, base: &str, contender: &str) -> Value {
    let out = bin()
        .args(["compare", base, contender, "--json"])
        .env("SEARCHBENCH_STORE", db)
        .output()
        .expect("run compare");
    serde_json::from_str(&succeeded(&out)).expect("compare --json")
}

fn keys(comparison: &Value) -> Vec<String> {
    comparison["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["key"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn old_runs_keep_their_metric_keys_and_render() {
    let (dir, db) = old_store();
    let mut now: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for id in RUNS {
        let out = bin()
            .args(["results", "show", id])
            .env("SEARCHBENCH_STORE", &db)
            .output()
            .expect("show");
        succeeded(&out);
        now.insert(id.to_string(), keys(&compare(&db, id, id)));
    }
    let golden = fixtures().join("store-0100004.keys");
    if std::env::var_os("SEARCHBENCH_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&now).expect("json");
        std::fs::write(&golden, text + "\n").expect("write the keys");
    }
    let then: BTreeMap<String, Vec<String>> =
        serde_json::from_str(&std::fs::read_to_string(&golden).expect("the keys file"))
            .expect("keys json");
    // The keys an old release gave, by the names that replaced them (a key with spaces, or
    // an old name, is an alias of today's key), are the keys the runs give now.
    let aliased = |keys: &Vec<String>| -> Vec<String> {
        keys.iter()
            .map(|k| searchbench::analysis::metrics::canonical(k))
            .collect()
    };
    for id in RUNS {
        assert_eq!(
            now.get(id),
            then.get(id).map(aliased).as_ref(),
            "metric keys of stored run {id}"
        );
    }
    assert!(
        now.values().flatten().all(|k| !k.contains(' ')),
        "a key with a space"
    );
    // The query runs carry the cell and accuracy keys a CI gate compares on.
    let cm = &now["a99edf40"];
    for key in [
        "query.D_td.serial.took_ms",
        "query.A.msearch.wall_ms",
        "accuracy.C_hdr.pct_max_err",
        "accuracy.D_td.wrong",
    ] {
        assert!(cm.iter().any(|k| k == key), "{key} in {cm:?}");
    }
    assert!(now["28273fc6"]
        .iter()
        .any(|k| k == "query.range_terms_s10.serial.took_ms"));
    assert!(now["e1467e7e"]
        .iter()
        .any(|k| k == "query.all_docs.serial.took_ms"));

    // Every old run renders in one report, its accuracy tables included (runs of several
    // kinds: compared only when told).
    let html = dir.path().join("old.html");
    let mut args = vec!["report", "--allow-mixed"];
    args.extend(RUNS);
    let out = bin()
        .args(&args)
        .arg("--html")
        .arg(&html)
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .expect("report");
    succeeded(&out);
    let page = std::fs::read_to_string(&html).expect("the report");
    assert!(page.contains("wrong newest hits"), "logs accuracy table");
    assert!(
        page.contains("largest pct error"),
        "cluster-metrics accuracy table"
    );
}

/// The row of `key` in a comparison: its base and first contender's values.
fn both(comparison: &Value, key: &str) -> (Option<f64>, Option<f64>) {
    let row = comparison["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["key"] == key);
    (
        row.and_then(|r| r["base"].as_f64()),
        row.and_then(|r| r["contenders"][0]["value"].as_f64()),
    )
}

/// Asserts every key of `keys` has a value on both sides of `comparison`.
fn in_both(comparison: &Value, keys: &[&str]) {
    for key in keys {
        let (old, now) = both(comparison, key);
        assert!(old.is_some() && now.is_some(), "{key}: {old:?} vs {now:?}");
    }
}

/// The id of the one run in `db` not in `seen` (the run the test just made); it joins `seen`.
fn newest(db: &Path, seen: &mut Vec<String>) -> String {
    let out = bin()
        .args(["results", "list", "--json"])
        .env("SEARCHBENCH_STORE", db)
        .output()
        .expect("list");
    let runs: Value = serde_json::from_str(&succeeded(&out)).expect("list --json");
    let ids: Vec<&str> = runs
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["id"].as_str())
        .filter(|id| !seen.iter().any(|s| s == id))
        .collect();
    assert_eq!(ids.len(), 1, "one new run: {runs}");
    seen.push(ids[0].to_string());
    ids[0].to_string()
}

#[test]
fn old_runs_compare_with_runs_made_now() {
    let url = common::node_url();
    let (_dir, db) = old_store();
    let mut seen: Vec<String> = RUNS.iter().map(|s| s.to_string()).collect();
    let store = |cmd: &mut std::process::Command| {
        cmd.env("SEARCHBENCH_STORE", &db);
    };

    // cluster-metrics, as a99edf40 was made.
    common::fresh_index("store-compat-cm", None);
    let mut cmd = bin();
    store(&mut cmd);
    let out = cmd
        .args(["query", "cluster-metrics", "--url", url])
        .args(["--index", "store-compat-cm", "--epochs", "2"])
        .args(["--rows-per-epoch", "20000", "--load", "--passes", "2"])
        .output()
        .expect("query");
    succeeded(&out);
    let new = newest(&db, &mut seen);
    // The same flags give the same configuration as before (runs group across releases).
    let config = |id: &str| {
        let out = bin()
            .args(["results", "show", id, "--json"])
            .env("SEARCHBENCH_STORE", &db)
            .output()
            .expect("show");
        let shown: Value = serde_json::from_str(&succeeded(&out)).expect("show --json");
        shown["config"].clone()
    };
    let (then, now) = (config("a99edf40"), config(&new));
    for key in [
        "workload",
        "variants",
        "transports",
        "docs",
        "seed",
        "passes",
        "rate",
    ] {
        assert_eq!(then[key], now[key], "config.{key}");
    }
    let c = compare(&db, "a99edf40", &new);
    in_both(
        &c,
        &[
            "query.D_td.serial.took_ms",
            "query.C_hdr.msearch.wall_ms",
            "accuracy.D_td.pct_max_err",
            "accuracy.B.wrong",
            "errors.query.wrong_answers",
        ],
    );
    assert_eq!(
        both(&c, "errors.query.wrong_answers"),
        (Some(0.0), Some(0.0))
    );

    // logs, then the queries file on its index, as 28273fc6 and e1467e7e were made.
    common::fresh_index("store-compat-logs", None);
    let mut cmd = bin();
    store(&mut cmd);
    let out = cmd
        .args(["run", "logs", "--docs", "3000", "--url", url])
        .args(["--index", "store-compat-logs"])
        .output()
        .expect("run logs");
    succeeded(&out);
    let new = newest(&db, &mut seen);
    // The driver's settings read the same from the old store as a run made now writes them:
    // seconds under `_secs` keys, `null` for no byte limit, never `{"secs","nanos"}` nor
    // usize::MAX. History groups by them, so an old and a new run differ only where the flags
    // did (here the index and the node).
    let (then, now) = (config("28273fc6"), config(&new));
    for key in [
        "bulk_bytes",
        "backoff_base_secs",
        "backoff_max_secs",
        "bulk_docs",
    ] {
        assert_eq!(then[key], now[key], "config.{key}");
    }
    assert_eq!(now["bulk_bytes"], Value::Null);
    assert_eq!(now["backoff_base_secs"], serde_json::json!(0.1));
    for shown in [&then, &now] {
        let text = shown.to_string();
        assert!(
            !text.contains("nanos") && !text.contains(&u64::MAX.to_string()),
            "{text}"
        );
    }
    let out = bin()
        .args(["history", "--workload", "logs"])
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .expect("history");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 configurations"), "{err}");
    assert!(err.contains("index: "), "{err}");
    assert!(
        !err.contains("backoff") && !err.contains("bulk_bytes"),
        "{err}"
    );
    let c = compare(&db, "28273fc6", &new);
    in_both(
        &c,
        &[
            "docs_per_sec",
            "query.histogram_s10.serial.took_ms",
            "accuracy.top_hosts_s0.wrong",
        ],
    );
    // The old run read its queries from shops.json, and a queries file's name is its
    // workload's: the same file under that name, so both sides are one workload.
    let queries_dir = tempfile::tempdir().expect("a folder");
    let shops = queries_dir.path().join("shops.json");
    std::fs::copy(fixtures().join("store-0100004-queries.json"), &shops).expect("copy");
    let mut cmd = bin();
    store(&mut cmd);
    let out = cmd
        .args(["query", "--queries"])
        .arg(&shops)
        .args([
            "--index",
            "store-compat-logs",
            "--url",
            url,
            "--passes",
            "2",
        ])
        .output()
        .expect("query --queries");
    succeeded(&out);
    let new = newest(&db, &mut seen);
    let c = compare(&db, "e1467e7e", &new);
    in_both(
        &c,
        &[
            "query.all_docs.serial.took_ms",
            "query.errors_per_slice.serial.wall_ms",
            "accuracy.all_docs.wrong",
        ],
    );
}

//! `searchbench check`: the exit codes a CI pipeline and `git bisect run` rely on, on stored
//! synthetic results: 0 pass, 1 regressed (or errors rose), 125 cannot tell, 2 bad usage.

use std::path::Path;

use crate::common::results::{ingest_result, save};
use crate::common::{bin, scratch_store, streams};
use searchbench::store::Store;
use serde_json::Value;

/// Three complete baseline runs at about 20 000 docs/s and 20 ms service time.
fn store_with_baseline() -> (std::path::PathBuf, Store) {
    let path = scratch_store();
    let store = Store::open(&path).unwrap();
    for seed in 1..=3 {
        save(
            &store,
            &ingest_result(40, 20_000.0, 0.05, 20.0, seed),
            &[("build", "base")],
        );
    }
    (path, store)
}

fn check(store: &Path, args: &[&str]) -> std::process::Output {
    bin()
        .arg("check")
        .args(args)
        .arg("--store")
        .arg(store)
        .output()
        .unwrap()
}

#[test]
fn the_same_figures_pass_and_a_slower_run_fails() {
    let (path, store) = store_with_baseline();
    let same = save(&store, &ingest_result(40, 20_000.0, 0.05, 20.0, 7), &[]);
    let out = check(
        &path,
        &[
            "--last",
            "3",
            "--metric",
            "docs_per_sec",
            "--threshold",
            "5%",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&same) && text.contains("PASS"), "{text}");
    assert!(text.contains("prediction interval"), "{text}");

    // A named run against a named run: within-run intervals.
    let base_id = store
        .select("build=base")
        .unwrap()
        .first()
        .unwrap()
        .id
        .0
        .clone();
    let out = check(
        &path,
        &[&same, "--baseline", &base_id, "--metric", "service_mean_ms"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));

    // 25 % slower, with longer service times: the newest run regresses.
    let slow = save(&store, &ingest_result(40, 15_000.0, 0.05, 28.0, 8), &[]);
    let out = check(
        &path,
        &[
            "--baseline",
            "build=base",
            "--metric",
            "docs_per_sec",
            "--metric",
            "service_mean_ms",
            "--markdown",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", streams(&out));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("❌ regression") && md.contains(&slow), "{md}");
    assert!(
        md.contains("| throughput (headline) |") && md.contains("REGRESSED"),
        "{md}"
    );
    // A change smaller than the threshold passes, significant or not.
    let out = check(
        &path,
        &[
            "--baseline",
            "build=base",
            "--metric",
            "docs_per_sec",
            "--threshold",
            "40%",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
}

#[test]
fn more_errors_fail_the_check_even_when_throughput_improved() {
    let (path, store) = store_with_baseline();
    let mut faster = ingest_result(40, 26_000.0, 0.05, 15.0, 9);
    faster["counts"]["refused"] = Value::from(120);
    let id = save(&store, &faster, &[]);
    let out = check(
        &path,
        &["--last", "3", "--metric", "docs_per_sec", "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", streams(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["outcome"], "regressed");
    assert_eq!(json["run"]["run_ids"][0], id.as_str());
    assert_eq!(json["metrics"][0]["verdict"], "improved", "{json:#}");
    assert_eq!(
        json["errors_rose"][0]["key"], "errors.ingest.refused",
        "{json:#}"
    );
}

#[test]
fn a_partial_run_or_a_missing_baseline_cannot_be_told() {
    let (path, store) = store_with_baseline();
    let mut cut = ingest_result(40, 20_000.0, 0.05, 20.0, 10);
    cut["interrupted"] = Value::Bool(true);
    let id = save(&store, &cut, &[]);
    let out = check(&path, &[&id, "--last", "3", "--metric", "docs_per_sec"]);
    assert_eq!(out.status.code(), Some(125), "{}", streams(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("interrupted"),
        "{}",
        streams(&out)
    );

    // Alone in its store: nothing to compare with.
    let lonely = scratch_store();
    let alone = Store::open(&lonely).unwrap();
    save(&alone, &ingest_result(40, 20_000.0, 0.05, 20.0, 11), &[]);
    let out = check(&lonely, &["--last", "5", "--metric", "docs_per_sec"]);
    assert_eq!(out.status.code(), Some(125), "{}", streams(&out));
    let out = check(
        &lonely,
        &["--baseline", "build=nothing", "--metric", "docs_per_sec"],
    );
    assert_eq!(out.status.code(), Some(125), "{}", streams(&out));
}

#[test]
fn an_unknown_metric_is_bad_usage_with_a_guess() {
    let (path, store) = store_with_baseline();
    save(&store, &ingest_result(40, 20_000.0, 0.05, 20.0, 12), &[]);
    let out = check(&path, &["--last", "3", "--metric", "service_mean_sm"]);
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown metric") && err.contains("did you mean \"service_mean_ms\""),
        "{err}"
    );
    // A run selector that names nothing.
    let out = check(
        &path,
        &["build=nothing", "--last", "3", "--metric", "docs_per_sec"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    // Neither a baseline nor --last: clap's usage error.
    let out = check(&path, &["--metric", "docs_per_sec"]);
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
}

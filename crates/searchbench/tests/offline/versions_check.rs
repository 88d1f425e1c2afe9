//! `searchbench check`: the exit codes a CI pipeline and `git bisect run` rely on, on stored
//! synthetic results: 0 pass, 3 regressed (or errors rose), 125 cannot tell (also one run a
//! side, and runs too noisy to see the threshold), 2 bad usage.

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

fn check_command(store: &Path, args: &[&str]) -> std::process::Command {
    let mut cmd = bin();
    cmd.arg("check").args(args).arg("--store").arg(store);
    cmd
}

fn check(store: &Path, args: &[&str]) -> std::process::Output {
    check_command(store, args).output().unwrap()
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

    // A named run against a named run: seconds inside each run are no verdict over runs.
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
    assert_eq!(out.status.code(), Some(125), "{}", streams(&out));

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
    assert_eq!(out.status.code(), Some(3), "{}", streams(&out));
    // What the help says of it is what it does (`-h` said 1).
    for help in [&["-h"][..], &["check", "-h"][..]] {
        let out = crate::common::run(help);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("3 regressed") && !text.contains("1 regressed"),
            "{help:?}: {text}"
        );
    }
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
    assert_eq!(out.status.code(), Some(3), "{}", streams(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["outcome"], "regressed");
    assert_eq!(json["run"]["run_ids"][0], id.as_str());
    // Faster by its interval, but a run with errors is never better.
    assert_eq!(
        json["metrics"][0]["verdict"], "not_better_has_errors",
        "{json:#}"
    );
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

/// A check needs a baseline, given one of two ways: the usage error names both, and its
/// usage line lists only what is required (not the store the environment names).
#[test]
fn a_check_without_a_baseline_names_both_ways_to_give_one() {
    let (path, _store) = store_with_baseline();
    let out = bin()
        .args(["check", "--metric", "docs_per_sec"])
        .env("SEARCHBENCH_STORE", &path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--baseline") && err.contains("--last"),
        "{err}"
    );
    let usage = err
        .lines()
        .find(|l| l.starts_with("Usage:"))
        .unwrap_or_default();
    assert!(!usage.contains("--store"), "{usage}");
    // Both at once is one too many.
    let out = check(
        &path,
        &[
            "--last",
            "2",
            "--baseline",
            "build=base",
            "--metric",
            "docs_per_sec",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    // The store the environment names is the one read: the baseline is found there.
    let out = bin()
        .args([
            "check",
            "--baseline",
            "build=base",
            "--metric",
            "docs_per_sec",
        ])
        .env("SEARCHBENCH_STORE", &path)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(2), "{}", streams(&out));
    let text = streams(&out);
    assert!(!text.contains("no complete baseline run"), "{text}");
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

#[test]
fn one_run_a_side_is_never_a_verdict_over_runs() {
    // Two runs of the same engine and configuration once read "REGRESSED -50.3 %
    // [-65.8, -28.8]" (exit 1): an interval over the seconds inside each run.
    let path = scratch_store();
    let store = Store::open(&path).unwrap();
    let base = save(&store, &ingest_result(40, 20_000.0, 0.05, 20.0, 1), &[]);
    let run = save(&store, &ingest_result(40, 10_000.0, 0.05, 20.0, 2), &[]);
    let out = check(
        &path,
        &[&run, "--baseline", &base, "--metric", "docs_per_sec"],
    );
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(125), "{text}");
    assert!(
        text.contains("too few runs") && text.contains("--last N"),
        "{text}"
    );
    assert!(!text.contains("REGRESSED"), "{text}");
}

#[test]
fn runs_too_noisy_to_see_the_threshold_cannot_tell_and_say_how_many_would() {
    // Groups of three whose runs differ by a factor of three: no interval excludes zero, and
    // a 5 % change could never have shown. That once passed (exit 0).
    let path = scratch_store();
    let store = Store::open(&path).unwrap();
    for (i, dps) in [10_000.0, 30_000.0, 20_000.0].into_iter().enumerate() {
        save(
            &store,
            &ingest_result(40, dps, 0.05, 20.0, i as u64),
            &[("side", "a")],
        );
    }
    for (i, dps) in [28_000.0, 9_000.0, 21_000.0].into_iter().enumerate() {
        save(
            &store,
            &ingest_result(40, dps, 0.05, 20.0, 10 + i as u64),
            &[("side", "b")],
        );
    }
    let out = check(
        &path,
        &[
            "side=b",
            "--baseline",
            "side=a",
            "--metric",
            "docs_per_sec",
            "--json",
        ],
    );
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(125), "{text}");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &c["metrics"][0];
    assert_eq!(m["verdict"], "cannot_tell", "{m}");
    let reach = m["min_detectable_pct"].as_f64().expect("what it could see");
    assert!(reach > 5.0, "{m}");
    let why = m["why"].as_str().unwrap();
    assert!(why.contains("runs a side would"), "{why}");
    // One run against the same noisy group: its prediction interval is as blind.
    let one = save(&store, &ingest_result(40, 20_000.0, 0.05, 20.0, 20), &[]);
    let out = check(
        &path,
        &[&one, "--baseline", "side=a", "--metric", "docs_per_sec"],
    );
    assert_eq!(out.status.code(), Some(125), "{}", streams(&out));
    // A wide threshold is within what they can see: a pass.
    let out = check(
        &path,
        &[
            "side=b",
            "--baseline",
            "side=a",
            "--metric",
            "docs_per_sec",
            "--threshold",
            "500%",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
}

#[test]
fn a_percentile_short_runs_leave_out_cannot_tell_and_says_how_many_requests() {
    // The README's own example once said "unknown metric" on short runs.
    let path = scratch_store();
    let store = Store::open(&path).unwrap();
    let short = |seed| {
        let mut r = ingest_result(40, 20_000.0, 0.05, 20.0, seed);
        r["service"]["p99_ms"] = Value::Null;
        r["service"]["p999_ms"] = Value::Null;
        r
    };
    for seed in 1..=3 {
        save(&store, &short(seed), &[]);
    }
    save(&store, &short(4), &[]);
    let out = check(&path, &["--last", "3", "--metric", "service_p99_ms"]);
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(125), "{text}");
    assert!(text.contains("from 100 requests on"), "{text}");
    // A name no run could have is still a typo (exit 2).
    let out = check(&path, &["--last", "3", "--metric", "service_p98_ms"]);
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
}

/// Runs `check` with its stdout closed before it writes (`check … | head -0`).
fn check_into_a_closed_pipe(store: &Path, args: &[&str]) -> std::process::Output {
    let mut child = check_command(store, args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Closed before it writes (it opens the store first): every write then fails.
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn the_verdict_survives_a_closed_pipe() {
    // `check … | head -1` in a CI step with pipefail: the exit code is the verdict's.
    let (path, store) = store_with_baseline();
    save(&store, &ingest_result(40, 15_000.0, 0.05, 28.0, 8), &[]);
    for format in [None, Some("--markdown"), Some("--json")] {
        let mut args = vec!["--baseline", "build=base", "--metric", "docs_per_sec"];
        args.extend(format);
        let out = check_into_a_closed_pipe(&path, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{format:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A run that passes still exits 0 into a closed pipe.
    let out = check_into_a_closed_pipe(
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

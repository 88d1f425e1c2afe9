//! `query` checks its target before it measures: a dead port, a missing index or an empty one
//! fails at once with one clear message; a reason that fails every search is said once, with
//! its count.

use std::process::Output;

use reqwest::Method;

use crate::common::{bin, dead_url, fresh_index, node_url, runtime, streams, target};

fn query(url: &str, extra: &[&str]) -> Output {
    bin()
        .args(["query", "cluster-metrics", "--url", url])
        .args(["--rows-per-epoch", "1000", "--epochs", "1"])
        .args(extra)
        .output()
        .expect("run searchbench")
}

/// Nothing was measured: no progress, no table, one error line.
fn assert_fails_before_measuring(out: &Output, message: &str) {
    let text = streams(out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(message), "{text}");
    assert!(stderr.contains("nothing was measured"), "{text}");
    assert!(!stderr.contains("pass 1/"), "it measured: {text}");
    assert!(out.stdout.is_empty(), "a table was printed: {text}");
    let errors = stderr.lines().filter(|l| l.starts_with("error:")).count();
    assert_eq!(errors, 1, "{text}");
}

#[test]
fn a_dead_port_fails_at_once_without_measuring() {
    let out = query(&dead_url(), &[]);
    assert_fails_before_measuring(&out, "the target does not answer");
}

#[test]
fn a_missing_index_fails_at_once_and_says_how_to_load_it() {
    let out = query(node_url(), &["--index", "manners-no-such-index"]);
    assert_fails_before_measuring(&out, "no index \"manners-no-such-index\"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("searchbench ingest cluster-metrics --url") && stderr.contains("--load"),
        "{}",
        streams(&out)
    );
}

#[test]
fn an_empty_index_fails_at_once() {
    fresh_index("manners-empty", Some(b"{}"));
    let out = query(node_url(), &["--index", "manners-empty"]);
    assert_fails_before_measuring(&out, "holds no documents");
    fresh_index("manners-empty", None);
}

#[test]
fn a_reason_that_fails_every_search_is_said_once_with_its_count() {
    // `cpu` as a keyword: every percentiles aggregation is refused the same way.
    let index = "manners-badmap";
    let mapping = br#"{"mappings":{"properties":{"cpu":{"type":"keyword"},"node":{"type":"keyword"},"epoch":{"type":"long"}}}}"#;
    fresh_index(index, Some(mapping));
    runtime().block_on(async {
        target()
            .send(
                Method::POST,
                &format!("/{index}/_doc?refresh=true"),
                Some((
                    "application/json",
                    br#"{"cpu":"x","node":"N001","epoch":1}"#.to_vec(),
                )),
            )
            .await
            .expect("index a document");
    });
    let out = query(
        node_url(),
        &[
            "--index",
            index,
            "--variants",
            "C_td",
            "--passes",
            "2",
            "--no-store",
            // One document, not the corpus of the flags: only the refusals are looked at.
            "--no-check",
        ],
    );
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reason = "is not supported for aggregation [percentiles]";
    // serial and _msearch word it the same way: one line for both.
    assert_eq!(stderr.matches(reason).count(), 1, "{text}");
    let line = stderr
        .lines()
        .find(|l| l.contains(reason))
        .expect("the reason");
    let count: u64 = line
        .trim()
        .split('×')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line:?}"));
    assert!(count > 2, "{line}");
    assert!(line.contains("C_td serial, C_td msearch"), "{line}");
    fresh_index(index, None);
}

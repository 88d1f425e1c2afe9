//! `query` checks its target before it measures: a dead port, a missing index or an empty one
//! fails at once with one clear message; a reason that fails every search is said once, with
//! its count. The node's side is its recorded answers (`common::answers`, re-recorded from a
//! real node by bench/record-answers.sh).

use std::process::Output;

use reqwest::Method;
use searchbench::cluster::Target;

use crate::common::answers::{self, Answers};
use crate::common::{bin, dead_url, fresh_index_on, runtime, streams, target_at};

/// The node behind `answers`, as a test's setup reaches it.
fn node(answers: &Answers) -> Target {
    target_at(&answers.url, std::time::Duration::from_secs(30))
}

/// Sends `method path` with a JSON body to the node behind `answers`, as a test's setup.
fn send(answers: &Answers, method: Method, path: &str, body: Option<&[u8]>) {
    let body = body.map(|b| ("application/json", b.to_vec()));
    runtime()
        .block_on(node(answers).send(method, path, body))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
}

/// Deletes `index` if it is there; with `body`, creates it afresh.
fn fresh_index(answers: &Answers, index: &str, body: Option<&[u8]>) {
    fresh_index_on(&node(answers), index, body);
}

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
    let node = answers::serve("query_preflight_missing_index");
    let out = query(&node.url, &["--index", "manners-no-such-index"]);
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
    let node = answers::serve("query_preflight_empty_index");
    fresh_index(&node, "manners-empty", Some(b"{}"));
    let out = query(&node.url, &["--index", "manners-empty"]);
    assert_fails_before_measuring(&out, "holds no documents");
    fresh_index(&node, "manners-empty", None);
}

#[test]
fn a_reason_that_fails_every_search_is_said_once_with_its_count() {
    // `cpu` as a keyword: every percentiles aggregation is refused the same way.
    let index = "manners-badmap";
    let mapping = br#"{"mappings":{"properties":{"cpu":{"type":"keyword"},"node":{"type":"keyword"},"epoch":{"type":"long"}}}}"#;
    let node = answers::serve("query_preflight_refused_searches");
    fresh_index(&node, index, Some(mapping));
    send(
        &node,
        Method::POST,
        &format!("/{index}/_doc?refresh=true"),
        Some(br#"{"cpu":"x","node":"N001","epoch":1}"#),
    );
    let out = query(
        &node.url,
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
    fresh_index(&node, index, None);
}

/// The double answers as recorded, the last answer again once they are used up, and names a
/// request it has no answer to (a test that asks something new fails saying what to record).
#[test]
fn recorded_answers_replay_in_order_and_name_what_was_never_recorded() {
    if std::env::var(answers::RECORD_FROM).is_ok() {
        return; // recording: nothing here is the node's to say
    }
    // Kept until the test ends: dropping it stops the double.
    let double = answers::serve("query_preflight_empty_index");
    let t = node(&double);
    let status = |method: Method, path: &str| {
        runtime()
            .block_on(t.send(method, path, None))
            .map(|_| 200)
            .unwrap_or_else(|e| {
                let said = e.to_string();
                assert!(said.contains(path), "{said}");
                if said.contains("no recorded answer") {
                    501
                } else {
                    404
                }
            })
    };
    // DELETE was answered 404 (nothing there), then 200 (deleted): in that order, then 200.
    assert_eq!(status(Method::DELETE, "/manners-empty"), 404);
    assert_eq!(status(Method::DELETE, "/manners-empty"), 200);
    assert_eq!(status(Method::DELETE, "/manners-empty"), 200);
    assert_eq!(status(Method::GET, "/never-recorded/_count"), 501);
}

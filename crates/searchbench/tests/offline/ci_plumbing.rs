//! A verdict where CI and the team's chat take it: `check --notify URL` POSTs one message per
//! regression to a webhook (a local receiver here, as Slack's takes it) and none for a night
//! that did not regress; `--junit FILE` writes the verdict as JUnit XML a CI system reads
//! (parsed here by an XML parser, not by eye).

use searchbench::store::{Kind, NewRun, Store};
use serde_json::json;

use crate::common::bin;
use crate::common::results::ingest_result;
use crate::common::webhook::receiver;

/// A night of the nightly: a run at `level` × 20,000 docs/s, tagged with its night.
fn night(store: &Store, night: u64, level: f64) -> String {
    let rate = 20_000.0 * level * (1.0 + 0.01 * ((night * 7919) % 11) as f64 / 10.0);
    let result = ingest_result(12, rate, 0.02, 20.0, 500 + night);
    let mut run = NewRun::new(Kind::Ingest, "logs", json!({}));
    run.tags = [("build".to_string(), format!("n{night:02}"))].into();
    store.save(&run, &result).unwrap().0
}

#[test]
fn a_regression_is_one_message_and_a_failing_junit_case_an_aa_night_neither() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    for n in 0..7 {
        night(&store, n, 1.0);
    }
    let (url, got) = receiver();
    let junit = dir.path().join("junit.xml");
    let check = |run: &str| {
        bin()
            .args(["check", run, "--last", "7", "--metric", "docs_per_sec"])
            .arg("--junit")
            .arg(&junit)
            .arg("--store")
            .arg(&db)
            .env("SEARCHBENCH_NOTIFY", &url)
            .output()
            .unwrap()
    };
    let said = |out: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let cases = || -> Vec<(String, &'static str)> {
        let text = std::fs::read_to_string(&junit).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .map(|n| {
                let kind = if n.children().any(|c| c.has_tag_name("failure")) {
                    "failure"
                } else if n.children().any(|c| c.has_tag_name("skipped")) {
                    "skipped"
                } else {
                    "passed"
                };
                (n.attribute("name").unwrap().to_string(), kind)
            })
            .collect()
    };

    // An A/A night: no message, every case passes.
    let same = night(&store, 7, 1.0);
    let out = check(&same);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(got.lock().unwrap().is_empty(), "{:?}", got.lock().unwrap());
    let passed = cases();
    assert!(passed.iter().all(|(_, k)| *k == "passed"), "{passed:?}");
    assert!(passed.iter().any(|(n, _)| n == "verdict"), "{passed:?}");

    // A night a fifth slower: one message, the verdict and the throughput fail.
    let slow = night(&store, 8, 0.8);
    let out = check(&slow);
    assert_eq!(out.status.code(), Some(3), "{}", said(&out));
    let text = said(&out);
    assert!(
        !text.contains("secret-token"),
        "the webhook's token shown: {text}"
    );
    {
        let messages = got.lock().unwrap();
        assert_eq!(messages.len(), 1, "{messages:?}");
        let m = messages[0]["text"].as_str().unwrap();
        assert!(
            m.starts_with("searchbench check: regressed") && m.contains(&slow[..8]),
            "{m}"
        );
        assert_eq!(messages[0]["searchbench"]["outcome"], "worse");
    }
    let failed: Vec<String> = cases()
        .into_iter()
        .filter(|(_, k)| *k == "failure")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        failed,
        ["verdict", "throughput (headline)"],
        "{:?}",
        cases()
    );

    // Another regression, another message; a webhook that is down does not change the
    // verdict, and says so by its host alone.
    let slower = night(&store, 9, 0.6);
    let out = check(&slower);
    assert_eq!(out.status.code(), Some(3), "{}", said(&out));
    assert_eq!(got.lock().unwrap().len(), 2);
    let out = bin()
        .args([
            "check",
            &slower,
            "--last",
            "7",
            "--metric",
            "docs_per_sec",
            "--store",
        ])
        .arg(&db)
        .env(
            "SEARCHBENCH_NOTIFY",
            "http://127.0.0.1:9/hooks/secret-token",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", said(&out));
    let text = said(&out);
    assert!(text.contains("warning: notifying 127.0.0.1"), "{text}");
    assert!(!text.contains("secret-token"), "{text}");
    // A JUnit file that cannot be written (its folder is a file) fails a check that passed.
    let out = bin()
        .args([
            "check",
            &same,
            "--last",
            "7",
            "--metric",
            "docs_per_sec",
            "--junit",
        ])
        .arg(db.join("junit.xml"))
        .arg("--store")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
}

/// `compare --junit`: each metric a case, a worse one failing; the same file a gate writes.
#[test]
fn compare_writes_each_metric_as_a_case_the_worse_ones_failing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    for (side, level) in [("a", 1.0), ("b", 0.8)] {
        for k in 0..5u64 {
            let result = ingest_result(
                12,
                20_000.0 * level * (1.0 + 0.005 * k as f64),
                0.02,
                20.0,
                900 + k,
            );
            let mut run = NewRun::new(Kind::Ingest, "logs", json!({}));
            run.tags = [("side".to_string(), side.to_string())].into();
            store.save(&run, &result).unwrap();
        }
    }
    let junit = dir.path().join("compare.xml");
    let out = bin()
        .args(["compare", "side=a", "side=b", "--fail-on-worse", "--junit"])
        .arg(&junit)
        .arg("--store")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let suites = doc.root_element();
    let failing: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.children().any(|c| c.has_tag_name("failure")))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert!(
        failing.contains(&"verdict") && failing.contains(&"throughput (headline)"),
        "{text}"
    );
    assert_eq!(
        suites.attribute("failures").unwrap(),
        failing.len().to_string()
    );
    let cases = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert!(cases > 3, "{text}");
}

//! `--max-failures N|P%`: documents refused past the limit make the load exit 3 (default 0),
//! with the count in the terminal summary and in the JSON.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::{bin, fresh_index, node_url, scratch_store, streams};

/// Six documents, two of which the mapping refuses (`n` is a long).
fn corpus(dir: &Path) -> std::path::PathBuf {
    let file = dir.join("six.ndjson");
    std::fs::write(
        &file,
        "{\"n\":1}\n{\"n\":2}\n{\"n\":\"x\"}\n{\"n\":4}\n{\"n\":\"y\"}\n{\"n\":6}\n",
    )
    .expect("write the corpus");
    file
}

fn ingest(dir: &Path, db: &Path, index: &str, extra: &[&str]) -> Output {
    fresh_index(
        index,
        Some(br#"{"mappings":{"properties":{"n":{"type":"long"}}}}"#),
    );
    bin()
        .env("SEARCHBENCH_STORE", db)
        .args(["ingest", "--url", node_url(), "--index", index, "--append"])
        .args(["--warmup", "0", "--quiet", "--file"])
        .arg(corpus(dir))
        .arg("--failures")
        .arg(dir.join(format!("{index}-failures.ndjson")))
        .args(extra)
        .output()
        .expect("run searchbench")
}

#[test]
fn refused_documents_past_the_limit_exit_3_with_the_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = scratch_store();
    let index = "manners-max-failures";

    let out = ingest(dir.path(), &db, index, &[]);
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("2 of 6 documents failed (33.3%): more than --max-failures 0"),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("more than --max-failures 0"), "{text}");

    // Within the limit: a number, or a share of the documents read.
    for limit in ["2", "40%"] {
        let out = ingest(
            dir.path(),
            &db,
            index,
            &["--max-failures", limit, "--json", "-"],
        );
        let text = streams(&out);
        assert_eq!(out.status.code(), Some(0), "{limit}: {text}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        let limit_json = &v["failure_limit"];
        assert_eq!(limit_json["failed"], 2, "{limit_json}");
        assert_eq!(limit_json["read"], 6, "{limit_json}");
        assert_eq!(limit_json["max"], limit, "{limit_json}");
        assert_eq!(limit_json["exceeded"], false, "{limit_json}");
    }
    let out = ingest(
        dir.path(),
        &db,
        index,
        &["--max-failures", "30%", "--json", "-"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", streams(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(v["failure_limit"]["exceeded"], true);

    // The stored runs past the limit are failed, the others complete.
    let list = bin()
        .env("SEARCHBENCH_STORE", &db)
        .args(["results", "list", "--json"])
        .output()
        .expect("run");
    let runs: Value = serde_json::from_slice(&list.stdout).expect("JSON");
    let states: Vec<&str> = runs
        .as_array()
        .expect("runs")
        .iter()
        .rev()
        .filter_map(|r| r["state"].as_str())
        .collect();
    assert_eq!(states, ["failed", "complete", "complete", "failed"]);
    fresh_index(index, None);
}

#[test]
fn a_bad_limit_is_bad_usage() {
    for bad in ["abc", "150%", "-1", "%"] {
        let out = bin()
            .args(["ingest", "logs", "--url", "http://127.0.0.1:9"])
            .arg(format!("--max-failures={bad}"))
            .output()
            .expect("run");
        let text = streams(&out);
        assert_eq!(out.status.code(), Some(2), "{bad}: {text}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("is not a failure limit"),
            "{bad}: {text}"
        );
    }
    let out = bin()
        .args(["run", "logs", "--max-failures", "1.5.%"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
}

#[test]
fn append_with_every_document_refused_claims_no_extra_documents() {
    let dir = tempfile::tempdir().unwrap();
    let db = scratch_store();
    let index = "searchbench-test-append-all-refused";
    // Two documents already there, then a load of only refused ones.
    let out = ingest(dir.path(), &db, index, &["--max-failures", "100%"]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let refused = dir.path().join("refused.ndjson");
    std::fs::write(&refused, "{\"n\":\"x\"}\n{\"n\":\"y\"}\n").unwrap();
    let out = bin()
        .env("SEARCHBENCH_STORE", &db)
        .args(["ingest", "--url", node_url(), "--index", index, "--append"])
        .args(["--warmup", "0", "--max-failures", "100%", "--file"])
        .arg(&refused)
        .arg("--failures")
        .arg(dir.path().join("again-failures.ndjson"))
        .output()
        .unwrap();
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("read 2 = indexed 0 + failed 2"), "{text}");
    assert!(text.contains("index count 4 - 4 before = 0"), "{text}");
    assert!(!text.contains("more documents than acknowledged"), "{text}");
}

//! A track's corpora as Rally and OSB ship them, loaded on the shared node: compressed files
//! (`.bz2`, `.zst`, `.gz`) read as they are, several corpora into one index, a corpus with
//! its own action lines, a data stream as the target, and the document count each entry
//! declares held against what its file holds.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::common::{self, node_url};

fn bz2(text: &str) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

fn gz(text: &str) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

fn zst(text: &str) -> Vec<u8> {
    zstd::stream::encode_all(text.as_bytes(), 3).unwrap()
}

fn docs(n: usize, from: usize) -> String {
    (from..from + n)
        .map(|i| {
            format!(
                "{{\"n\": {i}, \"@timestamp\": \"2024-01-01T00:00:{:02}Z\"}}\n",
                i % 60
            )
        })
        .collect()
}

/// Each document after its own `index` action line, with an id.
fn pairs(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"index\": {{\"_id\": \"pair-{i}\"}}}}\n{{\"n\": {}}}\n",
                1000 + i
            )
        })
        .collect()
}

const INDEX_TRACK: &str = r#"{
  "version": 2,
  "indices": [{"name": "searchbench-test-tc-docs", "body": "index.json"}],
  "corpora": [
    {"name": "plain", "base-url": "https://example.org/corpora/plain",
     "target-index": "searchbench-test-tc-docs",
     "documents": [
       {"source-file": "docs.json.bz2", "document-count": 300},
       {"source-file": "more.json.zst", "document-count": 100}
     ]},
    {"name": "pairs", "base-url": "https://example.org/corpora/pairs",
     "includes-action-and-meta-data": true, "target-index": "searchbench-test-tc-docs",
     "documents": [{"source-file": "pairs.json.gz", "document-count": 200}]}
  ],
  "schedule": [
    {"operation": {"name": "delete", "operation-type": "delete-index"}},
    {"operation": {"name": "create", "operation-type": "create-index"}},
    {"operation": {"name": "load", "operation-type": "bulk", "bulk-size": 70}, "clients": 2},
    {"operation": {"name": "refresh", "operation-type": "refresh"}}
  ]
}"#;

/// The index track into `index` (each test its own: they run at once), in folder `dir`, with
/// `plain` documents in its first file.
fn index_track(dir: &Path, index: &str, plain: usize) -> std::path::PathBuf {
    std::fs::write(
        dir.join("track.json"),
        INDEX_TRACK.replace("searchbench-test-tc-docs", index),
    )
    .unwrap();
    std::fs::write(
        dir.join("index.json"),
        r#"{"settings": {"index.number_of_replicas": 0}, "mappings": {"properties": {"n": {"type": "long"}}}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("docs.json.bz2"), bz2(&docs(plain, 0))).unwrap();
    std::fs::write(dir.join("more.json.zst"), zst(&docs(100, 300))).unwrap();
    std::fs::write(dir.join("pairs.json.gz"), gz(&pairs(200))).unwrap();
    dir.join("track.json")
}

fn run_track(track: &Path, store: &Path, extra: &[&str]) -> std::process::Output {
    common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--workload-file"])
        .arg(track)
        .args(extra)
        .arg("--json")
        .arg(store.with_extension("json"))
        .arg("--store")
        .arg(store)
        .output()
        .unwrap()
}

fn get(path: &str) -> Option<Value> {
    let t = common::target();
    common::runtime().block_on(async { t.get_json::<Value>(path).await.ok() })
}

fn count(target: &str) -> u64 {
    get(&format!("/{target}/_count"))
        .and_then(|c| c["count"].as_u64())
        .unwrap_or(0)
}

#[test]
fn compressed_corpora_with_and_without_action_lines_load_whole() {
    let dir = tempfile::tempdir().unwrap();
    let track = index_track(dir.path(), "searchbench-test-tc-docs", 300);
    let store = dir.path().join("results.db");
    let out = run_track(&track, &store, &[]);
    common::succeeded(&out);
    // 300 from bzip2, 100 from zstd, 200 pairs from gzip: every one, with the pairs' own ids.
    assert_eq!(count("searchbench-test-tc-docs"), 600);
    let pair = get("/searchbench-test-tc-docs/_doc/pair-17").expect("pair-17 by its own id");
    assert_eq!(pair["_source"]["n"], 1017);
    let r: Value =
        serde_json::from_slice(&std::fs::read(store.with_extension("json")).unwrap()).unwrap();
    let load = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["task"] == "load")
        .unwrap();
    assert_eq!(load["errors"], 0, "{load}");
    // 400 documents at 70 per request, then 200 pairs at 70: 6 + 3 requests.
    assert_eq!(load["ops"], 9, "{load}");
    common::fresh_index("searchbench-test-tc-docs", None);
}

#[test]
fn a_file_that_does_not_hold_its_declared_count_fails_the_task_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let track = index_track(dir.path(), "searchbench-test-tc-count", 299);
    let out = run_track(&track, &dir.path().join("results.db"), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{}", common::streams(&out));
    assert!(
        err.contains("docs.json.bz2: holds 299 document(s), the track declares 300"),
        "{err}"
    );
    common::fresh_index("searchbench-test-tc-count", None);
}

#[test]
fn a_file_holding_more_than_its_declared_count_stops_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let track = index_track(dir.path(), "searchbench-test-tc-more", 300);
    std::fs::write(dir.path().join("docs.json.bz2"), bz2(&docs(5_000, 0))).unwrap();
    let out = run_track(&track, &dir.path().join("results.db"), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{}", common::streams(&out));
    assert!(
        err.contains("docs.json.bz2: holds more than the 300 document(s) the track declares"),
        "{err}"
    );
    // Nothing past the count was sent.
    common::runtime().block_on(async {
        let _ = common::target()
            .get_json::<Value>("/searchbench-test-tc-more/_refresh")
            .await;
    });
    assert!(count("searchbench-test-tc-more") <= 600);
    common::fresh_index("searchbench-test-tc-more", None);
}

/// `--failures FILE` is where a track's refused documents go (they went to a file in the
/// working folder, the flag ignored), numbered when the track has several loads.
#[test]
fn a_tracks_refused_documents_go_to_the_failures_file_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-tc-failures";
    let track = index_track(dir.path(), index, 300);
    let mut text = docs(300, 0);
    text = text.replacen("{\"n\": 5,", "{\"n\": \"not a number\",", 1);
    std::fs::write(dir.path().join("docs.json.bz2"), bz2(&text)).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let failures = dir.path().join("refused.ndjson");
    let store = dir.path().join("results.db");
    let out = common::bin()
        .current_dir(&work)
        .args(["run", "--url", node_url(), "--quiet", "--workload-file"])
        .arg(&track)
        .arg("--failures")
        .arg(&failures)
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(3), "{streams}");
    // Its two loads (plain documents, then pairs with their action lines) each have a file
    // of their own, numbered: the first holds the refused document.
    let first = dir.path().join("refused-1.ndjson");
    let written = std::fs::read_to_string(&first).unwrap_or_else(|e| panic!("{e}: {streams}"));
    assert!(written.contains("not a number"), "{written}");
    assert!(streams.contains("refused-1.ndjson"), "{streams}");
    let left: Vec<_> = std::fs::read_dir(&work).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
    common::fresh_index(index, None);
}

#[test]
fn a_missing_corpus_file_is_refused_naming_it_and_where_it_comes_from() {
    let dir = tempfile::tempdir().unwrap();
    let track = index_track(dir.path(), "searchbench-test-tc-dir", 300);
    std::fs::remove_file(dir.path().join("more.json.zst")).unwrap();
    let out = run_track(&track, &dir.path().join("results.db"), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("corpus plain: more.json.zst is not in")
            && err.contains("https://example.org/corpora/plain/more.json.zst"),
        "{err}"
    );
    // Downloaded elsewhere: --corpus-dir finds it in the tools' layout (DIR/<corpus>/).
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(data.path().join("plain")).unwrap();
    std::fs::write(
        data.path().join("plain/more.json.zst"),
        zst(&docs(100, 300)),
    )
    .unwrap();
    let out = run_track(
        &track,
        &dir.path().join("results.db"),
        &["--corpus-dir", &data.path().display().to_string()],
    );
    common::succeeded(&out);
    assert_eq!(count("searchbench-test-tc-dir"), 600);
    common::fresh_index("searchbench-test-tc-dir", None);
}

#[test]
fn a_data_stream_is_loaded_with_create() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("track.json"),
        r#"{
  "version": 2,
  "data-streams": [{"name": "searchbench-test-tc-stream"}],
  "composable-templates": [{"name": "searchbench-test-tc-stream", "index-pattern": "searchbench-test-tc-stream*", "template": "template.json"}],
  "corpora": [{"name": "events", "base-url": "https://example.org/corpora/events",
               "target-data-stream": "searchbench-test-tc-stream",
               "documents": [{"source-file": "events.json.bz2", "document-count": 250}]}],
  "schedule": [
    {"operation": {"name": "delete-stream", "operation-type": "delete-data-stream"}},
    {"operation": {"name": "template", "operation-type": "create-composable-template"}},
    {"operation": {"name": "load", "operation-type": "bulk", "bulk-size": 100}},
    {"operation": {"name": "refresh", "operation-type": "refresh"}}
  ]
}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("template.json"),
        r#"{"index_patterns": ["searchbench-test-tc-stream*"], "data_stream": {}, "priority": 500,
            "template": {"settings": {"index.number_of_replicas": 0},
                         "mappings": {"properties": {"@timestamp": {"type": "date"}}}}}"#,
    )
    .unwrap();
    std::fs::write(dir.path().join("events.json.bz2"), bz2(&docs(250, 0))).unwrap();
    let out = run_track(
        &dir.path().join("track.json"),
        &dir.path().join("results.db"),
        &[],
    );
    common::succeeded(&out);
    // A data stream, not an index of that name, holding every document.
    let stream = get("/_data_stream/searchbench-test-tc-stream").expect("the data stream");
    assert_eq!(
        stream["data_streams"][0]["name"],
        "searchbench-test-tc-stream"
    );
    assert_eq!(count("searchbench-test-tc-stream"), 250);
    let t = common::target();
    common::runtime().block_on(async {
        let _ = t
            .send(
                reqwest::Method::DELETE,
                "/_data_stream/searchbench-test-tc-stream",
                None,
            )
            .await;
        let _ = t
            .send(
                reqwest::Method::DELETE,
                "/_index_template/searchbench-test-tc-stream",
                None,
            )
            .await;
    });
}

//! Real opensearch-benchmark workloads, as written (pinned in `tests/fixtures/tracks/osb`),
//! run every step of their default test procedure against the shared node, in test mode
//! (the tools' `--test-mode`: one iteration per client, no warm-up, no target throughput, the
//! 1,000-document sample of each corpus, holding its 1,000 documents as the tools' samples
//! do: a file that does not hold what the track declares fails), each on a small local corpus
//! the test writes where the tools would have downloaded it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, node_url};

/// A copy of the fixture `osb/<name>` (with `common_operations` beside it, as in the
/// repository) in a folder of its own.
fn workload(name: &str) -> (tempfile::TempDir, PathBuf) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracks/osb");
    let dir = tempfile::tempdir().unwrap();
    for part in [name, "common_operations"] {
        common::copy_dir(&fixtures.join(part), &dir.path().join(part));
    }
    let file = dir.path().join(name).join("workload.json");
    (dir, file)
}

/// Runs the workload at `file` in test mode and returns its result; every task of the
/// default test procedure must have run without an error.
fn run_all(file: &Path, store: &Path) -> Value {
    run_but(file, store, &[])
}

/// [`run_all`], but the tasks `python` are the workload's own Python (a param-source):
/// listed as not run, the only ones.
fn run_but(file: &Path, store: &Path, python: &[&str]) -> Value {
    let _one = common::one_track_at_a_time();
    let json = store.with_extension("json");
    let out = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--test-mode"])
        .arg("--workload-file")
        .arg(file)
        .arg("--json")
        .arg(&json)
        .arg("--store")
        .arg(store)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    common::succeeded(&out);
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let not_run: Vec<&str> = r["not_run"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["what"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = python
        .iter()
        .map(|t| format!("task {t} (search)"))
        .collect();
    assert_eq!(not_run, expected, "every other step runs\n{stderr}");
    for i in r["not_run"].as_array().unwrap() {
        assert!(i["how"].as_str().unwrap().contains("param-source"), "{i}");
    }
    for t in r["tasks"].as_array().unwrap() {
        assert_eq!(t["errors"], 0, "{t}");
        assert!(t["ops"].as_u64().unwrap() >= 1, "{t}");
    }
    r
}

fn lines(n: usize, doc: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| doc(i) + "\n").collect()
}

fn task<'r>(r: &'r Value, name: &str) -> &'r Value {
    r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["task"] == name)
        .unwrap_or_else(|| panic!("no task {name} in {r:#}"))
}

#[test]
fn osb_so_runs_every_step_of_its_default_test_procedure() {
    let (dir, file) = workload("so");
    let docs = lines(1000, |i| {
        format!(
            r#"{{"user": "u{i}", "creationDate": "2008-07-31T21:42:52.667", "title": "how to {i}", "questionId": "{i}", "tags": ["rust", "t{}"], "body": "a question about search {i}", "type": "question"}}"#,
            i % 7
        )
    });
    std::fs::write(file.with_file_name("posts-1k.json"), docs).unwrap();
    let r = run_all(&file, &dir.path().join("results.db"));
    assert_eq!(r["procedure_word"], "test procedure");
    assert!(task(&r, "index-append")["throughput_unit"] == "docs/s");
    common::fresh_index("so", None);
}

#[test]
fn osb_percolator_runs_every_step_of_its_default_test_procedure() {
    let (dir, file) = workload("percolator");
    let words = [
        "president bush",
        "saddam hussein",
        "hurricane katrina",
        "google",
        "ignore me",
    ];
    let docs = lines(1000, |i| {
        format!(
            r#"{{"query": {{"match": {{"body": "{} {i}"}}}}}}"#,
            words[i % words.len()]
        )
    });
    std::fs::write(file.with_file_name("queries-2-1k.json"), docs).unwrap();
    let r = run_all(&file, &dir.path().join("results.db"));
    let search = task(&r, "percolator_with_content_google");
    assert_eq!(search["operation_type"], "search", "{search}");
    common::fresh_index("queries", None);
}

#[test]
fn osb_http_logs_runs_every_step_of_its_default_test_procedure() {
    let (dir, file) = workload("http_logs");
    for year in [
        "181998", "191998", "201998", "211998", "221998", "231998", "241998",
    ] {
        let docs = lines(1000, |i| {
            format!(
                r#"{{"@timestamp": {}, "clientip": "10.0.{}.{}", "request": "GET /images/{i}.gif HTTP/1.0", "status": {}, "size": {}}}"#,
                893_964_617 + i * 60,
                i % 250,
                i % 200,
                if i % 10 == 0 { 404 } else { 200 },
                100 + i
            )
        });
        std::fs::write(
            file.with_file_name(format!("documents-{year}-1k.json")),
            docs,
        )
        .unwrap();
    }
    let r = run_all(&file, &dir.path().join("results.db"));
    // Seven indices loaded by one bulk task, then the searches, scroll included.
    let load = task(&r, "index-append");
    assert!(load["ops"].as_u64().unwrap() >= 7, "{load}");
    assert!(task(&r, "scroll")["ops"].as_u64().unwrap() >= 1);
    for year in [
        "181998", "191998", "201998", "211998", "221998", "231998", "241998",
    ] {
        common::fresh_index(&format!("logs-{year}"), None);
    }
    common::fresh_index("reindexed-logs", None);
}

#[test]
fn osb_nested_runs_every_step_but_its_python_queries() {
    let (dir, file) = workload("nested");
    let docs = lines(1000, |i| {
        format!(
            r#"{{"user": "u{i}", "creationDate": "2008-07-31T21:42:52.667Z", "title": "q {i}", "qid": "{i}", "tag": ["t{}"], "answer_count": 2, "answers": [{{"user": "a{i}", "date": "2008-08-01T00:00:00Z"}}, {{"user": "b{i}", "date": "2008-08-02T00:00:00Z"}}]}}"#,
            i % 5
        )
    });
    std::fs::write(file.with_file_name("documents-1k.json"), docs).unwrap();
    let python = [
        "randomized-nested-queries",
        "randomized-term-queries",
        "randomized-sorted-term-queries",
        "randomized-nested-queries-with-inner-hits_default",
        "randomized-nested-queries-with-inner-hits_default_big_size",
    ];
    let r = run_but(&file, &dir.path().join("results.db"), &python);
    assert!(task(&r, "nested-date-histo")["ops"].as_u64().unwrap() >= 1);
    common::fresh_index("sonested", None);
}

/// A track whose task fails every operation: the run is done but failed (exit 3), the task's
/// row says how many failed and why.
#[test]
fn a_track_with_failed_operations_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("track.json");
    std::fs::write(
        &file,
        r#"{"operations": [{"name": "nowhere", "operation-type": "search",
              "index": "searchbench-test-track-no-such-index", "body": {"query": {"match_all": {}}}}],
            "schedule": [{"operation": "nowhere", "iterations": 2}]}"#,
    )
    .unwrap();
    let json = dir.path().join("r.json");
    let out = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--workload-file"])
        .arg(&file)
        .arg("--json")
        .arg(&json)
        .arg("--store")
        .arg(dir.path().join("results.db"))
        .output()
        .unwrap();
    let text = common::streams(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("failed operations in nowhere (2 of 2)"),
        "{text}"
    );
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(task(&r, "nowhere")["errors"], 2, "{r}");
}

/// A bulk whose documents the engine refuses item by item (no request fails) fails its task
/// and the run, naming how many were not taken.
#[test]
fn a_bulk_with_refused_documents_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("track.json");
    std::fs::write(
        &file,
        r#"{"indices": [{"name": "searchbench-test-track-refused", "body": "index.json"}],
            "corpora": [{"name": "c", "documents": [{"source-file": "docs.json", "document-count": 3}]}],
            "operations": [{"name": "load", "operation-type": "bulk", "bulk-size": 10}],
            "schedule": [{"operation": "delete-index"}, {"operation": "create-index"},
                         {"operation": "load"}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("index.json"),
        r#"{"mappings": {"dynamic": "strict", "properties": {"n": {"type": "long"}}}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("docs.json"),
        "{\"n\": 1}\n{\"n\": \"abc\"}\n{\"x\": 2}\n",
    )
    .unwrap();
    let out = common::bin()
        .args([
            "run",
            "--url",
            node_url(),
            "--quiet",
            "--no-store",
            "--workload-file",
        ])
        .arg(&file)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = common::streams(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("2 document(s) of searchbench-test-track-refused not taken"),
        "{text}"
    );
    common::fresh_index("searchbench-test-track-refused", None);
}

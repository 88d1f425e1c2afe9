//! What a load does with awkward input and existing indices: invalid UTF-8 lines are bad input
//! and the failure file stays JSON, a second load into our index says it replaces it,
//! `--append` reconciles on the increase, a clean run moves the previous failure file aside, a
//! truncated gzip file delivers what was read, and an index we did not create is never taken.

use crate::common::{self, node_url, run, streams as text, write_docs};

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn json_lines(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    let text = std::str::from_utf8(&bytes).expect("UTF-8");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

/// `ingest --url NODE --no-store --quiet` with `args`; returns the output.
fn ingest_node(args: &[&str]) -> Output {
    let mut all = vec!["ingest", "--url", node_url(), "--no-store", "--quiet"];
    all.extend(args);
    run(&all)
}

/// Runs `f` on a target on the shared node, on a runtime of its own.
fn on_node<T, F, Fut>(f: F) -> T
where
    T: Send + 'static,
    F: FnOnce(searchbench::cluster::Target) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<T, searchbench::cluster::TargetError>>,
{
    node_url();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime
            .block_on(f(common::target()))
            .expect("a call to the node")
    })
    .join()
    .unwrap()
}

fn count_of(index: &str) -> u64 {
    let index = index.to_string();
    on_node(|t| async move { searchbench::ingest::count(&t, &index).await })
}

#[test]
fn invalid_utf8_lines_are_bad_input_and_the_failure_file_stays_json() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("utf8.ndjson");
    let failures = dir.path().join("failures.ndjson");
    std::fs::write(
        &docs,
        b"{\"m\":\"ok\"}\n{\"m\":\"\xc0\xaf\"}\n{\"m\":\"\xff\"}\n{\"m\":\"caf\xc3\xa9\"}\n",
    )
    .unwrap();
    let out = ingest_node(&[
        "--index",
        "reliability-utf8",
        "--max-failures",
        "2",
        "--file",
        docs.to_str().unwrap(),
        "--failures",
        failures.to_str().unwrap(),
    ]);
    // Two documents in, two bad input lines out: it reconciles.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(count_of("reliability-utf8"), 2);
    let lines = json_lines(&failures);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (record, line) in lines.iter().zip([2, 3]) {
        assert_eq!(record["kind"], "bad_line");
        assert_eq!(record["line"], line);
        assert!(record["reason"].as_str().unwrap().contains("invalid UTF-8"));
        assert!(record["raw_base64"].is_string(), "{record}");
    }
}

/// Loads 10 documents into `index` (ours); returns the folder and a file of 4 more.
fn ten_docs_in(index: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.ndjson"), dir.path().join("b.ndjson"));
    write_docs(&a, 10);
    write_docs(&b, 4);
    let first = ingest_node(&["--index", index, "--file", a.to_str().unwrap()]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    (dir, b)
}

#[test]
fn a_second_ingest_into_our_index_says_it_replaces_it() {
    let index = "reliability-replace";
    let (_dir, b) = ten_docs_in(index);
    let second = ingest_node(&["--index", index, "--file", b.to_str().unwrap()]);
    let all = text(&second);
    assert_eq!(second.status.code(), Some(0), "{all}");
    assert!(
        all.contains("replaced index reliability-replace (made by searchbench, created ")
            && all.contains(", 10 docs)"),
        "{all}"
    );
    assert_eq!(count_of(index), 4);
}

#[test]
fn append_loads_into_an_existing_index_and_reconciles_on_the_increase() {
    let index = "reliability-append";
    let (dir, b) = ten_docs_in(index);
    let json = dir.path().join("second.json");
    let second = ingest_node(&[
        "--index",
        index,
        "--file",
        b.to_str().unwrap(),
        "--append",
        "--json",
        json.to_str().unwrap(),
    ]);
    let all = text(&second);
    assert_eq!(second.status.code(), Some(0), "{all}");
    assert!(
        all.contains("appended to index reliability-append"),
        "{all}"
    );
    assert_eq!(count_of(index), 14);
    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(result["counts"]["index_count_before"], 10);
    assert_eq!(result["counts"]["index_count"], 14);
    assert_eq!(result["counts"]["reconciled"], true);
    assert_eq!(result["previous_index"], "appended");

    // An index we did not create: refused without --append, loaded into with it.
    on_node(|t| async move {
        t.send(reqwest::Method::PUT, "/reliability-append-other", None)
            .await
            .map(|_| ())
    });
    let refused = ingest_node(&[
        "--index",
        "reliability-append-other",
        "--file",
        b.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let into_foreign = ingest_node(&[
        "--index",
        "reliability-append-other",
        "--file",
        b.to_str().unwrap(),
        "--append",
    ]);
    assert_eq!(
        into_foreign.status.code(),
        Some(0),
        "{}",
        text(&into_foreign)
    );
    assert_eq!(count_of("reliability-append-other"), 4);
}

#[test]
fn a_clean_run_moves_the_previous_failure_file_aside_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (bad, good) = (
        dir.path().join("bad.ndjson"),
        dir.path().join("good.ndjson"),
    );
    std::fs::write(&bad, b"{\"n\":1}\nnot json\n").unwrap();
    write_docs(&good, 3);
    let failures = dir.path().join("failures.ndjson");
    let load = |file: &Path| {
        let (file, failures) = (file.to_str().unwrap(), failures.to_str().unwrap());
        ingest_node(&[
            "--index",
            "reliability-rotate",
            "--max-failures",
            "1",
            "--file",
            file,
            "--failures",
            failures,
        ])
    };
    let first = load(&bad);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    assert_eq!(json_lines(&failures).len(), 1);
    let second = load(&good);
    let all = text(&second);
    assert_eq!(second.status.code(), Some(0), "{all}");
    assert!(
        !failures.exists(),
        "a clean run leaves no failure file behind"
    );
    let aside = dir.path().join("failures.ndjson.previous");
    assert_eq!(json_lines(&aside).len(), 1);
    assert!(all.contains("failures: none"), "{all}");
    assert!(
        all.contains(&format!("moved to {}", aside.display())),
        "{all}"
    );
}

/// `n` documents, gzip-compressed, cut to `keep` of the compressed bytes.
fn truncated_gzip(path: &Path, n: usize, keep: f64) {
    use std::io::Write as _;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..n {
        // Varied text so that the compressed stream is long enough to cut in the middle.
        writeln!(
            gz,
            "{{\"n\":{i},\"s\":\"{:x}\"}}",
            (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        )
        .unwrap();
    }
    let bytes = gz.finish().unwrap();
    std::fs::write(path, &bytes[..(bytes.len() as f64 * keep) as usize]).unwrap();
}

#[test]
fn a_truncated_gzip_file_delivers_what_was_read_and_names_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.ndjson.gz");
    truncated_gzip(&file, 20_000, 0.5);
    let json = dir.path().join("result.json");
    let index = "reliability-truncated";
    let failures = dir.path().join("failures.ndjson");
    let out = ingest_node(&[
        "--index",
        index,
        "--file",
        file.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--failures",
        failures.to_str().unwrap(),
    ]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let error = result["error"].as_str().unwrap();
    assert!(
        error.contains("cut.ndjson.gz: line ") && error.contains("bytes of the compressed file"),
        "{error}"
    );
    let indexed = result["counts"]["indexed"].as_u64().unwrap();
    assert!(indexed > 1000, "the good documents are sent: {indexed}");
    assert_eq!(
        result["counts"]["read"], indexed,
        "nothing read was dropped"
    );
    assert_eq!(count_of(index), indexed);
}

#[test]
fn experiment_dates_on_a_foreign_index_suggests_only_what_it_accepts() {
    let _dates = common::dates_indices();
    for id in ["a", "b", "c", "d"] {
        let path = format!("/searchbench-dates-{id}");
        on_node(|t| async move { t.send(reqwest::Method::PUT, &path, None).await.map(|_| ()) });
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "experiment",
        "dates",
        "--url",
        node_url(),
        "--docs",
        "10",
        "--repeats",
        "1",
        "--failures-dir",
        dir.path().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr.contains("delete or rename that index"), "{stderr}");
    for flag in ["--index", "--replace", "--append"] {
        assert!(!stderr.contains(flag), "{stderr}");
    }
    for id in ["a", "b", "c", "d"] {
        let path = format!("/searchbench-dates-{id}");
        on_node(|t| async move {
            t.send(reqwest::Method::DELETE, &path, None)
                .await
                .map(|_| ())
        });
    }
}

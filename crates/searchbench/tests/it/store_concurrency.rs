//! The results store under contention and on paths it cannot use: a new store opened or
//! written by many threads and processes at once keeps every run, a store that cannot be made
//! fails before anything is measured, and an OS error is said once.

use crate::common::{self, node_url, streams as text, write_docs};

use std::path::{Path, PathBuf};

use searchbench::store::{Filter, Kind, NewRun, Store};
use serde_json::json;

fn import_shaped_result(dir: &Path) -> PathBuf {
    let path = dir.join("result.json");
    let result =
        json!({"docs_per_sec": 1.0, "counts": {"read": 1, "indexed": 1}, "config": {"clients": 1}});
    std::fs::write(&path, result.to_string()).unwrap();
    path
}

fn stored_runs(store: &Path) -> usize {
    let store = Store::open(store).unwrap();
    store.list(&Filter::default()).unwrap().len()
}

#[test]
fn a_new_store_opened_by_eight_threads_at_once_keeps_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let (path, barrier) = (path.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let store = Store::open(&path)?;
                store.save(
                    &NewRun::new(Kind::Ingest, format!("w{i}"), json!({})),
                    &json!({"docs_per_sec": 1.0}),
                )
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().expect("open and save");
    }
    assert_eq!(stored_runs(&path), 8);
}

#[test]
fn a_new_store_written_by_eight_processes_at_once_keeps_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let result = import_shaped_result(dir.path());
    let store = dir.path().join("new.db");
    let children: Vec<_> = (0..8)
        .map(|_| {
            common::bin()
                .args(["results", "import"])
                .arg(&result)
                .arg("--store")
                .arg(&store)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }
    assert_eq!(stored_runs(&store), 8);
}

#[test]
fn a_store_that_cannot_be_made_fails_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs.ndjson");
    write_docs(&docs, 5);
    // A store under a regular file cannot be created.
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, b"x").unwrap();
    let out = common::bin()
        .args([
            "ingest",
            "--url",
            node_url(),
            "--index",
            "reliability-unsaved",
            "--quiet",
        ])
        .arg("--file")
        .arg(&docs)
        .arg("--store")
        .arg(blocker.join("results.db"))
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("cannot be written") && all.contains("--no-store"),
        "{all}"
    );
    assert!(!all.contains("docs/s"), "it measured: {all}");
}

#[test]
fn an_os_error_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let result = import_shaped_result(dir.path());
    let store = dir.path().join("s.db");
    let imported = common::bin()
        .args(["results", "import"])
        .arg(&result)
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    let id = common::succeeded(&imported).trim().to_string();
    // A path under a regular file can be neither created nor written.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").unwrap();
    let result_path = result.display().to_string();
    for args in [
        vec!["report", &id, "--html", "file/r.html", "--store", "s.db"],
        // A store is created by the commands that write one.
        vec!["results", "import", &result_path, "--store", "file/s.db"],
    ] {
        let out = common::bin()
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let os = stderr.find("(os error").expect("the OS error is said");
        assert!(
            !stderr[os + 1..].contains("(os error"),
            "said twice: {stderr}"
        );
        let reason = stderr[..os].rsplit(": ").next().unwrap().trim();
        assert_eq!(stderr.matches(reason).count(), 1, "said twice: {stderr}");
    }
}

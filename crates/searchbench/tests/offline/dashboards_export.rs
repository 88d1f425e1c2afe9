//! `dashboards export` as a user meets it: the objects on stdout or in a file written whole,
//! and what it refuses (a folder, a bad prefix or metric), with the exit code of bad usage.

use serde_json::Value;

use crate::common::{bin, streams};

fn lines(text: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(text)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn export_writes_the_saved_objects_to_stdout_or_a_file_whole() {
    let out = bin()
        .args(["dashboards", "export", "--for", "opensearch"])
        .env_remove("SEARCHBENCH_PUBLISH_PREFIX")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let objects = lines(&out.stdout);
    let count = |t: &str| objects.iter().filter(|o| o["type"] == t).count();
    assert_eq!(
        (
            count("dashboard"),
            count("visualization"),
            count("index-pattern")
        ),
        (2, 12, 7)
    );
    assert!(objects
        .iter()
        .any(|o| o["id"] == "searchbench-time-docs_per_sec"));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.ndjson");
    std::fs::write(&file, "what was there\n").unwrap();
    let out = bin()
        .args([
            "dashboards",
            "export",
            "--for",
            "kibana",
            "--prefix",
            "team-x",
        ])
        .args([
            "--metric",
            "query.took_ms=took (ms)",
            "--metric",
            "docs_per_sec",
            "--json",
            "--out",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let said: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(said["visualizations"], 4, "{said}");
    let objects = lines(&std::fs::read(&file).unwrap());
    assert_eq!(objects.len(), said["objects"].as_u64().unwrap() as usize);
    let titles: Vec<&str> = objects
        .iter()
        .filter(|o| o["type"] == "visualization")
        .map(|o| o["attributes"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles[0], "team-x: took (ms) by time", "{titles:?}");
    // A metric's old name charts it under today's key, as `history` and `check` take it.
    let old = dir.path().join("old.ndjson");
    let out = bin()
        .args(["dashboards", "export", "--for", "kibana"])
        .args(["--metric", "throughput_docs_per_sec", "--out"])
        .arg(&old)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let text = std::fs::read_to_string(&old).unwrap();
    std::fs::remove_file(&old).unwrap();
    assert!(
        !text.contains("throughput_docs_per_sec"),
        "the old name charted"
    );
    assert!(text.contains("docs_per_sec"));
    // Nothing but the file is left in the folder.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, [std::ffi::OsString::from("k.ndjson")]);
}

#[test]
fn export_refuses_a_folder_a_bad_prefix_or_metric_as_bad_usage_writing_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("d.ndjson");
    for (args, says) in [
        (vec!["--out", dir.path().to_str().unwrap()], "is a folder"),
        (
            vec!["--prefix", "../x", "--out", file.to_str().unwrap()],
            "bad indices' prefix",
        ),
        (
            vec!["--metric", "a\"b", "--out", file.to_str().unwrap()],
            "bad metric key",
        ),
        (vec!["--json"], "--out"),
        (vec!["--json", "--out", "-"], "--out -"),
        (
            vec![
                "--metric",
                "docs_per_sec",
                "--metric",
                "docs_per_sec",
                "--out",
                file.to_str().unwrap(),
            ],
            "given twice",
        ),
    ] {
        let out = bin()
            .args(["dashboards", "export", "--for", "kibana"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", streams(&out));
        assert!(streams(&out).contains(says), "{args:?}: {}", streams(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!file.exists(), "{args:?}");
    }
}

//! Tracks written by a test and run on the shared node.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A definition of `schedule` over index `index` in `dir/folder`, a Rally track
/// (`track.json`, and `py` as its `track.py`) or an opensearch-benchmark workload
/// (`workload.json` with its test procedure, `workload.py`). In a folder of its name, as a track
/// is: the tools import its Python as that package.
pub fn write_definition(
    dir: &Path,
    folder: &str,
    osb: bool,
    index: &str,
    schedule: &str,
    py: Option<&str>,
) -> PathBuf {
    let dir = dir.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let (file, python, body) = if osb {
        (
            "workload.json",
            "workload.py",
            format!(
                r#""test_procedures": [{{"name": "{folder}", "default": true, "schedule": {schedule}}}]"#
            ),
        )
    } else {
        (
            "track.json",
            "track.py",
            format!(r#""schedule": {schedule}"#),
        )
    };
    let definition = format!(r#"{{"version": 2, "indices": [{{"name": "{index}"}}], {body}}}"#);
    std::fs::write(dir.join(file), definition).unwrap();
    if let Some(py) = py {
        std::fs::write(dir.join(python), py).unwrap();
    }
    dir.join(file)
}

/// Runs track `file` on the shared node with `args`, its result and store in `dir`: how it
/// ended, and its result (`null` when it wrote none).
pub fn run_track(dir: &Path, file: &Path, args: &[&str]) -> (std::process::Output, Value) {
    let json = dir.join("result.json");
    let out = super::bin()
        .args(["run", "--url", super::node_url(), "--quiet"])
        .args(args)
        .arg("--workload-file")
        .arg(file)
        .arg("--json")
        .arg(&json)
        .arg("--store")
        .arg(dir.join("results.db"))
        .output()
        .unwrap();
    let result = std::fs::read(&json).map_or(Value::Null, |b| serde_json::from_slice(&b).unwrap());
    (out, result)
}

/// Task `task`'s row in a track run's result.
pub fn row<'r>(result: &'r Value, task: &str) -> &'r Value {
    result["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["task"] == task)
        .unwrap_or_else(|| panic!("no task {task} in {result:#}"))
}

/// Index `index` is not on the shared node: a run that stopped first sent nothing (its first
/// task would have made it).
pub fn nothing_was_sent(index: &str) {
    let t = super::target();
    let reply =
        super::runtime().block_on(t.send(reqwest::Method::HEAD, &format!("/{index}"), None));
    assert!(
        matches!(&reply, Err(e) if e.status() == Some(404)),
        "the index exists: something was sent: {reply:?}"
    );
}

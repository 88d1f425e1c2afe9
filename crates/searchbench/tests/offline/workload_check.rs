//! `searchbench workload check`: what of a real track `run --workload-file` runs and what it
//! does not, before anything runs; `--challenge` and `--track-params` as the tools take them.

use serde_json::Value;

use crate::common::run;

fn fixture(path: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tracks")
        .join(path)
        .display()
        .to_string()
}

fn check_json(args: &[&str]) -> Value {
    let mut all = vec!["workload", "check"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = run(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("check --json prints JSON")
}

fn item<'c>(check: &'c Value, what: &str) -> &'c Value {
    check["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["what"] == what)
        .unwrap_or_else(|| panic!("no {what:?} in {check}"))
}

#[test]
fn a_real_track_is_listed_task_by_task_with_what_runs_and_why_not() {
    let check = check_json(&[&fixture("rally/geonames/track.json")]);
    assert_eq!(check["procedure"], "append-no-conflicts");
    assert_eq!(check["procedure_word"], "challenge");
    let load = item(&check, "task index-append (bulk)");
    assert_eq!(load["runs"], true);
    assert!(
        load["how"].as_str().unwrap().contains("8 client(s)"),
        "{load}"
    );
    let merge = item(&check, "task force-merge (force-merge)");
    assert_eq!(merge["runs"], false);
    let terms = item(&check, "task large_terms (search)");
    assert!(
        terms["how"].as_str().unwrap().contains("param-source"),
        "{terms}"
    );
    // The corpus is not downloaded: said, with its document count.
    let corpus = item(
        &check,
        "corpus geonames file documents-2.json.bz2, 11396503 documents",
    );
    assert_eq!(corpus["runs"], false);
    // Another challenge is chosen by name; OSB's word for it is taken too.
    let check = check_json(&[
        &fixture("rally/geonames/track.json"),
        "--test-procedure",
        "append-no-conflicts-index-only",
    ]);
    assert_eq!(check["procedure"], "append-no-conflicts-index-only");
    let check = check_json(&[&fixture("osb/big5/workload.json")]);
    assert_eq!(check["procedure_word"], "test procedure");
    assert_eq!(item(&check, "index big5")["runs"], true);
}

#[test]
fn the_text_view_counts_what_runs_and_an_unknown_challenge_is_refused() {
    let out = run(&["workload", "check", &fixture("osb/nyc_taxis/workload.json")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("(the default)"), "{text}");
    assert!(
        text.contains("tasks run; 0 of 1 corpus files are here"),
        "{text}"
    );
    assert!(text.contains("does not run:"), "{text}");
    let out = run(&[
        "workload",
        "check",
        &fixture("rally/pmc/track.json"),
        "--challenge",
        "nope",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no challenge named \"nope\"") && err.contains("append-no-conflicts"),
        "{err}"
    );
    // A parameter the track reads changes what runs; one it does not read is refused.
    let check = check_json(&[
        &fixture("rally/geonames/track.json"),
        "--track-params",
        "bulk_indexing_clients:3",
    ]);
    let load = item(&check, "task index-append (bulk)");
    assert!(
        load["how"].as_str().unwrap().contains("3 client(s)"),
        "{load}"
    );
    let out = run(&[
        "workload",
        "check",
        &fixture("rally/geonames/track.json"),
        "--track-params",
        "no_such:1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no_such"));
}

#[test]
fn track_flags_on_a_searchbench_workload_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.json");
    std::fs::write(&file, r#"{"corpus": {"generator": "logs"}}"#).unwrap();
    let out = run(&[
        "run",
        "--workload-file",
        file.to_str().unwrap(),
        "--challenge",
        "x",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("are for a Rally track"), "{err}");
}

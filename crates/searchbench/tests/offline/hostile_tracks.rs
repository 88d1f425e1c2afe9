//! A track from elsewhere is hostile until shown otherwise: every way it names a file (a
//! corpus's `source-file`, its corpus name, includes, `collect`, `glob`, index bodies) is held
//! to its folder, links resolved, with the one exception opensearch-benchmark needs (the
//! `common_operations` folder beside it). Refused with exit 2, naming the file and the rule,
//! before anything is read or sent.

use std::path::Path;

use searchbench::workload::folder::RULE;

use crate::common;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A track in `<tmp>/tracks/t/` whose one corpus names `source_file` (in corpus `corpus`).
fn track(root: &Path, corpus: &str, source_file: &str) -> std::path::PathBuf {
    let path = root.join("tracks/t/track.json");
    write(
        &path,
        &format!(
            r#"{{"version": 2, "indices": [{{"name": "t1"}}],
 "corpora": [{{"name": "{corpus}", "documents": [{{"source-file": "{source_file}", "document-count": 1, "target-index": "t1"}}]}}],
 "schedule": [{{"operation": {{"operation-type": "bulk", "bulk-size": 10}}, "clients": 1}}]}}"#
        ),
    );
    path
}

fn refused_naming(out: &std::process::Output, name: &str) {
    let streams = common::streams(out);
    assert_eq!(out.status.code(), Some(2), "{streams}");
    assert!(
        streams.contains(name) && streams.contains(RULE),
        "wanted {name:?} and the rule: {streams}"
    );
    assert!(!streams.contains("hunter2"), "{streams}");
}

#[test]
fn a_corpus_file_outside_the_tracks_folder_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("secret.json"), "{\"password\": \"hunter2\"}\n");
    write(
        &root.join("tracks/secret.json"),
        "{\"password\": \"hunter2\"}\n",
    );
    let corpus_dir = root.join("corpora");
    std::fs::create_dir_all(&corpus_dir).unwrap();
    // A link in the track's folder to a file outside it.
    std::fs::create_dir_all(root.join("tracks/t")).unwrap();
    std::os::unix::fs::symlink(root.join("secret.json"), root.join("tracks/t/link.json")).unwrap();
    let abs = root.join("secret.json").display().to_string();
    let cases: Vec<(&str, String)> = vec![
        ("c", "../../secret.json".into()),
        ("c", "../secret.json".into()),
        ("c", abs),
        ("c", "link.json".into()),
        ("../..", "secret.json".into()),
    ];
    for (corpus, source) in cases {
        let path = track(root, corpus, &source);
        let path = path.display().to_string();
        let check = common::run(&[
            "workload",
            "check",
            &path,
            "--corpus-dir",
            &corpus_dir.display().to_string(),
        ]);
        refused_naming(&check, if corpus == "c" { &source } else { corpus });
        let run = common::run(&[
            "run",
            "--workload-file",
            &path,
            "--url",
            &common::dead_url(),
            "--no-store",
            "--corpus-dir",
            &corpus_dir.display().to_string(),
        ]);
        refused_naming(&run, if corpus == "c" { &source } else { corpus });
    }
}

#[test]
fn includes_collects_globs_and_bodies_stay_in_the_folder_or_common_operations() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("home/.ssh/id.json"), "\"hunter2\"");
    let workloads = root.join("home/Downloads");
    write(
        &workloads.join("common_operations/setup.json"),
        r#"{"name": "setup", "operation-type": "delete-index"}"#,
    );
    write(
        &workloads.join("other/op.json"),
        r#"{"name": "x", "operation-type": "delete-index"}"#,
    );
    let track = workloads.join("x/workload.json");
    let body = |ops: &str, index_body: &str| {
        format!(
            r#"{{% import "benchmark.helpers" as benchmark %}}
{{"version": 2, "indices": [{{"name": "t1", "body": "{index_body}"}}],
 "operations": [{ops}],
 "schedule": [{{"operation": "setup"}}]}}"#
        )
    };
    write(&workloads.join("x/index.json"), "{}");
    // The last names an index body: `check` reads it, `render` (the track alone) does not.
    let cases = [
        (
            body(
                r#"{{ benchmark.collect(parts="../other/*.json") }}"#,
                "index.json",
            ),
            "../other",
        ),
        (
            body(
                r#"{{ benchmark.collect(parts="../../.ssh/*.json") }}"#,
                "index.json",
            ),
            "../../.ssh",
        ),
        (
            body(r#"{% include "../../.ssh/id.json" %}"#, "index.json"),
            "../../.ssh/id.json",
        ),
        (
            body(
                r#"{"name": "setup", "operation-type": "delete-index", "l": {{ glob("/etc/*") | tojson }}}"#,
                "index.json",
            ),
            "/etc",
        ),
        (
            body(
                r#"{{ benchmark.collect(parts="../common_operations/*.json") }}"#,
                "../../.ssh/id.json",
            ),
            "../../.ssh/id.json",
        ),
    ];
    let path = track.display().to_string();
    for (i, (text, name)) in cases.into_iter().enumerate() {
        write(&track, &text);
        refused_naming(&common::run(&["workload", "check", &path]), name);
        if i < 4 {
            refused_naming(&common::run(&["workload", "render", &path]), name);
        }
    }
    // common_operations beside the folder is the one exception.
    write(
        &track,
        &body(
            r#"{{ benchmark.collect(parts="../common_operations/*.json") }}"#,
            "index.json",
        ),
    );
    let out = common::run(&["workload", "check", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
}

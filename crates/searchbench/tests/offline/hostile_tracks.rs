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

/// A track of opensearch-benchmark's vector operations whose first task (`bulk-vector-data-set`
/// or `vector-search`) has `params` besides its index and field.
fn vector_track(root: &Path, kind: &str, params: &str) -> std::path::PathBuf {
    let path = root.join("tracks/v/workload.json");
    write(
        &path,
        &format!(
            r#"{{"version": 2, "indices": [{{"name": "v1"}}],
 "schedule": [{{"operation": {{"operation-type": "{kind}", "index": "v1", "field": "f", {params}}}, "clients": 2}}]}}"#
        ),
    );
    path
}

fn check(track: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["workload", "check"];
    let track = track.display().to_string();
    args.push(&track);
    args.extend_from_slice(extra);
    common::run(&args)
}

#[test]
fn a_vector_data_set_stays_in_the_tracks_folder_or_the_corpus_dir_and_is_checked_before_use() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // A bigann file of 4 rows of 2 values, outside the track's folder.
    let data = root.join("data");
    let mut bytes = 4u32.to_le_bytes().to_vec();
    bytes.extend(2u32.to_le_bytes());
    bytes.extend([0u8; 32]);
    write(&data.join("base.fbin"), "");
    std::fs::write(data.join("base.fbin"), &bytes).unwrap();
    let fields = |path: &str| {
        format!(r#""bulk_size": 2, "data_set_format": "bigann", "data_set_path": "{path}""#)
    };
    let absolute = data.join("base.fbin").display().to_string();
    for path in [absolute.as_str(), "../../data/base.fbin", "/etc/passwd"] {
        let t = vector_track(root, "bulk-vector-data-set", &fields(path));
        let out = check(&t, &[]);
        refused_naming(&out, path);
        assert!(
            common::streams(&out).contains("--corpus-dir"),
            "{}",
            common::streams(&out)
        );
    }
    // Given its folder, it runs: each client takes its share of the rows.
    let t = vector_track(root, "bulk-vector-data-set", &fields(&absolute));
    let data_dir = data.display().to_string();
    let out = check(&t, &["--corpus-dir", &data_dir]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(0), "{streams}");
    assert!(streams.contains("4 rows of"), "{streams}");
    assert!(streams.contains("until their share is sent"), "{streams}");
    // Relative to the corpus folder too.
    let t = vector_track(root, "bulk-vector-data-set", &fields("base.fbin"));
    let out = check(&t, &["--corpus-dir", &data_dir]);
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));

    // A file whose length its header does not give, named with what is wrong.
    std::fs::write(data.join("short.fbin"), &bytes[..20]).unwrap();
    let t = vector_track(root, "bulk-vector-data-set", &fields("short.fbin"));
    let out = check(&t, &["--corpus-dir", &data_dir]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(2), "{streams}");
    assert!(
        streams.contains("short.fbin: its header says 4 rows of 2 values"),
        "{streams}"
    );

    // Numbers out of their range, and a filter of no known form, refused by name.
    let search = |more: &str| {
        format!(
            r#""data_set_format": "bigann", "data_set_path": "base.fbin",
               "neighbors_data_set_path": "base.fbin", {more}"#
        )
    };
    for (kind, params, named) in [
        (
            "bulk-vector-data-set",
            fields("base.fbin").replace("2,", "0,"),
            "bulk_size",
        ),
        (
            "bulk-vector-data-set",
            fields("base.fbin").replace("2,", "1e12,"),
            "bulk_size",
        ),
        ("vector-search", search(r#""k": -5"#), "k:"),
        ("vector-search", search(r#""k": 99999999999"#), "k:"),
        (
            "vector-search",
            search(r#""k": 10, "repetitions": 0"#),
            "repetitions",
        ),
        (
            "vector-search",
            search(r#""k": 10, "num_vectors": "many""#),
            "num_vectors",
        ),
        (
            "vector-search",
            search(r#""k": 10, "filter_type": "sideways", "filter_body": {"term": {"a": 1}}"#),
            "filter_type \"sideways\"",
        ),
        // The neighbours must be a ground truth file.
        ("vector-search", search(r#""k": 10"#), "ends in .bin"),
    ] {
        let t = vector_track(root, kind, &params);
        let out = check(&t, &["--corpus-dir", &data_dir]);
        let streams = common::streams(&out);
        assert_eq!(out.status.code(), Some(2), "{params}: {streams}");
        assert!(
            streams.contains(named),
            "{params}: wanted {named:?}: {streams}"
        );
    }

    // An HDF5 data set is listed as not running, saying how to write it as bigann.
    let t = vector_track(
        root,
        "bulk-vector-data-set",
        r#""bulk_size": 2, "data_set_format": "hdf5", "data_set_path": "x.hdf5""#,
    );
    let out = check(&t, &[]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(0), "{streams}");
    assert!(
        streams.contains("HDF5 library") && streams.contains("--format bigann"),
        "{streams}"
    );
}

#[test]
fn a_request_timeout_or_poll_period_out_of_range_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for (params, named) in [
        (r#""request-timeout": -5"#, "request-timeout"),
        (r#""request-timeout": 1e300"#, "request-timeout"),
        (r#""request-timeout": "soon""#, "request-timeout"),
        (r#""mode": "polling", "poll-period": 0"#, "poll-period"),
        (r#""mode": "polling", "poll-period": "NaN""#, "poll-period"),
    ] {
        let path = dir.path().join("t/workload.json");
        write(
            &path,
            &format!(
                r#"{{"version": 2, "indices": [{{"name": "v1"}}],
 "schedule": [{{"operation": {{"operation-type": "force-merge", {params}}}}}]}}"#
            ),
        );
        let out = check(&path, &[]);
        let streams = common::streams(&out);
        assert_eq!(out.status.code(), Some(2), "{params}: {streams}");
        assert!(streams.contains(named), "{params}: {streams}");
    }
}

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

    // An HDF5 data set is read from the same folders, and runs once converted to bigann: the
    // run converts it first.
    let t = vector_track(
        root,
        "bulk-vector-data-set",
        r#""bulk_size": 2, "data_set_format": "hdf5", "data_set_path": "x.hdf5""#,
    );
    let out = check(&t, &[]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(0), "{streams}");
    assert!(streams.contains("x.hdf5 is not in"), "{streams}");
    std::fs::write(t.parent().unwrap().join("x.hdf5"), b"not yet read").unwrap();
    let out = check(&t, &[]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(0), "{streams}");
    assert!(
        streams.contains("1 of 1 tasks run")
            && streams.contains("once its HDF5 data set(s) are converted to bigann files")
            && streams.contains("x.hdf5 (train)"),
        "{streams}"
    );
    let t = vector_track(
        root,
        "bulk-vector-data-set",
        r#""bulk_size": 2, "data_set_format": "hdf5", "data_set_path": "../../data/base.fbin""#,
    );
    refused_naming(&check(&t, &[]), "../../data/base.fbin");
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

/// A track whose index `t1` has `mapping` and whose corpus file `docs.json.bz2` (of `count`
/// documents) is not here.
fn synthesized_track(root: &Path, mapping: &str, count: u64) -> std::path::PathBuf {
    let path = root.join("tracks/s/track.json");
    write(
        &path,
        &format!(
            r#"{{"version": 2, "indices": [{{"name": "t1", "body": "index.json"}}],
 "corpora": [{{"name": "c", "documents": [{{"source-file": "docs.json.bz2", "document-count": {count}, "target-index": "t1"}}]}}],
 "schedule": [{{"operation": {{"operation-type": "bulk", "bulk-size": 10}}, "clients": 1}}]}}"#
        ),
    );
    write(
        &root.join("tracks/s/index.json"),
        &format!(r#"{{"mappings": {mapping}}}"#),
    );
    path
}

/// `run --workload-file track` against a URL where nothing listens, its cache in `cache`.
fn run_on_nothing(cache: &Path, track: &Path) -> std::process::Command {
    let mut command = common::bin();
    command
        .env("SEARCHBENCH_CACHE", cache)
        .args([
            "run",
            "--no-store",
            "--url",
            &common::dead_url(),
            "--workload-file",
        ])
        .arg(track);
    command
}

#[test]
fn synthesize_refuses_what_it_cannot_make_before_anything_runs_and_check_says_what_it_will_make() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let cache = root.join("cache");
    let run =
        |track: &Path, more: &[&str]| run_on_nothing(&cache, track).args(more).output().unwrap();
    // A type it cannot write: exit 2 naming the field, the track and the file, nothing made.
    let track = synthesized_track(
        root,
        r#"{"properties": {"area": {"type": "geo_shape"}}}"#,
        10,
    );
    let out = run(&track, &["--synthesize"]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(2), "{streams}");
    for word in [
        "area",
        "geo_shape",
        "track.json",
        "corpus c file docs.json.bz2",
    ] {
        assert!(streams.contains(word), "{word}: {streams}");
    }
    assert!(!cache.join("synthesized").exists(), "{streams}");
    // Without --synthesize the absent file is refused as before, naming where it comes from.
    let track = synthesized_track(root, r#"{"properties": {"n": {"type": "long"}}}"#, 10);
    let out = run(&track, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
    assert!(common::streams(&out).contains("documents are not here"));
    // `workload check --synthesize` says what the run will make, and makes nothing.
    let check = common::bin()
        .env("SEARCHBENCH_CACHE", &cache)
        .args(["workload", "check", "--synthesize"])
        .arg(&track)
        .output()
        .unwrap();
    let said = common::succeeded(&check);
    assert!(
        said.contains("synthesized at the run: 10 documents from the mapping of t1 alone"),
        "{said}"
    );
    assert!(!cache.join("synthesized").exists());
    // A sample that is a link out of the track's folder is refused by the folder rule.
    write(&root.join("secret.json"), "{\"password\": \"hunter2\"}\n");
    std::os::unix::fs::symlink(
        root.join("secret.json"),
        root.join("tracks/s/docs-1k.json.bz2"),
    )
    .unwrap();
    refused_naming(&run(&track, &["--synthesize"]), "docs-1k.json.bz2");
    std::fs::remove_file(root.join("tracks/s/docs-1k.json.bz2")).unwrap();
    // A document count no disk holds is refused before a byte is written.
    let track = synthesized_track(
        root,
        r#"{"properties": {"n": {"type": "long"}}}"#,
        u64::MAX / 4,
    );
    let out = run(&track, &["--synthesize"]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(2), "{streams}");
    assert!(streams.contains("GB free"), "{streams}");
}

#[test]
fn ctrl_c_while_synthesizing_exits_130_and_keeps_no_half_made_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let track = synthesized_track(
        dir.path(),
        r#"{"properties": {"n": {"type": "long"}, "k": {"type": "keyword"}, "t": {"type": "text"}}}"#,
        20_000_000,
    );
    let mut child = run_on_nothing(&cache, &track)
        .arg("--synthesize")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Until the file is being written.
    let started = std::time::Instant::now();
    let writing = || {
        std::fs::read_dir(cache.join("synthesized"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|d| std::fs::read_dir(d.path()).into_iter().flatten().count() > 0)
    };
    while !writing() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "never began"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = common::interrupt_and_wait(&mut child, std::time::Duration::from_secs(20));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("not finished and is not kept"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(cache.join("synthesized"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|f| f.path())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A track's names reach the terminal shown, never acted on: a challenge or task named with
/// escape sequences (retitle the window, clear the screen) is printed escaped by
/// `workload check`, on both streams.
#[test]
fn a_tracks_names_cannot_drive_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tracks/t/track.json");
    write(
        &path,
        r#"{"version": 2, "indices": [{"name": "t1"}],
 "challenges": [{"name": "\u001b]0;pwned\u0007\u001b[2Jc", "default": true,
   "schedule": [{"name": "task\u009b2J\r", "operation": {"operation-type": "refresh"}},
                {"name": "later", "operation": {"operation-type": "no-such-kind"}}]}]}"#,
    );
    let out = common::run(&["workload", "check", &path.display().to_string()]);
    let streams = common::streams(&out);
    assert!(
        !streams.contains(['\u{1b}', '\u{7}', '\u{9b}', '\r']),
        "{streams:?}"
    );
    assert!(
        streams.contains("\\u001b]0;pwned\\u0007\\u001b[2Jc"),
        "{streams}"
    );
}

/// A vector task's clients are checked before anything is sized by them: a trillion clients
/// is refused by name, not an allocation of 8 TB that aborts `workload check`.
#[test]
fn a_vector_tasks_clients_are_refused_before_anything_is_sized_by_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut bytes = 1u32.to_le_bytes().to_vec();
    bytes.extend(1u32.to_le_bytes());
    bytes.extend([0u8; 4]);
    let t = vector_track(
        root,
        "bulk-vector-data-set",
        r#""bulk_size": 10, "data_set_format": "bigann", "data_set_path": "v.fbin""#,
    );
    std::fs::write(t.parent().unwrap().join("v.fbin"), &bytes).unwrap();
    let text = std::fs::read_to_string(&t).unwrap();
    std::fs::write(
        &t,
        text.replace("\"clients\": 2", "\"clients\": 1000000000000"),
    )
    .unwrap();
    let out = check(&t, &[]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(2), "{streams}");
    assert!(
        streams.contains("clients: 1000000000000 is not accepted"),
        "{streams}"
    );
}

/// A raw request's statuses to ignore are HTTP statuses, or refused by name: 65940 is not
/// 404 (as a cut to 16 bits made it), nor is a word nothing.
#[test]
fn a_raw_requests_ignored_statuses_are_statuses_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tracks/t/track.json");
    for (ignore, refused) in [
        ("[65940]", Some("65940")),
        ("[\"404\"]", Some("\"404\"")),
        ("[404, 409]", None),
    ] {
        write(
            &path,
            &format!(
                r#"{{"version": 2, "indices": [{{"name": "t1"}}],
 "schedule": [{{"operation": {{"operation-type": "raw-request", "path": "/t1", "method": "DELETE", "ignore": {ignore}}}}}]}}"#
            ),
        );
        let out = check(&path, &[]);
        let streams = common::streams(&out);
        match refused {
            Some(v) => {
                assert_eq!(out.status.code(), Some(2), "{streams}");
                assert!(
                    streams.contains(&format!("ignore: {v} is not an HTTP status")),
                    "{streams}"
                );
            }
            None => assert_eq!(out.status.code(), Some(0), "{streams}"),
        }
    }
}

/// One body of a megabyte named by two hundred indices is rendered once and kept for each:
/// the track's files together are bounded, refused naming why, not kept until memory ends.
#[test]
fn a_large_body_named_by_many_indices_is_bounded_as_the_whole_track() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tracks/t/track.json");
    write(
        &path,
        r#"{"version": 2,
 "indices": [{% for i in range(200) %}{% if i %},{% endif %}{"name": "i{{ i }}", "body": "b.json"}{% endfor %}],
 "schedule": [{"operation": {"operation-type": "refresh"}}]}"#,
    );
    write(
        &path.with_file_name("b.json"),
        r#"{"settings": {"a": "{{ 'x' * 1000000 }}"}}"#,
    );
    let out = check(&path, &[]);
    let streams = common::streams(&out);
    assert_eq!(out.status.code(), Some(2), "{streams}");
    assert!(
        streams.contains("render to more than 128 MiB together"),
        "{streams}"
    );
    // Named by a few, it is read.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("range(200)", "range(3)")).unwrap();
    let out = check(&path, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
}

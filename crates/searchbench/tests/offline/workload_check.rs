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

/// `workload check` refuses the track at `path` as bad usage, naming the file and saying
/// `says`.
fn refused(path: &std::path::Path, says: &str) {
    let out = run(&["workload", "check", &path.display().to_string()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{says}: {err}");
    assert!(
        err.contains(&path.display().to_string()) && err.contains(says),
        "{says}: {err}"
    );
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
    // Its documents are not downloaded: the bulk cannot run, and says which file is not
    // where, and where it comes from.
    let load = item(&check, "task index-append (bulk)");
    assert_eq!(load["runs"], false);
    let how = load["how"].as_str().unwrap();
    assert!(
        how.starts_with("corpus geonames: documents-2.json.bz2 is not in ")
            && how.contains(
                "it comes from https://rally-tracks.elastic.co/geonames/documents-2.json.bz2"
            )
            && how.contains("never downloads"),
        "{load}"
    );
    let corpus = item(
        &check,
        "corpus geonames file documents-2.json.bz2, 11396503 documents",
    );
    assert_eq!(corpus["runs"], false);
    assert_eq!(corpus["how"], load["how"]);
    // Admin steps and searches run, with their clients, iterations and pace.
    let merge = item(&check, "task force-merge (force-merge)");
    assert_eq!(merge["runs"], true, "{merge}");
    let term = item(&check, "task term (search)");
    assert_eq!(
        term["how"],
        "1 client(s), 1000 iteration(s) each after 500 warm-up iteration(s), at 100 ops/s"
    );
    // A search whose body is the track's Python does not.
    let terms = item(&check, "task large_terms (search)");
    assert!(
        terms["how"].as_str().unwrap().contains("param-source"),
        "{terms}"
    );
    // Another challenge is chosen by name; OSB's word for it is taken too.
    let check = check_json(&[
        &fixture("rally/geonames/track.json"),
        "--test-procedure",
        "append-no-conflicts-index-only",
    ]);
    assert_eq!(check["procedure"], "append-no-conflicts-index-only");
    let check = check_json(&[&fixture("osb/big5/workload.json")]);
    assert_eq!(check["procedure_word"], "test procedure");
    assert_eq!(item(&check, "task match-all (search)")["runs"], true);
    // Rally's big5 loads a data stream from eight files: the task says how many are not
    // here and names the first few; each file is listed apart with where it comes from.
    let check = check_json(&[&fixture("rally/big5/track.json")]);
    let load = item(&check, "task bulk-index (bulk)");
    assert_eq!(load["runs"], false);
    let how = load["how"].as_str().unwrap();
    assert!(
        how.starts_with("corpus big5: 8 files are not in ")
            && how.contains("logs-1.ndjson.bz2, logs-2.ndjson.bz2, logs-3.ndjson.bz2 and 5 more")
            && how.contains("https://rally-tracks.elastic.co/big5/logs-1.ndjson.bz2"),
        "{how}"
    );
    for n in 1..=8 {
        let name = format!("corpus big5 file logs-{n}.ndjson.bz2,");
        let file = check["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["what"].as_str().unwrap().starts_with(&name))
            .unwrap_or_else(|| panic!("no {name} in {check}"));
        assert!(
            file["how"]
                .as_str()
                .unwrap()
                .contains(&format!("logs-{n}.ndjson.bz2 is not in")),
            "{file}"
        );
    }
}

#[test]
fn a_bulk_waiting_on_many_files_says_so_in_one_short_line() {
    // Before: a reason of one clause a file (32 KB for a bulk of 112 files).
    let dir = tempfile::tempdir().unwrap();
    let documents: Vec<String> = (0..112)
        .map(|i| format!(r#"{{"source-file": "docs-{i:03}.json.bz2", "document-count": 10}}"#))
        .collect();
    std::fs::write(
        dir.path().join("track.json"),
        format!(
            r#"{{"indices": [{{"name": "i"}}],
 "corpora": [{{"name": "c", "base-url": "https://example.org/c", "documents": [{}]}}],
 "schedule": [{{"operation": {{"name": "load", "operation-type": "bulk", "bulk-size": 10}}}}]}}"#,
            documents.join(",")
        ),
    )
    .unwrap();
    let track = dir.path().join("track.json").display().to_string();
    let check = check_json(&[&track]);
    let how = item(&check, "task load (bulk)")["how"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(how.len() < 400, "{} bytes: {how}", how.len());
    assert!(
        how.starts_with("corpus c: 112 files are not in ")
            && how.contains("docs-000.json.bz2, docs-001.json.bz2, docs-002.json.bz2 and 109 more")
            && how.contains("https://example.org/c/docs-000.json.bz2"),
        "{how}"
    );
    // Every file is still listed, each with where it comes from.
    let items = check["items"].as_array().unwrap();
    let files = items
        .iter()
        .filter(|i| i["what"].as_str().unwrap().starts_with("corpus c file "))
        .count();
    assert_eq!(files, 112);
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
    // With its documents here, the bulk runs, with the clients a track parameter gives it.
    let dir = tempfile::tempdir().unwrap();
    let track = dir.path().join("geonames");
    crate::common::copy_dir(std::path::Path::new(&fixture("rally/geonames")), &track);
    std::fs::write(track.join("documents-2.json"), "{\"name\": \"x\"}\n").unwrap();
    let file = track.join("track.json").display().to_string();
    let check = check_json(&[&file, "--track-params", "bulk_indexing_clients:3"]);
    let load = item(&check, "task index-append (bulk)");
    assert_eq!(load["runs"], true, "{load}");
    assert!(
        load["how"].as_str().unwrap().contains("3 client(s)"),
        "{load}"
    );
    let corpus = item(
        &check,
        "corpus geonames file documents-2.json.bz2, 11396503 documents",
    );
    assert_eq!(corpus["runs"], true, "{corpus}");
    // Downloaded elsewhere, in the tools' own layout (DIR/<corpus>/file, read as it ships):
    // found with --corpus-dir; in test mode its first 1,000 documents when no sample is here.
    let bare = dir.path().join("bare");
    crate::common::copy_dir(std::path::Path::new(&fixture("rally/geonames")), &bare);
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("geonames")).unwrap();
    std::fs::write(data.join("geonames/documents-2.json.bz2"), b"BZh9").unwrap();
    let bare_file = bare.join("track.json").display().to_string();
    let check = check_json(&[
        &bare_file,
        "--corpus-dir",
        &data.display().to_string(),
        "--test-mode",
    ]);
    let corpus = item(
        &check,
        "corpus geonames file documents-2.json.bz2, 11396503 documents",
    );
    assert_eq!(corpus["runs"], true, "{corpus}");
    assert!(
        corpus["how"]
            .as_str()
            .unwrap()
            .ends_with("geonames/documents-2.json.bz2 (its first 1000 documents)"),
        "{corpus}"
    );
    let out = run(&[
        "workload",
        "check",
        &bare_file,
        "--corpus-dir",
        "/nonexistent",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--corpus-dir /nonexistent: not a folder")
    );
    // A parameter the track does not read is refused.
    let out = run(&["workload", "check", &file, "--track-params", "no_such:1"]);
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
    assert!(err.contains("--challenge is for a Rally track"), "{err}");
    // Nor are they read, in silence, by a built-in workload.
    let out = run(&[
        "run",
        "logs",
        "--test-mode",
        "--synthesize",
        "--url",
        "http://127.0.0.1:1",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--test-mode and --synthesize are for a Rally track"),
        "{err}"
    );
}

#[test]
fn tasks_fed_by_the_tracks_python_are_listed_as_not_run_and_an_empty_body_is_no_body() {
    // Before: the raw-request without a path refused the whole track (exit 2); the search with
    // a param-source and a written body was planned as written (an empty model_id sent); the
    // empty body was read as the track's folder ("Is a directory"); a target-throughput of 0
    // was refused, where both tools take it as no target.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("track.json"),
        r#"{"indices": [{"name": "vectors", "body": "{{ index_body }}"}],
 "operations": [
  {"name": "deploy", "operation-type": "raw-request", "param-source": "model-deploy", "method": "POST"},
  {"name": "neural", "operation-type": "search", "param-source": "neural-query",
   "body": {"query": {"neural": {"v": {"model_id": "", "k": 10}}}}},
  {"name": "bulk-vectors", "operation-type": "bulk", "param-source": "random-vectors", "bulk-size": 100},
  {"name": "all", "operation-type": "search", "body": {"query": {"match_all": {}}}}],
 "challenges": [{"name": "c", "default": true, "schedule": [
  {"operation": "create-index-op"},
  {"operation": "deploy"},
  {"operation": "bulk-vectors"},
  {"operation": "neural", "clients": 2},
  {"operation": "all", "target-throughput": 0, "iterations": 5}]}]}"#
            .replace(
                r#"{"operation": "create-index-op"},"#,
                r#"{"operation": {"operation-type": "create-index"}},"#,
            ),
    )
    .unwrap();
    let track = dir.path().join("track.json").display().to_string();
    let check = check_json(&[&track]);
    for (task, source) in [
        ("task deploy (raw-request)", "model-deploy"),
        ("task neural (search)", "neural-query"),
        ("task bulk-vectors (bulk)", "random-vectors"),
    ] {
        let it = item(&check, task);
        assert_eq!(it["runs"], false, "{it}");
        let how = it["how"].as_str().unwrap();
        assert!(
            how.contains(&format!("param-source {source}")) && how.contains("Python"),
            "{it}"
        );
    }
    let create = item(&check, "task create-index (create-index)");
    assert_eq!(create["runs"], true, "{create}");
    let all = item(&check, "task all (search)");
    assert_eq!(all["runs"], true, "{all}");
    assert!(!all["how"].as_str().unwrap().contains("ops/s"), "{all}");
    // The index with an empty body is read, with an empty one, as the tools read it.
    let d = searchbench::workload::track::read(&dir.path().join("track.json"), &Default::default())
        .unwrap();
    assert_eq!(d.index_bodies["vectors"], serde_json::json!({}));
}

#[test]
fn check_says_which_steps_need_which_engine_module() {
    // Rally's nyc_taxis: scaled_float (mapper-extras) in the index its create-index makes,
    // auto_date_histogram (aggregations) in its searches; Elasticsearch's distribution on
    // Maven Central has neither module.
    let check = check_json(&[&fixture("rally/nyc_taxis/track.json")]);
    let needs = check["needs"].as_array().unwrap();
    let need = |module: &str| {
        needs
            .iter()
            .find(|n| n["module"] == module)
            .unwrap_or_else(|| panic!("no {module} in {needs:?}"))
    };
    assert_eq!(
        need("mapper-extras")["features"],
        serde_json::json!(["scaled_float"])
    );
    assert_eq!(
        need("mapper-extras")["tasks"],
        serde_json::json!(["create-index"])
    );
    assert_eq!(need("mapper-extras")["setup"], true);
    assert_eq!(
        need("aggregations")["features"],
        serde_json::json!(["auto_date_histogram"])
    );
    assert_eq!(need("aggregations")["setup"], false);
    let out = run(&["workload", "check", &fixture("rally/nyc_taxis/track.json")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("engine modules it needs")
            && text.contains("mapper-extras (scaled_float): task create-index")
            && text.contains("--url"),
        "{text}"
    );
    // A track that needs none says nothing of modules.
    let check = check_json(&[&fixture("rally/pmc/track.json")]);
    assert_eq!(check["needs"], serde_json::json!([]));
}

/// A track as it ships that gives a key twice (a rendered `parameters` block repeating one)
/// is taken as Rally and opensearch-benchmark take it, the last kept, with a warning naming
/// the file and the object; a workload file of the user's own keeps the refusal.
#[test]
fn a_key_twice_in_a_shipped_track_is_warned_of_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let track = dir.path().join("track.json");
    std::fs::write(
        &track,
        r#"{"operations": [{"name": "q", "operation-type": "search", "index": "logs",
            "body": {"query": {"match_all": {}}, "size": 1, "size": 10}}],
          "schedule": [{"operation": "q", "clients": 1, "clients": 2, "iterations": 5}]}"#,
    )
    .unwrap();
    let out = run(&["workload", "check", &track.display().to_string()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning:")
            && err.contains("operations[0].body: the key \"size\" is given twice")
            && err.contains("schedule[0]: the key \"clients\""),
        "{err}"
    );
}

/// A track of the operation types issue 101 added (ES|QL, SQL, transforms, opensearch-benchmark's
/// pipeline operations, a bulk through a pipeline and of part of its corpus): each runs, says
/// how, and the x-pack modules it needs are named; what the track gets wrong in them is refused
/// naming the file and the task.
#[test]
fn esql_sql_transforms_and_pipeline_operations_run_and_their_mistakes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let track = |schedule: &str| {
        format!(
            r#"{{"version": 2,
  "indices": [{{"name": "logs"}}],
  "corpora": [{{"name": "c", "documents": [{{"source-file": "docs.json", "document-count": 10}}]}}],
  "schedule": [{schedule}]}}"#
        )
    };
    std::fs::write(dir.path().join("docs.json"), "{\"n\": 1}\n".repeat(10)).unwrap();
    let path = dir.path().join("track.json");
    std::fs::write(
        &path,
        track(
            r#"{"operation": {"name": "load", "operation-type": "bulk", "bulk-size": 5,
                "pipeline": "stamp", "ingest-percentage": 50}},
             {"operation": {"name": "q", "operation-type": "esql", "query": "FROM logs | LIMIT 1"}},
             {"operation": {"name": "s", "operation-type": "sql", "body": {"query": "SELECT 1"}, "pages": 2}},
             {"operation": {"name": "ct", "operation-type": "create-transform", "transform-id": "t",
                "body": {"source": {"index": "logs"}}}},
             {"operation": {"name": "st", "operation-type": "start-transform", "transform-id": "t"}},
             {"operation": {"name": "wt", "operation-type": "wait-for-transform", "transform-id": "t"}},
             {"operation": {"name": "dt", "operation-type": "delete-transform", "transform-id": "t"}},
             {"operation": {"name": "dp", "operation-type": "delete-pipeline", "id": "stamp"}},
             {"operation": {"name": "sp", "operation-type": "create-search-pipeline", "id": "p",
                "body": {"request_processors": []}}}"#,
        ),
    )
    .unwrap();
    let check = check_json(&[&path.display().to_string()]);
    for task in [
        "q (esql)",
        "s (sql)",
        "ct (create-transform)",
        "st (start-transform)",
        "wt (wait-for-transform)",
        "dt (delete-transform)",
        "dp (delete-pipeline)",
        "sp (create-search-pipeline)",
    ] {
        let i = item(&check, &format!("task {task}"));
        assert_eq!(i["runs"], true, "{i}");
    }
    let load = item(&check, "task load (bulk)");
    assert_eq!(load["runs"], true, "{load}");
    assert!(
        load["how"]
            .as_str()
            .unwrap()
            .contains("into logs through pipeline stamp"),
        "{load}"
    );
    let needs: Vec<&str> = check["needs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["module"].as_str().unwrap())
        .collect();
    for module in ["x-pack-esql", "x-pack-sql", "x-pack-transform"] {
        assert!(needs.contains(&module), "{module} not in {needs:?}");
    }

    for (schedule, says) in [
        (
            r#"{"operation": {"name": "q", "operation-type": "esql"}}"#,
            "task q (esql): esql needs its query",
        ),
        (
            r#"{"operation": {"name": "s", "operation-type": "sql", "body": {"query": "x"}, "pages": 0}}"#,
            "task s (sql): sql: pages 0",
        ),
        (
            r#"{"operation": {"name": "dp", "operation-type": "delete-pipeline", "id": "a/../b"}}"#,
            "task dp (delete-pipeline): delete-pipeline: id \"a/../b\" is not one path segment",
        ),
        (
            r#"{"operation": {"name": "load", "operation-type": "bulk", "ingest-percentage": 0}}"#,
            "task load (bulk): ingest-percentage: 0 is not above 0",
        ),
        (
            r#"{"operation": {"name": "load", "operation-type": "bulk", "pipeline": 7}}"#,
            "task load (bulk): pipeline: 7 is not a pipeline's id",
        ),
    ] {
        std::fs::write(&path, track(schedule)).unwrap();
        refused(&path, says);
    }
    // A value of megabytes where a word belongs is named by its first 200 bytes, not quoted
    // whole.
    for (key, value) in [("pipeline", "[\"p\", 1]"), ("conflicts", "\"p\"")] {
        let huge = value.replace('p', &"p".repeat(1 << 20));
        let schedule = format!(
            r#"{{"operation": {{"name": "load", "operation-type": "bulk", "{key}": {huge}}}}}"#
        );
        std::fs::write(&path, track(&schedule)).unwrap();
        let says = format!("task load (bulk): {key}: {}", &huge[..20]);
        refused(&path, &says);
        let out = run(&["workload", "check", &path.display().to_string()]);
        assert!(out.stderr.len() < 4096, "{key}: {} bytes", out.stderr.len());
    }
}

/// An operation type neither searchbench nor the tool runs is not run, unless a `track.py` is
/// beside the track, whose runner for it runs in the worker (the run checks it registers one);
/// one the tool runs itself runs in the worker by the tool's runner, Python or not; a type
/// searchbench runs stays its own with the Python beside.
#[test]
fn an_unknown_operation_type_runs_in_the_worker_only_with_the_tracks_python_beside() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("track.json");
    std::fs::write(
        &path,
        r#"{"version": 2, "indices": [{"name": "logs"}],
  "schedule": [{"operation": {"name": "eq", "operation-type": "eql", "index": "logs"}, "clients": 3},
               {"operation": {"name": "fc", "operation-type": "field-caps"}},
               {"operation": {"name": "h", "operation-type": "cluster-health"}}]}"#,
    )
    .unwrap();
    let eql = |check: &Value| item(check, "task eq (eql)").clone();
    let before = check_json(&[&path.display().to_string()]);
    let without = eql(&before);
    let flags = |i: &Value| (i["runs"].as_bool(), i["worker"].as_bool().unwrap_or(false));
    assert_eq!(flags(&without), (Some(false), false), "{without}");
    assert!(
        without["how"]
            .as_str()
            .unwrap()
            .contains("does not run yet"),
        "{without}"
    );

    std::fs::write(
        dir.path().join("track.py"),
        "def register(registry):\n    pass\n",
    )
    .unwrap();
    let check = check_json(&[&path.display().to_string()]);
    let with = eql(&check);
    assert_eq!(flags(&with), (Some(true), true), "{with}");
    let how = with["how"].as_str().unwrap();
    assert!(
        how.contains("3 client(s), in the worker: the runner the track's Python has for eql"),
        "{with}"
    );
    // A type the tool runs itself runs in the worker, with or without the track's Python.
    for check in [&before, &check] {
        let caps = item(check, "task fc (field-caps)");
        assert_eq!(flags(caps), (Some(true), true), "{caps}");
        assert!(
            caps["how"]
                .as_str()
                .unwrap()
                .contains("the runner the tool"),
            "{caps}"
        );
    }
    let health = item(&check, "task h (cluster-health)");
    assert_eq!(flags(health), (Some(true), false), "{health}");
    assert!(
        !check.to_string().contains("track processors"),
        "a track.py that registers none: {check}"
    );

    // A track.py that registers a processor: check says it is applied before the run.
    std::fs::write(
        dir.path().join("track.py"),
        "def register(registry):\n    registry.register_track_processor(object())\n",
    )
    .unwrap();
    let check = check_json(&[&path.display().to_string()]);
    let processors = item(&check, "track.py: track processors");
    assert_eq!(flags(processors), (Some(true), true), "{processors}");
    assert!(
        processors["how"].as_str().unwrap().contains(
            "esrally loads the track in the worker and the challenge runs as they leave it"
        ),
        "{processors}"
    );
}

/// A bulk's id conflicts (Rally's `conflicts`, `conflict-probability`, `on-conflict`,
/// `recency`) run as Rally reads them, say how, and what Rally refuses is refused: a data
/// stream, a file with its own action lines, values out of range.
#[test]
fn a_bulk_with_id_conflicts_runs_and_what_rally_refuses_is_refused() {
    // geonames' own: planned, waiting only for its corpus.
    let check = check_json(&[
        &fixture("rally/geonames/track.json"),
        "--challenge",
        "append-fast-with-conflicts",
    ]);
    let update = item(&check, "task index-update (bulk)");
    let how = update["how"].as_str().unwrap();
    assert!(
        how.starts_with("corpus geonames: documents-2.json.bz2 is not in "),
        "{update}"
    );

    let dir = tempfile::tempdir().unwrap();
    let track = |documents: &str, targets: &str, op: &str| {
        format!(
            r#"{{"version": 2, {targets},
  "corpora": [{{"name": "c", "documents": [{{"source-file": "docs.json", "document-count": 10{documents}}}]}}],
  "schedule": [{{"operation": {{"name": "load", "operation-type": "bulk", "bulk-size": 5{op}}}}}]}}"#
        )
    };
    let index = r#""indices": [{"name": "logs"}]"#;
    std::fs::write(dir.path().join("docs.json"), "{\"n\": 1}\n".repeat(10)).unwrap();
    let path = dir.path().join("track.json");
    std::fs::write(
        &path,
        track(
            "",
            index,
            r#", "conflicts": "random", "conflict-probability": "7", "on-conflict": "update", "recency": 0.5"#,
        ),
    )
    .unwrap();
    let load = item(
        &check_json(&[&path.display().to_string()]),
        "task load (bulk)",
    )
    .clone();
    assert_eq!(load["runs"], true, "{load}");
    assert!(
        load["how"].as_str().unwrap().ends_with(
            "5 documents per request, random ids, 7% sent as updates of ids already used \
             (recency 0.5)"
        ),
        "{load}"
    );
    // Empty, as a template leaves it when the track parameter is not set: no conflicts.
    std::fs::write(&path, track("", index, r#", "conflicts": """#)).unwrap();
    let load = item(
        &check_json(&[&path.display().to_string()]),
        "task load (bulk)",
    )
    .clone();
    assert!(
        load["how"].as_str().unwrap().ends_with("per request"),
        "{load}"
    );

    let stream = r#""data-streams": [{"name": "logs-x"}]"#;
    for (documents, targets, op, says) in [
        (
            "",
            index,
            r#", "conflicts": "often""#,
            "task load (bulk): conflicts: \"often\" is not sequential or random",
        ),
        (
            "",
            index,
            r#", "conflicts": "random", "conflict-probability": 101"#,
            "task load (bulk): conflict-probability: 101 is not a number from 0 to 100",
        ),
        (
            "",
            index,
            r#", "conflicts": "sequential", "on-conflict": "upsert""#,
            "task load (bulk): on-conflict: \"upsert\" is not index or update",
        ),
        (
            "",
            index,
            r#", "conflicts": "sequential", "recency": -1"#,
            "task load (bulk): recency: -1 is not a number from 0 to 1",
        ),
        (
            r#", "target-data-stream": "logs-x""#,
            stream,
            r#", "conflicts": "sequential""#,
            "task load (bulk): conflicts cannot be used with data stream logs-x",
        ),
        (
            r#", "target-index": "logs", "includes-action-and-meta-data": true"#,
            index,
            r#", "conflicts": "sequential""#,
            "its documents carry their own action lines",
        ),
    ] {
        std::fs::write(&path, track(documents, targets, op)).unwrap();
        refused(&path, says);
    }
}

/// A bulk's time period, target throughput and Rally's `looped` are planned as the tools run
/// them (test mode cuts the period to 10 s and drops the target); a looped bulk with no time
/// period would never end and is refused.
#[test]
fn a_bulk_with_a_time_period_a_target_throughput_or_looped_says_how_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let track = |task: &str| {
        format!(
            r#"{{"version": 2, "indices": [{{"name": "logs"}}],
  "corpora": [{{"name": "c", "documents": [{{"source-file": "docs.json", "document-count": 10}}]}}],
  "schedule": [{{"name": "load", "operation": {{"operation-type": "bulk", "bulk-size": 5{task}}}]}}"#
        )
    };
    std::fs::write(dir.path().join("docs.json"), "{\"n\": 1}\n".repeat(10)).unwrap();
    let path = dir.path().join("track.json");
    let how = |args: &[&str]| {
        let mut all = vec![path.to_str().unwrap()];
        all.extend_from_slice(args);
        let check = check_json(&all);
        let load = item(&check, "task load (bulk)");
        assert_eq!(load["runs"], true, "{load}");
        load["how"].as_str().unwrap().to_string()
    };
    std::fs::write(
        &path,
        track(
            r#", "looped": true, "detailed-results": true}, "time-period": 30,
               "target-throughput": 2, "warmup-time-period": 5"#,
        ),
    )
    .unwrap();
    assert!(
        how(&[]).ends_with(
            "5 documents per request, at 2 requests/s, 5s of warm-up, for 30s, the corpus read \
             again each time it ends"
        ),
        "{}",
        how(&[])
    );
    assert!(
        how(&["--test-mode"])
            .ends_with("5 documents per request, for 10s, the corpus read again each time it ends"),
        "{}",
        how(&["--test-mode"])
    );
    // With no time period, in a parallel block another task completes: that task's end
    // ends it.
    std::fs::write(
        &path,
        r#"{"version": 2, "indices": [{"name": "logs"}],
  "corpora": [{"name": "c", "documents": [{"source-file": "docs.json", "document-count": 10}]}],
  "schedule": [{"parallel": {"completed-by": "nap", "tasks": [
    {"name": "load", "operation": {"operation-type": "bulk", "bulk-size": 5, "looped": true}},
    {"name": "nap", "operation": {"operation-type": "sleep", "duration": 1}}]}}]}"#,
    )
    .unwrap();
    assert!(
        how(&[]).contains("the corpus read again each time it ends"),
        "{}",
        how(&[])
    );
    // Random conflicts over a corpus read again: listed as not run yet.
    std::fs::write(
        &path,
        track(r#", "looped": true, "conflicts": "random"}, "time-period": 30"#),
    )
    .unwrap();
    let check = check_json(&[path.to_str().unwrap()]);
    let load = item(&check, "task load (bulk)");
    assert_eq!(load["runs"], false, "{load}");
    assert!(
        load["how"]
            .as_str()
            .unwrap()
            .contains("a looped bulk with random id conflicts does not run yet"),
        "{load}"
    );
    for (task, says) in [
        (
            r#", "looped": true}"#,
            "task load (bulk): looped with no time-period never ends",
        ),
        (
            r#", "looped": "yes"}, "time-period": 30"#,
            "task load (bulk): looped: \"yes\" is not true or false",
        ),
        (
            r#"}, "target-throughput": -1"#,
            "task load (bulk): target throughput",
        ),
    ] {
        std::fs::write(&path, track(task)).unwrap();
        refused(&path, says);
    }
}

/// A task's `schedule`: the tools' `poisson` paces at the target on average, a bulk's other
/// schedule does not run yet, a name the tools do not have is one the track's Python must
/// register (refused without a `track.py` beside, as the tools refuse it).
#[test]
fn a_tasks_schedule_is_said_and_one_no_scheduler_has_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("track.json");
    let write = |custom: &str| {
        std::fs::write(
            &path,
            format!(
                r#"{{"version": 2, "indices": [{{"name": "logs"}}],
  "schedule": [{{"operation": {{"name": "p", "operation-type": "search", "body": {{"query": {{"match_all": {{}}}}}}}}, "target-throughput": 10, "schedule": "poisson"}},
               {{"operation": {{"name": "b", "operation-type": "bulk", "bulk-size": 10}}, "schedule": "poisson"}},
               {{"operation": {{"name": "c", "operation-type": "search", "body": {{"query": {{"match_all": {{}}}}}}}}, "schedule": "{custom}"}}]}}"#
            ),
        )
        .unwrap();
    };
    write("deterministic");
    let check = check_json(&[&path.display().to_string()]);
    let how = |what: &str| item(&check, what)["how"].as_str().unwrap().to_string();
    assert!(
        how("task p (search)").contains("at 10 ops/s on average (poisson)"),
        "{check}"
    );
    let bulk = item(&check, "task b (bulk)");
    assert_eq!(bulk["runs"], false, "{bulk}");
    assert!(
        how("task b (bulk)").contains("bulk with schedule poisson"),
        "{bulk}"
    );

    write("my-scheduler");
    refused(
        &path,
        "schedule my-scheduler: no scheduler has that name (the tools' own are deterministic \
         and poisson; a track.py beside the track may register one)",
    );
    std::fs::write(
        dir.path().join("track.py"),
        "def register(registry):\n    pass\n",
    )
    .unwrap();
    let check = check_json(&[&path.display().to_string()]);
    let c = item(&check, "task c (search)");
    assert_eq!(
        (&c["runs"], &c["worker"]),
        (&Value::Bool(true), &Value::Bool(true)),
        "{c}"
    );
    assert!(
        c["how"]
            .as_str()
            .unwrap()
            .contains("due when scheduler my-scheduler of the track's Python says"),
        "{c}"
    );
}

//! Bad input gets a clear error (exit 2 naming the flag or field, its value and what is
//! accepted), never a crash, a silent clamp, a wait without end or a wrong count (issue 39).

use std::io::Read;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use searchbench::store::{State, Store};

use crate::common::{bin, interrupt_and_wait, node_url, scratch_store, streams, succeeded};

/// Exit 2, and stderr names every one of `needles`.
fn refused(out: &Output, needles: &[&str]) {
    let text = streams(out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for n in needles {
        assert!(stderr.contains(n), "no {n:?} in: {text}");
    }
    assert!(!stderr.contains("panicked"), "{text}");
}

#[test]
fn a_rate_outside_its_range_is_refused_with_the_range() {
    // 1e-300 overflowed a Duration in a worker; 1e-9 waited 3,000 years between requests.
    for rate in ["1e-300", "1e-9", "0", "-5", "2e9", "NaN", "inf"] {
        for (command, flag) in [
            (&["ingest", "logs", "--docs", "10"][..], "--rate"),
            (&["query", "logs", "--docs", "10"][..], "--rate"),
            (&["saturate", "logs", "--p99", "1s"][..], "--start-rate"),
        ] {
            let out = bin()
                .args(command)
                .arg(format!("{flag}={rate}"))
                .args(["--url", "http://127.0.0.1:9"])
                .output()
                .unwrap();
            refused(&out, &[rate, "0.01 to 1e9 per second"]);
        }
    }
}

#[test]
fn zero_query_passes_are_refused_not_raised_to_one() {
    let out = bin()
        .args(["query", "logs", "--docs", "10", "--passes", "0"])
        .args(["--url", "http://127.0.0.1:9"])
        .output()
        .unwrap();
    refused(&out, &["--passes", "0"]);
}

/// Loads `docs` logs documents into `index` on the shared node.
fn load_logs(index: &str, docs: &str) {
    succeeded(
        &bin()
            .args(["ingest", "logs", "--docs", docs, "--quiet", "--no-store"])
            .args(["--index", index, "--url", node_url()])
            .output()
            .unwrap(),
    );
}

#[test]
fn query_docs_other_than_the_index_count_are_refused_before_measuring() {
    let index = "searchbench-test-bad-docs";
    load_logs(index, "2500");
    // Was: "10504 wrong answers" after measuring every pass.
    let out = bin()
        .args(["query", "logs", "--docs", "10000", "--index", index])
        .args(["--url", node_url()])
        .output()
        .unwrap();
    refused(&out, &["holds 2500 documents", "--docs says 10000"]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("pass 1/"),
        "{}",
        streams(&out)
    );
    // The same corpus is measured.
    let out = bin()
        .args(["query", "logs", "--docs", "2500", "--index", index])
        .args(["--passes", "1", "--url", node_url()])
        .output()
        .unwrap();
    succeeded(&out);
}

#[test]
fn ctrl_c_stops_the_query_command_and_stores_it_interrupted() {
    let index = "searchbench-test-query-sigint";
    load_logs(index, "2000");
    let store = scratch_store();
    // Enough passes, paced, that the whole run would take minutes.
    let mut child = bin()
        .args(["query", "logs", "--docs", "2000", "--index", index])
        .args(["--passes", "1000", "--rate", "20", "--url", node_url()])
        .arg("--store")
        .arg(&store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first measurement pass runs.
    let mut stderr = child.stderr.take().unwrap();
    let mut seen = Vec::new();
    let started = Instant::now();
    while !String::from_utf8_lossy(&seen).contains("pass 1/") {
        let mut buf = [0u8; 1024];
        let n = stderr.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "ended before its first pass: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no first pass"
        );
    }
    std::thread::sleep(Duration::from_millis(500));
    let status = interrupt_and_wait(&mut child, Duration::from_secs(30));
    let mut rest = String::new();
    let _ = stderr.read_to_string(&mut rest);
    let text = format!("{}{rest}", String::from_utf8_lossy(&seen));
    assert_eq!(status.code(), Some(130), "{text}");
    assert!(!text.contains("pass 2/"), "went on after Ctrl-C: {text}");
    let runs = Store::open(&store)
        .unwrap()
        .list(&Default::default())
        .unwrap();
    assert_eq!(runs.len(), 1, "{text}");
    assert_eq!(runs[0].state, State::Interrupted, "{:?}", runs[0].error);
    let result = runs[0].result.as_ref().expect("the partial result is kept");
    assert_eq!(result["interrupted"], true);
}

/// `run --workload-file FILE` on a dead port: any refusal comes from reading the file.
fn run_workload(file: &std::path::Path) -> Output {
    run_workload_in(file, &std::env::temp_dir())
}

fn run_workload_in(file: &std::path::Path, cwd: &std::path::Path) -> Output {
    bin()
        .current_dir(cwd)
        .args([
            "run",
            "--url",
            "http://127.0.0.1:9",
            "--quiet",
            "--no-store",
        ])
        .arg("--workload-file")
        .arg(file)
        .output()
        .unwrap()
}

#[test]
fn workload_values_of_the_wrong_type_or_range_are_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let generator = |extra: &str| format!(r#"{{"corpus": {{"generator": "logs"{extra}}}}}"#);
    let with_defaults =
        |d: &str| format!(r#"{{"corpus": {{"generator": "logs", "docs": 10}}, "defaults": {d}}}"#);
    let with_slices = |v: &str| {
        format!(
            r#"{{"corpus": {{"generator": "logs", "docs": 10}}, "queries": {{"q": {{
                "body": {{"query": {{"match_all": {{}}}}}},
                "params": {{"time_slices": {{"field": "@timestamp", "slices": {v}}}}}}}}}}}"#
        )
    };
    let cases = [
        // Were the defaults (200,000 documents, seed 1).
        (
            generator(r#", "docs": -1"#),
            vec!["corpus.docs: -1", "1 or more"],
        ),
        (
            generator(r#", "docs": 0"#),
            vec!["corpus.docs: 0", "1 or more"],
        ),
        (
            generator(r#", "seed": "x""#),
            vec![r#"corpus.seed: "x""#, "0 or more"],
        ),
        // Was 1024.
        (
            with_defaults(r#"{"clients": 18446744073709551615}"#),
            vec!["defaults.clients: 18446744073709551615", "from 1 to 1024"],
        ),
        (
            with_defaults(r#"{"bulk_size": 0}"#),
            vec!["defaults.bulk_size: 0"],
        ),
        (
            with_defaults(r#"{"passes": 0}"#),
            vec!["defaults.passes: 0"],
        ),
        (
            with_defaults(r#"{"warmup": "soon"}"#),
            vec![r#"defaults.warmup: "soon""#],
        ),
        (
            with_defaults(r#"{"transports": ["carrier-pigeon"]}"#),
            vec!["carrier-pigeon"],
        ),
        // Were 4 slices.
        (
            with_slices("0"),
            vec!["time_slices.slices: 0", "from 1 to 10000"],
        ),
        (with_slices("-3"), vec!["time_slices.slices: -3"]),
        (with_slices("1e8"), vec!["time_slices.slices: 100000000.0"]),
        (
            with_slices(r#""abc""#),
            vec![r#"time_slices.slices: "abc""#],
        ),
    ];
    for (i, (text, needles)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("w{i}.json"));
        std::fs::write(&file, text).unwrap();
        let mut all = needles.clone();
        let name = format!("w{i}.json");
        all.push(&name);
        refused(&run_workload(&file), &all);
    }
}

#[test]
fn rally_values_out_of_range_are_refused_naming_the_track_field() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("docs.json"), "{\"a\":1}\n").unwrap();
    let track = |bulk_size: &str, task: &str| {
        format!(
            r#"{{"version": 2, "indices": [{{"name": "t"}}],
              "corpora": [{{"name": "c", "documents": [{{"source-file": "docs.json"}}]}}],
              "operations": [{{"name": "load", "operation-type": "bulk", "bulk-size": {bulk_size}}}],
              "schedule": [{{"operation": "load"{task}}}]}}"#
        )
    };
    // Were 1, 2 (the default) and ignored.
    for (text, needles) in [
        (
            track("0", ""),
            vec![
                "task load (bulk): bulk-size: 0 is not accepted",
                "1 or more",
            ],
        ),
        (
            track("10", r#", "clients": -4"#),
            vec!["schedule[0].clients", "-4", "expected u64"],
        ),
        (
            track("10", r#", "clients": 2000"#),
            vec!["clients: 2000", "from 1 to 1024"],
        ),
        (
            track("10", r#", "warmup-time-period": -10"#),
            vec!["schedule[0].warmup-time-period", "-10"],
        ),
    ] {
        let file = dir.path().join("track.json");
        std::fs::write(&file, text).unwrap();
        refused(&run_workload(&file), &needles);
    }
}

#[test]
fn workload_paths_that_leave_the_workload_folder_are_refused() {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("w");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(outer.path().join("secret.ndjson"), "{\"secret\":1}\n").unwrap();
    std::os::unix::fs::symlink(outer.path(), dir.join("up")).unwrap();
    for (files, how) in [
        (r#""../../../../etc/passwd""#, "leads out of"),
        (r#"["/etc/passwd"]"#, "is not inside"),
        (r#""up/secret.ndjson""#, "is a link out of"),
    ] {
        let file = dir.join("w.json");
        std::fs::write(&file, format!(r#"{{"corpus": {{"files": {files}}}}}"#)).unwrap();
        // From inside the folder, as a user would run it.
        let out = run_workload_in(&file, &dir);
        refused(&out, &["corpus.files", how, "the folder", "not read"]);
        // Nothing was read, so nothing was copied into a failure file.
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }
    let queries = dir.join("q.json");
    std::fs::write(
        &queries,
        r#"{"corpus": {"generator": "logs", "docs": 10}, "queries": "../q.json"}"#,
    )
    .unwrap();
    refused(&run_workload(&queries), &["queries", "leads out of"]);
}

#[test]
fn an_input_file_that_is_missing_or_a_folder_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.ndjson");
    for (file, why) in [
        (missing.as_path(), "No such file"),
        (dir.path(), "a folder, not a file"),
    ] {
        // Exit 2 as the README says of bad input (was 1), before any connection.
        let out = bin()
            .args(["ingest", "--url", "http://127.0.0.1:9", "--no-store"])
            .arg("--file")
            .arg(file)
            .output()
            .unwrap();
        refused(&out, &[&file.display().to_string(), why]);
    }
}

#[test]
fn a_failure_file_in_a_folder_that_does_not_exist_is_refused_and_no_folder_made() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.ndjson");
    std::fs::write(&input, "{\"a\":1}\nnot json\n").unwrap();
    let with_failures = |failures: &std::path::Path| {
        bin()
            .args(["ingest", "--url", node_url(), "--no-store", "--quiet"])
            .args(["--index", "searchbench-test-failures-nowhere"])
            .arg("--file")
            .arg(&input)
            .arg("--failures")
            .arg(failures)
            .output()
            .unwrap()
    };
    let nowhere = dir.path().join("no-such-dir/deeper/f.ndjson");
    let out = with_failures(&nowhere);
    refused(
        &out,
        &["--failures", "there is no folder", "no-such-dir/deeper"],
    );
    assert!(!dir.path().join("no-such-dir").exists());
    // A folder given as the failure file.
    let out = with_failures(dir.path());
    refused(&out, &["--failures", "a folder; give a file path"]);
}

/// A command run as a user that the permission bits apply to: `nobody` when the tests run as
/// root (root writes anywhere), else the current user.
fn as_unprivileged(mut cmd: std::process::Command) -> std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.uid(65534).gid(65534);
    }
    cmd
}

/// A store holding one complete run, in a folder of its own that everyone may read.
fn store_with_a_run() -> (tempfile::TempDir, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let folder = dir.path().join("store");
    std::fs::create_dir(&folder).unwrap();
    let db = folder.join("results.db");
    let store = Store::open(&db).unwrap();
    let id = store
        .begin_run(&searchbench::store::NewRun::new(
            searchbench::store::Kind::Ingest,
            "logs",
            serde_json::json!({}),
        ))
        .unwrap();
    store
        .finish_run(&id, &serde_json::json!({"counts": {"reconciled": true}}))
        .unwrap();
    // The last connection out folds the write-ahead log into the file and removes it.
    drop(store);
    (dir, db)
}

#[test]
fn a_store_in_a_read_only_folder_can_still_be_read() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, db) = store_with_a_run();
    let folder = db.parent().unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = std::fs::read(&db).unwrap();
    // Was: "attempt to write a readonly database" (the WAL switch and its -shm file).
    let mut list = bin();
    list.args(["results", "list", "--json"])
        .arg("--store")
        .arg(&db);
    let out = as_unprivileged(list).output().unwrap();
    let text = succeeded(&out);
    assert!(text.contains("\"logs\""), "{text}");
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file changed");
    // A measuring command refuses before it measures (was: a warning, then the whole run).
    let mut ingest = bin();
    ingest
        .args(["ingest", "logs", "--docs", "10", "--url", node_url()])
        .args(["--index", "searchbench-test-unwritable-store"])
        .arg("--store")
        .arg(&db)
        .current_dir(folder);
    let out = as_unprivileged(ingest).output().unwrap();
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("cannot be written") && text.contains("--no-store"),
        "{text}"
    );
    assert!(!text.contains("docs/s"), "it measured: {text}");
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn another_programs_sqlite_file_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    for (name, schema) in [
        (
            "accounts.db",
            "CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT);",
        ),
        // Its own `runs` table at user_version 0: the migration once failed on it and
        // printed the whole batch of SQL.
        (
            "runs.db",
            "CREATE TABLE runs (id INTEGER PRIMARY KEY, lap_ms INTEGER);",
        ),
    ] {
        let db = dir.path().join(name);
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(schema)
            .unwrap();
        let before = std::fs::read(&db).unwrap();
        for command in [
            &["results", "list"][..],
            &[
                "ingest",
                "logs",
                "--docs",
                "10",
                "--url",
                "http://127.0.0.1:9",
            ][..],
        ] {
            let out = bin()
                .args(command)
                .arg("--store")
                .arg(&db)
                .output()
                .unwrap();
            let text = streams(&out);
            assert_eq!(out.status.code(), Some(1), "{text}");
            assert!(
                text.contains("is not a searchbench results store")
                    && text.contains(&name.replace(".db", "")),
                "{text}"
            );
            assert!(!text.contains("CREATE TABLE"), "{text}");
            assert_eq!(std::fs::read(&db).unwrap(), before, "{name} changed");
            let journal: String = rusqlite::Connection::open(&db)
                .unwrap()
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))
                .unwrap();
            assert_eq!(journal, "delete", "{name} was switched to WAL");
        }
    }
}

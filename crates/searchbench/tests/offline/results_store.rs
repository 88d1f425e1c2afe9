//! The results store: round trip, migrations, and a run killed halfway.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use rusqlite::Connection;
use searchbench::store::{self, Filter, Kind, NewRun, State, Store, StoreError, MIGRATIONS};
use serde_json::json;

use crate::common::{bin, results};

fn new_run(workload: &str, tags: &[(&str, &str)]) -> NewRun {
    let mut r = NewRun::new(
        Kind::Ingest,
        workload,
        json!({"clients": 2, "bulk_docs": 500}),
    );
    r.seed = Some(7);
    r.tags = tags
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    r
}

#[test]
fn a_result_round_trips_with_its_timeline_tags_and_machine() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("sub/results.db")).unwrap();
    assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
    let result = results::ingest_result(8, 20_000.0, 0.05, 20.0, 1);
    let id = store
        .begin_run(&new_run("logs", &[("build", "a"), ("heap", "1g")]))
        .unwrap();
    assert_eq!(id.0.len(), 8);

    // While running: state running (this process is alive), no result yet.
    let row = store.get(&id.0).unwrap();
    assert_eq!(row.state, State::Running);
    assert!(row.result.is_none());
    let seconds = result["timeline"].as_array().unwrap();
    assert_eq!(store.append_timeline(&id, &seconds[..3]).unwrap(), 3);
    assert_eq!(store.timeline(&id).unwrap().len(), 3);

    store.finish_run(&id, &result).unwrap();
    let row = store.get(&id.0[..5]).unwrap(); // a prefix is enough
    assert_eq!(row.state, State::Complete);
    assert_eq!(row.engine.as_deref(), Some("opensearch-2.19.1"));
    assert_eq!(row.seed, Some(7));
    assert_eq!(row.tags.get("build").map(String::as_str), Some("a"));
    assert_eq!(row.config["clients"], 2);
    assert!(row.machine["cores"].as_u64().unwrap() >= 1);
    assert_eq!(
        row.result.as_ref().unwrap()["docs_per_sec"],
        result["docs_per_sec"]
    );
    // The final timeline replaces the streamed rows.
    assert_eq!(store.timeline(&id).unwrap().len(), seconds.len());
    assert_eq!(store.timeline(&id).unwrap()[4], seconds[4]);

    // Histograms come back byte for byte and decode to what was recorded.
    let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    for v in [120, 340, 560, 9_000_000] {
        h.record(v).unwrap();
    }
    let stored = searchbench::measure::SerializedHistogram::encode("service", "us", &h).unwrap();
    store
        .put_histograms(&id, std::slice::from_ref(&stored))
        .unwrap();
    let back = store.histograms(&id).unwrap();
    assert_eq!(back, vec![stored]);
    assert_eq!(back[0].decode().unwrap(), h);

    // Filters and selectors.
    let other = store
        .save(&new_run("transactions", &[("build", "b")]), &result)
        .unwrap();
    let failed = store
        .begin_run(&new_run("logs", &[("build", "a")]))
        .unwrap();
    store.fail_run(&failed, "target went away", None).unwrap();
    assert_eq!(store.list(&Filter::default()).unwrap().len(), 3);
    let logs = store
        .list(&Filter {
            workload: Some("logs".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(logs.len(), 2);
    let b = store
        .list(&Filter {
            tags: vec![("build".into(), "b".into())],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].id, other);
    let os = store
        .list(&Filter {
            engine: Some("opensearch".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(os.len(), 2, "the failed run has no engine");
    // A tag selector picks the complete runs only (not the failed one).
    let group = store.select("build=a").unwrap();
    assert_eq!(group.len(), 1);
    assert_eq!(group[0].id, id);
    assert_eq!(store.get(&failed.0).unwrap().state, State::Failed);
    assert!(matches!(
        store.get("ffffffffff"),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(store.get("not-hex"), Err(StoreError::NotFound(_))));
    assert!(matches!(
        store.select("build=zzz"),
        Err(StoreError::NoTagMatch(_))
    ));

    // Reopening keeps everything (and does not migrate again).
    drop(store);
    let store = Store::open(dir.path().join("sub/results.db")).unwrap();
    assert_eq!(store.list(&Filter::default()).unwrap().len(), 3);
}

#[test]
fn an_old_schema_is_migrated_and_a_newer_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        // A store as the first schema version left it, with one run in it.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute_batch("PRAGMA user_version = 1").unwrap();
        conn.execute(
            "INSERT INTO runs (id, kind, workload, status, started_unix, tool_version, machine, config, result)
             VALUES ('0123abcd', 'ingest', 'logs', 'complete', 1700000000, '0.0.1', '{}', '{}', '{\"docs_per_sec\": 5}')",
            [],
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
    let row = store.get("0123").unwrap();
    assert_eq!(row.result.unwrap()["docs_per_sec"], 5);
    // The table the second migration adds works.
    assert_eq!(
        store
            .append_timeline(&row.id, &[json!({"second": 0, "docs": 1})])
            .unwrap(),
        1
    );
    drop(store);

    let conn = Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(conn);
    match Store::open(&path) {
        Err(StoreError::NewerSchema { found: 99, .. }) => {}
        other => panic!("expected NewerSchema, got {other:?}"),
    }
}

#[test]
fn tags_and_default_path() {
    assert!(store::parse_tag("k=v").is_ok());
    assert!(store::parse_tag("kv").is_err());
    let p = store::default_path().unwrap();
    assert!(p.ends_with("results.db"));
}

/// This module's path as libtest names its tests (without the binary's crate name).
fn test_module() -> &'static str {
    module_path!().split_once("::").map_or("", |(_, m)| m)
}

/// Not a test by itself: the child process of the test below (does nothing otherwise).
#[test]
fn killed_run_child() {
    let Ok(db) = std::env::var("RESULTS_KILLED_CHILD_DB") else {
        return;
    };
    let store = Store::open(&db).unwrap();
    let id = store
        .begin_run(&new_run("logs", &[("case", "killed")]))
        .unwrap();
    let result = results::ingest_result(6, 10_000.0, 0.05, 20.0, 3);
    let seconds = result["timeline"].as_array().unwrap();
    for s in seconds.iter().take(4) {
        store.append_timeline(&id, std::slice::from_ref(s)).unwrap();
    }
    println!("READY {id}");
    std::thread::sleep(std::time::Duration::from_secs(120));
}

#[test]
fn a_run_killed_midway_leaves_a_readable_store_and_an_incomplete_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &format!("{}::killed_run_child", test_module()),
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("RESULTS_KILLED_CHILD_DB", &db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut id = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        // libtest prints "test <name> ... " on the same line first.
        if let Some((_, rest)) = line.split_once("READY ") {
            id = rest.split_whitespace().next().map(str::to_string);
            break;
        }
    }
    let id = id.expect("the child began a run");
    child.kill().unwrap(); // SIGKILL: no destructor, no cleanup
    child.wait().unwrap();
    // The WAL file is left behind as after a crash; the store opens and reads fine.
    let store = Store::open(&db).unwrap();
    let row = store.get(&id).unwrap();
    assert_eq!(row.state, State::Incomplete);
    assert_eq!(row.status, "running");
    assert!(row.result.is_none());
    assert_eq!(row.tags.get("case").map(String::as_str), Some("killed"));
    assert_eq!(store.timeline(&row.id).unwrap().len(), 4);
    // And the store still takes new runs.
    let next = store
        .save(&new_run("logs", &[]), &json!({"docs_per_sec": 1}))
        .unwrap();
    assert_eq!(store.get(&next.0).unwrap().state, State::Complete);
}

#[test]
fn merging_what_is_no_group_and_importing_a_store_into_itself_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let store = Store::open(&db).unwrap();
    // Two runs of one group that are not parts of one run: 1/2 and 2/3.
    for part in ["1/2", "2/3"] {
        let mut run = new_run("logs", &[]);
        run.config = json!({"clients": 1, "part": part, "group": "mixed"});
        store
            .save(
                &run,
                &json!({"docs_per_sec": 1.0, "counts": {"read": 1, "indexed": 1}}),
            )
            .unwrap();
    }
    // A part that says it indexed 2^64 - 1 documents (a store or file that lies).
    for part in ["1/2", "2/2"] {
        let mut run = new_run("logs", &[]);
        run.config = json!({"clients": 1, "part": part, "group": "lying"});
        let indexed = if part == "2/2" { u64::MAX } else { 1 };
        store
            .save(
                &run,
                &json!({"docs_per_sec": 1.0, "counts": {"read": 1, "indexed": indexed}}),
            )
            .unwrap();
    }
    // Two nights of a schedule, one part of two each; the second night began last.
    for night in ["nightly-29930520", "nightly-29931960"] {
        let mut run = new_run("logs", &[]);
        run.config = json!({"clients": 1, "part": "1/2", "group": night});
        store
            .save(
                &run,
                &json!({"docs_per_sec": 1.0, "counts": {"read": 1, "indexed": 1}}),
            )
            .unwrap();
    }
    drop(store);
    let run = |args: &[&str]| {
        let out = crate::common::bin()
            .args(args)
            .arg("--store")
            .arg(&db)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["results", "merge", "nosuch"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no part of group \"nosuch\""), "{err}");
    let (code, err) = run(&["results", "merge", "mixed"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not parts of one run"), "{err}");
    let (code, err) = run(&["results", "merge", "lying"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("part 2/2")
            && err.contains("its result `counts.indexed` is 18446744073709551615"),
        "{err}"
    );
    // The morning merge takes the newest night (a part missing: merged, incomplete, exit 3).
    let (code, err) = run(&["results", "merge", "--newest", "nightly-"]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("merging group nightly-29931960, the newest of nightly-*"),
        "{err}"
    );
    let (code, err) = run(&["results", "merge", "--newest", "weekly-"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no part of a group"), "{err}");
    let (code, err) = run(&["results", "import", db.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is the store runs are imported into"), "{err}");
    // Another program's SQLite file is not a store to import: named, nothing changed.
    let foreign = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER)")
        .unwrap();
    let (code, err) = run(&["results", "import", foreign.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a searchbench results store"), "{err}");
    // A view names the group that cannot be seen as one run.
    let (code, err) = run(&["compare", "group=mixed", "group=mixed"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not parts of one run"), "{err}");
}

#[test]
fn a_run_imported_while_it_ran_is_copied_again_once_it_has_ended() {
    let dir = tempfile::tempdir().unwrap();
    let (host, here) = (dir.path().join("host.db"), dir.path().join("here.db"));
    let store = Store::open(&host).unwrap();
    let id = store.begin_run(&new_run("logs", &[])).unwrap();
    let import = || {
        let out = crate::common::bin()
            .args(["results", "import"])
            .arg(&host)
            .arg("--store")
            .arg(&here)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let state = || Store::open_read(&here).unwrap().get(&id.0).unwrap().state;
    // A store that copied the run while it ran, and keeps that copy.
    let stale = dir.path().join("stale.db");
    Store::open(&stale)
        .unwrap()
        .import_runs(&store, &[])
        .unwrap();
    assert!(import().contains("copied 1 run(s)"));
    assert_eq!(
        state(),
        State::Incomplete,
        "copied while it ran: no process here runs it"
    );
    assert!(import().contains("copied 0 run(s)"), "nothing changed");
    store
        .finish_run(
            &id,
            &json!({"docs_per_sec": 1.0, "counts": {"read": 1, "indexed": 1}}),
        )
        .unwrap();
    assert!(import().contains("copied 1 run(s)"));
    assert_eq!(state(), State::Complete);
    // The stale copy never takes the ended run's place (its result, its figures).
    let out = crate::common::bin()
        .args(["results", "import"])
        .arg(&stale)
        .arg("--store")
        .arg(&here)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::common::streams(&out)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("copied 0 run(s)"));
    assert_eq!(state(), State::Complete);
    assert_eq!(
        Store::open_read(&here)
            .unwrap()
            .list(&Filter::default())
            .unwrap()
            .len(),
        1
    );
}

/// `--export-csv` is written of what the store keeps: refused beside `--no-store`, and a file
/// it cannot write is refused naming it, both before anything is sent (the URL answers nothing).
#[test]
fn export_csv_is_refused_beside_no_store_and_where_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let ingest = |store: &[&std::ffi::OsStr], csv: &std::path::Path| {
        let out = bin()
            .args([
                "ingest",
                "logs",
                "--url",
                "http://127.0.0.1:9",
                "--docs",
                "10",
            ])
            .args(store)
            .arg("--export-csv")
            .arg(csv)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let csv = dir.path().join("runs.csv");
    let stderr = ingest(&["--no-store".as_ref()], &csv);
    assert!(stderr.contains("--no-store"), "{stderr}");
    assert!(!csv.exists(), "a file made for a run that is refused");

    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, "x").unwrap();
    let db = dir.path().join("store.db");
    let stderr = ingest(
        &["--store".as_ref(), db.as_os_str()],
        &blocker.join("runs.csv"),
    );
    assert!(
        stderr.contains("--export-csv") && stderr.contains("not-a-folder"),
        "{stderr}"
    );
}

/// Not a test by itself: the child process of the test below, keeping one run in the store
/// `PROVENANCE_CHILD_DB` with the provenance of its own environment.
#[test]
fn provenance_child() {
    let Ok(db) = std::env::var("PROVENANCE_CHILD_DB") else {
        return;
    };
    let store = Store::open(&db).unwrap();
    let result = results::ingest_result(6, 10_000.0, 0.05, 20.0, 3);
    store.save(&new_run("logs", &[]), &result).unwrap();
}

/// Each run says who made it, where and in which CI job, read from its process's environment
/// (a team's own `SEARCHBENCH_CI_*`, or the system's variables), with no secret of a URL kept;
/// `results show` says it, `--where` asks for it (an unknown name is bad usage, naming the
/// ones there are), and a run copied into another store keeps it.
#[test]
fn each_run_keeps_who_made_it_and_where_and_views_ask_for_it_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let environments: [&[(&str, &str)]; 2] = [
        &[
            ("USER", "ana"),
            ("SEARCHBENCH_CI_SYSTEM", "drone"),
            ("SEARCHBENCH_CI_JOB", "nightly-3"),
            (
                "SEARCHBENCH_CI_URL",
                "https://bot:s3cret@ci.example/job/3?token=t0ken",
            ),
        ],
        &[
            ("USER", "ben"),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_JOB", "bench"),
            ("GITHUB_RUN_ID", "812"),
            ("GITHUB_SHA", "abc123"),
        ],
    ];
    for vars in environments {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &format!("{}::provenance_child", test_module())])
            .env_clear()
            .env("PROVENANCE_CHILD_DB", &db)
            .envs(vars.iter().copied())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let store = Store::open(&db).unwrap();
    let rows = store.list(&Filter::default()).unwrap();
    let made: Vec<searchbench::measure::provenance::Provenance> = rows
        .iter()
        .map(|r| searchbench::measure::provenance::Provenance::read(&r.machine))
        .collect();
    let (ben, ana) = (&made[0], &made[1]);
    assert_eq!((ana.user.as_str(), ben.user.as_str()), ("ana", "ben"));
    assert!(!ana.host.is_empty() && !ana.commit.is_empty(), "{ana:?}");
    let drone = ana.ci.as_ref().unwrap();
    assert_eq!(
        (drone.system.as_str(), drone.job.as_deref()),
        ("drone", Some("nightly-3"))
    );
    assert_eq!(drone.url.as_deref(), Some("https://ci.example/job/3"));
    let github = ben.ci.as_ref().unwrap();
    assert_eq!(
        (
            github.system.as_str(),
            github.pipeline.as_deref(),
            github.commit.as_deref()
        ),
        ("github-actions", Some("812"), Some("abc123"))
    );
    let stored = std::fs::read(&db).unwrap();
    assert!(!String::from_utf8_lossy(&stored).contains("s3cret"));

    let show = bin()
        .args(["results", "show", &rows[1].id.0, "--store"])
        .arg(&db)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(shown.contains(&format!("ana@{}", ana.host)), "{shown}");
    assert!(shown.contains("drone job nightly-3"), "{shown}");
    let list = |wanted: &[&str], from: &std::path::Path| {
        let mut cmd = bin();
        cmd.args(["results", "list", "--json", "--store"]).arg(from);
        for w in wanted {
            cmd.args(["--where", w]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        rows.iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(list(&["user=ana"], &db), [rows[1].id.0.clone()]);
    assert_eq!(
        list(&["ci=github-actions", "ci.pipeline=812"], &db),
        [rows[0].id.0.clone()]
    );
    assert!(list(&["user=ana", "ci=github-actions"], &db).is_empty());
    assert_eq!(list(&[&format!("host={}", ana.host)], &db).len(), 2);
    let bad = bin()
        .args(["results", "list", "--where", "hostname=x", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(
        said.contains("hostname") && said.contains("host, user"),
        "{said}"
    );

    // Copied into another store, a run keeps who made it.
    let copy = dir.path().join("copy.db");
    let out = bin()
        .args(["results", "import"])
        .arg(&db)
        .arg("--store")
        .arg(&copy)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(list(&["user=ben"], &copy), [rows[0].id.0.clone()]);
}

/// Runs ending at once in one store (the parts of a group on one host, each its own process)
/// each keep their engine build and their result: a writer waits its turn, none is refused
/// as "database is locked".
#[test]
fn runs_ending_together_in_one_store_are_all_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    Store::open(&db).unwrap();
    let engine = searchbench::measure::provenance::Engine::new("2.19.1", Some("abc"), None, None);
    let mut result = results::ingest_result(6, 10_000.0, 0.05, 20.0, 3);
    result["machine"] = json!({"cores": 2, "cpu_model": "x"});
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (db, engine, result) = (db.clone(), engine.clone(), result.clone());
            std::thread::spawn(move || {
                let store = Store::open(&db).unwrap();
                for _ in 0..15 {
                    let id = store.begin_run(&new_run("logs", &[])).unwrap();
                    store.set_engine(&id, &engine).unwrap();
                    store.finish_run(&id, &result).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let store = Store::open(&db).unwrap();
    let rows = store.list(&Filter::default()).unwrap();
    assert_eq!(rows.len(), 60);
    for r in rows {
        assert_eq!(r.state, State::Complete);
        let p = searchbench::measure::provenance::Provenance::read(&r.machine);
        assert_eq!(p.engine.as_ref(), Some(&engine), "{}", r.machine);
        assert_eq!(r.machine["cpu_model"], "x");
    }
}

/// Every number of `v` made up: each integer `int`, each fraction `float`.
fn made_up(v: &serde_json::Value, int: u64, float: f64) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => json!(float),
        Value::Number(_) => json!(int),
        Value::Array(a) => a.iter().map(|x| made_up(x, int, float)).collect(),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), made_up(x, int, float)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A result imported from a file that lies (every count 2^64 - 1 or 2^32 - 1, every figure
/// ±1e308), made from the real results of the oldest store kept (ingest, run and query
/// results), is imported, listed, shown, compared and reported without a panic (the binary
/// checks overflow), its figures short enough for a table.
#[test]
fn results_of_made_up_numbers_are_shown_compared_and_reported_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("fixture.db");
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::fs::copy(fixtures.join("store-0100004.db"), &fixture).unwrap();
    let real: Vec<serde_json::Value> = Store::open(&fixture)
        .unwrap()
        .list(&Filter::default())
        .unwrap()
        .into_iter()
        .filter_map(|r| r.result)
        .collect();
    assert!(real.len() >= 5, "{}", real.len());
    let db = dir.path().join("results.db");
    let run = |args: &[&str]| {
        let out = bin().args(args).arg("--store").arg(&db).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let lies = [(u64::MAX, 1e308), (u64::from(u32::MAX), -1e308)];
    for (i, result) in real.iter().enumerate() {
        for (j, (int, float)) in lies.iter().enumerate() {
            let file = dir.path().join(format!("made-up-{i}-{j}.json"));
            std::fs::write(&file, made_up(result, *int, *float).to_string()).unwrap();
            let ids: Vec<String> = (0..2)
                .map(|_| run(&["results", "import", file.to_str().unwrap()]))
                .map(|out| out.lines().next().unwrap_or_default().trim().to_string())
                .collect();
            run(&["results", "show", &ids[0]]);
            run(&["results", "show", &ids[0], "--json"]);
            run(&["compare", &ids[0], &ids[1]]);
            run(&["compare", &ids[0], &ids[1], "--json"]);
            run(&["report", &ids[0], &ids[1]]);
        }
    }
    let listed = run(&["results", "list"]);
    assert!(listed.contains("e308"), "{listed}");
    assert!(listed.lines().all(|l| l.chars().count() < 200), "{listed}");
}

/// `results show ID --json` of the store at `db`.
fn shown_json(db: &std::path::Path, id: &str) -> String {
    let out = bin()
        .args(["results", "show", id, "--json", "--store"])
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether the store at `db` (its file and its write-ahead log) holds `secret` anywhere.
fn holds(db: &std::path::Path, secret: &str) -> bool {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    [db.to_path_buf(), wal.into()]
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .any(|bytes| bytes.windows(secret.len()).any(|w| w == secret.as_bytes()))
}

/// A result or a store copied in from elsewhere (an older release's, another tool's) brings
/// no password in: every URL's in its result, configuration, error and tags is masked at the
/// store's door, so the store file keeps none; and a store written past the door shows none.
#[test]
fn a_password_in_what_is_imported_is_masked_at_the_stores_door() {
    let dir = tempfile::tempdir().unwrap();
    let secret = "hunter2secret";
    let url = format!("https://elastic:{secret}@10.0.0.5:9200");
    // A result file, the password in its target, a warning and a tag.
    let file = dir.path().join("result.json");
    let mut result = json!({"docs_per_sec": 1.0, "counts": {"read": 1, "indexed": 1},
        "target_url": url, "warnings": [format!("no route to {url}/_stats; gave up")]});
    std::fs::write(&file, result.to_string()).unwrap();
    let db = dir.path().join("results.db");
    let out = bin()
        .args(["results", "import", file.to_str().unwrap(), "--tag"])
        .arg(format!("from={url}"))
        .arg("--store")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let shown = shown_json(&db, &id);
    assert!(!shown.contains(secret), "{shown}");
    assert!(
        shown.contains("https://elastic:***@10.0.0.5:9200/_stats; gave up"),
        "{shown}"
    );
    assert!(!holds(&db, secret));

    // Another store whose run was written with the password (past our door).
    let other = dir.path().join("other.db");
    let store = Store::open(&other).unwrap();
    result["error"] = json!(format!("failed at {url}"));
    let run = store.save(&new_run("logs", &[]), &result).unwrap();
    drop(store);
    let conn = Connection::open(&other).unwrap();
    let raw = serde_json::to_string(&result).unwrap();
    conn.execute(
        "UPDATE runs SET result = ?2, config = ?3, error = ?4 WHERE id = ?1",
        rusqlite::params![run.0, raw, json!({"url": url}).to_string(), url],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO tags (run_id, key, value) VALUES (?1, 'from', ?2)",
        rusqlite::params![run.0, url],
    )
    .unwrap();
    // And what an instrument kept around its phase, and a timed list named by it.
    let kept = json!({"probe": {"detail": {"asked": url}}}).to_string();
    let timed = json!({format!("sent to {url}"): {"fields": [url], "rows": [[5, [1.5]]]}});
    conn.execute(
        "INSERT INTO phase_measurements (run_id, seq, phase, counts, seconds, kept, bounds, timed)
         VALUES (?1, 0, 'ingest', '{}', '{}', ?2, '{}', ?3)",
        rusqlite::params![run.0, kept, timed.to_string()],
    )
    .unwrap();
    drop(conn);
    assert!(holds(&other, secret));
    // Read where it is, its run shows none either.
    let shown = shown_json(&other, &run.0);
    assert!(!shown.contains(secret), "{shown}");
    assert!(
        shown.contains("\"asked\": \"https://elastic:***@"),
        "{shown}"
    );
    let phase = &serde_json::from_str::<serde_json::Value>(&shown).unwrap()["phases"][0];
    let list = &phase["timed"]["sent to https://elastic:***@10.0.0.5:9200"];
    assert_eq!(
        list["fields"][0], "https://elastic:***@10.0.0.5:9200",
        "{phase}"
    );
    assert_eq!(list["rows"], json!([[5, [1.5]]]), "{phase}");
    let copy = dir.path().join("copy.db");
    let out = bin()
        .args(["results", "import", other.to_str().unwrap(), "--store"])
        .arg(&copy)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let shown = shown_json(&copy, &run.0);
    assert!(!shown.contains(secret), "{shown}");
    assert!(shown.contains("elastic:***@"), "{shown}");
    assert!(!holds(&copy, secret));
}

/// A store with bad bytes in a run (its result no longer JSON, or not UTF-8, a word for a
/// number) and a run whose id is no run id still lists, shows and copies its other runs: a
/// damaged run reads as failed, its error naming what does not read; the one whose id cannot be a run's is named and left out
/// of an import (exit 2), the rest copied.
#[test]
fn one_damaged_run_hides_no_other_and_an_import_copies_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("damaged.db");
    let store = Store::open(&db).unwrap();
    let result = json!({"docs_per_sec": 1.0, "counts": {"read": 1, "indexed": 1}});
    let ids: Vec<_> = (0..5)
        .map(|_| store.save(&new_run("logs", &[]), &result).unwrap())
        .collect();
    drop(store);
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE runs SET result = '{not json' WHERE id = ?1",
        [&ids[1].0],
    )
    .unwrap();
    // Bytes that are not UTF-8 in its result, a word where its start's number was.
    conn.execute(
        "UPDATE runs SET result = CAST(X'7B22FF223A317D' AS TEXT), started_unix = 'yesterday'
         WHERE id = ?1",
        [&ids[3].0],
    )
    .unwrap();
    // And in a second of its timeline and of its telemetry; a tag of another run not UTF-8.
    conn.execute(
        "INSERT INTO timeline (run_id, second, data) VALUES (?1, 0, CAST(X'7BFF' AS TEXT))",
        [&ids[3].0],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO tags (run_id, key, value) VALUES (?1, 'host', CAST(X'61FF62' AS TEXT))",
        [&ids[0].0],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO telemetry (run_id, second, node, data) VALUES (?1, 2, 'n1', '{\"heap')",
        [&ids[3].0],
    )
    .unwrap();
    // A histogram whose name is not UTF-8.
    conn.execute(
        "INSERT INTO histograms (run_id, name, unit, encoding, data)
         VALUES (?1, CAST(X'73FF' AS TEXT), 'us', 'hdr-v2-deflate', X'00')",
        [&ids[4].0],
    )
    .unwrap();
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    conn.execute("UPDATE runs SET id = '../../x' WHERE id = ?1", [&ids[2].0])
        .unwrap();
    drop(conn);

    let store = Store::open(&db).unwrap();
    let rows = store.list(&Filter::default()).unwrap();
    assert_eq!(rows.len(), 5);
    let bad_bytes = store.get(&ids[3].0).unwrap();
    assert_eq!(
        (bad_bytes.state, bad_bytes.started_unix),
        (State::Failed, 0)
    );
    let why = bad_bytes.error.unwrap_or_default();
    assert_eq!(
        why,
        "its stored result is not UTF-8 (invalid utf-8 sequence of 1 bytes from index 2); \
         its stored start is not a whole number"
    );
    let damaged = store.get(&ids[1].0).unwrap();
    assert_eq!(damaged.state, State::Failed);
    assert!(damaged.result.is_none());
    let why = damaged.error.unwrap_or_default();
    assert!(
        why.starts_with("its stored result does not read (key must be a string at line 1"),
        "{why}"
    );
    let good = store.get(&ids[0].0).unwrap();
    assert_eq!(good.state, State::Complete);
    assert_eq!(good.tags["host"], "a\u{FFFD}b");
    let err = store.timeline(&ids[3]).unwrap_err().to_string();
    assert!(
        err.contains(&format!("run {}: its timeline's second 0:", ids[3].0)),
        "{err}"
    );
    let err = store.telemetry(&ids[3]).unwrap_err().to_string();
    assert!(
        err.contains(&format!("run {}: its telemetry at second 2:", ids[3].0)),
        "{err}"
    );
    let err = store.histograms(&ids[4]).unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "run {}: a stored histogram does not read",
            ids[4].0
        )),
        "{err}"
    );
    drop(store);

    // The site leaves out the page of each run it cannot make, says why, and writes the rest.
    let site = dir.path().join("site");
    let out = bin()
        .args(["site", "--json", "--store", db.to_str().unwrap(), "--out"])
        .arg(&site)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let left_out = said["left_out"].as_array().cloned().unwrap_or_default();
    assert_eq!(left_out.len(), 2, "{said}");
    assert!(
        err.contains("run \"../../x\": its id cannot name a page"),
        "{err}"
    );
    assert!(
        err.contains(&format!("run {}: a stored histogram", ids[4].0)),
        "{err}"
    );
    assert!(site
        .join("runs")
        .join(format!("{}.html", ids[0].0))
        .is_file());
    assert!(!site
        .join("runs")
        .join(format!("{}.html", ids[4].0))
        .exists());
    let pages = std::fs::read_dir(&site).unwrap().flatten();
    let config_pages: Vec<String> = pages
        .filter(|e| e.file_name().to_string_lossy().starts_with("config-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(config_pages.iter().any(|p| p.contains(&ids[0].0)));
    assert!(!config_pages
        .iter()
        .any(|p| p.contains(&format!("runs/{}.html", ids[4].0))));

    let copy = dir.path().join("copy.db");
    let out = bin()
        .args(["results", "import", db.to_str().unwrap(), "--store"])
        .arg(&copy)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("3 run(s) not copied (the others were): "),
        "{err}"
    );
    assert!(err.contains("run \"../../x\": not a run id"), "{err}");
    assert!(err.contains("its timeline's second 0"), "{err}");
    assert!(err.contains("a stored histogram does not read"), "{err}");
    let copied = Store::open(&copy)
        .unwrap()
        .list(&Filter::default())
        .unwrap();
    let state_of = |id: &str| copied.iter().find(|r| r.id.0 == id).map(|r| r.state);
    assert_eq!(copied.len(), 2);
    assert_eq!(state_of(&ids[0].0), Some(State::Complete));
    assert_eq!(state_of(&ids[1].0), Some(State::Failed));
}

/// A complete run whose phase does not read (its counts damaged, a histogram of a phase not
/// HDR's) is left out of the history, named with why, and the other runs make it: one damaged
/// run hides no other in `history` and on the site.
#[test]
fn a_complete_run_whose_phase_does_not_read_is_left_out_of_the_history_named() {
    use searchbench::analysis::history::{self, Axis, Selection};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let store = Store::open(&db).unwrap();
    let result = json!({"docs_per_sec": 100.0, "counts": {"read": 1, "indexed": 1}});
    let ids: Vec<_> = (0..4)
        .map(|_| store.save(&new_run("logs", &[]), &result).unwrap())
        .collect();
    drop(store);
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "INSERT INTO phase_measurements (run_id, seq, phase, counts, seconds)
         VALUES (?1, 0, 'ingest', '{', '{}')",
        [&ids[1].0],
    )
    .unwrap();
    drop(conn);
    let store = Store::open_read(&db).unwrap();
    let h = history::load(&store, &Selection::new(Axis::Time)).unwrap();
    assert_eq!(h.runs.len(), 3, "{:?}", h.excluded);
    assert!(
        h.excluded
            .iter()
            .any(|e| e.starts_with(&format!("{} (damaged: ", ids[1].0))),
        "{:?}",
        h.excluded
    );
}

/// A running row names its process by its pid and its mark: read where that pid is another
/// process (a store copied from another host or container, a pid reused), the run is
/// incomplete, not running for ever; the mark is the store's own, never in a view.
#[test]
fn a_running_row_is_running_only_while_its_own_process_is() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let store = Store::open(&db).unwrap();
    let id = store.begin_run(&new_run("logs", &[])).unwrap();
    let row = store.get(&id.0).unwrap();
    assert_eq!(row.state, State::Running, "this process runs it");
    assert!(row.machine.get("owner_mark").is_none(), "{}", row.machine);
    drop(store);
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE runs SET machine = json_set(machine, '$.owner_mark', 'another-boot:1') WHERE id = ?1",
        [&id.0],
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&db).unwrap();
    assert_eq!(store.get(&id.0).unwrap().state, State::Incomplete);
    let pruned = store.prune(i64::MAX, true).unwrap();
    assert_eq!((pruned.running, pruned.runs.len()), (0, 1));
}

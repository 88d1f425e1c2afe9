//! Honest results without an engine: error rules in verdicts, states from stored results,
//! units, and terminal output that fits and survives a closed pipe.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::results::{ingest_result, query_result, save};
use searchbench::analysis::compare::{compare, Side, Verdict};
use searchbench::store::{State, Store};

fn bin(db: &Path) -> Command {
    let mut cmd = crate::common::bin();
    cmd.env("SEARCHBENCH_STORE", db);
    cmd
}

#[test]
fn states_come_from_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let mut interrupted = ingest_result(20, 20_000.0, 0.05, 20.0, 1);
    interrupted["interrupted"] = true.into();
    let mut unreconciled = ingest_result(20, 20_000.0, 0.05, 20.0, 2);
    unreconciled["counts"]["reconciled"] = false.into();
    let mut wrong = query_result(40.0, 1);
    wrong["failures_total"] = 3.into();
    let mut failed_searches = query_result(40.0, 2);
    failed_searches["cells"][0]["errors"] = 30.into();
    let ok = ingest_result(20, 20_000.0, 0.05, 20.0, 3);
    for (result, state) in [
        (&interrupted, State::Interrupted),
        (&unreconciled, State::Failed),
        (&wrong, State::Failed),
        (&failed_searches, State::Failed),
        (&ok, State::Complete),
    ] {
        let id = save(&store, result, &[("t", "x")]);
        assert_eq!(store.get(&id).unwrap().state, state, "{id}");
    }
    // The runs that ended are in the tag group, the failed ones with their errors (left out,
    // a side's failing rounds would leave it judged on its clean ones); the interrupted one
    // is named as left out.
    let side = Side::load(&store, "t=x").unwrap();
    assert_eq!(side.run_ids.len(), 4);
    assert_eq!(side.excluded.len(), 1);
    assert!(
        side.excluded[0].contains("interrupted"),
        "{:?}",
        side.excluded
    );
    assert!(side.has_errors());
    // A run whose load reconciled and whose every search was answered fails on wrong answers
    // alone, told apart from every other failure (`baseline` counts it beside the complete).
    let run_of = |load: &serde_json::Value, query: &serde_json::Value| {
        let mut r = load.clone();
        r["query"] = query.clone();
        r
    };
    let mut unanswered = wrong.clone();
    unanswered["cells"][0]["errors"] = 30.into();
    for (result, alone) in [
        (run_of(&ok, &wrong), true),
        (run_of(&ok, &unanswered), false),
        (run_of(&unreconciled, &wrong), false),
        (wrong.clone(), false),
    ] {
        let id = save(&store, &result, &[("w", "y")]);
        let row = store.get(&id).unwrap();
        assert_eq!(row.state, State::Failed, "{id}");
        assert_eq!(
            searchbench::analysis::history::only_wrong_answers(&row),
            alone,
            "{id}: {:#}",
            result["query"]
        );
    }
}

#[test]
fn a_run_with_errors_is_never_better_and_a_rise_in_errors_is_worse() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let base = save(&store, &ingest_result(60, 20_000.0, 0.05, 20.0, 1), &[]);
    // Much faster, but 500 documents refused.
    let mut fast = ingest_result(60, 30_000.0, 0.05, 12.0, 2);
    fast["counts"]["refused"] = 500.into();
    fast["counts"]["failed"] = 500.into();
    // 500 more read: the counts add up (read = indexed + failed), or the run is failed.
    fast["counts"]["read"] = (fast["counts"]["read"].as_u64().unwrap() + 500).into();
    let fast = save(&store, &fast, &[]);
    let side = |id: &str| Side::load(&store, id).unwrap();
    let c = compare(side(&base), vec![side(&fast)]);
    let verdict = |key: &str| {
        c.rows.iter().find(|r| r.key == key).unwrap().contenders[0]
            .as_ref()
            .unwrap()
            .verdict
    };
    // One run a side cannot tell a throughput change; a rise in errors it can.
    assert_eq!(verdict("docs_per_sec"), Verdict::CannotTell);
    assert_eq!(verdict("errors.ingest.refused"), Verdict::Worse);
    assert!(c.any_worse());
    let out = bin(&dir.path().join("r.db"))
        .args(["compare", &base, &fast, "--fail-on-worse"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("+500 (from 0)"), "{text}");
    // Over runs, a faster group with errors is still not better.
    for seed in 0..3 {
        save(
            &store,
            &ingest_result(60, 20_000.0, 0.05, 20.0, 10 + seed),
            &[("g", "base")],
        );
        let mut fast = ingest_result(60, 30_000.0, 0.05, 12.0, 20 + seed);
        fast["counts"]["refused"] = 500.into();
        fast["counts"]["failed"] = 500.into();
        // 500 more read: the counts add up (read = indexed + failed), or the run is failed.
        fast["counts"]["read"] = (fast["counts"]["read"].as_u64().unwrap() + 500).into();
        save(&store, &fast, &[("g", "fast")]);
    }
    let c = compare(side("g=base"), vec![side("g=fast")]);
    let row = c.rows.iter().find(|r| r.key == "docs_per_sec").unwrap();
    let cell = row.contenders[0].as_ref().unwrap();
    assert_eq!(cell.verdict, Verdict::NotBetterHasErrors, "{cell:?}");
    assert!(cell.ci.unwrap().low_pct > 0.0, "{cell:?}");
}

#[test]
fn percentile_error_is_in_percent_and_the_headline_is_the_stored_figure() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let q = query_result(40.0, 1);
    let id = save(&store, &q, &[]);
    let side = Side::load(&store, &id).unwrap();
    let stored = q["accuracy"][1]["pct_max_err"].as_f64().unwrap();
    let m = side
        .metrics
        .iter()
        .find(|m| m.key == "accuracy.D_td.pct_max_err")
        .unwrap();
    assert_eq!(m.unit, "%");
    assert!((m.value - stored * 100.0).abs() < 1e-9);

    let r = ingest_result(30, 20_000.0, 0.05, 20.0, 4);
    let id = save(&store, &r, &[]);
    let side = Side::load(&store, &id).unwrap();
    let t = &side.metrics[0];
    assert_eq!(t.key, "docs_per_sec");
    assert_eq!(Some(t.value), r["docs_per_sec"].as_f64());
}

#[test]
fn tables_fit_columns_carry_no_colour_and_a_closed_pipe_keeps_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    let mut ids = Vec::new();
    for i in 0..3 {
        ids.push(save(
            &store,
            &ingest_result(30, 20_000.0, 0.05, 20.0, i),
            &[("build", "a-rather-long-tag-value"), ("machine", "ci")],
        ));
    }
    let out = bin(&db)
        .args(["results", "list"])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(!text.contains('\x1b'), "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "{line}");
    }
    let out = bin(&db)
        .args(["compare", &ids[0], &ids[1]])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text
        .lines()
        .filter(|l| l.starts_with(['│', '┌', '╞', '└', '├']))
    {
        assert!(line.chars().count() <= 100, "{line}");
    }
    assert!(text.contains("samples"), "{text}");
    // A very wide terminal: a table still stops at a width one can read (two contenders
    // once ran past 200 columns).
    let out = bin(&db)
        .args(["compare", &ids[0], &ids[1], &ids[2]])
        .env("COLUMNS", "300")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest <= 160, "{widest} columns:\n{text}");
    // At 80 columns the samples column goes (said once below) and no word is split: each
    // word of a verdict or metric name is whole in one cell.
    let out = bin(&db)
        .args(["compare", &ids[0], &ids[1]])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with(['│', '┌', '╞', '└', '├']))
        .collect();
    assert!(rows.iter().all(|l| l.chars().count() <= 80), "{text}");
    assert!(!rows[1].contains("samples"), "{text}");
    assert!(text.contains("the samples behind each figure"), "{text}");
    let words: Vec<&str> = rows
        .iter()
        .flat_map(|l| l.split(['│', '┆']))
        .flat_map(str::split_whitespace)
        .collect();
    for whole in ["significant", "throughput", "(headline)"] {
        assert!(words.contains(&whole), "{whole} split or missing:\n{text}");
    }

    // `results show | head -1`: stdout closes early; its own exit code (0), no panic.
    let mut child = bin(&db)
        .args(["results", "show", &ids[0]])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close our end before it writes (it opens the store first): its writes then fail.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_terminal_that_reports_no_width_gets_80_columns_not_one_letter_per_column() {
    // CI runners give a pty that says 0×0; `script` makes one (util-linux, as on CI).
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "`script` (util-linux) is needed for this test in CI"
        );
        eprintln!("SKIPPED: no `script` command");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    let mut ids = Vec::new();
    for i in 0..2 {
        ids.push(save(
            &store,
            &ingest_result(30, 20_000.0, 0.05, 20.0, i),
            &[("build", "b")],
        ));
    }
    let command = format!(
        "stty cols 0 rows 0; {} results list --store {}",
        env!("CARGO_BIN_EXE_searchbench"),
        db.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let table: Vec<&str> = text.lines().filter(|l| l.starts_with(['│', '┌'])).collect();
    assert!(!table.is_empty(), "{text}");
    for line in &table {
        let width = line.trim_end_matches('\r').chars().count();
        assert!(
            (40..=80).contains(&width),
            "{width} columns: {line}\n{text}"
        );
    }
    for id in &ids {
        assert!(text.contains(id.as_str()), "{id} not whole in\n{text}");
    }
}

#[test]
fn verdicts_are_coloured_on_a_terminal_unless_no_color_or_color_never() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    for i in 0..3 {
        save(
            &store,
            &ingest_result(30, 20_000.0, 0.05, 20.0, i),
            &[("cfg", "a")],
        );
        save(
            &store,
            &ingest_result(30, 26_000.0, 0.05, 15.0, 10 + i),
            &[("cfg", "b")],
        );
    }
    let compare = |extra: &[&str], env: &[(&str, &str)]| {
        let mut cmd = bin(&db);
        cmd.args(["compare", "cfg=a", "cfg=b"])
            .args(extra)
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Piped: plain unless asked.
    let plain = compare(&[], &[]);
    assert!(
        plain.contains("better ✓") && !plain.contains('\x1b'),
        "{plain}"
    );
    let forced = compare(&["--color", "always"], &[]);
    assert!(
        forced.contains('\x1b') && forced.contains("better ✓"),
        "{forced}"
    );
    assert!(!compare(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]).contains('\x1b'));
    assert!(!compare(&[], &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]).contains('\x1b'));
    // On a terminal (a pty by `script`): coloured, unless NO_COLOR.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `script` command for the terminal case");
        return;
    }
    let on_a_terminal = |no_color: bool| {
        let command = format!(
            "{}{} compare cfg=a cfg=b --store {}",
            if no_color { "NO_COLOR=1 " } else { "" },
            env!("CARGO_BIN_EXE_searchbench"),
            db.display()
        );
        let out = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(on_a_terminal(false).contains('\x1b'));
    let text = on_a_terminal(true);
    assert!(text.contains("better") && !text.contains('\x1b'), "{text}");
}

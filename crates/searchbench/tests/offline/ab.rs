//! `searchbench ab`'s refusals, before anything runs: flags it sets itself, a side's
//! arguments with an open quote, a command that cannot start.

use crate::common::bin;

fn ab(args: &[&str]) -> (i32, String) {
    let out = bin().arg("ab").args(args).output().expect("searchbench ab");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn ab_refuses_what_would_fight_it_and_says_why() {
    // The store, the round and JSON output are ab's to set on every run.
    let (code, text) = ab(&[
        "--",
        "ingest",
        "logs",
        "--url",
        "http://127.0.0.1:1",
        "--store",
        "x.db",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("--store is set by `ab` itself"), "{text}");
    let (code, text) = ab(&["--b", "--round 3", "--", "ingest", "logs"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("--round is set by `ab` itself"), "{text}");
    // An open quote in a side's arguments.
    let (code, text) = ab(&["--a", "--tag 'x=1", "--", "ingest", "logs"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("unclosed quote"), "{text}");
    // A command that cannot start stops ab at once, with the command's own words.
    let (code, text) = ab(&["--rounds", "3", "--", "ingest", "logs", "--no-such-flag"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("side A cannot run") && text.contains("--no-such-flag"),
        "{text}"
    );
    // A round given twice to a run.
    let out = bin()
        .args([
            "ingest",
            "logs",
            "--url",
            "http://127.0.0.1:1",
            "--docs",
            "10",
            "--round",
            "2",
            "--tag",
            "round=3",
        ])
        .output()
        .expect("searchbench ingest");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("give the round once"), "{said}");
    // No command at all.
    let (code, text) = ab(&["--rounds", "3"]);
    assert_eq!(code, 2, "{text}");
}

#[test]
fn the_budget_and_the_gate_refuse_what_cannot_be_a_verdict() {
    // A budget of one round, a chance of a false verdict of 0 or 60 %, minutes that are not
    // minutes: bad usage before anything runs.
    for bad in [
        &["--max-rounds", "1"][..],
        &["--alpha", "0"],
        &["--alpha", "60%"],
        &["--max-minutes", "-3"],
        &["--max-minutes", "1e12"],
        &["--rounds", "3", "--max-rounds", "10"],
        &["--threshold", "100%"],
        &["--spread", "inf"],
        &["--spread", "-5%"],
    ] {
        let (code, text) = ab(&[bad, &["--", "ingest", "logs"]].concat());
        assert_eq!(code, 2, "{bad:?}: {text}");
    }
    let gate = |args: &[&str]| {
        let out = bin()
            .arg("gate")
            .args(args)
            .output()
            .expect("searchbench gate");
        (
            out.status.code().unwrap_or(-1),
            crate::common::streams(&out),
        )
    };
    // The cluster given twice.
    let (code, text) = gate(&[
        "--url",
        "http://127.0.0.1:1",
        "--",
        "ingest",
        "logs",
        "--url",
        "http://127.0.0.1:2",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("give the cluster once"), "{text}");
    // A side whose command cannot start: bad usage, not "cannot tell".
    let (code, text) = gate(&[
        "--url",
        "http://127.0.0.1:1",
        "--",
        "ingest",
        "logs",
        "--no-such-flag",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("side A cannot run"), "{text}");
    // A cluster nobody answers at: the runs fail, the gate cannot tell (125), never "worse".
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = gate(&[
        "--url",
        "http://127.0.0.1:1",
        "--max-rounds",
        "2",
        "--store",
        dir.path().join("g.db").to_str().unwrap(),
        "--",
        "ingest",
        "logs",
        "--docs",
        "10",
    ]);
    assert_eq!(code, 125, "{text}");
}

/// `--max-minutes` bounds a run already going: a side whose cluster never answers (a long
/// `--timeout`) is stopped when the budget is spent, and the gate cannot tell (125), as
/// `ab` stops too, well before the run's own timeout.
#[test]
fn the_budget_stops_a_run_already_going() {
    let silent = crate::common::raw_server(None, std::time::Duration::from_secs(300));
    let dir = tempfile::tempdir().unwrap();
    for which in ["gate", "ab"] {
        let mut cmd = bin();
        cmd.arg(which).args(["--max-minutes", "0.05"]);
        if which == "gate" {
            cmd.args(["--url", &silent, "--warm-runs", "0"]);
        }
        cmd.arg("--store")
            .arg(dir.path().join(format!("{which}.db")))
            .arg("--")
            .args(["ingest", "logs", "--docs", "1000", "--timeout", "600"]);
        if which == "ab" {
            cmd.args(["--url", &silent]);
        }
        let began = std::time::Instant::now();
        let mut child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        while child.try_wait().unwrap().is_none() {
            if began.elapsed() > std::time::Duration::from_secs(90) {
                let _ = child.kill();
                panic!("{which} still running after 90 s on a 3 s budget");
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let out = child.wait_with_output().unwrap();
        let text = crate::common::streams(&out);
        assert!(
            began.elapsed() < std::time::Duration::from_secs(40),
            "{which} took {:?}: {text}",
            began.elapsed()
        );
        let wanted = if which == "gate" { 125 } else { 1 };
        assert_eq!(out.status.code(), Some(wanted), "{which}: {text}");
        assert!(
            text.contains("budget (--max-minutes) was spent"),
            "{which}: {text}"
        );
    }
}

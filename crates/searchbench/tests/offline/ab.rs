//! `searchbench ab`'s refusals, before anything runs: flags it sets itself, a side's
//! arguments with an open quote, a command that cannot start; and the rounds' verdict made
//! again from what they stored (`compare --sequential`).

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
    assert!(
        text.contains("--a: its arguments leave a quote unclosed"),
        "{text}"
    );
    // Unsplit, a secret in them cannot be told from the rest: none of them is said.
    let (code, text) = ab(&[
        "--a",
        "--password s3cret --tag x='y",
        "--",
        "ingest",
        "logs",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(!text.contains("s3cret"), "{text}");
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

/// Rounds of an `ab` (or a `gate`) as they are stored: each side once a round, tagged with
/// the rounds' id, its side and its round.
fn stored_rounds(db: &std::path::Path, rounds: u64, b_rate: f64, b_service_ms: f64) {
    stored_rounds_failing(db, rounds, b_rate, b_service_ms, None)
}

/// [`stored_rounds`], B's run of round `failing` (when given) failed: 50 documents refused,
/// its counts not reconciled.
fn stored_rounds_failing(
    db: &std::path::Path,
    rounds: u64,
    b_rate: f64,
    b_service_ms: f64,
    failing: Option<u64>,
) {
    use crate::common::results::ingest_result;
    use searchbench::store::{Kind, NewRun, Store};
    let store = Store::open(db).unwrap();
    for round in 1..=rounds {
        for (side, rate, service) in [("a", 20_000.0, 20.0), ("b", b_rate, b_service_ms)] {
            let mut run = NewRun::new(Kind::Ingest, "logs", serde_json::json!({"clients": 2}));
            run.tags = [("ab", "r1"), ("ab_side", side)]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .chain([("round".to_string(), round.to_string())])
                .collect();
            let seed = round * 2 + u64::from(side == "b");
            let mut result = ingest_result(30, rate, 0.01, service, seed);
            if side == "b" && failing == Some(round) {
                result["counts"]["refused"] = 50.into();
                result["counts"]["failed"] = 50.into();
                result["counts"]["reconciled"] = false.into();
            }
            store.save(&run, &result).unwrap();
        }
    }
}

/// A round whose B run failed (documents refused, counts not reconciled) is part of the
/// rounds' verdict with its errors: B is worse whatever its speed, never judged on its clean
/// rounds alone (it was left out, and a faster B was called better).
#[test]
fn a_failed_round_makes_the_side_worse_not_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    stored_rounds_failing(&db, 7, 23_000.0, 18.0, Some(3));
    let out = bin()
        .args(["compare", "ab=r1,ab_side=a", "ab=r1,ab_side=b", "--store"])
        .arg(&db)
        .args(["--sequential"])
        .output()
        .unwrap();
    let text = crate::common::streams(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("errors rose"), "{text}");
    assert!(!text.contains("better after"), "{text}");
}

/// The follow-up a gate prints (`compare ... --sequential --threshold T --alpha A`) makes the
/// rounds' verdict again from what they stored, with the gate's exit code; the table under it
/// says which rows the verdict leaned on and why the others (here a service time that fell
/// while the rate fell too) decide nothing of it. Too few rounds cannot tell (125).
#[test]
fn compare_sequential_makes_the_rounds_verdict_again_and_says_what_it_leaned_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    stored_rounds(&db, 7, 15_000.0, 10.0);
    let compare = |extra: &[&str]| {
        let out = bin()
            .args(["compare", "ab=r1,ab_side=a", "ab=r1,ab_side=b", "--store"])
            .arg(&db)
            .args(extra)
            .output()
            .unwrap();
        (out.status.code(), crate::common::streams(&out))
    };
    let (code, text) = compare(&["--sequential", "--threshold", "5%", "--alpha", "5%"]);
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("worse after 7 rounds: throughput"), "{text}");
    assert!(
        text.contains("the verdict leans on throughput (headline) over the 7 paired rounds")
            && text.contains("decide nothing of it"),
        "{text}"
    );
    // The rows named are those whose own test says better under the worse verdict.
    let note = text
        .lines()
        .find(|l| l.contains("decide nothing of it"))
        .unwrap();
    assert!(note.contains("service"), "{note}");
    assert!(!note.contains("throughput better"), "{note}");
    // As JSON: the same decision, with the look the gate prints in its own --json.
    let out = bin()
        .args(["compare", "ab=r1,ab_side=a", "ab=r1,ab_side=b", "--store"])
        .arg(&db)
        .args(["--sequential", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let json = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["sequential"]["look"]["decision"], "worse", "{json}");
    assert_eq!(v["sequential"]["look"]["rounds"], 7, "{json}");
    // One contender only; --alpha only with --sequential.
    let out = bin()
        .args([
            "compare",
            "ab=r1,ab_side=a",
            "ab=r1,ab_side=b",
            "ab=r1,ab_side=b",
        ])
        .args(["--sequential", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let (code, text) = compare(&["--alpha", "5%"]);
    assert_eq!(code, Some(2), "{text}");

    // Three rounds: no safe t test bounds anything yet.
    let few = tempfile::tempdir().unwrap();
    let db = few.path().join("r.db");
    stored_rounds(&db, 3, 15_000.0, 10.0);
    let out = bin()
        .args([
            "compare",
            "ab=r1,ab_side=a",
            "ab=r1,ab_side=b",
            "--sequential",
        ])
        .arg("--store")
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(125), "{text}");
    assert!(text.contains("cannot tell after 3 rounds"), "{text}");
}

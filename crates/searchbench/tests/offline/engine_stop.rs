//! `engine stop` with nothing named stops every node searchbench started on the machine: a
//! script must say so (`--all`); without a terminal to ask on, it is refused. The records
//! it would read are in a folder of this test's own, so nothing real can be stopped here.

use std::process::{Command, Stdio};

fn engine_stop(args: &[&str]) -> std::process::Output {
    let own = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_searchbench"))
        .args(["engine", "stop"])
        .args(args)
        .env("SEARCHBENCH_CACHE", own.path().join("cache"))
        .env("SEARCHBENCH_SHARED_DIR", own.path().join("shared"))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn without_a_target_it_refuses_unless_told_all() {
    let out = engine_stop(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--all") && err.contains("--port"), "{err}");
    // --all says it: nothing runs here, so nothing is stopped, and that is no error.
    let out = engine_stop(&["--all"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("nothing to stop"), "{err}");
    // --all is all: with an engine or a port it is bad usage.
    for extra in [&["opensearch-2.19.1"][..], &["--port", "9200"]] {
        let mut args = vec!["--all"];
        args.extend(extra);
        let out = engine_stop(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// A node has an owner (`SEARCHBENCH_OWNER`, else the session): `engine status` says whose it
/// is, `engine stop --all` stops the caller's only (another CI job's node of the same user was
/// listed as ours and stopped), `--all --any-owner` every one. A sketch store stands for a
/// node: it starts in a moment, from this binary.
#[test]
fn stop_all_stops_the_callers_nodes_and_status_says_whose_each_is() {
    let own = tempfile::tempdir().unwrap();
    let cli = |owner: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_searchbench"))
            .args(args)
            .env("SEARCHBENCH_CACHE", own.path().join("cache"))
            .env("SEARCHBENCH_SHARED_DIR", own.path().join("shared"))
            .env("SEARCHBENCH_OWNER", owner)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let started = cli("job-a", &["engine", "start", "sketch", "--json"]);
    assert_eq!(
        started.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );
    let node: serde_json::Value = serde_json::from_slice(&started.stdout).unwrap();
    let pid = node["pid"].as_u64().unwrap();
    let alive = || std::path::Path::new(&format!("/proc/{pid}")).exists();
    let status = |owner: &str| -> serde_json::Value {
        let out = cli(owner, &["engine", "status", "--json"]);
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let seen = status("job-b");
    assert_eq!(seen[0]["owner"], "job-a", "{seen}");
    assert_eq!(seen[0]["yours"], false, "{seen}");
    assert_eq!(status("job-a")[0]["yours"], true);
    // Another job's --all leaves it running, and says so.
    let out = cli("job-b", &["engine", "stop", "--all", "--grace", "5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("1 node(s) another session started"), "{err}");
    assert!(alive(), "another job's --all stopped job-a's node");
    // --any-owner stops it (its owner's own --all is what the other tests' stops are).
    let out = cli(
        "job-b",
        &["engine", "stop", "--all", "--any-owner", "--grace", "5"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("stopped"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // (a zombie until its parent reaps it is gone enough)
    let gone = !alive()
        || std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.split_whitespace().nth(2) == Some("Z"));
    assert!(gone, "still running after stop");
}

/// A Maven mirror's URL carrying its user and password: a refresh that cannot reach it says
/// which mirror failed, masked, and never the password.
#[test]
fn a_mirrors_password_is_not_said_when_its_listing_cannot_be_fetched() {
    let own = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_searchbench"))
        .args(["engine", "list", "--refresh"])
        .env("SEARCHBENCH_CACHE", own.path().join("cache"))
        // Port 9 (discard): refused at once on this machine, nothing leaves it.
        .env(
            "SEARCHBENCH_MAVEN_REPO",
            "http://ci:t0ken@127.0.0.1:9/maven2",
        )
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("127.0.0.1:9/maven2"), "{err}");
    assert!(!err.contains("t0ken"), "{err}");
}

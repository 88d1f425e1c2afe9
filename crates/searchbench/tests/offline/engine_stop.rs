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

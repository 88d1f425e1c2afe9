//! `--profile` needs the engine's JVM on this machine: against a cluster given by URL with no
//! local process named, it is refused before anything runs (exit 2), saying how to name one.

use crate::common::bin;

#[test]
fn a_profile_of_a_cluster_given_by_url_is_refused_with_the_way_to_name_its_process() {
    for command in ["ingest", "run"] {
        let out = bin()
            .args([command, "logs", "--url", "http://127.0.0.1:9", "--profile"])
            .args(["--no-store", "--docs", "10"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(stderr.contains("--profile-pid"), "{command}: {stderr}");
    }
    // A process that is not there is bad input, before anything runs.
    let out = bin()
        .args([
            "ingest",
            "logs",
            "--url",
            "http://127.0.0.1:9",
            "--profile-pid",
            "999999999",
        ])
        .args(["--no-store", "--docs", "10"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("999999999") && stderr.contains("no such process"),
        "{stderr}"
    );
    // A scenario does not take it yet, and says so.
    let out = bin()
        .args([
            "run",
            "many-shards",
            "--url",
            "http://127.0.0.1:9",
            "--profile-pid",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

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
    let out = ingest_profiling("999999999");
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

/// A process that is not a JVM, or a `java` that takes no attach (a fake JDK whose tools
/// answer nothing), is refused before anything runs (it ran the whole load and warned 11 s
/// later, exit 0).
#[test]
fn a_profile_pid_that_is_no_attachable_jvm_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    // A fake JDK: `java` is a copy of sleep, its jcmd and javac say nothing.
    let bin_dir = dir.path().join("jdk/bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::copy("/bin/sleep", bin_dir.join("java")).unwrap();
    for tool in ["jcmd", "javac"] {
        let path = bin_dir.join(tool);
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for (program, says) in [
        (
            std::path::PathBuf::from("/bin/sleep"),
            "is not a Java process",
        ),
        (
            bin_dir.join("java"),
            "does not take a Flight Recorder attach",
        ),
    ] {
        let mut child = std::process::Command::new(&program)
            .arg("60")
            .spawn()
            .unwrap();
        let pid = child.id().to_string();
        let started = std::time::Instant::now();
        let out = ingest_profiling(&pid);
        let _ = child.kill();
        let _ = child.wait();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{program:?}: {stderr}");
        assert!(
            stderr.contains(&pid) && stderr.contains(says),
            "{program:?}: {stderr}"
        );
        // Refused before the load (which would have failed to connect, exit 1).
        assert!(!stderr.contains("127.0.0.1:9"), "{stderr}");
        assert!(started.elapsed() < std::time::Duration::from_secs(25));
    }
}

/// A small ingest into a cluster that is not there, profiling the process `pid`: what is
/// refused is refused before it connects.
fn ingest_profiling(pid: &str) -> std::process::Output {
    bin()
        .args([
            "ingest",
            "logs",
            "--url",
            "http://127.0.0.1:9",
            "--profile-pid",
        ])
        .arg(pid)
        .args(["--no-store", "--docs", "10"])
        .output()
        .unwrap()
}

//! `searchbench ab` on the shared node: two configurations of an ingest, round by round in
//! the order A B, B A, A B, stored with their rounds and compared round by round, one line
//! saying B's verdict against A.

use crate::common::{bin, node_url, scratch_store, streams};
use searchbench::store::Store;

#[test]
fn ab_runs_two_sides_round_by_round_and_gives_one_paired_verdict() {
    let store = scratch_store();
    let out = bin()
        .args(["ab", "--rounds", "3", "--a", "--bulk-size 200"])
        .args(["--b", "--bulk-size 200 --rtt 100ms", "--store"])
        .arg(&store)
        .args([
            "--",
            "ingest",
            "logs",
            "--url",
            node_url(),
            "--docs",
            "4000",
        ])
        .args([
            "--clients",
            "1",
            "--index",
            "it-ab",
            "--replace",
            "--warmup",
            "0",
        ])
        .output()
        .expect("searchbench ab");
    let text = streams(&out);
    assert!(out.status.success(), "{text}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // One line of B against A on the headline, from the rounds paired.
    let line = stdout
        .lines()
        .find(|l| l.contains("B against A: throughput (headline) "))
        .unwrap_or_else(|| panic!("no verdict line: {text}"));
    assert!(line.contains("3 rounds (paired t)"), "{line}");
    // One client waiting 100 ms more for each of 20 requests: B is slower in every round
    // (the verdict itself depends on how steady this shared machine is).
    let diff: f64 = line
        .split("(headline) ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no difference in {line}"));
    assert!(diff < -20.0, "{line}");
    // Six runs, each side once a round, the first side alternating.
    let db = Store::open(&store).unwrap();
    // Newest first, in the order stored: reversed, in the order run.
    let mut runs = db.list(&Default::default()).unwrap();
    runs.reverse();
    assert_eq!(runs.len(), 6, "{text}");
    let seq: Vec<(String, String)> = runs
        .iter()
        .map(|r| (r.tags["round"].clone(), r.tags["ab_side"].clone()))
        .collect();
    let expected = [
        ("1", "a"),
        ("1", "b"),
        ("2", "b"),
        ("2", "a"),
        ("3", "a"),
        ("3", "b"),
    ];
    assert_eq!(
        seq,
        expected.map(|(r, s)| (r.to_string(), s.to_string())),
        "{text}"
    );
}

/// Ctrl-C to `ab` alone (`kill -INT` of its pid: the run it started gets no signal of its own)
/// stops the side that is running as a user's Ctrl-C would, keeps it as `interrupted`, says how
/// to compare what is done, exits 130, and leaves no run behind.
#[test]
fn ctrl_c_stops_ab_and_the_run_it_started() {
    let store = scratch_store();
    let dir = tempfile::tempdir().unwrap();
    let err_path = dir.path().join("stderr");
    let mut child = bin()
        .args(["ab", "--rounds", "3", "--store"])
        .arg(&store)
        .args(["--", "ingest", "logs", "--url", node_url()])
        .args([
            "--docs",
            "5000000",
            "--clients",
            "1",
            "--index",
            "it-ab-stop",
        ])
        .args(["--replace", "--warmup", "0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("searchbench ab");
    let said = || std::fs::read_to_string(&err_path).unwrap_or_default();
    let started = std::time::Instant::now();
    while !said().contains("round 1/3: A") {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "ab never started its first run: {}",
            said()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The run is under way (its node reached, documents going) before the interrupt.
    std::thread::sleep(std::time::Duration::from_secs(4));
    let status = crate::common::interrupt_and_wait(&mut child, std::time::Duration::from_secs(90));
    let text = said();
    assert_eq!(status.code(), Some(130), "{text}");
    assert!(text.contains("interrupted in round 1"), "{text}");
    assert!(text.contains("searchbench compare ab="), "{text}");
    let id = text
        .split_whitespace()
        .skip_while(|w| *w != "ab")
        .nth(1)
        .map(|w| w.trim_end_matches(':').to_string())
        .unwrap_or_else(|| panic!("no ab id in {text}"));
    // The side that ran is kept, interrupted, with its round; nothing else ran.
    let db = Store::open(&store).unwrap();
    let runs = db.list(&Default::default()).unwrap();
    assert_eq!(runs.len(), 1, "{text}");
    assert_eq!(
        runs[0].state,
        searchbench::store::State::Interrupted,
        "{text}"
    );
    assert_eq!(runs[0].tags["ab"], id);
    assert_eq!(runs[0].tags["round"], "1");
    // No run of this ab is left running.
    let tag = format!("ab={id}");
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&tag))
        .collect();
    assert!(left.is_empty(), "still running: {left:?}");
}

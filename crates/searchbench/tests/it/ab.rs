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

/// `gate` on the shared node with B slowed by 100 ms a request: it stops as soon as the
/// sequential test knows B is worse (well before its budget of rounds), exits 3, and every
/// round it ran is stored, A and B once each.
#[test]
fn gate_stops_early_on_a_slowed_b_and_exits_3() {
    let store = scratch_store();
    let out = bin()
        .args(["gate", "--url", node_url(), "--max-rounds", "12"])
        .args(["--b", "--rtt 100ms", "--json", "--store"])
        .arg(&store)
        .args(["--publish", node_url(), "--publish-prefix", "sbtest-gate"])
        .args(["--", "ingest", "logs", "--docs", "4000"])
        .args(["--clients", "1", "--bulk-size", "200", "--index", "it-gate"])
        .args(["--replace", "--warmup", "0"])
        .output()
        .expect("searchbench gate");
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("gate --json");
    let seq = &v["sequential"];
    assert_eq!(seq["decision"], "worse", "{text}");
    assert_eq!(seq["stopped_by"], "decided", "{text}");
    assert_eq!(v["exit_code"], 3);
    let rounds = seq["rounds"].as_u64().unwrap();
    // No verdict is possible before the 4th round; B's 100 ms a request is plain by the 6th.
    assert!((4..=8).contains(&rounds), "{rounds} rounds: {text}");
    // The rate's sequence says B is slower, its whole interval below zero.
    let rate = &seq["rate"];
    assert!(rate["high_pct"].as_f64().unwrap() < 0.0, "{rate}");
    assert!(rate["change_pct"].as_f64().unwrap() < -20.0, "{rate}");
    // The follow-up it prints makes the same verdict again, with the same exit code.
    let again = v["again"].as_str().expect("the follow-up command");
    let words = shlex::split(again).expect("a command a shell reads");
    assert_eq!(words[..2], ["searchbench", "compare"], "{again}");
    let follow = bin().args(&words[1..]).arg("--json").output().unwrap();
    assert_eq!(
        follow.status.code(),
        Some(3),
        "{again}: {}",
        streams(&follow)
    );
    let f: serde_json::Value = serde_json::from_slice(&follow.stdout).unwrap();
    for key in ["decision", "rounds", "by"] {
        assert_eq!(f["sequential"]["look"][key], seq[key], "{key}: {again}");
    }
    assert_eq!(
        f["sequential"]["look"]["rate"]["change_pct"], seq["rate"]["change_pct"],
        "{again}"
    );
    // After each round the gate said what it knew.
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("after round 3: "), "{said}");
    assert!(said.contains(&format!("after round {rounds}: ")), "{said}");
    // Every round is stored: A and B once each, with the round and the gate's id.
    let db = Store::open(&store).unwrap();
    let runs = db.list(&Default::default()).unwrap();
    assert_eq!(runs.len() as u64, 2 * rounds, "{text}");
    let id = v["gate"].as_str().unwrap();
    assert!(runs.iter().all(|r| r.tags["ab"] == id), "{text}");
    // Each run published itself where the gate was told: read back, the same runs.
    let back = bin()
        .args([
            "results",
            "list",
            "--from",
            node_url(),
            "--from-prefix",
            "sbtest-gate",
        ])
        .args(["--tag", &format!("ab={id}"), "--json"])
        .output()
        .expect("results list --from");
    let listed: Vec<serde_json::Value> =
        serde_json::from_slice(&back.stdout).unwrap_or_else(|_| panic!("{}", streams(&back)));
    assert_eq!(listed.len() as u64, 2 * rounds, "{}", streams(&back));
}

/// `gate` starting its own node: it warms it with unmeasured runs (not stored), runs its
/// budget of rounds, and with too few rounds for any verdict (three, where the first bound
/// comes at the fourth or fifth) says it cannot tell and exits 125; the node it started is
/// stopped.
#[test]
fn gate_starts_warms_and_stops_its_node_and_says_when_its_budget_cannot_tell() {
    let store = scratch_store();
    let out = bin()
        .args(["gate", "--heap", "512m", "--warm-runs", "2"])
        .args(["--max-rounds", "3", "--json", "--store"])
        .arg(&store)
        .args(["--", "ingest", "logs", "--docs", "2000"])
        .args(["--clients", "1", "--index", "it-gate-own", "--warmup", "0"])
        .output()
        .expect("searchbench gate");
    let text = streams(&out);
    assert_eq!(out.status.code(), Some(125), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("gate --json");
    assert_eq!(v["sequential"]["decision"], "undecided", "{text}");
    assert_eq!(v["sequential"]["stopped_by"], "max_rounds", "{text}");
    // Its follow-up cannot tell either.
    let again = v["again"].as_str().expect("the follow-up command");
    let words = shlex::split(again).expect("a command a shell reads");
    let follow = bin().args(&words[1..]).output().unwrap();
    assert_eq!(
        follow.status.code(),
        Some(125),
        "{again}: {}",
        streams(&follow)
    );
    assert!(
        text.contains("2 unmeasured run(s) to warm the engine"),
        "{text}"
    );
    // Only the measured rounds are stored: 3 rounds of A and B.
    let db = Store::open(&store).unwrap();
    assert_eq!(db.list(&Default::default()).unwrap().len(), 6, "{text}");
    // The node it started is gone.
    let pid = v["pid"].as_u64().expect("the started node's pid") as i32;
    assert!(gone(pid), "the gate's node (pid {pid}) is still running");
}

/// Whether a process is gone within 10 s.
fn gone(pid: i32) -> bool {
    (0..100).any(|_| {
        // SAFETY: signal 0 only asks whether the pid exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        if alive {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        !alive
    })
}

/// Ctrl-C to a gate in the middle of its warm-up: the run it started stops, the node the gate
/// started is stopped, nothing is stored, and the exit is 130 (interrupted), never a verdict.
#[test]
fn ctrl_c_stops_the_gate_and_the_node_it_started() {
    let store = scratch_store();
    let dir = tempfile::tempdir().unwrap();
    let err_path = dir.path().join("stderr");
    let mut child = bin()
        .args(["gate", "--heap", "512m", "--warm-runs", "2", "--store"])
        .arg(&store)
        .args(["--", "ingest", "logs", "--docs", "5000000"])
        .args(["--clients", "1", "--index", "it-gate-stop", "--warmup", "0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("searchbench gate");
    let said = || std::fs::read_to_string(&err_path).unwrap_or_default();
    let started = std::time::Instant::now();
    while !said().contains("warm-up 1/2: A") {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(180),
            "the gate never started its warm-up: {}",
            said()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(3));
    let status = crate::common::interrupt_and_wait(&mut child, std::time::Duration::from_secs(120));
    let text = said();
    assert_eq!(status.code(), Some(130), "{text}");
    assert!(text.contains("interrupted in a warm-up run"), "{text}");
    // The node it started, named with its pid when it came up, is gone.
    let pid: i32 = text
        .split("(pid ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no node pid in {text}"));
    assert!(gone(pid), "node {pid} still runs");
    // A warm-up stores nothing.
    assert!(
        !store.exists()
            || Store::open(&store)
                .unwrap()
                .list(&Default::default())
                .unwrap()
                .is_empty()
    );
}

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

//! Field note 002's comparison: `matrix cluster-metrics` over a real engine and the sketch
//! store prints the note's tables side by side, every figure from the runs it stored: the load,
//! its time split, the query wall serial and in one request, and each algorithm's accuracy
//! against the ground truth with what the data is kept in.

use serde_json::Value;

use crate::common::{bin, scratch_store, streams, test_engine};

#[test]
fn a_matrix_of_an_engine_and_the_sketch_puts_them_side_by_side() {
    let engine = test_engine();
    let out = bin()
        .args([
            "matrix",
            "cluster-metrics",
            "--engines",
            &format!("{engine},sketch"),
            "--repeats",
            "1",
            "--rows-per-epoch",
            "20000",
            "--epochs",
            "2",
            "--heap",
            "512m",
            "--warm-node-max",
            "3s",
            "--index",
            "searchbench-test-beside",
            "--json",
            "-q",
        ])
        .arg("--store")
        .arg(scratch_store())
        .output()
        .expect("running the matrix");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let m: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let b = &m["baseline"];
    let columns: Vec<&str> = b["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let (e, s) = (
        columns
            .iter()
            .position(|c| *c == engine)
            .expect("the engine's column"),
        columns
            .iter()
            .position(|c| *c == "sketch")
            .expect("the sketch's column"),
    );
    let row = |label: &str| -> Vec<Option<f64>> {
        let row = b["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == label)
            .unwrap_or_else(|| panic!("no row {label:?} in {b}"));
        row["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(Value::as_f64)
            .collect()
    };
    // Both loaded, both keep something, and the store built for the job is the faster.
    let rate = row("throughput");
    assert!(rate[s].unwrap() > rate[e].unwrap(), "{rate:?}");
    let kept = row("data kept (index store; sketch memory)");
    assert!(kept[e].unwrap() > 0.0 && kept[s].unwrap() > 0.0, "{kept:?}");
    // Each answered its own production query, serial and in one request; the other's is
    // not made up.
    for (label, who, other) in [
        ("D_td (production: sums + t-digest) serial", e, s),
        ("D_td (production: sums + t-digest) _msearch", e, s),
        ("D_dd (sums + DDSketch) serial", s, e),
        ("D_dd (sums + DDSketch) /coverage", s, e),
    ] {
        let wall = row(label);
        assert!(wall[who].unwrap() > 0.0, "{label}: {wall:?}");
        assert_eq!(wall[other], None, "{label}: {wall:?}");
    }
    // Every answer right, each within its algorithm's bound.
    assert_eq!(row("D_td (t-digest): wrong answers")[e], Some(0.0));
    assert_eq!(row("D_dd (DDSketch): wrong answers")[s], Some(0.0));
    let dd = row("D_dd (DDSketch): largest error")[s].unwrap();
    assert!(dd > 0.0 && dd <= 1.0 + 1e-6, "{dd}");
    // The time split of each load adds up to its wall.
    let split: f64 = b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["section"] == "time_split")
        .map(|r| r["values"][s].as_f64().unwrap_or(0.0))
        .sum();
    assert!((split - 100.0).abs() < 1.0, "{split}");
}

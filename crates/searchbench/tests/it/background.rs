//! What else the machine did during a run (`measure::background`), on the shared node: a
//! co-tenant burning a core beside an ingest is seen as other processes' CPU, kept with the
//! run, and a comparison of that run with a quiet one says their backgrounds differ.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::common::{bin, node_pid, node_url, scratch_store, streams};
use searchbench::analysis::compare::{compare, Side};
use searchbench::store::Store;
use serde_json::Value;

fn ingest(store: &std::path::Path, pid: &str, tag: &str) -> Value {
    let out = bin()
        .args(["ingest", "logs", "--url", node_url(), "--engine-pid", pid])
        .args(["--docs", "20000", "--index", "it-background", "--replace"])
        .args(["--warmup", "0", "-q", "--json", "--tag", tag, "--store"])
        .arg(store)
        .output()
        .expect("searchbench ingest");
    assert!(out.status.success(), "{}", streams(&out));
    serde_json::from_slice(&out.stdout).expect("the result as JSON")
}

#[test]
fn a_co_tenant_beside_a_run_is_seen_and_a_comparison_says_so() {
    let pid = {
        let _ = node_url();
        node_pid().expect("the shared node's pid").to_string()
    };
    let store = scratch_store();
    let quiet = ingest(&store, &pid, "bg=quiet");
    let bg = &quiet["background"];
    let busy_pct = bg["machine_busy_pct"].as_f64().expect("the machine's load");
    assert!((0.0..=100.0).contains(&busy_pct), "{bg}");
    assert!(bg["other_cpu_pct"].as_f64().is_some(), "{bg}");
    // A co-tenant: one thread spinning on one of the two cores for the whole run.
    let stop = Arc::new(AtomicBool::new(false));
    let burner = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut x = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for i in 0..100_000u64 {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
                }
            }
            std::hint::black_box(x);
        })
    };
    let busy = ingest(&store, &pid, "bg=busy");
    stop.store(true, Ordering::Relaxed);
    burner.join().expect("the burner");
    let other = busy["background"]["other_cpu_pct"]
        .as_f64()
        .expect("other processes' CPU");
    // Contending with the engine and the driver it gets well over a third of a core.
    assert!(
        other > 15.0,
        "a spinning thread seen as {other} % of the machine: {}",
        busy["background"]
    );
    // Kept with the run, as a metric of it, and a comparison says the backgrounds differ
    // (when they do: the quiet run may have had another test beside it).
    let db = Store::open(&store).unwrap();
    let side = |s: &str| Side::load(&db, s).unwrap();
    let (q, b) = (side("bg=quiet"), side("bg=busy"));
    let metric = |s: &Side| {
        s.metrics
            .iter()
            .find(|m| m.key == "machine.other_cpu_pct")
            .map(|m| m.value)
            .expect("machine.other_cpu_pct")
    };
    assert!((metric(&b) - other).abs() < 1e-9);
    let apart = (metric(&b) - metric(&q)).abs() > 10.0;
    let c = compare(q, vec![b]);
    let said = c.notes.iter().any(|n| n.starts_with("BACKGROUND DIFFERS"));
    assert_eq!(said, apart, "{:?}", c.notes);
}

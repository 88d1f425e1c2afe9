//! Makes stores of one-hour runs to publish (`bench/publish.sh`): the newest run of FROM (a
//! real ingest's), copied N times into TO under new ids, each with a one-hour timeline (3,600
//! seconds) and one hour of telemetry (3,600 samples of NODES nodes).
//!
//!   cargo run --release --example hour_runs -- FROM TO N [NODES]

use std::process::ExitCode;

use searchbench::store::{Filter, RunId, Store, WholeRun};
use serde_json::{json, Value};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [from, to, n, rest @ ..] = args.as_slice() else {
        eprintln!("usage: hour_runs FROM TO N [NODES]");
        return ExitCode::from(2);
    };
    let (Ok(n), Ok(nodes)) = (
        n.parse::<usize>(),
        rest.first().map_or(Ok(1), |s| s.parse::<usize>()),
    ) else {
        eprintln!("N and NODES are counts");
        return ExitCode::from(2);
    };
    match make(from, to, n, nodes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hour_runs: {e}");
            ExitCode::FAILURE
        }
    }
}

fn make(from: &str, to: &str, n: usize, nodes: usize) -> Result<(), Box<dyn std::error::Error>> {
    let source = Store::open_read(from)?;
    let newest = source
        .list(&Filter {
            limit: Some(1),
            ..Default::default()
        })?
        .pop()
        .ok_or("FROM holds no run")?;
    let mut run = WholeRun::read(&source, &RunId(newest.id.0.clone()))?;
    // One hour of seconds: the load's rows repeated, numbered on.
    let rows = run.timeline.clone();
    let row = rows
        .last()
        .cloned()
        .unwrap_or_else(|| json!({"docs": 1000}));
    run.timeline = (0..3_600u64)
        .map(|s| {
            let mut r = row.clone();
            r["second"] = s.into();
            r
        })
        .collect();
    if let Some(result) = run.result.as_mut() {
        // The stored timeline is the run's (a result's own would win over it).
        if let Some(map) = result.as_object_mut() {
            map.remove("timeline");
        }
    }
    run.telemetry = (0..3_600u64)
        .flat_map(|s| {
            (0..nodes).map(move |k| {
                json!({"second": s, "node": format!("node-{k}"), "phase": "ingest",
                       "cpu_pct": 80.0, "heap_used_pct": 40.0, "indexing_docs_per_sec": 9000.0,
                       "gc_young_ms": 3.0, "write_queue": 2.0, "refresh_ms": 12.0,
                       "merges_current": 1.0, "segments": 40.0, "disk_write_mb_per_sec": 20.0})
            })
        })
        .collect::<Vec<Value>>();
    let target = Store::open(to)?;
    for _ in 0..n {
        target.put_whole(&run, None, &[])?;
    }
    println!(
        "{n} run(s) of {} seconds and {} telemetry samples in {to}",
        run.timeline.len(),
        run.telemetry.len()
    );
    Ok(())
}

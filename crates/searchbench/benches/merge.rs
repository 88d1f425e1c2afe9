//! Merging the parts of a run split over several driver hosts (`results merge`): 16 parts of a
//! one-hour load (3,600 timeline seconds each, 20 bulk requests a second, service times over
//! three orders of magnitude), merged in memory (`merge_parts`) and from a store on disk
//! (read every part, merge, store the merged run in place of the earlier merge: what
//! `results merge` does). Each part holds its load's phase measurements too (counts and
//! counts per second, histograms), which the merge adds phase by phase.
//!
//! `cargo bench -p searchbench --bench merge`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use searchbench::analysis::merge::{self, PartRun};
use searchbench::corpus::part::Part;
use searchbench::measure::{Measurements, Recorder, Sample};
use searchbench::store::{PhaseMeasurements, RunId, RunRow, State, Store};
use serde_json::json;

const PARTS: u32 = 16;
const SECONDS: u64 = 3_600;
const PER_SECOND: u64 = 20;

fn part(i: u32) -> PartRun {
    let mut rec = Recorder::with_warmup(Duration::from_secs(10));
    let mut x = u64::from(i) * 7_919 + 1;
    for k in 0..SECONDS * PER_SECOND {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // 1 ms to ~1 s, most near 20 ms.
        let us = 1_000
            + (x >> 33) % 20_000
            + if x % 100 == 0 {
                (x >> 20) % 1_000_000
            } else {
                0
            };
        rec.record(&Sample {
            start: Duration::from_millis(k * 1000 / PER_SECOND),
            service: Duration::from_micros(us),
            took_ms: Some(us / 1_000),
            docs: 1_000,
            acked: 1_000,
            bytes: 400_000,
            wire_bytes: 400_000,
            status: 200,
            retry: 0,
        });
    }
    let wall = Duration::from_secs(SECONDS);
    let headline = rec.finish(wall);
    let acked = SECONDS * PER_SECOND * 1_000;
    let start_ms = 1_800_000_000_000;
    let config = json!({"clients": 4, "part": format!("{i}/{PARTS}"), "group": "bench",
                        "corpus": format!("logs, part {i}/{PARTS}")});
    let result = json!({
        "load_started_unix_ms": start_ms, "started_unix": start_ms / 1000,
        "wall_secs": SECONDS as f64, "docs_per_sec": headline.docs_per_sec, "headline": headline,
        "previous_index": "appended", "index": "logs", "config": config,
        "counts": {"read": acked, "indexed": acked, "failed": 0, "reconciled": true,
                   "index_count": acked * u64::from(PARTS)},
        "requests": {"attempts": rec.requests, "failed_attempts": 0, "retries": 0},
        "mb_per_sec": 8.0, "cpu": {"driver_secs": 60.0}, "interrupted": false,
        "error": null, "warnings": [],
    });
    PartRun {
        part: Part {
            index: i,
            of: PARTS,
        },
        row: RunRow {
            id: RunId(format!("{i:08x}")),
            kind: "ingest".into(),
            workload: "logs".into(),
            engine: Some("opensearch-2.19.1".into()),
            status: "complete".into(),
            state: State::Complete,
            started_unix: start_ms / 1000,
            finished_unix: Some(start_ms / 1000 + SECONDS),
            tool_version: "0.1.0".into(),
            seed: Some(1),
            pid: None,
            machine: json!({"cores": 8}),
            config,
            tags: Default::default(),
            error: None,
            result: Some(result),
        },
        timeline: rec
            .timeline()
            .iter()
            .map(|r| serde_json::to_value(r).expect("row"))
            .collect(),
        histograms: rec.histograms(),
        phases: vec![ingest_phase(&rec, start_ms / 1000, acked)],
    }
}

/// The load's phase measurements as a run keeps them: its counts, documents, requests and
/// bytes per wall-clock second, its histograms.
fn ingest_phase(rec: &Recorder, started_unix: u64, acked: u64) -> PhaseMeasurements {
    let mut m = Measurements::default();
    m.count("read", acked);
    m.count("indexed", acked);
    for row in rec.timeline() {
        m.count_at(started_unix + row.second, "docs", row.docs);
        m.count_at(started_unix + row.second, "requests", row.requests);
        m.count_at(started_unix + row.second, "bytes", row.bytes);
    }
    for h in rec.histograms() {
        m.histogram(&h).expect("a histogram made here");
    }
    PhaseMeasurements {
        phase: "ingest".into(),
        measurements: m,
        kept: Default::default(),
    }
}

fn bench(c: &mut Criterion) {
    let parts: Vec<PartRun> = (1..=PARTS).map(part).collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path().join("results.db")).expect("store");
    for p in &parts {
        // The result's timeline is in the timeline table, as a finished run keeps it.
        let mut run = p.whole();
        if let Some(r) = run.result.as_mut() {
            r["timeline"] = json!(p.timeline);
        }
        store.put_whole(&run, None, &[]).expect("store a part");
    }
    let m = merge::merge_parts("bench", parts.clone(), None).expect("merge");
    assert_eq!(m.run.state, State::Complete);
    // The last requests complete in the second after the hour.
    assert!((SECONDS as usize..=SECONDS as usize + 1).contains(&m.run.timeline.len()));
    let mut group = c.benchmark_group("merge");
    group.sample_size(10);
    group.bench_function("16_parts_of_an_hour/in_memory", |b| {
        b.iter(|| merge::merge_parts("bench", parts.clone(), None).expect("merge"))
    });
    // The same parts as a store kept them before phases were: what adding the phases costs.
    let mut without: Vec<PartRun> = parts.clone();
    for p in &mut without {
        p.phases.clear();
    }
    group.bench_function("16_parts_of_an_hour/in_memory_without_phases", |b| {
        b.iter(|| merge::merge_parts("bench", without.clone(), None).expect("merge"))
    });
    group.bench_function("16_parts_of_an_hour/store_read_merge_write", |b| {
        b.iter(|| {
            let m = merge::merge(&store, "bench", None).expect("merge");
            merge::store_merged(&store, &m).expect("store")
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

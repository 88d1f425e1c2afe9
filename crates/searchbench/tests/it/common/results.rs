//! Test data for the results tests: ingest results built from the real measurement types
//! (`Recorder` samples → timeline and HDR summary, `Attribution`, `Machine`) and shaped like
//! `IngestReport`; query results parsed into the real `QueryResult` type.

use std::time::Duration;

use searchbench::cluster::IndexStats;
use searchbench::measure::{Attribution, AttributionInput, Machine, Recorder, Sample};
use searchbench::query::report::QueryResult;
use searchbench::rng::Rng;
use serde_json::{json, Value};

/// An ingest result of `secs` seconds at about `docs_per_sec` (±`noise` relative, seeded),
/// service time around `service_ms`.
pub fn ingest_result(
    secs: u64,
    docs_per_sec: f64,
    noise: f64,
    service_ms: f64,
    seed: u64,
) -> Value {
    ingest_run(secs, docs_per_sec, noise, service_ms, seed).0
}

/// [`ingest_result`] with the histograms a run stores beside it.
pub fn ingest_run(
    secs: u64,
    docs_per_sec: f64,
    noise: f64,
    service_ms: f64,
    seed: u64,
) -> (Value, Vec<searchbench::measure::SerializedHistogram>) {
    let mut rng = Rng::new(seed, 0);
    let mut unit = move || (rng.next_u64() % 1_000_000) as f64 / 1_000_000.0;
    let mut rec = Recorder::new();
    let bulk = 500u32;
    let mut docs_total = 0u64;
    for s in 0..secs {
        // The first second ramps up; the last is partial.
        let scale = if s == 0 {
            0.5
        } else if s == secs - 1 {
            0.3
        } else {
            1.0
        };
        let rate = docs_per_sec * scale * (1.0 + noise * (unit() * 2.0 - 1.0));
        let requests = (rate / f64::from(bulk)).round().max(1.0) as u64;
        for i in 0..requests {
            let service = service_ms * (0.6 + 0.8 * unit());
            let start = Duration::from_millis(s * 1000 + i * 1000 / requests);
            let failed = unit() < 0.002;
            rec.record(&Sample {
                start,
                service: Duration::from_micros((service * 1000.0) as u64)
                    .min(Duration::from_millis(999 - (i * 1000 / requests).min(998))),
                took_ms: Some((service * 0.7) as u64),
                docs: bulk,
                acked: if failed { 0 } else { bulk },
                bytes: u64::from(bulk) * 300,
                wire_bytes: u64::from(bulk) * 300,
                status: if failed { 429 } else { 200 },
                retry: 0,
            });
            if !failed {
                docs_total += u64::from(bulk);
            }
        }
    }
    let wall = Duration::from_secs(secs);
    let machine = Machine::detect();
    let attribution = Attribution::compute(&AttributionInput {
        wall,
        clients: 2,
        service_sum: rec.service_sum,
        took_sum: Duration::from_millis(rec.took_sum_ms),
        stats: IndexStats {
            index_time_ms: rec.took_sum_ms / 2,
            refresh_time_ms: 300,
            merge_time_ms: 900,
            flush_time_ms: 50,
            ..Default::default()
        },
        driver_cpu: Duration::from_millis(secs * 150),
        engine_cpu: Some(Duration::from_millis(secs * 1400)),
        cores: machine.cores,
    });
    let result = json!({
        "tool": "searchbench",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "started_unix": 1_700_000_000u64,
        "corpus": "logs (seed 1, 200000 docs)",
        "index": "logs",
        "previous_index": "nothing",
        "target_url": "http://127.0.0.1:9200/",
        "product": "OpenSearch",
        "engine_version": "2.19.1",
        "config": {"index": "logs", "bulk_docs": bulk, "clients": 2, "gzip": false, "max_retries": 8},
        "load_settings": {"refresh_interval": "-1", "replicas": 0, "translog_durability": null},
        "machine": machine,
        "wall_secs": secs as f64,
        "counts": {"read": docs_total, "indexed": docs_total, "failed": 0, "refused": 0,
                   "unacknowledged": 0, "bad_lines": 0, "retried_items": 0, "throttled": 0,
                   "index_count": docs_total, "reconciled": true},
        "docs_per_sec": docs_total as f64 / secs as f64,
        "mb_per_sec": rec.bytes as f64 / 1e6 / secs as f64,
        "wire_mb_per_sec": rec.wire_bytes as f64 / 1e6 / secs as f64,
        "requests": {"attempts": rec.requests, "failed_attempts": rec.failed_attempts, "retries": rec.retried_attempts},
        "service": rec.service(),
        "took": rec.took(),
        "server_stats": null,
        "cpu": {"driver_secs": secs as f64 * 0.15, "driver_secs_per_million_docs": 0.15 * secs as f64 * 1e6 / docs_total.max(1) as f64,
                "driver_machine_share": 0.075, "engine_secs": secs as f64 * 1.4, "engine_machine_share": 0.7},
        "attribution": attribution,
        "timeline": rec.timeline(),
        "failures_file": null,
        "buffers": {"allocated": 4, "reused": 100, "body_lost": 0},
        "interrupted": false,
        "error": null,
        "warnings": []
    });
    (result, rec.histograms())
}

/// A query result with two cells whose took is around `took_ms` (seeded noise), checked
/// against the real `QueryResult` type.
pub fn query_result(took_ms: f64, seed: u64) -> Value {
    let acc = |variant: &str, algo: Value, bound: Value, err: f64| {
        json!({
            "variant": variant, "algo": algo, "bound": bound, "answers": 120, "count_wrong": 0,
            "sum_wrong": 0, "pct_values": 480, "pct_null": 0, "pct_over_bound": 0,
            "pct_max_err": err, "pct_mean_err": err / 3.0, "pct_max_err_by_percent": [0.0, err, err / 2.0, 0.0]
        })
    };
    shaped_query_result(
        "cluster-metrics",
        &[
            ("A", "serial", 0.3),
            ("D_td", "serial", 1.0),
            ("D_td", "msearch", 0.6),
        ],
        vec![
            acc("A", Value::Null, Value::Null, 0.0),
            acc("D_td", json!("t-digest"), json!(5.0), 0.8),
        ],
        took_ms,
        seed,
    )
}

/// A query result of the `logs` workload: two searches, one of them with 3 wrong newest hits.
pub fn logs_query_result(took_ms: f64, seed: u64) -> Value {
    let acc = |variant: &str, hits_wrong: u64, buckets_wrong: u64| {
        json!({
            "variant": variant, "algo": null, "bound": null, "answers": 32, "count_wrong": 0,
            "sum_wrong": 0, "pct_values": 0, "pct_null": 0, "pct_over_bound": 0,
            "pct_max_err": 0.0, "pct_mean_err": 0.0, "pct_max_err_by_percent": [0.0, 0.0, 0.0, 0.0],
            "hits_wrong": hits_wrong, "buckets_wrong": buckets_wrong
        })
    };
    shaped_query_result(
        "logs",
        &[
            ("range_terms_s10", "serial", 1.0),
            ("histogram_s0", "serial", 0.5),
        ],
        vec![acc("range_terms_s10", 3, 0), acc("histogram_s0", 0, 0)],
        took_ms,
        seed,
    )
}

fn shaped_query_result(
    workload: &str,
    cell_shapes: &[(&str, &str, f64)],
    accuracy: Vec<Value>,
    took_ms: f64,
    seed: u64,
) -> Value {
    let mut rng = Rng::new(seed, 0);
    let mut cells = Vec::new();
    for &(variant, transport, factor) in cell_shapes {
        let samples: Vec<Value> = (0..30)
            .map(|i| {
                let t = took_ms * factor * (0.9 + 0.2 * (rng.next_u64() % 1000) as f64 / 1000.0);
                json!({"pass": i / 10 + 1, "epoch": i % 10 + 1, "ok": true, "errors": 0,
                       "took_ms": t.round() as u64, "wall_ms": t * 1.3, "latency_ms": t * 1.3})
            })
            .collect();
        let stats = |f: &dyn Fn(&Value) -> f64| {
            let mut v: Vec<f64> = samples.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            json!({"n": v.len(), "mean": mean, "median": v[v.len() / 2], "p90": v[v.len() * 9 / 10],
                   "min": v[0], "max": v[v.len() - 1]})
        };
        let hdr = json!({"count": 30, "p50_us": 1000, "p90_us": 2000, "p99_us": 3000, "max_us": 4000, "mean_us": 1200.0});
        cells.push(json!({
            "variant": variant, "transport": transport, "coverages": 30, "errors": 0,
            "error_examples": [],
            "took_ms": stats(&|s: &Value| s["took_ms"].as_f64().unwrap_or(0.0)),
            "wall_ms": stats(&|s: &Value| s["wall_ms"].as_f64().unwrap_or(0.0)),
            "latency_ms": null, "service_hdr": hdr, "latency_hdr": hdr, "overhead_hdr": hdr,
            "samples": samples
        }));
    }
    let v = json!({
        "workload": workload, "index": workload, "passes": 3, "warmup_coverages": 10,
        "coverages": 10, "partitions": 40, "shuffle_seed": 1, "rate": null, "measured_secs": 12.5,
        "cells": cells, "savings": [], "attribution": [], "profile_cells": [], "profile_overhead": [],
        "accuracy": accuracy,
        "accuracy_checked": true, "failures_total": 0, "failures": [], "drift": null
    });
    let typed: QueryResult = serde_json::from_value(v).expect("shaped like QueryResult");
    serde_json::to_value(typed).expect("serialises")
}

/// Stores a result (ingest or query, by its shape) with tags; returns the run id.
pub fn save(store: &searchbench::store::Store, result: &Value, tags: &[(&str, &str)]) -> String {
    use searchbench::store::{Kind, NewRun};
    let kind = if result.get("cells").is_some() {
        Kind::Query
    } else {
        Kind::Ingest
    };
    let mut run = NewRun::new(kind, "logs", json!({}));
    run.tags = tags
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    store.save(&run, result).expect("save the result").0
}

/// The HTML report of one query result, stored as a run stores it: what a reader of the page
/// sees of it, to set beside the terminal's figures.
pub fn query_html(result: &Value) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = searchbench::store::Store::open(dir.path().join("r.db")).expect("store");
    let id = save(&store, result, &[]);
    let groups = searchbench::report::load(&store, &[id], false).expect("load the run");
    searchbench::report::html::render(&groups, None)
}

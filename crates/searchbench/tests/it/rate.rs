//! Open-loop ingest (`--rate`), the saturation search (`saturate`) and the network delay
//! (`--rtt`), against the wire-speed sink (examples/bulk_sink.rs, served from a thread here):
//! a double whose throughput and capacity are known, so the figures can be checked exactly.

use std::time::Duration;

use serde_json::Value;

use crate::common::{bin, streams, succeeded};

#[allow(dead_code)]
#[path = "../../examples/bulk_sink.rs"]
mod bulk_sink;

fn sink(service: Option<Duration>) -> String {
    bulk_sink::spawn(service).expect("start the bulk sink")
}

fn json(out: &std::process::Output) -> Value {
    let stdout = succeeded(out);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {}", streams(out)))
}

#[test]
fn rate_holds_the_offered_rate_within_two_percent() {
    let url = sink(None);
    let out = bin()
        .args(["ingest", "logs", "--docs", "30000", "--bulk-size", "100"])
        .args(["--rate", "10000", "--warmup", "0", "--no-store", "--quiet"])
        .args(["--json", "-", "--url", &url])
        .output()
        .unwrap();
    let r = json(&out);
    let rate = &r["rate"];
    let offered = rate["offered_docs_per_sec"].as_f64().unwrap();
    let achieved = rate["achieved_docs_per_sec"].as_f64().unwrap();
    assert_eq!(offered, 10000.0);
    assert!(
        (achieved / offered - 1.0).abs() < 0.02,
        "achieved {achieved} for offered {offered}: {rate}"
    );
    // Paced, not as fast as the sink goes: 30 000 documents take about 3 s.
    let wall = r["wall_secs"].as_f64().unwrap();
    assert!((2.8..6.0).contains(&wall), "wall {wall}");
    assert_eq!(rate["requests"], 300);
    assert!(rate["latency"]["p99_ms"].is_f64(), "{rate}");
    assert!(rate["schedule_lag"]["max_ms"].is_f64(), "{rate}");
    assert_eq!(r["counts"]["indexed"], 30000);
}

#[test]
fn a_paced_run_stores_latency_and_lag_histograms() {
    let url = sink(None);
    let store = crate::common::scratch_store();
    let out = bin()
        .args(["ingest", "logs", "--docs", "2000", "--bulk-size", "100"])
        .args(["--rate", "20000", "--warmup", "0", "--quiet", "--url", &url])
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    let stdout = succeeded(&out);
    assert!(
        stdout.contains("open loop: offered 20000 docs/s"),
        "{stdout}"
    );
    let store = searchbench::store::Store::open(&store).unwrap();
    let runs = store.list(&Default::default()).unwrap();
    let names: Vec<String> = store
        .histograms(&runs[0].id)
        .unwrap()
        .into_iter()
        .map(|h| h.name)
        .collect();
    assert!(
        names.iter().any(|n| n == "latency") && names.iter().any(|n| n == "schedule_lag"),
        "{names:?}"
    );
}

/// Each case, after `base`, exits 2 with an error containing its words.
fn exits_2(base: &[&str], cases: &[(&[&str], &str)]) {
    for (args, words) in cases {
        let out = bin()
            .args(base)
            .args(["--url", "http://127.0.0.1:9", "--no-store"])
            .args(*args)
            .output()
            .unwrap();
        let text = streams(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.contains(words), "{args:?}: {text}");
    }
}

#[test]
fn bad_rates_exit_2_with_a_clear_error() {
    exits_2(
        &["ingest", "logs", "--docs", "10"],
        &[
            (&["--rate", "0"], "positive"),
            (&["--rate", "fast"], "not a rate"),
        ],
    );
}

/// Median service time (ms) of `docs` one-document requests from one client to `url`.
fn serial_service_ms(url: &str, extra: &[&str]) -> (f64, Value) {
    let out = bin()
        .args([
            "ingest",
            "logs",
            "--docs",
            "200",
            "--bulk-size",
            "1",
            "--clients",
            "1",
        ])
        .args([
            "--warmup",
            "0",
            "--no-store",
            "--quiet",
            "--json",
            "-",
            "--url",
            url,
        ])
        .args(extra)
        .output()
        .unwrap();
    let r = json(&out);
    (r["service"]["p50_ms"].as_f64().unwrap(), r)
}

#[test]
fn rtt_adds_the_stated_round_trip() {
    let url = sink(None);
    let (direct, r) = serial_service_ms(&url, &[]);
    assert!(r.get("rtt").is_none());
    let (delayed, r) = serial_service_ms(&url, &["--rtt", "5ms"]);
    assert_eq!(r["rtt"]["rtt_ms"], 5.0);
    let added = delayed - direct;
    // 5 ms asked; the proxy's own hand-offs add a little on a busy machine.
    assert!(
        (4.5..8.0).contains(&added),
        "direct {direct} ms, through --rtt 5ms {delayed} ms"
    );
}

#[test]
fn bad_delays_exit_2_with_a_clear_error() {
    exits_2(
        &["ingest", "logs", "--docs", "10"],
        &[
            (&["--rtt", "-1ms"], "cannot be negative"),
            (
                &["--rtt", "2ms", "--jitter", "3ms"],
                "between 0 and the --rtt",
            ),
            (&["--jitter", "1ms"], "--rtt"),
        ],
    );
}

#[test]
fn saturate_finds_a_known_capacity_within_ten_percent() {
    // One bulk of 100 documents at a time, each held 20 ms: at most 5000 documents/s.
    let url = sink(Some(Duration::from_millis(20)));
    let store = crate::common::scratch_store();
    let out = bin()
        .args(["saturate", "logs", "--p99", "200ms", "--bulk-size", "100"])
        .args([
            "--start-rate",
            "2500",
            "--step-seconds",
            "1.5",
            "--warmup",
            "0",
        ])
        .args(["--quiet", "--json", "-", "--url", &url])
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    let r = json(&out);
    let found = r["max_sustainable_docs_per_sec"].as_f64().unwrap();
    assert!(
        (4500.0..=5100.0).contains(&found),
        "found {found} docs/s for a capacity of 5000: {}",
        serde_json::to_string_pretty(&r["steps"]).unwrap()
    );
    let failing = r["first_failing_docs_per_sec"].as_f64().unwrap();
    assert!(
        failing > found && failing <= 1.06 * found,
        "{failing} vs {found}"
    );
    // Every step is a stored run carrying the search's tag.
    let id = r["id"].as_str().unwrap();
    let store = searchbench::store::Store::open(&store).unwrap();
    let filter = searchbench::store::Filter {
        tags: vec![("saturate".into(), id.into())],
        ..Default::default()
    };
    let runs = store.list(&filter).unwrap();
    assert_eq!(runs.len(), r["steps"].as_array().unwrap().len());
}

#[test]
fn saturate_refuses_bad_limits_with_exit_2() {
    exits_2(
        &["saturate", "logs"],
        &[
            (&["--p99", "abc"], "not a duration"),
            (
                &["--p99", "1s", "--max-error-rate", "2"],
                "not a percentage",
            ),
            (&["--p99", "1s", "--rate", "100"], "--start-rate"),
        ],
    );
}

//! A fresh result read back as metrics, typed: every part of it (the ingest's figures, its
//! timeline, the query phase, the telemetry) reads as the type it was written with, so each
//! family of metrics is there and none is `errors.unreadable`. A field renamed in a result
//! type is a compile error in `analysis::metrics`; a key renamed in its JSON fails here.

use serde_json::Value;

use crate::common::{self, bin, node_url, succeeded};

const INDEX: &str = "it-metrics-read";

#[test]
fn a_fresh_run_reads_back_as_every_family_of_metrics() {
    common::fresh_index(INDEX, None);
    let out = bin()
        .args(["run", "numbers", "--docs", "4000", "--url", node_url()])
        .args(["--index", INDEX, "--no-store", "--json"])
        .output()
        .expect("run numbers");
    let result: Value = serde_json::from_str(&succeeded(&out)).expect("run --json");
    let timeline = result["timeline"].as_array().cloned().unwrap_or_default();
    let metrics = searchbench::analysis::metrics::extract(&result, &timeline);
    let keys: Vec<&str> = metrics.iter().map(|m| m.key.as_str()).collect();
    assert!(
        !keys.iter().any(|k| k.starts_with("errors.unreadable")),
        "{keys:?}"
    );
    for key in [
        "docs_per_sec",
        "mb_per_sec",
        "service_mean_ms",
        "service_p50_ms",
        "service_max_ms",
        "error_rate_pct",
        "errors.ingest.refused",
        "errors.ingest.not_sent",
        "errors.ingest.unacknowledged",
        "driver_cpu_secs_per_million_docs",
        "accuracy.group_sum.wrong",
        "errors.query.failed_searches",
        "errors.query.wrong_answers",
    ] {
        assert!(keys.contains(&key), "no {key} in {keys:?}");
    }
    for prefix in ["attribution.budget.", "query.group_sum."] {
        assert!(
            keys.iter().any(|k| k.starts_with(prefix)),
            "no {prefix}* in {keys:?}"
        );
    }
    // A phase may be too short for a telemetry sample; each that has one has its metrics.
    for (prefix, summary) in [
        ("telemetry.", &result["telemetry"]),
        ("query.telemetry.", &result["query"]["telemetry"]),
    ] {
        if summary["heap_peak_bytes"].is_number() {
            let key = format!("{prefix}heap_peak_mb");
            assert!(keys.contains(&key.as_str()), "no {key} in {keys:?}");
        }
    }
    // The headline is the result's own figure, whatever the samples behind it.
    let throughput = metrics.iter().find(|m| m.key == "docs_per_sec").unwrap();
    assert_eq!(Some(throughput.value), result["docs_per_sec"].as_f64());
    assert_plain_units(&result, "");
    the_stored_load_reads_what_the_report_wrote(&result);
    common::fresh_index(INDEX, None);
}

/// The one reader of a stored load (`ingest::stored::StoredLoad`: the metrics, the merge, the
/// terminal's merged table) reads each field a real load wrote, by the writer's names: a
/// field renamed on one side reads its default, and differs here.
fn the_stored_load_reads_what_the_report_wrote(result: &Value) {
    use searchbench::ingest::stored::StoredLoad;
    let load: StoredLoad = serde_json::from_value(result.clone()).expect("a stored load");
    let number = |key: &str| result[key].as_f64();
    assert_eq!(Some(load.docs_per_sec), number("docs_per_sec"));
    assert_eq!(Some(load.wall_secs), number("wall_secs"));
    assert_eq!(Some(load.wire_mb_per_sec), number("wire_mb_per_sec"));
    assert_eq!(load.mb_per_sec, number("mb_per_sec"));
    assert_eq!(load.started_unix, result["started_unix"].as_u64());
    assert_eq!(
        load.load_started_unix_ms,
        result["load_started_unix_ms"].as_u64()
    );
    assert!(load.load_started_unix_ms.is_some() && load.started_unix.is_some());
    assert_eq!(
        load.previous_index.as_deref(),
        result["previous_index"].as_str()
    );
    assert_eq!(
        Some(load.headline.window_secs),
        result["headline"]["window_secs"].as_f64()
    );
    assert_eq!(
        Some(load.counts.indexed),
        result["counts"]["indexed"].as_u64()
    );
    assert!(load.counts.indexed > 0);
    let attempts = result["requests"]["attempts"].as_u64();
    assert_eq!(Some(load.requests.attempts), attempts);
    assert_eq!(load.service.p50_ms, result["service"]["p50_ms"].as_f64());
    assert_eq!(
        Some(load.cpu.driver_secs),
        result["cpu"]["driver_secs"].as_f64()
    );
    let store = result["server_stats"]["store_bytes"].as_u64();
    assert_eq!(load.server_stats.map(|s| s.store_bytes), store);
    assert!(load.attribution.is_some());
    assert_eq!(load.background.is_some(), result["background"].is_object());
    assert_eq!(load.freshness.is_some(), result["freshness"].is_object());
    let failures_file = result["failures_file"].as_str();
    assert_eq!(load.failures_file.as_deref(), failures_file);
    assert_eq!(load.interrupted, result["interrupted"] == true);
    assert_eq!(load.error.as_deref(), result["error"].as_str());
    assert_eq!(
        load.warnings.len(),
        result["warnings"].as_array().map_or(0, Vec::len)
    );
}

/// A result's JSON holds no serde `Duration` (`{"secs","nanos"}`: a duration is a number
/// under a key naming its unit) and no sentinel integer (usize::MAX for "no limit": that is
/// `null`); a key that ends in a time unit holds a number, a list of numbers or a summary of
/// them.
fn assert_plain_units(v: &Value, path: &str) {
    const UNITS: [&str; 4] = ["_secs", "_ms", "_us", "_ns"];
    match v {
        Value::Object(map) => {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            assert!(
                !(keys.contains(&"secs") && keys.contains(&"nanos")),
                "{path} is a serde Duration: {v}"
            );
            for (k, child) in map {
                if UNITS.iter().any(|u| k.ends_with(u)) {
                    assert!(
                        !child.is_string() && !child.is_boolean(),
                        "{path}.{k} names a unit but holds {child}"
                    );
                }
                assert_plain_units(child, &format!("{path}.{k}"));
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                assert_plain_units(child, &format!("{path}[{i}]"));
            }
        }
        Value::Number(n) => {
            // Past 2^53 no measured count is near, and a JSON reader's double loses it.
            let sentinel = n.as_u64().is_some_and(|x| x >= 1 << 53);
            assert!(!sentinel, "{path} is a sentinel: {n}");
        }
        _ => {}
    }
}

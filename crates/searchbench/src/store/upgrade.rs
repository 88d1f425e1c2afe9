//! Stored JSON written by earlier releases, read in today's shape.
//!
//! A run's configuration decides which runs are one configuration (`analysis::configuration`),
//! so a key renamed or a value re-encoded here keeps old and new runs of the same flags in one
//! history. Each rule names the release shape it reads.

use serde_json::{Map, Value};

/// Brings a stored driver configuration (a run's `config`, or its result's `config`) to
/// today's shape, in place:
///
/// * `bulk_bytes: 18446744073709551615` (no limit, written as `usize::MAX`) → `null`;
/// * `backoff_base: {"secs", "nanos"}` → `backoff_base_secs: <float>`, and `backoff_max` so.
pub fn driver_config(config: &mut Value) {
    let Some(map) = config.as_object_mut() else {
        return;
    };
    if map.get("bulk_bytes").and_then(Value::as_u64) == Some(u64::MAX) {
        map.insert("bulk_bytes".into(), Value::Null);
    }
    for key in ["backoff_base", "backoff_max"] {
        if let Some(secs) = map.get(key).and_then(duration_secs) {
            map.remove(key);
            map.insert(format!("{key}_secs"), secs.into());
        }
    }
}

/// Brings a stored run's configuration to today's shape, in place: the driver's part (see
/// [`driver_config`]), and no heap for a cluster given by URL (`urls` set): releases before
/// this one stored the `--heap` flag's default there, a size no node of that cluster had.
pub fn run_config(config: &mut Value) {
    driver_config(config);
    let given = config
        .get("urls")
        .and_then(Value::as_array)
        .is_some_and(|urls| !urls.is_empty());
    if let (true, Some(map)) = (given, config.as_object_mut()) {
        if map.get("heap").is_some_and(|h| !h.is_null()) {
            map.insert("heap".into(), Value::Null);
        }
    }
}

/// serde's encoding of a `Duration` (`{"secs": 0, "nanos": 100000000}`) in seconds, computed
/// as `Duration::as_secs_f64` does, so an old 0.1 s and a new one are the same float.
fn duration_secs(v: &Value) -> Option<f64> {
    let map: &Map<String, Value> = v.as_object()?;
    if map.len() != 2 {
        return None;
    }
    let secs = map.get("secs")?.as_u64()?;
    let nanos = u32::try_from(map.get("nanos")?.as_u64()?).ok()?;
    (nanos < 1_000_000_000).then(|| std::time::Duration::new(secs, nanos).as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::DriverConfig;
    use serde_json::json;

    /// A run against a cluster given by URL stored the `--heap` flag's default as its heap:
    /// read back, it has none (as today's runs store it), so old and new runs of one cluster
    /// stay one configuration; a node we started keeps its heap.
    #[test]
    fn a_given_clusters_heap_is_unknown_however_it_was_stored() {
        let mut given = json!({"urls": ["http://10.0.0.7:9200/"], "heap": "1g", "clients": 2});
        run_config(&mut given);
        assert_eq!(given["heap"], Value::Null);
        assert_eq!(given["clients"], 2);
        let mut started = json!({"urls": [], "heap": "1g", "nodes": 1});
        run_config(&mut started);
        assert_eq!(started["heap"], "1g");
        let mut bare = json!({"heap": "2g"});
        run_config(&mut bare);
        assert_eq!(bare["heap"], "2g");
    }

    #[test]
    fn an_old_driver_config_reads_as_a_new_one_writes_it() {
        let mut old = json!({
            "bulk_docs": 1000,
            "bulk_bytes": u64::MAX,
            "backoff_base": {"secs": 0, "nanos": 100_000_000},
            "backoff_max": {"secs": 10, "nanos": 0},
        });
        driver_config(&mut old);
        let new = serde_json::to_value(DriverConfig::new("i")).unwrap();
        for key in ["bulk_bytes", "backoff_base_secs", "backoff_max_secs"] {
            assert_eq!(old[key], new[key], "{key}");
        }
        assert_eq!(new["bulk_bytes"], Value::Null);
        assert_eq!(new["backoff_base_secs"], json!(0.1));
        assert!(old.get("backoff_base").is_none());
        // Today's shape is left as it is; a limit is a limit.
        let mut again = old.clone();
        driver_config(&mut again);
        assert_eq!(again, old);
        let mut limited = json!({"bulk_bytes": 5_000_000});
        driver_config(&mut limited);
        assert_eq!(limited["bulk_bytes"], 5_000_000);
    }

    #[test]
    fn what_is_not_an_old_duration_is_left_alone() {
        for v in [
            json!({"backoff_base": {"secs": 1}}),
            json!({"backoff_base": {"secs": 1, "nanos": 2_000_000_000u64}}),
            json!({"backoff_base": "1s"}),
            json!([1, 2]),
        ] {
            let mut copy = v.clone();
            driver_config(&mut copy);
            assert_eq!(copy, v);
        }
    }
}

//! Index-level server statistics (`_stats`) taken before and after a load, and their deltas.

use serde::{Deserialize, Serialize};

use super::{Target, TargetError};

/// The parts of `GET /{index}/_stats` that say where server time went (totals over all shards).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStats {
    pub index_total: u64,
    pub index_time_ms: u64,
    pub index_failed: u64,
    pub refresh_total: u64,
    pub refresh_time_ms: u64,
    pub merge_total: u64,
    pub merge_time_ms: u64,
    pub merge_size_bytes: u64,
    pub flush_total: u64,
    pub flush_time_ms: u64,
    /// The data the index holds, bytes (its searchable segments' size after the load): a size,
    /// not a counter, so a delta keeps the later one. Results written before it was kept read 0.
    #[serde(default)]
    pub store_bytes: u64,
}

#[derive(Deserialize)]
struct StatsRoot {
    #[serde(rename = "_all")]
    all: StatsAll,
}
#[derive(Deserialize)]
struct StatsAll {
    #[serde(default)]
    total: Option<Sections>,
}
#[derive(Deserialize, Default)]
struct Sections {
    #[serde(default)]
    indexing: Option<Indexing>,
    #[serde(default)]
    refresh: Option<Timed>,
    #[serde(default)]
    merges: Option<Merges>,
    #[serde(default)]
    flush: Option<Timed>,
}
#[derive(Deserialize, Default)]
struct Indexing {
    #[serde(default)]
    index_total: u64,
    #[serde(default)]
    index_time_in_millis: u64,
    #[serde(default)]
    index_failed: u64,
}
#[derive(Deserialize, Default)]
struct Timed {
    #[serde(default)]
    total: u64,
    #[serde(default)]
    total_time_in_millis: u64,
}
#[derive(Deserialize, Default)]
struct Merges {
    #[serde(default)]
    total: u64,
    #[serde(default)]
    total_time_in_millis: u64,
    #[serde(default)]
    total_size_in_bytes: u64,
}

impl IndexStats {
    /// `GET /{index}/_stats/indexing,refresh,merge,flush` (the store's size comes from
    /// [`IndexStats::segments_size`]).
    pub async fn fetch(target: &Target, index: &str) -> Result<IndexStats, TargetError> {
        let root: StatsRoot = target
            .get_json(&format!("/{index}/_stats/indexing,refresh,merge,flush"))
            .await?;
        Ok(Self::from_sections(root.all.total.unwrap_or_default()))
    }

    /// The index's searchable segments' size, bytes, from `GET /{index}/_segments`: the data a
    /// load left, refreshed. (`_stats/store` counts committed files only: right after a load
    /// with its flushes held back it says a few hundred bytes.)
    pub async fn segments_size(target: &Target, index: &str) -> Result<u64, TargetError> {
        let root: serde_json::Value = target.get_json(&format!("/{index}/_segments")).await?;
        Ok(searchable_bytes(&root))
    }
}

/// The searchable segments' bytes of a `_segments` answer, over every index and shard copy.
fn searchable_bytes(root: &serde_json::Value) -> u64 {
    use serde_json::Value;
    root.get("indices")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|indices| indices.values())
        .filter_map(|i| i.get("shards").and_then(Value::as_object))
        .flat_map(|shards| shards.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|copy| copy.get("segments").and_then(Value::as_object))
        .flat_map(|segments| segments.values())
        .filter(|seg| seg.get("search").and_then(Value::as_bool) != Some(false))
        .filter_map(|seg| seg.get("size_in_bytes").and_then(Value::as_u64))
        .sum()
}

impl IndexStats {
    fn from_sections(s: Sections) -> IndexStats {
        let indexing = s.indexing.unwrap_or_default();
        let refresh = s.refresh.unwrap_or_default();
        let merges = s.merges.unwrap_or_default();
        let flush = s.flush.unwrap_or_default();
        IndexStats {
            index_total: indexing.index_total,
            index_time_ms: indexing.index_time_in_millis,
            index_failed: indexing.index_failed,
            refresh_total: refresh.total,
            refresh_time_ms: refresh.total_time_in_millis,
            merge_total: merges.total,
            merge_time_ms: merges.total_time_in_millis,
            merge_size_bytes: merges.total_size_in_bytes,
            flush_total: flush.total,
            flush_time_ms: flush.total_time_in_millis,
            store_bytes: 0,
        }
    }

    /// `self - before`, field by field (saturating: counters only grow).
    pub fn delta(&self, before: &IndexStats) -> IndexStats {
        IndexStats {
            index_total: self.index_total.saturating_sub(before.index_total),
            index_time_ms: self.index_time_ms.saturating_sub(before.index_time_ms),
            index_failed: self.index_failed.saturating_sub(before.index_failed),
            refresh_total: self.refresh_total.saturating_sub(before.refresh_total),
            refresh_time_ms: self.refresh_time_ms.saturating_sub(before.refresh_time_ms),
            merge_total: self.merge_total.saturating_sub(before.merge_total),
            merge_time_ms: self.merge_time_ms.saturating_sub(before.merge_time_ms),
            merge_size_bytes: self
                .merge_size_bytes
                .saturating_sub(before.merge_size_bytes),
            flush_total: self.flush_total.saturating_sub(before.flush_total),
            flush_time_ms: self.flush_time_ms.saturating_sub(before.flush_time_ms),
            store_bytes: self.store_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_all_total_section() {
        let body = br#"{"_shards":{},"_all":{"primaries":{},"total":{
            "indexing":{"index_total":10,"index_time_in_millis":7,"index_failed":1},
            "refresh":{"total":3,"total_time_in_millis":5},
            "merges":{"total":1,"total_time_in_millis":9,"total_size_in_bytes":1000},
            "flush":{"total":2,"total_time_in_millis":4}}}}"#;
        let root: StatsRoot = serde_json::from_slice(body).unwrap();
        let mut s = IndexStats::from_sections(root.all.total.unwrap());
        s.store_bytes = 5000;
        assert_eq!(s.index_total, 10);
        assert_eq!(s.merge_size_bytes, 1000);
        let d = s.delta(&IndexStats {
            index_total: 4,
            store_bytes: 1000,
            ..Default::default()
        });
        assert_eq!(d.index_total, 6);
        assert_eq!(d.flush_time_ms, 4);
        let segments = serde_json::json!({"indices": {"i": {"shards": {
            "0": [{"segments": {"_0": {"size_in_bytes": 100, "search": true},
                                "_1": {"size_in_bytes": 7, "search": false}}}],
            "1": [{"segments": {"_0": {"size_in_bytes": 50, "search": true}}}]}}}});
        // Searchable segments only: one merged away but not yet deleted is not data kept.
        assert_eq!(searchable_bytes(&segments), 150);
        // A size: the later one, not a difference.
        assert_eq!(d.store_bytes, 5000);
    }
}

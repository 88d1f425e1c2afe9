//! `_nodes/stats` for telemetry: what every node says about its JVM, OS, process, thread
//! pools, indices, breakers and file systems, read leniently (old releases and
//! Elasticsearch/OpenSearch differ in what they carry; a missing field is no error).

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::Value;

use super::{Target, TargetError};

/// The sections asked for, trimmed by `filter_path` to the fields telemetry reads (a node's
/// full stats are tens of kilobytes; this keeps the sampler cheap for both sides).
pub const NODE_STATS_PATH: &str = "/_nodes/stats/jvm,os,process,thread_pool,indices,breaker,fs\
?filter_path=nodes.*.name,nodes.*.jvm.mem.heap_used_in_bytes,nodes.*.jvm.mem.heap_committed_in_bytes,\
nodes.*.jvm.mem.heap_max_in_bytes,nodes.*.jvm.gc.collectors,nodes.*.os.cpu.percent,\
nodes.*.process.cpu.total_in_millis,nodes.*.process.timestamp,nodes.*.process.open_file_descriptors,\
nodes.*.thread_pool.write,nodes.*.thread_pool.bulk,nodes.*.thread_pool.search,\
nodes.*.indices.indexing.index_total,nodes.*.indices.indexing.index_current,\
nodes.*.indices.indexing.throttle_time_in_millis,nodes.*.indices.search.query_total,\
nodes.*.indices.search.query_current,nodes.*.indices.merges,nodes.*.indices.refresh,\
nodes.*.indices.segments.count,nodes.*.indices.segments.memory_in_bytes,\
nodes.*.indices.translog.size_in_bytes,nodes.*.breakers.*.tripped,nodes.*.fs.io_stats.total";

/// One node's answer: its id, name and the stats as they came.
#[derive(Debug, Clone)]
pub struct NodeStats {
    pub id: String,
    pub name: String,
    pub stats: Value,
}

impl Target {
    /// `_nodes/stats` of every node that answered, from endpoint `i` (round robin over the
    /// URLs, so a sampler can move on when one stops answering).
    pub async fn node_stats(&self, i: usize) -> Result<Vec<NodeStats>, TargetError> {
        let reply = self.send_at(i, Method::GET, NODE_STATS_PATH, None).await?;
        let request = format!("GET {}", self.endpoint(i, NODE_STATS_PATH));
        let answer: Value = super::decode(&request, &reply.body)?;
        Ok(nodes_of(answer))
    }

    /// The process id of every node (`_nodes/process`), by node name: how a node is matched
    /// with a local process whose `/proc` can be read.
    pub async fn node_pids(&self) -> Result<BTreeMap<String, u32>, TargetError> {
        let answer: Value = self
            .get_json("/_nodes/process?filter_path=nodes.*.name,nodes.*.process.id")
            .await?;
        Ok(nodes_of(answer)
            .into_iter()
            .filter_map(|n| {
                let pid = n.stats.pointer("/process/id")?.as_u64()?;
                Some((n.name, u32::try_from(pid).ok()?))
            })
            .collect())
    }
}

/// The `nodes` map of an answer as a list; a node without a name is named by its id.
fn nodes_of(answer: Value) -> Vec<NodeStats> {
    let Some(Value::Object(nodes)) = answer.get("nodes").cloned() else {
        return Vec::new();
    };
    nodes
        .into_iter()
        .map(|(id, stats)| NodeStats {
            name: stats
                .get("name")
                .and_then(Value::as_str)
                .map_or_else(|| id.clone(), str::to_string),
            id,
            stats,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_named_and_a_missing_map_is_empty() {
        let answer = serde_json::json!({"nodes": {
            "abc": {"name": "node-1", "jvm": {}},
            "def": {"jvm": {}}
        }});
        let nodes = nodes_of(answer);
        assert_eq!(nodes.len(), 2);
        assert_eq!(nodes[0].name, "node-1");
        assert_eq!(nodes[1].name, "def");
        assert!(nodes_of(serde_json::json!({"_nodes": {"failed": 1}})).is_empty());
    }
}

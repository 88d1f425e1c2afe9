//! Ground truth (from a truth file or recomputed from the corpus spec) and a plain loader for
//! the cluster-metrics and logs corpora, so the query phase can run on its own (`--load`, tests,
//! benchmarks). The real ingest path is `searchbench ingest`/`run`; this one is simple and
//! serial: one `_bulk` of 5,000 documents at a time, then a refresh.

use reqwest::Method;
use serde_json::{json, Value};

use super::QueryError;
use crate::corpus::metrics::{truth_header, ClusterMetrics, MetricsSpec, PartitionTruth};
use crate::corpus::{DocSource, Item, Logs, LogsSpec};
use crate::target::{Target, TargetError};

/// The exact truth of the corpus `spec` describes, computed in-process.
pub fn compute_truth(spec: &MetricsSpec) -> Result<Vec<PartitionTruth>, QueryError> {
    let mut spec = spec.clone();
    spec.truth = true;
    let mut generator = ClusterMetrics::new(spec)?;
    let handle = generator.truth_handle();
    while generator.next_row().is_some() {}
    Ok(handle.take())
}

/// Reads a truth file: NDJSON, an optional header line (with a `truth` key), then one
/// [`PartitionTruth`] per line.
pub fn read_truth_file(path: &std::path::Path) -> Result<Vec<PartitionTruth>, QueryError> {
    let bad = |line: usize, reason: String| QueryError::File {
        path: format!("{}:{line}", path.display()),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(0, e.to_string()))?;
    let mut parts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| bad(i + 1, e.to_string()))?;
        if v.get("truth").is_some() {
            continue;
        }
        let p: PartitionTruth = serde_json::from_value(v)
            .map_err(|e| bad(i + 1, format!("not a partition truth: {e}")))?;
        parts.push(p);
    }
    Ok(parts)
}

/// Writes the truth in the same NDJSON form [`read_truth_file`] reads.
pub fn write_truth_file(
    path: &std::path::Path,
    spec: &MetricsSpec,
    parts: &[PartitionTruth],
) -> Result<(), QueryError> {
    let mut out = truth_header(spec).to_string();
    out.push('\n');
    for p in parts {
        out.push_str(&serde_json::to_string(p).unwrap_or_default());
        out.push('\n');
    }
    std::fs::write(path, out).map_err(|e| QueryError::File {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// The index body of field note 002: one shard, no replica, the six fields.
pub fn index_body() -> Value {
    json!({
        "settings": {"number_of_shards": 1, "number_of_replicas": 0},
        "mappings": {"properties": {
            "epoch": {"type": "long"},
            "node": {"type": "keyword"},
            "task": {"type": "keyword"},
            "cpu": {"type": "float"},
            "mem": {"type": "float"},
            "net": {"type": "float"}
        }}
    })
}

/// Creates `index` (it must not exist), loads the corpus of `spec`, refreshes, and returns
/// the ground truth of what was loaded.
pub async fn load_cluster_metrics(
    target: &Target,
    index: &str,
    spec: &MetricsSpec,
) -> Result<Vec<PartitionTruth>, QueryError> {
    let mut spec = spec.clone();
    spec.truth = true;
    let mut generator = ClusterMetrics::new(spec)?;
    let handle = generator.truth_handle();
    load_source(target, index, &index_body(), &mut generator).await?;
    Ok(handle.take())
}

/// Creates `index` (it must not exist) with the `logs` workload's mapping, loads the corpus of
/// `spec`, refreshes, and returns the number of documents loaded.
pub async fn load_logs(target: &Target, index: &str, spec: &LogsSpec) -> Result<u64, QueryError> {
    let body = crate::workload::find("logs")
        .map(|w| w.index_body())
        .ok_or_else(|| QueryError::Invalid("no built-in `logs` workload".into()))?;
    let mut generator = Logs::new(spec.clone())?;
    load_source(target, index, &body, &mut generator).await
}

/// Creates `index` (it must not exist) with `body`, loads every document of `source`, serially,
/// 5,000 per `_bulk`, refreshes, and returns the number of documents loaded.
pub async fn load_source(
    target: &Target,
    index: &str,
    body: &Value,
    source: &mut dyn DocSource,
) -> Result<u64, QueryError> {
    match target.send(Method::HEAD, &format!("/{index}"), None).await {
        Ok(_) => {
            return Err(QueryError::Invalid(format!(
                "index {index:?} exists already; delete it or query it without --load"
            )))
        }
        Err(TargetError::Status { status: 404, .. }) => {}
        Err(e) => return Err(e.into()),
    }
    let _: Value = target
        .send_json(Method::PUT, &format!("/{index}"), body)
        .await?;
    let action = format!("{{\"index\":{{\"_index\":{}}}}}\n", json!(index));
    let path = "/_bulk?filter_path=errors,items.*.error";
    let mut body = Vec::with_capacity(1 << 20);
    let mut docs = 0;
    let mut total = 0u64;
    loop {
        let len = body.len();
        body.extend_from_slice(action.as_bytes());
        let more = match source.next_into(&mut body)? {
            Some(Item::Doc) => {
                body.push(b'\n');
                docs += 1;
                true
            }
            Some(Item::Bad(b)) => {
                return Err(QueryError::File {
                    path: format!("{}:{}", b.source, b.line),
                    reason: b.reason,
                })
            }
            None => {
                body.truncate(len);
                false
            }
        };
        if (!more && docs > 0) || docs == 5000 {
            let reply = target
                .send(
                    Method::POST,
                    path,
                    Some(("application/x-ndjson", std::mem::take(&mut body))),
                )
                .await?;
            let v: Value = crate::target::decode("POST /_bulk", &reply.body)?;
            if v.get("errors").and_then(Value::as_bool) != Some(false) {
                return Err(QueryError::Invalid(format!(
                    "the bulk load was refused in part: {}",
                    String::from_utf8_lossy(&reply.body[..reply.body.len().min(300)])
                )));
            }
            total += docs;
            docs = 0;
        }
        if !more {
            break;
        }
    }
    target
        .send(Method::POST, &format!("/{index}/_refresh"), None)
        .await?;
    Ok(total)
}

//! The cluster-metrics truth file: a header line saying what the numbers mean, then one
//! [`PartitionTruth`] per (epoch, node), NDJSON. Written by `generate --truth`, read by
//! `query --truth`, and recomputed in-process from the corpus spec when no file is given.

use std::path::Path;

use serde_json::Value;

use super::cluster_metrics::{ClusterMetrics, MetricsSpec, PartitionTruth};
use super::CorpusError;

/// The first line of a truth file: what the numbers mean.
pub fn header(spec: &MetricsSpec) -> serde_json::Value {
    serde_json::json!({
        "truth": "cluster-metrics",
        "format": "NDJSON: this header, then one object per (epoch, node) with rows: \
                   {epoch, node, count, cpu|mem|net: {p0, p50, p90, p100, sum}}",
        "values": "each value is the f32 an engine stores for the 2-decimal text written \
                   (mapping type float), widened to f64",
        "percentiles": "exact, linear interpolation between closest ranks (Hyndman-Fan type 7, \
                        numpy default): r = p/100*(n-1), x[floor r] + frac(r)*(x[floor r+1]-x[floor r]); \
                        p0 = min, p100 = max",
        "sum": "f64 sum of the f32 values in generation order; engines sum in another order, \
                compare with a relative tolerance of about 1e-9",
        "seed": spec.seed,
        "rows_per_epoch": spec.rows_per_epoch,
        "first_epoch": spec.first_epoch,
    })
}

/// The exact truth of the corpus `spec` describes, computed in-process.
pub fn compute(spec: &MetricsSpec) -> Result<Vec<PartitionTruth>, CorpusError> {
    let mut spec = spec.clone();
    spec.truth = true;
    let mut generator = ClusterMetrics::new(spec)?;
    let handle = generator.truth_handle();
    while generator.next_row().is_some() {}
    Ok(handle.take())
}

/// Reads a truth file: the optional header line (with a `truth` key), then one
/// [`PartitionTruth`] per line.
pub fn read(path: &Path) -> Result<Vec<PartitionTruth>, CorpusError> {
    let bad = |line: usize, reason: String| {
        CorpusError::Invalid(format!("{}:{line}: {reason}", path.display()))
    };
    let text = crate::user_file::read_to_string(path).map_err(|source| CorpusError::Io {
        path: path.display().to_string(),
        source,
    })?;
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

/// Writes the truth in the form [`read`] reads.
pub fn write(path: &Path, spec: &MetricsSpec, parts: &[PartitionTruth]) -> Result<(), CorpusError> {
    let mut out = header(spec).to_string();
    out.push('\n');
    for p in parts {
        let line = serde_json::to_string(p).map_err(|e| CorpusError::Invalid(e.to_string()))?;
        out.push_str(&line);
        out.push('\n');
    }
    std::fs::write(path, out).map_err(|source| CorpusError::Io {
        path: path.display().to_string(),
        source,
    })
}

//! The sketch store: field note 002's baseline beside the engine. A metrics store made for one
//! job — the cluster-metrics rows in, per (epoch, node) percentiles and sums out — so that a run
//! can say how far an engine is from what the job costs when nothing else is done: columnar
//! batches instead of NDJSON, a 20-byte answer instead of a bulk response, a sketch update
//! instead of postings, doc values and a translog.
//!
//! Each (epoch, node) keeps, for each metric field, a DDSketch (the `sketches-ddsketch` crate:
//! relative error [`RELATIVE_ERROR`] on every quantile, the minimum and maximum exact) and the
//! exact sum. Values are kept as 32-bit floats, as the engine's `float` fields keep them, so
//! both answer the same question and the sums match the ground truth's.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sketches_ddsketch::{Config, DDSketch};

use crate::corpus::cluster_metrics::Row;

/// The metric fields of a row, in the order an answer lists them.
pub const FIELDS: [&str; 3] = ["cpu", "mem", "net"];

/// The percentiles an answer gives (the note's).
pub const PERCENTS: [f64; 4] = [0.0, 50.0, 90.0, 100.0];

/// The sketch's relative error on a quantile's value (DDSketch's α): what it states, and what a
/// check of its answers allows (the percentiles interpolate between ranks as the truth does).
pub const RELATIVE_ERROR: f64 = 0.01;

/// Bins a sketch may hold before it merges its lowest: far more than 1 % relative error needs
/// between the smallest and largest value of a field here (0.01 to 5,000).
const MAX_BINS: u32 = 2048;

/// Values below this are counted as zero by the sketch (its smallest distinguishable value).
const MIN_VALUE: f64 = 1e-6;

/// One batch of rows, column by column: `{"epoch": [...], "node": [...], "task": [...], "cpu":
/// [...], "mem": [...], "net": [...]}`, every column as long as `epoch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    pub epoch: Vec<u64>,
    pub node: Vec<String>,
    pub task: Vec<String>,
    pub cpu: Vec<f64>,
    pub mem: Vec<f64>,
    pub net: Vec<f64>,
}

impl Batch {
    pub fn len(&self) -> usize {
        self.epoch.len()
    }

    pub fn is_empty(&self) -> bool {
        self.epoch.is_empty()
    }

    /// Adds a generated cluster-metrics row, as the generator writes it (`N001`, `T001`,
    /// values in hundredths).
    pub fn push_row(&mut self, r: &Row) {
        self.epoch.push(r.epoch);
        self.node.push(format!("N{:03}", u32::from(r.node) + 1));
        self.task.push(format!("T{:03}", u32::from(r.task) + 1));
        self.cpu.push(f64::from(r.cpu) / 100.0);
        self.mem.push(f64::from(r.mem) / 100.0);
        self.net.push(f64::from(r.net) / 100.0);
    }

    /// Every column as long as `epoch`, every value finite: a batch is taken whole or not at
    /// all (a bad one is refused naming its column and row, and nothing of it is kept).
    pub fn validate(&self) -> Result<(), SketchError> {
        let rows = self.len();
        for (column, len) in [
            ("node", self.node.len()),
            ("task", self.task.len()),
            ("cpu", self.cpu.len()),
            ("mem", self.mem.len()),
            ("net", self.net.len()),
        ] {
            if len != rows {
                return Err(SketchError::Ragged { column, len, rows });
            }
        }
        for (column, values) in self.fields() {
            // As kept (a 32-bit float), finite and not negative: what the sketch can hold.
            let kept = |v: &f64| {
                let f = *v as f32;
                f.is_finite() && f >= 0.0
            };
            if let Some(row) = values.iter().position(|v| !kept(v)) {
                return Err(SketchError::OutOfRange {
                    column,
                    row,
                    value: format!("{:e}", values[row]),
                });
            }
        }
        if let Some(row) = self.node.iter().position(|n| n.len() > MAX_NODE_BYTES) {
            return Err(SketchError::NodeName {
                row,
                len: self.node[row].len(),
            });
        }
        Ok(())
    }

    fn fields(&self) -> [(&'static str, &[f64]); 3] {
        [("cpu", &self.cpu), ("mem", &self.mem), ("net", &self.net)]
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SketchError {
    #[error(
        "column {column:?} has {len} values, the batch has {rows} rows (its \"epoch\" column)"
    )]
    Ragged {
        column: &'static str,
        len: usize,
        rows: usize,
    },
    #[error(
        "column {column:?}, row {row}: {value} is not a number from 0 to {:e} (a 32-bit float, \
         as the engine's `float` field keeps it)",
        f32::MAX
    )]
    OutOfRange {
        column: &'static str,
        row: usize,
        value: String,
    },
    #[error("column \"node\", row {row}: a node name of {len} bytes; at most {MAX_NODE_BYTES}")]
    NodeName { row: usize, len: usize },
    #[error(
        "the batch would make {would} (epoch, node) partitions; the store keeps at most \
         {bound} (none of the batch was kept)"
    )]
    Full { would: usize, bound: usize },
    #[error(
        "the batch would make the store hold {} MiB; it holds at most {} MiB (none of the \
         batch was kept)",
        would >> 20,
        budget >> 20
    )]
    FullBytes { would: usize, budget: usize },
}

impl SketchError {
    /// The store is full: the batch was fine, the store's bound is reached.
    pub fn is_full(&self) -> bool {
        matches!(
            self,
            SketchError::Full { .. } | SketchError::FullBytes { .. }
        )
    }
}

/// The most (epoch, node) partitions a store keeps: each costs its key and three sketches
/// (a few KiB at most), so a client sending distinct keys without end cannot grow it past a
/// few GiB. Field note 002's size is 30 nodes × some thousands of epochs.
pub const MAX_PARTITIONS: usize = 1_000_000;

/// The most bytes a store's partitions hold: a partition's sketches grow with the spread of
/// its values (up to [`MAX_BINS`] each), so a count of partitions alone let a store reach
/// several GiB before [`MAX_PARTITIONS`].
pub const MAX_BYTES: usize = 1 << 30;

/// The most one row can add to a store: a new partition, its key, and each of its sketches
/// grown to [`MAX_BINS`].
const WORST_ROW: usize = std::mem::size_of::<((u64, String), Partition)>()
    + MAX_NODE_BYTES
    + 3 * MAX_BINS as usize * std::mem::size_of::<u64>();

/// The longest node name a row may carry.
pub const MAX_NODE_BYTES: usize = 256;

/// One field of one (epoch, node).
#[derive(Clone)]
struct Field {
    sketch: DDSketch,
    sum: f64,
}

/// One (epoch, node): its rows' count and each field.
#[derive(Clone)]
struct Partition {
    count: u64,
    fields: [Field; 3],
}

/// A field's answer: the [`PERCENTS`] in order and the exact sum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldAnswer {
    pub percentiles: Vec<f64>,
    pub sum: f64,
}

/// The answer for one (epoch, node).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub epoch: u64,
    pub node: String,
    pub count: u64,
    pub cpu: FieldAnswer,
    pub mem: FieldAnswer,
    pub net: FieldAnswer,
}

/// The store: every (epoch, node) seen.
pub struct SketchStore {
    config: Config,
    partitions: HashMap<(u64, String), Partition>,
    /// The most partitions it keeps ([`MAX_PARTITIONS`] unless told).
    bound: usize,
    /// The bytes its partitions hold ([`partition_bytes`] of each), and the most they may.
    bytes: usize,
    budget: usize,
}

/// About how many bytes a partition holds: its key, its fixed part, each sketch's bins (a
/// count of 8 bytes each).
fn partition_bytes(node: &str, p: &Partition) -> usize {
    node.len()
        + std::mem::size_of::<((u64, String), Partition)>()
        + p.fields
            .iter()
            .map(|f| f.sketch.length() * std::mem::size_of::<u64>())
            .sum::<usize>()
}

impl Default for SketchStore {
    fn default() -> Self {
        Self::new()
    }
}

impl SketchStore {
    pub fn new() -> Self {
        SketchStore::bounded(MAX_PARTITIONS)
    }

    /// A store that keeps at most `bound` partitions.
    pub fn bounded(bound: usize) -> Self {
        SketchStore {
            config: Config::new(RELATIVE_ERROR, MAX_BINS, MIN_VALUE),
            partitions: HashMap::new(),
            bound,
            bytes: 0,
            budget: MAX_BYTES,
        }
    }

    /// The store with at most `budget` bytes in its partitions ([`MAX_BYTES`] unless told).
    pub fn with_budget(mut self, budget: usize) -> Self {
        self.budget = budget;
        self
    }

    /// Adds a batch (all of it, or none when it is not valid); returns the rows inserted.
    pub fn insert(&mut self, batch: &Batch) -> Result<usize, SketchError> {
        batch.validate()?;
        // The bound is judged before anything changes: a batch is kept whole or not at all.
        // Counted only near it (a batch adds at most one partition a row).
        if self.partitions.len() + batch.len() > self.bound {
            let mut new: std::collections::HashSet<(u64, &str)> = Default::default();
            for row in 0..batch.len() {
                let key = (batch.epoch[row], batch.node[row].as_str());
                if !self.partitions.contains_key(&(key.0, key.1.to_string())) {
                    new.insert(key);
                }
            }
            let would = self.partitions.len() + new.len();
            if would > self.bound {
                return Err(SketchError::Full {
                    would,
                    bound: self.bound,
                });
            }
        }
        // The bytes too: a batch that cannot push the store past its budget, however its
        // values spread, goes in at once; one that might is applied beside a copy of what
        // it touches, and undone when it did.
        let touched = touched_keys(batch);
        let before: usize = touched
            .iter()
            .filter_map(|k| self.partitions.get(k).map(|p| partition_bytes(&k.1, p)))
            .sum();
        let near = self.bytes + batch.len().saturating_mul(WORST_ROW) > self.budget;
        let kept: Vec<((u64, String), Option<Partition>)> = if near {
            touched
                .iter()
                .map(|k| (k.clone(), self.partitions.get(k).cloned()))
                .collect()
        } else {
            Vec::new()
        };
        self.apply(batch);
        let after: usize = touched
            .iter()
            .filter_map(|k| self.partitions.get(k).map(|p| partition_bytes(&k.1, p)))
            .sum();
        let would = self.bytes - before + after;
        if near && would > self.budget {
            for (key, old) in kept {
                match old {
                    Some(p) => self.partitions.insert(key, p),
                    None => self.partitions.remove(&key),
                };
            }
            return Err(SketchError::FullBytes {
                would,
                budget: self.budget,
            });
        }
        self.bytes = would;
        Ok(batch.len())
    }

    /// Adds every row of `batch` (checked).
    fn apply(&mut self, batch: &Batch) {
        let config = self.config;
        let fresh = || Partition {
            count: 0,
            fields: std::array::from_fn(|_| Field {
                sketch: DDSketch::new(config),
                sum: 0.0,
            }),
        };
        // Rows of one node come in runs often enough that one lookup serves several.
        let mut at: Option<(u64, &str)> = None;
        let mut current: Option<&mut Partition> = None;
        for row in 0..batch.len() {
            let key = (batch.epoch[row], batch.node[row].as_str());
            if at != Some(key) {
                let partition = self
                    .partitions
                    .entry((key.0, key.1.to_string()))
                    .or_insert_with(fresh);
                current = Some(partition);
                at = Some(key);
            }
            let Some(p) = current.as_deref_mut() else {
                continue;
            };
            p.count += 1;
            for (field, (_, values)) in p.fields.iter_mut().zip(batch.fields()) {
                // As the engine's `float` field keeps it.
                let v = values[row] as f32 as f64;
                field.sketch.add(v);
                field.sum += v;
            }
        }
    }

    /// The answer for (epoch, node), `None` when it has no rows.
    pub fn answer(&self, epoch: u64, node: &str) -> Option<Answer> {
        let p = self.partitions.get(&(epoch, node.to_string()))?;
        let field = |i: usize| {
            let f: &Field = &p.fields[i];
            FieldAnswer {
                percentiles: PERCENTS
                    .iter()
                    .map(|q| match *q {
                        // The sketch keeps both ends exactly.
                        0.0 => f.sketch.min().unwrap_or(0.0),
                        100.0 => f.sketch.max().unwrap_or(0.0),
                        q => type7(&f.sketch, q / 100.0),
                    })
                    .collect(),
                sum: f.sum,
            }
        };
        Some(Answer {
            epoch,
            node: node.to_string(),
            count: p.count,
            cpu: field(0),
            mem: field(1),
            net: field(2),
        })
    }

    /// The answers for a whole coverage (one epoch, these nodes), in order.
    pub fn coverage(&self, epoch: u64, nodes: &[String]) -> Vec<Option<Answer>> {
        nodes.iter().map(|n| self.answer(epoch, n)).collect()
    }

    /// Rows kept.
    pub fn rows(&self) -> u64 {
        self.partitions.values().map(|p| p.count).sum()
    }

    /// About how many bytes the sketches hold: each one's bins (a count of 8 bytes each) and
    /// its fixed part, plus each partition's key (kept as rows come, so the bound is judged
    /// without a walk).
    pub fn memory_bytes(&self) -> usize {
        self.bytes
    }
}

/// The distinct (epoch, node) keys of `batch`, in the order first seen (rows of one node come
/// in runs: one look for each run).
fn touched_keys(batch: &Batch) -> Vec<(u64, String)> {
    let mut seen: std::collections::HashSet<(u64, &str)> = Default::default();
    let mut out = Vec::new();
    let mut at: Option<(u64, &str)> = None;
    for row in 0..batch.len() {
        let key = (batch.epoch[row], batch.node[row].as_str());
        if at != Some(key) && seen.insert(key) {
            out.push((key.0, key.1.to_string()));
        }
        at = Some(key);
    }
    out
}

/// The `q` quantile as the ground truth defines it (type 7: `h = q·(n−1)`, between the order
/// statistics `⌊h⌋` and `⌊h⌋+1`, weighted by the fraction of `h`), each order statistic read
/// from the sketch. Each is within α of its true value, so their weighted mean is within α of
/// the exact percentile: the rank is not rounded as the sketch's own `quantile` rounds it.
fn type7(sketch: &DDSketch, q: f64) -> f64 {
    let n = sketch.count() as f64;
    if n < 2.0 {
        return sketch.min().unwrap_or(0.0);
    }
    let h = q * (n - 1.0);
    let below = h.floor();
    let fraction = h - below;
    // The sketch's rank for a quantile is ⌊q·(n−1)⌋: half a rank up lands on the one wanted.
    let at = |rank: f64| {
        let q = ((rank + 0.5) / (n - 1.0)).min(1.0);
        sketch.quantile(q).ok().flatten().unwrap_or(0.0)
    };
    let low = at(below);
    if fraction == 0.0 {
        return low;
    }
    low + fraction * (at(below + 1.0) - low)
}

/// Writes `rows` as one columnar batch, the text [`Batch`] reads: `{"epoch":[...],
/// "node":["N001",...],"task":[...],"cpu":[12.34,...],"mem":[...],"net":[...]}`. Values are
/// the generator's hundredths, written as it writes them into documents, so the store keeps
/// what an engine's `float` field keeps of the same row.
pub fn write_batch(rows: &[Row], out: &mut Vec<u8>) {
    use crate::corpus::text::{push_fixed, push_u64};
    fn column<T>(
        out: &mut Vec<u8>,
        name: &str,
        rows: &[T],
        mut value: impl FnMut(&mut Vec<u8>, &T),
    ) {
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":[");
        for (i, row) in rows.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            value(out, row);
        }
        out.push(b']');
    }
    let name = |out: &mut Vec<u8>, prefix: u8, i: u8| {
        out.push(b'"');
        out.extend_from_slice(&crate::corpus::cluster_metrics::name4(
            prefix,
            usize::from(i),
        ));
        out.push(b'"');
    };
    out.push(b'{');
    column(out, "epoch", rows, |o, r| push_u64(o, r.epoch));
    out.push(b',');
    column(out, "node", rows, |o, r| name(o, b'N', r.node));
    out.push(b',');
    column(out, "task", rows, |o, r| name(o, b'T', r.task));
    out.push(b',');
    column(out, "cpu", rows, |o, r| push_fixed(o, u64::from(r.cpu), 2));
    out.push(b',');
    column(out, "mem", rows, |o, r| push_fixed(o, u64::from(r.mem), 2));
    out.push(b',');
    column(out, "net", rows, |o, r| push_fixed(o, u64::from(r.net), 2));
    out.push(b'}');
}

pub mod server;

#[cfg(test)]
mod tests;

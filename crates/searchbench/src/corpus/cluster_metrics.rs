//! `cluster-metrics`: one row per (epoch, node, task) sample with `cpu`, `mem`, `net`, the
//! ingest + percentile-query workload of the time-attribution study (docs/architecture.md) (30 nodes, 200 tasks, 1,000,000 rows
//! per epoch), with exact ground truth for the percentile and sum aggregations it queries.
//!
//! # Values
//!
//! Each node has its own distributions (drawn from the seed), so the per-node percentiles a
//! query returns differ and a wrong filter shows: `cpu` is a per-node centre plus noise, with
//! a per-epoch drift and rare spikes toward 100; `mem` is a slowly moving per-node level;
//! `net` is heavy-tailed. All three are written with exactly two decimals from an integer
//! number of hundredths, so the text is exact and its nearest `f32` is well defined.
//!
//! # Ground truth
//!
//! The mapping stores the three values as `float`, i.e. `f32`: the truth is computed on
//! `(hundredths as f64 / 100.0) as f32 as f64`, which is exactly what an engine holds after
//! parsing the text we wrote. For each (epoch, node) with at least one row:
//!
//! * `count`: rows;
//! * `sum`: the `f32` values widened to `f64` and added in generation order (engines add
//!   doubles too, but in their own order, so compare sums with a relative tolerance ~1e-9);
//! * `p0`, `p50`, `p90`, `p100`: percentiles with **linear interpolation between closest
//!   ranks** (numpy's default, Hyndman–Fan type 7): for sorted values `x[0..n]` and percent
//!   `p`, `r = p/100 · (n−1)`, result `x[⌊r⌋] + (r−⌊r⌋)·(x[⌊r⌋+1] − x[⌊r⌋])`. So `p0` is the
//!   minimum and `p100` the maximum exactly; t-digest and HDR percentiles approximate this.
//!
//! Rows are produced epoch by epoch, so only the current epoch's values are kept (12 bytes a
//! row); an epoch's truth is computed and published the moment its last row is produced.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::text::push_fixed;
use super::{CorpusError, DocSource, Item};
use crate::rng::Rng;

/// Nodes `N001..=N030`.
pub const NODES: usize = 30;
/// Tasks `T001..=T200`.
pub const TASKS: usize = 200;
/// Default rows per epoch (as in the time-attribution study).
pub const DEFAULT_ROWS_PER_EPOCH: u64 = 1_000_000;
/// Upper bounds, in hundredths: cpu and mem are percentages, net is MB/s.
const CPU_MAX: u32 = 10_000;
const MEM_MAX: u32 = 10_000;
const NET_MAX: u32 = 500_000;

/// The CSV header for `--format csv`.
pub const CSV_HEADER: &str = "epoch,node,task,cpu,mem,net";

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsSpec {
    pub seed: u64,
    pub rows_per_epoch: u64,
    /// Number of epochs; `None` = as many as `docs` needs (or 1 without `docs`).
    pub epochs: Option<u64>,
    /// Total rows; `None` = `rows_per_epoch × epochs`. Smaller than that cuts the last epoch.
    pub docs: Option<u64>,
    /// Number of the first epoch (the `epoch` field of the first row).
    pub first_epoch: u64,
    /// Keep the values of the current epoch and publish ground truth (see [`TruthHandle`]).
    pub truth: bool,
}

impl MetricsSpec {
    pub fn new(seed: u64) -> Self {
        MetricsSpec {
            seed,
            rows_per_epoch: DEFAULT_ROWS_PER_EPOCH,
            epochs: None,
            docs: None,
            first_epoch: 1,
            truth: false,
        }
    }

    /// (epochs, total rows) after validation.
    pub fn resolve(&self) -> Result<(u64, u64), CorpusError> {
        if self.rows_per_epoch == 0 {
            return Err(CorpusError::Invalid(
                "--rows-per-epoch must be at least 1".into(),
            ));
        }
        if self.epochs == Some(0) {
            return Err(CorpusError::Invalid("--epochs must be at least 1".into()));
        }
        if self.docs == Some(0) {
            return Err(CorpusError::Invalid("--docs must be at least 1".into()));
        }
        let epochs = match (self.epochs, self.docs) {
            (Some(e), _) => e,
            (None, Some(d)) => d.div_ceil(self.rows_per_epoch),
            (None, None) => 1,
        };
        let capacity = epochs.checked_mul(self.rows_per_epoch).ok_or_else(|| {
            CorpusError::Invalid("--rows-per-epoch × --epochs is too large".into())
        })?;
        let total = match self.docs {
            Some(d) if d > capacity => {
                return Err(CorpusError::Invalid(format!(
                    "--docs {d} is more than --rows-per-epoch × --epochs = {capacity}"
                )))
            }
            Some(d) => d,
            None => capacity,
        };
        Ok((epochs, total))
    }
}

/// One generated row; values in hundredths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub epoch: u64,
    /// 0-based node index (`N001` is 0).
    pub node: u8,
    /// 0-based task index (`T001` is 0).
    pub task: u8,
    pub cpu: u32,
    pub mem: u32,
    pub net: u32,
}

/// Exact statistics of one field in one partition (see the module doc for definitions).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FieldTruth {
    pub p0: f64,
    pub p50: f64,
    pub p90: f64,
    pub p100: f64,
    pub sum: f64,
}

/// Ground truth for one (epoch, node).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionTruth {
    pub epoch: u64,
    pub node: String,
    pub count: u64,
    pub cpu: FieldTruth,
    pub mem: FieldTruth,
    pub net: FieldTruth,
}

/// Shared access to the truth published so far: keep a clone, give the source away (to the
/// ingest driver's thread), and read the truth when the epochs you care about are done.
#[derive(Debug, Clone, Default)]
pub struct TruthHandle(Arc<Mutex<Vec<PartitionTruth>>>);

impl TruthHandle {
    /// Removes and returns what was published since the last `take`, in (epoch, node) order.
    pub fn take(&self) -> Vec<PartitionTruth> {
        match self.0.lock() {
            Ok(mut v) => std::mem::take(&mut *v),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        }
    }

    fn publish(&self, mut parts: Vec<PartitionTruth>) {
        match self.0.lock() {
            Ok(mut v) => v.append(&mut parts),
            Err(poisoned) => poisoned.into_inner().append(&mut parts),
        }
    }
}

#[derive(Debug, Clone)]
struct NodeProfile {
    cpu_mean: f64,
    cpu_sd: f64,
    spike_p: f64,
    mem_level: f64,
    mem_sd: f64,
    net_base: f64,
}

/// Values of the current epoch, per node, for the truth.
#[derive(Debug, Default)]
struct EpochValues {
    cpu: Vec<Vec<u32>>,
    mem: Vec<Vec<u32>>,
    net: Vec<Vec<u32>>,
}

/// The `cluster-metrics` generator.
#[derive(Debug)]
pub struct ClusterMetrics {
    spec: MetricsSpec,
    total: u64,
    produced: u64,
    rng: Rng,
    drift_rng: Rng,
    profiles: Vec<NodeProfile>,
    /// Per node, this epoch's centre for cpu and level for mem (drift applied).
    cpu_now: [f64; NODES],
    mem_now: [f64; NODES],
    node_names: [[u8; 4]; NODES],
    task_names: [[u8; 4]; TASKS],
    values: Option<EpochValues>,
    truth: TruthHandle,
}

/// `N001`, `T042`: the name of the `i`-th (0-based) node or task.
pub(crate) fn name4(prefix: u8, i: usize) -> [u8; 4] {
    let n = i + 1;
    [
        prefix,
        b'0' + (n / 100) as u8,
        b'0' + (n / 10 % 10) as u8,
        b'0' + (n % 10) as u8,
    ]
}

/// Rounds to hundredths and clamps to `0..=max`.
#[inline(always)]
fn hundredths(v: f64, max: u32) -> u32 {
    let k = (v * 100.0 + 0.5) as i64; // saturating cast; negative → 0 below
    k.clamp(0, max as i64) as u32
}

/// The value an engine holds for `k` hundredths written as text into a `float` field.
#[inline(always)]
pub fn stored_f32(k: u32) -> f64 {
    (k as f64 / 100.0) as f32 as f64
}

impl ClusterMetrics {
    pub fn new(spec: MetricsSpec) -> Result<Self, CorpusError> {
        let (_, total) = spec.resolve()?;
        let mut table = Rng::new(spec.seed, 1);
        let profiles: Vec<NodeProfile> = (0..NODES)
            .map(|_| NodeProfile {
                cpu_mean: 5.0 + 80.0 * table.unit(),
                cpu_sd: 2.0 + 13.0 * table.unit(),
                spike_p: 0.001 + 0.03 * table.unit(),
                mem_level: 20.0 + 70.0 * table.unit(),
                mem_sd: 0.5 + 4.5 * table.unit(),
                net_base: 1.0 + 199.0 * table.unit() * table.unit(),
            })
            .collect();
        let values = spec.truth.then(|| EpochValues {
            cpu: vec![Vec::new(); NODES],
            mem: vec![Vec::new(); NODES],
            net: vec![Vec::new(); NODES],
        });
        let mut node_names = [[0u8; 4]; NODES];
        for (i, n) in node_names.iter_mut().enumerate() {
            *n = name4(b'N', i);
        }
        let mut task_names = [[0u8; 4]; TASKS];
        for (i, t) in task_names.iter_mut().enumerate() {
            *t = name4(b'T', i);
        }
        let mut g = ClusterMetrics {
            rng: Rng::new(spec.seed, 2),
            drift_rng: Rng::new(spec.seed, 3),
            spec,
            total,
            produced: 0,
            profiles,
            cpu_now: [0.0; NODES],
            mem_now: [0.0; NODES],
            node_names,
            task_names,
            values,
            truth: TruthHandle::default(),
        };
        g.start_epoch();
        Ok(g)
    }

    /// A handle on the ground truth (empty unless the spec asked for `truth`).
    pub fn truth_handle(&self) -> TruthHandle {
        self.truth.clone()
    }

    pub fn spec(&self) -> &MetricsSpec {
        &self.spec
    }

    fn start_epoch(&mut self) {
        for (i, p) in self.profiles.iter().enumerate() {
            let d = self.drift_rng.normalish();
            self.cpu_now[i] = (p.cpu_mean + 3.0 * d).clamp(1.0, 99.0);
            let m = self.drift_rng.normalish();
            self.mem_now[i] = (p.mem_level + 2.0 * m).clamp(1.0, 99.0);
        }
    }

    /// The next row, or `None` when all rows were produced.
    #[inline]
    pub fn next_row(&mut self) -> Option<Row> {
        if self.produced >= self.total {
            return None;
        }
        let rpe = self.spec.rows_per_epoch;
        let epoch = self.spec.first_epoch + self.produced / rpe;
        let x = self.rng.next_u64();
        let node = (((x >> 32) * NODES as u64) >> 32) as usize;
        let task = (((x & 0xFFFF_FFFF) * TASKS as u64) >> 32) as u8;
        let p = &self.profiles[node];
        let y = self.rng.next_u64();
        let cpu = if ((y >> 40) as f64) < p.spike_p * (1u64 << 24) as f64 {
            // A spike: somewhere between the centre and 100%.
            let u = (y & 0xFF_FFFF) as f64 * (1.0 / (1u64 << 24) as f64);
            self.cpu_now[node] + (100.0 - self.cpu_now[node]) * u
        } else {
            self.cpu_now[node] + p.cpu_sd * self.rng.normalish()
        };
        let mem = self.mem_now[node] + p.mem_sd * self.rng.normalish();
        let u = self.rng.unit();
        let net = p.net_base * (0.2 + 4.0 * u * u * u);
        let row = Row {
            epoch,
            node: node as u8,
            task,
            cpu: hundredths(cpu, CPU_MAX),
            mem: hundredths(mem, MEM_MAX),
            net: hundredths(net, NET_MAX),
        };
        if let Some(v) = self.values.as_mut() {
            v.cpu[node].push(row.cpu);
            v.mem[node].push(row.mem);
            v.net[node].push(row.net);
        }
        self.produced += 1;
        if self.produced.is_multiple_of(rpe) || self.produced == self.total {
            self.finish_epoch(epoch);
            if self.produced < self.total {
                self.start_epoch();
            }
        }
        Some(row)
    }

    fn finish_epoch(&mut self, epoch: u64) {
        let Some(v) = self.values.as_mut() else {
            return;
        };
        let mut parts = Vec::new();
        for node in 0..NODES {
            let count = v.cpu[node].len() as u64;
            if count == 0 {
                continue;
            }
            parts.push(PartitionTruth {
                epoch,
                node: String::from_utf8_lossy(&self.node_names[node]).into_owned(),
                count,
                cpu: field_truth(&mut v.cpu[node]),
                mem: field_truth(&mut v.mem[node]),
                net: field_truth(&mut v.net[node]),
            });
            v.cpu[node].clear();
            v.mem[node].clear();
            v.net[node].clear();
        }
        self.truth.publish(parts);
    }

    /// Appends `row` as one compact JSON object.
    #[inline]
    pub fn write_json(&self, row: &Row, out: &mut Vec<u8>) {
        write_json_named(
            row,
            &self.node_names[row.node as usize],
            &self.task_names[row.task as usize],
            out,
        );
    }

    /// Appends `row` as one CSV record (no newline), columns as in [`CSV_HEADER`].
    #[inline]
    pub fn write_csv(&self, row: &Row, out: &mut Vec<u8>) {
        super::text::push_u64(out, row.epoch);
        out.push(b',');
        out.extend_from_slice(&self.node_names[row.node as usize]);
        out.push(b',');
        out.extend_from_slice(&self.task_names[row.task as usize]);
        out.push(b',');
        push_fixed(out, row.cpu as u64, 2);
        out.push(b',');
        push_fixed(out, row.mem as u64, 2);
        out.push(b',');
        push_fixed(out, row.net as u64, 2);
    }

    /// CSV counterpart of [`DocSource::next_into`]: appends the next record, `false` at the end.
    pub fn next_csv_into(&mut self, out: &mut Vec<u8>) -> bool {
        match self.next_row() {
            Some(row) => {
                self.write_csv(&row, out);
                true
            }
            None => false,
        }
    }
}

/// Exact statistics of `values` (hundredths); reorders `values`. Uses selection rather than a
/// full sort: two order statistics per percentile are all linear interpolation needs.
fn field_truth(values: &mut [u32]) -> FieldTruth {
    let sum = values.iter().map(|&k| stored_f32(k)).sum::<f64>();
    let n = values.len();
    let min = values.iter().copied().min().unwrap_or(0);
    let max = values.iter().copied().max().unwrap_or(0);
    let mut pct = |p: f64| -> f64 {
        let r = p / 100.0 * (n - 1) as f64;
        let lo = r.floor() as usize;
        let frac = r - lo as f64;
        let (_, &mut a, rest) = values.select_nth_unstable(lo);
        let a = stored_f32(a);
        if frac == 0.0 || rest.is_empty() {
            return a;
        }
        let b = stored_f32(rest.iter().copied().min().unwrap_or(0));
        a + frac * (b - a)
    };
    let p50 = pct(50.0);
    let p90 = pct(90.0);
    FieldTruth {
        p0: stored_f32(min),
        p50,
        p90,
        p100: stored_f32(max),
        sum,
    }
}

/// Percentile by the same definition, on already-sorted `f64` values: for tests and for
/// checking engines against a corpus read back from disk.
pub use crate::stats::percentile_sorted;

impl DocSource for ClusterMetrics {
    #[inline]
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        Ok(self.next_row().map(|row| {
            self.write_json(&row, out);
            Item::Doc
        }))
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.total - self.produced)
    }

    fn describe(&self) -> String {
        format!(
            "cluster-metrics (seed {}, {} rows, {} per epoch)",
            self.spec.seed, self.total, self.spec.rows_per_epoch
        )
    }

    fn rows(&mut self) -> Option<&mut dyn super::RowSource> {
        Some(self)
    }
}

impl super::RowSource for ClusterMetrics {
    fn next_row(&mut self) -> Option<Row> {
        ClusterMetrics::next_row(self)
    }
}

/// `row` as its document, the same text [`ClusterMetrics::write_json`] writes (which looks
/// its names up in a table instead): what a failure file keeps of a row.
pub fn write_row_json(row: &Row, out: &mut Vec<u8>) {
    let (node, task) = (
        name4(b'N', row.node as usize),
        name4(b'T', row.task as usize),
    );
    write_json_named(row, &node, &task, out);
}

/// `row` as one compact JSON object, its node and task named `node` and `task`.
#[inline(always)]
fn write_json_named(row: &Row, node: &[u8; 4], task: &[u8; 4], out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"epoch\":");
    super::text::push_u64(out, row.epoch);
    out.extend_from_slice(b",\"node\":\"");
    out.extend_from_slice(node);
    out.extend_from_slice(b"\",\"task\":\"");
    out.extend_from_slice(task);
    out.extend_from_slice(b"\",\"cpu\":");
    push_fixed(out, row.cpu as u64, 2);
    out.extend_from_slice(b",\"mem\":");
    push_fixed(out, row.mem as u64, 2);
    out.extend_from_slice(b",\"net\":");
    push_fixed(out, row.net as u64, 2);
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_match_sorted_definition() {
        let mut v: Vec<u32> = vec![500, 100, 300, 200, 400, 1000, 7];
        let t = field_truth(&mut v.clone());
        v.sort_unstable();
        let s: Vec<f64> = v.iter().map(|&k| stored_f32(k)).collect();
        assert_eq!(t.p0, s[0]);
        assert_eq!(t.p100, s[6]);
        assert_eq!(Some(t.p50), percentile_sorted(&s, 50.0));
        assert_eq!(Some(t.p90), percentile_sorted(&s, 90.0));
    }

    #[test]
    fn resolve_rules() {
        let mut s = MetricsSpec::new(1);
        s.rows_per_epoch = 10;
        s.docs = Some(25);
        assert_eq!(s.resolve().unwrap(), (3, 25));
        s.epochs = Some(2);
        assert!(s.resolve().is_err());
        s.docs = None;
        assert_eq!(s.resolve().unwrap(), (2, 20));
    }
}

//! Where a node's CPU and allocations went during a phase: a Java Flight Recorder recording of
//! each local node ([`jfr`]), its samples put in categories ([`categories`]), summed into a
//! [`Profile`]: per category the share of CPU samples (with a 95 % interval from the sample
//! counts) and of allocated bytes, and its top methods; the allocation rate and the GC pauses
//! over the window.

pub mod categories;
pub mod jfr;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use categories::{categorise, Category};

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot profile pid {pid}: {why}")]
    Node { pid: u32, why: String },
    #[error("{tool}: {why}")]
    Tool { tool: String, why: String },
    #[error("reading the recording {}: {why}", file.display())]
    Read { file: PathBuf, why: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Methods named per category.
const TOP_METHODS: usize = 3;

/// One category's share of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategoryShare {
    pub category: Category,
    /// Share of the CPU samples, percent, with its 95 % (Wilson) interval.
    pub cpu_pct: f64,
    pub cpu_low_pct: f64,
    pub cpu_high_pct: f64,
    /// Share of the allocated bytes (allocation samples by their weight), percent.
    pub alloc_pct: f64,
    /// The leaf methods most sampled in it, with their share of all CPU samples (percent).
    pub top_methods: Vec<(String, f64)>,
}

/// What a profile of one phase came to, over every node profiled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Profile {
    /// The processes profiled.
    pub pids: Vec<u32>,
    /// The recording's span, seconds.
    pub window_secs: f64,
    pub cpu_samples: u64,
    pub alloc_samples: u64,
    /// Bytes the allocation samples stand for.
    pub allocated_bytes: f64,
    pub alloc_bytes_per_sec: Option<f64>,
    /// Collections and their pauses over the window, all nodes.
    pub gcs: u64,
    pub gc_pause_secs: f64,
    /// Every category, the table's order.
    pub categories: Vec<CategoryShare>,
    /// Where each node's recording was kept.
    pub recordings: Vec<PathBuf>,
    /// What stopping, reading and categorising the recordings took, seconds (the profile's
    /// own cost after the phase, not in its window).
    pub read_secs: f64,
}

/// The 95 % Wilson score interval of `k` of `n`, in percent.
pub fn wilson_pct(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 100.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    (
        ((centre - half) * 100.0).max(0.0),
        ((centre + half) * 100.0).min(100.0),
    )
}

/// Sums the events of one or more recordings of `window_secs`.
pub fn summarise(events: &[jfr::Event], window_secs: f64) -> Profile {
    let mut cpu: BTreeMap<Category, u64> = BTreeMap::new();
    let mut leaves: BTreeMap<Category, BTreeMap<String, u64>> = BTreeMap::new();
    let mut alloc: BTreeMap<Category, f64> = BTreeMap::new();
    let mut p = Profile {
        window_secs,
        ..Profile::default()
    };
    for e in events {
        let frames: Vec<String> = e
            .values
            .stack_trace
            .as_ref()
            .map(|s| s.frames.iter().map(jfr::Frame::text).collect())
            .unwrap_or_default();
        match e.kind.as_str() {
            "jdk.ExecutionSample" => {
                let c = categorise(&frames);
                *cpu.entry(c).or_default() += 1;
                if let Some(leaf) = frames.first() {
                    *leaves
                        .entry(c)
                        .or_default()
                        .entry(leaf.clone())
                        .or_default() += 1;
                }
                p.cpu_samples += 1;
            }
            "jdk.ObjectAllocationSample" => {
                let w = e.values.weight.unwrap_or(0.0).max(0.0);
                *alloc.entry(categorise(&frames)).or_default() += w;
                p.allocated_bytes += w;
                p.alloc_samples += 1;
            }
            "jdk.GarbageCollection" => {
                p.gcs += 1;
                p.gc_pause_secs += e
                    .values
                    .sum_of_pauses
                    .as_deref()
                    .and_then(jfr::iso_secs)
                    .unwrap_or(0.0);
            }
            _ => {}
        }
    }
    p.alloc_bytes_per_sec =
        (window_secs > 0.0 && p.alloc_samples > 0).then(|| p.allocated_bytes / window_secs);
    let pct = |part: f64, all: f64| if all > 0.0 { part / all * 100.0 } else { 0.0 };
    p.categories = Category::ALL
        .iter()
        .map(|&c| {
            let k = cpu.get(&c).copied().unwrap_or(0);
            let (low, high) = wilson_pct(k, p.cpu_samples);
            let mut top: Vec<(String, u64)> =
                leaves.remove(&c).unwrap_or_default().into_iter().collect();
            top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            CategoryShare {
                category: c,
                cpu_pct: pct(k as f64, p.cpu_samples as f64),
                cpu_low_pct: low,
                cpu_high_pct: high,
                alloc_pct: pct(alloc.get(&c).copied().unwrap_or(0.0), p.allocated_bytes),
                top_methods: top
                    .into_iter()
                    .take(TOP_METHODS)
                    .map(|(m, n)| (m, pct(n as f64, p.cpu_samples as f64)))
                    .collect(),
            }
        })
        .collect();
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(kind: &str, frames: &[&str], weight: Option<f64>) -> jfr::Event {
        let text = serde_json::json!({
            "type": kind,
            "values": {
                "weight": weight,
                "stackTrace": {"frames": frames.iter().map(|f| {
                    let (class, method) = f.rsplit_once('.').unwrap();
                    serde_json::json!({"method": {"type": {"name": class}, "name": method}})
                }).collect::<Vec<_>>()}
            }
        });
        serde_json::from_value(text).unwrap()
    }

    #[test]
    fn shares_add_up_and_carry_intervals_and_top_methods() {
        let mut events = Vec::new();
        for _ in 0..30 {
            events.push(sample(
                "jdk.ExecutionSample",
                &["java.time.format.DateTimeFormatter.parse"],
                None,
            ));
        }
        for _ in 0..70 {
            events.push(sample(
                "jdk.ExecutionSample",
                &["org.apache.lucene.index.IndexingChain.processDocument"],
                None,
            ));
        }
        events.push(sample(
            "jdk.ObjectAllocationSample",
            &["java.time.format.Parsed.resolve"],
            Some(3000.0),
        ));
        events.push(sample(
            "jdk.ObjectAllocationSample",
            &["java.util.ArrayList.grow"],
            Some(1000.0),
        ));
        let p = summarise(&events, 2.0);
        assert_eq!(p.cpu_samples, 100);
        let total: f64 = p.categories.iter().map(|c| c.cpu_pct).sum();
        assert!((total - 100.0).abs() < 1e-9, "{total}");
        let date = p
            .categories
            .iter()
            .find(|c| c.category == Category::DateParsing)
            .unwrap();
        assert!((date.cpu_pct - 30.0).abs() < 1e-9);
        assert!(date.cpu_low_pct < 30.0 && date.cpu_high_pct > 30.0);
        assert!((date.alloc_pct - 75.0).abs() < 1e-9);
        assert_eq!(
            date.top_methods,
            [("java.time.format.DateTimeFormatter.parse".to_string(), 30.0)]
        );
        assert_eq!(p.alloc_bytes_per_sec, Some(2000.0));
        // The same counts give the same interval; more samples, a narrower one.
        let (lo, hi) = wilson_pct(30, 100);
        let (lo2, hi2) = wilson_pct(300, 1000);
        assert!(hi2 - lo2 < hi - lo);
        assert_eq!(wilson_pct(0, 0), (0.0, 100.0));
    }
}

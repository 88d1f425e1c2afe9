//! Where a node's CPU and allocations went during a phase: a Java Flight Recorder recording of
//! each local node ([`jfr`]), its samples put in categories ([`categories`]), summed into a
//! [`Profile`]: per category the share of CPU samples (with a 95 % interval from the sample
//! counts) and of allocated bytes, and its top methods; the allocation rate and the GC pauses
//! over the window.

pub mod categories;
pub mod flame;
pub mod jfr;
pub mod reader;
pub mod samples;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use categories::{categorise, Category};
pub use flame::Flame;
pub use samples::Samples;

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
    /// The span counted, seconds: the phase's measured window (after its warm-up) to its end.
    pub window_secs: f64,
    /// Seconds recorded before the window and not counted: the phase's set-up and the load's
    /// warm-up, where Flight Recorder's own start-up falls too.
    pub warmup_secs: f64,
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
    /// Nodes already running (not started for the run) whose first Flight Recorder start
    /// this was: it instruments the JDK's file and socket classes, and the compiled code that
    /// inlined them is compiled again during the phase, which ran slower for it (about half
    /// the docs/s of a warm node here; BENCHMARKS.md, engine profile).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_recording_pids: Vec<u32>,
    /// What stopping, reading and categorising the recordings took, seconds (the profile's
    /// own cost after the phase, not in its window).
    pub read_secs: f64,
    /// The stacks as one tree, root first, for the report's flame graph (small branches left
    /// out: [`flame::MIN_SHARE`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flame: Option<Flame>,
}

/// The profile instrument's name: what a run's record keeps its [`Profile`] under.
pub const INSTRUMENT: &str = "profile";

impl Profile {
    /// The profile the profile instrument kept around a step (`kept`: what each instrument
    /// kept, by name), when it kept one that reads.
    pub fn kept_in(
        kept: &std::collections::BTreeMap<String, crate::measure::Kept>,
    ) -> Option<Profile> {
        let detail = kept.get(INSTRUMENT)?.detail.clone()?;
        serde_json::from_value(detail).ok()
    }

    /// Its figures, by key (`cpu.<category>`, `alloc.<category>`, `alloc_mb_per_sec`,
    /// `gc_pause_ms_per_s`): what a run's metrics make of a profile, whether its result or
    /// its record keeps it.
    pub fn figures(&self) -> Vec<(String, crate::measure::Figure)> {
        use crate::measure::{Better, Figure, Merge};
        let mut out = Vec::new();
        for c in &self.categories {
            let (key, name) = (c.category.key(), c.category.name());
            for (what, label, v) in [
                ("cpu", "engine CPU in", c.cpu_pct),
                ("alloc", "bytes allocated in", c.alloc_pct),
            ] {
                let f = Figure::new(&format!("{label} {name}"), "%", Better::Neither, v);
                out.push((format!("{what}.{key}"), f));
            }
        }
        if let Some(b) = self.alloc_bytes_per_sec {
            let f = Figure::new("engine allocation rate", "MB/s", Better::Lower, b / 1e6)
                .merged_by(Merge::Sum);
            out.push(("alloc_mb_per_sec".into(), f));
        }
        if self.window_secs > 0.0 {
            let v = self.gc_pause_secs * 1000.0 / self.window_secs;
            let f = Figure::new(
                "GC pauses per second of the window",
                "ms/s",
                Better::Lower,
                v,
            )
            .merged_by(Merge::Sum);
            out.push(("gc_pause_ms_per_s".into(), f));
        }
        out.retain(|(_, f)| f.value.is_finite());
        out
    }
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

/// Sums the samples of one or more recordings of `window_secs`: each distinct stack is put
/// in its category once.
pub fn summarise(samples: &Samples, window_secs: f64) -> Profile {
    let mut cpu: BTreeMap<Category, u64> = BTreeMap::new();
    let mut leaves: BTreeMap<Category, BTreeMap<&str, u64>> = BTreeMap::new();
    let mut alloc: BTreeMap<Category, f64> = BTreeMap::new();
    let mut p = Profile {
        window_secs,
        gcs: samples.gcs,
        gc_pause_secs: samples.gc_pause_ns as f64 / 1e9,
        ..Profile::default()
    };
    for s in &samples.stacks {
        let c = categorise(&s.frames);
        if s.cpu > 0 {
            *cpu.entry(c).or_default() += s.cpu;
            if let Some(leaf) = s.frames.first() {
                *leaves.entry(c).or_default().entry(leaf).or_default() += s.cpu;
            }
            p.cpu_samples += s.cpu;
        }
        if s.allocs > 0 {
            *alloc.entry(c).or_default() += s.bytes as f64;
            p.allocated_bytes += s.bytes as f64;
            p.alloc_samples += s.allocs;
        }
    }
    p.alloc_bytes_per_sec =
        (window_secs > 0.0 && p.alloc_samples > 0).then(|| p.allocated_bytes / window_secs);
    p.flame = (p.cpu_samples > 0 || p.alloc_samples > 0).then(|| flame::flame(samples));
    let pct = |part: f64, all: f64| if all > 0.0 { part / all * 100.0 } else { 0.0 };
    p.categories = Category::ALL
        .iter()
        .map(|&c| {
            let k = cpu.get(&c).copied().unwrap_or(0);
            let (low, high) = wilson_pct(k, p.cpu_samples);
            let mut top: Vec<(&str, u64)> =
                leaves.remove(&c).unwrap_or_default().into_iter().collect();
            top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            CategoryShare {
                category: c,
                cpu_pct: pct(k as f64, p.cpu_samples as f64),
                cpu_low_pct: low,
                cpu_high_pct: high,
                alloc_pct: pct(alloc.get(&c).copied().unwrap_or(0.0), p.allocated_bytes),
                top_methods: top
                    .into_iter()
                    .take(TOP_METHODS)
                    .map(|(m, n)| (m.to_string(), pct(n as f64, p.cpu_samples as f64)))
                    .collect(),
            }
        })
        .collect();
    p
}

#[cfg(test)]
mod tests {
    use super::samples::stack;
    use super::*;

    #[test]
    fn shares_add_up_and_carry_intervals_and_top_methods() {
        let samples = Samples {
            stacks: vec![
                stack(&["java.time.format.DateTimeFormatter.parse"], 30, 0),
                stack(
                    &["org.apache.lucene.index.IndexingChain.processDocument"],
                    70,
                    0,
                ),
                stack(&["java.time.format.Parsed.resolve"], 0, 3000),
                stack(&["java.util.ArrayList.grow"], 0, 1000),
            ],
            gcs: 2,
            gc_pause_ns: 3_000_000,
        };
        let p = summarise(&samples, 2.0);
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
        assert_eq!((p.gcs, p.gc_pause_secs), (2, 0.003));
        // The same counts give the same interval; more samples, a narrower one.
        let (lo, hi) = wilson_pct(30, 100);
        let (lo2, hi2) = wilson_pct(300, 1000);
        assert!(hi2 - lo2 < hi - lo);
        assert_eq!(wilson_pct(0, 0), (0.0, 100.0));
    }
}

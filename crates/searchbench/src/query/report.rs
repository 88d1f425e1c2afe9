//! The result of a query run, its derived figures (transport savings, subtractive attribution,
//! drift, profile overhead). Its terminal rendering is `cli::output::query`.

use serde::{Deserialize, Serialize};

use super::accuracy::VariantAccuracy;
use super::cells::CellResult;
use super::plan::{Described, QueryPlan};
use super::transport::Transport;
use super::variant::Variant;
use super::{Measured, QueryError, QueryOptions};
use crate::measure::SerializedHistogram;

/// Serial → msearch, per variant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Saving {
    pub variant: Variant,
    /// The shard count, when shards were an axis (`--shards`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    pub serial_wall_ms: f64,
    pub msearch_wall_ms: f64,
    pub saving_pct: f64,
    pub serial_took_ms: f64,
    pub msearch_took_ms: f64,
    /// msearch: sum of took ÷ wall.
    pub parallelism: f64,
}

/// One line of the subtractive attribution (serial took per coverage).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Component {
    pub component: String,
    pub ms: f64,
    /// Share of the production query's took.
    pub share_pct: f64,
}

/// The headline cell (cluster-metrics: the production query) vs a previous result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Drift {
    /// The variant compared (absent in results from before it was named: `D_td`).
    #[serde(default = "production")]
    pub variant: Variant,
    pub baseline_file: String,
    pub baseline_took_ms: f64,
    pub took_ms: f64,
    pub drift_pct: f64,
}

/// Profile-on vs profile-off took per cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileOverhead {
    pub variant: Variant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    pub transport: Transport,
    pub took_off_ms: f64,
    pub took_on_ms: f64,
    pub overhead_pct: f64,
}

/// The heading of the serial vs `_msearch` table, in every view.
pub fn savings_heading(unit: &str) -> String {
    format!("Serial vs _msearch (wall per {unit}, ms)")
}

/// A cell measured cold beside the same cell warm (means per unit, ms).
#[derive(Debug, Clone, PartialEq)]
pub struct ColdVsWarm {
    pub variant: Variant,
    pub transport: Transport,
    pub warm_wall_ms: f64,
    pub cold_wall_ms: f64,
    pub warm_took_ms: f64,
    pub cold_took_ms: f64,
    /// Cold samples (one per coverage).
    pub cold_n: usize,
}

impl ColdVsWarm {
    /// Cold wall ÷ warm wall.
    pub fn ratio(&self) -> Option<f64> {
        (self.warm_wall_ms > 0.0).then(|| self.cold_wall_ms / self.warm_wall_ms)
    }
}

/// Everything a query run produced; `--json` writes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryResult {
    pub workload: String,
    /// The engine that answered (`opensearch-2.19.1`), as the cluster named itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    pub index: String,
    pub passes: u32,
    pub warmup_coverages: u64,
    pub coverages: usize,
    pub partitions: usize,
    pub shuffle_seed: u64,
    pub rate: Option<f64>,
    /// Search clients of the measurement passes (absent in results from before they existed:
    /// one).
    #[serde(default = "one_client")]
    pub clients: usize,
    /// The delay added between the driver and the cluster (`--rtt`), when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<crate::cluster::delay::Rtt>,
    pub measured_secs: f64,
    pub cells: Vec<CellResult>,
    pub savings: Vec<Saving>,
    pub attribution: Vec<Component>,
    pub profile_cells: Vec<CellResult>,
    pub profile_overhead: Vec<ProfileOverhead>,
    /// The cold pass (`--cold`): each coverage after the caches were made cold, one sample
    /// per coverage per cell, not in `cells`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cold_cells: Vec<CellResult>,
    /// How cold the cold pass was, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold: Option<super::cold::ColdSummary>,
    /// The halves of the passes run under write, beside `cells` run idle (`--beside-idle`):
    /// the same coverages in the same passes, not in `cells`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_cells: Vec<CellResult>,
    /// The index at each shard count, when shards were an axis (`--shards`): every cell
    /// names its count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<super::shards::AtShards>,
    pub accuracy: Vec<VariantAccuracy>,
    pub accuracy_checked: bool,
    /// Total accuracy failures (only the first 50 are in `failures`).
    pub failures_total: u64,
    pub failures: Vec<String>,
    pub drift: Option<Drift>,
    /// How the workload words its results (absent in results stored before they carried
    /// it: see [`QueryResult::described`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub described: Option<Described>,
    /// What the engine was doing meanwhile (the session's sampler), when it was sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<crate::measure::telemetry::Summary>,
    /// Where the engine's CPU and allocations went over the query phase (`--profile-pid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::measure::profile::Profile>,
    /// What else the machine did during the query phase (other processes, steal, CPU
    /// pressure, load), when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<crate::measure::background::Background>,
    /// When the measurement passes began in this process, after the warm-up pass: what an
    /// instrument around the phase summarises from.
    #[serde(skip)]
    pub measured_from: Option<std::time::Instant>,
    /// Stopped (Ctrl-C) before every pass was done: the figures cover what was measured, and
    /// the run is stored `interrupted`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The corpus written again over itself beside the warm-up and the passes
    /// (`--rewrite-clients`): the figures were measured during an ingest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrites: Option<super::Rewrites>,
}

impl QueryResult {
    /// Every measured cell's histograms, named `query:<variant>:<transport>:<histogram>`.
    pub fn histograms(&self) -> Vec<SerializedHistogram> {
        self.cells
            .iter()
            .flat_map(|c| {
                // With shards as an axis, the transport carries the count.
                let transport = match c.shards {
                    Some(n) => format!("{}@{n}shards", c.transport.name()),
                    None => c.transport.name().to_string(),
                };
                c.histograms.iter().map(move |h| SerializedHistogram {
                    name: format!("query:{}:{transport}:{}", c.variant.name(), h.name),
                    ..h.clone()
                })
            })
            .collect()
    }

    pub fn cell(&self, v: &str, t: Transport) -> Option<&CellResult> {
        self.cells
            .iter()
            .find(|c| c.variant == v && c.transport == t)
    }

    /// How the workload words this result (generic words for results stored without them).
    pub fn described(&self) -> Described {
        self.described.clone().unwrap_or_default()
    }

    /// Completed units (coverages without an error) a second over the measurement passes:
    /// all of them ÷ the elapsed time, as a load tool reports throughput. `None` for a result
    /// that did not keep its elapsed time.
    pub fn completed_per_sec(&self) -> Option<f64> {
        let done: usize = self.cells.iter().map(|c| c.wall_ms.n).sum();
        (self.measured_secs > 0.0).then(|| done as f64 / self.measured_secs)
    }

    /// Each cell's measured rate: its completed units ÷ its part of the elapsed time. The
    /// passes interleave the cells, so a cell's part is the share of the clients' busy time
    /// its units took: the rate the cell sustained while it ran (clients × 1000 ÷ its mean
    /// wall, times how busy the clients really were).
    pub fn cell_rates(&self) -> Vec<Option<f64>> {
        let busy: Vec<f64> = self
            .cells
            .iter()
            .map(|c| c.wall_ms.mean * c.wall_ms.n as f64)
            .collect();
        let total: f64 = busy.iter().filter(|b| b.is_finite()).sum();
        self.cells
            .iter()
            .zip(&busy)
            .map(|(c, b)| {
                let secs = self.measured_secs * b / total;
                (secs > 0.0 && secs.is_finite()).then(|| c.wall_ms.n as f64 / secs)
            })
            .collect()
    }

    /// Searches that failed, over all measured cells.
    pub fn request_errors(&self) -> u64 {
        self.cells
            .iter()
            .chain(&self.profile_cells)
            .chain(&self.cold_cells)
            .chain(&self.write_cells)
            .map(|c| c.errors)
            .sum()
    }

    /// Each cold cell beside the warm cell of the same variant and transport: the figures
    /// every view shows of `--cold`.
    pub fn cold_vs_warm(&self) -> Vec<ColdVsWarm> {
        self.cold_cells
            .iter()
            .filter_map(|cold| {
                let warm = find(&self.cells, &cold.variant, cold.transport, cold.shards)?;
                (cold.wall_ms.n > 0).then(|| ColdVsWarm {
                    variant: cold.variant.clone(),
                    transport: cold.transport,
                    warm_wall_ms: warm.wall_ms.mean,
                    cold_wall_ms: cold.wall_ms.mean,
                    warm_took_ms: warm.took_ms.mean,
                    cold_took_ms: cold.took_ms.mean,
                    cold_n: cold.wall_ms.n,
                })
            })
            .collect()
    }

    /// The index at each shard count, in the words every view uses; `None` when shards
    /// were not an axis.
    pub fn shards_line(&self) -> Option<String> {
        if self.shards.is_empty() {
            return None;
        }
        let each: Vec<String> = self
            .shards
            .iter()
            .map(|a| {
                format!(
                    "{} shard(s): {}{}{}",
                    a.shards,
                    a.index,
                    if a.copy { " (a copy, removed)" } else { "" },
                    a.segments
                        .map_or(String::new(), |n| format!(", {n} segment(s)"))
                )
            })
            .collect();
        Some(format!(
            "shards, measured in the same passes on the same documents: {}",
            each.join("; ")
        ))
    }

    /// True when every answer was right and every request answered.
    pub fn passed(&self) -> bool {
        !self.interrupted && self.failures_total == 0 && self.request_errors() == 0
    }

    /// Sets `drift` from a previous `--json` result: its `headline` cell (serial, else
    /// msearch) against this result's.
    pub fn compare_baseline(
        &mut self,
        path: &std::path::Path,
        headline: Option<Variant>,
    ) -> Result<(), QueryError> {
        let bad = |reason: String| QueryError::File {
            path: path.display().to_string(),
            reason,
        };
        let text = crate::user_file::read(path).map_err(|e| bad(e.to_string()))?;
        let base: QueryResult =
            serde_json::from_slice(&text).map_err(|e| bad(format!("not a query result: {e}")))?;
        let Some(headline) = headline else {
            return Err(bad(format!(
                "the {} workload has no headline query to compare (--baseline is for \
                 cluster-metrics' production query)",
                self.workload
            )));
        };
        let pick = |r: &QueryResult| {
            r.cell(headline.name(), Transport::Serial)
                .or_else(|| r.cell(headline.name(), Transport::Msearch))
                .map(|c| c.took_ms.mean)
        };
        let (Some(before), Some(now)) = (pick(&base), pick(self)) else {
            return Err(bad(format!(
                "no {headline} cell in both results to compare"
            )));
        };
        self.drift = Some(Drift {
            variant: headline,
            baseline_file: path.display().to_string(),
            baseline_took_ms: before,
            took_ms: now,
            drift_pct: if before > 0.0 {
                (now - before) / before * 100.0
            } else {
                0.0
            },
        });
        Ok(())
    }
}

/// The measured cell of `v` on `t` (at `shards`), when it has error-free coverages.
fn find<'a>(
    cells: &'a [CellResult],
    v: &Variant,
    t: Transport,
    shards: Option<u32>,
) -> Option<&'a CellResult> {
    cells
        .iter()
        .find(|c| c.variant == *v && c.transport == t && c.shards == shards && c.took_ms.n > 0)
}

/// The shard counts of `cells` in the order they first appear (`[None]` without the axis).
fn shard_counts(cells: &[CellResult]) -> Vec<Option<u32>> {
    let mut counts = Vec::new();
    for c in cells {
        if !counts.contains(&c.shards) {
            counts.push(c.shards);
        }
    }
    counts
}

/// What the cells give beyond themselves, for `variants` in order: each variant's saving
/// from serial to msearch, and each profiled cell's overhead. Derived again after the parts
/// of a run are merged.
pub fn derived(
    variants: &[Variant],
    cells: &[CellResult],
    profile_cells: &[CellResult],
) -> (Vec<Saving>, Vec<ProfileOverhead>) {
    let counts = shard_counts(cells);
    let savings = variants
        .iter()
        .flat_map(|v| counts.iter().map(move |n| (v, *n)))
        .filter_map(|(v, n)| {
            let s = find(cells, v, Transport::Serial, n)?;
            let m = find(cells, v, Transport::Msearch, n)?;
            Some(Saving {
                variant: v.clone(),
                shards: n,
                serial_wall_ms: s.wall_ms.mean,
                msearch_wall_ms: m.wall_ms.mean,
                saving_pct: pct_change(s.wall_ms.mean, m.wall_ms.mean),
                serial_took_ms: s.took_ms.mean,
                msearch_took_ms: m.took_ms.mean,
                parallelism: if m.wall_ms.mean > 0.0 {
                    m.took_ms.mean / m.wall_ms.mean
                } else {
                    0.0
                },
            })
        })
        .collect();
    let profile_overhead = profile_cells
        .iter()
        .filter_map(|p| {
            let off = find(cells, &p.variant, p.transport, p.shards)?;
            Some(ProfileOverhead {
                variant: p.variant.clone(),
                shards: p.shards,
                transport: p.transport,
                took_off_ms: off.took_ms.mean,
                took_on_ms: p.took_ms.mean,
                overhead_pct: -pct_change(off.took_ms.mean, p.took_ms.mean),
            })
        })
        .collect();
    (savings, profile_overhead)
}

pub(super) fn assemble(
    plan: &dyn QueryPlan,
    options: &QueryOptions,
    m: Measured,
    accuracy: Vec<VariantAccuracy>,
) -> QueryResult {
    let Measured {
        cells,
        profile_cells,
        cold_cells,
        cold,
        write_cells,
        failures,
        failures_total,
        warmup_coverages,
        passes_started,
        measured,
        interrupted,
    } = m;
    let (savings, profile_overhead) = derived(&options.variants, &cells, &profile_cells);
    let attribution = plan.attribution(&attributed_took(&cells));
    QueryResult {
        engine: None,
        workload: plan.workload().to_string(),
        index: options.index.clone(),
        passes: options.passes,
        warmup_coverages,
        coverages: plan.coverages(),
        partitions: plan.partitions(),
        shuffle_seed: options.shuffle_seed,
        rate: options.rate,
        clients: options.clients.max(1),
        rtt: None,
        measured_secs: measured.as_secs_f64(),
        cells,
        savings,
        attribution,
        profile_cells,
        profile_overhead,
        cold_cells,
        cold,
        write_cells,
        shards: options.shards.clone(),
        accuracy,
        accuracy_checked: options.check,
        failures_total,
        failures,
        drift: None,
        described: Some(plan.described()),
        telemetry: None,
        profile: None,
        background: None,
        measured_from: passes_started,
        interrupted,
        rewrites: None,
    }
}

/// What the subtractive attribution is over, for a run and a merged group alike: a variant's
/// mean serial took per coverage (msearch's when serial was not run), at the first shard
/// count when shards are an axis.
pub fn attributed_took(cells: &[CellResult]) -> impl Fn(&Variant) -> Option<f64> + '_ {
    let first = shard_counts(cells).first().copied().flatten();
    move |v: &Variant| {
        find(cells, v, Transport::Serial, first)
            .or_else(|| find(cells, v, Transport::Msearch, first))
            .map(|c| c.took_ms.mean)
    }
}

/// `(before − after) / before` in percent: the saving of going from `before` to `after`.
fn pct_change(before: f64, after: f64) -> f64 {
    if before > 0.0 {
        (before - after) / before * 100.0
    } else {
        0.0
    }
}

fn one_client() -> usize {
    1
}

fn production() -> Variant {
    Variant::new("D_td")
}

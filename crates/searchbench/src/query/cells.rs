//! Per-cell statistics: exact ones over the coverage samples (few, so sorted vectors) and HDR
//! histogram summaries of service time, latency and per-request driver overhead.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::plan::{Transport, Variant};
use crate::corpus::cluster_metrics::percentile_sorted;
use crate::measure::SerializedHistogram;

/// One coverage (all nodes of one epoch) measured once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CoverageSample {
    pub pass: u32,
    pub epoch: u64,
    /// No request of the coverage failed (only these count in the statistics).
    pub ok: bool,
    pub errors: u64,
    /// Sum of server `took` over the coverage's searches, ms.
    pub took_ms: u64,
    /// Client wall time of the coverage, ms.
    pub wall_ms: f64,
    /// From the scheduled start with `--rate`, else equal to the wall time, ms.
    pub latency_ms: f64,
}

/// Mean, median and p90 (type-7 percentiles) of a few values.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Stats {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
}

impl Stats {
    pub fn of(values: impl IntoIterator<Item = f64>) -> Stats {
        let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return Stats::default();
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        Stats {
            n,
            mean: v.iter().sum::<f64>() / n as f64,
            median: percentile_sorted(&v, 50.0).unwrap_or(0.0),
            p90: percentile_sorted(&v, 90.0).unwrap_or(0.0),
            min: v[0],
            max: v[n - 1],
        }
    }
}

/// Summary of an HDR histogram of microseconds.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct HdrSummary {
    pub count: u64,
    pub p50_us: u64,
    pub p90_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
    pub mean_us: f64,
}

impl HdrSummary {
    pub fn of(h: &Histogram<u64>) -> HdrSummary {
        if h.is_empty() {
            return HdrSummary::default();
        }
        HdrSummary {
            count: h.len(),
            p50_us: h.value_at_quantile(0.5),
            p90_us: h.value_at_quantile(0.9),
            p99_us: h.value_at_quantile(0.99),
            max_us: h.max(),
            mean_us: h.mean(),
        }
    }
}

/// Everything about one (variant, transport) cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellResult {
    pub variant: Variant,
    pub transport: Transport,
    /// Coverages measured (with and without errors).
    pub coverages: usize,
    /// Searches that failed (timeouts, error statuses, malformed answers).
    pub errors: u64,
    pub error_examples: Vec<String>,
    /// Server took summed per coverage, ms (error-free coverages).
    pub took_ms: Stats,
    /// Client wall per coverage, ms (error-free coverages).
    pub wall_ms: Stats,
    /// Latency from the scheduled start per coverage, ms (with `--rate`).
    pub latency_ms: Option<Stats>,
    /// HDR: service time per coverage.
    pub service_hdr: HdrSummary,
    /// HDR: latency per coverage (from the scheduled start with `--rate`).
    pub latency_hdr: HdrSummary,
    /// HDR: per `_search` request, client wall − server took (serial only).
    pub overhead_hdr: HdrSummary,
    pub samples: Vec<CoverageSample>,
    /// The three histograms HDR-encoded for the results store (`service`, `latency`,
    /// `overhead`, microseconds; empty ones left out).
    #[serde(skip)]
    pub histograms: Vec<SerializedHistogram>,
}

#[allow(clippy::too_many_arguments)]
pub fn cell_result(
    variant: Variant,
    transport: Transport,
    samples: Vec<CoverageSample>,
    errors: u64,
    error_examples: Vec<String>,
    service: &Histogram<u64>,
    latency: &Histogram<u64>,
    overhead: &Histogram<u64>,
    paced: bool,
) -> CellResult {
    let ok = || samples.iter().filter(|s| s.ok);
    CellResult {
        variant,
        transport,
        coverages: samples.len(),
        errors,
        error_examples,
        took_ms: Stats::of(ok().map(|s| s.took_ms as f64)),
        wall_ms: Stats::of(ok().map(|s| s.wall_ms)),
        latency_ms: paced.then(|| Stats::of(ok().map(|s| s.latency_ms))),
        service_hdr: HdrSummary::of(service),
        latency_hdr: HdrSummary::of(latency),
        overhead_hdr: HdrSummary::of(overhead),
        samples,
        histograms: [
            ("service", service),
            ("latency", latency),
            ("overhead", overhead),
        ]
        .into_iter()
        .filter(|(_, h)| !h.is_empty())
        .filter_map(|(name, h)| SerializedHistogram::encode(name, "us", h))
        .collect(),
    }
}

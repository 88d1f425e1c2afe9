//! Per-cell statistics: exact ones over the coverage samples (few, so sorted vectors) and HDR
//! histogram summaries of service time, latency and per-request driver overhead.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::transport::Transport;
use super::variant::Variant;
use crate::measure::SerializedHistogram;
use crate::stats::percentile_sorted;

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

/// One reason searches failed for, and how many did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorKind {
    pub message: String,
    pub count: u64,
}

/// At most this many distinct reasons are kept per cell; the rest count as "other errors".
const MAX_ERROR_KINDS: usize = 10;

/// Counts `errors` (one coverage's, as the sender words them) into `kinds` by reason: the
/// request's label (`search 3:`, `msearch:`) is dropped, and `(same failure)` counts under
/// the coverage's previous reason.
pub fn count_error_kinds(kinds: &mut Vec<ErrorKind>, errors: &[String]) {
    let mut last: Option<String> = None;
    for e in errors {
        let reason = match e.split_once(": ") {
            Some((label, rest)) if is_request_label(label) => rest,
            _ => e.as_str(),
        };
        let reason = if reason == "(same failure)" {
            last.clone().unwrap_or_else(|| reason.to_string())
        } else {
            reason.to_string()
        };
        let key = if kinds.len() >= MAX_ERROR_KINDS && !kinds.iter().any(|k| k.message == reason) {
            "other errors".to_string()
        } else {
            reason.clone()
        };
        match kinds.iter_mut().find(|k| k.message == key) {
            Some(k) => k.count += 1,
            None => kinds.push(ErrorKind {
                message: key,
                count: 1,
            }),
        }
        last = Some(reason);
    }
}

/// Adds `from` (another tally's reasons, as it counted them: another part's, another
/// client's) into `kinds`, as one tally of both would count them: a reason both hold once,
/// with both counts; past the most kept, under "other errors".
pub fn add_error_kinds(kinds: &mut Vec<ErrorKind>, from: &[ErrorKind]) {
    for k in from {
        let known = kinds.iter().any(|x| x.message == k.message);
        let key = match kinds.len() >= MAX_ERROR_KINDS && !known {
            true => "other errors",
            false => k.message.as_str(),
        };
        match kinds.iter_mut().find(|x| x.message == key) {
            // A tally stops at the most a `u64` holds (see `Measurements::count`).
            Some(x) => x.count = x.count.saturating_add(k.count),
            None => kinds.push(ErrorKind {
                message: key.to_string(),
                count: k.count,
            }),
        }
    }
}

fn is_request_label(label: &str) -> bool {
    let mut words = label.split(' ');
    match (words.next(), words.next(), words.next()) {
        (Some("msearch"), None, _) => true,
        (Some("search" | "sub-search"), Some(n), None) => n.parse::<u64>().is_ok(),
        _ => false,
    }
}

/// Everything about one (variant, transport) cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellResult {
    pub variant: Variant,
    pub transport: Transport,
    /// The shard count of the index it ran on, when shards were an axis (`--shards`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    /// Coverages measured (with and without errors).
    pub coverages: usize,
    /// Searches that failed (timeouts, error statuses, malformed answers).
    pub errors: u64,
    pub error_examples: Vec<String>,
    /// The distinct reasons of the failed searches with how often each occurred (a dead port
    /// or a missing index fails every search the same way: one line, not hundreds).
    #[serde(default)]
    pub error_kinds: Vec<ErrorKind>,
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
    error_kinds: Vec<ErrorKind>,
    service: &Histogram<u64>,
    latency: &Histogram<u64>,
    overhead: &Histogram<u64>,
    paced: bool,
) -> CellResult {
    let ok = || samples.iter().filter(|s| s.ok);
    CellResult {
        variant,
        transport,
        shards: None,
        coverages: samples.len(),
        errors,
        error_examples,
        error_kinds,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two tallies added count a shared reason once, and past the most kept reasons the rest
    /// under "other errors", as one tally of both would.
    #[test]
    fn reasons_added_from_another_tally_count_as_one_tally_of_both() {
        let kind = |m: &str, count| ErrorKind {
            message: m.into(),
            count,
        };
        let mut kinds: Vec<ErrorKind> = (0..MAX_ERROR_KINDS - 1)
            .map(|i| kind(&format!("reason {i}"), 1))
            .collect();
        add_error_kinds(
            &mut kinds,
            &[kind("reason 0", 2), kind("late", 3), kind("later", 4)],
        );
        assert_eq!(kinds[0].count, 3);
        assert_eq!(kinds.len(), MAX_ERROR_KINDS + 1);
        assert_eq!((kinds[9].message.as_str(), kinds[9].count), ("late", 3));
        assert_eq!(
            (kinds[10].message.as_str(), kinds[10].count),
            ("other errors", 4)
        );
    }

    #[test]
    fn repeated_errors_count_once_by_reason() {
        let mut kinds = Vec::new();
        let refused = "cannot connect: connection refused";
        for _ in 0..3 {
            count_error_kinds(
                &mut kinds,
                &[
                    format!("search 1: {refused}"),
                    format!("search 2: {refused}"),
                ],
            );
        }
        count_error_kinds(
            &mut kinds,
            &[
                "msearch: HTTP 404: index_not_found_exception".into(),
                "msearch: (same failure)".into(),
            ],
        );
        assert_eq!(
            kinds,
            vec![
                ErrorKind {
                    message: refused.into(),
                    count: 6
                },
                ErrorKind {
                    message: "HTTP 404: index_not_found_exception".into(),
                    count: 2
                },
            ]
        );
    }

    #[test]
    fn distinct_reasons_are_capped() {
        let mut kinds = Vec::new();
        let errors: Vec<String> = (0..15).map(|i| format!("search 1: reason {i}")).collect();
        count_error_kinds(&mut kinds, &errors);
        assert_eq!(kinds.len(), MAX_ERROR_KINDS + 1);
        assert_eq!(kinds.last().map(|k| k.count), Some(5));
        assert_eq!(kinds.iter().map(|k| k.count).sum::<u64>(), 15);
    }
}

//! What `saturate` found: the steps it ran (offered rate, achieved, latency, sustained or why
//! not) and the highest sustained rate. Kept in the store, so the page can be drawn again.

use serde::{Deserialize, Serialize};

use crate::ingest::pace::Limit;

/// One step of the search.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    pub offered_docs_per_sec: f64,
    pub achieved_docs_per_sec: Option<f64>,
    pub p50_ms: Option<f64>,
    /// p99 latency from the due time; the maximum when the step had fewer than 100 requests
    /// (`p99_is_max`), which is stricter.
    pub p99_ms: Option<f64>,
    pub p99_is_max: bool,
    pub requests: u64,
    pub error_rate: f64,
    pub limit: Limit,
    pub sustained: bool,
    /// Why the step failed, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The stored run of the step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}

/// The answer: the highest sustained rate, and the curve that led there.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SaturateResult {
    /// The tag value of every step's run: `saturate=<id>`.
    pub id: String,
    #[serde(default)]
    pub started_unix: u64,
    pub workload: String,
    pub p99_limit_ms: f64,
    pub max_error_rate: f64,
    pub step_secs: f64,
    pub clients: usize,
    pub bulk_size: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<f64>,
    /// The highest offered rate a step sustained; `None` when even the lowest tried failed.
    pub max_sustainable_docs_per_sec: Option<f64>,
    /// The lowest offered rate a step failed at, if one did.
    pub first_failing_docs_per_sec: Option<f64>,
    /// In the order they ran.
    pub steps: Vec<Step>,
    /// The driver, not the cluster, limited a failing step.
    pub driver_limited: bool,
    pub warnings: Vec<String>,
    /// Stopped by the caller (Ctrl-C): the steps so far are kept.
    pub interrupted: bool,
}

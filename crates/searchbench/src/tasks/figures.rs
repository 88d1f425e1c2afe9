//! The figures the tools report per task, derived from what the task's clients counted (after
//! any merge): throughput (ops/s), latency and service time percentiles (ms), error rate.

use serde::Serialize;

use super::task::TaskRun;

/// One task's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskFigures {
    pub task: String,
    pub operation_type: String,
    /// Operations measured (warm-up left out), failed ones included.
    pub ops: u64,
    pub errors: u64,
    /// errors / ops; 0 when nothing ran.
    pub error_rate: f64,
    /// ops over the measured window, per second.
    pub throughput_mean: Option<f64>,
    /// Over the whole seconds of the window (three at least), ops per second.
    pub throughput_median: Option<f64>,
    pub throughput_min: Option<f64>,
    pub throughput_max: Option<f64>,
    /// Percentiles 50, 90, 99 and 100, ms.
    pub latency_ms: Option<[f64; 4]>,
    pub service_time_ms: Option<[f64; 4]>,
    /// The measured window, s, and its first send and last answer (Unix ms).
    pub seconds: Option<f64>,
    pub started_ms: Option<u64>,
    pub ended_ms: Option<u64>,
    pub first_error: Option<String>,
    /// Stopped before it was done.
    pub stopped: bool,
}

/// The percentiles each row gives.
pub const PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 100.0];

/// The figures of `run`, the task `task` of type `kind`.
pub fn of(task: &str, kind: &str, run: &TaskRun) -> TaskFigures {
    let m = &run.measurements;
    let ops = m.counts.get("ops").copied().unwrap_or(0);
    let errors = m.counts.get("errors").copied().unwrap_or(0);
    let seconds = run
        .window
        .and_then(|(a, b)| b.duration_since(a).ok())
        .map(|d| d.as_secs_f64());
    let percentiles = |name: &str| {
        let (_, h) = m.histograms.get(name)?;
        (!h.is_empty()).then(|| PERCENTILES.map(|p| h.value_at_quantile(p / 100.0) as f64 / 1000.0))
    };
    // Whole seconds only: the first and last are partial.
    let mut per_second: Vec<f64> = m
        .seconds
        .values()
        .map(|c| c.get("ops").copied().unwrap_or(0) as f64)
        .collect();
    let whole = if per_second.len() >= 5 {
        per_second.remove(0);
        per_second.pop();
        per_second.sort_by(f64::total_cmp);
        Some(per_second)
    } else {
        None
    };
    TaskFigures {
        task: task.to_string(),
        operation_type: kind.to_string(),
        ops,
        errors,
        error_rate: if ops == 0 {
            0.0
        } else {
            errors as f64 / ops as f64
        },
        throughput_mean: seconds.filter(|s| *s > 0.0).map(|s| ops as f64 / s),
        throughput_median: whole.as_deref().and_then(crate::stats::median_sorted),
        throughput_min: whole.as_ref().and_then(|w| w.first().copied()),
        throughput_max: whole.as_ref().and_then(|w| w.last().copied()),
        latency_ms: percentiles("latency"),
        service_time_ms: percentiles("service_time"),
        seconds,
        started_ms: run.window.map(|(a, _)| unix_ms(a)),
        ended_ms: run.window.map(|(_, b)| unix_ms(b)),
        first_error: run.first_error.clone(),
        stopped: run.stopped,
    }
}

fn unix_ms(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

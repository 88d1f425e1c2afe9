//! The figures the tools report per task, derived from what the task's clients counted (after
//! any merge): throughput (ops/s), latency and service time percentiles (ms), error rate.

use serde::{Deserialize, Serialize};

use super::task::TaskRun;

/// One task's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskFigures {
    pub task: String,
    pub operation_type: String,
    /// Operations measured (warm-up left out), failed ones included.
    pub ops: u64,
    pub errors: u64,
    /// errors / ops; 0 when nothing ran.
    pub error_rate: f64,
    /// What the throughput counts: `ops/s`, or `docs/s` for a bulk.
    pub throughput_unit: String,
    /// Over the measured window.
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
    /// Operations per wall-clock second (Unix second → ops): kept by a part of a run in
    /// parts, whose merge adds them second by second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_second: Option<std::collections::BTreeMap<u64, u64>>,
    /// A vector search's recall over its measured answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<RecallFigures>,
    /// A bulk's time to searchable, its loads probed as every load is (`ingest::freshness`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<crate::ingest::freshness::Freshness>,
    /// Why a bulk's time to searchable was not measured (`None` when it was, or not asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness_not_measured: Option<String>,
}

/// A vector search's recall, every measured answer checked against its true neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RecallFigures {
    /// Answers checked (the failed requests have none).
    pub answers: u64,
    /// Mean recall@k and recall@1 (opensearch-benchmark's "Mean recall@k", "Mean recall@1").
    pub mean_at_k: f64,
    pub mean_at_1: f64,
    /// The worst answer's recall@k (to the HDR histogram's precision, 0.1 %).
    pub min_at_k: f64,
}

impl RecallFigures {
    /// The recall of several parts' answers: means weighted by their answers, the worst of
    /// their worst.
    pub fn merged<'a>(parts: impl Iterator<Item = &'a RecallFigures>) -> Option<RecallFigures> {
        let parts: Vec<&RecallFigures> = parts.filter(|r| r.answers > 0).collect();
        let answers: u64 = parts.iter().map(|r| r.answers).sum();
        (answers > 0).then(|| {
            let mean = |f: fn(&RecallFigures) -> f64| {
                parts.iter().map(|r| f(r) * r.answers as f64).sum::<f64>() / answers as f64
            };
            RecallFigures {
                answers,
                mean_at_k: mean(|r| r.mean_at_k),
                mean_at_1: mean(|r| r.mean_at_1),
                min_at_k: parts.iter().map(|r| r.min_at_k).fold(1.0, f64::min),
            }
        })
    }
}

/// The histogram of the weights a runner in the worker (the track's, or the tool's own) gave
/// its executions, kept under the unit it gave them in: what carries that unit from a run to
/// its merge, as measurements carry nothing else but counts.
pub const WEIGHT: &str = "weight";

/// The percentiles each row gives.
pub const PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 100.0];

/// The histograms a task's run keeps of its measurements: `task:<task>:<name>` for each of
/// the kind's (a bulk's `service`; a search's `latency` and `service_time`), what a merge of
/// parts adds up task by task.
pub fn histograms(
    task: &str,
    m: &crate::measure::Measurements,
    names: &[&str],
) -> Vec<crate::measure::SerializedHistogram> {
    names
        .iter()
        .filter_map(|n| {
            let (unit, h) = m.histograms.get(*n)?;
            crate::measure::SerializedHistogram::encode(&format!("task:{task}:{n}"), unit, h)
        })
        .collect()
}

/// The figures of `run`, the task `task` of type `kind` (a bulk's from its loads', see
/// [`of_load`]).
pub fn of(task: &str, kind: &str, run: &TaskRun) -> TaskFigures {
    if kind == "bulk" {
        if let Some(figures) = of_load(task, run) {
            return figures;
        }
    }
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
    // A bulk of vectors counts its documents, as the tools count a bulk's; so does a
    // transform waited for (the documents it processed, as Rally weighs it).
    let docs = matches!(kind, "bulk-vector-data-set" | "bulk" | "wait-for-transform");
    // A runner in the worker weighs its work itself, in its own unit (Rally's `weight` and
    // `unit`): its weights are kept under that unit.
    let weighed = m
        .histograms
        .get(WEIGHT)
        .map(|(unit, _)| format!("{unit}/s"));
    let (counted, unit) = match weighed {
        _ if docs => ("units", "docs/s".to_string()),
        Some(unit) => ("units", unit),
        None => ("ops", "ops/s".to_string()),
    };
    let done = m.counts.get(counted).copied().unwrap_or(0);
    let (median, min, max) = spread(
        m.seconds
            .values()
            .map(|c| c.get(counted).copied().unwrap_or(0)),
    );
    let answers = m.counts.get("recall_answers").copied().unwrap_or(0);
    let mean = |name: &str| m.counts.get(name).copied().unwrap_or(0) as f64 / 1e6 / answers as f64;
    let recall = (answers > 0).then(|| RecallFigures {
        answers,
        mean_at_k: mean("recall_at_k_ppm"),
        mean_at_1: mean("recall_at_1_ppm"),
        min_at_k: m
            .histograms
            .get("recall_at_k")
            .map_or(0.0, |(_, h)| h.min() as f64 / 1e6),
    });
    TaskFigures {
        task: task.to_string(),
        operation_type: kind.to_string(),
        ops,
        errors,
        error_rate: rate(errors, ops),
        throughput_unit: unit,
        throughput_mean: seconds.filter(|s| *s > 0.0).map(|s| done as f64 / s),
        throughput_median: median,
        throughput_min: min,
        throughput_max: max,
        latency_ms: percentiles("latency"),
        service_time_ms: percentiles("service_time"),
        seconds,
        started_ms: run.window.map(|(a, _)| unix_ms(a)),
        ended_ms: run.window.map(|(_, b)| unix_ms(b)),
        first_error: run.first_error.clone(),
        stopped: run.stopped,
        per_second: None,
        recall,
        freshness: None,
        freshness_not_measured: None,
    }
}

/// The median, least and most operations a second over the whole seconds of a window (the
/// first and last are partial, so they are left out; five seconds at least, else none).
pub fn spread(per_second: impl Iterator<Item = u64>) -> (Option<f64>, Option<f64>, Option<f64>) {
    let mut per_second: Vec<f64> = per_second.map(|n| n as f64).collect();
    if per_second.len() < 5 {
        return (None, None, None);
    }
    per_second.remove(0);
    per_second.pop();
    per_second.sort_by(f64::total_cmp);
    (
        crate::stats::median_sorted(&per_second),
        per_second.first().copied(),
        per_second.last().copied(),
    )
}

fn unix_ms(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The figures of a bulk task from its loads' measurements (one load per target index, in
/// turn, the warm-up before the first only): documents per second over the task's steady
/// window (the first load's steady start to the last load's end), each bulk request's
/// latency, failed requests as errors. The one derivation of a load (`ingest::figures`), for
/// a run and for its parts merged; `None` when `m` holds no load kept whole.
fn of_load(task: &str, run: &TaskRun) -> Option<TaskFigures> {
    let m = &run.measurements;
    let load = crate::ingest::figures::LoadFigures::of(m)?;
    let percentiles = m.histograms.get("service").and_then(|(_, h)| {
        (!h.is_empty()).then(|| PERCENTILES.map(|p| h.value_at_quantile(p / 100.0) as f64 / 1000.0))
    });
    let started = crate::ingest::figures::began_unix_us(m).map(|us| us / 1000);
    let (ops, errors) = (load.requests.attempts, load.requests.failed_attempts);
    Some(TaskFigures {
        task: task.to_string(),
        operation_type: "bulk".into(),
        ops,
        errors,
        error_rate: rate(errors, ops),
        throughput_unit: "docs/s".into(),
        throughput_mean: (load.headline.docs > 0 || ops > 0).then_some(load.docs_per_sec),
        throughput_median: None,
        throughput_min: None,
        throughput_max: None,
        latency_ms: percentiles,
        service_time_ms: percentiles,
        seconds: Some(load.wall_secs),
        started_ms: started,
        ended_ms: started.map(|s| s + (load.wall_secs * 1000.0).round() as u64),
        first_error: run.first_error.clone(),
        stopped: run.stopped,
        per_second: None,
        recall: None,
        freshness: load.freshness,
        freshness_not_measured: None,
    })
}

/// Why a bulk task's loads failed without a failed request, from the driver's reports: the
/// driver's own error, documents the engine refused item by item, counts that do not
/// reconcile.
pub fn load_error(reports: &[crate::ingest::IngestReport]) -> Option<String> {
    reports.iter().find_map(|r| {
        let c = &r.counts;
        r.error.clone().or_else(|| {
            // `failed` is every document in the failure file, the refused among them.
            let refused = c.failed;
            if refused > 0 {
                Some(format!(
                    "{refused} document(s) of {} not taken (see {})",
                    r.index,
                    r.failures_file.as_ref().map_or_else(
                        || "the failure file".to_string(),
                        |f| f.display().to_string()
                    )
                ))
            } else if !c.reconciled {
                Some(format!("{}: the counts do not reconcile", r.index))
            } else {
                None
            }
        })
    })
}

/// Why a run of `tasks` failed: the tasks with failed operations (or an error of their own),
/// or `None` when none has.
pub fn failed(tasks: &[TaskFigures]) -> Option<String> {
    let failed: Vec<String> = tasks
        .iter()
        .filter_map(|t| match (t.errors, &t.first_error) {
            (0, None) => None,
            (0, Some(e)) => Some(format!("{} ({e})", t.task)),
            (n, _) => Some(format!("{} ({n} of {})", t.task, t.ops)),
        })
        .collect();
    // What the first failure was, so the line alone says why.
    let first = tasks
        .iter()
        .find(|t| t.errors > 0)
        .and_then(|t| Some((&t.task, t.first_error.as_ref()?)))
        .map(|(task, e)| format!("; the first, in {task}: {e}"))
        .unwrap_or_default();
    (!failed.is_empty()).then(|| format!("failed operations in {}{first}", failed.join(", ")))
}

/// errors / ops; 0 when nothing ran.
fn rate(errors: u64, ops: u64) -> f64 {
    if ops == 0 {
        0.0
    } else {
        errors as f64 / ops as f64
    }
}

/// What a track run kept: one row per task that ran, and what did not run. Read back as it was
/// written (a group's merge reads its parts as this type, and makes its own of it).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct TrackRunResult {
    pub track: String,
    pub procedure: String,
    /// What the track's tool calls it: `challenge` or `test procedure`.
    pub procedure_word: String,
    /// The engine, as it says it.
    pub product: String,
    pub engine_version: String,
    /// Stopped by Ctrl-C, or by the track's Python worker dying: the tasks that ran are kept.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// What stopped it when it was not Ctrl-C (the worker's end, and its last words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// The tasks with failed operations: the run failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub tasks: Vec<TaskFigures>,
    pub not_run: Vec<super::plan::Item>,
    /// The corpus files synthesized for those not here (`--synthesize`): its figures are
    /// not a measure of the real corpus.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub synthesized: Vec<crate::tasks::synthesize::Synthesized>,
    /// What the run's telemetry sampled over all its steps (`None` with `--no-telemetry`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<crate::measure::telemetry::Summary>,
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::measure::Measurements;

    /// A run of `ops` executions, each weighing `weight` in `unit` when a runner weighed it.
    fn run(ops: u64, weight: u64, unit: Option<&str>) -> TaskRun {
        let mut m = Measurements::default();
        for _ in 0..ops {
            m.count("ops", 1);
            m.count("units", weight);
            m.count_at(7, "ops", 1);
            m.count_at(7, "units", weight);
            if let Some(unit) = unit {
                m.record(WEIGHT, unit, weight);
            }
        }
        let at = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
        TaskRun {
            measurements: m,
            window: Some((at(7), at(9))),
            ..TaskRun::default()
        }
    }

    #[test]
    fn a_runners_weights_are_its_throughput_in_its_unit_live_and_merged() {
        let weighed = of("put", "put-doc", &run(3, 4, Some("docs")));
        assert_eq!(
            (weighed.throughput_unit.as_str(), weighed.throughput_mean),
            ("docs/s", Some(6.0))
        );
        let plain = of("health", "cluster-health", &run(3, 4, None));
        assert_eq!(
            (plain.throughput_unit.as_str(), plain.throughput_mean),
            ("ops/s", Some(1.5))
        );
        // Two parts' measurements added give the same unit, and the weights of both.
        let mut both = run(3, 4, Some("docs"));
        both.measurements
            .merge(&run(1, 2, Some("docs")).measurements)
            .unwrap();
        let merged = of("put", "put-doc", &both);
        assert_eq!(
            (merged.throughput_unit.as_str(), merged.throughput_mean),
            ("docs/s", Some(7.0))
        );
    }
}

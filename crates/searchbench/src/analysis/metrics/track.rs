//! The metrics of a track run: per task, its throughput, latency and service time
//! percentiles, and its errors (any rise is worse), and a bulk's time to searchable, read back
//! as the tasks' figures were written (`tasks::TaskFigures`).

use serde_json::Value;

use super::{key_part, read, rows, Judged::*, Metric, Of::*, Row};
use crate::tasks::{TaskFigures, TrackRunResult};

/// A task's metrics. Its throughput is in documents or operations per second, by the task:
/// of the two rows, the one in its unit.
#[rustfmt::skip]
const TASK: &[Row<TaskFigures>] = &[
    Row("throughput", "throughput", "docs/s", Higher, One(|t| t.throughput_mean.filter(|_| t.in_docs()))),
    Row("throughput", "throughput", "ops/s", Higher, One(|t| t.throughput_mean.filter(|_| !t.in_docs()))),
    Row("latency_p50_ms", "latency p50", "ms", Lower, One(|t| Some(t.latency_ms?[0]))),
    Row("latency_p90_ms", "latency p90", "ms", Lower, One(|t| Some(t.latency_ms?[1]))),
    Row("latency_p99_ms", "latency p99", "ms", Lower, One(|t| Some(t.latency_ms?[2]))),
    Row("service_time_p50_ms", "service time p50", "ms", Lower, One(|t| Some(t.service_time_ms?[0]))),
    Row("service_time_p99_ms", "service time p99", "ms", Lower, One(|t| Some(t.service_time_ms?[2]))),
    Row("errors", "failed operations", "", Errors, One(|t| Some(t.errors as f64))),
    Row("recall_at_k", "mean recall@k", "recall", Higher, One(|t| Some(t.recall.as_ref()?.mean_at_k))),
];

impl TaskFigures {
    fn in_docs(&self) -> bool {
        self.throughput_unit == "docs/s"
    }
}

/// A track run's tasks, each by [`TASK`].
pub(super) fn metrics(r: &Value, _: &[Value], out: &mut Vec<Metric>) {
    if !r.get("track").is_some_and(Value::is_string) {
        return;
    }
    let Some(run) = read::<TrackRunResult>("track", r, out) else {
        return;
    };
    for t in &run.tasks {
        let (key, label) = (
            format!("task.{}.", key_part(&t.task)),
            format!("{}: ", t.task),
        );
        rows(t, &key, &label, TASK, out);
        // A bulk's time to searchable, judged as a load's.
        if let Some(f) = &t.freshness {
            rows(f, &key, &label, super::ingest::SEARCHABLE, out);
        }
    }
}

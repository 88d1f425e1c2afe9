//! The metrics of a track run: per task, its throughput, latency and service time
//! percentiles, and its errors (any rise is worse), read back as the tasks' figures were
//! written (`tasks::TaskFigures`).

use serde_json::Value;

use super::{errors, key_part, point, read, Direction::*, Metric};
use crate::tasks::TaskFigures;

/// Whether `r` is a track run's result.
pub(super) fn is_track(r: &Value) -> bool {
    r.get("track").is_some_and(Value::is_string) && r.get("tasks").is_some_and(Value::is_array)
}

pub(super) fn metrics(r: &Value, out: &mut Vec<Metric>) {
    let Some(tasks) = read::<Vec<TaskFigures>>("tasks", &r["tasks"], out) else {
        return;
    };
    for t in &tasks {
        let k = format!("task.{}", key_part(&t.task));
        let unit: &'static str = if t.throughput_unit == "docs/s" {
            "docs/s"
        } else {
            "ops/s"
        };
        let name = &t.task;
        let at = |p: Option<[f64; 4]>, i: usize| p.map(|p| p[i]);
        out.extend(
            [
                point(
                    &format!("{k}.throughput"),
                    &format!("{name}: throughput"),
                    unit,
                    HigherBetter,
                    t.throughput_mean,
                ),
                point(
                    &format!("{k}.latency_p50_ms"),
                    &format!("{name}: latency p50"),
                    "ms",
                    LowerBetter,
                    at(t.latency_ms, 0),
                ),
                point(
                    &format!("{k}.latency_p90_ms"),
                    &format!("{name}: latency p90"),
                    "ms",
                    LowerBetter,
                    at(t.latency_ms, 1),
                ),
                point(
                    &format!("{k}.latency_p99_ms"),
                    &format!("{name}: latency p99"),
                    "ms",
                    LowerBetter,
                    at(t.latency_ms, 2),
                ),
                point(
                    &format!("{k}.service_time_p50_ms"),
                    &format!("{name}: service time p50"),
                    "ms",
                    LowerBetter,
                    at(t.service_time_ms, 0),
                ),
                point(
                    &format!("{k}.service_time_p99_ms"),
                    &format!("{name}: service time p99"),
                    "ms",
                    LowerBetter,
                    at(t.service_time_ms, 2),
                ),
                errors(
                    &format!("{k}.errors"),
                    &format!("{name}: failed operations"),
                    Some(t.errors as f64),
                ),
                point(
                    &format!("{k}.recall_at_k"),
                    &format!("{name}: mean recall@k"),
                    "recall",
                    HigherBetter,
                    t.recall.map(|r| r.mean_at_k),
                ),
            ]
            .into_iter()
            .flatten(),
        );
    }
}

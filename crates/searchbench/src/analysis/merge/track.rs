//! A track run's parts merged task by task: each part ran its share of every task's clients
//! (part 1 alone the administrative tasks), so a task of the group is the task of every part
//! that ran it. Its phase's measurements (operations, errors, operations per second, latency
//! and service-time histograms; a bulk's load) are added and its figures derived from them by
//! `tasks::figures::of`, as a run derives its own, over the group's window: from the first
//! part's first send to the last part's last answer.

use std::collections::HashMap;
use std::time::{Duration, UNIX_EPOCH};

use serde_json::json;

use super::{KindMerge, PartRun};
use crate::measure::SerializedHistogram;
use crate::store::Parts;
use crate::tasks::figures::{self, TaskFigures};
use crate::tasks::{TaskRun, TrackRunResult};

pub(super) fn merge(chosen: &[&PartRun]) -> Result<KindMerge, String> {
    let parts: Vec<(&PartRun, TrackRunResult)> = super::results_as(chosen, "a track run's result")?;
    // Tasks in the order the parts ran them (part 1's first: it runs every kind of task).
    let order = super::first_seen(parts.iter().flat_map(|(_, r)| &r.tasks).map(|t| &t.task));
    let mut histograms = Vec::new();
    let mut tasks = Vec::new();
    // Each part's tasks by name (its first of a name), each found at once.
    let by_name: Vec<(&PartRun, HashMap<&str, &TaskFigures>)> = (parts.iter())
        .map(|(p, r)| {
            let mut named = HashMap::new();
            for t in &r.tasks {
                named.entry(t.task.as_str()).or_insert(t);
            }
            (*p, named)
        })
        .collect();
    for name in order {
        let rows: Vec<(&PartRun, &TaskFigures)> = (by_name.iter())
            .filter_map(|(p, named)| Some((*p, *named.get(name.as_str())?)))
            .collect();
        let (task, kept) = merge_task(name, &rows)?;
        tasks.push(task);
        histograms.extend(kept);
    }
    let error = figures::failed(&tasks);
    let each = super::each_of(chosen, parts.iter().map(|(p, r)| (*p, r)), |r| {
        let ran = r.map(|r| r.tasks.iter().map(|t| t.task.clone()).collect::<Vec<_>>());
        json!({ "tasks": ran })
    });
    // The group's result as one track run's: its track, procedure and engine part 1's.
    let merged = TrackRunResult {
        interrupted: parts.iter().any(|(_, r)| r.interrupted),
        // What stopped a part that was not Ctrl-C (its worker dying), as that part says it.
        stopped_by: parts
            .iter()
            .find_map(|(p, r)| Some(format!("part {}: {}", p.part, r.stopped_by.as_ref()?))),
        error: error.clone(),
        tasks,
        // What no part ran (a task another part runs is not "not run").
        not_run: super::first_seen(parts.iter().flat_map(|(_, r)| &r.not_run))
            .into_iter()
            .filter(|i| !i.how.starts_with("on another part"))
            .cloned()
            .collect(),
        synthesized: super::first_seen(parts.iter().flat_map(|(_, r)| &r.synthesized))
            .into_iter()
            .cloned()
            .collect(),
        // Each part sampled the cluster for itself: its telemetry is its own run's.
        telemetry: None,
        ..parts.first().map(|(_, r)| r.clone()).unwrap_or_default()
    };
    Ok(KindMerge {
        result: serde_json::to_value(merged).map_err(|e| e.to_string())?,
        histograms,
        timeline: Vec::new(),
        failed: error,
        parts: Parts {
            each,
            ..Parts::default()
        },
    })
}

/// One task of the group from the parts that ran it, with the histograms it keeps: its
/// phase's measurements every part kept, added, and its figures derived from them by the
/// function a run derives its own with, over the group's window (a bulk's from its loads'
/// bounds: the first part's steady start to the last part's end).
fn merge_task(
    name: &str,
    rows: &[(&PartRun, &TaskFigures)],
) -> Result<(TaskFigures, Vec<SerializedHistogram>), String> {
    let first = rows.first().map(|(_, t)| *t).ok_or("no part ran it")?;
    let started_ms = rows.iter().filter_map(|(_, t)| t.started_ms).min();
    let ended_ms = rows.iter().filter_map(|(_, t)| t.ended_ms).max();
    let at = |ms: u64| UNIX_EPOCH + Duration::from_millis(ms);
    let run = TaskRun {
        measurements: super::phase_of_every_part(rows.iter().map(|(p, _)| *p), name)?
            .ok_or_else(|| format!("task {name}: a part that ran it measured none of it"))?,
        window: match (started_ms, ended_ms) {
            (Some(a), Some(b)) if b >= a => Some((at(a), at(b))),
            _ => None,
        },
        first_error: rows.iter().find_map(|(p, t)| {
            let e = t.first_error.as_ref()?;
            Some(format!("part {}: {e}", p.part))
        }),
        stopped: rows.iter().any(|(_, t)| t.stopped),
    };
    let mut task = figures::of(name, &first.operation_type, &run);
    if task.freshness.is_none() {
        // The parts' reason (they write one index) is the group's.
        task.freshness_not_measured = first.freshness_not_measured.clone();
    }
    let kinds: &[&str] = if first.operation_type == "bulk" {
        &["service"]
    } else {
        &["latency", "service_time"]
    };
    let kept = figures::histograms(name, &run.measurements, kinds);
    Ok((task, kept))
}

//! A track run's parts merged task by task: each part ran its share of every task's clients
//! (part 1 alone the administrative tasks), so a task of the group is the task of every part
//! that ran it. Its phase's measurements (operations, errors, operations per second,
//! latency and service-time histograms) are added and its figures derived from them by
//! `tasks::figures::of`, as a run derives its own; for parts that kept no phase of it,
//! operations and errors are summed from their rows, the histograms the parts kept
//! (`task:<task>:<name>`) added, and every figure derived again: the throughput of
//! a task over the group's window from the first part's first send to the last part's last
//! answer, its median, least and most from the parts' operations added second by second on
//! the wall clock; a bulk's documents per second is the parts' rates summed (they loaded
//! together, each its own share of the documents).

use std::collections::BTreeMap;
use std::time::{Duration, UNIX_EPOCH};

use hdrhistogram::Histogram;
use serde::Deserialize;
use serde_json::json;

use super::{config, KindMerge, PartRun};
use crate::measure::SerializedHistogram;
use crate::store::{EachPart, Parts};
use crate::tasks::figures::{self, TaskFigures, PERCENTILES};
use crate::tasks::plan::Item;
use crate::tasks::TaskRun;

/// What a part's track result says that the merge reads, typed.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Said {
    track: String,
    procedure: String,
    procedure_word: String,
    product: String,
    engine_version: String,
    interrupted: bool,
    tasks: Vec<TaskFigures>,
    not_run: Vec<Item>,
}

/// A part with its track result.
struct PartTrack<'p> {
    part: &'p PartRun,
    said: Said,
}

pub(super) fn merge(of: u32, chosen: &[&PartRun]) -> Result<KindMerge, String> {
    let mut parts = Vec::new();
    for p in chosen {
        let Some(result) = &p.row.result else {
            continue;
        };
        let said = Said::deserialize(result).map_err(|e| {
            format!(
                "part {} ({}): not a track run's result: {e}",
                p.part, p.row.id
            )
        })?;
        parts.push(PartTrack { part: p, said });
    }
    // Tasks in the order the parts ran them (part 1's first: it runs every kind of task).
    let mut order: Vec<&str> = Vec::new();
    for p in &parts {
        for t in &p.said.tasks {
            if !order.contains(&t.task.as_str()) {
                order.push(&t.task);
            }
        }
    }
    let mut histograms = Vec::new();
    let mut tasks = Vec::new();
    for name in order {
        let rows: Vec<(&PartTrack<'_>, &TaskFigures)> = parts
            .iter()
            .filter_map(|p| Some((p, p.said.tasks.iter().find(|t| t.task == name)?)))
            .collect();
        let (task, kept) = merge_task(name, &rows)?;
        tasks.push(task);
        histograms.extend(kept);
    }
    let error = figures::failed(&tasks);
    // What no part ran (a task another part runs is not "not run").
    let mut not_run: Vec<Item> = Vec::new();
    for i in parts.iter().flat_map(|p| &p.said.not_run) {
        if !i.how.starts_with("on another part") && !not_run.contains(i) {
            not_run.push(i.clone());
        }
    }
    let each: Vec<EachPart> = chosen
        .iter()
        .map(|p| {
            let ran = parts.iter().find(|q| q.part.row.id == p.row.id).map(|q| {
                q.said
                    .tasks
                    .iter()
                    .map(|t| t.task.clone())
                    .collect::<Vec<_>>()
            });
            super::each(p, json!({ "tasks": ran, "cores": super::cores(p) }))
        })
        .collect();
    // The group's result in the shape a track run keeps (`session::track_run`'s result).
    let head = parts.first().map(|p| &p.said);
    let named = |f: fn(&Said) -> &String| head.map(f).cloned().unwrap_or_default();
    let result = json!({
        "track": named(|s| &s.track),
        "procedure": named(|s| &s.procedure),
        "procedure_word": named(|s| &s.procedure_word),
        "product": named(|s| &s.product),
        "engine_version": named(|s| &s.engine_version),
        "interrupted": parts.iter().any(|p| p.said.interrupted),
        "error": error,
        "tasks": tasks,
        "not_run": not_run,
    });
    Ok(KindMerge {
        result,
        config: config(chosen, of, |p| Some(&p.row.config)),
        histograms,
        timeline: Vec::new(),
        failed: error,
        parts: Parts {
            each,
            ..Parts::default()
        },
    })
}

/// The histogram `task:<name>:<kind>` of every part that kept it, added.
fn added(
    name: &str,
    kind: &str,
    rows: &[(&PartTrack<'_>, &TaskFigures)],
) -> Result<Option<(String, Histogram<u64>)>, String> {
    let wanted = format!("task:{name}:{kind}");
    let mut sum: Option<(String, Histogram<u64>)> = None;
    for (p, _) in rows {
        let Some(h) = p.part.histograms.iter().find(|h| h.name == wanted) else {
            // A part that ran the task but kept no histogram of it: no percentile is right.
            return Ok(None);
        };
        let decoded = h.decode()?;
        match &mut sum {
            Some((_, s)) => s
                .add(&decoded)
                .map_err(|e| format!("histogram {wanted}: {e:?}"))?,
            None => sum = Some((h.unit.clone(), decoded)),
        }
    }
    Ok(sum)
}

fn percentiles(h: &Histogram<u64>) -> Option<[f64; 4]> {
    (!h.is_empty()).then(|| PERCENTILES.map(|p| h.value_at_quantile(p / 100.0) as f64 / 1000.0))
}

/// One task of the group from the parts that ran it, with the histograms it keeps.
fn merge_task(
    name: &str,
    rows: &[(&PartTrack<'_>, &TaskFigures)],
) -> Result<(TaskFigures, Vec<SerializedHistogram>), String> {
    let first = rows.first().map(|(_, t)| *t).ok_or("no part ran it")?;
    let bulk = first.operation_type == "bulk";
    let ops: u64 = rows.iter().map(|(_, t)| t.ops).sum();
    let errors: u64 = rows.iter().map(|(_, t)| t.errors).sum();
    let started_ms = rows.iter().filter_map(|(_, t)| t.started_ms).min();
    let ended_ms = rows.iter().filter_map(|(_, t)| t.ended_ms).max();
    let seconds = match (started_ms, ended_ms) {
        (Some(a), Some(b)) if b >= a => Some((b - a) as f64 / 1000.0),
        _ => None,
    };
    let first_error = rows.iter().find_map(|(p, t)| {
        t.first_error
            .as_ref()
            .map(|e| format!("part {}: {e}", p.part.part))
    });
    let stopped = rows.iter().any(|(_, t)| t.stopped);
    // What adds up, from the task's phase every part that ran it kept, added; its figures
    // derived by the function the live run derives its own with, over the group's window
    // (a bulk's from its loads' bounds: the first part's steady start to the last part's
    // end). A bulk kept before its loads kept their bounds: its parts' rates summed (below),
    // as they loaded side by side.
    let phase = super::phase_of_every_part(rows.iter().map(|(p, _)| p.part), name)?;
    let kinds: &[&str] = if bulk {
        &["service"]
    } else {
        &["latency", "service_time"]
    };
    if let Some(measurements) = phase.filter(|m| !bulk || crate::ingest::figures::is_whole_load(m))
    {
        let at = |ms: u64| UNIX_EPOCH + Duration::from_millis(ms);
        let run = TaskRun {
            measurements,
            window: match (started_ms, ended_ms) {
                (Some(a), Some(b)) if b >= a => Some((at(a), at(b))),
                _ => None,
            },
            first_error,
            stopped,
        };
        let task = figures::of(name, &first.operation_type, &run);
        let kept = kinds
            .iter()
            .filter_map(|kind| {
                let (unit, h) = run.measurements.histograms.get(*kind)?;
                SerializedHistogram::encode(&format!("task:{name}:{kind}"), unit, h)
            })
            .collect();
        return Ok((task, kept));
    }
    let mut kept = Vec::new();
    let mut pct = BTreeMap::new();
    for kind in kinds {
        if let Some((unit, h)) = added(name, kind, rows)? {
            pct.insert(*kind, percentiles(&h));
            kept.extend(SerializedHistogram::encode(
                &format!("task:{name}:{kind}"),
                &unit,
                &h,
            ));
        }
    }
    let mut task = TaskFigures {
        task: name.to_string(),
        operation_type: first.operation_type.clone(),
        ops,
        errors,
        error_rate: if ops == 0 {
            0.0
        } else {
            errors as f64 / ops as f64
        },
        throughput_unit: first.throughput_unit.clone(),
        throughput_mean: None,
        throughput_median: None,
        throughput_min: None,
        throughput_max: None,
        latency_ms: None,
        service_time_ms: None,
        seconds,
        started_ms,
        ended_ms,
        first_error,
        stopped,
        per_second: None,
        recall: figures::RecallFigures::merged(rows.iter().filter_map(|(_, t)| t.recall.as_ref())),
    };
    if bulk {
        let rates: Vec<f64> = rows.iter().filter_map(|(_, t)| t.throughput_mean).collect();
        task.throughput_mean = (rates.len() == rows.len()).then(|| rates.iter().sum());
        let service = pct.get("service").copied().flatten();
        task.latency_ms = service;
        task.service_time_ms = service;
    } else {
        task.throughput_mean = seconds.filter(|s| *s > 0.0).map(|s| ops as f64 / s);
        let mut by_second: BTreeMap<u64, u64> = BTreeMap::new();
        for (_, t) in rows {
            for (s, n) in t.per_second.iter().flatten() {
                *by_second.entry(*s).or_default() += n;
            }
        }
        (
            task.throughput_median,
            task.throughput_min,
            task.throughput_max,
        ) = figures::spread(by_second.into_values());
        task.latency_ms = pct.get("latency").copied().flatten();
        task.service_time_ms = pct.get("service_time").copied().flatten();
    }
    Ok((task, kept))
}

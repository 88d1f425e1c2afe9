//! Every part read as the phases it measured, whatever it kept: a part killed before its load
//! ended, or stored before phases (or their histograms, or a load's bounds) were kept, has its
//! missing phases made here from what it wrote and streamed, once, as it is read. The kinds'
//! merges then add phases and nothing else, by one path (`super::phase_of_every_part`).
//!
//! What a phase is made of, where the part kept none:
//! - a load (`ingest`): its written report, the timeline it streamed and its stored `service`
//!   and `took` histograms (`ingest::figures::from_written`);
//! - the searches beside a load: their counts and span from what its report said
//!   (`SearchesBeside::recorded`);
//! - a scenario's creation: each index made and each cluster state sampled, from what its
//!   report said (`Creation::recorded`); its field-caps clients, requests and errors
//!   (`Latency::recorded`);
//! - a histogram the part stored beside its result (`query:<cell>:<name>` of the query phase,
//!   a scenario's creation and field-caps histograms, the searches' `beside_latency`,
//!   `task:<task>:<name>` of a track's task) goes into the phase it was measured in, where
//!   that phase lacks it;
//! - a track's task: its row's operations, errors, operations per second and recall; a bulk
//!   kept before its loads kept their bounds counts its documents as its rate over its own
//!   window, and its service time is its latency too (a bulk is timed by its requests).

use serde::Deserialize;
use serde_json::Value;

use super::PartRun;
use crate::ingest::figures;
use crate::ingest::stored::StoredLoad;
use crate::measure::{Measurements, TimelineRow};
use crate::query::beside::{self, SearchesBeside};
use crate::store::{PhaseMeasurements, LOAD, QUERY};
use crate::tasks::{TaskFigures, TrackRunResult};
use crate::workload::scenario_result::{
    record, Creation, Latency, CREATE_HISTOGRAM, CREATION_PHASE, FIELD_CAPS_HISTOGRAM,
    FIELD_CAPS_PHASE,
};

/// `p` with every phase it measured: the ones it kept, and the others made from what it wrote.
pub(super) fn with_phases(mut p: PartRun) -> PartRun {
    let result = p.row.result.clone();
    // Its load's written report, when it ran a load (none for a part killed first).
    let load: Option<Option<&Value>> = match (p.row.kind.as_str(), &result) {
        ("run", Some(r)) if r.get("scenario").is_some() => {
            r.get("indexing").filter(|i| i.is_object()).map(Some)
        }
        ("ingest" | "run", r) => Some(r.as_ref()),
        _ => None,
    };
    if let Some(written) = load {
        let written = written.and_then(|r| StoredLoad::deserialize(r).ok());
        if !p.phase(LOAD).is_some_and(figures::is_whole_load) {
            let m = load_written(&p, written.as_ref());
            put(&mut p, LOAD, m, true);
        }
        // The searches beside it, kept before their phase kept its counts: from what it said.
        let said = written.and_then(|w| w.searches_beside);
        let recorded = p.phase(beside::PHASE).and_then(SearchesBeside::of);
        if let (Some(b), None) = (said, recorded) {
            let began = p.phase(LOAD).and_then(figures::began_unix_us).unwrap_or(0);
            put(&mut p, beside::PHASE, b.recorded(began), false);
        }
    }
    // A scenario's creation, kept before its phase kept its record: from what it said.
    let scenario = result.as_ref().filter(|r| r.get("scenario").is_some());
    let part_of = |key: &str| scenario.and_then(|r| r.get(key)).filter(|v| v.is_object());
    let creation = part_of("creation").and_then(|c| Creation::deserialize(c).ok());
    let recorded = creation.and_then(|c| c.recorded());
    if let (Some(m), false) = (recorded, p.phase(CREATION_PHASE).is_some_and(record::kept)) {
        put(&mut p, CREATION_PHASE, m, false);
    }
    // Its field-caps latency, kept before its phase kept its counts (the histogram it stored
    // beside its result goes in below).
    let caps = part_of("field_caps").and_then(|c| Latency::deserialize(c).ok());
    let counted = p
        .phase(FIELD_CAPS_PHASE)
        .is_some_and(|m| !m.counts.is_empty());
    if let (Some(l), false) = (caps, counted) {
        put(&mut p, FIELD_CAPS_PHASE, l.recorded(None), false);
    }
    let tasks: Vec<TaskFigures> = match (p.row.kind.as_str(), &result) {
        ("track", Some(r)) => TrackRunResult::deserialize(r).map_or(Vec::new(), |r| r.tasks),
        _ => Vec::new(),
    };
    // Found by hash: a part may say it ran many tasks.
    let mut kept: std::collections::HashSet<String> =
        p.phases.iter().map(|x| x.phase.clone()).collect();
    for row in &tasks {
        if kept.insert(row.task.clone()) {
            put(&mut p, &row.task, task_written(row), false);
        }
    }
    for h in p.histograms.clone() {
        let (phase, name) = match h.name.as_str() {
            n if n.starts_with("query:") => (QUERY, n),
            CREATE_HISTOGRAM => (CREATION_PHASE, CREATE_HISTOGRAM),
            FIELD_CAPS_HISTOGRAM => (FIELD_CAPS_PHASE, FIELD_CAPS_HISTOGRAM),
            beside::LATENCY => (beside::PHASE, beside::LATENCY),
            n => match n.strip_prefix("task:").and_then(|t| t.rsplit_once(':')) {
                Some(task_and_name) => task_and_name,
                None => continue,
            },
        };
        // One that does not decode leaves its percentiles out, as a killed part's are.
        let (lacks, Ok(decoded)) = (
            p.phase(phase)
                .is_none_or(|m| !m.histograms.contains_key(name)),
            h.decode(),
        ) else {
            continue;
        };
        if lacks {
            let mut m = Measurements::default();
            let _ = m.add_histogram(name, &h.unit, &decoded);
            put(&mut p, phase, m, false);
        }
    }
    // A bulk task kept before its loads kept their bounds was timed by its requests alone:
    // their service time is its latency too.
    for t in tasks.iter().filter(|t| t.operation_type == "bulk") {
        if let Some(x) = p.phases.iter_mut().find(|x| x.phase == t.task) {
            let m = &mut x.measurements;
            if let (false, Some((unit, h))) = (
                figures::is_whole_load(m),
                m.histograms.get("service").cloned(),
            ) {
                for name in ["latency", "service_time"] {
                    m.histograms
                        .entry(name.into())
                        .or_insert((unit.clone(), h.clone()));
                }
            }
        }
    }
    p
}

/// Adds `m` to the phase `name` of `p` (made when it has none); `replace`: in place of it.
fn put(p: &mut PartRun, name: &str, m: Measurements, replace: bool) {
    match p.phases.iter_mut().find(|x| x.phase == name) {
        Some(x) if replace => x.measurements = m,
        // Both sides are this part's own: they add (a histogram it lacked, its counts).
        Some(x) => {
            let _ = x.measurements.merge(&m);
        }
        None => p.phases.push(PhaseMeasurements {
            phase: name.to_string(),
            measurements: m,
            kept: Default::default(),
        }),
    }
}

/// A load's measurements from its written report (`written`; none for a part killed first)
/// and the timeline it streamed.
fn load_written(p: &PartRun, written: Option<&StoredLoad>) -> Measurements {
    let timeline: Vec<TimelineRow> = p
        .timeline
        .iter()
        .filter_map(|r| TimelineRow::deserialize(r).ok())
        .collect();
    let began_ms = written
        .and_then(|w| {
            w.load_started_unix_ms
                .or(w.started_unix.map(|s| s.saturating_mul(1000)))
        })
        .unwrap_or(p.row.started_unix.saturating_mul(1000));
    let cores = super::cores(p).unwrap_or(0) as u64;
    figures::from_written(
        written,
        &timeline,
        &p.histograms,
        began_ms.saturating_mul(1000),
        cores,
    )
}

/// A track task's measurements from its row.
fn task_written(row: &TaskFigures) -> Measurements {
    let mut m = Measurements::default();
    m.count("ops", row.ops);
    m.count("errors", row.errors);
    for (second, n) in row.per_second.iter().flatten() {
        m.count_at(*second, "ops", *n);
    }
    if row.throughput_unit == "docs/s" {
        let rate = row.throughput_mean.unwrap_or(0.0);
        m.count("units", (rate * row.seconds.unwrap_or(0.0)).round() as u64);
    }
    if let Some(r) = &row.recall {
        let ppm = |x: f64| (x * 1e6 * r.answers as f64).round() as u64;
        m.count("recall_answers", r.answers);
        m.count("recall_at_k_ppm", ppm(r.mean_at_k));
        m.count("recall_at_1_ppm", ppm(r.mean_at_1));
        m.record("recall_at_k", "ppm", (r.min_at_k * 1e6).round() as u64);
    }
    m
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::corpus::part::Part;
    use crate::measure::SerializedHistogram;
    use crate::store::{RunId, RunRow, State};

    fn part(kind: &str, result: Value, histograms: Vec<SerializedHistogram>) -> PartRun {
        PartRun {
            part: Part { index: 1, of: 2 },
            row: RunRow {
                id: RunId("w0000001".into()),
                kind: kind.into(),
                workload: "w".into(),
                engine: None,
                status: "complete".into(),
                state: State::Complete,
                started_unix: 1_000,
                finished_unix: Some(1_010),
                tool_version: "0.1.0".into(),
                seed: None,
                pid: None,
                machine: json!({"cores": 2}),
                config: json!({"part": "1/2", "group": "g"}),
                tags: BTreeMap::new(),
                error: None,
                result: Some(result),
            },
            timeline: Vec::new(),
            histograms,
            phases: Vec::new(),
        }
    }

    fn histogram(name: &str, values: &[u64]) -> SerializedHistogram {
        let mut m = Measurements::default();
        for v in values {
            m.record("h", "us", *v);
        }
        SerializedHistogram::encode(name, "us", &m.histograms["h"].1).unwrap()
    }

    /// A track part kept before phases were: each task's phase from its row (operations,
    /// errors, operations a second, recall) and its stored histograms under their names in the
    /// phase; a bulk's documents as its rate over its window, its service time its latency.
    #[test]
    fn a_track_part_that_kept_no_phases_is_read_as_its_tasks_phases() {
        let search = json!({
            "task": "search", "operation_type": "search", "ops": 30, "errors": 2,
            "error_rate": 0.0, "throughput_unit": "ops/s", "seconds": 3.0,
            "first_error": null, "stopped": false,
            "per_second": {"1000": 10, "1001": 20},
            "recall": {"answers": 4, "mean_at_k": 0.5, "mean_at_1": 0.25, "min_at_k": 0.125},
        });
        let bulk = json!({
            "task": "load", "operation_type": "bulk", "ops": 8, "errors": 0,
            "error_rate": 0.0, "throughput_unit": "docs/s", "throughput_mean": 250.0,
            "seconds": 4.0, "first_error": null, "stopped": false,
        });
        let p = with_phases(part(
            "track",
            json!({"tasks": [search, bulk]}),
            vec![
                histogram("task:search:latency", &[900, 1_100]),
                histogram("task:load:service", &[5_000]),
            ],
        ));
        let s = p.phase("search").unwrap();
        assert_eq!((s.counts["ops"], s.counts["errors"]), (30, 2));
        assert_eq!(s.seconds[&1001]["ops"], 20);
        assert_eq!(s.counts["recall_answers"], 4);
        assert_eq!(s.counts["recall_at_k_ppm"], 2_000_000);
        assert_eq!(s.histograms["latency"].1.len(), 2);
        assert!(!s.histograms.contains_key("service_time"));
        let b = p.phase("load").unwrap();
        assert_eq!(b.counts["units"], 1_000);
        for name in ["service", "latency", "service_time"] {
            assert_eq!(b.histograms[name].1.len(), 1, "{name}");
        }
    }

    /// A phase a part kept is its own: what it wrote beside adds only the histograms it
    /// lacks (kept before phases kept their histograms).
    #[test]
    fn a_kept_phase_gains_only_the_histograms_it_lacks() {
        let mut p = part(
            "query",
            json!({"cells": []}),
            vec![
                histogram("query:v:serial:service", &[700]),
                histogram("query:v:serial:latency", &[800]),
            ],
        );
        let mut kept = Measurements::default();
        kept.record("query:v:serial:service", "us", 600);
        kept.record("query:v:serial:service", "us", 650);
        kept.count("searches", 2);
        p.phases.push(PhaseMeasurements {
            phase: QUERY.into(),
            measurements: kept,
            kept: Default::default(),
        });
        let p = with_phases(p);
        assert_eq!(p.phases.len(), 1);
        let q = p.phase(QUERY).unwrap();
        assert_eq!(q.counts["searches"], 2);
        assert_eq!(q.histograms["query:v:serial:service"].1.len(), 2);
        assert_eq!(q.histograms["query:v:serial:latency"].1.len(), 1);
    }
}

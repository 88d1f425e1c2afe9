//! A scenario's parts (many-shards, snapshots) merged: each part made its share of one set of
//! indices and loaded its share of the logs. The creation phase is derived by the function
//! one process derives its own with, from every part's record merged (each index made, and
//! each cluster state sampled, on the wall clock; the index-creation histograms added); the
//! logs load is merged as any load's parts are; the field-caps latency by the function one
//! process derives its own with, from the parts' records merged (clients, requests and
//! errors added; the histograms added); the counts, the snapshots and the
//! cleanup are part 1's (every part counted all the indices once all were made; part 1 alone
//! took the snapshots and cleaned up).

use serde_json::{json, Value};

use super::{ingest, KindMerge, PartRun};
use crate::measure::{Measurements, SerializedHistogram};
use crate::store::Parts;
use crate::workload::scenario_result::{
    derive, field_caps_of, Creation, CreationSetup, Latency, StoredScenario, CREATE_HISTOGRAM,
    CREATION_PHASE, FIELD_CAPS_HISTOGRAM, FIELD_CAPS_PHASE,
};

/// A part with its result, raw (what the group's result is made from) and as said.
struct ScenarioPart<'p> {
    part: &'p PartRun,
    raw: &'p Value,
    said: StoredScenario,
}

/// Whether a run's result is a scenario's.
pub(super) fn is_scenario(p: &PartRun) -> bool {
    p.row
        .result
        .as_ref()
        .is_some_and(|r| r.get("scenario").is_some())
}

/// The histogram `name` of a merged record, as a run keeps it.
fn kept(m: &Measurements, name: &str) -> Option<SerializedHistogram> {
    let (unit, h) = m.histograms.get(name)?;
    SerializedHistogram::encode(name, unit, h)
}

/// The group's creation phase, derived from its parts' records merged as one process's is from
/// its own (`None` when a part kept no record), with the histogram it keeps.
fn merged_creation(
    parts: &[ScenarioPart<'_>],
) -> Result<Option<(Creation, Vec<SerializedHistogram>)>, String> {
    let said: Vec<&Creation> = parts
        .iter()
        .filter_map(|p| p.said.creation.as_ref())
        .collect();
    let chosen: Vec<&PartRun> = parts.iter().map(|p| p.part).collect();
    let (Some(first), Some(m)) = (
        said.first().filter(|_| said.len() == parts.len()),
        super::phase_of_every_part(chosen, CREATION_PHASE)?,
    ) else {
        return Ok(None);
    };
    let setup = CreationSetup {
        clients: said.iter().map(|c| c.clients).sum(),
        ..first.setup()
    };
    let examples = said.iter().flat_map(|c| c.error_examples.iter().cloned());
    let Some(creation) = derive(&setup, &m, examples.take(5).collect()) else {
        return Ok(None);
    };
    Ok(Some((
        creation,
        kept(&m, CREATE_HISTOGRAM).into_iter().collect(),
    )))
}

pub(super) fn merge(
    of: u32,
    chosen: &[&PartRun],
    counted_now: Option<u64>,
) -> Result<KindMerge, String> {
    let parts: Vec<ScenarioPart<'_>> =
        super::results_as::<StoredScenario>(chosen, "a scenario's result")?
            .into_iter()
            .filter_map(|(part, said)| {
                let raw = part.row.result.as_ref()?;
                Some(ScenarioPart { part, raw, said })
            })
            .collect();
    let Some(head) = parts.first().map(|p| p.raw) else {
        return Err("no part kept a result".into());
    };
    let first = parts.iter().find(|p| p.part.part.index == 1).map(|p| p.raw);
    let mut result = head.clone();
    let mut histograms = Vec::new();
    let mut notes = vec!["the profile is each part's".to_string()];
    match merged_creation(&parts)? {
        Some((c, kept)) => {
            result["creation"] = serde_json::to_value(c).map_err(|e| e.to_string())?;
            histograms.extend(kept);
        }
        None => {
            result["creation"] = Value::Null;
            notes.push("a part kept no per-index times: the creation is each part's".into());
        }
    }
    // Every part counted every index; part 1's count is the group's.
    result["counts"] = first.unwrap_or(head)["counts"].clone();
    for k in ["snapshots", "cleanup"] {
        result[k] = first.map_or(Value::Null, |r| r[k].clone());
    }
    let mut timeline = Vec::new();
    let mut failed = None;
    let loads: Vec<PartRun> = parts
        .iter()
        .filter(|p| p.raw.get("indexing").is_some_and(Value::is_object))
        .map(|p| {
            let mut load = p.part.clone();
            load.row.result = Some(p.raw["indexing"].clone());
            load.histograms
                .retain(|h| h.name != CREATE_HISTOGRAM && h.name != FIELD_CAPS_HISTOGRAM);
            load
        })
        .collect();
    if !loads.is_empty() {
        let refs: Vec<&PartRun> = loads.iter().collect();
        let load = ingest::merge(of, &refs, counted_now)?;
        result["indexing"] = load.result;
        notes.extend(load.parts.notes);
        timeline = load.timeline;
        histograms.extend(load.histograms);
        failed = load.failed.map(|f| format!("logs load: {f}"));
    }
    // The field-caps latency, from the records of the parts that asked for field caps.
    let (asked, caps): (Vec<&PartRun>, Vec<&Latency>) = (parts.iter())
        .filter_map(|p| Some((p.part, p.said.field_caps.as_ref()?)))
        .unzip();
    if !caps.is_empty() {
        let examples = caps.iter().flat_map(|l| l.error_examples.iter().cloned());
        let m = super::phase_of_every_part(asked, FIELD_CAPS_PHASE)?;
        match m.and_then(|m| Some((field_caps_of(&m, examples.take(5).collect())?, m))) {
            Some((latency, m)) => {
                result["field_caps"] = serde_json::to_value(latency).map_err(|e| e.to_string())?;
                histograms.extend(kept(&m, FIELD_CAPS_HISTOGRAM));
            }
            None => {
                notes.push("a part kept no field-caps record: the latency is each part's".into())
            }
        }
    }
    // The group's wall: from the first part's start to the last part's end.
    let spans: Vec<(u64, f64)> = parts
        .iter()
        .filter_map(|p| Some((p.said.started_unix_ms?, p.said.wall_secs)))
        .collect();
    if let Some(start) = spans.iter().map(|(s, _)| *s).min() {
        let end = spans
            .iter()
            .map(|(s, w)| (*s - start) as f64 / 1000.0 + w)
            .fold(0.0, f64::max);
        result["wall_secs"] = end.into();
        result["started_unix_ms"] = start.into();
    }
    result["interrupted"] = parts.iter().any(|p| p.said.interrupted).into();
    result["warnings"] = json!(super::first_seen(
        parts.iter().flat_map(|p| &p.said.warnings)
    ));
    if let Some(map) = result.as_object_mut() {
        map.remove("profile");
    }
    // The group judged as one run of the scenario is (its counts, creation, snapshots).
    failed = failed.or_else(|| match crate::store::outcome_of(&result) {
        (crate::store::State::Failed, why) => why,
        _ => None,
    });
    let said = parts.iter().map(|q| (q.part, &q.said));
    let each = super::each_of(chosen, said, |said| {
        let indexing = said.and_then(|s| s.indexing.as_ref());
        json!({
            "indices_created": said.and_then(|s| Some(s.creation.as_ref()?.indices_created)),
            "indexed": indexing.map(|i| i.counts.indexed),
            "driver_cpu_secs": indexing.map(|i| i.cpu.driver_secs),
        })
    });
    Ok(KindMerge {
        result,
        histograms,
        timeline,
        failed,
        parts: Parts {
            each,
            notes,
            ..Parts::default()
        },
    })
}

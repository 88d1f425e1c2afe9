//! A scenario's parts (many-shards, snapshots) merged: each part made its share of one set of
//! indices and loaded its share of the logs. The creation phase is derived again, as one
//! process derives it, from every part's per-index times lined up on the wall clock and their
//! index-creation histograms added; the logs load is merged as any load's parts are; the
//! field-caps latency from the parts' histograms added; the counts, the snapshots and the
//! cleanup are part 1's (every part counted all the indices once all were made; part 1 alone
//! took the snapshots and cleaned up).

use hdrhistogram::Histogram;
use serde_json::{json, Value};

use super::{ingest, KindMerge, PartRun};
use crate::measure::SerializedHistogram;
use crate::store::Parts;
use crate::workload::scenario_result::{
    derive, latency_of, Creation, CreationSetup, Latency, StateSample, StoredScenario, Tally,
    CREATE_HISTOGRAM, CREATION_PHASE, FIELD_CAPS_HISTOGRAM, FIELD_CAPS_PHASE,
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

/// The histogram `name` of the phase `phase` of every part in `parts`, added (`None` when a
/// part lacks it).
fn added(parts: &[&PartRun], phase: &str, name: &str) -> Result<Option<Histogram<u64>>, String> {
    let every = super::phase_of_every_part(parts.iter().copied(), phase)?;
    Ok(every.and_then(|mut m| Some(m.histograms.remove(name)?.1)))
}

/// The group's creation phase from its parts': `None` when a part kept no per-index times.
fn merged_creation(
    parts: &[ScenarioPart<'_>],
) -> Result<(Option<Creation>, Vec<SerializedHistogram>), String> {
    let mut creations = Vec::new();
    for p in parts {
        match &p.said.creation {
            Some(c) if c.started_unix_ms.is_some() && c.done.is_some() => {
                creations.push((p.part, c))
            }
            _ => return Ok((None, Vec::new())),
        }
    }
    let Some(start_ms) = creations
        .iter()
        .filter_map(|(_, c)| c.started_unix_ms)
        .min()
    else {
        return Ok((None, Vec::new()));
    };
    let offset = |c: &Creation| (c.started_unix_ms.unwrap_or(start_ms) - start_ms) as f64 / 1000.0;
    let mut done: Vec<(f64, u64)> = creations
        .iter()
        .flat_map(|(_, c)| {
            let at = offset(c);
            c.done.iter().flatten().map(move |(t, d)| (t + at, *d))
        })
        .collect();
    done.sort_by(|a, b| a.0.total_cmp(&b.0));
    let secs = creations
        .iter()
        .map(|(_, c)| offset(c) + c.secs)
        .fold(0.0, f64::max);
    // The cluster state as every part sampled it, on the group's clock, with the group's
    // indices done by then.
    let mut cluster_state: Vec<StateSample> = creations
        .iter()
        .flat_map(|(_, c)| {
            let at = offset(c);
            c.cluster_state.iter().map(move |s| StateSample {
                secs: s.secs + at,
                indices: 0,
                bytes: s.bytes,
            })
        })
        .collect();
    cluster_state.sort_by(|a, b| a.secs.total_cmp(&b.secs));
    for s in &mut cluster_state {
        s.indices = done.iter().take_while(|(t, _)| *t <= s.secs).count() as u64;
    }
    let chosen: Vec<&PartRun> = creations.iter().map(|(p, _)| *p).collect();
    let Some(create_us) = added(&chosen, CREATION_PHASE, CREATE_HISTOGRAM)? else {
        return Ok((None, Vec::new()));
    };
    let first = creations[0].1;
    let setup = CreationSetup {
        indices_requested: first.indices_requested,
        docs_per_index: first.docs_per_index,
        clients: creations.iter().map(|(_, c)| c.clients).sum(),
        bulk_docs: first.bulk_docs,
    };
    let tally = Tally {
        done,
        create_us: create_us.clone(),
        errors: creations.iter().map(|(_, c)| c.errors).sum(),
        examples: creations
            .iter()
            .flat_map(|(_, c)| c.error_examples.iter().cloned())
            .take(5)
            .collect(),
    };
    let mut merged = derive(&setup, tally, secs, cluster_state);
    merged.started_unix_ms = Some(start_ms);
    let kept = SerializedHistogram::encode(CREATE_HISTOGRAM, "us", &create_us)
        .into_iter()
        .collect();
    Ok((Some(merged), kept))
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
    let (creation, kept) = merged_creation(&parts)?;
    histograms.extend(kept);
    match creation {
        Some(c) => result["creation"] = serde_json::to_value(c).map_err(|e| e.to_string())?,
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
    let caps: Vec<(&PartRun, &Latency)> = parts
        .iter()
        .filter_map(|p| Some((p.part, p.said.field_caps.as_ref()?)))
        .collect();
    if !caps.is_empty() {
        let chosen: Vec<&PartRun> = caps.iter().map(|(p, _)| *p).collect();
        match added(&chosen, FIELD_CAPS_PHASE, FIELD_CAPS_HISTOGRAM)? {
            Some(h) => {
                let latency = latency_of(
                    &h,
                    caps.iter().map(|(_, l)| l.clients).sum(),
                    caps.iter().map(|(_, l)| l.requests).sum(),
                    caps.iter().map(|(_, l)| l.errors).sum(),
                    caps.iter()
                        .flat_map(|(_, l)| l.error_examples.iter().cloned())
                        .take(5)
                        .collect(),
                );
                result["field_caps"] = serde_json::to_value(latency).map_err(|e| e.to_string())?;
                histograms.extend(SerializedHistogram::encode(FIELD_CAPS_HISTOGRAM, "us", &h));
            }
            None => {
                notes.push("a part kept no field-caps histogram: the latency is each part's".into())
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

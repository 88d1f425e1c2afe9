//! A scenario's parts (many-shards, snapshots) merged: each part made its share of one set of
//! indices and loaded its share of the logs. The creation phase is derived again, as one
//! process derives it, from every part's per-index times lined up on the wall clock and their
//! index-creation histograms added; the logs load is merged as any load's parts are; the
//! field-caps latency from the parts' histograms added; the counts, the snapshots and the
//! cleanup are part 1's (every part counted all the indices once all were made; part 1 alone
//! took the snapshots and cleaned up).

use hdrhistogram::Histogram;
use serde_json::{json, Value};

use super::{config, ingest, KindMerge, PartRun};
use crate::measure::SerializedHistogram;
use crate::query::cells::HdrSummary;
use crate::store::{EachPart, Parts};
use crate::workload::scenario_result::{
    derive, latency_of, Creation, CreationSetup, StateSample, Tally, CREATE_HISTOGRAM,
    CREATION_PHASE, FIELD_CAPS_HISTOGRAM, FIELD_CAPS_PHASE,
};

/// Whether a run's result is a scenario's.
pub(super) fn is_scenario(p: &PartRun) -> bool {
    p.row
        .result
        .as_ref()
        .is_some_and(|r| r.get("scenario").is_some())
}

/// The histogram `name` of every part in `parts`, added (`None` when a part lacks it): from
/// the phase `phase` every part kept, else from each part's stored histograms.
fn added(parts: &[&PartRun], phase: &str, name: &str) -> Result<Option<Histogram<u64>>, String> {
    if let Some(m) = super::phase_of_every_part(parts.iter().copied(), phase)? {
        if let Some((_, h)) = m.histograms.get(name) {
            return Ok(Some(h.clone()));
        }
    }
    let mut sum: Option<Histogram<u64>> = None;
    for p in parts {
        let Some(h) = p.histograms.iter().find(|h| h.name == name) else {
            return Ok(None);
        };
        let h = h.decode()?;
        match &mut sum {
            Some(s) => s.add(&h).map_err(|e| format!("histogram {name}: {e:?}"))?,
            None => sum = Some(h),
        }
    }
    Ok(sum)
}

fn f64_of(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

/// The group's creation phase from its parts': `None` when a part kept no per-index times.
fn merged_creation(
    parts: &[(&PartRun, &Value)],
) -> Result<(Option<Creation>, Vec<SerializedHistogram>), String> {
    let mut creations = Vec::new();
    for (p, r) in parts {
        let c: Creation = serde_json::from_value(r["creation"].clone())
            .map_err(|e| format!("part {}: its creation: {e}", p.part))?;
        match (c.started_unix_ms, &c.done) {
            (Some(_), Some(_)) => creations.push((*p, c)),
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
    let first = &creations[0].1;
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

/// The searches beside the parts' loads: counts summed, rates summed (the parts searched
/// together), the latency from the added histogram.
fn merged_beside(parts: &[(&PartRun, &Value)], latency: Option<&Histogram<u64>>) -> Value {
    let beside: Vec<&Value> = parts
        .iter()
        .filter_map(|(_, r)| r["indexing"].get("searches_beside"))
        .collect();
    if beside.is_empty() {
        return Value::Null;
    }
    let sum = |k: &str| -> u64 { beside.iter().filter_map(|b| b[k].as_u64()).sum() };
    json!({
        "clients": sum("clients"),
        "requests": sum("requests"),
        "errors": sum("errors"),
        "error_kinds": beside.iter().flat_map(|b| b["error_kinds"].as_array().cloned().unwrap_or_default()).collect::<Vec<_>>(),
        "secs": beside.iter().map(|b| f64_of(b, "secs")).fold(0.0, f64::max),
        "searches_per_sec": beside.iter().map(|b| f64_of(b, "searches_per_sec")).sum::<f64>(),
        "latency": latency.map(HdrSummary::of).unwrap_or_default(),
        "variants": [],
    })
}

pub(super) fn merge(
    of: u32,
    chosen: &[&PartRun],
    counted_now: Option<u64>,
) -> Result<KindMerge, String> {
    let parts: Vec<(&PartRun, &Value)> = chosen
        .iter()
        .filter_map(|p| Some((*p, p.row.result.as_ref()?)))
        .collect();
    let Some((_, head)) = parts.first().copied() else {
        return Err("no part kept a result".into());
    };
    let first = parts
        .iter()
        .find(|(p, _)| p.part.index == 1)
        .map(|(_, r)| *r);
    let mut result = head.clone();
    let mut histograms = Vec::new();
    let mut notes = vec!["the searches beside per variant and the profile are each part's"];
    let (creation, kept) = merged_creation(&parts)?;
    histograms.extend(kept);
    match creation {
        Some(c) => result["creation"] = serde_json::to_value(c).map_err(|e| e.to_string())?,
        None => {
            result["creation"] = Value::Null;
            notes.push("a part kept no per-index times: the creation is each part's");
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
        .filter(|(_, r)| r.get("indexing").is_some_and(Value::is_object))
        .map(|(p, r)| {
            let mut load = (*p).clone();
            load.row.result = Some(r["indexing"].clone());
            load.histograms
                .retain(|h| h.name != CREATE_HISTOGRAM && h.name != FIELD_CAPS_HISTOGRAM);
            load
        })
        .collect();
    if !loads.is_empty() {
        let refs: Vec<&PartRun> = loads.iter().collect();
        let load = ingest::merge(of, &refs, counted_now)?;
        let mut indexing = load.result;
        let beside_latency = load
            .histograms
            .iter()
            .find(|h| h.name == "beside_latency")
            .and_then(|h| h.decode().ok());
        indexing["searches_beside"] = merged_beside(&parts, beside_latency.as_ref());
        result["indexing"] = indexing;
        timeline = load.timeline;
        histograms.extend(load.histograms);
        failed = load.failed.map(|f| format!("logs load: {f}"));
    }
    let caps: Vec<&PartRun> = parts
        .iter()
        .filter(|(_, r)| r.get("field_caps").is_some_and(Value::is_object))
        .map(|(p, _)| *p)
        .collect();
    if !caps.is_empty() {
        let of_caps = |k: &str| -> u64 {
            parts
                .iter()
                .filter_map(|(_, r)| r["field_caps"][k].as_u64())
                .sum()
        };
        let examples: Vec<String> = parts
            .iter()
            .flat_map(|(_, r)| {
                r["field_caps"]["error_examples"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|e| e.as_str().map(str::to_string))
            .take(5)
            .collect();
        match added(&caps, FIELD_CAPS_PHASE, FIELD_CAPS_HISTOGRAM)? {
            Some(h) => {
                let latency = latency_of(
                    &h,
                    of_caps("clients") as usize,
                    of_caps("requests"),
                    of_caps("errors"),
                    examples,
                );
                result["field_caps"] = serde_json::to_value(latency).map_err(|e| e.to_string())?;
                histograms.extend(SerializedHistogram::encode(FIELD_CAPS_HISTOGRAM, "us", &h));
            }
            None => notes.push("a part kept no field-caps histogram: the latency is each part's"),
        }
    }
    // The group's wall: from the first part's start to the last part's end.
    let spans: Vec<(u64, f64)> = parts
        .iter()
        .filter_map(|(_, r)| Some((r["started_unix_ms"].as_u64()?, f64_of(r, "wall_secs"))))
        .collect();
    if let Some(start) = spans.iter().map(|(s, _)| *s).min() {
        let end = spans
            .iter()
            .map(|(s, w)| (*s - start) as f64 / 1000.0 + w)
            .fold(0.0, f64::max);
        result["wall_secs"] = end.into();
        result["started_unix_ms"] = start.into();
    }
    result["interrupted"] = parts
        .iter()
        .any(|(_, r)| r["interrupted"] == Value::Bool(true))
        .into();
    let mut warnings: Vec<Value> = Vec::new();
    for (_, r) in &parts {
        for w in r["warnings"].as_array().into_iter().flatten() {
            if !warnings.contains(w) {
                warnings.push(w.clone());
            }
        }
    }
    result["warnings"] = warnings.into();
    if let Some(map) = result.as_object_mut() {
        map.remove("profile");
    }
    // The group judged as one run of the scenario is (its counts, creation, snapshots).
    failed = failed.or_else(|| match crate::store::outcome_of(&result) {
        (crate::store::State::Failed, why) => why,
        _ => None,
    });
    let each: Vec<EachPart> = chosen
        .iter()
        .map(|p| {
            let r = p.row.result.as_ref();
            let figures = json!({
                "indices_created": r.map(|r| r["creation"]["indices_created"].clone()),
                "indexed": r.map(|r| r["indexing"]["counts"]["indexed"].clone()),
                "driver_cpu_secs": r.map(|r| r["indexing"]["cpu"]["driver_secs"].clone()),
                "cores": p.row.machine.get("cores"),
            });
            super::each(p, figures)
        })
        .collect();
    Ok(KindMerge {
        result,
        config: config(chosen, of, |p| Some(&p.row.config)),
        histograms,
        timeline,
        failed,
        parts: Parts {
            each,
            notes: notes.into_iter().map(str::to_string).collect(),
            ..Parts::default()
        },
    })
}

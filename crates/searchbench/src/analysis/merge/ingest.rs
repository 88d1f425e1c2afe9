//! The ingest result of a group, derived from its parts' stored ingest results: counts summed
//! and reconciled against the index's one `_count`, histograms added, timelines lined up by
//! wall-clock second and summed, and every rate and percentile derived after, as one process
//! derives its own. Each part's own figures stay beside (`parts.each`).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::{config, whole_corpus, KindMerge, PartRun};
use crate::measure::recorder::summarize;
use crate::measure::{Measurements, SerializedHistogram};
use crate::store::LOAD;

/// A part's load on the wall clock, in Unix milliseconds.
struct Span {
    start_ms: u64,
    end_ms: u64,
    /// When its steady window began (after its warm-up, when one applied).
    steady_ms: u64,
}

fn u64_at(v: &Value, path: &[&str]) -> Option<u64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_u64()
}

fn f64_at(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_f64()
}

fn span(p: &PartRun) -> Span {
    let result = p.row.result.as_ref();
    let start_ms = result
        .and_then(|r| u64_at(r, &["load_started_unix_ms"]))
        .or_else(|| {
            result
                .and_then(|r| u64_at(r, &["started_unix"]))
                .map(|s| s * 1000)
        })
        .unwrap_or(p.row.started_unix * 1000);
    // A part without a result (killed): as long as its streamed timeline.
    let wall_ms = match result.and_then(|r| f64_at(r, &["wall_secs"])) {
        Some(w) => (w * 1000.0) as u64,
        None => p.timeline.len() as u64 * 1000,
    };
    let warm_ms = result
        .filter(|r| r.pointer("/headline/warmup_applied") == Some(&Value::Bool(true)))
        .and_then(|r| f64_at(r, &["headline", "warmup_secs"]))
        .map_or(0, |w| (w * 1000.0) as u64);
    Span {
        start_ms,
        end_ms: start_ms + wall_ms,
        steady_ms: start_ms + warm_ms.min(wall_ms),
    }
}

/// One second of the merged timeline, as sums.
#[derive(Default)]
struct Second {
    requests: u64,
    failed_attempts: u64,
    docs: u64,
    bytes: u64,
    service_sum_ms: f64,
    service_max_ms: f64,
    warmup: bool,
}

/// The parts' timelines on the wall clock: a part's second `s` covers
/// `[start + s, start + s + 1)`, and goes to the wall-clock second holding its middle.
fn timeline(parts: &[(&PartRun, Span)], from_s: u64) -> Vec<Value> {
    let mut by_second: BTreeMap<u64, Second> = BTreeMap::new();
    for (p, span) in parts {
        for row in &p.timeline {
            let Some(s) = u64_at(row, &["second"]) else {
                continue;
            };
            let wall_s = (span.start_ms + s * 1000 + 500) / 1000;
            let at = by_second.entry(wall_s).or_default();
            let requests = u64_at(row, &["requests"]).unwrap_or(0);
            at.requests += requests;
            at.failed_attempts += u64_at(row, &["failed_attempts"]).unwrap_or(0);
            at.docs += u64_at(row, &["docs"]).unwrap_or(0);
            at.bytes += u64_at(row, &["bytes"]).unwrap_or(0);
            at.service_sum_ms += f64_at(row, &["service_mean_ms"]).unwrap_or(0.0) * requests as f64;
            at.service_max_ms = at
                .service_max_ms
                .max(f64_at(row, &["service_max_ms"]).unwrap_or(0.0));
            at.warmup |= row.get("warmup") == Some(&Value::Bool(true));
        }
    }
    let Some(&last) = by_second.keys().next_back() else {
        return Vec::new();
    };
    (from_s.min(last)..=last)
        .map(|wall_s| {
            let s = by_second.remove(&wall_s).unwrap_or_default();
            let mut row = json!({
                "second": wall_s - from_s.min(last),
                "requests": s.requests,
                "failed_attempts": s.failed_attempts,
                "docs": s.docs,
                "bytes": s.bytes,
                "service_mean_ms": if s.requests > 0 { s.service_sum_ms / s.requests as f64 } else { 0.0 },
                "service_max_ms": s.service_max_ms,
            });
            if s.warmup {
                row["warmup"] = Value::Bool(true);
            }
            row
        })
        .collect()
}

/// The counts a load keeps, which add up over its parts.
const SUMMED: [&str; 9] = [
    "read",
    "indexed",
    "failed",
    "refused",
    "unacknowledged",
    "not_sent",
    "bad_lines",
    "retried_items",
    "throttled",
];

/// The counts of the parts, summed: from the load phase's measurements every part kept
/// (`load`, added), else from each part's result, and for a part without a result (killed)
/// `indexed` is what its streamed timeline says was acknowledged. With whether every
/// part's documents read are its indexed plus failed.
fn counts(parts: &[(&PartRun, Span)], load: Option<&Measurements>) -> (Map<String, Value>, bool) {
    let read = |c: &BTreeMap<String, u64>, k: &str| c.get(k).copied().unwrap_or(0);
    if let Some(m) = load {
        let balances = |p: &PartRun| {
            p.phase(LOAD).is_some_and(|c| {
                read(&c.counts, "read") == read(&c.counts, "indexed") + read(&c.counts, "failed")
            })
        };
        return (
            SUMMED
                .iter()
                .map(|k| (k.to_string(), read(&m.counts, k).into()))
                .collect(),
            parts.iter().all(|(p, _)| balances(p)),
        );
    }
    let mut sums: BTreeMap<&str, u64> = SUMMED.iter().map(|k| (*k, 0)).collect();
    let mut every_part_balances = true;
    for (p, _) in parts {
        match p.row.result.as_ref().and_then(|r| r.get("counts")) {
            Some(c) => {
                for k in SUMMED {
                    *sums.entry(k).or_default() += u64_at(c, &[k]).unwrap_or(0);
                }
                let (read, indexed, failed) = (
                    u64_at(c, &["read"]).unwrap_or(0),
                    u64_at(c, &["indexed"]).unwrap_or(0),
                    u64_at(c, &["failed"]).unwrap_or(0),
                );
                every_part_balances &= read == indexed + failed;
            }
            None => {
                every_part_balances = false;
                *sums.entry("indexed").or_default() += p
                    .timeline
                    .iter()
                    .filter_map(|r| u64_at(r, &["docs"]))
                    .sum::<u64>();
            }
        }
    }
    (
        sums.into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect(),
        every_part_balances,
    )
}

/// The index's `_count` that every part's documents are in: `counted_now` when the caller
/// counted it after the parts, else the count taken by the part whose load ended last (after
/// its refresh, so after every part's last acknowledgement), when every part has a result.
fn index_count(
    parts: &[(&PartRun, Span)],
    of: u32,
    counted_now: Option<u64>,
) -> Result<(u64, &'static str), String> {
    if let Some(n) = counted_now {
        return Ok((n, "counted at the merge"));
    }
    if parts.len() < of as usize || parts.iter().any(|(p, _)| p.row.result.is_none()) {
        return Err(
            "not every part has a result, so no part's count came after all the \
                    loads; count the index at the merge (`results merge GROUP --url URL`)"
                .into(),
        );
    }
    let (last, _) = parts
        .iter()
        .max_by_key(|(_, s)| s.end_ms)
        .ok_or("no parts")?;
    last.row
        .result
        .as_ref()
        .and_then(|r| u64_at(r, &["counts", "index_count"]))
        .map(|n| (n, "counted by the part whose load ended last"))
        .ok_or_else(|| {
            "the part whose load ended last could not count the index; count it at the \
             merge (`results merge GROUP --url URL`)"
                .into()
        })
}

/// The documents in the index before the group: the least any part saw when it arrived
/// (none when a part made the index).
fn index_count_before(parts: &[(&PartRun, Span)]) -> Option<u64> {
    parts
        .iter()
        .filter_map(|(p, _)| p.row.result.as_ref())
        .map(|r| match r.get("previous_index").and_then(Value::as_str) {
            Some("appended") => u64_at(r, &["counts", "index_count_before"]).unwrap_or(0),
            _ => 0,
        })
        .min()
}

/// Merges the chosen parts (one per part index, sorted) of a group of `of` parts.
pub fn merge(
    group: &str,
    of: u32,
    chosen: &[&PartRun],
    counted_now: Option<u64>,
) -> Result<KindMerge, String> {
    let parts: Vec<(&PartRun, Span)> = chosen.iter().map(|p| (*p, span(p))).collect();
    let start_ms = parts.iter().map(|(_, s)| s.start_ms).min().unwrap_or(0);
    let end_ms = parts
        .iter()
        .map(|(_, s)| s.end_ms)
        .max()
        .unwrap_or(start_ms);
    let steady_ms = parts
        .iter()
        .map(|(_, s)| s.steady_ms)
        .min()
        .unwrap_or(start_ms);
    let wall = ((end_ms - start_ms) as f64 / 1000.0).max(1e-9);
    let window = ((end_ms.saturating_sub(steady_ms)) as f64 / 1000.0).max(1e-9);

    // What adds up, from the load phase every part kept, added; else (a part killed before
    // its load ended, or stored before phases were kept) from what each part stored.
    let load = super::phase_of_every_part(parts.iter().map(|(p, _)| *p), LOAD)?;
    // Histograms: added by name; a part with requests but no histograms (a JSON import, a
    // killed part) leaves the percentiles out rather than give those of the others only.
    let mut added = Measurements::default();
    let mut without_histograms = Vec::new();
    if let Some(m) = &load {
        added.histograms = m.histograms.clone();
    }
    let from_load: Vec<String> = added.histograms.keys().cloned().collect();
    for (p, _) in &parts {
        if p.histograms.is_empty() && load.is_none() {
            without_histograms.push(p.part.to_string());
        }
        // A run's query phase's histograms are merged with its query phase; what the load
        // phase gave is added already; the rest (searches beside the load) is added here.
        for h in p
            .histograms
            .iter()
            .filter(|h| !h.name.starts_with("query:") && !from_load.contains(&h.name))
        {
            added
                .histogram(h)
                .map_err(|e| format!("part {}: {e}", p.part))?;
        }
    }
    let summary = |name: &str, per_ms: f64| -> Value {
        match added.histograms.get(name) {
            Some((_, h)) if without_histograms.is_empty() => {
                serde_json::to_value(summarize(h, per_ms)).unwrap_or(Value::Null)
            }
            _ => Value::Null,
        }
    };
    let histograms: Vec<SerializedHistogram> = added
        .histograms
        .iter()
        .filter(|_| without_histograms.is_empty())
        .filter_map(|(name, (unit, h))| SerializedHistogram::encode(name, unit, h))
        .collect();

    let (mut counts, balanced) = counts(&parts, load.as_ref());
    let indexed = counts.get("indexed").and_then(Value::as_u64).unwrap_or(0);
    let before = index_count_before(&parts);
    let (reconciled, unreconciled, counted) = match index_count(&parts, of, counted_now) {
        Ok((n, how)) => {
            let added = n.saturating_sub(before.unwrap_or(0));
            let whole = parts.len() == of as usize;
            let ok = balanced && whole && added == indexed;
            let why = (!ok).then(|| match () {
                () if !whole => format!("{} of {of} parts are here", parts.len()),
                () if !balanced => {
                    "a part's documents read are not its indexed plus failed".to_string()
                }
                () => format!(
                    "the index gained {added} documents ({how}), the parts acknowledged \
                     {indexed}"
                ),
            });
            (ok, why, Some((n, how)))
        }
        Err(why) => (false, Some(why), None),
    };
    counts.insert(
        "index_count".into(),
        counted.map_or(Value::Null, |(n, _)| n.into()),
    );
    if let Some(b) = before.filter(|b| *b > 0) {
        counts.insert("index_count_before".into(), b.into());
    }
    counts.insert("reconciled".into(), reconciled.into());
    counts.insert("unreconciled".into(), unreconciled.clone().into());

    // The headline: documents acknowledged in each part's steady window, summed, over the
    // group's steady window (the first part's steady start to the last part's end).
    let steady_docs: u64 = parts
        .iter()
        .map(|(p, _)| match p.row.result.as_ref() {
            Some(r) => u64_at(r, &["headline", "docs"]).unwrap_or(0),
            None => p
                .timeline
                .iter()
                .filter(|row| row.get("warmup") != Some(&Value::Bool(true)))
                .filter_map(|row| u64_at(row, &["docs"]))
                .sum(),
        })
        .sum();
    let docs_per_sec = steady_docs as f64 / window;
    let warmup_applied = steady_ms > start_ms;
    let headline = json!({
        "docs_per_sec": docs_per_sec,
        "docs": steady_docs,
        "window_secs": window,
        "warmup_secs": (steady_ms - start_ms) as f64 / 1000.0,
        "warmup_applied": warmup_applied,
        "definition": format!(
            "documents acknowledged in each part's steady window, summed over {} of {of} \
             parts ÷ the group's {window:.1} s steady window (the first part's steady start \
             to the last part's end)",
            parts.len()
        ),
    });

    let sum_f = |path: &[&str]| -> f64 {
        parts
            .iter()
            .filter_map(|(p, _)| f64_at(p.row.result.as_ref()?, path))
            .sum()
    };
    let sum_u = |path: &[&str]| -> u64 {
        parts
            .iter()
            .filter_map(|(p, _)| u64_at(p.row.result.as_ref()?, path))
            .sum()
    };
    // Bytes per second: each part's rate × its wall is its bytes.
    let bytes = |key: &str| -> f64 {
        parts
            .iter()
            .filter_map(|(p, _)| {
                let r = p.row.result.as_ref()?;
                Some(f64_at(r, &[key])? * f64_at(r, &["wall_secs"])?)
            })
            .sum::<f64>()
            / wall
    };
    let driver_secs = sum_f(&["cpu", "driver_secs"]);
    let cores: u64 = parts
        .iter()
        .filter_map(|(p, _)| u64_at(&p.row.machine, &["cores"]))
        .sum();
    let engine_secs = parts
        .iter()
        .filter_map(|(p, _)| f64_at(p.row.result.as_ref()?, &["cpu", "engine_secs"]))
        .reduce(f64::max);

    let each: Vec<Value> = parts
        .iter()
        .map(|(p, s)| {
            let r = p.row.result.as_ref();
            let get = |path: &[&str]| {
                r.and_then(|r| path.iter().try_fold(r, |v, k| v.get(k)))
                    .cloned()
            };
            json!({
                "part": p.part.to_string(),
                "run": p.row.id.0,
                "state": p.row.state.name(),
                "started_unix_ms": s.start_ms,
                "wall_secs": (s.end_ms - s.start_ms) as f64 / 1000.0,
                "docs_per_sec": get(&["docs_per_sec"]),
                "indexed": get(&["counts", "indexed"]).unwrap_or_else(|| {
                    p.timeline.iter().filter_map(|row| u64_at(row, &["docs"])).sum::<u64>().into()
                }),
                "read": get(&["counts", "read"]),
                "failed": get(&["counts", "failed"]),
                "clients": get(&["config", "clients"]),
                "driver_cpu_secs": get(&["cpu", "driver_secs"]),
                "driver_secs_per_million_docs": get(&["cpu", "driver_secs_per_million_docs"]),
                "cores": u64_at(&p.row.machine, &["cores"]),
                "cpu_model": p.row.machine.get("cpu_model"),
                "failures_file": get(&["failures_file"]),
                "error": p.row.error,
            })
        })
        .collect();

    let mut warnings: Vec<Value> = Vec::new();
    for (p, _) in &parts {
        for w in p
            .row
            .result
            .as_ref()
            .and_then(|r| r.get("warnings"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            warnings.push(format!("part {}: {w}", p.part).into());
        }
    }
    if !without_histograms.is_empty() {
        warnings.push(
            format!(
                "part(s) {} stored no histograms (a killed part, or one imported from its JSON \
                 rather than its store): the group's percentiles are left out",
                without_histograms.join(", ")
            )
            .into(),
        );
    }
    if parts.iter().any(|(p, _)| {
        p.row
            .result
            .as_ref()
            .is_some_and(|r| r.get("rate").is_some())
    }) {
        warnings.push(
            "the open-loop schedule's figures (offered, achieved, lag) are per part: see each \
             part's run"
                .into(),
        );
    }

    let first = parts
        .first()
        .and_then(|(p, _)| p.row.result.clone())
        .or_else(|| parts.iter().find_map(|(p, _)| p.row.result.clone()))
        .unwrap_or_else(|| json!({}));
    let mut result = match first {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    // Figures of one process that do not add up across processes: kept in each part's run.
    for key in [
        "attribution",
        "server_stats",
        "rate",
        "telemetry",
        "profile",
        "searches_beside",
        "existing_index",
        "previous_failures_file",
        "buffers",
        "failure_limit",
    ] {
        result.remove(key);
    }
    let error = parts.iter().find_map(|(p, _)| {
        let e = p.row.result.as_ref()?.get("error")?.as_str()?;
        Some(format!("part {}: {e}", p.part))
    });
    let interrupted = parts.iter().any(|(p, _)| {
        p.row
            .result
            .as_ref()
            .and_then(|r| r.get("interrupted"))
            .and_then(Value::as_bool)
            == Some(true)
    });
    let created = parts.iter().any(|(p, _)| {
        p.row
            .result
            .as_ref()
            .and_then(|r| r.get("previous_index"))
            .and_then(Value::as_str)
            .is_some_and(|v| v != "appended")
    });
    let driver_config = config(chosen, of, |p| p.row.result.as_ref()?.get("config"));
    let merged = json!({
        "started_unix": start_ms / 1000,
        "load_started_unix_ms": start_ms,
        "previous_index": if created { "nothing" } else { "appended" },
        "config": driver_config,
        "wall_secs": wall,
        "counts": counts,
        "docs_per_sec": docs_per_sec,
        "headline": headline,
        "mb_per_sec": bytes("mb_per_sec"),
        "wire_mb_per_sec": bytes("wire_mb_per_sec"),
        "requests": {
            "attempts": sum_u(&["requests", "attempts"]),
            "failed_attempts": sum_u(&["requests", "failed_attempts"]),
            "retries": sum_u(&["requests", "retries"]),
        },
        "service": summary("service", 1000.0),
        "took": summary("took", 1.0),
        "cpu": {
            "driver_secs": driver_secs,
            "driver_secs_per_million_docs": (indexed > 0).then(|| driver_secs * 1e6 / indexed as f64),
            // Of the parts' machines together (parts on one machine count its cores again).
            "driver_machine_share": if cores > 0 { driver_secs / (wall * cores as f64) } else { 0.0 },
            "engine_secs": engine_secs,
            "engine_machine_share": Value::Null,
        },
        "failures_file": Value::Null,
        "interrupted": interrupted,
        "error": error,
        "warnings": warnings,
        "timeline": Value::Null,
    });
    if let Value::Object(m) = merged {
        result.extend(m);
    }
    if let Some(Value::String(corpus)) = result.get_mut("corpus") {
        *corpus = whole_corpus(corpus);
    }
    if let Some(step) = parts
        .iter()
        .find_map(|(p, _)| u64_at(p.row.result.as_ref()?, &["took_clock_ms"]))
    {
        result.insert("took_clock_ms".into(), step.into());
    } else {
        result.remove("took_clock_ms");
    }
    let timeline = timeline(&parts, start_ms / 1000);
    result.insert("timeline".into(), Value::Array(timeline.clone()));
    result.insert(
        "parts".into(),
        json!({ "group": group, "of": of, "each": each, "index_count": counted.map(|(_, how)| how) }),
    );
    Ok(KindMerge {
        result: Value::Object(result),
        config: config(chosen, of, |p| Some(&p.row.config)),
        histograms,
        timeline,
        failed: (!reconciled).then(|| {
            format!(
                "counts do not reconcile: {}",
                unreconciled.as_deref().unwrap_or("?")
            )
        }),
    })
}

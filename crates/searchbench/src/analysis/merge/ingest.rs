//! The ingest result of a group, derived from its parts' load phases: their measurements
//! added (counts, histograms, seconds on the wall clock, bounds) and every figure derived by
//! the one derivation a load alone uses (`ingest::figures`), then the counts reconciled
//! against the index's one `_count`. Each part's own figures stay beside (`parts.each`).

use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{config, whole_corpus, KindMerge, PartRun};
use crate::ingest::figures::{self, LoadFigures};
use crate::ingest::pace;
use crate::ingest::stored::StoredLoad;
use crate::measure::machine::Machine;
use crate::measure::{Measurements, SerializedHistogram};
use crate::query::beside::{self, SearchesBeside};
use crate::store::{Parts, LOAD};

/// A part's load: its measurements, what its report said, and its own figures.
struct Load<'p> {
    part: &'p PartRun,
    measured: Measurements,
    said: StoredLoad,
    figures: LoadFigures,
}

/// A part's load: the load phase it measured (see `super::written`), and its result read as a
/// load's (none for a part killed before it wrote one; one that does not read is refused,
/// naming the part, rather than read as nothing).
fn load_of(p: &PartRun) -> Result<Load<'_>, String> {
    let said = match &p.row.result {
        Some(r) => StoredLoad::deserialize(r)
            .map_err(|e| format!("part {} ({}): not a load's result: {e}", p.part, p.row.id))?,
        None => StoredLoad::default(),
    };
    let measured = p
        .phase(LOAD)
        .cloned()
        .ok_or_else(|| format!("part {}: it measured no load", p.part))?;
    let figures = LoadFigures::of(&measured)
        .ok_or_else(|| format!("part {}: its load has no start", p.part))?;
    Ok(Load {
        part: p,
        measured,
        said,
        figures,
    })
}

/// The index's `_count` that every part's documents are in: `counted_now` when the caller
/// counted it after the parts, else the count taken by the part whose load ended last (after
/// its refresh, so after every part's last acknowledgement), when every part has a result.
fn index_count(
    loads: &[Load<'_>],
    of: u32,
    counted_now: Option<u64>,
) -> Result<(u64, &'static str), String> {
    if let Some(n) = counted_now {
        return Ok((n, "counted at the merge"));
    }
    if loads.len() < of as usize || loads.iter().any(|l| l.part.row.result.is_none()) {
        return Err(
            "not every part has a result, so no part's count came after all the \
                    loads; count the index at the merge (`results merge GROUP --url URL`)"
                .into(),
        );
    }
    let last = loads
        .iter()
        .max_by(|a, b| a.ended().total_cmp(&b.ended()))
        .ok_or("no parts")?;
    last.said
        .counts
        .index_count
        .map(|n| (n, "counted by the part whose load ended last"))
        .ok_or_else(|| {
            "the part whose load ended last could not count the index; count it at the \
             merge (`results merge GROUP --url URL`)"
                .into()
        })
}

impl Load<'_> {
    /// When its load ended, in Unix seconds.
    fn ended(&self) -> f64 {
        self.began_ms() as f64 / 1000.0 + self.figures.wall_secs
    }

    fn began_ms(&self) -> u64 {
        figures::began_unix_us(&self.measured).unwrap_or(0) / 1000
    }

    /// The part's own figures, beside the group's.
    fn own(&self) -> Value {
        let (p, f) = (self.part, &self.figures);
        json!({
            "started_unix_ms": self.began_ms(),
            "wall_secs": f.wall_secs,
            "docs_per_sec": p.row.result.as_ref().map(|_| f.docs_per_sec),
            "indexed": f.counts.indexed,
            "read": f.counts.read,
            "failed": f.counts.failed,
            "clients": p.row.config.get("clients"),
            "driver_cpu_secs": f.cpu.driver_secs,
            "driver_secs_per_million_docs": f.cpu.driver_secs_per_million_docs,
            "cores": super::cores(p),
            "cpu_model": Some(Machine::read(&p.row.machine).cpu_model).filter(|m| !m.is_empty()),
            "failures_file": self.said.failures_file,
        })
    }
}

/// What a part's result holds that one process measured for itself alone: it does not add
/// up across processes, and stays in each part's own run. Each part ran on its own machine:
/// what else that machine did (`background`) is its own run's, as a query phase's is.
#[rustfmt::skip]
const PER_PROCESS: [&str; 11] = ["attribution", "server_stats", "rate", "telemetry", "profile",
    "background", "existing_index", "previous_failures_file", "buffers", "failure_limit",
    "took_clock_ms"];

/// Merges the chosen parts (one per part index, sorted) of a group of `of` parts.
pub fn merge(of: u32, chosen: &[&PartRun], counted_now: Option<u64>) -> Result<KindMerge, String> {
    let loads: Vec<Load<'_>> = chosen
        .iter()
        .map(|p| load_of(p))
        .collect::<Result<_, _>>()?;
    let mut measured = Measurements::default();
    for l in &loads {
        let added = measured.merge(&l.measured);
        added.map_err(|e| format!("part {}: {e}", l.part.part))?;
    }
    // A part with requests but no histograms (killed, or imported from its JSON) leaves the
    // percentiles out rather than give those of the others only.
    let without_histograms: Vec<String> = loads
        .iter()
        .filter(|l| l.measured.histograms.is_empty() && l.figures.requests.attempts > 0)
        .map(|l| l.part.part.to_string())
        .collect();
    if !without_histograms.is_empty() {
        measured.histograms.clear();
    }
    let mut figures = LoadFigures::of(&measured).ok_or("no part measured its load")?;
    let histograms = kept_histograms(&loads, measured.clone())?;
    // The searches beside the loads (`--search-clients`), as one process's from their phases;
    // a latency a part did not keep (kept before its phase kept one per variant) is left out
    // rather than be the others'.
    let searched = super::phase_of_every_part(loads.iter().map(|l| l.part), beside::PHASE)?;
    let searched = searched.and_then(|mut m| {
        for own in loads.iter().filter_map(|l| l.part.phase(beside::PHASE)) {
            m.histograms
                .retain(|name, _| own.histograms.contains_key(name));
        }
        SearchesBeside::of(&m)
    });

    // The counts reconciled: each part's read is its indexed plus failed, every part is
    // here, and the index gained what the parts acknowledged.
    let with_result = || loads.iter().filter(|l| l.part.row.result.is_some());
    let balanced = with_result().count() == loads.len()
        && loads
            .iter()
            .all(|l| l.figures.counts.read == l.figures.counts.indexed + l.figures.counts.failed);
    let appended = |l: &Load<'_>| l.said.previous_index.as_deref() == Some("appended");
    let before = with_result()
        .map(|l| l.said.counts.index_count_before.filter(|_| appended(l)))
        .map(|n| n.unwrap_or(0))
        .min();
    let counts = &mut figures.counts;
    let (unreconciled, counted) = match index_count(&loads, of, counted_now) {
        Ok((n, how)) => {
            let added = n.saturating_sub(before.unwrap_or(0));
            let why = match () {
                () if loads.len() != of as usize => {
                    Some(format!("{} of {of} parts are here", loads.len()))
                }
                () if !balanced => {
                    Some("a part's documents read are not its indexed plus failed".to_string())
                }
                () => counts.unreconciled(added, how, "the parts"),
            };
            (why, Some((n, how)))
        }
        Err(why) => (Some(why), None),
    };
    counts.index_count = counted.map(|(n, _)| n);
    counts.index_count_before = before.filter(|b| *b > 0);
    counts.reconciled = unreconciled.is_none();
    figures.headline.definition = format!(
        "documents acknowledged in each part's steady window, summed over {} of {of} parts ÷ \
         the group's {:.1} s steady window (the first part's steady start to the last part's \
         end)",
        loads.len(),
        figures.headline.window_secs
    );

    let each = loads.iter().map(|l| super::each(l.part, l.own())).collect();
    let mut warnings: Vec<String> = loads
        .iter()
        .flat_map(|l| {
            l.said
                .warnings
                .iter()
                .map(move |w| format!("part {}: {w}", l.part.part))
        })
        .collect();
    if !without_histograms.is_empty() {
        warnings.push(format!(
            "part(s) {} stored no histograms (a killed part, or one imported from its JSON \
             rather than its store): the group's percentiles are left out",
            without_histograms.join(", ")
        ));
    }
    // Some parts searched beside their loads and some kept no such phase (killed first): the
    // group's searches are left out, and said, rather than be the others'.
    let (searching, not): (Vec<&Load<'_>>, _) =
        (loads.iter()).partition(|l| l.part.phase(beside::PHASE).is_some());
    if !searching.is_empty() && !not.is_empty() {
        let not: Vec<String> = not.iter().map(|l| l.part.part.to_string()).collect();
        warnings.push(format!(
            "part(s) {} kept no searches beside their load: the group's are left out",
            not.join(", ")
        ));
    }
    // The open-loop schedule's figures, from the parts' pacing added (each offered its rate
    // side by side) by the derivation one load's are made with; the driver's share of a core
    // is the busiest part's. A part that kept its pacing only in its result leaves them out.
    let unrecorded: Vec<String> = (loads.iter())
        .filter(|l| l.said.rate.is_some() && pace::Measured::of(&l.measured).is_none())
        .map(|l| l.part.part.to_string())
        .collect();
    let busiest = (loads.iter())
        .map(|l| l.figures.cpu.driver_secs / l.figures.wall_secs.max(1e-9))
        .fold(0.0, f64::max);
    let wall = Duration::try_from_secs_f64(figures.wall_secs).unwrap_or_default();
    let rate = match pace::RateReport::of(&measured, wall, busiest) {
        Some(_) if !unrecorded.is_empty() => {
            warnings.push(format!(
                "part(s) {} kept their open-loop figures before the record did: the group's \
                 (offered, achieved, lag) are left out; see each part's run",
                unrecorded.join(", ")
            ));
            None
        }
        Some((rate, said)) => {
            warnings.extend(said);
            Some(rate)
        }
        None => None,
    };

    // The first part's result, less what one process measured for itself alone, with the
    // group's figures.
    let mut result = match loads.iter().find_map(|l| l.part.row.result.clone()) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    result.retain(|k, _| !PER_PROCESS.contains(&k.as_str()));
    let began_ms = figures::began_unix_us(&measured).unwrap_or(0) / 1000;
    let created = loads
        .iter()
        .any(|l| l.said.previous_index.is_some() && !appended(l));
    let merged = json!({
        "started_unix": began_ms / 1000,
        "load_started_unix_ms": began_ms,
        "previous_index": if created { "nothing" } else { "appended" },
        "config": config(chosen, of, |p| p.row.result.as_ref()?.get("config")),
        "failures_file": Value::Null,
        "interrupted": loads.iter().any(|l| l.said.interrupted),
        "error": loads.iter().find_map(|l| {
            l.said.error.as_ref().map(|e| format!("part {}: {e}", l.part.part))
        }),
        "warnings": warnings,
    });
    for derived in [
        serde_json::to_value(&figures).map_err(|e| e.to_string())?,
        merged,
    ] {
        if let Value::Object(m) = derived {
            result.extend(m);
        }
    }
    if let Some(rate) = rate {
        let rate = serde_json::to_value(rate).map_err(|e| e.to_string())?;
        result.insert("rate".into(), rate);
    }
    if let Some(searched) = searched {
        let searched = serde_json::to_value(searched).map_err(|e| e.to_string())?;
        result.insert("searches_beside".into(), searched);
    }
    if let Some(Value::String(corpus)) = result.get_mut("corpus") {
        *corpus = whole_corpus(corpus);
    }
    Ok(KindMerge {
        result: Value::Object(result),
        histograms,
        timeline: figures
            .timeline
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect(),
        failed: unreconciled.map(|why| format!("counts do not reconcile: {why}")),
        parts: Parts {
            each,
            index_count: counted.map(|(_, how)| how.to_string()),
            ..Parts::default()
        },
    })
}

/// The histograms the run keeps: the load's added (`measured`), and the rest each part stored
/// (the searches beside its load; a run's query phase's are merged with its query phase).
fn kept_histograms(
    loads: &[Load<'_>],
    mut kept: Measurements,
) -> Result<Vec<SerializedHistogram>, String> {
    for l in loads {
        let rest = l.part.histograms.iter().filter(|h| {
            !h.name.starts_with("query:")
                && !["service", "took"].contains(&h.name.as_str())
                && !l.measured.histograms.contains_key(&h.name)
        });
        for h in rest {
            let added = kept.histogram(h);
            added.map_err(|e| format!("part {}: {e}", l.part.part))?;
        }
    }
    let encoded = kept.histograms.iter();
    Ok(encoded
        .filter_map(|(name, (unit, h))| SerializedHistogram::encode(name, unit, h))
        .collect())
}

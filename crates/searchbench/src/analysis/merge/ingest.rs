//! The ingest result of a group, derived from its parts' load phases: their measurements
//! added (counts, histograms, seconds on the wall clock, bounds) and every figure derived by
//! the one derivation a load alone uses (`ingest::figures`), then the counts reconciled
//! against the index's one `_count`. Each part's own figures stay beside (`parts.each`).

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{config, whole_corpus, KindMerge, PartRun};
use crate::ingest::figures::{self, LoadFigures};
use crate::measure::{Measurements, SerializedHistogram};
use crate::store::LOAD;
use crate::store::{EachPart, Parts};

/// What a part's written report says beside its figures, read back typed.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Said {
    previous_index: Option<String>,
    /// Its index's `_count` after its load, and before when it appended.
    counts: crate::ingest::Counts,
    warnings: Vec<String>,
    error: Option<String>,
    interrupted: bool,
    failures_file: Option<String>,
    /// Set on an open-loop load (`--rate`), whose schedule's figures stay per part.
    rate: Option<Value>,
}

/// A part's load: its measurements, what its report said, and its own figures.
struct Load<'p> {
    part: &'p PartRun,
    measured: Measurements,
    said: Said,
    figures: LoadFigures,
}

fn typed<T: Default + for<'de> Deserialize<'de>>(v: Option<&Value>) -> T {
    v.and_then(|v| T::deserialize(v).ok()).unwrap_or_default()
}

/// A part's load: the load phase it measured (see `super::written`).
fn load_of(p: &PartRun) -> Result<Load<'_>, String> {
    let said: Said = typed(p.row.result.as_ref());
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
}

/// Merges the chosen parts (one per part index, sorted) of a group of `of` parts.
pub fn merge(of: u32, chosen: &[&PartRun], counted_now: Option<u64>) -> Result<KindMerge, String> {
    let loads: Vec<Load<'_>> = chosen
        .iter()
        .map(|p| load_of(p))
        .collect::<Result<_, _>>()?;
    let mut measured = Measurements::default();
    for l in &loads {
        measured
            .merge(&l.measured)
            .map_err(|e| format!("part {}: {e}", l.part.part))?;
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
    let figures = LoadFigures::of(&measured).ok_or("no part measured its load")?;
    // The histograms the run keeps: the load's added, and the rest each part stored (the
    // searches beside its load; a run's query phase's are merged with its query phase).
    let mut kept = measured.clone();
    for l in &loads {
        let rest = l.part.histograms.iter().filter(|h| {
            !h.name.starts_with("query:")
                && !["service", "took"].contains(&h.name.as_str())
                && !l.measured.histograms.contains_key(&h.name)
        });
        for h in rest {
            kept.histogram(h)
                .map_err(|e| format!("part {}: {e}", l.part.part))?;
        }
    }
    let histograms: Vec<SerializedHistogram> = kept
        .histograms
        .iter()
        .filter_map(|(name, (unit, h))| SerializedHistogram::encode(name, unit, h))
        .collect();

    // The counts reconciled: each part's read is its indexed plus failed, every part is
    // here, and the index gained what the parts acknowledged.
    let mut counts = figures.counts.clone();
    let balanced = loads.iter().all(|l| {
        let c = &l.figures.counts;
        l.part.row.result.is_some() && c.read == c.indexed + c.failed
    });
    let before = loads
        .iter()
        .filter(|l| l.part.row.result.is_some())
        .map(|l| match l.said.previous_index.as_deref() {
            Some("appended") => l.said.counts.index_count_before.unwrap_or(0),
            _ => 0,
        })
        .min();
    let (unreconciled, counted) = match index_count(&loads, of, counted_now) {
        Ok((n, how)) => {
            let added = n.saturating_sub(before.unwrap_or(0));
            let whole = loads.len() == of as usize;
            let why = match () {
                () if !whole => Some(format!("{} of {of} parts are here", loads.len())),
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

    let each: Vec<EachPart> = loads
        .iter()
        .map(|l| {
            let (p, f) = (l.part, &l.figures);
            let figures = json!({
                "started_unix_ms": l.began_ms(),
                "wall_secs": f.wall_secs,
                "docs_per_sec": p.row.result.as_ref().map(|_| f.docs_per_sec),
                "indexed": f.counts.indexed,
                "read": f.counts.read,
                "failed": f.counts.failed,
                "clients": p.row.config.get("clients"),
                "driver_cpu_secs": f.cpu.driver_secs,
                "driver_secs_per_million_docs": f.cpu.driver_secs_per_million_docs,
                "cores": super::cores(p),
                "cpu_model": Some(crate::measure::machine::Machine::read(&p.row.machine).cpu_model)
                    .filter(|m| !m.is_empty()),
                "failures_file": l.said.failures_file,
            });
            super::each(p, figures)
        })
        .collect();

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
    if loads.iter().any(|l| l.said.rate.is_some()) {
        warnings.push(
            "the open-loop schedule's figures (offered, achieved, lag) are per part: see each \
             part's run"
                .into(),
        );
    }

    // The first part's result, less the figures of one process that do not add up across
    // processes (kept in each part's run), with the group's figures.
    let mut result = match loads.iter().find_map(|l| l.part.row.result.clone()) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
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
        "took_clock_ms",
    ] {
        result.remove(key);
    }
    if let Value::Object(derived) = serde_json::to_value(&figures).map_err(|e| e.to_string())? {
        result.extend(derived);
    }
    let began_ms = figures::began_unix_us(&measured).unwrap_or(0) / 1000;
    let timeline: Vec<Value> = figures
        .timeline
        .iter()
        .filter_map(|r| serde_json::to_value(r).ok())
        .collect();
    let created = loads.iter().any(|l| {
        l.said
            .previous_index
            .as_deref()
            .is_some_and(|v| v != "appended")
    });
    let mut headline = figures.headline.clone();
    headline.definition = format!(
        "documents acknowledged in each part's steady window, summed over {} of {of} parts ÷ \
         the group's {:.1} s steady window (the first part's steady start to the last part's \
         end)",
        loads.len(),
        headline.window_secs
    );
    let merged = json!({
        "started_unix": began_ms / 1000,
        "load_started_unix_ms": began_ms,
        "previous_index": if created { "nothing" } else { "appended" },
        "config": config(chosen, of, |p| p.row.result.as_ref()?.get("config")),
        "counts": counts,
        "headline": headline,
        "failures_file": Value::Null,
        "interrupted": loads.iter().any(|l| l.said.interrupted),
        "error": loads.iter().find_map(|l| {
            l.said.error.as_ref().map(|e| format!("part {}: {e}", l.part.part))
        }),
        "warnings": warnings,
        "timeline": timeline,
    });
    if let Value::Object(m) = merged {
        result.extend(m);
    }
    if figures.took_clock_ms.is_none() {
        result.remove("took_clock_ms");
    }
    if let Some(Value::String(corpus)) = result.get_mut("corpus") {
        *corpus = whole_corpus(corpus);
    }
    Ok(KindMerge {
        result: Value::Object(result),
        histograms,
        timeline,
        failed: unreconciled.map(|why| format!("counts do not reconcile: {why}")),
        parts: Parts {
            each,
            index_count: counted.map(|(_, how)| how.to_string()),
            ..Parts::default()
        },
    })
}

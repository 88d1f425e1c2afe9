//! One run made of its parts: the runs a group's processes stored (`--part I/N --group ID`, on
//! one host or on many, their stores copied into one with `results import STORE`) merged into
//! one run like any other. Every figure is derived after the merge from what adds up: counts
//! summed, HDR histograms added (lossless), timelines lined up by wall-clock second and
//! summed ([`ingest`]).
//!
//! The merged run names its parts; a part missing or never finished makes it `incomplete`, a
//! failed part `failed`, an interrupted one `interrupted`: a partial group is never complete.
//! `results merge` stores it; the views (`compare`, `report`, `history`, `check`) merge a
//! group they meet the same way, in memory, unless a stored merge is current ([`resolve`]).

mod exact;
mod ingest;
mod query;
mod scenario;
mod track;
mod written;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::corpus::part::Part;
use crate::measure::{Measurements, SerializedHistogram};
use crate::store::{
    merge_phases, EachPart, Filter, Parts, PhaseMeasurements, RunId, RunRow, State, Store,
    StoreError, WholeRun,
};

/// A stored part of a group, with what its merge reads.
#[derive(Debug, Clone)]
pub struct PartRun {
    pub part: Part,
    pub row: RunRow,
    pub timeline: Vec<Value>,
    pub histograms: Vec<SerializedHistogram>,
    /// What each of its phases measured (none for a part kept before phases were, or
    /// killed before its first phase ended).
    pub phases: Vec<PhaseMeasurements>,
}

impl PartRun {
    /// `row` with its timeline and histograms, when it is a part.
    pub fn read(store: &Store, row: RunRow) -> Result<Option<PartRun>, StoreError> {
        let Some(part) = part_of(&row) else {
            return Ok(None);
        };
        Ok(Some(PartRun {
            part,
            timeline: crate::analysis::compare::timeline_of(store, &row)?,
            histograms: store.histograms(&row.id)?,
            phases: store.phases(&row.id)?,
            row,
        }))
    }
}

impl PartRun {
    /// The part as a run to store whole (what a copy into another store holds).
    pub fn whole(&self) -> WholeRun {
        let r = &self.row;
        WholeRun {
            kind: r.kind.clone(),
            workload: r.workload.clone(),
            engine: r.engine.clone(),
            state: r.state,
            started_unix: r.started_unix,
            finished_unix: r.finished_unix,
            tool_version: r.tool_version.clone(),
            seed: r.seed,
            machine: r.machine.clone(),
            config: r.config.clone(),
            tags: r.tags.clone(),
            error: r.error.clone(),
            result: r.result.clone(),
            timeline: self.timeline.clone(),
            histograms: self.histograms.clone(),
            telemetry: Vec::new(),
            phases: self.phases.clone(),
        }
    }
}

impl PartRun {
    /// What this part measured in its (first) phase named `name`, if it kept one.
    pub fn phase(&self, name: &str) -> Option<&Measurements> {
        self.phases
            .iter()
            .find(|p| p.phase == name)
            .map(|p| &p.measurements)
    }
}

/// What every part in `parts` measured in its phase `name`, added: a kind's merge reads what
/// adds up (counts, counts per second, histograms) from here, and only from here (a part that
/// kept no phase has it made from what it wrote as it is read: [`written`]). `None` when a
/// part measured no such phase.
pub(super) fn phase_of_every_part<'p>(
    parts: impl IntoIterator<Item = &'p PartRun>,
    name: &str,
) -> Result<Option<Measurements>, String> {
    let mut sum = Measurements::default();
    let mut any = false;
    for p in parts {
        let Some(m) = p.phase(name) else {
            return Ok(None);
        };
        sum.merge(m)
            .map_err(|e| format!("part {}: phase {name}: {e}", p.part))?;
        any = true;
    }
    Ok(any.then_some(sum))
}

/// The cores of the machine a part ran on, when its row says.
pub(super) fn cores(p: &PartRun) -> Option<usize> {
    let machine = crate::measure::machine::Machine::read(&p.row.machine);
    (machine.cores > 0).then_some(machine.cores)
}

/// The part a run was (`--part I/N` with N > 1), from its stored configuration.
pub fn part_of(row: &RunRow) -> Option<Part> {
    let part = Part::parse(row.config.get("part")?.as_str()?).ok()?;
    (!part.is_whole() && group_of(row).is_some()).then_some(part)
}

/// The group a run belongs to (`--group`), a part or a merged run.
pub fn group_of(row: &RunRow) -> Option<&str> {
    row.config.get("group")?.as_str()
}

/// A group's merged run (as `results merge` stores it).
pub fn is_merged(row: &RunRow) -> bool {
    group_of(row).is_some() && row.config.get("parts").is_some_and(Value::is_u64)
}

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "no part of group {0:?} is in the store: parts are the runs started with `--part I/N \
         --group {0}` (copy each host's store in with `searchbench results import STORE`)"
    )]
    NoParts(String),
    #[error("group {group}: {reason}")]
    Mismatch { group: String, reason: String },
}

impl MergeError {
    /// The caller named something that cannot be merged (exit 2), as opposed to a store
    /// that failed.
    pub fn is_usage(&self) -> bool {
        !matches!(self, MergeError::Store(_))
    }
}

/// A group merged into one run.
#[derive(Debug, Clone)]
pub struct Merged {
    /// Derived from the group and its parts: the same parts give the same id.
    pub id: RunId,
    pub run: WholeRun,
}

impl Merged {
    /// The merged run as a stored run's row.
    pub fn row(&self) -> RunRow {
        let r = &self.run;
        RunRow {
            id: self.id.clone(),
            kind: r.kind.clone(),
            workload: r.workload.clone(),
            engine: r.engine.clone(),
            status: r.state.name().to_string(),
            state: r.state,
            started_unix: r.started_unix,
            finished_unix: r.finished_unix,
            tool_version: r.tool_version.clone(),
            seed: r.seed,
            pid: None,
            machine: r.machine.clone(),
            config: r.config.clone(),
            tags: r.tags.clone(),
            error: r.error.clone(),
            result: r.result.clone(),
        }
    }
}

/// What a kind's merge (ingest, query) made of the chosen parts.
#[derive(Debug, Clone)]
pub(super) struct KindMerge {
    pub result: Value,
    pub histograms: Vec<SerializedHistogram>,
    pub timeline: Vec<Value>,
    /// Why the merged figures fail a check (counts that do not reconcile, wrong answers,
    /// failed requests).
    pub failed: Option<String>,
    /// Each part with its own figures, and what the kind notes of them (the group, its
    /// state and what is missing are filled in by [`merge_parts`]).
    pub parts: Parts,
}

/// Every chosen part that kept a result, its result read as a kind's (`T`, `what` it is
/// called in the error); a part killed before its result is left to the state, a part whose
/// result is not of the kind refused, naming it.
pub(super) fn results_as<'p, T: for<'de> serde::Deserialize<'de>>(
    chosen: &[&'p PartRun],
    what: &str,
) -> Result<Vec<(&'p PartRun, T)>, String> {
    chosen
        .iter()
        .filter_map(|p| Some((*p, p.row.result.as_ref()?)))
        .map(|(p, r)| {
            T::deserialize(r)
                .map(|t| (p, t))
                .map_err(|e| format!("part {} ({}): not {what}: {e}", p.part, p.row.id))
        })
        .collect()
}

/// A part as its merged run lists it: which, its run, its state, its error, and `figures`,
/// the kind's own figures of it (a JSON object).
/// `items` once each, in the order they first appear (the parts' tasks, cells, warnings).
/// Found by hash: a part's list is only as short as its store says.
pub(super) fn first_seen<T: std::hash::Hash + Eq + Clone>(
    items: impl IntoIterator<Item = T>,
) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    let mut once = Vec::new();
    for item in items {
        if seen.insert(item.clone()) {
            once.push(item);
        }
    }
    once
}

/// Each chosen part's own figures, beside the group's: `figures` of what the part's result
/// said (`said`, by part; `None` for a part without one, killed before it ended), with its
/// machine's cores.
pub(super) fn each_of<'a, T: 'a>(
    chosen: &[&PartRun],
    said: impl Iterator<Item = (&'a PartRun, &'a T)> + Clone,
    figures: impl Fn(Option<&'a T>) -> Value,
) -> Vec<EachPart> {
    let with_cores = |p: &PartRun| {
        let of = said.clone().find(|(q, _)| q.row.id == p.row.id);
        let mut f = figures(of.map(|(_, t)| t));
        f["cores"] = json!(cores(p));
        each(p, f)
    };
    chosen.iter().map(|p| with_cores(p)).collect()
}

pub(super) fn each(p: &PartRun, figures: Value) -> EachPart {
    EachPart {
        part: p.part.to_string(),
        run: p.row.id.0.clone(),
        state: p.row.state.name().to_string(),
        error: p.row.error.clone(),
        tags: p.row.tags.clone(),
        figures: match figures {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        },
    }
}

/// The merged run's configuration: the first part's, with the parts' clients and rates
/// summed, no `part`, the whole corpus, and the number of parts.
fn config(parts: &[&PartRun], of: u32, key: fn(&PartRun) -> Option<&Value>) -> Value {
    let mut config = parts
        .first()
        .and_then(|p| key(p))
        .cloned()
        .unwrap_or_else(|| json!({}));
    if let Some(map) = config.as_object_mut() {
        map.remove("part");
        if let Some(Value::String(corpus)) = map.get_mut("corpus") {
            *corpus = whole_corpus(corpus);
        }
        for k in ["clients", "rate", "search_clients"] {
            let values: Vec<f64> = parts
                .iter()
                .filter_map(|p| key(p)?.get(k)?.as_f64())
                .collect();
            if values.len() == parts.len() && !values.is_empty() {
                let sum: f64 = values.iter().sum();
                map.insert(
                    k.into(),
                    if sum.fract() == 0.0 && sum <= u64::MAX as f64 {
                        (sum as u64).into()
                    } else {
                        sum.into()
                    },
                );
            }
        }
        map.insert("parts".into(), of.into());
    }
    config
}

/// The corpus a part's description (`logs (seed 1, 600 docs), part 2/3`) is a part of.
fn whole_corpus(described: &str) -> String {
    match described.rsplit_once(", part ") {
        Some((whole, part)) if Part::parse(part).is_ok() => whole.to_string(),
        _ => described.to_string(),
    }
}

/// Settings a part holds as its own: which part it is, its share of the clients and rate
/// (checked apart), the address it reached the cluster by, its corpus's description (which
/// names the part).
const PER_PART: [&str; 6] = [
    "part",
    "clients",
    "search_clients",
    "urls",
    "corpus",
    "group",
];

/// The first setting in which two parts' configurations differ, with both values: any key
/// but [`PER_PART`]'s, the corpus as the whole it is a part of, the clients by more than the
/// one a division leaves over.
fn setting_that_differs(a: &Value, b: &Value) -> Option<(String, String, String)> {
    let empty = serde_json::Map::new();
    let (a, b) = (
        a.as_object().unwrap_or(&empty),
        b.as_object().unwrap_or(&empty),
    );
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let shown = |v: Option<&Value>| v.map_or_else(|| "(not set)".to_string(), Value::to_string);
    for key in keys {
        let (x, y) = (a.get(key.as_str()), b.get(key.as_str()));
        let differs = match key.as_str() {
            "corpus" => {
                x.and_then(Value::as_str).map(whole_corpus)
                    != y.and_then(Value::as_str).map(whole_corpus)
            }
            "clients" | "search_clients" => {
                match (x.and_then(Value::as_u64), y.and_then(Value::as_u64)) {
                    (Some(m), Some(n)) => m.abs_diff(n) > 1,
                    _ => x != y,
                }
            }
            k if PER_PART.contains(&k) => false,
            _ => x != y,
        };
        if differs {
            return Some((key.clone(), shown(x), shown(y)));
        }
    }
    None
}

/// What says whether a stored merge is current: the parts' ids, states and ends.
fn fingerprint(parts: &[&RunRow]) -> String {
    let mut keys: Vec<String> = parts
        .iter()
        .map(|r| {
            format!(
                "{}:{}:{}",
                r.id,
                r.state.name(),
                r.finished_unix.unwrap_or(0)
            )
        })
        .collect();
    keys.sort();
    let text = keys.join(",");
    format!("{:016x}", crate::rng::fnv1a([text.as_bytes()]))
}

/// Merges the parts of `group` (every stored part of it, in any order). `counted_now`: the
/// index's `_count`, when the caller counted it after every part had ended.
pub fn merge_parts(
    group: &str,
    parts: Vec<PartRun>,
    counted_now: Option<u64>,
) -> Result<Merged, MergeError> {
    let mismatch = |reason: String| MergeError::Mismatch {
        group: group.to_string(),
        reason,
    };
    if let Some(why) = parts.iter().find_map(|p| exact::check(p).err()) {
        return Err(mismatch(why));
    }
    let parts: Vec<PartRun> = parts.into_iter().map(written::with_phases).collect();
    let first = parts
        .first()
        .ok_or_else(|| MergeError::NoParts(group.to_string()))?;
    let of = first.part.of;
    for p in &parts {
        let differs = |what: &str, a: &str, b: &str| {
            mismatch(format!(
                "run {} is part {} ({what} {b}) and run {} part {} ({what} {a}): not parts of \
                 one run",
                first.row.id, first.part, p.row.id, p.part
            ))
        };
        if p.part.of != of {
            return Err(differs("of", &p.part.of.to_string(), &of.to_string()));
        }
        if p.row.kind != first.row.kind {
            return Err(differs("a run of kind", &p.row.kind, &first.row.kind));
        }
        if p.row.workload != first.row.workload {
            return Err(differs("workload", &p.row.workload, &first.row.workload));
        }
        if let Some((key, a, b)) = setting_that_differs(&first.row.config, &p.row.config) {
            return Err(mismatch(format!(
                "run {} (part {}) has {key} {a} and run {} (part {}) {key} {b}: the parts of one \
                 run share every setting but their part and their share of the clients and \
                 rate; start them again with one configuration under a new --group",
                first.row.id, first.part, p.row.id, p.part
            )));
        }
    }
    if !matches!(
        first.row.kind.as_str(),
        "ingest" | "query" | "run" | "track"
    ) {
        return Err(mismatch(format!(
            "its parts are `{}` runs; `ingest`, `query`, `run` and `track` parts merge",
            first.row.kind
        )));
    }
    let fingerprint = fingerprint(&parts.iter().map(|p| &p.row).collect::<Vec<_>>());
    // One run per part index. A part run twice sent its share twice (the index holds what
    // both sent, whichever ended well): no choice of one of them reconciles, so none is made.
    let mut by_index: BTreeMap<u32, Vec<&PartRun>> = BTreeMap::new();
    for p in &parts {
        by_index.entry(p.part.index).or_default().push(p);
    }
    let mut chosen: Vec<&PartRun> = Vec::new();
    for (index, runs) in &by_index {
        if runs.len() > 1 {
            let ids: Vec<String> = runs
                .iter()
                .map(|p| format!("{} ({})", p.row.id, p.row.state.name()))
                .collect();
            return Err(mismatch(format!(
                "part {index}/{of} was run {} times (runs {}): each sent its share to the \
                 cluster, so no merge of one of them is the run; a part runs once in a group \
                 (start the group again under a new --group)",
                runs.len(),
                ids.join(", ")
            )));
        }
        chosen.extend(runs.iter().copied());
    }
    let missing: Vec<u32> = (1..=of).filter(|i| !by_index.contains_key(i)).collect();
    let mut merged = match first.row.kind.as_str() {
        "query" => query::merge(&chosen),
        "run" if chosen.iter().any(|p| scenario::is_scenario(p)) => {
            scenario::merge(of, &chosen, counted_now)
        }
        "run" => merge_run(of, &chosen, counted_now),
        "track" => track::merge(&chosen),
        _ => ingest::merge(of, &chosen, counted_now),
    }
    .map_err(mismatch)?;
    // What every part's phases measured, added phase by phase whatever the kind: the
    // merged run keeps what one process measuring every part would have.
    let each: Vec<&[PhaseMeasurements]> = chosen.iter().map(|p| p.phases.as_slice()).collect();
    let phases = merge_phases(&each).map_err(mismatch)?;

    let not_whole: Vec<String> = chosen
        .iter()
        .filter(|p| p.row.state != State::Complete)
        .map(|p| format!("part {} ({}) is {}", p.part, p.row.id, p.row.state.name()))
        .chain(missing.iter().map(|i| format!("part {i}/{of} is missing")))
        .collect();
    let any = |s: State| chosen.iter().any(|p| p.row.state == s);
    let state = if any(State::Failed) {
        State::Failed
    } else if !missing.is_empty() || any(State::Incomplete) || any(State::Running) {
        State::Incomplete
    } else if any(State::Interrupted) {
        State::Interrupted
    } else if merged.failed.is_some() {
        State::Failed
    } else {
        State::Complete
    };
    let why = match (not_whole.is_empty(), &merged.failed) {
        (false, _) => Some(not_whole.join("; ")),
        (true, Some(failed)) => Some(failed.clone()),
        _ => None,
    };
    let mut result = merged.result;
    // The tags every part has, and the group's; each part keeps in the list of parts those
    // it does not share.
    let mut tags = chosen
        .first()
        .map(|p| p.row.tags.clone())
        .unwrap_or_default();
    tags.retain(|k, v| chosen.iter().all(|p| p.row.tags.get(k) == Some(v)));
    for part in &mut merged.parts.each {
        part.tags.retain(|k, _| !tags.contains_key(k));
    }
    tags.insert("group".into(), group.to_string());
    let parts = Parts {
        group: group.to_string(),
        of,
        state: Some(state.name().to_string()),
        why: why.clone(),
        missing: missing.clone(),
        fingerprint: Some(fingerprint.clone()),
        ..merged.parts
    };
    if let Some(map) = result.as_object_mut() {
        map.insert(
            "parts".into(),
            serde_json::to_value(&parts).map_err(|e| mismatch(e.to_string()))?,
        );
    }
    let head = chosen.first().map_or(&first.row, |p| &p.row);
    let run = WholeRun {
        kind: head.kind.clone(),
        workload: head.workload.clone(),
        engine: chosen.iter().find_map(|p| p.row.engine.clone()),
        state,
        started_unix: chosen.iter().map(|p| p.row.started_unix).min().unwrap_or(0),
        finished_unix: chosen.iter().filter_map(|p| p.row.finished_unix).max(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        seed: head.seed,
        machine: head.machine.clone(),
        // The first part's, every kind alike (see [`config`]).
        config: config(&chosen, of, |p| Some(&p.row.config)),
        tags,
        error: why.filter(|_| state != State::Complete),
        result: Some(result),
        timeline: merged.timeline,
        histograms: merged.histograms,
        telemetry: Vec::new(),
        phases,
    };
    let id = format!(
        "{:08x}",
        crate::rng::fnv1a([group.as_bytes(), fingerprint.as_bytes()]) as u32
    );
    Ok(Merged { id: RunId(id), run })
}

/// A `run`'s parts: their loads merged as an ingest's, their query phases (the result's
/// `query`) as a query run's.
fn merge_run(of: u32, chosen: &[&PartRun], counted_now: Option<u64>) -> Result<KindMerge, String> {
    let mut merged = ingest::merge(of, chosen, counted_now)?;
    let queried: Vec<PartRun> = chosen
        .iter()
        .filter_map(|p| {
            let query = p.row.result.as_ref()?.get("query")?.clone();
            let mut q = (*p).clone();
            q.row.result = Some(query);
            q.histograms.retain(|h| h.name.starts_with("query:"));
            Some(q)
        })
        .collect();
    if queried.is_empty() {
        return Ok(merged);
    }
    let q = query::merge(&queried.iter().collect::<Vec<_>>())?;
    merged.result["query"] = q.result;
    merged.parts.notes.extend(q.parts.notes);
    let stopped = chosen.iter().any(|p| {
        p.row
            .result
            .as_ref()
            .and_then(|r| r.get("query_interrupted"))
            == Some(&Value::Bool(true))
    });
    if stopped {
        merged.result["query_interrupted"] = true.into();
    }
    merged.histograms.extend(q.histograms);
    merged.failed = merged.failed.or(q.failed.map(|f| format!("queries: {f}")));
    Ok(merged)
}

/// The index a group's parts loaded (or queried), as their configuration names it.
pub fn index_of(store: &Store, group: &str) -> Result<Option<String>, StoreError> {
    Ok(group_rows(store, group)?
        .iter()
        .filter(|r| part_of(r).is_some())
        .find_map(|r| r.config.get("index")?.as_str().map(str::to_string)))
}

/// Every stored run of `group`: its parts and its stored merges.
pub fn group_rows(store: &Store, group: &str) -> Result<Vec<RunRow>, StoreError> {
    Ok(store
        .list(&Filter::default())?
        .into_iter()
        .filter(|r| group_of(r) == Some(group))
        .collect())
}

/// The newest group whose name starts with `prefix`: the one with the part that began last
/// (a nightly CronJob's night, `NAME-<scheduled minute>`: the morning merge's group).
pub fn newest_group(store: &Store, prefix: &str) -> Result<Option<String>, StoreError> {
    // Newest first: the first part of such a group is the newest's.
    Ok(store
        .list(&Filter::default())?
        .iter()
        .filter(|r| part_of(r).is_some())
        .find_map(|r| {
            group_of(r)
                .filter(|g| g.starts_with(prefix))
                .map(str::to_string)
        }))
}

/// Whether any stored run belongs to `group`.
pub fn is_group(store: &Store, group: &str) -> Result<bool, StoreError> {
    Ok(!group_rows(store, group)?.is_empty())
}

/// Merges the stored parts of `group`.
pub fn merge(store: &Store, group: &str, counted_now: Option<u64>) -> Result<Merged, MergeError> {
    let mut parts = Vec::new();
    for row in group_rows(store, group)? {
        if let Some(p) = PartRun::read(store, row)? {
            parts.push(p);
        }
    }
    merge_parts(group, parts, counted_now)
}

/// Stores a merge in place of every earlier merge of its group; its id.
pub fn store_merged(store: &Store, merged: &Merged) -> Result<RunId, MergeError> {
    let group = group_of(&merged.row())
        .map(str::to_string)
        .unwrap_or_default();
    // Its own id too: a merge of the same parts made meanwhile (another `results merge` at
    // the same time) is the same run, replaced rather than kept twice.
    let mut earlier: Vec<RunId> = group_rows(store, &group)?
        .into_iter()
        .filter(is_merged)
        .map(|r| r.id)
        .collect();
    if !earlier.contains(&merged.id) {
        earlier.push(merged.id.clone());
    }
    Ok(store.put_whole(&merged.run, Some(&merged.id.0), &earlier)?)
}

/// Runs as the views show them (see [`resolve`]).
#[derive(Debug, Default)]
pub struct Resolved {
    pub rows: Vec<RunRow>,
    /// Merged runs made here, in memory (not stored): their timelines and histograms.
    pub merged: BTreeMap<RunId, Merged>,
    /// Groups that could not be merged, and why: their parts are left out.
    pub notes: Vec<String>,
}

/// `rows` as views show them: the parts of a group give way to its merged run (the stored
/// merge when it is current, else merged now in memory), in the place of the group's first
/// run; a stored merge that is no longer current is left out.
pub fn resolve(store: &Store, rows: Vec<RunRow>) -> Result<Resolved, StoreError> {
    let groups: BTreeSet<String> = rows
        .iter()
        .filter(|r| part_of(r).is_some() || is_merged(r))
        .filter_map(|r| group_of(r).map(str::to_string))
        .collect();
    let mut out = Resolved::default();
    if groups.is_empty() {
        out.rows = rows;
        return Ok(out);
    }
    // The store read once for every group (a history of a year of nightly groups).
    let mut by_group: BTreeMap<String, Vec<RunRow>> = BTreeMap::new();
    for row in store.list(&Filter::default())? {
        if let Some(g) = group_of(&row).filter(|g| groups.contains(*g)) {
            by_group.entry(g.to_string()).or_default().push(row);
        }
    }
    let mut current: BTreeMap<String, Option<RunRow>> = BTreeMap::new();
    for group in &groups {
        let all = by_group.remove(group).unwrap_or_default();
        let parts: Vec<&RunRow> = all.iter().filter(|r| part_of(r).is_some()).collect();
        let fp = fingerprint(&parts);
        let stored = all.iter().find(|r| {
            is_merged(r)
                && r.result
                    .as_ref()
                    .and_then(Parts::of_result)
                    .and_then(|p| p.fingerprint)
                    == Some(fp.clone())
        });
        let row = match stored {
            Some(r) => Some(r.clone()),
            // Its parts are not here (only the merged run was imported, or they were
            // deleted): the newest stored merge is the group.
            None if parts.is_empty() => all.iter().find(|r| is_merged(r)).cloned(),
            None => {
                let mut read = Vec::new();
                for row in all.iter().filter(|r| part_of(r).is_some()) {
                    read.extend(PartRun::read(store, row.clone())?);
                }
                match merge_parts(group, read, None) {
                    Ok(m) => {
                        let row = m.row();
                        out.merged.insert(m.id.clone(), m);
                        Some(row)
                    }
                    Err(MergeError::Store(e)) => return Err(e),
                    Err(e) => {
                        out.notes.push(e.to_string());
                        None
                    }
                }
            }
        };
        current.insert(group.clone(), row);
    }
    for row in rows {
        let group = (part_of(&row).is_some() || is_merged(&row))
            .then(|| group_of(&row).map(str::to_string))
            .flatten();
        match group {
            None => out.rows.push(row),
            Some(g) => {
                if let Some(Some(merged)) = current.remove(&g) {
                    out.rows.push(merged);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

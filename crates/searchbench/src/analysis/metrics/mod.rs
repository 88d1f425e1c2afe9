//! The comparable metrics of a stored result.
//!
//! Each part of a result is read back as the type it was written with ([`ingest`]: the
//! ingest's `Summary`, `Counts`, `Requests`, `Cpu`, `Attribution`, timeline rows; [`query`]:
//! the `QueryResult`; [`telemetry`]: the telemetry `Summary`; [`scenario`]: the scenarios'
//! parts, the searches beside a load, `dates cost`' measures), so a renamed field is a
//! compile error, not a missing metric. (What is still read by name: the keys that tell a
//! result's shape, and the timeline's warm-up marks.) Those types read leniently (a
//! field an older result lacks takes its default), so old results stay comparable; a part
//! that does not read at all becomes an error metric (`errors.unreadable.<part>`), never a
//! silent gap.
//!
//! The readers are listed in one table ([`READERS`]), and each lists its metrics in tables of
//! [`Row`]s (key, label, unit, how it is judged, the value read from its part's type): adding
//! a figure to a part is a row.
//!
//! Errors are metrics too ([`Metric::errors`]): any rise is worse, whatever else changed.
//! A metric is one value per run; the samples it keeps (seconds, coverages) are what the
//! value is the mean of, never a verdict's evidence: a verdict is over runs (see
//! `analysis::compare`). An experiment that repeats its runs inside one stored run
//! (`dates cost`) keeps one value per repeat, and those are runs.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::statistics::{mean, SampleKind};

pub(crate) mod ingest;
mod instruments;
mod profile;
mod query;
mod scenario;
mod telemetry;
mod track;

/// Which way is good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    HigherBetter,
    LowerBetter,
    /// Shown with its difference; a change is neither good nor bad by itself.
    Info,
}

impl Direction {
    /// The direction of a figure an instrument kept: an error count is lower-better whatever
    /// it says.
    pub fn of(better: crate::measure::Better, errors: bool) -> Direction {
        use crate::measure::Better;
        match (errors, better) {
            (true, _) | (false, Better::Lower) => Direction::LowerBetter,
            (false, Better::Higher) => Direction::HigherBetter,
            (false, Better::Neither) => Direction::Info,
        }
    }
}

/// One metric of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Metric {
    /// Stable key, e.g. `docs_per_sec`, `query.D_td.serial.took_ms`: no spaces (see
    /// [`key_part`]).
    pub key: String,
    pub label: String,
    pub unit: Cow<'static, str>,
    pub direction: Direction,
    pub value: f64,
    /// Samples whose mean is `value`, when the result has them.
    pub samples: Option<(SampleKind, Vec<f64>)>,
    /// A count of errors (failed requests for good, refused documents, failed searches, wrong
    /// answers): any rise is worse, and a contender with any is never better.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub errors: bool,
    /// With values over runs: the round each run was made in, one per value (see
    /// [`crate::analysis::compare::round_of`]); empty when not known. Two sides whose runs
    /// were made round by round are compared round by round.
    #[serde(skip)]
    pub rounds: Vec<Option<String>>,
}

/// The key of the headline throughput: documents acknowledged after the warm-up ÷ the steady
/// window.
pub const THROUGHPUT: &str = "docs_per_sec";

/// Names metrics had before, still understood wherever a metric is named: (old, now).
pub const ALIASES: &[(&str, &str)] = &[
    ("throughput_docs_per_sec", THROUGHPUT),
    ("throughput_mb_per_sec", "mb_per_sec"),
];

/// One part of a metric key from a name: letters, digits, `_` and `-` as they are, any other
/// run of characters (spaces, `:`, `+`, `/`) one `_`, none at either end: `network +
/// queueing` → `network_queueing`. Keys have no spaces, so a shell and a CSV take them whole.
pub fn key_part(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') && !name.ends_with('_') {
        out.pop();
    }
    out
}

/// A metric as a user names it, as its key today: each part as [`key_part`] makes it (the old
/// keys with spaces keep working) and an old name ([`ALIASES`]) by its new one.
pub fn canonical(given: &str) -> String {
    let normal = given.split('.').map(key_part).collect::<Vec<_>>().join(".");
    ALIASES
        .iter()
        .find(|(old, _)| *old == normal)
        .map_or(normal, |(_, now)| now.to_string())
}

/// Reads a part of a stored result as the type it was written as. A part that does not read
/// (a field of the wrong type: a corrupted or foreign result) is not dropped silently: it
/// becomes an error metric naming it, so every view shows it and no verdict calls the run
/// better.
fn read<T: serde::de::DeserializeOwned>(part: &str, v: &Value, out: &mut Vec<Metric>) -> Option<T> {
    match T::deserialize(v) {
        Ok(t) => Some(t),
        Err(e) => {
            out.extend(figure(
                &format!("errors.unreadable.{}", part.replace(' ', "_")),
                &format!("errors: the {part} figures of this result cannot be read ({e})"),
                "",
                Judged::Errors,
                Some(1.0),
            ));
            None
        }
    }
}

/// How a row's figure is judged: which way is good (see [`Direction`]), or a count of errors
/// (lower is better, and any rise is worse: see [`Metric::errors`]).
#[derive(Debug, Clone, Copy)]
enum Judged {
    Higher,
    Lower,
    Info,
    Errors,
}

/// One metric of a part, a row of its reader's table: its key and its label after the part's
/// prefixes, its unit, how it is judged, and how its value is read from the part ([`Of`]). A
/// table keeps a row a line, as a table reads (`#[rustfmt::skip]`).
struct Row<T>(&'static str, &'static str, &'static str, Judged, Of<T>);

/// How a row's value is read from its part (`None`, or not a finite number: the run has no
/// such metric).
enum Of<T> {
    /// One value for the whole.
    One(fn(&T) -> Option<f64>),
    /// The mean of the part's samples (per second, per coverage, per repeat), its label
    /// followed by the words given; the value for the whole when it has no samples.
    Sampled(
        SampleKind,
        &'static str,
        fn(&T) -> Vec<f64>,
        fn(&T) -> Option<f64>,
    ),
    /// The value for the whole (a headline), with the part's samples for its interval.
    Headline(SampleKind, fn(&T) -> Vec<f64>, fn(&T) -> Option<f64>),
}

/// The metrics of `part` by its reader's `table`, keys after `key`, labels after `label`.
fn rows<T>(part: &T, key: &str, label: &str, table: &[Row<T>], out: &mut Vec<Metric>) {
    for Row(k, l, unit, judged, of) in table {
        let (key, label) = (format!("{key}{k}"), format!("{label}{l}"));
        let named = (key.as_str(), label.as_str(), *unit, *judged);
        out.extend(match of {
            Of::One(value) => figure(&key, &label, unit, *judged, value(part)),
            Of::Sampled(kind, words, samples, whole) => {
                sampled(named, (*kind, samples(part), words), whole(part))
            }
            Of::Headline(kind, samples, whole) => {
                let whole = whole(part);
                sampled(named, (*kind, samples(part), ""), whole).map(|mut m| {
                    m.value = whole.unwrap_or(m.value);
                    m
                })
            }
        });
    }
}

fn figure(
    key: &str,
    label: &str,
    unit: &'static str,
    judged: Judged,
    v: Option<f64>,
) -> Option<Metric> {
    let direction = match judged {
        Judged::Higher => Direction::HigherBetter,
        Judged::Lower | Judged::Errors => Direction::LowerBetter,
        Judged::Info => Direction::Info,
    };
    let value = v.filter(|x| x.is_finite())?;
    Some(Metric {
        key: key.into(),
        label: label.into(),
        unit: unit.into(),
        direction,
        value,
        samples: None,
        errors: matches!(judged, Judged::Errors),
        rounds: Vec::new(),
    })
}

/// A figure with samples (per second, per coverage, per repeat) when the part has any: their
/// mean, labelled `label` + `sampled`; else the part's own value for the whole.
fn sampled(
    (key, label, unit, judged): (&str, &str, &'static str, Judged),
    (kind, samples, sampled): (SampleKind, Vec<f64>, &str),
    whole: Option<f64>,
) -> Option<Metric> {
    if samples.is_empty() {
        return figure(key, label, unit, judged, whole);
    }
    let mut m = figure(
        key,
        &format!("{label}{sampled}"),
        unit,
        judged,
        mean(&samples),
    )?;
    m.samples = Some((kind, samples));
    Some(m)
}

/// The prefix of the metrics of the machine a run ran on, beside the run (see
/// `measure::background`).
pub const MACHINE_PREFIX: &str = "machine.";

/// The machine a phase ran on, beside its figures (see `measure::background`): what else ran,
/// never better nor worse (a comparison says when its sides' backgrounds differ).
#[rustfmt::skip]
const MACHINE: &[Row<crate::measure::background::Background>] = &[
    Row("other_cpu_pct", "CPU of other processes", "%", Judged::Info, Of::One(|b| b.other_cpu_pct)),
    Row("steal_pct", "CPU stolen", "%", Judged::Info, Of::One(|b| Some(b.steal_pct))),
    Row("cpu_pressure_pct", "time a task waited for a CPU", "%", Judged::Info, Of::One(|b| b.cpu_pressure_pct)),
    Row("load_1m", "load average (1 min)", "", Judged::Info, Of::One(|b| b.load_1m)),
];

fn machine(b: &crate::measure::background::Background, out: &mut Vec<Metric>) {
    rows(b, MACHINE_PREFIX, "machine: ", MACHINE, out);
}

/// The steady per-second rows: after the seconds marked `warmup` and without the last
/// (partial) second; for a timeline without warm-up marks, without the first (ramp-up) and
/// the last second. Empty under 4 seconds.
pub fn steady_seconds(timeline: &[Value]) -> &[Value] {
    if timeline.len() < 4 {
        return &[];
    }
    let warm = timeline
        .iter()
        .take_while(|s| s.get("warmup").and_then(Value::as_bool) == Some(true))
        .count();
    let from = if warm > 0 { warm } else { 1 };
    if timeline.len() < from + 3 {
        return &[];
    }
    &timeline[from..timeline.len() - 1]
}

/// Is this an ingest-shaped result (an `IngestReport`)?
pub fn is_ingest(result: &Value) -> bool {
    result.get("docs_per_sec").is_some() && result.get("counts").is_some()
}

/// Is this a query-shaped result (a `QueryResult`, or a run with a query phase)?
pub fn is_query(result: &Value) -> bool {
    query_part(result).is_some()
}

/// The query result inside a result: the result itself (`searchbench query`) or its
/// `query` member (`searchbench run`, which ingests and then queries).
pub fn query_part(result: &Value) -> Option<&Value> {
    let has_cells = |v: &Value| v.get("cells").is_some_and(Value::is_array);
    if has_cells(result) {
        Some(result)
    } else {
        result.get("query").filter(|q| has_cells(q))
    }
}

impl Metric {
    /// How many values the metric is the mean of, and of what: `12 seconds`, `1` for one value.
    pub fn samples_shown(&self) -> String {
        self.samples
            .as_ref()
            .map_or_else(|| "1".into(), |(k, v)| format!("{} {}", v.len(), k.name()))
    }

    /// The metric `key` of a figure an instrument kept (or a profile's), shown as `label`;
    /// `None` when its value is not a finite number.
    pub fn of_figure(key: String, label: String, f: &crate::measure::Figure) -> Option<Metric> {
        f.value.is_finite().then(|| Metric {
            key,
            label,
            unit: f.unit.clone().into(),
            direction: Direction::of(f.better, f.errors),
            value: f.value,
            samples: None,
            errors: f.errors,
            rounds: Vec::new(),
        })
    }
}

/// Every metric of a stored run: its result's ([`extract`]), then the figures its
/// instruments kept around its phases (one reader for every instrument).
pub fn of_run(
    result: Option<&Value>,
    timeline: &[Value],
    phases: &[crate::store::PhaseMeasurements],
) -> Vec<Metric> {
    let mut out = result.map(|r| extract(r, timeline)).unwrap_or_default();
    // A result keeping its own profile has its figures already (see `instruments`).
    let has_profile = result.is_some_and(|r| r.get("profile").is_some_and(Value::is_object));
    let skip: &[&str] = if has_profile {
        &[crate::measure::profile::INSTRUMENT]
    } else {
        &[]
    };
    instruments::metrics(phases, skip, &mut out);
    out
}

/// A reader of one part of a stored result: the result, its timeline, the metrics so far.
type Reader = fn(&Value, &[Value], &mut Vec<Metric>);

/// The readers of a stored result, one per part a result may hold, in display order (as
/// `cluster::product::PRODUCTS` lists the engines): each reads its part as the type it was
/// written with, by its own table of rows, and adds nothing for a result without it.
const READERS: &[Reader] = &[
    ingest::metrics,
    query::metrics,
    telemetry::metrics,
    profile::metrics,
    scenario::beside,
    scenario::metrics,
    scenario::dates,
    track::metrics,
];

/// Every metric a result offers, in display order.
pub fn extract(result: &Value, timeline: &[Value]) -> Vec<Metric> {
    let mut out = Vec::new();
    for read in READERS {
        read(result, timeline, &mut out);
    }
    out
}

#[cfg(test)]
mod telemetry_tests {
    use super::*;

    #[test]
    fn telemetry_figures_are_metrics_per_phase_and_rejections_are_errors() {
        let t = |gc: f64, rejected: f64| {
            serde_json::json!({
                "span_secs": 10.0, "gc_secs": gc, "gc_share": 0.04, "old_gcs": 1.0,
                "heap_peak_bytes": 4e8, "write_rejections": rejected, "search_rejections": 0.0,
                "per_second": {"gc_ms": [10.0, 20.0, 30.0], "heap_used_mb": [300.0, 310.0, 320.0]}
            })
        };
        let run = serde_json::json!({
            "telemetry": t(0.4, 5.0),
            "query": {"cells": [], "telemetry": t(0.1, 0.0)}
        });
        let metrics = extract(&run, &[]);
        let get = |k: &str| {
            metrics
                .iter()
                .find(|m| m.key == k)
                .unwrap_or_else(|| panic!("no {k}"))
        };
        let gc = get("telemetry.gc_ms_per_s");
        assert_eq!(gc.value, 20.0);
        assert_eq!(gc.samples.as_ref().map(|s| s.1.len()), Some(3));
        assert_eq!(get("telemetry.gc_share_pct").value, 4.0);
        assert_eq!(get("telemetry.heap_peak_mb").value, 400.0);
        let rejections = get("telemetry.write_rejections");
        assert!(rejections.errors);
        assert_eq!(rejections.value, 5.0);
        assert_eq!(get("query.telemetry.write_rejections").value, 0.0);
        assert!(get("query.telemetry.gc_ms_per_s")
            .label
            .starts_with("query: "));
        // A part of the wrong shape is an error metric naming it, not a silent gap.
        let broken = extract(
            &serde_json::json!({"docs_per_sec": 100.0, "counts": {"refused": "many"}}),
            &[],
        );
        let unreadable = broken
            .iter()
            .find(|m| m.key == "errors.unreadable.ingest")
            .unwrap_or_else(|| panic!("{broken:?}"));
        assert!(
            unreadable.errors && unreadable.label.contains("expected u64"),
            "{unreadable:?}"
        );
        // A result without telemetry has none of these.
        let plain = extract(&serde_json::json!({"cells": []}), &[]);
        assert!(plain.iter().all(|m| !m.key.contains("telemetry")));
    }
}

//! A run as its published document carries it whole, so it can be read back as it was
//! stored: the stored row (`row`), the timeline as stored (`timeline`), the HDR histograms
//! (`histograms`: name, unit and the V2 deflate encoding in base64) and what each phase
//! measured (`phases`). None of these is indexed: they are kept for reading back, the other
//! indices are what charts and filters use. Telemetry is read back from its own index.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::measure::{Measurements, SerializedHistogram};
use crate::store::{PhaseMeasurements, State, WholeRun};

/// The fields of a run document that hold the run whole, after `row`.
pub const KEPT_WHOLE: [&str; 3] = ["timeline", "histograms", "phases"];

#[derive(Serialize, Deserialize)]
struct Histogram {
    name: String,
    unit: String,
    /// HDR's V2 deflate encoding, base64.
    v2_deflate: String,
}

#[derive(Serialize, Deserialize)]
struct Phase {
    phase: String,
    counts: BTreeMap<String, u64>,
    /// Counts per wall-clock second; JSON keys are strings.
    seconds: BTreeMap<String, BTreeMap<String, u64>>,
    histograms: Vec<Histogram>,
    /// What the instruments kept around the phase's step (none in documents published
    /// before they were kept).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    kept: BTreeMap<String, crate::measure::Kept>,
    /// What merges by the least or the most of the parts (none in documents published
    /// before it was kept).
    #[serde(default, skip_serializing_if = "crate::measure::Bounds::is_empty")]
    bounds: crate::measure::Bounds,
    /// What is timed on the wall clock (none in documents published before it was kept).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    timed: BTreeMap<String, crate::measure::Timed>,
}

/// The stored row as published (`RunRow` serialised), what reading back needs of it.
#[derive(Deserialize)]
struct Row {
    id: String,
    kind: String,
    workload: String,
    engine: Option<String>,
    state: String,
    started_unix: u64,
    finished_unix: Option<u64>,
    tool_version: String,
    seed: Option<u64>,
    #[serde(default)]
    machine: Value,
    #[serde(default)]
    config: Value,
    #[serde(default)]
    tags: BTreeMap<String, String>,
    error: Option<String>,
    result: Option<Value>,
}

fn histogram(h: &SerializedHistogram) -> Histogram {
    Histogram {
        name: h.name.clone(),
        unit: h.unit.clone(),
        v2_deflate: base64::engine::general_purpose::STANDARD.encode(&h.v2_deflate),
    }
}

fn serialized(h: Histogram) -> Result<SerializedHistogram, String> {
    let v2_deflate = base64::engine::general_purpose::STANDARD
        .decode(h.v2_deflate.as_bytes())
        .map_err(|e| format!("histogram {}: not base64: {e}", h.name))?;
    Ok(SerializedHistogram {
        name: h.name,
        unit: h.unit,
        v2_deflate,
    })
}

/// The histograms as a run document keeps them.
pub fn histograms_value(histograms: &[SerializedHistogram]) -> Value {
    serde_json::to_value(histograms.iter().map(histogram).collect::<Vec<_>>())
        .unwrap_or(Value::Null)
}

/// The phases as a run document keeps them; an error names a histogram that cannot be
/// encoded.
pub fn phases_value(phases: &[PhaseMeasurements]) -> Result<Value, String> {
    let mut out = Vec::with_capacity(phases.len());
    for p in phases {
        let m = &p.measurements;
        let mut histograms = Vec::with_capacity(m.histograms.len());
        for (name, (unit, h)) in &m.histograms {
            let encoded = SerializedHistogram::encode(name, unit, h)
                .ok_or_else(|| format!("phase {}: histogram {name} cannot be encoded", p.phase))?;
            histograms.push(histogram(&encoded));
        }
        out.push(Phase {
            phase: p.phase.clone(),
            counts: m.counts.clone(),
            seconds: m
                .seconds
                .iter()
                .map(|(s, row)| (s.to_string(), row.clone()))
                .collect(),
            histograms,
            kept: p.kept.clone(),
            bounds: m.bounds.clone(),
            timed: m.timed.clone(),
        });
    }
    serde_json::to_value(out).map_err(|e| e.to_string())
}

/// The run a run document holds whole, its telemetry apart (read from its own index).
/// An error says which part of the document is not what a publish writes.
pub fn whole_run(doc: &Value) -> Result<(String, WholeRun), String> {
    let row: Row = serde_json::from_value(doc.get("row").cloned().unwrap_or(Value::Null))
        .map_err(|e| format!("its `row` is not a stored run: {e}"))?;
    let list = |field: &str| -> Vec<Value> {
        doc.get(field)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let histograms: Vec<Histogram> = serde_json::from_value(Value::Array(list("histograms")))
        .map_err(|e| format!("its `histograms`: {e}"))?;
    let histograms = histograms
        .into_iter()
        .map(serialized)
        .collect::<Result<Vec<_>, _>>()?;
    let phases: Vec<Phase> = serde_json::from_value(Value::Array(list("phases")))
        .map_err(|e| format!("its `phases`: {e}"))?;
    let mut measured = Vec::with_capacity(phases.len());
    for p in phases {
        for (name, list) in &p.timed {
            list.check(name)
                .map_err(|e| format!("phase {}: {e}", p.phase))?;
        }
        let mut m = Measurements {
            counts: p.counts,
            seconds: BTreeMap::new(),
            histograms: BTreeMap::new(),
            bounds: p.bounds,
            timed: p.timed,
        };
        for (second, row) in p.seconds {
            let second: u64 = second
                .parse()
                .map_err(|_| format!("phase {}: {second:?} is no second", p.phase))?;
            m.seconds.insert(second, row);
        }
        for h in p.histograms {
            let h = serialized(h)?;
            m.histogram(&h)
                .map_err(|e| format!("phase {}: histogram {}: {e}", p.phase, h.name))?;
        }
        measured.push(PhaseMeasurements {
            phase: p.phase,
            measurements: m,
            kept: p.kept,
        });
    }
    let state = match row.state.as_str() {
        "complete" => State::Complete,
        "interrupted" => State::Interrupted,
        "failed" => State::Failed,
        // A run still going where it was published from is, read back, one that will never
        // finish here.
        _ => State::Incomplete,
    };
    // A document claiming `complete` is judged by the rule a store judges a result by: one
    // whose result reports an error or counts that do not add up is failed, whatever it says.
    let (state, error) = match (&state, &row.result) {
        (State::Complete, Some(result)) => match crate::store::outcome_of(result) {
            (State::Complete, _) => (state, row.error),
            (earned, why) => (earned, row.error.or(why)),
        },
        _ => (state, row.error),
    };
    Ok((
        row.id,
        WholeRun {
            kind: row.kind,
            workload: row.workload,
            engine: row.engine,
            state,
            started_unix: row.started_unix,
            finished_unix: row.finished_unix,
            tool_version: row.tool_version,
            seed: row.seed,
            machine: row.machine,
            config: row.config,
            tags: row.tags,
            error,
            result: row.result,
            timeline: list("timeline"),
            histograms,
            telemetry: Vec::new(),
            phases: measured,
        },
    ))
}

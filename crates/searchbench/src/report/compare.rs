//! Comparing runs: metric by metric, the difference in percent, its bootstrap confidence
//! interval, the sample counts behind it, and a verdict.
//!
//! A side is one run or a group of repeated runs (selected by tags). For one run per side the
//! interval comes from within-run samples (seconds, query coverages) and says nothing about
//! run-to-run noise; the comparison says so in its notes. For groups, every metric is one value
//! per run and the interval is over runs, which includes run-to-run noise.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::metrics::{self, Direction, Metric};
use super::stats::{
    bootstrap_diff, pct_diff, quantile_diff, Interval, SampleKind, CONFIDENCE, MIN_SAMPLES,
    RESAMPLES,
};
use crate::measure::SerializedHistogram;
use crate::store::{RunRow, Store, StoreError};

/// A stored run as a comparison reads it: the row, its timeline, its histograms.
pub type Run = (RunRow, Vec<Value>, Vec<SerializedHistogram>);

/// One side of a comparison: a run or a group of runs, with their metrics.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub label: String,
    pub run_ids: Vec<String>,
    pub engine: Option<String>,
    pub cpu_model: Option<String>,
    #[serde(skip)]
    pub metrics: Vec<Metric>,
}

impl Side {
    /// A side from the runs a selector picked (see [`Store::select`]).
    pub fn from_runs(label: &str, runs: &[Run]) -> Side {
        let per_run: Vec<Vec<Metric>> = runs
            .iter()
            .map(|(row, timeline, histograms)| {
                let mut m = run_metrics(row, timeline);
                metrics::with_histograms(&mut m, histograms, timeline.len());
                m
            })
            .collect();
        let metrics = if per_run.len() == 1 {
            per_run.into_iter().next().unwrap_or_default()
        } else {
            over_runs(&per_run)
        };
        let first = runs.first().map(|(r, _, _)| r);
        Side {
            label: if runs.len() > 1 {
                format!("{label} ({} runs)", runs.len())
            } else {
                label.to_string()
            },
            run_ids: runs.iter().map(|(r, _, _)| r.id.0.clone()).collect(),
            engine: first.and_then(|r| r.engine.clone()),
            cpu_model: first.and_then(|r| r.machine.get("cpu_model")?.as_str().map(str::to_string)),
            metrics,
        }
    }

    /// Loads a selector (run id, id prefix, or `k=v[,k=v]` tags) from the store.
    pub fn load(store: &Store, selector: &str) -> Result<Side, StoreError> {
        let runs = store.select(selector)?;
        let mut with_timelines = Vec::with_capacity(runs.len());
        for row in runs {
            let timeline = timeline_of(store, &row)?;
            let histograms = store.histograms(&row.id)?;
            with_timelines.push((row, timeline, histograms));
        }
        Ok(Side::from_runs(selector, &with_timelines))
    }
}

/// The run's timeline: the one in its result, else the rows streamed in while it ran.
pub fn timeline_of(store: &Store, row: &RunRow) -> Result<Vec<Value>, StoreError> {
    match row.result_timeline() {
        Some(t) => Ok(t.clone()),
        None => store.timeline(&row.id),
    }
}

/// The metrics of one stored run.
pub fn run_metrics(row: &RunRow, timeline: &[Value]) -> Vec<Metric> {
    row.result
        .as_ref()
        .map(|r| metrics::extract(r, timeline))
        .unwrap_or_default()
}

/// Group metrics: one value per run (the run's value), keyed and ordered as the first run.
fn over_runs(per_run: &[Vec<Metric>]) -> Vec<Metric> {
    let mut order: Vec<Metric> = Vec::new();
    let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for run in per_run {
        for m in run {
            let v = values.entry(m.key.clone()).or_default();
            if v.is_empty() && !order.iter().any(|o| o.key == m.key) {
                order.push(m.clone());
            }
            v.push(m.value);
        }
    }
    order
        .into_iter()
        .filter_map(|mut m| {
            let v = values.remove(&m.key)?;
            m.value = super::stats::mean(&v)?;
            m.samples = Some((SampleKind::PerRun, v));
            Some(m)
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Better,
    Worse,
    /// The interval contains zero.
    NoSignificantChange,
    /// Significant, for a metric where neither way is better.
    Changed,
    /// Fewer than [`MIN_SAMPLES`] samples on a side.
    TooFewSamples,
    /// A single value per side (no samples): a difference, no interval.
    NoInterval,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::NoSignificantChange => "no significant change",
            Verdict::Changed => "changed",
            Verdict::TooFewSamples => "too few samples",
            Verdict::NoInterval => "no interval (1 value each)",
        }
    }
}

/// A contender's figures for one metric.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub value: f64,
    pub diff_pct: Option<f64>,
    pub ci: Option<Interval>,
    pub n_base: Option<usize>,
    pub n: Option<usize>,
    pub samples: Option<SampleKind>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub key: String,
    pub label: String,
    pub unit: &'static str,
    pub direction: Direction,
    pub base: f64,
    /// One per contender; `None` when that contender lacks the metric.
    pub contenders: Vec<Option<Cell>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub base: Side,
    pub contenders: Vec<Side>,
    pub confidence: f64,
    pub resamples: usize,
    pub min_samples: usize,
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
}

impl Comparison {
    /// Any contender significantly worse on any metric.
    pub fn any_worse(&self) -> bool {
        self.rows
            .iter()
            .flat_map(|r| r.contenders.iter().flatten())
            .any(|c| c.verdict == Verdict::Worse)
    }
}

fn verdict_of(ci: Option<Interval>, direction: Direction) -> Verdict {
    match ci {
        None => Verdict::TooFewSamples,
        Some(i) if !i.excludes_zero() => Verdict::NoSignificantChange,
        Some(i) => match direction {
            Direction::Info => Verdict::Changed,
            Direction::HigherBetter if i.low_pct > 0.0 => Verdict::Better,
            Direction::LowerBetter if i.high_pct < 0.0 => Verdict::Better,
            _ => Verdict::Worse,
        },
    }
}

fn cell(base: &Metric, m: &Metric) -> Cell {
    let diff_pct = pct_diff(base.value, m.value);
    let (ci, verdict, n_base, n, kind) =
        match (&base.samples, &m.samples, &base.recorded, &m.recorded) {
            (Some((kb, b)), Some((kc, c)), _, _) if kb == kc => {
                let ci = bootstrap_diff(b, c, *kb);
                let verdict = verdict_of(ci, base.direction);
                (ci, verdict, Some(b.len()), Some(c.len()), Some(*kb))
            }
            (_, _, Some((b, q)), Some((c, _))) => {
                let ci = quantile_diff(b, c, *q);
                let verdict = verdict_of(ci, base.direction);
                (
                    ci,
                    verdict,
                    Some(b.draws() as usize),
                    Some(c.draws() as usize),
                    Some(SampleKind::PerRequest),
                )
            }
            (b, c, _, _) => {
                let verdict = if base.value == m.value {
                    Verdict::NoSignificantChange
                } else {
                    Verdict::NoInterval
                };
                (
                    None,
                    verdict,
                    b.as_ref().map(|s| s.1.len()),
                    c.as_ref().map(|s| s.1.len()),
                    None,
                )
            }
        };
    Cell {
        value: m.value,
        diff_pct,
        ci,
        n_base,
        n,
        samples: kind,
        verdict,
    }
}

/// Compares every contender with the base, metric by metric (the base's metrics, in order).
pub fn compare(base: Side, contenders: Vec<Side>) -> Comparison {
    let rows = base
        .metrics
        .iter()
        .map(|b| Row {
            key: b.key.clone(),
            label: b.label.clone(),
            unit: b.unit,
            direction: b.direction,
            base: b.value,
            contenders: contenders
                .iter()
                .map(|c| {
                    c.metrics
                        .iter()
                        .find(|m| m.key == b.key)
                        .map(|m| cell(b, m))
                })
                .collect(),
        })
        .collect();
    let mut notes = Vec::new();
    let all = std::iter::once(&base).chain(contenders.iter());
    if all.clone().all(|s| s.run_ids.len() == 1) {
        notes.push(format!(
            "one run per side: intervals ({:.0} %, {RESAMPLES} seeded bootstrap resamples; blocks of consecutive seconds; percentiles resample one request per second of the run) cover the noise within each run, not between runs. Repeat each configuration with the same --tag and compare the tags (e.g. `searchbench compare build=old build=new`) to include run-to-run noise.",
            CONFIDENCE * 100.0
        ));
    } else if all.clone().any(|s| s.run_ids.len() == 1) {
        notes.push("a single run compared with a group: metrics are per run on one side and per second on the other, so no interval is given; compare groups with groups".into());
    }
    let few: Vec<&str> = all
        .clone()
        .filter(|s| s.run_ids.len() > 1 && s.run_ids.len() < MIN_SAMPLES)
        .map(|s| s.label.as_str())
        .collect();
    if !few.is_empty() {
        notes.push(format!(
            "{} ha{} fewer than {MIN_SAMPLES} runs: no verdict over runs until there are {MIN_SAMPLES}",
            few.join(", "),
            if few.len() == 1 { "s" } else { "ve" }
        ));
    }
    let engines: Vec<&str> = all.clone().filter_map(|s| s.engine.as_deref()).collect();
    if engines.windows(2).any(|w| w[0] != w[1]) {
        notes.push(format!("engines differ: {}", engines.join(" vs ")));
    }
    let cpus: Vec<&str> = all.filter_map(|s| s.cpu_model.as_deref()).collect();
    if cpus.windows(2).any(|w| w[0] != w[1]) {
        notes.push(format!("measured on different CPUs: {}", cpus.join(" vs ")));
    }
    Comparison {
        base,
        contenders,
        confidence: CONFIDENCE,
        resamples: RESAMPLES,
        min_samples: MIN_SAMPLES,
        rows,
        notes,
    }
}

/// `+3.1 %`, with the interval when there is one: `+3.1 % [+1.0, +5.2]`.
pub fn format_diff(c: &Cell) -> String {
    let mut s = match c.diff_pct {
        Some(d) => format!("{d:+.1} %"),
        None => "n/a".into(),
    };
    if let Some(i) = c.ci {
        s.push_str(&format!(" [{:+.1}, {:+.1}]", i.low_pct, i.high_pct));
    }
    s
}

/// `n=58 vs 60 seconds`.
pub fn format_n(c: &Cell) -> String {
    match (c.n_base, c.n, c.samples) {
        (Some(a), Some(b), Some(k)) => format!("{a} vs {b} {}", k.name()),
        _ => "1 value each".into(),
    }
}

/// A number with sensible precision for tables.
pub fn format_value(v: f64) -> String {
    let a = v.abs();
    if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

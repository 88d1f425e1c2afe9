//! Comparing runs: metric by metric, the difference in percent, its bootstrap confidence
//! interval, the sample counts behind it, and a verdict.
//!
//! A side is one run or a group of repeated runs (selected by tags). For one run per side the
//! interval comes from within-run samples (seconds, query coverages) and says nothing about
//! run-to-run noise; the comparison says so in its notes. For groups, every metric is one value
//! per run and the interval is over runs, which includes run-to-run noise (Welch's t, from 2
//! runs a side; an interval that holds zero comes with the smallest change the runs could
//! have detected).
//!
//! Errors count in every verdict: an error metric that rises is worse whatever its interval,
//! and a contender with any errors is never better on anything. Only `complete` runs are
//! compared unless asked otherwise: a tag group leaves the others out (and says so), a single
//! run that was interrupted or never finished is refused, a failed one is flagged.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::configuration::{self, Configuration};
use super::runs::Group;
use crate::analysis::metrics::{self, Direction, Metric};
use crate::analysis::statistics::{
    bootstrap_diff, cv_pct, min_detectable, pct_diff, quantile_diff, Interval, SampleKind,
    CONFIDENCE, MIN_RUNS, MIN_SAMPLES, RESAMPLES,
};
use crate::store::{RunRow, State, Store, StoreError};
use crate::units::format_metric;

/// One side of a comparison: a run or a group of runs, with their metrics.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub label: String,
    pub run_ids: Vec<String>,
    pub engine: Option<String>,
    pub cpu_model: Option<String>,
    /// The state of each run, in `run_ids` order.
    pub states: Vec<State>,
    /// Runs of a tag group left out because they are not `complete`: `id (state)`.
    pub excluded: Vec<String>,
    #[serde(skip)]
    pub metrics: Vec<Metric>,
    /// Each run's configuration, in `run_ids` order.
    #[serde(skip)]
    pub configurations: Vec<Configuration>,
}

impl Side {
    /// A side from the runs a selector picked (see [`Group`]).
    pub fn from_group(group: &Group) -> Side {
        let runs = &group.runs;
        let per_run: Vec<Vec<Metric>> = runs
            .iter()
            .map(|l| {
                let mut m = run_metrics(&l.row, &l.timeline);
                metrics::with_histograms(&mut m, &l.histograms, l.timeline.len());
                m
            })
            .collect();
        let metrics = if per_run.len() == 1 {
            per_run.into_iter().next().unwrap_or_default()
        } else {
            over_runs(&per_run)
        };
        let first = runs.first().map(|l| &l.row);
        Side {
            label: group.label(),
            run_ids: runs.iter().map(|l| l.row.id.0.clone()).collect(),
            engine: first.and_then(|r| r.engine.clone()),
            cpu_model: first.and_then(|r| r.machine.get("cpu_model")?.as_str().map(str::to_string)),
            states: runs.iter().map(|l| l.row.state).collect(),
            excluded: group.excluded.clone(),
            metrics,
            configurations: runs.iter().map(|l| Configuration::of(&l.row)).collect(),
        }
    }

    /// Why this side's runs cannot stand for one figure: they are runs of more than one
    /// configuration (a tag that pools 1 and 4 clients), naming what differs.
    pub fn pools_configurations(&self) -> Option<String> {
        let first = self.configurations.first()?;
        let other = self.configurations.iter().find(|c| c.id != first.id)?;
        let n = {
            let mut ids: Vec<&str> = self.configurations.iter().map(|c| c.id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            ids.len()
        };
        Some(format!(
            "{} pools runs of {n} configurations ({})",
            self.label,
            configuration::differences(first, other).join(", ")
        ))
    }

    /// Why `self` and `other` are not two measurements of one thing: another kind of run or
    /// another workload (a logs load against a numbers load says nothing of either).
    pub fn other_workload(&self, other: &Side) -> Option<String> {
        let (a, b) = (self.configurations.first()?, other.configurations.first()?);
        (a.kind != b.kind || a.workload != b.workload).then(|| {
            format!(
                "{} is {} {} and {} is {} {}",
                self.label, a.kind, a.workload, other.label, b.kind, b.workload
            )
        })
    }

    /// The settings in which `other`'s configuration differs from this side's (the point of
    /// most comparisons, said so the reader knows what changed).
    pub fn settings_differ(&self, other: &Side) -> Vec<String> {
        match (self.configurations.first(), other.configurations.first()) {
            (Some(a), Some(b)) if a.kind == b.kind && a.workload == b.workload => {
                configuration::differences(a, b)
            }
            _ => Vec::new(),
        }
    }

    /// Loads a selector (run id, id prefix, or `k=v[,k=v]` tags) from the store: `complete`
    /// runs only (see [`Side::load_with`]).
    pub fn load(store: &Store, selector: &str) -> Result<Side, StoreError> {
        Side::load_with(store, selector, false)
    }

    /// Loads a selector as [`Group::load`] groups it. Without `include_partial` a single run
    /// that was interrupted, is still running or never finished is refused; a failed run is
    /// kept (its errors are what the comparison is about) and flagged.
    pub fn load_with(
        store: &Store,
        selector: &str,
        include_partial: bool,
    ) -> Result<Side, StoreError> {
        let group = Group::load(store, selector, include_partial)?;
        if let (false, false, [one]) = (include_partial, group.is_tags(), group.runs.as_slice()) {
            if !matches!(one.row.state, State::Complete | State::Failed) {
                return Err(StoreError::NotComplete {
                    id: one.row.id.0.clone(),
                    state: one.row.state.name(),
                });
            }
        }
        Ok(Side::from_group(&group))
    }

    /// Runs of this side that are not `complete`: `id (state)`.
    pub fn partial(&self) -> Vec<String> {
        self.run_ids
            .iter()
            .zip(&self.states)
            .filter(|(_, s)| **s != State::Complete)
            .map(|(id, s)| format!("{id} ({})", s.name()))
            .collect()
    }

    /// The side has errors: some error metric is above zero, or a run failed.
    pub fn has_errors(&self) -> bool {
        self.states.contains(&State::Failed)
            || self.metrics.iter().any(|m| m.errors && m.value > 0.0)
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
            m.value = crate::analysis::statistics::mean(&v)?;
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
    /// Fewer than [`MIN_SAMPLES`] samples (or [`MIN_RUNS`] runs) on a side.
    TooFewSamples,
    /// Would have been better, but the contender has errors: a run with failures is never
    /// better.
    NotBetterHasErrors,
    /// A single value per side (no samples): a difference, no interval.
    NoInterval,
}

impl Verdict {
    /// Better or worse: a change that counts (what "what changed" and `--only-changed` show).
    pub fn is_change(self) -> bool {
        matches!(self, Verdict::Better | Verdict::Worse)
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::NoSignificantChange => "no significant change",
            Verdict::Changed => "changed",
            Verdict::TooFewSamples => "too few samples",
            Verdict::NotBetterHasErrors => "not better: has errors",
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
    /// Run-to-run coefficient of variation of each side, percent (groups of runs only).
    pub spread_base_pct: Option<f64>,
    pub spread_pct: Option<f64>,
    /// When the interval holds zero: the smallest change (percent) these runs could have
    /// detected (95 % confidence, 80 % power); a larger one would have shown. Groups only.
    pub min_detectable_pct: Option<f64>,
    /// Contender minus base, in the metric's unit (what an error count's change reads as).
    pub change: f64,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub key: String,
    pub label: String,
    pub unit: &'static str,
    pub direction: Direction,
    /// An error count (any rise is worse).
    pub errors: bool,
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
    pub min_runs: usize,
    pub rows: Vec<Row>,
    /// Rows left out by [`Comparison::only_changed`]: no contender better or worse on them.
    pub hidden_unchanged: usize,
    pub notes: Vec<String>,
}

impl Row {
    /// A value of this metric for a table: an error count as a whole number.
    pub fn format(&self, v: f64) -> String {
        format_metric(self.errors, v)
    }

    /// Some contender is better or worse on this metric.
    pub fn changed(&self) -> bool {
        self.contenders
            .iter()
            .flatten()
            .any(|c| c.verdict.is_change())
    }
}

/// How one contender fared: the metrics on which it is better or worse, and how many others.
#[derive(Debug, Clone)]
pub struct Changes<'a> {
    pub contender: &'a Side,
    pub better: Vec<(&'a Row, &'a Cell)>,
    pub worse: Vec<(&'a Row, &'a Cell)>,
    /// Metrics compared without a significant change (or without a verdict).
    pub unchanged: usize,
}

impl Changes<'_> {
    /// `2 better, 1 worse, 40 without a significant change`.
    pub fn counts(&self) -> String {
        format!(
            "{} better, {} worse, {} without a significant change",
            self.better.len(),
            self.worse.len(),
            self.unchanged
        )
    }

    /// The changed metrics, the worse first.
    pub fn changed(&self) -> impl Iterator<Item = &(&Row, &Cell)> {
        self.worse.iter().chain(&self.better)
    }
}

impl Comparison {
    /// Keeps only the metrics on which some contender is better or worse, and counts the
    /// others in [`Comparison::hidden_unchanged`].
    pub fn only_changed(&mut self) {
        let before = self.rows.len();
        self.rows.retain(Row::changed);
        self.hidden_unchanged += before - self.rows.len();
    }

    /// Per contender, what got better and what got worse: the summary a reader wants first.
    pub fn changes(&self) -> Vec<Changes<'_>> {
        self.contenders
            .iter()
            .enumerate()
            .map(|(i, contender)| {
                let mut ch = Changes {
                    contender,
                    better: Vec::new(),
                    worse: Vec::new(),
                    unchanged: 0,
                };
                for row in &self.rows {
                    match row.contenders[i].as_ref() {
                        Some(c) if c.verdict == Verdict::Better => ch.better.push((row, c)),
                        Some(c) if c.verdict == Verdict::Worse => ch.worse.push((row, c)),
                        Some(_) => ch.unchanged += 1,
                        None => {}
                    }
                }
                ch
            })
            .collect()
    }

    /// Any contender significantly worse on any metric (a rise in errors included), or a
    /// contender that is not `complete` against a base that is.
    pub fn any_worse(&self) -> bool {
        let base_ok = self.base.partial().is_empty();
        self.rows
            .iter()
            .flat_map(|r| r.contenders.iter().flatten())
            .any(|c| c.verdict == Verdict::Worse)
            || (base_ok && self.contenders.iter().any(|c| !c.partial().is_empty()))
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

/// An error count: any rise is worse, a fall better, no interval needed.
fn error_cell(base: &Metric, m: &Metric) -> Cell {
    let verdict = if m.value > base.value {
        Verdict::Worse
    } else if m.value < base.value {
        Verdict::Better
    } else {
        Verdict::NoSignificantChange
    };
    Cell {
        value: m.value,
        diff_pct: pct_diff(base.value, m.value),
        ci: None,
        n_base: None,
        n: None,
        samples: None,
        spread_base_pct: None,
        spread_pct: None,
        min_detectable_pct: None,
        change: m.value - base.value,
        verdict,
    }
}

fn cell(base: &Metric, m: &Metric) -> Cell {
    if base.errors || m.errors {
        return error_cell(base, m);
    }
    let diff_pct = pct_diff(base.value, m.value);
    let mut spread = (None, None, None);
    let (ci, verdict, n_base, n, kind) =
        match (&base.samples, &m.samples, &base.recorded, &m.recorded) {
            (Some((kb, b)), Some((kc, c)), _, _) if kb == kc => {
                let ci = bootstrap_diff(b, c, *kb);
                let verdict = verdict_of(ci, base.direction);
                if *kb == SampleKind::PerRun {
                    let mde = (verdict == Verdict::NoSignificantChange)
                        .then(|| min_detectable(b, c))
                        .flatten();
                    spread = (cv_pct(b), cv_pct(c), mde);
                }
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
        spread_base_pct: spread.0,
        spread_pct: spread.1,
        min_detectable_pct: spread.2,
        change: m.value - base.value,
        verdict,
    }
}

/// Compares every contender with the base, metric by metric (the base's metrics, in order).
/// Why these sides cannot be compared as they are: a side that pools runs of several
/// configurations, or a contender of another kind or workload than the base. Each sentence
/// names what differs; empty when they can be. Callers refuse unless told `--allow-mixed`,
/// and then say it in the notes: a figure pooled from 1 and 4 clients, or a logs load set
/// against a numbers load, would give a verdict that means nothing.
pub fn mixed(base: &Side, contenders: &[&Side]) -> Vec<String> {
    let mut out: Vec<String> = std::iter::once(base)
        .chain(contenders.iter().copied())
        .filter_map(Side::pools_configurations)
        .collect();
    out.extend(contenders.iter().filter_map(|c| base.other_workload(c)));
    out.dedup();
    out
}

/// What to add to a refusal of [`mixed`] sides.
pub const ALLOW_MIXED_HINT: &str =
    "select runs of one configuration a side (add a tag), or pass --allow-mixed to compare them anyway";

pub fn compare(base: Side, contenders: Vec<Side>) -> Comparison {
    let rows = base
        .metrics
        .iter()
        .map(|b| Row {
            key: b.key.clone(),
            label: b.label.clone(),
            unit: b.unit,
            direction: b.direction,
            errors: b.errors,
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
        .collect::<Vec<Row>>();
    // A contender with errors is never better on anything.
    let mut rows = rows;
    for (i, c) in contenders.iter().enumerate() {
        if !c.has_errors() {
            continue;
        }
        for cell in rows.iter_mut().filter_map(|r| r.contenders[i].as_mut()) {
            if cell.verdict == Verdict::Better {
                cell.verdict = Verdict::NotBetterHasErrors;
            }
        }
    }
    let mut notes = Vec::new();
    for s in std::iter::once(&base).chain(contenders.iter()) {
        let partial = s.partial();
        if !partial.is_empty() {
            notes.push(format!(
                "{}: NOT COMPLETE: {} (partial figures; compared because asked to, or because a failed run's errors are the point)",
                s.label,
                partial.join(", ")
            ));
        }
        if !s.excluded.is_empty() {
            notes.push(format!(
                "{}: left out {} run(s) that are not complete: {} (--include-partial takes them)",
                s.label,
                s.excluded.len(),
                s.excluded.join(", ")
            ));
        }
    }
    if contenders.iter().any(Side::has_errors) {
        notes.push("errors count in every verdict: a rise in any error count is worse, and a contender with errors is never better".into());
    }
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
        .filter(|s| s.run_ids.len() > 1 && s.run_ids.len() < MIN_RUNS)
        .map(|s| s.label.as_str())
        .collect();
    if !few.is_empty() {
        notes.push(format!(
            "{} ha{} fewer than {MIN_RUNS} runs: no verdict over runs",
            few.join(", "),
            if few.len() == 1 { "s" } else { "ve" }
        ));
    }
    if all.clone().any(|s| s.run_ids.len() > 1) {
        notes.push(format!(
            "groups: one value per run, Welch's t interval ({:.0} %, Welch–Satterthwaite degrees of freedom) from {MIN_RUNS} runs a side; spread is each side's run-to-run coefficient of variation; when the interval holds zero, \"could detect\" is the smallest change these runs would have shown (80 % power)",
            CONFIDENCE * 100.0
        ));
    }
    for c in &contenders {
        let differ = base.settings_differ(c);
        if !differ.is_empty() {
            notes.push(format!(
                "{} differs from the base in: {}",
                c.label,
                differ.join(", ")
            ));
        }
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
        min_runs: MIN_RUNS,
        rows,
        hidden_unchanged: 0,
        notes,
    }
}

/// `+3.1 %`, with the interval when there is one: `+3.1 % [+1.0, +5.2]`; an error count's
/// change from zero as `+192 (from 0)`.
pub fn format_diff(c: &Cell) -> String {
    let mut s = match c.diff_pct {
        Some(d) => format!("{d:+.1} %"),
        // A whole count as it is (`+192`), anything else as a table shows a value.
        None if c.change.fract() == 0.0 && c.change.abs() < 1e15 => {
            format!("{:+} (from 0)", c.change)
        }
        None => {
            let sign = if c.change >= 0.0 { "+" } else { "" };
            format!("{sign}{} (from 0)", crate::units::format_value(c.change))
        }
    };
    if let Some(i) = c.ci {
        s.push_str(&format!(" [{:+.1}, {:+.1}]", i.low_pct, i.high_pct));
    }
    s
}

/// `58 vs 60 seconds`; for groups with their spread: `3 vs 3 runs, CV 2.1 / 1.8 %`.
pub fn format_n(c: &Cell) -> String {
    let mut s = match (c.n_base, c.n, c.samples) {
        (Some(a), Some(b), Some(k)) => format!("{a} vs {b} {}", k.name()),
        _ => "1 value each".into(),
    };
    if let (Some(a), Some(b)) = (c.spread_base_pct, c.spread_pct) {
        s.push_str(&format!(", CV {a:.1} / {b:.1} %"));
    }
    s
}

/// The verdict in words: `no significant change (could detect ±12.0 %)` when the runs could
/// not have seen a smaller change.
pub fn format_verdict(c: &Cell) -> String {
    match (c.verdict, c.min_detectable_pct) {
        (Verdict::NoSignificantChange, Some(m)) => {
            format!("no significant change (inconclusive below ±{m:.1} %)")
        }
        (v, _) => v.name().to_string(),
    }
}

/// The first group is the base, every other group a contender: what `compare` would show for
/// the same selectors.
pub fn comparison_of(groups: &[Group]) -> Option<Comparison> {
    let (base, contenders) = groups.split_first()?;
    if contenders.is_empty() {
        return None;
    }
    Some(compare(
        Side::from_group(base),
        contenders.iter().map(Side::from_group).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_zero(change: f64) -> Cell {
        Cell {
            value: change,
            diff_pct: None,
            ci: None,
            n_base: None,
            n: None,
            samples: None,
            spread_base_pct: None,
            spread_pct: None,
            min_detectable_pct: None,
            change,
            verdict: Verdict::NoInterval,
        }
    }

    #[test]
    fn a_change_from_zero_reads_as_a_table_value() {
        assert_eq!(format_diff(&from_zero(500.0)), "+500 (from 0)");
        assert_eq!(
            format_diff(&from_zero(9.077370308035386)),
            "+9.077 (from 0)"
        );
        assert_eq!(
            format_diff(&from_zero(0.956143440235958)),
            "+0.956 (from 0)"
        );
        assert_eq!(format_diff(&from_zero(-12.345)), "-12.3 (from 0)");
    }
}

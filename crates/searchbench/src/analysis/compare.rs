//! Comparing runs: metric by metric, the difference in percent, its confidence interval over
//! runs, the runs behind it, and a verdict.
//!
//! A side is one run or a group of repeated runs (selected by tags). One rule says what runs
//! can tell ([`cell`]), and every view applies it: groups made round by round (a matrix, a
//! sweep, `--round`) get the paired t interval over their rounds, other groups Welch's t
//! interval over runs, one run against a group the prediction interval of one more run of
//! the group, and one run
//! a side no verdict ("cannot tell": the seconds inside a run say nothing of the noise from
//! one run to the next). An interval that holds zero says "no significant change" only when
//! the runs could have seen the threshold's change; otherwise they cannot tell, and the cell
//! says the smallest change they could have seen and about how many runs a side would see the
//! threshold.
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
use super::steadier::{self, Leaning};
use crate::analysis::metrics::{Direction, Metric, THROUGHPUT};
use crate::analysis::multiple::{primary_weights, weighted_holm, Correction, ALPHA, PRIMARY_SHARE};
use crate::analysis::runs::Loaded;
use crate::analysis::statistics::{
    cv_pct, inverse, min_detectable, paired_diff, paired_min_detectable, paired_p,
    paired_spread_pct, pct_diff, prediction_diff, prediction_p, rounds_needed, runs_needed,
    welch_diff, welch_p, Interval, SampleKind, Test, CONFIDENCE, MIN_PAIRS, MIN_RUNS,
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
    /// Runs of a tag group left out: not `complete` (`id (state)`), or too short for their
    /// warm-up beside steady runs.
    pub excluded: Vec<String>,
    /// Why the side's figures are its runs' whole runs, warm-up included: every run was too
    /// short for its warm-up (`None`: steady headlines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub whole_run: Option<String>,
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
        let per_run: Vec<Vec<Metric>> = runs.iter().map(Loaded::metrics).collect();
        let rounds: Vec<Option<String>> = runs.iter().map(|l| round_of(&l.row.tags)).collect();
        let metrics = if per_run.len() == 1 {
            per_run.into_iter().next().unwrap_or_default()
        } else {
            over_runs(&per_run, &rounds)
        };
        let first = runs.first().map(|l| &l.row);
        Side {
            label: group.label(),
            run_ids: runs.iter().map(|l| l.row.id.0.clone()).collect(),
            engine: first.and_then(|r| r.engine.clone()),
            cpu_model: first
                .map(|r| crate::measure::machine::Machine::read(&r.machine).cpu_model)
                .filter(|m| !m.is_empty()),
            states: runs.iter().map(|l| l.row.state).collect(),
            excluded: group.excluded.clone(),
            whole_run: runs
                .iter()
                .map(|l| configuration::whole_run_headline(&l.row))
                .collect::<Option<Vec<String>>>()
                .and_then(|all| all.into_iter().next()),
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

    /// Why `self`'s and `other`'s headlines are not two measurements of one thing: one side's
    /// runs were all too short for their warm-up (its figure is the whole run's, warm-up
    /// included) and the other's had a steady window. The headline is then judged by no
    /// verdict, said so; never another configuration nor a refusal: the same command on a
    /// busy machine may end on either side of the line.
    pub fn other_measure(&self, other: &Side) -> Option<String> {
        let (short, steady) = match (&self.whole_run, &other.whole_run) {
            (Some(why), None) => ((self, why), other),
            (None, Some(why)) => ((other, why), self),
            _ => return None,
        };
        Some(format!(
            "{}: {}; {}: a steady window after its warm-up; two measures, so no verdict leans on the headline (run longer than twice the warm-up, or pass --warmup 0 on both sides to measure whole runs)",
            short.0.label, short.1, steady.label
        ))
    }

    /// Why `self` and `other` are not two measurements of one corpus: one side loaded a
    /// corpus synthesized for the track's (`--synthesize`) and the other the real one.
    pub fn other_corpus(&self, other: &Side) -> Option<String> {
        let synthesized = |s: &Side| s.configurations.first().map(Configuration::synthesized);
        let (a, b) = (synthesized(self)?, synthesized(other)?);
        let on = |yes: bool| {
            if yes {
                "a synthesized corpus"
            } else {
                "the real corpus"
            }
        };
        (a != b).then(|| {
            format!(
                "{} ran on {} and {} on {}: their difference would be the corpus's",
                self.label,
                on(a),
                other.label,
                on(b)
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

    /// The side as a group of independent runs: its runs' rounds forgotten, so that it is
    /// compared by Welch's t (`compare --unpaired`).
    pub fn forget_rounds(&mut self) {
        for m in &mut self.metrics {
            m.rounds.clear();
        }
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

/// The round a run was made in, when it was made round by round against other runs: a
/// matrix's (`matrix=ID`, `matrix_round=N`), or a `round=N` tag (a sweep's runs carry one,
/// `--round` sets it on a run made by hand). Runs of one round were made side by side.
pub fn round_of(tags: &BTreeMap<String, String>) -> Option<String> {
    if let (Some(id), Some(round)) = (tags.get("matrix"), tags.get("matrix_round")) {
        return Some(format!("matrix {id} round {round}"));
    }
    let round = tags.get("round")?;
    Some(match tags.get("sweep") {
        Some(id) => format!("sweep {id} round {round}"),
        None => format!("round {round}"),
    })
}

/// Group metrics: one value per run (the run's value), keyed and ordered as the first run,
/// each value with the round of its run (`rounds`, one per run).
fn over_runs(per_run: &[Vec<Metric>], rounds: &[Option<String>]) -> Vec<Metric> {
    let mut order: Vec<Metric> = Vec::new();
    let mut values: BTreeMap<String, (Vec<f64>, Vec<Option<String>>)> = BTreeMap::new();
    for (i, run) in per_run.iter().enumerate() {
        for m in run {
            let v = values.entry(m.key.clone()).or_default();
            // A key seen first has no values yet: it is listed once, in order.
            if v.0.is_empty() {
                order.push(m.clone());
            }
            v.0.push(m.value);
            v.1.push(rounds.get(i).cloned().flatten());
        }
    }
    order
        .into_iter()
        .filter_map(|mut m| {
            let (v, r) = values.remove(&m.key)?;
            m.value = crate::analysis::statistics::mean(&v)?;
            m.samples = Some((SampleKind::PerRun, v));
            m.rounds = r;
            Some(m)
        })
        .collect()
}

/// The two sides' values as pairs `(base, contender)`, one per round, when both were made
/// round by round over the same rounds (each run in one round, each round once a side) and
/// there are [`MIN_PAIRS`] of them or more; else `None` (the sides are independent groups).
pub fn pairs_of(base: &Metric, m: &Metric) -> Option<Vec<(f64, f64)>> {
    let (b, k) = (over_runs_of(base)?, over_runs_of(m)?);
    if b.len() != base.rounds.len() || k.len() != m.rounds.len() || b.len() != k.len() {
        return None;
    }
    let keyed = |values: &[f64], rounds: &[Option<String>]| {
        let mut by: BTreeMap<String, f64> = BTreeMap::new();
        for (v, r) in values.iter().zip(rounds) {
            if by.insert(r.clone()?, *v).is_some() {
                return None;
            }
        }
        Some(by)
    };
    let (kb, kk) = (keyed(b, &base.rounds)?, keyed(k, &m.rounds)?);
    let pairs: Option<Vec<(f64, f64)>> = kb
        .iter()
        .map(|(round, v)| kk.get(round).map(|w| (*v, *w)))
        .collect();
    pairs.filter(|p| p.len() >= MIN_PAIRS)
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
    /// Fewer than [`MIN_RUNS`] runs with the metric on a side.
    TooFewSamples,
    /// Would have been better, but the contender has errors: a run with failures is never
    /// better.
    NotBetterHasErrors,
    /// The runs cannot tell: one run a side (no spread from run to run), or runs too noisy
    /// to have seen a change of the threshold (see [`Cell::min_detectable_pct`]).
    CannotTell,
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
            Verdict::CannotTell => "cannot tell",
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
    /// detected (95 % confidence, 80 % power); a larger one would have shown. Over runs only.
    pub min_detectable_pct: Option<f64>,
    /// When the runs cannot tell for their noise: about how many runs a side (rounds, when
    /// paired) would see a change of the comparison's threshold.
    pub runs_needed: Option<usize>,
    /// The test behind the interval, for values over runs.
    pub test: Option<Test>,
    /// Paired: the spread of the rounds' changes, percent (see
    /// [`crate::analysis::statistics::paired_spread_pct`]).
    pub spread_pair_pct: Option<f64>,
    /// Contender minus base, in the metric's unit (what an error count's change reads as).
    pub change: f64,
    /// The p-value of the test behind the interval, and Holm's adjusted one over the metrics
    /// this contender is judged on ([`super::multiple`]): a change counts when the adjusted
    /// p-value is at most [`super::multiple::ALPHA`].
    pub p_value: Option<f64>,
    pub p_adjusted: Option<f64>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub key: String,
    pub label: String,
    pub unit: std::borrow::Cow<'static, str>,
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
    /// The smallest change worth seeing (percent): an interval holding zero that could not
    /// have seen it cannot tell.
    pub threshold_pct: f64,
    pub min_runs: usize,
    pub rows: Vec<Row>,
    /// Rows left out by [`Comparison::only_changed`]: no contender better or worse on them.
    pub hidden_unchanged: usize,
    /// One per contender: the verdict leaning on the engine's CPU per document where the
    /// throughput's runs cannot tell (see [`super::steadier`]).
    pub leanings: Vec<Option<Leaning>>,
    /// The correction over the metrics each contender is judged on.
    pub correction: Correction,
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
    /// Metrics compared without a significant change.
    pub unchanged: usize,
    /// Metrics on which the runs cannot tell (or that have no verdict).
    pub cannot_tell: usize,
}

impl Changes<'_> {
    /// `2 better, 1 worse, 40 without a significant change, 3 the runs cannot tell`.
    pub fn counts(&self) -> String {
        let mut s = format!(
            "{} better, {} worse, {} without a significant change",
            self.better.len(),
            self.worse.len(),
            self.unchanged
        );
        if self.cannot_tell > 0 {
            s.push_str(&format!(", {} the runs cannot tell", self.cannot_tell));
        }
        s
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
                    cannot_tell: 0,
                };
                for row in &self.rows {
                    match row.contenders[i].as_ref() {
                        Some(c) if c.verdict == Verdict::Better => ch.better.push((row, c)),
                        Some(c) if c.verdict == Verdict::Worse => ch.worse.push((row, c)),
                        Some(c)
                            if matches!(
                                c.verdict,
                                Verdict::CannotTell | Verdict::TooFewSamples
                            ) =>
                        {
                            ch.cannot_tell += 1
                        }
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
        verdict,
        ..Cell::bare(base, m)
    }
}

/// The values of a metric over runs (one per run), when it has them: a group's, or an
/// experiment's that repeats its runs inside one stored run.
fn over_runs_of(m: &Metric) -> Option<&[f64]> {
    match &m.samples {
        Some((SampleKind::PerRun, v)) => Some(v),
        _ => None,
    }
}

impl Cell {
    /// The figures without a verdict: the values, no interval ("cannot tell").
    fn bare(base: &Metric, m: &Metric) -> Cell {
        Cell::unjudged(m.value, pct_diff(base.value, m.value), m.value - base.value)
    }

    /// A value, its difference in percent and in the metric's unit; nothing else known.
    fn unjudged(value: f64, diff_pct: Option<f64>, change: f64) -> Cell {
        Cell {
            value,
            diff_pct,
            ci: None,
            n_base: None,
            n: None,
            samples: None,
            spread_base_pct: None,
            spread_pct: None,
            min_detectable_pct: None,
            runs_needed: None,
            test: None,
            spread_pair_pct: None,
            change,
            p_value: None,
            p_adjusted: None,
            verdict: Verdict::CannotTell,
        }
    }

    /// An interval that holds zero says "no significant change" only when the runs could
    /// have seen a change of `threshold_pct`: otherwise they cannot tell, and say the
    /// smallest change they could have seen (`reach`) and about how many runs a side would
    /// see the threshold (from one run's spread, `cv_pct`). A gate that passes blind is worse
    /// than none.
    fn not_blind(&mut self, reach: Option<f64>, cv_pct: Option<f64>, threshold_pct: f64) {
        // What the runs could have seen, whatever they saw: a change the correction later
        // finds not significant says it too (see [`Cell::corrected_to_no_change`]).
        self.min_detectable_pct = reach;
        if self.verdict != Verdict::NoSignificantChange {
            return;
        }
        if reach.is_some_and(|r| r > threshold_pct) {
            self.verdict = Verdict::CannotTell;
            self.runs_needed = match self.test {
                Some(Test::PairedT) => self
                    .spread_pair_pct
                    .and_then(|s| rounds_needed(s, threshold_pct)),
                _ => cv_pct.and_then(|cv| runs_needed(cv, threshold_pct)),
            };
        }
    }
}

impl Cell {
    /// A change the family's correction found not significant is "no significant change" on
    /// the same terms as any other: only when the runs could have seen the threshold, else
    /// they cannot tell (with about how many runs would).
    fn corrected_to_no_change(&mut self, threshold_pct: f64) {
        self.verdict = Verdict::NoSignificantChange;
        let cv = self
            .spread_base_pct
            .into_iter()
            .chain(self.spread_pct)
            .reduce(f64::max);
        self.not_blind(self.min_detectable_pct, cv, threshold_pct);
    }
}

/// The one rule for what runs can tell, which every view applies (compare, check, reports):
///
/// - values over runs on both sides (groups of runs): Welch's t interval over runs;
/// - one run against runs: the prediction interval of one more run like them (Student's t);
/// - one run a side: no verdict. The seconds inside a run say nothing of the noise from one
///   run to the next (two runs of one configuration once read `WORSE [-48.4, -48.4]`): the
///   difference is shown, the verdict is "cannot tell" (unless the two are equal).
///
/// An interval that holds zero is "no significant change" only when it could have seen a
/// change of `threshold_pct` (see [`Cell::not_blind`]).
pub fn cell(base: &Metric, m: &Metric, threshold_pct: f64) -> Cell {
    if base.errors || m.errors {
        return error_cell(base, m);
    }
    let mut c = Cell::bare(base, m);
    if let Some(pairs) = pairs_of(base, m) {
        paired_cell(&mut c, &pairs, base.direction, threshold_pct);
        return c;
    }
    match (over_runs_of(base), over_runs_of(m)) {
        (Some(b), Some(k)) => {
            c.test = Some(Test::Welch);
            c.ci = welch_diff(b, k);
            c.p_value = welch_p(b, k);
            c.verdict = verdict_of(c.ci, base.direction);
            // No interval with runs enough: every run the same figure (no failed attempt
            // anywhere), which is no change; or a change from a mean of zero, which has no
            // ratio to put an interval on.
            if c.ci.is_none() && b.len() >= MIN_RUNS && k.len() >= MIN_RUNS {
                c.verdict = if b.iter().chain(k).all(|v| *v == b[0]) {
                    Verdict::NoSignificantChange
                } else {
                    Verdict::CannotTell
                };
            }
            (c.n_base, c.n, c.samples) = (Some(b.len()), Some(k.len()), Some(SampleKind::PerRun));
            (c.spread_base_pct, c.spread_pct) = (cv_pct(b), cv_pct(k));
            let cv = c
                .spread_base_pct
                .into_iter()
                .chain(c.spread_pct)
                .reduce(f64::max);
            c.not_blind(min_detectable(b, k), cv, threshold_pct);
        }
        (Some(b), None) => {
            c.ci = prediction_diff(b, m.value);
            c.p_value = prediction_p(b, m.value);
            one_against_runs(&mut c, base.direction, b, (b.len(), 1), threshold_pct);
        }
        (None, Some(k)) => {
            // Where the base would fall among the contender's runs, turned round.
            c.ci = prediction_diff(k, base.value).and_then(inverse);
            c.p_value = prediction_p(k, base.value);
            one_against_runs(&mut c, base.direction, k, (1, k.len()), threshold_pct);
        }
        (None, None) => {
            (c.n_base, c.n) = (Some(1), Some(1));
            if base.value == m.value {
                c.verdict = Verdict::NoSignificantChange;
            }
        }
    }
    c
}

/// Two sides made round by round: the paired t interval of each round's change, the rounds'
/// spread, and what they could have seen (as [`cell`] does for two groups).
fn paired_cell(c: &mut Cell, pairs: &[(f64, f64)], direction: Direction, threshold_pct: f64) {
    c.test = Some(Test::PairedT);
    c.ci = paired_diff(pairs);
    c.p_value = paired_p(pairs);
    c.verdict = verdict_of(c.ci, direction);
    if c.ci.is_none() {
        // Every round the same figure on both sides: no change; else no ratio to judge.
        c.verdict = if pairs.iter().all(|p| p.0 == p.1) {
            Verdict::NoSignificantChange
        } else {
            Verdict::CannotTell
        };
    }
    let n = pairs.len();
    (c.n_base, c.n, c.samples) = (Some(n), Some(n), Some(SampleKind::PerRun));
    let (b, k): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
    (c.spread_base_pct, c.spread_pct) = (cv_pct(&b), cv_pct(&k));
    c.spread_pair_pct = paired_spread_pct(pairs);
    c.not_blind(paired_min_detectable(pairs), None, threshold_pct);
}

/// One run against `runs`: the verdict of its prediction interval, whose half width is the
/// smallest change it could have seen.
fn one_against_runs(
    c: &mut Cell,
    direction: Direction,
    runs: &[f64],
    n: (usize, usize),
    threshold_pct: f64,
) {
    c.verdict = verdict_of(c.ci, direction);
    (c.n_base, c.n, c.samples) = (Some(n.0), Some(n.1), Some(SampleKind::PerRun));
    let spread = cv_pct(runs);
    if n.0 > 1 {
        c.spread_base_pct = spread;
    } else {
        c.spread_pct = spread;
    }
    let reach = c.ci.map(|i| (i.high_pct - i.low_pct) / 2.0);
    c.not_blind(reach, spread, threshold_pct);
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
    out.extend(contenders.iter().filter_map(|c| base.other_corpus(c)));
    out.dedup();
    out
}

/// What to add to a refusal of [`mixed`] sides.
pub const ALLOW_MIXED_HINT: &str =
    "select runs of one configuration a side (add a tag), or pass --allow-mixed to compare them anyway";

/// The comparison of `base` and `contenders` as every view that gives verdicts makes it
/// (`compare`, `report`): refused when the sides are [`mixed`], unless `allow_mixed`, and then
/// said first in its notes.
pub fn checked(
    base: Side,
    contenders: Vec<Side>,
    threshold_pct: f64,
    allow_mixed: bool,
) -> Result<Comparison, String> {
    let mixed = mixed(&base, &contenders.iter().collect::<Vec<_>>());
    if !mixed.is_empty() && !allow_mixed {
        return Err(format!(
            "cannot compare: {}; {ALLOW_MIXED_HINT}",
            mixed.join("; ")
        ));
    }
    let mut c = compare_at(base, contenders, threshold_pct);
    for m in mixed {
        c.notes.insert(0, format!("MIXED (--allow-mixed): {m}"));
    }
    Ok(c)
}

/// How the correction weighed its family, as a clause of a sentence: `, the headline
/// (docs_per_sec) weighing half` or nothing when every metric weighed the same.
pub fn weighting(c: &Correction) -> String {
    match &c.primary {
        Some(key) => format!(
            ", the headline ({key}) weighing {:.0} % of it",
            c.primary_share * 100.0
        ),
        None => String::new(),
    }
}

/// The threshold a comparison uses unless told another: `check`'s default.
pub const DEFAULT_THRESHOLD_PCT: f64 = 5.0;

/// [`compare_at`] the default threshold.
pub fn compare(base: Side, contenders: Vec<Side>) -> Comparison {
    compare_at(base, contenders, DEFAULT_THRESHOLD_PCT)
}

/// Holm's correction over each contender's tested metrics (error counts are a rule, not a
/// test): a change whose adjusted p-value is above [`ALPHA`] is no significant change. The
/// interval shown stays the metric's own 95 % one.
/// `only`: the metrics of the family when a verdict is made from some of them (a `check` of
/// its `--metric`s); every metric when `None`. The family's headline (the first of
/// [`crate::analysis::history::HEADLINE`] it tests) weighs [`PRIMARY_SHARE`] of it. A
/// history's steps between points are corrected by it too, one step a family.
pub(crate) fn correct(
    rows: &mut [Row],
    contenders: usize,
    only: Option<&[String]>,
    threshold_pct: f64,
) -> Correction {
    let mut family = Vec::with_capacity(contenders);
    let mut primary_key = None;
    for i in 0..contenders {
        let tested: Vec<(usize, f64)> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.errors)
            .filter(|(_, r)| only.is_none_or(|keys| keys.contains(&r.key)))
            .filter_map(|(k, r)| Some((k, r.contenders[i].as_ref()?.p_value?)))
            .collect();
        let p: Vec<f64> = tested.iter().map(|(_, p)| *p).collect();
        let primary = crate::analysis::history::HEADLINE
            .iter()
            .find_map(|key| tested.iter().position(|(k, _)| rows[*k].key == *key));
        if tested.len() > 1 {
            primary_key = primary_key.or(primary.map(|at| rows[tested[at].0].key.clone()));
        }
        let weights = primary_weights(tested.len(), primary);
        for ((k, _), adjusted) in tested.iter().zip(weighted_holm(&p, &weights)) {
            let Some(c) = rows[*k].contenders[i].as_mut() else {
                continue;
            };
            c.p_adjusted = Some(adjusted);
            let change = matches!(
                c.verdict,
                Verdict::Better | Verdict::Worse | Verdict::Changed
            );
            if change && adjusted > ALPHA {
                c.corrected_to_no_change(threshold_pct);
            }
        }
        family.push(tested.len());
    }
    Correction {
        method: "holm",
        alpha: ALPHA,
        family,
        primary_share: if primary_key.is_some() {
            PRIMARY_SHARE
        } else {
            0.0
        },
        primary: primary_key,
    }
}

/// Compares every contender with the base, metric by metric (the base's metrics, in order),
/// by the one rule of [`cell`]; `threshold_pct` is the smallest change worth seeing.
pub fn compare_at(base: Side, contenders: Vec<Side>, threshold_pct: f64) -> Comparison {
    compare_family(base, contenders, threshold_pct, None)
}

/// [`compare_at`] with the family of the correction ([`correct`]) limited to the metrics
/// `only` names, when the verdict is made from those alone.
pub fn compare_family(
    base: Side,
    contenders: Vec<Side>,
    threshold_pct: f64,
    only: Option<&[String]>,
) -> Comparison {
    // Each contender's metrics by key (the first of a key, as a search would find it): a run
    // of many tasks has many keys, each found at once.
    let by_key: Vec<std::collections::HashMap<&str, &Metric>> = (contenders.iter())
        .map(|c| {
            let mut keyed = std::collections::HashMap::new();
            for m in &c.metrics {
                keyed.entry(m.key.as_str()).or_insert(m);
            }
            keyed
        })
        .collect();
    let rows = base
        .metrics
        .iter()
        .map(|b| Row {
            key: b.key.clone(),
            label: b.label.clone(),
            unit: b.unit.clone(),
            direction: b.direction,
            errors: b.errors,
            base: b.value,
            contenders: (by_key.iter())
                .map(|keyed| keyed.get(b.key.as_str()).map(|m| cell(b, m, threshold_pct)))
                .collect(),
        })
        .collect::<Vec<Row>>();
    let mut rows = rows;
    let correction = correct(&mut rows, contenders.len(), only, threshold_pct);
    // A contender with errors is never better on anything.
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
    // A side of runs all too short for their warm-up against a steady side: their headlines
    // are two measures (a whole run's, warm-up included, and a steady window's), so no
    // verdict leans on the headline; every other metric is judged as usual. Said, and never
    // refused: which side of the line a run ends on is the outcome, not what was asked.
    let other_measures: Vec<Option<String>> =
        contenders.iter().map(|c| base.other_measure(c)).collect();
    for (i, why) in other_measures.iter().enumerate() {
        if why.is_none() {
            continue;
        }
        let headline = rows.iter_mut().filter(|r| r.key == THROUGHPUT);
        for cell in headline.filter_map(|r| r.contenders[i].as_mut()) {
            cell.verdict = Verdict::CannotTell;
        }
    }
    let leanings: Vec<Option<Leaning>> = (0..contenders.len())
        .map(|i| {
            let cell = |key: &str| {
                rows.iter()
                    .find(|r| r.key == key)
                    .and_then(|r| r.contenders[i].as_ref())
            };
            if other_measures[i].is_some() {
                return None;
            }
            steadier::lean(cell(THROUGHPUT)?, cell(steadier::COST)?)
        })
        .collect();
    let mut notes: Vec<String> = other_measures
        .iter()
        .flatten()
        .map(|why| format!("HEADLINE NOT JUDGED: {why}"))
        .collect();
    for (c, l) in contenders.iter().zip(&leanings) {
        if let Some(l) = l {
            notes.push(format!("{}: {}", c.label, l.said));
        }
    }
    for s in std::iter::once(&base).chain(contenders.iter()) {
        let partial = s.partial();
        if !partial.is_empty() {
            notes.push(format!(
                "{}: NOT COMPLETE: {} (partial figures; compared because asked to, or because a failed run's errors are the point)",
                s.label,
                partial.join(", ")
            ));
        }
        let (short, incomplete): (Vec<&String>, Vec<&String>) = s
            .excluded
            .iter()
            .partition(|e| e.contains(configuration::LEFT_OUT));
        if !incomplete.is_empty() {
            notes.push(format!(
                "{}: left out {} run(s) that are not complete: {} (--include-partial takes them)",
                s.label,
                incomplete.len(),
                incomplete
                    .iter()
                    .map(|e| e.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !short.is_empty() {
            notes.push(format!(
                "{}: left out {} run(s) too short for their warm-up, beside runs with a steady headline: {}",
                s.label,
                short.len(),
                short.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
        if let Some(why) = &s.whole_run {
            notes.push(format!(
                "{}: {why}: its figures are whole runs, warm-up included",
                s.label
            ));
        }
    }
    if contenders.iter().any(Side::has_errors) {
        notes.push("errors count in every verdict: a rise in any error count is worse, and a contender with errors is never better".into());
    }
    let all = std::iter::once(&base).chain(contenders.iter());
    let sides = all.clone().count();
    let single = all.clone().filter(|s| s.run_ids.len() == 1).count();
    if single >= 2 {
        notes.push(format!(
            "one run a side: no verdict over runs (cannot tell), only the difference: the seconds inside a run say nothing of the noise from one run to the next. Repeat each configuration with the same --tag ({MIN_RUNS} or more runs; `searchbench calibrate` says how many see a {threshold_pct} % change) and compare the tags, e.g. `searchbench compare build=old build=new`"
        ));
    }
    if single >= 1 && single < sides {
        notes.push(format!(
            "one run against a group: the {:.0} % prediction interval of one more run of the group (Student's t over its runs)",
            CONFIDENCE * 100.0
        ));
    }
    let used = |test: Test| {
        rows.iter()
            .flat_map(|r| r.contenders.iter().flatten())
            .any(|c| c.test == Some(test))
    };
    if used(Test::PairedT) {
        notes.push(format!(
            "paired: the runs were made round by round (a matrix's rounds, a sweep's, --round), so each round's contender is set against that round's base: Student's paired t ({:.0} %) over the rounds' log ratios, n − 1 degrees of freedom; the machine's drift from round to round cancels instead of counting as noise; \"ratio ±\" is the spread of the rounds' ratios",
            CONFIDENCE * 100.0
        ));
    }
    if used(Test::Welch) {
        notes.push(format!(
            "groups: one value per run, Welch's t interval ({:.0} %, Welch–Satterthwaite degrees of freedom) from {MIN_RUNS} runs a side; spread is each side's run-to-run coefficient of variation; when the interval holds zero, the runs could not have seen a smaller change than \"inconclusive below\" (80 % power), and cannot tell when that is more than {threshold_pct} %",
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
    notes.extend(background_differs(&base, &contenders));
    let engines: Vec<&str> = all.clone().filter_map(|s| s.engine.as_deref()).collect();
    if engines.windows(2).any(|w| w[0] != w[1]) {
        notes.push(format!("engines differ: {}", engines.join(" vs ")));
    }
    let cpus: Vec<&str> = all.filter_map(|s| s.cpu_model.as_deref()).collect();
    if cpus.windows(2).any(|w| w[0] != w[1]) {
        notes.push(format!("measured on different CPUs: {}", cpus.join(" vs ")));
    }
    if correction.family.iter().any(|n| *n > 1) {
        notes.push(format!(
            "many metrics: a change counts when it stays significant after Holm's correction \
             over the {} metric(s) tested for each contender{} (family-wise error at most {:.0} \
             %: two identical sides show a change on any metric at most that often); the \
             intervals are each metric's own {:.0} %, p and adjusted p are in --json",
            correction.family.iter().max().copied().unwrap_or(0),
            weighting(&correction),
            ALPHA * 100.0,
            CONFIDENCE * 100.0
        ));
    }
    Comparison {
        base,
        contenders,
        confidence: CONFIDENCE,
        threshold_pct,
        min_runs: MIN_RUNS,
        rows,
        hidden_unchanged: 0,
        leanings,
        correction,
        notes,
    }
}

pub use super::metrics::MACHINE_PREFIX;

/// How far apart, in points, the two sides' background may be before a comparison says so:
/// other processes' share of the machine, stolen CPU, time a task waited for a CPU.
const BACKGROUND_APART: [(&str, &str, f64); 3] = [
    (
        "machine.other_cpu_pct",
        "other processes' share of the machine's CPU",
        10.0,
    ),
    ("machine.steal_pct", "CPU stolen by the hypervisor", 5.0),
    (
        "machine.cpu_pressure_pct",
        "time a task waited for a CPU",
        20.0,
    ),
];

/// A note for each contender whose runs ran under another background than the base's: a
/// difference in throughput may be the co-tenant's, not the change's.
fn background_differs(base: &Side, contenders: &[Side]) -> Vec<String> {
    let value = |s: &Side, key: &str| s.metrics.iter().find(|m| m.key == key).map(|m| m.value);
    let mut notes = Vec::new();
    for c in contenders {
        for (key, what, apart) in BACKGROUND_APART {
            let (Some(b), Some(v)) = (value(base, key), value(c, key)) else {
                continue;
            };
            if (v - b).abs() > apart {
                notes.push(format!(
                    "BACKGROUND DIFFERS: {what}: {v:.0} % during {} against {b:.0} % during {} (more than {apart} points apart): a difference between them may be the machine's, not the change's; compare runs made round by round (--round, a matrix) or on a quiet machine",
                    c.label, base.label
                ));
            }
        }
    }
    notes
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

/// `1 vs 1 runs`; with a spread: `3 vs 3 runs (Welch), CV 2.1 / 1.8 %`; paired: `5 rounds
/// (paired t), ratio ±0.8 %, CV 12.0 / 11.5 %` (the rounds' changes spread far less than the
/// runs do when the machine drifts).
pub fn format_n(c: &Cell) -> String {
    let mut s = match (c.n_base, c.n, c.test) {
        (Some(a), _, Some(Test::PairedT)) => {
            let mut s = format!("{a} rounds (paired t)");
            if let Some(p) = c.spread_pair_pct {
                s.push_str(&format!(", ratio ±{p:.1} %"));
            }
            s
        }
        (Some(a), Some(b), Some(Test::Welch)) => format!("{a} vs {b} runs (Welch)"),
        (Some(a), Some(b), None) => format!("{a} vs {b} runs"),
        _ => "1 value each".into(),
    };
    match (c.spread_base_pct, c.spread_pct) {
        (Some(a), Some(b)) => s.push_str(&format!(", CV {a:.1} / {b:.1} %")),
        (Some(a), None) => s.push_str(&format!(", CV {a:.1} % / -")),
        (None, Some(b)) => s.push_str(&format!(", CV - / {b:.1} %")),
        (None, None) => {}
    }
    s
}

/// The verdict in words, with what the runs could see: `no significant change (inconclusive
/// below ±3.0 %)`; `cannot tell: inconclusive below ±40.1 % (about 12 runs a side would see
/// 5 %)`; `cannot tell: one run a side`.
pub fn format_verdict(c: &Cell, threshold_pct: f64) -> String {
    match (c.verdict, c.min_detectable_pct) {
        (Verdict::NoSignificantChange, Some(m)) => {
            format!("no significant change (inconclusive below ±{m:.1} %)")
        }
        (Verdict::CannotTell, Some(m)) => format!(
            "cannot tell: inconclusive below ±{m:.1} % ({})",
            match (c.runs_needed, c.test) {
                (Some(k), Some(Test::PairedT)) => {
                    format!("about {k} rounds would see {threshold_pct} %")
                }
                (Some(k), _) => format!("about {k} runs a side would see {threshold_pct} %"),
                (None, _) => {
                    format!("too noisy to see {threshold_pct} % with any number of runs")
                }
            }
        ),
        (Verdict::CannotTell, None) if c.n_base == Some(1) && c.n == Some(1) => {
            "cannot tell: one run a side".into()
        }
        (v, _) => v.name().to_string(),
    }
}

/// The first group is the base, every other group a contender: what `compare --allow-mixed`
/// would show for the same selectors (mixed sides said in its notes). A view that gives
/// verdicts refuses mixed groups first ([`mixed_groups`]).
pub fn comparison_of(groups: &[Group]) -> Option<Comparison> {
    let (base, contenders) = groups.split_first()?;
    if contenders.is_empty() {
        return None;
    }
    checked(
        Side::from_group(base),
        contenders.iter().map(Side::from_group).collect(),
        DEFAULT_THRESHOLD_PCT,
        true,
    )
    .ok()
}

/// Why `groups` (the first the base) cannot be compared as they are, as `compare` refuses
/// them; `None` when they can, or when there is nothing to compare.
pub fn mixed_groups(groups: &[Group]) -> Option<String> {
    let (base, contenders) = groups.split_first()?;
    let contenders: Vec<Side> = contenders.iter().map(Side::from_group).collect();
    let why = mixed(
        &Side::from_group(base),
        &contenders.iter().collect::<Vec<_>>(),
    );
    (!why.is_empty()).then(|| format!("cannot compare: {}; {ALLOW_MIXED_HINT}", why.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::multiple::holm;

    fn from_zero(change: f64) -> Cell {
        Cell::unjudged(change, None, change)
    }

    fn over_runs(values: &[f64]) -> Metric {
        Metric {
            key: "error_rate_pct".into(),
            label: "failed attempts".into(),
            unit: "%".into(),
            direction: Direction::LowerBetter,
            value: values.iter().sum::<f64>() / values.len() as f64,
            samples: Some((SampleKind::PerRun, values.to_vec())),
            errors: false,
            rounds: Vec::new(),
        }
    }

    /// A change three runs a side see uncorrected (p < 0.05) that the family's correction
    /// finds not significant still says what the runs could have seen, and cannot tell when
    /// that is beyond the threshold (a CI run once read "no significant change" with neither).
    #[test]
    fn a_change_the_correction_drops_says_what_the_runs_could_have_seen() {
        let base = over_runs(&[14500.0, 15100.0, 13900.0]);
        let contender = over_runs(&[17000.0, 18400.0, 16500.0]);
        let mut c = cell(&base, &contender, 5.0);
        assert_eq!(c.verdict, Verdict::Worse, "{c:?}");
        let reach = c
            .min_detectable_pct
            .expect("the runs' reach, whatever the verdict");
        c.corrected_to_no_change(5.0);
        assert_eq!(c.min_detectable_pct, Some(reach));
        // Three noisy runs cannot see 5 %: the dropped change is "cannot tell", with runs.
        assert!(reach > 5.0, "{reach}");
        assert_eq!(c.verdict, Verdict::CannotTell, "{c:?}");
        assert!(c.runs_needed.is_some(), "{c:?}");
        let mut wide = cell(&base, &contender, 50.0);
        wide.corrected_to_no_change(50.0);
        assert_eq!(wide.verdict, Verdict::NoSignificantChange, "{wide:?}");
        assert!(format_verdict(&wide, 50.0).contains("inconclusive below"));
    }

    /// 78 metrics that do not change (each side's runs drawn from one distribution, noise
    /// 5 % a run, 5 runs a side), compared many times: the gate (any metric worse) fires in
    /// at most its level of the comparisons, where uncorrected it fires in almost all.
    #[test]
    fn seventy_eight_null_metrics_fire_the_gate_at_most_at_its_level() {
        let mut rng = crate::rng::Rng::new(7, 78);
        // A normal draw from two uniforms (Box–Muller).
        let mut normal = move || {
            let (u, v) = (rng.unit().max(1e-12), rng.unit());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        };
        let trials = 400;
        let (mut fired, mut fired_uncorrected) = (0, 0);
        for _ in 0..trials {
            let mut rows: Vec<Row> = (0..78)
                .map(|k| {
                    let mut side = || -> Vec<f64> {
                        (0..5).map(|_| 1000.0 * (1.0 + 0.05 * normal())).collect()
                    };
                    let (b, c) = (side(), side());
                    // The first is the headline, weighing half the family.
                    let metric = |values: &[f64]| Metric {
                        key: if k == 0 {
                            "docs_per_sec".into()
                        } else {
                            format!("m{k}")
                        },
                        label: format!("metric {k}"),
                        unit: "".into(),
                        direction: if k % 2 == 0 {
                            Direction::HigherBetter
                        } else {
                            Direction::LowerBetter
                        },
                        value: values.iter().sum::<f64>() / values.len() as f64,
                        samples: Some((SampleKind::PerRun, values.to_vec())),
                        errors: false,
                        rounds: Vec::new(),
                    };
                    let (mb, mc) = (metric(&b), metric(&c));
                    Row {
                        key: mb.key.clone(),
                        label: mb.label.clone(),
                        unit: "".into(),
                        direction: mb.direction,
                        errors: false,
                        base: mb.value,
                        contenders: vec![Some(cell(&mb, &mc, 50.0))],
                    }
                })
                .collect();
            let worse = |rows: &[Row]| {
                rows.iter()
                    .any(|r| r.contenders[0].as_ref().unwrap().verdict == Verdict::Worse)
            };
            fired_uncorrected += usize::from(worse(&rows));
            let correction = correct(&mut rows, 1, None, 50.0);
            assert_eq!(correction.family, vec![78]);
            assert_eq!(correction.primary.as_deref(), Some("docs_per_sec"));
            fired += usize::from(worse(&rows));
        }
        let rate = fired as f64 / trials as f64;
        // At most the level (any verdict, better or worse, is at most 5 %; worse alone about
        // half of that), with room for the draw: 400 trials.
        assert!(rate <= 0.05, "gate fired in {fired} of {trials}");
        assert!(
            fired_uncorrected as f64 / trials as f64 > 0.5,
            "uncorrected: {fired_uncorrected} of {trials}"
        );
    }

    #[test]
    fn a_real_change_survives_the_correction() {
        let b = [1000.0, 1010.0, 990.0, 1005.0, 995.0];
        let k = [800.0, 810.0, 790.0, 805.0, 795.0];
        let metric = |v: &[f64]| Metric {
            key: "docs_per_sec".into(),
            label: "throughput".into(),
            unit: "docs/s".into(),
            direction: Direction::HigherBetter,
            value: v.iter().sum::<f64>() / v.len() as f64,
            samples: Some((SampleKind::PerRun, v.to_vec())),
            errors: false,
            rounds: Vec::new(),
        };
        let c = cell(&metric(&b), &metric(&k), 5.0);
        assert_eq!(c.verdict, Verdict::Worse);
        let p = c.p_value.unwrap();
        assert!(p < 1e-4, "{p}");
        // Among 78 metrics, it stays worse (its p times 78 is still far below 5 %).
        assert!(holm(&[p])[0] * 78.0 < ALPHA);
    }

    fn throughput(values: &[f64], rounds: &[&str]) -> Metric {
        Metric {
            key: "docs_per_sec".into(),
            label: "throughput".into(),
            direction: Direction::HigherBetter,
            rounds: rounds.iter().map(|r| Some(r.to_string())).collect(),
            ..over_runs(values)
        }
    }

    /// A matrix whose machine got a third busier over its rounds, the contender 8 % slower
    /// in each: as two groups the drift is noise and the runs cannot tell; round by round the
    /// contender is worse, and the cell says the test was paired.
    #[test]
    fn runs_made_round_by_round_are_compared_round_by_round() {
        let rounds = [
            "matrix m round 1",
            "matrix m round 2",
            "matrix m round 3",
            "matrix m round 4",
        ];
        let base = [10_000.0, 11_050.0, 12_100.0, 13_300.0];
        let slower = [9_180.0, 10_200.0, 11_100.0, 12_270.0];
        let paired = cell(
            &throughput(&base, &rounds),
            &throughput(&slower, &rounds),
            5.0,
        );
        assert_eq!(paired.test, Some(Test::PairedT));
        assert_eq!(paired.verdict, Verdict::Worse, "{paired:?}");
        let i = paired.ci.unwrap();
        assert!(i.low_pct > -10.0 && i.high_pct < -6.0, "{i:?}");
        assert!(
            format_n(&paired).starts_with("4 rounds (paired t), ratio ±"),
            "{}",
            format_n(&paired)
        );
        // The same runs without their rounds: Welch's t, and the drift hides the change.
        let welch = cell(&over_runs(&base), &over_runs(&slower), 5.0);
        assert_eq!(welch.test, Some(Test::Welch));
        assert_eq!(welch.verdict, Verdict::CannotTell, "{welch:?}");
        assert!(format_n(&welch).contains("(Welch)"));
        // Rounds that do not match one to one are not paired.
        let other = [
            "matrix m round 1",
            "matrix m round 2",
            "matrix m round 3",
            "matrix m round 5",
        ];
        let unmatched = cell(
            &throughput(&base, &rounds),
            &throughput(&slower, &other),
            5.0,
        );
        assert_eq!(unmatched.test, Some(Test::Welch));
        let twice = [
            "matrix m round 1",
            "matrix m round 1",
            "matrix m round 2",
            "matrix m round 3",
        ];
        let doubled = cell(
            &throughput(&base, &twice),
            &throughput(&slower, &twice),
            5.0,
        );
        assert_eq!(doubled.test, Some(Test::Welch));
        // Two rounds are too few to pair (Welch has more degrees of freedom).
        let two = cell(
            &throughput(&base[..2], &rounds[..2]),
            &throughput(&slower[..2], &rounds[..2]),
            5.0,
        );
        assert_eq!(two.test, Some(Test::Welch));
        // Noisy rounds that cannot see 5 % say how many rounds would.
        let noisy = [10_000.0, 12_000.0, 9_000.0, 11_000.0];
        let wobble = [10_900.0, 11_000.0, 9_800.0, 10_100.0];
        let blind = cell(
            &throughput(&noisy, &rounds),
            &throughput(&wobble, &rounds),
            5.0,
        );
        assert_eq!(blind.verdict, Verdict::CannotTell, "{blind:?}");
        assert!(
            format_verdict(&blind, 5.0).contains("rounds would see 5 %"),
            "{}",
            format_verdict(&blind, 5.0)
        );
    }

    /// No failed attempt in any run of either side once read "too few samples": a spread of
    /// zero has no interval, and nothing changed.
    #[test]
    fn the_same_figure_in_every_run_is_no_change() {
        let zero = cell(&over_runs(&[0.0, 0.0]), &over_runs(&[0.0, 0.0, 0.0]), 5.0);
        assert_eq!(zero.verdict, Verdict::NoSignificantChange);
        let one = cell(&over_runs(&[0.0, 0.0]), &over_runs(&[0.0, 1.0]), 5.0);
        assert_eq!(one.verdict, Verdict::CannotTell, "{one:?}");
        let few = cell(&over_runs(&[0.0]), &over_runs(&[0.0, 1.0]), 5.0);
        assert_eq!(few.verdict, Verdict::TooFewSamples, "{few:?}");
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

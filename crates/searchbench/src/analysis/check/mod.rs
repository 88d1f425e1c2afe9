//! The check behind `searchbench check`: one run (or a group of runs) against a baseline, on
//! the metrics asked for, with a threshold: pass, regressed, or cannot tell.
//!
//! The answer has three values because `git bisect run` and CI pipelines need three: a
//! commit is good, bad, or cannot be judged (its run was interrupted, the baseline is
//! missing, there are too few samples for an interval).
//!
//! A metric regressed when its interval lies wholly on the worse side of zero (significant)
//! and the change itself is larger than the threshold (large enough to matter). Errors count
//! whatever the threshold: any rise in an error count (documents refused or in failed bulk
//! requests, failed searches, wrong answers) is a regression, also when every other figure
//! improved.
//!
//! The intervals are those of [`compare`](super::compare): within-run samples for one run a
//! side, Welch's t over runs for groups. One run against a group of earlier runs (`--last N`)
//! gets a prediction interval: where a new run of the baseline would fall, from the baseline
//! runs' mean and spread (Student's t with n − 1 degrees of freedom, on the logarithms for
//! positive figures, as [`welch_diff`](crate::analysis::statistics::welch_diff) does).

mod reference;

use std::fmt::Write as _;

use serde::Serialize;

use super::compare::{self, Cell, Side, Verdict};
use super::metrics::THROUGHPUT;
use super::runs::{Group, Loaded};
use super::steadier::{self, Leaning};
pub use crate::analysis::configuration::Machines;
use crate::analysis::statistics::{
    Interval, SampleKind, Test, CONFIDENCE, MAX_RUNS_SAID, MIN_RUNS,
};
use crate::analysis::{configuration, merge};
use crate::store::{Filter, State, Store, StoreError};
use crate::units::format_value;

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    UnknownMetric(String),
    #[error("name at least one --metric")]
    NoMetric,
    /// The run and its baseline are not one thing measured twice (see `compare::mixed`).
    #[error("cannot check: {0}; {hint}", hint = compare::ALLOW_MIXED_HINT)]
    Mixed(String),
    /// A check against a same-round reference asked of runs that cannot have one.
    #[error("{0}")]
    Reference(String),
}

impl CheckError {
    /// The caller's to fix: a name that matches nothing.
    pub fn is_usage(&self) -> bool {
        match self {
            CheckError::UnknownMetric(_)
            | CheckError::NoMetric
            | CheckError::Mixed(_)
            | CheckError::Reference(_) => true,
            CheckError::Store(e) => matches!(
                e,
                StoreError::NotFound(_)
                    | StoreError::Ambiguous { .. }
                    | StoreError::BadTag(_)
                    | StoreError::NoTagMatch(_)
                    | StoreError::NotMerged(_)
            ),
        }
    }
}

/// What the run is checked against.
#[derive(Debug, Clone)]
pub enum Baseline {
    /// A run id (or prefix), or `key=value[,...]` tags: its complete runs.
    Selector(String),
    /// The last N complete runs of the same configuration before the run.
    Last(usize),
    /// Paired nightlies: the run's ratio to the run of this selector made in the same round,
    /// against the same ratios of the last N earlier rounds (see [`reference`]).
    Reference { selector: String, last: usize },
}

#[derive(Debug, Clone)]
pub struct CheckSpec {
    /// A run id (or prefix) or tags; `None`: the newest stored run.
    pub run: Option<String>,
    pub baseline: Baseline,
    /// Metric keys, their last part (`p99_ms` when one key ends so), or an old name.
    pub metrics: Vec<String>,
    /// A regression smaller than this (percent) passes.
    pub threshold_pct: f64,
    /// Check even when a side pools configurations or the sides are different workloads.
    pub allow_mixed: bool,
    /// Whether `--last N` takes runs made on other classes of machine (`--any-machine`).
    pub machines: configuration::Machines,
}

/// The answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// No metric regressed significantly beyond the threshold and no error count rose.
    Pass,
    /// A metric regressed significantly beyond the threshold, or an error count rose.
    Regressed,
    /// The run is not complete, there is no baseline, or there are too few samples.
    CannotTell,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Regressed => "regressed",
            Outcome::CannotTell => "cannot tell",
        }
    }
}

/// One metric's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricVerdict {
    /// Significantly worse, by more than the threshold.
    Regressed,
    /// Significantly worse, by less than the threshold.
    WithinThreshold,
    NoSignificantChange,
    Improved,
    /// Better by its interval, but the run has errors: a run with failures is never better
    /// (the errors decide the outcome).
    NotBetterHasErrors,
    /// No interval: too few samples, or the metric is missing on a side.
    CannotTell,
}

impl MetricVerdict {
    pub fn name(self) -> &'static str {
        match self {
            MetricVerdict::Regressed => "REGRESSED",
            MetricVerdict::WithinThreshold => "worse, within the threshold",
            MetricVerdict::NoSignificantChange => "no significant change",
            MetricVerdict::Improved => "improved",
            MetricVerdict::NotBetterHasErrors => "not better: has errors",
            MetricVerdict::CannotTell => "cannot tell",
        }
    }
}

/// One metric asked for.
#[derive(Debug, Clone, Serialize)]
pub struct MetricCheck {
    pub key: String,
    pub label: String,
    pub unit: std::borrow::Cow<'static, str>,
    pub baseline: Option<f64>,
    pub value: Option<f64>,
    pub diff_pct: Option<f64>,
    pub ci: Option<Interval>,
    /// Samples behind each side and what they are (`runs`, `seconds`...).
    pub n_baseline: Option<usize>,
    pub n: Option<usize>,
    pub samples: Option<&'static str>,
    pub verdict: MetricVerdict,
    /// The smallest change these samples could have detected, when that is why there is no
    /// verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_detectable_pct: Option<f64>,
    /// Why there is no verdict, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The metric the check leaned on because this one could not tell (see
    /// [`super::steadier`]): its verdict stands for this one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaned_on: Option<&'static str>,
}

impl MetricCheck {
    /// A metric judged by the comparison's cell for it: its interval, samples and verdict.
    fn judged(
        key: &str,
        label: String,
        unit: impl Into<std::borrow::Cow<'static, str>>,
        baseline: f64,
        cell: &Cell,
        threshold_pct: f64,
    ) -> MetricCheck {
        let (verdict, why) = judge(cell, threshold_pct);
        MetricCheck {
            key: key.to_string(),
            label,
            unit: unit.into(),
            baseline: Some(baseline),
            value: Some(cell.value),
            diff_pct: cell.diff_pct,
            ci: cell.ci,
            n_baseline: cell.n_base,
            n: cell.n,
            samples: samples_of(cell),
            verdict,
            min_detectable_pct: cell.min_detectable_pct,
            why,
            leaned_on: None,
        }
    }

    /// The verdict as a table says it: `cannot tell → CPU per doc` when the check judged the
    /// engine's CPU per document for this one (its row follows).
    pub fn verdict_said(&self) -> String {
        match self.leaned_on {
            Some(_) => format!("{} → {}", self.verdict.name(), steadier::COST_SHORT),
            None => self.verdict.name().to_string(),
        }
    }

    /// A metric with no verdict, and why.
    fn unjudged(
        key: &str,
        label: String,
        unit: impl Into<std::borrow::Cow<'static, str>>,
        why: String,
    ) -> MetricCheck {
        MetricCheck {
            key: key.to_string(),
            label,
            unit: unit.into(),
            baseline: None,
            value: None,
            diff_pct: None,
            ci: None,
            n_baseline: None,
            n: None,
            samples: None,
            verdict: MetricVerdict::CannotTell,
            min_detectable_pct: None,
            why: Some(why),
            leaned_on: None,
        }
    }
}

/// An error count that rose.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorRise {
    pub key: String,
    pub label: String,
    pub baseline: f64,
    pub value: f64,
}

/// Who was compared.
#[derive(Debug, Clone, Serialize)]
pub struct Who {
    pub label: String,
    pub run_ids: Vec<String>,
    pub engine: Option<String>,
    pub states: Vec<State>,
}

impl Who {
    fn of(side: &Side) -> Who {
        Who {
            label: side.label.clone(),
            run_ids: side.run_ids.clone(),
            engine: side.engine.clone(),
            states: side.states.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub outcome: Outcome,
    /// Why it regressed or cannot tell (empty for a pass).
    pub reasons: Vec<String>,
    pub run: Who,
    /// `None` when no baseline run was found.
    pub baseline: Option<Who>,
    pub threshold_pct: f64,
    pub confidence: f64,
    /// How the intervals were made.
    pub method: String,
    pub metrics: Vec<MetricCheck>,
    pub errors_rose: Vec<ErrorRise>,
    /// The throughput could not tell and the check leaned on the engine's CPU per document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaning: Option<Leaning>,
    pub notes: Vec<String>,
}

impl Check {
    /// A check of `run` that passes until a metric says otherwise.
    fn passing(run: &Side, threshold_pct: f64) -> Check {
        Check {
            outcome: Outcome::Pass,
            reasons: Vec::new(),
            run: Who::of(run),
            baseline: None,
            threshold_pct,
            confidence: CONFIDENCE,
            method: String::new(),
            metrics: Vec::new(),
            errors_rose: Vec::new(),
            leaning: None,
            notes: Vec::new(),
        }
    }

    /// Adds a reason the check cannot tell; a regression already found stands.
    fn cannot_tell(&mut self, reason: String) {
        if self.outcome == Outcome::Pass {
            self.outcome = Outcome::CannotTell;
        }
        self.reasons.push(reason);
    }
}

/// Checks `spec.run` against its baseline.
pub fn check(store: &Store, spec: &CheckSpec) -> Result<Check, CheckError> {
    if spec.metrics.is_empty() {
        return Err(CheckError::NoMetric);
    }
    let mut run = match &spec.run {
        Some(selector) => Group::load(store, selector, true)?,
        None => latest(store)?,
    };
    // Every run is taken (a run that did not end is what a check must notice), but one too
    // short for its warm-up beside steady runs stands for nothing they measured: left out,
    // and said, as `compare` leaves it out.
    let mut short = Vec::new();
    if run.runs.len() > 1 {
        (run.runs, short) = crate::analysis::configuration::judged(run.runs, |l| &l.row);
        run.excluded.extend(short.iter().cloned());
    }
    if let Baseline::Reference { selector, last } = &spec.baseline {
        return reference::check(store, spec, &run, selector, *last);
    }
    let run_side = Side::from_group(&run);
    let mut notes: Vec<String> = short
        .into_iter()
        .map(|s| format!("left out: {s}"))
        .collect();
    let baseline = match &spec.baseline {
        Baseline::Selector(selector) => match Group::load(store, selector, false) {
            Ok(mut group) => {
                let before = group.runs.len();
                group
                    .runs
                    .retain(|l| !run_side.run_ids.contains(&l.row.id.0));
                if group.runs.len() < before {
                    notes.push("the run itself is left out of its baseline".into());
                }
                // A baseline is what a run is held to: its complete runs only (a failed one's
                // errors would excuse the run's own), the others named.
                let failed: Vec<String> = (group.runs.iter())
                    .filter(|l| l.row.state != State::Complete)
                    .map(|l| format!("{} ({})", l.row.id, l.row.state.name()))
                    .collect();
                if !failed.is_empty() {
                    group.runs.retain(|l| l.row.state == State::Complete);
                    notes.push(format!("left out of the baseline: {}", failed.join(", ")));
                }
                (!group.runs.is_empty()).then_some(group)
            }
            Err(StoreError::NoTagMatch(_)) => None,
            Err(e) => return Err(e.into()),
        },
        Baseline::Last(n) => {
            let (group, left_out) = last_runs(store, &run, *n, spec.machines)?;
            if !left_out.is_empty() {
                notes.push(format!(
                    "left out of the baseline ({} run(s) of another measure): {}",
                    left_out.len(),
                    left_out.join(", ")
                ));
            }
            group
        }
        // Judged by `reference::check` above.
        Baseline::Reference { .. } => None,
    };
    let base_side = baseline.as_ref().map(Side::from_group);
    let mixed = match &base_side {
        Some(base) => compare::mixed(base, &[&run_side]),
        None => run_side.pools_configurations().into_iter().collect(),
    };
    if !mixed.is_empty() && !spec.allow_mixed {
        return Err(CheckError::Mixed(mixed.join("; ")));
    }
    notes.extend(
        mixed
            .into_iter()
            .map(|m| format!("MIXED (--allow-mixed): {m}")),
    );

    // Names are checked first: a typo is bad usage whatever the runs hold.
    let keys = known_keys(&run_side, base_side.as_ref());
    // A percentile that short runs leave out is not a typo: it cannot be told, and says why.
    let mut wanted = Vec::new();
    let mut too_short = Vec::new();
    for m in spec.metrics.iter().filter(|_| !keys.is_empty()) {
        match (resolve_metric(m, &keys), percentile_floor(m)) {
            (Ok(key), _) => wanted.push(key),
            (Err(CheckError::UnknownMetric(_)), Some(floor)) => too_short.push((m.clone(), floor)),
            (Err(e), _) => return Err(e),
        }
    }

    let mut check = Check {
        baseline: base_side.as_ref().map(Who::of),
        notes,
        ..Check::passing(&run_side, spec.threshold_pct)
    };
    let partial = run_side.partial();
    let Some(base_side) = base_side else {
        check.outcome = Outcome::CannotTell;
        check.reasons.push(match &spec.baseline {
            Baseline::Selector(s) => format!("no complete baseline run for {s:?}"),
            Baseline::Last(_) | Baseline::Reference { .. } => match &run_side.whole_run {
                Some(why) => format!(
                    "the run is a {why}: no earlier complete run of its configuration was as short to compare with (run longer than twice the warm-up)"
                ),
                None => "no earlier complete run of the same configuration to compare with".into(),
            },
        });
        return Ok(check);
    };
    check.errors_rose = errors_rose(&base_side, &run_side);
    for rise in &check.errors_rose {
        check.reasons.push(format!(
            "{} rose: {} → {}",
            rise.label,
            crate::units::format_metric(true, rise.baseline),
            crate::units::format_metric(true, rise.value)
        ));
    }
    if !check.errors_rose.is_empty() {
        check.outcome = Outcome::Regressed;
    }
    let base_partial = base_side.partial();
    for (what, runs) in [("run", &partial), ("baseline", &base_partial)] {
        if !runs.is_empty() {
            check.cannot_tell(format!(
                "the {what} is not complete: {} (partial figures are never judged)",
                runs.join(", ")
            ));
            return Ok(check);
        }
    }
    for (name, floor) in &too_short {
        check.metrics.push(MetricCheck::unjudged(
            name,
            name.clone(),
            "ms",
            format!(
                "no run here has it: a run reports this percentile from {floor} requests on; \
                 run longer (more --docs) or with a smaller --bulk-size"
            ),
        ));
    }
    if wanted.is_empty() && too_short.is_empty() {
        check.cannot_tell("neither side has a result to compare".into());
        return Ok(check);
    }

    let (n_run, n_base) = (run_side.run_ids.len(), base_side.run_ids.len());
    check.method = match (n_run, n_base) {
        (1, 1) => "one run a side: no interval over runs (the seconds inside a run say nothing of the noise from one run to the next)".into(),
        (1, n) | (n, 1) => format!(
            "one run against {n} runs: {:.0} % prediction interval of one more run of the {n} (Student's t, {} degrees of freedom)",
            CONFIDENCE * 100.0,
            n - 1
        ),
        _ => format!(
            "groups of runs: {:.0} % Welch's t interval over runs",
            CONFIDENCE * 100.0
        ),
    };
    // The one rule for what runs can tell is the comparison's: the check reads its cells.
    // Its family is the metrics it judges (and the CPU per document a throughput may lean on).
    let mut family: Vec<String> = wanted.clone();
    if family
        .iter()
        .any(|k| k == crate::analysis::metrics::THROUGHPUT)
    {
        family.push(steadier::COST.to_string());
    }
    let comparison = compare::compare_family(
        base_side.clone(),
        vec![run_side.clone()],
        spec.threshold_pct,
        Some(&family),
    );
    if let Some(n) = comparison.correction.family.first().filter(|n| **n > 1) {
        check.method.push_str(&format!(
            "; Holm's correction over the {n} metrics judged{} (a change counts when it stays \
             significant: family-wise error at most {:.0} %)",
            compare::weighting(&comparison.correction),
            crate::analysis::multiple::ALPHA * 100.0
        ));
    }
    for key in &wanted {
        let b = base_side.metrics.iter().find(|m| &m.key == key);
        let r = run_side.metrics.iter().find(|m| &m.key == key);
        let cell = comparison
            .rows
            .iter()
            .find(|row| &row.key == key)
            .and_then(|row| row.contenders[0].as_ref());
        let (Some(b), Some(r), Some(cell)) = (b, r, cell) else {
            let any = b.or(r);
            check.metrics.push(MetricCheck {
                baseline: b.map(|m| m.value),
                value: r.map(|m| m.value),
                ..MetricCheck::unjudged(
                    key,
                    any.map(|m| m.label.clone()).unwrap_or_else(|| key.clone()),
                    any.map(|m| m.unit.clone()).unwrap_or_default(),
                    format!(
                        "the {} has no such metric",
                        if b.is_none() { "baseline" } else { "run" }
                    ),
                )
            });
            continue;
        };
        let m = if b.errors {
            // Judged with every other error count.
            MetricCheck {
                baseline: Some(b.value),
                value: Some(r.value),
                diff_pct: crate::analysis::statistics::pct_diff(b.value, r.value),
                verdict: if r.value > b.value {
                    MetricVerdict::Regressed
                } else if r.value < b.value {
                    MetricVerdict::Improved
                } else {
                    MetricVerdict::NoSignificantChange
                },
                why: None,
                ..MetricCheck::unjudged(key, b.label.clone(), b.unit.clone(), String::new())
            }
        } else {
            MetricCheck::judged(
                key,
                b.label.clone(),
                b.unit.clone(),
                b.value,
                cell,
                spec.threshold_pct,
            )
        };
        check.metrics.push(m);
    }
    lean(&mut check, &comparison, spec.threshold_pct);
    settle(&mut check, spec.threshold_pct, "");
    check.notes.extend(
        comparison
            .notes
            .iter()
            .filter(|n| n.starts_with("engines differ") || n.starts_with("measured on"))
            .cloned(),
    );
    Ok(check)
}

/// The outcome from the metrics' verdicts: a metric regressed beyond the threshold regresses
/// the check (an error count that rose said so already), one that cannot tell (and was not
/// leaned away from) makes a pass "cannot tell". `against` ends a regression's reason.
fn settle(check: &mut Check, threshold_pct: f64, against: &str) {
    let mut cannot = Vec::new();
    for m in &check.metrics {
        match m.verdict {
            MetricVerdict::Regressed if !check.errors_rose.iter().any(|e| e.key == m.key) => {
                check.outcome = Outcome::Regressed;
                check.reasons.push(format!(
                    "{} regressed by {}{against} (threshold {threshold_pct} %)",
                    m.label,
                    m.diff_pct
                        .map(|d| format!("{d:+.1} %"))
                        .unwrap_or_else(|| "?".into()),
                ));
            }
            MetricVerdict::CannotTell if m.leaned_on.is_none() => cannot.push(format!(
                "{}: cannot tell ({})",
                m.label,
                m.why.as_deref().unwrap_or("no interval")
            )),
            _ => {}
        }
    }
    // A regression outranks a metric that cannot be judged: the regressions come first.
    for reason in cannot {
        check.cannot_tell(reason);
    }
}

/// Where the throughput was asked for and cannot tell, and the comparison leans on the
/// engine's CPU per document: the check judges that instead (a regression of it beyond the
/// threshold regresses the check) and says so. The cost is added to the metrics shown.
fn lean(check: &mut Check, comparison: &compare::Comparison, threshold_pct: f64) {
    let Some(Some(leaning)) = comparison.leanings.first() else {
        return;
    };
    let Some(rate) = check
        .metrics
        .iter_mut()
        .find(|m| m.key == THROUGHPUT && m.verdict == MetricVerdict::CannotTell)
    else {
        return;
    };
    let row = comparison.rows.iter().find(|r| r.key == steadier::COST);
    let Some((row, cell)) = row.and_then(|r| Some((r, r.contenders.first()?.as_ref()?))) else {
        return;
    };
    // The rate's verdict stands for nothing until the cost's row is there to stand for it.
    rate.leaned_on = Some(steadier::COST);
    if !check.metrics.iter().any(|m| m.key == steadier::COST) {
        let m = MetricCheck::judged(
            &row.key,
            row.label.clone(),
            row.unit.clone(),
            row.base,
            cell,
            threshold_pct,
        );
        check.metrics.push(m);
    }
    check.notes.push(leaning.said.clone());
    check.leaning = Some(leaning.clone());
}

/// The test behind a cell's interval, said with its samples: a gate's reader must know
/// whether the rounds were paired.
fn samples_of(cell: &Cell) -> Option<&'static str> {
    match cell.test {
        Some(Test::PairedT) => Some("rounds, paired t"),
        Some(Test::Welch) => Some("runs, Welch's t"),
        None => cell.samples.map(SampleKind::name),
    }
}

/// The newest stored run.
fn latest(store: &Store) -> Result<Group, CheckError> {
    let newest = store
        .list(&Filter {
            limit: Some(1),
            ..Default::default()
        })?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::NotFound("(the newest run: the store has none)".into()))?;
    // The newest run a part of a run split over several drivers: the run is its group.
    let selector = match (merge::part_of(&newest), merge::group_of(&newest)) {
        (Some(_), Some(group)) => format!("group={group}"),
        _ => newest.id.0,
    };
    Ok(Group::load(store, &selector, true)?)
}

/// The last `n` complete runs of the run's configuration and measure stored before it (by
/// start, then by the order they were stored in), and the runs of its configuration left out
/// on the way as another measure (too short for their warm-up, or steady beside a short run).
fn last_runs(
    store: &Store,
    run: &Group,
    n: usize,
    machines: configuration::Machines,
) -> Result<(Option<Group>, Vec<String>), CheckError> {
    let Some(first) = run.runs.first() else {
        return Ok((None, Vec::new()));
    };
    let mut resolved = merge::resolve(store, store.list(&Filter::default())?)?;
    let all = std::mem::take(&mut resolved.rows);
    let ours: Vec<&str> = run.runs.iter().map(|l| l.row.id.0.as_str()).collect();
    // Newest first: the runs after the run's own position are older.
    let from = all
        .iter()
        .position(|r| ours.contains(&r.id.0.as_str()))
        .map_or(all.len(), |i| i + 1);
    // The run's own measure: a run too short for its warm-up is set against runs as short,
    // a steady one against steady ones, the others named as left out.
    let short = configuration::whole_run_headline(&first.row).is_some();
    let mut runs = Vec::new();
    let mut excluded = Vec::new();
    for row in all.into_iter().skip(from) {
        if runs.len() >= n {
            break;
        }
        if row.state != State::Complete
            || ours.contains(&row.id.0.as_str())
            || !configuration::same_with(&row, &first.row, machines)
        {
            continue;
        }
        match configuration::whole_run_headline(&row) {
            Some(why) if !short => {
                excluded.push(format!("{} ({why}: {})", row.id, configuration::LEFT_OUT));
                continue;
            }
            None if short => {
                excluded.push(format!(
                    "{} (a steady headline, and the run checked is {}: {})",
                    row.id,
                    configuration::whole_run_headline(&first.row).unwrap_or_default(),
                    configuration::LEFT_OUT
                ));
                continue;
            }
            _ => runs.push(Loaded::resolved(store, row, &resolved)?),
        }
    }
    if runs.is_empty() {
        return Ok((None, excluded));
    }
    runs.reverse();
    let group = Group {
        selector: format!("last {} run(s) of the same configuration", runs.len()),
        runs,
        excluded: Vec::new(),
    };
    Ok((Some(group), excluded))
}

fn known_keys(run: &Side, base: Option<&Side>) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for m in run
        .metrics
        .iter()
        .chain(base.into_iter().flat_map(|b| &b.metrics))
    {
        if !keys.contains(&m.key) {
            keys.push(m.key.clone());
        }
    }
    keys
}

/// The requests a run needs before it reports the percentile `given` names (`service_p99_ms`:
/// 100), when it names one.
pub fn percentile_floor(given: &str) -> Option<u64> {
    let parts: Vec<&str> = given.split(['_', '.']).collect();
    [
        ("p999", 1000),
        ("p99.9", 1000),
        ("p99", 100),
        ("p90", 10),
        ("p50", 1),
    ]
    .into_iter()
    .find(|(p, _)| parts.contains(p) || given.contains(&format!("{p}_")))
    .map(|(_, n)| n)
}

/// A metric key as given, or the one key whose last part it is (`docs_per_sec`,
/// `p99_ms` when only one metric ends so).
pub fn resolve_metric(given: &str, keys: &[String]) -> Result<String, CheckError> {
    // An old name or a key with spaces, as the key it is today.
    let given = &crate::analysis::metrics::canonical(given);
    if keys.iter().any(|k| k == given) {
        return Ok(given.to_string());
    }
    let ends: Vec<&String> = keys
        .iter()
        .filter(|k| k.ends_with(&format!("_{given}")) || k.ends_with(&format!(".{given}")))
        .collect();
    match ends.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(CheckError::UnknownMetric(crate::suggest::unknown(
            "metric",
            given,
            keys.iter().map(String::as_str),
        ))),
        many => Err(CheckError::UnknownMetric(format!(
            "metric {given:?} is ambiguous: it may be {}",
            many.iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Error counts that are higher in the run than in the baseline (a group's mean).
fn errors_rose(base: &Side, run: &Side) -> Vec<ErrorRise> {
    run.metrics
        .iter()
        .filter(|m| m.errors)
        .filter_map(|r| {
            let baseline = base
                .metrics
                .iter()
                .find(|b| b.key == r.key)
                .map_or(0.0, |b| b.value);
            (r.value > baseline).then(|| ErrorRise {
                key: r.key.clone(),
                label: r.label.clone(),
                baseline,
                value: r.value,
            })
        })
        .collect()
}

/// The check's verdict from the comparison's: a significant change beyond the threshold on
/// the worse side regressed, a smaller one is within it; what the runs cannot tell says why.
fn judge(cell: &Cell, threshold_pct: f64) -> (MetricVerdict, Option<String>) {
    let beyond = cell.diff_pct.is_some_and(|d| d.abs() > threshold_pct);
    match cell.verdict {
        Verdict::Better => (MetricVerdict::Improved, None),
        // Neither way is good: a change beyond the threshold is what the check guards.
        Verdict::Worse | Verdict::Changed if beyond => (MetricVerdict::Regressed, None),
        Verdict::Worse | Verdict::Changed => (MetricVerdict::WithinThreshold, None),
        Verdict::NoSignificantChange => (MetricVerdict::NoSignificantChange, None),
        Verdict::NotBetterHasErrors => (MetricVerdict::NotBetterHasErrors, None),
        Verdict::TooFewSamples => (
            MetricVerdict::CannotTell,
            Some(format!(
                "fewer than {MIN_RUNS} runs a side with this metric"
            )),
        ),
        Verdict::CannotTell => (
            MetricVerdict::CannotTell,
            Some(cannot_tell_why(cell, threshold_pct)),
        ),
    }
}

/// Why the runs cannot tell: one run a side, or runs too noisy for the threshold (what they
/// could have seen, and about how many runs a side would see it).
fn cannot_tell_why(cell: &Cell, threshold_pct: f64) -> String {
    match (cell.min_detectable_pct, cell.runs_needed) {
        (Some(reach), runs) => format!(
            "these runs could only have seen a change beyond ±{reach:.1} %, not one of the \
             {threshold_pct} % threshold; {}",
            match (runs, cell.test) {
                (Some(k), Some(Test::PairedT)) => format!("about {k} paired rounds would"),
                (Some(k), _) => format!("about {k} runs a side would"),
                (None, _) => {
                    format!("runs this noisy would need more than {MAX_RUNS_SAID} a side")
                }
            }
        ),
        (None, _) if cell.n_base == Some(1) && cell.n == Some(1) => format!(
            "too few runs: one run a side, and the seconds inside a run say nothing of the \
             noise from one run to the next; check against --last N ({MIN_RUNS} or more) or \
             groups of runs ({MIN_RUNS} or more a side)"
        ),
        (None, _) => "no interval".into(),
    }
}
/// `+3.1 % [+1.0, +5.2]`.
pub fn format_change(m: &MetricCheck) -> String {
    let mut s = m
        .diff_pct
        .map(|d| format!("{d:+.1} %"))
        .unwrap_or_else(|| "-".into());
    if let Some(i) = m.ci {
        let _ = write!(s, " [{:+.1}, {:+.1}]", i.low_pct, i.high_pct);
    }
    s
}

/// A short Markdown summary for a pull-request comment.
pub fn markdown(c: &Check) -> String {
    let mark = match c.outcome {
        Outcome::Pass => "✅ no regression",
        Outcome::Regressed => "❌ regression",
        Outcome::CannotTell => "⚠️ cannot tell",
    };
    // What a store, a track or a server said is escaped (see `shown::markdown`): a task
    // named `x\n<!--` would end the table and hide the rest of the comment.
    use crate::shown::markdown as md;
    let who = |w: &Who| {
        format!(
            "**{}**{}",
            md(&w.label),
            w.engine
                .as_ref()
                .map(|e| format!(" ({})", md(e)))
                .unwrap_or_default()
        )
    };
    let mut s = format!("### searchbench check: {mark}\n\n");
    let _ = writeln!(
        s,
        "Run {} against {}, threshold {} %.\n",
        who(&c.run),
        c.baseline
            .as_ref()
            .map(who)
            .unwrap_or_else(|| "no baseline".into()),
        c.threshold_pct
    );
    if !c.metrics.is_empty() {
        let _ = writeln!(
            s,
            "| metric | baseline | run | change [{:.0} % CI] | verdict |\n|---|---:|---:|---:|---|",
            c.confidence * 100.0
        );
        for m in &c.metrics {
            let v = |x: Option<f64>| {
                x.map(|x| {
                    format!("{} {}", format_value(x), md(&m.unit))
                        .trim()
                        .to_string()
                })
                .unwrap_or_else(|| "-".into())
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                md(&m.label),
                v(m.baseline),
                v(m.value),
                format_change(m),
                m.verdict_said()
            );
        }
        s.push('\n');
    }
    if c.errors_rose.is_empty() {
        if c.baseline.is_some() {
            s.push_str("Errors: no error count rose.\n");
        }
    } else {
        s.push_str("Errors rose:\n");
        for e in &c.errors_rose {
            let _ = writeln!(
                s,
                "- {}: {} → {}",
                md(&e.label),
                crate::units::format_metric(true, e.baseline),
                crate::units::format_metric(true, e.value)
            );
        }
    }
    for r in c.reasons.iter().filter(|r| !r.contains(" rose: ")) {
        let _ = writeln!(s, "- {}", md(r));
    }
    if let Some(l) = &c.leaning {
        let _ = writeln!(s, "- {}", md(&l.said));
    }
    if !c.method.is_empty() {
        let _ = writeln!(s, "\n<sub>{}</sub>", c.method);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regression_needs_significance_and_size() {
        let cell = |verdict, diff| Cell {
            value: 0.0,
            diff_pct: Some(diff),
            ci: None,
            n_base: Some(3),
            n: Some(3),
            samples: Some(SampleKind::PerRun),
            spread_base_pct: None,
            spread_pct: None,
            min_detectable_pct: None,
            runs_needed: None,
            test: None,
            spread_pair_pct: None,
            change: 0.0,
            p_value: None,
            p_adjusted: None,
            verdict,
        };
        use MetricVerdict::*;
        let v = |verdict, diff| judge(&cell(verdict, diff), 5.0).0;
        assert_eq!(v(Verdict::Worse, -10.0), Regressed);
        assert_eq!(v(Verdict::Worse, -2.5), WithinThreshold);
        assert_eq!(v(Verdict::Changed, 10.0), Regressed);
        assert_eq!(v(Verdict::NoSignificantChange, -10.0), NoSignificantChange);
        assert_eq!(v(Verdict::Better, 10.0), Improved);
        assert_eq!(v(Verdict::NotBetterHasErrors, 10.0), NotBetterHasErrors);
        assert_eq!(v(Verdict::CannotTell, -50.0), CannotTell);
        let one_a_side = Cell {
            n_base: Some(1),
            n: Some(1),
            ..cell(Verdict::CannotTell, -50.0)
        };
        assert!(judge(&one_a_side, 5.0).1.unwrap().contains("too few runs"));
        let noisy = Cell {
            min_detectable_pct: Some(40.0),
            runs_needed: Some(12),
            ..cell(Verdict::CannotTell, 1.0)
        };
        let why = judge(&noisy, 5.0).1.unwrap();
        assert!(
            why.contains("±40.0 %") && why.contains("about 12 runs a side"),
            "{why}"
        );
    }

    #[test]
    fn metric_names_resolve_by_their_last_part() {
        let keys: Vec<String> = [
            "docs_per_sec",
            "service_p99_ms",
            "took_p99_ms",
            "attribution.budget.network_queueing",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            resolve_metric("docs_per_sec", &keys).unwrap(),
            "docs_per_sec"
        );
        // The old names are aliases: the headline's, and keys that had spaces.
        assert_eq!(
            resolve_metric("throughput_docs_per_sec", &keys).unwrap(),
            "docs_per_sec"
        );
        assert_eq!(
            resolve_metric("attribution.budget.network + queueing", &keys).unwrap(),
            "attribution.budget.network_queueing"
        );
        assert!(resolve_metric("p99_ms", &keys)
            .unwrap_err()
            .to_string()
            .contains("ambiguous"));
        let e = resolve_metric("service_p99", &keys)
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean \"service_p99_ms\""), "{e}");
    }
}

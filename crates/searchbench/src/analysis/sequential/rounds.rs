//! The rounds' verdict, made one way wherever it is given: after each round of `ab` and
//! `gate`, at their end, and again by the follow-up they print (`compare --sequential`). The
//! same stored rounds, threshold and α give the same verdict in all three, since the safe t
//! test's answer on the rounds so far does not depend on when it was looked at.

use super::{look, DecidedBy, Decision, Look, Paired, Sequence};
use crate::analysis::compare::{self, Side, Verdict};
use crate::analysis::history::HEADLINE;
use crate::analysis::metrics::{Direction, THROUGHPUT};
use crate::analysis::steadier::{COST, COST_SHORT, STEADIER_BY};

/// The sides' rounds as the sequential test reads them: the headline metric's pairs (and its
/// label), the CPU per document's, and each side's errors in all.
pub fn rounds_of(a: &Side, b: &Side) -> (Option<String>, Paired, Paired, (f64, f64)) {
    let metric = |s: &Side, key: &str| s.metrics.iter().find(|m| m.key == key).cloned();
    let paired = |key: &str| -> Paired {
        match (metric(a, key), metric(b, key)) {
            (Some(x), Some(y)) => Paired {
                pairs: compare::pairs_of(&x, &y).unwrap_or_default(),
                higher_better: x.direction == Direction::HigherBetter,
            },
            _ => Paired::default(),
        }
    };
    // A side measured over whole runs (too short for their warm-up) against a steady side
    // measures two things: no pair of them decides anything (`compare` refuses them alike).
    let key = HEADLINE
        .iter()
        .filter(|_| a.other_measure(b).is_none())
        .find(|k| metric(a, k).is_some() && metric(b, k).is_some());
    let rate = key.map(|k| paired(k)).unwrap_or_default();
    let headline = key.and_then(|k| metric(a, k)).map(|m| m.label);
    let cost = if key == Some(&THROUGHPUT) {
        paired(COST)
    } else {
        Paired::default()
    };
    let errors = |s: &Side| -> f64 {
        s.metrics
            .iter()
            .filter(|m| m.errors)
            .map(|m| match &m.samples {
                Some((_, v)) => v.iter().sum::<f64>(),
                None => m.value,
            })
            .sum()
    };
    (headline, rate, cost, (errors(a), errors(b)))
}

/// The rounds' verdict: B against A over their stored rounds, at `threshold_pct` and `alpha`
/// (`max_rounds` only bounds how many more rounds it says it would take), with the label of
/// the headline metric it judged.
pub fn judge(
    a: &Side,
    b: &Side,
    threshold_pct: f64,
    alpha: f64,
    max_rounds: usize,
) -> (Option<String>, Look) {
    let (metric, rate, cost, errors) = rounds_of(a, b);
    let look = look(&rate, &cost, errors, threshold_pct, alpha, max_rounds);
    (metric, look)
}

/// What a look knows, in words: each watched metric's change of B against A and its
/// confidence sequence, and what decided.
pub fn said(look: &Look, metric: Option<&str>) -> String {
    let seq = |name: &str, s: &Option<Sequence>| -> Option<String> {
        let s = s.as_ref()?;
        Some(match (s.low_pct, s.high_pct) {
            (Some(lo), Some(hi)) => format!("{name} {:+.1} % [{lo:+.1}, {hi:+.1}]", s.change_pct),
            _ => format!("{name} {:+.1} % (unbounded yet)", s.change_pct),
        })
    };
    let mut parts: Vec<String> = Vec::new();
    if let Some(r) = seq(metric.unwrap_or("headline"), &look.rate) {
        parts.push(r);
    }
    if let Some(c) = seq(COST_SHORT, &look.cost) {
        parts.push(c);
    }
    match look.by {
        DecidedBy::Cost => parts.push(format!(
            "the rate could not tell: leaning on the engine's {COST_SHORT}, at least {STEADIER_BY}× steadier"
        )),
        DecidedBy::Errors => parts.push("B's errors rose: worse, whatever the speed".into()),
        _ => {}
    }
    if parts.is_empty() {
        "too few rounds to judge (a verdict takes 4 or more)".into()
    } else {
        parts.join("; ")
    }
}

/// The verdict in one line: `worse after 7 rounds (4.2 min): throughput -9.8 % [-14.2, -5.1];
/// safe t test, a false verdict at most 5 % however often looked at`. `took`: the minutes
/// the rounds took and what stopped them (`max_rounds`, ...), when they were just run; a
/// verdict made again from stored rounds has none.
pub fn line(
    look: &Look,
    metric: Option<&str>,
    threshold_pct: f64,
    alpha: f64,
    took: Option<(f64, &str)>,
) -> String {
    let rounds = look.rounds;
    let what = match (look.decision, took) {
        (Decision::Undecided, Some((minutes, stopped_by))) => format!(
            "cannot tell after {rounds} rounds ({minutes:.1} min; {} spent)",
            stopped_by.replace('_', "-")
        ),
        (Decision::Undecided, None) => format!("cannot tell after {rounds} rounds"),
        (d, took) => {
            let verdict = match d {
                Decision::NoChangeAsLarge => format!("no change as large as {threshold_pct} %"),
                d => d.name().to_string(),
            };
            let minutes = took.map_or(String::new(), |(m, _)| format!(" ({m:.1} min)"));
            format!("{verdict} after {rounds} rounds{minutes}")
        }
    };
    format!(
        "{what}: {}; safe t test, a false verdict at most {} % however often looked at",
        said(look, metric),
        alpha * 100.0
    )
}

/// Which rows of the table under the rounds' verdict it leaned on, and why the others do not
/// decide it: the verdict reads the headline (and the CPU per document where it decided) over
/// the paired rounds by the safe t test; every other row is that metric's own test at the
/// end, Holm-corrected over the table, shown for where the time went. `None` when no row
/// says other than the verdict.
pub fn leaning(look: &Look, metric: Option<&str>, c: &compare::Comparison) -> Option<String> {
    let leaned: Vec<&str> = match look.by {
        DecidedBy::Rate => metric.into_iter().collect(),
        DecidedBy::Cost => metric.into_iter().chain([COST_SHORT]).collect(),
        DecidedBy::Errors => vec!["the error counts"],
        DecidedBy::Nothing => metric.into_iter().collect(),
    };
    let own = |v: &Verdict| matches!(v, Verdict::Better | Verdict::Worse);
    let against: Vec<String> = c
        .rows
        .iter()
        .filter_map(|r| {
            let cell = r.contenders.first()?.as_ref()?;
            let differs = match look.decision {
                Decision::Better => cell.verdict == Verdict::Worse,
                Decision::Worse => cell.verdict == Verdict::Better,
                _ => own(&cell.verdict),
            };
            (differs && Some(r.label.as_str()) != metric).then(|| {
                format!(
                    "{} {}",
                    r.label,
                    compare::format_verdict(cell, c.threshold_pct)
                )
            })
        })
        .collect();
    if against.is_empty() {
        return None;
    }
    Some(format!(
        "the verdict leans on {} over the {} paired rounds (the safe t test, as the rounds were judged); the other rows are each metric's own test at the end, for where the time went, and decide nothing of it: {}",
        if leaned.is_empty() {
            "nothing yet".to_string()
        } else {
            leaned.join(" and ")
        },
        look.rounds,
        against.join(", ")
    ))
}

//! Nightlies paired with a same-day reference (`check --reference SEL --last N`).
//!
//! A nightly benchmark on a shared machine measures the machine's mood as much as the build:
//! the level drifts from one day to the next by more than the regressions worth catching. So
//! each night the reference build (a release, a pinned commit) runs beside the nightly build,
//! in the same round (`--round`), and the check judges the nightly's **ratio to that night's
//! reference** against the same ratios of the last N nights: the machine's level that night
//! cancels in the ratio, as it does in a paired comparison's rounds. One more ratio against N
//! is a prediction interval (Student's t, N − 1 degrees of freedom, on the log ratios), the
//! rule `compare` uses for one run against a group.

use std::collections::BTreeMap;

use super::{
    errors_rose, judge, known_keys, resolve_metric, settle, Check, CheckError, CheckSpec,
    MetricCheck, MetricVerdict, Outcome, Who,
};
use crate::analysis::compare::{self, round_of, Side};
use crate::analysis::configuration;
use crate::analysis::metrics::Metric;
use crate::analysis::runs::{Group, Loaded};
use crate::analysis::statistics::{SampleKind, CONFIDENCE, MIN_RUNS};
use crate::store::{Filter, State, Store, StoreError};

pub(super) fn check(
    store: &Store,
    spec: &CheckSpec,
    run: &Group,
    selector: &str,
    last: usize,
) -> Result<Check, CheckError> {
    let [tonight] = run.runs.as_slice() else {
        return Err(CheckError::Reference(format!(
            "--reference checks one run against the reference run of its round; {:?} is {} runs",
            run.selector,
            run.runs.len()
        )));
    };
    let Some(round) = round_of(&tonight.row.tags) else {
        return Err(CheckError::Reference(format!(
            "run {} has no round: make each night's run and its reference with the same --round \
             (e.g. --round $(date +%Y%m%d)), then check with --reference",
            tonight.row.id.0
        )));
    };
    let reference = match Group::load(store, selector, false) {
        Ok(g) => g,
        Err(StoreError::NoTagMatch(_)) => Group {
            selector: selector.to_string(),
            runs: Vec::new(),
            excluded: Vec::new(),
        },
        Err(e) => return Err(e.into()),
    };
    // The reference run of each round (the first listed when a round has several); never the
    // run itself, which a selector as wide as `round=...` would find too.
    let mut by_round: BTreeMap<String, &Loaded> = BTreeMap::new();
    for l in reference.runs.iter().filter(|l| l.row.id != tonight.row.id) {
        if let Some(r) = round_of(&l.row.tags) {
            by_round.entry(r).or_insert(l);
        }
    }
    let run_side = Side::from_group(run);
    let mut check = Check::passing(&run_side, spec.threshold_pct);
    let Some(today) = by_round.get(&round).copied() else {
        check.cannot_tell(format!(
            "no complete reference run of {selector:?} in {round} (the run's round)"
        ));
        return Ok(check);
    };
    let ref_side = Side::from_group(&Group {
        selector: format!("{selector} ({round})"),
        runs: vec![today.clone()],
        excluded: Vec::new(),
    });
    check.baseline = Some(Who::of(&ref_side));
    let mixed = compare::mixed(&ref_side, &[&run_side]);
    if !mixed.is_empty() && !spec.allow_mixed {
        return Err(CheckError::Mixed(mixed.join("; ")));
    }
    check.errors_rose = errors_rose(&ref_side, &run_side);
    for rise in &check.errors_rose {
        check.outcome = Outcome::Regressed;
        check.reasons.push(format!(
            "{} rose: {} → {} (the reference's run of the same round)",
            rise.label,
            crate::units::format_metric(true, rise.baseline),
            crate::units::format_metric(true, rise.value)
        ));
    }
    if tonight.row.state != State::Complete {
        check.cannot_tell(format!(
            "the run is not complete: {} (partial figures are never judged)",
            tonight.row.state.name()
        ));
        return Ok(check);
    }
    let earlier = earlier_pairs(store, tonight, &reference, &by_round, &round, last)?;
    let keys = known_keys(&run_side, Some(&ref_side));
    let wanted = spec
        .metrics
        .iter()
        .map(|m| resolve_metric(m, &keys))
        .collect::<Result<Vec<_>, _>>()?;
    let values = |l: &Loaded| -> BTreeMap<String, Metric> {
        l.metrics()
            .into_iter()
            .map(|m| (m.key.clone(), m))
            .collect()
    };
    let (now, now_ref) = (values(tonight), values(today));
    let past: Vec<(BTreeMap<String, Metric>, BTreeMap<String, Metric>)> = earlier
        .iter()
        .map(|(run, reference)| (values(run), values(reference)))
        .collect();
    let ratio = |run: &BTreeMap<String, Metric>, r: &BTreeMap<String, Metric>, key: &str| {
        let (a, b) = (run.get(key)?.value, r.get(key)?.value);
        (a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite()).then(|| a / b)
    };
    // Each metric's cell first, then Holm's correction over the family judged, as a check
    // against earlier runs (and `compare`) corrects it: one rule for a family of metrics.
    let mut judged: Vec<(String, Metric, Vec<f64>)> = Vec::new();
    let mut rows: Vec<compare::Row> = Vec::new();
    for key in &wanted {
        let Some(m) = now.get(key) else {
            check.metrics.push(MetricCheck::unjudged(
                key,
                key.clone(),
                "",
                "the run has no such metric".into(),
            ));
            continue;
        };
        if m.errors {
            // Judged with every error count, against the same round's reference.
            continue;
        }
        let label = format!("{} ÷ reference", m.label);
        let Some(tonight_ratio) = ratio(&now, &now_ref, key) else {
            check.metrics.push(MetricCheck::unjudged(
                key,
                label,
                "×",
                "no ratio to the reference tonight (missing or not positive)".into(),
            ));
            continue;
        };
        let ratios: Vec<f64> = past.iter().filter_map(|(r, b)| ratio(r, b, key)).collect();
        let base = Metric {
            value: ratios.iter().sum::<f64>() / ratios.len().max(1) as f64,
            samples: Some((SampleKind::PerRun, ratios.clone())),
            rounds: Vec::new(),
            ..m.clone()
        };
        let tonight = Metric {
            value: tonight_ratio,
            samples: None,
            rounds: Vec::new(),
            ..m.clone()
        };
        let cell = compare::cell(&base, &tonight, spec.threshold_pct);
        rows.push(compare::Row {
            key: key.clone(),
            label: label.clone(),
            unit: m.unit.clone(),
            direction: m.direction,
            errors: false,
            base: base.value,
            contenders: vec![Some(cell)],
        });
        judged.push((label, base, ratios));
    }
    let correction = compare::correct(&mut rows, 1, Some(&wanted), spec.threshold_pct);
    let holm = match correction.family.first().filter(|n| **n > 1) {
        Some(n) => format!(
            "; Holm's correction over the {n} metrics judged{} (a change counts when it stays \
             significant: family-wise error at most {:.0} %)",
            compare::weighting(&correction),
            crate::analysis::multiple::ALPHA * 100.0
        ),
        None => String::new(),
    };
    for (row, (label, base, ratios)) in rows.into_iter().zip(judged) {
        let Some(Some(cell)) = row.contenders.into_iter().next() else {
            continue;
        };
        let key = &row.key;
        let (verdict, why) = if ratios.len() < MIN_RUNS {
            (
                MetricVerdict::CannotTell,
                Some(format!(
                    "{} earlier round(s) with a reference run; {MIN_RUNS} or more give an interval",
                    ratios.len()
                )),
            )
        } else {
            judge(&cell, spec.threshold_pct)
        };
        check.metrics.push(MetricCheck {
            baseline: (!ratios.is_empty()).then_some(base.value),
            n_baseline: Some(ratios.len()),
            n: Some(1),
            samples: Some("rounds' ratios"),
            verdict,
            why,
            ..MetricCheck::judged(key, label, "×", base.value, &cell, spec.threshold_pct)
        });
    }
    check.method = format!(
        "paired with the reference's run of {round}: the run's ratio to it against the ratios \
         of the {} earlier round(s) with a reference run ({:.0} % prediction interval, \
         Student's t on the log ratios): the machine's level on the day cancels in each \
         ratio{holm}",
        earlier.len(),
        CONFIDENCE * 100.0
    );
    settle(
        &mut check,
        spec.threshold_pct,
        " against the earlier rounds",
    );
    Ok(check)
}

/// Up to `last` earlier rounds, newest first: in each, the complete run of the run's
/// configuration (not a reference run) and the reference's run of that round.
fn earlier_pairs<'r>(
    store: &Store,
    tonight: &Loaded,
    reference: &Group,
    by_round: &BTreeMap<String, &'r Loaded>,
    round: &str,
    last: usize,
) -> Result<Vec<(Loaded, &'r Loaded)>, CheckError> {
    let refs: Vec<&str> = reference.runs.iter().map(|l| l.row.id.0.as_str()).collect();
    let all = store.list(&Filter::default())?;
    // Newest first: the runs after the run's own position are older.
    let from = all
        .iter()
        .position(|r| r.id == tonight.row.id)
        .map_or(all.len(), |i| i + 1);
    let mut seen = vec![round.to_string()];
    let mut pairs = Vec::new();
    for row in all.into_iter().skip(from) {
        if pairs.len() >= last {
            break;
        }
        let Some(r) = round_of(&row.tags) else {
            continue;
        };
        if row.state != State::Complete
            || refs.contains(&row.id.0.as_str())
            || seen.contains(&r)
            || !configuration::same(&row, &tonight.row)
        {
            continue;
        }
        let Some(reference) = by_round.get(&r).copied() else {
            continue;
        };
        seen.push(r);
        pairs.push((Loaded::read(store, row)?, reference));
    }
    Ok(pairs)
}

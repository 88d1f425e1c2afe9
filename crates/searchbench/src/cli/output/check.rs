//! `searchbench check`: the metrics asked for, the error counts that rose, the answer.

use super::table;
use crate::analysis::check::{format_change, Check, Outcome};
use crate::units::{format_metric, format_value};

pub fn check(c: &Check) {
    let baseline = c
        .baseline
        .as_ref()
        .map(|b| b.label.clone())
        .unwrap_or_else(|| "(none)".into());
    sayln!(
        "run {} against {}, threshold {} %",
        c.run.label,
        baseline,
        c.threshold_pct
    );
    if !c.metrics.is_empty() {
        let mut t = table([
            "metric".to_string(),
            "baseline".into(),
            "run".into(),
            format!("change [{:.0} % CI]", c.confidence * 100.0),
            "samples".into(),
            "verdict".into(),
        ]);
        for m in &c.metrics {
            let v = |x: Option<f64>| {
                x.map(|x| format!("{} {}", format_value(x), m.unit).trim().to_string())
                    .unwrap_or_else(|| "-".into())
            };
            let samples = match (m.n_baseline, m.n, m.samples) {
                (Some(a), Some(b), Some(k)) => format!("{a} vs {b} {k}"),
                _ => "-".into(),
            };
            t.add_row([
                m.label.clone(),
                v(m.baseline),
                v(m.value),
                format_change(m),
                samples,
                m.verdict_said(),
            ]);
        }
        outln!("{t}");
    }
    for e in &c.errors_rose {
        sayln!(
            "errors rose: {}: {} → {}",
            e.label,
            format_metric(true, e.baseline),
            format_metric(true, e.value)
        );
    }
    if !c.method.is_empty() {
        sayln!("intervals: {}", c.method);
    }
    for n in &c.notes {
        sayln!("note: {n}");
    }
    sayln!(
        "check: {}",
        match c.outcome {
            Outcome::Pass => super::paint("PASS (exit 0)", super::Tone::Good),
            Outcome::Regressed => super::paint("REGRESSED (exit 3)", super::Tone::Bad),
            Outcome::CannotTell => super::paint("CANNOT TELL (exit 125)", super::Tone::Unsure),
        }
    );
}

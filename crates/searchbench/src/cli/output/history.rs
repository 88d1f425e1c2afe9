//! Terminal rendering of a history: one row per point of the axis with each shown metric's
//! median and interval, the verdict of each point against the one before, then the change
//! points of every metric (when there are enough points for them).

use super::table;
use crate::analysis::compare::{format_diff, format_n, format_verdict, Verdict};
use crate::analysis::history::{Axis, History, MIN_POINTS_FOR_CHANGE_POINTS};
use crate::units::format_metric;

pub fn print(h: &History) {
    sayln!(
        "history of {} (configuration {}): {} run(s) at {} point(s), ordered by {}",
        super::printable(&h.configuration.summary()),
        h.configuration.id,
        h.runs.len(),
        h.points.len(),
        match h.axis {
            Axis::Version => "engine version",
            Axis::Time => "time",
        }
    );
    let shown: Vec<_> = h.series.iter().filter(|s| s.shown).collect();
    let mut header = vec!["point".to_string(), "runs".to_string()];
    if h.axis == Axis::Time {
        header.push("started".into());
    }
    for s in &shown {
        let unit = if s.unit.is_empty() {
            String::new()
        } else {
            format!(" ({})", s.unit)
        };
        header.push(format!("{}{unit}\nmedian [95 % CI of mean]", s.label));
    }
    let mut t = table(header);
    for (p, point) in h.points.iter().enumerate() {
        let mut row = vec![point.label.clone(), point.runs.len().to_string()];
        if h.axis == Axis::Time {
            let first = point.runs.first().map(|&r| h.runs[r].started_unix);
            row.push(first.map(crate::report::utc).unwrap_or_default());
        }
        for s in &shown {
            row.push(match &s.groups[p] {
                Some(g) => {
                    let f = |v: f64| format_metric(s.errors, v);
                    match (g.low, g.high) {
                        (Some(lo), Some(hi)) if g.n > 1 => {
                            format!("{} [{}–{}]", f(g.median), f(lo), f(hi))
                        }
                        _ => f(g.median),
                    }
                }
                None => "-".into(),
            });
        }
        t.add_row(row);
    }
    outln!("{t}");
    let hidden = h.series.len() - shown.len();
    if hidden > 0 {
        sayln!(
            "{hidden} more metric(s) without a change point not shown here (their clear steps are in the verdicts; --metric KEY, --json or --html for all)"
        );
    }
    print_verdicts(h);
    print_change_points(h);
    if !h.excluded.is_empty() {
        sayln!("left out: {}", super::printable(&h.excluded.join(", ")));
    }
}

/// Pairs of points up to which every verdict is shown; beyond, only the better and worse.
const ALL_VERDICTS_UP_TO: usize = 3;

/// Each point against the one before it: the answer to "is the newer one faster?".
pub fn print_verdicts(h: &History) {
    if h.verdicts.is_empty() {
        return;
    }
    let pairs = h.points.len().saturating_sub(1);
    let shown: Vec<_> = h
        .verdicts
        .iter()
        .filter(|v| pairs <= ALL_VERDICTS_UP_TO || v.cell.verdict.is_change())
        .collect();
    sayln!(
        "verdicts, each point against the one before (95 % interval over runs; cannot tell when the runs could not have seen {} %):",
        h.threshold_pct
    );
    if !shown.is_empty() {
        let mut t = table(["metric", "from → to", "diff [95 % CI]", "runs", "verdict"]);
        for v in &shown {
            let verdict = match v.cell.verdict {
                Verdict::Better => "better ✓".to_string(),
                Verdict::Worse => "WORSE ✗".to_string(),
                _ => format_verdict(&v.cell, h.threshold_pct),
            };
            t.add_row([
                v.label.clone(),
                format!("{} → {}", v.from, v.to),
                format_diff(&v.cell),
                format_n(&v.cell),
                verdict,
            ]);
        }
        outln!("{t}");
    }
    let left = h.verdicts.len() - shown.len();
    if left > 0 {
        sayln!("{left} more step(s) neither better nor worse (--json for all)");
    }
}

/// The change points of every metric, or a line saying there are none (or why they were
/// not searched).
pub fn print_change_points(h: &History) {
    if !h.change_points_searched {
        sayln!(
            "change points: not searched: no product has {MIN_POINTS_FOR_CHANGE_POINTS} or more points (versions or builds) here; the verdicts above compare the points"
        );
        return;
    }
    let all = h.change_points();
    if all.is_empty() {
        sayln!("no change point in any metric ({})", h.change_point_rule());
        return;
    }
    sayln!("change points ({}):", h.change_point_rule());
    let mut t = table([
        "metric",
        "from",
        "to",
        "direction",
        "size",
        "95 % CI",
        "p",
        "note",
    ]);
    for (s, c) in all {
        let ch = &c.change;
        t.add_row([
            s.label.clone(),
            c.from.clone(),
            c.to.clone(),
            match ch.shift {
                crate::analysis::changepoint::Shift::Regression => "REGRESSION".to_string(),
                other => other.name().to_string(),
            },
            ch.size_pct
                .map(|v| format!("{v:+.1} %"))
                .unwrap_or_else(|| "-".into()),
            ch.interval
                .map(|i| format!("[{:+.1}, {:+.1}] %", i.low_pct, i.high_pct))
                .unwrap_or_else(|| "-".into()),
            format!("{:.3}", ch.p_value),
            if c.suspect.is_empty() {
                String::new()
            } else {
                format!("SUSPECT: {}", c.suspect.join("; "))
            },
        ]);
    }
    outln!("{t}");
}

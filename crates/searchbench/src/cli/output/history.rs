//! Terminal rendering of a history: one row per point of the axis with each shown metric's
//! median and interval, then the change points of every metric.

use super::table;
use crate::analysis::history::{Axis, History};
use crate::units::format_metric;

pub fn print(h: &History) {
    sayln!(
        "history of {} (configuration {}): {} run(s) at {} point(s), ordered by {}",
        h.configuration.summary(),
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
            "{hidden} more metric(s) without a change point not shown (--metric KEY, --json or --html for all)"
        );
    }
    print_change_points(h);
    if !h.excluded.is_empty() {
        sayln!("left out (not complete): {}", h.excluded.join(", "));
    }
}

/// The change points of every metric, or a line saying there are none.
pub fn print_change_points(h: &History) {
    let all = h.change_points();
    if all.is_empty() {
        sayln!(
            "no change point in any metric (E-divisive means, permutation test at α = {}, {} permutations)",
            h.alpha, h.permutations
        );
        return;
    }
    sayln!(
        "change points (E-divisive means, permutation test at α = {}, {} permutations):",
        h.alpha,
        h.permutations
    );
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

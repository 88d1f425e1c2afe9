//! A query result's accuracy against the ground truth, and its shards and cold passes.

use comfy_table::Cell;

use super::super::table;
use crate::query::{Check, QueryResult, VariantAccuracy};

use super::*;

pub(super) fn bad(n: u64) -> Cell {
    if n > 0 {
        red(n.to_string())
    } else {
        Cell::new("0")
    }
}

/// The accuracy table: one row per variant, a column for each check some variant makes ('-'
/// where a variant does not make it); the percentile columns only when one asks for them.
pub(super) fn accuracy_table(r: &QueryResult) -> super::super::Grid {
    let rows: Vec<(&VariantAccuracy, Vec<Check>)> = r
        .accuracy
        .iter()
        .map(|a| (a, a.checks_or_inferred(&r.workload)))
        .collect();
    let used: Vec<Check> = Check::ALL
        .into_iter()
        .filter(|c| rows.iter().any(|(_, checks)| checks.contains(c)))
        .collect();
    let mut header = vec!["variant".to_string(), "answers".to_string()];
    for c in &used {
        match c {
            Check::Percentiles => header.extend(
                [
                    "pct values",
                    "pct max err",
                    "pct mean err",
                    "max err p0/p50/p90/p100",
                    "bound",
                ]
                .map(String::from),
            ),
            Check::Neighbours => header.extend(
                [
                    Check::Neighbours.heading(),
                    "recall@k mean",
                    "recall@k lowest",
                ]
                .map(String::from),
            ),
            other => header.push(other.heading().to_string()),
        }
    }
    header.push("verdict".into());
    let mut t = table(header);
    for (a, checks) in rows {
        let mut row = vec![Cell::new(a.variant.name()), Cell::new(a.answers)];
        for c in &used {
            let applies = checks.contains(c);
            match c {
                Check::Percentiles if applies => {
                    let pct = |x: f64| format!("{:.4}%", x * 100.0);
                    row.push(bad_of(
                        a.pct_values,
                        a.pct_null.saturating_add(a.pct_over_bound),
                    ));
                    row.push(Cell::new(pct(a.pct_max_err)));
                    row.push(Cell::new(pct(a.pct_mean_err)));
                    row.push(Cell::new(
                        a.pct_max_err_by_percent
                            .iter()
                            .map(|x| format!("{:.3}", x * 100.0))
                            .collect::<Vec<_>>()
                            .join(" / "),
                    ));
                    row.push(Cell::new(
                        a.bound.map_or("-".into(), |b| format!("{:.0}%", b * 100.0)),
                    ));
                }
                Check::Percentiles => row.extend((0..5).map(|_| Cell::new("-"))),
                Check::Neighbours if applies => {
                    let recall = |r: Option<f64>| r.map_or("-".into(), |r| format!("{r:.4}"));
                    row.push(bad(a.hits_wrong));
                    row.push(Cell::new(recall(a.recall_mean())));
                    row.push(Cell::new(recall(a.recall_min)));
                }
                Check::Neighbours => row.extend((0..3).map(|_| Cell::new("-"))),
                other if applies => row.push(bad(other.wrong(a))),
                _ => row.push(Cell::new("-")),
            }
        }
        row.push(if a.failed() {
            red("FAIL".into())
        } else if checks.is_empty() {
            Cell::new("not checked")
        } else {
            super::super::tone_cell("ok", super::super::Tone::Good)
        });
        t.add_row(row);
    }
    t
}

/// The index at each shard count, when shards were an axis.
pub(super) fn print_shards(r: &QueryResult) {
    if let Some(line) = r.shards_line() {
        sayln!("{line}");
    }
}

/// The cold pass beside the warm passes, and how cold it was.
pub(super) fn print_cold(r: &QueryResult) {
    let rows = r.cold_vs_warm();
    let Some(summary) = &r.cold else {
        return;
    };
    let unit = r.described().unit;
    sayln!("\n{}", crate::query::cold::heading(&unit));
    if rows.is_empty() {
        sayln!("no cold {unit} was measured");
    } else {
        let mut t = table([
            "variant",
            "transport",
            "n cold",
            "warm wall",
            "cold wall",
            "cold ÷ warm",
            "warm took",
            "cold took",
        ]);
        for c in &rows {
            t.add_row([
                c.variant.name().to_string(),
                c.transport.name().to_string(),
                c.cold_n.to_string(),
                ms(c.warm_wall_ms),
                ms(c.cold_wall_ms),
                c.ratio().map_or("-".into(), |x| format!("{x:.2}×")),
                ms(c.warm_took_ms),
                ms(c.cold_took_ms),
            ]);
        }
        outln!("{t}");
    }
    sayln!("{}", summary.describe(&unit));
}

/// Each cell under write beside idle (`--beside-idle`), and what the change is.
pub(super) fn print_under_write(r: &QueryResult) {
    let rows = crate::analysis::under_write::of(r);
    if rows.is_empty() {
        return;
    }
    let unit = r.described().unit;
    sayln!("\n{}", crate::analysis::under_write::heading(&unit));
    // The transport only when the cells have more than one, as the cells' table.
    let transports = rows.iter().any(|w| w.transport != rows[0].transport);
    let mut header = vec!["variant"];
    if transports {
        header.push("transport");
    }
    header.extend([
        "n idle / write",
        "idle p50",
        "idle p99",
        "write p50",
        "write p99",
        "write vs idle (95 %)",
    ]);
    let mut t = table(header);
    let opt = |x: Option<f64>| x.map_or_else(|| "-".into(), ms);
    for w in &rows {
        let mut row = vec![Cell::new(w.variant.name())];
        if transports {
            row.push(Cell::new(w.transport.name()));
        }
        row.extend([
            Cell::new(format!("{} / {}", w.idle.n, w.write.n)),
            Cell::new(opt(w.idle.p50_ms)),
            Cell::new(opt(w.idle.p99_ms)),
            Cell::new(opt(w.write.p50_ms)),
            Cell::new(opt(w.write.p99_ms)),
            if w.errors > 0 {
                red(format!("{} ({} failed)", w.change_text(), w.errors))
            } else {
                Cell::new(w.change_text())
            },
        ]);
        t.add_row(row);
    }
    outln!("{t}");
    sayln!("{}", crate::analysis::under_write::NOTE);
}

/// `n`, red when `wrong` of them are.
pub(super) fn bad_of(n: u64, wrong: u64) -> Cell {
    if wrong > 0 {
        red(n.to_string())
    } else {
        Cell::new(n)
    }
}

/// Red on a terminal; plain text when piped (no escape codes in files and pipes).
pub(super) fn red_text(s: &str) -> String {
    super::super::paint(s, super::super::Tone::Bad)
}

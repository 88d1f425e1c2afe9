//! Markdown rendering: per-run configuration and figures, and the comparison table.

use std::fmt::Write as _;

use super::Group;
use crate::analysis::compare::{format_diff, format_n, Comparison};
use crate::units::{format_metric, format_value};

use crate::shown::markdown as cell;

/// The comparison as a Markdown table plus its notes.
pub fn compare_table(c: &Comparison) -> String {
    if c.rows.is_empty() && c.hidden_unchanged > 0 {
        // No empty table: what --only-changed left is nothing.
        let mut s = format!(
            "Nothing changed: none of the {} metric(s) is significantly better or worse.\n",
            c.hidden_unchanged
        );
        for n in &c.notes {
            let _ = writeln!(s, "\n> note: {}", cell(n));
        }
        return s;
    }
    let mut s = format!("| metric | unit | {} (base) |", cell(&c.base.label));
    for k in &c.contenders {
        let _ = write!(
            s,
            " {} | diff [{:.0} % CI] | samples | verdict |",
            cell(&k.label),
            c.confidence * 100.0
        );
    }
    s.push('\n');
    s.push_str("|---|---|---:|");
    for _ in &c.contenders {
        s.push_str("---:|---:|---|---|");
    }
    s.push('\n');
    for row in &c.rows {
        let _ = write!(
            s,
            "| {} | {} | {} |",
            cell(&row.label),
            cell(&row.unit),
            format_value(row.base)
        );
        for k in &row.contenders {
            match k {
                Some(k) => {
                    let _ = write!(
                        s,
                        " {} | {} | {} | {} |",
                        format_value(k.value),
                        format_diff(k),
                        format_n(k),
                        crate::analysis::compare::format_verdict(k, c.threshold_pct)
                    );
                }
                None => s.push_str(" - | | | |"),
            }
        }
        s.push('\n');
    }
    if c.hidden_unchanged > 0 {
        let _ = writeln!(
            s,
            "\n{} metric(s) without a significant change hidden",
            c.hidden_unchanged
        );
    }
    for n in &c.notes {
        let _ = writeln!(s, "\n> note: {}", cell(n));
    }
    s
}

/// The summary a comparison opens with: per contender, what got better and what got worse.
pub fn what_changed(c: &Comparison) -> String {
    let mut s = String::from("## What changed\n\n");
    for ch in c.changes() {
        let _ = writeln!(
            s,
            "**{}** against **{}** (base): {}.\n",
            cell(&ch.contender.label),
            cell(&c.base.label),
            ch.counts()
        );
        for (row, k) in ch.changed() {
            let _ = writeln!(
                s,
                "- {}: {} → {} {}, {} ({})",
                cell(&row.label),
                row.format(row.base),
                row.format(k.value),
                cell(&row.unit),
                format_diff(k),
                crate::analysis::compare::format_verdict(k, c.threshold_pct)
            );
        }
        if ch.changed().next().is_some() {
            s.push('\n');
        }
    }
    s
}

pub fn render(groups: &[Group], comparison: Option<&Comparison>) -> String {
    let mut s = String::from("# searchbench report\n\n");
    if let Some(c) = comparison {
        s.push_str(&what_changed(c));
        s.push_str("## Comparison, every metric\n\n");
        s.push_str(&compare_table(c));
        s.push('\n');
    }
    for l in super::runs_of(groups) {
        let r = &l.row;
        let _ = writeln!(s, "## Run {}\n", r.id);
        // The id is the heading already.
        for (k, v) in super::run_rows(r).into_iter().skip(1) {
            let _ = writeln!(s, "- **{}**: {}", cell(k), cell(&v));
        }
        let ms = l.metrics();
        if !ms.is_empty() {
            s.push_str("\n| metric | value | unit | samples |\n|---|---:|---|---|\n");
            for m in ms {
                let n = m.samples_shown();
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} |",
                    cell(&m.label),
                    format_metric(m.errors, m.value),
                    cell(&m.unit),
                    n
                );
            }
        }
        let _ = writeln!(
            s,
            "\n<details><summary>configuration</summary>\n\n```json\n{}\n```\n</details>\n",
            serde_json::to_string_pretty(&r.config).unwrap_or_default()
        );
    }
    s
}

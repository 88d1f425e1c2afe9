//! `compare`'s table (and `ab`'s, which ends with one).

use comfy_table::Cell;

use super::Tone;
use crate::analysis::compare::{format_diff, format_n, format_verdict, Comparison, Verdict};
use crate::cli::CliResult;

/// Prints a comparison: JSON, Markdown, or a table with its notes (only the metrics that
/// changed with `only_changed`).
pub fn print(mut c: Comparison, json: bool, markdown: bool, only_changed: bool) -> CliResult {
    if only_changed {
        c.only_changed();
    }
    if json {
        super::json(&c)?;
    } else if c.rows.is_empty() && c.hidden_unchanged > 0 && !markdown {
        // No empty table: what --only-changed left is nothing.
        outln!(
            "nothing changed: none of the {} metric(s) is significantly better or worse \
             (drop --only-changed to see them)",
            c.hidden_unchanged
        );
        for n in &c.notes {
            sayln!("note: {n}");
        }
    } else if markdown {
        out!("{}", crate::report::markdown::compare_table(&c));
    } else {
        // Below 100 columns the samples column goes (the verdict says when there were too
        // few), so every other column keeps its words whole at 80; `--json`, `--markdown` and
        // a wider terminal have it.
        let samples = super::width().is_none_or(|w| w >= 100) || c.contenders.len() > 1;
        let mut header = vec!["metric".to_string(), format!("{} (base)", c.base.label)];
        for k in &c.contenders {
            header.push(k.label.clone());
            header.push(format!("diff [{:.0} % CI]", c.confidence * 100.0));
            if samples {
                header.push("samples".into());
            }
            header.push("verdict".into());
        }
        let mut t = super::table(header);
        for row in &c.rows {
            let unit = if row.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", row.unit)
            };
            let value = |v: f64| row.format(v);
            let mut line = vec![
                Cell::new(row.label.clone()),
                Cell::new(format!("{}{unit}", value(row.base))),
            ];
            for k in &row.contenders {
                match k {
                    Some(k) => {
                        line.push(Cell::new(format!("{}{unit}", value(k.value))));
                        line.push(Cell::new(format_diff(k)));
                        if samples {
                            line.push(Cell::new(format_n(k)));
                        }
                        line.push(match k.verdict {
                            Verdict::Better => super::tone_cell("better ✓", Tone::Good),
                            Verdict::Worse => super::tone_cell("WORSE ✗", Tone::Bad),
                            _ => Cell::new(format_verdict(k, c.threshold_pct)),
                        });
                    }
                    None => {
                        line.extend(["-", "", ""].map(Cell::new));
                        if samples {
                            line.push(Cell::new(""));
                        }
                    }
                }
            }
            t.add_row(line);
        }
        outln!("{t}");
        if c.hidden_unchanged > 0 {
            sayln!(
                "{} metric(s) without a significant change hidden (drop --only-changed to see them)",
                c.hidden_unchanged
            );
        }
        if !samples {
            outln!("(the samples behind each figure: --json, --markdown, or 100+ columns)");
        }
        for n in &c.notes {
            sayln!("note: {n}");
        }
        if c.rows.is_empty() && c.hidden_unchanged == 0 {
            outln!("the base run has no result to compare (incomplete?)");
        }
    }
    Ok(())
}

//! Field note 002's tables (`analysis::baseline`): one per section, a column per engine.

use super::table;
use crate::analysis::baseline::{Baseline, Section};
use crate::units::format_metric;

pub fn print(b: &Baseline) {
    outln!("field note 002: the engines beside the sketch store (medians over each one's runs)");
    for section in [
        Section::Load,
        Section::TimeSplit,
        Section::Queries,
        Section::Accuracy,
    ] {
        let rows: Vec<_> = b.rows.iter().filter(|r| r.section == section).collect();
        if rows.is_empty() {
            continue;
        }
        let mut header = vec![section.title().to_string()];
        header.extend(b.columns.iter().cloned());
        let mut t = table(header);
        for row in rows {
            let label = if row.unit.is_empty() {
                row.label.clone()
            } else {
                format!("{} ({})", row.label, row.unit)
            };
            let mut cells = vec![label];
            cells.extend(
                row.values
                    .iter()
                    .map(|v| v.map_or_else(|| "-".to_string(), |v| format_metric(row.count, v))),
            );
            t.add_row(cells);
        }
        outln!("{t}");
    }
    for run in &b.wrong_answer_runs {
        outln!("counted though it failed on wrong answers alone (its figures are real): {run}");
    }
}

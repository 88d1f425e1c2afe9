//! A query result's verdict: all right, or what was wrong and where.

use super::super::Detail;
use crate::query::QueryResult;

use super::*;

pub(super) fn print_verdict(r: &QueryResult, detail: Detail) {
    let words = r.described();
    let wrong = r.failures_total > 0;
    let recall = r.accuracy.iter().any(|a| a.recall_answers > 0);
    if r.accuracy_checked && (detail == Detail::Full || wrong || recall) {
        sayln!("\n{}", words.checked_against);
        outln!("{}", accuracy_table(r));
    } else if !r.accuracy_checked {
        sayln!("\nAccuracy not checked (--no-check)");
    }
    let errors = r.request_errors();
    if r.failures_total > 0 || errors > 0 {
        let mut msg = String::new();
        if r.failures_total > 0 {
            msg.push_str(&format!("{} wrong answer(s)", r.failures_total));
            let distinct = r.failures.len();
            if distinct > 0 && (distinct as u64) < r.failures_total {
                msg.push_str(&format!(
                    " ({}{distinct} distinct{})",
                    if distinct >= 50 { "at least " } else { "" },
                    if distinct > 10 {
                        ", the first 10 below"
                    } else {
                        ""
                    }
                ));
            }
        }
        if errors > 0 {
            if !msg.is_empty() {
                msg.push_str(", ");
            }
            msg.push_str(&format!("{errors} failed request(s)"));
        }
        sayln!("{}", red_text(&format!("FAILED: {msg}")));
        for f in r.failures.iter().take(10) {
            sayln!("{}", red_text(&format!("  {f}")));
        }
    } else if r.accuracy_checked {
        sayln!("{}", all_right(r, &words.all_right));
    }
}

/// The verdict line of a result with no wrong answer and no failed request: the workload's
/// words when every query was checked, and what was not checked when some (or all) of them
/// expected nothing of their answers (a queries file without `expect`).
pub(super) fn all_right(r: &QueryResult, words: &str) -> String {
    let unchecked = r
        .accuracy
        .iter()
        .filter(|a| a.checks_or_inferred(&r.workload).is_empty())
        .count();
    let queries = r.accuracy.len();
    match unchecked {
        0 => words.to_string(),
        n if n == queries => {
            "No answer was checked: the queries expect nothing of their answers. No failed \
             request."
                .into()
        }
        n => format!(
            "{words} ({n} of {queries} queries expect nothing of their answers: not checked.)"
        ),
    }
}

/// Each reason searches failed for, once, with its count and the cells it hit (a result
/// without counted reasons shows its examples the same way).
pub(super) fn print_errors(r: &QueryResult) {
    let mut reasons: Vec<(String, u64, Vec<String>)> = Vec::new();
    for c in r.cells.iter().chain(&r.profile_cells) {
        let cell = format!("{} {}", c.variant.name(), c.transport.name());
        let counted: Vec<(String, u64)> = if c.error_kinds.is_empty() {
            c.error_examples.iter().map(|e| (e.clone(), 1)).collect()
        } else {
            c.error_kinds
                .iter()
                .map(|k| (k.message.clone(), k.count))
                .collect()
        };
        for (message, count) in counted {
            match reasons.iter_mut().find(|(m, ..)| *m == message) {
                Some((_, n, cells)) => {
                    *n = n.saturating_add(count);
                    if !cells.contains(&cell) {
                        cells.push(cell.clone());
                    }
                }
                None => reasons.push((message, count, vec![cell.clone()])),
            }
        }
    }
    if reasons.is_empty() {
        return;
    }
    errln!("failed searches, by reason:");
    for (message, count, cells) in reasons {
        let cells = if cells.len() > 3 {
            format!("{} cells", cells.len())
        } else {
            cells.join(", ")
        };
        errln!("  {count}× {message} ({cells})");
    }
}

//! Terminal rendering of a matrix: its order first, a line per run as it goes, the history
//! table and what did not complete at the end.

use super::table;
use crate::session::matrix::{Matrix, Slot, Step};

pub fn print_order(id: &str, order: &[Slot], seed: u64) {
    errln!(
        "matrix {id}: {} runs, interleaved (order seed {seed}); stored with the tag matrix={id}",
        order.len()
    );
    let mut round = 0;
    let mut line = String::new();
    for s in order {
        if s.round != round {
            if !line.is_empty() {
                errln!("{line}");
            }
            round = s.round;
            line = format!("  round {round}:");
        }
        line.push_str(&format!(" {}", s.engine));
    }
    if !line.is_empty() {
        errln!("{line}");
    }
}

pub fn step(s: &Step<'_>) {
    match s {
        Step::Starting { slot, of } => errln!(
            "\nmatrix run {}/{of} (round {}): {}",
            slot.position,
            slot.round,
            slot.engine
        ),
        Step::Finished { done, of } => {
            let what = match (&done.run_id, done.state) {
                (Some(id), Some(state)) => format!(
                    "run {id} {}{}",
                    state.name(),
                    done.docs_per_sec
                        .map(|r| format!(", {} docs/s", crate::units::format_value(r)))
                        .unwrap_or_default()
                ),
                _ => "no run stored".to_string(),
            };
            match &done.error {
                Some(e) => errln!(
                    "matrix run {}/{of} {}: {what}: {e}",
                    done.slot.position,
                    done.slot.engine
                ),
                None => errln!(
                    "matrix run {}/{of} {}: {what}",
                    done.slot.position,
                    done.slot.engine
                ),
            }
        }
    }
}

pub fn print(m: &Matrix) {
    outln!();
    match &m.history {
        Some(h) => super::history::print(h),
        None => outln!(
            "no complete run to tabulate: {}",
            m.history_error.as_deref().unwrap_or("?")
        ),
    }
    if let Some(b) = &m.baseline {
        super::baseline::print(b);
    }
    let bad: Vec<_> = m
        .done
        .iter()
        .filter(|d| d.state != Some(crate::store::State::Complete))
        .collect();
    if !bad.is_empty() {
        let mut t = table(["#", "engine", "run", "state", "why"]);
        for d in bad {
            t.add_row([
                d.slot.position.to_string(),
                d.slot.engine.clone(),
                d.run_id.clone().unwrap_or_else(|| "-".into()),
                d.state.map_or("not run", |s| s.name()).to_string(),
                d.error.clone().unwrap_or_default(),
            ]);
        }
        outln!("runs that did not complete:\n{t}");
    }
    let left = m.order.len() - m.done.len();
    if left > 0 {
        outln!("{left} run(s) of the order not started (interrupted)");
    }
    outln!(
        "matrix {}: {} run(s); again with: searchbench history --tag matrix={}",
        m.id,
        m.done.len(),
        m.id
    );
    if let Some(p) = &m.html {
        outln!("report: {}", p.display());
    }
}

//! `searchbench bisect`: every release measured, with its evidence, and the answer.

use super::table;
use crate::session::bisect::search::{Outcome, Side};
use crate::session::bisect::BisectResult;
use crate::units::format_value;

pub fn bisection(r: &BisectResult) {
    let b = &r.bisection;
    let name = |i: usize| r.versions.get(i).map(String::as_str).unwrap_or("?");
    let mut t = table([
        "release",
        "runs",
        "median",
        "change from good [95 % CI]",
        "side",
    ]);
    let mut probed: Vec<_> = b.probed.iter().collect();
    probed.sort_by_key(|p| p.index);
    for p in probed {
        t.add_row([
            name(p.index).to_string(),
            p.values.len().to_string(),
            format_value(p.median),
            p.vs_good
                .map(|i| format!("[{:+.1}, {:+.1}] %", i.low_pct, i.high_pct))
                .unwrap_or_else(|| "-".into()),
            match p.side {
                Side::Good => "good",
                Side::Bad => "bad",
                Side::Undecided => "undecided",
            }
            .to_string(),
        ]);
    }
    outln!(
        "{} over {} releases, bisect={}",
        r.metric,
        r.versions.len(),
        r.id
    );
    outln!("{t}");
    outln!(
        "{} probe(s) between the ends, {} run(s) in all (searchbench results list --tag bisect={})",
        b.probes,
        b.runs,
        r.id
    );
    match &b.outcome {
        Outcome::Found {
            last_good,
            first_bad,
        } => outln!(
            "first release with the change: {} (the one before, {}, is without it)",
            name(*first_bad),
            name(*last_good)
        ),
        Outcome::NoChange { could_detect_pct } => outln!(
            "no change between the ends: nothing to bisect (these runs would have seen a change of {})",
            could_detect_pct
                .map(|m| format!("{m:.1} %"))
                .unwrap_or_else(|| "?".into())
        ),
        Outcome::CannotTell { good, bad, why } => outln!(
            "cannot tell: {why}; the change is after {} and at or before {}",
            name(*good),
            name(*bad)
        ),
    }
}

//! The lines an ingest's summary is made of: the reconciliation, the failure limit, what
//! the index held before.

use crate::ingest::{FailureLimit, IdMode, IngestReport, Previous};

pub fn reconcile_line(r: &IngestReport) -> String {
    let c = &r.counts;
    let mut count = c
        .index_count
        .map_or_else(|| "unknown".to_string(), |n| n.to_string());
    if let (Some(before), Some(after)) = (c.index_count_before, c.index_count) {
        count = format!(
            "{after} - {before} before = {}",
            after.saturating_sub(before)
        );
    }
    let mut line = format!(
        "read {} = indexed {} + failed {}{}; index count {count}",
        c.read,
        c.indexed,
        c.failed,
        if Some(c.read) == c.indexed.checked_add(c.failed) {
            ""
        } else {
            " (does NOT add up)"
        }
    );
    // What the load added to the index (its count less what was there before, on --append).
    let added = c
        .index_count
        .map(|n| n.saturating_sub(c.index_count_before.unwrap_or(0)));
    if c.overwritten > 0 {
        line.push_str(&format!(
            " ({} indexed over ids already used: id conflicts)",
            c.overwritten
        ));
    }
    if added.is_some_and(|n| n > c.indexed) && r.config.ids == IdMode::Auto {
        line.push_str(" (more documents than acknowledged: with --ids auto a request retried after a lost answer is indexed twice; --ids sequential avoids it)");
    }
    line
}

/// `2 of 6 documents failed (33.3%): more than --max-failures 0` (or `within`).
pub fn failure_limit_line(l: &FailureLimit) -> String {
    let share = if l.read > 0 {
        format!(" ({:.1}%)", l.failed as f64 * 100.0 / l.read as f64)
    } else {
        String::new()
    };
    format!(
        "{} of {} documents failed{share}: {} --max-failures {}",
        l.failed,
        l.read,
        if l.exceeded { "more than" } else { "within" },
        l.max
    )
}

pub(super) fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

/// What happened to an index that was there before the run, if one was.
pub(super) fn existing_line(r: &IngestReport) -> Option<String> {
    let e = r.existing_index.as_ref()?;
    let who = if e.ours {
        "made by searchbench"
    } else {
        "not made by searchbench"
    };
    // When it was created, apart from who made it: "not created by searchbench at 05:00"
    // read as if 05:00 were when it was not created.
    let when = e
        .created_unix_ms
        .map(|ms| format!(", created {}", crate::report::utc(ms / 1000)))
        .unwrap_or_default();
    let docs = e
        .docs
        .map_or_else(|| "unknown number of".to_string(), |n| n.to_string());
    let verb = match r.previous_index {
        Previous::Appended => "appended to",
        _ => "replaced",
    };
    let hint = if verb == "replaced" {
        "; --append loads into an index without deleting it"
    } else {
        ""
    };
    Some(format!(
        "{verb} index {} ({who}{when}, {docs} docs){hint}",
        r.index
    ))
}

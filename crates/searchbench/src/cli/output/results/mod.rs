//! Terminal rendering of stored runs: the list and one run in full.

use serde_json::Value;

use super::{bytes, table};
use crate::analysis::metrics;
use crate::analysis::said::{self, Said};
use crate::query::cells::CellResult;
use crate::report;
use crate::store::{self, RunRow};
use crate::units::{format_metric, format_value};

mod merged;
pub use merged::*;

/// When a percentile is shown.
pub const PERCENTILE_RULE: &str =
    "a percentile is shown only with enough values: p90 from 10, p99 from 100, p99.9 from 1000";

/// The one number that says most about a run.
pub fn headline(row: &RunRow) -> String {
    let Some(r) = &row.result else {
        return String::new();
    };
    if metrics::is_ingest(r) {
        if let Some(d) = Said::of_result(r).docs_per_sec {
            return format!("{} docs/s", format_value(d));
        }
    }
    let production = |c: &&CellResult| {
        c.variant.name() == "D_td" && c.transport == crate::query::Transport::Serial
    };
    if let Some(q) = said::query(r) {
        if let Some(c) = q.cells.iter().find(production) {
            return format!("D_td took {} ms", format_value(c.took_ms.mean));
        }
    }
    String::new()
}

pub fn tags_text(row: &RunRow) -> String {
    row.tags
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The stored runs, one a line; `published`: each run's publish word (`published`,
/// `PENDING` or empty: `store::publish_word`).
pub fn list(rows: &[RunRow], published: &[&str]) {
    // Kind and workload share a column ("run logs"), the zone is in the header, and the tags
    // and publish columns are there only when a run has tags or was ever published, so a
    // usual list keeps every word whole at 80 columns.
    let tagged = rows.iter().any(|r| !r.tags.is_empty());
    let publishing = published.iter().any(|w| !w.is_empty());
    let mut header = vec![
        "id",
        "started (UTC)",
        "kind workload",
        "engine",
        "state",
        "result",
    ];
    if publishing {
        header.push("published");
    }
    if tagged {
        header.push("tags");
    }
    let mut t = table(header);
    for (i, r) in rows.iter().enumerate() {
        let started = report::utc(r.started_unix);
        let mut row = vec![
            r.id.0.clone(),
            started.trim_end_matches(" UTC").to_string(),
            match crate::analysis::merge::part_of(r) {
                Some(part) => format!("{} {} part {part}", r.kind, r.workload_shown()),
                None => format!("{} {}", r.kind, r.workload_shown()),
            },
            r.engine.clone().unwrap_or_default(),
            r.state.name().to_string(),
            headline(r),
        ];
        if publishing {
            row.push(published.get(i).copied().unwrap_or_default().to_string());
        }
        if tagged {
            row.push(tags_text(r));
        }
        t.add_row(row);
    }
    outln!("{t}");
}

/// Where a run went, a line per destination: `URL PREFIX (complete, 2026-12-03 18:00 UTC)`,
/// or `PENDING at URL PREFIX: why`.
pub fn published_text(states: &[store::PublishState], state: store::State) -> String {
    let lines: Vec<String> = states
        .iter()
        .map(|p| match (&p.error, p.published_unix) {
            _ if p.holds(state) => format!(
                "{} ({}, {})",
                p.destination,
                p.state.as_deref().unwrap_or("?"),
                p.published_unix
                    .map_or_else(|| "?".into(), |t| report::utc(t.max(0) as u64))
            ),
            (Some(e), _) => format!("PENDING at {}: {e}", p.destination),
            (None, _) => format!(
                "PENDING at {}: published while {}, it is {} now",
                p.destination,
                p.state.as_deref().unwrap_or("?"),
                state.name()
            ),
        })
        .collect();
    lines.join("; ")
}

pub fn show(
    row: &RunRow,
    timeline: &[Value],
    histograms: &[Value],
    ms: &[metrics::Metric],
    published: &[store::PublishState],
) {
    let m = &row.machine;
    let mut t = table(["", ""]);
    for (k, v) in [
        ("run", row.id.0.clone()),
        ("kind", row.kind.clone()),
        ("workload", row.workload_shown()),
        ("engine", row.engine.clone().unwrap_or_else(|| "?".into())),
        ("state", row.state.name().into()),
        ("started", report::utc(row.started_unix)),
        (
            "finished",
            row.finished_unix
                .map(report::utc)
                .unwrap_or_else(|| "-".into()),
        ),
        ("searchbench", row.tool_version.clone()),
        (
            "seed",
            row.seed
                .map(|s| s.to_string())
                .unwrap_or_else(|| "-".into()),
        ),
        (
            "machine",
            crate::measure::machine::Machine::read(m).described(bytes),
        ),
        (
            "made by",
            crate::measure::provenance::Provenance::read(m).described(),
        ),
        (
            "engine build",
            crate::measure::provenance::Provenance::read(m)
                .engine_described()
                .unwrap_or_else(|| "?".into()),
        ),
        ("tags", tags_text(row)),
        ("timeline", format!("{} seconds", timeline.len())),
    ] {
        t.add_row([k.to_string(), v]);
    }
    if let Some(e) = &row.error {
        t.add_row(["error".to_string(), e.clone()]);
    }
    if !published.is_empty() {
        t.add_row([
            "published".to_string(),
            published_text(published, row.state),
        ]);
    }
    // A part of a run split over several drivers, or the run merged from them.
    let merge = crate::analysis::merge::group_of(row).map(|group| {
        match crate::analysis::merge::part_of(row) {
            Some(part) => format!("part {part} of group {group} (`results merge {group}`)"),
            None => parts_text(row, group),
        }
    });
    if let Some(text) = merge {
        t.add_row(["parts".to_string(), text]);
    }
    // The engine profile's recordings (`--profile`), to open in another tool (JMC).
    let said = Said::of(row);
    for f in said.recordings() {
        t.add_row(["profile recording".to_string(), f]);
    }
    outln!("{t}");
    if !ms.is_empty() {
        let mut t = table(["metric", "value", "unit", "samples"]);
        for m in ms {
            let n = m.samples_shown();
            t.add_row([
                m.label.clone(),
                format_metric(m.errors, m.value),
                m.unit.to_string(),
                n,
            ]);
        }
        outln!("{t}");
    }
    if !histograms.is_empty() {
        let cols = ["count", "p50", "p90", "p99", "p99.9", "max"];
        let mut t = table(
            ["histogram", "unit"]
                .into_iter()
                .chain(cols)
                .map(String::from),
        );
        for h in histograms {
            let cell = |k: &str| h.get(k).map(|v| v.to_string()).unwrap_or_default();
            // `query:range_terms_s0:serial:service` shown with spaces, so a narrow terminal
            // wraps it between its parts instead of splitting a word.
            let name = cell("name").replace('"', "").replace(':', " ");
            let mut row = vec![name, cell("unit").replace('"', "")];
            match h.get("error").and_then(Value::as_str) {
                Some(e) => row.push(e.to_string()),
                None => row.extend(cols.iter().map(|c| {
                    let v = cell(c);
                    if v.is_empty() {
                        "-".to_string()
                    } else {
                        v
                    }
                })),
            }
            t.add_row(row);
        }
        outln!("{t}");
        outln!("({PERCENTILE_RULE}; '-' when fewer)");
    }
    if let Some(h) = said.headline {
        outln!("headline throughput: {}", h.definition);
    }
    match row.state {
        store::State::Interrupted => outln!("this run was INTERRUPTED (Ctrl-C): its figures are partial; compare and tag groups leave it out unless --include-partial"),
        store::State::Failed => outln!("this run FAILED: {}", super::printable(row.error.as_deref().unwrap_or("see the result"))),
        _ => {}
    }
    if row.state == store::State::Incomplete {
        outln!("this run never finished (killed or crashed): only its start and the timeline rows saved so far are here");
    }
}

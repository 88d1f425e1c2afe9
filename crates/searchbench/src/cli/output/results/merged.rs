//! A merged run in full: its parts and how their counts add up.

use serde::Deserialize;
use serde_json::Value;

use super::super::table;
use crate::analysis::metrics;
use crate::ingest::stored::StoredLoad;
use crate::store::{self, RunRow};
use crate::units::format_value;

/// A merged run's parts in a few words: `3 of group nightly (missing 2/3)`.
pub(super) fn parts_text(row: &RunRow, group: &str) -> String {
    let parts = row
        .result
        .as_ref()
        .and_then(store::Parts::of_result)
        .unwrap_or_default();
    let of = parts.of;
    let each: Vec<String> = parts
        .each
        .iter()
        .map(|p| format!("{} {} ({})", p.part, p.run, p.state))
        .collect();
    let missing: Vec<String> = parts.missing.iter().map(|i| format!("{i}/{of}")).collect();
    let mut text = format!("{of} parts of group {group}: {}", each.join(", "));
    if !missing.is_empty() {
        text.push_str(&format!("; missing {}", missing.join(", ")));
    }
    text
}

/// A group merged from its parts: the group's figures, then each part beside.
pub fn merged(id: &store::RunId, m: &crate::analysis::merge::Merged) {
    let r = m.run.result.clone().unwrap_or(Value::Null);
    let query = serde_json::from_value::<crate::query::QueryResult>(r.clone())
        .ok()
        .filter(|_| metrics::is_query(&r));
    if let Some(q) = &query {
        super::super::query::print(q, super::super::Detail::Full);
    }
    let text = |v: Option<f64>| v.map(format_value).unwrap_or_else(|| "-".into());
    let parts = store::Parts::of_result(&r).unwrap_or_default();
    let of = parts.of;
    let mut t = table(["", ""]);
    for (k, v) in [
        ("run", id.0.clone()),
        ("group", format!("{} ({of} parts)", parts.group)),
        ("state", m.run.state.name().to_string()),
    ] {
        t.add_row([k.to_string(), v]);
    }
    if query.is_none() {
        let load = StoredLoad::deserialize(&r).unwrap_or_default();
        let c = &load.counts;
        for (k, v) in [
            (
                "docs/s",
                text(metrics::is_ingest(&r).then_some(load.docs_per_sec)),
            ),
            ("indexed", c.indexed.to_string()),
            (
                "index count",
                match (c.index_count, &parts.index_count) {
                    (Some(n), Some(how)) => format!("{n} ({how})"),
                    _ => "-".into(),
                },
            ),
            (
                "reconciled",
                if c.reconciled {
                    "yes".to_string()
                } else {
                    format!("no: {}", m.run.error.as_deref().unwrap_or("see why"))
                },
            ),
            ("service p50 ms", text(load.service.p50_ms)),
            ("service p99 ms", text(load.service.p99_ms)),
            ("driver CPU s", text(Some(load.cpu.driver_secs))),
        ] {
            t.add_row([k.to_string(), v]);
        }
    }
    if let Some(why) = &m.run.error {
        t.add_row(["why".to_string(), why.clone()]);
    }
    outln!("{t}");
    let columns: [&str; 3] = if query.is_some() {
        ["coverages_measured", "search_clients", "measured_secs"]
    } else {
        ["docs_per_sec", "indexed", "driver_cpu_secs"]
    };
    let mut rows = if query.is_some() {
        table(["part", "run", "state", "coverages", "clients", "measured s"])
    } else {
        table(["part", "run", "state", "docs/s", "indexed", "CPU s"])
    };
    for p in &parts.each {
        let n = |k: &str| match p.figures.get(k) {
            Some(Value::Number(v)) if v.is_u64() => v.to_string(),
            v => text(v.and_then(Value::as_f64)),
        };
        rows.add_row([
            p.part.clone(),
            p.run.clone(),
            p.state.clone(),
            n(columns[0]),
            n(columns[1]),
            n(columns[2]),
        ]);
    }
    for i in &parts.missing {
        rows.add_row([
            format!("{i}/{of}"),
            "-".into(),
            "missing".into(),
            "-".into(),
            "-".into(),
            "-".into(),
        ]);
    }
    outln!("{rows}");
    // The tags the parts do not share, which the merged run cannot carry as its own.
    let own: Vec<String> = parts
        .each
        .iter()
        .filter(|p| !p.tags.is_empty())
        .map(|p| {
            let tags: Vec<String> = p.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} {}", p.part, tags.join(","))
        })
        .collect();
    if !own.is_empty() {
        outln!(
            "tags of each part (not shared, so not the merged run's): {}",
            super::super::printable(&own.join("; "))
        );
    }
}

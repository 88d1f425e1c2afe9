//! The telemetry of a run as charts over time, drawn here as inline SVG (no script needed):
//! heap with GC marked, CPU, thread pools, segments and merges, disk, each on the time axis of
//! the page's throughput chart (the load's second 0 is at 0; the query phase follows).

use crate::analysis::said::Said;
use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::Value;

use super::chart::{self, Axis, Chart, Line, Mark, Plot, DARK_GREY, RED};
use super::page::esc;
use super::Loaded;
use crate::measure::telemetry::DRIVER;

/// One colour per node (the driver's is grey).
const NODE_COLOURS: [&str; 6] = [
    "#1f5fbf", "#e07b00", "#2a9d3a", "#7b3fb8", "#0e8a99", "#c2188b",
];
const DRIVER_COLOUR: &str = DARK_GREY;
const OLD_GC: &str = RED;
/// Young collections are many and short: amber, so that they show beside the grey driver.
const YOUNG_GC: &str = "#c98400";

/// A vertical mark at a time (a GC, a rejection, a phase change).
fn mark(x: f64, colour: &str, full: bool, title: String) -> Mark {
    Mark {
        x,
        colour: colour.to_string(),
        full,
        dashed: false,
        title,
        class: "mark",
    }
}

/// One chart over the run's time axis; `gap` is the widest step between samples that is
/// still joined.
fn chart(
    title: &str,
    unit: &str,
    x: (f64, f64),
    gap: f64,
    lines: Vec<Line>,
    marks: &[Mark],
) -> Chart {
    let mut p = Plot::new(title, Axis::new("second").range(x.0, x.1), Axis::new(unit));
    p.lines = lines
        .into_iter()
        .filter(|l| !l.points.is_empty())
        .map(|l| l.gap(gap))
        .collect();
    p.marks = marks.to_vec();
    if marks.iter().any(|m| m.colour == OLD_GC) {
        p.keys.push((OLD_GC.into(), "old-generation GC".into()));
    }
    if marks.iter().any(|m| m.colour == YOUNG_GC) {
        p.keys.push((YOUNG_GC.into(), "young GC".into()));
    }
    p.attrs.push(("data-telemetry", title.to_string()));
    p.into()
}

fn line(label: String, colour: &str, dashed: bool, points: Vec<(f64, f64)>) -> Line {
    let l = Line::new(label, colour, points);
    if dashed {
        l.dashed()
    } else {
        l
    }
}

fn get(row: &Value, key: &str) -> Option<f64> {
    row.get(key)?.as_f64()
}

/// The charts of one run's telemetry; empty when it has none.
pub fn run_charts(l: &Loaded) -> Vec<Chart> {
    if l.telemetry.is_empty() {
        return Vec::new();
    }
    // Where the load's second 0 lies on the telemetry clock (0 when unknown), and how often
    // it sampled: the summary's, read once.
    let telemetry = Said::of(&l.row).telemetry;
    let off = telemetry
        .as_ref()
        .and_then(|t| t.timeline_offset_secs)
        .unwrap_or(0.0);
    let at = |row: &Value| get(row, "second").map(|s| s - off);
    let nodes: Vec<String> = l
        .telemetry
        .iter()
        .filter_map(|r| r.get("node")?.as_str())
        .filter(|n| *n != DRIVER)
        .map(str::to_string)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let colour = |i: usize| NODE_COLOURS[i % NODE_COLOURS.len()];
    let many = nodes.len() > 1;
    let name = |what: &str, node: &str| {
        if many {
            format!("{what} {node}")
        } else {
            what.to_string()
        }
    };
    let series = |node: &str, key: &str, scale: f64| -> Vec<(f64, f64)> {
        l.telemetry
            .iter()
            .filter(|r| r.get("node").and_then(Value::as_str) == Some(node))
            .filter_map(|r| Some((at(r)?, get(r, key)? * scale)))
            .collect()
    };
    let marks_of = |key: &str, colour: &'static str, full: bool, what: &str| -> Vec<Mark> {
        l.telemetry
            .iter()
            .filter_map(|r| {
                let n = get(r, key).filter(|n| *n > 0.0)?;
                Some(mark(
                    at(r)?,
                    colour,
                    full,
                    format!(
                        "{} s: {n:.0} {what} ({})",
                        get(r, "second").unwrap_or(0.0) - off,
                        r.get("node").and_then(Value::as_str).unwrap_or("?")
                    ),
                ))
            })
            .collect()
    };
    let mut xs: Vec<f64> = l.telemetry.iter().filter_map(at).collect();
    xs.extend(l.timeline.iter().filter_map(|s| get(s, "second")));
    let x = (
        xs.iter().copied().fold(f64::INFINITY, f64::min).min(0.0),
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let interval = telemetry.map_or(1.0, |t| t.interval_secs);
    let gap = interval * 2.5;
    // The query phase starts where its first sample is.
    let phase_marks: Vec<Mark> = l
        .telemetry
        .iter()
        .find(|r| r.get("phase").and_then(Value::as_str) == Some("query"))
        .and_then(at)
        .map(|x| mark(x, DRIVER_COLOUR, true, "the query phase starts".into()))
        .into_iter()
        .collect();
    let per_node = |what: &str, key: &str, scale: f64, dashed: bool| -> Vec<Line> {
        nodes
            .iter()
            .enumerate()
            .map(|(i, n)| line(name(what, n), colour(i), dashed, series(n, key, scale)))
            .collect()
    };
    // The page's own throughput chart (warm-up shaded) is the one throughput chart: a
    // second one here, unshaded, only repeated it.
    let mut out = Vec::new();
    let mut heap = per_node("heap used", "heap_used_bytes", 1e-6, false);
    heap.extend(per_node(
        "heap committed",
        "heap_committed_bytes",
        1e-6,
        true,
    ));
    let mut gc_marks = marks_of("young_gcs", YOUNG_GC, false, "young GC(s)");
    gc_marks.extend(marks_of("old_gcs", OLD_GC, true, "old-generation GC(s)"));
    out.push(chart("Heap, with GC marked", "MB", x, gap, heap, &gc_marks));
    let mut cpu = per_node("engine", "cpu_cores", 1.0, false);
    cpu.push(line(
        "driver".into(),
        DRIVER_COLOUR,
        true,
        series(DRIVER, "driver_cpu_cores", 1.0),
    ));
    out.push(chart("CPU", "cores", x, gap, cpu, &phase_marks));
    let mut pools = per_node("write active", "write_active", 1.0, false);
    pools.extend(per_node("write queue", "write_queue", 1.0, true));
    let mut search = per_node("search queue", "search_queue", 1.0, true);
    for (l, c) in search
        .iter_mut()
        .zip(["#2a9d3a", "#0e8a99", "#7b3fb8"].iter().cycle())
    {
        l.colour = c.to_string();
    }
    pools.extend(search);
    let mut rejections = marks_of("write_rejections", OLD_GC, true, "write rejection(s)");
    rejections.extend(marks_of(
        "search_rejections",
        OLD_GC,
        true,
        "search rejection(s)",
    ));
    out.push(chart(
        "Thread pools (red: rejections)",
        "threads / tasks",
        x,
        gap,
        pools,
        &rejections,
    ));
    let mut segments = per_node("segments", "segments", 1.0, false);
    segments.extend(per_node("merges running", "merges_current", 1.0, true));
    out.push(chart("Segments and merges", "count", x, gap, segments, &[]));
    let mut disk = per_node("written", "disk_write_bytes_per_s", 1e-6, false);
    disk.extend(per_node("read", "disk_read_bytes_per_s", 1e-6, true));
    out.push(chart("Disk", "MB/s", x, gap, disk, &[]));
    out
}

/// The telemetry section of a page: the charts of every run that has telemetry.
pub fn section(runs: &[&Loaded]) -> String {
    let with: Vec<&&Loaded> = runs.iter().filter(|l| !l.telemetry.is_empty()).collect();
    if with.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "<h2 id=\"telemetry\">Telemetry</h2><p class=\"note\">What the engine and the driver \
         were doing, sampled during the run (<code>_nodes/stats</code>, and <code>/proc</code> \
         for nodes we started). The time axis is the throughput timeline's: 0 is the load's \
         first second; the query phase follows. Drawn as SVG: no script needed.</p>",
    );
    for l in with {
        if runs.len() > 1 {
            let _ = write!(s, "<h3>Run {}</h3>", esc(&l.row.id.0));
        }
        s.push_str(&chart::grid(run_charts(l)));
    }
    s
}

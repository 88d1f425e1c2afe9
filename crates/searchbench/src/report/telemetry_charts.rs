//! The telemetry of a run as charts over time, drawn here as inline SVG (no script needed):
//! heap with GC marked, CPU, thread pools, segments and merges, disk, each on the same time
//! axis as the throughput timeline (the load's second 0 is at 0; the query phase follows).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::Value;

use super::html::esc;
use super::Loaded;
use crate::measure::telemetry::DRIVER;

const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 190.0;
const LEFT: f64 = 58.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 30.0;

/// One colour per node (the driver's is grey).
const NODE_COLOURS: [&str; 6] = [
    "#1f5fbf", "#e07b00", "#2a9d3a", "#7b3fb8", "#0e8a99", "#c2188b",
];
const DRIVER_COLOUR: &str = "#56606b";
const OLD_GC: &str = "#b3261e";
const YOUNG_GC: &str = "#9aa3ab";

/// A line of a chart: measured points joined by straight segments (a gap in the samples is a
/// gap in the line).
struct Line {
    label: String,
    colour: &'static str,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

/// A vertical mark at a time (a GC, a rejection, a phase change).
struct Mark {
    x: f64,
    colour: &'static str,
    /// Full height, else a short tick at the bottom.
    full: bool,
    title: String,
}

/// Rounds up to 1, 2 or 5 times a power of ten, for an axis maximum.
fn nice(max: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(max.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|v| *v >= max)
        .unwrap_or(10.0 * p)
}

fn label_of(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{}", (v * 100.0).round() / 100.0)
    }
}

/// One chart as an SVG card. `gap` is the widest step between samples that is still joined.
fn chart(
    title: &str,
    unit: &str,
    x: (f64, f64),
    gap: f64,
    lines: &[Line],
    marks: &[Mark],
) -> String {
    let lines: Vec<&Line> = lines.iter().filter(|l| !l.points.is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let ymax = nice(
        lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .fold(0.0, f64::max)
            * 1.05,
    );
    let (x0, x1) = (x.0, if x.1 > x.0 { x.1 } else { x.0 + 1.0 });
    let px = |v: f64| LEFT + (v - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT);
    let py = |v: f64| TOP + (1.0 - v / ymax) * (HEIGHT - TOP - BOTTOM);
    let mut svg = format!(
        "<svg class=\"tchart\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"100%\" role=\"img\" \
         aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"10\" font-family=\"sans-serif\">",
        esc(title)
    );
    // Axes and grid: four steps up, about six across.
    for i in 0..=4 {
        let v = ymax * f64::from(i) / 4.0;
        let y = py(v);
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#e3e6ea\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#55606b\">{}</text>",
            WIDTH - RIGHT,
            LEFT - 4.0,
            y + 3.0,
            label_of(v)
        );
    }
    let step = nice((x1 - x0) / 6.0);
    let mut t = (x0 / step).ceil() * step;
    while t <= x1 {
        let xp = px(t);
        let _ = write!(
            svg,
            "<line x1=\"{xp:.1}\" x2=\"{xp:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#c9ced4\"/>\
             <text x=\"{xp:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#55606b\">{}</text>",
            HEIGHT - BOTTOM,
            HEIGHT - BOTTOM + 4.0,
            HEIGHT - BOTTOM + 14.0,
            label_of(t)
        );
        t += step;
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#55606b\">second</text>\
         <text x=\"12\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#55606b\" transform=\"rotate(-90 12 {:.1})\">{}</text>",
        (LEFT + WIDTH - RIGHT) / 2.0,
        HEIGHT - 3.0,
        (TOP + HEIGHT - BOTTOM) / 2.0,
        (TOP + HEIGHT - BOTTOM) / 2.0,
        esc(unit)
    );
    for m in marks {
        let xp = px(m.x);
        let top = if m.full { TOP } else { HEIGHT - BOTTOM - 8.0 };
        let _ = write!(
            svg,
            "<line class=\"mark\" x1=\"{xp:.1}\" x2=\"{xp:.1}\" y1=\"{top:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"1\"><title>{}</title></line>",
            HEIGHT - BOTTOM,
            m.colour,
            esc(&m.title)
        );
    }
    for l in &lines {
        let mut d = String::new();
        let mut last: Option<f64> = None;
        for &(x, y) in &l.points {
            let op = match last {
                Some(prev) if x - prev <= gap => 'L',
                _ => 'M',
            };
            let _ = write!(d, "{op}{:.1} {:.1} ", px(x), py(y));
            last = Some(x);
        }
        let dash = if l.dashed {
            " stroke-dasharray=\"5 3\""
        } else {
            ""
        };
        let _ = write!(
            svg,
            "<path class=\"series\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{dash}><title>{}</title></path>",
            d.trim_end(),
            l.colour,
            esc(&l.label)
        );
        // Points as well, while they are few enough to see apart.
        if l.points.len() <= 90 {
            for &(x, y) in &l.points {
                let _ = write!(
                    svg,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"1.6\" fill=\"{}\"/>",
                    px(x),
                    py(y),
                    l.colour
                );
            }
        }
    }
    svg.push_str("</svg>");
    let mut legend = String::new();
    for l in &lines {
        let _ = write!(
            legend,
            "<span style=\"color:{}\">{} {}</span> ",
            l.colour,
            if l.dashed { "- -" } else { "—" },
            esc(&l.label)
        );
    }
    if marks.iter().any(|m| m.colour == OLD_GC) {
        let _ = write!(
            legend,
            "<span style=\"color:{OLD_GC}\">| old-generation GC</span> "
        );
    }
    if marks.iter().any(|m| m.colour == YOUNG_GC) {
        let _ = write!(
            legend,
            "<span style=\"color:{YOUNG_GC}\">ı young GC</span> "
        );
    }
    format!(
        "<div class=\"card\"><h3>{}</h3>{svg}<p class=\"hint\">{legend}</p></div>",
        esc(title)
    )
}

fn get(row: &Value, key: &str) -> Option<f64> {
    row.get(key)?.as_f64()
}

/// Where the load's second 0 lies on the telemetry clock (0 when unknown).
fn offset(l: &Loaded) -> f64 {
    l.row
        .result
        .as_ref()
        .and_then(|r| r.get("telemetry"))
        .and_then(|t| t.get("timeline_offset_secs"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
}

/// The charts of one run's telemetry; empty when it has none.
pub fn run_charts(l: &Loaded) -> String {
    if l.telemetry.is_empty() {
        return String::new();
    }
    let off = offset(l);
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
                Some(Mark {
                    x: at(r)?,
                    colour,
                    full,
                    title: format!(
                        "{} s: {n:.0} {what} ({})",
                        get(r, "second").unwrap_or(0.0) - off,
                        r.get("node").and_then(Value::as_str).unwrap_or("?")
                    ),
                })
            })
            .collect()
    };
    let mut xs: Vec<f64> = l.telemetry.iter().filter_map(at).collect();
    xs.extend(l.timeline.iter().filter_map(|s| get(s, "second")));
    let x = (
        xs.iter().copied().fold(f64::INFINITY, f64::min).min(0.0),
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let interval = l
        .row
        .result
        .as_ref()
        .and_then(|r| r.get("telemetry"))
        .and_then(|t| get(t, "interval_secs"))
        .unwrap_or(1.0);
    let gap = interval * 2.5;
    // The query phase starts where its first sample is.
    let phase_marks: Vec<Mark> = l
        .telemetry
        .iter()
        .find(|r| r.get("phase").and_then(Value::as_str) == Some("query"))
        .and_then(at)
        .map(|x| Mark {
            x,
            colour: DRIVER_COLOUR,
            full: true,
            title: "the query phase starts".into(),
        })
        .into_iter()
        .collect();
    let per_node = |what: &str, key: &str, scale: f64, dashed: bool| -> Vec<Line> {
        nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Line {
                label: name(what, n),
                colour: colour(i),
                dashed,
                points: series(n, key, scale),
            })
            .collect()
    };
    let mut out = String::new();
    let docs: Vec<(f64, f64)> = l
        .timeline
        .iter()
        .filter_map(|s| Some((get(s, "second")?, get(s, "docs")?)))
        .collect();
    out.push_str(&chart(
        "Throughput (aligned)",
        "docs/s",
        x,
        1.5,
        &[Line {
            label: "documents acknowledged per second".into(),
            colour: "#1d2b3a",
            dashed: false,
            points: docs,
        }],
        &phase_marks,
    ));
    let mut heap = per_node("heap used", "heap_used_bytes", 1e-6, false);
    heap.extend(per_node(
        "heap committed",
        "heap_committed_bytes",
        1e-6,
        true,
    ));
    let mut gc_marks = marks_of("young_gcs", YOUNG_GC, false, "young GC(s)");
    gc_marks.extend(marks_of("old_gcs", OLD_GC, true, "old-generation GC(s)"));
    out.push_str(&chart(
        "Heap, with GC marked",
        "MB",
        x,
        gap,
        &heap,
        &gc_marks,
    ));
    let mut cpu = per_node("engine", "cpu_cores", 1.0, false);
    cpu.push(Line {
        label: "driver".into(),
        colour: DRIVER_COLOUR,
        dashed: true,
        points: series(DRIVER, "driver_cpu_cores", 1.0),
    });
    out.push_str(&chart("CPU", "cores", x, gap, &cpu, &phase_marks));
    let mut pools = per_node("write active", "write_active", 1.0, false);
    pools.extend(per_node("write queue", "write_queue", 1.0, true));
    let mut search = per_node("search queue", "search_queue", 1.0, true);
    for (line, c) in search
        .iter_mut()
        .zip(["#2a9d3a", "#0e8a99", "#7b3fb8"].iter().cycle())
    {
        line.colour = c;
    }
    pools.extend(search);
    let mut rejections = marks_of("write_rejections", OLD_GC, true, "write rejection(s)");
    rejections.extend(marks_of(
        "search_rejections",
        OLD_GC,
        true,
        "search rejection(s)",
    ));
    out.push_str(&chart(
        "Thread pools (red: rejections)",
        "threads / tasks",
        x,
        gap,
        &pools,
        &rejections,
    ));
    let mut segments = per_node("segments", "segments", 1.0, false);
    segments.extend(per_node("merges running", "merges_current", 1.0, true));
    out.push_str(&chart(
        "Segments and merges",
        "count",
        x,
        gap,
        &segments,
        &[],
    ));
    let mut disk = per_node("written", "disk_write_bytes_per_s", 1e-6, false);
    disk.extend(per_node("read", "disk_read_bytes_per_s", 1e-6, true));
    out.push_str(&chart("Disk", "MB/s", x, gap, &disk, &[]));
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
         were doing, sampled beside the run (<code>_nodes/stats</code>, and <code>/proc</code> \
         for nodes we started). The time axis is the throughput timeline's: 0 is the load's \
         first second; the query phase follows. Drawn as SVG: no script needed.</p>",
    );
    for l in with {
        if runs.len() > 1 {
            let _ = write!(s, "<h3>Run {}</h3>", esc(&l.row.id.0));
        }
        let _ = write!(s, "<div class=\"grid\">{}</div>", run_charts(l));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_maxima_are_round() {
        assert_eq!(nice(0.0), 1.0);
        assert_eq!(nice(3.2), 5.0);
        assert_eq!(nice(120.0), 200.0);
        assert_eq!(nice(1000.0), 1000.0);
        assert_eq!(label_of(0.25), "0.25");
        assert_eq!(label_of(250.0), "250");
    }

    #[test]
    fn a_chart_breaks_its_line_at_a_gap_and_escapes_its_labels() {
        let line = Line {
            label: "<node>".into(),
            colour: "#000000",
            dashed: false,
            points: vec![(0.0, 1.0), (1.0, 2.0), (5.0, 2.0)],
        };
        let svg = chart("t", "u", (0.0, 5.0), 2.5, &[line], &[]);
        assert_eq!(svg.matches("<svg").count(), 1);
        let d = &svg[svg.find(" d=\"").unwrap()..];
        let d = &d[..d[4..].find('"').unwrap() + 4];
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert_eq!(d.matches('L').count(), 1, "{d}");
        assert!(svg.contains("&lt;node&gt;") && !svg.contains("<node>"));
        assert!(chart("t", "u", (0.0, 1.0), 2.5, &[], &[]).is_empty());
    }
}

//! The sweep's offline HTML page: the heatmap (bulk size rows × clients columns, one per
//! combination of the other axes), a curve per axis through the recommended cell with each
//! point's interval (and the USL fit on the clients axis), every cell's figures, and the
//! answer. Charts by [`super::chart`], in the [`super::page`] skeleton.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::chart::{self, Axis, Chart, Dot, HeatCell, Heatmap, Interval, Line, Plot, Tone};
use super::page::esc;
use super::{utc, ReportError};
use crate::analysis::sweep::{
    format_estimate, Axis as SweepAxis, AxisCurve, Cell, SweepResult, UslRow, AXES,
};

/// `reports/sweep-<id>.html` next to the results store at `store`.
pub fn default_path(store: &Path, id: &str) -> PathBuf {
    super::reports_dir(store).join(format!("sweep-{id}.html"))
}

/// Writes the page of `r` to `path` (creating its folder).
pub fn write(r: &SweepResult, path: &Path) -> Result<(), ReportError> {
    super::write_page(path, &render(r))
}

fn sorted_unique<T: Ord + Clone>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v.dedup();
    v
}

/// One heatmap per combination of the axes other than bulk size and clients.
fn heatmaps(r: &SweepResult) -> Vec<Chart> {
    let clients = sorted_unique(r.cells.iter().map(|c| c.params.clients).collect());
    let bulks = sorted_unique(r.cells.iter().map(|c| c.params.bulk_docs).collect());
    let top = r
        .cells
        .iter()
        .filter_map(|c| c.docs_per_sec.map(|e| e.median))
        .fold(0.0_f64, f64::max)
        .max(1e-9);
    let key = |c: &Cell| -> Vec<Option<String>> {
        AXES[2..].iter().map(|&a| c.params.value(a)).collect()
    };
    let mut panels: Vec<Vec<Option<String>>> = Vec::new();
    for c in &r.cells {
        if !panels.contains(&key(c)) {
            panels.push(key(c));
        }
    }
    panels
        .iter()
        .map(|panel| {
            let label: Vec<String> = AXES[2..]
                .iter()
                .zip(panel)
                .filter_map(|(a, v)| {
                    Some(format!("{} {}", a.name().replace('_', " "), v.as_ref()?))
                })
                .collect();
            let cells = r
                .cells
                .iter()
                .enumerate()
                .filter(|(_, c)| &key(c) == panel)
                .filter_map(|(k, c)| {
                    let row = bulks.iter().position(|b| *b == c.params.bulk_docs)?;
                    let column = clients.iter().position(|n| *n == c.params.clients)?;
                    let (tone, text) = match (c.failed(), c.docs_per_sec) {
                        (true, _) => (Tone::Bad, "failed".to_string()),
                        (false, Some(e)) => (Tone::Share(e.median / top), format_estimate(&e)),
                        (false, None) => (Tone::Empty, "-".to_string()),
                    };
                    let badge = if r.answer.recommended == Some(k) {
                        "◆ recommended"
                    } else if r.answer.fastest() == Some(k) {
                        "★ best"
                    } else {
                        ""
                    };
                    Some(HeatCell {
                        row,
                        column,
                        tone,
                        text,
                        badge: badge.into(),
                        title: c.params.label(),
                        highlight: r.answer.recommended == Some(k),
                        attrs: vec![
                            ("data-bulk", c.params.bulk_docs.to_string()),
                            ("data-clients", c.params.clients.to_string()),
                        ],
                    })
                })
                .collect();
            let title = if label.is_empty() {
                "docs/s".to_string()
            } else {
                format!("docs/s, {}", label.join(", "))
            };
            Heatmap {
                title,
                hint: String::new(),
                row_label: "bulk size".into(),
                column_label: "clients".into(),
                rows: bulks.iter().map(ToString::to_string).collect(),
                columns: clients.iter().map(ToString::to_string).collect(),
                cells,
            }
            .into()
        })
        .collect()
}

/// One axis' curve: points with their intervals, and the USL fit on the clients axis.
fn curve(r: &SweepResult, c: &AxisCurve, usl: Option<&UslRow>) -> Chart {
    let knee = c
        .knee
        .as_ref()
        .map(|k| format!(", knee at {k}"))
        .unwrap_or_default();
    let name = c.axis.name().replace('_', " ");
    let mut p = Plot::new(
        format!("{name}{knee}"),
        Axis::new(name.clone()),
        Axis::new("docs/s"),
    );
    p.attrs.push(("data-axis", c.axis.name().to_string()));
    p.categories = c.points.iter().map(|p| p.value.clone()).collect();
    let mut medians = Vec::new();
    for (i, point) in c.points.iter().enumerate() {
        let Some(e) = point.estimate else { continue };
        let x = i as f64;
        medians.push((x, e.median));
        if e.half_width.is_finite() {
            p.intervals.push(Interval {
                x,
                low: e.low,
                high: e.high,
                colour: "#1f6feb".into(),
            });
        }
        let recommended = r.answer.recommended == Some(point.cell);
        p.dots.push(Dot {
            x,
            y: e.median,
            colour: if point.failed { chart::RED } else { "#1f6feb" }.into(),
            radius: if recommended { 6.0 } else { 4.0 },
            title: format!("{}: {}", point.value, format_estimate(&e)),
            ring: recommended.then(|| "#e8590c".to_string()),
            class: "cell",
        });
    }
    p.lines
        .push(Line::new("median of the cell's runs", "#1f6feb", medians).without_dots());
    if let Some(u) = usl.filter(|_| c.axis == SweepAxis::Clients) {
        // The fitted curve between the measured client counts (positions are by rank, so
        // interpolate the count between neighbouring points).
        let mut fit = Vec::new();
        for (i, pair) in c.points.windows(2).enumerate() {
            let (a, b): (f64, f64) = (
                pair[0].value.parse().unwrap_or(0.0),
                pair[1].value.parse().unwrap_or(0.0),
            );
            for s in 0..=10 {
                let t = f64::from(s) / 10.0;
                fit.push((i as f64 + t, u.fit.predict(a + (b - a) * t)));
            }
        }
        p.lines
            .push(Line::new("USL fit", "#e8590c", fit).dashed().without_dots());
    }
    p.into()
}

fn cells_table(r: &SweepResult) -> String {
    let mut out = String::from(
        "<table><tr><th>cell</th><th>docs/s</th><th>runs × docs</th><th>service p50 ms</th><th>p99 ms</th>\
         <th>429s</th><th>failed docs</th><th>engine CPU µs/doc</th><th>driver CPU µs/doc</th><th>run ids</th></tr>",
    );
    let opt = |v: Option<f64>| v.map_or_else(|| "-".into(), |x| format!("{x:.2}"));
    for c in &r.cells {
        let ids: Vec<&str> = c.runs.iter().filter_map(|r| r.run_id.as_deref()).collect();
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{} × {}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td>{}</td></tr>",
            esc(&c.params.label()),
            c.docs_per_sec
                .map_or_else(|| "-".into(), |e| esc(&format_estimate(&e))),
            c.runs.len(),
            c.docs_per_run,
            opt(c.service_p50_ms),
            opt(c.service_p99_ms),
            c.throttled,
            c.failed_docs,
            opt(c.engine_cpu_us_per_doc),
            opt(c.driver_cpu_us_per_doc),
            esc(&ids.join(" "))
        );
    }
    out.push_str("</table>");
    out
}

/// The whole page.
pub fn render(r: &SweepResult) -> String {
    let title = format!(
        "searchbench sweep {}: {} on {}",
        r.id,
        r.workload,
        r.engine
            .clone()
            .or_else(|| r.product.clone())
            .unwrap_or_else(|| r.target_url.clone())
    );
    let runs: usize = r.cells.iter().map(|c| c.runs.len()).sum();
    let subtitle = format!(
        "{} · {} cells, {runs} runs {} in {} round(s), {:.1} min · target ±{} % (runs {}..{}) · order seed {}{}",
        utc(r.started_unix),
        r.cells.len(),
        match r.run_secs {
            Some(s) => format!("sized to ~{s:.0} s each"),
            None => format!("of {} documents", r.docs_per_run),
        },
        r.rounds.len(),
        r.wall_secs / 60.0,
        r.ci_pct,
        r.min_repeats,
        r.max_repeats,
        r.order_seed,
        if r.interrupted { " · interrupted" } else { "" }
    );
    let recommended = r
        .answer
        .recommended
        .map_or_else(|| "none".into(), |i| r.cells[i].params.label());
    let mut body = format!(
        "<h2>Answer</h2><div class=\"answer\" id=\"answer\"><p><b>Recommended: {}</b></p><p>{}</p></div>\
         <h2>Heatmap: docs/s</h2><p class=\"note\">Median of each cell's runs ± the 95 % half-width \
         (Student's t over the runs); the steady window after a {:.0} s warm-up in every run. \
         Darker is faster; ◆ the recommended cell, ★ the fastest.</p>{}",
        esc(&recommended),
        esc(&r.answer.why),
        r.warmup_secs,
        chart::grid(heatmaps(r))
    );
    if !r.answer.curves.is_empty() {
        let rec_bulk = r.answer.recommended.map(|i| r.cells[i].params.bulk_docs);
        let usl = r.answer.usl.iter().find(|u| Some(u.bulk_docs) == rec_bulk);
        let drawn = usl.is_some() && r.answer.curves.iter().any(|c| c.axis == SweepAxis::Clients);
        let _ = write!(
            body,
            "<h2>Along each axis</h2><p class=\"note\">Through the recommended cell (the fastest \
             when there is none), the other parameters held; bars are the intervals{}.</p>",
            if drawn {
                "; the dashed line on the clients axis is the USL fit"
            } else {
                ""
            }
        );
        body.push_str(&chart::grid(
            r.answer.curves.iter().map(|c| curve(r, c, usl)),
        ));
    }
    if !r.answer.usl.is_empty() {
        body.push_str(
            "<h2>Universal Scalability Law on clients</h2><p class=\"note\">X(N) = λN / (1 + σ(N−1) + κN(N−1)), \
             least squares on each bulk size's medians: σ contention, κ coherency, N* = √((1−σ)/κ) the peak.</p>\
             <table><tr><th>bulk size</th><th>λ docs/s</th><th>σ</th><th>κ</th><th>peak N*</th><th>fit rms</th></tr>",
        );
        for u in &r.answer.usl {
            let _ = write!(
                body,
                "<tr><td class=\"num\">{}</td><td class=\"num\">{:.0}</td><td class=\"num\">{:.4}</td>\
                 <td class=\"num\">{:.5}</td><td class=\"num\">{}</td><td class=\"num\">{:.1} %</td></tr>",
                u.bulk_docs,
                u.fit.lambda,
                u.fit.sigma,
                u.fit.kappa,
                u.fit
                    .peak_clients
                    .map_or_else(|| "none".into(), |n| format!("{n:.1}")),
                u.fit.rms_pct
            );
        }
        body.push_str("</table>");
    }
    body.push_str("<h2>Every cell</h2>");
    body.push_str(&cells_table(r));
    if let Some(why) = r.why_no_p99() {
        let _ = write!(body, "<p class=\"note\">{}</p>", esc(&why));
    }
    for w in &r.warnings {
        let _ = write!(body, "<p class=\"note\">warning: {}</p>", esc(w));
    }
    super::page::render(&title, &subtitle, &body)
}

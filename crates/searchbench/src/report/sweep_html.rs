//! The sweep's offline HTML page: the heatmap (bulk size rows × clients columns, one per
//! combination of the other axes), a curve per axis through the recommended cell with each
//! point's interval (and the USL fit on the clients axis), every cell's figures, and the
//! answer. Inline SVG only: no script, nothing fetched.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::html::esc;
use super::{utc, ReportError};
use crate::analysis::sweep::{format_estimate, Axis, AxisCurve, Cell, SweepResult, UslRow, AXES};

/// `reports/sweep-<id>.html` next to the results store at `store`.
pub fn default_path(store: &Path, id: &str) -> PathBuf {
    store
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("reports")
        .join(format!("sweep-{id}.html"))
}

/// Writes the page of `r` to `path` (creating its folder).
pub fn write(r: &SweepResult, path: &Path) -> Result<(), ReportError> {
    let fail = |source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    std::fs::write(path, render(r)).map_err(fail)
}

/// The house style of the run pages, and what only this page has.
const STYLE_EXTRA: &str = r#"
.answer{background:#fff;border-left:4px solid #1f6feb;padding:10px 14px;max-width:1000px}
.curves{display:flex;flex-wrap:wrap;gap:16px}
svg text{font-family:system-ui,sans-serif}
"#;

fn sorted_unique<T: Ord + Clone>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v.dedup();
    v
}

/// Light to dark blue by the share of the best median.
fn colour(share: f64) -> (String, &'static str) {
    let s = share.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * s).round() as u8;
    let rgb = format!(
        "rgb({},{},{})",
        lerp(239.0, 8.0),
        lerp(246.0, 69.0),
        lerp(255.0, 148.0)
    );
    (rgb, if s > 0.55 { "#fff" } else { "#1d2329" })
}

fn heatmaps(r: &SweepResult) -> String {
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
    let (cw, ch, left, head) = (150.0, 46.0, 90.0, 40.0);
    let mut out = String::new();
    for panel in &panels {
        let label: Vec<String> = AXES[2..]
            .iter()
            .zip(panel)
            .filter_map(|(a, v)| Some(format!("{} {}", a.name().replace('_', " "), v.as_ref()?)))
            .collect();
        if !label.is_empty() {
            let _ = write!(out, "<h3>{}</h3>", esc(&label.join(", ")));
        }
        let w = left + cw * clients.len() as f64 + 10.0;
        let h = head + ch * bulks.len() as f64 + 10.0;
        let _ = write!(
            out,
            "<svg class=\"heatmap\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"docs/s heatmap\">\
             <text x=\"{}\" y=\"14\" text-anchor=\"middle\" font-size=\"12\" fill=\"#44505c\">clients</text>\
             <text x=\"4\" y=\"34\" font-size=\"12\" fill=\"#44505c\">bulk size</text>",
            left + cw * clients.len() as f64 / 2.0
        );
        for (j, n) in clients.iter().enumerate() {
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"32\" text-anchor=\"middle\" font-size=\"12\">{n}</text>",
                left + cw * (j as f64 + 0.5)
            );
        }
        for (i, b) in bulks.iter().enumerate() {
            let y = head + ch * i as f64;
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"12\">{b}</text>",
                left - 8.0,
                y + ch / 2.0 + 4.0
            );
            for (j, n) in clients.iter().enumerate() {
                let x = left + cw * j as f64;
                let Some((k, c)) = r.cells.iter().enumerate().find(|(_, c)| {
                    &key(c) == panel && c.params.bulk_docs == *b && c.params.clients == *n
                }) else {
                    continue;
                };
                let (fill, ink, text) = match (c.failed(), c.docs_per_sec) {
                    (true, _) => ("#f4d6d4".to_string(), "#8c1d18", "failed".to_string()),
                    (false, Some(e)) => {
                        let (f, i) = colour(e.median / top);
                        (f, i, format_estimate(&e))
                    }
                    (false, None) => ("#eee".to_string(), "#55606b", "-".to_string()),
                };
                let stroke = if r.answer.recommended == Some(k) {
                    "stroke=\"#e8590c\" stroke-width=\"4\""
                } else {
                    "stroke=\"#fff\" stroke-width=\"1\""
                };
                let badge = if r.answer.recommended == Some(k) {
                    "◆ recommended"
                } else if r.answer.best == Some(k) {
                    "★ best"
                } else {
                    ""
                };
                let _ = write!(
                    out,
                    "<g class=\"cell\" data-bulk=\"{b}\" data-clients=\"{n}\"><title>{}</title>\
                     <rect x=\"{x}\" y=\"{y}\" width=\"{cw}\" height=\"{ch}\" fill=\"{fill}\" {stroke}/>\
                     <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\" fill=\"{ink}\">{}</text>\
                     <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" fill=\"{ink}\">{badge}</text></g>",
                    esc(&c.params.label()),
                    x + cw / 2.0,
                    y + 20.0,
                    esc(&text),
                    x + cw / 2.0,
                    y + 36.0,
                );
            }
        }
        out.push_str("</svg>");
    }
    out
}

/// One axis' curve: points with their intervals, and the USL fit on the clients axis.
fn curve_svg(r: &SweepResult, c: &AxisCurve, usl: Option<&UslRow>) -> String {
    let (w, h, left, right, top_pad, bottom) = (460.0, 260.0, 64.0, 16.0, 16.0, 40.0);
    let n = c.points.len().max(1);
    let ymax = c
        .points
        .iter()
        .filter_map(|p| p.estimate)
        .map(|e| if e.high.is_finite() { e.high } else { e.median })
        .fold(0.0_f64, f64::max)
        .max(1e-9)
        * 1.1;
    let x_at = |i: f64| left + (w - left - right) * (i + 0.5) / n as f64;
    let y_at = |v: f64| top_pad + (h - top_pad - bottom) * (1.0 - (v / ymax).clamp(0.0, 1.0));
    let mut out = format!(
        "<svg class=\"curve\" data-axis=\"{}\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\">\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#8a949e\"/>\
         <line x1=\"{left}\" y1=\"{top_pad}\" x2=\"{left}\" y2=\"{}\" stroke=\"#8a949e\"/>",
        c.axis.name(),
        h - bottom,
        w - right,
        h - bottom,
        h - bottom
    );
    for k in 0..=4 {
        let v = ymax * f64::from(k) / 4.0;
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"10\" fill=\"#55606b\">{:.0}</text>",
            left - 6.0,
            y_at(v) + 3.0,
            v
        );
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" fill=\"#44505c\">{}</text>",
        (left + w - right) / 2.0,
        h - 6.0,
        esc(&c.axis.name().replace('_', " "))
    );
    if let Some(u) = usl.filter(|_| c.axis == Axis::Clients) {
        // The fitted curve between the measured client counts (positions are by rank, so
        // interpolate the count between neighbouring points).
        let mut path = String::new();
        for (i, pair) in c.points.windows(2).enumerate() {
            let (a, b): (f64, f64) = (
                pair[0].value.parse().unwrap_or(0.0),
                pair[1].value.parse().unwrap_or(0.0),
            );
            for s in 0..=10 {
                let t = f64::from(s) / 10.0;
                let clients = a + (b - a) * t;
                let _ = write!(
                    path,
                    "{}{:.1},{:.1} ",
                    if path.is_empty() { "M" } else { "L" },
                    x_at(i as f64 + t),
                    y_at(u.fit.predict(clients))
                );
            }
        }
        let _ = write!(
            out,
            "<path class=\"usl\" d=\"{path}\" fill=\"none\" stroke=\"#e8590c\" stroke-dasharray=\"5 4\"/>"
        );
    }
    let mut line = String::new();
    for (i, p) in c.points.iter().enumerate() {
        let x = x_at(i as f64);
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{}</text>",
            h - bottom + 14.0,
            esc(&p.value)
        );
        let Some(e) = p.estimate else { continue };
        let y = y_at(e.median);
        let _ = write!(
            line,
            "{}{x:.1},{y:.1} ",
            if line.is_empty() { "M" } else { "L" }
        );
        if e.half_width.is_finite() {
            let _ = write!(
                out,
                "<line class=\"interval\" x1=\"{x}\" y1=\"{:.1}\" x2=\"{x}\" y2=\"{:.1}\" stroke=\"#1f6feb\" stroke-width=\"2\"/>",
                y_at(e.low),
                y_at(e.high)
            );
        }
        let fill = if p.failed { "#b3261e" } else { "#1f6feb" };
        let is_rec = r.answer.recommended == Some(p.cell);
        let _ = write!(
            out,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{}\" fill=\"{fill}\"{}><title>{}: {}</title></circle>",
            if is_rec { 6 } else { 4 },
            if is_rec { " stroke=\"#e8590c\" stroke-width=\"3\"" } else { "" },
            esc(&p.value),
            esc(&format_estimate(&e))
        );
    }
    let _ = write!(
        out,
        "<path d=\"{line}\" fill=\"none\" stroke=\"#1f6feb\" stroke-opacity=\".5\"/></svg>"
    );
    out
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
        heatmaps(r)
    );
    if !r.answer.curves.is_empty() {
        body.push_str(
            "<h2>Along each axis</h2><p class=\"note\">Through the recommended cell (the fastest \
             when there is none), the other \
             parameters held; bars are the intervals; the dashed line on the clients axis is the \
             USL fit.</p><div class=\"curves\">",
        );
        let rec_bulk = r.answer.recommended.map(|i| r.cells[i].params.bulk_docs);
        let usl = r.answer.usl.iter().find(|u| Some(u.bulk_docs) == rec_bulk);
        for c in &r.answer.curves {
            let knee = c
                .knee
                .as_ref()
                .map(|k| format!(", knee at {k}"))
                .unwrap_or_default();
            let _ = write!(
                body,
                "<div class=\"card\"><h3>{}{}</h3>{}</div>",
                esc(&c.axis.name().replace('_', " ")),
                esc(&knee),
                curve_svg(r, c, usl)
            );
        }
        body.push_str("</div>");
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
    for w in &r.warnings {
        let _ = write!(body, "<p class=\"note\">warning: {}</p>", esc(w));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"searchbench {}\"><title>{}</title><style>{}{STYLE_EXTRA}</style></head>\
         <body><header><h1>{}</h1><p>{}</p></header><main>{body}</main></body></html>\n",
        env!("CARGO_PKG_VERSION"),
        esc(&title),
        super::html::STYLE,
        esc(&title),
        esc(&subtitle)
    )
}

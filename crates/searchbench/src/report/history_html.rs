//! A history as one offline HTML page: the change points, then one chart per metric over the
//! axis (a dot per run, the median of each point joined by a line, change points marked
//! between the points where the level moved), then the runs. Charts are inline SVG drawn
//! here: no script, nothing fetched.

use std::fmt::Write as _;
use std::path::Path;

use super::compare::format_metric;
use super::history::{tag_text, History, Series};
use super::html::esc;
use super::{utc, ReportError};
use crate::analysis::changepoint::Shift;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}\
td.num{text-align:right;font-variant-numeric:tabular-nums}.grid{display:flex;flex-wrap:wrap;gap:1em}\
figure{margin:0;border:1px solid #ddd;padding:.5em}figcaption{font-size:.9em;font-weight:600}\
.regression{color:#b00020}.improvement{color:#1b7f3b}.suspect{color:#b35c00;font-weight:600}\
svg text{font-size:10px;fill:#444}";

const W: f64 = 460.0;
const H: f64 = 230.0;
const LEFT: f64 = 58.0;
const RIGHT: f64 = 10.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 70.0;

fn colour(shift: Shift) -> &'static str {
    match shift {
        Shift::Regression => "#b00020",
        Shift::Improvement => "#1b7f3b",
        Shift::Change => "#666",
    }
}

/// A point's label on the x axis: the version alone when every point is one product's.
fn short_labels(h: &History) -> Vec<String> {
    let product = |l: &str| l.split_once('-').map(|(p, _)| p.to_string());
    let first = h.points.first().and_then(|p| product(&p.label));
    let one_product = first.is_some() && h.points.iter().all(|p| product(&p.label) == first);
    h.points
        .iter()
        .map(|p| match (&first, one_product) {
            (Some(prefix), true) => p.label[prefix.len() + 1..].to_string(),
            _ => p.label.clone(),
        })
        .collect()
}

fn chart(h: &History, s: &Series, labels: &[String]) -> String {
    let values: Vec<f64> = s.values.iter().flatten().copied().collect();
    let Some((lo, hi)) = y_range(&values) else {
        return String::new();
    };
    let n = h.points.len().max(1);
    let step = (W - LEFT - RIGHT) / n as f64;
    let x = |p: usize| LEFT + step * (p as f64 + 0.5);
    let y = |v: f64| TOP + (H - TOP - BOTTOM) * (1.0 - (v - lo) / (hi - lo));
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" role=\"img\" data-metric=\"{}\">",
        esc(&s.key)
    );
    // Axes and y ticks.
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{b}\" stroke=\"#999\"/><line x1=\"{LEFT}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#999\"/>",
        b = H - BOTTOM,
        r = W - RIGHT
    );
    for k in 0..=4 {
        let v = lo + (hi - lo) * k as f64 / 4.0;
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" y1=\"{yy:.1}\" x2=\"{r}\" y2=\"{yy:.1}\" stroke=\"#eee\"/><text x=\"{tx}\" y=\"{ty:.1}\" text-anchor=\"end\">{}</text>",
            esc(&format_metric(s.errors, v)),
            yy = y(v),
            r = W - RIGHT,
            tx = LEFT - 4.0,
            ty = y(v) + 3.0
        );
    }
    for (p, label) in labels.iter().enumerate() {
        let _ = write!(
            svg,
            "<text transform=\"translate({:.1},{:.1}) rotate(-45)\" text-anchor=\"end\">{}</text>",
            x(p) + 3.0,
            H - BOTTOM + 10.0,
            esc(label)
        );
    }
    // Change points: a dashed line between the last point of the old level and the first of
    // the new.
    for c in &s.change_points {
        let p = h.runs[c.change.index].point;
        let cx = x(p) - step / 2.0;
        let size = c
            .change
            .size_pct
            .map(|v| format!("{v:+.1} %"))
            .unwrap_or_default();
        let _ = write!(
            svg,
            "<line class=\"change-point\" x1=\"{cx:.1}\" y1=\"{TOP}\" x2=\"{cx:.1}\" y2=\"{b}\" stroke=\"{col}\" stroke-width=\"2\" stroke-dasharray=\"5,3\"><title>{} {size} from {} to {} (p = {:.3})</title></line>",
            c.change.shift.name(),
            esc(&c.from),
            esc(&c.to),
            c.change.p_value,
            b = H - BOTTOM,
            col = colour(c.change.shift)
        );
    }
    // Medians joined by a line.
    let medians: Vec<String> = s
        .groups
        .iter()
        .enumerate()
        .filter_map(|(p, g)| Some(format!("{:.1},{:.1}", x(p), y(g.as_ref()?.median))))
        .collect();
    let _ = write!(
        svg,
        "<polyline class=\"median\" fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"1.5\" points=\"{}\"/>",
        medians.join(" ")
    );
    // A dot per run, spread a little within its point.
    for point in &h.points {
        let k = point.runs.len();
        for (j, &r) in point.runs.iter().enumerate() {
            let Some(v) = s.values[r] else { continue };
            let dx = if k > 1 {
                (j as f64 / (k - 1) as f64 - 0.5) * step * 0.4
            } else {
                0.0
            };
            let _ = write!(
                svg,
                "<circle class=\"run\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#1f5fa8\" fill-opacity=\".6\"><title>{} {}: {} {}</title></circle>",
                x(h.runs[r].point) + dx,
                y(v),
                esc(&h.runs[r].id),
                esc(&point.label),
                esc(&format_metric(s.errors, v)),
                esc(s.unit)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

fn change_table(h: &History) -> String {
    let all = h.change_points();
    if all.is_empty() {
        return format!(
            "<p id=\"change-points\">No change point at α = {} ({} permutations) in any metric.</p>",
            h.alpha, h.permutations
        );
    }
    let mut s = String::from(
        "<table id=\"change-points\"><tr><th>metric</th><th>from</th><th>to</th><th>direction</th>\
         <th>size</th><th>95 % CI</th><th>p</th><th>before → after</th><th>note</th></tr>",
    );
    for (series, c) in all {
        let ch = &c.change;
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3}</td><td class=\"num\">{} → {} {}</td><td class=\"suspect\">{}</td></tr>",
            esc(&series.label),
            esc(&c.from),
            esc(&c.to),
            ch.shift.name(),
            ch.shift.name(),
            ch.size_pct.map(|v| format!("{v:+.1} %")).unwrap_or_else(|| "-".into()),
            ch.interval
                .map(|i| format!("[{:+.1}, {:+.1}] %", i.low_pct, i.high_pct))
                .unwrap_or_else(|| "-".into()),
            ch.p_value,
            esc(&format_metric(series.errors, ch.before)),
            esc(&format_metric(series.errors, ch.after)),
            esc(series.unit),
            if c.suspect.is_empty() {
                String::new()
            } else {
                esc(&format!("suspect: {}", c.suspect.join("; ")))
            }
        );
    }
    s.push_str("</table>");
    s
}

fn runs_table(h: &History) -> String {
    let mut s = String::from(
        "<table id=\"runs\"><tr><th>#</th><th>point</th><th>run</th><th>engine</th><th>started</th><th>tags</th></tr>",
    );
    for (i, r) in h.runs.iter().enumerate() {
        let _ = write!(
            s,
            "<tr><td class=\"num\">{i}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&h.points[r.point].label),
            esc(&r.id),
            esc(r.engine.as_deref().unwrap_or("?")),
            utc(r.started_unix),
            esc(&tag_text(&r.tags))
        );
    }
    s.push_str("</table>");
    s
}

/// The whole page.
pub fn render(h: &History) -> String {
    let title = format!(
        "searchbench history: {} ({} runs, {} points)",
        h.configuration.summary(),
        h.runs.len(),
        h.points.len()
    );
    let labels = short_labels(h);
    let mut body = format!(
        "<p>Configuration {} · selection: {} · ordered by {} · change points by E-divisive means, \
         permutation test at α = {} ({} permutations)</p><h2>Change points</h2>{}",
        esc(&h.configuration.id),
        esc(&h.selection),
        match h.axis {
            super::history::Axis::Version => "engine version",
            super::history::Axis::Time => "time",
        },
        h.alpha,
        h.permutations,
        change_table(h)
    );
    body.push_str("<h2>Metrics</h2><div class=\"grid\" id=\"charts\">");
    for s in &h.series {
        let _ = write!(
            body,
            "<figure><figcaption>{}{}</figcaption>{}</figure>",
            esc(&s.label),
            if s.unit.is_empty() {
                String::new()
            } else {
                format!(" ({})", esc(s.unit))
            },
            chart(h, s, &labels)
        );
    }
    body.push_str("</div><h2>Runs</h2>");
    body.push_str(&runs_table(h));
    if !h.excluded.is_empty() {
        let _ = write!(
            body,
            "<p>Left out (not complete): {}</p>",
            esc(&h.excluded.join(", "))
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"generator\" content=\"searchbench {}\"><title>{t}</title><style>{STYLE}</style>\
         </head><body><h1>{t}</h1>{body}</body></html>\n",
        env!("CARGO_PKG_VERSION"),
        t = esc(&title),
    )
}

/// Writes [`render`] to `path`.
pub fn write(h: &History, path: &Path) -> Result<(), ReportError> {
    super::write(path, &render(h))
}

/// The y axis of a chart of `values`, padded; `None` without a finite value.
fn y_range(values: &[f64]) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return None;
    }
    if hi - lo < hi.abs().max(1e-9) * 1e-6 {
        lo -= lo.abs().max(1.0) * 0.05;
        hi += hi.abs().max(1.0) * 0.05;
    }
    let pad = (hi - lo) * 0.08;
    // A series that is never negative (counts, rates, times) never gets a negative axis.
    let floor = if values.iter().all(|v| *v >= 0.0) {
        0.0
    } else {
        f64::NEG_INFINITY
    };
    Some(((lo - pad).max(floor), hi + pad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_never_negative_never_gets_a_negative_axis() {
        // Error counts all zero once drew an axis from -0.05.
        assert_eq!(y_range(&[0.0, 0.0, 0.0]).unwrap().0, 0.0);
        assert_eq!(y_range(&[0.0, 3.0]).unwrap().0, 0.0);
        let (lo, hi) = y_range(&[100.0, 200.0]).unwrap();
        assert!(lo > 0.0 && lo < 100.0 && hi > 200.0);
        assert!(y_range(&[-1.0, 2.0]).unwrap().0 < -1.0);
        assert!(y_range(&[]).is_none());
    }
}

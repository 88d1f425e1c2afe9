//! A history as one offline HTML page: the verdict of each point against the one before, the
//! change points, then one chart per metric over the axis (a dot per run, the median of each
//! point joined by a line when there are enough points for a trend, change points marked
//! between the points where the level moved), then the runs. Charts are inline SVG drawn
//! here: no script, nothing fetched.

use std::fmt::Write as _;
use std::path::Path;

use super::chart::{self, Axis, Chart, Dot, Line, Mark, Plot};
use super::page::esc;
use super::{utc, ReportError};
use crate::analysis::changepoint::Shift;
use crate::analysis::compare::{format_diff, format_n, format_verdict, Verdict};
use crate::analysis::history::{tag_text, History, Series, MIN_POINTS_FOR_CHANGE_POINTS};
use crate::units::format_metric;

fn colour(shift: Shift) -> &'static str {
    match shift {
        Shift::Regression => "#b00020",
        Shift::Improvement => "#1b7f3b",
        Shift::Change => "#666",
    }
}

const RUN_COLOUR: &str = "#1f5fa8";
const ANNOTATION_COLOUR: &str = "#8a6d00";

/// A note as a chart's mark says it: `JDK 21.0.5 (build=n05, from build=n05)`.
fn annotation_text(h: &History, a: &crate::analysis::history::Placed) -> String {
    let point = h.points.get(a.point).map_or("?", |p| p.label.as_str());
    format!("{} ({}; at {point})", a.text, written_on(a))
}

/// What a note was written on: its tags, or the moment it applies from.
fn written_on(a: &crate::analysis::history::Placed) -> String {
    match (a.tags.is_empty(), a.at_unix) {
        (false, _) => a.tags.clone(),
        (true, Some(at)) => format!("from {}", utc(at.max(0) as u64)),
        (true, None) => String::new(),
    }
}

/// The team's notes on the history, a line each.
fn annotation_table(h: &History) -> String {
    if h.annotations.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "<h2 id=\"annotations\">Annotations</h2><table class=\"annotations\"><tr><th>#</th>\
         <th>note</th><th>at point</th><th>written on</th></tr>",
    );
    for a in &h.annotations {
        let _ = write!(
            s,
            "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            a.id,
            esc(&a.text),
            esc(h.points.get(a.point).map_or("?", |p| p.label.as_str())),
            esc(&written_on(a))
        );
    }
    s.push_str("</table>");
    s
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

/// What the x axis is: the engine versions, or (over time) the builds or runs in the order
/// they started, named by their tags: `build, in the order the runs started`.
pub fn x_title(h: &History) -> String {
    use crate::analysis::history::Axis as Along;
    match h.axis {
        Along::Version => "engine version, oldest first".into(),
        Along::Time => {
            let mut keys: Vec<&str> = h
                .points
                .iter()
                .flat_map(|p| p.build.keys().map(String::as_str))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            let untagged = h.points.iter().any(|p| p.build.is_empty());
            match (keys.is_empty(), untagged) {
                (true, _) => "run, in the order the runs started".into(),
                (false, false) => format!("{}, in the order the runs started", keys.join(" and ")),
                (false, true) => format!(
                    "{} (or the run, untagged), in the order the runs started",
                    keys.join(" and ")
                ),
            }
        }
    }
}

/// Whether a series is zero on every run that has it (errors on a good night): charted, it is
/// a flat line at zero; a page says it in one line instead.
fn zero_throughout(s: &Series) -> bool {
    let mut values = s.values.iter().flatten().peekable();
    values.peek().is_some() && values.all(|v| *v == 0.0)
}

/// The overview of a configuration for a site's index: its headline metric over the axis
/// (throughput when it has it, else the first metric shown) with its change points marked,
/// titled with the configuration.
pub fn overview(h: &History) -> Option<Chart> {
    let s = h
        .series
        .iter()
        .find(|s| crate::analysis::history::HEADLINE.first() == Some(&s.key.as_str()))
        .or_else(|| h.series.iter().find(|s| s.shown))?;
    let mut c = chart(h, s, &short_labels(h));
    if let Chart::Plot(p) = &mut c {
        p.title = format!("{}: {}", h.configuration.summary(), p.title);
        p.attrs
            .push(("data-configuration", h.configuration.id.clone()));
    }
    Some(c)
}

/// One metric over the points: a dot per run (spread a little within its point), the
/// median of each point joined by a line, and each change point as a dashed line between the
/// last point of the old level and the first of the new.
fn chart(h: &History, s: &Series, labels: &[String]) -> Chart {
    let values: Vec<f64> = s.values.iter().flatten().copied().collect();
    let unit = if s.unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", s.unit)
    };
    // The y axis says what is counted when the metric has no unit (errors, documents).
    let mut y = Axis::new(if s.unit.is_empty() {
        "count"
    } else {
        s.unit.as_ref()
    });
    y.range = y_range(&values);
    let mut p = Plot::new(format!("{}{unit}", s.label), Axis::new(x_title(h)), y);
    p.categories = labels.to_vec();
    p.attrs.push(("data-metric", s.key.clone()));
    // Two points joined by a line read as a trend: the line only where change points are
    // searched, the verdict table says how two points compare.
    if h.change_points_searched {
        p.lines.push(
            Line::new(
                "median of the point's runs",
                RUN_COLOUR,
                s.groups
                    .iter()
                    .enumerate()
                    .filter_map(|(i, g)| Some((i as f64, g.as_ref()?.median)))
                    .collect(),
            )
            .without_dots(),
        );
    }
    for point in &h.points {
        let k = point.runs.len();
        for (j, &r) in point.runs.iter().enumerate() {
            let Some(v) = s.values[r] else { continue };
            let dx = if k > 1 {
                (j as f64 / (k - 1) as f64 - 0.5) * 0.4
            } else {
                0.0
            };
            p.dots.push(Dot {
                x: h.runs[r].point as f64 + dx,
                y: v,
                colour: RUN_COLOUR.into(),
                radius: 3.0,
                title: format!(
                    "{} {}: {} {}",
                    h.runs[r].id,
                    point.label,
                    format_metric(s.errors, v),
                    s.unit
                ),
                ring: None,
                class: "run",
            });
        }
    }
    p.keys.push((RUN_COLOUR.into(), "a run".into()));
    for c in &s.change_points {
        let size = c
            .change
            .size_pct
            .map(|v| format!("{v:+.1} %"))
            .unwrap_or_default();
        p.marks.push(Mark {
            x: h.runs[c.change.index].point as f64 - 0.5,
            colour: colour(c.change.shift).into(),
            full: true,
            dashed: true,
            title: format!(
                "{} {size} from {} to {} (p = {:.3})",
                c.change.shift.name(),
                c.from,
                c.to,
                c.change.p_value
            ),
            class: "change-point",
        });
    }
    // The team's notes, a solid line where the point they are on begins.
    for a in &h.annotations {
        p.marks.push(Mark {
            x: a.point as f64 - 0.5,
            colour: ANNOTATION_COLOUR.into(),
            full: true,
            dashed: false,
            title: annotation_text(h, a),
            class: "annotation",
        });
    }
    if !h.annotations.is_empty() {
        p.keys
            .push((ANNOTATION_COLOUR.into(), "annotation (solid line)".into()));
    }
    for shift in [Shift::Regression, Shift::Improvement, Shift::Change] {
        if s.change_points.iter().any(|c| c.change.shift == shift) {
            p.keys.push((
                colour(shift).into(),
                format!("{} (dashed line)", shift.name()),
            ));
        }
    }
    p.into()
}

/// Each point against the one before it, on the headline metrics.
/// `newest`: only the newest point against the one before (a site's page over a thousand
/// nights leads with its charts; every step's verdict is in `history`).
fn verdict_table(h: &History, newest: bool) -> String {
    let last = h.points.last().map(|p| p.label.as_str());
    let verdicts: Vec<_> = h
        .verdicts
        .iter()
        .filter(|v| !newest || Some(v.to.as_str()) == last)
        .collect();
    if verdicts.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "<h2 id=\"verdicts\">Verdicts</h2><p>{} against the one before it: 95 % interval over runs; \
         cannot tell when the runs could not have seen a change of {} %.</p>\
         <table class=\"verdicts\"><tr><th>metric</th><th>from → to</th><th>before</th><th>after</th>\
         <th>diff [95 % CI]</th><th>runs</th><th>verdict</th></tr>",
        if newest { "The newest point" } else { "Each point" },
        h.threshold_pct
    );
    for v in verdicts {
        let class = match v.cell.verdict {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            _ => "same",
        };
        let base = v.cell.value - v.cell.change;
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{} → {}</td><td class=\"num\">{} {}</td><td class=\"num\">{} {}</td><td class=\"num\">{}</td><td>{}</td><td class=\"{class}\">{}</td></tr>",
            esc(&v.label),
            esc(&v.from),
            esc(&v.to),
            esc(&format_metric(v.errors, base)),
            esc(&v.unit),
            esc(&format_metric(v.errors, v.cell.value)),
            esc(&v.unit),
            esc(&format_diff(&v.cell)),
            esc(&format_n(&v.cell)),
            esc(&format_verdict(&v.cell, h.threshold_pct)),
        );
    }
    s.push_str("</table>");
    s
}

fn change_table(h: &History) -> String {
    if !h.change_points_searched {
        return format!(
            "<p id=\"change-points\">Not searched: no product has {MIN_POINTS_FOR_CHANGE_POINTS} or more points \
             (versions or builds) here; the verdicts above compare the points.</p>"
        );
    }
    let all = h.change_points();
    if all.is_empty() {
        return format!(
            "<p id=\"change-points\">No change point in any metric ({}).</p>",
            esc(&h.change_point_rule())
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
            esc(&series.unit),
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

fn runs_table(h: &History, links: Option<&Links<'_>>) -> String {
    let mut s = String::from(
        "<table id=\"runs\"><tr><th>#</th><th>point</th><th>run</th><th>engine</th><th>started</th><th>tags</th></tr>",
    );
    for (i, r) in h.runs.iter().enumerate() {
        let run = match links.and_then(|l| (l.run)(&r.id)) {
            Some(href) => format!("<a href=\"{}\">{}</a>", esc(&href), esc(&r.id)),
            None => esc(&r.id),
        };
        let _ = write!(
            s,
            "<tr><td class=\"num\">{i}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&h.points[r.point].label),
            run,
            esc(r.engine.as_deref().unwrap_or("?")),
            utc(r.started_unix),
            esc(&tag_text(&r.tags))
        );
    }
    s.push_str("</table>");
    s
}

/// Where a page of a site links: back to the site's index, and each run to its report.
pub struct Links<'a> {
    pub index: &'a str,
    pub run: &'a dyn Fn(&str) -> Option<String>,
}

/// The whole page.
pub fn render(h: &History) -> String {
    render_with(h, None)
}

/// The whole page, as a page of a site ([`super::site`]) when `links` are given.
pub fn render_with(h: &History, links: Option<&Links<'_>>) -> String {
    let title = format!(
        "searchbench history: {} ({} runs, {} points)",
        h.configuration.summary(),
        h.runs.len(),
        h.points.len()
    );
    let labels = short_labels(h);
    let subtitle = format!(
        "configuration {} · selection: {} · ordered by {} · change points: \
         {}",
        h.configuration.id,
        h.selection,
        match h.axis {
            crate::analysis::history::Axis::Version => "engine version",
            crate::analysis::history::Axis::Time => "time",
        },
        h.change_point_rule(),
    );
    let mut body = match links {
        Some(l) => format!(
            "<p><a href=\"{}\">← every configuration</a></p>",
            esc(l.index)
        ),
        None => String::new(),
    };
    body.push_str(&verdict_table(h, links.is_some()));
    let _ = write!(body, "<h2>Change points</h2>{}", change_table(h));
    body.push_str(&annotation_table(h));
    body.push_str("<h2>Metrics</h2>");
    // A site's page charts what a team looks at every night (the headline metrics, those
    // with a change point, errors and GC): a chart of every metric over a thousand nights
    // would weigh megabytes. The tables above hold every metric.
    let charted = |s: &&Series| {
        links.is_none() || s.shown || s.errors || s.key.to_ascii_lowercase().contains("gc")
    };
    body.push_str(&chart::grid(
        h.series
            .iter()
            .filter(charted)
            .filter(|s| !zero_throughout(s))
            .map(|s| chart(h, s, &labels)),
    ));
    // Metrics at zero on every run are one line, not a chart each of a flat line.
    let zero: Vec<&str> = h
        .series
        .iter()
        .filter(charted)
        .filter(|s| zero_throughout(s))
        .map(|s| s.label.as_str())
        .collect();
    if !zero.is_empty() {
        let _ = write!(
            body,
            "<p class=\"zero-throughout\">Zero on every run, not charted: {}.</p>",
            esc(&zero.join("; "))
        );
    }
    body.push_str("<h2>Runs</h2>");
    body.push_str(&runs_table(h, links));
    if !h.excluded.is_empty() {
        let _ = write!(body, "<p>Left out: {}</p>", esc(&h.excluded.join(", ")));
    }
    super::page::render(&title, &subtitle, &body)
}

/// Writes [`render`] to `path`.
pub fn write(h: &History, path: &Path) -> Result<(), ReportError> {
    super::write_page(path, &render(h))
}

/// The y axis of a chart of `values`, padded; `None` without a finite value.
fn y_range(values: &[f64]) -> Option<(f64, f64)> {
    // Finite values only, and every bound a finite float: a value near the largest one
    // must not make the axis infinite (in halves, the span does not overflow).
    let (mut lo, mut hi) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return None;
    }
    if hi / 2.0 - lo / 2.0 < hi.abs().max(1e-9) * 0.5e-6 {
        lo -= lo.abs().max(1.0) * 0.05;
        hi += hi.abs().max(1.0) * 0.05;
    }
    let pad = (hi / 2.0 - lo / 2.0) * 0.16;
    // A series that is never negative (counts, rates, times) never gets a negative axis.
    let floor = if values.iter().all(|v| *v >= 0.0) {
        0.0
    } else {
        -f64::MAX
    };
    Some((
        (lo - pad).max(floor).max(-f64::MAX),
        (hi + pad).min(f64::MAX),
    ))
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
        // Near the largest float, or past it, the axis stays finite.
        for v in [
            &[0.0, 1.7e308][..],
            &[-f64::MAX, f64::MAX],
            &[f64::INFINITY, 1.0],
        ] {
            let (lo, hi) = y_range(v).unwrap();
            assert!(
                lo.is_finite() && hi.is_finite() && lo < hi,
                "{v:?}: {lo} {hi}"
            );
        }
    }
}

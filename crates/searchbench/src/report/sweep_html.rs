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

/// Docs/s against time to searchable: a dot per probed cell (the medians of its runs), the
/// front joined (the cells none beats on both: see `SweepResult::freshness_front`). A cell
/// whose documents never became searchable within the bound (refresh off) has no lag to
/// draw: it sits on a dashed line above the slowest lag, never at a number. `None` when no
/// cell was probed.
fn freshness_chart(r: &SweepResult) -> Option<Chart> {
    let probed: Vec<(usize, &Cell, f64)> = r
        .cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.not_searchable_pct.is_some())
        .filter_map(|(i, c)| Some((i, c, c.docs_per_sec?.median)))
        .collect();
    if probed.is_empty() {
        return None;
    }
    let lags: Vec<f64> = probed
        .iter()
        .filter_map(|(_, c, _)| c.searchable_p99_s)
        .filter(|s| *s > 0.0)
        .collect();
    let (low, high) = lags
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(l, h), x| (l.min(*x), h.max(*x)));
    // Lags from a fraction of a second to half a minute read on a log axis.
    let log = !lags.is_empty() && high / low > 20.0;
    let never = match (lags.is_empty(), log) {
        (true, _) => 1.0,
        (false, true) => high * 3.0,
        (false, false) => high * 1.25,
    };
    let axis = |label: &str| {
        if log {
            Axis::log(label)
        } else {
            Axis::new(label)
        }
    };
    let mut p = Plot::new(
        "Docs/s against time to searchable",
        Axis::new("docs/s"),
        axis("time to searchable p99 (s)"),
    )
    .hint(
        "each probed cell: the median docs/s of its runs and the median of their p99 time to \
         searchable; the line joins the cells none beats on both",
    );
    p.attrs.push(("data-chart", "freshness".into()));
    let front = r.freshness_front();
    for (i, c, rate) in &probed {
        let on_front = front.contains(i);
        let (y, searchable) = match (c.searchable_p99_s, c.not_searchable_pct) {
            (Some(p99), Some(pct)) if pct > 0.0 => (
                p99,
                format!("searchable p99 {p99:.2} s, {pct:.1} % not within the bound"),
            ),
            (Some(p99), _) => (p99, format!("searchable p99 {p99:.2} s")),
            (None, _) => (never, "never searchable within the bound".to_string()),
        };
        p.dots.push(Dot {
            x: *rate,
            y,
            colour: if c.failed() { chart::RED } else { "#1f6feb" }.into(),
            radius: if on_front { 6.0 } else { 4.0 },
            title: format!(
                "{}: {rate:.0} docs/s, {searchable}{}",
                c.params.label(),
                if on_front { " (on the front)" } else { "" }
            ),
            ring: on_front.then(|| "#e8590c".to_string()),
            class: if on_front { "cell front" } else { "cell" },
        });
    }
    if probed.iter().any(|(_, c, _)| c.searchable_p99_s.is_none()) {
        let xs = probed.iter().map(|(_, _, x)| *x);
        let (from, to) = xs.fold((f64::INFINITY, 0.0_f64), |(l, h), x| (l.min(x), h.max(x)));
        p.lines.push(
            Line::new(
                "never searchable within the bound",
                chart::RED,
                vec![(from, never), (to, never)],
            )
            .dashed()
            .without_dots(),
        );
    }
    let mut joined: Vec<(f64, f64)> = front
        .iter()
        .filter_map(|i| probed.iter().find(|(k, _, _)| k == i))
        .map(|(_, c, rate)| (*rate, c.searchable_p99_s.unwrap_or(never)))
        .collect();
    joined.sort_by(|a, b| a.0.total_cmp(&b.0));
    if joined.len() > 1 {
        p.lines
            .push(Line::new("the front: none beaten on both", "#e8590c", joined).without_dots());
    }
    p.keys
        .push(("#e8590c".into(), "ringed: on the front".into()));
    Some(p.into())
}

fn cells_table(r: &SweepResult) -> String {
    let mut out = String::from(
        "<table><tr><th>cell</th><th>docs/s</th><th>runs × docs</th><th>service p50 ms</th><th>p99 ms</th>\
         <th>429s</th><th>failed docs</th><th>engine CPU µs/doc</th><th>driver CPU µs/doc</th>\
         <th>searchable p99 s</th><th>not searchable %</th><th>run ids</th></tr>",
    );
    let opt = |v: Option<f64>| v.map_or_else(|| "-".into(), |x| format!("{x:.2}"));
    for c in &r.cells {
        let ids: Vec<&str> = c.runs.iter().filter_map(|r| r.run_id.as_deref()).collect();
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{} × {}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
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
            // Probed, never searchable: no lag to show, and not "-" (which is not probed).
            match (c.searchable_p99_s, c.not_searchable_pct) {
                (None, Some(_)) => "never".to_string(),
                (p99, _) => opt(p99),
            },
            opt(c.not_searchable_pct),
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
    if let Some(chart) = freshness_chart(r) {
        let _ = write!(
            body,
            "<h2>Docs/s against time to searchable</h2><p class=\"note\">What each cell trades: \
             how fast it loaded and how soon its documents could be found (the probe beside every \
             run). Ringed: the front, the cells no other beats on both (more docs/s, searchable \
             sooner at p99, no larger share never searchable). A cell whose documents never \
             became searchable within the bound (refresh off) is drawn on the dashed line, \
             never at a number: it is on the front only by being the fastest.</p>{}",
            chart.render()
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sweep::fixtures::{cell, result_of};

    /// Cells at refresh 1 s, 5 s (faster, staler), a slower and staler one, and refresh off
    /// (the fastest, never searchable), as a sweep over the refresh interval makes them.
    fn probed() -> SweepResult {
        let probed = |bulk, rate: f64, p99: Option<f64>, unseen: f64| {
            let mut c = cell(bulk, 2, &[rate, rate, rate]);
            (c.searchable_p99_s, c.not_searchable_pct) = (p99, Some(unseen));
            c
        };
        result_of(vec![
            probed(100, 1000.0, Some(1.4), 0.0),
            probed(200, 1500.0, Some(5.3), 0.0),
            probed(300, 1200.0, Some(5.5), 0.0),
            probed(400, 1800.0, None, 100.0),
        ])
    }

    #[test]
    fn the_page_charts_docs_per_sec_against_time_to_searchable_with_the_front_ringed() {
        let r = probed();
        let Some(Chart::Plot(p)) = freshness_chart(&r) else {
            panic!("a plot of the probed cells");
        };
        assert_eq!(p.dots.len(), 4);
        // The front's cells ringed, in any order, and joined by its line by docs/s.
        let ringed: Vec<f64> = p
            .dots
            .iter()
            .filter(|d| d.ring.is_some())
            .map(|d| d.x)
            .collect();
        assert_eq!(ringed, [1000.0, 1500.0, 1800.0]);
        let front = p
            .lines
            .iter()
            .find(|l| l.name.starts_with("the front"))
            .expect("the front's line");
        let xs: Vec<f64> = front.points.iter().map(|q| q.0).collect();
        assert_eq!(xs, [1000.0, 1500.0, 1800.0]);
        // Refresh off is on the dashed line above every lag, never at a number of its own.
        let off = p.dots.iter().find(|d| d.x == 1800.0).expect("refresh off");
        assert!(off.y > 5.5, "{}", off.y);
        assert!(
            off.title.contains("never searchable within the bound"),
            "{}",
            off.title
        );
        let never = p
            .lines
            .iter()
            .find(|l| l.name == "never searchable within the bound")
            .expect("the never line");
        assert!(never.dashed && never.points.iter().all(|q| q.1 == off.y));
        // From 1.4 s to 5.5 s the lags read on a linear axis.
        assert!(!p.y.log);

        let page = render(&r);
        assert!(page.contains("<h2>Docs/s against time to searchable</h2>"));
        assert_eq!(page.matches("class=\"data cell front\"").count(), 3);
        // The table says never for refresh off, a lag for the others.
        assert!(page.contains("<td class=\"num\">never</td><td class=\"num\">100.00</td>"));
        assert!(page.contains("<td class=\"num\">1.40</td><td class=\"num\">0.00</td>"));
    }

    #[test]
    fn lags_from_under_a_second_to_half_a_minute_read_on_a_log_axis() {
        let mut r = probed();
        r.cells[0].searchable_p99_s = Some(0.6);
        r.cells[1].searchable_p99_s = Some(31.0);
        let Some(Chart::Plot(p)) = freshness_chart(&r) else {
            panic!("a plot");
        };
        assert!(p.y.log);
        let off = p.dots.iter().find(|d| d.x == 1800.0).expect("refresh off");
        assert!(off.y > 31.0);
    }

    #[test]
    fn a_sweep_that_probed_nothing_has_no_such_chart() {
        let mut r = probed();
        for c in &mut r.cells {
            (c.searchable_p99_s, c.not_searchable_pct) = (None, None);
        }
        assert!(freshness_chart(&r).is_none());
        let page = render(&r);
        assert!(!page.contains("time to searchable</h2>"));
        // Not probed: a dash, never "never".
        assert!(!page.contains(">never<"));
    }

    /// Only refresh off probed: nothing became searchable, so no lag sets the scale; the
    /// cells still show, on the never line.
    #[test]
    fn cells_that_were_never_searchable_still_show() {
        let mut r = probed();
        for c in &mut r.cells {
            (c.searchable_p99_s, c.not_searchable_pct) = (None, Some(100.0));
        }
        let Some(Chart::Plot(p)) = freshness_chart(&r) else {
            panic!("a plot");
        };
        assert_eq!(p.dots.len(), 4);
        assert!(p.dots.iter().all(|d| d.y == 1.0));
    }
}

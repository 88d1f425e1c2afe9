//! The saturation search as a page: achieved against offered (the diagonal is "kept up"), p99
//! latency against offered with the limit, each step green when sustained and red when not,
//! then every step's figures.

use std::path::{Path, PathBuf};

use super::chart::{self, Axis, Dot, Guide, Line, Plot, GREEN, RED};
use super::page::esc;
use super::ReportError;
use crate::analysis::saturate::{SaturateResult, Step};

/// `reports/saturate-<id>.html` next to the results store at `store`.
pub fn default_path(store: &Path, id: &str) -> PathBuf {
    super::reports_dir(store).join(format!("saturate-{id}.html"))
}

/// Writes the page of `r` to `path` (creating its folder).
pub fn write(r: &SaturateResult, path: &Path) -> Result<(), ReportError> {
    super::write_page(path, &render(r))
}

/// The saturation curve as a page: achieved against offered (the diagonal is "kept up"), and
/// p99 latency against offered with the limit; each step green when sustained, red when not.
pub fn render(r: &SaturateResult) -> String {
    let mut steps: Vec<&Step> = r.steps.iter().collect();
    steps.sort_by(|a, b| a.offered_docs_per_sec.total_cmp(&b.offered_docs_per_sec));
    let x_max = steps
        .iter()
        .map(|s| s.offered_docs_per_sec)
        .fold(1.0, f64::max);
    let plot = |title: &str, y: &str, value: &dyn Fn(&Step) -> Option<f64>, guide: Guide| {
        let mut p = Plot::new(title, Axis::new("offered docs/s"), Axis::new(y));
        let points: Vec<(f64, f64)> = steps
            .iter()
            .filter_map(|s| Some((s.offered_docs_per_sec, value(s)?)))
            .collect();
        p.lines.push(Line::new(y, "#3366cc", points).without_dots());
        for s in &steps {
            let Some(v) = value(s) else { continue };
            p.dots.push(Dot {
                x: s.offered_docs_per_sec,
                y: v,
                colour: if s.sustained { GREEN } else { RED }.into(),
                radius: 4.0,
                title: format!(
                    "offered {:.0} docs/s: {v:.1}{}",
                    s.offered_docs_per_sec,
                    if s.sustained { "" } else { " (not sustained)" }
                ),
                ring: None,
                class: "step",
            });
        }
        p.guides.push(guide);
        p.keys.push((GREEN.into(), "sustained".into()));
        p.keys.push((RED.into(), "not sustained".into()));
        p.into()
    };
    let achieved = plot(
        "Achieved against offered docs/s (dashed: kept up)",
        "achieved docs/s",
        &|s| s.achieved_docs_per_sec,
        Guide {
            from: (0.0, 0.0),
            to: (x_max, x_max),
        },
    );
    let latency = plot(
        "p99 latency against offered docs/s (dashed: the limit)",
        "p99 ms",
        &|s| s.p99_ms,
        Guide {
            from: (0.0, r.p99_limit_ms),
            to: (x_max, r.p99_limit_ms),
        },
    );
    let answer = match r.max_sustainable_docs_per_sec {
        Some(g) => format!("max sustainable: {g:.0} docs/s"),
        None => "no rate sustained".into(),
    };
    let subtitle = format!(
        "{answer}; p99 ≤ {:.0} ms, failed ≤ {:.3} %, {} clients × bulk {}, steps of {} s",
        r.p99_limit_ms,
        100.0 * r.max_error_rate,
        r.clients,
        r.bulk_size,
        r.step_secs
    );
    let opt = |v: Option<f64>| v.map_or_else(|| "-".into(), |x| format!("{x:.1}"));
    let mut body = chart::grid([achieved, latency]);
    body.push_str(
        "<h2>Steps</h2><table><tr><th>offered docs/s</th><th>achieved docs/s</th><th>p50 ms</th>\
         <th>p99 ms</th><th>requests</th><th>failed %</th><th>sustained</th><th>run</th></tr>",
    );
    for s in &steps {
        body.push_str(&format!(
            "<tr><td class=\"num\">{:.0}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3}</td>\
             <td class=\"{}\">{}</td><td>{}</td></tr>",
            s.offered_docs_per_sec,
            opt(s.achieved_docs_per_sec),
            opt(s.p50_ms),
            opt(s.p99_ms),
            if s.p99_is_max { " (max)" } else { "" },
            s.requests,
            100.0 * s.error_rate,
            if s.sustained { "better" } else { "worse" },
            if s.sustained {
                "yes".to_string()
            } else {
                esc(&format!(
                    "no: {}",
                    s.why.as_deref().unwrap_or("over a limit")
                ))
            },
            esc(s.run_id.as_deref().unwrap_or("-"))
        ));
    }
    body.push_str("</table>");
    super::page::render(
        &format!("searchbench saturate {} ({})", r.workload, r.id),
        &subtitle,
        &body,
    )
}

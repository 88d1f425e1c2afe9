//! One self-contained, offline HTML page for one or more groups of runs (a run named by its
//! id is a group of one): configuration, throughput over time, service-time percentiles,
//! attribution as stacked bars, query cells and accuracy; for several groups, what changed
//! first, then the charts (one colour and one legend entry per group), then the comparison
//! table with every metric. Charts come from [`super::run_charts`] and
//! [`super::telemetry_charts`], drawn by [`super::chart`] into the [`super::page`] skeleton.

use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::Value;

use super::page::esc;
use super::{utc, Group, Loaded};
use crate::analysis::compare::{format_diff, format_n, Comparison, Verdict};
use crate::analysis::metrics;
use crate::query::accuracy::{Check, VariantAccuracy};
use crate::query::QueryResult;
use crate::units::{format_metric, format_value};

fn kv_table(rows: &[(&str, String)]) -> String {
    let mut s = String::from("<table class=\"kv\">");
    for (k, v) in rows {
        let _ = write!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    s.push_str("</table>");
    s
}

fn run_section(l: &Loaded) -> String {
    let r = &l.row;
    let rows = super::run_rows(r);
    let mut s = format!("<section class=\"run\"><h2>Run {}</h2>", esc(&r.id.0));
    s.push_str(&kv_table(&rows));
    let metrics = l.metrics();
    if !metrics.is_empty() {
        s.push_str("<h3>Figures</h3><table><tr><th>metric</th><th>value</th><th>unit</th><th>samples</th></tr>");
        for m in &metrics {
            let n = m.samples_shown();
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                esc(&m.label),
                format_metric(m.errors, m.value),
                esc(&m.unit),
                esc(&n)
            );
        }
        s.push_str("</table>");
    }
    if let Some(q) = r.result.as_ref().and_then(metrics::query_part) {
        s.push_str(&query_tables(q));
    }
    if let Some(result) = &r.result {
        s.push_str(&super::scenario_html::charts(result));
        s.push_str(&super::profile_html::section(result));
    }
    // The profiles the record keeps with its phases, when the result keeps none.
    if super::profile_html::profile_of(r.result.as_ref().unwrap_or(&Value::Null)).is_none() {
        s.push_str(&super::profile_html::phase_sections(&l.phases));
    }
    let config = serde_json::to_string_pretty(&r.config).unwrap_or_default();
    let _ = write!(
        s,
        "<details><summary>Configuration (enough to run it again)</summary><pre>{}</pre></details></section>",
        esc(&config)
    );
    s
}

/// A query result's tables, from the result read as the type it was written as (one that
/// does not read has none: its metrics say it is unreadable).
fn query_tables(r: &Value) -> String {
    let mut s = String::new();
    let Ok(result) = QueryResult::deserialize(r) else {
        return s;
    };
    if !result.cells.is_empty() {
        // With shards as an axis, a variant and transport has a cell per count.
        let by_shards = result.cells.iter().any(|c| c.shards.is_some());
        s.push_str("<h3>Query cells</h3><table><tr><th>variant</th>");
        if by_shards {
            s.push_str("<th>shards</th>");
        }
        s.push_str("<th>transport</th><th>coverages</th><th>errors</th><th>took mean ms</th><th>took p90 ms</th><th>wall mean ms</th><th>wall p90 ms</th></tr>");
        for c in &result.cells {
            let _ = write!(s, "<tr><td>{}</td>", esc(c.variant.name()));
            if by_shards {
                let shards = c.shards.map(|n| n.to_string()).unwrap_or_default();
                let _ = write!(s, "<td class=\"num\">{shards}</td>");
            }
            let _ = write!(
                s,
                "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                c.transport.name(), c.coverages, c.errors,
                format_value(c.took_ms.mean), format_value(c.took_ms.p90),
                format_value(c.wall_ms.mean), format_value(c.wall_ms.p90)
            );
        }
        s.push_str("</table>");
    }
    // The derived tables, as the terminal shows them, from the result itself.
    s.push_str(&savings_table(&result));
    if let Some(line) = result.shards_line() {
        let _ = write!(s, "<p class=\"note\">{}</p>", esc(&line));
    }
    s.push_str(&cold_table(&result));
    if let Some(w) = &result.rewrites {
        let _ = write!(
            s,
            "<p class=\"note\">Measured during an ingest: {} client(s) wrote the corpus over \
             itself beside {}, {} document(s) in {:.1} s ({:.0} docs/s); the index held \
             {} documents before and after, so every answer was checked against the same \
             truth.</p>",
            w.clients,
            w.beside(),
            w.docs,
            w.secs,
            w.docs_per_sec,
            w.index_count
        );
    }
    s.push_str(&under_write_table(&result));
    if !result.accuracy.is_empty() {
        s.push_str(&accuracy_table(&result.accuracy, &result.workload));
    }
    s
}

/// Serial against `_msearch` per variant (and shard count): the saving of one request.
fn savings_table(r: &QueryResult) -> String {
    if r.savings.is_empty() {
        return String::new();
    }
    let by_shards = r.savings.iter().any(|s| s.shards.is_some());
    let heading = crate::query::report::savings_heading(&r.described().unit);
    let mut s = format!("<h3>{}</h3><table><tr><th>variant</th>", esc(&heading));
    if by_shards {
        s.push_str("<th>shards</th>");
    }
    s.push_str("<th>serial wall</th><th>msearch wall</th><th>saving %</th><th>serial took</th><th>msearch took</th><th>msearch parallelism</th></tr>");
    for v in &r.savings {
        let _ = write!(s, "<tr><td>{}</td>", esc(v.variant.name()));
        if by_shards {
            let shards = v.shards.map_or("-".into(), |n| n.to_string());
            let _ = write!(s, "<td class=\"num\">{shards}</td>");
        }
        let _ = write!(
            s,
            "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}×</td></tr>",
            format_value(v.serial_wall_ms),
            format_value(v.msearch_wall_ms),
            v.saving_pct,
            format_value(v.serial_took_ms),
            format_value(v.msearch_took_ms),
            v.parallelism
        );
    }
    s.push_str("</table>");
    s
}

/// The cold pass beside the warm cells (`--cold`), and how cold it was.
fn cold_table(r: &QueryResult) -> String {
    let Some(summary) = &r.cold else {
        return String::new();
    };
    let unit = r.described().unit;
    let mut s = format!("<h3>{}</h3>", esc(&crate::query::cold::heading(&unit)));
    let rows = r.cold_vs_warm();
    if rows.is_empty() {
        let _ = write!(s, "<p>no cold {} was measured</p>", esc(&unit));
    } else {
        s.push_str("<table><tr><th>variant</th><th>transport</th><th>n cold</th><th>warm wall</th><th>cold wall</th><th>cold ÷ warm</th><th>warm took</th><th>cold took</th></tr>");
        for c in &rows {
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                esc(c.variant.name()),
                esc(c.transport.name()),
                c.cold_n,
                format_value(c.warm_wall_ms),
                format_value(c.cold_wall_ms),
                c.ratio().map_or("-".into(), |x| format!("{x:.2}×")),
                format_value(c.warm_took_ms),
                format_value(c.cold_took_ms),
            );
        }
        s.push_str("</table>");
    }
    let _ = write!(s, "<p class=\"note\">{}</p>", esc(&summary.describe(&unit)));
    s
}

/// Each cell under write beside idle (`--beside-idle`), as the terminal shows it.
fn under_write_table(r: &QueryResult) -> String {
    let rows = crate::analysis::under_write::of(r);
    if rows.is_empty() {
        return String::new();
    }
    let unit = r.described().unit;
    let mut s = format!(
        "<h3>{}</h3><table><tr><th>variant</th><th>transport</th><th>n idle / write</th>\
         <th>idle p50</th><th>idle p99</th><th>write p50</th><th>write p99</th>\
         <th>write vs idle (95 %)</th></tr>",
        esc(&crate::analysis::under_write::heading(&unit))
    );
    let opt = |x: Option<f64>| x.map_or_else(|| "-".into(), format_value);
    for w in &rows {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{} / {}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            esc(w.variant.name()),
            esc(w.transport.name()),
            w.idle.n,
            w.write.n,
            opt(w.idle.p50_ms),
            opt(w.idle.p99_ms),
            opt(w.write.p50_ms),
            opt(w.write.p99_ms),
            esc(&w.change_text()),
        );
    }
    let _ = write!(
        s,
        "</table><p class=\"note\">{}</p>",
        esc(crate::analysis::under_write::NOTE)
    );
    s
}

/// A relative error stored as a fraction (0.0044), shown in percent (0.440): the one place the
/// HTML converts it.
fn pct(x: f64) -> String {
    format!("{:.3}", x * 100.0)
}

/// The accuracy table: a row per variant, a column per check some variant makes ('-' where a
/// variant does not make it), percentile errors in percent.
fn accuracy_table(acc: &[VariantAccuracy], workload: &str) -> String {
    let rows: Vec<(&VariantAccuracy, Vec<Check>)> = acc
        .iter()
        .map(|a| (a, a.checks_or_inferred(workload)))
        .collect();
    let used: Vec<Check> = Check::ALL
        .into_iter()
        .filter(|c| rows.iter().any(|(_, checks)| checks.contains(c)))
        .collect();
    let mut s = String::from(
        "<h3>Accuracy</h3><table class=\"accuracy\"><tr><th>variant</th><th>answers</th>",
    );
    for c in &used {
        if *c == Check::Percentiles {
            s.push_str("<th>algorithm</th><th>percentiles over bound</th><th>largest pct error %</th><th>bound %</th>");
        } else if *c == Check::Neighbours {
            let _ = write!(
                s,
                "<th>{}</th><th>recall@k mean</th><th>recall@k lowest</th>",
                esc(c.heading())
            );
        } else {
            let _ = write!(s, "<th>{}</th>", esc(c.heading()));
        }
    }
    s.push_str("<th>verdict</th></tr>");
    for (a, checks) in &rows {
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"num\">{}</td>",
            esc(a.variant.name()),
            a.answers
        );
        for c in &used {
            let applies = checks.contains(c);
            match c {
                Check::Percentiles if applies => {
                    let _ = write!(
                        s,
                        "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                        esc(a.algo.as_deref().unwrap_or("-")),
                        c.wrong(a),
                        pct(a.pct_max_err),
                        a.bound.map_or("-".into(), pct),
                    );
                }
                Check::Percentiles => s.push_str("<td>-</td><td>-</td><td>-</td><td>-</td>"),
                Check::Neighbours if applies => {
                    let recall = |r: Option<f64>| r.map_or("-".into(), |r| format!("{r:.4}"));
                    let _ = write!(
                        s,
                        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                        a.hits_wrong,
                        recall(a.recall_mean()),
                        recall(a.recall_min),
                    );
                }
                Check::Neighbours => s.push_str("<td>-</td><td>-</td><td>-</td>"),
                other if applies => {
                    let _ = write!(s, "<td class=\"num\">{}</td>", other.wrong(a));
                }
                _ => s.push_str("<td>-</td>"),
            }
        }
        let (class, verdict) = if a.failed() {
            ("worse", "FAIL")
        } else if checks.is_empty() {
            ("", "not checked")
        } else {
            ("better", "ok")
        };
        let _ = write!(s, "<td class=\"{class}\">{verdict}</td></tr>");
    }
    s.push_str("</table>");
    s
}

/// The summary a comparison opens with: per contender, the metrics that got better or worse
/// with their difference and verdict, and how many did not change significantly.
pub fn what_changed(c: &Comparison) -> String {
    let mut s = String::from("<h2 id=\"what-changed\">What changed</h2>");
    for ch in c.changes() {
        let _ = write!(
            s,
            "<p class=\"summary\"><b>{}</b> against <b>{}</b> (base): {} (<a href=\"#comparison\">every metric</a>).</p>",
            esc(&ch.contender.label),
            esc(&c.base.label),
            ch.counts()
        );
        if ch.changed().next().is_none() {
            continue;
        }
        let _ = write!(
            s,
            "<table class=\"changed\"><tr><th>metric</th><th>base</th><th>{}</th><th>diff [{:.0} % CI]</th><th>verdict</th></tr>",
            esc(&ch.contender.label),
            c.confidence * 100.0
        );
        for (row, cell) in ch.changed() {
            let class = if cell.verdict == Verdict::Worse {
                "worse"
            } else {
                "better"
            };
            let unit = if row.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", esc(&row.unit))
            };
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"num\">{}{unit}</td><td class=\"num\">{}{unit}</td><td class=\"num\">{}</td><td class=\"{class}\">{}</td></tr>",
                esc(&row.label),
                row.format(row.base),
                row.format(cell.value),
                esc(&format_diff(cell)),
                esc(&crate::analysis::compare::format_verdict(cell, c.threshold_pct))
            );
        }
        s.push_str("</table>");
    }
    s
}

/// The comparison as an HTML table (also used for several runs in one report).
pub fn compare_table(c: &Comparison) -> String {
    let mut s = String::from("<table class=\"compare\"><tr><th>metric</th><th>unit</th>");
    let _ = write!(s, "<th>{} (base)</th>", esc(&c.base.label));
    for k in &c.contenders {
        let _ = write!(
            s,
            "<th>{}</th><th>diff [{:.0} % CI]</th><th>samples</th><th>verdict</th>",
            esc(&k.label),
            c.confidence * 100.0
        );
    }
    s.push_str("</tr>");
    for row in &c.rows {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td>",
            esc(&row.label),
            esc(&row.unit),
            format_value(row.base)
        );
        for cell in &row.contenders {
            match cell {
                Some(cell) => {
                    let class = match cell.verdict {
                        Verdict::Better => "better",
                        Verdict::Worse => "worse",
                        _ => "same",
                    };
                    let _ = write!(
                        s,
                        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"{class}\">{}</td>",
                        format_value(cell.value),
                        esc(&format_diff(cell)),
                        esc(&format_n(cell)),
                        esc(&crate::analysis::compare::format_verdict(cell, c.threshold_pct))
                    );
                }
                None => s.push_str("<td>-</td><td></td><td></td><td></td>"),
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    if c.hidden_unchanged > 0 {
        let _ = write!(
            s,
            "<p class=\"note\">{} metric(s) without a significant change hidden</p>",
            c.hidden_unchanged
        );
    }
    for n in &c.notes {
        let _ = write!(s, "<p class=\"note\">note: {}</p>", esc(n));
    }
    s
}

/// The whole page.
pub fn render(groups: &[Group], comparison: Option<&Comparison>) -> String {
    let runs = super::runs_of(groups);
    let title = match runs.as_slice() {
        [one] => format!(
            "searchbench: {} {} on {}",
            one.row.kind,
            one.row.workload_shown(),
            one.row.engine.as_deref().unwrap_or("engine unknown")
        ),
        many if groups.len() > 1 => format!(
            "searchbench: {} ({} runs)",
            groups
                .iter()
                .map(|g| g.selector.as_str())
                .collect::<Vec<_>>()
                .join(" vs "),
            many.len()
        ),
        many => format!("searchbench: {} runs", many.len()),
    };
    let subtitle = runs
        .iter()
        .map(|l| {
            format!(
                "{} ({}, {})",
                l.row.id,
                l.row.state.name(),
                utc(l.row.started_unix)
            )
        })
        .collect::<Vec<_>>()
        .join(" · ");
    // The headline and its diagnosis first, what changed next, then the charts, then every
    // figure.
    let mut body = super::headline::section(&runs);
    if let Some(c) = comparison {
        body.push_str(&what_changed(c));
    }
    // Two sides with profiles: what grew and what shrank in the engine, frame by frame.
    if let [a, b] = groups {
        if let (Some(ra), Some(rb)) = (a.runs.first(), b.runs.first()) {
            if let (Some(va), Some(vb)) = (&ra.row.result, &rb.row.result) {
                body.push_str(&super::profile_html::diff_section(
                    (&ra.row.id.0, va),
                    (&rb.row.id.0, vb),
                ));
            }
        }
    }
    let charts = super::chart::grid(super::run_charts::charts(groups));
    if !charts.is_empty() {
        body.push_str("<h2>Charts</h2>");
        body.push_str(&charts);
    }
    body.push_str(&super::telemetry_charts::section(&runs));
    if let Some(c) = comparison {
        body.push_str("<h2 id=\"comparison\">Comparison, every metric</h2>");
        body.push_str(&compare_table(c));
    }
    for l in runs {
        body.push_str(&run_section(l));
    }
    let body = super::profile_html::with_search(body);
    super::page::render(&title, &subtitle, &body)
}

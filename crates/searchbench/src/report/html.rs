//! One self-contained, offline HTML page for one or more groups of runs (a run named by its
//! id is a group of one): configuration, throughput over time, service-time percentiles,
//! attribution as stacked bars, query cells and accuracy; for several groups, what changed
//! first, then the charts (one colour and one legend entry per group), then the comparison
//! table with every metric.
//!
//! Charts are drawn by Chart.js (MIT, embedded from `assets/`): measured points joined by
//! straight segments, log axes ticked at 1-2-5 steps. Tables are rendered here, so the page
//! reads fine even without JavaScript. After drawing, the page's script writes what it did
//! into the hidden `#render-status` (`data-charts`, `data-drawn`: charts with painted pixels,
//! `data-errors`, and `#chart-info`: each chart's legend, colours, lines and log ticks), and
//! every script error into `#js-errors`: the headless-browser test reads these.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::compare::{format_diff, format_metric, format_n, format_value, Comparison, Verdict};
use super::{utc, Group, Loaded, ReportError};
use crate::analysis::metrics::{self, steady_seconds};
use crate::query::accuracy::{Check, VariantAccuracy};

const CHART_JS: &str = include_str!("../../assets/chart.umd.min.js");

/// HTML-escapes text.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON safe to put inside `<script>`: no `<` survives, so no `</script>` either.
fn script_json(v: &Value) -> Result<String, ReportError> {
    Ok(serde_json::to_string(v)?
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029"))
}

/// What the page's script draws, per run, each with its group: the script colours and labels
/// by group (a run named by its id is a group of one).
fn chart_data(groups: &[Group]) -> Value {
    let runs: Vec<Value> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| group.runs.iter().map(move |l| (g, group, l)))
        .map(|(g, group, l)| {
            let r = l.row.result.as_ref().unwrap_or(&Value::Null);
            let steady = steady_seconds(&l.timeline).len() != l.timeline.len();
            let timeline: Vec<Value> = l
                .timeline
                .iter()
                .map(|s| {
                    json!({
                        "second": s.get("second"),
                        "docs": s.get("docs"),
                        "requests": s.get("requests"),
                        "failed": s.get("failed_attempts"),
                        "service_mean_ms": s.get("service_mean_ms"),
                        "warmup": s.get("warmup").and_then(Value::as_bool).unwrap_or(false),
                    })
                })
                .collect();
            let service = r.get("service").cloned().unwrap_or(Value::Null);
            let budget = r
                .get("attribution")
                .and_then(|a| a.get("budget"))
                .cloned()
                .unwrap_or(Value::Null);
            let cells: Vec<Value> = metrics::query_part(r)
                .and_then(|q| q.get("cells"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|c| {
                    json!({
                        "name": format!("{} {}",
                            c.get("variant").and_then(Value::as_str).unwrap_or("?"),
                            c.get("transport").and_then(Value::as_str).unwrap_or("?")),
                        "took_ms": c.get("took_ms").and_then(|t| t.get("mean")),
                        "wall_ms": c.get("wall_ms").and_then(|t| t.get("mean")),
                    })
                })
                .collect();
            json!({
                "service_curve": service_curve(l),
                "id": l.row.id.0,
                "group": g,
                "label": group.label(),
                "timeline": timeline,
                "trimmed_edges": steady,
                "service": service,
                "budget": budget,
                "cells": cells,
            })
        })
        .collect();
    json!({ "runs": runs })
}

/// Percentiles of the stored bulk service-time histogram, in ms, for a curve finer than the
/// summary's five points; a percentile appears only with enough samples to mean something.
fn service_curve(l: &Loaded) -> Value {
    const PERCENTILES: [f64; 13] = [
        0.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99, 100.0,
    ];
    let Some(h) = l
        .histograms
        .iter()
        .find(|h| h.name == "service")
        .and_then(|h| h.decode().ok())
    else {
        return Value::Null;
    };
    let n = h.len() as f64;
    let points: Vec<Value> = PERCENTILES
        .iter()
        .filter(|&&p| p == 0.0 || p == 100.0 || n * (1.0 - p / 100.0) >= 1.0)
        .map(|&p| json!({"p": p, "ms": h.value_at_percentile(p) as f64 / 1000.0}))
        .collect();
    if points.len() < 2 {
        return Value::Null;
    }
    Value::Array(points)
}

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
    let metrics = metrics::extract(r.result.as_ref().unwrap_or(&Value::Null), &l.timeline);
    if !metrics.is_empty() {
        s.push_str("<h3>Figures</h3><table><tr><th>metric</th><th>value</th><th>unit</th><th>samples</th></tr>");
        for m in &metrics {
            let n = m
                .samples
                .as_ref()
                .map(|(k, v)| format!("{} {}", v.len(), k.name()))
                .unwrap_or_else(|| "1".into());
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                esc(&m.label),
                format_metric(m.errors, m.value),
                esc(m.unit),
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
    }
    let config = serde_json::to_string_pretty(&r.config).unwrap_or_default();
    let _ = write!(
        s,
        "<details><summary>Configuration (enough to run it again)</summary><pre>{}</pre></details></section>",
        esc(&config)
    );
    s
}

fn query_tables(r: &Value) -> String {
    let mut s = String::new();
    let cells = r.get("cells").and_then(Value::as_array);
    if let Some(cells) = cells.filter(|c| !c.is_empty()) {
        s.push_str("<h3>Query cells</h3><table><tr><th>variant</th><th>transport</th><th>coverages</th><th>errors</th><th>took mean ms</th><th>took p90 ms</th><th>wall mean ms</th><th>wall p90 ms</th></tr>");
        for c in cells {
            let g = |a: &str, b: &str| {
                c.get(a)
                    .and_then(|x| x.get(b))
                    .and_then(Value::as_f64)
                    .map(format_value)
                    .unwrap_or_default()
            };
            let t = |a: &str| {
                c.get(a)
                    .map(|v| v.to_string().trim_matches('"').to_string())
                    .unwrap_or_default()
            };
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                esc(&t("variant")), esc(&t("transport")), esc(&t("coverages")), esc(&t("errors")),
                g("took_ms", "mean"), g("took_ms", "p90"), g("wall_ms", "mean"), g("wall_ms", "p90")
            );
        }
        s.push_str("</table>");
    }
    let acc = r.get("accuracy").and_then(Value::as_array);
    if let Some(acc) = acc.filter(|a| !a.is_empty()) {
        let workload = r.get("workload").and_then(Value::as_str).unwrap_or("");
        s.push_str(&accuracy_table(acc, workload));
    }
    s
}

/// A relative error stored as a fraction (0.0044), shown in percent (0.440): the one place the
/// HTML converts it.
fn pct(x: f64) -> String {
    format!("{:.3}", x * 100.0)
}

/// The accuracy table: a row per variant, a column per check some variant makes ('-' where a
/// variant does not make it), percentile errors in percent.
fn accuracy_table(acc: &[Value], workload: &str) -> String {
    let rows: Vec<(VariantAccuracy, Vec<Check>)> = acc
        .iter()
        .filter_map(|a| serde_json::from_value::<VariantAccuracy>(a.clone()).ok())
        .map(|a| {
            let checks = a.checks_or_inferred(workload);
            (a, checks)
        })
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
                format!(" {}", row.unit)
            };
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"num\">{}{unit}</td><td class=\"num\">{}{unit}</td><td class=\"num\">{}</td><td class=\"{class}\">{}</td></tr>",
                esc(&row.label),
                row.format(row.base),
                row.format(cell.value),
                esc(&format_diff(cell)),
                esc(&super::compare::format_verdict(cell))
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
            esc(row.unit),
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
                        esc(&super::compare::format_verdict(cell))
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

pub(super) const STYLE: &str = r#"
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2329;background:#f5f6f8}
header{background:#1d2b3a;color:#fff;padding:16px 28px}
header h1{margin:0;font-size:20px} header p{margin:4px 0 0;color:#b8c4d0}
main{padding:8px 28px 40px;max-width:1280px}
h2{font-size:17px;margin:28px 0 8px} h3{font-size:14px;margin:18px 0 6px;color:#44505c}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:16px}
.card{background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:14px 16px}
.card h3{margin-top:0} .card .hint{color:#6b7680;font-size:12px;margin:4px 0 0}
.chart{position:relative;height:300px}
table{border-collapse:collapse;background:#fff;margin:6px 0;font-size:13px}
th,td{border:1px solid #dde1e6;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f4;font-weight:600} td.num{text-align:right;font-variant-numeric:tabular-nums}
table.kv th{width:130px}
td.better{color:#0a7a32;font-weight:600} td.worse{color:#b3261e;font-weight:600} td.same{color:#55606b}
.note{color:#55606b;font-size:12px;max-width:1000px}
pre{background:#fff;border:1px solid #dde1e6;padding:8px;overflow:auto;max-height:420px;font-size:12px}
section.run{margin-top:10px}
#render-status{color:#8a949e;font-size:11px;margin-top:30px}
#js-errors{color:#b3261e}
"#;

/// The page script. Draws what the data has, then reports what it drew.
const SCRIPT: &str = r#"
(function(){
  var errors = document.getElementById('js-errors');
  function fail(msg){ var li=document.createElement('li'); li.textContent=String(msg); errors.appendChild(li); }
  window.onerror = function(m, src, line){ fail(m + ' (line ' + line + ')'); };
  var origError = console.error; console.error = function(){ fail(Array.prototype.join.call(arguments,' ')); if (origError) origError.apply(console, arguments); };
  var data = JSON.parse(document.getElementById('report-data').textContent);
  // One colour per group (a run, or repeated runs selected by tags); the parts of a whole
  // (where the time went) take their colours from another palette, so no colour means both.
  var groupColours = ['#1f5fbf','#e07b00','#2a9d3a','#7b3fb8','#0e8a99','#8c5a2b','#c2188b','#56606b'];
  var partColours = ['#9ecae1','#fdd49e','#c7e9c0','#dadaeb','#f4a6a6','#d9d9d9','#fde0ef','#e6e29a'];
  function colour(r){ return groupColours[r.group % groupColours.length]; }
  var charts = [];
  function card(title, hint){
    var div = document.createElement('div'); div.className='card';
    var h = document.createElement('h3'); h.textContent = title; div.appendChild(h);
    var box = document.createElement('div'); box.className='chart'; div.appendChild(box);
    var c = document.createElement('canvas'); box.appendChild(c);
    if (hint){ var p=document.createElement('p'); p.className='hint'; p.textContent=hint; div.appendChild(p); }
    document.getElementById('charts').appendChild(div);
    return c;
  }
  // The runs of a group share a label: the legend shows it once and toggles them together.
  var legend = {
    labels:{filter:function(item, d){ return d.datasets.findIndex(function(s){ return s.label === item.text; }) === item.datasetIndex; }},
    onClick:function(e, item, l){ var ch = l.chart, show = !ch.isDatasetVisible(item.datasetIndex);
      ch.data.datasets.forEach(function(s, i){ if (s.label === item.text) ch.setDatasetVisibility(i, show); }); ch.update(); }
  };
  function draw(title, hint, config){
    var canvas = card(title, hint);
    config.options = Object.assign({animation:false, responsive:true, maintainAspectRatio:false}, config.options||{});
    config.options.plugins = Object.assign({legend:legend}, config.options.plugins||{});
    try { charts.push({name:title, chart:new Chart(canvas, config), canvas:canvas}); }
    catch(e){ fail(title + ': ' + e); }
  }
  // Measured points joined by straight segments: nothing drawn between them that was not measured.
  function line(label, c, points, extra){
    return Object.assign({label:label, data:points, borderColor:c, backgroundColor:c, borderWidth:1.5, tension:0, pointRadius:2, pointHoverRadius:4, spanGaps:false}, extra||{});
  }
  // A log axis with ticks at 1, 2 and 5 times a power of ten (only the powers over a wide
  // range), from the step below the smallest value to the step above the largest.
  function logAxis(values, title){
    var vs = values.filter(function(v){ return v > 0 && isFinite(v); });
    var axis = {type:'logarithmic', title:{display:true, text:title}};
    if (!vs.length) return axis;
    var lo = Math.min.apply(null, vs), hi = Math.max.apply(null, vs);
    var e0 = Math.floor(Math.log10(lo)) - 1, e1 = Math.ceil(Math.log10(hi)) + 1;
    var mult = (e1 - e0 > 5) ? [1] : [1, 2, 5], steps = [];
    for (var e = e0; e <= e1; e++) mult.forEach(function(m){ steps.push(Number(m + 'e' + e)); });
    var min = steps.filter(function(v){ return v <= lo; }).pop();
    var max = steps.filter(function(v){ return v >= hi && v > min; })[0];
    var ticks = steps.filter(function(v){ return v >= min && v <= max; });
    axis.min = min; axis.max = max;
    axis.afterBuildTicks = function(scale){ scale.ticks = ticks.map(function(v){ return {value:v}; }); };
    axis.ticks = {autoSkip:false, callback:function(v){ return String(Number(v.toPrecision(3))); }};
    return axis;
  }
  function mean(xs){ xs = xs.filter(function(x){ return x != null && isFinite(x); }); return xs.length ? xs.reduce(function(a,b){return a+b;}, 0) / xs.length : null; }
  // The groups in order, each with its runs.
  var runs = data.runs, groups = [];
  runs.forEach(function(r){ var g = groups.find(function(g){ return g.group === r.group; }); if (!g){ g = {group:r.group, label:r.label, runs:[]}; groups.push(g); } g.runs.push(r); });
  var withTimeline = runs.filter(function(r){ return r.timeline.length > 0; });
  if (withTimeline.length){
    var sets = [];
    withTimeline.forEach(function(r){
      var warm = r.timeline.filter(function(s){return s.warmup;});
      var lastWarm = warm.length ? warm[warm.length-1].second : -1;
      sets.push(line(r.label, colour(r), r.timeline.filter(function(s){return s.second >= lastWarm;}).map(function(s){return {x:s.second, y:s.docs};})));
      if (warm.length) sets.push(line('warm-up (not measured)', '#9aa3ab', r.timeline.filter(function(s){return s.second <= lastWarm + 1;}).map(function(s){return {x:s.second, y:s.docs};}), {borderDash:[4,4]}));
    });
    draw('Throughput over time', 'documents acknowledged per second (by completion time), one point per second; dashed grey: warm-up seconds, loaded but not in the headline or the histograms; the last second is partial', {
      type:'line',
      data:{datasets: sets},
      options:{parsing:true, scales:{x:{type:'linear', title:{display:true,text:'second'}}, y:{beginAtZero:true, title:{display:true,text:'docs/s'}}}}
    });
  }
  var pctKeys = [['p50_ms','p50'],['p90_ms','p90'],['p99_ms','p99'],['p999_ms','p99.9'],['max_ms','max']];
  var withService = runs.filter(function(r){ return r.service && r.service.count > 0; });
  var withCurve = runs.filter(function(r){ return Array.isArray(r.service_curve); });
  if (withCurve.length && withCurve.length === withService.length){
    var ps = [];
    withCurve.forEach(function(r){ r.service_curve.forEach(function(pt){ if (ps.indexOf(pt.p) < 0) ps.push(pt.p); }); });
    ps.sort(function(a,b){return a-b;});
    var curveSets = withCurve.map(function(r){ return line(r.label, colour(r), ps.map(function(p){ var pt=r.service_curve.find(function(x){return x.p===p;}); return pt? pt.ms : null; })); });
    var all = []; curveSets.forEach(function(s){ all = all.concat(s.data); });
    draw('Service time by percentile', 'bulk request service time, read from the stored HDR histogram; a percentile is drawn only when at least one sample lies above it', {
      type:'line',
      data:{labels: ps.map(function(p){return p===100?'max':'p'+p;}), datasets: curveSets},
      options:{scales:{y:logAxis(all, 'ms (log)'), x:{title:{display:true,text:'percentile'}}}}
    });
  } else if (withService.length){
    draw('Service time by percentile', 'bulk request service time (HDR histogram); a percentile is shown only with enough samples (p90: 10, p99: 100, p99.9: 1000)', {
      type:'line',
      data:{labels: pctKeys.map(function(k){return k[1];}), datasets: withService.map(function(r){ return line(r.label, colour(r), pctKeys.map(function(k){ var v=r.service[k[0]]; return v==null?null:v; })); })},
      options:{scales:{y:{beginAtZero:true, title:{display:true,text:'ms'}}, x:{title:{display:true,text:'percentile'}}}}
    });
  }
  // Bars: one per group, the mean over its runs.
  var budgetGroups = groups.map(function(g){ return {label:g.label, runs:g.runs.filter(function(r){ return Array.isArray(r.budget) && r.budget.length; })}; }).filter(function(g){ return g.runs.length; });
  if (budgetGroups.length){
    var names = budgetGroups[0].runs[0].budget.map(function(b){return b.name;});
    draw('Where the wall time went', 'share of wall time for the average client; the parts add up to 100 %' + (runs.length > groups.length ? '; a group of runs shows their mean' : ''), {
      type:'bar',
      data:{labels: budgetGroups.map(function(g){return g.label;}), datasets: names.map(function(n,i){ return {label:n, data:budgetGroups.map(function(g){ var m = mean(g.runs.map(function(r){ var b=r.budget.find(function(x){return x.name===n;}); return b? b.share*100 : 0; })); return +m.toFixed(2); }), backgroundColor:partColours[i%partColours.length], borderColor:'#ffffff', borderWidth:1}; })},
      options:{indexAxis:'y', scales:{x:{stacked:true, max:100, title:{display:true,text:'% of wall'}}, y:{stacked:true}}}
    });
  }
  var cellGroups = groups.map(function(g){ return {group:g.group, label:g.label, runs:g.runs.filter(function(r){ return r.cells.length; })}; }).filter(function(g){ return g.runs.length; });
  if (cellGroups.length){
    var cellNames = cellGroups[0].runs[0].cells.map(function(c){return c.name;});
    var cellSets = [];
    function cellMean(g, name, key){ return mean(g.runs.map(function(r){ var c = r.cells.find(function(c){ return c.name === name; }); return c ? c[key] : null; })); }
    cellGroups.forEach(function(g){
      var c = colour(g);
      cellSets.push({label:g.label+' client wall', data:cellNames.map(function(n){ return cellMean(g, n, 'wall_ms'); }), backgroundColor:c});
      cellSets.push({label:g.label+' summed took', data:cellNames.map(function(n){ return cellMean(g, n, 'took_ms'); }), backgroundColor:c+'80', borderColor:c, borderWidth:1});
    });
    draw('Query cells: client wall and summed took per coverage', 'client wall: what the caller waited for one coverage; summed took: the server time of its searches added up (with _msearch they run side by side, so the sum can exceed the wall); error-free coverages only' + (runs.length > groups.length ? '; a group of runs shows their mean' : ''), {
      type:'bar',
      data:{labels: cellNames, datasets: cellSets},
      options:{scales:{y:{beginAtZero:true, title:{display:true,text:'ms'}}}}
    });
  }
  function painted(canvas){
    try {
      var ctx = canvas.getContext('2d'); var w = canvas.width, h = canvas.height;
      if (!w || !h) return false;
      var px = ctx.getImageData(0, 0, w, h).data, n = 0;
      for (var i = 3; i < px.length; i += 4 * 7) { if (px[i] > 0) { n++; if (n > 50) return true; } }
      return false;
    } catch(e){ fail('reading pixels: ' + e); return false; }
  }
  // What was drawn, for a headless browser to check: legends, colours, lines, log ticks.
  function described(c){
    var ch = c.chart;
    var lines = ch.data.datasets.map(function(s, i){ var m = ch.getDatasetMeta(i); if (m.type !== 'line') return null;
      return {tension: m.dataset ? m.dataset.options.tension : null, point_radius: m.data.length ? m.data[0].options.radius : null}; }).filter(Boolean);
    var logTicks = Object.keys(ch.scales).filter(function(k){ return ch.scales[k].type === 'logarithmic'; })
      .map(function(k){ return ch.scales[k].ticks.map(function(t){ return t.value; }); });
    return {name:c.name, legend:(ch.legend && ch.legend.legendItems || []).map(function(it){ return it.text; }),
      colours:ch.data.datasets.map(function(s){ return String(s.backgroundColor).slice(0, 7).toLowerCase(); }),
      lines:lines, log_ticks:logTicks};
  }
  var status = document.getElementById('render-status');
  // The telemetry charts are SVG drawn on the server: drawn means laid out with a visible line.
  var svgs = Array.prototype.slice.call(document.querySelectorAll('svg.tchart'));
  var svgDrawn = svgs.filter(function(svg){ try {
      var r = svg.getBoundingClientRect(); if (!(r.width > 0 && r.height > 0)) return false;
      return Array.prototype.some.call(svg.querySelectorAll('.series'), function(p){ var b = p.getBBox(); return b.width > 0 && p.getTotalLength() > 0; });
    } catch(e){ fail('measuring an SVG chart: ' + e); return false; } });
  status.setAttribute('data-svg-charts', String(svgs.length));
  status.setAttribute('data-svg-drawn', String(svgDrawn.length));
  var drawn = charts.filter(function(c){ return painted(c.canvas); }).map(function(c){ return c.name; });
  var info = document.createElement('script'); info.type = 'application/json'; info.id = 'chart-info';
  try { info.textContent = JSON.stringify(charts.map(described)).replace(/</g, '\\u003c'); } catch(e){ fail('describing charts: ' + e); }
  status.appendChild(info);
  status.setAttribute('data-charts', String(charts.length));
  status.setAttribute('data-drawn', String(drawn.length));
  status.setAttribute('data-errors', String(errors.children.length));
  status.firstChild.nodeValue = 'charts drawn: ' + drawn.length + ' of ' + charts.length + (drawn.length ? ' (' + drawn.join(', ') + ')' : '') + '; script errors: ' + errors.children.length;
})();
"#;

/// The whole page.
pub fn render(groups: &[Group], comparison: Option<&Comparison>) -> Result<String, ReportError> {
    let runs = super::runs_of(groups);
    let title = match runs.as_slice() {
        [one] => format!(
            "searchbench: {} {} on {}",
            one.row.kind,
            one.row.workload,
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
    // What changed first, then the charts, then every figure.
    let mut body = String::new();
    if let Some(c) = comparison {
        body.push_str(&what_changed(c));
    }
    body.push_str("<h2>Charts</h2><div id=\"charts\" class=\"grid\"></div><noscript>Charts need JavaScript; every figure is also in the tables below.</noscript>");
    body.push_str(&super::telemetry_charts::section(&runs));
    if let Some(c) = comparison {
        body.push_str("<h2 id=\"comparison\">Comparison, every metric</h2>");
        body.push_str(&compare_table(c));
    }
    for l in runs {
        body.push_str(&run_section(l));
    }
    let data = script_json(&chart_data(groups))?;
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"searchbench {version}\">\
         <title>{title}</title><style>{STYLE}</style></head><body>\
         <header><h1>{title}</h1><p>{subtitle}</p></header><main>{body}\
         <ul id=\"js-errors\"></ul><div id=\"render-status\" hidden data-charts=\"0\" data-drawn=\"0\" data-errors=\"0\">charts not drawn (script did not run)</div>\
         </main>\
         <script id=\"report-data\" type=\"application/json\">{data}</script>\
         <script>{CHART_JS}</script><script>{SCRIPT}</script></body></html>\n",
        version = env!("CARGO_PKG_VERSION"),
        title = esc(&title),
        subtitle = esc(&subtitle),
    ))
}

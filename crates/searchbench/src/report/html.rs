//! One self-contained, offline HTML page for one or more runs: configuration, throughput over
//! time, service-time percentiles, attribution as stacked bars, query cells and accuracy, and
//! for several runs overlays and the comparison table.
//!
//! Charts are drawn by Chart.js (MIT, embedded from `assets/`). Tables are rendered here, so
//! the page reads fine even without JavaScript. After drawing, the page's script writes what
//! it did into `#render-status` (`data-charts`, `data-drawn`: charts with painted pixels,
//! `data-errors`), and every script error into `#js-errors`: the headless-browser test reads
//! these.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::compare::{format_diff, format_n, format_value, Comparison, Verdict};
use super::metrics::{self, steady_seconds};
use super::{utc, Loaded, ReportError};

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

/// What the page's script draws, per run.
fn chart_data(runs: &[Loaded]) -> Value {
    let runs: Vec<Value> = runs
        .iter()
        .map(|l| {
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
                "label": format!("{} {}", l.row.id, l.row.engine.as_deref().unwrap_or("")),
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
                format_value(m.value),
                esc(m.unit),
                esc(&n)
            );
        }
        s.push_str("</table>");
    }
    if let Some(q) = r.result.as_ref().and_then(metrics::query_part) {
        s.push_str(&query_tables(q));
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
        s.push_str("<h3>Accuracy</h3><table><tr><th>variant</th><th>algorithm</th><th>answers</th><th>wrong counts</th><th>wrong sums</th><th>percentiles over bound</th><th>largest pct error %</th><th>bound %</th></tr>");
        for a in acc {
            let t = |k: &str| match a.get(k) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => "-".into(),
                Some(Value::Number(n)) => n.as_f64().map(format_value).unwrap_or_default(),
                Some(v) => v.to_string(),
            };
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                esc(&t("variant")), esc(&t("algo")), esc(&t("answers")), esc(&t("count_wrong")),
                esc(&t("sum_wrong")), esc(&t("pct_over_bound")), pct(a, "pct_max_err"), pct(a, "bound")
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
    for n in &c.notes {
        let _ = write!(s, "<p class=\"note\">note: {}</p>", esc(n));
    }
    s
}

const STYLE: &str = r#"
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
  var palette = ['#2563eb','#dc2626','#16a34a','#d97706','#7c3aed','#0891b2','#db2777','#4b5563'];
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
  function draw(title, hint, config){
    var canvas = card(title, hint);
    config.options = Object.assign({animation:false, responsive:true, maintainAspectRatio:false}, config.options||{});
    try { charts.push({name:title, chart:new Chart(canvas, config), canvas:canvas}); }
    catch(e){ fail(title + ': ' + e); }
  }
  var runs = data.runs;
  var withTimeline = runs.filter(function(r){ return r.timeline.length > 0; });
  if (withTimeline.length){
    var sets = [];
    withTimeline.forEach(function(r,i){
      var warm = r.timeline.filter(function(s){return s.warmup;});
      var lastWarm = warm.length ? warm[warm.length-1].second : -1;
      sets.push({label:r.label, data:r.timeline.filter(function(s){return s.second >= lastWarm;}).map(function(s){return {x:s.second, y:s.docs};}), borderColor:palette[i%8], backgroundColor:palette[i%8], pointRadius:0, borderWidth:2, tension:0.15});
      if (warm.length) sets.push({label:r.label+' warm-up (not measured)', data:r.timeline.filter(function(s){return s.second <= lastWarm + 1;}).map(function(s){return {x:s.second, y:s.docs};}), borderColor:'#999', backgroundColor:'#999', borderDash:[4,4], pointRadius:0, borderWidth:2, tension:0.15});
    });
    draw('Throughput over time', 'documents acknowledged per second (by completion time); dashed grey: warm-up seconds, loaded but not in the headline or the histograms; the last second is partial', {
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
    draw('Service time by percentile', 'bulk request service time, read from the stored HDR histogram; a percentile is drawn only when at least one sample lies above it', {
      type:'line',
      data:{labels: ps.map(function(p){return p===100?'max':'p'+p;}), datasets: withCurve.map(function(r,i){ return {label:r.label, data:ps.map(function(p){ var pt=r.service_curve.find(function(x){return x.p===p;}); return pt? pt.ms : null; }), borderColor:palette[i%8], backgroundColor:palette[i%8], spanGaps:false, borderWidth:2}; })},
      options:{scales:{y:{type:'logarithmic', title:{display:true,text:'ms (log)'}}, x:{title:{display:true,text:'percentile'}}}}
    });
  } else if (withService.length){
    draw('Service time by percentile', 'bulk request service time (HDR histogram); a percentile is shown only with enough samples (p90: 10, p99: 100, p99.9: 1000)', {
      type:'line',
      data:{labels: pctKeys.map(function(k){return k[1];}), datasets: withService.map(function(r,i){ return {label:r.label, data:pctKeys.map(function(k){ var v=r.service[k[0]]; return v==null?null:v; }), borderColor:palette[i%8], backgroundColor:palette[i%8], spanGaps:false, borderWidth:2}; })},
      options:{scales:{y:{beginAtZero:true, title:{display:true,text:'ms'}}, x:{title:{display:true,text:'percentile'}}}}
    });
  }
  var withBudget = runs.filter(function(r){ return Array.isArray(r.budget) && r.budget.length; });
  if (withBudget.length){
    var names = withBudget[0].budget.map(function(b){return b.name;});
    draw('Where the wall time went', 'share of wall time for the average client; the rows add up to 100 %', {
      type:'bar',
      data:{labels: withBudget.map(function(r){return r.label;}), datasets: names.map(function(n,i){ return {label:n, data:withBudget.map(function(r){ var b=r.budget.find(function(x){return x.name===n;}); return b? +(b.share*100).toFixed(2) : 0; }), backgroundColor:palette[i%8]}; })},
      options:{indexAxis:'y', scales:{x:{stacked:true, max:100, title:{display:true,text:'% of wall'}}, y:{stacked:true}}}
    });
  }
  var withCells = runs.filter(function(r){ return r.cells.length; });
  if (withCells.length){
    var cellSets = [];
    withCells.forEach(function(r,i){
      cellSets.push({label:r.label+' client wall', data:r.cells.map(function(c){return c.wall_ms;}), backgroundColor:palette[i%8]});
      cellSets.push({label:r.label+' summed took', data:r.cells.map(function(c){return c.took_ms;}), backgroundColor:palette[i%8]+'80', borderColor:palette[i%8], borderWidth:1});
    });
    draw('Query cells: client wall and summed took per coverage', 'client wall: what the caller waited for one coverage; summed took: the server time of its searches added up (with _msearch they run side by side, so the sum can exceed the wall); error-free coverages only', {
      type:'bar',
      data:{labels: withCells[0].cells.map(function(c){return c.name;}), datasets: cellSets},
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
  var status = document.getElementById('render-status');
  var drawn = charts.filter(function(c){ return painted(c.canvas); }).map(function(c){ return c.name; });
  status.setAttribute('data-charts', String(charts.length));
  status.setAttribute('data-drawn', String(drawn.length));
  status.setAttribute('data-errors', String(errors.children.length));
  status.textContent = 'charts drawn: ' + drawn.length + ' of ' + charts.length + (drawn.length ? ' (' + drawn.join(', ') + ')' : '') + '; script errors: ' + errors.children.length;
})();
"#;

/// The whole page.
pub fn render(runs: &[Loaded], comparison: Option<&Comparison>) -> Result<String, ReportError> {
    let title = match runs {
        [one] => format!(
            "searchbench: {} {} on {}",
            one.row.kind,
            one.row.workload,
            one.row.engine.as_deref().unwrap_or("engine unknown")
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
    let mut body = String::new();
    if let Some(c) = comparison {
        body.push_str("<h2>Comparison</h2>");
        body.push_str(&compare_table(c));
    }
    body.push_str("<h2>Charts</h2><div id=\"charts\" class=\"grid\"></div><noscript>Charts need JavaScript; every figure is also in the tables below.</noscript>");
    for l in runs {
        body.push_str(&run_section(l));
    }
    let data = script_json(&chart_data(runs))?;
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"searchbench {version}\">\
         <title>{title}</title><style>{STYLE}</style></head><body>\
         <header><h1>{title}</h1><p>{subtitle}</p></header><main>{body}\
         <ul id=\"js-errors\"></ul><div id=\"render-status\" data-charts=\"0\" data-drawn=\"0\" data-errors=\"0\">charts not drawn (script did not run)</div>\
         </main>\
         <script id=\"report-data\" type=\"application/json\">{data}</script>\
         <script>{CHART_JS}</script><script>{SCRIPT}</script></body></html>\n",
        version = env!("CARGO_PKG_VERSION"),
        title = esc(&title),
        subtitle = esc(&subtitle),
    ))
}

/// A relative error stored as a fraction (0.0044), shown in percent (0.440): the one place the
/// HTML converts it.
fn pct(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_f64)
        .map_or_else(|| "-".into(), |x| format!("{:.3}", x * 100.0))
}

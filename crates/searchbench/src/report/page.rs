//! The one page skeleton every HTML page is rendered into: run, comparison, history and
//! matrix, sweep, saturate (and the pages still to come). One file, one style, nothing
//! fetched at view time; charts are inline SVG from [`super::chart`], so the page reads fully
//! without JavaScript.
//!
//! The page's only script checks what the browser laid out, for a headless browser (and a
//! curious reader) to read: `#render-status` carries `data-charts` (charts on the page),
//! `data-drawn` (charts whose data marks have a rendered size inside their frame) and
//! `data-errors` (script errors), and `#chart-info` each chart's description (its
//! `data-chart`) with `marks`, the data marks the browser rendered visibly.

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

/// The house style: the page, its cards and tables, and the charts.
const STYLE: &str = r#"
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2329;background:#f5f6f8}
header{background:#1d2b3a;color:#fff;padding:16px 28px}
header h1{margin:0;font-size:20px} header p{margin:4px 0 0;color:#b8c4d0}
main{padding:8px 28px 40px;max-width:1280px}
h2{font-size:17px;margin:28px 0 8px} h3{font-size:14px;margin:18px 0 6px;color:#44505c}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:16px}
figure.chart{background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:14px 16px;margin:0}
figure.chart h3{margin-top:0} figure.chart svg{display:block;width:100%;height:auto}
figure.chart svg text{font-family:system-ui,sans-serif;font-size:11px;fill:#55606b}
figure.chart .hint{color:#6b7680;font-size:12px;margin:4px 0 0}
.legend{font-size:12px;margin:4px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px}
.legend i{display:inline-block;width:18px;height:0;vertical-align:middle;margin-right:5px;border-top-width:2px}
.legend i.swatch{height:10px;border:none}
table{border-collapse:collapse;background:#fff;margin:6px 0;font-size:13px}
th,td{border:1px solid #dde1e6;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f4;font-weight:600} td.num{text-align:right;font-variant-numeric:tabular-nums}
table.kv th{width:130px}
td.better{color:#0a7a32;font-weight:600} td.worse{color:#b3261e;font-weight:600} td.same{color:#55606b}
.regression{color:#b00020}.improvement{color:#1b7f3b}.suspect{color:#b35c00;font-weight:600}
.note{color:#55606b;font-size:12px;max-width:1000px}
.answer{background:#fff;border-left:4px solid #1f6feb;padding:10px 14px;max-width:1000px}
.headline{margin-top:16px} .headline p{margin:3px 0} .headline .figures{font-size:16px}
.headline .figures b{font-size:20px} .headline .diagnosis{color:#44505c}
pre{background:#fff;border:1px solid #dde1e6;padding:8px;overflow:auto;max-height:420px;font-size:12px}
section.run{margin-top:10px}
#render-status{color:#8a949e;font-size:11px;margin-top:30px}
svg.icicle rect.frame.match{fill:#d6336c}
p.flame-search input{font:inherit;padding:2px 6px;width:18em}
#flame-matched{color:#6b7680;margin-left:8px}
#js-errors{color:#b3261e}
"#;

/// Checks what the browser rendered: every chart's data marks laid out with a size, inside
/// the chart's frame. Draws nothing.
const CHECK: &str = r#"
(function(){
  var errors = document.getElementById('js-errors');
  function fail(msg){ var li=document.createElement('li'); li.textContent=String(msg); errors.appendChild(li); }
  window.onerror = function(m, src, line){ fail(m + ' (line ' + line + ')'); };
  var status = document.getElementById('render-status');
  var figures = Array.prototype.slice.call(document.querySelectorAll('figure.chart'));
  var info = [], drawn = [];
  figures.forEach(function(f){
    var d = {};
    try { d = JSON.parse(f.getAttribute('data-chart')); } catch(e){ fail('a chart description: ' + e); }
    var svg = f.querySelector('svg'), frame = svg ? svg.getBoundingClientRect() : null;
    var inside = function(b){ return b.left >= frame.left - 1 && b.right <= frame.right + 1 && b.top >= frame.top - 1 && b.bottom <= frame.bottom + 1; };
    var marks = 0;
    if (frame && frame.width > 0 && frame.height > 0) {
      Array.prototype.forEach.call(svg.querySelectorAll('.data'), function(el){
        var b = el.getBoundingClientRect();
        if ((b.width > 0 || b.height > 0) && inside(b) && getComputedStyle(el).visibility !== 'hidden') marks++;
      });
    }
    d.marks = marks; d.width = frame ? Math.round(frame.width) : 0;
    info.push(d);
    if (marks > 0) drawn.push(d.name);
  });
  var out = document.createElement('script'); out.type = 'application/json'; out.id = 'chart-info';
  out.textContent = JSON.stringify(info).replace(/</g, '\\u003c');
  status.appendChild(out);
  status.setAttribute('data-charts', String(figures.length));
  status.setAttribute('data-drawn', String(drawn.length));
  status.setAttribute('data-errors', String(errors.children.length));
  status.firstChild.nodeValue = 'charts drawn: ' + drawn.length + ' of ' + figures.length + '; script errors: ' + errors.children.length;
})();
"#;

/// A whole page: `title` in the header and the tab, `subtitle` under it, `body` (HTML,
/// escaped by its maker) as the main part.
pub fn render(title: &str, subtitle: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"searchbench {version}\">\
         <title>{title}</title><style>{STYLE}</style></head><body>\
         <header><h1>{title}</h1><p>{subtitle}</p></header><main>{body}\
         <ul id=\"js-errors\"></ul><div id=\"render-status\" hidden data-charts=\"0\" data-drawn=\"0\" \
         data-errors=\"0\">charts not checked (script did not run)</div></main>\
         <script>{CHECK}</script></body></html>\n",
        version = env!("CARGO_PKG_VERSION"),
        title = esc(title),
        subtitle = esc(subtitle),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_escapes_its_title_and_fetches_nothing() {
        let page = render("<b>t</b>", "a & b", "<p>body</p>");
        assert!(page.contains("<h1>&lt;b&gt;t&lt;/b&gt;</h1>"));
        assert!(page.contains("<p>a &amp; b</p>"));
        assert!(page.contains("<p>body</p>"));
        assert!(!page.contains("src="), "nothing loaded from anywhere");
        assert!(page.contains("id=\"render-status\" hidden"));
    }
}

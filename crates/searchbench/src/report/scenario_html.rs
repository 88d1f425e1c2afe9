//! Inline SVG charts of the many-shards and snapshots scenarios (no script needed): the rate
//! of index creation over time, the cluster state as it grows, and the snapshot timings.

use std::fmt::Write as _;

use serde_json::Value;

use super::html::esc;

const W: f64 = 560.0;
const H: f64 = 220.0;
const PAD: f64 = 44.0;

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// A line chart of `points` (x, y) with its axis maxima labelled.
fn line_chart(title: &str, x_label: &str, y_label: &str, points: &[(f64, f64)]) -> String {
    let max_x = points.iter().map(|p| p.0).fold(0.0, f64::max).max(1e-9);
    let max_y = points.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-9);
    let sx = |x: f64| PAD + x / max_x * (W - 2.0 * PAD);
    let sy = |y: f64| H - PAD - y / max_y * (H - 2.0 * PAD);
    let path: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
        .collect();
    let mut s = format!(
        "<figure class=\"scenario-chart\"><figcaption>{}</figcaption>\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"{}\">",
        esc(title),
        esc(title)
    );
    let _ = write!(
        s,
        "<line x1=\"{PAD}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#888\"/>\
         <line x1=\"{PAD}\" y1=\"{PAD}\" x2=\"{PAD}\" y2=\"{b}\" stroke=\"#888\"/>\
         <polyline fill=\"none\" stroke=\"#3366cc\" stroke-width=\"1.5\" points=\"{}\"/>\
         <text x=\"{PAD}\" y=\"{t}\" font-size=\"11\">{}: max {}</text>\
         <text x=\"{r}\" y=\"{xl}\" font-size=\"11\" text-anchor=\"end\">{}: {}</text></svg></figure>",
        path.join(" "),
        esc(y_label),
        super::compare::format_value(max_y),
        esc(x_label),
        super::compare::format_value(max_x),
        b = H - PAD,
        r = W - PAD,
        t = PAD - 8.0,
        xl = H - PAD + 18.0,
    );
    s
}

/// Horizontal bars of (label, seconds).
fn bar_chart(title: &str, bars: &[(String, f64)]) -> String {
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max).max(1e-9);
    let row = 24.0;
    let height = PAD + row * bars.len() as f64;
    let mut s = format!(
        "<figure class=\"scenario-chart\"><figcaption>{}</figcaption>\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{height}\" role=\"img\" aria-label=\"{}\">",
        esc(title),
        esc(title)
    );
    let left = 200.0;
    for (i, (label, v)) in bars.iter().enumerate() {
        let y = 10.0 + i as f64 * row;
        let w = v / max * (W - left - 80.0);
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>\
             <rect x=\"{left}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"16\" fill=\"#3366cc\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{} s</text>",
            left - 6.0,
            y + 12.0,
            esc(label),
            y,
            left + w + 4.0,
            y + 12.0,
            super::compare::format_value(*v)
        );
    }
    s.push_str("</svg></figure>");
    s
}

/// The scenario charts of a stored result; empty for other results.
pub fn charts(result: &Value) -> String {
    if result.get("scenario").and_then(Value::as_str).is_none() {
        return String::new();
    }
    let mut s = String::from("<h3>Scenario</h3><div class=\"grid\">");
    if let Some(c) = result.get("creation") {
        let timeline = c.get("timeline").and_then(Value::as_array);
        let rate: Vec<(f64, f64)> = timeline
            .into_iter()
            .flatten()
            .filter_map(|p| Some((num(p, "second")?, num(p, "indices")?)))
            .collect();
        if !rate.is_empty() {
            s.push_str(&line_chart(
                "Index creation rate over time (indices created and filled per second)",
                "seconds",
                "indices/s",
                &rate,
            ));
        }
        let state: Vec<(f64, f64)> = c
            .get("cluster_state")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| Some((num(p, "indices")?, num(p, "bytes")? / 1e6)))
            .collect();
        if state.len() > 1 {
            s.push_str(&line_chart(
                "Cluster state size as indices are added",
                "indices",
                "MB",
                &state,
            ));
        }
    }
    if let Some(snap) = result.get("snapshots") {
        let create = snap.get("create");
        let ms = |k: &str| create.and_then(|c| num(c, k)).map(|v| v / 1000.0);
        let mut bars = Vec::new();
        for (label, v) in [
            ("create, mean", ms("mean_ms")),
            ("create, p50", ms("p50_ms")),
            ("create, p99", ms("p99_ms")),
            ("wait after the last create", num(snap, "wait_secs")),
            ("all done after the first", num(snap, "total_secs")),
        ] {
            if let Some(v) = v {
                bars.push((label.to_string(), v));
            }
        }
        if !bars.is_empty() {
            s.push_str(&bar_chart("Snapshot timings", &bars));
        }
    }
    s.push_str("</div>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_results_get_svg_charts_and_others_none() {
        let r = serde_json::json!({
            "scenario": "snapshots",
            "creation": {
                "timeline": [{"second": 0, "indices": 5}, {"second": 1, "indices": 3}],
                "cluster_state": [{"indices": 0, "bytes": 1000}, {"indices": 8, "bytes": 9000}]
            },
            "snapshots": {"create": {"mean_ms": 40.0, "p50_ms": 30.0, "p99_ms": 90.0},
                          "wait_secs": 2.5, "total_secs": 3.0}
        });
        let html = charts(&r);
        assert_eq!(html.matches("<svg").count(), 3);
        assert!(html.contains("Snapshot timings"));
        assert!(charts(&serde_json::json!({"docs_per_sec": 1.0})).is_empty());
    }
}

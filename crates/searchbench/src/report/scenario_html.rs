//! The charts of the many-shards and snapshots scenarios: the rate of index creation over
//! time, the cluster state as it grows, and the snapshot timings (drawn by [`super::chart`]).

use serde_json::Value;

use super::chart::{self, Axis, BarSeries, Bars, Line, Plot, GROUP_COLOURS};

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn line_chart(title: &str, x_label: &str, y_label: &str, points: Vec<(f64, f64)>) -> chart::Chart {
    let mut p = Plot::new(title, Axis::new(x_label), Axis::new(y_label));
    p.lines.push(Line::new(y_label, GROUP_COLOURS[0], points));
    p.into()
}

/// The scenario charts of a stored result; empty for other results.
pub fn charts(result: &Value) -> String {
    if result.get("scenario").and_then(Value::as_str).is_none() {
        return String::new();
    }
    let mut charts = Vec::new();
    if let Some(c) = result.get("creation") {
        let timeline = c.get("timeline").and_then(Value::as_array);
        let rate: Vec<(f64, f64)> = timeline
            .into_iter()
            .flatten()
            .filter_map(|p| Some((num(p, "second")?, num(p, "indices")?)))
            .collect();
        if !rate.is_empty() {
            charts.push(line_chart(
                "Index creation rate over time (indices created and filled per second)",
                "second",
                "indices/s",
                rate,
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
            charts.push(line_chart(
                "Cluster state size as indices are added",
                "indices",
                "MB",
                state,
            ));
        }
    }
    if let Some(snap) = result.get("snapshots") {
        let create = snap.get("create");
        let ms = |k: &str| create.and_then(|c| num(c, k)).map(|v| v / 1000.0);
        let mut categories = Vec::new();
        let mut values = Vec::new();
        for (label, v) in [
            ("create, mean", ms("mean_ms")),
            ("create, p50", ms("p50_ms")),
            ("create, p99", ms("p99_ms")),
            ("wait after the last create", num(snap, "wait_secs")),
            ("all done after the first", num(snap, "total_secs")),
        ] {
            if let Some(v) = v {
                categories.push(label.to_string());
                values.push(Some(v));
            }
        }
        charts.push(
            Bars {
                title: "Snapshot timings".into(),
                categories,
                series: vec![BarSeries {
                    name: "seconds".into(),
                    colour: GROUP_COLOURS[0].into(),
                    values,
                }],
                axis: Axis::new("seconds"),
                unit: " s".into(),
                ..Bars::default()
            }
            .into(),
        );
    }
    let grid = chart::grid(charts);
    if grid.is_empty() {
        grid
    } else {
        format!("<h3>Scenario</h3>{grid}")
    }
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

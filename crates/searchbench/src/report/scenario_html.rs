//! The charts of the many-shards and snapshots scenarios: the rate of index creation over
//! time, the cluster state as it grows, and the snapshot timings (drawn by [`super::chart`]).

use serde_json::Value;

use super::chart::{self, Axis, BarSeries, Bars, Line, Plot, GROUP_COLOURS};
use crate::analysis::said::Said;

fn line_chart(title: &str, x_label: &str, y_label: &str, points: Vec<(f64, f64)>) -> chart::Chart {
    let mut p = Plot::new(title, Axis::new(x_label), Axis::new(y_label));
    p.lines.push(Line::new(y_label, GROUP_COLOURS[0], points));
    p.into()
}

/// The scenario charts of a stored result; empty for other results.
pub fn charts(result: &Value) -> String {
    let said = Said::of_result(result);
    if said.scenario.is_none() {
        return String::new();
    }
    let mut charts = Vec::new();
    if let Some(c) = &said.creation {
        let rate: Vec<(f64, f64)> = c
            .timeline
            .iter()
            .map(|p| (p.second as f64, p.indices as f64))
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
            .cluster_state
            .iter()
            .map(|p| (p.indices as f64, p.bytes as f64 / 1e6))
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
    if let Some(snap) = &said.snapshots {
        let create = &snap.create;
        let mut categories = Vec::new();
        let mut values = Vec::new();
        for (label, v) in [
            ("create, mean", create.mean_ms / 1000.0),
            ("create, p50", create.p50_ms / 1000.0),
            ("create, p99", create.p99_ms / 1000.0),
            ("wait after the last create", snap.wait_secs),
            ("all done after the first", snap.total_secs),
        ] {
            categories.push(label.to_string());
            values.push(Some(v));
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

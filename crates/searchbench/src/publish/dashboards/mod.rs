//! Dashboards over what `--publish` wrote, as saved objects (NDJSON) Kibana and OpenSearch
//! Dashboards import: the charts Rally's and OSB's users build by hand on their metrics
//! store, made once. Two dashboards, one over time (a point a night) and one over engine
//! versions, each with a chart per metric (throughput beside the error rate, as field note
//! `003` asks: a faster build that fails more is not faster), change points marked; and an
//! index pattern (data view) per published index, for the apps' own views (Discover, Lens).
//!
//! The charts are Vega-Lite ([`vega`]): the only chart both apps import alike whose queries
//! are written out whole, so every aggregation a dashboard sends is one a test sends to a
//! real engine holding published runs. The apps themselves are not installable here.

use serde_json::{json, Value};

use super::{check_prefix, PublishError};

pub mod vega;

pub use vega::Over;

/// The app the saved objects are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    /// Kibana 8 (7.10 and later import them too).
    Kibana,
    /// OpenSearch Dashboards 2.
    OpenSearchDashboards,
}

impl App {
    /// The Vega-Lite the app draws with: Kibana 8 ships Vega-Lite 5, OpenSearch Dashboards 2
    /// Vega-Lite 5 as well; the specs use nothing a later minor release changed.
    pub fn vega_lite_schema(self) -> &'static str {
        match self {
            App::Kibana | App::OpenSearchDashboards => {
                "https://vega.github.io/schema/vega-lite/v5.json"
            }
        }
    }

    /// The migration versions the objects are written at: each app migrates an object from
    /// its version up on import (both apps read 7.x objects: OpenSearch Dashboards is a 7.10
    /// fork, Kibana 8 migrates 7.x exports).
    fn migration(self, kind: &str) -> Value {
        let version = match kind {
            "index-pattern" => "7.6.0",
            "dashboard" => "7.9.3",
            _ => "7.10.0",
        };
        json!({ kind: version })
    }

    /// The header an import request needs against the app's CSRF check.
    pub fn xsrf_header(self) -> &'static str {
        match self {
            App::Kibana => "kbn-xsrf: true",
            App::OpenSearchDashboards => "osd-xsrf: true",
        }
    }
}

/// The metrics charted unless told: (key, title). The throughput and error rate share a row,
/// the service times the next, GC and heap the last.
pub const DEFAULT_METRICS: [(&str, &str); 6] = [
    ("docs_per_sec", "throughput (docs/s)"),
    ("error_rate_pct", "error rate (%)"),
    ("service_p50_ms", "service time p50 (ms)"),
    ("service_p99_ms", "service time p99 (ms)"),
    (
        "telemetry.gc_ms_per_s",
        "GC time (ms per second, all nodes)",
    ),
    ("telemetry.heap_peak_mb", "heap peak (MB)"),
];

/// The published indices with the time field each is charted and filtered by.
const INDEX_PATTERNS: [(&str, &str); 7] = [
    ("runs", "started_at"),
    ("metrics", "started_at"),
    ("timeline", "at"),
    ("telemetry", "at"),
    ("tasks", "started_at"),
    ("changes", "at"),
    ("annotations", "started_at"),
];

/// Charts a dashboard row holds, of the apps' 48 columns.
const PER_ROW: usize = 2;
const PANEL_W: usize = 24;
const PANEL_H: usize = 15;

/// The most charts one export makes (per dashboard).
pub const MAX_METRICS: usize = 48;

/// What `export` made.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Export {
    #[serde(skip)]
    pub objects: Vec<Value>,
    pub dashboards: Vec<String>,
    pub visualizations: usize,
    pub index_patterns: usize,
}

impl Export {
    /// The saved objects, one JSON document a line, as the apps' import takes them.
    pub fn ndjson(&self) -> String {
        let mut out = String::new();
        for o in &self.objects {
            out.push_str(&o.to_string());
            out.push('\n');
        }
        out
    }
}

/// Refuses a metric key that is not one a stored run could have (letters, digits, `_`, `-`
/// and `.`), before it is written into a query and a title.
pub fn check_metric(key: &str) -> Result<(), PublishError> {
    let ok = !key.is_empty()
        && key.len() <= 200
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(PublishError::MetricKey(key.to_string()))
    }
}

/// The saved objects for `app` over the indices named `prefix-*`, charting `metrics` ((key,
/// title); [`DEFAULT_METRICS`] when empty). Ids are derived from the prefix and the
/// metric, so importing again replaces, and two prefixes' dashboards live side by side.
pub fn export(
    app: App,
    prefix: &str,
    metrics: &[(String, String)],
) -> Result<Export, PublishError> {
    check_prefix(prefix)?;
    let metrics: Vec<(String, String)> = if metrics.is_empty() {
        DEFAULT_METRICS
            .iter()
            .map(|(k, t)| (k.to_string(), t.to_string()))
            .collect()
    } else {
        metrics.to_vec()
    };
    if metrics.len() > MAX_METRICS {
        return Err(PublishError::TooManyMetrics(metrics.len()));
    }
    for (i, (key, _)) in metrics.iter().enumerate() {
        check_metric(key)?;
        // A chart's id is its metric's: twice would be one object written twice.
        if metrics[..i].iter().any(|(k, _)| k == key) {
            return Err(PublishError::MetricTwice(key.clone()));
        }
    }
    let mut objects = Vec::new();
    for (what, time_field) in INDEX_PATTERNS {
        let title = format!("{prefix}-{what}");
        objects.push(json!({
            "id": title,
            "type": "index-pattern",
            "attributes": {"title": title, "timeFieldName": time_field},
            "references": [],
            "migrationVersion": app.migration("index-pattern"),
        }));
    }
    let mut dashboards = Vec::new();
    let mut visualizations = 0;
    for over in [Over::Time, Over::Versions] {
        let mut panels = Vec::new();
        let mut references = Vec::new();
        for (i, (key, title)) in metrics.iter().enumerate() {
            let id = format!("{prefix}-{}-{key}", over.name());
            let spec = vega::spec(app, prefix, key, title, over);
            let vis_title = format!("{prefix}: {title} by {}", over.name());
            let vis_state = json!({
                "title": vis_title,
                "type": "vega",
                "aggs": [],
                "params": {"spec": serde_json::to_string_pretty(&spec).map_err(json_error)?},
            });
            objects.push(json!({
                "id": id,
                "type": "visualization",
                "attributes": {
                    "title": vis_title,
                    "description": format!("{key} over {}, from {prefix}-metrics, {prefix}-changes and {prefix}-annotations", over.name()),
                    "visState": vis_state.to_string(),
                    "uiStateJSON": "{}",
                    "version": 1,
                    "kibanaSavedObjectMeta": {"searchSourceJSON": json!({
                        "query": {"query": "", "language": "kuery"},
                        "filter": [],
                    }).to_string()},
                },
                "references": [],
                "migrationVersion": app.migration("visualization"),
            }));
            visualizations += 1;
            let panel = format!("panel_{i}");
            // As OpenSearch Dashboards exports a panel (no type: its reference has it), at the
            // dashboard's migration version, which Kibana migrates from.
            panels.push(json!({
                "version": "7.9.3",
                "gridData": {
                    "x": (i % PER_ROW) * PANEL_W,
                    "y": (i / PER_ROW) * PANEL_H,
                    "w": PANEL_W,
                    "h": PANEL_H,
                    "i": (i + 1).to_string(),
                },
                "panelIndex": (i + 1).to_string(),
                "embeddableConfig": {},
                "panelRefName": panel,
            }));
            references.push(json!({"name": panel, "type": "visualization", "id": id}));
        }
        let (title, from) = match over {
            Over::Time => (format!("{prefix}: nightly, over time"), "now-90d"),
            Over::Versions => (format!("{prefix}: over engine versions"), "now-5y"),
        };
        let id = format!("{prefix}-dashboard-{}", over.name());
        objects.push(json!({
            "id": id,
            "type": "dashboard",
            "attributes": {
                "title": title,
                "description": format!(
                    "searchbench's published runs ({prefix}-*): complete runs only, one line per workload and configuration; filter by workload, configuration or engine"
                ),
                "panelsJSON": Value::Array(panels).to_string(),
                "optionsJSON": json!({"useMargins": true, "hidePanelTitles": false}).to_string(),
                "version": 1,
                "timeRestore": true,
                "timeFrom": from,
                "timeTo": "now",
                "refreshInterval": {"pause": true, "value": 0},
                "kibanaSavedObjectMeta": {"searchSourceJSON": json!({
                    "query": {"query": "", "language": "kuery"},
                    "filter": [],
                }).to_string()},
            },
            "references": references,
            "migrationVersion": app.migration("dashboard"),
        }));
        dashboards.push(title);
    }
    Ok(Export {
        objects,
        dashboards,
        visualizations,
        index_patterns: INDEX_PATTERNS.len(),
    })
}

fn json_error(e: serde_json::Error) -> PublishError {
    PublishError::Refused {
        destination: "the dashboards' export".into(),
        reason: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn parsed(s: &Value) -> Value {
        serde_json::from_str(s.as_str().expect("a JSON string")).expect("JSON")
    }

    #[test]
    fn every_panel_references_a_chart_the_export_holds_and_every_chart_is_vega() {
        for app in [App::Kibana, App::OpenSearchDashboards] {
            let export = export(app, "team-a", &[]).unwrap();
            let lines: Vec<Value> = export
                .ndjson()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(lines, export.objects);
            let ids: BTreeSet<(String, String)> = lines
                .iter()
                .map(|o| {
                    (
                        o["type"].as_str().unwrap().into(),
                        o["id"].as_str().unwrap().into(),
                    )
                })
                .collect();
            assert_eq!(ids.len(), lines.len(), "ids are unique");
            let charts: Vec<&Value> = lines
                .iter()
                .filter(|o| o["type"] == "visualization")
                .collect();
            assert_eq!(charts.len(), 2 * DEFAULT_METRICS.len());
            for c in &charts {
                let state = parsed(&c["attributes"]["visState"]);
                assert_eq!(state["type"], "vega");
                let spec = parsed(&state["params"]["spec"]);
                assert_eq!(spec["$schema"], app.vega_lite_schema());
                let indices: Vec<&str> = spec["layer"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l["data"]["url"]["index"].as_str().unwrap())
                    .collect();
                assert_eq!(
                    indices,
                    ["team-a-metrics", "team-a-changes", "team-a-annotations"]
                );
            }
            let boards: Vec<&Value> = lines.iter().filter(|o| o["type"] == "dashboard").collect();
            assert_eq!(boards.len(), 2);
            for b in boards {
                let panels = parsed(&b["attributes"]["panelsJSON"]);
                let refs = b["references"].as_array().unwrap();
                assert_eq!(panels.as_array().unwrap().len(), DEFAULT_METRICS.len());
                for p in panels.as_array().unwrap() {
                    let r = refs
                        .iter()
                        .find(|r| r["name"] == p["panelRefName"])
                        .expect("each panel's reference");
                    assert!(
                        ids.contains(&("visualization".into(), r["id"].as_str().unwrap().into()))
                    );
                    // Two charts a row of the apps' 48 columns, none overlapping.
                    let g = &p["gridData"];
                    assert!(g["x"].as_u64().unwrap() + g["w"].as_u64().unwrap() <= 48);
                }
            }
            let patterns: Vec<&str> = lines
                .iter()
                .filter(|o| o["type"] == "index-pattern")
                .map(|o| o["attributes"]["title"].as_str().unwrap())
                .collect();
            assert!(patterns.contains(&"team-a-changes"), "{patterns:?}");
        }
    }

    #[test]
    fn a_bad_prefix_or_metric_is_refused_naming_it() {
        for prefix in ["", "Team", "a/../b", "a*", "-a", &"a".repeat(101)] {
            let err = export(App::Kibana, prefix, &[]).unwrap_err();
            assert!(matches!(err, PublishError::Prefix(_)), "{prefix:?}: {err}");
        }
        for key in [
            "",
            "a b",
            "x\"}",
            "k\n",
            "%dashboard_context-must_clause%",
            &"k".repeat(201),
        ] {
            let err = export(App::Kibana, "sb", &[(key.to_string(), "t".into())]).unwrap_err();
            assert!(err.to_string().contains("bad metric key"), "{key:?}: {err}");
        }
        let twice = [
            ("docs_per_sec".to_string(), "a".to_string()),
            ("docs_per_sec".into(), "b".into()),
        ];
        let err = export(App::Kibana, "sb", &twice).unwrap_err();
        assert!(err.to_string().contains("given twice"), "{err}");
        let many: Vec<(String, String)> = (0..=MAX_METRICS)
            .map(|i| (format!("m{i}"), format!("m{i}")))
            .collect();
        let err = export(App::Kibana, "sb", &many).unwrap_err();
        assert!(err.to_string().contains("at most 48"), "{err}");
        // A title is text, whatever it holds: quotes and placeholders stay inside their string.
        let odd = "\"}]} %timefilter% '''\n<script>";
        let e = export(
            App::OpenSearchDashboards,
            "sb",
            &[("docs_per_sec".into(), odd.into())],
        )
        .unwrap();
        let chart = e
            .objects
            .iter()
            .find(|o| o["type"] == "visualization")
            .unwrap();
        let spec = parsed(&parsed(&chart["attributes"]["visState"])["params"]["spec"]);
        assert_eq!(spec["title"]["text"], odd);
    }

    #[test]
    fn engines_rank_by_product_then_release_not_by_name() {
        use crate::publish::engine_rank;
        let order = [
            "elasticsearch-7.10.2",
            "elasticsearch-8.9.0",
            "elasticsearch-8.17.4",
            "opensearch-1.3.20",
            "opensearch-2.9.0",
            "opensearch-2.10.0-dist",
            "opensearch-2.19.1",
            "solr-9.0.0",
        ];
        let ranks: Vec<u64> = order
            .iter()
            .map(|e| engine_rank(Some(e)).unwrap())
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
        for odd in [
            "opensearch",
            "opensearch-x.y",
            "opensearch-1000.0.0",
            "opensearch-1.2.3.4",
            "opensearch--1",
        ] {
            assert_eq!(engine_rank(Some(odd)), None, "{odd}");
        }
        assert_eq!(engine_rank(None), None);
        // Exact as a double: an index maps it as one.
        assert!(engine_rank(Some("solr-999.999.999")).unwrap() < 1 << 53);
    }
}

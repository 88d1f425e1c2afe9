//! The dashboards `dashboards export` writes, every query their charts send sent to a real
//! engine holding published runs, as Kibana and OpenSearch Dashboards send them (the apps
//! themselves are not installable here): the dashboard's filters and time range put where
//! the placeholders stand, the answer read at the path the chart reads it from.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use reqwest::Method;
use searchbench::cluster::Target;
use searchbench::store::{RunId, State, Store, WholeRun};
use serde_json::{json, Value};

use crate::common::{self, bin, node_url, streams};
use crate::publish::{ingest, json_of, publish, unpublish};

/// One query of one chart.
pub struct Query {
    /// The chart's saved object id (`PREFIX-time-docs_per_sec`).
    pub chart: String,
    /// `points`, `changes` or `notes`.
    pub layer: &'static str,
    pub index: String,
    pub body: Value,
    /// Where the chart reads its rows in the answer (`aggregations.points.buckets`).
    pub property: String,
}

/// The saved objects `dashboards export --for app` writes, and every query of their charts.
pub fn exported(app: &str, prefix: &str, dir: &Path) -> (Vec<Value>, Vec<Query>) {
    let file = dir.join(format!("{app}.ndjson"));
    let out = bin()
        .args([
            "dashboards",
            "export",
            "--for",
            app,
            "--prefix",
            prefix,
            "--out",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let text = std::fs::read_to_string(&file).unwrap();
    let objects: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut queries = Vec::new();
    for o in objects.iter().filter(|o| o["type"] == "visualization") {
        let state: Value =
            serde_json::from_str(o["attributes"]["visState"].as_str().unwrap()).unwrap();
        let spec: Value = serde_json::from_str(state["params"]["spec"].as_str().unwrap()).unwrap();
        for (layer, name) in spec["layer"]
            .as_array()
            .unwrap()
            .iter()
            .zip(["points", "changes", "notes"])
        {
            let data = &layer["data"];
            queries.push(Query {
                chart: o["id"].as_str().unwrap().to_string(),
                layer: name,
                index: data["url"]["index"].as_str().unwrap().to_string(),
                body: data["url"]["body"].clone(),
                property: data["format"]["property"].as_str().unwrap().to_string(),
            });
        }
    }
    (objects, queries)
}

/// `body` as the app sends it: the dashboard's pinned `filters` where the filter clause's
/// placeholder stands, an empty search bar (no must clause, no must_not clause) and the time
/// range from `from_ms` to `to_ms` where `%timefilter%` stands, in the form the apps write
/// it. A placeholder left over fails.
pub fn as_sent(body: &Value, filters: &[Value], from_ms: u64, to_ms: u64) -> Value {
    let iso = |ms: u64| searchbench::deploy::rfc3339(UNIX_EPOCH + Duration::from_millis(ms));
    match body {
        Value::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                match item.as_str() {
                    Some("%dashboard_context-filter_clause%") => {
                        out.extend(filters.iter().cloned())
                    }
                    Some(
                        "%dashboard_context-must_clause%" | "%dashboard_context-must_not_clause%",
                    ) => {}
                    _ => out.push(as_sent(item, filters, from_ms, to_ms)),
                }
            }
            Value::Array(out)
        }
        Value::Object(map) if map.contains_key("%timefilter%") => {
            assert_eq!(map.len(), 1, "{body}");
            json!({"gte": iso(from_ms), "lte": iso(to_ms), "format": "strict_date_optional_time"})
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    assert!(!k.contains('%'), "a placeholder left: {k}");
                    (k.clone(), as_sent(v, filters, from_ms, to_ms))
                })
                .collect(),
        ),
        Value::String(s) => {
            assert!(!s.starts_with('%'), "a placeholder left: {s}");
            body.clone()
        }
        _ => body.clone(),
    }
}

/// Sends the query and gives the rows at its property; an error answer fails, naming it.
pub fn rows(target: &Target, q: &Query, body: &Value) -> Vec<Value> {
    let answer: Value = common::runtime()
        .block_on(target.send_json(Method::POST, &format!("/{}/_search", q.index), body))
        .unwrap_or_else(|e| panic!("{} ({}): {e}\n{body}", q.chart, q.layer));
    let mut at = &answer;
    for part in q.property.split('.') {
        at = &at[part];
    }
    at.as_array()
        .unwrap_or_else(|| panic!("{} ({}): no {} in {answer}", q.chart, q.layer, q.property))
        .clone()
}

/// Every query of the charts `app`'s export makes answers from `target` without an error,
/// and the throughput charts have points: what a fresh engine of another product is checked
/// for. The metrics the runs have, and each chart's row count, returned by chart.
pub fn every_query_answers(target: &Target, app: &str, prefix: &str) -> Vec<(String, usize)> {
    let dir = tempfile::tempdir().unwrap();
    let (_, queries) = exported(app, prefix, dir.path());
    let now = now_ms();
    let mut counts = Vec::new();
    for q in &queries {
        let n = rows(target, q, &as_sent(&q.body, &[], 0, now)).len();
        if q.layer == "points" && q.chart.ends_with("-docs_per_sec") {
            assert!(n > 0, "{}: no points", q.chart);
        }
        counts.push((format!("{} {}", q.chart, q.layer), n));
    }
    counts
}

/// What Vega drew of a chart, given the rows its queries answered.
#[derive(Debug)]
pub struct Drawn {
    pub marks: Value,
    pub x_labels: Vec<String>,
}

/// Draws `chart` of `app`'s export with Vega and Vega-Lite of the app's own releases
/// (tests/fixtures/vega, installed by bench/install-vega.sh), its layers' data the rows
/// given, as the app does once its queries answered; the SVG is kept in
/// target/tmp/dashboards/. A warning of Vega-Lite's (a sort it dropped, a field it could not
/// read) fails.
pub fn draw(objects: &[Value], app: &str, chart: &str, rows: &[Vec<Value>]) -> Drawn {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vega");
    assert!(
        fixture.join("node_modules").is_dir(),
        "Vega is not installed: run bench/install-vega.sh (Node.js and npm)"
    );
    let o = objects
        .iter()
        .find(|o| o["id"] == chart)
        .unwrap_or_else(|| panic!("no chart {chart}"));
    let state: Value = serde_json::from_str(o["attributes"]["visState"].as_str().unwrap()).unwrap();
    let spec: Value = serde_json::from_str(state["params"]["spec"].as_str().unwrap()).unwrap();
    let svgs = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboards");
    std::fs::create_dir_all(&svgs).unwrap();
    let svg = svgs.join(format!("{app}-{chart}.svg"));
    let input = json!({"vega": app, "spec": spec, "rows": rows}).to_string();
    // Never waits past a minute: coreutils' timeout stops node.
    let mut child = std::process::Command::new("timeout")
        .args(["60", "node"])
        .arg(fixture.join("render.mjs"))
        .arg(&svg)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("timeout and node (Node.js) on PATH");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{chart} ({app}): {}", streams(&out));
    let drawn: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(drawn["warnings"], json!([]), "{chart} ({app})");
    Drawn {
        marks: drawn["marks"].clone(),
        x_labels: drawn["x_labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect(),
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn query<'a>(queries: &'a [Query], chart: &str, layer: &str) -> &'a Query {
    queries
        .iter()
        .find(|q| q.chart == chart && q.layer == layer)
        .unwrap_or_else(|| panic!("no {layer} of {chart}"))
}

fn num(row: &Value, path: &str) -> f64 {
    let mut at = row;
    for part in path.split('.') {
        at = &at[part];
    }
    at.as_f64().unwrap_or_else(|| panic!("{path} in {row}"))
}

/// Twelve nights of one configuration (one engine release a night, the last six a fifth
/// slower, two runs on the fourth night, a failed run among them) and three of another, all
/// published: each chart's query gives each night's and each engine's mean, lowest and
/// highest of the complete runs, engines in release order, and the change point where it
/// is, on both axes; the dashboard's filters and time range narrow them.
#[test]
fn the_dashboards_queries_give_each_nights_runs_and_the_change_point_from_a_real_engine() {
    let prefix = "sbtest-dashboards";
    unpublish(prefix);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let source = ingest(&db, "searchbench-test-dashboards", "build=0");
    common::fresh_index("searchbench-test-dashboards", None);
    let run = WholeRun::read(&Store::open_read(&db).unwrap(), &RunId(source)).unwrap();
    let rate = run.result.as_ref().unwrap()["docs_per_sec"]
        .as_f64()
        .unwrap();
    let nights = dir.path().join("nights.db");
    let store = Store::open(&nights).unwrap();
    // Each night at 02:00 UTC, the newest yesterday.
    let today = now_ms() / 1000 / 86_400 * 86_400;
    let night_start = |i: u64| today - (12 - i) * 86_400 + 7_200;
    let mut ids = Vec::new();
    // (configuration, night, docs/s) of every complete run.
    let mut expected: Vec<(&str, u64, f64)> = Vec::new();
    let mut put = |config: &'static str, i: u64, value: f64, state: State, extra: u64| -> String {
        let mut night = run.clone();
        night.started_unix = night_start(i) + extra;
        night.finished_unix = Some(night.started_unix + 10);
        night.engine = Some(format!("opensearch-2.{i}.0"));
        night.tags = [("build".to_string(), format!("n{i:02}"))].into();
        night.state = state;
        if config == "b" {
            night.config["dashboards_test"] = "b".into();
        }
        night.result.as_mut().unwrap()["docs_per_sec"] = value.into();
        if state == State::Complete {
            expected.push((config, i, value));
        }
        let id = store.put_whole(&night, None, &[]).unwrap().0;
        ids.push(id.clone());
        id
    };
    let mut first_slow = String::new();
    for i in 0..12u64 {
        // 1 % of noise, and a fifth slower from the seventh night.
        let level = if i >= 6 { 0.8 } else { 1.0 };
        let id = put(
            "a",
            i,
            rate * level * (1.0 + 0.01 * ((i % 3) as f64 - 1.0)),
            State::Complete,
            0,
        );
        if i == 6 {
            first_slow = id;
        }
    }
    put("a", 3, rate * 1.03, State::Complete, 600);
    put("a", 8, rate * 10.0, State::Failed, 900);
    for i in 9..12u64 {
        put("b", i, rate * 0.5, State::Complete, 1_200);
    }
    // The team's note on the seventh night's build: where the level moved.
    let note = searchbench::store::NewAnnotation {
        text: "new merge policy".into(),
        tags: [("build".to_string(), "n06".to_string())].into(),
        at_unix: None,
    };
    store.annotate(&note.checked().unwrap()).unwrap();
    let named: Vec<&str> = ids.iter().map(String::as_str).collect();
    let out = publish(&nights, node_url(), prefix, &named);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    assert_eq!(
        json_of(&out)["sent"].as_array().map(Vec::len),
        Some(ids.len())
    );
    let configuration = |id: &str| {
        searchbench::analysis::configuration::Configuration::of(&store.get(id).unwrap()).id
    };
    let (config_a, config_b) = (configuration(&ids[0]), configuration(ids.last().unwrap()));
    assert_ne!(config_a, config_b);

    // Both apps' charts send the same queries.
    let (_, queries) = exported("opensearch", prefix, dir.path());
    let (_, kibana) = exported("kibana", prefix, dir.path());
    assert_eq!(queries.len(), kibana.len());
    for (o, k) in queries.iter().zip(&kibana) {
        assert_eq!((&o.chart, &o.body), (&k.chart, &k.body));
    }

    let target = common::target();
    let all_time = |q: &Query| rows(&target, q, &as_sent(&q.body, &[], 0, now_ms()));
    let series = |row: &Value| row["key"]["configuration"].as_str().unwrap().to_string();
    let mean_of = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);

    // Over time: a point a night for each configuration, the failed run left out.
    let points = all_time(query(
        &queries,
        &format!("{prefix}-time-docs_per_sec"),
        "points",
    ));
    assert_eq!(points.len(), 15, "{points:#?}");
    for p in &points {
        let config = if series(p) == config_a { "a" } else { "b" };
        assert_eq!(p["key"]["workload"], "logs");
        let night = (num(p, "key.night") as i64 / 1000 - today as i64) / 86_400 + 12;
        let values: Vec<f64> = expected
            .iter()
            .filter(|(c, i, _)| *c == config && *i as i64 == night)
            .map(|e| e.2)
            .collect();
        assert!(!values.is_empty(), "night {night} of {config}: {p}");
        assert!(
            close(num(p, "mean.value"), mean_of(&values)),
            "{p} against {values:?}"
        );
        let (low, high) = values
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
        assert!(
            close(num(p, "low.value"), low) && close(num(p, "high.value"), high),
            "{p}"
        );
        assert_eq!(p["doc_count"], values.len());
    }
    // The change point, where the new level starts: the first slow night's run.
    let changes = all_time(query(
        &queries,
        &format!("{prefix}-time-docs_per_sec"),
        "changes",
    ));
    assert_eq!(changes.len(), 1, "{changes:#?}");
    let c = &changes[0]["_source"];
    assert_eq!(c["run_id"], first_slow.as_str());
    assert_eq!(c["at"], night_start(6) * 1000);
    assert_eq!(c["configuration"], config_a.as_str());

    // Over versions: engines in release order (2.9 before 2.10, which their names reverse).
    let mut points = all_time(query(
        &queries,
        &format!("{prefix}-version-docs_per_sec"),
        "points",
    ));
    points.retain(|p| series(p) == config_a);
    assert_eq!(points.len(), 12);
    points.sort_by(|x, y| num(x, "rank.value").total_cmp(&num(y, "rank.value")));
    let engines: Vec<&str> = points
        .iter()
        .map(|p| p["key"]["engine"].as_str().unwrap())
        .collect();
    let releases: Vec<String> = (0..12).map(|i| format!("opensearch-2.{i}.0")).collect();
    assert_eq!(engines, releases);
    assert_eq!(points[3]["doc_count"], 2);
    let changes = all_time(query(
        &queries,
        &format!("{prefix}-version-docs_per_sec"),
        "changes",
    ));
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0]["_source"]["engine"], "opensearch-2.6.0");
    // The note, where the site puts it: at the first run of its build, on both axes.
    for over in ["time", "version"] {
        let notes = all_time(query(
            &queries,
            &format!("{prefix}-{over}-docs_per_sec"),
            "notes",
        ));
        assert_eq!(notes.len(), 1, "{notes:#?}");
        let n = &notes[0]["_source"];
        assert_eq!(n["text"], "new merge policy");
        assert_eq!(n["started_at"], night_start(6) * 1000);
        assert_eq!(n["engine"], "opensearch-2.6.0");
    }

    // Drawn by each app's Vega: a dot and a bar a point, a line a configuration, a dashed
    // rule at the change point, a solid one at the note; engines along the axis in release
    // order.
    let (os_objects, _) = exported("opensearch", prefix, dir.path());
    let (kb_objects, _) = exported("kibana", prefix, dir.path());
    for (app, objects) in [("opensearch", &os_objects), ("kibana", &kb_objects)] {
        for over in ["time", "version"] {
            let chart = format!("{prefix}-{over}-docs_per_sec");
            let layers: Vec<Vec<Value>> = ["points", "changes", "notes"]
                .iter()
                .map(|l| all_time(query(&queries, &chart, l)))
                .collect();
            let drawn = draw(objects, app, &chart, &layers);
            assert_eq!(drawn.marks["symbol"], 15, "{chart} ({app}): {drawn:?}");
            assert_eq!(drawn.marks["line"], 15, "{chart} ({app}): {drawn:?}");
            assert_eq!(drawn.marks["rule"], 17, "{chart} ({app}): {drawn:?}");
            if over == "version" {
                assert_eq!(drawn.x_labels, releases, "{app}");
            }
        }
    }

    // A filter pinned on the dashboard: the other configuration only, no change point.
    let only_b = [json!({"match_phrase": {"configuration": config_b}})];
    for (layer, n) in [("points", 3), ("changes", 0)] {
        let q = query(&queries, &format!("{prefix}-time-docs_per_sec"), layer);
        let got = rows(&target, q, &as_sent(&q.body, &only_b, 0, now_ms()));
        assert_eq!(got.len(), n, "{layer}: {got:#?}");
    }
    // The dashboard's time range: the last three nights.
    let q = query(&queries, &format!("{prefix}-time-docs_per_sec"), "points");
    let recent = rows(
        &target,
        q,
        &as_sent(&q.body, &[], night_start(9) * 1000, now_ms()),
    );
    assert_eq!(recent.len(), 6, "{recent:#?}");

    // Every other chart asks without an error; those whose metric the runs have show it,
    // and only those (a short ingest has no p99: too few requests).
    let counts = every_query_answers(&target, "opensearch", prefix);
    let had: Value = common::runtime()
        .block_on(target.send_json(
            Method::POST,
            &format!("/{prefix}-metrics/_search"),
            &json!({"size": 0, "aggs": {"m": {"terms": {"field": "metric", "size": 1000}}}}),
        ))
        .unwrap();
    let had: Vec<&str> = had["aggregations"]["m"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["key"].as_str().unwrap())
        .collect();
    // (GC and heap come with the node's samples: a short run may have had no collection.)
    for metric in ["docs_per_sec", "service_p50_ms", "error_rate_pct"] {
        assert!(had.contains(&metric), "{metric} not in {had:?}");
    }
    for (chart, n) in &counts {
        let Some(metric) = chart
            .strip_suffix(" points")
            .and_then(|c| c.split_once("-time-").or(c.split_once("-version-")))
            .map(|(_, m)| m)
        else {
            continue;
        };
        assert_eq!(*n > 0, had.contains(&metric), "{chart}: {n} points");
    }
    unpublish(prefix);
}

//! Differential tests of `workload::track` against the real tools: the 37 definitions in
//! `tests/fixtures/tracks` (19 Rally tracks, 18 opensearch-benchmark workloads, pinned) must
//! render to exactly what esrally and opensearch-benchmark render them to, and read into what
//! their readers read (`tests/fixtures/tracks/reference/`, made by the tools themselves with
//! `reference.py`), and `workload check` must pass on each.

use std::path::{Path, PathBuf};

use searchbench::workload::track::{render_file_at, TrackParams};
use serde_json::{json, Value};

/// The definitions: (tool folder, name). The first ten since issue 73; the rest since issue 80.
pub const DEFINITIONS: [(&str, &str); 37] = [
    ("rally", "geonames"),
    ("rally", "http_logs"),
    ("rally", "nyc_taxis"),
    ("rally", "pmc"),
    ("rally", "noaa"),
    ("rally", "big5"),
    ("osb", "big5"),
    ("osb", "nyc_taxis"),
    ("osb", "geonames"),
    ("osb", "http_logs"),
    ("rally", "so"),
    ("rally", "nested"),
    ("rally", "percolator"),
    ("rally", "geopoint"),
    ("rally", "geopointshape"),
    ("rally", "geoshape"),
    ("rally", "k8s_metrics"),
    ("rally", "sql"),
    ("rally", "eql"),
    ("rally", "joins"),
    ("rally", "cohere_vector"),
    ("rally", "openai_vector"),
    ("rally", "random_vector"),
    ("osb", "so"),
    ("osb", "nested"),
    ("osb", "percolator"),
    ("osb", "noaa"),
    ("osb", "pmc"),
    ("osb", "eventdata"),
    ("osb", "geopoint"),
    ("osb", "geopointshape"),
    ("osb", "geoshape"),
    ("osb", "clickbench"),
    ("osb", "vectorsearch"),
    ("osb", "neural_search"),
    ("osb", "treccovid_semantic_search"),
    ("osb", "noaa_semantic_search"),
];

fn tracks() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracks")
}

/// The file the tool starts from: `track.json` (Rally) or `workload.json` (OSB).
pub fn definition(tool: &str, name: &str) -> PathBuf {
    let file = if tool == "rally" {
        "track.json"
    } else {
        "workload.json"
    };
    tracks().join(tool).join(name).join(file)
}

/// What the real tool made of it.
pub fn reference(tool: &str, name: &str) -> Value {
    let path = tracks()
        .join("reference")
        .join(format!("{tool}-{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// When `reference.py` rendered the references (2026-11-26, UTC; PROVENANCE.md): Rally's
/// `now` is the clock at rendering, and http_logs counts `days_ago(now)` into its queries, so
/// the definitions are rendered here with that day's `now`.
const RENDERED_AT_UNIX: f64 = 1_795_694_400.0; // 2026-11-26T12:00:00Z

#[test]
fn the_definitions_render_to_what_the_tools_render() {
    let mut wrong = Vec::new();
    for (tool, name) in DEFINITIONS {
        if let Err(why) = renders_as_theirs(tool, name) {
            wrong.push(format!("{tool} {name}: {why}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} definitions render differently:\n{}",
        wrong.len(),
        DEFINITIONS.len(),
        wrong.join("\n")
    );
}

fn renders_as_theirs(tool: &str, name: &str) -> Result<(), String> {
    let path = definition(tool, name);
    let text = render_file_at(&path, &TrackParams::new(), Some(RENDERED_AT_UNIX))
        .map_err(|e| e.to_string())?;
    let ours: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let theirs = reference(tool, name);
    let (ours, rendered) = (by_name(ours), by_name(theirs["rendered"].clone()));
    match first_difference(&ours, &rendered, String::new()) {
        Some(at) => Err(format!(
            "rendered differently from {} at {at}",
            theirs["tool"]
        )),
        None => Ok(()),
    }
}

/// The definition with its named lists in name order: what `collect(parts="dir/*.json")` puts
/// together comes in the order of Python's `glob`, which is the directory's (unsorted, so
/// not the same on two machines); searchbench sorts. Which comes first means nothing in them:
/// operations, challenges and test procedures are found by name.
fn by_name(mut track: Value) -> Value {
    for key in ["operations", "challenges", "test_procedures"] {
        if let Some(list) = track.get_mut(key).and_then(Value::as_array_mut) {
            list.sort_by_key(|v| v["name"].as_str().unwrap_or_default().to_string());
        }
    }
    track
}

/// Where two JSON values first differ, as a path with both sides; none when equal.
pub fn first_difference(ours: &Value, theirs: &Value, at: String) -> Option<String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            // Each key once: a's, then those only b has.
            for k in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let here = format!("{at}/{k}");
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => {
                        if let Some(d) = first_difference(x, y, here) {
                            return Some(d);
                        }
                    }
                    (x, y) => return Some(format!("{here}: ours {x:?}, theirs {y:?}")),
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(d) = first_difference(x, y, format!("{at}/{i}")) {
                    return Some(d);
                }
            }
            (a.len() != b.len())
                .then(|| format!("{at}: ours has {} items, theirs {}", a.len(), b.len()))
        }
        (a, b) if a == b => None,
        // 5 and 5.0 are one number to both tools' readers.
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        (a, b) => Some(format!("{at}: ours {a}, theirs {b}")),
    }
}

/// What the tools' readers made of a definition, as `reference.py` summarises it, from ours.
fn summary(d: &searchbench::workload::track::Definition) -> Value {
    use searchbench::workload::track::model::{Resolved, Step};
    let names = |v: Vec<&String>| Value::from(v.into_iter().cloned().collect::<Vec<_>>());
    let t = &d.track;
    let task = |r: &Resolved| {
        json!({
            "name": r.name,
            "operation": r.operation_name,
            "operation-type": r.operation_type,
            "clients": r.clients,
            "warmup-iterations": r.warmup_iterations,
            "iterations": r.iterations,
            "warmup-time-period": r.warmup_time_period,
            "time-period": r.time_period,
        })
    };
    let mut corpora: Vec<Value> = Vec::new();
    for s in t.sources() {
        let doc = json!({
            "source-file": s.documents.source_file,
            "document-count": s.documents.document_count.unwrap_or(0),
            "target-index": s.target_index,
            "target-data-stream": s.target_data_stream,
            "includes-action-and-meta-data": s.includes_action_and_meta_data,
        });
        match corpora.last_mut() {
            Some(c) if c["name"] == s.corpus => c["documents"].as_array_mut().unwrap().push(doc),
            _ => corpora.push(json!({"name": s.corpus, "documents": [doc]})),
        }
    }
    json!({
        "indices": names(t.indices.iter().map(|i| &i.name).collect()),
        "data-streams": names(t.data_streams.iter().map(|i| &i.name).collect()),
        "templates": names(t.templates.iter().map(|i| &i.name).collect()),
        "composable-templates": names(t.composable_templates.iter().map(|i| &i.name).collect()),
        "component-templates": names(t.component_templates.iter().map(|i| &i.name).collect()),
        "corpora": corpora,
        "procedures": d.procedures.iter().map(|p| json!({
            "name": p.name,
            "default": p.default,
            "tasks": p.steps.iter().map(|s| match s {
                Step::One(r) => task(r),
                Step::Parallel { tasks, .. } => json!({"parallel": tasks.iter().map(task).collect::<Vec<_>>()}),
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

#[test]
fn the_definitions_read_into_what_the_tools_read() {
    let mut wrong = Vec::new();
    for (tool, name) in DEFINITIONS {
        if let Err(why) = reads_as_theirs(tool, name) {
            wrong.push(format!("{tool} {name}: {why}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} definitions read differently:\n{}",
        wrong.len(),
        DEFINITIONS.len(),
        wrong.join("\n")
    );
}

fn reads_as_theirs(tool: &str, name: &str) -> Result<(), String> {
    {
        let d = searchbench::workload::track::read(&definition(tool, name), &TrackParams::new())
            .map_err(|e| e.to_string())?;
        if d.name != name {
            return Err(format!("named {:?}", d.name));
        }
        let theirs = reference(tool, name);
        let mut ours = summary(&d);
        let mut expected = theirs["summary"].clone();
        for v in [&mut ours, &mut expected] {
            if let Some(list) = v["procedures"].as_array_mut() {
                list.sort_by_key(|p| p["name"].as_str().unwrap_or_default().to_string());
            }
        }
        if let Some(at) = first_difference(&ours, &expected, String::new()) {
            return Err(format!("read differently from {} at {at}", theirs["tool"]));
        }
        // Every index body as the tool read it (rendered with the track's parameters).
        let bodies = Value::from(serde_json::Map::from_iter(d.index_bodies.clone()));
        let theirs_bodies: serde_json::Map<String, Value> = theirs["index-bodies"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, b)| !b.is_null())
            .map(|(k, b)| (k.clone(), b.clone()))
            .collect();
        if let Some(at) = first_difference(&bodies, &Value::from(theirs_bodies), String::new()) {
            return Err(format!(
                "index bodies differ from {} at {at}",
                theirs["tool"]
            ));
        }
    }
    Ok(())
}

/// The parameters a definition is checked with: none, except where its README says it runs
/// only with a parameter file (neural_search names its index, body and corpus there).
fn check_params(tool: &str, name: &str) -> Option<PathBuf> {
    (tool == "osb" && name == "neural_search")
        .then(|| tracks().join("osb/neural_search/params/semantic_search.json"))
}

#[test]
fn the_definitions_pass_workload_check() {
    let mut wrong = Vec::new();
    for (tool, name) in DEFINITIONS {
        let path = definition(tool, name).display().to_string();
        let mut args = vec![
            "workload".to_string(),
            "check".into(),
            path,
            "--json".into(),
        ];
        if let Some(params) = check_params(tool, name) {
            args.extend(["--track-params".into(), params.display().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = crate::common::run(&args);
        if !out.status.success() {
            wrong.push(format!(
                "{tool} {name}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} definitions fail workload check:\n{}",
        wrong.len(),
        DEFINITIONS.len(),
        wrong.join("\n")
    );
}

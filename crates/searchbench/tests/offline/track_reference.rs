//! Differential tests of `workload::track` against the real tools: the ten definitions in
//! `tests/fixtures/tracks` (six Rally tracks, four opensearch-benchmark workloads, pinned) must
//! render to exactly what esrally and opensearch-benchmark render them to
//! (`tests/fixtures/tracks/reference/`, made by the tools themselves with `reference.py`).

use std::path::{Path, PathBuf};

use searchbench::workload::track::{render_file, TrackParams};
use serde_json::Value;

/// The ten definitions: (tool folder, name, file the tool reads).
pub const DEFINITIONS: [(&str, &str); 10] = [
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

#[test]
fn the_ten_definitions_render_to_what_the_tools_render() {
    for (tool, name) in DEFINITIONS {
        let path = definition(tool, name);
        let text = render_file(&path, &TrackParams::new())
            .unwrap_or_else(|e| panic!("{tool} {name}: {e}"));
        let ours: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool} {name}: not JSON: {e}"));
        let theirs = reference(tool, name);
        let (ours, rendered) = (by_name(ours), by_name(theirs["rendered"].clone()));
        if let Some(at) = first_difference(&ours, &rendered, String::new()) {
            panic!(
                "{tool} {name}: rendered differently from {} at {at}",
                theirs["tool"]
            );
        }
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

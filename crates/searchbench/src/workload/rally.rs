//! Reading an esrally `track.json` or an opensearch-benchmark `workload.json` with local
//! corpora into a [`WorkloadFile`]: the first index and its body, the first template, the
//! corpus files of that index, the bulk operation's size and clients, the search operations
//! as named queries. Their Jinja is rendered as the tools render it ([`super::track`]);
//! what the definition holds that searchbench does not run is listed as not understood
//! rather than guessed.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::file::{Corpus, WorkloadFile};
use super::json_file::{self, whole};
use super::queries_file::{Expectations, Params, UserQuery};
use super::track::template::{Renderer, TrackParams};

/// Whether the file at `path` looks like a Rally track / benchmark workload rather than a
/// searchbench workload file.
pub fn is_track(path: &Path, text: &str) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "track.json"
        || text.trim_start().starts_with("{%")
        || [
            "\"corpora\"",
            "\"schedule\"",
            "\"challenges\"",
            "\"indices\"",
        ]
        .iter()
        .any(|k| text.contains(k))
}

/// Reads a track (or benchmark workload) into a workload file, with the list of what was
/// not understood.
pub fn read(path: &Path) -> Result<(WorkloadFile, Vec<String>), String> {
    read_with(path, &TrackParams::new())
}

/// [`read`] with track parameters.
pub fn read_with(path: &Path, params: &TrackParams) -> Result<(WorkloadFile, Vec<String>), String> {
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut notes = Vec::new();
    let mut renderer = Renderer::new(params);
    let rendered = renderer.render(path).map_err(|e| e.to_string())?;
    let name = path.display().to_string();
    let Value::Object(track) = json_file::parse(&format!("{name} (after templating)"), &rendered)?
    else {
        return Err(format!("{name}: a track is a JSON object"));
    };
    let mut load = |file: &str| -> Result<Value, String> {
        let p = super::folder::inside(&dir, file, "a track file")
            .map_err(|e| format!("{name}: {e}"))?;
        let t = renderer.render(&p).map_err(|e| e.to_string())?;
        json_file::parse(&p.display().to_string(), &t)
    };
    // The index and its body.
    let indices = track
        .get("indices")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if indices.len() > 1 {
        notes.push(format!(
            "{} indices: only the first ({}) is loaded",
            indices.len(),
            indices[0]["name"]
        ));
    }
    let index = indices
        .first()
        .and_then(|i| i["name"].as_str())
        .map(str::to_string);
    let index_body = match indices.first().and_then(|i| i["body"].as_str()) {
        Some(file) => Some(load(file)?),
        None => None,
    };
    // The template.
    let mut template = None;
    for (key, legacy) in [("composable-templates", false), ("templates", true)] {
        if let Some(list) = track.get(key).and_then(Value::as_array) {
            if let (None, Some(t)) = (&template, list.first()) {
                let mut body = match t["template"].as_str() {
                    Some(file) => load(file)?,
                    None => Value::Null,
                };
                if let (Some(pattern), Value::Object(b)) = (t["index-pattern"].as_str(), &mut body)
                {
                    b.insert("index_patterns".into(), json!([pattern]));
                    if legacy {
                        b.remove("template");
                    }
                }
                template = Some(body);
            }
            if list.len() > 1 {
                notes.push(format!("{key}: only the first of {} is used", list.len()));
            }
        }
    }
    if track.contains_key("component-templates") {
        notes.push("component-templates (not put)".into());
    }
    // The corpus: the documents meant for the index (or all).
    let mut files = Vec::new();
    for corpus in track
        .get("corpora")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for doc in corpus["documents"].as_array().into_iter().flatten() {
            let target = doc["target-index"]
                .as_str()
                .or(corpus["target-index"].as_str());
            if target.is_some() && target != index.as_deref() {
                continue;
            }
            if doc["includes-action-and-meta-data"].as_bool() == Some(true) {
                notes.push(format!(
                    "{}: documents with action and meta-data lines (not supported)",
                    doc["source-file"]
                ));
                continue;
            }
            let Some(source) = doc["source-file"].as_str() else {
                continue;
            };
            super::folder::inside(&dir, source, "corpora.documents.source-file")
                .map_err(|e| format!("{name}: {e}"))?;
            match local_file(&dir, source) {
                Some(p) => files.push(p),
                None => notes.push(format!(
                    "corpus file {source} is not here (nor decompressed); download it first, \
                     searchbench reads local files only (gzip, not bz2/zst)"
                )),
            }
        }
    }
    if files.is_empty() {
        return Err(format!(
            "{name}: no local corpus file to load ({})",
            notes.join("; ")
        ));
    }
    // Operations: by name, then the schedule of the default challenge.
    let mut named: Map<String, Value> = Map::new();
    for op in track
        .get("operations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(n) = op["name"].as_str() {
            named.insert(n.to_string(), op.clone());
        }
    }
    let schedule = track
        .get("schedule")
        .and_then(Value::as_array)
        .cloned()
        .or_else(|| {
            let challenges: &[Value] = match track.get("challenges").and_then(Value::as_array) {
                Some(list) => list,
                None => std::slice::from_ref(track.get("challenge")?),
            };
            let c = challenges
                .iter()
                .find(|c| c["default"].as_bool() == Some(true))
                .or(challenges.first())?;
            c["schedule"].as_array().cloned()
        })
        .unwrap_or_default();
    let mut defaults = Map::new();
    let mut queries = Vec::new();
    for task in &schedule {
        let op = match &task["operation"] {
            Value::String(n) => match named.get(n) {
                Some(op) => op.clone(),
                None => {
                    notes.push(format!("schedule names an unknown operation {n:?}"));
                    continue;
                }
            },
            Value::Object(_) => task["operation"].clone(),
            _ if task.get("parallel").is_some() => {
                notes.push("a parallel block (tasks run one after the other here)".into());
                continue;
            }
            _ => continue,
        };
        let kind = op["operation-type"].as_str().unwrap_or("");
        let op_name = op["name"]
            .as_str()
            .or(task["name"].as_str())
            .unwrap_or(kind)
            .to_string();
        match kind {
            "bulk" => {
                // A value the track gives is taken as it is or refused, never replaced.
                let (op_fields, task_fields) = (fields(&op), fields(task));
                let field = |k: &str| format!("{name}: bulk {op_name}: {k}");
                if let Some(n) = whole(&op_fields, "bulk-size", &field("bulk-size"), 1..=u64::MAX)?
                {
                    defaults.insert("bulk_size".into(), n.into());
                }
                if let Some(n) = whole(&task_fields, "clients", &field("clients"), 1..=1024)? {
                    defaults.insert("clients".into(), n.into());
                }
                let warmup = field("warmup-time-period (seconds)");
                if let Some(s) = whole(&task_fields, "warmup-time-period", &warmup, 0..=u64::MAX)? {
                    defaults.insert("warmup".into(), format!("{s}s").into());
                }
                for k in ["ingest-percentage", "pipeline", "conflicts", "on-conflict"] {
                    if op.get(k).is_some() {
                        notes.push(format!("bulk {op_name}: {k}"));
                    }
                }
            }
            "search" | "paginated-search" => {
                let body = op["body"].clone();
                if !body.is_object() {
                    notes.push(format!("search {op_name}: no inline body"));
                    continue;
                }
                for k in ["request-params", "cache", "detailed-results", "assertions"] {
                    if op.get(k).is_some() {
                        notes.push(format!("search {op_name}: {k}"));
                    }
                }
                let iterations = format!("{name}: search {op_name}: iterations");
                let max = u64::from(u32::MAX);
                if let Some(n) = whole(&fields(task), "iterations", &iterations, 1..=max)? {
                    defaults.insert("passes".into(), n.into());
                }
                if task.get("target-throughput").is_some() {
                    notes.push(format!("search {op_name}: target-throughput (use --rate)"));
                }
                queries.push(UserQuery {
                    name: op_name,
                    body,
                    params: Params::None,
                    expect: Expectations::None,
                });
            }
            "create-index"
            | "delete-index"
            | "refresh"
            | "cluster-health"
            | "create-composable-template"
            | "delete-composable-template"
            | "create-index-template"
            | "delete-index-template" => {}
            other => notes.push(format!("operation {op_name} ({other})")),
        }
    }
    let mut seen = std::collections::HashSet::new();
    queries.retain(|q| seen.insert(q.name.clone()));
    // A parameter no file of the track read is the user's mistake, said as the tools say it.
    renderer.all_used(path).map_err(|e| e.to_string())?;
    Ok((
        WorkloadFile {
            path: path.to_path_buf(),
            name: track
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| {
                    dir.file_name()
                        .and_then(|n| n.to_str())
                        .unwrap_or("track")
                        .to_string()
                }),
            index: index.map(|i| format!("searchbench-{}", i.trim_start_matches("searchbench-"))),
            corpus: Corpus::Files {
                files,
                format: "ndjson".into(),
                csv_types: Vec::new(),
            },
            index_body,
            template,
            pipeline: None,
            queries,
            defaults,
        },
        notes,
    ))
}

/// The fields of a track's object (none when it is not one).
fn fields(v: &Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// `source` under `dir`, or its decompressed sibling (Rally unpacks `x.json.bz2` to `x.json`).
fn local_file(dir: &Path, source: &str) -> Option<PathBuf> {
    let p = dir.join(source);
    let plain = [".bz2", ".zst", ".gz"]
        .iter()
        .find_map(|ext| source.strip_suffix(ext))
        .map(|s| dir.join(s));
    let gzip_ok = source.ends_with(".gz") || !source.contains(".bz2") && !source.ends_with(".zst");
    match plain {
        Some(plain) if plain.exists() => Some(plain),
        _ if p.exists() && gzip_ok => Some(p),
        _ => None,
    }
}

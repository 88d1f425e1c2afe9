//! What searchbench runs of a track today, and what it does not: one challenge (the default,
//! or the one asked for) read from the model into a [`WorkloadFile`] (the first index and its
//! body, the first template, the local corpus files of that index, the bulk operation's size,
//! clients and warm-up, the search operations with a body as named queries), and a [`Check`]
//! saying, task by task and for the rest of the definition, what runs and what does not and
//! why. Nothing is guessed: a value the track gives is taken as it is or refused.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::model::{Procedure, Resolved, Step, Track};
use super::read::Definition;
use crate::workload::file::{Corpus, WorkloadFile};
use crate::workload::json_file::whole;
use crate::workload::queries_file::{Expectations, Params, UserQuery};

/// One line of what a track holds: whether searchbench runs it, and if not, why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Item {
    /// `task index-append (bulk)`, `index nyc_vendors`, `corpus file documents.json.bz2`, …
    pub what: String,
    pub runs: bool,
    /// How it runs, or why it does not.
    pub how: String,
}

/// What will run and what will not, before anything runs.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Check {
    /// The challenge (test procedure) run.
    pub procedure: String,
    /// What the tool calls it: `challenge` or `test procedure`.
    pub procedure_word: String,
    /// Every challenge of the track, the default first marked.
    pub procedures: Vec<(String, bool)>,
    pub items: Vec<Item>,
}

impl Check {
    fn runs(&mut self, what: impl Into<String>, how: impl Into<String>) {
        self.items.push(Item {
            what: what.into(),
            runs: true,
            how: how.into(),
        });
    }

    fn not(&mut self, what: impl Into<String>, why: impl Into<String>) {
        self.items.push(Item {
            what: what.into(),
            runs: false,
            how: why.into(),
        });
    }

    /// What does not run.
    pub fn left_out(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| !i.runs)
    }
}

/// Whether the file at `path` looks like a Rally track / benchmark workload rather than a
/// searchbench workload file.
pub fn is_track(path: &Path, text: &str) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "track.json"
        || name == "workload.json"
        || text.trim_start().starts_with("{%")
        || [
            "\"corpora\"",
            "\"schedule\"",
            "\"challenges\"",
            "\"test_procedures\"",
            "\"indices\"",
        ]
        .iter()
        .any(|k| text.contains(k))
}

/// The challenge `name`, or the default one.
pub fn procedure<'d>(d: &'d Definition, name: Option<&str>) -> Result<&'d Procedure, String> {
    let word = d.track.words().procedure();
    match name {
        Some(n) => d.procedures.iter().find(|p| p.name == n).ok_or_else(|| {
            format!(
                "{}: no {word} named {n:?}; it has {}",
                d.path.display(),
                names(d)
            )
        }),
        None => d.procedures.iter().find(|p| p.default).ok_or_else(|| {
            format!(
                "{}: no default {word}; name one of {} (--challenge)",
                d.path.display(),
                names(d)
            )
        }),
    }
}

fn names(d: &Definition) -> String {
    d.procedures
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The workload searchbench runs of the track's challenge `name` (the default when none),
/// and the check of the whole track; a track with no corpus file here to load is an error.
pub fn workload(d: &Definition, name: Option<&str>) -> Result<(WorkloadFile, Check), String> {
    let (workload, check) = build(d, name)?;
    let Corpus::Files { files, .. } = &workload.corpus else {
        return Ok((workload, check));
    };
    if files.is_empty() {
        let why: Vec<String> = check
            .left_out()
            .filter(|i| i.what.starts_with("corpus"))
            .map(|i| format!("{}: {}", i.what, i.how))
            .collect();
        return Err(format!(
            "{}: no local corpus file to load ({})",
            d.path.display(),
            why.join("; ")
        ));
    }
    Ok((workload, check))
}

/// What will run of the track's challenge `name` (the default when none) and what will not,
/// corpus files not here included.
pub fn check(d: &Definition, name: Option<&str>) -> Result<Check, String> {
    build(d, name).map(|(_, check)| check)
}

fn build(d: &Definition, name: Option<&str>) -> Result<(WorkloadFile, Check), String> {
    let track = &d.track;
    let file = d.path.display().to_string();
    let dir = d.path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let chosen = procedure(d, name)?;
    let mut check = Check {
        procedure: chosen.name.clone(),
        procedure_word: track.words().procedure().into(),
        procedures: d
            .procedures
            .iter()
            .map(|p| (p.name.clone(), p.default))
            .collect(),
        items: Vec::new(),
    };
    // The index and its body; the others are left out.
    let index = track.indices.first().map(|i| i.name.clone());
    for (i, ix) in track.indices.iter().enumerate() {
        if i == 0 {
            let how = if ix.body.is_some() {
                "created with its body"
            } else {
                "created with the engine's defaults"
            };
            check.runs(format!("index {}", ix.name), how);
        } else {
            check.not(
                format!("index {}", ix.name),
                "only the first index is loaded",
            );
        }
    }
    for ds in &track.data_streams {
        check.not(
            format!("data stream {}", ds.name),
            "data streams are not created yet",
        );
    }
    let index_body = index.as_ref().and_then(|n| d.index_bodies.get(n)).cloned();
    let template = first_template(d, &mut check);
    let files = corpus_files(track, &dir, index.as_deref(), &mut check)?;
    let mut defaults = Map::new();
    let mut queries = Vec::new();
    for step in &chosen.steps {
        if let Step::Parallel { tasks, .. } = step {
            for t in tasks {
                check.not(
                    task_label(t),
                    "in a parallel block: parallel blocks do not run yet",
                );
            }
            continue;
        }
        for t in step.tasks() {
            if index.is_none() && !track.data_streams.is_empty() && t.operation_type == "bulk" {
                check.not(
                    task_label(t),
                    "it loads data streams, which are not created yet",
                );
                continue;
            }
            task(t, &file, &mut defaults, &mut queries, &mut check)?;
        }
    }
    for p in d.procedures.iter().filter(|p| p.name != chosen.name) {
        check.not(
            format!("{} {}", check.procedure_word, p.name),
            format!("not chosen (--challenge {})", p.name),
        );
    }
    let mut seen = std::collections::HashSet::new();
    queries.retain(|q: &UserQuery| seen.insert(q.name.clone()));
    let workload = WorkloadFile {
        path: d.path.clone(),
        name: d.name.clone(),
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
    };
    Ok((workload, check))
}

/// The first composable template (else the first legacy one), as searchbench puts it; the
/// others, and component templates, are left out.
fn first_template(d: &Definition, check: &mut Check) -> Option<Value> {
    let track = &d.track;
    let mut template = None;
    let kinds = [
        (&track.composable_templates, &d.composable_templates, false),
        (&track.templates, &d.templates, true),
    ];
    for (list, bodies, legacy) in kinds {
        for t in list.iter() {
            let what = format!("template {}", t.name);
            if template.is_some() {
                check.not(what, "only the first index template is put");
                continue;
            }
            let mut body = bodies.get(&t.name).cloned().unwrap_or(Value::Null);
            if let Value::Object(b) = &mut body {
                b.insert("index_patterns".into(), json!([t.index_pattern]));
                if legacy {
                    b.remove("template");
                }
            }
            check.runs(what, format!("put for {}", t.index_pattern));
            template = Some(body);
        }
    }
    for t in &track.component_templates {
        check.not(
            format!("component template {}", t.name),
            "component templates are not put yet",
        );
    }
    template
}

/// The local files of the documents meant for `index` (or for no index in particular).
fn corpus_files(
    track: &Track,
    dir: &Path,
    index: Option<&str>,
    check: &mut Check,
) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for s in track.sources() {
        let source = &s.documents.source_file;
        let count = s
            .documents
            .document_count
            .map(|n| format!(", {n} documents"))
            .unwrap_or_default();
        let what = format!("corpus {} file {source}{count}", s.corpus);
        if s.target_index.is_some() && s.target_index.as_deref() != index {
            let to = s.target_index.as_deref().unwrap_or("?");
            check.not(what, format!("for index {to}, which is not loaded"));
            continue;
        }
        if s.target_index.is_none() && s.target_data_stream.is_some() {
            check.not(what, "for a data stream, which is not created yet");
            continue;
        }
        if s.includes_action_and_meta_data {
            check.not(what, "documents with action and meta-data lines");
            continue;
        }
        crate::workload::folder::inside(dir, source, "corpora.documents.source-file")
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        match local_file(dir, source) {
            Some(p) => {
                check.runs(what, format!("loaded from {}", p.display()));
                files.push(p);
            }
            None => check.not(
                what,
                "not here (nor decompressed): download it first; searchbench reads local \
                 files only (gzip, not bz2/zst)",
            ),
        }
    }
    Ok(files)
}

/// `task NAME (TYPE)`.
fn task_label(t: &Resolved) -> String {
    format!("task {} ({})", t.name, t.operation_type)
}

/// The operation types that searchbench's own run does: it creates (and removes) the index
/// and puts the template, waits for the cluster, refreshes.
const DONE_BY_THE_RUN: [&str; 8] = [
    "create-index",
    "delete-index",
    "refresh",
    "cluster-health",
    "create-composable-template",
    "delete-composable-template",
    "create-index-template",
    "delete-index-template",
];

/// One task of the chosen challenge: what it sets, or why it is left out.
fn task(
    t: &Resolved,
    file: &str,
    defaults: &mut Map<String, Value>,
    queries: &mut Vec<UserQuery>,
    check: &mut Check,
) -> Result<(), String> {
    let label = task_label(t);
    let params = &t.operation.params;
    let op = &t.operation_name;
    match t.operation_type.as_str() {
        "bulk" => {
            let field = |k: &str| format!("{file}: bulk {op}: {k}");
            if let Some(n) = whole(params, "bulk-size", &field("bulk-size"), 1..=u64::MAX)? {
                defaults.insert("bulk_size".into(), n.into());
            }
            if !(1..=1024).contains(&t.clients) {
                return Err(format!(
                    "{}: {} is not accepted; use a whole number from 1 to 1024",
                    field("clients"),
                    t.clients
                ));
            }
            if t.task.clients.is_some() {
                defaults.insert("clients".into(), t.clients.into());
            }
            if let Some(s) = t.warmup_time_period {
                defaults.insert("warmup".into(), format!("{s}s").into());
            }
            let mut not_applied = present(params, &["pipeline", "conflicts", "on-conflict"]);
            // ingest-percentage 100 is every document: what the load does anyway.
            let some = params.get("ingest-percentage");
            if some.is_some_and(|p| p.as_f64() != Some(100.0)) {
                not_applied.push("ingest-percentage");
            }
            let how = format!("the load, {} client(s)", t.clients);
            check.runs(label, with_not_applied(how, &not_applied));
        }
        "search" | "paginated-search" => {
            let body = params.get("body").cloned().unwrap_or(Value::Null);
            if !body.is_object() {
                let why = if params.contains_key("param-source") {
                    "its body comes from the track's Python (param-source)"
                } else {
                    "no body written in the operation"
                };
                check.not(label, why);
                return Ok(());
            }
            let max = u64::from(u32::MAX);
            if let Some(n) = t.iterations {
                if !(1..=max).contains(&n) {
                    return Err(format!(
                        "{file}: search {op}: iterations: {n} is not accepted; use a whole \
                         number from 1 to {max}"
                    ));
                }
                defaults.insert("passes".into(), n.into());
            }
            let mut not_applied = present(
                params,
                &[
                    "request-params",
                    "cache",
                    "detailed-results",
                    "assertions",
                    "pages",
                    "results-per-page",
                ],
            );
            if t.target_throughput.is_some() {
                not_applied.push("target-throughput (use --rate)");
            }
            let how = "a query of the query phase".to_string();
            check.runs(label, with_not_applied(how, &not_applied));
            queries.push(UserQuery {
                name: op.clone(),
                body,
                params: Params::None,
                expect: Expectations::None,
            });
        }
        kind if DONE_BY_THE_RUN.contains(&kind) => {
            check.runs(label, "done by searchbench's own run");
        }
        other => check.not(label, format!("operation type {other} does not run yet")),
    }
    Ok(())
}

/// Those of `keys` the operation has.
fn present<'k>(params: &Map<String, Value>, keys: &[&'k str]) -> Vec<&'k str> {
    keys.iter()
        .copied()
        .filter(|k| params.contains_key(*k))
        .collect()
}

/// `how`, and what of the task is not applied.
fn with_not_applied(how: String, not_applied: &[&str]) -> String {
    if not_applied.is_empty() {
        how
    } else {
        format!("{how}; not applied: {}", not_applied.join(", "))
    }
}

/// `source` under `dir`, or its decompressed sibling (Rally unpacks `x.json.bz2` to `x.json`).
pub fn local_file(dir: &Path, source: &str) -> Option<PathBuf> {
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

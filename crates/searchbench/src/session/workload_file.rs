//! A workload file as a run: its corpus as the job, its index body, template and pipeline as
//! the setup, its queries as the query phase; and `workload init`, which writes one from an
//! existing index.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::ingest::LoadSpec;
use super::job::{FileFormat, FilesSpec, Job};
use super::user_queries::UserQueryPhase;
use super::SessionError;
use crate::cluster::{Target, TargetError};
use crate::corpus::csv_types::CsvTypes;
use crate::corpus::LineCheck;
use crate::ingest::extras::{Pipeline, Template};
use crate::workload::file::{Corpus, WorkloadFile};
use crate::workload::WorkloadSpec;

/// What a workload file makes: the job, its generator spec, its query phase.
pub struct Resolved {
    pub job: Job,
    pub workload_spec: WorkloadSpec,
    pub queries: Option<UserQueryPhase>,
}

/// The job of `w`, into `index` when given (else the file's index, else a name from its).
pub fn job(w: &WorkloadFile, index: Option<String>) -> Result<Resolved, SessionError> {
    let index = index.or_else(|| w.index.clone());
    let (mut job, workload_spec) = match &w.corpus {
        Corpus::Files {
            files,
            format,
            csv_types,
        } => {
            let spec = FilesSpec {
                files: files.iter().map(|f| f.display().to_string()).collect(),
                format: match format.as_str() {
                    "csv" => FileFormat::Csv,
                    "ndjson" => FileFormat::Ndjson,
                    "auto" => FileFormat::Auto,
                    other => {
                        return Err(SessionError::usage(format!(
                            "{}: corpus.format {other:?}: auto, ndjson or csv",
                            w.path.display()
                        )))
                    }
                },
                workload: None,
                index: Some(index.unwrap_or_else(|| default_index(&w.name))),
                convert_dates: Vec::new(),
                // As `ingest --file` by default: brackets and UTF-8 here, the JSON by the engine.
                line_check: LineCheck::Engine,
                max_line: crate::corpus::files::DEFAULT_MAX_LINE,
                csv_types: CsvTypes::parse(csv_types).map_err(|e| {
                    SessionError::usage(format!("{}: corpus.csv_types: {e}", w.path.display()))
                })?,
                part: None,
            };
            (Job::files(&spec)?, WorkloadSpec::new(0))
        }
        Corpus::Generator { name, docs, seed } => {
            let generator = super::job::find_workload(name)?;
            let mut spec = WorkloadSpec::new(*seed);
            spec.docs = docs.or(generator.default_docs());
            (Job::generated(name, &spec, index, &[])?, spec)
        }
    };
    if let Some(body) = &w.index_body {
        job.index_body = body.clone();
        job.portable_body = false;
    }
    // A generator's own query phase needs its name; the user's queries or files take theirs.
    if !w.queries.is_empty() || matches!(w.corpus, Corpus::Files { .. }) {
        job.workload = w.name.clone();
    }
    let queries = (!w.queries.is_empty()).then(|| UserQueryPhase {
        file: w.path.display().to_string(),
        workload: w.name.clone(),
        queries: w.queries.clone(),
        passes: w
            .defaults
            .get("passes")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(3),
        // Checked when the file was read (`check_defaults`): every name is known.
        transports: w
            .defaults
            .get("transports")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|t| crate::query::Transport::parse(t.as_str()?))
                    .collect()
            })
            .unwrap_or_default(),
    });
    Ok(Resolved {
        job,
        workload_spec,
        queries,
    })
}

/// The template and pipeline of `w`, for the load.
pub fn extras(w: &WorkloadFile, load: &mut LoadSpec) -> Result<(), SessionError> {
    let file = w.path.display().to_string();
    if let Some(t) = &w.template {
        load.extras.template = Some(Template::from_value(&file, t.clone())?);
    }
    if let Some(p) = &w.pipeline {
        load.extras.pipeline = Some(Pipeline {
            file,
            body: p.clone(),
        });
    }
    Ok(())
}

/// `searchbench-<name>`, cleaned as an index name.
fn default_index(name: &str) -> String {
    let name = name
        .trim_start_matches("searchbench-")
        .replace(['/', '.'], "-");
    super::job::index_from_path(&name)
}

/// Settings an index reports that cannot be set when creating one.
const READ_ONLY_SETTINGS: [&str; 9] = [
    "uuid",
    "creation_date",
    "creation_date_string",
    "version",
    "provided_name",
    "history_uuid",
    "resize",
    "routing",
    "verified_before_close",
];

/// What `workload init` wrote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Initialised {
    pub workload_file: PathBuf,
    pub corpus_file: PathBuf,
    pub docs: usize,
    pub queries: Vec<String>,
    /// The index the workload loads into.
    pub index: String,
    /// Settings of the source left out, and why.
    pub left_out: Vec<String>,
}

/// Drops from `settings` (an index's `index` settings) what belongs to the source cluster
/// rather than to the workload, saying why for each: the replica count (a copy of a
/// three-node cluster's `1` makes a yellow index on the one node a benchmark starts; the
/// run's `--replicas` decides) and OpenSearch's default replication type (a setting
/// Elasticsearch refuses, and the default anyway).
fn portable_settings(settings: &mut Value) -> Vec<String> {
    let Value::Object(s) = settings else {
        return Vec::new();
    };
    let mut left_out = Vec::new();
    for key in ["number_of_replicas", "auto_expand_replicas"] {
        if let Some(v) = s.remove(key) {
            left_out.push(format!(
                "index.{key} ({}: the source cluster's; the run's --replicas decides)",
                v.as_str().map_or_else(|| v.to_string(), str::to_string)
            ));
        }
    }
    let default_type = s
        .get("replication")
        .and_then(|r| r.get("type"))
        .and_then(Value::as_str)
        == Some("DOCUMENT");
    if default_type {
        s.remove("replication");
        left_out.push(
            "index.replication.type (DOCUMENT: OpenSearch's default, and a setting \
             Elasticsearch refuses)"
                .into(),
        );
    }
    left_out
}

/// The index a workload made from `source` loads into: `searchbench-<source>`, with the
/// file's name in it when that says something more, and never the source index itself
/// (a run with --replace would delete it).
fn copy_index(stem: &str, source: &str) -> String {
    let bare = source.trim_start_matches("searchbench-");
    let base = if stem == bare || stem == source {
        bare.to_string()
    } else {
        format!("{stem}-{bare}")
    };
    let index = default_index(&base);
    if index == source {
        default_index(&format!("{base}-copy"))
    } else {
        index
    }
}

/// Writes a workload file at `out` from `index` on `target`: its mapping and settings (minus
/// what the engine sets itself), `sample` of its documents into a corpus file beside it, and
/// queries whose expected answers hold for that sample (match_all, a term on a keyword field,
/// a range on a date field).
pub async fn init(
    target: &Target,
    index: &str,
    out: &Path,
    sample: usize,
) -> Result<Initialised, SessionError> {
    let answer: Value = target
        .get_json(&format!("/{index}"))
        .await
        .map_err(|e| match e {
            TargetError::Status { status: 404, .. } => {
                SessionError::usage(format!("no index {index:?} on the target"))
            }
            other => other.into(),
        })?;
    // An alias answers with the index it points to.
    let (_, info) = answer
        .as_object()
        .and_then(|o| o.iter().next())
        .ok_or_else(|| SessionError::Other(format!("GET /{index}: an empty answer")))?;
    let mut mappings = info.get("mappings").cloned().unwrap_or(json!({}));
    if let Some(Value::Object(meta)) = mappings.get_mut("_meta") {
        meta.remove("created_by");
        meta.remove("tool_version");
    }
    let mut settings = info
        .pointer("/settings/index")
        .cloned()
        .unwrap_or(json!({}));
    if let Value::Object(s) = &mut settings {
        for k in READ_ONLY_SETTINGS {
            s.remove(k);
        }
    }
    let left_out = portable_settings(&mut settings);
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(SessionError::usage(format!(
            "--out {}: the folder {} does not exist; create it first or choose another",
            out.display(),
            dir.display()
        )));
    }
    let search = json!({"size": sample, "sort": ["_doc"], "query": {"match_all": {}}});
    let hits: Value = target
        .send_json(reqwest::Method::POST, &format!("/{index}/_search"), &search)
        .await?;
    let docs: Vec<Value> = hits
        .pointer("/hits/hits")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(|h| h.get("_source").cloned()).collect())
        .unwrap_or_default();
    if docs.is_empty() {
        return Err(SessionError::usage(format!(
            "index {index:?} has no documents (with _source) to sample"
        )));
    }
    let stem = out
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("workload")
        .to_string();
    let corpus_name = format!("{stem}-docs.ndjson");
    let corpus_file = dir.join(&corpus_name);
    let mut text = String::new();
    for d in &docs {
        text.push_str(&d.to_string());
        text.push('\n');
    }
    let io = |p: &Path, e: std::io::Error| SessionError::Other(format!("{}: {e}", p.display()));
    std::fs::write(&corpus_file, text).map_err(|e| io(&corpus_file, e))?;
    let queries = sample_queries(&mappings, &docs);
    let names: Vec<String> = queries.keys().cloned().collect();
    let copy = copy_index(&stem, index);
    let workload = json!({
        "name": stem,
        "index": copy,
        "corpus": {"files": [corpus_name]},
        "index_body": {"settings": {"index": settings}, "mappings": mappings},
        "queries": queries,
        "defaults": {"passes": 3},
    });
    let pretty = serde_json::to_string_pretty(&workload).unwrap_or_default() + "\n";
    std::fs::write(out, pretty).map_err(|e| io(out, e))?;
    Ok(Initialised {
        workload_file: out.to_path_buf(),
        corpus_file,
        docs: docs.len(),
        queries: names,
        index: copy,
        left_out,
    })
}

/// match_all, a term on the first keyword field and a range over a date field, each with the
/// hit count it has on `docs` (the sample is what a run of the workload loads).
fn sample_queries(mappings: &Value, docs: &[Value]) -> Map<String, Value> {
    let mut fields = Vec::new();
    collect_fields(mappings.get("properties"), "", &mut fields);
    let mut out = Map::new();
    out.insert(
        "match_all".into(),
        json!({"body": {"track_total_hits": true, "query": {"match_all": {}}}, "expect": {"hits": docs.len()}}),
    );
    let value_of = |d: &Value, path: &str| -> Option<Value> {
        crate::workload::queries_file::at_path(d, path)
            .cloned()
            .or_else(|| d.get(path).cloned())
    };
    if let Some((field, value)) = fields
        .iter()
        .filter(|(_, t)| t == "keyword")
        .find_map(|(f, _)| Some((f, value_of(docs.first()?, f).filter(Value::is_string)?)))
    {
        let hits = docs
            .iter()
            .filter(|d| match value_of(d, field) {
                Some(Value::Array(a)) => a.contains(&value),
                Some(v) => v == value,
                None => false,
            })
            .count();
        out.insert(
            format!("term_{field}"),
            json!({"body": {"track_total_hits": true, "query": {"term": {field.clone(): value}}}, "expect": {"hits": hits}}),
        );
    }
    if let Some((field, _)) = fields.iter().find(|(_, t)| t == "date") {
        let hits = docs
            .iter()
            .filter(|d| value_of(d, field).is_some_and(|v| !v.is_null()))
            .count();
        out.insert(
            format!("range_{field}"),
            json!({"body": {"track_total_hits": true, "query": {"range": {field.clone(): {"gte": "{{from_ms}}", "lt": "{{to_ms}}"}}}},
                   "params": {"time_slices": {"field": field, "slices": 1}}, "expect": {"hits": hits}}),
        );
    }
    out
}

fn collect_fields(props: Option<&Value>, prefix: &str, out: &mut Vec<(String, String)>) {
    let Some(Value::Object(p)) = props else {
        return;
    };
    for (name, f) in p {
        let path = format!("{prefix}{name}");
        if let Some(t) = f.get("type").and_then(Value::as_str) {
            out.push((path.clone(), t.to_string()));
        }
        collect_fields(f.get("properties"), &format!("{path}."), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_named_once_and_never_the_source() {
        assert_eq!(copy_index("shops", "shops"), "searchbench-shops");
        assert_eq!(copy_index("sample", "shops"), "searchbench-sample-shops");
        assert_eq!(
            copy_index("shops", "searchbench-shops"),
            "searchbench-shops-copy"
        );
        assert_eq!(copy_index("w", "searchbench-shops"), "searchbench-w-shops");
    }

    #[test]
    fn the_source_clusters_replicas_and_default_replication_are_left_out_and_said() {
        let mut s = json!({"number_of_shards": "2", "number_of_replicas": "1",
                           "replication": {"type": "DOCUMENT"}, "refresh_interval": "5s"});
        let said = portable_settings(&mut s);
        assert_eq!(
            s,
            json!({"number_of_shards": "2", "refresh_interval": "5s"})
        );
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(said[0].contains("number_of_replicas (1"), "{said:?}");
        let mut segment = json!({"replication": {"type": "SEGMENT"}});
        assert!(portable_settings(&mut segment).is_empty());
        assert_eq!(
            segment["replication"]["type"], "SEGMENT",
            "a choice is kept"
        );
    }
}

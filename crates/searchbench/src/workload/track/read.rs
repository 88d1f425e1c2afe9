//! Reading a track or benchmark workload as the tools read it: rendered ([`super::template`]),
//! parsed into the model ([`super::model`]) and checked as their readers check it, with the
//! files it names (index bodies, templates) rendered and read too. Every error names the file,
//! and where in it: the rendered line and the path of the value (`challenges[2].schedule[4].
//! clients`), since a template's output has lines of its own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::model::{ModelError, Procedure, Track};
use super::template::{Renderer, TemplateError, TrackParams};

/// A track read whole: the model, its procedures resolved, and the bodies of the files it
/// names.
#[derive(Debug, Clone)]
pub struct Definition {
    pub path: PathBuf,
    /// The tools' name for it: its folder's.
    pub name: String,
    pub track: Track,
    pub procedures: Vec<Procedure>,
    /// Each index's body (settings, mappings), by index name.
    pub index_bodies: BTreeMap<String, Value>,
    /// Each legacy, composable and component template's body, by its name.
    pub templates: BTreeMap<String, Value>,
    pub composable_templates: BTreeMap<String, Value>,
    pub component_templates: BTreeMap<String, Value>,
    /// What the tools take without a word and a reader should know: a key given twice in
    /// one object (the last kept, as Rally and opensearch-benchmark keep it), naming the
    /// file and the object's path.
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TrackError {
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error("{} (rendered, line {line}, column {column}): not valid JSON: {why} \
             (`searchbench workload render {}` prints what it rendered to)",
            file.display(), file.display())]
    Json {
        file: PathBuf,
        line: usize,
        column: usize,
        why: String,
    },
    #[error("{} (rendered, line {line}): {at}: {why}", file.display())]
    Shape {
        file: PathBuf,
        line: usize,
        at: String,
        why: String,
    },
    #[error("{}: {error}", file.display())]
    Model { file: PathBuf, error: ModelError },
}

/// Reads the track at `path` with `params`; a parameter none of its files read is an error.
pub fn read(path: &Path, params: &TrackParams) -> Result<Definition, TrackError> {
    let mut renderer = Renderer::new(params);
    let mut warnings = Vec::new();
    let text = renderer.render(path)?;
    let track: Track = parse(path, &text, &mut warnings)?;
    let model = |error: ModelError| TrackError::Model {
        file: path.to_path_buf(),
        error,
    };
    if let (false, false) = (track.indices.is_empty(), track.data_streams.is_empty()) {
        return Err(model(ModelError {
            at: "the definition".into(),
            why: "it has both indices and data-streams: the tools take one or the other".into(),
        }));
    }
    let procedures = track.procedures().map_err(model)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut body = |file: &str, inner: Option<&str>, at: String| -> Result<Value, TrackError> {
        let part = dir.join(file);
        let text = renderer.render(&part)?;
        let whole: Value = parse(&part, &text, &mut warnings)?;
        match inner {
            None => Ok(whole),
            Some(p) => p
                .split('.')
                .try_fold(&whole, |v, k| v.get(k))
                .cloned()
                .ok_or_else(|| {
                    model(ModelError {
                        at,
                        why: format!("{} has nothing at template-path {p:?}", part.display()),
                    })
                }),
        }
    };
    let mut index_bodies = BTreeMap::new();
    for (i, index) in track.indices.iter().enumerate() {
        // An empty body (`"body": "{{ index_body }}"` with no such parameter) is an index
        // with an empty one, as both tools read it: not the track's folder read as a file.
        match index.body.as_deref() {
            Some(file) if file.trim().is_empty() => {
                index_bodies.insert(index.name.clone(), Value::Object(Default::default()));
            }
            Some(file) => {
                let b = body(file, None, format!("indices[{i}]"))?;
                index_bodies.insert(index.name.clone(), b);
            }
            None => {}
        }
    }
    let mut templates = BTreeMap::new();
    for (i, t) in track.templates.iter().enumerate() {
        let b = body(&t.template, None, format!("templates[{i}]"))?;
        templates.insert(t.name.clone(), b);
    }
    let mut composable_templates = BTreeMap::new();
    for (i, t) in track.composable_templates.iter().enumerate() {
        let at = format!("composable-templates[{i}]");
        let b = body(&t.template, t.template_path.as_deref(), at)?;
        composable_templates.insert(t.name.clone(), b);
    }
    let mut component_templates = BTreeMap::new();
    for (i, t) in track.component_templates.iter().enumerate() {
        let at = format!("component-templates[{i}]");
        let b = body(&t.template, t.template_path.as_deref(), at)?;
        component_templates.insert(t.name.clone(), b);
    }
    // A parameter no file of the track read is the user's mistake, said as the tools say it.
    renderer.all_used(path)?;
    let name = path
        .canonicalize()
        .ok()
        .and_then(|p| Some(p.parent()?.file_name()?.to_str()?.to_string()))
        .unwrap_or_else(|| "track".into());
    Ok(Definition {
        path: path.to_path_buf(),
        name,
        track,
        procedures,
        index_bodies,
        templates,
        composable_templates,
        component_templates,
        warnings,
    })
}

/// `text`, rendered from `file`, as `T`: a syntax error or a value of the wrong kind names the
/// rendered line and the path of the value. A key given twice in one object is read as the
/// tools read it (the last kept) and said in `warnings`, naming the file and the object.
fn parse<T: serde::de::DeserializeOwned>(
    file: &Path,
    text: &str,
    warnings: &mut Vec<String>,
) -> Result<T, TrackError> {
    let (twice, more) = crate::workload::json_file::keys_twice(text);
    for (at, key) in &twice {
        warnings.push(format!(
            "{} (rendered): {at}: the key {key:?} is given twice; the last is kept, as Rally \
             and opensearch-benchmark keep it",
            file.display()
        ));
    }
    if more > 0 {
        warnings.push(format!(
            "{} (rendered): {more} more keys are given twice; the last of each is kept",
            file.display()
        ));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let typed = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let at = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            json_error(file, &inner)
        } else {
            TrackError::Shape {
                file: file.to_path_buf(),
                line: inner.line(),
                at,
                why: strip_position(&inner.to_string()),
            }
        }
    });
    let value = match typed {
        Ok(value) => value,
        // A field of the model given twice, which a typed reader refuses: read through a
        // value, which keeps the last as the tools do (a shape error then has no line).
        Err(TrackError::Shape { .. }) if !twice.is_empty() => {
            let value: Value = serde_json::from_str(text).map_err(|e| json_error(file, &e))?;
            return serde_path_to_error::deserialize(value).map_err(|e| TrackError::Shape {
                file: file.to_path_buf(),
                line: 0,
                at: e.path().to_string(),
                why: strip_position(&e.into_inner().to_string()),
            });
        }
        Err(e) => return Err(e),
    };
    de.end().map_err(|e| json_error(file, &e))?;
    Ok(value)
}

fn json_error(file: &Path, e: &serde_json::Error) -> TrackError {
    TrackError::Json {
        file: file.to_path_buf(),
        line: e.line(),
        column: e.column(),
        why: strip_position(&e.to_string()),
    }
}

/// serde_json's message without its own " at line L column C" (the error says where).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::track::model::{OperationRef, Step};
    use serde_json::json;

    fn track(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    fn read_one(text: &str) -> Result<Definition, TrackError> {
        let dir = track(&[("track.json", text)]);
        read(&dir.path().join("track.json"), &TrackParams::new())
    }

    const OPS: &str = r#""operations": [{"name": "load", "operation-type": "bulk", "bulk-size": 500},
        {"name": "q", "operation-type": "search", "body": {"query": {"match_all": {}}}}]"#;

    #[test]
    fn a_key_twice_in_a_track_is_warned_of_and_the_last_kept_as_the_tools_keep_it() {
        let text = r#"{"operations": [{"name": "q", "operation-type": "search",
              "body": {"query": {"match_all": {}}, "size": 1, "size": 10}}],
            "schedule": [{"operation": "q", "clients": 2, "clients": 8}]}"#;
        let d = read_one(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.track.operations[0].params["body"]["size"], 10);
        let said = d.warnings.join("\n");
        assert!(
            said.contains(
                "track.json (rendered): operations[0].body: the key \"size\" is given twice"
            ),
            "{said}"
        );
        assert!(said.contains("schedule[0]: the key \"clients\""), "{said}");
        assert_eq!(d.warnings.len(), 2, "{said}");
        let procedures = format!("{:?}", d.procedures);
        assert!(
            procedures.contains("clients: 8") || procedures.contains("clients: Some(8)"),
            "{procedures}"
        );
        // The user's own files keep the refusal.
        let e = crate::workload::json_file::parse("mine.json", r#"{"a": 1, "a": 2}"#).unwrap_err();
        assert!(e.contains("given twice"), "{e}");
    }

    #[test]
    fn a_value_of_the_wrong_kind_names_the_rendered_line_and_its_path() {
        let text = format!(
            "{{\"indices\": [{{\"name\": \"i\"}}],\n{OPS},\n\"challenges\": [{{\"name\": \"c\", \"schedule\": [\n  {{\"operation\": \"load\", \"clients\": \"8\"}}]}}]}}"
        );
        let err = read_one(&text).unwrap_err();
        let TrackError::Shape { line, at, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(at, "challenges[0].schedule[0].clients", "{err}");
        assert!(*line >= 3, "{err}");
        let text = err.to_string();
        assert!(
            text.contains("track.json (rendered, line") && text.contains("\"8\""),
            "{text}"
        );
        // Not JSON at all names line and column, and the command that shows the rendering.
        let err = read_one("{\"indices\": [\n  {\"name\": }]}").unwrap_err();
        assert!(matches!(err, TrackError::Json { line: 2, .. }), "{err}");
        assert!(err.to_string().contains("workload render"), "{err}");
    }

    #[test]
    fn what_the_tools_refuse_is_refused_naming_where() {
        let cases = [
            (
                format!("{{{OPS}, \"schedule\": [], \"challenges\": []}}"),
                "only one of",
            ),
            (format!("{{{OPS}}}"), "no 'challenge'"),
            (
                format!("{{{OPS}, \"challenges\": [{{\"name\": \"a\", \"default\": true, \"schedule\": []}}, {{\"name\": \"b\", \"default\": true, \"schedule\": []}}]}}"),
                "both the default",
            ),
            (
                format!("{{{OPS}, \"schedule\": [{{\"operation\": \"q\"}}, {{\"operation\": \"q\"}}]}}"),
                "two tasks named \"q\"",
            ),
            (
                format!("{{{OPS}, \"schedule\": [{{\"parallel\": {{\"tasks\": [{{\"parallel\": {{\"tasks\": []}}}}]}}}}]}}"),
                "schedule[0].parallel.tasks[0]: a parallel block inside",
            ),
            (
                format!("{{{OPS}, \"schedule\": [{{\"parallel\": {{\"completed-by\": \"x\", \"tasks\": [{{\"operation\": \"q\"}}]}}}}]}}"),
                "no task of the block is named \"x\"",
            ),
            (
                format!("{{{OPS}, \"schedule\": [{{\"clients\": 2}}]}}"),
                "schedule[0]: a task needs an 'operation'",
            ),
            (
                "{\"operations\": [{\"name\": \"x\"}], \"schedule\": []}".to_string(),
                "operations[0]: an operation needs its operation-type",
            ),
            (
                format!("{{\"indices\": [{{\"name\": \"i\"}}], \"data-streams\": [{{\"name\": \"d\"}}], {OPS}, \"schedule\": []}}"),
                "both indices and data-streams",
            ),
            // A period near the largest integer panicked the run ("overflow when adding
            // durations"); negative ones are not whole seconds.
            (
                format!("{{{OPS}, \"schedule\": [{{\"operation\": \"q\", \"time-period\": 18446744073709551615}}]}}"),
                "schedule[0]: time-period: 18446744073709551615 s is not accepted",
            ),
            (
                format!("{{{OPS}, \"schedule\": [{{\"parallel\": {{\"warmup-time-period\": 31536001, \"tasks\": [{{\"operation\": \"q\"}}]}}}}]}}"),
                "warmup-time-period: 31536001 s is not accepted",
            ),
            (
                format!("{{{OPS}, \"schedule\": [{{\"operation\": \"q\", \"time-period\": -5}}]}}"),
                "time-period",
            ),
            // Read through a value when a key is given twice, a shape error still names
            // its path.
            (
                format!("{{{OPS}, \"schedule\": [{{\"operation\": \"q\", \"clients\": 2, \"clients\": \"x\"}}]}}"),
                "schedule[0].clients",
            ),
            // A block's clients fewer than its tasks' would share clients in Rally and OSB.
            (
                format!("{{{OPS}, \"schedule\": [{{\"parallel\": {{\"clients\": 2, \"tasks\": [{{\"operation\": \"q\", \"clients\": 2}}, {{\"operation\": \"load\", \"clients\": 1}}]}}}}]}}"),
                "schedule[0].parallel.clients: 2 is fewer than the 3 client(s)",
            ),
        ];
        for (text, says) in cases {
            let err = read_one(&text)
                .err()
                .unwrap_or_else(|| panic!("accepted: {text}"));
            assert!(err.to_string().contains(says), "{err} (wanted {says:?})");
        }
        // A block's clients of at least its tasks' sum is what runs: accepted.
        let text = format!("{{{OPS}, \"schedule\": [{{\"parallel\": {{\"clients\": 3, \"time-period\": 31536000, \"tasks\": [{{\"operation\": \"q\", \"clients\": 2}}, {{\"operation\": \"load\"}}]}}}}]}}");
        assert!(read_one(&text).is_ok(), "{text}");
    }

    #[test]
    fn the_tools_defaults_apply_and_nothing_written_is_lost() {
        let text = format!(
            r#"{{"indices": [{{"name": "logs", "body": "index.json"}}],
 "corpora": [{{"name": "c", "base-url": "https://example.org", "documents": [
   {{"source-file": "a.json.bz2", "document-count": 10, "source-file-parts": [{{"name": "p0", "size": 1}}]}}]}}],
 "composable-templates": [{{"name": "t", "index-pattern": "logs-*", "template": "t.json", "template-path": "x.template"}}],
 {OPS},
 "my-own-key": 1,
 "schedule": [
   {{"operation": "load", "clients": 4, "tags": ["x"]}},
   {{"operation": {{"operation-type": "force-merge", "max-num-segments": 1}}}},
   {{"operation": "refresh"}},
   {{"parallel": {{"iterations": 50, "warmup-iterations": 5, "tasks": [
      {{"name": "q1", "operation": "q"}}, {{"name": "q2", "operation": "q", "iterations": 7}}]}}}}]}}"#
        );
        let dir = track(&[
            ("track.json", &text),
            (
                "index.json",
                r#"{"settings": {"index.number_of_shards": 1}}"#,
            ),
            (
                "t.json",
                r#"{"x": {"template": {"index_patterns": ["logs-*"]}}}"#,
            ),
        ]);
        let d = read(&dir.path().join("track.json"), &TrackParams::new()).unwrap();
        assert_eq!(d.track.other["my-own-key"], 1);
        assert_eq!(
            d.index_bodies["logs"],
            json!({"settings": {"index.number_of_shards": 1}})
        );
        // template-path picks the template out of its file.
        assert_eq!(
            d.composable_templates["t"],
            json!({"index_patterns": ["logs-*"]})
        );
        let sources = d.track.sources();
        assert_eq!(sources[0].target_index.as_deref(), Some("logs"));
        assert_eq!(sources[0].base_url.as_deref(), Some("https://example.org"));
        assert!(sources[0].documents.other.contains_key("source-file-parts"));
        // What a field holds is not also in `other`.
        assert!(!sources[0].documents.other.contains_key("document-count"));
        assert!(!d.track.corpora[0].other.contains_key("base-url"));
        let [p] = d.procedures.as_slice() else {
            panic!("{:?}", d.procedures)
        };
        assert!(p.default && p.name == "default");
        let names: Vec<(&str, &str, u64)> = p
            .steps
            .iter()
            .flat_map(Step::tasks)
            .map(|t| (t.name.as_str(), t.operation_type.as_str(), t.clients))
            .collect();
        assert_eq!(
            names,
            [
                ("load", "bulk", 4),
                ("force-merge", "force-merge", 1),
                ("refresh", "refresh", 1),
                ("q1", "search", 1),
                ("q2", "search", 1)
            ]
        );
        let tasks: Vec<_> = p.steps.iter().flat_map(Step::tasks).collect();
        assert_eq!(tasks[0].task.other["tags"], json!(["x"]));
        assert!(!tasks[0].task.other.contains_key("clients"));
        assert_eq!(tasks[1].operation.params["max-num-segments"], 1);
        assert!(matches!(
            tasks[1].task.operation,
            Some(OperationRef::Inline(_))
        ));
        // A parallel block's counts are its tasks' defaults; a task's own count wins.
        assert_eq!(
            (tasks[3].iterations, tasks[3].warmup_iterations),
            (Some(50), Some(5))
        );
        assert_eq!(tasks[4].iterations, Some(7));
        // A template-path that is not in the file is an error naming it.
        std::fs::write(dir.path().join("t.json"), "{}").unwrap();
        let err = read(&dir.path().join("track.json"), &TrackParams::new()).unwrap_err();
        assert!(err.to_string().contains("x.template"), "{err}");
    }
}

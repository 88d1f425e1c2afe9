//! A workload file: the user's own workload in one JSON document (corpus files or a built-in
//! generator, index body, template, pipeline, queries with expected answers, default flags).
//! Paths in it are relative to the file's folder.
//!
//! ```json
//! {
//!   "name": "shops",
//!   "index": "searchbench-shops",
//!   "corpus": {"files": ["shops.csv"], "csv_types": ["price:float"]},
//!   "index_body": {"settings": {"number_of_shards": 1}, "mappings": {"properties": {}}},
//!   "queries": {"all": {"body": {"query": {"match_all": {}}}, "expect": {"hits": 1000}}},
//!   "defaults": {"clients": 2, "bulk_size": 500, "passes": 3}
//! }
//! ```

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::queries_file::{self as custom, UserQuery};
use super::{folder, json_file};

/// Where a workload file's documents come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Corpus {
    /// The user's files (absolute, or relative to the working folder once resolved).
    Files {
        files: Vec<PathBuf>,
        /// `auto`, `ndjson` or `csv`.
        format: String,
        csv_types: Vec<String>,
    },
    /// A built-in generator.
    Generator {
        name: String,
        docs: Option<u64>,
        seed: u64,
    },
}

/// A workload file, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadFile {
    pub path: PathBuf,
    pub name: String,
    pub index: Option<String>,
    pub corpus: Corpus,
    /// `PUT /{index}` body; `None`: the generator's (or dynamic mapping / the CSV types').
    pub index_body: Option<Value>,
    pub template: Option<Value>,
    pub pipeline: Option<Value>,
    pub queries: Vec<UserQuery>,
    /// Flag values used where the command line leaves a flag at its default.
    pub defaults: Map<String, Value>,
}

/// The flags a workload file's `defaults` may set.
pub const DEFAULT_KEYS: [&str; 7] = [
    "clients",
    "bulk_size",
    "refresh_interval",
    "replicas",
    "passes",
    "transports",
    "warmup",
];

/// Checks every value of a workload's `defaults` as its flag would (type and range): a value
/// the flag would refuse is an error here too, never a default or a clamp.
pub fn check_defaults(d: &Map<String, Value>) -> Result<(), String> {
    json_file::whole(d, "clients", "defaults.clients", 1..=1024)?;
    json_file::whole(d, "bulk_size", "defaults.bulk_size", 1..=u64::MAX)?;
    json_file::whole(d, "replicas", "defaults.replicas", 0..=u64::from(u32::MAX))?;
    json_file::whole(d, "passes", "defaults.passes", 1..=u64::from(u32::MAX))?;
    if let Some(v) = d.get("refresh_interval").filter(|v| !v.is_string()) {
        return Err(format!(
            "defaults.refresh_interval: {v} is not accepted; use an engine duration such as \"30s\" or \"-1\""
        ));
    }
    if let Some(v) = d.get("warmup") {
        if v.as_str()
            .is_none_or(|s| crate::units::parse_duration(s).is_err())
        {
            return Err(format!(
                "defaults.warmup: {v} is not accepted; use a duration such as \"10s\", \"500ms\" or \"0\""
            ));
        }
    }
    if let Some(v) = d.get("transports") {
        let names = v.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
            format!("defaults.transports: {v} is not accepted; use a list such as [\"serial\", \"msearch\"]")
        })?;
        for t in names {
            if t.as_str()
                .is_none_or(|s| crate::query::Transport::parse(s).is_none())
            {
                return Err(format!(
                    "defaults.transports: {}",
                    crate::suggest::unknown(
                        "transport",
                        &t.as_str().map_or_else(|| t.to_string(), str::to_string),
                        ["serial", "msearch"]
                    )
                ));
            }
        }
    }
    Ok(())
}

fn err(path: &Path, why: impl std::fmt::Display) -> String {
    format!("{}: {why}", path.display())
}

impl WorkloadFile {
    /// Reads and checks the workload file at `path`.
    pub fn read(path: &Path) -> Result<WorkloadFile, String> {
        let Value::Object(mut o) = json_file::read(path)? else {
            return Err(err(path, "a workload file is a JSON object"));
        };
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let name = match o.remove("name") {
            Some(Value::String(s)) => s,
            None => path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("workload")
                .to_string(),
            Some(_) => return Err(err(path, "`name` must be a string")),
        };
        let index = match o.remove("index") {
            Some(Value::String(s)) => Some(s),
            None => None,
            Some(_) => return Err(err(path, "`index` must be a string")),
        };
        let corpus = corpus(path, &dir, o.remove("corpus"))?;
        let mut part = |key: &str| {
            o.remove(key)
                .map(|v| object_or_file(path, &dir, key, v))
                .transpose()
        };
        let mut index_body = part("index_body")?;
        for key in ["mappings", "settings"] {
            if let Some(v) = part(key)? {
                let body = index_body.get_or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(b) = body {
                    if b.contains_key(key) {
                        return Err(err(
                            path,
                            format!(
                                "`{key}` is given twice: in `index_body` and on its own; keep one"
                            ),
                        ));
                    }
                    b.insert(key.to_string(), v);
                }
            }
        }
        let template = part("template")?;
        let pipeline = part("pipeline")?;
        let queries = match o.remove("queries") {
            None => Vec::new(),
            Some(Value::String(file)) => {
                let file = folder::inside(&dir, &file, "queries").map_err(|e| err(path, e))?;
                custom::read(&file).map_err(|e| e.to_string())?
            }
            Some(v) => custom::parse(
                &format!("{} (queries)", path.display()),
                &serde_json::to_string(&v).unwrap_or_default(),
            )
            .map_err(|e| e.to_string())?,
        };
        let defaults = match o.remove("defaults") {
            None => Map::new(),
            Some(Value::Object(d)) => d,
            Some(_) => return Err(err(path, "`defaults` must be an object")),
        };
        if let Some(k) = defaults
            .keys()
            .find(|k| !DEFAULT_KEYS.contains(&k.as_str()))
        {
            return Err(err(
                path,
                format!(
                    "defaults: unknown flag {k:?} (known: {})",
                    DEFAULT_KEYS.join(", ")
                ),
            ));
        }
        check_defaults(&defaults).map_err(|e| err(path, e))?;
        if let Some(k) = o.keys().next() {
            return Err(err(
                path,
                format!(
                    "unknown key {k:?} (known: name, index, corpus, index_body, mappings, \
                     settings, template, pipeline, queries, defaults)"
                ),
            ));
        }
        Ok(WorkloadFile {
            path: path.to_path_buf(),
            name,
            index,
            corpus,
            index_body,
            template,
            pipeline,
            queries,
            defaults,
        })
    }
}

/// A part of the index setup given inline (an object) or as the name of a JSON file beside
/// the workload file (as Rally tracks name their index bodies): never a string sent to the
/// engine as it is.
fn object_or_file(path: &Path, dir: &Path, key: &str, v: Value) -> Result<Value, String> {
    match v {
        Value::Object(_) => Ok(v),
        Value::String(file) => {
            let file = folder::inside(dir, &file, key).map_err(|e| err(path, e))?;
            json_file::read_object(&file, &format!("`{key}` of {}", path.display()))
                .map(Value::Object)
        }
        other => Err(err(
            path,
            format!(
                "`{key}` must be an object, or the name of a JSON file beside the workload \
                 file, not {}",
                json_file::kind(&other)
            ),
        )),
    }
}

fn corpus(path: &Path, dir: &Path, v: Option<Value>) -> Result<Corpus, String> {
    let Some(Value::Object(c)) = v else {
        return Err(err(
            path,
            "`corpus` is needed: {\"files\": [...]} or {\"generator\": \"logs\", \"docs\": N}",
        ));
    };
    if let Some(files) = c.get("files") {
        let list = match files {
            Value::String(f) => vec![f.clone()],
            Value::Array(a) => a
                .iter()
                .map(|f| f.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| err(path, "corpus.files: a list of paths"))?,
            _ => return Err(err(path, "corpus.files: a list of paths")),
        };
        if list.is_empty() {
            return Err(err(path, "corpus.files is empty"));
        }
        let bad_types = || err(path, "corpus.csv_types: [\"col:type\", ...]");
        let csv_types = match c.get("csv_types") {
            None => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|t| t.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(bad_types)?,
            Some(Value::String(s)) => s.split(',').map(str::to_string).collect(),
            Some(_) => return Err(bad_types()),
        };
        let format = match c.get("format") {
            None => "auto".to_string(),
            Some(Value::String(f)) => f.clone(),
            Some(v) => {
                return Err(err(
                    path,
                    format!(
                        "corpus.format: {v} is not accepted; use \"auto\", \"ndjson\" or \"csv\""
                    ),
                ))
            }
        };
        let files = list
            .iter()
            .map(|f| folder::inside(dir, f, "corpus.files").map_err(|e| err(path, e)))
            .collect::<Result<_, _>>()?;
        return Ok(Corpus::Files {
            files,
            format,
            csv_types,
        });
    }
    match c.get("generator").and_then(Value::as_str) {
        Some(name) => Ok(Corpus::Generator {
            name: name.to_string(),
            docs: json_file::whole(&c, "docs", "corpus.docs", 1..=u64::MAX)
                .map_err(|e| err(path, e))?,
            seed: json_file::whole(&c, "seed", "corpus.seed", 0..=u64::MAX)
                .map_err(|e| err(path, e))?
                .unwrap_or(1),
        }),
        None => Err(err(
            path,
            "corpus: give \"files\" or \"generator\" (logs, cluster-metrics, transactions)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_example_reads() {
        let readme = include_str!("../../../../README.md");
        let start = readme
            .find("```json\n{\n  \"name\": \"shops\"")
            .expect("the README's workload-file example")
            + "```json\n".len();
        let end = start + readme[start..].find("```").expect("its end");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("shops.json");
        std::fs::write(&p, &readme[start..end]).unwrap();
        let w = WorkloadFile::read(&p).unwrap();
        assert_eq!(w.queries.len(), 3);
        assert!(w.template.is_some() && w.pipeline.is_some());
    }

    #[test]
    fn reads_a_workload_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.json");
        std::fs::write(
            &p,
            r#"{"corpus": {"files": ["d.ndjson"]}, "mappings": {"properties": {"a": {"type": "float"}}},
                "queries": {"all": {"body": {}, "expect": {"hits": 3}}}, "defaults": {"clients": 1}}"#,
        )
        .unwrap();
        let w = WorkloadFile::read(&p).unwrap();
        assert_eq!(w.name, "w");
        assert_eq!(
            w.index_body.unwrap()["mappings"]["properties"]["a"]["type"],
            "float"
        );
        assert_eq!(w.queries.len(), 1);
        match w.corpus {
            Corpus::Files { files, .. } => assert_eq!(files[0], dir.path().join("d.ndjson")),
            other => panic!("{other:?}"),
        }
        std::fs::write(&p, r#"{"corpus": {"generator": "logs"}, "defualts": {}}"#).unwrap();
        let e = WorkloadFile::read(&p).unwrap_err();
        assert!(e.contains("defualts"), "{e}");
    }

    #[test]
    fn a_part_named_by_a_string_is_read_from_its_file_and_a_key_twice_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.json");
        std::fs::write(
            dir.path().join("m.json"),
            r#"{"properties": {"a": {"type": "float"}}}"#,
        )
        .unwrap();
        let write = |text: &str| std::fs::write(&p, text).unwrap();
        write(
            r#"{"corpus": {"generator": "logs"}, "mappings": "m.json", "settings": {"number_of_shards": 2}}"#,
        );
        let w = WorkloadFile::read(&p).unwrap();
        let body = w.index_body.unwrap();
        assert_eq!(body["mappings"]["properties"]["a"]["type"], "float");
        assert_eq!(body["settings"]["number_of_shards"], 2);
        for (text, needle) in [
            (
                r#"{"corpus": {"generator": "logs"}, "mappings": "nope.json"}"#,
                "nope.json",
            ),
            (
                r#"{"corpus": {"generator": "logs"}, "mappings": 3}"#,
                "`mappings` must be an object",
            ),
            (
                r#"{"corpus": {"generator": "logs"}, "pipeline": "../m.json"}"#,
                "pipeline",
            ),
            (
                r#"{"corpus": {"generator": "logs"}, "index_body": {"mappings": {}}, "mappings": {}}"#,
                "`mappings` is given twice",
            ),
            (
                "{\"corpus\": {\"generator\": \"logs\"},\n \"index\": \"a\",\n \"index\": \"b\"}",
                "w.json:3:",
            ),
            (
                r#"{"corpus": {"generator": "logs"}, "queries": {"q": {"body": {}}, "q": {"body": {"size": 0}}}}"#,
                "\"q\" is given twice",
            ),
        ] {
            write(text);
            let e = WorkloadFile::read(&p).unwrap_err();
            assert!(e.contains(needle), "{needle:?} not in {e}");
        }
    }
}

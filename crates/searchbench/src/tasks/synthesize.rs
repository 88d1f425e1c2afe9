//! `--synthesize`: each corpus file a track's bulks would load that is not here is made from
//! its target's mapping (the index's body, or the index templates that match a data stream)
//! and a sample of its documents when one is here — the track's 1,000-document sample
//! (`documents-1k.json.bz2`), else the first documents of a download cut short
//! (`documents.json.bz2.tmp`, `.part`) — with the document count the track declares (1,000 in
//! test mode). The files are kept in the cache, known by what they are made from, and reused.
//! A run on them is marked synthesized (see [`Synthesized`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::plan::{self, Invalid, PlanSpec, StandIn, TEST_MODE_DOCUMENTS};
use crate::cancel::Cancel;
use crate::corpus::synth::{self, mapping::Field, Model, SampleRead};
use crate::workload::track::{model, Definition};

/// What a file is known by beyond its inputs: raised when the model or the way it writes
/// changes, so a file made before is made again rather than reused.
const MODEL_VERSION: u32 = 1;

/// The endings a download cut short is left with (esrally and opensearch-benchmark download to
/// `<file>.tmp`; browsers and some tools to `<file>.part`).
const PARTIAL: [&str; 2] = [".tmp", ".part"];

/// A corpus file to synthesize: what it stands in for, what it is made from and where it goes.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub corpus: String,
    /// The `source-file` it stands in for.
    pub file: String,
    /// The index or data stream its documents go to, whose mapping it follows.
    pub target: String,
    pub documents: u64,
    pub seed: u64,
    pub sample: Option<SampleOf>,
    /// Where it is kept: the cache's `synthesized/<corpus>-<key>/<file>`.
    pub path: PathBuf,
    fields: Vec<Field>,
}

/// The sample a file is learned from.
#[derive(Debug, Clone)]
pub struct SampleOf {
    pub path: PathBuf,
    /// The first documents of a download cut short.
    pub partial: bool,
    docs: Vec<Map<String, Value>>,
}

/// What a run keeps of each synthesized file (in its configuration, so a run on a synthesized
/// corpus is another configuration than one on the real corpus, and in its result).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct Synthesized {
    pub corpus: String,
    pub file: String,
    pub documents: u64,
    /// The sample's file name, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<String>,
    pub sample_docs: usize,
    pub seed: u64,
}

/// Why a file cannot be synthesized, or was not.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("stopped (Ctrl-C) while synthesizing {0}: nothing of it is kept")]
    Interrupted(String),
}

impl From<Invalid> for SynthError {
    fn from(e: Invalid) -> Self {
        SynthError::Invalid(e.0)
    }
}

impl Wanted {
    /// What the run keeps of it.
    pub fn record(&self) -> Synthesized {
        Synthesized {
            corpus: self.corpus.clone(),
            file: self.file.clone(),
            documents: self.documents,
            sample: self.sample.as_ref().map(|s| {
                s.path.file_name().map_or_else(
                    || s.path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                )
            }),
            sample_docs: self.sample.as_ref().map_or(0, |s| s.docs.len()),
            seed: self.seed,
        }
    }

    /// The stream its documents are drawn from: the seed and the file's name, so the files of
    /// one corpus (http_logs has seven of one mapping) hold different documents.
    pub fn stream(&self) -> u64 {
        crate::rng::fnv1a([&self.seed.to_le_bytes()[..], self.file.as_bytes()])
    }

    /// What it is made from, in a phrase.
    pub fn about(&self) -> String {
        match &self.sample {
            Some(s) => format!(
                "the mapping of {} and {} documents of {}{}",
                self.target,
                s.docs.len(),
                s.path.display(),
                if s.partial {
                    " (a download cut short)"
                } else {
                    ""
                }
            ),
            None => format!("the mapping of {} alone (no sample here)", self.target),
        }
    }

    /// The plan's stand-in for the file.
    pub fn stand_in(&self) -> StandIn {
        StandIn {
            corpus: self.corpus.clone(),
            file: self.file.clone(),
            path: self.path.clone(),
            documents: self.documents,
            about: self.about(),
        }
    }
}

/// The files to synthesize for `absent` (the plan's `(corpus, source-file)` not here), kept
/// under `cache`; each file's target mapping read, its sample found and read, its key taken.
/// What cannot be synthesized is refused naming the corpus and file: a target with no mapping
/// in the track, a mapping type it cannot write, no document count outside test mode.
pub fn wanted(
    d: &Definition,
    spec: &PlanSpec,
    absent: &[(String, String)],
    seed: u64,
    cache: &Path,
) -> Result<Vec<Wanted>, SynthError> {
    let mut out = Vec::new();
    for s in d.track.sources() {
        let key = (s.corpus.clone(), s.documents.source_file.clone());
        if !absent.contains(&key)
            || out
                .iter()
                .any(|w: &Wanted| (&w.corpus, &w.file) == (&key.0, &key.1))
        {
            continue;
        }
        let what = format!("corpus {} file {}", s.corpus, s.documents.source_file);
        let refuse =
            |why: String| SynthError::Invalid(format!("{}: {what}: {why}", d.path.display()));
        let (target, data_stream) = match (&s.target_index, &s.target_data_stream) {
            (Some(index), _) => (index.clone(), false),
            (None, Some(stream)) => (stream.clone(), true),
            (None, None) => d.track.only_target().ok_or_else(|| {
                refuse("it names no index or data stream to follow the mapping of".into())
            })?,
        };
        let body = body_for(d, &target, data_stream).ok_or_else(|| {
            refuse(format!(
                "the track gives no mapping for {target} (no index body, no index template \
                 that matches it): there is nothing to synthesize it from"
            ))
        })?;
        let fields = synth::mapping::fields(&body)
            .map_err(|e| refuse(format!("the mapping of {target}: {e}")))?;
        let documents = match (s.documents.document_count, spec.test_mode) {
            (Some(n), true) => n.min(TEST_MODE_DOCUMENTS),
            (None, true) => TEST_MODE_DOCUMENTS,
            (Some(n), false) => n,
            (None, false) => {
                return Err(refuse(
                    "it declares no document-count, so there is no telling how many documents \
                     to make (--test-mode makes 1,000)"
                        .into(),
                ))
            }
        };
        if documents == 0 {
            return Err(refuse(
                "its document-count is 0: there is nothing to make".into(),
            ));
        }
        let sample = sample_of(&s, d, spec)?;
        let inputs = format!(
            "{MODEL_VERSION}\n{}\n{}\n{seed}\n{documents}\n{}",
            s.documents.source_file,
            serde_json::to_string(&body).unwrap_or_default(),
            sample.as_ref().map_or(0, |(_, hash)| *hash)
        );
        let key = crate::rng::fnv1a([inputs.as_bytes()]);
        let name = Path::new(&s.documents.source_file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "documents.json".into());
        // Plain NDJSON, whatever the real file's compression.
        let name = [".bz2", ".zst", ".gz", ".zip"]
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .unwrap_or(&name)
            .to_string();
        // The corpus's name in the folder's, for a reader: only its plain characters.
        let plain: String = s
            .corpus
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let folder = format!("{plain}-{key:016x}");
        out.push(Wanted {
            corpus: s.corpus.clone(),
            file: s.documents.source_file.clone(),
            target,
            documents,
            seed,
            sample: sample.map(|(s, _)| s),
            path: cache.join("synthesized").join(folder).join(name),
            fields,
        });
    }
    Ok(out)
}

/// The sample of entry `s` that is here: its 1,000-document sample, else a download of it cut
/// short; with the hash of what was read.
fn sample_of(
    s: &model::Source,
    d: &Definition,
    spec: &PlanSpec,
) -> Result<Option<(SampleOf, u64)>, SynthError> {
    let file = &s.documents.source_file;
    let mut candidates = vec![(plan::one_k_name(file), false)];
    for end in PARTIAL {
        candidates.push((format!("{file}{end}"), true));
        if let Some(stem) = [".bz2", ".zst", ".gz"]
            .iter()
            .find_map(|e| file.strip_suffix(e))
        {
            candidates.push((format!("{stem}{end}"), true));
        }
    }
    for (name, partial) in candidates {
        let Some(path) = plan::find_named(s, d, spec, &name)? else {
            continue;
        };
        let how = SampleRead {
            partial,
            with_meta: s.includes_action_and_meta_data,
        };
        let read = synth::read_sample_with(&path, how)
            .map_err(|e| SynthError::Invalid(format!("the sample {}: {e}", path.display())))?;
        if read.docs.is_empty() {
            continue;
        }
        return Ok(Some((
            SampleOf {
                path,
                partial,
                docs: read.docs,
            },
            read.hash,
        )));
    }
    Ok(None)
}

/// The mapping documents of `target` follow: its index body, else (a data stream, or an index
/// a template makes) the mappings of the index templates that match its name, the
/// composable template's components first, then the template's own, merged as the engine
/// merges them.
pub fn body_for(d: &Definition, target: &str, data_stream: bool) -> Option<Value> {
    if !data_stream {
        if let Some(body) = d.index_bodies.get(target).filter(|b| has_properties(b)) {
            return Some(body.clone());
        }
    }
    fn matching<'t>(
        templates: &'t std::collections::BTreeMap<String, Value>,
        target: &str,
    ) -> Vec<(i64, &'t Value)> {
        let mut found: Vec<(i64, &Value)> = templates
            .values()
            .filter(|t| patterns(t).iter().any(|p| glob(p, target)))
            .map(|t| {
                (
                    t.get("priority")
                        .or(t.get("order"))
                        .and_then(Value::as_i64)
                        .unwrap_or(0),
                    t,
                )
            })
            .collect();
        found.sort_by_key(|(priority, _)| *priority);
        found
    }
    let mut merged = Map::new();
    // Composable: the one of highest priority applies, its components first.
    if let Some((_, t)) = matching(&d.composable_templates, target).last() {
        for name in t
            .get("composed_of")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if let Some(m) = d
                .component_templates
                .get(name)
                .and_then(|c| c.get("template").unwrap_or(c).get("mappings"))
            {
                merge(&mut merged, m);
            }
        }
        if let Some(m) = t.get("template").and_then(|t| t.get("mappings")) {
            merge(&mut merged, m);
        }
    } else {
        // Legacy templates: every match applies, lowest order first.
        for (_, t) in matching(&d.templates, target) {
            if let Some(m) = t.get("mappings") {
                merge(&mut merged, m);
            }
        }
    }
    let body = serde_json::json!({ "mappings": merged });
    has_properties(&body).then_some(body)
}

fn has_properties(body: &Value) -> bool {
    synth::mapping::fields(body).is_ok_and(|f| !f.is_empty())
        || body
            .get("mappings")
            .unwrap_or(body)
            .get("properties")
            .is_some()
}

/// A template's `index_patterns` (a string or a list).
fn patterns(t: &Value) -> Vec<&str> {
    match t.get("index_patterns").or(t.get("template")) {
        Some(Value::String(p)) => vec![p.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether `name` matches `pattern`, whose `*` stand for any run of characters.
fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == name;
    };
    if parts.len() == 1 {
        return pattern == name;
    }
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    for m in middle {
        match rest.find(m) {
            Some(at) => rest = &rest[at + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// `more` merged into `into`: objects key by key (the later wins a scalar), as the engine
/// merges the mappings of templates.
fn merge(into: &mut Map<String, Value>, more: &Value) {
    let Some(more) = more.as_object() else {
        return;
    };
    for (k, v) in more {
        match (into.get_mut(k), v) {
            (Some(Value::Object(have)), Value::Object(_)) => merge(have, v),
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Whether [`make`] wrote the file or found it made before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    Written,
    Reused,
}

/// How many documents are written between looks at Ctrl-C and the progress.
const BETWEEN_LOOKS: u64 = 16_384;

/// Makes `w`'s file, unless it was made before (the same inputs give the same bytes): written
/// to a file of its own beside it, then renamed, so a file stopped by Ctrl-C, a full disk or
/// a concurrent run is never taken for a whole one. `progress` is told the documents written.
pub fn make(w: &Wanted, cancel: &Cancel, progress: &dyn Fn(u64)) -> Result<Made, SynthError> {
    if w.path.is_file() {
        return Ok(Made::Reused);
    }
    let shown = w.path.display().to_string();
    let io = |source: std::io::Error| SynthError::Io {
        path: shown.clone(),
        source,
    };
    let dir = w.path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let model = Model::learn(&w.fields, w.sample.as_ref().map_or(&[][..], |s| &s.docs));
    let seed = w.stream();
    model.room_for(seed, w.documents, dir).map_err(|why| {
        SynthError::Invalid(format!(
            "{shown}: {why} (SEARCHBENCH_CACHE moves the cache)"
        ))
    })?;
    let temp = w.path.with_file_name(format!(
        ".{}.{}.partial",
        w.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    let written = (|| -> Result<(), SynthError> {
        let file = std::fs::File::create(&temp).map_err(io)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut doc = Vec::with_capacity(4096);
        for i in 0..w.documents {
            if i % BETWEEN_LOOKS == 0 {
                if cancel.is_cancelled() {
                    return Err(SynthError::Interrupted(shown.clone()));
                }
                progress(i);
            }
            doc.clear();
            model.write(seed, i, &mut doc);
            doc.push(b'\n');
            out.write_all(&doc).map_err(io)?;
        }
        out.flush().map_err(io)?;
        progress(w.documents);
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    std::fs::rename(&temp, &w.path).map_err(io)?;
    Ok(Made::Written)
}

#[cfg(test)]
mod tests;

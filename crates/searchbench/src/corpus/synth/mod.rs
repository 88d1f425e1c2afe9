//! A corpus synthesized from an index's mapping and, when there is one, a small sample of its
//! documents: every field the mapping gives, with the sample's statistics (how often a field
//! is there, arrays and their lengths, terms' frequencies and how fast new ones come, text
//! lengths and words, numbers' and dates' quantiles), or the type's defaults without one.
//! Deterministic: document `i` is drawn from its own stream of the seed, so the same mapping,
//! sample and seed give the same bytes, and any document can be made without the ones before.

pub mod dates;
pub mod fidelity;
pub mod mapping;
pub mod model;

use std::io::{BufRead, Read};

use serde_json::{Map, Value};

use super::{CorpusError, DocSource, Item};
use crate::rng::Rng;
use mapping::Field;
use model::FieldModel;

/// The most sample documents read: a sample is for statistics, not a corpus.
pub const SAMPLE_LIMIT: usize = 200_000;

/// The most bytes of sample lines read (their documents are held, parsed, several times
/// this): past it the sample ends there, as at [`SAMPLE_LIMIT`].
pub const SAMPLE_BYTES: u64 = 256 << 20;

/// The longest line a sample or a corpus compared with may have: a document is read whole,
/// and one line of 2 GB would be held whole.
pub const SAMPLE_MAX_LINE: usize = 16 << 20;

/// What a synthesized corpus is made from.
#[derive(Debug, Clone)]
pub struct Model {
    pub fields: Vec<FieldModel>,
    /// Documents of the sample it was learned from (0: the types' defaults).
    pub sample_docs: usize,
}

impl Model {
    /// The model of `fields` from `sample` (its documents, parsed).
    pub fn learn(fields: &[Field], sample: &[Map<String, Value>]) -> Model {
        let parents: Vec<&Map<String, Value>> = sample.iter().collect();
        let defaults = model::Defaults::new();
        Model {
            fields: fields
                .iter()
                .map(|f| FieldModel::learn_with(f, &parents, sample.len(), &defaults))
                .collect(),
            sample_docs: sample.len(),
        }
    }

    /// About how many bytes `docs` documents of seed `seed` take as NDJSON, from the first
    /// thousand (one buffer reused: only their length is kept).
    pub fn estimate_bytes(&self, seed: u64, docs: u64) -> u64 {
        let probe = docs.min(1000);
        if probe == 0 {
            return 0;
        }
        let mut buf = Vec::new();
        let mut bytes = 0u64;
        for i in 0..probe {
            buf.clear();
            self.write(seed, i, &mut buf);
            bytes += buf.len() as u64 + 1;
        }
        (bytes as f64 / probe as f64 * docs as f64).min(u64::MAX as f64) as u64
    }

    /// Whether `docs` documents fit the free space of the folder `dir` (unknown free space
    /// fits): why not, before anything is written, when they do not. The one bound of every
    /// writer of a synthesized corpus (`run --synthesize`'s cache, `generate --mapping`).
    pub fn room_for(&self, seed: u64, docs: u64, dir: &std::path::Path) -> Result<u64, String> {
        let estimate = self.estimate_bytes(seed, docs);
        match crate::os::free_bytes(dir) {
            Some(free) if estimate > free => Err(format!(
                "{docs} documents take about {:.1} GB, and {} has {:.1} GB free",
                estimate as f64 / 1e9,
                dir.display(),
                free as f64 / 1e9
            )),
            _ => Ok(estimate),
        }
    }

    /// Document `doc` of seed `seed`, appended to `out`.
    pub fn write(&self, seed: u64, doc: u64, out: &mut Vec<u8>) {
        let mut rng = Rng::new(seed, doc);
        out.push(b'{');
        let mut first = true;
        for f in &self.fields {
            let at = out.len();
            if !first {
                out.push(b',');
            }
            if f.write(&mut rng, doc, out) {
                first = false;
            } else {
                out.truncate(at);
            }
        }
        out.push(b'}');
    }
}

/// How a sample file is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleRead {
    /// A download cut short (`documents.json.bz2.tmp`): a read error or a last line without
    /// its end (where the bytes stopped) ends the sample there instead of failing it.
    pub partial: bool,
    /// Each document follows its action line (`includes-action-and-meta-data`): the action
    /// lines are skipped.
    pub with_meta: bool,
}

/// A sample read: its documents and a hash of the lines they were read from (what a file
/// made from them is known by).
#[derive(Debug, Clone, Default)]
pub struct Sample {
    pub docs: Vec<Map<String, Value>>,
    pub hash: u64,
}

/// Reads a sample of NDJSON documents (at most [`SAMPLE_LIMIT`]), naming the file and line of
/// one that is not a JSON object.
pub fn read_sample(path: &std::path::Path) -> Result<Vec<Map<String, Value>>, CorpusError> {
    Ok(read_sample_with(path, SampleRead::default())?.docs)
}

/// [`read_sample`] of a file compressed or not (as its first bytes say), read `how`.
pub fn read_sample_with(path: &std::path::Path, how: SampleRead) -> Result<Sample, CorpusError> {
    let mut docs = Vec::new();
    let hash = read_each(path, SAMPLE_LIMIT, SAMPLE_BYTES, how, |doc| docs.push(doc))?;
    Ok(Sample { docs, hash })
}

/// The fidelity of the first documents of `model` (seed `seed`) against `real`, an NDJSON
/// corpus read whole (the sample when no other is given): each side over as many documents.
pub fn fidelity(
    model: &Model,
    fields: &[Field],
    seed: u64,
    docs: u64,
    real: &std::path::Path,
) -> Result<Vec<fidelity::Row>, CorpusError> {
    let mut want = fidelity::Stats::new(fields);
    let mut n = 0u64;
    let all = SampleRead::default();
    read_each(
        real,
        usize::try_from(docs).unwrap_or(usize::MAX),
        u64::MAX,
        all,
        |doc| {
            if n < docs {
                want.add(&doc);
                n += 1;
            }
        },
    )?;
    let mut got = fidelity::Stats::new(fields);
    let mut buf = Vec::new();
    for i in 0..n {
        buf.clear();
        model.write(seed, i, &mut buf);
        let doc: Map<String, Value> = serde_json::from_slice(&buf)
            .map_err(|e| CorpusError::Invalid(format!("synthesized document {i}: {e}")))?;
        got.add(&doc);
    }
    Ok(fidelity::compare(&want, &got))
}

/// Calls `each` with each NDJSON document of `path` (dotted keys expanded), at most `limit`
/// of them and `max_bytes` of lines, naming the file and line of one that is not a JSON
/// object or longer than [`SAMPLE_MAX_LINE`]; returns the hash of the lines read.
fn read_each(
    path: &std::path::Path,
    limit: usize,
    max_bytes: u64,
    how: SampleRead,
    mut each: impl FnMut(Map<String, Value>),
) -> Result<u64, CorpusError> {
    let shown = path.display().to_string();
    let io = |e: std::io::Error| CorpusError::Io {
        path: shown.clone(),
        source: e,
    };
    let mut input = super::files::open_input(&shown)?;
    let mut read = 0;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut line = Vec::new();
    let mut number = 0usize;
    let mut bytes = 0u64;
    loop {
        line.clear();
        // One more byte than a line may have: a longer one is refused, not held whole.
        let cap = SAMPLE_MAX_LINE as u64 + 1;
        let n = match input.by_ref().take(cap).read_until(b'\n', &mut line) {
            Ok(n) => n,
            // Where a partial download's bytes stop, a compressed stream ends in an error.
            Err(_) if how.partial => break,
            Err(e) => return Err(io(e)),
        };
        if n == 0 || read == limit || bytes >= max_bytes {
            break;
        }
        bytes += n as u64;
        number += 1;
        if line.len() > SAMPLE_MAX_LINE {
            return Err(CorpusError::Invalid(format!(
                "{shown}:{number}: a line of more than {} MiB: a document is read whole, \
                 each at most that",
                SAMPLE_MAX_LINE >> 20
            )));
        }
        if how.partial && line.last() != Some(&b'\n') {
            // The last line of a download cut short: only part of a document.
            break;
        }
        if how.with_meta && number % 2 == 1 {
            continue;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        read += 1;
        hash = crate::rng::fnv1a_more(hash, text);
        match serde_json::from_slice::<Value>(text) {
            Ok(Value::Object(doc)) => each(expand_dots(doc)),
            Ok(_) => {
                return Err(CorpusError::Invalid(format!(
                    "{shown}:{number}: not a JSON object"
                )))
            }
            Err(e) => return Err(CorpusError::Invalid(format!("{shown}:{number}: {e}"))),
        }
    }
    Ok(hash)
}

/// `doc` with its dotted keys as the objects the engine reads them as (`{"log.file": 1}` is
/// `{"log": {"file": 1}}`), so a field of the mapping is found whichever way a document
/// writes it.
pub fn expand_dots(doc: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in doc {
        let value = match value {
            Value::Object(o) => Value::Object(expand_dots(o)),
            Value::Array(a) => Value::Array(
                a.into_iter()
                    .map(|v| match v {
                        Value::Object(o) => Value::Object(expand_dots(o)),
                        v => v,
                    })
                    .collect(),
            ),
            v => v,
        };
        let parts: Vec<&str> = key.split('.').filter(|p| !p.is_empty()).collect();
        if parts.is_empty() {
            out.insert(key, value);
        } else {
            insert_at(&mut out, &parts, value);
        }
    }
    out
}

/// Puts `value` at the path `parts` of `map`, making the objects on the way (merging into
/// those already there).
fn insert_at(map: &mut Map<String, Value>, parts: &[&str], value: Value) {
    let (first, rest) = match parts.split_first() {
        Some(split) => split,
        None => return,
    };
    if rest.is_empty() {
        match (map.get_mut(*first), value) {
            (Some(Value::Object(have)), Value::Object(more)) => have.extend(more),
            (_, value) => {
                map.insert(first.to_string(), value);
            }
        }
        return;
    }
    let slot = map
        .entry(first.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        // A scalar and an object under one name: the object's fields win the name.
        *slot = Value::Object(Map::new());
    }
    if let Value::Object(next) = slot {
        insert_at(next, rest, value);
    }
}

/// The documents `0..docs` of a model and seed.
pub struct Synthesized {
    model: Model,
    seed: u64,
    docs: u64,
    next: u64,
    about: String,
}

impl Synthesized {
    pub fn new(model: Model, seed: u64, docs: u64, about: String) -> Synthesized {
        Synthesized {
            model,
            seed,
            docs,
            next: 0,
            about,
        }
    }
}

impl DocSource for Synthesized {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        if self.next >= self.docs {
            return Ok(None);
        }
        self.model.write(self.seed, self.next, out);
        self.next += 1;
        Ok(Some(Item::Doc))
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.docs)
    }

    fn describe(&self) -> String {
        format!(
            "synthesized from {} (seed {}, {} docs)",
            self.about, self.seed, self.docs
        )
    }
}

#[cfg(test)]
mod tests;

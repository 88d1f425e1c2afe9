//! Small corpora for real tracks, made where the tools would have downloaded theirs: each
//! documents entry of the track gets its file (by the name test mode reads: the `-1k` sample,
//! or the file itself), compressed as the track says it ships, holding documents that fit the
//! mapping of the index (or data stream template) it goes to, field by field.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Map, Value};

use searchbench::workload::track::Definition;

/// How the entries' files are laid down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// As Rally and OSB download for `--test-mode`: the `-1k` sample of each large entry.
    Samples,
    /// The files as the track names them, each with `n` documents (test mode reads the first
    /// 1,000).
    Whole(usize),
}

/// Writes a file for every documents entry of `d` into `dir`; returns the files written.
pub fn write(d: &Definition, dir: &Path, layout: Layout) -> Vec<String> {
    let mut written = Vec::new();
    for s in d.track.sources() {
        let mapping = match (&s.target_index, &s.target_data_stream) {
            (Some(index), _) => d.index_bodies.get(index).map(properties_of),
            (None, Some(stream)) => template_properties(d, stream),
            (None, None) => None,
        }
        .unwrap_or_default();
        let (name, n) = match layout {
            Layout::Samples => {
                let name = searchbench::tasks::plan::source_file(&s.documents, true);
                let n = s.documents.document_count.unwrap_or(1000).min(1000);
                (name, n as usize)
            }
            Layout::Whole(n) => (s.documents.source_file.clone(), n),
        };
        let mut text = Vec::new();
        for i in 0..n {
            if s.includes_action_and_meta_data {
                writeln!(text, "{{\"index\": {{}}}}").unwrap();
            }
            let doc = document(&mapping, i);
            serde_json::to_writer(&mut text, &doc).unwrap();
            text.push(b'\n');
        }
        std::fs::write(dir.join(&name), compress(&name, &text)).unwrap();
        written.push(name);
    }
    written
}

/// `text` compressed as `name`'s extension says.
fn compress(name: &str, text: &[u8]) -> Vec<u8> {
    if name.ends_with(".bz2") {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    } else if name.ends_with(".zst") {
        zstd::stream::encode_all(text, 3).unwrap()
    } else if name.ends_with(".gz") {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    } else {
        text.to_vec()
    }
}

/// The `properties` of an index body's mappings (typeless, or under its one type).
fn properties_of(body: &Value) -> Map<String, Value> {
    let mappings = body
        .get("mappings")
        .or_else(|| body.pointer("/template/mappings"));
    let Some(m) = mappings else {
        return Map::new();
    };
    if let Some(p) = m.get("properties").and_then(Value::as_object) {
        return p.clone();
    }
    m.as_object()
        .and_then(|o| o.values().find_map(|t| t.get("properties")?.as_object()))
        .cloned()
        .unwrap_or_default()
}

/// The properties a data stream gets: its composable template's, with those of the component
/// templates it is composed of.
fn template_properties(d: &Definition, stream: &str) -> Option<Map<String, Value>> {
    let template = d.composable_templates.values().find(|t| {
        t.get("index_patterns")
            .and_then(Value::as_array)
            .is_some_and(|ps| {
                ps.iter()
                    .filter_map(Value::as_str)
                    .any(|p| match p.strip_suffix('*') {
                        Some(prefix) => stream.starts_with(prefix),
                        None => stream == p,
                    })
            })
    })?;
    let mut props = Map::new();
    for c in template
        .get("composed_of")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if let Some(body) = d.component_templates.get(c) {
            props.extend(properties_of(body));
        }
    }
    props.extend(properties_of(template));
    Some(props)
}

/// Document `i` of a corpus with `properties`: a value of each field's type.
pub fn document(properties: &Map<String, Value>, i: usize) -> Value {
    let mut doc = Map::new();
    for (name, field) in properties {
        if let Some(v) = value(field, i) {
            doc.insert(name.clone(), v);
        }
    }
    Value::Object(doc)
}

const WORDS: [&str; 12] = [
    "search", "engine", "cluster", "shard", "index", "query", "latency", "bulk", "node", "heap",
    "merge", "segment",
];

fn value(field: &Value, i: usize) -> Option<Value> {
    let ty = field.get("type").and_then(Value::as_str);
    let props = field.get("properties").and_then(Value::as_object);
    let word = |k: usize| WORDS[(i + k) % WORDS.len()];
    Some(match (ty, props) {
        (Some("nested"), Some(p)) => json!([document(p, i), document(p, i + 1)]),
        (None | Some("object"), Some(p)) => document(p, i),
        (Some("text" | "match_only_text" | "search_as_you_type" | "completion"), _) => {
            json!(format!("{} {} {} {i}", word(0), word(3), word(7)))
        }
        (Some("keyword" | "wildcard"), _) => json!(format!("{}-{}", word(0), i % 17)),
        (Some("long" | "integer" | "short" | "unsigned_long"), _) => json!(i % 1000),
        (Some("byte"), _) => json!(i % 100),
        (Some("float" | "double" | "half_float" | "scaled_float"), _) => {
            json!((i % 1000) as f64 * 0.5 + 0.25)
        }
        (Some("date" | "date_nanos"), _) => date(field.get("format").and_then(Value::as_str), i),
        (Some("boolean"), _) => json!(i.is_multiple_of(2)),
        (Some("ip"), _) => json!(format!("10.{}.{}.{}", i % 7, (i / 7) % 250, i % 250)),
        (Some("geo_point"), _) => json!([
            -73.9 + (i % 100) as f64 * 0.01,
            40.7 + (i % 50) as f64 * 0.01
        ]),
        (Some("geo_shape"), _) => json!({"type": "point", "coordinates": [-73.9, 40.7]}),
        (Some("double_range" | "float_range"), _) => {
            json!({"gte": i as f64, "lte": i as f64 + 10.0})
        }
        (Some("integer_range" | "long_range"), _) => json!({"gte": i, "lte": i + 10}),
        (Some("flattened" | "flat_object"), _) => json!({"key": word(1)}),
        // Written only by its own kind of document (a query for percolator), a value the
        // mapping fixes, or derived: left out.
        _ => return None,
    })
}

/// A date in the field's first format: epoch seconds or milliseconds, a Java pattern filled
/// in, or else ISO-8601.
fn date(format: Option<&str>, i: usize) -> Value {
    let first = format.unwrap_or("").split("||").next().unwrap_or("");
    let seconds = 1_420_070_400 + i as u64 * 61;
    match first {
        "epoch_second" => json!(seconds),
        "epoch_millis" => json!(seconds * 1000),
        f if f.contains("yyyy") || f.contains("uuuu") => {
            let (day, hour, minute, second) = (1 + i % 28, (i / 60) % 24, i % 60, (i * 7) % 60);
            let out = f
                .replace("'T'", "T")
                .replace("yyyy", "2015")
                .replace("uuuu", "2015")
                .replace("MM", "01")
                .replace("dd", &format!("{day:02}"))
                .replace("HH", &format!("{hour:02}"))
                .replace("mm", &format!("{minute:02}"))
                .replace("ss", &format!("{second:02}"))
                .replace("SSS", "000");
            json!(out)
        }
        _ => json!(format!(
            "2015-01-{:02}T{:02}:{:02}:{:02}Z",
            1 + i % 28,
            (i / 60) % 24,
            i % 60,
            (i * 7) % 60
        )),
    }
}

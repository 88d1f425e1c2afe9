//! opensearch-benchmark's vector operations, as its runners send them, on data sets laid down
//! locally in the bigann format (`searchbench generate vectors --format bigann` writes them):
//!
//! - `bulk-vector-data-set`: the rows of `data_set_path`, `bulk_size` to a request, each under
//!   the `_id` of its row (or, with `id-field-name`, that field too); the clients split the rows
//!   as opensearch-benchmark splits them (an equal share each, the remainder to the last) and
//!   the task runs until its rows are sent.
//! - `vector-search`: one `knn` query a request for each row of the query set (split among
//!   the clients the same way, `repetitions` times over), its `k`, the `body` laid under it,
//!   a filter in each of the four forms (`efficient`, `post_filter`, `boolean`, `script`), and
//!   recall@k and recall@1 of every answer against the row of `neighbors_data_set_path`.
//! - `warmup-knn-indices`: the k-NN plugin's warm-up of an index, until no shard fails.
//!
//! Where they part from opensearch-benchmark, on purpose:
//! - recall is measured at any number of clients (it skips recall when the clients
//!   outnumber the cores; this driver costs almost nothing);
//! - a ground truth padded with `-1` (a filtered data set's short rows) counts the neighbours
//!   before the first padding (its trim drops the two before it);
//! - an id read from `_source` as a number is compared as the number's text (it compares the
//!   number with text, and never matches);
//! - a data set is read from the track's folder or `--corpus-dir` only, like every file a
//!   track names.
//!
//! HDF5 data sets (the tool's default format) are converted once into bigann files in the
//! cache before the run ([`super::python::hdf5`]): `train` is what a bulk loads, `test` what a
//! search asks, `neighbors` its ground truth, as opensearch-benchmark reads them.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Map, Value};

use super::operation::{Context, Done, Failed};
use super::plan::{PlanSpec, Unplanned};
use crate::cluster::{Product, TargetError};
use crate::workload::folder::Folder;
use crate::workload::track::model::Resolved;
use crate::workload::track::Definition;

/// The operation types run here.
pub const RUNS: [&str; 3] = [
    "bulk-vector-data-set",
    "vector-search",
    "warmup-knn-indices",
];

/// How many times a bulk's refused documents are sent again (opensearch-benchmark's default).
const RETRIES: u64 = 10;

/// One answer's recall: of the true `k` nearest, the share it holds, and whether it holds the
/// nearest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recall {
    pub at_k: f64,
    pub at_1: f64,
}

/// What a bigann file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Element {
    /// `.fbin`: little-endian f32.
    F32,
    /// `.u8bin`: one byte a value.
    U8,
    /// `.bin`: ground truth, each row's ids (u32) then, after all of them, their distances.
    Neighbours,
}

impl Element {
    fn bytes(self) -> u64 {
        match self {
            Element::U8 => 1,
            Element::F32 | Element::Neighbours => 4,
        }
    }
}

/// A bigann file: `u32` rows, `u32` values a row, then the rows. Read at an offset, so the
/// clients share one open file.
#[derive(Debug)]
pub struct BigAnn {
    /// The name the track gave, for messages.
    shown: String,
    file: File,
    rows: u64,
    width: u64,
    element: Element,
}

/// The id a ground truth pads a short row with: `-1` as the format's `u32`.
const PADDING: u32 = u32::MAX;

impl BigAnn {
    /// Opens `path` (named `shown` by the track) as vectors (`.fbin`, `.u8bin`) or ground truth
    /// (`.bin`), its length checked against its header.
    pub fn open(path: &Path, shown: &str, neighbours: bool) -> Result<BigAnn, String> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let element = match (neighbours, ext) {
            (false, "fbin") => Element::F32,
            (false, "u8bin") => Element::U8,
            (true, "bin") => Element::Neighbours,
            (false, _) => {
                return Err(format!(
                    "{shown}: a bigann vector file ends in .fbin or .u8bin, not {ext:?}"
                ))
            }
            (true, _) => {
                return Err(format!(
                    "{shown}: a bigann ground truth file ends in .bin, not {ext:?}"
                ))
            }
        };
        let file = File::open(path).map_err(|e| format!("{shown}: {e}"))?;
        let len = file.metadata().map_err(|e| format!("{shown}: {e}"))?.len();
        let mut header = [0u8; 8];
        if len < 8 {
            return Err(format!(
                "{shown}: {len} bytes, shorter than a bigann header (8)"
            ));
        }
        file.read_exact_at(&mut header, 0)
            .map_err(|e| format!("{shown}: {e}"))?;
        let rows = u64::from(u32::from_le_bytes([
            header[0], header[1], header[2], header[3],
        ]));
        let width = u64::from(u32::from_le_bytes([
            header[4], header[5], header[6], header[7],
        ]));
        if width == 0 {
            return Err(format!("{shown}: its header gives rows of 0 values"));
        }
        let halves = if element == Element::Neighbours { 2 } else { 1 };
        // In u128: a forged header of u32::MAX rows of u32::MAX values overflows a u64.
        let expected =
            u128::from(rows) * u128::from(width) * u128::from(element.bytes()) * halves + 8;
        if u128::from(len) != expected {
            return Err(format!(
                "{shown}: its header says {rows} rows of {width} values, which take {expected} \
                 bytes, but it holds {len}"
            ));
        }
        Ok(BigAnn {
            shown: shown.to_string(),
            file,
            rows,
            width,
            element,
        })
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn width(&self) -> u64 {
        self.width
    }

    /// `n` rows from `from`, as bytes.
    fn bytes(&self, from: u64, n: u64) -> Result<Vec<u8>, String> {
        if from + n > self.rows {
            return Err(format!(
                "{}: rows {from} to {} asked of {}",
                self.shown,
                from + n,
                self.rows
            ));
        }
        let row = self.width * self.element.bytes();
        let mut buf = vec![0u8; (n * row) as usize];
        self.file
            .read_exact_at(&mut buf, 8 + from * row)
            .map_err(|e| format!("{}: {e}", self.shown))?;
        Ok(buf)
    }

    /// `n` vectors from row `from`. A value that is not a finite number (NaN, an infinity)
    /// is refused naming its row: JSON has no such number, and it would be sent as `null`.
    pub fn vectors(&self, from: u64, n: u64) -> Result<Vec<Vec<f32>>, String> {
        let buf = self.bytes(from, n)?;
        let width = self.width as usize;
        let rows: Vec<Vec<f32>> = match self.element {
            Element::U8 => buf
                .chunks(width)
                .map(|r| r.iter().map(|b| f32::from(*b)).collect())
                .collect(),
            _ => buf
                .chunks(width * 4)
                .map(|r| {
                    r.chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect()
                })
                .collect(),
        };
        for (i, row) in rows.iter().enumerate() {
            if let Some(c) = row.iter().position(|x| !x.is_finite()) {
                let at = from + i as u64;
                return Err(format!(
                    "{}: row {at}, value {c} (byte {}): {} is not a finite number, and a \
                     vector's values must be",
                    self.shown,
                    8 + (at * self.width + c as u64) * 4,
                    row[c]
                ));
            }
        }
        Ok(rows)
    }

    /// The ids of row `row` of a ground truth, nearest first.
    pub fn neighbours(&self, row: u64) -> Result<Vec<u32>, String> {
        let buf = self.bytes(row, 1)?;
        Ok(buf
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
}

/// The rows `[offset, offset + n)` of `total` that client `i` of `clients` takes, as
/// opensearch-benchmark splits a data set: `total / clients` each, the remainder to the last.
pub fn share(total: u64, clients: u64, i: u64) -> (u64, u64) {
    let each = total / clients;
    let n = if i + 1 == clients {
        total - each * (clients - 1)
    } else {
        each
    };
    (i * each, n)
}

/// Recall of `found` (the answer's ids, in order) against `truth` (nearest first) at `k`: of
/// the true `k` nearest (those before any padding), the share among the answer's first `k`.
/// A truth with no neighbour (all padding) is met by any answer.
pub fn recall(found: &[String], truth: &[u32], k: usize) -> f64 {
    let wanted: Vec<String> = truth
        .iter()
        .take(k)
        .take_while(|id| **id != PADDING)
        .map(u32::to_string)
        .collect();
    if wanted.is_empty() {
        return 1.0;
    }
    let hit = found.iter().take(k).filter(|f| wanted.contains(f)).count();
    hit as f64 / wanted.len() as f64
}

/// Each client's place in its share: the rows (a bulk) or the queries (a search) it has taken.
#[derive(Debug, Default)]
pub struct Places(Vec<AtomicU64>);

impl Places {
    fn new(clients: u64) -> Arc<Places> {
        Arc::new(Places((0..clients).map(|_| AtomicU64::new(0)).collect()))
    }

    fn at(&self, client: usize) -> u64 {
        self.0
            .get(client)
            .map_or(u64::MAX, |p| p.load(Ordering::Relaxed))
    }

    fn advance(&self, client: usize, n: u64) {
        if let Some(p) = self.0.get(client) {
            p.fetch_add(n, Ordering::Relaxed);
        }
    }

    fn reset(&self) {
        for p in &self.0 {
            p.store(0, Ordering::Relaxed);
        }
    }
}

/// How a search's filter is laid out (`filter_type`).
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    None,
    /// Inside the `knn` query (the plugin filters while it searches).
    Efficient(Value),
    /// After the search, as `post_filter`.
    Post(Value),
    /// A `bool` query: the filter beside the `knn` query.
    Boolean(Value),
    /// An exact `script_score` of the k-NN plugin over the filtered documents.
    Script(Value),
}

/// One of the three operations.
#[derive(Debug, Clone)]
pub enum VectorOp {
    Bulk {
        index: String,
        field: String,
        /// Also write the row's number under this field (`id-field-name` other than `_id`).
        id_field: Option<String>,
        bulk_size: u64,
        /// Rows of the data set used (`num_vectors`, else all).
        rows: u64,
        clients: u64,
        data: Arc<BigAnn>,
        places: Arc<Places>,
    },
    Search {
        /// `/{index}/_search?allow_partial_search_results=false…`
        path: String,
        field: String,
        k: u64,
        /// The `body` the track lays under the query (`_source`, `docvalue_fields`, `size`).
        body: Map<String, Value>,
        filter: Filter,
        oversample: Option<Value>,
        /// For the `script` filter's score.
        space_type: String,
        /// Where each hit's id is read: `_id`, or the field `id-field-name`.
        id_field: String,
        rows: u64,
        repetitions: u64,
        clients: u64,
        queries: Arc<BigAnn>,
        truth: Arc<BigAnn>,
        places: Arc<Places>,
    },
    Warmup {
        index: String,
    },
}

impl PartialEq for VectorOp {
    /// The same requests: what each sends, not where the clients are.
    fn eq(&self, other: &Self) -> bool {
        format!("{}", Shown(self)) == format!("{}", Shown(other))
    }
}

/// A line of what an operation sends, for comparison and for `workload check`.
struct Shown<'a>(&'a VectorOp);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            VectorOp::Bulk {
                index,
                field,
                bulk_size,
                rows,
                data,
                ..
            } => write!(
                f,
                "{rows} rows of {} into {index}.{field}, {bulk_size} a request",
                data.shown
            ),
            VectorOp::Search {
                path,
                field,
                k,
                filter,
                rows,
                repetitions,
                queries,
                truth,
                ..
            } => write!(
                f,
                "{rows} queries of {} × {repetitions} on {path} {field} k {k} {filter:?}, \
                 recall against {}",
                queries.shown, truth.shown
            ),
            VectorOp::Warmup { index } => write!(f, "warm-up of {index}"),
        }
    }
}

/// The operation of task `t` of track `d` (one of [`RUNS`]), its data sets opened and checked.
pub fn of(t: &Resolved, d: &Definition, spec: &PlanSpec) -> Result<VectorOp, Unplanned> {
    super::task::checked_clients(t).map_err(Unplanned::Invalid)?;
    let p = &t.operation.params;
    let text = |k: &str| given(p, k).map(str::to_string);
    let index = text("index")
        .or_else(|| (d.track.indices.len() == 1).then(|| d.track.indices[0].name.clone()))
        .ok_or("needs its index")?;
    if t.operation_type == "warmup-knn-indices" {
        return Ok(VectorOp::Warmup { index });
    }
    let field = text("field").ok_or("needs its field (the vector field)")?;
    if field.contains('.') {
        return Err(Unplanned::NotYet(format!(
            "a nested vector field ({field}) does not run yet"
        )));
    }
    let count = |k: &str| -> Result<Option<u64>, Unplanned> {
        match p.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_i64() {
                Some(n) if n < 0 => Ok(None),
                Some(n) => Ok(Some(n as u64)),
                None => {
                    Err(format!("{k}: {} is not a whole number", crate::shown::Shown(v)).into())
                }
            },
        }
    };
    // The formats and numbers are checked before any file is opened; each file is then
    // checked itself.
    let mut sets = vec![("data_set", false)];
    if t.operation_type == "vector-search" {
        sets.push(("neighbors_data_set", true));
    }
    for (prefix, neighbours) in sets {
        // An HDF5 query file holds its neighbours: they default to it, as the tool has it.
        let own = [prefix, if neighbours { "data_set" } else { prefix }];
        let named = own
            .iter()
            .flat_map(|pre| [format!("{pre}_path"), format!("{pre}_corpus")])
            .any(|k| given(p, &k).is_some());
        // opensearch-benchmark's workloads name their HDF5 files by parameters the user gives.
        if format_of(p, prefix, neighbours)? == Format::Hdf5 && !named {
            return Err(Unplanned::Missing(format!(
                "no {prefix}_path is given: its data set is not here (an HDF5 file a parameter \
                 names, opensearch-benchmark's default format)"
            )));
        }
    }
    let num_vectors = count("num_vectors")?;
    let id_field = text("id-field-name").filter(|f| f != "_id");
    if t.operation_type == "bulk-vector-data-set" {
        let attributes = p.get("filter_attributes").and_then(Value::as_array);
        if attributes.is_some_and(|a| !a.is_empty()) {
            return Err(Unplanned::NotYet(
                "filter_attributes (an HDF5 data set's attributes as fields) do not run yet".into(),
            ));
        }
        let bulk_size = match count("bulk_size")? {
            Some(n) if (1..=100_000).contains(&n) => n,
            _ => return Err("bulk_size: give a whole number from 1 to 100000".into()),
        };
        let data = data_set(t, d, spec, "data_set", false)?;
        return Ok(VectorOp::Bulk {
            rows: num_vectors.map_or(data.rows, |n| n.min(data.rows)),
            index,
            field,
            id_field,
            bulk_size,
            clients: t.clients,
            data: Arc::new(data),
            places: Places::new(t.clients),
        });
    }
    for radial in ["max_distance", "min_score", "radial_search_type"] {
        if p.contains_key(radial) {
            return Err(Unplanned::NotYet(format!(
                "a radial search ({radial}) does not run yet"
            )));
        }
    }
    let k = match count("k")? {
        Some(k) if (1..=10_000).contains(&k) => k,
        _ => return Err("k: give a whole number from 1 to 10000".into()),
    };
    let filter_body = p
        .get("filter_body")
        .filter(|b| b.as_object().is_none_or(|o| !o.is_empty()))
        .cloned();
    let filter = match (p.get("filter_type").and_then(Value::as_str), filter_body) {
        (None | Some(""), _) | (_, None) => Filter::None,
        (Some("efficient"), Some(b)) => Filter::Efficient(b),
        (Some("post_filter"), Some(b)) => Filter::Post(b),
        (Some("boolean"), Some(b)) => Filter::Boolean(b),
        (Some("script"), Some(b)) => Filter::Script(b),
        (Some(other), _) => {
            return Err(format!(
                "filter_type {other:?}: use efficient, post_filter, boolean or script"
            )
            .into())
        }
    };
    let body = match p.get("body") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(b)) => b.clone(),
        Some(other) => return Err(format!("body: {other} is not an object").into()),
    };
    let mut query = match p.get("request-params") {
        None => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => return Err(format!("request-params: {other} is not an object").into()),
    };
    query
        .entry("allow_partial_search_results")
        .or_insert(json!("false"));
    // A value that is no string, number or boolean is refused, as for every operation.
    let query = super::operation::query_string(&query)?;
    let repetitions = match count("repetitions")? {
        None => 1,
        Some(n) if (1..=1_000_000).contains(&n) => n,
        Some(n) => return Err(format!("repetitions: {n} is not from 1 to 1000000").into()),
    };
    // Both files are asked for at once: what is to be converted first is said in one go.
    let (data, truth) = match (
        data_set(t, d, spec, "data_set", false),
        data_set(t, d, spec, "neighbors_data_set", true),
    ) {
        (Ok(data), Ok(truth)) => (data, truth),
        (Err(Unplanned::Converts(mut a)), Err(Unplanned::Converts(b))) => {
            a.extend(b);
            return Err(Unplanned::Converts(a));
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let rows = num_vectors.map_or(data.rows, |n| n.min(data.rows));
    if truth.rows < rows {
        return Err(format!(
            "{}: {} rows of neighbours for {rows} queries",
            truth.shown, truth.rows
        )
        .into());
    }
    if truth.width < k {
        return Err(format!(
            "{}: {} neighbours a query, fewer than k ({k})",
            truth.shown, truth.width
        )
        .into());
    }
    Ok(VectorOp::Search {
        path: format!("/{index}/_search{query}"),
        field,
        k,
        body,
        filter,
        oversample: p.get("oversample_factor").cloned(),
        space_type: text("space_type").unwrap_or("l2".into()),
        id_field: id_field.unwrap_or("_id".into()),
        rows,
        repetitions,
        clients: t.clients,
        queries: Arc::new(data),
        truth: Arc::new(truth),
        places: Places::new(t.clients),
    })
}

/// The data set `{prefix}_path` (or `{prefix}_corpus`) of task `t`, in the bigann format, read
/// from the track's folder or `--corpus-dir` only.
fn data_set(
    t: &Resolved,
    d: &Definition,
    spec: &PlanSpec,
    prefix: &str,
    neighbours: bool,
) -> Result<BigAnn, Unplanned> {
    let p = &t.operation.params;
    if format_of(p, prefix, neighbours)? == Format::Hdf5 {
        return hdf5_set(t, d, spec, prefix, neighbours);
    }
    let Some(named) = named_file(t, d, spec, prefix, "bigann")? else {
        return Err(match neighbours {
            true => {
                format!("{prefix}_path: a bigann query set holds no neighbours; give their file")
            }
            false => format!("needs its {prefix}_path"),
        }
        .into());
    };
    let (path, shown) = (named.path, named.shown);
    BigAnn::open(&path, &shown, neighbours).map_err(Unplanned::Invalid)
}

/// The text parameter `k`, when given: the tools' templates render an absent parameter as
/// "" (or `{}`), which means absent too.
fn given<'a>(p: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    p.get(k).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The format of a data set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    BigAnn,
    Hdf5,
}

/// The format of data set `prefix` (the neighbours' is the data set's unless given): bigann,
/// or HDF5, opensearch-benchmark's default.
fn format_of(p: &Map<String, Value>, prefix: &str, neighbours: bool) -> Result<Format, Unplanned> {
    let format = given(p, &format!("{prefix}_format"))
        .or_else(|| neighbours.then(|| given(p, "data_set_format")).flatten())
        .unwrap_or("hdf5");
    match format {
        "bigann" => Ok(Format::BigAnn),
        "hdf5" => Ok(Format::Hdf5),
        other => Err(format!("{prefix}_format {other:?}: use hdf5 or bigann").into()),
    }
}

/// The HDF5 data set `{prefix}_path` (or `{prefix}_corpus`) of task `t`, as the bigann file it
/// was converted to (`spec.converted`), or the conversion it waits for: its `train` rows for a
/// bulk, `test` for a search's queries, `neighbors` for their ground truth, as
/// opensearch-benchmark reads it. The neighbours are the query file's unless given.
fn hdf5_set(
    t: &Resolved,
    d: &Definition,
    spec: &PlanSpec,
    prefix: &str,
    neighbours: bool,
) -> Result<BigAnn, Unplanned> {
    let named = match named_file(t, d, spec, prefix, "hdf5")? {
        Some(named) => named,
        None if neighbours => named_file(t, d, spec, "data_set", "hdf5")?
            .ok_or_else(|| Unplanned::from(format!("needs its {prefix}_path")))?,
        None => return Err(format!("needs its {prefix}_path").into()),
    };
    let shown = match &named.corpus {
        Some((corpus, file)) => format!("corpus {corpus} file {file}"),
        None => named.shown,
    };
    let (source, limit) = (named.path, named.limit);
    let dataset = match (neighbours, t.operation_type.as_str()) {
        (true, _) => "neighbors",
        (false, "bulk-vector-data-set") => "train",
        (false, _) => "test",
    };
    match spec
        .converted
        .iter()
        .find(|c| c.source == source && c.dataset == dataset)
    {
        Some(c) => {
            let mut set = BigAnn::open(&c.path, &format!("{shown} ({dataset})"), neighbours)
                .map_err(Unplanned::Invalid)?;
            // Test mode reads a corpus's first 1,000 documents when it has no sample.
            set.rows = limit.map_or(set.rows, |l| l.min(set.rows));
            Ok(set)
        }
        None => Err(Unplanned::Converts(vec![super::python::hdf5::Hdf5Set {
            source,
            shown,
            dataset: dataset.to_string(),
        }])),
    }
}

/// A data set's file as the task names it.
struct Named {
    path: PathBuf,
    /// How it is said: its path as given, or the corpus file found.
    shown: String,
    /// The corpus and its file, when named by its corpus.
    corpus: Option<(String, String)>,
    /// The rows to read at most (test mode's cut of a corpus file).
    limit: Option<u64>,
}

/// The file `{prefix}_path` or `{prefix}_corpus` (a corpus of the track of source format
/// `format`, found as a bulk's file is, compressed or not) names; `None` when neither is given.
fn named_file(
    t: &Resolved,
    d: &Definition,
    spec: &PlanSpec,
    prefix: &str,
    format: &str,
) -> Result<Option<Named>, Unplanned> {
    let p = &t.operation.params;
    match (
        given(p, &format!("{prefix}_path")),
        given(p, &format!("{prefix}_corpus")),
    ) {
        (Some(path), None) => Ok(Some(Named {
            path: located(d, spec, path, &format!("{prefix}_path"))?,
            shown: path.to_string(),
            corpus: None,
            limit: None,
        })),
        (None, Some(corpus)) => {
            let s = d
                .track
                .sources()
                .into_iter()
                .find(|s| {
                    s.corpus == corpus && s.documents.source_format.as_deref() == Some(format)
                })
                .ok_or_else(|| {
                    format!("{prefix}_corpus {corpus:?}: the track has no {format} corpus of it")
                })?;
            let file = super::plan::locate(&s, d, spec)?;
            Ok(Some(Named {
                path: PathBuf::from(&file.path),
                shown: file.path,
                corpus: Some((corpus.to_string(), s.documents.source_file.clone())),
                limit: file.limit,
            }))
        }
        (Some(_), Some(_)) => {
            Err(format!("both {prefix}_path and {prefix}_corpus: give one").into())
        }
        (None, None) => Ok(None),
    }
}

/// A data set the track names by path: inside `--corpus-dir` or the track's folder (absolute,
/// or relative to them, tried in that order), or why not.
fn located(d: &Definition, spec: &PlanSpec, name: &str, what: &str) -> Result<PathBuf, Unplanned> {
    let track_dir = d.path.parent().unwrap_or(Path::new("."));
    let mut folders: Vec<(Folder, PathBuf)> = Vec::new();
    if let Some(dir) = &spec.corpus_dir {
        folders.push((Folder::given(dir), dir.clone()));
    }
    folders.push((Folder::of(track_dir), track_dir.to_path_buf()));
    let absolute = Path::new(name).has_root();
    let mut refusal = None;
    for (folder, dir) in &folders {
        let judged = if absolute {
            folder.check(Path::new(name), what)
        } else {
            folder.resolve(dir, name, what)
        };
        match judged {
            Ok(path) if path.is_file() => return Ok(path),
            Ok(_) => {}
            Err(e) => {
                refusal.get_or_insert(e);
            }
        }
    }
    let looked: Vec<String> = folders
        .iter()
        .map(|(f, _)| f.shown().display().to_string())
        .collect();
    match refusal {
        // Inside no folder: a track cannot read a file of this machine on its own say.
        Some(e) if absolute || refusal_everywhere(&folders, name, what) => {
            Err(format!("{e}; give its folder as --corpus-dir to read it").into())
        }
        _ => Err(Unplanned::Missing(format!(
            "{what} {name} is not in {}",
            looked.join(", ")
        ))),
    }
}

/// Whether every folder refuses `name` (it climbs out of each).
fn refusal_everywhere(folders: &[(Folder, PathBuf)], name: &str, what: &str) -> bool {
    folders
        .iter()
        .all(|(f, dir)| f.resolve(dir, name, what).is_err())
}

/// A bulk's NDJSON: each row under the `_id` of its number.
fn bulk_body(
    index: &str,
    field: &str,
    id_field: Option<&str>,
    rows: &[(u64, Vec<f32>)],
) -> Result<Vec<u8>, String> {
    let mut out =
        Vec::with_capacity(rows.len() * (rows.first().map_or(0, |r| r.1.len()) * 12 + 64));
    for (id, v) in rows {
        let action = json!({"index": {"_index": index, "_id": id.to_string()}});
        serde_json::to_writer(&mut out, &action).map_err(|e| e.to_string())?;
        out.push(b'\n');
        let mut doc = Map::new();
        doc.insert(field.to_string(), json!(v));
        if let Some(f) = id_field {
            doc.insert(f.to_string(), json!(id));
        }
        serde_json::to_writer(&mut out, &doc).map_err(|e| e.to_string())?;
        out.push(b'\n');
    }
    Ok(out)
}

/// The search body for `vector`, laid out as opensearch-benchmark lays it.
fn search_body(
    body: &Map<String, Value>,
    field: &str,
    k: u64,
    filter: &Filter,
    oversample: Option<&Value>,
    space_type: &str,
    vector: &[f32],
) -> Value {
    let mut b = body.clone();
    b.entry("size").or_insert(json!(k));
    let mut knn = json!({"vector": vector, "k": k});
    if let Filter::Efficient(f) = filter {
        knn["filter"] = f.clone();
    }
    if let Some(o) = oversample {
        knn["rescore"] = json!({"oversample_factor": o});
    }
    let knn = json!({"knn": {field: knn}});
    let query = match filter {
        Filter::Boolean(f) => json!({"bool": {"filter": f, "must": [knn]}}),
        Filter::Script(f) => json!({"script_score": {
            "query": {"bool": {"filter": f}},
            "script": {"source": "knn_score", "lang": "knn", "params": {
                "field": field, "query_value": vector, "space_type": space_type}}}}),
        _ => knn,
    };
    b.insert("query".into(), query);
    if let Filter::Post(f) = filter {
        b.insert("post_filter".into(), f.clone());
    }
    Value::Object(b)
}

/// The ids of an answer's hits, in order: `_id`, or `field` at the hit, in its `fields`, or
/// in its `_source`; a number as its text.
pub fn hit_ids(answer: &Value, field: &str) -> Vec<String> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    answer["hits"]["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|hit| {
            hit.get(field)
                .or_else(|| hit.get("fields").and_then(|f| f.get(field)?.get(0)))
                .or_else(|| hit.get("_source").and_then(|s| s.get(field)))
                .and_then(text)
        })
        .collect()
}

impl VectorOp {
    /// Whether client `client` has nothing left to send.
    pub fn exhausted(&self, client: usize) -> bool {
        match self {
            VectorOp::Bulk {
                rows,
                clients,
                places,
                ..
            } => places.at(client) >= share(*rows, *clients, client as u64).1,
            VectorOp::Search {
                rows,
                repetitions,
                clients,
                places,
                ..
            } => {
                let (_, n) = share(*rows, *clients, client as u64);
                places.at(client) >= n.saturating_mul(*repetitions)
            }
            VectorOp::Warmup { .. } => false,
        }
    }

    /// Runs until its data set is sent (the warm-up runs its iterations).
    pub fn finite(&self) -> bool {
        !matches!(self, VectorOp::Warmup { .. })
    }

    /// Every client back at the start of its share (a task run again starts over).
    pub fn begin(&self) {
        match self {
            VectorOp::Bulk { places, .. } | VectorOp::Search { places, .. } => places.reset(),
            VectorOp::Warmup { .. } => {}
        }
    }

    /// One request of client `client`: a bulk, a search with its recall, or the warm-up.
    pub async fn once(
        &self,
        ctx: &Context,
        client: usize,
        give_up: Duration,
    ) -> Result<(Done, Value), Failed> {
        let t = &ctx.target;
        match self {
            VectorOp::Bulk {
                index,
                field,
                id_field,
                bulk_size,
                rows,
                clients,
                data,
                places,
            } => {
                let (offset, n) = share(*rows, *clients, client as u64);
                let at = places.at(client);
                let take = (*bulk_size).min(n.saturating_sub(at));
                if take == 0 {
                    return Err(Failed(format!("client {client}: its rows are all sent")));
                }
                places.advance(client, take);
                let first = offset + at;
                let vectors = data.vectors(first, take).map_err(Failed)?;
                // Each row keeps the id of its number, sent again or not.
                let mut pending: Vec<(u64, Vec<f32>)> = (first..).zip(vectors).collect();
                let mut attempt = 0;
                loop {
                    let body =
                        bulk_body(index, field, id_field.as_deref(), &pending).map_err(Failed)?;
                    let answer = t
                        .send_at(
                            client,
                            Method::POST,
                            "/_bulk",
                            Some(("application/x-ndjson", body)),
                        )
                        .await?;
                    let (retry, refused) = refusals(&answer.body, pending.len());
                    let answer: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
                    if let Some(why) = refused {
                        return Err(Failed(why));
                    }
                    if retry.is_empty() {
                        let done = Done {
                            units: take,
                            ..Done::default()
                        };
                        return Ok((done, answer));
                    }
                    if attempt == RETRIES {
                        return Err(Failed(format!(
                            "{} document(s) still refused after {RETRIES} retries",
                            retry.len()
                        )));
                    }
                    pending = retry.into_iter().map(|i| pending[i].clone()).collect();
                    let wait = Duration::from_millis(500 << attempt.min(7));
                    tokio::time::sleep(wait.min(Duration::from_secs(60))).await;
                    attempt += 1;
                }
            }
            VectorOp::Search {
                path,
                field,
                k,
                body,
                filter,
                oversample,
                space_type,
                id_field,
                rows,
                clients,
                queries,
                truth,
                places,
                ..
            } => {
                let (offset, n) = share(*rows, *clients, client as u64);
                if n == 0 {
                    return Err(Failed(format!(
                        "client {client}: its share of queries is empty"
                    )));
                }
                let row = offset + places.at(client) % n;
                places.advance(client, 1);
                let vector = queries
                    .vectors(row, 1)
                    .map_err(Failed)?
                    .pop()
                    .unwrap_or_default();
                let wanted = truth.neighbours(row).map_err(Failed)?;
                let body = search_body(
                    body,
                    field,
                    *k,
                    filter,
                    oversample.as_ref(),
                    space_type,
                    &vector,
                );
                let reply = t
                    .send_at(
                        client,
                        Method::POST,
                        path,
                        Some((
                            "application/json",
                            serde_json::to_vec(&body).map_err(|e| Failed(e.to_string()))?,
                        )),
                    )
                    .await?;
                let answer: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
                let found = hit_ids(&answer, id_field);
                Ok((
                    Done {
                        units: 1,
                        recall: Some(Recall {
                            at_k: recall(&found, &wanted, *k as usize),
                            at_1: recall(&found, &wanted, 1),
                        }),
                        ..Done::default()
                    },
                    answer,
                ))
            }
            VectorOp::Warmup { index } => {
                if ctx.product != Product::OpenSearch {
                    return Err(Failed(format!(
                        "the engine ({}) has no k-NN warm-up: it is OpenSearch's k-NN plugin's",
                        ctx.product
                    )));
                }
                let path = format!("/_plugins/_knn/warmup/{index}");
                let began = std::time::Instant::now();
                loop {
                    let sent = t.send_at(client, Method::GET, &path, None).await;
                    // The warm-up is idempotent: asked again while a shard fails or the
                    // engine is busy, as opensearch-benchmark asks; a refusal is final.
                    let why = match sent {
                        Ok(reply) => {
                            let answer: Value =
                                serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
                            match answer["_shards"]["failed"].as_u64() {
                                Some(0) => {
                                    return Ok((
                                        Done {
                                            units: 1,
                                            ..Done::default()
                                        },
                                        answer,
                                    ))
                                }
                                Some(n) => format!("{n} shard(s) failed to warm up"),
                                None => "the answer holds no _shards.failed".into(),
                            }
                        }
                        Err(TargetError::Status { status, .. })
                            if status == 429 || status >= 500 =>
                        {
                            format!("status {status}")
                        }
                        Err(e) => return Err(e.into()),
                    };
                    if began.elapsed() >= give_up {
                        return Err(Failed(format!(
                            "{index}: still not warm after {give_up:?}: {why}"
                        )));
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            }
        }
    }

    /// `workload check`'s line of what it sends.
    pub fn how(&self) -> String {
        Shown(self).to_string()
    }
}

/// A bulk answer's items to send again (429, or the engine's own error) by position, or why
/// the request failed for good (a document refused for what it is, or items missing), read
/// item by item as the ingest reads them, whatever the `errors` flag says.
fn refusals(body: &[u8], sent: usize) -> (Vec<usize>, Option<String>) {
    let (answer, missing) = crate::ingest::bulk_answer::read(body).for_docs(sent);
    if let Some(why) = missing.or(answer.problem) {
        return (Vec::new(), Some(format!("the bulk answer: {why}")));
    }
    let mut again = Vec::new();
    for (i, item) in answer.failed {
        match item.status {
            429 | 500.. => again.push(i),
            status => {
                let reason = item.reason.unwrap_or_else(|| "no reason given".into());
                return (
                    Vec::new(),
                    Some(format!(
                        "a document was refused (status {status}): {reason}"
                    )),
                );
            }
        }
    }
    (again, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_split_as_opensearch_benchmark_splits_them() {
        assert_eq!(share(10, 3, 0), (0, 3));
        assert_eq!(share(10, 3, 1), (3, 3));
        assert_eq!(share(10, 3, 2), (6, 4));
        assert_eq!(share(2, 4, 3), (0, 2));
        assert_eq!(share(2, 4, 0), (0, 0));
        // Every row is taken once.
        for (total, clients) in [(1000, 7), (5, 5), (1, 3), (0, 2)] {
            let mut next = 0;
            for i in 0..clients {
                let (offset, n) = share(total, clients, i);
                if n > 0 {
                    assert_eq!(offset, next);
                    next += n;
                }
            }
            assert_eq!(next, total);
        }
    }

    #[test]
    fn recall_counts_the_true_neighbours_before_any_padding() {
        let found: Vec<String> = ["4", "9", "1", "7"].map(String::from).to_vec();
        assert_eq!(recall(&found, &[4, 1, 2, 3], 4), 0.5);
        assert_eq!(recall(&found, &[4, 1, 2, 3], 1), 1.0);
        assert_eq!(recall(&found, &[1, 4, 2, 3], 1), 0.0);
        // A short truth row, padded: the two neighbours before the padding are the truth
        // (opensearch-benchmark's trim would drop one of them, and the id before it).
        assert_eq!(recall(&found, &[4, 9, PADDING, PADDING], 4), 1.0);
        assert_eq!(recall(&found, &[PADDING, PADDING], 2), 1.0);
        // Only the answer's first k count.
        assert_eq!(recall(&found, &[7, 1], 2), 0.0);
        assert_eq!(recall(&[], &[7, 1], 2), 0.0);
    }

    #[test]
    fn ids_are_read_where_the_answer_holds_them() {
        let answer = json!({"hits": {"hits": [
            {"_id": "3", "fields": {"doc_id": ["3"]}},
            {"_id": "8", "_source": {"doc_id": 8}},
            {"_id": "5", "fields": {"_id": ["5"]}}
        ]}});
        assert_eq!(hit_ids(&answer, "_id"), ["3", "8", "5"]);
        assert_eq!(hit_ids(&answer, "doc_id"), ["3", "8"]);
        assert!(hit_ids(&json!({"error": "x"}), "_id").is_empty());
    }

    #[test]
    fn each_filter_is_laid_out_as_the_tool_lays_it() {
        let body = json!({"_source": false})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let f = json!({"term": {"color": "red"}});
        let v = [0.5f32, 1.0];
        let plain = search_body(&body, "v", 10, &Filter::None, None, "l2", &v);
        assert_eq!(plain["size"], 10);
        assert_eq!(plain["_source"], false);
        assert_eq!(plain["query"]["knn"]["v"]["k"], 10);
        assert_eq!(plain["query"]["knn"]["v"]["vector"], json!([0.5, 1.0]));
        let efficient = search_body(
            &body,
            "v",
            10,
            &Filter::Efficient(f.clone()),
            None,
            "l2",
            &v,
        );
        assert_eq!(efficient["query"]["knn"]["v"]["filter"], f);
        let post = search_body(&body, "v", 10, &Filter::Post(f.clone()), None, "l2", &v);
        assert_eq!(post["post_filter"], f);
        assert!(post["query"]["knn"]["v"].get("filter").is_none());
        let boolean = search_body(&body, "v", 10, &Filter::Boolean(f.clone()), None, "l2", &v);
        assert_eq!(boolean["query"]["bool"]["filter"], f);
        assert_eq!(boolean["query"]["bool"]["must"][0]["knn"]["v"]["k"], 10);
        let script = search_body(&body, "v", 10, &Filter::Script(f.clone()), None, "l2", &v);
        assert_eq!(
            script["query"]["script_score"]["query"]["bool"]["filter"],
            f
        );
        assert_eq!(
            script["query"]["script_score"]["script"]["params"]["space_type"],
            "l2"
        );
        let sized = json!({"size": 3}).as_object().cloned().unwrap_or_default();
        let rescored = search_body(&sized, "v", 10, &Filter::None, Some(&json!(2.0)), "l2", &v);
        assert_eq!(rescored["size"], 3);
        assert_eq!(
            rescored["query"]["knn"]["v"]["rescore"]["oversample_factor"],
            2.0
        );
    }

    #[test]
    fn a_bulk_body_holds_each_row_under_its_number() {
        let body = bulk_body(
            "i",
            "v",
            Some("doc_id"),
            &[(7, vec![1.0, 2.5]), (8, vec![0.0, -1.0])],
        )
        .unwrap_or_default();
        let lines: Vec<Value> = body
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap_or(Value::Null))
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["index"]["_id"], "7");
        assert_eq!(lines[0]["index"]["_index"], "i");
        assert_eq!(lines[1]["v"], json!([1.0, 2.5]));
        assert_eq!(lines[1]["doc_id"], 7);
        assert_eq!(lines[2]["index"]["_id"], "8");
    }

    #[test]
    fn a_bulk_answer_says_what_to_send_again_and_what_fails() {
        let ok = br#"{"errors": false, "items": [{"index": {"status": 201}}, {"index": {"status": 201}}]}"#;
        assert_eq!(refusals(ok, 2), (vec![], None));
        let busy = br#"{"errors": true, "items": [
            {"index": {"status": 201}}, {"index": {"status": 429}}]}"#;
        assert_eq!(refusals(busy, 2), (vec![1], None));
        let bad = br#"{"errors": true, "items": [
            {"index": {"status": 400, "error": {"type": "x", "reason": "dims differ"}}}]}"#;
        let (_, why) = refusals(bad, 1);
        assert!(why.is_some_and(|w| w.contains("dims differ")));
        let (_, why) = refusals(busy, 3);
        assert!(why.is_some_and(|w| w.contains("2 items for 3")));
        // A cluster saying no errors beside a refused item, or with no items at all.
        let lying = br#"{"errors": false, "items": [
            {"index": {"status": 201}}, {"index": {"status": 400, "error": {"type": "x", "reason": "bad"}}}]}"#;
        assert!(refusals(lying, 2).1.is_some_and(|w| w.contains("bad")));
        let empty = br#"{"errors": false, "items": []}"#;
        assert!(refusals(empty, 2)
            .1
            .is_some_and(|w| w.contains("0 items for 2")));
    }

    fn write(dir: &Path, name: &str, header: (u32, u32), payload: &[u8]) -> PathBuf {
        let path = dir.join(name);
        let mut bytes = header.0.to_le_bytes().to_vec();
        bytes.extend(header.1.to_le_bytes());
        bytes.extend(payload);
        std::fs::write(&path, bytes).ok();
        path
    }

    #[test]
    fn a_value_that_is_not_a_finite_number_is_refused_naming_its_row() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for (bad, said) in [
            (f32::NAN, "NaN"),
            (f32::INFINITY, "inf"),
            (f32::NEG_INFINITY, "-inf"),
        ] {
            let b: Vec<u8> = [1.0f32, 2.0, 3.0, bad]
                .iter()
                .flat_map(|f| f.to_le_bytes())
                .collect();
            let p = write(dir.path(), "n.fbin", (2, 2), &b);
            let f = BigAnn::open(&p, "n.fbin", false).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(f.vectors(0, 1), Ok(vec![vec![1.0, 2.0]]));
            let e = f.vectors(0, 2).err().unwrap_or_default();
            assert!(
                e.starts_with("n.fbin: row 1, value 1 (byte 20)") && e.contains(said),
                "{e}"
            );
        }
    }

    #[test]
    fn bigann_files_are_read_and_their_lengths_checked() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let floats: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let base = write(dir.path(), "b.fbin", (3, 2), &floats);
        let b = BigAnn::open(&base, "b.fbin", false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((b.rows(), b.width()), (3, 2));
        assert_eq!(b.vectors(1, 2), Ok(vec![vec![3.0, 4.0], vec![5.0, 6.0]]));
        assert!(b
            .vectors(2, 2)
            .is_err_and(|e| e.contains("rows 2 to 4 asked of 3")));
        let bytes = write(dir.path(), "b.u8bin", (2, 2), &[1, 2, 3, 255]);
        let b = BigAnn::open(&bytes, "b.u8bin", false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.vectors(1, 1), Ok(vec![vec![3.0, 255.0]]));
        // Ids then distances.
        let mut truth: Vec<u8> = [5u32, PADDING]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        truth.extend([0.5f32, 0.0].iter().flat_map(|f| f.to_le_bytes()));
        let gt = write(dir.path(), "gt.bin", (1, 2), &truth);
        let g = BigAnn::open(&gt, "gt.bin", true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(g.neighbours(0), Ok(vec![5, PADDING]));
        // What is refused, naming the file.
        let short = write(dir.path(), "s.fbin", (4, 2), &floats);
        let e = BigAnn::open(&short, "s.fbin", false)
            .err()
            .unwrap_or_default();
        assert!(e.starts_with("s.fbin: its header says 4 rows of 2"), "{e}");
        let e = BigAnn::open(&base, "b.fbin", true)
            .err()
            .unwrap_or_default();
        assert!(e.contains("ends in .bin"), "{e}");
        let e = BigAnn::open(&gt, "gt.bin", false).err().unwrap_or_default();
        assert!(e.contains("ends in .fbin or .u8bin"), "{e}");
        let tiny = dir.path().join("t.fbin");
        std::fs::write(&tiny, [1u8, 2]).ok();
        let e = BigAnn::open(&tiny, "t.fbin", false)
            .err()
            .unwrap_or_default();
        assert!(e.contains("shorter than a bigann header"), "{e}");
        let zero = write(dir.path(), "z.fbin", (4, 0), &[]);
        let e = BigAnn::open(&zero, "z.fbin", false)
            .err()
            .unwrap_or_default();
        assert!(e.contains("rows of 0 values"), "{e}");
        // A huge header does not overflow: it is a length that does not match.
        let huge = write(dir.path(), "h.bin", (u32::MAX, u32::MAX), &[]);
        let e = BigAnn::open(&huge, "h.bin", true).err().unwrap_or_default();
        assert!(e.contains("but it holds 8"), "{e}");
    }
}

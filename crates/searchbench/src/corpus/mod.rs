//! Corpora: deterministic document generators and readers of the user's files.
//!
//! Every corpus is a [`DocSource`]: the ingest driver asks it to append the next document's
//! JSON straight into the bulk body it is building, so a document is written once and never
//! re-encoded on the way to the target.

pub mod auditbeat;
pub mod cluster_metrics;
pub mod convert;
mod counter;
pub mod csv_types;
pub mod csvdoc;
pub mod files;
pub mod logs;
pub mod part;
pub mod synth;
pub mod text;
pub mod track_file;
pub mod transactions;
pub mod truth_file;
mod words;

pub use auditbeat::{Auditbeat, AuditbeatSpec};
pub use cluster_metrics::{ClusterMetrics, MetricsSpec, PartitionTruth, TruthHandle};
pub use counter::Counter;
pub use files::{json_object_problem, CsvReader, LineCheck, NdjsonReader};
pub use logs::{Logs, LogsSpec};
pub use transactions::{Transactions, TransactionsSpec};

/// What one call to [`DocSource::next_into`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A document's JSON was appended to the buffer (one line, no trailing newline).
    Doc,
    /// An input line could not be turned into a document. Nothing was appended; the caller
    /// records it in the failure file and goes on (or stops, with `--fail-fast`).
    Bad(BadLine),
}

/// A malformed input line, with enough to find it and to keep it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// File name (or `-` for stdin) the line came from.
    pub source: String,
    /// 1-based line number in that file.
    pub line: u64,
    pub reason: String,
    /// The raw line as read, so nothing is lost.
    pub raw: Vec<u8>,
}

/// Errors that end a corpus: unreadable files, bad arguments. Bad lines are not errors.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// Reading stopped partway (e.g. a truncated or corrupt gzip file): what was read before
    /// is good; this names where it stopped.
    #[error("{path}: line {line}{}: {source}", compressed_at.map(|n| format!(" (after {n} bytes of the compressed file)")).unwrap_or_default())]
    Read {
        path: String,
        /// 1-based line that could not be read.
        line: u64,
        /// Bytes of the compressed file consumed when it stopped, for gzip input.
        compressed_at: Option<u64>,
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(String),
}

/// A stream of documents as ready-to-send JSON bytes.
/// The next item of `inner` while `left` counts down from a limit (a part's share, a
/// warm-up's slice): `None` once it reaches 0 or `inner` ends.
pub fn next_within(
    inner: &mut dyn DocSource,
    left: &mut u64,
    out: &mut Vec<u8>,
) -> Result<Option<Item>, CorpusError> {
    if *left == 0 {
        return Ok(None);
    }
    let item = inner.next_into(out)?;
    if item.is_some() {
        *left -= 1;
    }
    Ok(item)
}

pub trait DocSource: Send {
    /// Appends the next document to `out` and returns `Some(Item::Doc)`, or returns
    /// `Some(Item::Bad(..))` for a line that is not a document, or `None` at the end.
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError>;

    /// How many documents the source will yield, when known (for progress and ETA).
    fn len_hint(&self) -> Option<u64> {
        None
    }

    /// A short description for messages and results, e.g. `logs (seed 1, 200000 docs)`.
    fn describe(&self) -> String;

    /// The files this source reads, in order (none for a generator).
    fn files(&self) -> Vec<String> {
        Vec::new()
    }

    /// Where the document `next_into` returned last came from: its file's number in
    /// [`DocSource::files`] and its 1-based line. `None` for a generator.
    fn origin(&self) -> Option<(u32, u64)> {
        None
    }

    /// The source as cluster-metrics rows, when its documents are such rows: what the sketch
    /// store's columnar load reads instead of the documents' text. `None` for any other.
    fn rows(&mut self) -> Option<&mut dyn RowSource> {
        None
    }
}

/// A source of cluster-metrics rows (the same stream its documents are written from).
pub trait RowSource: Send {
    /// The next row, `None` at the end.
    fn next_row(&mut self) -> Option<cluster_metrics::Row>;
}

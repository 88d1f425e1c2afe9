//! The user's own files as corpora: NDJSON (one JSON object per line) and CSV with a header,
//! plain or compressed (gzip, bzip2 or zstd, found by the first bytes or by the name:
//! [`compressed`]), or stdin (`-`).
//!
//! Bad input never ends a corpus: a line that is not a JSON object, or a CSV record with the
//! wrong number of fields or a cell that does not fit its type, comes back as
//! [`Item::Bad`] with the file, the 1-based line number, the reason and the raw bytes, and
//! the next line is read as usual. Only I/O errors end the stream.
//!
//! Bytes become lines in one place (`Lines`), whatever they come from, and resident memory
//! never grows with the file: a plain NDJSON file is mapped with only a few MiB of it resident
//! ([`mapped`]); anything else (CSV, compressed files, stdin, pipes) goes through a read buffer of
//! [`READ_BUFFER`] bytes ([`plain`] for a regular file). A regular file is read up to the
//! size it had when it was opened, and one cut short under the reader ends the corpus with an
//! error naming the byte where reading stopped ([`plain::Truncated`]). An over-long NDJSON
//! line is a bad line read past without being held; an over-long CSV record ends the corpus
//! ([`record_bound`]).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::csv_types::{self, CsvTypes, TypedColumns};
use super::csvdoc::CsvToJson;
use super::{transactions, BadLine, CorpusError, DocSource, Item};
use compressed::Compression;
use record_bound::RecordBound;

pub mod compressed;
pub mod json_check;
pub mod mapped;
pub mod plain;
pub mod record_bound;
mod sigbus;

/// The read buffer: small enough to stay in a core's L2 cache, so the line split, the check
/// and the copy into the bulk body read what the kernel has just written there.
pub const READ_BUFFER: usize = 256 << 10;

/// The longest NDJSON line read as a document by default: Elasticsearch's and OpenSearch's
/// default `http.max_content_length`, so a longer line could never be indexed in any bulk
/// request. Raise it with [`NdjsonReader::with_max_line`] (`--max-line`).
pub const DEFAULT_MAX_LINE: usize = 100 << 20;

/// How much of an over-long line the failure file keeps, to recognise it by.
pub const OVER_LONG_PREFIX: usize = 1024;

/// Opens `path` (`-` = stdin) for reading, decompressing gzip, bzip2 or zstd as the content's
/// first bytes (or else the name) say ([`compressed::Compression`]).
pub fn open_input(path: &str) -> Result<Box<dyn BufRead + Send>, CorpusError> {
    Ok(open_input_counted(path)?.0)
}

/// Bytes of a compressed file consumed so far, to say where a corrupt one stopped.
pub type CompressedRead = Arc<AtomicU64>;

/// [`open_input`], with the count of compressed bytes read when the input is compressed.
pub fn open_input_counted(
    path: &str,
) -> Result<(Box<dyn BufRead + Send>, Option<CompressedRead>), CorpusError> {
    let io = |source| CorpusError::Io {
        path: path.to_string(),
        source,
    };
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        let file = File::open(path).map_err(io)?;
        if file.metadata().map_err(io)?.is_file() {
            Box::new(plain::PlainFile::new(file).map_err(io)?)
        } else {
            // A pipe or a device: read as it comes, to its end.
            Box::new(file)
        }
    };
    let read = CompressedRead::default();
    let counted = Counted {
        inner: raw,
        read: read.clone(),
    };
    let mut reader = BufReader::with_capacity(READ_BUFFER, counted);
    let magic = reader.fill_buf().map_err(io)?;
    match Compression::sniff(magic, path) {
        Compression::None => Ok((Box::new(reader), None)),
        c => Ok((c.decode(reader).map_err(io)?, Some(read))),
    }
}

/// A reader that counts the bytes it hands out.
struct Counted {
    inner: Box<dyn Read + Send>,
    read: CompressedRead,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A read error partway through `name`, with the line it stopped at.
fn read_error(
    name: &str,
    line: u64,
    compressed: &Option<CompressedRead>,
    source: std::io::Error,
) -> CorpusError {
    CorpusError::Read {
        path: name.to_string(),
        line,
        compressed_at: compressed.as_ref().map(|c| c.load(Ordering::Relaxed)),
        source,
    }
}

/// A user file as a document source, by name: `*.csv` / `*.csv.gz` → [`CsvReader`], anything
/// else (`*.ndjson`, `*.json`, `*.jsonl`, `-` for stdin, ... with or without `.gz`) →
/// [`NdjsonReader`].
pub fn open(path: &str) -> Result<Box<dyn DocSource>, CorpusError> {
    let name = [".gz", ".bz2", ".zst"]
        .iter()
        .find_map(|ext| path.strip_suffix(ext))
        .unwrap_or(path)
        .to_ascii_lowercase();
    if name.ends_with(".csv") {
        Ok(Box::new(CsvReader::open(path)?))
    } else {
        Ok(Box::new(NdjsonReader::open(path)?))
    }
}

fn display_name(path: &str) -> String {
    if path == "-" {
        "-".into()
    } else {
        path.to_string()
    }
}

/// NDJSON reader: each non-blank line must be one JSON object; it is appended as is (minus
/// the line ending), so the bytes sent are the bytes the user wrote.
pub struct NdjsonReader {
    input: Input,
    lines: Lines,
}

/// Where an [`NdjsonReader`]'s bytes come from.
enum Input {
    /// A plain regular file, mapped: lines are split and checked where they lie.
    Mapped(mapped::MappedFile),
    /// Anything else (stdin, pipes, gzip) through a read buffer.
    Stream(Box<dyn BufRead + Send>),
}

/// Bytes into lines, and lines into documents or bad lines.
struct Lines {
    name: String,
    /// A line that straddles two buffer fills, gathered here first (most lines are copied
    /// straight from the buffer into the bulk body).
    line: Vec<u8>,
    /// The line being read is over the limit: the rest of it is counted, not kept.
    skipping: Option<OverLong>,
    line_no: u64,
    compressed: Option<CompressedRead>,
    check: LineCheck,
    /// Lines longer than this (bytes, line ending excluded) are bad lines, never buffered.
    max_line: usize,
}

/// How much of each NDJSON line the reader checks before sending it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineCheck {
    /// Exactly one JSON object in UTF-8 (the reader's default): anything else is a bad line
    /// and is never sent.
    #[default]
    Full,
    /// Only what the engine would let through: the line starts with `{`, ends with `}` and is
    /// UTF-8 (engines decode overlong and surrogate UTF-8 without a word). The JSON itself is
    /// left to the engine's parser, which refuses any line that is not one JSON object, item
    /// by item; the sender then judges the refused line with [`json_object_problem`] and
    /// counts it as a bad line, with the same reason and file:line as [`LineCheck::Full`].
    /// Saves the check's CPU (about half of the driver's on 1 KB documents). The one
    /// difference: engines take JSON with comments (`/* */`, `//`), and index it without them.
    Engine,
}

/// A line longer than the limit: its length so far and its first bytes.
struct OverLong {
    len: u64,
    prefix: Vec<u8>,
}

impl OverLong {
    /// The line so far is `head` then `more`.
    fn new(head: &[u8], more: &[u8]) -> Self {
        let mut over = OverLong {
            len: 0,
            prefix: Vec::with_capacity(OVER_LONG_PREFIX),
        };
        over.more(head);
        over.more(more);
        over
    }

    /// The line goes on with `more`.
    fn more(&mut self, more: &[u8]) {
        let room = OVER_LONG_PREFIX.saturating_sub(self.prefix.len());
        self.prefix.extend_from_slice(&more[..more.len().min(room)]);
        self.len += more.len() as u64;
    }

    fn into_bad(self, name: &str, line: u64, max: usize) -> Item {
        Item::Bad(BadLine {
            source: name.to_string(),
            line,
            reason: format!(
                "line of {} bytes, longer than the limit of {max} bytes (--max-line raises \
                 it); the failure file keeps its first {} bytes",
                self.len,
                self.prefix.len()
            ),
            raw: self.prefix,
        })
    }
}

impl std::fmt::Debug for NdjsonReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdjsonReader")
            .field("name", &self.lines.name)
            .field("mapped", &matches!(self.input, Input::Mapped(_)))
            .finish()
    }
}

impl NdjsonReader {
    pub fn open(path: &str) -> Result<Self, CorpusError> {
        if let Some(file) = mappable(path)? {
            return Ok(Self::with_input(display_name(path), Input::Mapped(file)));
        }
        let (input, compressed) = open_input_counted(path)?;
        Ok(Self::from_reader(display_name(path), input).with_compressed_count(compressed))
    }

    /// From any buffered reader; `name` is used in bad-line reports.
    pub fn from_reader(name: impl Into<String>, input: Box<dyn BufRead + Send>) -> Self {
        Self::with_input(name.into(), Input::Stream(input))
    }

    fn with_input(name: String, input: Input) -> Self {
        NdjsonReader {
            input,
            lines: Lines {
                name,
                line: Vec::with_capacity(4096),
                skipping: None,
                line_no: 0,
                compressed: None,
                check: LineCheck::Full,
                max_line: DEFAULT_MAX_LINE,
            },
        }
    }

    /// Makes lines longer than `max` bytes bad lines (the default is [`DEFAULT_MAX_LINE`]).
    pub fn with_max_line(mut self, max: usize) -> Self {
        self.lines.max_line = max;
        self
    }

    /// Checks lines as `check` says (the default is [`LineCheck::Full`]).
    pub fn with_check(mut self, check: LineCheck) -> Self {
        self.lines.check = check;
        self
    }

    /// Names the compressed offset in read errors (from [`open_input_counted`]).
    pub fn with_compressed_count(mut self, compressed: Option<CompressedRead>) -> Self {
        self.lines.compressed = compressed;
        self
    }

    /// Whether the file is read through a mapping rather than a read buffer.
    pub fn is_mapped(&self) -> bool {
        matches!(self.input, Input::Mapped(_))
    }

    /// The lines of the plain file `path` that start in its bytes `[from, to)` (a part's
    /// share, `--part`): from the first line that starts at or after `from` to the last that
    /// starts before `to`, each line read whole; the line numbers it reports are the file's.
    /// The shares of `[0, len)` cut at any points read every line exactly once. `None` when
    /// the file is not a plain regular file that can be mapped (compressed, a pipe, empty).
    pub fn open_range(path: &str, from: u64, to: u64) -> Result<Option<Self>, CorpusError> {
        let Some(mut file) = mappable(path)? else {
            return Ok(None);
        };
        let io = |source| CorpusError::Io {
            path: path.to_string(),
            source,
        };
        let handle = std::fs::File::open(path).map_err(io)?;
        let len = handle.metadata().map_err(io)?.len();
        let start = line_start(&handle, from, len).map_err(io)?;
        let stop = line_start(&handle, to, len).map_err(io)?;
        let (start, stop) = (
            usize::try_from(start).unwrap_or(usize::MAX),
            usize::try_from(stop).unwrap_or(usize::MAX),
        );
        let lines_before = file.count_newlines(start).map_err(io)?;
        file.restrict(start, stop);
        let mut reader = Self::with_input(display_name(path), Input::Mapped(file));
        reader.lines.line_no = lines_before;
        Ok(Some(reader))
    }
}

/// Where the first line that starts at or after `at` begins: `at` itself when it is the
/// file's start or a line's, else just past the next newline (`len` when there is none).
fn line_start(file: &File, at: u64, len: u64) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt as _;
    if at == 0 || at >= len {
        return Ok(at.min(len));
    }
    let mut buf = vec![0u8; 64 << 10];
    let mut pos = at - 1;
    while pos < len {
        let n = file.read_at(&mut buf, pos)?;
        if n == 0 {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
    Ok(len)
}

/// `path` opened to be read through a mapping, when it is a non-empty regular file neither its
/// name nor its first bytes say is compressed; `None` for anything else (stdin, a pipe, a
/// device, a compressed file, a file the OS will not map).
fn mappable(path: &str) -> Result<Option<mapped::MappedFile>, CorpusError> {
    use std::os::unix::fs::FileExt as _;
    if path == "-" || Compression::by_name(path) {
        return Ok(None);
    }
    let io = |source| CorpusError::Io {
        path: path.to_string(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Ok(None);
    }
    let mut magic = [0u8; 4];
    let n = file.read_at(&mut magic, 0).map_err(io)?;
    if Compression::sniff(&magic[..n], path) != Compression::None {
        return Ok(None);
    }
    mapped::MappedFile::open(file).map_err(io)
}

/// Why `line` is not a JSON object, if it is not. The fast check proves the common valid
/// line; anything it does not prove gets the full answer (and reason) from serde_json.
fn ndjson_problem(line: &[u8]) -> Option<String> {
    if json_check::is_json_object(line) {
        None
    } else {
        ndjson_problem_slow(line)
    }
}

/// [`ndjson_problem`] as far as `check` goes: with [`LineCheck::Engine`], a line (already
/// trimmed) that starts with `{`, ends with `}` and is UTF-8 passes unparsed; any other is
/// judged fully, so its reason is the same as with the full check.
fn line_problem(line: &[u8], check: LineCheck) -> Option<String> {
    match check {
        LineCheck::Engine if passes_engine_check(line) => None,
        _ => ndjson_problem(line),
    }
}

/// [`LineCheck::Engine`]'s check: `{` first, `}` last, UTF-8 throughout. The UTF-8 check is
/// SIMD (`simdutf8`, ~2× std's on ASCII-heavy lines), as it reads every byte.
pub fn passes_engine_check(line: &[u8]) -> bool {
    line.first() == Some(&b'{')
        && line.last() == Some(&b'}')
        && simdutf8::basic::from_utf8(line).is_ok()
}

/// Why a document (an NDJSON line without its line ending) is not one JSON object in UTF-8,
/// if it is not: the full check's reason, for a line the engine refused.
pub fn json_object_problem(doc: &[u8]) -> Option<String> {
    ndjson_problem(doc.trim_ascii())
}

/// [`ndjson_problem`] the slow way: checking the first byte first makes the common mistakes
/// (arrays, bare values, pretty-printed JSON) cheap to report; the full validation parses
/// without building anything (`IgnoredAny`).
fn ndjson_problem_slow(line: &[u8]) -> Option<String> {
    if line.first() != Some(&b'{') {
        return Some("not a JSON object (a line must start with '{')".into());
    }
    // serde_json skips over string contents without looking at their bytes: invalid UTF-8
    // would go to the target as is (indexed as garbage, or refused).
    if let Some(reason) = utf8_problem(line) {
        return Some(reason);
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
        Ok(_) => None,
        Err(e) => Some(format!("invalid JSON: {e}")),
    }
}

/// Why `bytes` are not UTF-8, naming the first bad byte (1-based column in the line).
fn utf8_problem(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes).err().map(|e| {
        format!(
            "invalid UTF-8 at byte {} of the line (JSON text must be UTF-8)",
            e.valid_up_to() + 1
        )
    })
}

/// One line of an NDJSON file (without its `\n`): a document appended to `out`, a bad line,
/// or `None` for a blank line.
fn ndjson_line(
    name: &str,
    line_no: u64,
    line: &[u8],
    check: LineCheck,
    out: &mut Vec<u8>,
) -> Option<Item> {
    let mut text = line.trim_ascii();
    if line_no == 1 {
        // Editors on Windows like to start files with a UTF-8 byte order mark.
        text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    }
    if text.is_empty() {
        return None;
    }
    if let Some(reason) = line_problem(text, check) {
        let raw = line.strip_suffix(b"\r").unwrap_or(line);
        return Some(Item::Bad(BadLine {
            source: name.to_string(),
            line: line_no,
            reason,
            raw: raw.to_vec(),
        }));
    }
    out.extend_from_slice(text);
    Some(Item::Doc)
}

impl Lines {
    /// The next document (appended to `out`) or bad line from `input`; `None` at its end.
    fn next<R: BufRead + ?Sized>(
        &mut self,
        input: &mut R,
        out: &mut Vec<u8>,
    ) -> Result<Option<Item>, CorpusError> {
        let max = self.max_line;
        let (line, skipping) = (&mut self.line, &mut self.skipping);
        loop {
            // Lines are copied once, from the buffer into `out`.
            let buf = input.fill_buf().map_err(|source| {
                read_error(&self.name, self.line_no + 1, &self.compressed, source)
            })?;
            let newline = memchr::memchr(b'\n', buf);
            let item = if let Some(over) = skipping.as_mut() {
                // The rest of an over-long line: counted, never kept.
                let taken = newline.unwrap_or(buf.len());
                over.more(&buf[..taken]);
                let ended = newline.is_some() || buf.is_empty();
                input.consume(taken + usize::from(newline.is_some()));
                if ended {
                    self.line_no += 1;
                    skipping
                        .take()
                        .map(|over| over.into_bad(&self.name, self.line_no, max))
                } else {
                    None
                }
            } else if buf.is_empty() {
                if line.is_empty() {
                    return Ok(None);
                }
                // The last line, without a line ending.
                self.line_no += 1;
                let item = ndjson_line(&self.name, self.line_no, line, self.check, out);
                line.clear();
                item
            } else if let Some(end) = newline {
                self.line_no += 1;
                let item = if line.len() + end > max {
                    let over = OverLong::new(line, &buf[..end]);
                    forget_line(line);
                    Some(over.into_bad(&self.name, self.line_no, max))
                } else if line.is_empty() {
                    ndjson_line(&self.name, self.line_no, &buf[..end], self.check, out)
                } else {
                    line.extend_from_slice(&buf[..end]);
                    let item = ndjson_line(&self.name, self.line_no, line, self.check, out);
                    line.clear();
                    item
                };
                input.consume(end + 1);
                item
            } else {
                let n = buf.len();
                if line.len() + n > max {
                    *skipping = Some(OverLong::new(line, buf));
                    forget_line(line);
                } else {
                    line.extend_from_slice(buf);
                }
                input.consume(n);
                None
            };
            if let Some(item) = item {
                return Ok(Some(item));
            }
        }
    }
}

impl DocSource for NdjsonReader {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        match &mut self.input {
            Input::Stream(input) => self.lines.next(input.as_mut(), out),
            Input::Mapped(file) => {
                let (mark, from, line) = (out.len(), file.position(), self.lines.line_no + 1);
                let item = self.lines.next(file, out);
                let cut_short = matches!(&item, Err(CorpusError::Read { source, .. })
                    if plain::truncated(source).is_some());
                if file.faulted() || cut_short {
                    // The file was cut short while this line was read: what came back may be
                    // the guard's newlines, not the file's bytes. Reading stopped at the
                    // line's start: every line before it was handed out whole.
                    out.truncate(mark);
                    let cut = file.truncated_at(from);
                    return Err(read_error(&self.lines.name, line, &None, cut));
                }
                if matches!(item, Ok(None)) {
                    // Read to its end: unmapped now, and its guard freed for the next file.
                    self.input = Input::Stream(Box::new(std::io::empty()));
                }
                item
            }
        }
    }

    fn describe(&self) -> String {
        format!("NDJSON file {}", self.lines.name)
    }

    fn files(&self) -> Vec<String> {
        vec![self.lines.name.clone()]
    }

    fn origin(&self) -> Option<(u32, u64)> {
        Some((0, self.lines.line_no))
    }
}

/// Empties a line buffer that grew towards the limit and gives its memory back: one long
/// line must not keep the reader large for the rest of the file.
fn forget_line(line: &mut Vec<u8>) {
    line.clear();
    line.shrink_to(4096);
}

/// CSV reader: the first record is the header. A header that matches a known mapping (the
/// `transactions` DVF columns) gives typed documents with a `geo_point`; any other header
/// gives one string field per column. Empty cells are left out of the document.
pub struct CsvReader {
    name: String,
    compressed: Option<CompressedRead>,
    reader: csv::Reader<RecordBound<Box<dyn BufRead + Send>>>,
    record: csv::ByteRecord,
    to_json: CsvToJson,
    typed: bool,
    /// Typed by inferred or given column types.
    user_types: bool,
}

impl std::fmt::Debug for CsvReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvReader")
            .field("name", &self.name)
            .field("typed", &self.typed)
            .finish()
    }
}

impl CsvReader {
    pub fn open(path: &str) -> Result<Self, CorpusError> {
        let (input, compressed) = open_input_counted(path)?;
        let mut reader = Self::from_reader(display_name(path), input)?;
        reader.compressed = compressed;
        Ok(reader)
    }

    /// A user's CSV file typed by `types` (given, else inferred from its first
    /// [`csv_types::SAMPLE`] records; stdin is not sampled). A header of a known mapping
    /// (transactions) keeps that mapping. Returns the columns' types when they were resolved
    /// here (their mapping is what the index should get).
    pub fn open_typed(
        path: &str,
        types: &CsvTypes,
    ) -> Result<(Self, Option<TypedColumns>), CorpusError> {
        let (input, compressed) = open_input_counted(path)?;
        let name = display_name(path);
        let mut reader = Self::from_reader(name.clone(), input)?;
        reader.compressed = compressed;
        if reader.typed {
            return Ok((reader, None));
        }
        let header: Vec<String> = reader
            .reader
            .byte_headers()
            .map_err(|e| csv_error(&name, e))?
            .iter()
            .map(|h| String::from_utf8_lossy(h.trim_ascii()).into_owned())
            .collect();
        let sample = if types.infer && path != "-" {
            sample(path, &name)?
        } else {
            Vec::new()
        };
        let columns = TypedColumns::resolve(&name, &header, &sample, types)?;
        reader.to_json = CsvToJson::columns_typed(&columns);
        reader.user_types = true;
        Ok((reader, Some(columns)))
    }

    pub fn from_reader(
        name: impl Into<String>,
        input: Box<dyn BufRead + Send>,
    ) -> Result<Self, CorpusError> {
        let name = name.into();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(RecordBound::new(input, DEFAULT_MAX_LINE));
        let header = reader
            .byte_headers()
            .map_err(|e| csv_error(&name, e))?
            .clone();
        if let Some(reason) = utf8_problem(header.as_slice()) {
            return Err(CorpusError::Invalid(format!(
                "{name}: line 1 (the header): {}",
                reason.replace(" of the line", " of the header's fields")
            )));
        }
        if header.is_empty() {
            return Err(CorpusError::Invalid(format!(
                "{name}: empty CSV (no header)"
            )));
        }
        let typed = transactions::MAPPING.matches(header.iter());
        let to_json = if typed {
            CsvToJson::typed(&transactions::MAPPING)
        } else {
            CsvToJson::untyped(header.iter())
        };
        Ok(CsvReader {
            name,
            compressed: None,
            reader,
            record: csv::ByteRecord::new(),
            to_json,
            typed,
            user_types: false,
        })
    }

    /// Ends the corpus with an error at a record longer than `max` bytes (the default is
    /// [`DEFAULT_MAX_LINE`]): the csv crate holds a record whole, so it cannot be skipped.
    pub fn with_max_line(mut self, max: usize) -> Self {
        self.reader.get_mut().set_max(max);
        self
    }

    /// Whether the header matched a known mapping (typed documents).
    pub fn is_typed(&self) -> bool {
        self.typed
    }
}

/// The first records of the CSV file at `path` (after its header), to infer types from.
fn sample(path: &str, name: &str) -> Result<Vec<csv::ByteRecord>, CorpusError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(open_input(path)?);
    let mut out = Vec::new();
    for record in reader.byte_records().take(csv_types::SAMPLE) {
        match record {
            Ok(r) => out.push(r),
            Err(e) if e.is_io_error() => return Err(csv_error(name, e)),
            // A malformed record is reported when it is read for real.
            Err(_) => {}
        }
    }
    Ok(out)
}

fn csv_error(name: &str, e: csv::Error) -> CorpusError {
    match e.into_kind() {
        csv::ErrorKind::Io(source) => CorpusError::Io {
            path: name.to_string(),
            source,
        },
        other => CorpusError::Invalid(format!("{name}: {other:?}")),
    }
}

impl DocSource for CsvReader {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        let more = match self.reader.read_byte_record(&mut self.record) {
            Ok(more) => more,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                let reason = e.to_string();
                if let csv::ErrorKind::Io(source) = e.into_kind() {
                    // The record being read when it stopped: the reader's position is its start.
                    let at = self.reader.position().line();
                    return Err(read_error(&self.name, at, &self.compressed, source));
                }
                // Not valid CSV (e.g. invalid UTF-8 is not an error for byte records, so this is rare).
                return Ok(Some(Item::Bad(BadLine {
                    source: self.name.clone(),
                    line,
                    reason,
                    raw: Vec::new(),
                })));
            }
        };
        if !more {
            return Ok(None);
        }
        let next = self.reader.position().byte();
        self.reader.get_mut().record_starts_at(next);
        let line = self.record.position().map_or(0, |p| p.line());
        let bad = |reason: String, record: &csv::ByteRecord| {
            // The record re-joined with commas: the raw line up to CSV quoting.
            let raw = record.iter().collect::<Vec<_>>().join(&b","[..]);
            Ok(Some(Item::Bad(BadLine {
                source: self.name.clone(),
                line,
                reason,
                raw,
            })))
        };
        if let Some(reason) = utf8_problem(self.record.as_slice()) {
            return bad(
                reason.replace(" of the line", " of the record's fields"),
                &self.record,
            );
        }
        if self.record.len() != self.to_json.columns() {
            return bad(
                format!(
                    "{} fields, the header has {}",
                    self.record.len(),
                    self.to_json.columns()
                ),
                &self.record,
            );
        }
        match self.to_json.write(self.record.iter(), out) {
            Ok(()) => Ok(Some(Item::Doc)),
            Err(reason) => bad(reason, &self.record),
        }
    }

    fn files(&self) -> Vec<String> {
        vec![self.name.clone()]
    }

    fn origin(&self) -> Option<(u32, u64)> {
        Some((0, self.record.position().map_or(0, |p| p.line())))
    }

    fn describe(&self) -> String {
        format!(
            "CSV file {}{}",
            self.name,
            if self.typed {
                " (transactions mapping)"
            } else if self.user_types {
                " (typed columns)"
            } else {
                ""
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(source: &mut dyn DocSource) -> Vec<Result<String, BadLine>> {
        let mut all = Vec::new();
        loop {
            let mut out = Vec::new();
            match source.next_into(&mut out).unwrap() {
                None => return all,
                Some(Item::Doc) => all.push(Ok(String::from_utf8(out).unwrap())),
                Some(Item::Bad(bad)) => all.push(Err(bad)),
            }
        }
    }

    #[test]
    fn byte_ranges_cut_anywhere_read_every_line_once_with_its_own_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docs.ndjson");
        // Lines of different lengths, a blank one, a bad one and a long one, no final newline.
        let mut text = String::new();
        let mut want: Vec<(u64, String)> = Vec::new();
        for i in 1..=200u64 {
            let line = match i {
                50 => String::new(),
                77 => "not json".to_string(),
                120 => format!("{{\"n\":{i},\"pad\":\"{}\"}}", "x".repeat(5000)),
                _ => format!("{{\"n\":{i}{}}}", ",\"p\":1".repeat((i % 7) as usize)),
            };
            if !line.is_empty() {
                want.push((i, line.clone()));
            }
            text.push_str(&line);
            if i < 200 {
                text.push('\n');
            }
        }
        std::fs::write(&path, &text).unwrap();
        let len = text.len() as u64;
        let p = path.to_str().unwrap();
        for cuts in [
            vec![0, len],
            vec![0, 1, len],
            vec![0, 700, 701, 3_000, len - 1, len],
        ] {
            let mut got: Vec<(u64, String)> = Vec::new();
            for w in cuts.windows(2) {
                let mut r = NdjsonReader::open_range(p, w[0], w[1]).unwrap().unwrap();
                loop {
                    let mut out = Vec::new();
                    match r.next_into(&mut out).unwrap() {
                        None => break,
                        Some(Item::Doc) => {
                            got.push((r.origin().unwrap().1, String::from_utf8(out).unwrap()))
                        }
                        Some(Item::Bad(bad)) => got.push((bad.line, "not json".into())),
                    }
                }
            }
            assert_eq!(got, want, "cut at {cuts:?}");
        }
        // A range inside one long line holds no line; one holding its first byte has all of it.
        let at = text.find("\"pad\"").unwrap() as u64;
        let mut r = NdjsonReader::open_range(p, at, at + 100).unwrap().unwrap();
        assert!(r.next_into(&mut Vec::new()).unwrap().is_none());
        // Compressed files are not cut by bytes.
        let gz = dir.path().join("docs.ndjson.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, text.as_bytes()).unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        assert!(NdjsonReader::open_range(gz.to_str().unwrap(), 0, 10)
            .unwrap()
            .is_none());
    }

    #[test]
    fn invalid_utf8_lines_are_bad_input_with_file_and_line() {
        let input: &[u8] =
            b"{\"a\":\"ok\"}\n{\"a\":\"\xc0\xaf\"}\n{\"a\":\"\xff\"}\n{\"a\":\"\xc3\xa9\"}\n";
        let mut r = NdjsonReader::from_reader("in.ndjson", Box::new(std::io::Cursor::new(input)));
        let got = items(&mut r);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].as_ref().unwrap(), "{\"a\":\"ok\"}");
        for (i, line) in [(1, 2), (2, 3)] {
            let bad = got[i].as_ref().unwrap_err();
            assert_eq!((bad.source.as_str(), bad.line), ("in.ndjson", line));
            assert!(
                bad.reason.contains("invalid UTF-8 at byte 7"),
                "{}",
                bad.reason
            );
        }
        assert_eq!(got[3].as_ref().unwrap(), "{\"a\":\"é\"}");
    }

    #[test]
    fn invalid_utf8_csv_records_are_bad_input() {
        let input: &[u8] = b"name,city\nann,paris\nbob,\xffx\n";
        let mut r =
            CsvReader::from_reader("in.csv", Box::new(std::io::Cursor::new(input))).unwrap();
        let got = items(&mut r);
        assert_eq!(got.len(), 2);
        assert!(got[0].is_ok());
        let bad = got[1].as_ref().unwrap_err();
        assert_eq!(bad.line, 3);
        assert!(bad.reason.contains("invalid UTF-8"), "{}", bad.reason);
        let header: &[u8] = b"na\xffme\nx\n";
        assert!(CsvReader::from_reader("h.csv", Box::new(std::io::Cursor::new(header))).is_err());
    }

    /// What the reader accepted before the fast check: a '{' first, UTF-8, and serde_json.
    fn serde_verdict(line: &[u8]) -> bool {
        line.first() == Some(&b'{')
            && std::str::from_utf8(line).is_ok()
            && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
    }

    fn depth(line: &[u8]) -> usize {
        // An upper bound (brackets inside strings count too): enough to know the fast check
        // follows the line.
        line.iter().filter(|&&b| b == b'{' || b == b'[').count()
    }

    fn assert_agrees(line: &[u8]) {
        let want = serde_verdict(line);
        if depth(line) <= json_check::MAX_DEPTH {
            assert_eq!(
                json_check::is_json_object(line),
                want,
                "fast check disagrees with serde_json on {:?}",
                String::from_utf8_lossy(line)
            );
        }
        let problem = ndjson_problem(line);
        assert_eq!(
            problem.is_none(),
            want,
            "{:?}: {problem:?}",
            String::from_utf8_lossy(line)
        );
        assert_eq!(problem, ndjson_problem_slow(line));
    }

    fn edge_cases() -> Vec<Vec<u8>> {
        let mut lines: Vec<Vec<u8>> = [
            &b"{}"[..],
            b"{ }",
            b"{\t\r\n}",
            b"{\x0c}",
            b"{} ",
            b"{} {}",
            b"{}x",
            b"{}}",
            b"{,}",
            b"{\"a\"}",
            b"{\"a\":}",
            b"{\"a\" : 1 , \"b\" : [ true , false , null , [ ] , { } ] }",
            b"{\"a\":1,}",
            b"{\"a\":[1,]}",
            b"{\"a\":[,1]}",
            b"{\"a\":1]",
            b"{\"a\":[1}",
            b"{1:2}",
            b"{\"a\":1 \"b\":2}",
            b"{\"a\"::1}",
            b"{\"a\":tru}",
            b"{\"a\":truex}",
            b"{\"a\":nul}",
            b"{\"a\":nulll}",
            b"{\"a\":False}",
            b"{\"a\":-0}",
            b"{\"a\":-}",
            b"{\"a\":--1}",
            b"{\"a\":+1}",
            b"{\"a\":1e400}",
            b"{\"a\":-1e-400}",
            b"{\"a\":123456789012345678901234567890}",
            b"{\"a\":01}",
            b"{\"a\":00}",
            b"{\"a\":0.0}",
            b"{\"a\":-01.5}",
            b"{\"a\":1.}",
            b"{\"a\":.5}",
            b"{\"a\":1.e5}",
            b"{\"a\":1.5e}",
            b"{\"a\":1.5e+}",
            b"{\"a\":1E+5}",
            b"{\"a\":1e05}",
            b"{\"a\":1.5.3}",
            b"{\"a\":0x10}",
            b"{\"a\":Infinity}",
            b"{\"a\":NaN}",
            b"{\"a\":\"\\ud800\"}",
            b"{\"a\":\"\\udc00\\ud800\"}",
            b"{\"\\uD83D\\uDE00\":\"\\u00e9\\u00E9\"}",
            b"{\"a\":\"\\u12\"}",
            b"{\"a\":\"\\u12\"",
            b"{\"a\":\"\\uZZZZ\"}",
            b"{\"a\":\"\\x\"}",
            b"{\"a\":\"\\'\"}",
            b"{\"a\":\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"}",
            b"{\"a\":\"\\",
            b"{\"a\":\"tab\there\"}",
            b"{\"a\":\"nul\x00\"}",
            b"{\"a\":\"us\x1f\"}",
            b"{\"a\":\"del\x7f\"}",
            b"{\"a\":\"\xc3\xa9\"}",
            b"{\"a\":\"\xc3\"}",
            b"{\"a\":\"\xc0\xaf\"}",
            b"{\"a\":\"\xe0\x80\xaf\"}",
            b"{\"a\":\"\xed\xa0\x80\"}",
            b"{\"a\":\"\xed\x9f\xbf\"}",
            b"{\"a\":\"\xef\xbf\xbf\"}",
            b"{\"a\":\"\xf0\x8f\xbf\xbf\"}",
            b"{\"a\":\"\xf0\x9f\x98\x80\"}",
            b"{\"a\":\"\xf4\x8f\xbf\xbf\"}",
            b"{\"a\":\"\xf4\x90\x80\x80\"}",
            b"{\"a\":\"\xf5\x80\x80\x80\"}",
            b"{\"a\":\"\xff\"}",
            b"{\"a\":1}\xc3\xa9",
            b"{\"\xc3\xa9\":1}",
            b"{\"a\":\"unterminated}",
            b"{\"a\":\"0123456789abcdef0123456789\\\"0123456789\"}",
            b"[1]",
            b"\"a\"",
            b"1",
        ]
        .iter()
        .map(|l| l.to_vec())
        .collect();
        for n in [1, 2, 127, 128, 129, 511, 512, 513, 600, 10_000] {
            let mut deep = b"{\"a\":".to_vec();
            deep.extend(std::iter::repeat_n(b'[', n));
            deep.extend(std::iter::repeat_n(b']', n));
            deep.push(b'}');
            lines.push(deep.clone());
            deep.pop();
            lines.push(deep.clone()); // unclosed object
            let mut objects = Vec::new();
            for _ in 0..n {
                objects.extend_from_slice(b"{\"k\":");
            }
            objects.extend_from_slice(b"null");
            objects.extend(std::iter::repeat_n(b'}', n));
            lines.push(objects.clone());
            objects.pop();
            lines.push(objects);
        }
        lines
    }

    #[test]
    fn fast_json_check_agrees_with_serde_json_on_edge_cases() {
        for line in edge_cases() {
            assert_agrees(&line);
        }
        // Choices of serde_json's that the fast check must share, pinned down.
        for line in [&b"{\"a\":\"\\ud800\"}"[..], b"{\"a\":1e400}", b"{\"a\":-0}"] {
            assert!(json_check::is_json_object(line));
        }
        let mut deep = b"{\"a\":".to_vec();
        deep.extend(std::iter::repeat_n(b'[', 10_000));
        deep.extend(std::iter::repeat_n(b']', 10_000));
        deep.push(b'}');
        assert!(
            !json_check::is_json_object(&deep),
            "deeper than the fast check follows"
        );
        assert_eq!(
            ndjson_problem(&deep),
            None,
            "serde_json has no depth limit here"
        );
    }

    #[test]
    fn fast_json_check_agrees_with_serde_json_on_generated_and_mutated_lines() {
        use crate::corpus::{Logs, LogsSpec, Transactions, TransactionsSpec};
        use crate::rng::Rng;
        const DOCS: u64 = 1500;
        const BYTES: &[u8] =
            b"\"\\{}[],: \t0-.eE+u/ntf\x00\x1f\x7f\x80\xbf\xc3\xe0\xed\xf0\xf4\xff";
        let mut docs = Vec::new();
        let mut sources: Vec<Box<dyn DocSource>> = vec![
            Box::new(Logs::new(LogsSpec::new(7, DOCS)).unwrap()),
            Box::new(Transactions::new(TransactionsSpec::new(7, DOCS)).unwrap()),
        ];
        for source in &mut sources {
            loop {
                let mut doc = Vec::new();
                match source.next_into(&mut doc).unwrap() {
                    Some(Item::Doc) => docs.push(doc),
                    Some(Item::Bad(bad)) => panic!("{bad:?}"),
                    None => break,
                }
            }
        }
        docs.extend(edge_cases());
        let mut rng = Rng::new(11, 0);
        let mut checked = 0;
        for doc in &docs {
            assert_agrees(doc);
            for _ in 0..12 {
                let mut line = doc.clone();
                for _ in 0..=rng.below(3) {
                    if line.is_empty() {
                        break;
                    }
                    let at = rng.below(line.len() as u64) as usize;
                    let byte = if rng.chance(0.8) {
                        BYTES[rng.below(BYTES.len() as u64) as usize]
                    } else {
                        rng.below(256) as u8
                    };
                    match rng.below(4) {
                        0 => line[at] = byte,
                        1 => line.insert(at, byte),
                        2 => {
                            line.remove(at);
                        }
                        _ => line.truncate(at),
                    }
                }
                assert_agrees(&line);
                checked += 1;
            }
        }
        assert!(checked > 30_000, "{checked}");
    }

    /// (line, the document or the bad line's (raw, reason)).
    type Read = (u64, Result<Vec<u8>, (Vec<u8>, String)>);

    /// Every item of `r`.
    fn read_all(r: &mut NdjsonReader) -> Vec<Read> {
        let mut got = Vec::new();
        loop {
            let mut out = Vec::new();
            match r.next_into(&mut out).unwrap() {
                None => return got,
                Some(Item::Doc) => got.push((r.origin().unwrap().1, Ok(out))),
                Some(Item::Bad(bad)) => got.push((bad.line, Err((bad.raw, bad.reason)))),
            }
        }
    }

    const MIXED: &[u8] = b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n{\"b\":\"x\"}\n[1]\r\n{\"c\":\"\xff\"}\n\
        {\"d\":}\n{\"e\":\"\xc3\xa9\"}  \n\n{\"f\":true}";

    #[test]
    fn a_file_reads_as_the_same_bytes_through_any_buffer() {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in [
            ("mixed.ndjson", MIXED.to_vec()),
            ("ending.ndjson", [MIXED, b"\n"].concat()),
            ("blank.ndjson", b"\n\n".to_vec()),
            ("one.jsonl", b"{}".to_vec()),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, &content).unwrap();
            let mut file = NdjsonReader::open(path.to_str().unwrap()).unwrap();
            assert!(file.is_mapped(), "{name}");
            let buffered = std::io::BufReader::with_capacity(7, std::io::Cursor::new(content));
            let mut buffered =
                NdjsonReader::from_reader(path.to_str().unwrap(), Box::new(buffered));
            assert_eq!(read_all(&mut file), read_all(&mut buffered), "{name}");
        }
        let lines: Vec<u64> = read_all(
            &mut NdjsonReader::open(dir.path().join("mixed.ndjson").to_str().unwrap()).unwrap(),
        )
        .iter()
        .map(|(line, _)| *line)
        .collect();
        assert_eq!(lines, [1, 4, 5, 6, 7, 8, 10]);
    }

    #[test]
    fn over_long_lines_are_bad_lines_with_their_length_whatever_the_buffer() {
        let long = [b"{\"x\":\"".as_slice(), &[b'y'; 3000], b"\"}"].concat();
        let content = [
            b"{\"a\":1}\n".as_slice(),
            &long,
            b"\n{\"b\":22222}\n{\"c\":333333}\n",
            &long,
        ]
        .concat();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.ndjson");
        std::fs::write(&path, &content).unwrap();
        let name = path.to_str().unwrap();
        // 12 bytes: `{"b":22222}` (11) passes, `{"c":333333}` (12) too, 13 would not.
        let mut file = NdjsonReader::open(name).unwrap().with_max_line(12);
        let expected = read_all(&mut file);
        let summary: Vec<(u64, bool)> = expected.iter().map(|(l, r)| (*l, r.is_ok())).collect();
        assert_eq!(
            summary,
            [(1, true), (2, false), (3, true), (4, true), (5, false)]
        );
        for (line, got) in [&expected[1], &expected[4]] {
            let (raw, reason) = got.as_ref().unwrap_err();
            assert_eq!(raw.as_slice(), &long[..OVER_LONG_PREFIX], "line {line}");
            assert!(
                reason.starts_with("line of 3008 bytes, longer than the limit of 12 bytes"),
                "{reason}"
            );
        }
        // Through read buffers smaller and larger than the limit and the line: the same.
        for capacity in [3, 7, 12, 13, 64, 5000] {
            let buffered =
                std::io::BufReader::with_capacity(capacity, std::io::Cursor::new(content.clone()));
            let mut buffered =
                NdjsonReader::from_reader(name, Box::new(buffered)).with_max_line(12);
            assert_eq!(read_all(&mut buffered), expected, "buffer {capacity}");
        }
    }

    #[test]
    fn a_csv_record_without_end_stops_the_reader_in_bounded_memory() {
        // A quote never closed: the rest of the input (8 MiB) would be one field.
        let mut content = b"a,b\n1,2\n3,\"open".to_vec();
        content.resize(content.len() + (8 << 20), b'x');
        let input = std::io::BufReader::new(std::io::Cursor::new(content));
        let mut r = CsvReader::from_reader("open.csv", Box::new(input))
            .unwrap()
            .with_max_line(1 << 20);
        let mut out = Vec::new();
        assert_eq!(r.next_into(&mut out).unwrap(), Some(Item::Doc));
        let e = r.next_into(&mut out).unwrap_err().to_string();
        assert!(
            e.starts_with("open.csv: line 3: a CSV record longer than the limit of 1048576 bytes"),
            "{e}"
        );
        let bound = r.reader.get_ref();
        assert!(bound.handed < 2 << 20, "read {} bytes", bound.handed);
        // Records up to the limit pass, one after another.
        let rows: String = (0..5000)
            .map(|i| format!("{i},{}\n", "y".repeat(500)))
            .collect();
        let input = std::io::Cursor::new(format!("a,b\n{rows}").into_bytes());
        let mut r = CsvReader::from_reader("rows.csv", Box::new(std::io::BufReader::new(input)))
            .unwrap()
            .with_max_line(1000);
        let mut n = 0;
        while r.next_into(&mut out).unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 5000);
    }

    #[test]
    fn a_line_without_end_is_read_in_bounded_memory() {
        // 64 MiB of one line, through a stream, with a 1 MiB limit: the reader's own buffer
        // never holds more than the limit.
        let endless = std::io::Read::take(std::io::repeat(b'x'), 64 << 20);
        let input = std::io::BufReader::new(endless);
        let mut r = NdjsonReader::from_reader("-", Box::new(input)).with_max_line(1 << 20);
        let mut out = Vec::new();
        let Some(Item::Bad(bad)) = r.next_into(&mut out).unwrap() else {
            panic!("expected a bad line")
        };
        assert_eq!(bad.line, 1);
        assert!(
            bad.reason.starts_with("line of 67108864 bytes"),
            "{}",
            bad.reason
        );
        assert!(out.is_empty());
        assert!(!r.is_mapped());
        let line = &r.lines.line;
        assert!(line.capacity() <= 2 << 20, "{}", line.capacity());
        assert!(r.next_into(&mut out).unwrap().is_none());
    }

    #[test]
    fn empty_and_gzip_files_are_read() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.ndjson");
        std::fs::write(&empty, b"").unwrap();
        let mut r = NdjsonReader::open(empty.to_str().unwrap()).unwrap();
        assert!(read_all(&mut r).is_empty());
        // gzip content under a plain name: found by its magic bytes, decompressed.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"{\"a\":1}\n{\"a\":2}\n").unwrap();
        let gz = dir.path().join("packed.ndjson");
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let mut r = NdjsonReader::open(gz.to_str().unwrap()).unwrap();
        let docs: Vec<_> = read_all(&mut r)
            .into_iter()
            .map(|(_, d)| d.unwrap())
            .collect();
        assert_eq!(docs, [b"{\"a\":1}".to_vec(), b"{\"a\":2}".to_vec()]);
    }

    #[test]
    fn engine_checked_lines_are_checked_for_brackets_and_utf8_only() {
        let read = |check| {
            let input = std::io::Cursor::new(MIXED);
            read_all(&mut NdjsonReader::from_reader("in.ndjson", Box::new(input)).with_check(check))
        };
        let full = read(LineCheck::Full);
        let trusted = read(LineCheck::Engine);
        let verdicts = |items: &[Read]| {
            items
                .iter()
                .map(|(line, item)| (*line, item.is_ok()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            verdicts(&full),
            [
                (1, true),
                (4, true),
                (5, false),
                (6, false),
                (7, false),
                (8, true),
                (10, true)
            ]
        );
        // Line 7 (invalid JSON) is bracketed UTF-8: sent, for the engine to judge. Line 5 (an
        // array) and line 6 (invalid UTF-8, which engines would mangle rather than refuse)
        // are still bad lines, with the full check's reasons.
        assert_eq!(
            verdicts(&trusted),
            [
                (1, true),
                (4, true),
                (5, false),
                (6, false),
                (7, true),
                (8, true),
                (10, true)
            ]
        );
        assert_eq!(full[2], trusted[2]);
        assert_eq!(full[3], trusted[3]);
        assert_eq!(
            json_object_problem(trusted[4].1.as_ref().unwrap()),
            ndjson_problem(b"{\"d\":}")
        );
        assert_eq!(trusted[4].1.as_ref().unwrap(), b"{\"d\":}");
        assert_eq!(line_problem(b"{", LineCheck::Engine), ndjson_problem(b"{"));
        assert_eq!(line_problem(b"}", LineCheck::Engine), ndjson_problem(b"}"));
    }

    #[test]
    fn lines_across_buffer_fills_read_as_in_one_buffer() {
        let input: &[u8] =
            b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n{\"b\":\"long line that straddles fills\"}\n[1]\r\n\
            {\"c\":\"\xff\"}\n{\"d\":\"\xc3\xa9\"}  \n\n{\"e\":true}";
        let read = |capacity: usize| {
            let reader = std::io::BufReader::with_capacity(capacity, std::io::Cursor::new(input));
            let mut r = NdjsonReader::from_reader("in.ndjson", Box::new(reader));
            let mut got = Vec::new();
            loop {
                let mut out = b"prefix".to_vec();
                match r.next_into(&mut out).unwrap() {
                    None => return got,
                    Some(Item::Doc) => got.push((
                        r.origin(),
                        Ok(String::from_utf8(out[6..].to_vec()).unwrap()),
                    )),
                    Some(Item::Bad(bad)) => {
                        assert_eq!(out, b"prefix", "a bad line appends nothing");
                        got.push((r.origin(), Err((bad.line, bad.raw, bad.reason))))
                    }
                }
            }
        };
        let whole = read(1 << 20);
        let docs: Vec<_> = whole
            .iter()
            .map(|(origin, item)| (origin.unwrap().1, item.as_ref().map_err(|e| e.0)))
            .collect();
        assert_eq!(
            docs,
            [
                (1, Ok(&"{\"a\":1}".to_string())),
                (
                    4,
                    Ok(&"{\"b\":\"long line that straddles fills\"}".to_string())
                ),
                (5, Err(5)),
                (6, Err(6)),
                (7, Ok(&"{\"d\":\"é\"}".to_string())),
                (9, Ok(&"{\"e\":true}".to_string())),
            ]
        );
        let Err((_, raw, reason)) = &whole[2].1 else {
            unreachable!()
        };
        assert_eq!(
            (raw.as_slice(), reason.contains("must start with '{'")),
            (&b"[1]"[..], true)
        );
        for capacity in [1, 2, 3, 5, 8, 13, 40] {
            assert_eq!(read(capacity), whole, "buffer of {capacity} bytes");
        }
    }
}

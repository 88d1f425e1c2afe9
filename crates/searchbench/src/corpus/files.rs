//! The user's own files as corpora: NDJSON (one JSON object per line) and CSV with a header,
//! plain or gzip-compressed (by `.gz` extension or by the gzip magic bytes), or stdin (`-`).
//!
//! Bad input never ends a corpus: a line that is not a JSON object, or a CSV record with the
//! wrong number of fields or a cell that does not fit its type, comes back as
//! [`Item::Bad`] with the file, the 1-based line number, the reason and the raw bytes, and
//! the next line is read as usual. Only I/O errors end the stream.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::csvdoc::CsvToJson;
use super::{transactions, BadLine, CorpusError, DocSource, Item};

const READ_BUFFER: usize = 1 << 20;

/// Opens `path` (`-` = stdin) for reading, decompressing gzip when the name ends in `.gz` or
/// the content starts with the gzip magic bytes.
pub fn open_input(path: &str) -> Result<Box<dyn BufRead + Send>, CorpusError> {
    Ok(open_input_counted(path)?.0)
}

/// Bytes of a compressed file consumed so far, to say where a corrupt one stopped.
pub type CompressedRead = Arc<AtomicU64>;

/// [`open_input`], with the count of compressed bytes read when the input is gzip.
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
        Box::new(File::open(path).map_err(io)?)
    };
    let read = CompressedRead::default();
    let counted = Counted {
        inner: raw,
        read: read.clone(),
    };
    let mut reader = BufReader::with_capacity(READ_BUFFER, counted);
    let magic = reader.fill_buf().map_err(io)?;
    let gzip =
        magic.starts_with(&[0x1f, 0x8b]) || Path::new(path).extension() == Some("gz".as_ref());
    if gzip {
        let decoded =
            BufReader::with_capacity(READ_BUFFER, flate2::bufread::MultiGzDecoder::new(reader));
        Ok((Box::new(decoded), Some(read)))
    } else {
        Ok((Box::new(reader), None))
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
    let name = path
        .strip_suffix(".gz")
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
    name: String,
    input: Box<dyn BufRead + Send>,
    line: Vec<u8>,
    line_no: u64,
    compressed: Option<CompressedRead>,
}

impl std::fmt::Debug for NdjsonReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdjsonReader")
            .field("name", &self.name)
            .finish()
    }
}

impl NdjsonReader {
    pub fn open(path: &str) -> Result<Self, CorpusError> {
        let (input, compressed) = open_input_counted(path)?;
        Ok(Self::from_reader(display_name(path), input).with_compressed_count(compressed))
    }

    /// From any buffered reader; `name` is used in bad-line reports.
    pub fn from_reader(name: impl Into<String>, input: Box<dyn BufRead + Send>) -> Self {
        NdjsonReader {
            name: name.into(),
            input,
            line: Vec::with_capacity(4096),
            line_no: 0,
            compressed: None,
        }
    }

    /// Names the compressed offset in read errors (from [`open_input_counted`]).
    pub fn with_compressed_count(mut self, compressed: Option<CompressedRead>) -> Self {
        self.compressed = compressed;
        self
    }
}

/// Why `line` is not a JSON object, if it is not. Checking the first byte first makes the
/// common mistakes (arrays, bare values, pretty-printed JSON) cheap to report; the full
/// validation parses without building anything (`IgnoredAny`).
fn ndjson_problem(line: &[u8]) -> Option<String> {
    if line.first() != Some(&b'{') {
        return Some("not a JSON object (a line must start with '{')".into());
    }
    // The JSON check below skips over string contents without looking at their bytes: invalid
    // UTF-8 would go to the target as is (indexed as garbage, or refused).
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

impl DocSource for NdjsonReader {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        loop {
            self.line.clear();
            let n = self
                .input
                .read_until(b'\n', &mut self.line)
                .map_err(|source| {
                    read_error(&self.name, self.line_no + 1, &self.compressed, source)
                })?;
            if n == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            let mut text = self.line.trim_ascii();
            if self.line_no == 1 {
                // Editors on Windows like to start files with a UTF-8 byte order mark.
                text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            }
            if text.is_empty() {
                continue;
            }
            if let Some(reason) = ndjson_problem(text) {
                let raw = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
                let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                return Ok(Some(Item::Bad(BadLine {
                    source: self.name.clone(),
                    line: self.line_no,
                    reason,
                    raw: raw.to_vec(),
                })));
            }
            out.extend_from_slice(text);
            return Ok(Some(Item::Doc));
        }
    }

    fn describe(&self) -> String {
        format!("NDJSON file {}", self.name)
    }

    fn files(&self) -> Vec<String> {
        vec![self.name.clone()]
    }

    fn origin(&self) -> Option<(u32, u64)> {
        Some((0, self.line_no))
    }
}

/// CSV reader: the first record is the header. A header that matches a known mapping (the
/// `transactions` DVF columns) gives typed documents with a `geo_point`; any other header
/// gives one string field per column. Empty cells are left out of the document.
pub struct CsvReader {
    name: String,
    compressed: Option<CompressedRead>,
    reader: csv::Reader<Box<dyn BufRead + Send>>,
    record: csv::ByteRecord,
    to_json: CsvToJson,
    typed: bool,
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

    pub fn from_reader(
        name: impl Into<String>,
        input: Box<dyn BufRead + Send>,
    ) -> Result<Self, CorpusError> {
        let name = name.into();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(input);
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
        })
    }

    /// Whether the header matched a known mapping (typed documents).
    pub fn is_typed(&self) -> bool {
        self.typed
    }
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
                    // The record being read when it stopped: the one after the last read.
                    let at = self.reader.position().line() + 1;
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
}

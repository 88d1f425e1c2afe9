//! `--convert-dates`: a [`DocSource`] adapter that rewrites chosen date fields from strings to
//! epoch-millisecond numbers on the client, so the engine stores the same instant without
//! parsing a date string.
//!
//! The string is parsed with [`isodate::parse`], which accepts exactly what a `date` field with
//! the default format `strict_date_optional_time||epoch_millis` accepts, and gives the same
//! instant; the value is replaced by `Instant::to_date_field_millis()` (the millisecond the
//! engine stores). An instant beyond what the field holds (years past about ±292 million,
//! which the engine clamps) is left as the string, which the engine stores clamped. The document is not re-encoded: one pass over its bytes finds the fields, and only
//! the bytes of the converted values change (`"2023-01-01T00:00:00.000Z"` becomes
//! `1672531200000`).
//!
//! Rules (also in `searchbench ingest --help`):
//! - A field is named by its dotted path, and matches both nested objects
//!   (`{"event":{"ingested":..}}`) and dotted keys (`{"event.ingested":..}`), as the engines'
//!   mappings do. Inside arrays every element is converted (`"@timestamp":["..",".."]`).
//! - A missing field, `null`, a number, a boolean or an object is left alone: a number is
//!   already what the engine reads through the mapping's format, and the adapter does not know
//!   that format, so it does not guess.
//! - A string the default format rejects makes the document a bad line: it goes to the failure
//!   file with file:line, the field, the value and the reason; nothing is sent for it.
//! - An instant within ±9,999 ms of the epoch stays a string: as a number of four digits or
//!   fewer the engine would read it as a year under the default format.

use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::files::open_input_counted;
use super::{BadLine, CorpusError, CsvReader, DocSource, Item, NdjsonReader};

/// Deeper than this, a document is refused (serde_json, which checks NDJSON input, stops at 128).
const MAX_DEPTH: u32 = 128;

/// The fields to convert: dotted paths such as `@timestamp` or `event.ingested`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateFields {
    paths: Vec<Vec<u8>>,
}

impl DateFields {
    /// From the names given on the command line (`--convert-dates a,b.c`).
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<Self, CorpusError> {
        let mut paths: Vec<Vec<u8>> = Vec::new();
        for name in names {
            let name = name.as_ref().trim();
            if name.is_empty()
                || name.starts_with('.')
                || name.ends_with('.')
                || name.contains("..")
            {
                return Err(CorpusError::Invalid(format!(
                    "--convert-dates: {name:?} is not a field name (use dotted paths such as @timestamp or event.ingested)"
                )));
            }
            if !paths.iter().any(|p| p == name.as_bytes()) {
                paths.push(name.as_bytes().to_vec());
            }
        }
        if paths.is_empty() {
            return Err(CorpusError::Invalid(
                "--convert-dates needs at least one field name".into(),
            ));
        }
        Ok(DateFields { paths })
    }

    /// The paths, as given.
    pub fn names(&self) -> Vec<String> {
        self.paths
            .iter()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect()
    }

    #[inline]
    fn is_field(&self, path: &[u8]) -> bool {
        self.paths
            .iter()
            .any(|p| p.len() == path.len() && same(p, path))
    }

    /// Whether `path` is a field or leads to one (so its object must be looked into).
    #[inline]
    fn is_relevant(&self, path: &[u8]) -> bool {
        self.paths.iter().any(|p| match p.get(path.len()) {
            None => p.len() == path.len() && same(p, path),
            Some(&b'.') => same(&p[..path.len()], path),
            Some(_) => false,
        })
    }
}

/// `a == b` for slices of equal length, the last byte first: most keys differ there, and a
/// call to memcmp costs more than the comparison itself on short keys.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    match (a.last(), b.last()) {
        (Some(x), Some(y)) if x != y => false,
        _ => a == b,
    }
}

impl std::fmt::Display for DateFields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.names().join(", "))
    }
}

/// How the adapter names the line a document came from when it refuses it.
#[derive(Debug)]
pub enum Locate {
    /// The n-th item of the inner source (documents and bad lines), plus `offset`: exact for
    /// generators (offset 0, the document number) and for CSV files whose records are one line
    /// each (offset 1, the header).
    Ordinal { name: String, offset: u64 },
    /// Lines counted by a [`LineCounter`] under the inner reader: exact for NDJSON.
    Lines { name: String, lines: Arc<AtomicU64> },
}

/// The source adapter. See the module documentation for the rules.
pub struct ConvertDates {
    inner: Box<dyn DocSource>,
    fields: DateFields,
    locate: Locate,
    items: u64,
    converted: u64,
    scratch: Scratch,
}

#[derive(Default)]
struct Scratch {
    path: Vec<u8>,
    edits: Vec<Edit>,
    tail: Vec<u8>,
    text: Vec<u8>,
}

#[derive(Debug, Clone, Copy)]
struct Edit {
    /// Byte range of the string token (quotes included) within the document.
    start: usize,
    end: usize,
    millis: i64,
}

impl std::fmt::Debug for ConvertDates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConvertDates")
            .field("inner", &self.inner.describe())
            .field("fields", &self.fields)
            .finish()
    }
}

impl ConvertDates {
    pub fn new(inner: Box<dyn DocSource>, fields: DateFields, locate: Locate) -> Self {
        ConvertDates {
            inner,
            fields,
            locate,
            items: 0,
            converted: 0,
            scratch: Scratch::default(),
        }
    }

    /// Around a generator: a refused document is named by the source's description and its
    /// 1-based number.
    pub fn generated(inner: Box<dyn DocSource>, fields: DateFields) -> Self {
        let name = inner.describe();
        Self::new(inner, fields, Locate::Ordinal { name, offset: 0 })
    }

    /// An NDJSON file (`-` for stdin, gzip as [`NdjsonReader`] handles it), lines counted
    /// exactly.
    pub fn ndjson_file(path: &str, fields: DateFields) -> Result<Self, CorpusError> {
        let lines = Arc::new(AtomicU64::new(0));
        let (input, compressed) = open_input_counted(path)?;
        let input = LineCounter::new(input, lines.clone());
        let reader =
            NdjsonReader::from_reader(path, Box::new(input)).with_compressed_count(compressed);
        Ok(Self::new(
            Box::new(reader),
            fields,
            Locate::Lines {
                name: path.to_string(),
                lines,
            },
        ))
    }

    /// A CSV file; a refused record is named by its line assuming one line per record.
    pub fn csv_file(path: &str, fields: DateFields) -> Result<Self, CorpusError> {
        let reader = CsvReader::open(path)?;
        Ok(Self::new(
            Box::new(reader),
            fields,
            Locate::Ordinal {
                name: path.to_string(),
                offset: 1,
            },
        ))
    }

    /// Values converted so far.
    pub fn converted(&self) -> u64 {
        self.converted
    }

    fn where_(&self) -> (String, u64) {
        match &self.locate {
            Locate::Ordinal { name, offset } => (name.clone(), self.items + offset),
            Locate::Lines { name, lines } => (name.clone(), lines.load(Ordering::Relaxed)),
        }
    }
}

impl DocSource for ConvertDates {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        let start = out.len();
        let item = self.inner.next_into(out)?;
        match item {
            None => Ok(None),
            Some(Item::Bad(bad)) => {
                self.items += 1;
                Ok(Some(Item::Bad(bad)))
            }
            Some(Item::Doc) => {
                self.items += 1;
                match rewrite(out, start, &self.fields, &mut self.scratch) {
                    Ok(n) => {
                        self.converted += n;
                        Ok(Some(Item::Doc))
                    }
                    Err(reason) => {
                        let raw = out.get(start..).map(<[u8]>::to_vec).unwrap_or_default();
                        out.truncate(start);
                        let (source, line) = self.where_();
                        Ok(Some(Item::Bad(BadLine {
                            source,
                            line,
                            reason,
                            raw,
                        })))
                    }
                }
            }
        }
    }

    fn len_hint(&self) -> Option<u64> {
        self.inner.len_hint()
    }

    fn files(&self) -> Vec<String> {
        self.inner.files()
    }

    fn origin(&self) -> Option<(u32, u64)> {
        self.inner.origin()
    }

    fn describe(&self) -> String {
        format!(
            "{}, dates converted to epoch millis ({})",
            self.inner.describe(),
            self.fields
        )
    }
}

/// Rewrites the fields of the document in `out[start..]`; returns how many values were
/// converted, or why the document is refused (then `out` is unchanged).
fn rewrite(
    out: &mut Vec<u8>,
    start: usize,
    fields: &DateFields,
    s: &mut Scratch,
) -> Result<u64, String> {
    s.edits.clear();
    s.path.clear();
    {
        let doc = out.get(start..).unwrap_or_default();
        let mut scan = Scan {
            doc,
            fields,
            path: &mut s.path,
            edits: &mut s.edits,
            text: &mut s.text,
        };
        let i = scan.ws(0);
        if doc.get(i) != Some(&b'{') {
            return Err("not a JSON object".into());
        }
        let end = scan.value(i, 0)?;
        let end = scan.ws(end);
        if end != doc.len() {
            return Err(format!(
                "unexpected bytes after the JSON object at byte {end}"
            ));
        }
    }
    let Some(first) = s.edits.first().map(|e| e.start) else {
        return Ok(0);
    };
    let mut digits = itoa::Buffer::new();
    // Numbers are nearly always shorter than the strings they replace: then the document is
    // compacted in place, front to back (the write position never passes the read position).
    let shrinks = s.edits.iter().all(|e| {
        let len = e.end - e.start;
        len >= 21 || len >= digits.format(e.millis).len()
    });
    if shrinks {
        let mut write = start + first;
        let mut read = start + first;
        for e in &s.edits {
            let (a, b) = (start + e.start, start + e.end);
            out.copy_within(read..a, write);
            write += a - read;
            let text = digits.format(e.millis).as_bytes();
            out[write..write + text.len()].copy_from_slice(text);
            write += text.len();
            read = b;
        }
        let end = out.len();
        out.copy_within(read..end, write);
        out.truncate(write + (end - read));
        return Ok(s.edits.len() as u64);
    }
    // One copy of the tail from the first edit on, then the pieces back in.
    s.tail.clear();
    s.tail.extend_from_slice(&out[start + first..]);
    out.truncate(start + first);
    let mut at = first;
    for e in &s.edits {
        out.extend_from_slice(&s.tail[at - first..e.start - first]);
        out.extend_from_slice(digits.format(e.millis).as_bytes());
        at = e.end;
    }
    out.extend_from_slice(&s.tail[at - first..]);
    Ok(s.edits.len() as u64)
}

struct Scan<'a> {
    doc: &'a [u8],
    fields: &'a DateFields,
    path: &'a mut Vec<u8>,
    edits: &'a mut Vec<Edit>,
    text: &'a mut Vec<u8>,
}

impl Scan<'_> {
    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.doc.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            i += 1;
        }
        i
    }

    fn byte(&self, i: usize) -> Result<u8, String> {
        self.doc
            .get(i)
            .copied()
            .ok_or_else(|| "unexpected end of the document".to_string())
    }

    /// Index just past the string token starting at `i` (a `"`).
    #[inline]
    fn string_end(&self, i: usize) -> Result<usize, String> {
        let mut j = i + 1;
        loop {
            match find_quote_or_backslash(self.doc, j) {
                Some(k) if self.doc[k] == b'"' => return Ok(k + 1),
                Some(k) => j = k + 2,
                None => return Err(format!("unterminated string at byte {i}")),
            }
        }
    }

    /// Index just past the value at `i` (whitespace already skipped), converting on the way.
    fn value(&mut self, i: usize, depth: u32) -> Result<usize, String> {
        match self.byte(i)? {
            b'{' => self.object(i, depth + 1),
            b'[' => self.array(i, depth + 1),
            b'"' => {
                let end = self.string_end(i)?;
                if self.fields.is_field(self.path) {
                    self.convert(i, end)?;
                }
                Ok(end)
            }
            _ => {
                let j = self.scalar_end(i);
                if j == i {
                    return Err(format!("expected a value at byte {i}"));
                }
                Ok(j)
            }
        }
    }

    /// Index just past a number, `true`, `false` or `null` starting at `i`.
    fn scalar_end(&self, i: usize) -> usize {
        let mut j = i;
        while let Some(&b) = self.doc.get(j) {
            if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                break;
            }
            j += 1;
        }
        j
    }

    /// Skips a value nobody asked about without looking at its keys.
    fn skip(&self, i: usize) -> Result<usize, String> {
        match self.byte(i)? {
            b'"' => self.string_end(i),
            b'{' | b'[' => {
                let mut depth = 0u32;
                let mut j = i;
                loop {
                    match self.byte(j)? {
                        b'"' => {
                            j = self.string_end(j)?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(j + 1);
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            _ => Ok(self.scalar_end(i)),
        }
    }

    fn object(&mut self, i: usize, depth: u32) -> Result<usize, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        let base = self.path.len();
        let mut i = self.ws(i + 1);
        if self.byte(i)? == b'}' {
            return Ok(i + 1);
        }
        loop {
            if self.byte(i)? != b'"' {
                return Err(format!("expected a key at byte {i}"));
            }
            let key_end = self.string_end(i)?;
            self.path.truncate(base);
            if base > 0 {
                self.path.push(b'.');
            }
            let key = &self.doc[i + 1..key_end - 1];
            if key.contains(&b'\\') {
                unescape(key, self.path)?;
            } else {
                self.path.extend_from_slice(key);
            }
            i = self.ws(key_end);
            if self.byte(i)? != b':' {
                return Err(format!("expected ':' at byte {i}"));
            }
            i = self.ws(i + 1);
            i = if self.fields.is_relevant(self.path) {
                self.value(i, depth)?
            } else {
                self.skip(i)?
            };
            i = self.ws(i);
            match self.byte(i)? {
                b',' => i = self.ws(i + 1),
                b'}' => {
                    self.path.truncate(base);
                    return Ok(i + 1);
                }
                _ => return Err(format!("expected ',' or '}}' at byte {i}")),
            }
        }
    }

    fn array(&mut self, i: usize, depth: u32) -> Result<usize, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        let mut i = self.ws(i + 1);
        if self.byte(i)? == b']' {
            return Ok(i + 1);
        }
        loop {
            i = self.value(i, depth)?;
            i = self.ws(i);
            match self.byte(i)? {
                b',' => i = self.ws(i + 1),
                b']' => return Ok(i + 1),
                _ => return Err(format!("expected ',' or ']' at byte {i}")),
            }
        }
    }

    /// Parses the string token `doc[start..end]` as a date and records the edit.
    fn convert(&mut self, start: usize, end: usize) -> Result<(), String> {
        let raw = &self.doc[start + 1..end - 1];
        let text: &[u8] = if raw.contains(&b'\\') {
            self.text.clear();
            unescape(raw, self.text)?;
            self.text
        } else {
            raw
        };
        let field = || String::from_utf8_lossy(self.path);
        let instant = isodate::parse(text).map_err(|e| {
            format!(
                "field {}: {} is not a date in the default format (strict_date_optional_time||epoch_millis): {e}",
                field(),
                shown(text)
            )
        })?;
        let millis = instant.to_date_field_millis();
        if (-9_999..=9_999).contains(&millis) {
            return Ok(()); // as a number, the engine would read it as a year
        }
        if instant != instant.clamp_to_millis_range() || millis == i64::MIN {
            // Beyond what the field holds: the engine clamps the string itself, while the
            // number -2^63 would not parse as epoch_millis. Sent as it is, it is stored the same.
            return Ok(());
        }
        self.edits.push(Edit { start, end, millis });
        Ok(())
    }
}

/// The first `"` or `\\` at or after `from`. Eight bytes at a time (keys and most values are
/// short, where a call to a vectorised search costs more than it saves), handing long runs
/// over to memchr.
#[inline]
fn find_quote_or_backslash(doc: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut j = from;
    let swar_end = doc.len().min(from.saturating_add(64));
    while j + 8 <= swar_end {
        let mut word = [0u8; 8];
        word.copy_from_slice(&doc[j..j + 8]);
        let w = u64::from_le_bytes(word);
        // The lowest flagged byte is always a true match (borrows only run upwards).
        let m = zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')));
        if m != 0 {
            return Some(j + (m.trailing_zeros() / 8) as usize);
        }
        j += 8;
    }
    let rest = doc.get(j..)?;
    memchr::memchr2(b'"', b'\\', rest).map(|k| j + k)
}

/// The value quoted for a message, cut at 80 bytes.
fn shown(text: &[u8]) -> String {
    let cut = &text[..text.len().min(80)];
    let mut s = format!("{:?}", String::from_utf8_lossy(cut));
    if cut.len() < text.len() {
        s.push_str("...");
    }
    s
}

/// Decodes the JSON string body `raw` (no quotes) into `out`.
fn unescape(raw: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let bad = || "invalid escape in a JSON string".to_string();
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let e = *raw.get(i + 1).ok_or_else(bad)?;
        i += 2;
        let c = match e {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let hi = hex4(raw.get(i..i + 4)).ok_or_else(bad)?;
                i += 4;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    let lo = match raw.get(i..i + 2) {
                        Some(b"\\u") => hex4(raw.get(i + 2..i + 6)).ok_or_else(bad)?,
                        _ => return Err(bad()),
                    };
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(bad());
                    }
                    i += 6;
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                let ch = char::from_u32(code).ok_or_else(bad)?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            _ => return Err(bad()),
        };
        out.push(c);
    }
    Ok(())
}

fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let digits = digits?;
    let mut v = 0u32;
    for &d in digits {
        v = v * 16 + (d as char).to_digit(16)?;
    }
    Some(v)
}

/// A reader that counts the lines begun in what is read through it, so that after a line is
/// read (with or without its final newline) the count is that line's 1-based number.
pub struct LineCounter {
    inner: Box<dyn BufRead + Send>,
    lines: Arc<AtomicU64>,
    at_line_start: bool,
}

impl LineCounter {
    pub fn new(inner: Box<dyn BufRead + Send>, lines: Arc<AtomicU64>) -> Self {
        LineCounter {
            inner,
            lines,
            at_line_start: true,
        }
    }
}

fn count_lines(lines: &AtomicU64, at_line_start: &mut bool, chunk: &[u8]) {
    let Some((&last, body)) = chunk.split_last() else {
        return;
    };
    let mut begun = u64::from(*at_line_start);
    begun += memchr::memchr_iter(b'\n', body).count() as u64;
    lines.fetch_add(begun, Ordering::Relaxed);
    *at_line_start = last == b'\n';
}

impl Read for LineCounter {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        count_lines(&self.lines, &mut self.at_line_start, &buf[..n]);
        Ok(n)
    }
}

impl BufRead for LineCounter {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if amt > 0 {
            // The data being consumed is still in the inner buffer: fill_buf returns it
            // without reading.
            if let Ok(buf) = self.inner.fill_buf() {
                let n = amt.min(buf.len());
                count_lines(&self.lines, &mut self.at_line_start, &buf[..n]);
            }
        }
        self.inner.consume(amt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Counter;

    /// A source yielding the given documents.
    struct Docs(std::vec::IntoIter<&'static str>);

    impl DocSource for Docs {
        fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
            Ok(self.0.next().map(|d| {
                out.extend_from_slice(d.as_bytes());
                Item::Doc
            }))
        }
        fn describe(&self) -> String {
            "test docs".into()
        }
    }

    fn convert(fields: &[&str], docs: Vec<&'static str>) -> Vec<Result<String, BadLine>> {
        let fields = DateFields::parse(fields).unwrap();
        let mut c = ConvertDates::generated(Box::new(Docs(docs.into_iter())), fields);
        let mut got = Vec::new();
        let mut out = b"PREFIX".to_vec();
        while let Some(item) = c.next_into(&mut out).unwrap() {
            got.push(match item {
                Item::Doc => Ok(String::from_utf8(out[6..].to_vec()).unwrap()),
                Item::Bad(b) => {
                    assert_eq!(out, b"PREFIX", "nothing appended for a bad line");
                    Err(b)
                }
            });
            out.truncate(6);
        }
        got
    }

    #[test]
    fn instants_beyond_the_field_range_stay_strings_the_engine_clamps() {
        // The last millisecond the field holds is converted; beyond it (and the first, whose
        // number -2^63 epoch_millis would refuse) the string goes as it is.
        let last = r#"{"t":"+292278994-08-17T07:12:55.807Z"}"#;
        assert_eq!(one(&["t"], last).unwrap(), r#"{"t":9223372036854775807}"#);
        for doc in [
            r#"{"t":"+292278994-08-17T07:12:55.808Z"}"#,
            r#"{"t":"+999999999-12-31T23:59:59Z"}"#,
            r#"{"t":"-292275055-05-16T16:47:04.192Z"}"#,
            r#"{"t":"-999999999-01-01T00:00:00Z"}"#,
        ] {
            assert_eq!(one(&["t"], doc).unwrap(), doc);
        }
    }

    fn one(fields: &[&str], doc: &'static str) -> Result<String, BadLine> {
        convert(fields, vec![doc]).remove(0)
    }

    #[test]
    fn top_level_nested_and_dotted() {
        assert_eq!(
            one(
                &["@timestamp"],
                r#"{"@timestamp":"2023-01-01T23:38:34.000Z","x":1}"#
            )
            .unwrap(),
            r#"{"@timestamp":1672616314000,"x":1}"#
        );
        let fields = ["@timestamp", "event.ingested"];
        assert_eq!(
            one(
                &fields,
                r#"{"event":{"id":"a","ingested":"2023-01-01T00:00:00.5+01:00"},"@timestamp":"2023-01-01"}"#
            )
            .unwrap(),
            r#"{"event":{"id":"a","ingested":1672527600500},"@timestamp":1672531200000}"#
        );
        assert_eq!(
            one(
                &fields,
                r#"{ "event.ingested" : "2023-01-01T00:00:00Z" , "y" : [1, {"a":"b"}] }"#
            )
            .unwrap(),
            r#"{ "event.ingested" : 1672531200000 , "y" : [1, {"a":"b"}] }"#
        );
        // Arrays of dates, and a deeper path through an array of objects.
        assert_eq!(
            one(
                &["t", "a.t"],
                r#"{"t":["2023-01-01","2023-01-02"],"a":[{"t":"2023-01-03"}]}"#
            )
            .unwrap(),
            r#"{"t":[1672531200000,1672617600000],"a":[{"t":1672704000000}]}"#
        );
    }

    #[test]
    fn other_fields_and_missing_ones_are_left_alone() {
        let doc = r#"{"message":"@timestamp \"2023-01-01\"","ts":"2023-01-01","event":{"id":"2023-01-01"}}"#;
        assert_eq!(one(&["@timestamp", "event.ingested"], doc).unwrap(), doc);
        // A field with the same last key elsewhere is not the field.
        let doc = r#"{"x":{"@timestamp":"2023-01-01"}}"#;
        assert_eq!(one(&["@timestamp"], doc).unwrap(), doc);
    }

    #[test]
    fn numbers_null_and_objects_are_left_alone() {
        let doc = r#"{"@timestamp":1672531200000,"b":null,"c":true,"d":{"x":"2023"}}"#;
        assert_eq!(one(&["@timestamp", "b", "c", "d"], doc).unwrap(), doc);
    }

    #[test]
    fn instants_near_the_epoch_stay_strings() {
        // 1970-01-01T00:00:01Z is 1000 ms: as a number the default format reads a year.
        let doc = r#"{"t":"1970-01-01T00:00:01Z"}"#;
        assert_eq!(one(&["t"], doc).unwrap(), doc);
        assert_eq!(
            one(&["t"], r#"{"t":"1970-01-01T00:00:10Z"}"#).unwrap(),
            r#"{"t":10000}"#
        );
    }

    #[test]
    fn values_that_grow_are_rewritten_too() {
        // "2023" is the year 2023 (the date format first); "0001" the year 1: 6 bytes -> 15.
        assert_eq!(
            one(
                &["a", "b", "c"],
                r#"{"a":"2023","b":"0001","c":"1672531200000"}"#
            )
            .unwrap(),
            r#"{"a":1672531200000,"b":-62135596800000,"c":1672531200000}"#
        );
        // A long string among short ones, so that the vectorised search is used.
        let long = r#"{"m":"0123456789012345678901234567890123456789012345678901234567890123456789x","t":"2023-01-01"}"#;
        assert_eq!(
            one(&["t"], long).unwrap(),
            long.replace(r#""2023-01-01""#, "1672531200000")
        );
    }

    #[test]
    fn escaped_strings_are_decoded_first() {
        let bad = one(
            &["t", "k.t"],
            r#"{"t":"2023-01-01T00:00:00\u002e000\u005a","\u006b":{"t":"2023\/01"}}"#,
        )
        .unwrap_err();
        assert!(
            bad.reason.starts_with("field k.t: \"2023/01\""),
            "{}",
            bad.reason
        );
        assert_eq!(
            one(&["t"], r#"{"t":"2023-01-01T00:00:00\u002e000\u005a"}"#).unwrap(),
            r#"{"t":1672531200000}"#
        );
        // A key spelled with an escape is the same key.
        assert_eq!(
            one(
                &["event.ingested"],
                r#"{"ev\u0065nt":{"ingested":"2023-01-01"}}"#
            )
            .unwrap(),
            r#"{"ev\u0065nt":{"ingested":1672531200000}}"#
        );
    }

    #[test]
    fn a_bad_date_is_a_bad_line_with_where_and_why() {
        let got = convert(
            &["@timestamp"],
            vec![
                r#"{"@timestamp":"2023-01-01"}"#,
                r#"{"@timestamp":"2023-02-29T00:00:00Z"}"#,
                r#"{"@timestamp":"2023-01-02"}"#,
            ],
        );
        assert!(got[0].is_ok() && got[2].is_ok());
        let bad = got[1].as_ref().unwrap_err();
        assert_eq!(bad.source, "test docs");
        assert_eq!(bad.line, 2);
        assert!(bad.reason.contains("field @timestamp"), "{}", bad.reason);
        assert!(
            bad.reason.contains("2023-02-29T00:00:00Z"),
            "{}",
            bad.reason
        );
        assert_eq!(bad.raw, br#"{"@timestamp":"2023-02-29T00:00:00Z"}"#);
        let bad = one(&["t"], r#"{"t":""}"#).unwrap_err();
        assert!(bad.reason.contains("field t"), "{}", bad.reason);
    }

    #[test]
    fn malformed_json_is_a_bad_line_not_a_panic() {
        for doc in [
            r#"{"t":"2023-01-01""#,
            r#"{"t":"2023"#,
            r#"{"t" "x"}"#,
            r#"{"t":}"#,
            r#"["t"]"#,
            r#"{"t":"2023-01-01"} x"#,
            r#"{"t":"\u12"}"#,
            r#"{"a":[{"b":"#,
        ] {
            assert!(one(&["t", "a.b"], doc).is_err(), "{doc}");
        }
    }

    #[test]
    fn field_names_are_checked() {
        assert!(DateFields::parse(&["a..b"]).is_err());
        assert!(DateFields::parse(&[".a"]).is_err());
        assert!(DateFields::parse::<&str>(&[]).is_err());
        let f = DateFields::parse(&[" a.b ", "a.b", "c"]).unwrap();
        assert_eq!(f.names(), ["a.b", "c"]);
        assert!(f.is_relevant(b"a") && !f.is_relevant(b"a.bc") && !f.is_relevant(b"ab"));
    }

    #[test]
    fn ndjson_lines_are_counted_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.ndjson");
        std::fs::write(
            &path,
            "{\"t\":\"2023-01-01\"}\n\n\n{\"t\":\"2023-13-01\"}\r\nnot json\n{\"t\":\"2023-01-02\"}",
        )
        .unwrap();
        let fields = DateFields::parse(&["t"]).unwrap();
        let mut c = ConvertDates::ndjson_file(path.to_str().unwrap(), fields).unwrap();
        let mut out = Vec::new();
        let mut bad = Vec::new();
        let mut docs = Vec::new();
        while let Some(item) = c.next_into(&mut out).unwrap() {
            match item {
                Item::Doc => docs.push(String::from_utf8(std::mem::take(&mut out)).unwrap()),
                Item::Bad(b) => bad.push((b.line, b.reason)),
            }
        }
        assert_eq!(docs, [r#"{"t":1672531200000}"#, r#"{"t":1672617600000}"#]);
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].0, 4);
        assert!(bad[0].1.contains("2023-13-01"));
        assert_eq!(bad[1].0, 5);
        assert_eq!(c.converted(), 2);
    }

    #[test]
    fn wraps_any_source() {
        let fields = DateFields::parse(&["n"]).unwrap();
        let mut c = ConvertDates::generated(Box::new(Counter { n: 3, at: 0 }), fields);
        assert_eq!(c.len_hint(), Some(3));
        let mut out = Vec::new();
        while c.next_into(&mut out).unwrap().is_some() {
            out.push(b'\n');
        }
        assert_eq!(out, b"{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n");
        assert!(c.describe().contains("dates converted"));
    }
}

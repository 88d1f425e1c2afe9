//! The failure file: every document the target refused, and every input line that was not a
//! document, with the reason, as NDJSON. Created on the first failure only.
//!
//! Every line is valid JSON whatever the input was: a refused document that is valid JSON goes
//! in as `doc` (byte for byte); any other bytes go in as the string `raw` when they are valid
//! UTF-8, else base64-encoded as `raw_base64`, so nothing is lost or mangled.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::IngestError;
use crate::corpus::BadLine;

#[derive(Debug)]
pub struct FailureFile {
    path: PathBuf,
    out: Mutex<Option<BufWriter<File>>>,
    written: AtomicU64,
}

/// Where a document came from in the user's input, when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin<'a> {
    pub file: &'a str,
    /// 1-based line number.
    pub line: u64,
}

#[derive(serde::Serialize)]
struct DocRecord<'a> {
    kind: &'static str,
    ordinal: u64,
    /// The input file and 1-based line, when the corpus is files (named as for bad lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    status: u16,
    attempts: u32,
    reason: &'a str,
    #[serde(flatten)]
    raw: Option<Raw<'a>>,
}

#[derive(serde::Serialize)]
struct BadRecord<'a> {
    kind: &'static str,
    source: &'a str,
    line: u64,
    reason: &'a str,
    #[serde(flatten)]
    raw: Raw<'a>,
}

/// Bytes that are not a JSON document, kept exactly: as a string when they are UTF-8, else
/// as base64 (the failure file must stay valid JSON).
#[derive(serde::Serialize)]
#[serde(rename_all = "snake_case")]
enum Raw<'a> {
    Raw(&'a str),
    RawBase64(String),
}

impl<'a> Raw<'a> {
    fn of(bytes: &'a [u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(text) => Raw::Raw(text),
            Err(_) => Raw::RawBase64(base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                bytes,
            )),
        }
    }
}

impl FailureFile {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FailureFile {
            path: path.into(),
            out: Mutex::new(None),
            written: AtomicU64::new(0),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves a failure file left by an earlier run to `<path>.previous` (replacing an older
    /// one), so that the file at `path`, if this run writes it, holds this run's failures
    /// only. Returns where the old file went.
    pub fn set_aside_previous(&self) -> Result<Option<PathBuf>, IngestError> {
        if !self.path.is_file() {
            return Ok(None);
        }
        let mut aside = self.path.clone().into_os_string();
        aside.push(".previous");
        let aside = PathBuf::from(aside);
        std::fs::rename(&self.path, &aside).map_err(|source| IngestError::Failures {
            path: self.path.clone(),
            source,
        })?;
        Ok(Some(aside))
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// A document the target did not take: refused (status 4xx), or never acknowledged; with
    /// the input file and line it came from when the corpus is files.
    pub fn document(
        &self,
        ordinal: u64,
        doc: &[u8],
        origin: Option<Origin<'_>>,
        status: u16,
        attempts: u32,
        reason: &str,
    ) -> Result<(), IngestError> {
        // A valid JSON document goes in as it is (`doc`), byte for byte; anything else as
        // `raw`/`raw_base64`. The JSON check does not look inside strings, so UTF-8 is
        // checked first: raw invalid bytes would make the failure file itself invalid.
        let valid = std::str::from_utf8(doc).is_ok()
            && serde_json::from_slice::<serde::de::IgnoredAny>(doc).is_ok();
        let record = DocRecord {
            kind: "document",
            ordinal,
            source: origin.map(|o| o.file),
            line: origin.map(|o| o.line),
            status,
            attempts,
            reason,
            raw: (!valid).then(|| Raw::of(doc)),
        };
        let mut line = serde_json::to_vec(&record).map_err(|e| IngestError::Failures {
            path: self.path.clone(),
            source: e.into(),
        })?;
        if valid {
            line.pop(); // the closing brace
            line.extend_from_slice(b",\"doc\":");
            line.extend_from_slice(doc.trim_ascii());
            line.push(b'}');
        }
        self.write_line(&line)
    }

    /// An input line that was not a document.
    pub fn bad_line(&self, bad: &BadLine) -> Result<(), IngestError> {
        let record = BadRecord {
            kind: "bad_line",
            source: &bad.source,
            line: bad.line,
            reason: &bad.reason,
            raw: Raw::of(&bad.raw),
        };
        let line = serde_json::to_vec(&record).map_err(|e| IngestError::Failures {
            path: self.path.clone(),
            source: e.into(),
        })?;
        self.write_line(&line)
    }

    fn write_line(&self, line: &[u8]) -> Result<(), IngestError> {
        let io = |e: std::io::Error| IngestError::Failures {
            path: self.path.clone(),
            source: e,
        };
        let mut guard = self.out.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            // Its folder was checked before the load ([`check_path`]); none is created. A link
            // in its place is not followed (a temp folder is anyone's to plant one in), and
            // the documents it holds are the user's alone to read.
            use std::os::unix::fs::OpenOptionsExt;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .custom_flags(libc::O_NOFOLLOW)
                .mode(0o600)
                .open(&self.path)
                .map_err(io)?;
            *guard = Some(BufWriter::new(file));
        }
        if let Some(out) = guard.as_mut() {
            out.write_all(line).map_err(io)?;
            out.write_all(b"\n").map_err(io)?;
        }
        self.written.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    pub fn flush(&self) -> Result<(), IngestError> {
        let mut guard = self.out.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(out) = guard.as_mut() {
            out.flush().map_err(|e| IngestError::Failures {
                path: self.path.clone(),
                source: e,
            })?;
        }
        Ok(())
    }
}

/// Checks, before a load, that a failure file can be made at `path`: its folder exists (none
/// is created: `--failures /nonexistent/dir/f` once made `/nonexistent`) and it is not a
/// folder itself.
pub fn check_path(path: &Path) -> Result<(), String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!("--failures {shown}: a folder; give a file path"));
    }
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(format!(
            "--failures {shown}: there is no folder {}; create it first or give another path",
            dir.display()
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad_line(line: u64, raw: &[u8]) -> BadLine {
        BadLine {
            source: "in.ndjson".into(),
            line,
            reason: "not a document".into(),
            raw: raw.to_vec(),
        }
    }

    /// The file's lines, each of which must be JSON (so the file must be UTF-8).
    fn json_lines(path: &Path) -> Vec<serde_json::Value> {
        let bytes = std::fs::read(path).unwrap();
        let text = std::str::from_utf8(&bytes).expect("the failure file is UTF-8");
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// A link planted where the file goes is not written through: the write fails, naming
    /// the file, and what the link points at is untouched.
    #[test]
    fn a_link_in_the_failure_files_place_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let path = dir.path().join("failures.ndjson");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let f = FailureFile::new(&path);
        let e = f.bad_line(&bad_line(1, b"x")).unwrap_err().to_string();
        assert!(e.contains("failures.ndjson"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn records_documents_and_bad_lines_lazily() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("failures.ndjson");
        let f = FailureFile::new(&path);
        assert!(!path.exists());
        f.document(
            7,
            br#"{"n":"x"}"#,
            Some(Origin {
                file: "in.ndjson",
                line: 9,
            }),
            400,
            1,
            "mapper_parsing_exception",
        )
        .unwrap();
        f.document(8, b"{not json", None, 400, 1, "parse").unwrap();
        f.bad_line(&bad_line(3, b"{oops")).unwrap();
        f.flush().unwrap();
        let lines = json_lines(&path);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["doc"]["n"], "x");
        assert_eq!(lines[0]["status"], 400);
        assert_eq!(lines[0]["source"], "in.ndjson");
        assert_eq!(lines[0]["line"], 9);
        assert!(lines[1].get("file").is_none());
        assert_eq!(lines[1]["raw"], "{not json");
        assert_eq!(lines[2]["line"], 3);
        assert_eq!(f.written(), 3);
    }

    #[test]
    fn invalid_utf8_never_reaches_the_file_raw() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("failures.ndjson");
        let f = FailureFile::new(&path);
        let doc = b"{\"msg\":\"a\xffb\"}";
        f.document(
            2,
            doc,
            Some(Origin {
                file: "in.ndjson",
                line: 4,
            }),
            400,
            1,
            "refused",
        )
        .unwrap();
        f.bad_line(&bad_line(5, b"{\"x\":\"\xc0\xaf\"}")).unwrap();
        f.flush().unwrap();
        let lines = json_lines(&path);
        use base64::Engine as _;
        let decode = |v: &serde_json::Value| {
            base64::engine::general_purpose::STANDARD
                .decode(v.as_str().unwrap())
                .unwrap()
        };
        assert_eq!(lines[0]["source"], "in.ndjson");
        assert_eq!(lines[0]["line"], 4);
        assert!(lines[0].get("doc").is_none());
        assert_eq!(decode(&lines[0]["raw_base64"]), doc);
        assert_eq!(decode(&lines[1]["raw_base64"]), b"{\"x\":\"\xc0\xaf\"}");
    }
}

//! The failure file: every document the target refused, and every input line that was not a
//! document, with the reason, as NDJSON. Created on the first failure only.

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

#[derive(serde::Serialize)]
struct DocRecord<'a> {
    kind: &'static str,
    ordinal: u64,
    /// The input file and 1-based line, when the corpus is files.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    status: u16,
    attempts: u32,
    reason: &'a str,
    /// The document as text when it is not valid JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Serialize)]
struct BadRecord<'a> {
    kind: &'static str,
    source: &'a str,
    line: u64,
    reason: &'a str,
    raw: std::borrow::Cow<'a, str>,
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

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// A document the target did not take: refused (status 4xx), or never acknowledged.
    pub fn document(
        &self,
        ordinal: u64,
        doc: &[u8],
        origin: Option<(&str, u64)>,
        status: u16,
        attempts: u32,
        reason: &str,
    ) -> Result<(), IngestError> {
        // A valid JSON document goes in as it is (`doc`), byte for byte; anything else as a
        // string (`raw`).
        let valid = serde_json::from_slice::<serde::de::IgnoredAny>(doc).is_ok();
        let record = DocRecord {
            kind: "document",
            ordinal,
            file: origin.map(|o| o.0),
            line: origin.map(|o| o.1),
            status,
            attempts,
            reason,
            raw: (!valid).then(|| String::from_utf8_lossy(doc)),
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
            raw: String::from_utf8_lossy(&bad.raw),
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
            if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(io)?;
            }
            *guard = Some(BufWriter::new(File::create(&self.path).map_err(io)?));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_documents_and_bad_lines_lazily() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/failures.ndjson");
        let f = FailureFile::new(&path);
        assert!(!path.exists());
        f.document(
            7,
            br#"{"n":"x"}"#,
            Some(("in.ndjson", 9)),
            400,
            1,
            "mapper_parsing_exception",
        )
        .unwrap();
        f.document(8, b"{not json", None, 400, 1, "parse").unwrap();
        f.bad_line(&BadLine {
            source: "in.ndjson".into(),
            line: 3,
            reason: "not JSON".into(),
            raw: b"{oops".to_vec(),
        })
        .unwrap();
        f.flush().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["doc"]["n"], "x");
        assert_eq!(lines[0]["status"], 400);
        assert_eq!(lines[0]["file"], "in.ndjson");
        assert_eq!(lines[0]["line"], 9);
        assert!(lines[1].get("file").is_none());
        assert_eq!(lines[1]["raw"], "{not json");
        assert_eq!(lines[2]["line"], 3);
        assert_eq!(f.written(), 3);
    }
}

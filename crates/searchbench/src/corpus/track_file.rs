//! One documents entry of a Rally track or an OSB workload as a document source: its file
//! (plain or compressed, as [`NdjsonReader`] reads it), in action-and-meta-data pairs when the
//! entry says so, cut to its first documents in test mode, and the number of documents the
//! entry declares checked against what the file held: a file that holds more or fewer ends
//! the load with an error naming it.

use super::{BadLine, CorpusError, DocSource, Item, LineCheck, NdjsonReader};

/// How a documents entry is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFile {
    /// The local file.
    pub path: String,
    /// The documents the entry declares (`document-count`); not checked when absent.
    pub declared: Option<u64>,
    /// Read only this many documents (test mode, from the full file).
    pub limit: Option<u64>,
    /// Each document is an action line and then its source (`includes-action-and-meta-data`).
    pub with_meta: bool,
    /// Only the documents at positions `[from, to)` (a part of a run in parts): those before
    /// are read and dropped; the part that ends at the file's declared count reads on to check
    /// it, the others stop at their share's end.
    pub share: Option<(u64, u64)>,
}

/// An [`EntryFile`] being read.
pub struct TrackFile {
    spec: EntryFile,
    inner: NdjsonReader,
    /// Documents (and bad lines, each a document the file holds) handed out so far.
    seen: u64,
    /// The action line of a pair, read before its source.
    action: Vec<u8>,
}

impl TrackFile {
    pub fn open(spec: EntryFile) -> Result<TrackFile, CorpusError> {
        let inner = NdjsonReader::open(&spec.path)?.with_check(LineCheck::Engine);
        Ok(TrackFile {
            spec,
            inner,
            seen: 0,
            action: Vec::new(),
        })
    }

    /// The end of the file: what it held against what the entry declares.
    fn at_end(&self) -> Result<Option<Item>, CorpusError> {
        match self.spec.declared {
            Some(declared) if declared != self.seen => Err(CorpusError::Invalid(format!(
                "{}: holds {} document(s), the track declares {declared} (its document-count); \
                 is it the file the track names, whole?",
                self.spec.path, self.seen
            ))),
            _ => Ok(None),
        }
    }

    /// The next pair: its action line (checked) and its source, appended to `out` as
    /// `action\nsource`. A pair with a bad half is one bad document, both lines kept.
    fn next_pair(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        self.action.clear();
        let action = match self.inner.next_into(&mut self.action)? {
            None => return Ok(None),
            Some(Item::Bad(bad)) => Err(bad),
            Some(Item::Doc) => match action_problem(&self.action) {
                None => Ok(self.inner.origin().map_or(0, |(_, line)| line)),
                Some(reason) => Err(BadLine {
                    source: self.spec.path.clone(),
                    line: self.inner.origin().map_or(0, |(_, line)| line),
                    reason,
                    raw: std::mem::take(&mut self.action),
                }),
            },
        };
        let mark = out.len();
        out.extend_from_slice(&self.action);
        out.push(b'\n');
        let source = self.inner.next_into(out)?;
        match (action, source) {
            (Ok(line), None) => {
                out.truncate(mark);
                let raw = std::mem::take(&mut self.action);
                Ok(Some(Item::Bad(BadLine {
                    source: self.spec.path.clone(),
                    line,
                    reason: "an action line without its document: the file ends after it".into(),
                    raw,
                })))
            }
            (Ok(_), Some(Item::Doc)) => Ok(Some(Item::Doc)),
            (Ok(_), Some(Item::Bad(mut bad))) => {
                out.truncate(mark);
                bad.raw = [&self.action[..], b"\n", &bad.raw].concat();
                bad.reason = format!("the document after its action line: {}", bad.reason);
                Ok(Some(Item::Bad(bad)))
            }
            (Err(mut bad), source) => {
                // The pair's second line is its source whatever the first was: read past it
                // so the pairs stay in step, and keep it with the bad action.
                let doc = match source {
                    Some(Item::Doc) => out[mark + self.action.len() + 1..].to_vec(),
                    Some(Item::Bad(b)) => b.raw,
                    None => Vec::new(),
                };
                out.truncate(mark);
                bad.raw = [&bad.raw[..], b"\n", &doc].concat();
                bad.reason = format!("action line: {}", bad.reason);
                Ok(Some(Item::Bad(bad)))
            }
        }
    }
}

/// Why `line` is not an action line a load can send: one `index` or `create` holding an
/// object (`delete` has no source line and `update` another body, so a file of them is not a
/// corpus).
fn action_problem(line: &[u8]) -> Option<String> {
    let parsed: serde_json::Map<String, serde_json::Value> = match serde_json::from_slice(line) {
        Ok(m) => m,
        Err(e) => return Some(format!("not a JSON object: {e}")),
    };
    let mut keys = parsed.iter();
    match (keys.next(), keys.next()) {
        (Some((k, v)), None) if (k == "index" || k == "create") && v.is_object() => None,
        _ => Some(format!(
            "not an index or create action: {}",
            String::from_utf8_lossy(&line[..line.len().min(200)])
        )),
    }
}

impl TrackFile {
    /// The next document of the file, whichever part it falls to.
    fn next_of_file(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        if self.spec.limit.is_some_and(|l| self.seen >= l) {
            return Ok(None);
        }
        // At its declared count the file must end: one document more and it is not the file
        // the track names (a small compressed file can hold without end). Read no further.
        if let Some(declared) = self.spec.declared.filter(|d| self.seen >= *d) {
            let mut scratch = Vec::new();
            let more = if self.spec.with_meta {
                self.next_pair(&mut scratch)?
            } else {
                self.inner.next_into(&mut scratch)?
            };
            return match more {
                None => Ok(None),
                Some(_) => Err(CorpusError::Invalid(format!(
                    "{}: holds more than the {declared} document(s) the track declares (its \
                     document-count): document {} is one too many, and nothing after it was \
                     read; is it the file the track names, whole?",
                    self.spec.path,
                    declared + 1
                ))),
            };
        }
        let item = if self.spec.with_meta {
            self.next_pair(out)?
        } else {
            self.inner.next_into(out)?
        };
        match item {
            None => self.at_end(),
            Some(item) => {
                self.seen += 1;
                Ok(Some(item))
            }
        }
    }

    /// The documents of the whole file (its declared count, or its test-mode limit).
    fn whole(&self) -> Option<u64> {
        match (self.spec.declared, self.spec.limit) {
            (Some(d), Some(l)) => Some(d.min(l)),
            (d, l) => d.or(l),
        }
    }
}

impl DocSource for TrackFile {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        let Some((from, to)) = self.spec.share else {
            return self.next_of_file(out);
        };
        let mut scratch = Vec::new();
        while self.seen < from {
            scratch.clear();
            if self.next_of_file(&mut scratch)?.is_none() {
                return Err(CorpusError::Invalid(format!(
                    "{}: holds {} document(s), fewer than the track declares (the share of \
                     this part starts at document {from})",
                    self.spec.path, self.seen
                )));
            }
        }
        if self.seen < to {
            return self.next_of_file(out);
        }
        // The last part reads on: a file holding more than it declares is found there.
        if Some(to) == self.whole() && self.spec.limit.is_none() {
            scratch.clear();
            if self.next_of_file(&mut scratch)?.is_some() {
                return Err(CorpusError::Invalid(format!(
                    "{}: holds more than the {to} document(s) the track declares (its \
                     document-count); is it the file the track names, whole?",
                    self.spec.path
                )));
            }
        }
        Ok(None)
    }

    fn len_hint(&self) -> Option<u64> {
        match self.spec.share {
            Some((from, to)) => Some(to - from),
            None => self.whole(),
        }
    }

    fn describe(&self) -> String {
        match self.spec.share {
            Some((from, to)) => format!("{}, documents {from}..{to}", self.spec.path),
            None => self.spec.path.clone(),
        }
    }

    fn files(&self) -> Vec<String> {
        vec![self.spec.path.clone()]
    }

    fn origin(&self) -> Option<(u32, u64)> {
        self.inner.origin()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
        let p = dir.path().join(name);
        std::fs::File::create(&p)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        p.display().to_string()
    }

    fn read(spec: EntryFile) -> (Vec<Result<String, BadLine>>, Result<(), CorpusError>) {
        let mut f = TrackFile::open(spec).unwrap();
        let mut items = Vec::new();
        loop {
            let mut out = Vec::new();
            match f.next_into(&mut out) {
                Ok(Some(Item::Doc)) => items.push(Ok(String::from_utf8(out).unwrap())),
                Ok(Some(Item::Bad(b))) => {
                    assert!(out.is_empty(), "a bad document leaves nothing behind");
                    items.push(Err(b))
                }
                Ok(None) => return (items, Ok(())),
                Err(e) => return (items, Err(e)),
            }
        }
    }

    fn entry(path: String) -> EntryFile {
        EntryFile {
            path,
            declared: None,
            limit: None,
            with_meta: false,
            share: None,
        }
    }

    /// Differential: the shares of a file, read in order, are the whole file read at once;
    /// the last share reads on to the end and finds a file that holds more than it declares.
    #[test]
    fn shares_of_a_file_are_the_whole_file_cut_in_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..10)
            .map(|i| {
                if i == 4 {
                    "not json\n".to_string()
                } else {
                    format!("{{\"n\":{i}}}\n")
                }
            })
            .collect();
        let p = file(&dir, "documents.json", &text);
        let show = |items: Vec<Result<String, BadLine>>| -> Vec<String> {
            items
                .into_iter()
                .map(|i| i.unwrap_or_else(|b| format!("bad line {}", b.line)))
                .collect()
        };
        let (whole, end) = read(EntryFile {
            declared: Some(10),
            ..entry(p.clone())
        });
        assert!(end.is_ok());
        let mut joined = Vec::new();
        for share in [(0, 3), (3, 7), (7, 10)] {
            let (items, end) = read(EntryFile {
                declared: Some(10),
                share: Some(share),
                ..entry(p.clone())
            });
            assert!(end.is_ok(), "{share:?}: {end:?}");
            assert_eq!(items.len() as u64, share.1 - share.0);
            joined.extend(show(items));
        }
        assert_eq!(joined, show(whole));
        assert!(joined.contains(&"bad line 5".to_string()));
        // Declared 9: the last share (8..9) reads on and finds the tenth document.
        let (_, end) = read(EntryFile {
            declared: Some(9),
            share: Some((6, 9)),
            ..entry(p.clone())
        });
        let e = end.unwrap_err().to_string();
        assert!(e.contains("holds more than the 9 document(s)"), "{e}");
        // Declared 12: a share past the file's end says so.
        let (_, end) = read(EntryFile {
            declared: Some(12),
            share: Some((11, 12)),
            ..entry(p)
        });
        let e = end.unwrap_err().to_string();
        assert!(e.contains("holds 10 document(s)"), "{e}");
    }

    #[test]
    fn the_declared_count_is_checked_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let p = file(&dir, "documents.json", "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");
        let (docs, end) = read(EntryFile {
            declared: Some(3),
            ..entry(p.clone())
        });
        assert_eq!(docs.len(), 3);
        assert!(end.is_ok());
        // Fewer than declared: everything is read (and sent) before the count is found wrong.
        let (docs, end) = read(EntryFile {
            declared: Some(4),
            ..entry(p.clone())
        });
        assert_eq!(docs.len(), 3);
        let e = end.unwrap_err().to_string();
        assert!(e.contains(&p), "{e}");
        assert!(
            e.contains("holds 3 document(s), the track declares 4"),
            "{e}"
        );
        // More than declared: the load stops at the declared count, naming both counts.
        let (docs, end) = read(EntryFile {
            declared: Some(2),
            ..entry(p.clone())
        });
        assert_eq!(docs.len(), 2);
        let e = end.unwrap_err().to_string();
        assert!(e.contains(&p), "{e}");
        assert!(
            e.contains("holds more than the 2 document(s) the track declares")
                && e.contains("document 3 is one too many"),
            "{e}"
        );
    }

    #[test]
    fn a_compressed_file_holding_far_more_than_declared_stops_at_the_count() {
        // 1,000 declared, a million held: the reader stops at 1,001 whatever the file holds.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("documents.json.zst");
        let f = std::fs::File::create(&p).unwrap();
        let mut z = zstd::Encoder::new(f, 3).unwrap();
        for i in 0..1_000_000u32 {
            writeln!(z, "{{\"n\":{i}}}").unwrap();
        }
        z.finish().unwrap();
        let mut f = TrackFile::open(EntryFile {
            declared: Some(1000),
            ..entry(p.display().to_string())
        })
        .unwrap();
        let mut docs = 0;
        let mut out = Vec::new();
        let end = loop {
            out.clear();
            match f.next_into(&mut out) {
                Ok(Some(_)) => docs += 1,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        assert_eq!(docs, 1000);
        let e = end.unwrap_err().to_string();
        assert!(
            e.contains("documents.json.zst") && e.contains("1000"),
            "{e}"
        );
        // It read one line past the count, no more.
        assert_eq!(f.origin().map(|(_, line)| line), Some(1001));
    }

    #[test]
    fn test_mode_reads_the_first_documents_only() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..10).map(|i| format!("{{\"n\":{i}}}\n")).collect();
        let p = file(&dir, "documents.json", &text);
        let (docs, end) = read(EntryFile {
            declared: Some(10),
            limit: Some(4),
            ..entry(p.clone())
        });
        assert!(end.is_ok());
        assert_eq!(
            docs.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
            ["{\"n\":0}", "{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]
        );
        // A file shorter than its limit is still held to its declared count.
        let (_, end) = read(EntryFile {
            declared: Some(12),
            limit: Some(11),
            ..entry(p)
        });
        assert!(end.is_err());
    }

    #[test]
    fn pairs_of_action_and_source_are_one_document_each() {
        let dir = tempfile::tempdir().unwrap();
        let text = "{\"index\":{\"_id\":\"1\"}}\n{\"a\":1}\n\
                    {\"create\":{}}\n{\"a\":2}\n\
                    {\"delete\":{\"_id\":\"3\"}}\n{\"a\":3}\n\
                    {\"index\":{}}\nnot json\n\
                    {\"index\":{\"_id\":\"5\"}}\n{\"a\":5}\n\
                    {\"index\":{}}\n";
        let p = file(&dir, "documents.json", text);
        let (items, end) = read(EntryFile {
            declared: Some(6),
            with_meta: true,
            ..entry(p)
        });
        assert!(end.is_ok(), "{end:?}");
        assert_eq!(items.len(), 6);
        assert_eq!(
            items[0].as_ref().unwrap(),
            "{\"index\":{\"_id\":\"1\"}}\n{\"a\":1}"
        );
        assert_eq!(items[1].as_ref().unwrap(), "{\"create\":{}}\n{\"a\":2}");
        // A delete has no source line: the pair is bad, both lines kept, the next pair in step.
        let bad = items[2].as_ref().unwrap_err();
        assert_eq!(bad.line, 5);
        assert!(
            bad.reason.contains("not an index or create action"),
            "{}",
            bad.reason
        );
        assert_eq!(bad.raw, b"{\"delete\":{\"_id\":\"3\"}}\n{\"a\":3}");
        let bad = items[3].as_ref().unwrap_err();
        assert_eq!(bad.line, 8);
        assert!(bad.reason.starts_with("the document after its action line"));
        assert_eq!(bad.raw, b"{\"index\":{}}\nnot json");
        assert_eq!(
            items[4].as_ref().unwrap(),
            "{\"index\":{\"_id\":\"5\"}}\n{\"a\":5}"
        );
        let bad = items[5].as_ref().unwrap_err();
        assert!(
            bad.reason.contains("without its document"),
            "{}",
            bad.reason
        );
        assert_eq!(bad.raw, b"{\"index\":{}}");
    }

    #[test]
    fn a_compressed_entry_reads_as_its_plain_self() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..2000).map(|i| format!("{{\"n\":{i}}}\n")).collect();
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        let p = dir.path().join("documents.json.bz2");
        std::fs::write(&p, enc.finish().unwrap()).unwrap();
        let (docs, end) = read(EntryFile {
            declared: Some(2000),
            ..entry(p.display().to_string())
        });
        assert!(end.is_ok());
        assert_eq!(docs.len(), 2000);
        assert_eq!(docs[1999].as_ref().unwrap(), "{\"n\":1999}");
    }
}

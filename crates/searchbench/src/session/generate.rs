//! Writing a workload's corpus to a file or stdout (`searchbench generate`).
//!
//! Documents are appended into one 4 MiB buffer that is handed to the sink when full, so the
//! number of `write` calls is bytes / 4 MiB, never per document; compression (gzip, zstd)
//! sits between that buffer and the file. The truth file (cluster-metrics) is written beside
//! it as the generator publishes each epoch.

use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::SessionError;
use crate::corpus::TruthHandle;
use crate::workload::CorpusWriter;

const CHUNK: usize = 4 << 20;

/// Compression of the written corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
}

/// What was written.
#[derive(Debug, Clone, Copy)]
pub struct Written {
    pub docs: u64,
    /// Uncompressed bytes.
    pub bytes: u64,
    pub elapsed: Duration,
}

/// Writes every record of `writer` to `out` (`-` for stdout), with the truth to `truth_path`
/// when the workload publishes one; `progress` hears the document count once per buffer.
pub fn write_corpus(
    writer: CorpusWriter,
    out: &str,
    compress: Option<Compression>,
    truth_path: Option<&str>,
    progress: &dyn Fn(u64),
) -> Result<Written, SessionError> {
    let truth = match (truth_path, writer.truth) {
        (Some(path), Some((header, handle))) => {
            let mut file = File::create(partial(path))
                .map_err(|e| SessionError::usage(format!("cannot create {path}: {e}")))?;
            let mut header = serde_json::to_vec(&header)
                .map_err(|e| SessionError::Other(format!("encoding the truth header: {e}")))?;
            header.push(b'\n');
            file.write_all(&header)
                .map_err(|e| SessionError::Other(format!("writing {path}: {e}")))?;
            Some((file, path.to_string(), handle))
        }
        _ => None,
    };
    let (sink, pipe_closed) = open_out(out, compress)?;
    let mut output = Output {
        sink,
        pipe_closed,
        buf: Vec::with_capacity(CHUNK + (64 << 10)),
        out_name: out.to_string(),
        truth,
        progress,
        docs: 0,
        bytes: 0,
    };
    let started = Instant::now();
    output.buf.extend_from_slice(&writer.header);
    let mut next = writer.next;
    let mut failure = None;
    output.pump(|b| match next(b) {
        Ok(more) => more,
        Err(e) => {
            failure = Some(e);
            false
        }
    })?;
    if let Some(e) = failure {
        // The generators make their own documents; a failure here is a bug, said plainly.
        return Err(SessionError::Corpus(e));
    }
    let Output {
        sink,
        docs,
        bytes,
        out_name,
        truth,
        ..
    } = output;
    sink.finish()
        .map_err(|e| SessionError::Other(format!("writing {out_name}: {e}")))?;
    // Whole: each file takes its name only now (cut short, only its `.partial` is left, which
    // nothing reads as a corpus or a truth).
    let mut whole = Vec::new();
    if out != "-" {
        whole.push(out.to_string());
    }
    if let Some((file, path, _)) = truth {
        file.sync_all()
            .map_err(|e| SessionError::Other(format!("writing {path}: {e}")))?;
        whole.push(path);
    }
    for path in whole.into_iter().filter(|p| partial(p) != *p) {
        std::fs::rename(partial(&path), &path)
            .map_err(|e| SessionError::Other(format!("naming {path}: {e}")))?;
    }
    Ok(Written {
        docs,
        bytes,
        elapsed: started.elapsed(),
    })
}

/// Where a file is written until it is whole: beside it, under a name of this process's own
/// (two generations into one `--out` never write one file), unless it is there and is no
/// regular file (`/dev/null`, a pipe `>(gzip)` gives), which is written in place.
fn partial(path: &str) -> String {
    let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
    match special {
        true => path.to_string(),
        false => format!("{path}.{}.partial", std::process::id()),
    }
}

/// Where the bytes go, with compression if asked.
enum Sink {
    Plain(Box<dyn Write + Send>),
    Gzip(flate2::write::GzEncoder<Box<dyn Write + Send>>),
    Zstd(zstd::stream::write::Encoder<'static, Box<dyn Write + Send>>),
}

impl Sink {
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.write_all(buf),
            Sink::Gzip(w) => w.write_all(buf),
            Sink::Zstd(w) => w.write_all(buf),
        }
    }

    fn finish(self) -> std::io::Result<()> {
        let mut inner = match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w.finish()?,
            Sink::Zstd(w) => w.finish()?,
        };
        inner.flush()
    }
}

/// Set when the reader of our stdout went away (`generate ... | head`): not an error, the
/// run just stops early. Shared by the pipe (which sets it) and the output loop (which stops).
type PipeClosed = Arc<AtomicBool>;

/// Stdout that turns "broken pipe" into a quiet stop.
struct QuietPipe(std::io::Stdout, PipeClosed);

impl Write for QuietPipe {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.1.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        match self.0.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.1.store(true, Ordering::Relaxed);
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.0.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.1.store(true, Ordering::Relaxed);
                Ok(())
            }
            other => other,
        }
    }
}

fn open_out(path: &str, compress: Option<Compression>) -> Result<(Sink, PipeClosed), SessionError> {
    let closed = PipeClosed::default();
    let raw: Box<dyn Write + Send> = if path == "-" {
        Box::new(QuietPipe(std::io::stdout(), closed.clone()))
    } else {
        let file = File::create(partial(path))
            .map_err(|e| SessionError::usage(format!("cannot create {path}: {e}")))?;
        Box::new(file)
    };
    let sink = match compress {
        None => Sink::Plain(raw),
        Some(Compression::Gzip) => Sink::Gzip(flate2::write::GzEncoder::new(
            raw,
            flate2::Compression::fast(),
        )),
        Some(Compression::Zstd) => Sink::Zstd(
            zstd::stream::write::Encoder::new(raw, 3)
                .map_err(|e| SessionError::Other(format!("zstd encoder: {e}")))?,
        ),
    };
    Ok((sink, closed))
}

/// Output writer with the truth file alongside; flushes per chunk.
struct Output<'a> {
    sink: Sink,
    pipe_closed: PipeClosed,
    buf: Vec<u8>,
    out_name: String,
    truth: Option<(File, String, TruthHandle)>,
    progress: &'a dyn Fn(u64),
    docs: u64,
    bytes: u64,
}

impl Output<'_> {
    fn flush_chunk(&mut self) -> Result<(), SessionError> {
        self.sink
            .write_all(&self.buf)
            .map_err(|e| SessionError::Other(format!("writing {}: {e}", self.out_name)))?;
        self.bytes += self.buf.len() as u64;
        self.buf.clear();
        (self.progress)(self.docs);
        self.flush_truth()
    }

    fn flush_truth(&mut self) -> Result<(), SessionError> {
        if let Some((file, name, handle)) = &mut self.truth {
            let parts = handle.take();
            if parts.is_empty() {
                return Ok(());
            }
            let mut text = Vec::new();
            for p in &parts {
                serde_json::to_writer(&mut text, p)
                    .map_err(|e| SessionError::Other(format!("encoding the truth: {e}")))?;
                text.push(b'\n');
            }
            file.write_all(&text)
                .map_err(|e| SessionError::Other(format!("writing {name}: {e}")))?;
        }
        Ok(())
    }

    /// Runs `next` (append one record to the buffer, `false` at the end) to exhaustion.
    #[inline]
    fn pump(&mut self, mut next: impl FnMut(&mut Vec<u8>) -> bool) -> Result<(), SessionError> {
        loop {
            if !next(&mut self.buf) {
                break;
            }
            self.buf.push(b'\n');
            self.docs += 1;
            if self.buf.len() >= CHUNK {
                self.flush_chunk()?;
                if self.pipe_closed.load(Ordering::Relaxed) {
                    break;
                }
            }
        }
        self.flush_chunk()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A corpus is named only once it is whole: a generation cut short (here its generator
    /// fails after 3 MB; Ctrl-C kills it the same way) leaves the file it replaces as it was
    /// and only a `.partial` beside it; a whole one takes the name.
    #[test]
    fn a_corpus_cut_short_does_not_take_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("corpus.ndjson");
        std::fs::write(&out, "{\"before\": 1}\n").unwrap();
        let out = out.display().to_string();
        let writer = |fail_after: Option<u64>| {
            let mut n = 0u64;
            CorpusWriter {
                header: Vec::new(),
                len_hint: None,
                next: Box::new(move |b: &mut Vec<u8>| {
                    n += 1;
                    if fail_after.is_some_and(|k| n > k) {
                        return Err(crate::corpus::CorpusError::Invalid("cut".into()));
                    }
                    if n > 100_000 {
                        return Ok(false);
                    }
                    let pad = "x".repeat(100);
                    b.extend_from_slice(format!("{{\"n\": {n}, \"pad\": \"{pad}\"}}").as_bytes());
                    Ok(true)
                }),
                truth: None,
            }
        };
        assert!(write_corpus(writer(Some(30_000)), &out, None, None, &|_| {}).is_err());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"before\": 1}\n");
        let written = write_corpus(writer(None), &out, None, None, &|_| {}).unwrap();
        assert_eq!(written.docs, 100_000);
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text.lines().count(), 100_000);
        assert!(!std::path::Path::new(&partial(&out)).exists());
        // A device is written in place.
        let null = write_corpus(writer(None), "/dev/null", None, None, &|_| {}).unwrap();
        assert_eq!(null.docs, 100_000);
    }
}

//! Compressed corpus files, as Rally and OSB ship them (`.bz2`, `.zst`, `.gz`), read in a
//! stream and decompressed on a thread of their own.
//!
//! The format is found by the file's first bytes (so a file under a plain name still reads),
//! else by its name. Decompression runs ahead of the reader on its own thread
//! ([`ReadAhead`]): bzip2 decodes at tens of MB/s per core, so on the reader's thread it would
//! cap the load at that speed; beside it, the reader splits lines and builds bulk bodies while
//! the next chunk is decoded. Multi-stream files (`pbzip2`, concatenated gzip members and zstd
//! frames) are read to their end.

use std::io::{self, BufRead, Read};
use std::path::Path;
use std::sync::mpsc;

/// A corpus file's compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Zstd,
}

impl Compression {
    /// By the file's first bytes, else by the name's extension.
    pub fn sniff(magic: &[u8], path: &str) -> Compression {
        if magic.starts_with(&[0x1f, 0x8b]) {
            return Compression::Gzip;
        }
        // "BZh" and the block size, '1' to '9'.
        if magic.len() >= 4 && magic.starts_with(b"BZh") && (b'1'..=b'9').contains(&magic[3]) {
            return Compression::Bzip2;
        }
        if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            return Compression::Zstd;
        }
        match Path::new(path).extension().and_then(|e| e.to_str()) {
            Some("gz") => Compression::Gzip,
            Some("bz2") => Compression::Bzip2,
            Some("zst") => Compression::Zstd,
            _ => Compression::None,
        }
    }

    /// Whether the name alone says the file is compressed.
    pub fn by_name(path: &str) -> bool {
        Compression::sniff(&[], path) != Compression::None
    }

    /// `input` decoded, decoding ahead on its own thread.
    pub fn decode<R: BufRead + Send + 'static>(
        self,
        input: R,
    ) -> io::Result<Box<dyn BufRead + Send>> {
        let decoder: Box<dyn Read + Send> = match self {
            Compression::None => return Ok(Box::new(input)),
            Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(input)),
            Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(input)),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(input)?),
        };
        Ok(Box::new(ReadAhead::spawn(decoder)?))
    }
}

/// Decoded bytes handed over per chunk: large enough that the hand-over costs nothing beside
/// the decoding, small enough to stay in cache.
const CHUNK: usize = 1 << 20;

/// Chunks decoded ahead of the reader.
const AHEAD: usize = 4;

/// What the reading thread hands over.
enum Ahead {
    Chunk(Vec<u8>),
    /// `inner` ended cleanly: without this, a thread that stopped (a panic in a decoder) would
    /// look like the end of the file and cut the corpus short in silence.
    End,
    Failed(io::Error),
}

/// A reader fed by a thread that reads `inner` ahead, in chunks. The thread ends when
/// `inner` ends or fails (the error is handed over after the bytes read before it), or when
/// this reader is dropped.
pub struct ReadAhead {
    chunks: mpsc::Receiver<Ahead>,
    /// Emptied chunks go back to the thread to be filled again.
    spent: mpsc::SyncSender<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
    /// The error that ended the stream, repeated on every later read.
    failed: Option<(io::ErrorKind, String)>,
    ended: bool,
}

impl ReadAhead {
    pub fn spawn(mut inner: Box<dyn Read + Send>) -> io::Result<ReadAhead> {
        let (tx, chunks) = mpsc::sync_channel::<Ahead>(AHEAD);
        let (spent, back) = mpsc::sync_channel::<Vec<u8>>(AHEAD + 2);
        std::thread::Builder::new()
            .name("decompress".into())
            .spawn(move || loop {
                // A chunk back from the reader keeps its bytes: sizing it again zeroes only
                // what it lacks (all of a new one), and the decoder writes straight into it.
                let mut chunk = back.try_recv().unwrap_or_default();
                chunk.resize(CHUNK, 0);
                let error = fill(&mut inner, &mut chunk).err();
                let ended = chunk.len() < CHUNK;
                if !chunk.is_empty() && tx.send(Ahead::Chunk(chunk)).is_err() {
                    return;
                }
                if let Some(e) = error {
                    let _ = tx.send(Ahead::Failed(e));
                    return;
                }
                if ended {
                    let _ = tx.send(Ahead::End);
                    return;
                }
            })?;
        Ok(ReadAhead {
            chunks,
            spent,
            chunk: Vec::new(),
            at: 0,
            failed: None,
            ended: false,
        })
    }
}

/// Reads `inner` into `chunk` (of [`CHUNK`] bytes) until it is full or `inner` ends; `chunk`
/// is cut to what was read.
fn fill(inner: &mut dyn Read, chunk: &mut Vec<u8>) -> io::Result<()> {
    let mut len = 0;
    let result = loop {
        if len == chunk.len() {
            break Ok(());
        }
        match inner.read(&mut chunk[len..]) {
            Ok(0) => break Ok(()),
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    chunk.truncate(len);
    result
}

impl BufRead for ReadAhead {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at == self.chunk.len() {
            if let Some((kind, message)) = &self.failed {
                return Err(io::Error::new(*kind, message.clone()));
            }
            if self.ended {
                return Ok(&[]);
            }
            match self.chunks.recv() {
                Ok(Ahead::Chunk(next)) => {
                    let spent = std::mem::replace(&mut self.chunk, next);
                    self.at = 0;
                    if spent.capacity() > 0 {
                        let _ = self.spent.try_send(spent);
                    }
                }
                Ok(Ahead::End) => self.ended = true,
                Ok(Ahead::Failed(e)) => {
                    self.failed = Some((e.kind(), e.to_string()));
                    return Err(e);
                }
                Err(mpsc::RecvError) => {
                    let e = io::Error::other("decompression stopped before the end of the file");
                    self.failed = Some((e.kind(), e.to_string()));
                    return Err(e);
                }
            }
        }
        Ok(&self.chunk[self.at..])
    }

    fn consume(&mut self, amt: usize) {
        self.at = (self.at + amt).min(self.chunk.len());
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn corpus(lines: usize) -> Vec<u8> {
        let mut text = Vec::new();
        for i in 0..lines {
            writeln!(text, "{{\"n\":{i},\"pad\":\"{}\"}}", "x".repeat(i % 300)).unwrap();
        }
        text
    }

    fn read_all(compression: Compression, bytes: Vec<u8>) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        compression
            .decode(io::Cursor::new(bytes))?
            .read_to_end(&mut out)?;
        Ok(out)
    }

    fn gzip(b: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    }

    fn bzip2(b: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    }

    fn zstd(b: &[u8]) -> Vec<u8> {
        zstd::stream::encode_all(b, 3).unwrap()
    }

    #[test]
    fn each_format_is_found_by_its_bytes_and_read_whole() {
        // Several chunks' worth, so the hand-over between threads is crossed many times.
        let text = corpus(40_000);
        assert!(text.len() > 3 * CHUNK);
        for (make, want) in [
            (gzip as fn(&[u8]) -> Vec<u8>, Compression::Gzip),
            (bzip2, Compression::Bzip2),
            (zstd, Compression::Zstd),
        ] {
            let packed = make(&text);
            let found = Compression::sniff(&packed[..8], "documents.json");
            assert_eq!(found, want);
            assert_eq!(read_all(found, packed).unwrap(), text, "{want:?}");
        }
        assert_eq!(
            Compression::sniff(b"{\"a\":1}", "d.json"),
            Compression::None
        );
        assert_eq!(Compression::sniff(b"", "d.json.bz2"), Compression::Bzip2);
        assert_eq!(Compression::sniff(b"", "d.json.zst"), Compression::Zstd);
        // "BZh" must be followed by a block size to be bzip2.
        assert_eq!(Compression::sniff(b"BZhx", "d.json"), Compression::None);
    }

    #[test]
    fn concatenated_streams_are_read_to_the_end() {
        // pbzip2 writes one stream per block; gzip members and zstd frames concatenate alike.
        let (a, b) = (corpus(100), corpus(200));
        let whole: Vec<u8> = [a.clone(), b.clone()].concat();
        for (make, c) in [
            (gzip as fn(&[u8]) -> Vec<u8>, Compression::Gzip),
            (bzip2, Compression::Bzip2),
            (zstd, Compression::Zstd),
        ] {
            let packed = [make(&a), make(&b)].concat();
            assert_eq!(read_all(c, packed).unwrap(), whole, "{c:?}");
        }
    }

    #[test]
    fn a_corrupt_file_fails_after_what_was_read_before_it() {
        let text = corpus(40_000);
        for (make, c) in [
            (gzip as fn(&[u8]) -> Vec<u8>, Compression::Gzip),
            (bzip2, Compression::Bzip2),
            (zstd, Compression::Zstd),
        ] {
            let mut packed = make(&text);
            let cut = packed.len() * 3 / 4;
            packed.truncate(cut);
            let mut reader = c.decode(io::Cursor::new(packed)).unwrap();
            let mut out = Vec::new();
            let e = reader.read_to_end(&mut out).unwrap_err();
            assert!(!out.is_empty(), "{c:?}: bytes before the cut are kept");
            assert!(text.starts_with(&out), "{c:?}");
            // The error stays: a reader asked again does not take the cut for an end.
            let again = reader.fill_buf().map(|b| b.len());
            assert!(again.is_err(), "{c:?}: {again:?}, first {e}");
        }
    }

    #[test]
    fn a_reading_thread_that_dies_is_an_error_not_the_end() {
        struct Dies(bool);
        impl Read for Dies {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if std::mem::replace(&mut self.0, true) {
                    panic!("a decoder bug");
                }
                buf[..3].copy_from_slice(b"abc");
                Ok(3)
            }
        }
        let mut r = ReadAhead::spawn(Box::new(Dies(false))).unwrap();
        let mut out = Vec::new();
        let e = r.read_to_end(&mut out).unwrap_err();
        assert!(e.to_string().contains("stopped before the end"), "{e}");
    }

    #[test]
    fn dropping_the_reader_ends_its_thread() {
        // An endless input: only the dropped reader can stop the thread, which drops the
        // input as it returns.
        struct Endless(mpsc::Sender<()>);
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                buf.fill(b'x');
                Ok(buf.len())
            }
        }
        impl Drop for Endless {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        let (dropped, ended) = mpsc::channel();
        let mut r = ReadAhead::spawn(Box::new(Endless(dropped))).unwrap();
        assert!(!r.fill_buf().unwrap().is_empty());
        drop(r);
        assert!(ended
            .recv_timeout(std::time::Duration::from_secs(10))
            .is_ok());
    }
}

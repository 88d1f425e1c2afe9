//! A regular file's bytes, read through a bounded buffer up to the size the file had when it
//! was opened. Reading (not mapping) keeps resident memory at the size of the buffer whatever
//! the file's size, and a file that is cut short under the reader (log rotation by
//! `copytruncate`) becomes an error naming the byte where reading stopped, instead of the
//! SIGBUS a mapped file gives.

use std::fs::File;
use std::io::{self, Read};

/// A plain file opened for reading up to its size at open. Bytes appended while it is read are
/// not read (the load reads the file as it was when it began); a file that shrinks below that
/// size is [`Truncated`].
#[derive(Debug)]
pub struct PlainFile {
    file: File,
    /// Bytes handed out so far.
    at: u64,
    /// The file's size when it was opened: where reading ends.
    len: u64,
}

/// The input file shrank while it was read: what was read before `at` is good, the rest is
/// gone (or was replaced, which cannot be told apart).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "input file truncated at byte {at} (it now holds {now} bytes; it held {len} when the load \
     began): the documents read before are accounted for, the rest of the file was not read"
)]
pub struct Truncated {
    pub at: u64,
    pub now: u64,
    pub len: u64,
}

impl PlainFile {
    /// `file`, to be read from its start up to its current size.
    pub fn new(file: File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(PlainFile { file, at: 0, len })
    }

    fn truncated(&self, now: u64) -> io::Error {
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            Truncated {
                at: self.at,
                now,
                len: self.len,
            },
        )
    }
}

impl Read for PlainFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.len - self.at;
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = loop {
            match self.file.read(&mut buf[..want]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        // One fstat a buffer fill (a megabyte), so the check costs nothing measurable. A file
        // that shrank below its size at open was rotated or rewritten: the bytes just read
        // may already be the new content, so they are not handed out.
        let now = self.file.metadata()?.len();
        if n == 0 || now < self.len {
            return Err(self.truncated(now));
        }
        self.at += n as u64;
        Ok(n)
    }
}

/// The [`Truncated`] inside `e`, if that is what `e` is.
pub fn truncated(e: &io::Error) -> Option<&Truncated> {
    e.get_ref()?.downcast_ref::<Truncated>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};

    #[test]
    fn reads_the_file_as_it_was_at_open_and_not_what_is_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ndjson");
        std::fs::write(&path, b"{\"a\":1}\n{\"b\":2}\n").unwrap();
        let mut plain = PlainFile::new(File::open(&path).unwrap()).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"c\":3}\n")
            .unwrap();
        let mut got = Vec::new();
        plain.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"{\"a\":1}\n{\"b\":2}\n");
    }

    #[test]
    fn a_file_cut_short_while_read_is_an_error_naming_the_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ndjson");
        let line = b"{\"n\":12345678}\n"; // 15 bytes
        std::fs::write(&path, line.repeat(100)).unwrap();
        let plain = PlainFile::new(File::open(&path).unwrap()).unwrap();
        let mut reader = BufReader::with_capacity(150, plain);
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        assert_eq!(first.as_bytes(), line);
        // Rotation by copytruncate: the file is emptied and written again from its start.
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(0).unwrap();
        (&file).write_all(b"{\"new\":1}\n").unwrap();
        // The rest of the first buffer fill (150 bytes, 10 lines) was read before the cut.
        let mut rest = Vec::new();
        let e = reader.read_to_end(&mut rest).unwrap_err();
        assert_eq!(rest, line.repeat(9));
        let t = truncated(&e).expect("a Truncated error");
        assert_eq!((t.at, t.now, t.len), (150, 10, 1500));
        assert!(
            e.to_string()
                .starts_with("input file truncated at byte 150"),
            "{e}"
        );
    }
}

//! A plain file read through a memory mapping, with bounded resident memory.
//!
//! Mapping spares the copy from the page cache into a read buffer, which on this kind of
//! virtual machine is the largest single cost of the file path (~0.5 CPU s per GB, twice the
//! rest of the reader). The whole file is mapped once (address space only); pages fault in as
//! the reader reaches them (the kernel maps 16 at a time) and are dropped behind it
//! (`MADV_DONTNEED`) at a checkpoint every `STEP` bytes, so resident memory stays at a few
//! steps whatever the file's size. (Bringing pages in ahead with `MADV_POPULATE_READ` cost
//! more: `bench/mapped_read.c`.) The file is read up to the size it had when it was opened.
//! One that shrinks under the reader is an error naming the byte where reading stopped
//! ([`Truncated`]): found by `fstat` at a checkpoint or, when the cut falls between two, by
//! the SIGBUS guard (`sigbus.rs`) on the first page the reader touches past it.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::os::fd::AsRawFd;

use super::plain::Truncated;
use super::sigbus::Guard;

/// The reader's checkpoints are this far apart: at each, the pages behind it are dropped and
/// the file's size is checked.
const STEP: usize = 4 << 20;

/// A mapped plain file, read as a [`BufRead`] whose buffer runs to the next checkpoint.
#[derive(Debug)]
pub struct MappedFile {
    file: File,
    base: *mut u8,
    /// The file's size at open: the mapping's length and where reading ends.
    len: usize,
    /// Bytes consumed so far (counted from the file's start).
    at: usize,
    /// Where reading began ([`MappedFile::restrict`]; 0 for the whole file).
    start: usize,
    /// Where reading ends: the file's size at open, or the end of a part's range.
    stop: usize,
    /// Pages before this offset were dropped.
    released: usize,
    /// Where the next checkpoint is due.
    checkpoint: usize,
    page: usize,
    /// Watched from the first checkpoint until the reader is dropped (at the end of the file:
    /// the guard's slots are for files being read, not for every file of a load).
    guard: Option<Guard>,
}

// SAFETY: the mapping is private to this reader, read-only, and used by one thread at a time.
unsafe impl Send for MappedFile {}

impl MappedFile {
    /// `file` mapped read-only, or `None` when it is empty or the OS will not map it (then
    /// it is read through a buffer instead).
    pub fn open(file: File) -> io::Result<Option<Self>> {
        let len = file.metadata()?.len();
        let Ok(len) = usize::try_from(len) else {
            return Ok(None);
        };
        if len == 0 {
            return Ok(None);
        }
        // SAFETY: a fresh read-only private mapping of an open file; the kernel picks the
        // address. A file cut short later is handled by the guard and the window checks.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Ok(None);
        }
        Ok(Some(MappedFile {
            file,
            base: base.cast(),
            len,
            at: 0,
            start: 0,
            stop: len,
            released: 0,
            checkpoint: 0,
            page: crate::os::page_size(),
            guard: None,
        }))
    }

    /// The newlines in the file's first `upto` bytes, read through the mapping (no copy, the
    /// pages dropped behind as the reader drops them): the lines before a part's range.
    pub fn count_newlines(&mut self, upto: usize) -> io::Result<u64> {
        let upto = upto.min(self.len);
        let mut n = 0u64;
        while self.at < upto {
            let left = upto - self.at;
            let buf = self.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let take = buf.len().min(left);
            n += memchr::memchr_iter(b'\n', &buf[..take]).count() as u64;
            self.consume(take);
            if self.faulted() {
                return Err(self.truncated());
            }
        }
        Ok(n)
    }

    /// Reads only `[start, stop)` of the file (a part's line-aligned range, `--part`); the
    /// pages before `start` are never touched.
    pub fn restrict(&mut self, start: usize, stop: usize) {
        let stop = stop.min(self.len);
        let start = start.min(stop);
        self.at = start;
        self.start = start;
        self.stop = stop;
        self.released = self.released.max(start & !(self.page - 1));
        self.checkpoint = start;
    }

    /// The file's bytes from the reader's position to the next checkpoint.
    fn window(&self) -> &[u8] {
        let end = self.checkpoint.max(self.at);
        // SAFETY: `at <= end <= len` and the mapping covers `len` bytes from `base`. A page
        // the file no longer has is replaced by the guard, so reading it never faults for good.
        unsafe { std::slice::from_raw_parts(self.base.add(self.at), end - self.at) }
    }

    /// Whether the file was found cut short while its bytes were read: anything read since
    /// the last check may hold the guard's newlines, not the file's bytes.
    pub fn faulted(&self) -> bool {
        self.guard.as_ref().is_some_and(Guard::faulted)
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.at
    }

    fn truncated(&self) -> io::Error {
        self.truncated_at(self.at)
    }

    /// The error for a file found cut short, reading having stopped at byte `at`.
    pub fn truncated_at(&self, at: usize) -> io::Error {
        let now = self.file.metadata().map_or(0, |m| m.len());
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            Truncated {
                at: at as u64,
                now,
                len: self.len as u64,
            },
        )
    }

    /// A checkpoint: drops the pages behind the reader and checks the file's size.
    fn advance(&mut self) -> io::Result<()> {
        if self.at == self.start && self.guard.is_none() {
            // Before the first page is read.
            self.guard = Guard::watch(self.base as usize, self.len);
        }
        if self.faulted() {
            return Err(self.truncated());
        }
        let here = self.at & !(self.page - 1);
        if here > self.released {
            // SAFETY: a page-aligned range inside the mapping, all of it behind the reader.
            unsafe {
                libc::madvise(
                    self.base.add(self.released).cast(),
                    here - self.released,
                    libc::MADV_DONTNEED,
                );
            }
            self.released = here;
        }
        // Cut short since the last checkpoint? (Growing is fine: the rest is not read.)
        if self.file.metadata()?.len() < self.len as u64 {
            return Err(self.truncated());
        }
        self.checkpoint = (self.at + STEP).min(self.stop);
        Ok(())
    }
}

impl Read for MappedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = self.fill_buf()?;
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for MappedFile {
    /// The bytes up to the next checkpoint. The reader checks [`MappedFile::faulted`] after
    /// each line; here it is checked once a checkpoint.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at >= self.checkpoint && self.at < self.stop {
            self.advance()?;
        }
        Ok(self.window())
    }

    fn consume(&mut self, amt: usize) {
        self.at = (self.at + amt).min(self.checkpoint.max(self.at));
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // Unwatched first: once unmapped, the addresses may be given to another mapping.
        self.guard = None;
        // SAFETY: the mapping made in `open`, unmapped once.
        unsafe {
            libc::munmap(self.base.cast(), self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::corpus::files::{Input, NdjsonReader};
    use crate::corpus::{CorpusError, DocSource, Item};

    /// `n` lines of 1,000 bytes each (a JSON object and its newline).
    fn lines(n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n * 1000);
        for i in 0..n {
            let head = format!("{{\"n\":{i:>9},\"pad\":\"");
            out.extend_from_slice(head.as_bytes());
            out.resize(out.len() + 1000 - head.len() - 3, b'x');
            out.extend_from_slice(b"\"}\n");
        }
        out
    }

    /// Reads `r` to its end or its first error: the documents and the error.
    fn read_until_error(r: &mut NdjsonReader) -> (u64, Option<CorpusError>) {
        let mut docs = 0;
        let mut out = Vec::new();
        loop {
            out.clear();
            match r.next_into(&mut out) {
                Ok(Some(Item::Doc)) => {
                    assert_eq!(
                        out.len(),
                        999,
                        "a whole line, never a cut or a guard's page"
                    );
                    assert!(out.starts_with(b"{\"n\":") && out.ends_with(b"\"}"));
                    docs += 1;
                }
                Ok(Some(Item::Bad(bad))) => panic!("a bad line: {bad:?}"),
                Ok(None) => return (docs, None),
                Err(e) => return (docs, Some(e)),
            }
        }
    }

    fn cut(path: &std::path::Path, len: u64) {
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        file.set_len(len).unwrap();
    }

    #[test]
    fn a_large_file_is_read_whole_with_pages_dropped_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.ndjson");
        std::fs::write(&path, lines(20_000)).unwrap(); // 20 MB: five steps
        let mut r = NdjsonReader::open(path.to_str().unwrap()).unwrap();
        assert!(r.is_mapped());
        let mut out = Vec::new();
        for _ in 0..19_000 {
            out.clear();
            assert_eq!(r.next_into(&mut out).unwrap(), Some(Item::Doc));
        }
        let Input::Mapped(file) = &r.input else {
            unreachable!()
        };
        // Checkpoints at 4, 8, 12 and 16 MiB: the pages behind the last one are dropped.
        assert_eq!(file.released, 16 << 20);
        assert_eq!(read_until_error(&mut r).0, 1_000);
        assert!(!r.is_mapped(), "unmapped at its end");
    }

    #[test]
    fn a_file_cut_ahead_of_the_reader_is_found_at_the_next_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.ndjson");
        std::fs::write(&path, lines(12_000)).unwrap();
        let mut r = NdjsonReader::open(path.to_str().unwrap()).unwrap();
        let mut out = Vec::new();
        assert_eq!(r.next_into(&mut out).unwrap(), Some(Item::Doc));
        cut(&path, 6_000_000);
        let (docs, error) = read_until_error(&mut r);
        // The first checkpoint after the cut is at 4 MiB, inside line 4195: reading stops at
        // that line's start.
        assert_eq!(1 + docs, 4194, "{error:?}");
        let e = error.expect("an error");
        let text = e.to_string();
        assert!(
            text.contains(
                "cut.ndjson: line 4195: input file truncated at byte 4194000 (it now \
                 holds 6000000 bytes; it held 12000000"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_load_of_more_files_than_guards_keeps_every_file_guarded() {
        let dir = tempfile::tempdir().unwrap();
        // Opened all at once, as a load of many files opens them, then read one after another.
        let mut readers: Vec<NdjsonReader> = (0..100)
            .map(|i| {
                let path = dir.path().join(format!("{i}.ndjson"));
                std::fs::write(&path, lines(20)).unwrap();
                NdjsonReader::open(path.to_str().unwrap()).unwrap()
            })
            .collect();
        let last = readers.pop().unwrap();
        for mut r in readers {
            assert_eq!(read_until_error(&mut r).0, 20);
            assert!(!r.is_mapped(), "unmapped at its end");
        }
        let mut r = last;
        let mut out = Vec::new();
        assert_eq!(r.next_into(&mut out).unwrap(), Some(Item::Doc));
        cut(&dir.path().join("99.ndjson"), 0);
        let e = r
            .next_into(&mut out)
            .expect_err("the cut is found, not a SIGBUS");
        assert!(e.to_string().contains("truncated at byte 1000"), "{e}");
    }

    #[test]
    fn a_page_cut_under_the_reader_is_an_error_not_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rotated.ndjson");
        std::fs::write(&path, lines(1_000)).unwrap(); // within the first window
        let mut r = NdjsonReader::open(path.to_str().unwrap()).unwrap();
        let mut out = Vec::new();
        for _ in 0..10 {
            assert_eq!(r.next_into(&mut out).unwrap(), Some(Item::Doc));
        }
        // copytruncate: the pages the reader was about to read are gone from its mapping.
        cut(&path, 0);
        out.clear();
        let e = r.next_into(&mut out).expect_err("the cut is found");
        assert!(out.is_empty(), "nothing of the faulted line is handed out");
        assert!(
            e.to_string()
                .contains("line 11: input file truncated at byte 10000 (it now holds 0 bytes"),
            "{e}"
        );
        let Input::Mapped(file) = &r.input else {
            unreachable!()
        };
        assert!(file.faulted(), "found by the guard, not by a window check");
    }
}

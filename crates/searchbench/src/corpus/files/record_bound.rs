//! A bound on how much of a CSV file one record may take. The csv crate gathers a record whole
//! before it hands it over, so a quote never closed, or a file without a newline, would make
//! one record of the rest of the file and hold it all in memory. Past the bound, reading
//! stops with [`RecordTooLong`] instead.

use std::io::{self, Read};

/// A reader that refuses to hand out more than `max` bytes (plus one read) past the start of
/// the record being read, which its owner moves with [`RecordBound::record_starts_at`].
#[derive(Debug)]
pub struct RecordBound<R> {
    inner: R,
    /// Bytes handed out so far.
    pub(super) handed: u64,
    /// Where the record being read starts (a byte offset in what was handed out).
    start: u64,
    max: u64,
}

/// One CSV record ran past the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a CSV record longer than the limit of {max} bytes (--max-line raises it; a quote left \
     open makes the rest of the file one field)"
)]
pub struct RecordTooLong {
    pub max: u64,
}

impl<R> RecordBound<R> {
    pub fn new(inner: R, max: usize) -> Self {
        RecordBound {
            inner,
            handed: 0,
            start: 0,
            max: max as u64,
        }
    }

    /// The next record starts at byte `at` of the input.
    pub fn record_starts_at(&mut self, at: u64) {
        self.start = at;
    }

    pub fn set_max(&mut self, max: usize) {
        self.max = max as u64;
    }
}

impl<R: Read> Read for RecordBound<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.handed.saturating_sub(self.start) > self.max {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                RecordTooLong { max: self.max },
            ));
        }
        let n = self.inner.read(buf)?;
        self.handed += n as u64;
        Ok(n)
    }
}

//! A source of numbered documents, for tests and for measuring the driver without a
//! generator.

use super::{CorpusError, DocSource, Item};

/// A source of `n` small documents, all alike but for their number: for tests and for
/// measuring the driver without a generator.
#[derive(Debug, Clone)]
pub struct Counter {
    pub n: u64,
    pub at: u64,
}

impl DocSource for Counter {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        if self.at >= self.n {
            return Ok(None);
        }
        out.extend_from_slice(b"{\"n\":");
        out.extend_from_slice(itoa::Buffer::new().format(self.at).as_bytes());
        out.push(b'}');
        self.at += 1;
        Ok(Some(Item::Doc))
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.n)
    }

    fn describe(&self) -> String {
        format!("counter ({} docs)", self.n)
    }
}

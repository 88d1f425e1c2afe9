//! Bulk bodies: action lines written as bytes, documents appended in place by the source, and
//! a pool so the buffers are reused instead of reallocated per request.

use std::ops::Range;
use std::sync::Mutex;

use bytes::Bytes;

/// How documents get their `_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IdMode {
    /// The server picks ids: a little faster, but re-sending a request whose answer was lost
    /// can index its documents twice.
    Auto,
    /// `_id` = the document's ordinal in the corpus (0, 1, 2, ...): deterministic, and a
    /// retried request overwrites instead of duplicating.
    Sequential,
}

/// The action line each document goes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BulkAction {
    /// `index`, with the `_id` [`IdMode`] says.
    #[default]
    Index,
    /// `create` with no `_id`: what a data stream takes.
    Create,
    /// The corpus's own: each document is its action line and its source (Rally's
    /// `includes-action-and-meta-data`), sent as they are.
    FromCorpus,
}

impl BulkAction {
    pub fn is_index(&self) -> bool {
        *self == BulkAction::Index
    }

    /// How the documents' ids are known: only `index` lines written here carry the ids
    /// `ids` asks for; a resent `create` or corpus line must be taken as server-picked.
    pub fn ids(self, ids: IdMode) -> IdMode {
        match self {
            BulkAction::Index => ids,
            BulkAction::Create | BulkAction::FromCorpus => IdMode::Auto,
        }
    }
}

const AUTO_ACTION: &[u8] = b"{\"index\":{}}\n";
const CREATE_ACTION: &[u8] = b"{\"create\":{}}\n";
const ID_PREFIX: &[u8] = b"{\"index\":{\"_id\":\"";
const ID_SUFFIX: &[u8] = b"\"}}\n";
const UPDATE_PREFIX: &[u8] = b"{\"update\":{\"_id\":\"";
/// What an update's source follows (the batcher closes it with `}` after the source).
const UPDATE_DOC: &[u8] = b"{\"doc\":";

/// One bulk request's worth of documents.
#[derive(Debug, Default)]
pub struct Batch {
    /// NDJSON: action line, document, action line, document, ...
    pub body: Vec<u8>,
    /// Offset in `body` where each document's action line starts.
    pub starts: Vec<usize>,
    /// Ordinal (0-based position in the corpus) of the first document.
    pub first_ordinal: u64,
    /// Reused buffer for the gzip-compressed body.
    pub gz: Vec<u8>,
    /// Where each document came from (file number, line), for sources that are files.
    pub origins: Vec<(u32, u64)>,
    /// With id conflicts, the positions of the new ids this batch hands out (see
    /// [`super::conflicts`]); empty otherwise.
    pub fresh: Range<u64>,
    /// With id conflicts, the lane this batch holds until it is done with, and how many of
    /// its documents go over ids already used.
    pub lane: Option<usize>,
    pub overwrites: u64,
}

impl Batch {
    pub fn clear(&mut self) {
        self.body.clear();
        self.starts.clear();
        self.first_ordinal = 0;
        self.gz.clear();
        self.origins.clear();
        self.fresh = 0..0;
        self.lane = None;
        self.overwrites = 0;
    }

    pub fn docs(&self) -> usize {
        self.starts.len()
    }

    /// Action line + document + newline of document `i` in `body` (this batch's body, which
    /// may be lent out as `Bytes` while a request is in flight).
    pub fn entry_range(&self, body: &[u8], i: usize) -> Range<usize> {
        let end = self.starts.get(i + 1).copied().unwrap_or(body.len());
        self.starts[i].min(end)..end
    }

    /// The document alone (no action line, no newline).
    pub fn doc<'a>(&self, body: &'a [u8], i: usize) -> &'a [u8] {
        let entry = &body[self.entry_range(body, i)];
        let from = memchr::memchr(b'\n', entry).map_or(0, |p| p + 1);
        let to = if entry.last() == Some(&b'\n') {
            entry.len() - 1
        } else {
            entry.len()
        };
        &entry[from.min(to)..to]
    }

    pub fn ordinal(&self, i: usize) -> u64 {
        self.first_ordinal + i as u64
    }

    /// Where document `i` came from, when the source is files.
    pub fn origin(&self, i: usize) -> Option<(u32, u64)> {
        self.origins.get(i).copied()
    }
}

/// Writes the action line for a document with ordinal `ordinal` (none when the corpus has its
/// own).
#[inline]
pub fn write_action(
    out: &mut Vec<u8>,
    action: BulkAction,
    ids: IdMode,
    ordinal: u64,
    itoa_buf: &mut itoa::Buffer,
) {
    match (action, ids) {
        (BulkAction::FromCorpus, _) => {}
        (BulkAction::Create, _) => out.extend_from_slice(CREATE_ACTION),
        (BulkAction::Index, IdMode::Auto) => out.extend_from_slice(AUTO_ACTION),
        (BulkAction::Index, IdMode::Sequential) => {
            out.extend_from_slice(ID_PREFIX);
            out.extend_from_slice(itoa_buf.format(ordinal).as_bytes());
            out.extend_from_slice(ID_SUFFIX);
        }
    }
}

/// Writes the action line of a document whose id [`super::conflicts`] chose: `index` or
/// `update`, the id as Rally writes it (`%010d`), and for an update the opening of its `doc`
/// (the batcher closes it after the source).
#[inline]
pub fn write_conflict_action(
    out: &mut Vec<u8>,
    c: super::conflicts::Choice,
    itoa_buf: &mut itoa::Buffer,
) {
    out.extend_from_slice(if c.update { UPDATE_PREFIX } else { ID_PREFIX });
    let digits = itoa_buf.format(c.id).as_bytes();
    out.extend(std::iter::repeat_n(
        b'0',
        10usize.saturating_sub(digits.len()),
    ));
    out.extend_from_slice(digits);
    out.extend_from_slice(ID_SUFFIX);
    if c.update {
        out.extend_from_slice(UPDATE_DOC);
    }
}

/// Free batches. Memory stays flat: at most (queue + clients + 1) batches ever exist.
#[derive(Debug, Default)]
pub struct Pool {
    free: Mutex<Vec<Batch>>,
    pub stats: Mutex<PoolStats>,
}

#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct PoolStats {
    /// Batches allocated fresh.
    pub allocated: u64,
    /// Times a batch came back from the pool.
    pub reused: u64,
    /// Times a body buffer could not be reclaimed from the HTTP layer and was reallocated.
    pub body_lost: u64,
}

impl Pool {
    pub fn take(&self) -> Batch {
        let popped = self.free.lock().ok().and_then(|mut f| f.pop());
        let mut stats = self.stats.lock().unwrap_or_else(|p| p.into_inner());
        match popped {
            Some(mut b) => {
                stats.reused += 1;
                b.clear();
                b
            }
            None => {
                stats.allocated += 1;
                Batch::default()
            }
        }
    }

    pub fn put(&self, batch: Batch) {
        if let Ok(mut f) = self.free.lock() {
            f.push(batch);
        }
    }

    pub fn stats(&self) -> PoolStats {
        *self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Gets a `Vec` back from `Bytes` handed to the HTTP client, without copying when the
    /// client has let go of it (the normal case once the answer has arrived).
    pub fn reclaim(&self, bytes: Bytes) -> Vec<u8> {
        match bytes.try_into_mut() {
            Ok(m) => Vec::from(m),
            Err(shared) => {
                if let Ok(mut s) = self.stats.lock() {
                    s.body_lost += 1;
                }
                Vec::with_capacity(shared.len())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_lines_and_doc_slices() {
        let mut b = Batch::default();
        let mut buf = itoa::Buffer::new();
        for (i, doc) in [&b"{\"a\":1}"[..], b"{\"b\":2}"].iter().enumerate() {
            b.starts.push(b.body.len());
            write_action(
                &mut b.body,
                BulkAction::Index,
                IdMode::Sequential,
                41 + i as u64,
                &mut buf,
            );
            b.body.extend_from_slice(doc);
            b.body.push(b'\n');
        }
        b.first_ordinal = 41;
        assert_eq!(
            b.body,
            b"{\"index\":{\"_id\":\"41\"}}\n{\"a\":1}\n{\"index\":{\"_id\":\"42\"}}\n{\"b\":2}\n"
        );
        assert_eq!(b.doc(&b.body, 1), b"{\"b\":2}");
        assert_eq!(b.ordinal(1), 42);
        let mut auto = Vec::new();
        write_action(&mut auto, BulkAction::Index, IdMode::Auto, 7, &mut buf);
        assert_eq!(auto, b"{\"index\":{}}\n");
        // A data stream takes `create`, with ids the server picks whatever `ids` says.
        let mut create = Vec::new();
        write_action(
            &mut create,
            BulkAction::Create,
            IdMode::Sequential,
            7,
            &mut buf,
        );
        assert_eq!(create, b"{\"create\":{}}\n");
        // Id conflicts: ids as Rally writes them; an update opens its `doc`.
        let choice = |id, update| crate::ingest::conflicts::Choice {
            id,
            update,
            conflict: update,
        };
        let mut lines = Vec::new();
        write_conflict_action(&mut lines, choice(42, false), &mut buf);
        write_conflict_action(&mut lines, choice(12_345_678_901, true), &mut buf);
        assert_eq!(
            String::from_utf8(lines).unwrap(),
            "{\"index\":{\"_id\":\"0000000042\"}}\n\
             {\"update\":{\"_id\":\"12345678901\"}}\n{\"doc\":"
        );
        assert_eq!(BulkAction::Create.ids(IdMode::Sequential), IdMode::Auto);
        // A corpus with its own action lines gets none written.
        let mut none = Vec::new();
        write_action(
            &mut none,
            BulkAction::FromCorpus,
            IdMode::Sequential,
            7,
            &mut buf,
        );
        assert!(none.is_empty());
        assert_eq!(BulkAction::FromCorpus.ids(IdMode::Sequential), IdMode::Auto);
    }

    #[test]
    fn a_body_handed_out_as_bytes_comes_back_without_copying() {
        let pool = Pool::default();
        let mut v = Vec::with_capacity(1 << 20);
        v.extend_from_slice(b"hello");
        let ptr = v.as_ptr();
        let bytes = Bytes::from(v);
        let clone = bytes.clone();
        drop(clone);
        let back = pool.reclaim(bytes);
        assert_eq!(back.as_ptr(), ptr);
        assert!(back.capacity() >= 1 << 20);
        assert_eq!(pool.stats().body_lost, 0);
    }
}

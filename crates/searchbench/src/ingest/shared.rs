//! The state the batcher, the senders and the tickers of one load share: configuration,
//! counters, the failure file, and how failed documents are accounted.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::batch::{Batch, Pool};
use super::control::Cancel;
use super::failures::FailureFile;
use super::failures::Origin;
use super::{DriverConfig, IngestError};
use crate::cluster::Target;
use crate::corpus::BadLine;
use crate::measure::{Recorder, Sample};

/// State the batcher, the senders and the tickers share.
pub struct Shared {
    pub cfg: DriverConfig,
    pub target: Target,
    pub failures: Arc<FailureFile>,
    pub pool: Pool,
    pub recorder: Mutex<Recorder>,
    pub cancel: Cancel,
    pub stop_reading: AtomicBool,
    pub abort: AtomicBool,
    pub done: AtomicBool,
    pub error: Mutex<Option<IngestError>>,
    pub read: AtomicU64,
    /// Shared with whoever watches the load (see [`super::freshness`]).
    pub acked: super::freshness::Acked,
    pub refused: AtomicU64,
    pub unacknowledged: AtomicU64,
    /// Documents read but never sent because the run stopped after an error.
    pub not_sent: AtomicU64,
    pub bad_lines: AtomicU64,
    pub retried_items: AtomicU64,
    /// Documents a 2xx bulk answer had no item for, sent again.
    pub missing_items: AtomicU64,
    /// Answers of 429: whole requests plus single items, each attempt counted.
    pub throttled: AtomicU64,
    pub acked_bytes: AtomicU64,
    pub t0: Instant,
    pub bulk_path: String,
    /// The source's files, for the origin of a failed document.
    pub files: Vec<String>,
    /// The open-loop schedule (`--rate`), if any.
    pub pace: Option<Arc<super::pace::Pace>>,
    /// With id conflicts (`cfg.conflicts`), which new ids the engine has answered for.
    pub answered: Option<super::conflicts::Answered>,
}

impl Shared {
    /// Remembers the first fatal error and stops everything.
    pub fn fail(&self, e: IngestError) {
        self.abort.store(true, Relaxed);
        self.keep_error(e);
    }

    fn keep_error(&self, e: IngestError) {
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
    }

    /// `--fail-fast` and an input that cannot be read further (a truncated file) stop
    /// reading but let what was read be delivered; anything else aborts.
    pub fn fail_or_stop(&self, e: IngestError) {
        if matches!(e, IngestError::FailFast { .. } | IngestError::Corpus(_)) {
            self.stop_reading.store(true, Relaxed);
            self.keep_error(e);
        } else {
            self.fail(e);
        }
    }

    pub fn reading_stopped(&self) -> bool {
        self.stop_reading.load(Relaxed) || self.abort.load(Relaxed) || self.cancel.is_cancelled()
    }

    pub fn record(&self, s: Sample) {
        self.recorder
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .record(&s);
    }

    /// Writes documents `docs` of a batch to the failure file as never acknowledged.
    pub fn give_up(
        &self,
        batch: &Batch,
        body: &[u8],
        docs: &[usize],
        status: u16,
        attempts: u32,
        reason: &str,
    ) -> Result<(), IngestError> {
        for &d in docs {
            self.failed_doc(batch, body, d, status, attempts, reason)?;
        }
        self.unacknowledged.fetch_add(docs.len() as u64, Relaxed);
        Ok(())
    }

    /// Writes document `d` of a batch to the failure file, with its file and line if known.
    pub fn failed_doc(
        &self,
        batch: &Batch,
        body: &[u8],
        d: usize,
        status: u16,
        attempts: u32,
        reason: &str,
    ) -> Result<(), IngestError> {
        self.failures.document(
            batch.ordinal(d),
            batch.doc(body, d),
            self.origin(batch, d),
            status,
            attempts,
            reason,
        )
    }

    /// The input file and line document `d` of a batch came from, when the source is files.
    fn origin<'a>(&'a self, batch: &Batch, d: usize) -> Option<Origin<'a>> {
        let (f, line) = batch.origin(d)?;
        Some(Origin {
            file: self.files.get(f as usize)?.as_str(),
            line,
        })
    }

    /// Document `d` of a batch, refused for good by the target. A line from a file that is not
    /// one JSON object (sent unparsed, [`crate::corpus::LineCheck::Engine`]) is a bad input
    /// line, accounted as the reader would have: same reason, file and line. Anything else is
    /// a refused document.
    pub fn refused_doc(
        &self,
        batch: &Batch,
        body: &[u8],
        d: usize,
        status: u16,
        attempts: u32,
        reason: &str,
    ) -> Result<(), IngestError> {
        let doc = batch.doc(body, d);
        let bad = self.origin(batch, d).and_then(|origin| {
            Some(BadLine {
                reason: crate::corpus::json_object_problem(doc)?,
                source: origin.file.to_string(),
                line: origin.line,
                raw: doc.to_vec(),
            })
        });
        let Some(bad) = bad else {
            self.failed_doc(batch, body, d, status, attempts, reason)?;
            self.refused.fetch_add(1, Relaxed);
            return Ok(());
        };
        self.failures.bad_line(&bad)?;
        self.bad_lines.fetch_add(1, Relaxed);
        if self.cfg.fail_fast {
            self.fail_or_stop(IngestError::FailFast {
                file: bad.source,
                line: bad.line,
                reason: bad.reason,
            });
        }
        Ok(())
    }

    /// A batch read but never sent, its documents handed back as if never read: after a
    /// cancel, or once the load's time is up (its `deadline`).
    pub fn unread(&self, mut batch: Batch) {
        self.read.fetch_sub(batch.docs() as u64, Relaxed);
        if let Some(answered) = &self.answered {
            answered.done_with(&mut batch, false);
        }
        self.pool.put(batch);
    }

    /// Whether the load's time is up at `t` (see `DriverConfig::deadline` and `finish`).
    pub fn time_up(&self, t: Instant) -> bool {
        self.cfg.deadline.is_some_and(|d| t >= d)
            || self.cfg.finish.as_ref().is_some_and(|f| f.is_cancelled())
    }

    /// A batch that will never be sent: after a cancel its documents are handed back (not
    /// read); otherwise (the run stopped after an error) they go to the failure file.
    pub fn not_sent(&self, mut batch: Batch, why: &str) {
        if self.cancel.is_cancelled() {
            return self.unread(batch);
        }
        if let Some(answered) = &self.answered {
            answered.done_with(&mut batch, false);
        }
        let written =
            (0..batch.docs()).try_for_each(|d| self.failed_doc(&batch, &batch.body, d, 0, 0, why));
        match written {
            Ok(()) => {
                self.not_sent.fetch_add(batch.docs() as u64, Relaxed);
            }
            Err(e) => self.fail(e),
        }
        self.pool.put(batch);
    }
}

/// What becomes of documents that failed.
#[derive(Clone, Copy)]
pub enum Fate {
    /// Never acknowledged: the run may stop.
    Unacknowledged,
    /// Refused for good by the target: the run goes on.
    Refused,
}

impl Fate {
    /// The documents of a request given up on after a non-2xx answer: a 3xx or 4xx is the
    /// server's word that it took none of them (a redirect, a 401 when a password expires
    /// mid-load, a 429 to the end), so they are refused though the run stops; a 5xx (a
    /// proxy's 502 may hide a backend that indexed them) leaves them unacknowledged.
    pub fn given_up_after(status: u16) -> Fate {
        match status {
            300..=499 => Fate::Refused,
            _ => Fate::Unacknowledged,
        }
    }
}

/// Writes the documents of the current request (`None`: the whole batch) to the failure file.
#[allow(clippy::too_many_arguments)]
pub fn fail_pending(
    shared: &Shared,
    batch: &Batch,
    full: &[u8],
    pending: &Option<Vec<usize>>,
    status: u16,
    attempts: u32,
    reason: &str,
    fate: Fate,
) -> Result<(), IngestError> {
    let all: Vec<usize>;
    let docs = match pending {
        Some(docs) => docs,
        None => {
            all = (0..batch.docs()).collect();
            &all
        }
    };
    for &d in docs {
        shared.failed_doc(batch, full, d, status, attempts, reason)?;
    }
    let counter = match fate {
        Fate::Unacknowledged => &shared.unacknowledged,
        Fate::Refused => &shared.refused,
    };
    counter.fetch_add(docs.len() as u64, Relaxed);
    Ok(())
}

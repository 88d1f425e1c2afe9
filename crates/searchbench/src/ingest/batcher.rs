//! The batcher: reads the source into bulk bodies (action line, document, action line, ...)
//! and queues them for the senders. Runs on a blocking thread: generating and reading
//! documents is CPU and file work.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use tokio::sync::mpsc;

use super::batch::{write_action, write_conflict_action};
use super::conflicts::ConflictIds;
use super::shared::Shared;
use super::{Batch, IngestError};
use crate::corpus::{DocSource, Item};

pub(super) fn run(
    mut source: Box<dyn DocSource>,
    tx: mpsc::Sender<Batch>,
    shared: &Shared,
) -> Result<(), IngestError> {
    let cfg = &shared.cfg;
    let bulk_docs = cfg.bulk_docs.max(1);
    let bulk_bytes = cfg.bulk_bytes.unwrap_or(usize::MAX);
    let mut ordinal = cfg.first_ordinal;
    let mut itoa_buf = itoa::Buffer::new();
    let track_origins = !shared.files.is_empty();
    // With id conflicts, the ids handed out and what the engine has answered for.
    let mut conflicts = match (cfg.conflicts, &shared.answered) {
        (Some(spec), Some(answered)) => {
            let lanes = super::conflicts::Answered::lanes(cfg.clients);
            let ids = ConflictIds::new(spec, source.len_hint(), cfg.first_ordinal, lanes)
                .map_err(|e| IngestError::Config(format!("{}: {e}", source.describe())))?;
            Some((ids, answered))
        }
        _ => None,
    };
    loop {
        if shared.reading_stopped() || shared.time_up(Instant::now()) {
            return Ok(());
        }
        let mut batch = shared.pool.take();
        batch.first_ordinal = ordinal;
        if let Some((ids, answered)) = conflicts.as_mut() {
            batch.lane = answered.hold();
            ids.batch_begins(batch.lane);
            batch.fresh = ids.handed_out()..ids.handed_out();
        }
        let mut end: Option<Result<(), IngestError>> = None;
        while batch.starts.len() < bulk_docs && batch.body.len() < bulk_bytes {
            let mark = batch.body.len();
            // With id conflicts, the id the document gets (chosen before it is read).
            let choice = match conflicts.as_mut() {
                Some((ids, answered)) => {
                    let c = ids.next(answered.mark());
                    write_conflict_action(&mut batch.body, c, &mut itoa_buf);
                    Some(c)
                }
                None => {
                    write_action(&mut batch.body, cfg.action, cfg.ids, ordinal, &mut itoa_buf);
                    None
                }
            };
            match source.next_into(&mut batch.body) {
                Ok(Some(Item::Doc)) => {
                    if let (Some(c), Some((ids, _))) = (choice, conflicts.as_mut()) {
                        ids.keep(c);
                        if c.update {
                            batch.body.push(b'}');
                        }
                        batch.overwrites += u64::from(c.conflict);
                    }
                    batch.body.push(b'\n');
                    batch.starts.push(mark);
                    if track_origins {
                        batch.origins.push(source.origin().unwrap_or((0, 0)));
                    }
                    ordinal += 1;
                }
                Ok(Some(Item::Bad(bad))) => {
                    batch.body.truncate(mark);
                    shared.read.fetch_add(1, Relaxed);
                    shared.bad_lines.fetch_add(1, Relaxed);
                    if let Err(e) = shared.failures.bad_line(&bad) {
                        end = Some(Err(e));
                        break;
                    }
                    if cfg.fail_fast {
                        end = Some(Err(IngestError::FailFast {
                            file: bad.source,
                            line: bad.line,
                            reason: bad.reason,
                        }));
                        break;
                    }
                }
                Ok(None) => {
                    batch.body.truncate(mark);
                    end = Some(Ok(()));
                    break;
                }
                Err(e) => {
                    batch.body.truncate(mark);
                    end = Some(Err(e.into()));
                    break;
                }
            }
        }
        if let Some((ids, _)) = &conflicts {
            batch.fresh.end = ids.handed_out();
        }
        if batch.docs() > 0 {
            shared.read.fetch_add(batch.docs() as u64, Relaxed);
            if let Err(mpsc::error::SendError(batch)) = tx.blocking_send(batch) {
                // The senders have stopped (a cancel, or a panic); nothing read may go
                // unaccounted for.
                shared.not_sent(batch, "not sent: no bulk client left");
                return end.unwrap_or(Ok(()));
            }
        } else {
            if let Some((_, answered)) = &conflicts {
                answered.done_with(&mut batch, false);
            }
            shared.pool.put(batch);
        }
        if let Some(r) = end {
            return r;
        }
    }
}

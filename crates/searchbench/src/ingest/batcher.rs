//! The batcher: reads the source into bulk bodies (action line, document, action line, ...)
//! and queues them for the senders. Runs on a blocking thread: generating and reading
//! documents is CPU and file work.

use std::sync::atomic::Ordering::Relaxed;

use tokio::sync::mpsc;

use super::batch::write_action;
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
    loop {
        if shared.reading_stopped() {
            return Ok(());
        }
        let mut batch = shared.pool.take();
        batch.first_ordinal = ordinal;
        let mut end: Option<Result<(), IngestError>> = None;
        while batch.starts.len() < bulk_docs && batch.body.len() < bulk_bytes {
            let mark = batch.body.len();
            write_action(&mut batch.body, cfg.action, cfg.ids, ordinal, &mut itoa_buf);
            match source.next_into(&mut batch.body) {
                Ok(Some(Item::Doc)) => {
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
        if batch.docs() > 0 {
            shared.read.fetch_add(batch.docs() as u64, Relaxed);
            if let Err(mpsc::error::SendError(batch)) = tx.blocking_send(batch) {
                // The senders have stopped (a cancel, or a panic); nothing read may go
                // unaccounted for.
                shared.not_sent(batch, "not sent: no bulk client left");
                return end.unwrap_or(Ok(()));
            }
        } else {
            shared.pool.put(batch);
        }
        if let Some(r) = end {
            return r;
        }
    }
}

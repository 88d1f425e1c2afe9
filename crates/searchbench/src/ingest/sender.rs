//! One batch, sent until every document in it is acknowledged, refused, or given up on: the
//! retry loop. What to retry and how long to wait is [`RetryPolicy`]'s decision; this file
//! does the sending, the accounting, and the stopping on a cancel.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use bytes::Bytes;

use super::backoff::Jitter;
use super::batch::Batch;
use super::bulk_answer;
use super::exchange::{exchange, pause, Exchange};
use super::response;
use super::retry::{Decision, Failure};
use super::shared::{fail_pending, Fate, Shared};
use super::{gzip, IngestError};
use crate::measure::Sample;

const INTERRUPTED_IN_FLIGHT: &str =
    "interrupted: no answer within the grace period after the cancel";
const INTERRUPTED_BEFORE_RETRY: &str = "interrupted: not sent again after the cancel";
/// The reason of a document the bulk answer has no item for.
pub(super) const NO_ITEM: &str = "no item in the bulk answer";

pub(super) async fn deliver(
    shared: &Shared,
    url: &str,
    batch: &mut Batch,
    jitter: &mut Jitter,
) -> Result<(), IngestError> {
    let full = Bytes::from(std::mem::take(&mut batch.body));
    let result = deliver_bytes(shared, url, batch, &full, jitter).await;
    batch.body = shared.pool.reclaim(full);
    if let Some(answered) = &shared.answered {
        answered.done_with(batch, true);
    }
    result
}

async fn deliver_bytes(
    shared: &Shared,
    url: &str,
    batch: &mut Batch,
    full: &Bytes,
    jitter: &mut Jitter,
) -> Result<(), IngestError> {
    let cfg = &shared.cfg;
    let policy = cfg.retry_policy();
    // Documents of the batch in the current request; `None` is all of them (the usual case).
    let mut pending: Option<Vec<usize>> = None;
    let mut body = full.clone();
    let mut attempt: u32 = 0;
    loop {
        let docs = pending.as_ref().map_or(batch.docs(), Vec::len);
        let what = || format!("POST {url} ({docs} documents, attempt {})", attempt + 1);
        macro_rules! give_up {
            ($status:expr, $reason:expr) => {
                fail_pending(
                    shared,
                    batch,
                    full,
                    &pending,
                    $status,
                    attempt + 1,
                    $reason,
                    Fate::Unacknowledged,
                )
            };
        }

        let wire = if cfg.gzip {
            gzip::compress(&body, &mut batch.gz)
                .map_err(|e| IngestError::Config(format!("gzip: {e}")))?;
            Bytes::from(std::mem::take(&mut batch.gz))
        } else {
            body.clone()
        };
        let started = Instant::now();
        let bound = bulk_answer::bound(docs, body.len());
        let answer = exchange(shared, url, wire.clone(), bound, &what).await;
        let mut sample = Sample {
            start: started.saturating_duration_since(shared.t0),
            service: started.elapsed(),
            took_ms: None,
            docs: docs as u32,
            acked: 0,
            bytes: body.len() as u64,
            wire_bytes: wire.len() as u64,
            status: 0,
            retry: attempt,
        };
        if cfg.gzip {
            batch.gz = shared.pool.reclaim(wire);
        }

        let (status, reply, retry_after, location) = match answer {
            Exchange::Interrupted => {
                shared.record(sample);
                return give_up!(0, INTERRUPTED_IN_FLIGHT);
            }
            Exchange::Failed(error) => {
                shared.record(sample);
                let text = error.to_string();
                match policy.after_failure(attempt, &Failure::NoAnswer(&text), jitter.draw()) {
                    Decision::Retry(wait) if !shared.abort.load(Relaxed) => {
                        if !pause(&shared.cancel, wait).await {
                            return give_up!(0, INTERRUPTED_BEFORE_RETRY);
                        }
                        attempt += 1;
                        continue;
                    }
                    Decision::Retry(_) => {
                        give_up!(
                            0,
                            &format!("no answer (not retried: the run stopped): {text}")
                        )?;
                    }
                    Decision::GiveUp(reason) | Decision::Refuse(reason) => give_up!(0, &reason)?,
                }
                return Err(error.into());
            }
            Exchange::Answer {
                status,
                reply,
                retry_after,
                location,
            } => (status, reply, retry_after, location),
        };
        sample.status = status;

        if !(200..300).contains(&status) {
            shared.record(sample);
            if status == 429 {
                shared.throttled.fetch_add(1, Relaxed);
            }
            let failure = Failure::Status {
                status,
                body: &reply,
                retry_after,
                request_bytes: body.len(),
                location: location.as_deref(),
            };
            let reason = match policy.after_failure(attempt, &failure, jitter.draw()) {
                Decision::Retry(wait) if !shared.abort.load(Relaxed) => {
                    if !pause(&shared.cancel, wait).await {
                        return give_up!(status, INTERRUPTED_BEFORE_RETRY);
                    }
                    attempt += 1;
                    continue;
                }
                Decision::Retry(_) => format!(
                    "HTTP {status}: {} (not retried: the run stopped)",
                    response::body_reason(&reply)
                ),
                Decision::GiveUp(reason) => reason,
                Decision::Refuse(reason) => {
                    let (attempts, fate) = (attempt + 1, Fate::Refused);
                    return fail_pending(
                        shared, batch, full, &pending, status, attempts, &reason, fate,
                    );
                }
            };
            let fate = Fate::given_up_after(status);
            fail_pending(
                shared,
                batch,
                full,
                &pending,
                status,
                attempt + 1,
                &reason,
                fate,
            )?;
            return Err(IngestError::Bulk {
                request: what(),
                reason,
            });
        }

        // Every item is read, whatever `errors` says: a document is acknowledged only by an
        // item of its own.
        let answer = bulk_answer::read(&reply);
        sample.took_ms = answer.took;
        if answer.items > docs {
            // No item can be matched to a document, and a server that lists more items than
            // it was sent documents will do so again: not resent, and the run stops.
            shared.record(sample);
            let reason = format!(
                "{NO_ITEM}: the answer lists {} items for {docs} documents, so none can be \
                 matched to its document (a broken server or proxy); not sent again",
                answer.items
            );
            give_up!(status, &reason)?;
            return Err(IngestError::Bulk {
                request: what(),
                reason,
            });
        }
        let (answer, missing) = answer.for_docs(docs);
        let mut stopping = shared.abort.load(Relaxed) || shared.cancel.is_cancelled();
        // Documents without an item may or may not be indexed: like a request without an
        // answer, they are sent again when that cannot duplicate them (sequential ids, within
        // the budget); else they are never acknowledged and the run stops, the target being
        // unusable.
        let without: Vec<usize> = (answer.items..docs)
            .map(|k| pending.as_ref().map_or(k, |p| p[k]))
            .collect();
        let mut stop = None;
        if let Some(why) = missing {
            if policy.retry_missing(attempt, cfg.action.ids(cfg.ids)) && !stopping {
                shared
                    .missing_items
                    .fetch_add(without.len() as u64, Relaxed);
            } else {
                let tail = policy.why_not_resent(attempt, cfg.action.ids(cfg.ids), stopping);
                let reason = format!("{NO_ITEM} ({why}){tail}");
                shared.give_up(batch, full, &without, status, attempt + 1, &reason)?;
                stop = Some(IngestError::Bulk {
                    request: what(),
                    reason: format!(
                        "{NO_ITEM} for {} of {docs} documents ({why}){tail}",
                        without.len()
                    ),
                });
                // The other documents' busy items are not sent again either.
                stopping = true;
            }
        }
        let mut retry = Vec::new();
        let ok = (answer.items - answer.failed.len()) as u64;
        for (k, item) in &answer.failed {
            let d = pending.as_ref().map_or(*k, |p| p[*k]);
            if item.status == 429 {
                shared.throttled.fetch_add(1, Relaxed);
            }
            if policy.retry_item(attempt, item.status) && !stopping {
                retry.push(d);
            } else {
                let reason = item.reason.as_deref().unwrap_or("(no reason given)");
                shared.refused_doc(batch, full, d, item.status, attempt + 1, reason)?;
            }
        }
        sample.acked = ok as u32;
        shared.record(sample);
        shared.acked.fetch_add(ok, Relaxed);
        if let Some(error) = stop {
            return Err(error);
        }
        // In request order: the busy items' documents, then those without an item.
        retry.extend(without);
        if retry.is_empty() {
            shared.acked_bytes.fetch_add(body.len() as u64, Relaxed);
            return Ok(());
        }
        shared.retried_items.fetch_add(retry.len() as u64, Relaxed);
        let mut again = Vec::with_capacity(retry.len() * (full.len() / batch.docs().max(1) + 1));
        for &d in &retry {
            again.extend_from_slice(&full[batch.entry_range(full, d)]);
        }
        body = Bytes::from(again);
        pending = Some(retry);
        if !pause(&shared.cancel, policy.item_wait(attempt, jitter.draw())).await {
            return give_up!(0, INTERRUPTED_BEFORE_RETRY);
        }
        attempt += 1;
    }
}

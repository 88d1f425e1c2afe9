//! The bulk clients: `clients` tasks taking batches from the batcher's queue, each with its
//! own endpoint (round-robin over the target's URLs) and its own jitter stream.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{mpsc, Mutex};

use super::backoff::Jitter;
use super::batch::Batch;
use super::pace::Paced;
use super::sender;
use super::shared::Shared;

/// Sends batches until the queue closes or the load is cancelled.
pub(super) async fn run(id: usize, rx: Arc<Mutex<mpsc::Receiver<Batch>>>, shared: Arc<Shared>) {
    let url = shared.target.endpoint(id, &shared.bulk_path);
    let mut jitter = Jitter::new(id as u64);
    loop {
        let next = tokio::select! {
            biased;
            () = shared.cancel.cancelled() => None,
            next = async { rx.lock().await.recv().await } => next,
        };
        let Some(mut batch) = next else { break };
        if shared.cancel.is_cancelled() {
            shared.not_sent(batch, "not sent: interrupted");
            break;
        }
        if shared.abort.load(Relaxed) {
            shared.not_sent(batch, "not sent: the run stopped after an earlier error");
            continue;
        }
        // The load's time is up: what is still queued is handed back, as the tools stop
        // sending at the end of a task's time period.
        if shared.time_up(Instant::now()) {
            shared.unread(batch);
            continue;
        }
        let paced = match &shared.pace {
            None => None,
            Some(pace) => {
                let due = pace.schedule.next(batch.docs() as u64);
                if shared.time_up(due) {
                    shared.unread(batch);
                    continue;
                }
                let on_time = tokio::select! {
                    biased;
                    () = shared.cancel.cancelled() => false,
                    () = tokio::time::sleep_until(due.into()) => true,
                };
                if !on_time {
                    shared.not_sent(batch, "not sent: interrupted");
                    break;
                }
                if shared.time_up(Instant::now()) {
                    shared.unread(batch);
                    continue;
                }
                Some((pace, due, Instant::now()))
            }
        };
        let delivered = sender::deliver(&shared, &url, &mut batch, &mut jitter).await;
        if let Some((pace, due, sent)) = paced {
            let since = |t: Instant| t.saturating_duration_since(shared.t0);
            pace.record(Paced {
                due: since(due),
                sent: since(sent),
                answered: since(Instant::now()),
                docs: batch.docs() as u64,
                delivered: delivered.is_ok(),
            });
        }
        if let Err(e) = delivered {
            shared.fail(e);
        }
        shared.pool.put(batch);
    }
}

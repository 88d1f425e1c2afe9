//! The bulk clients: `clients` tasks taking batches from the batcher's queue, each with its
//! own endpoint (round-robin over the target's URLs) and its own jitter stream.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use tokio::sync::{mpsc, Mutex};

use super::backoff::Jitter;
use super::batch::Batch;
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
        if let Err(e) = sender::deliver(&shared, &url, &mut batch, &mut jitter).await {
            shared.fail(e);
        }
        shared.pool.put(batch);
    }
}

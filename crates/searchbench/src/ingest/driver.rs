//! The bulk driver: one batcher thread feeding `clients` concurrent bulk senders through a
//! bounded queue, with retries, backoff and the failure file.
//!
//! Memory is flat for any number of clients and any corpus size: at most
//! `2 × clients + 1` batches exist (queue + in flight + the one being built), and they are
//! recycled through the [`Pool`].
//!
//! A cancel stops reading and every retry and backoff at once; requests in flight get
//! [`GRACE`] to be answered. Documents of batches never sent are handed back (not counted as
//! read); documents in flight without an answer go to the failure file as interrupted.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::batch::{Batch, Pool, PoolStats};
use super::control::{Cancel, Controls, GRACE};
use super::failures::FailureFile;
use super::shared::Shared;
use super::{batcher, clients, ticker, DriverConfig, IngestError};
use crate::cluster::Target;
use crate::corpus::DocSource;
use crate::measure::Recorder;

/// What a load did. `read = acked + refused + unacknowledged + not_sent + bad_lines` always
/// holds.
#[derive(Debug)]
pub struct LoadOutcome {
    /// Documents and bad lines taken from the source (an interrupted load does not count the
    /// documents it read but never sent).
    pub read: u64,
    /// Documents the target acknowledged (2xx item status).
    pub acked: u64,
    /// Documents the target refused (non-retryable item status, or retries used up).
    pub refused: u64,
    /// Documents of requests that never got an answer we could use (retries used up, fatal
    /// error, not sent because the run stopped, or in flight when it was interrupted).
    pub unacknowledged: u64,
    /// Documents read but never sent: the run stopped after an error first.
    pub not_sent: u64,
    /// Input lines that were not documents.
    pub bad_lines: u64,
    /// Items sent again after a retryable item status.
    pub retried_items: u64,
    /// Of those, documents a 2xx bulk answer had no item for (a server or proxy that lies).
    pub missing_items: u64,
    /// Answers of 429 (requests and items, each attempt).
    pub throttled: u64,
    /// Bytes of acknowledged requests (uncompressed).
    pub acked_bytes: u64,
    /// With id conflicts, documents sent over an id already used: an index holds that many
    /// fewer documents than were acknowledged.
    pub overwrites: u64,
    pub recorder: Recorder,
    /// When the load began (its recorder's time 0): the warm-up and the wall count from here.
    pub started: Instant,
    pub wall: Duration,
    pub pool: PoolStats,
    /// The error that stopped the run, if one did.
    pub error: Option<IngestError>,
    /// The caller cancelled the load.
    pub interrupted: bool,
    /// The open-loop schedule and what it measured (`--rate`).
    pub pace: Option<Arc<super::pace::Pace>>,
}

impl LoadOutcome {
    /// Documents that went to the failure file.
    pub fn failed(&self) -> u64 {
        self.refused + self.unacknowledged + self.not_sent + self.bad_lines
    }

    pub fn balanced(&self) -> bool {
        self.read == self.acked + self.failed()
    }
}

/// Loads everything `source` yields into `cfg.index`. Never fails as a whole: a fatal error is
/// in [`LoadOutcome::error`], with every document accounted for.
pub async fn load(
    target: &Target,
    source: Box<dyn DocSource>,
    cfg: DriverConfig,
    failures: Arc<FailureFile>,
    controls: Controls,
) -> LoadOutcome {
    let clients = cfg.clients.max(1);
    let len_hint = source.len_hint();
    let files = source.files();
    let mut bulk_path = format!(
        "/{}/_bulk?filter_path=took,errors,items.*.status,items.*.error",
        cfg.index
    );
    if let Some(pipeline) = &cfg.pipeline {
        bulk_path.push_str("&pipeline=");
        bulk_path.extend(url::form_urlencoded::byte_serialize(pipeline.as_bytes()));
    }
    let cancel = controls.cancel.unwrap_or_else(Cancel::never);
    let warmup = cfg.warmup;
    let t0 = Instant::now();
    let pace = cfg
        .rate
        .map(|rate| Arc::new(super::pace::Pace::new(rate, t0, warmup)));
    let answered = cfg
        .conflicts
        .filter(|_| cfg.action.is_index())
        .map(|_| super::conflicts::Answered::for_clients(cfg.clients));
    let shared = Arc::new(Shared {
        cfg,
        target: target.clone(),
        failures,
        pool: Pool::default(),
        recorder: Mutex::new(Recorder::with_warmup(warmup)),
        cancel: cancel.clone(),
        stop_reading: AtomicBool::new(false),
        abort: AtomicBool::new(false),
        done: AtomicBool::new(false),
        error: Mutex::new(None),
        read: AtomicU64::new(0),
        acked: controls.acked.unwrap_or_default(),
        refused: AtomicU64::new(0),
        unacknowledged: AtomicU64::new(0),
        not_sent: AtomicU64::new(0),
        bad_lines: AtomicU64::new(0),
        retried_items: AtomicU64::new(0),
        missing_items: AtomicU64::new(0),
        throttled: AtomicU64::new(0),
        acked_bytes: AtomicU64::new(0),
        t0,
        bulk_path,
        files,
        pace: pace.clone(),
        answered,
    });

    let (tx, rx) = mpsc::channel::<Batch>(clients);
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let mut batcher = {
        let shared = shared.clone();
        tokio::task::spawn_blocking(move || batcher::run(source, tx, &shared))
    };
    let workers: Vec<_> = (0..clients)
        .map(|id| tokio::spawn(clients::run(id, rx.clone(), shared.clone())))
        .collect();
    let reporters =
        ticker::Reporters::start(&shared, controls.progress, controls.seconds, len_hint);

    for w in workers {
        if let Err(e) = w.await {
            shared.fail(IngestError::Config(format!("a bulk client panicked: {e}")));
        }
    }
    let interrupted = cancel.is_cancelled();
    // The senders have stopped: either the queue closed (the batcher is done) or the load was
    // cancelled. Batches still queued, or still being handed over, are not sent.
    {
        let mut rx = rx.lock().await;
        rx.close();
        while let Ok(batch) = rx.try_recv() {
            shared.not_sent(batch, "not sent: the run stopped");
        }
    }
    // A batcher blocked reading a silent stdin must not hold a cancelled load up.
    let waited = if interrupted {
        tokio::time::timeout(GRACE, &mut batcher).await.ok()
    } else {
        Some((&mut batcher).await)
    };
    match waited {
        Some(Ok(Ok(()))) | None => {}
        Some(Ok(Err(e))) => shared.fail_or_stop(e),
        Some(Err(e)) => shared.fail(IngestError::Config(format!("the batcher panicked: {e}"))),
    }
    let wall = shared.t0.elapsed();
    shared.done.store(true, Relaxed);
    reporters.finish(&*shared).await;
    if let Err(e) = shared.failures.flush() {
        shared.fail(e);
    }
    let recorder = std::mem::take(&mut *shared.recorder.lock().unwrap_or_else(|p| p.into_inner()));
    let error = shared
        .error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    LoadOutcome {
        read: shared.read.load(Relaxed),
        acked: shared.acked.load(Relaxed),
        refused: shared.refused.load(Relaxed),
        unacknowledged: shared.unacknowledged.load(Relaxed),
        not_sent: shared.not_sent.load(Relaxed),
        bad_lines: shared.bad_lines.load(Relaxed),
        retried_items: shared.retried_items.load(Relaxed),
        missing_items: shared.missing_items.load(Relaxed),
        throttled: shared.throttled.load(Relaxed),
        acked_bytes: shared.acked_bytes.load(Relaxed),
        overwrites: shared
            .answered
            .as_ref()
            .map_or(0, |a| a.overwrites.load(Relaxed)),
        recorder,
        started: shared.t0,
        wall,
        pool: shared.pool.stats(),
        error,
        interrupted,
        pace,
    }
}

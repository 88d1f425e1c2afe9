//! The columnar load: cluster-metrics rows into the sketch store, field note 002's wire. A
//! producer thread turns `bulk_docs` rows at a time into one columnar JSON object
//! ([`crate::sketch::write_batch`]); `clients` senders `POST /insert` each and read
//! `{"inserted": N}`. The store takes a batch whole or refuses it whole, so every row is
//! accounted for by its batch's fate:
//! - acknowledged: a 2xx answer saying every row of it was inserted;
//! - refused: a 4xx other than 429 (not sent again: the batch itself is wrong);
//! - unacknowledged: no answer, an answer that does not add up, or 429/5xx past the retries;
//! - not sent: the run stopped (an error, or a cancel) before its turn.
//!
//! The rows of a batch not acknowledged go to the failure file as their documents. The same
//! [`Recorder`] as the bulk driver's keeps the samples, so the report, the headline and the
//! timeline are derived in the one place they are for any load.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::mpsc;

use super::batch::PoolStats;
use super::control::{Cancel, Controls, Progress, GRACE};
use super::driver::LoadOutcome;
use super::failures::FailureFile;
use super::{DriverConfig, IngestError};
use crate::cluster::Target;
use crate::corpus::cluster_metrics::{write_row_json, Row};
use crate::corpus::DocSource;
use crate::measure::{Recorder, Sample};

/// The path batches go to.
pub const INSERT_PATH: &str = "/insert";

/// One batch on its way: its rows (for the failure file) and its body.
struct Pending {
    rows: Vec<Row>,
    body: Bytes,
    /// The corpus ordinal of its first row.
    first: u64,
}

/// What the producer and the senders share.
struct Shared {
    target: Target,
    url: String,
    cfg: DriverConfig,
    failures: Arc<FailureFile>,
    recorder: Mutex<Recorder>,
    cancel: Cancel,
    t0: Instant,
    /// Set by an error that ends the load: nothing more is read or sent.
    stop: AtomicBool,
    done: AtomicBool,
    error: Mutex<Option<IngestError>>,
    read: AtomicU64,
    acked: AtomicU64,
    refused: AtomicU64,
    unacknowledged: AtomicU64,
    not_sent: AtomicU64,
    throttled: AtomicU64,
    acked_bytes: AtomicU64,
}

impl Shared {
    fn stopping(&self) -> bool {
        self.stop.load(Relaxed) || self.cancel.is_cancelled()
    }

    /// Ends the load with `error` (the first one is kept).
    fn fail(&self, error: IngestError) {
        self.stop.store(true, Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(error);
    }

    /// Writes every row of `batch` to the failure file; a failure file that cannot be written
    /// ends the load (rows must never be lost silently).
    fn keep(&self, batch: &Pending, status: u16, attempts: u32, reason: &str) {
        let mut doc = Vec::with_capacity(128);
        for (i, row) in batch.rows.iter().enumerate() {
            doc.clear();
            write_row_json(row, &mut doc);
            let ordinal = batch.first + i as u64;
            if let Err(e) = self
                .failures
                .document(ordinal, &doc, None, status, attempts, reason)
            {
                self.fail(e);
                return;
            }
        }
    }
}

/// Whether the load can run columnar: the rows' source, and none of what only `_bulk` has.
pub fn refuse_what_it_lacks(cfg: &DriverConfig) -> Result<(), IngestError> {
    let lacks = |flag: &str| {
        Err(IngestError::Config(format!(
            "{flag}: the sketch store takes columnar batches of rows at {INSERT_PATH}, not \
             `_bulk`; it has no such option"
        )))
    };
    if cfg.rate.is_some() {
        return lacks("--rate");
    }
    if cfg.gzip {
        return lacks("--gzip");
    }
    if cfg.pipeline.is_some() {
        return lacks("--pipeline");
    }
    if cfg.bulk_bytes.is_some() {
        return lacks("--bulk-bytes");
    }
    if !cfg.action.is_index() {
        return lacks("a data stream or a corpus's own action lines");
    }
    if !cfg.part.is_whole() {
        return Err(IngestError::Config(
            "--part: the sketch store is one process on 127.0.0.1, started for its run; a run \
             in parts loads one cluster from several hosts"
                .into(),
        ));
    }
    Ok(())
}

/// Loads every row of `source` into the sketch store behind `target`. Like the bulk driver,
/// never fails as a whole: an error that stopped it is in [`LoadOutcome::error`], with every
/// row accounted for.
pub async fn load(
    target: &Target,
    mut source: Box<dyn DocSource>,
    cfg: DriverConfig,
    failures: Arc<FailureFile>,
    controls: Controls,
) -> LoadOutcome {
    let clients = cfg.clients.max(1);
    let len_hint = source.len_hint();
    let t0 = Instant::now();
    let shared = Arc::new(Shared {
        target: target.clone(),
        url: target.endpoint(0, INSERT_PATH),
        recorder: Mutex::new(Recorder::with_warmup(cfg.warmup)),
        cfg,
        failures,
        cancel: controls.cancel.unwrap_or_else(Cancel::never),
        t0,
        stop: AtomicBool::new(false),
        done: AtomicBool::new(false),
        error: Mutex::new(None),
        read: AtomicU64::new(0),
        acked: AtomicU64::new(0),
        refused: AtomicU64::new(0),
        unacknowledged: AtomicU64::new(0),
        not_sent: AtomicU64::new(0),
        throttled: AtomicU64::new(0),
        acked_bytes: AtomicU64::new(0),
    });
    if source.rows().is_none() {
        shared.fail(not_rows(source.as_ref()));
    }
    let (tx, rx) = mpsc::channel::<Pending>(clients);
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let producer = {
        let shared = shared.clone();
        tokio::task::spawn_blocking(move || produce(source.as_mut(), &tx, &shared))
    };
    let senders: Vec<_> = (0..clients)
        .map(|_| tokio::spawn(send_all(rx.clone(), shared.clone())))
        .collect();
    let reporters =
        super::ticker::Reporters::start(&shared, controls.progress, controls.seconds, len_hint);
    for sender in senders {
        if let Err(e) = sender.await {
            shared.fail(IngestError::Config(format!(
                "a sketch client panicked: {e}"
            )));
        }
    }
    {
        // The senders stopped: what is still queued is not sent.
        let mut rx = rx.lock().await;
        rx.close();
        while let Ok(batch) = rx.try_recv() {
            not_sent(&shared, &batch);
        }
    }
    if let Err(e) = producer.await {
        shared.fail(IngestError::Config(format!(
            "the row batcher panicked: {e}"
        )));
    }
    let wall = t0.elapsed();
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
        bad_lines: 0,
        retried_items: 0,
        missing_items: 0,
        overwrites: 0,
        throttled: shared.throttled.load(Relaxed),
        acked_bytes: shared.acked_bytes.load(Relaxed),
        recorder,
        started: t0,
        wall,
        pool: PoolStats::default(),
        error,
        interrupted: shared.cancel.is_cancelled(),
        pace: None,
    }
}

fn not_rows(source: &dyn DocSource) -> IngestError {
    IngestError::Config(format!(
        "{}: the sketch store loads cluster-metrics rows only (`run cluster-metrics --engine \
         sketch`); this corpus is not one",
        source.describe()
    ))
}

/// The producer: `bulk_docs` rows at a time, written as one batch, queued for the senders.
fn produce(source: &mut dyn DocSource, tx: &mpsc::Sender<Pending>, shared: &Shared) {
    let Some(rows) = source.rows() else {
        return;
    };
    let size = shared.cfg.bulk_docs.max(1);
    let mut first = shared.cfg.first_ordinal;
    while !shared.stopping() {
        let mut batch = Vec::with_capacity(size);
        while batch.len() < size {
            match rows.next_row() {
                Some(row) => batch.push(row),
                None => break,
            }
        }
        if batch.is_empty() {
            return;
        }
        let mut body = Vec::with_capacity(batch.len() * 40 + 64);
        crate::sketch::write_batch(&batch, &mut body);
        let n = batch.len() as u64;
        shared.read.fetch_add(n, Relaxed);
        let pending = Pending {
            rows: batch,
            body: Bytes::from(body),
            first,
        };
        first += n;
        if let Err(mpsc::error::SendError(pending)) = tx.blocking_send(pending) {
            not_sent(shared, &pending);
            return;
        }
    }
}

fn not_sent(shared: &Shared, batch: &Pending) {
    shared.not_sent.fetch_add(batch.rows.len() as u64, Relaxed);
    shared.keep(batch, 0, 0, "not sent: the run stopped");
}

/// One sender: takes batches off the queue until it closes or the load stops.
async fn send_all(rx: Arc<tokio::sync::Mutex<mpsc::Receiver<Pending>>>, shared: Arc<Shared>) {
    loop {
        let next = rx.lock().await.recv().await;
        let Some(batch) = next else {
            return;
        };
        if shared.stopping() {
            not_sent(&shared, &batch);
            continue;
        }
        deliver(&shared, &batch).await;
    }
}

/// What one attempt got.
enum Attempt {
    /// Every row inserted.
    Taken,
    /// Not to be sent again: the batch is wrong for the store.
    Refused(u16, String),
    /// Worth another attempt: no answer, 429, 5xx.
    Retry(u16, String),
    /// An answer that does not add up (a store that takes batches whole said otherwise).
    Unacknowledged(u16, String),
}

/// Sends one batch until it is taken, refused, or given up on.
async fn deliver(shared: &Shared, batch: &Pending) {
    let rows = batch.rows.len() as u64;
    let mut attempt: u32 = 0;
    loop {
        let started = Instant::now();
        let (status, outcome) = tokio::select! {
            answered = exchange(shared, batch) => answered,
            () = async {
                shared.cancel.cancelled().await;
                tokio::time::sleep(GRACE).await;
            } => (0, Attempt::Unacknowledged(0, "interrupted: no answer within the grace period after the cancel".into())),
        };
        let taken = matches!(outcome, Attempt::Taken);
        let sample = Sample {
            start: started.saturating_duration_since(shared.t0),
            service: started.elapsed(),
            // The store's own time is read from its counter around the load, in µs; a
            // per-request figure in whole ms would say 0 for every batch.
            took_ms: None,
            docs: batch.rows.len() as u32,
            acked: if taken { batch.rows.len() as u32 } else { 0 },
            bytes: batch.body.len() as u64,
            wire_bytes: batch.body.len() as u64,
            status,
            retry: attempt,
        };
        shared
            .recorder
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .record(&sample);
        if status == 429 {
            shared.throttled.fetch_add(1, Relaxed);
        }
        match outcome {
            Attempt::Taken => {
                shared.acked.fetch_add(rows, Relaxed);
                shared
                    .acked_bytes
                    .fetch_add(batch.body.len() as u64, Relaxed);
                return;
            }
            Attempt::Refused(status, reason) => {
                shared.refused.fetch_add(rows, Relaxed);
                shared.keep(batch, status, attempt + 1, &reason);
                return;
            }
            Attempt::Unacknowledged(status, reason) => {
                shared.unacknowledged.fetch_add(rows, Relaxed);
                shared.keep(batch, status, attempt + 1, &reason);
                return;
            }
            Attempt::Retry(status, reason) => {
                if attempt >= shared.cfg.max_retries || shared.stopping() {
                    shared.unacknowledged.fetch_add(rows, Relaxed);
                    shared.keep(batch, status, attempt + 1, &reason);
                    if status == 0 && !shared.cancel.is_cancelled() {
                        // No answer at all, retries used up: the store is gone or stuck (a
                        // cancel is an interruption, not this error).
                        shared.fail(IngestError::Bulk {
                            request: format!("POST {} ({rows} rows)", shared.url),
                            reason,
                        });
                    }
                    return;
                }
                let wait = shared
                    .cfg
                    .backoff_base
                    .saturating_mul(1 << attempt.min(16))
                    .min(shared.cfg.backoff_max);
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = shared.cancel.cancelled() => {}
                }
                attempt += 1;
            }
        }
    }
}

/// One `POST /insert`: the status (0 without an answer) and what it means for the batch.
async fn exchange(shared: &Shared, batch: &Pending) -> (u16, Attempt) {
    let request = shared
        .target
        .client()
        .post(&shared.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(batch.body.clone())
        .send();
    let answered = tokio::time::timeout(shared.target.timeout(), async {
        let response = request.await.map_err(|e| crate::cluster::error_chain(&e))?;
        let status = response.status().as_u16();
        // At most --max-answer bytes: a store that answers without end is cut off, not read.
        use crate::cluster::body::{read_bounded, too_large, BodyError};
        let body = read_bounded(response, shared.target.max_answer())
            .await
            .map_err(|e| match e {
                BodyError::TooLarge { limit, seen } => {
                    too_large(limit, seen, crate::cluster::MAX_ANSWER_HINT)
                }
                BodyError::Transport(e) => crate::cluster::error_chain(&e),
                BodyError::Encoding(reason) => reason,
            })?;
        Ok::<_, String>((status, body))
    })
    .await;
    let (status, body) = match answered {
        Err(_) => {
            return (
                0,
                Attempt::Retry(0, "timed out (no answer within --timeout)".into()),
            )
        }
        Ok(Err(e)) => return (0, Attempt::Retry(0, e)),
        Ok(Ok(answer)) => answer,
    };
    let reason = || crate::cluster::server_reason(&body);
    let outcome = match status {
        200..=299 => match inserted(&body) {
            Some(n) if n == batch.rows.len() as u64 => Attempt::Taken,
            Some(n) => Attempt::Unacknowledged(
                status,
                format!(
                    "the store said it inserted {n} of the batch's {} rows",
                    batch.rows.len()
                ),
            ),
            None => Attempt::Unacknowledged(
                status,
                format!("an answer without \"inserted\": {}", reason()),
            ),
        },
        429 | 500..=599 => Attempt::Retry(status, format!("HTTP {status}: {}", reason())),
        _ => Attempt::Refused(status, format!("HTTP {status}: {}", reason())),
    };
    (status, outcome)
}

/// `N` of `{"inserted": N}`.
fn inserted(body: &[u8]) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Inserted {
        inserted: u64,
    }
    serde_json::from_slice::<Inserted>(body)
        .ok()
        .map(|a| a.inserted)
}

impl super::ticker::Timed for Shared {
    fn recorder(&self) -> &Mutex<Recorder> {
        &self.recorder
    }
    fn t0(&self) -> Instant {
        self.t0
    }
    fn done(&self) -> bool {
        self.done.load(Relaxed)
    }
    fn progress(&self, len_hint: Option<u64>, done: bool) -> Progress {
        Progress {
            docs: self.acked.load(Relaxed)
                + self.refused.load(Relaxed)
                + self.unacknowledged.load(Relaxed)
                + self.not_sent.load(Relaxed),
            acked_bytes: self.acked_bytes.load(Relaxed),
            len_hint,
            stopping: self.stopping(),
            done,
        }
    }
}

/// What the sketch store says of itself (`GET /`): read before and after a load, as an
/// engine's `_stats` and `_count` are.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
struct StoreStatus {
    rows: u64,
    memory_bytes: u64,
    insert_time_us: u64,
}

async fn status(target: &Target) -> Result<StoreStatus, crate::cluster::TargetError> {
    target.get_json("/").await
}

/// [`super::ingest_streaming`] for the sketch store: no index to set up, settings to change or
/// restore; its row count and its own time in inserts read before and after the load stand for
/// `_count` and `_stats`.
pub(super) async fn ingest(
    target: &Target,
    mut source: Box<dyn DocSource>,
    plan: super::Plan,
    controls: Controls,
    started_unix: u64,
    engine_version: String,
) -> Result<super::IngestReport, IngestError> {
    refuse_what_it_lacks(&plan.driver)?;
    if source.rows().is_none() {
        return Err(not_rows(source.as_ref()));
    }
    if plan.append || plan.replace {
        return Err(IngestError::Config(
            "--append/--replace: the sketch store has no indices; a fresh `engine start sketch` \
             is empty"
                .into(),
        ));
    }
    let before = status(target).await?;
    let corpus = source.describe();
    let failures = Arc::new(FailureFile::new(&plan.failures));
    let previous_failures_file = failures.set_aside_previous()?;
    let around = crate::measure::background::Around::start(&plan.engine_pids);
    let outcome = load(
        target,
        source,
        plan.driver.clone(),
        failures.clone(),
        controls,
    )
    .await;
    let crate::measure::background::Spent {
        driver_cpu,
        engine_cpu,
        background,
    } = around.stop(&plan.engine_pids);
    let mut warnings = Vec::new();
    // After an interrupt the store may be why (stopped, stuck): its status gets the short
    // deadline an engine's calls get, so the user has the partial report promptly.
    let limit = outcome
        .interrupted
        .then(|| tokio::time::Instant::now() + GRACE);
    let after = match super::within(limit, status(target)).await {
        Ok(s) => Some(s),
        Err(e) => {
            warnings.push(format!(
                "could not read the sketch store's rows after the load: {e}; its own time in \
                 inserts is unknown, so the wall time's split counts it in network + queueing"
            ));
            None
        }
    };
    let server_time = after
        .map(|a| Duration::from_micros(a.insert_time_us.saturating_sub(before.insert_time_us)));
    let stats = after.map(|a| crate::cluster::IndexStats {
        index_total: a.rows.saturating_sub(before.rows),
        index_time_ms: a.insert_time_us.saturating_sub(before.insert_time_us) / 1000,
        // What the rows are kept in: the sketches' memory, in the index store's place.
        store_bytes: a.memory_bytes,
        ..Default::default()
    });
    Ok(super::report(super::ReportParts {
        started_unix,
        corpus,
        index: plan.driver.index.clone(),
        prepared: super::index::Prepared {
            previous: super::index::Previous::Nothing,
            existing: None,
        },
        target,
        product: crate::cluster::Product::Sketch.to_string(),
        engine_version,
        engine_jvm: None,
        plan,
        outcome,
        driver_cpu,
        engine_cpu,
        background,
        stats,
        index_count: after.map(|a| a.rows),
        index_count_before: Some(before.rows),
        failures: &failures,
        previous_failures_file,
        warnings,
        freshness: None,
        freshness_not_measured: None,
        server_time,
    }))
}

//! The bulk driver: one batcher thread feeding `clients` concurrent bulk requests through a
//! bounded queue, with retries, backoff and the failure file.
//!
//! Memory is flat for any number of clients and any corpus size: at most
//! `2 × clients + 1` batches exist (queue + in flight + the one being built), and they are
//! recycled through the [`Pool`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE};
use tokio::sync::mpsc;

use super::batch::{write_action, Batch, IdMode, Pool, PoolStats};
use super::failures::FailureFile;
use super::response::{self, BulkAnswer};
use super::IngestError;
use crate::corpus::{DocSource, Item};
use crate::measure::{Recorder, Sample, Second};

/// Where closed seconds of the timeline go while the load runs (a results store streams them
/// in, so a run that dies halfway keeps what it measured).
pub type SecondsTx = mpsc::UnboundedSender<Vec<Second>>;
use crate::target::{Target, TargetError};

/// How the driver loads documents.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DriverConfig {
    pub index: String,
    /// At most this many documents per bulk request.
    pub bulk_docs: usize,
    /// A request is closed once its body reaches this many bytes (`usize::MAX`: no limit).
    pub bulk_bytes: usize,
    pub clients: usize,
    pub gzip: bool,
    pub max_retries: u32,
    pub ids: IdMode,
    pub fail_fast: bool,
    /// First retry waits about this long; each further retry doubles it (with jitter).
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Stop reading on Ctrl-C, finish what is in flight, and report.
    pub handle_ctrl_c: bool,
    /// Documents loaded in this first stretch are not measured (see `Recorder::with_warmup`).
    pub warmup: Duration,
}

impl DriverConfig {
    pub fn new(index: impl Into<String>) -> Self {
        DriverConfig {
            index: index.into(),
            bulk_docs: 1000,
            bulk_bytes: usize::MAX,
            clients: 2,
            gzip: false,
            max_retries: 8,
            ids: IdMode::Sequential,
            fail_fast: false,
            backoff_base: Duration::from_millis(100),
            backoff_max: Duration::from_secs(10),
            progress: false,
            handle_ctrl_c: false,
            warmup: crate::measure::recorder::DEFAULT_WARMUP,
        }
    }
}

/// What a load did. `read = acked + refused + unacknowledged + bad_lines` always holds.
#[derive(Debug)]
pub struct LoadOutcome {
    /// Documents and bad lines taken from the source.
    pub read: u64,
    /// Documents the target acknowledged (2xx item status).
    pub acked: u64,
    /// Documents the target refused (non-retryable item status, or retries used up).
    pub refused: u64,
    /// Documents of requests that never got an answer we could use (retries used up, fatal
    /// error, or not sent because the run stopped).
    pub unacknowledged: u64,
    /// Input lines that were not documents.
    pub bad_lines: u64,
    /// Items sent again after a retryable item status.
    pub retried_items: u64,
    /// Bytes of acknowledged requests (uncompressed).
    pub acked_bytes: u64,
    pub recorder: Recorder,
    pub wall: Duration,
    pub pool: PoolStats,
    /// The error that stopped the run, if one did.
    pub error: Option<IngestError>,
    pub interrupted: bool,
}

impl LoadOutcome {
    /// Documents that went to the failure file.
    pub fn failed(&self) -> u64 {
        self.refused + self.unacknowledged + self.bad_lines
    }

    pub fn balanced(&self) -> bool {
        self.read == self.acked + self.failed()
    }
}

struct Shared {
    cfg: DriverConfig,
    target: Target,
    failures: Arc<FailureFile>,
    pool: Pool,
    recorder: Mutex<Recorder>,
    stop_reading: AtomicBool,
    abort: AtomicBool,
    interrupted: AtomicBool,
    done: AtomicBool,
    error: Mutex<Option<IngestError>>,
    read: AtomicU64,
    acked: AtomicU64,
    refused: AtomicU64,
    unacknowledged: AtomicU64,
    bad_lines: AtomicU64,
    retried_items: AtomicU64,
    acked_bytes: AtomicU64,
    t0: Instant,
    bulk_path: String,
}

impl Shared {
    /// Remembers the first fatal error and stops everything.
    fn fail(&self, e: IngestError) {
        self.abort.store(true, Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
    }

    fn record(&self, s: Sample) {
        self.recorder
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .record(&s);
    }

    /// Writes documents `docs` of a batch to the failure file as never acknowledged.
    fn give_up(
        &self,
        batch: &Batch,
        body: &[u8],
        docs: &[usize],
        status: u16,
        attempts: u32,
        reason: &str,
    ) -> Result<(), IngestError> {
        for &d in docs {
            self.failures.document(
                batch.ordinal(d),
                batch.doc(body, d),
                status,
                attempts,
                reason,
            )?;
        }
        self.unacknowledged.fetch_add(docs.len() as u64, Relaxed);
        Ok(())
    }
}

/// Loads everything `source` yields into `cfg.index`. Never fails as a whole: a fatal error is
/// in [`LoadOutcome::error`], with every document accounted for.
pub async fn load(
    target: &Target,
    source: Box<dyn DocSource>,
    cfg: DriverConfig,
    failures: Arc<FailureFile>,
    seconds: Option<SecondsTx>,
) -> LoadOutcome {
    let clients = cfg.clients.max(1);
    let len_hint = source.len_hint();
    let bulk_path = format!(
        "/{}/_bulk?filter_path=took,errors,items.*.status,items.*.error",
        cfg.index
    );
    let progress = cfg.progress;
    let handle_ctrl_c = cfg.handle_ctrl_c;
    let warmup = cfg.warmup;
    let shared = Arc::new(Shared {
        cfg,
        target: target.clone(),
        failures,
        pool: Pool::default(),
        recorder: Mutex::new(Recorder::with_warmup(warmup)),
        stop_reading: AtomicBool::new(false),
        abort: AtomicBool::new(false),
        interrupted: AtomicBool::new(false),
        done: AtomicBool::new(false),
        error: Mutex::new(None),
        read: AtomicU64::new(0),
        acked: AtomicU64::new(0),
        refused: AtomicU64::new(0),
        unacknowledged: AtomicU64::new(0),
        bad_lines: AtomicU64::new(0),
        retried_items: AtomicU64::new(0),
        acked_bytes: AtomicU64::new(0),
        t0: Instant::now(),
        bulk_path,
    });

    let (tx, rx) = mpsc::channel::<Batch>(clients);
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let batcher = {
        let shared = shared.clone();
        tokio::task::spawn_blocking(move || batcher(source, tx, &shared))
    };
    let workers: Vec<_> = (0..clients)
        .map(|id| tokio::spawn(client(id, rx.clone(), shared.clone())))
        .collect();
    let ticker = progress.then(|| tokio::spawn(progress_bar(shared.clone(), len_hint)));
    let streamer = seconds.map(|tx| tokio::spawn(stream_seconds(shared.clone(), tx)));
    let ctrl_c = handle_ctrl_c.then(|| {
        let shared = shared.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\ninterrupted: finishing the requests in flight (Ctrl-C again to quit at once)");
                shared.interrupted.store(true, Relaxed);
                shared.stop_reading.store(true, Relaxed);
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        })
    });

    match batcher.await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => shared.fail_or_stop(e),
        Err(e) => shared.fail(IngestError::Config(format!("the batcher panicked: {e}"))),
    }
    for w in workers {
        if let Err(e) = w.await {
            shared.fail(IngestError::Config(format!("a bulk client panicked: {e}")));
        }
    }
    let wall = shared.t0.elapsed();
    shared.done.store(true, Relaxed);
    if let Some(t) = ticker {
        let _ = t.await;
    }
    if let Some(t) = streamer {
        let _ = t.await;
    }
    if let Some(c) = ctrl_c {
        c.abort();
    }
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
        bad_lines: shared.bad_lines.load(Relaxed),
        retried_items: shared.retried_items.load(Relaxed),
        acked_bytes: shared.acked_bytes.load(Relaxed),
        recorder,
        wall,
        pool: shared.pool.stats(),
        error,
        interrupted: shared.interrupted.load(Relaxed),
    }
}

impl Shared {
    /// `--fail-fast` and an input that cannot be read further (a truncated file) stop
    /// reading but let what was read be delivered; anything else aborts.
    fn fail_or_stop(&self, e: IngestError) {
        if matches!(e, IngestError::FailFast { .. } | IngestError::Corpus(_)) {
            self.stop_reading.store(true, Relaxed);
            let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
            if slot.is_none() {
                *slot = Some(e);
            }
        } else {
            self.fail(e);
        }
    }
}

/// Reads the source into batches. Runs on a blocking thread: generating and reading documents
/// is CPU and file work.
fn batcher(
    mut source: Box<dyn DocSource>,
    tx: mpsc::Sender<Batch>,
    shared: &Shared,
) -> Result<(), IngestError> {
    let cfg = &shared.cfg;
    let bulk_docs = cfg.bulk_docs.max(1);
    let mut ordinal = 0u64;
    let mut itoa_buf = itoa::Buffer::new();
    loop {
        if shared.stop_reading.load(Relaxed) || shared.abort.load(Relaxed) {
            return Ok(());
        }
        let mut batch = shared.pool.take();
        batch.first_ordinal = ordinal;
        let mut end: Option<Result<(), IngestError>> = None;
        while batch.starts.len() < bulk_docs && batch.body.len() < cfg.bulk_bytes {
            let mark = batch.body.len();
            write_action(&mut batch.body, cfg.ids, ordinal, &mut itoa_buf);
            match source.next_into(&mut batch.body) {
                Ok(Some(Item::Doc)) => {
                    batch.body.push(b'\n');
                    batch.starts.push(mark);
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
        let n = batch.docs() as u64;
        if n > 0 {
            shared.read.fetch_add(n, Relaxed);
            if let Err(mpsc::error::SendError(batch)) = tx.blocking_send(batch) {
                // Every client is gone (they only leave when the queue closes, so this is a
                // panic path); still, nothing read may go unaccounted for.
                let all: Vec<usize> = (0..batch.docs()).collect();
                shared.give_up(
                    &batch,
                    &batch.body,
                    &all,
                    0,
                    0,
                    "not sent: no bulk client left",
                )?;
                return Ok(());
            }
        } else {
            shared.pool.put(batch);
        }
        if let Some(r) = end {
            return r;
        }
    }
}

async fn client(
    id: usize,
    rx: Arc<tokio::sync::Mutex<mpsc::Receiver<Batch>>>,
    shared: Arc<Shared>,
) {
    let url = shared.target.endpoint(id, &shared.bulk_path);
    let mut jitter = Jitter::new(id as u64);
    loop {
        let next = rx.lock().await.recv().await;
        let Some(mut batch) = next else { break };
        let result = if shared.abort.load(Relaxed) {
            let all: Vec<usize> = (0..batch.docs()).collect();
            shared.give_up(
                &batch,
                &batch.body,
                &all,
                0,
                0,
                "not sent: the run stopped after an earlier error",
            )
        } else {
            deliver(&shared, &url, &mut batch, &mut jitter).await
        };
        if let Err(e) = result {
            shared.fail(e);
        }
        shared.pool.put(batch);
    }
}

async fn deliver(
    shared: &Shared,
    url: &str,
    batch: &mut Batch,
    jitter: &mut Jitter,
) -> Result<(), IngestError> {
    let full = Bytes::from(std::mem::take(&mut batch.body));
    let result = deliver_bytes(shared, url, batch, &full, jitter).await;
    batch.body = shared.pool.reclaim(full);
    result
}

/// Sends a batch until every document is acknowledged, refused, or given up on.
async fn deliver_bytes(
    shared: &Shared,
    url: &str,
    batch: &mut Batch,
    full: &Bytes,
    jitter: &mut Jitter,
) -> Result<(), IngestError> {
    let cfg = &shared.cfg;
    // Documents of the batch in the current request; `None` is all of them (the usual case).
    let mut pending: Option<Vec<usize>> = None;
    let mut body = full.clone();
    let mut attempt: u32 = 0;
    loop {
        let docs = pending.as_ref().map_or(batch.docs(), Vec::len);
        let n_all = batch.docs();
        let pending_list = || pending.clone().unwrap_or_else(|| (0..n_all).collect());
        let what = || format!("POST {url} ({docs} documents, attempt {})", attempt + 1);

        let wire = if cfg.gzip {
            gzip(&body, &mut batch.gz).map_err(|e| IngestError::Config(format!("gzip: {e}")))?;
            Bytes::from(std::mem::take(&mut batch.gz))
        } else {
            body.clone()
        };
        let wire_len = wire.len() as u64;
        let mut request = shared
            .target
            .client()
            .post(url)
            .header(CONTENT_TYPE, "application/x-ndjson");
        if cfg.gzip {
            request = request.header(CONTENT_ENCODING, "gzip");
        }
        let started = Instant::now();
        let mut retry_after = None;
        let answer = match request.body(wire.clone()).send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                retry_after = response::retry_after(response.headers());
                response.bytes().await.map(|b| (status, b))
            }
            Err(e) => Err(e),
        };
        let service = started.elapsed();
        if cfg.gzip {
            batch.gz = shared.pool.reclaim(wire);
        } else {
            drop(wire);
        }
        let mut sample = Sample {
            start: started.saturating_duration_since(shared.t0),
            service,
            took_ms: None,
            docs: docs as u32,
            acked: 0,
            bytes: body.len() as u64,
            wire_bytes: wire_len,
            status: 0,
            retry: attempt,
        };

        let (status, reply) = match answer {
            Ok(a) => a,
            Err(e) => {
                shared.record(sample);
                let error = TargetError::from_send(what(), e);
                if attempt < cfg.max_retries && !shared.abort.load(Relaxed) {
                    backoff(cfg, attempt, jitter).await;
                    attempt += 1;
                    continue;
                }
                let reason = format!("no answer after {} attempt(s): {error}", attempt + 1);
                shared.give_up(batch, full, &pending_list(), 0, attempt + 1, &reason)?;
                return Err(error.into());
            }
        };
        sample.status = status;

        if !(200..300).contains(&status) {
            shared.record(sample);
            if response::request_retryable(status)
                && attempt < cfg.max_retries
                && !shared.abort.load(Relaxed)
            {
                // The server's own Retry-After wins over a shorter backoff of ours.
                let waited = Instant::now();
                backoff(cfg, attempt, jitter).await;
                if let Some(wait) = retry_after {
                    tokio::time::sleep(wait.saturating_sub(waited.elapsed())).await;
                }
                attempt += 1;
                continue;
            }
            let mut reason = format!("HTTP {status}: {}", response::body_reason(&reply));
            if status == 413 {
                reason.push_str(" (the request is too large: lower --bulk-size or --bulk-bytes)");
            }
            if response::request_retryable(status) {
                reason = format!("{reason} (after {} attempts)", attempt + 1);
            }
            shared.give_up(batch, full, &pending_list(), status, attempt + 1, &reason)?;
            return Err(IngestError::Bulk {
                request: what(),
                reason,
            });
        }

        match response::parse(&reply) {
            Ok(BulkAnswer::AllOk { took }) => {
                sample.took_ms = took;
                sample.acked = docs as u32;
                shared.record(sample);
                shared.acked.fetch_add(docs as u64, Relaxed);
                shared.acked_bytes.fetch_add(body.len() as u64, Relaxed);
                return Ok(());
            }
            Ok(BulkAnswer::Items { took, items }) => {
                sample.took_ms = took;
                if items.len() != docs {
                    shared.record(sample);
                    let reason = format!(
                        "the bulk answer has {} items for {docs} documents",
                        items.len()
                    );
                    shared.give_up(batch, full, &pending_list(), status, attempt + 1, &reason)?;
                    return Err(IngestError::Bulk {
                        request: what(),
                        reason,
                    });
                }
                let mut retry = Vec::new();
                let mut ok = 0u64;
                for (k, item) in items.iter().enumerate() {
                    let d = pending.as_ref().map_or(k, |p| p[k]);
                    if item.is_ok() {
                        ok += 1;
                    } else if response::item_retryable(item.status)
                        && attempt < cfg.max_retries
                        && !shared.abort.load(Relaxed)
                    {
                        retry.push(d);
                    } else {
                        let reason = item.reason.as_deref().unwrap_or("(no reason given)");
                        shared.failures.document(
                            batch.ordinal(d),
                            batch.doc(full, d),
                            item.status,
                            attempt + 1,
                            reason,
                        )?;
                        shared.refused.fetch_add(1, Relaxed);
                    }
                }
                sample.acked = ok as u32;
                shared.record(sample);
                shared.acked.fetch_add(ok, Relaxed);
                if retry.is_empty() {
                    shared.acked_bytes.fetch_add(body.len() as u64, Relaxed);
                    return Ok(());
                }
                shared.retried_items.fetch_add(retry.len() as u64, Relaxed);
                let mut again =
                    Vec::with_capacity(retry.len() * (full.len() / batch.docs().max(1) + 1));
                for &d in &retry {
                    again.extend_from_slice(&full[batch.entry_range(full, d)]);
                }
                body = Bytes::from(again);
                pending = Some(retry);
                backoff(cfg, attempt, jitter).await;
                attempt += 1;
            }
            Err(reason) => {
                shared.record(sample);
                shared.give_up(batch, full, &pending_list(), status, attempt + 1, &reason)?;
                return Err(IngestError::Bulk {
                    request: what(),
                    reason,
                });
            }
        }
    }
}

fn gzip(body: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::Write;
    out.clear();
    let mut encoder =
        flate2::write::GzEncoder::new(std::mem::take(out), flate2::Compression::fast());
    encoder.write_all(body)?;
    *out = encoder.finish()?;
    Ok(())
}

/// Exponential backoff with jitter: attempt `n` waits a random time in `[d/2, d]` where
/// `d = base × 2^n`, capped at `backoff_max`.
async fn backoff(cfg: &DriverConfig, attempt: u32, jitter: &mut Jitter) {
    let full = cfg
        .backoff_base
        .saturating_mul(1u32 << attempt.min(20))
        .min(cfg.backoff_max);
    let half = full / 2;
    let extra = half.mul_f64(jitter.next_unit());
    tokio::time::sleep(half + extra).await;
}

/// A tiny xorshift generator for backoff jitter (not for anything that needs real randomness).
struct Jitter(u64);

impl Jitter {
    fn new(salt: u64) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15);
        Jitter((nanos ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1)
    }

    fn next_unit(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Once a second, sends the seconds that have closed since the last send; at the end, the rest.
/// A second is closed once the clock has left it: samples are filed by completion time.
async fn stream_seconds(shared: Arc<Shared>, tx: SecondsTx) {
    let mut sent = 0usize;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        let done = shared.done.load(Relaxed);
        let closed = if done {
            usize::MAX
        } else {
            shared.t0.elapsed().as_secs() as usize
        };
        let rows = {
            let recorder = shared.recorder.lock().unwrap_or_else(|p| p.into_inner());
            let mut rows = recorder.timeline_from(sent);
            rows.truncate(closed.saturating_sub(sent));
            rows
        };
        sent += rows.len();
        if !rows.is_empty() && tx.send(rows).is_err() {
            return;
        }
        if done {
            return;
        }
    }
}

async fn progress_bar(shared: Arc<Shared>, len_hint: Option<u64>) {
    let bar = match len_hint {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
    let style = if len_hint.is_some() {
        "{bar:30} {pos}/{len} docs  {msg}  ETA {eta}"
    } else {
        "{spinner} {pos} docs  {msg}"
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(style) {
        bar.set_style(style);
    }
    let mut last = (Instant::now(), 0u64, 0u64);
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tick.tick().await;
        let docs = shared.acked.load(Relaxed)
            + shared.refused.load(Relaxed)
            + shared.unacknowledged.load(Relaxed)
            + shared.bad_lines.load(Relaxed);
        let bytes = shared.acked_bytes.load(Relaxed);
        let now = Instant::now();
        let dt = now.duration_since(last.0).as_secs_f64();
        if dt >= 1.0 {
            let rate = (docs - last.1) as f64 / dt;
            let mb = (bytes - last.2) as f64 / dt / 1e6;
            bar.set_message(format!("{rate:.0} docs/s  {mb:.1} MB/s"));
            last = (now, docs, bytes);
        }
        bar.set_position(docs);
        if shared.abort.load(Relaxed) {
            bar.set_message("stopping after an error");
        }
        if shared.done.load(Relaxed) {
            bar.finish_and_clear();
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_in_the_unit_interval() {
        let mut j = Jitter::new(3);
        for _ in 0..1000 {
            let x = j.next_unit();
            assert!((0.0..1.0).contains(&x));
        }
    }

    #[test]
    fn gzip_round_trips() {
        use std::io::Read;
        let mut out = Vec::new();
        gzip(b"{\"index\":{}}\n{\"a\":1}\n", &mut out).unwrap();
        let mut back = String::new();
        flate2::read::GzDecoder::new(&out[..])
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, "{\"index\":{}}\n{\"a\":1}\n");
    }
}

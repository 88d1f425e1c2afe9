//! Reports while a load runs: progress every quarter second, and closed seconds of the
//! timeline every second (a second is closed once the clock has left it: samples are filed by
//! completion time).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use super::control::{Progress, ProgressTx, SecondsTx, PROGRESS_EVERY};
use super::shared::Shared;

/// The reports of one running load, started with it and ended with it.
pub(super) struct Reporters {
    progress: Option<(tokio::task::JoinHandle<()>, ProgressTx)>,
    seconds: Option<tokio::task::JoinHandle<()>>,
    len_hint: Option<u64>,
}

impl Reporters {
    /// Starts the reports `progress` and `seconds` ask for (neither, when nobody listens).
    pub(super) fn start<S: Timed>(
        shared: &Arc<S>,
        progress: Option<ProgressTx>,
        seconds: Option<SecondsTx>,
        len_hint: Option<u64>,
    ) -> Self {
        Reporters {
            progress: progress.map(|tx| {
                let task = tokio::spawn(publish_progress(shared.clone(), tx.clone(), len_hint));
                (task, tx)
            }),
            seconds: seconds.map(|tx| tokio::spawn(stream_seconds(shared.clone(), tx))),
            len_hint,
        }
    }

    /// Once the load has marked itself done: the last progress report (`done`) and the
    /// seconds not yet sent.
    pub(super) async fn finish<S: Timed>(self, shared: &S) {
        if let Some((task, tx)) = self.progress {
            task.abort();
            tx.send_replace(shared.progress(self.len_hint, true));
        }
        if let Some(task) = self.seconds {
            let _ = task.await;
        }
    }
}

/// Publishes progress until aborted (the load sends the last report itself, with `done`).
async fn publish_progress<S: Timed>(shared: Arc<S>, tx: ProgressTx, len_hint: Option<u64>) {
    let mut tick = tokio::time::interval(PROGRESS_EVERY);
    loop {
        tick.tick().await;
        tx.send_replace(shared.progress(len_hint, false));
    }
}

/// A load that reports while it runs (the bulk driver's, the sketch store's columnar one): its
/// progress so far, and its recorder's closed seconds.
pub(super) trait Timed: Send + Sync + 'static {
    fn recorder(&self) -> &std::sync::Mutex<crate::measure::Recorder>;
    /// The load's time 0.
    fn t0(&self) -> std::time::Instant;
    /// The load is over: every second is closed.
    fn done(&self) -> bool;
    /// Its progress so far (`done`: the last report).
    fn progress(&self, len_hint: Option<u64>, done: bool) -> Progress;
}

impl Timed for Shared {
    fn progress(&self, len_hint: Option<u64>, done: bool) -> Progress {
        Progress {
            docs: self.acked.load(Relaxed)
                + self.refused.load(Relaxed)
                + self.unacknowledged.load(Relaxed)
                + self.not_sent.load(Relaxed)
                + self.bad_lines.load(Relaxed),
            acked_bytes: self.acked_bytes.load(Relaxed),
            len_hint,
            stopping: self.abort.load(Relaxed) || self.cancel.is_cancelled(),
            done,
        }
    }
    fn recorder(&self) -> &std::sync::Mutex<crate::measure::Recorder> {
        &self.recorder
    }
    fn t0(&self) -> std::time::Instant {
        self.t0
    }
    fn done(&self) -> bool {
        self.done.load(Relaxed)
    }
}

/// Once a second, sends the seconds that have closed since the last send; at the end, the rest.
async fn stream_seconds<S: Timed>(shared: Arc<S>, tx: SecondsTx) {
    let mut sent = 0usize;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        let done = shared.done();
        let closed = if done {
            usize::MAX
        } else {
            shared.t0().elapsed().as_secs() as usize
        };
        let rows = {
            let recorder = shared.recorder().lock().unwrap_or_else(|p| p.into_inner());
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

//! The terminal side of a load's controls: a progress bar drawn from the driver's progress
//! reports, and Ctrl-C turned into the driver's cancel signal.

use std::time::Instant;

use tokio::task::JoinHandle;

use super::exit;
use crate::ingest::{control::GRACE, Cancel, Progress};

/// A progress bar on stderr, drawn from the load's progress reports (at most 4 times a
/// second); it appears with the first report and clears itself on the last (`done`).
#[derive(Debug, Default)]
pub struct Bar {
    bar: Option<indicatif::ProgressBar>,
    /// When, at how many documents and bytes the rate was last computed.
    last: Option<(Instant, u64, u64)>,
}

impl Bar {
    pub fn update(&mut self, p: &Progress) {
        let bar = self.bar.get_or_insert_with(|| new_bar(p.len_hint));
        let now = Instant::now();
        let last = *self.last.get_or_insert((now, 0, 0));
        let dt = now.duration_since(last.0).as_secs_f64();
        if dt >= 1.0 {
            let rate = p.docs.saturating_sub(last.1) as f64 / dt;
            let mb = p.acked_bytes.saturating_sub(last.2) as f64 / dt / 1e6;
            bar.set_message(format!("{rate:.0} docs/s  {mb:.1} MB/s"));
            self.last = Some((now, p.docs, p.acked_bytes));
        }
        bar.set_position(p.docs);
        if p.stopping {
            bar.set_message("stopping");
        }
        if p.done {
            bar.finish_and_clear();
            self.bar = None;
            self.last = None;
        }
    }
}

fn new_bar(len_hint: Option<u64>) -> indicatif::ProgressBar {
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
    bar
}

/// Interrupts this soon after the first are the same stop. GNU `timeout -s INT` (how CI
/// scripts bound a run) signals the process and then its whole process group, so one stop
/// arrives twice within microseconds; a person's second Ctrl-C comes far later.
const SAME_STOP: std::time::Duration = std::time::Duration::from_millis(500);

/// Turns Ctrl-C into a cancel: the first stops the load (it keeps what was done and reports
/// it); a second, [`SAME_STOP`] or more later, quits at once with exit code 130. Drop the
/// guard to stop listening.
pub fn cancel_on_ctrl_c() -> (Cancel, CtrlC) {
    let (tx, cancel) = Cancel::new();
    let task = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
        let first = Instant::now();
        eprintln!(
            "\ninterrupted: stopping; requests in flight get {} s to finish (Ctrl-C again to quit at once)",
            GRACE.as_secs()
        );
        let _ = tx.send(true);
        while tokio::signal::ctrl_c().await.is_ok() {
            if first.elapsed() >= SAME_STOP {
                std::process::exit(exit::INTERRUPTED);
            }
        }
    });
    (cancel, CtrlC(task))
}

/// Listens for Ctrl-C while alive.
pub struct CtrlC(JoinHandle<()>);

impl Drop for CtrlC {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A spinner for waits whose length we cannot know (resolving from Maven Central, a start).
pub fn spinner(message: String) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new_spinner().with_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

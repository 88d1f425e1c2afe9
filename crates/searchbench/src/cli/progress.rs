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

/// What asked a run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// SIGINT: Ctrl-C, or `timeout -s INT`.
    Interrupt,
    /// SIGTERM: what Kubernetes, systemd and `docker stop` send before they kill.
    Terminate,
    /// SIGHUP: the terminal or the ssh session the run was started from is gone. Left to its
    /// default, it killed the run where it stood: no result, the node's data left behind.
    HangUp,
}

impl Stop {
    fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "interrupted",
            Stop::Terminate => "terminated (SIGTERM)",
            Stop::HangUp => "hung up (SIGHUP)",
        }
    }
}

/// The signals a run stops on: SIGINT, SIGTERM, SIGHUP (each `None` where it cannot be
/// listened for).
struct Signals([Option<tokio::signal::unix::Signal>; 3]);

impl Signals {
    fn listen() -> Signals {
        use tokio::signal::unix::{signal, SignalKind};
        Signals([
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
            signal(SignalKind::hangup()).ok(),
        ])
    }

    /// The next stop; `None` once none can be listened for.
    async fn next(&mut self) -> Option<Stop> {
        async fn recv(s: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
            match s {
                Some(s) => s.recv().await,
                None => std::future::pending().await,
            }
        }
        if self.0.iter().all(Option::is_none) {
            return None;
        }
        let [int, term, hup] = &mut self.0;
        tokio::select! {
            got = recv(int) => got.map(|()| Stop::Interrupt),
            got = recv(term) => got.map(|()| Stop::Terminate),
            got = recv(hup) => got.map(|()| Stop::HangUp),
        }
    }
}

/// Turns SIGINT (Ctrl-C), SIGTERM and SIGHUP into one cancel, the one signal path of every run: the
/// first stops the work (it keeps what was done, reports it and is stored `interrupted`,
/// exit 130); a second Ctrl-C, [`SAME_STOP`] or more later, quits at once with exit code 130.
/// A SIGTERM or SIGHUP never quits at once: it asks for the same graceful stop (a supervisor
/// that wants it sooner sends SIGKILL after its own grace). Drop the guard to stop listening.
pub fn cancel_on_ctrl_c() -> (Cancel, CtrlC) {
    let (tx, cancel) = Cancel::new();
    let task = tokio::spawn(async move {
        let mut signals = Signals::listen();
        let Some(how) = signals.next().await else {
            return;
        };
        let first = Instant::now();
        errln!(
            "\n{}: stopping; requests in flight get {} s to finish (Ctrl-C again to quit at once)",
            how.name(),
            GRACE.as_secs()
        );
        let _ = tx.send(true);
        while let Some(again) = signals.next().await {
            if again == Stop::Interrupt && first.elapsed() >= SAME_STOP {
                // What a load or query changed on the user's index is written down (see
                // `cluster::owed`): the next command on that index puts it back.
                errln!(
                    "quitting at once: an index setting changed for the run (a load's settings, \
                     a write block, a closed index) is put back by the next searchbench \
                     command on that index from this machine"
                );
                std::process::exit(exit::INTERRUPTED);
            }
        }
    });
    (cancel, CtrlC(task))
}

/// Listens for SIGINT, SIGTERM and SIGHUP while alive.
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

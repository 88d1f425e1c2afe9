//! What the caller hands a load to watch and steer it: progress reports out, a cancel signal
//! in, closed seconds of the timeline out. The driver never draws or reads the terminal itself.

use std::time::Duration;

use tokio::sync::{mpsc, watch};

use crate::measure::TimelineRow;

/// After a cancel, requests already in flight get this long to be answered (so their
/// documents can still count as indexed) before they are given up as interrupted. Short,
/// because a user who pressed Ctrl-C is waiting; long enough for a healthy bulk round trip.
pub const GRACE: Duration = Duration::from_secs(3);

/// How often the driver publishes [`Progress`].
pub const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Where closed seconds of the timeline go while the load runs (a results store streams them
/// in, so a run that dies halfway keeps what it measured).
pub type SecondsTx = mpsc::UnboundedSender<Vec<TimelineRow>>;

/// A load's progress so far, published every [`PROGRESS_EVERY`] and once at the end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Documents and bad lines settled: acknowledged, refused, or given up on.
    pub docs: u64,
    /// Uncompressed bulk bytes of acknowledged requests.
    pub acked_bytes: u64,
    /// The source's document count, when it knows it.
    pub len_hint: Option<u64>,
    /// The load is stopping early (an error, or a cancel).
    pub stopping: bool,
    /// The load is over; this is the last report.
    pub done: bool,
}

/// Receives progress reports (`watch`: a slow reader only ever sees the latest).
pub type ProgressTx = watch::Sender<Progress>;

pub use crate::cancel::Cancel;

/// Everything optional a caller can attach to a load.
#[derive(Debug, Default)]
pub struct Controls {
    pub progress: Option<ProgressTx>,
    pub cancel: Option<Cancel>,
    pub seconds: Option<SecondsTx>,
    /// The counter the driver adds acknowledged documents to, read beside the load (the
    /// freshness probe); the driver's own when `None`.
    pub acked: Option<super::freshness::Acked>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancel_fires_once_sent_and_never_when_dropped() {
        let (tx, cancel) = Cancel::new();
        assert!(!cancel.is_cancelled());
        tx.send(true).unwrap();
        assert!(cancel.is_cancelled());
        cancel.cancelled().await;

        let never = Cancel::never();
        let waited = tokio::time::timeout(Duration::from_millis(20), never.cancelled()).await;
        assert!(waited.is_err());
    }
}

//! A cancel signal (the user's Ctrl-C, the end of a load): what long work takes from its
//! caller to stop early. Shared by the load, the query method and the sessions, owned by none.

use tokio::sync::watch;

/// A cancel signal: `true` on the channel stops the work it is given to. A dropped sender never cancels.
#[derive(Debug, Clone)]
pub struct Cancel(watch::Receiver<bool>);

impl Cancel {
    /// A signal and the sender that fires it (`send(true)`).
    pub fn new() -> (watch::Sender<bool>, Cancel) {
        let (tx, rx) = watch::channel(false);
        (tx, Cancel(rx))
    }

    /// A signal that never fires.
    pub fn never() -> Cancel {
        Cancel(watch::channel(false).1)
    }

    pub fn is_cancelled(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once cancelled; never, if the sender is gone without cancelling.
    pub async fn cancelled(&self) {
        let mut rx = self.0.clone();
        loop {
            if *rx.borrow_and_update() {
                return;
            }
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

impl From<watch::Receiver<bool>> for Cancel {
    fn from(rx: watch::Receiver<bool>) -> Self {
        Cancel(rx)
    }
}

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

impl Cancel {
    /// A signal that fires when `a` or `b` does (a run stopped by Ctrl-C, or by a process it
    /// needs dying). Forwarded by a task of the current runtime, which ends with the first.
    pub fn either(a: &Cancel, b: &Cancel) -> Cancel {
        let (fire, either) = Cancel::new();
        let (a, b) = (a.clone(), b.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = a.cancelled() => {}
                () = b.cancelled() => {}
                () = fire.closed() => return,
            }
            let _ = fire.send(true);
        });
        either
    }
}

impl From<watch::Receiver<bool>> for Cancel {
    fn from(rx: watch::Receiver<bool>) -> Self {
        Cancel(rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn either_fires_with_the_first_of_its_two() {
        crate::double::block_on(async {
            for first in [0, 1] {
                let (fire_a, a) = Cancel::new();
                let (fire_b, b) = Cancel::new();
                let both = Cancel::either(&a, &b);
                tokio::task::yield_now().await;
                assert!(!both.is_cancelled());
                let _ = [&fire_a, &fire_b][first].send(true);
                tokio::time::timeout(std::time::Duration::from_secs(5), both.cancelled())
                    .await
                    .expect("either fired");
            }
        });
    }
}

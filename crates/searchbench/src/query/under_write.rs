//! Searches under write beside idle (`--beside-idle` with `--rewrite-clients`): every
//! measurement pass runs twice, once with the writes beside it and once with them paused,
//! in an order that alternates from pass to pass (idle first, then writes first, …), so what
//! the machine does over the minutes falls on both sides alike. The method flips the
//! [`WriteSwitch`]; the writer (`session::rewrites`) pauses while it is off.

use std::time::Duration;

use tokio::sync::watch;

/// How long the method waits after flipping the switch before it measures: the writers'
/// first bulks in flight (on), the last refresh of their writes done (off, at the engines'
/// default 1 s refresh).
pub const SETTLE: Duration = Duration::from_secs(1);

/// The side of a pair of passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Idle,
    UnderWrite,
}

/// The two halves of pass `pass` (from 1) in the order they run: idle first on odd passes,
/// under write first on even ones.
pub fn halves(pass: u32) -> [Side; 2] {
    if pass % 2 == 1 {
        [Side::Idle, Side::UnderWrite]
    } else {
        [Side::UnderWrite, Side::Idle]
    }
}

/// The method's end of the switch between writing and pausing; writing at first (the writes
/// run beside the warm-up). The writer watches `true` as paused, so it can take the channel
/// as the cancel of the round it is writing ([`crate::cancel::Cancel`]).
#[derive(Clone)]
pub struct WriteSwitch(std::sync::Arc<watch::Sender<bool>>);

impl WriteSwitch {
    /// The switch, and what the writer watches (`true`: paused).
    pub fn new() -> (WriteSwitch, watch::Receiver<bool>) {
        let (tx, rx) = watch::channel(false);
        (WriteSwitch(std::sync::Arc::new(tx)), rx)
    }

    /// Writes on (`true`) or paused. A writer gone already changes nothing.
    pub fn set(&self, on: bool) {
        self.0.send_replace(!on);
    }

    pub fn is_on(&self) -> bool {
        !*self.0.borrow()
    }
}

impl std::fmt::Debug for WriteSwitch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "WriteSwitch({})",
            if self.is_on() { "on" } else { "off" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_halves_alternate_so_each_side_goes_first_as_often() {
        let firsts: Vec<Side> = (1..=4).map(|p| halves(p)[0]).collect();
        assert_eq!(
            firsts,
            [Side::Idle, Side::UnderWrite, Side::Idle, Side::UnderWrite]
        );
        for p in 1..=4 {
            let [a, b] = halves(p);
            assert_ne!(a, b);
        }
    }

    #[test]
    fn the_writer_sees_each_flip() {
        let (switch, mut paused) = WriteSwitch::new();
        assert!(!*paused.borrow_and_update());
        switch.set(false);
        assert!(paused.has_changed().unwrap());
        assert!(*paused.borrow_and_update());
        assert!(!switch.is_on());
        // The writer takes the paused channel as its round's cancel.
        assert!(crate::cancel::Cancel::from(paused.clone()).is_cancelled());
        drop(paused);
        // A writer gone: the method goes on.
        switch.set(true);
        assert!(switch.is_on());
    }
}

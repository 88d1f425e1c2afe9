//! Open-loop pacing: requests are due at fixed times set by the offered rate, not when the
//! previous answer came back. Latency is then measured from the due time, so a slow answer
//! that holds later requests up is charged to them too (no coordinated omission).
//!
//! One [`Schedule`] is shared by every sender of a run: each takes the next due time for the
//! units (documents, or 1 for a query) it is about to send, so the rate holds whatever the
//! request sizes and however the work spreads over the senders.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Due times at `rate` units per second from `start`.
#[derive(Debug)]
pub struct Schedule {
    start: Instant,
    rate: f64,
    /// Units handed out so far: the next request is due at `start + issued / rate`.
    issued: AtomicU64,
}

impl Schedule {
    /// `rate` must be positive and finite (the caller checks user input).
    pub fn new(rate: f64, start: Instant) -> Self {
        Schedule {
            start,
            rate,
            issued: AtomicU64::new(0),
        }
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }

    pub fn start(&self) -> Instant {
        self.start
    }

    /// The due time of the next request, which carries `units`.
    pub fn next(&self, units: u64) -> Instant {
        let before = self.issued.fetch_add(units, Relaxed);
        self.start + Duration::from_secs_f64(before as f64 / self.rate)
    }
}

/// The slowest rate accepted: one unit every 100 s. Slower ones would wait in silence for
/// hours or years between requests (and `1e-300` overflows a `Duration`).
pub const MIN_RATE: f64 = 0.01;
/// The fastest rate accepted, per second: far beyond any driver or cluster.
pub const MAX_RATE: f64 = 1e9;

/// Checks a user's rate: within [`MIN_RATE`]..=[`MAX_RATE`] per second.
pub fn check_rate(rate: f64) -> Result<f64, String> {
    if (MIN_RATE..=MAX_RATE).contains(&rate) {
        Ok(rate)
    } else {
        // As given, short: `1e308`, not its 309 digits.
        Err(format!(
            "{rate:?} is outside the accepted rates: give {MIN_RATE} to {MAX_RATE:e} per second"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_outside_is_refused_naming_it_short() {
        assert_eq!(check_rate(5000.0), Ok(5000.0));
        for (given, shown) in [(1e308, "1e308 "), (f64::NAN, "NaN "), (1e-300, "1e-300 ")] {
            let err = check_rate(given).unwrap_err();
            assert!(err.starts_with(shown) && err.len() < 90, "{err}");
        }
    }

    #[test]
    fn due_times_follow_the_units_handed_out() {
        let t0 = Instant::now();
        let s = Schedule::new(1000.0, t0);
        assert_eq!(s.next(100), t0);
        assert_eq!(s.next(50), t0 + Duration::from_millis(100));
        assert_eq!(s.next(1), t0 + Duration::from_millis(150));
        assert!(check_rate(0.0).is_err() && check_rate(f64::NAN).is_err());
        assert!(check_rate(-1.0).is_err() && check_rate(2.5).is_ok());
        assert!(check_rate(1e-300).is_err() && check_rate(1e-9).is_err());
        assert!(check_rate(MIN_RATE).is_ok() && check_rate(MAX_RATE).is_ok());
        assert!(check_rate(2e9).is_err() && check_rate(f64::INFINITY).is_err());
    }
}

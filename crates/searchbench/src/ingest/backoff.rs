//! Exponential backoff with jitter. The jitter comes from the project's one generator
//! (`corpus::rng::splitmix64`), seeded from the clock: it only spreads retries apart, it does
//! not need to be reproducible.

use std::time::Duration;

use crate::rng::splitmix64;

/// Attempt `n` (0-based) waits a random time in `[d/2, d]` where `d = base × 2^n`, capped at
/// `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub max: Duration,
}

impl Backoff {
    /// The wait before retrying after attempt `attempt`; `draw` is a uniform random `u64`.
    pub fn delay(&self, attempt: u32, draw: u64) -> Duration {
        let full = self
            .base
            .saturating_mul(1u32 << attempt.min(20))
            .min(self.max);
        let half = full / 2;
        half + half.mul_f64(unit(draw))
    }
}

/// `draw` as a float in `[0, 1)`.
fn unit(draw: u64) -> f64 {
    (draw >> 11) as f64 / (1u64 << 53) as f64
}

/// Random draws for backoff jitter, one stream per bulk client.
#[derive(Debug)]
pub struct Jitter(u64);

impl Jitter {
    /// A stream salted with `salt` (the client's number), so clients that fail together do
    /// not retry together.
    pub fn new(salt: u64) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut seed = nanos ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Jitter(splitmix64(&mut seed))
    }

    pub fn draw(&mut self) -> u64 {
        splitmix64(&mut self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_within_half_to_full_and_stop_at_the_cap() {
        let b = Backoff {
            base: Duration::from_millis(100),
            max: Duration::from_secs(1),
        };
        assert_eq!(b.delay(0, 0), Duration::from_millis(50));
        let top = b.delay(0, u64::MAX);
        assert!(top > Duration::from_millis(99) && top <= Duration::from_millis(100));
        assert_eq!(b.delay(2, 0), Duration::from_millis(200));
        assert_eq!(b.delay(30, 0), Duration::from_millis(500));
        let mut j = Jitter::new(3);
        for _ in 0..1000 {
            let d = b.delay(1, j.draw());
            assert!(d >= Duration::from_millis(100) && d <= Duration::from_millis(200));
        }
    }
}

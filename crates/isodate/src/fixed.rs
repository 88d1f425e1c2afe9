//! Fixed shapes, each a whole input of one length: the two UTC shapes almost every log line
//! carries, `YYYY-MM-DDTHH:MM:SS.sssZ` (a JavaScript `toISOString()`, most shippers) and
//! `YYYY-MM-DDTHH:MM:SSZ`, and `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn±HH:MM` (nanoseconds and an
//! offset).
//!
//! Two stages. *Check*: every byte against the shape's pattern (the largest digit allowed
//! at a digit, the exact byte elsewhere), digit pairs combined (`10 * tens + ones`), and
//! hour, month and day ranges, in one branch; out come words of masked pairs.
//! *Assemble*: multiplies do the positional arithmetic (each sums pairs that sit in
//! separate bytes of a word, with their weights, into the top bits, where every unwanted
//! cross product stays below the field or overflows out of the word), one table load gives
//! the month.
//!
//! On x86-64 the check runs on SSE2 (baseline for the architecture, through `safe_arch`):
//! 16-byte loads, a dozen vector instructions per register and one `movemask`, which
//! leaves the integer ports to the arithmetic. Elsewhere the UTC shapes are checked in
//! 64-bit words (a test requires both checks to produce the same words, so the assembly
//! stage is shared) and the offset shape is left to the general hot path.
//!
//! `None` means "not this shape in the common range" (years 3000 and later, or outside the
//! month table, included); the caller goes on to the general hot path, which gives the
//! exact result or error.

use crate::civil;
use crate::Instant;

/// What [`check`] hands to [`assemble`]: digit pairs in bytes, everything else zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pairs {
    /// `YYYY-MM-`: century in byte 0, year of century in byte 2, month in byte 5.
    date: u64,
    /// `DDTHH:MM`: day in byte 0, hour in byte 3, minute in byte 6.
    time: u64,
    /// The last 8 bytes, laid out by [`Shape`].
    last: u64,
}

/// One fixed shape of `N` bytes.
pub(crate) struct Shape<const N: usize> {
    /// Largest digit at each digit position, the literal byte elsewhere. The first year
    /// digit is at most 2, so the month key in [`assemble`] cannot wrap.
    pattern: &'static [u8; N],
    /// Keeps the wanted pairs of the last 8 bytes (after pairing).
    last_mask: u64,
    /// Byte of the seconds pair in [`Pairs::last`].
    second_byte: u32,
    /// Whether [`Pairs::last`] holds milliseconds: `10*f1+f2` in byte 4, `10*f3` in byte 6.
    millis: bool,
}

/// `YYYY-MM-DDTHH:MM:SS.sssZ`; the last 8 bytes are `:SS.sssZ`.
pub(crate) const MILLIS_Z: Shape<24> = Shape {
    pattern: b"2999-19-39T29:59:59.999Z",
    last_mask: 0x00FF_00FF_0000_FF00,
    second_byte: 1,
    millis: true,
};

/// `YYYY-MM-DDTHH:MM:SSZ`; the last 8 bytes are `H:MM:SSZ`.
pub(crate) const SECONDS_Z: Shape<20> = Shape {
    pattern: b"2999-19-39T29:59:59Z",
    last_mask: 0x0000_FF00_0000_0000,
    second_byte: 5,
    millis: false,
};

const DATE_MASK: u64 = 0x0000_FF00_00FF_00FF;
const TIME_MASK: u64 = 0x00FF_0000_FF00_00FF;

/// Parses `s` if it has exactly this shape.
#[inline(always)]
pub(crate) fn parse<const N: usize>(s: &[u8; N], shape: &Shape<N>) -> Option<Instant> {
    assemble(check(s, shape)?, shape)
}

/// The instant from checked pairs, or `None` when the year is outside the month table or
/// the month has no such day.
#[inline(always)]
fn assemble<const N: usize>(p: Pairs, shape: &Shape<N>) -> Option<Instant> {
    let second = (p.last >> (8 * shape.second_byte)) as u8 as i64;
    let nano = if shape.millis {
        // 100 * (10*f1+f2) + 10*f3 in bits 50..64 (the seconds' products stay below).
        const CENTI_MILLIS: u64 = (100 << 18) | (1 << 2);
        (p.last.wrapping_mul(CENTI_MILLIS) >> 50) as u32 * 100_000
    } else {
        0
    };
    Some(Instant {
        epoch_second: minute_seconds(p.date, p.time)? + second,
        nano,
    })
}

/// Seconds from the epoch to the start of the minute of `date` and `time` (the masked
/// pairs of `YYYY-MM-` and `DDTHH:MM`), or `None` when the year is outside the month table
/// or the month has no such day.
#[inline(always)]
fn minute_seconds(date: u64, time: u64) -> Option<i64> {
    // century * 2000 + yy * 20 + month = year * 20 + month, in bits 48..64.
    const KEY: u64 = (2000 << 48) | (20 << 32) | (1 << 8);
    let key = (date.wrapping_mul(KEY) >> 48) as u32;
    // day * 86_400 + hour * 3600 in bits 40..64 (the minute's products overflow).
    const DAY_HOUR: u64 = (86_400 << 40) | (3600 << 16);
    let day_hour = (time.wrapping_mul(DAY_HOUR) >> 40) as i64;
    let minute = (time >> 48) as i64;
    let day = time as u8 as u32;
    let days_before = civil::days_before(civil::month_entry(key)?, day)?;
    Some(days_before * 86_400 + day_hour + minute * 60)
}

/// XOR template of a pattern: `'0'` at digit positions, the literal elsewhere.
const fn template<const N: usize>(pattern: &[u8; N]) -> [u8; N] {
    let mut t = [0u8; N];
    let mut k = 0;
    while k < N {
        t[k] = if pattern[k].is_ascii_digit() {
            b'0'
        } else {
            pattern[k]
        };
        k += 1;
    }
    t
}

/// Per-byte limit: after XOR with the template, `t + limit` reaches 0x80 iff `t` is above
/// the largest digit allowed (0 at a literal). A byte that carries into the next one has
/// bit 7 of `t` set itself, so carries cannot hide a bad byte in 64-bit words either.
const fn limit<const N: usize>(pattern: &[u8; N]) -> [u8; N] {
    let mut l = [0u8; N];
    let mut k = 0;
    while k < N {
        l[k] = if pattern[k].is_ascii_digit() {
            0x7F - (pattern[k] - b'0')
        } else {
            0x7F
        };
        k += 1;
    }
    l
}

/// Eight bytes of `a` from `at`, as a little-endian word.
const fn word<const N: usize>(a: &[u8; N], at: usize) -> u64 {
    let mut v = 0u64;
    let mut k = 0;
    while k < 8 {
        v |= (a[at + k] as u64) << (8 * k);
        k += 1;
    }
    v
}

/// Sixteen bytes of `a` from `at`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const fn block<const N: usize>(a: &[u8; N], at: usize) -> [u8; 16] {
    let mut v = [0u8; 16];
    let mut k = 0;
    while k < 16 {
        v[k] = a[at + k];
        k += 1;
    }
    v
}

/// Range limits of the `YYYY-MM-DDTHH:MM` pairs (their bytes after pairing): month and day
/// at least 1, month at most 12, day at most 31, hour at most 23.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const PAIR_MIN: [u8; 16] = {
    let mut m = [0u8; 16];
    m[5] = 1;
    m[8] = 1;
    m
};
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const PAIR_MAX: [u8; 16] = {
    let mut m = [0xFFu8; 16];
    m[5] = 12;
    m[8] = 31;
    m[11] = 23;
    m
};

/// `10 * byte[k] + byte[k+1]` in byte k of each 8-byte word (bytes already 0..=9).
#[inline(always)]
fn pairs(t: u64) -> u64 {
    t.wrapping_mul(10).wrapping_add(t >> 8)
}

/// The check stage in 64-bit words (the portable version, and the reference for SSE2).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline(always)]
fn check_swar<const N: usize>(s: &[u8; N], shape: &Shape<N>) -> Option<Pairs> {
    let tpl = template(shape.pattern);
    let lim = limit(shape.pattern);
    let mut t = [0u64; 3];
    let mut bad = 0;
    for (k, at) in [0, 8, N - 8].into_iter().enumerate() {
        t[k] = word(s, at) ^ word(&tpl, at);
        bad |= t[k] | t[k].wrapping_add(word(&lim, at));
    }
    if bad & 0x8080_8080_8080_8080 != 0 {
        return None;
    }
    let (date, time) = (pairs(t[0]) & DATE_MASK, pairs(t[1]) & TIME_MASK);
    let (month, day, hour) = (date >> 40, time & 0xFF, (time >> 24) & 0xFF);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 {
        return None;
    }
    Some(Pairs {
        date,
        time,
        last: pairs(t[2]) & shape.last_mask,
    })
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
pub(crate) fn check<const N: usize>(s: &[u8; N], shape: &Shape<N>) -> Option<Pairs> {
    check_swar(s, shape)
}

/// The check stage on SSE2: bytes 0..16 and N-16..N in two registers.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn check<const N: usize>(s: &[u8; N], shape: &Shape<N>) -> Option<Pairs> {
    use safe_arch::*;
    use sse2::*;
    let tpl = template(shape.pattern);
    let lim = limit(shape.pattern);
    let (good, head) = sse2::head(s, &tpl, &lim)?;
    let (bad, t1) = sse2::xor_check(s, N - 16, &tpl, &lim)?;
    if move_mask_i8_m128i(bitandnot_m128i(bad, good)) != 0xFFFF {
        return None;
    }
    let p1 = bitand_m128i(pair(t1), m128i::from([0, shape.last_mask]));
    Some(Pairs {
        date: low(head),
        time: high(head),
        last: high(p1),
    })
}

/// `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn±HH:MM`: nanoseconds and an offset (java.time's
/// `OffsetDateTime` with a full fraction, Go's `RFC3339Nano` when the last digit is not 0).
/// Only on SSE2; elsewhere the general hot path takes it.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
pub(crate) fn parse_nanos_offset(_: &[u8; 35]) -> Option<Instant> {
    None
}

/// The pattern of [`parse_nanos_offset`]; the sign byte is checked apart (`+` or `-`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const NANOS_OFFSET: &[u8; 35] = b"2999-19-39T29:59:59.999999999+19:59";
/// The offset's sign, at this byte: `+` XOR `-` is 6, so the limit lets 0..=6 through and
/// an equality test keeps 0 and 6.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const SIGN_AT: usize = 29;
/// The largest offset java.time accepts, in minutes (`±18:00`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const MAX_OFFSET_MINUTES: u32 = 18 * 60;

/// `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn±HH:MM`: nanoseconds and an offset (java.time's
/// `OffsetDateTime` with a full fraction, Go's `RFC3339Nano` when the last digit is not 0).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn parse_nanos_offset(s: &[u8; 35]) -> Option<Instant> {
    use safe_arch::*;
    use sse2::*;
    const TPL: [u8; 35] = template(NANOS_OFFSET);
    const LIM: [u8; 35] = {
        let mut l = limit(NANOS_OFFSET);
        l[SIGN_AT] = 0x7F - (b'+' ^ b'-');
        l
    };
    let (good, head) = sse2::head(s, &TPL, &LIM)?;
    // Bytes 16..32 `:SS.nnnnnnnnn±HH` and 19..35 `.nnnnnnnnn±HH:MM`.
    let (bad1, t1) = sse2::xor_check(s, 16, &TPL, &LIM)?;
    let (bad2, t2) = sse2::xor_check(s, 19, &TPL, &LIM)?;
    // The sign byte (byte 10 of t2) is 0 for `+`, 6 for `-`; every other byte passes.
    const SIGN_POS: usize = SIGN_AT - 19;
    let not_sign = {
        let mut m = [0xFFu8; 16];
        m[SIGN_POS] = 0;
        m
    };
    let minus = {
        let mut m = [0u8; 16];
        m[SIGN_POS] = b'+' ^ b'-';
        m
    };
    let sign_ok = bitor_m128i(
        bitor_m128i(
            cmp_eq_mask_i8_m128i(t2, zeroed_m128i()),
            cmp_eq_mask_i8_m128i(t2, m128i::from(minus)),
        ),
        m128i::from(not_sign),
    );
    let good = bitandnot_m128i(bitor_m128i(bad1, bad2), bitand_m128i(good, sign_ok));
    if move_mask_i8_m128i(good) != 0xFFFF {
        return None;
    }
    // t1 pairs: seconds in byte 1 (high byte of 16-bit lane 0), the fraction's first four
    // pairs in bytes 4, 6, 8, 10; the ninth digit is byte 12 of t1 itself. One
    // multiply-add of 16-bit lanes gives [256 * second, n1n2 * 100 + n3n4,
    // n5n6 * 1000 + n7n8 * 10, n9] in 32-bit lanes.
    let keep: [u8; 16] = [
        0, 0xFF, 0, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0, 0, 0, 0, 0,
    ];
    let ninth: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0];
    let lanes = bitor_m128i(
        bitand_m128i(pair(t1), m128i::from(keep)),
        bitand_m128i(t1, m128i::from(ninth)),
    );
    let sums = mul_i16_horizontal_add_m128i(lanes, m128i::from([1i16, 0, 100, 1, 1000, 10, 1, 0]));
    let (lo, hi) = (low(sums), high(sums));
    let second = i64::from((lo as u32) >> 8);
    let nano = (lo >> 32) as u32 * 100_000 + hi as u32 + (hi >> 32) as u32;
    // t2 pairs, bytes 8..16 (`nn±HH:MM`): offset hours in byte 3, minutes in byte 6;
    // `HH * 60 + MM` in bits 48..64.
    let off = high(bitand_m128i(
        pair(t2),
        m128i::from([0, 0x00FF_0000_FF00_0000u64]),
    ));
    const OFF_MINUTES: u64 = (60 << 24) | 1;
    let minutes = (off.wrapping_mul(OFF_MINUTES) >> 48) as u32;
    if minutes > MAX_OFFSET_MINUTES {
        return None;
    }
    let offset = i64::from(minutes * 60);
    let offset = if s[SIGN_AT] == b'-' { -offset } else { offset };
    Some(Instant {
        epoch_second: minute_seconds(low(head), high(head))? + second - offset,
        nano,
    })
}

/// SSE2 building blocks shared by the shapes.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use super::{block, DATE_MASK, PAIR_MAX, PAIR_MIN, TIME_MASK};
    use safe_arch::*;

    /// Bytes `at..at + 16` of `s` XORed with the template, and the bytes that fail their
    /// limit (bit 7 set), from the pattern's template and limits.
    #[inline(always)]
    pub(super) fn xor_check<const N: usize>(
        s: &[u8; N],
        at: usize,
        tpl: &[u8; N],
        lim: &[u8; N],
    ) -> Option<(m128i, m128i)> {
        let bytes: &[u8; 16] = s.get(at..at + 16)?.try_into().ok()?;
        let t = bitxor_m128i(load_unaligned_m128i(bytes), m128i::from(block(tpl, at)));
        let bad = bitor_m128i(t, add_i8_m128i(t, m128i::from(block(lim, at))));
        Some((bad, t))
    }

    /// `YYYY-MM-DDTHH:MM` (bytes 0..16): bytes that pass (bit 7 set: pattern, and hour,
    /// month and day ranges), and the masked date and time pairs in the two halves.
    #[inline(always)]
    pub(super) fn head<const N: usize>(
        s: &[u8; N],
        tpl: &[u8; N],
        lim: &[u8; N],
    ) -> Option<(m128i, m128i)> {
        let (bad, t) = xor_check(s, 0, tpl, lim)?;
        let p = pair(t);
        // Unsigned byte ranges: min <= x <= max iff max(x, min) == x and min(x, max) == x.
        let in_range = bitand_m128i(
            cmp_eq_mask_i8_m128i(max_u8_m128i(p, m128i::from(PAIR_MIN)), p),
            cmp_eq_mask_i8_m128i(min_u8_m128i(p, m128i::from(PAIR_MAX)), p),
        );
        let good = bitandnot_m128i(bad, in_range);
        Some((good, bitand_m128i(p, m128i::from([DATE_MASK, TIME_MASK]))))
    }

    /// Pairs within each 64-bit half, exactly as `pairs` on words.
    #[inline(always)]
    pub(super) fn pair(t: m128i) -> m128i {
        add_i8_m128i(
            mul_i16_keep_low_m128i(t, set_splat_i16_m128i(10)),
            shr_imm_u64_m128i::<8>(t),
        )
    }

    #[inline(always)]
    pub(super) fn low(v: m128i) -> u64 {
        get_i64_from_m128i_s(v) as u64
    }

    #[inline(always)]
    pub(super) fn high(v: m128i) -> u64 {
        get_i64_from_m128i_s(unpack_high_i64_m128i(v, v)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::civil::days_from_civil;

    /// Inputs around the shapes: valid ones across the table's years, every byte replaced
    /// by a sample of other bytes, and the field ranges' edges.
    fn inputs<const N: usize>(base: &[u8; N]) -> Vec<[u8; N]> {
        let mut out = vec![*base];
        for k in 0..N {
            for b in [
                0u8, b' ', b'+', b'-', b'.', b'/', b'0', b'1', b'2', b'3', b'4', b'5', b'6', b'9',
                b':', b'T', b'Z', b't', b'z', 0x7F, 0x80, 0xB9, 0xFF,
            ] {
                let mut s = *base;
                s[k] = b;
                out.push(s);
            }
        }
        out
    }

    fn with<const N: usize>(base: &[u8; N], at: usize, text: &str) -> [u8; N] {
        let mut s = *base;
        s[at..at + text.len()].copy_from_slice(text.as_bytes());
        s
    }

    fn check_shape<const N: usize>(base: &[u8; N], shape: &Shape<N>) {
        let mut cases = inputs(base);
        for year in [
            "0000", "1899", "1900", "1970", "2024", "2100", "2199", "2200", "2999", "3000",
        ] {
            for month in ["00", "01", "02", "12", "13", "19"] {
                for day in ["00", "01", "28", "29", "30", "31", "32", "39"] {
                    for hour in ["00", "23", "24", "29"] {
                        let s = with(&with(&with(base, 0, year), 5, month), 8, day);
                        cases.push(with(&s, 11, hour));
                    }
                }
            }
        }
        for s in &cases {
            let swar = check_swar(s, shape);
            assert_eq!(check(s, shape), swar, "{}", String::from_utf8_lossy(s));
            // Whatever the fixed path accepts, the general grammar gives the same instant.
            if let Some(got) = swar.and_then(|p| assemble(p, shape)) {
                let fields = crate::date::parse_fields(s).expect("fixed path accepted it");
                let want = crate::date::to_instant(&fields).expect("fixed path accepted it");
                assert_eq!(got, want, "{}", String::from_utf8_lossy(s));
            }
        }
    }

    #[test]
    fn sse2_and_word_checks_agree_and_match_the_general_path() {
        check_shape(b"2023-01-01T23:38:34.000Z", &MILLIS_Z);
        check_shape(b"2024-02-29T00:00:59.999Z", &MILLIS_Z);
        check_shape(b"2023-01-01T23:38:34Z", &SECONDS_Z);
        check_shape(b"1969-12-31T23:59:59Z", &SECONDS_Z);
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    /// `s` has the nanos-offset shape: digits, literals and a sign where they belong, and a
    /// year the month table covers. On such input the fixed path must agree exactly with the
    /// general path (accept what it accepts); elsewhere it may only decline.
    fn nanos_offset_shaped(s: &[u8; 35]) -> bool {
        let year: u32 = std::str::from_utf8(&s[..4])
            .ok()
            .and_then(|y| y.parse().ok())
            .unwrap_or(0);
        (1900..=2199).contains(&year)
            && s.iter()
                .zip(NANOS_OFFSET)
                .enumerate()
                .all(|(k, (&b, &p))| match p {
                    b'0'..=b'9' => b.is_ascii_digit(),
                    _ if k == SIGN_AT => b == b'+' || b == b'-',
                    _ => b == p,
                })
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn check_nanos_offset(s: &[u8; 35]) {
        let want = crate::date::parse_fields(s)
            .and_then(|f| crate::date::to_instant(&f))
            .ok();
        let got = parse_nanos_offset(s);
        let text = String::from_utf8_lossy(s);
        if nanos_offset_shaped(s) {
            assert_eq!(got, want, "{text}");
        } else if got.is_some() {
            assert_eq!(got, want, "accepted {text}");
        }
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn nanos_offset_matches_the_general_path() {
        let base = b"2023-11-04T21:38:47.605716183+01:00";
        let mut cases = inputs(base);
        for sign in ["+", "-"] {
            for off in [
                "00:00", "01:00", "05:45", "14:00", "17:59", "18:00", "18:01", "19:59", "09:60",
            ] {
                for (at, field) in [
                    (0, "1969"),
                    (0, "2199"),
                    (0, "2200"),
                    (8, "31"),
                    (11, "24"),
                    (11, "00"),
                ] {
                    cases.push(with(&with(&with(base, 29, sign), 30, off), at, field));
                }
            }
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let local = -2_208_988_800 + (x % (300 * 365 * 86_400)) as i64; // 1900..2199
            let days = local.div_euclid(86_400);
            let (y, m, d) = {
                // civil_from_days by counting from the table (test only, slow is fine)
                let mut y = 1900i64;
                let mut rest = days - days_from_civil(1900, 1, 1);
                while rest >= days_from_civil(y + 1, 1, 1) - days_from_civil(y, 1, 1) {
                    rest -= days_from_civil(y + 1, 1, 1) - days_from_civil(y, 1, 1);
                    y += 1;
                }
                let mut m = 1;
                while rest >= i64::from(civil::days_in_month(y, m)) {
                    rest -= i64::from(civil::days_in_month(y, m));
                    m += 1;
                }
                (y, m, rest + 1)
            };
            let sod = local.rem_euclid(86_400);
            let off = (x >> 40) % 80; // 0..=18:00 in quarter hours, then a few beyond
            let sign = if x & 1 == 0 { '+' } else { '-' };
            let s = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:09}{sign}{:02}:{:02}",
                sod / 3600,
                sod / 60 % 60,
                sod % 60,
                (x >> 20) % 1_000_000_000,
                off * 15 / 60,
                off * 15 % 60
            );
            cases.push(s.as_bytes().try_into().unwrap());
        }
        let accepted = cases
            .iter()
            .filter(|s| parse_nanos_offset(s).is_some())
            .count();
        assert!(accepted > 150_000, "only {accepted} accepted");
        for s in &cases {
            check_nanos_offset(s);
        }
    }

    #[test]
    fn every_day_of_the_table_years() {
        for y in 1900..=2199u32 {
            for m in 1..=12u32 {
                for d in 1..=civil::days_in_month(i64::from(y), m) {
                    let s = format!("{y:04}-{m:02}-{d:02}T13:45:56.789Z");
                    let s: &[u8; 24] = s.as_bytes().try_into().unwrap();
                    let want =
                        days_from_civil(i64::from(y), m, d) * 86_400 + 13 * 3600 + 45 * 60 + 56;
                    assert_eq!(
                        parse(s, &MILLIS_Z),
                        Some(Instant {
                            epoch_second: want,
                            nano: 789_000_000
                        }),
                        "{y}-{m}-{d}"
                    );
                }
            }
        }
    }
}

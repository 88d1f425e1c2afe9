//! `strict_date_optional_time`, as OpenSearch 2.19 / Elasticsearch 7.10 define it with
//! java.time, followed by `DateFormatters.from(..)` (missing fields filled, UTC default).
//!
//! The grammar (every bracket is an optional section; a failing optional section is rolled
//! back to where it started, and nothing else backtracks):
//!
//! ```text
//! year ['-' MM ['-' DD]] ['T' [HH [':' mm [':' ss ['.' f{1,9}] [',' f{1,9}]]]
//!                              [zone-or-offset-id] ['+HHmm' | 'Z']]]   end of input
//! year = DDDD | '-' D{4,10} (not zero) | '+' D{5,10}
//! ```
//!
//! Field ranges are checked afterwards (java's STRICT resolver and `DateFormatters.from`),
//! which is why `2023-02-29` or `T24:00` fail *after* matching the grammar.

use crate::civil::{days_checked, days_from_civil, days_in_month};
use crate::error::{Error, ErrorKind};
use crate::fixed;
use crate::zone::{self, Step, Zone};
use crate::Instant;

const POW10: [u32; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];
const MAX_YEAR: i64 = 999_999_999;
const MAX_OFFSET: i32 = 18 * 3600;

// ---------------------------------------------------------------------------------------
// Hot path
// ---------------------------------------------------------------------------------------

/// Each byte of `t` (input XOR template) is a digit 0..=9 where the template has '0', and
/// exactly 0 where the template has a separator.
#[inline(always)]
fn swar_ok(t: u64, sep_mask: u64) -> bool {
    const HI: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const SIX: u64 = 0x0606_0606_0606_0606;
    // High nibbles all zero, then low nibble + 6 must not reach 0x10 (i.e. <= 9); and the
    // separator bytes must be zero. No carries cross bytes because every byte is <= 0x0F.
    ((t & HI) | ((t.wrapping_add(SIX)) & HI) | (t & sep_mask)) == 0
}

/// `10 * byte[k] + byte[k+1]` in byte k, for every k (bytes already 0..=9: no carries).
#[inline(always)]
fn pairs(t: u64) -> u64 {
    t.wrapping_mul(10).wrapping_add(t >> 8)
}

/// Eight ASCII digits (first digit in the lowest byte) to their value: three multiplies
/// instead of eight dependent multiply-adds.
#[inline(always)]
fn eight_digits(t: u64) -> u32 {
    // t holds digit values 0..=9 per byte.
    let t = (t.wrapping_mul(10)).wrapping_add(t >> 8) & 0x00FF_00FF_00FF_00FF; // pairs
    let t = (t.wrapping_mul(100)).wrapping_add(t >> 16) & 0x0000_FFFF_0000_FFFF; // quads
    ((t.wrapping_mul(10_000)).wrapping_add(t >> 32) & 0xFFFF_FFFF) as u32
}

/// Fraction digits after the `.` at `start`: 1..=9 digits, scaled to nanoseconds, and the
/// digit count. `None` for zero digits or a 10th digit (the general path reports those).
#[inline(always)]
fn fraction_fast(s: &[u8], start: usize) -> Option<(u32, usize)> {
    // Load the 8 bytes at `start`; near the end of the input, load the last 8 bytes and
    // shift, so missing bytes read as 0 (never a digit after the XOR). `fast` guarantees
    // `s.len() >= 19` and `start <= s.len()`.
    let n = s.len();
    let x = if start + 8 <= n {
        u64::from_le_bytes(s.get(start..start + 8)?.try_into().ok()?)
    } else if start < n {
        let tail = u64::from_le_bytes(s.get(n.checked_sub(8)?..n)?.try_into().ok()?);
        tail >> (8 * (start + 8 - n)) // shift is 8..=56 here
    } else {
        return None; // a '.' at the very end
    };
    {
        let t = x ^ 0x3030_3030_3030_3030;
        // A byte is a digit iff its high nibble is 0 and low nibble + 6 stays below 0x10.
        let bad = (t | t.wrapping_add(0x0606_0606_0606_0606)) & 0xF0F0_F0F0_F0F0_F0F0;
        let nd = (bad.trailing_zeros() / 8) as usize; // 8 when all are digits
        if nd == 0 {
            return None;
        }
        // Keep the digits, zero the rest: value = digits * 10^(8 - nd).
        let keep = if nd == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * nd)) - 1
        };
        let mut v = eight_digits(t & keep) * 10;
        let mut nd = nd;
        if nd == 8 {
            if let Some(d @ b'0'..=b'9') = s.get(start + 8) {
                v += u32::from(d - b'0');
                nd = 9;
                if s.get(start + 9).is_some_and(u8::is_ascii_digit) {
                    return None;
                }
            }
        }
        Some((v, nd))
    }
}

/// `YYYY-MM-DD` alone: midnight UTC.
#[inline]
fn fast_date_only(s: &[u8]) -> Option<Instant> {
    let a = u64::from_le_bytes(s.get(0..8)?.try_into().ok()?);
    const TA: u64 = u64::from_le_bytes(*b"0000-00-");
    const SA: u64 = 0xFF00_00FF_0000_0000;
    let ta = a ^ TA;
    let (d1, d2) = (s[8].wrapping_sub(b'0'), s[9].wrapping_sub(b'0'));
    if !swar_ok(ta, SA) || (d1 | d2) > 9 {
        return None;
    }
    let pa = pairs(ta);
    let year = (pa & 0xFF) as u32 * 100 + ((pa >> 16) & 0xFF) as u32;
    let month = ((pa >> 40) & 0xFF) as u32;
    let day = u32::from(d1) * 10 + u32::from(d2);
    Some(Instant {
        epoch_second: days_checked(year, month, day)? * 86_400,
        nano: 0,
    })
}

/// The common shape: `YYYY-MM-DDTHH:MM:SS` + optional `.f{1,9}` + (`Z` | `±HH:MM` | end).
/// `None` sends the input to the general parser, which also produces the exact error.
#[inline(always)]
pub(crate) fn fast(s: &[u8]) -> Option<Instant> {
    // The two fixed UTC shapes first; anything else they refuse goes on to the general
    // hot path below (which accepts them too, only slower).
    if let Ok(s24) = <&[u8; 24]>::try_from(s) {
        if let Some(v) = fixed::parse(s24, &fixed::MILLIS_Z) {
            return Some(v);
        }
    } else if let Ok(s20) = <&[u8; 20]>::try_from(s) {
        if let Some(v) = fixed::parse(s20, &fixed::SECONDS_Z) {
            return Some(v);
        }
    } else if let Ok(s35) = <&[u8; 35]>::try_from(s) {
        if let Some(v) = fixed::parse_nanos_offset(s35) {
            return Some(v);
        }
    }
    if s.len() < 19 {
        return if s.len() == 10 {
            fast_date_only(s)
        } else {
            None
        };
    }
    let a = u64::from_le_bytes(s[0..8].try_into().ok()?); // YYYY-MM-
    let b = u64::from_le_bytes(s[8..16].try_into().ok()?); // DDTHH:MM
    let c = u64::from_le_bytes(s[11..19].try_into().ok()?); // HH:MM:SS
    const TA: u64 = u64::from_le_bytes(*b"0000-00-");
    const TB: u64 = u64::from_le_bytes(*b"00T00:00");
    const TC: u64 = u64::from_le_bytes(*b"00:00:00");
    const SA: u64 = 0xFF00_00FF_0000_0000; // bytes 4 and 7
    const SB: u64 = 0x0000_FF00_00FF_0000; // bytes 2 and 5
    const SC: u64 = 0x0000_FF00_00FF_0000; // bytes 2 and 5
    let (ta, tb, tc) = (a ^ TA, b ^ TB, c ^ TC);
    if !(swar_ok(ta, SA) & swar_ok(tb, SB) & swar_ok(tc, SC)) {
        return None;
    }
    let (pa, pb, pc) = (pairs(ta), pairs(tb), pairs(tc));
    let year = (pa & 0xFF) as u32 * 100 + ((pa >> 16) & 0xFF) as u32;
    let month = ((pa >> 40) & 0xFF) as u32;
    let day = (pb & 0xFF) as u32;
    let hour = ((pb >> 24) & 0xFF) as u32;
    let minute = ((pb >> 48) & 0xFF) as u32;
    let second = ((pc >> 48) & 0xFF) as u32;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // Month and day are checked by the calendar table lookup.
    let days = days_checked(year, month, day)?;

    let n = s.len();
    let mut i = 19;
    let mut nano = 0u32;
    if i < n && s[i] == b'.' {
        // Milliseconds are by far the most common fraction: 3 digits, then not a digit.
        if let Some(&[d1, d2, d3]) = s.get(20..23) {
            let (a, b, c) = (
                d1.wrapping_sub(b'0'),
                d2.wrapping_sub(b'0'),
                d3.wrapping_sub(b'0'),
            );
            if (a | b | c) <= 9 && !s.get(23).is_some_and(u8::is_ascii_digit) {
                nano = (u32::from(a) * 100 + u32::from(b) * 10 + u32::from(c)) * 1_000_000;
                i = 23;
            }
        }
        if i == 19 {
            let (v, nd) = fraction_fast(s, 20)?;
            nano = v;
            i = 20 + nd;
        }
    }
    let offset: i32 = if i == n || (s[i] == b'Z' && i + 1 == n) {
        0
    } else if n == i + 6 && (s[i] == b'+' || s[i] == b'-') {
        // `±HH:MM` at the very end: one 8-byte load of the last 8 bytes (n >= 25 here).
        let w = u64::from_le_bytes(s.get(n - 8..n)?.try_into().ok()?) >> 24; // HH:MM
        const TO: u64 = u64::from_le_bytes(*b"00:00\0\0\0");
        const SO: u64 = 0x0000_0000_00FF_0000; // the ':'
        let t = w ^ TO;
        if !swar_ok(t, SO) {
            return None;
        }
        let p = pairs(t);
        let (h, m) = ((p & 0xFF) as i32, ((p >> 24) & 0xFF) as i32);
        let off = h * 3600 + m * 60;
        if m > 59 || off > MAX_OFFSET {
            return None;
        }
        if s[i] == b'-' {
            -off
        } else {
            off
        }
    } else {
        return None;
    };
    let secs = days * 86_400 + (hour * 3600 + minute * 60 + second) as i64 - offset as i64;
    Some(Instant {
        epoch_second: secs,
        nano,
    })
}

// ---------------------------------------------------------------------------------------
// General path
// ---------------------------------------------------------------------------------------

/// What the grammar matched, after java's STRICT resolver accepted it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    year: i64,
    month: Option<u32>,
    day: Option<u32>,
    /// Seconds of day, when an hour was given (minutes and seconds default to 0).
    time: Option<u32>,
    nano: u32,
    zone: Option<Zone>,
    /// The `+HHmm` offset after the zone, and where it started.
    offset: Option<(i32, usize)>,
    /// Where the date part started / the zone started, for error positions.
    month_pos: usize,
    zone_pos: usize,
}

impl Fields {
    /// The year of the local date `DateFormatters.from` builds (1970 for a time without a
    /// month). Used by the differential test's exclusions.
    pub(crate) fn local_year(&self) -> i64 {
        match (self.month, self.time) {
            (None, Some(_)) => 1970,
            _ => self.year,
        }
    }
}

#[inline]
fn two_digits(s: &[u8], i: usize) -> Option<u32> {
    match (s.get(i), s.get(i + 1)) {
        (Some(a @ b'0'..=b'9'), Some(b @ b'0'..=b'9')) => {
            Some(u32::from(a - b'0') * 10 + u32::from(b - b'0'))
        }
        _ => None,
    }
}

/// `appendFraction(NANO_OF_SECOND, 1, 9, ..)` after its separator: 1 to 9 digits.
fn fraction(s: &[u8], start: usize) -> Option<(u32, usize)> {
    let mut j = start;
    let mut v = 0u32;
    while j < s.len() && j - start < 9 && s[j].is_ascii_digit() {
        v = v * 10 + u32::from(s[j] - b'0');
        j += 1;
    }
    let nd = j - start;
    (nd > 0).then(|| (v * POW10[9 - nd], j))
}

/// Grammar plus java's STRICT resolution. An `Err` here is a *parse failure*: with
/// `strict_date_optional_time||epoch_millis` the next format is tried.
pub(crate) fn parse_fields(s: &[u8]) -> Result<Fields, Error> {
    let n = s.len();
    if n == 0 {
        return Err(Error::new(0, ErrorKind::Empty));
    }
    // Year: appendValue(YEAR, 4, 10, SignStyle.EXCEEDS_PAD), strict.
    let (sign, mut i) = match s[0] {
        b'+' => (1i64, 1usize),
        b'-' => (-1, 1),
        _ => (0, 0),
    };
    let start = i;
    let mut v = 0i64;
    while i < n && i - start < 10 && s[i].is_ascii_digit() {
        v = v * 10 + i64::from(s[i] - b'0');
        i += 1;
    }
    let nd = i - start;
    if nd < 4 {
        let kind = if i < n && !s[i].is_ascii_digit() {
            ErrorKind::InvalidYear
        } else {
            ErrorKind::ExpectedDigit
        };
        return Err(Error::new(i, kind));
    }
    // Unsigned: exactly 4 digits ('+' is required past the pad width). '+': more than 4.
    // '-': not zero ("-0000" is refused as a negative zero).
    let year_ok = match sign {
        0 => nd == 4,
        1 => nd > 4,
        _ => v != 0,
    };
    if !year_ok {
        return Err(Error::new(0, ErrorKind::InvalidYear));
    }
    let year = if sign < 0 { -v } else { v };

    let mut f = Fields {
        year,
        month: None,
        day: None,
        time: None,
        nano: 0,
        zone: None,
        offset: None,
        month_pos: i + 1,
        zone_pos: 0,
    };
    if s.get(i) == Some(&b'-') {
        if let Some(m) = two_digits(s, i + 1) {
            f.month = Some(m);
            i += 3;
            if s.get(i) == Some(&b'-') {
                if let Some(d) = two_digits(s, i + 1) {
                    f.day = Some(d);
                    i += 3;
                }
            }
        }
    }
    let mut hour_pos = 0;
    let (mut minute, mut second) = (0, 0);
    let mut hour = None;
    if s.get(i) == Some(&b'T') {
        i += 1;
        if let Some(h) = two_digits(s, i) {
            hour = Some(h);
            hour_pos = i;
            i += 2;
            if s.get(i) == Some(&b':') {
                if let Some(m) = two_digits(s, i + 1) {
                    minute = m;
                    i += 3;
                    if s.get(i) == Some(&b':') {
                        if let Some(sec) = two_digits(s, i + 1) {
                            second = sec;
                            i += 3;
                            let mut nano = None;
                            if s.get(i) == Some(&b'.') {
                                if let Some((v, e)) = fraction(s, i + 1) {
                                    nano = Some(v);
                                    i = e;
                                }
                            }
                            if s.get(i) == Some(&b',') {
                                if let Some((v, e)) = fraction(s, i + 1) {
                                    // Setting the same field twice with another value is a
                                    // conflict in java: the ',' section is rolled back.
                                    if nano.is_none_or(|old| old == v) {
                                        nano = Some(v);
                                        i = e;
                                    }
                                }
                            }
                            f.nano = nano.unwrap_or(0);
                        }
                    }
                }
            }
            f.zone_pos = i;
            if let Step::Match(z, e) = zone::zone_or_offset_id(s, i)? {
                f.zone = Some(z);
                i = e;
            }
            if let Step::Match(o, e) = zone::offset_no_colon(s, i)? {
                f.offset = Some((o, i));
                i = e;
            }
        }
    }
    if i != n {
        return Err(Error::new(i, ErrorKind::TrailingInput));
    }

    // STRICT resolution.
    if let Some(h) = hour {
        if h > 23 {
            return Err(Error::new(hour_pos, ErrorKind::HourOutOfRange));
        }
        if minute > 59 {
            return Err(Error::new(hour_pos + 3, ErrorKind::MinuteOutOfRange));
        }
        if second > 59 {
            return Err(Error::new(hour_pos + 6, ErrorKind::SecondOutOfRange));
        }
        f.time = Some(h * 3600 + minute * 60 + second);
    }
    if let (Some(m), Some(d)) = (f.month, f.day) {
        check_date(&f, m, Some(d))?;
        // With a full date and a time, java computes INSTANT_SECONDS from the `+HHmm`
        // offset (even when a zone id wins later), which throws beyond +-18h.
        if let (Some(_), Some((o, pos))) = (f.time, f.offset) {
            if o.abs() > MAX_OFFSET {
                return Err(Error::new(pos, ErrorKind::OffsetOutOfRange));
            }
        }
    }
    Ok(f)
}

fn check_date(f: &Fields, m: u32, d: Option<u32>) -> Result<(), Error> {
    if !(-MAX_YEAR..=MAX_YEAR).contains(&f.year) {
        return Err(Error::new(0, ErrorKind::YearOutOfRange));
    }
    if !(1..=12).contains(&m) {
        return Err(Error::new(f.month_pos, ErrorKind::MonthOutOfRange));
    }
    if let Some(d) = d {
        if d == 0 || d > days_in_month(f.year, m) {
            return Err(Error::new(f.month_pos + 3, ErrorKind::DayOutOfRange));
        }
    }
    Ok(())
}

/// `DateFormatters.from(accessor, Locale.ROOT, UTC).toInstant()`. Errors here are *not*
/// parse failures: the combined format does not fall back to `epoch_millis` any more.
pub(crate) fn to_instant(f: &Fields) -> Result<Instant, Error> {
    // TemporalQueries.zone(): the zone id if any, else the `+HHmm` offset, else UTC.
    let zone = match (f.zone, f.offset) {
        (Some(z), _) => z,
        (None, Some((o, pos))) => {
            if o.abs() > MAX_OFFSET {
                return Err(Error::new(pos, ErrorKind::OffsetOutOfRange));
            }
            Zone::Fixed(o)
        }
        (None, None) => Zone::Fixed(0),
    };
    // The local date: a full date as given; with a time but no full date, the first of the
    // month, or 1970-01-01 when there is no month at all (java's getLocalDate); without a
    // time, the first day of the month or of the year.
    let (year, month, day) = match (f.month, f.day, f.time) {
        (Some(m), Some(d), _) => (f.year, m, d),
        (Some(m), None, _) => {
            check_date(f, m, None)?;
            (f.year, m, 1)
        }
        // The year is not used, but java still range-checks it (a DateTimeException).
        (None, _, Some(_)) => {
            if !(-MAX_YEAR..=MAX_YEAR).contains(&f.year) {
                return Err(Error::new(0, ErrorKind::YearOutOfRange));
            }
            (1970, 1, 1)
        }
        (None, _, None) => {
            if !(-MAX_YEAR..=MAX_YEAR).contains(&f.year) {
                return Err(Error::new(0, ErrorKind::YearOutOfRange));
            }
            (f.year, 1, 1)
        }
    };
    let secs_of_day = f.time.unwrap_or(0);
    let epoch_second = match zone {
        Zone::Fixed(off) => {
            days_from_civil(year, month, day) * 86_400 + secs_of_day as i64 - off as i64
        }
        Zone::Region(idx) => {
            zone::region_epoch_second(idx, year, month, day, secs_of_day, f.zone_pos)?
        }
    };
    Ok(Instant {
        epoch_second,
        nano: f.nano,
    })
}

/// `strict_date_optional_time` alone.
pub(crate) fn parse(s: &[u8]) -> Result<Instant, Error> {
    if let Some(v) = fast(s) {
        return Ok(v);
    }
    to_instant(&parse_fields(s)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general path alone (grammar, STRICT resolution, `DateFormatters.from`).
    fn general(s: &[u8]) -> Option<Instant> {
        parse_fields(s).and_then(|f| to_instant(&f)).ok()
    }

    /// Runs both fixed-shape fast paths (whichever fits the length), the whole hot path and
    /// the crate's entry points on `s`, and requires them to agree with the general path.
    /// `in_shape`: `s` has digits at every digit position and the literals elsewhere, so
    /// the fixed-shape path must accept it exactly when the general path does.
    fn check(s: &[u8], in_shape: bool) {
        let want = general(s);
        let shaped = match s.len() {
            24 => fixed::parse(s.try_into().unwrap(), &fixed::MILLIS_Z),
            20 => fixed::parse(s.try_into().unwrap(), &fixed::SECONDS_Z),
            _ => None,
        };
        let text = String::from_utf8_lossy(s);
        if let Some(v) = shaped {
            assert_eq!(Some(v), want, "fixed-shape path accepted {text:?}");
        }
        // The fixed shapes cover the years of the month table; others go on.
        let year = std::str::from_utf8(&s[..4])
            .ok()
            .and_then(|y| y.parse::<u32>().ok());
        if in_shape && year.is_some_and(|y| (1900..=2199).contains(&y)) {
            assert_eq!(shaped, want, "fixed-shape path vs general on {text:?}");
        }
        if let Some(v) = fast(s) {
            assert_eq!(Some(v), want, "hot path accepted {text:?}");
        }
        assert_eq!(parse(s).ok(), want, "{text:?}");
        // The combined format only adds epoch millis, which never matches these lengths
        // with a '-' or 'T' inside; compare the accepted value when the date matched.
        if want.is_some() {
            assert_eq!(crate::parse(s).ok(), want, "{text:?}");
        }
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A string of one of the two shapes; `plausible` draws fields mostly in range (with
    /// days up to 31 in every month, so invalid dates like 02-30 are frequent), otherwise
    /// every digit is uniform 0..=9.
    fn shaped(r: &mut Rng, millis: bool, plausible: bool) -> Vec<u8> {
        let mut s = if plausible {
            let year = match r.below(4) {
                0 => r.below(10_000),
                1 => [0, 1, 4, 100, 400, 1600, 1900, 2000, 2100, 2400, 9996, 9999]
                    [r.below(12) as usize],
                _ => 1900 + r.below(200),
            };
            format!(
                "{year:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                r.below(14),
                r.below(33),
                r.below(26),
                r.below(62),
                r.below(62)
            )
        } else {
            (0..19)
                .map(|k| match k {
                    4 | 7 => '-',
                    10 => 'T',
                    13 | 16 => ':',
                    _ => char::from(b'0' + r.below(10) as u8),
                })
                .collect()
        };
        if millis {
            s += &format!(".{:03}", r.below(1000));
        }
        s.push('Z');
        s.into_bytes()
    }

    #[test]
    fn fixed_shapes_match_general_path_on_random_inputs() {
        let mut r = Rng(0x2545_F491_4F6C_DD1D);
        for i in 0..400_000 {
            let s = shaped(&mut r, i % 2 == 0, i % 4 < 2 || i % 8 == 7);
            check(&s, true);
        }
    }

    /// The other shapes of the hot path: date only, or date-time with 0..=10 fraction
    /// digits and `Z`, `±HH:MM` (sometimes out of range) or nothing; every one also with
    /// each byte mutated once.
    #[test]
    fn hot_path_matches_general_path_on_random_inputs() {
        let mut r = Rng(0xD1B5_4A32_D192_ED03);
        for i in 0..100_000 {
            let mut s = shaped(&mut r, false, i % 2 == 0);
            s.pop(); // the 'Z'
            if i % 10 == 0 {
                s.truncate(10);
            } else {
                if r.below(3) > 0 {
                    s.push(b'.');
                    for _ in 0..r.below(11) {
                        s.push(b'0' + r.below(10) as u8);
                    }
                }
                match r.below(3) {
                    0 => s.push(b'Z'),
                    1 => s.extend_from_slice(
                        format!(
                            "{}{:02}:{:02}",
                            if r.below(2) == 0 { '+' } else { '-' },
                            r.below(20),
                            r.below(62)
                        )
                        .as_bytes(),
                    ),
                    _ => {}
                }
            }
            check(&s, false);
            let pos = r.below(s.len() as u64) as usize;
            s[pos] = r.next() as u8;
            check(&s, false);
        }
    }

    #[test]
    fn fixed_shapes_match_general_path_on_every_single_byte_mutation() {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        let mut bases: Vec<Vec<u8>> = vec![
            b"2023-01-01T23:38:34.000Z".to_vec(),
            b"2023-01-01T23:38:34Z".to_vec(),
            b"2024-02-29T00:00:00.999Z".to_vec(),
            b"2000-02-29T23:59:59Z".to_vec(),
            b"1900-02-28T12:00:00.500Z".to_vec(),
            b"0000-01-01T00:00:00.000Z".to_vec(),
            b"9999-12-31T23:59:59Z".to_vec(),
        ];
        for i in 0..60 {
            bases.push(shaped(&mut r, i % 2 == 0, true));
        }
        for base in &bases {
            for pos in 0..base.len() {
                for b in 0..=255u8 {
                    let mut s = base.clone();
                    s[pos] = b;
                    check(&s, false);
                }
            }
            // One byte short, one byte more, and the other shape's length.
            check(&base[..base.len() - 1], false);
            for b in [b'0', b'Z', b'z', b'+', b' '] {
                let mut s = base.clone();
                s.push(b);
                check(&s, false);
            }
        }
    }

    #[test]
    fn fixed_shapes_match_general_path_on_calendar_and_clock_edges() {
        for year in [
            0, 1, 3, 4, 99, 100, 400, 1582, 1900, 1970, 2000, 2023, 2024, 2100, 9999,
        ] {
            for month in 0..=13 {
                for day in 0..=32 {
                    for t in ["00:00:00", "23:59:59", "24:00:00", "23:60:00", "23:59:60"] {
                        let base = format!("{year:04}-{month:02}-{day:02}T{t}");
                        check(format!("{base}Z").as_bytes(), true);
                        check(format!("{base}.123Z").as_bytes(), true);
                    }
                }
            }
        }
        for h in 0..100 {
            for m in [0, 9, 10, 59, 60, 99] {
                for sec in [0, 59, 60, 99] {
                    let s = format!("2023-06-15T{h:02}:{m:02}:{sec:02}");
                    check(format!("{s}Z").as_bytes(), true);
                    check(format!("{s}.000Z").as_bytes(), true);
                }
            }
        }
    }
}

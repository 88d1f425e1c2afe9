//! Zone and offset parsing, mirroring java.time's `appendZoneOrOffsetId()` followed by
//! OpenSearch's optional `+HHmm` offset (`TIME_ZONE_FORMATTER_NO_COLON`).
//!
//! Only reached on the slow path; the hot path handles `Z` and `+HH:MM` itself.

use crate::error::{Error, ErrorKind};
use crate::zone_ids::JAVA_ZONE_IDS;

/// The zone a string named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Zone {
    /// A fixed offset in seconds east of UTC (`Z`, `+01:00`, `UTC+01:00`, `GMT`, ...).
    Fixed(i32),
    /// A region id: index into [`JAVA_ZONE_IDS`].
    Region(u16),
}

/// Outcome of an optional parser: it matched up to a position, or it did not match (and the
/// enclosing optional section is rolled back), or it threw (the whole parse fails; java.time
/// throws `DateTimeException` for offset hours above 23).
pub(crate) enum Step<T> {
    Match(T, usize),
    NoMatch,
}

const MAX_OFFSET: i32 = 18 * 3600;

#[inline]
fn two_digits(s: &[u8], i: usize) -> Option<u32> {
    match (s.get(i), s.get(i + 1)) {
        (Some(a @ b'0'..=b'9'), Some(b @ b'0'..=b'9')) => {
            Some(u32::from(a - b'0') * 10 + u32::from(b - b'0'))
        }
        _ => None,
    }
}

/// java.time `OffsetIdPrinterParser("+HH:MM:ss", ..)` in strict mode, at a sign.
/// Returns the offset in seconds (unchecked against +-18h) and the end position.
fn offset_hh_colon_mm_ss(s: &[u8], i: usize) -> Result<Step<i32>, Error> {
    let neg = match s.get(i) {
        Some(b'+') => false,
        Some(b'-') => true,
        _ => return Ok(Step::NoMatch),
    };
    let Some(h) = two_digits(s, i + 1).filter(|&v| v <= 59) else {
        return Ok(Step::NoMatch);
    };
    // Minutes are mandatory and need the colon.
    let Some(m) = (s.get(i + 3) == Some(&b':'))
        .then(|| two_digits(s, i + 4))
        .flatten()
        .filter(|&v| v <= 59)
    else {
        return Ok(Step::NoMatch);
    };
    let mut end = i + 6;
    let mut sec = 0;
    if s.get(end) == Some(&b':') {
        if let Some(v) = two_digits(s, end + 1).filter(|&v| v <= 59) {
            sec = v;
            end += 3;
        }
    }
    if h > 23 {
        return Err(Error::new(i, ErrorKind::OffsetOutOfRange));
    }
    let total = (h * 3600 + m * 60 + sec) as i32;
    Ok(Step::Match(if neg { -total } else { total }, end))
}

/// java.time `ZoneIdPrinterParser` (what `appendZoneOrOffsetId()` parses), case-sensitive.
pub(crate) fn zone_or_offset_id(s: &[u8], i: usize) -> Result<Step<Zone>, Error> {
    let Some(&c) = s.get(i) else {
        return Ok(Step::NoMatch);
    };
    if c == b'+' || c == b'-' {
        return Ok(match offset_hh_colon_mm_ss(s, i)? {
            Step::Match(off, end) if off.abs() <= MAX_OFFSET => Step::Match(Zone::Fixed(off), end),
            _ => Step::NoMatch,
        });
    }
    if s.len() >= i + 2 {
        let c2 = s[i + 1];
        if c == b'U' && c2 == b'T' {
            let prefix_end = if s.get(i + 2) == Some(&b'C') {
                i + 3
            } else {
                i + 2
            };
            return prefixed_offset(s, prefix_end);
        }
        if c == b'G' && c2 == b'M' && s.get(i + 2) == Some(&b'T') {
            if s.get(i + 3) == Some(&b'0') {
                // "GMT0" is its own (fixed, zero) zone id.
                return Ok(Step::Match(Zone::Fixed(0), i + 4));
            }
            return prefixed_offset(s, i + 3);
        }
    }
    if let Some((idx, end)) = longest_region_id(&s[i..]) {
        return Ok(Step::Match(Zone::Region(idx), i + end));
    }
    if c == b'Z' {
        return Ok(Step::Match(Zone::Fixed(0), i + 1));
    }
    Ok(Step::NoMatch)
}

/// After `UT`, `UTC` or `GMT`: an optional `+HH:MM[:ss]` (java's `parseOffsetBased`). A
/// prefix alone is a zero-offset zone; a following `0` or `Z` is not consumed.
fn prefixed_offset(s: &[u8], q: usize) -> Result<Step<Zone>, Error> {
    match s.get(q) {
        None | Some(b'0') | Some(b'Z') => Ok(Step::Match(Zone::Fixed(0), q)),
        Some(_) => match offset_hh_colon_mm_ss(s, q)? {
            Step::Match(off, end) if off.abs() <= MAX_OFFSET => {
                Ok(Step::Match(Zone::Fixed(off), end))
            }
            // Out of +-18h: java's ZoneOffset.ofTotalSeconds throws, caught as "no match".
            Step::Match(..) => Ok(Step::NoMatch),
            Step::NoMatch => Ok(Step::Match(Zone::Fixed(0), q)),
        },
    }
}

/// Longest java region id that `s` starts with (java's prefix tree does longest match).
fn longest_region_id(s: &[u8]) -> Option<(u16, usize)> {
    // Ids are at most ~32 bytes; try the longest candidate length first.
    let max = s.len().min(40);
    for len in (1..=max).rev() {
        let cand = &s[..len];
        if let Ok(idx) = JAVA_ZONE_IDS.binary_search_by(|id| id.as_bytes().cmp(cand)) {
            return Some((idx as u16, len));
        }
    }
    None
}

/// OpenSearch's `TIME_ZONE_FORMATTER_NO_COLON`: `appendOffset("+HHmm", "Z")`, strict.
/// Returns offset seconds, unchecked against +-18h (java checks that later, if at all).
pub(crate) fn offset_no_colon(s: &[u8], i: usize) -> Result<Step<i32>, Error> {
    let neg = match s.get(i) {
        Some(b'Z') => return Ok(Step::Match(0, i + 1)),
        Some(b'+') => false,
        Some(b'-') => true,
        _ => return Ok(Step::NoMatch),
    };
    let Some(h) = two_digits(s, i + 1).filter(|&v| v <= 59) else {
        return Ok(Step::NoMatch);
    };
    let mut end = i + 3;
    let mut m = 0;
    if let Some(v) = two_digits(s, end).filter(|&v| v <= 59) {
        m = v;
        end += 2;
    }
    if h > 23 {
        return Err(Error::new(i, ErrorKind::OffsetOutOfRange));
    }
    let total = (h * 3600 + m * 60) as i32;
    Ok(Step::Match(if neg { -total } else { total }, end))
}

enum SystemV {
    Fixed(i32),
    /// Standard offset; DST per the old US rule.
    UsOld(i32),
}

/// Offset in force for local seconds `local` (since the epoch, local time) in a
/// `SystemV/*DT` zone, with java's gap/overlap rule (both resolve to the offset before the
/// transition). DST runs from 02:00 standard time to 02:00 daylight time; from 1900 on
/// (java's "min" year), last Sunday of April to last Sunday of October, except the 1974
/// (January 6 to last Sunday of November) and 1975 (February 23 to last Sunday of October)
/// energy-crisis years.
fn system_v_offset(std: i32, year: i64, local: i64) -> i32 {
    use crate::civil::{days_from_civil, days_in_month};
    if year < 1900 {
        return std;
    }
    let last_sunday = |m: u32| {
        let last = days_from_civil(year, m, days_in_month(year, m));
        last - (last + 4).rem_euclid(7) // 1970-01-01 was a Thursday (4 with Sunday = 0)
    };
    let (start_day, end_day) = match year {
        1974 => (days_from_civil(1974, 1, 6), last_sunday(11)),
        1975 => (days_from_civil(1975, 2, 23), last_sunday(10)),
        _ => (last_sunday(4), last_sunday(10)),
    };
    // Spring: 02:00..03:00 local does not exist and keeps the standard offset; autumn:
    // 01:00..02:00 local is repeated and takes the earlier (daylight) offset.
    let start = start_day * 86_400 + 3 * 3600;
    let end = end_day * 86_400 + 2 * 3600;
    if (start..end).contains(&local) {
        std + 3600
    } else {
        std
    }
}

/// The `SystemV/*` ids: dropped from the IANA database in 2020b but still shipped by the
/// JDK. The fixed ones are plain offsets; the DST ones follow the old US rule, see
/// [`system_v_offset`].
fn system_v(name: &str) -> Option<SystemV> {
    let rest = name.strip_prefix("SystemV/")?;
    Some(match rest {
        "AST4" => SystemV::Fixed(-4 * 3600),
        "EST5" => SystemV::Fixed(-5 * 3600),
        "CST6" => SystemV::Fixed(-6 * 3600),
        "MST7" => SystemV::Fixed(-7 * 3600),
        "PST8" => SystemV::Fixed(-8 * 3600),
        "YST9" => SystemV::Fixed(-9 * 3600),
        "HST10" => SystemV::Fixed(-10 * 3600),
        "AST4ADT" => SystemV::UsOld(-4 * 3600),
        "EST5EDT" => SystemV::UsOld(-5 * 3600),
        "CST6CDT" => SystemV::UsOld(-6 * 3600),
        "MST7MDT" => SystemV::UsOld(-7 * 3600),
        "PST8PDT" => SystemV::UsOld(-8 * 3600),
        "YST9YDT" => SystemV::UsOld(-9 * 3600),
        _ => return None,
    })
}

/// `EST5EDT`, `CST6CDT`, `MST7MDT`, `PST8PDT` as the JDK's tzdb 2025a has them: links to
/// the city zones (differing from them before 1883, local mean time, and in the years a
/// city's DST differed from the federal rules).
fn legacy_link(name: &str) -> Option<&'static str> {
    Some(match name {
        "EST5EDT" => "America/New_York",
        "CST6CDT" => "America/Chicago",
        "MST7MDT" => "America/Denver",
        "PST8PDT" => "America/Los_Angeles",
        _ => return None,
    })
}

/// Seconds in a 400-year Gregorian cycle: it repeats both the calendar and the weekdays, so
/// shifting a local time by whole cycles keeps every tz rule (they are weekday based).
const CYCLE_SECS: i64 = 146_097 * 86_400;

/// UTC epoch second for a local date-time in a region, with java.time's
/// `ZonedDateTime.of` rule: in a gap the offset before the gap is used (the time moves
/// forward by the gap length), in an overlap the earlier offset. jiff calls this
/// "compatible" disambiguation. jiff's civil range is years -9999..=9999; outside it we
/// move by whole 400-year cycles, which is exact because tz rules repeat on that cycle.
pub(crate) fn region_epoch_second(
    idx: u16,
    year: i64,
    month: u32,
    day: u32,
    secs_of_day: u32,
    err_pos: usize,
) -> Result<i64, Error> {
    let unknown = Error::new(err_pos, ErrorKind::UnknownZone);
    let name = JAVA_ZONE_IDS.get(idx as usize).ok_or(unknown)?;
    let tz = match system_v(name) {
        Some(SystemV::Fixed(off)) => {
            let days = crate::civil::days_from_civil(year, month, day);
            return Ok(days * 86_400 + i64::from(secs_of_day) - i64::from(off));
        }
        Some(SystemV::UsOld(std)) => {
            let days = crate::civil::days_from_civil(year, month, day);
            let local = days * 86_400 + i64::from(secs_of_day);
            return Ok(local - i64::from(system_v_offset(std, year, local)));
        }
        // The JDK's tzdb (2025a) has these as links to the city zones (tzdb 2024b made
        // them links); the newer tzdb bundled by jiff defines them as zones of their own
        // again (fixed offset + US rules, no local mean time). Follow the JDK.
        None => jiff::tz::TimeZone::get(legacy_link(name).unwrap_or(name)).map_err(|_| unknown)?,
    };
    // Land well inside jiff's range ([-9599, -9200] or [9200, 9599]): its timestamp range
    // is a little narrower than its civil range, so the edges are avoided.
    let mut cycles = 0i64;
    let mut y = year;
    if y > 9599 {
        cycles = (y - 9200) / 400;
        y -= cycles * 400;
    } else if y < -9599 {
        cycles = -((-9200 - y) / 400);
        y -= cycles * 400;
    }
    let (h, rem) = (secs_of_day / 3600, secs_of_day % 3600);
    let dt = jiff::civil::DateTime::new(
        y as i16,
        month as i8,
        day as i8,
        h as i8,
        (rem / 60) as i8,
        (rem % 60) as i8,
        0,
    )
    .map_err(|_| unknown)?;
    let ts = tz
        .to_ambiguous_timestamp(dt)
        .compatible()
        .map_err(|_| unknown)?;
    Ok(ts.as_second() + cycles * CYCLE_SECS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sorted_for_binary_search() {
        assert!(JAVA_ZONE_IDS
            .windows(2)
            .all(|w| w[0].as_bytes() < w[1].as_bytes()));
    }

    #[test]
    fn every_java_id_is_in_jiff() {
        for id in JAVA_ZONE_IDS {
            assert!(
                system_v(id).is_some() || jiff::tz::TimeZone::get(id).is_ok(),
                "{id}"
            );
        }
    }

    #[test]
    fn longest_match() {
        let (i, n) = longest_region_id(b"Etc/GMT+10").unwrap();
        assert_eq!((JAVA_ZONE_IDS[i as usize], n), ("Etc/GMT+10", 10));
        let (i, n) = longest_region_id(b"Etc/GMT+1x").unwrap();
        assert_eq!((JAVA_ZONE_IDS[i as usize], n), ("Etc/GMT+1", 9));
        assert!(longest_region_id(b"Nowhere/Place").is_none());
    }
}

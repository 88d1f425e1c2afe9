//! `epoch_millis` as OpenSearch's `EpochTime.MILLIS_FORMATTER` parses it:
//!
//! ```text
//! ['-'] D{1,19} ['.' D{0,6}] ['.']      (value <= i64::MAX; no '+')
//! ```
//!
//! The fraction is nanoseconds of the millisecond; the trailing lone `.` comes from the
//! formatter's second parser (`MILLISECONDS_FORMATTER1` then a literal `.`). Negative values
//! are exact: `-1.5` is 1.5 ms before the epoch, i.e. second -1, nano 998,500,000.

use crate::error::{Error, ErrorKind};
use crate::Instant;

pub(crate) fn parse(s: &[u8]) -> Result<Instant, Error> {
    let n = s.len();
    if n == 0 {
        return Err(Error::new(0, ErrorKind::Empty));
    }
    let neg = s[0] == b'-';
    let mut i = usize::from(neg);
    let start = i;
    let mut v = 0u64; // 19 digits always fit in u64
    while i < n && i - start < 19 && s[i].is_ascii_digit() {
        v = v * 10 + u64::from(s[i] - b'0');
        i += 1;
    }
    if i == start {
        return Err(Error::new(i, ErrorKind::ExpectedDigit));
    }
    if v > i64::MAX as u64 {
        return Err(Error::new(start, ErrorKind::EpochOverflow));
    }
    let mut frac_ns = 0u64;
    if s.get(i) == Some(&b'.') {
        i += 1;
        let fs = i;
        while i < n && i - fs < 6 && s[i].is_ascii_digit() {
            frac_ns = frac_ns * 10 + u64::from(s[i] - b'0');
            i += 1;
        }
        frac_ns *= 10u64.pow(6 - (i - fs) as u32);
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
    }
    if i != n {
        return Err(Error::new(i, ErrorKind::TrailingInput));
    }
    let mut total = i128::from(v) * 1_000_000 + i128::from(frac_ns);
    if neg {
        total = -total;
    }
    Ok(Instant {
        epoch_second: total.div_euclid(1_000_000_000) as i64,
        nano: total.rem_euclid(1_000_000_000) as u32,
    })
}

//! Exact, fast parsing of Elasticsearch / OpenSearch date strings.
//!
//! A `date` field with the default mapping accepts `strict_date_optional_time||epoch_millis`.
//! Both engines (OpenSearch 2.19, Elasticsearch 7.10) implement that with java.time
//! formatters plus `DateFormatters.from(..)`, and that code has corners nobody would guess
//! (`2023T10` is 1970-01-01T10:00Z, `-1234` is the year -1234 but `-123` is -123 ms,
//! `10:00UTC+01` is UTC, `10:00ZZ` parses). This crate reproduces that behaviour byte for
//! byte, checked against the engine's own code by a differential oracle
//! (`launcher/dateoracle`, `tests/differential.rs`), so a client can compute the instant the
//! engine will store, or reject what the engine would reject, without a round trip.
//!
//! Design: hand-written hot paths for the overwhelmingly common shapes, and a general path
//! that follows java.time's grammar step by step for everything else. The two fixed UTC
//! shapes `YYYY-MM-DDTHH:MM:SS.sssZ` (24 bytes) and `YYYY-MM-DDTHH:MM:SSZ` (20 bytes), and
//! `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn±HH:MM` (35 bytes), are checked byte by byte against their
//! pattern, digit pairs combined and hour, month and day ranges checked in SSE2 registers
//! with one branch (`fixed`), then a few multiplies and one load from a table of months
//! (1900..=2199, days before the month and its length, so Feb 29 is checked for free) give
//! the instant. The other `YYYY-MM-DDTHH:MM:SS[.f{1,9}]` +
//! `Z`/`±HH:MM` shapes take SWAR digit checks and the same table. No allocation; anything a
//! hot path refuses goes to the general path, which gives the exact result or error.
//! Named zones (`Europe/Paris`) use the tz database bundled by `jiff`.
//!
//! ```
//! use isodate::{parse, Instant};
//! assert_eq!(parse(b"2023-01-01T23:38:34.000Z"), Ok(Instant { epoch_second: 1_672_616_314, nano: 0 }));
//! assert_eq!(parse(b"1234"), Ok(Instant { epoch_second: -23_225_875_200, nano: 0 })); // a year
//! assert_eq!(parse(b"12345"), Ok(Instant { epoch_second: 12, nano: 345_000_000 })); // millis
//! assert!(parse(b"2023-02-29").is_err());
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod civil;
mod date;
mod epoch;
mod error;
mod fixed;
mod zone;
mod zone_ids;

use core::fmt;
use core::str::FromStr;
use std::io::{self, Write};

pub use error::{Error, ErrorKind};

/// A point on the UTC time line, like `java.time.Instant`: seconds since 1970-01-01T00:00Z
/// (negative before) and a nanosecond adjustment that is always `0..1_000_000_000`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    /// Seconds since the epoch, floor-rounded (so `nano` is never negative).
    pub epoch_second: i64,
    /// Nanoseconds within the second, `0..=999_999_999`.
    pub nano: u32,
}

impl Instant {
    /// Milliseconds since the epoch, rounded towards negative infinity, as
    /// `Instant.toEpochMilli()` (what a millisecond `date` field stores). `None` on overflow.
    pub fn to_epoch_millis(self) -> Option<i64> {
        let millis = i64::from(self.nano / 1_000_000);
        if self.epoch_second < 0 && self.nano > 0 {
            // As java does: the same value, without overflowing on the way for the earliest
            // millisecond (`Long.MIN_VALUE` is -9223372036854775.808 s).
            (self.epoch_second + 1)
                .checked_mul(1000)?
                .checked_add(millis - 1000)
        } else {
            self.epoch_second.checked_mul(1000)?.checked_add(millis)
        }
    }

    /// This instant clamped to what a millisecond `date` field can hold,
    /// [`DATE_FIELD_MIN`]..=[`DATE_FIELD_MAX`], as the engine does before storing
    /// (`DateFieldMapper.Resolution.MILLISECONDS.clampToValidRange`, i.e.
    /// `DateUtils.clampToMillisRange`). Parsing stays exact; this is the field's own step.
    pub fn clamp_to_millis_range(self) -> Instant {
        self.clamp(DATE_FIELD_MIN, DATE_FIELD_MAX)
    }

    /// What a millisecond `date` field stores for this instant:
    /// `DateFieldMapper.Resolution.MILLISECONDS.convert(instant)`, the instant clamped to
    /// [`Instant::clamp_to_millis_range`] and then floored to milliseconds. Years beyond
    /// about ±292 million become `i64::MIN` / `i64::MAX`.
    pub fn to_date_field_millis(self) -> i64 {
        let clamped = self.clamp_to_millis_range();
        // Cannot overflow inside the range; the fallback only keeps this free of panics.
        clamped
            .to_epoch_millis()
            .unwrap_or(if clamped.epoch_second < 0 {
                i64::MIN
            } else {
                i64::MAX
            })
    }
}

/// The earliest instant a millisecond `date` field holds: `Instant.ofEpochMilli(Long.MIN_VALUE)`.
pub const DATE_FIELD_MIN: Instant = Instant {
    epoch_second: -9_223_372_036_854_776,
    nano: 192_000_000,
};

/// The latest instant a millisecond `date` field holds: `Instant.ofEpochMilli(Long.MAX_VALUE)`.
pub const DATE_FIELD_MAX: Instant = Instant {
    epoch_second: 9_223_372_036_854_775,
    nano: 807_000_000,
};

/// The date formats this crate implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// `strict_date_optional_time||epoch_millis`: the default mapping of a `date` field.
    /// The date format is tried first, so `2023` is a year, `12345` is milliseconds.
    #[default]
    StrictDateOptionalTimeOrEpochMillis,
    /// `strict_date_optional_time` alone.
    StrictDateOptionalTime,
    /// `epoch_millis` alone.
    EpochMillis,
}

impl Format {
    /// The engine's name for this format.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::StrictDateOptionalTimeOrEpochMillis => {
                "strict_date_optional_time||epoch_millis"
            }
            Format::StrictDateOptionalTime => "strict_date_optional_time",
            Format::EpochMillis => "epoch_millis",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name this crate does not implement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported date format {:?}: expected one of \"strict_date_optional_time||epoch_millis\", \
             \"strict_date_optional_time\", \"epoch_millis\"",
            self.0
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "strict_date_optional_time||epoch_millis" => {
                Ok(Format::StrictDateOptionalTimeOrEpochMillis)
            }
            "strict_date_optional_time" => Ok(Format::StrictDateOptionalTime),
            "epoch_millis" => Ok(Format::EpochMillis),
            other => Err(UnknownFormat(other.to_owned())),
        }
    }
}

/// Parses with the default `date` mapping format, `strict_date_optional_time||epoch_millis`.
///
/// The result is the instant the engine computes before truncating to its field
/// resolution (use [`Instant::to_epoch_millis`] for a `date` field).
#[inline]
pub fn parse(input: &[u8]) -> Result<Instant, Error> {
    // The hot path only accepts date-shaped input, which epoch_millis never accepts, so
    // trying it first cannot change which format wins.
    if let Some(v) = date::fast(input) {
        return Ok(v);
    }
    parse_slow(input)
}

#[cold]
fn parse_slow(input: &[u8]) -> Result<Instant, Error> {
    // Five leading digits can never be a strict_date_optional_time (an unsigned year has
    // exactly four), so epoch millis like `1700000000000` skip the date grammar.
    if input.len() > 4 && input[..5].iter().all(u8::is_ascii_digit) {
        if let Ok(v) = epoch::parse(input) {
            return Ok(v);
        }
    }
    match date::parse_fields(input) {
        // Once the date format matched, errors from filling in the instant are final (the
        // engine does not try the next format then: `-1234567890` is an invalid year, not
        // milliseconds).
        Ok(fields) => date::to_instant(&fields),
        Err(date_err) => epoch::parse(input).map_err(|epoch_err| {
            // Report the alternative that got further; on a tie, when the date format did
            // not get past the year, the input was most likely meant as a number.
            let date_stuck_in_year = matches!(
                date_err.kind,
                ErrorKind::InvalidYear | ErrorKind::ExpectedDigit
            ) && matches!(input.first(), Some(b'0'..=b'9' | b'-'));
            if epoch_err.pos > date_err.pos || (epoch_err.pos == date_err.pos && date_stuck_in_year)
            {
                epoch_err
            } else {
                date_err
            }
        }),
    }
}

/// Parses with `strict_date_optional_time` only.
#[inline]
pub fn parse_strict_date_optional_time(input: &[u8]) -> Result<Instant, Error> {
    date::parse(input)
}

/// Parses with `epoch_millis` only: `[-]digits[.fraction]`, see the module docs of the
/// crate for the exact grammar.
pub fn parse_epoch_millis(input: &[u8]) -> Result<Instant, Error> {
    epoch::parse(input)
}

/// Parses `input` with `format`.
#[inline]
pub fn parse_with_format(format: Format, input: &[u8]) -> Result<Instant, Error> {
    match format {
        Format::StrictDateOptionalTimeOrEpochMillis => parse(input),
        Format::StrictDateOptionalTime => parse_strict_date_optional_time(input),
        Format::EpochMillis => parse_epoch_millis(input),
    }
}

/// Writes one result line: `<epoch_second> <nano_of_second>\n`, or `error\n`.
///
/// This is the line format of the differential oracle and of `searchbench dates parse`;
/// keep it stable.
pub fn write_line(result: &Result<Instant, Error>, out: &mut impl Write) -> io::Result<()> {
    match result {
        Ok(i) => writeln!(out, "{} {}", i.epoch_second, i.nano),
        Err(_) => out.write_all(b"error\n"),
    }
}

/// The region zone ids java.time accepts (sorted), as captured from the JDK the oracle ran
/// on. Exposed for test generators and for listing in a CLI.
pub fn java_zone_ids() -> &'static [&'static str] {
    zone_ids::JAVA_ZONE_IDS
}

#[doc(hidden)]
pub mod testgen;

//! The parse error: where (byte offset) and why.

use core::fmt;

/// Why a date string was rejected.
///
/// The variants describe the first thing that went wrong in the grammar, or the calendar /
/// range check that failed after the grammar matched. They are kept coarse on purpose: the
/// engines only say "failed to parse date field", so anything finer is a help to the user,
/// not a contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input is empty (the engines refuse empty dates explicitly).
    Empty,
    /// A year was expected: 4 digits, or a sign and up to 10 digits.
    InvalidYear,
    /// Digits were expected here.
    ExpectedDigit,
    /// The grammar matched a prefix; these bytes are left over.
    TrailingInput,
    /// Month is not 1..=12.
    MonthOutOfRange,
    /// Day does not exist in that month (leap years included).
    DayOutOfRange,
    /// Hour is not 0..=23 (`24:00` is refused by java.time's STRICT resolver).
    HourOutOfRange,
    /// Minute is not 0..=59.
    MinuteOutOfRange,
    /// Second is not 0..=59 (no leap seconds).
    SecondOutOfRange,
    /// The year is outside java.time's range (-999,999,999..=999,999,999).
    YearOutOfRange,
    /// A zone offset beyond +-18:00 or with an hour above 23.
    OffsetOutOfRange,
    /// A named zone that java.time knows but the bundled tz database does not.
    UnknownZone,
    /// An epoch number that does not fit a signed 64-bit integer.
    EpochOverflow,
}

impl ErrorKind {
    fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Empty => "empty input",
            ErrorKind::InvalidYear => "expected a year (4 digits, or a sign and up to 10 digits)",
            ErrorKind::ExpectedDigit => "expected a digit",
            ErrorKind::TrailingInput => "unexpected trailing input",
            ErrorKind::MonthOutOfRange => "month out of range 1..=12",
            ErrorKind::DayOutOfRange => "day out of range for the month",
            ErrorKind::HourOutOfRange => "hour out of range 0..=23",
            ErrorKind::MinuteOutOfRange => "minute out of range 0..=59",
            ErrorKind::SecondOutOfRange => "second out of range 0..=59",
            ErrorKind::YearOutOfRange => "year out of range -999999999..=999999999",
            ErrorKind::OffsetOutOfRange => "zone offset out of range -18:00..=+18:00",
            ErrorKind::UnknownZone => "zone id not in the bundled tz database",
            ErrorKind::EpochOverflow => "epoch number does not fit in 64 bits",
        }
    }
}

/// A rejected input: the byte offset where parsing stopped and the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Error {
    /// Byte offset into the input (0-based). For range errors, the start of the field.
    pub pos: usize,
    /// Why.
    pub kind: ErrorKind,
}

impl Error {
    #[inline]
    pub(crate) const fn new(pos: usize, kind: ErrorKind) -> Self {
        Error { pos, kind }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.as_str(), self.pos)
    }
}

impl std::error::Error for Error {}

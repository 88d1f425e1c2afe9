//! Proleptic Gregorian calendar arithmetic (the calendar java.time uses for every year).

/// Days in each month of a common year.
const DAYS_IN_MONTH: [u8; 13] = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

#[inline(always)]
pub(crate) fn is_leap(year: i64) -> bool {
    // `year & 3` is right for negative years too in two's complement.
    (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Number of days in `month` (1..=12) of `year`. `month` must already be checked.
#[inline(always)]
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    let d = DAYS_IN_MONTH[(month & 15) as usize % 13] as u32;
    if month == 2 && is_leap(year) {
        29
    } else {
        d
    }
}

/// Days since 1970-01-01 for a valid date, any year java.time accepts.
///
/// Howard Hinnant's `days_from_civil`: shift the year so it starts in March, which puts the
/// leap day last, then count whole 400-year eras. All in i64, so the full +-999,999,999
/// range works without overflow.
#[inline]
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = year - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // 0..=399
    let mp = if month > 2 { month - 3 } else { month + 9 } as i64; // March = 0
    let doy = (153 * mp + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Same as [`days_from_civil`] for the hot path: years 0..=9999 only, in u32, no division
/// by a variable and no sign handling. Adding 400 years keeps the shifted year positive
/// for year 0 in January/February; the 400-year cycle (146,097 days) is subtracted back.
#[inline(always)]
pub(crate) fn days_from_civil_fast(year: u32, month: u32, day: u32) -> i64 {
    // Days before the 1st of each month, counting from March (index = month 1..=12).
    const DAYS_BEFORE: [u32; 13] = [0, 306, 337, 0, 31, 61, 92, 122, 153, 184, 214, 245, 275];
    let y = year + 400 - u32::from(month <= 2);
    let c = y / 100; // one multiply-high; y / 400 is then a shift
    let days = 365 * y + (y >> 2) - c + (c >> 2) + DAYS_BEFORE[(month & 15) as usize % 13] + day;
    days as i64 - (719_468 + 146_097 + 1)
}

/// First year of [`YEAR_MONTHS`].
const YEAR_BASE: u32 = 1900;

/// For year `YEAR_BASE + i` and month `m` (0..=15), entry `16 * i + m`: the days from
/// 1970-01-01 to the last day before the 1st of that month, shifted left by 5, plus the
/// length of the month; 0 (length 0: every day is refused) for the months 0 and 13..=15.
/// One year is one 64-byte cache line, so real data (a few distinct years) touches a few
/// lines of the 16 KiB. A `const` rather than a `static`: the hot path is inlined into the
/// caller's crate, and a `static` there is reached through the GOT (one more dependent load).
const YEAR_MONTHS: [i32; 256 * 16] = {
    let mut t = [0i32; 256 * 16];
    let mut i = 0;
    while i < 256 {
        let y = (YEAR_BASE + i as u32) as i64;
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        // Days from 0001-01-01 to Jan 1 of y (every year here is positive), minus 1970's.
        let p = y - 1;
        let mut before = 365 * p + p / 4 - p / 100 + p / 400 - 719_162;
        let mut m = 1;
        while m <= 12 {
            let len = if m == 2 && leap {
                29
            } else {
                DAYS_IN_MONTH[m] as i64
            };
            t[i * 16 + m] = (((before - 1) << 5) | len) as i32;
            before += len;
            m += 1;
        }
        i += 1;
    }
    t
};

/// Days since 1970-01-01 for a year 0..=9999, a month 0..=99 and a day 0..=99, or `None`
/// when the date does not exist (month 0 or above 12, day 0 or past the month's end, Feb
/// 29 of a common year). Years 1900..=2155 take one table load; others go through
/// [`days_from_civil_fast`].
#[inline(always)]
pub(crate) fn days_checked(year: u32, month: u32, day: u32) -> Option<i64> {
    let yi = year.wrapping_sub(YEAR_BASE);
    if yi >= 256 || month > 12 {
        return days_checked_far(year, month, day);
    }
    let e = YEAR_MONTHS[(yi * 16 + month) as usize];
    if day.wrapping_sub(1) >= (e & 31) as u32 {
        return None;
    }
    Some(i64::from((e >> 5) + day as i32))
}

#[cold]
#[inline(never)]
fn days_checked_far(year: u32, month: u32, day: u32) -> Option<i64> {
    if month.wrapping_sub(1) >= 12 || day.wrapping_sub(1) >= days_in_month(i64::from(year), month) {
        return None;
    }
    Some(days_from_civil_fast(year, month, day))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_and_known_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(0, 1, 1), -719_528);
        assert_eq!(days_from_civil(-1, 12, 31), -719_529);
        assert_eq!(days_from_civil(9999, 12, 31), 2_932_896);
    }

    #[test]
    fn fast_matches_general_for_every_day_0000_to_9999() {
        let mut expect = days_from_civil(0, 1, 1);
        for y in 0..=9999u32 {
            for m in 1..=12u32 {
                for d in 1..=days_in_month(y as i64, m) {
                    assert_eq!(days_from_civil(y as i64, m, d), expect);
                    assert_eq!(days_from_civil_fast(y, m, d), expect, "{y}-{m}-{d}");
                    expect += 1;
                }
            }
        }
    }

    #[test]
    fn days_checked_matches_general_for_every_year_month_day() {
        let check = |y: u32, m: u32, d: u32| {
            let valid = (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y as i64, m);
            let want = valid.then(|| days_from_civil(y as i64, m, d));
            assert_eq!(days_checked(y, m, d), want, "{y}-{m}-{d}");
        };
        for y in 0..=9999u32 {
            for m in 0..=15u32 {
                for d in 0..=33u32 {
                    check(y, m, d);
                }
            }
        }
        for y in [0, 1899, 1900, 1904, 2000, 2024, 2100, 2155, 2156, 9999] {
            for m in 0..=99u32 {
                for d in 0..=99u32 {
                    check(y, m, d);
                }
            }
        }
    }

    #[test]
    fn leap_years() {
        assert!(is_leap(2000) && is_leap(2024) && is_leap(0) && is_leap(-4) && is_leap(-400));
        assert!(!is_leap(1900) && !is_leap(2023) && !is_leap(-100) && !is_leap(-1));
    }
}

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

/// First year of [`MONTHS`].
const YEAR_BASE: u32 = 1900;
/// Years in [`MONTHS`]: 1900..=2199.
const YEARS: u32 = 300;
/// Slots per year in [`MONTHS`]: months 0..=19, every value a two-digit month whose first
/// digit is 0 or 1 can take, so a [`month_key`] of such a month never reaches the next year.
pub(crate) const MONTH_SLOTS: u32 = 20;

/// `year * 20 + month`: the index of a (year, month) in [`MONTHS`] before subtracting the
/// table's first year. The hot path computes it straight from the digits with one multiply.
#[inline(always)]
pub(crate) const fn month_key(year: u32, month: u32) -> u32 {
    year * MONTH_SLOTS + month
}

/// For year `YEAR_BASE + i` and month `m` (0..=19), entry `20 * i + m`: `B << 6 | 32 |
/// len`, where `B` is the days from 1970-01-01 to the last day before the 1st of that
/// month and `len` the month's length; [`NO_MONTH`] for the months 0 and 13..=19. See
/// [`days_before`] for why. Real data (a few distinct years) touches a few 80-byte rows
/// of the 24 KiB. A `const` rather than a `static`: the hot path is inlined into the
/// caller's crate, and a `static` there is reached through the GOT (one more dependent
/// load).
#[allow(clippy::large_const_arrays)] // see above: a `static` costs a GOT load here
const MONTHS: [i32; (YEARS * MONTH_SLOTS) as usize] = {
    let mut t = [NO_MONTH; (YEARS * MONTH_SLOTS) as usize];
    let mut i = 0;
    while i < YEARS as usize {
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
            t[i * MONTH_SLOTS as usize + m] = (((before - 1) << 6) | 32 | len) as i32;
            before += len;
            m += 1;
        }
        i += 1;
    }
    t
};

/// The entry of a slot that is not a month: `31 - day` never has bit 5 set.
const NO_MONTH: i32 = 31;

/// The [`MONTHS`] entry of a [`month_key`], or `None` when its year is outside
/// 1900..=2199.
#[inline(always)]
pub(crate) fn month_entry(key: u32) -> Option<i32> {
    MONTHS
        .get(key.wrapping_sub(YEAR_BASE * MONTH_SLOTS) as usize)
        .copied()
}

/// Days from 1970-01-01 to the day before `day` (1..=31) of the month of `entry` (from
/// [`month_entry`]), or `None` when the month has no such day. One subtraction does both:
/// `32 + len - day` stays in 32..=63 (bit 5 set, no borrow out of the low 6 bits) exactly
/// when `day <= len`, so the check is one bit and `B` is the rest, shifted.
#[inline(always)]
pub(crate) fn days_before(entry: i32, day: u32) -> Option<i64> {
    let r = entry - day as i32;
    (r & 32 != 0).then_some(i64::from(r >> 6))
}

/// Days since 1970-01-01 for a year 0..=9999, a month 0..=99 and a day 0..=99, or `None`
/// when the date does not exist (month 0 or above 12, day 0 or past the month's end, Feb
/// 29 of a common year). Years 1900..=2199 take one table load; others go through
/// [`days_from_civil_fast`].
#[inline(always)]
pub(crate) fn days_checked(year: u32, month: u32, day: u32) -> Option<i64> {
    if day.wrapping_sub(1) >= 31 {
        return None;
    }
    match month_entry(month_key(year, month)) {
        Some(e) if month < MONTH_SLOTS => Some(days_before(e, day)? + i64::from(day)),
        _ => days_checked_far(year, month, day),
    }
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
            for m in 0..=21u32 {
                for d in 0..=33u32 {
                    check(y, m, d);
                }
            }
        }
        for y in [
            0, 1899, 1900, 1904, 2000, 2024, 2100, 2155, 2156, 2199, 2200, 9999,
        ] {
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

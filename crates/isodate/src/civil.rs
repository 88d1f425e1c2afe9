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
    fn leap_years() {
        assert!(is_leap(2000) && is_leap(2024) && is_leap(0) && is_leap(-4) && is_leap(-400));
        assert!(!is_leap(1900) && !is_leap(2023) && !is_leap(-100) && !is_leap(-1));
    }
}

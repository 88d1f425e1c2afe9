//! Unit-level behaviour of the public API. Every expectation here was checked against the
//! oracle (OpenSearch 2.19.1 on OpenJDK 17); the differential test covers the rest.

use isodate::{
    parse, parse_epoch_millis, parse_strict_date_optional_time, parse_with_format, write_line,
    Error, ErrorKind, Format, Instant,
};

fn ok(s: &str) -> (i64, u32) {
    match parse(s.as_bytes()) {
        Ok(i) => (i.epoch_second, i.nano),
        Err(e) => panic!("{s:?} should parse: {e}"),
    }
}

fn err(s: &str) -> Error {
    match parse(s.as_bytes()) {
        Ok(i) => panic!("{s:?} should fail, got {i:?}"),
        Err(e) => e,
    }
}

#[test]
fn reference_strings() {
    assert_eq!(ok("2023-01-01T23:38:34.000Z"), (1_672_616_314, 0));
    assert_eq!(
        ok("2023-11-04T21:38:47.605716183+01:00"),
        (1_699_130_327, 605_716_183)
    );
}

#[test]
fn every_date_shape() {
    assert_eq!(ok("2023"), (1_672_531_200, 0));
    assert_eq!(ok("2023-05"), (1_682_899_200, 0));
    assert_eq!(ok("2023-05-01"), (1_682_899_200, 0));
    assert_eq!(ok("2023-01-01T"), (1_672_531_200, 0));
    assert_eq!(ok("2023-01-01T10"), (1_672_567_200, 0));
    assert_eq!(ok("2023-01-01T10:00"), (1_672_567_200, 0));
    assert_eq!(ok("2023-01-01T10:00:00"), (1_672_567_200, 0));
    assert_eq!(ok("2023-01-01T10:00:00.5"), (1_672_567_200, 500_000_000));
    assert_eq!(ok("2023-01-01T10:00:00,5"), (1_672_567_200, 500_000_000));
    assert_eq!(
        ok("2023-01-01T10:00:00.123456789"),
        (1_672_567_200, 123_456_789)
    );
    assert_eq!(
        ok("2023-01-01T10:00:00.12345678Z"),
        (1_672_567_200, 123_456_780)
    );
    // Both fraction forms, same value: accepted.
    assert_eq!(ok("2023-01-01T10:00:00.5,5"), (1_672_567_200, 500_000_000));
}

#[test]
fn partial_dates_with_time_follow_date_formatters_from() {
    // Year + time and no month: java fills 1970-01-01, not the year.
    assert_eq!(ok("2023T10"), (36_000, 0));
    assert_eq!(ok("2023T10+05:00"), (18_000, 0));
    // Year-month + time: the first of the month.
    assert_eq!(ok("2023-05T10:00"), (1_682_935_200, 0));
    assert_eq!(ok("2023T"), (1_672_531_200, 0));
}

#[test]
fn zones_and_offsets() {
    let utc10 = (1_672_567_200, 0);
    for z in [
        "Z",
        "+00",
        "-00",
        "+0000",
        "+00:00",
        "+00:00:00",
        "ZZ",
        "Z+0100",
        "UTC",
        "GMT",
        "UT",
        "GMT0",
        "Zulu",
        "UTC+01",
    ] {
        assert_eq!(ok(&format!("2023-01-01T10:00{z}")), utc10, "{z}");
    }
    assert_eq!(ok("2023-01-01T10:00+01"), (1_672_563_600, 0));
    assert_eq!(ok("2023-01-01T10:00+0130"), (1_672_561_800, 0));
    assert_eq!(ok("2023-01-01T10:00+01:00:30"), (1_672_563_570, 0));
    assert_eq!(ok("2023-01-01T10:00+18"), (1_672_502_400, 0));
    assert_eq!(ok("2023-01-01T10:00UTC+01:00"), (1_672_563_600, 0));
    assert_eq!(ok("2023-01-01T10:00UT-02:00"), (1_672_574_400, 0));
    assert_eq!(ok("2023-01-01T10:00+01:00+0200"), (1_672_563_600, 0)); // the zone id wins
    assert_eq!(ok("2023-01-01T10:00Europe/Paris+0100"), (1_672_563_600, 0));
    assert_eq!(
        ok("2023-01-01T10:00:00.5Etc/GMT+1"),
        (1_672_570_800, 500_000_000)
    );
    assert_eq!(ok("2023-01-01T10:00EST5EDT"), (1_672_585_200, 0));
    assert_eq!(ok("2023-01-01T10:00SystemV/EST5"), (1_672_585_200, 0));
}

#[test]
fn dst_gap_and_overlap_like_zoned_date_time_of() {
    // Gap: 02:30 does not exist in Paris on 2023-03-26; java moves forward by the gap.
    assert_eq!(ok("2023-03-26T02:30Europe/Paris"), (1_679_794_200, 0));
    // Overlap: 02:30 happens twice on 2023-10-29; java takes the earlier offset (+02:00).
    assert_eq!(ok("2023-10-29T02:30Europe/Paris"), (1_698_539_400, 0));
}

#[test]
fn years() {
    assert_eq!(ok("0000"), (-62_167_219_200, 0));
    assert_eq!(ok("0000-01-01"), (-62_167_219_200, 0));
    assert_eq!(
        ok("9999-12-31T23:59:59.999999999Z"),
        (253_402_300_799, 999_999_999)
    );
    assert_eq!(ok("-1234"), (-101_108_476_800, 0)); // a year, not -1234 ms
    assert_eq!(ok("+12345"), (327_403_382_400, 0));
    assert_eq!(ok("+00001"), (-62_135_596_800, 0));
    assert_eq!(ok("-0001"), (-62_198_755_200, 0));
    assert_eq!(ok("+999999999"), (31_556_889_801_244_800, 0));
    assert_eq!(ok("+12345-01-01T10:00Z"), (327_403_418_400, 0));
    assert_eq!(ok("2000-02-29"), (951_782_400, 0));
    // '+' needs more than 4 digits; the year field takes at most 10 digits.
    assert_eq!(err("+1234").kind, ErrorKind::InvalidYear);
    assert_eq!(err("+2023-01-01").kind, ErrorKind::InvalidYear);
    // Out of java's year range: the date format matched, so no fallback to epoch_millis.
    assert_eq!(err("-1234567890").kind, ErrorKind::YearOutOfRange);
    // Also with a time and no month, where the year is otherwise ignored.
    assert_eq!(err("-3197045999T23").kind, ErrorKind::YearOutOfRange);
    assert_eq!(ok("+999999999T10"), (36_000, 0));
    // Named zones far outside the tz database's years (java: LMT before, rules after).
    assert_eq!(
        ok("-330128799-01T12Africa/Douala"),
        (-10_417_920_830_972_015, 0)
    );
}

#[test]
fn epoch_millis_and_the_alternation() {
    assert_eq!(ok("1234"), (-23_225_875_200, 0)); // 4 digits: a year
    assert_eq!(ok("12345"), (12, 345_000_000));
    assert_eq!(ok("-123"), (-1, 877_000_000));
    assert_eq!(ok("-0000"), (0, 0)); // "-0000" is not a year (negative zero), but 0 ms
    assert_eq!(ok("-0"), (0, 0));
    assert_eq!(ok("0.5"), (0, 500_000));
    assert_eq!(ok("-0.5"), (-1, 999_500_000));
    assert_eq!(ok("-1.5"), (-1, 998_500_000));
    assert_eq!(ok("1234.5"), (1, 234_500_000));
    assert_eq!(ok("123."), (0, 123_000_000));
    assert_eq!(ok("123.."), (0, 123_000_000));
    assert_eq!(ok("123.456."), (0, 123_456_000));
    assert_eq!(ok("-12345678901"), (-12_345_679, 99_000_000));
    assert_eq!(
        ok("9223372036854775807"),
        (9_223_372_036_854_775, 807_000_000)
    );
    assert_eq!(
        ok("-9223372036854775807"),
        (-9_223_372_036_854_776, 193_000_000)
    );
    assert_eq!(err("9223372036854775808").kind, ErrorKind::EpochOverflow);
    assert_eq!(err("12345678901234567890").kind, ErrorKind::TrailingInput);
    assert!(parse(b"123.1234567").is_err());
    assert!(parse(b".5").is_err());
    assert!(parse(b"-").is_err());
    assert!(parse(b"+5").is_err());
    assert!(parse(b"1e3").is_err());
}

#[test]
fn near_misses_are_rejected() {
    for s in [
        "",
        " 2023",
        "1234 ",
        "2023-01-01t10:00",
        "2023-01-01T10:00z",
        "2023-01-01 10:00",
        "2023-01-01T10:00:00.1234567890Z",
        "2023-01-01T24:00",
        "2023-01-01T10:60",
        "2023-01-01T10:00:60",
        "2023-02-29",
        "1900-02-29",
        "2023-04-31",
        "2023-13",
        "2023-00",
        "2023-01-00",
        "2023-01-32",
        "20231-01-01",
        "2023-1-01",
        "2023-01-01T1",
        "2023-01-01T10:0",
        "2023-01-01T10:00:00.",
        "2023-01-01T10:00:00.Z",
        "2023-01-01T10:00:00.5,6",
        "2023-01-01T10:00:00,5.5",
        "2023-01-01T10:00+1",
        "2023-01-01T10:00+19",
        "2023-01-01T10:00+24:00",
        "2023-01-01T10:00+01:3",
        "2023-01-01T10:00+013000",
        "2023-01-01T10:00EST",
        "2023-01-01T10:00utc",
        "2023-01-01T10:00GMT+1",
        "2023-01-01T10:00UTC0",
        "2023-01-01T10:00U",
        "2023-01-01T10:00Etc/GMT+1x",
        "2023-01-01T10:00Nowhere/Place",
        "2023-05-01T10:00Z+19",
        "2023-01-01T10:00:00Z\r",
        "2023-01-01T10:00:00Zé",
    ] {
        assert!(parse(s.as_bytes()).is_err(), "{s:?} should be rejected");
    }
}

#[test]
fn quirks_where_the_offset_is_not_checked() {
    // With a zone id and no full date, java never validates the trailing +HHmm offset.
    assert_eq!(ok("2023T10Z+19"), (36_000, 0));
    assert_eq!(ok("2023-05T10:00Z+19"), (1_682_935_200, 0));
}

#[test]
fn error_positions() {
    assert_eq!(
        err(""),
        Error {
            pos: 0,
            kind: ErrorKind::Empty
        }
    );
    assert_eq!(
        err("2023-01-01T10:00:00Zx"),
        Error {
            pos: 20,
            kind: ErrorKind::TrailingInput
        }
    );
    assert_eq!(
        err("2023-02-29"),
        Error {
            pos: 8,
            kind: ErrorKind::DayOutOfRange
        }
    );
    assert_eq!(
        err("2023-13-01"),
        Error {
            pos: 5,
            kind: ErrorKind::MonthOutOfRange
        }
    );
    assert_eq!(
        err("2023-01-01T24:00"),
        Error {
            pos: 11,
            kind: ErrorKind::HourOutOfRange
        }
    );
    assert_eq!(
        err("2023-01-01T10:60"),
        Error {
            pos: 14,
            kind: ErrorKind::MinuteOutOfRange
        }
    );
    assert_eq!(
        err("2023-01-01T10:00:60"),
        Error {
            pos: 17,
            kind: ErrorKind::SecondOutOfRange
        }
    );
    assert_eq!(
        err("2023-01-01T10:00:00.1234567890"),
        Error {
            pos: 29,
            kind: ErrorKind::TrailingInput
        }
    );
    assert_eq!(
        err("2023-01-01t10"),
        Error {
            pos: 10,
            kind: ErrorKind::TrailingInput
        }
    );
    assert_eq!(
        err("2023-01-01T10:00+24:00"),
        Error {
            pos: 16,
            kind: ErrorKind::OffsetOutOfRange
        }
    );
    assert_eq!(
        err("12a"),
        Error {
            pos: 2,
            kind: ErrorKind::TrailingInput
        }
    );
    assert_eq!(err("x").pos, 0);
    let e = err("2023-02-29");
    assert_eq!(e.to_string(), "day out of range for the month at byte 8");
}

#[test]
fn single_formats() {
    assert!(parse_strict_date_optional_time(b"12345").is_err());
    assert_eq!(
        parse_strict_date_optional_time(b"1234").map(|i| i.epoch_second),
        Ok(-23_225_875_200)
    );
    assert_eq!(
        parse_epoch_millis(b"1234"),
        Ok(Instant {
            epoch_second: 1,
            nano: 234_000_000
        })
    );
    assert!(parse_epoch_millis(b"2023-01-01").is_err());
    assert!(parse_epoch_millis(b"").is_err());
    assert!(parse_strict_date_optional_time(b"").is_err());
}

#[test]
fn format_names_and_output_lines() {
    assert_eq!(
        "strict_date_optional_time||epoch_millis".parse(),
        Ok(Format::StrictDateOptionalTimeOrEpochMillis)
    );
    assert_eq!(
        "strict_date_optional_time".parse(),
        Ok(Format::StrictDateOptionalTime)
    );
    assert_eq!("epoch_millis".parse(), Ok(Format::EpochMillis));
    let e = "epoch_second".parse::<Format>().unwrap_err();
    assert!(e.to_string().contains("epoch_second"));
    assert_eq!(
        Format::default().to_string(),
        "strict_date_optional_time||epoch_millis"
    );

    let mut out = Vec::new();
    write_line(&parse_with_format(Format::EpochMillis, b"-1.5"), &mut out).unwrap();
    write_line(&parse_with_format(Format::EpochMillis, b"x"), &mut out).unwrap();
    assert_eq!(out, b"-1 998500000\nerror\n");
}

#[test]
fn to_epoch_millis_floors() {
    assert_eq!(
        Instant {
            epoch_second: -1,
            nano: 998_500_000
        }
        .to_epoch_millis(),
        Some(-2)
    );
    assert_eq!(
        Instant {
            epoch_second: 1,
            nano: 234_500_000
        }
        .to_epoch_millis(),
        Some(1234)
    );
    assert_eq!(
        Instant {
            epoch_second: i64::MAX,
            nano: 0
        }
        .to_epoch_millis(),
        None
    );
}

#[test]
fn fast_path_agrees_with_general_path() {
    // The hot path must give the general path's answer on every input it accepts.
    let mut input = Vec::new();
    isodate::testgen::generate(11, 20_000, &mut input).unwrap();
    for line in input.split(|&b| b == b'\n') {
        let a = parse_with_format(Format::StrictDateOptionalTime, line);
        let b = isodate::testgen::parse_general_only(line);
        assert_eq!(a.is_ok(), b.is_ok(), "{:?}", String::from_utf8_lossy(line));
        if a.is_ok() {
            assert_eq!(a, b, "{:?}", String::from_utf8_lossy(line));
        }
    }
}

#[test]
fn a_date_field_clamps_to_the_range_of_i64_milliseconds() {
    let stored = |s: &str| parse(s.as_bytes()).unwrap().to_date_field_millis();
    assert_eq!(stored("+292278994-08-17T07:12:55.807Z"), i64::MAX);
    assert_eq!(stored("+292278994-08-17T07:12:55.808Z"), i64::MAX);
    assert_eq!(stored("+999999999-12-31T23:59:59.999999999Z"), i64::MAX);
    assert_eq!(stored("-292275055-05-16T16:47:04.192Z"), i64::MIN);
    assert_eq!(stored("-292275055-05-16T16:47:04.191Z"), i64::MIN);
    assert_eq!(stored("-999999999-01-01T00:00:00Z"), i64::MIN);
    assert_eq!(stored("2023-01-01T00:00:00Z"), 1_672_531_200_000);
    // Parsing stays exact: the clamp is a separate step.
    let beyond = parse(b"+292278994-08-17T07:12:55.808Z").unwrap();
    assert_eq!(beyond.to_epoch_millis(), None);
    assert_eq!(beyond.clamp_to_millis_range(), isodate::DATE_FIELD_MAX);
    // The earliest millisecond has a value although `epoch_second * 1000` overflows.
    assert_eq!(isodate::DATE_FIELD_MIN.to_epoch_millis(), Some(i64::MIN));
    assert_eq!(isodate::DATE_FIELD_MAX.to_epoch_millis(), Some(i64::MAX));
}

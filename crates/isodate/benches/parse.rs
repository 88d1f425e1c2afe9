//! `cargo bench -p isodate`: time per parse of the two reference strings (the same ones the
//! JMH benchmark in launcher/datebench uses), three ways:
//!
//! * `single/<input>`: one call per iteration, input and result through criterion's
//!   `black_box` (a volatile copy of each), the usual criterion latency measurement;
//! * `single/harness_floor`: the same harness around a trivial (not inlined) function, i.e.
//!   the cost of the measurement itself on this machine;
//! * `batch/<input>`: the same string, 1024 separately allocated copies, parsed in a loop
//!   per iteration, reported per element (throughput: no `black_box` round trip per call);
//! * `batch/A-shape`, `batch/B-shape`: 1024 *distinct* realistic timestamps of the shape of
//!   `A` (`YYYY-MM-DDTHH:MM:SS.sssZ`) or `B` (9 fraction digits, `±HH:MM`), spread uniformly
//!   over 2020..2026, parsed in a loop per iteration, reported per element. Each input's
//!   expected instant is checked before timing.
//!
//! plus a few slow-path shapes for context.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const HOT: &[&str] = &[
    "2023-01-01T23:38:34.000Z",
    "2023-11-04T21:38:47.605716183+01:00",
];
const OTHER: &[&str] = &[
    "2023-01-01",
    "1700000000000",
    "2023-03-26T02:30:00Europe/Paris",
    "2023-01-01T10:00:00+0100",
];

#[inline(never)]
fn trivial(s: &[u8]) -> Result<isodate::Instant, usize> {
    match s.first() {
        Some(&b) => Ok(isodate::Instant {
            epoch_second: i64::from(b),
            nano: s.len() as u32,
        }),
        None => Err(0),
    }
}

fn single(c: &mut Criterion) {
    let mut g = c.benchmark_group("single");
    g.throughput(Throughput::Elements(1));
    g.bench_function("harness_floor", |b| {
        b.iter(|| trivial(black_box(HOT[0].as_bytes())))
    });
    for s in HOT.iter().chain(OTHER) {
        g.bench_function(*s, |b| b.iter(|| isodate::parse(black_box(s.as_bytes()))));
    }
    g.finish();
}

/// Civil date from days since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `N` distinct timestamps of the shape of `A` (`with_offset == false`) or `B`, spread
/// uniformly over 2020-01-01..2026-01-01 (every month, day 1..=31, hour, ...; B with a
/// random offset in -12:00..=+14:00 in quarter hours), each with the instant it must
/// parse to (checked against the inputs before timing).
fn realistic(n: usize, with_offset: bool) -> Vec<(String, isodate::Instant)> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let lo = 1_577_836_800i64; // 2020-01-01
            let local = lo + (next() % (6 * 365 * 86_400)) as i64;
            let (y, m, d) = civil_from_days(local.div_euclid(86_400));
            let sod = local.rem_euclid(86_400);
            let (h, mi, se) = (sod / 3600, sod / 60 % 60, sod % 60);
            if with_offset {
                let nano = (next() % 1_000_000_000) as u32;
                let off = (next() % 105) as i64 * 900 - 12 * 3600;
                let sign = if off < 0 { '-' } else { '+' };
                let s = format!(
                    "{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{nano:09}{sign}{:02}:{:02}",
                    off.abs() / 3600,
                    off.abs() / 60 % 60
                );
                let i = isodate::Instant {
                    epoch_second: local - off,
                    nano,
                };
                (s, i)
            } else {
                let ms = (next() % 1000) as u32;
                let s = format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{se:02}.{ms:03}Z");
                let i = isodate::Instant {
                    epoch_second: local,
                    nano: ms * 1_000_000,
                };
                (s, i)
            }
        })
        .collect()
}

fn batch(c: &mut Criterion) {
    const N: usize = 1024;
    let mut g = c.benchmark_group("batch");
    g.throughput(Throughput::Elements(N as u64));
    for s in HOT {
        // The same string N times (the figure before the realistic batch existed).
        let inputs: Vec<Vec<u8>> = (0..N).map(|_| s.as_bytes().to_vec()).collect();
        g.bench_function(*s, |b| {
            b.iter(|| {
                let mut acc = 0i64;
                for input in black_box(&inputs) {
                    if let Ok(i) = isodate::parse(input) {
                        acc = acc.wrapping_add(i.epoch_second ^ i64::from(i.nano));
                    }
                }
                acc
            })
        });
    }
    for (name, with_offset) in [("A-shape", false), ("B-shape", true)] {
        let data = realistic(N, with_offset);
        for (s, want) in &data {
            assert_eq!(isodate::parse(s.as_bytes()), Ok(*want), "{s}");
        }
        // Separate allocations, so the loop really reads N inputs from memory.
        let inputs: Vec<Vec<u8>> = data.iter().map(|(s, _)| s.as_bytes().to_vec()).collect();
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut acc = 0i64;
                for input in black_box(&inputs) {
                    if let Ok(i) = isodate::parse(input) {
                        acc = acc.wrapping_add(i.epoch_second ^ i64::from(i.nano));
                    }
                }
                acc
            })
        });
    }
    g.finish();
}

criterion_group!(benches, single, batch);
criterion_main!(benches);

//! `cargo bench -p isodate`: time per parse of the two reference strings (the same ones the
//! JMH benchmark in launcher/datebench uses), three ways:
//!
//! * `single/<input>`: one call per iteration, input and result through `black_box`, the
//!   usual criterion latency measurement;
//! * `single/harness_floor`: the same harness around a trivial function, i.e. the cost of
//!   the measurement itself on this machine (subtract it to estimate the parse alone);
//! * `batch/<input>`: 1024 inputs parsed in a loop per iteration, reported per element: the
//!   bulk-ingestion throughput, without a `black_box` round trip per call.
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

fn batch(c: &mut Criterion) {
    const N: usize = 1024;
    let mut g = c.benchmark_group("batch");
    g.throughput(Throughput::Elements(N as u64));
    for s in HOT {
        // Separate allocations, so the loop really reads N inputs.
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
    g.finish();
}

criterion_group!(benches, single, batch);
criterion_main!(benches);

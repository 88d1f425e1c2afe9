//! The NDJSON reader's per-line check alone: the one-pass JSON object check
//! (`corpus::files::json_check`) against what it replaced (UTF-8 check + serde_json
//! `IgnoredAny`) and against the default path's brackets + UTF-8 check, on the same 10,000
//! generated logs lines.
//!
//! `cargo bench -p searchbench --bench ndjson_check`; criterion reports bytes/s.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use searchbench::corpus::files::json_check::is_json_object;
use searchbench::corpus::files::passes_engine_check;
use searchbench::corpus::{DocSource, Item, Logs, LogsSpec};

fn lines() -> Vec<Vec<u8>> {
    let mut logs = Logs::new(LogsSpec::new(1, 10_000)).expect("logs");
    let mut lines = Vec::new();
    loop {
        let mut doc = Vec::new();
        match logs.next_into(&mut doc) {
            Ok(Some(Item::Doc)) => lines.push(doc),
            _ => return lines,
        }
    }
}

fn check(c: &mut Criterion) {
    let lines = lines();
    let bytes: usize = lines.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("ndjson_check");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    group.bench_function("json_check", |b| {
        b.iter(|| lines.iter().filter(|l| is_json_object(l)).count())
    });
    // What the default engine-checked path does per line: brackets and UTF-8 only.
    group.bench_function("engine_check", |b| {
        b.iter(|| lines.iter().filter(|l| passes_engine_check(l)).count())
    });
    group.bench_function("brackets+std_utf8", |b| {
        b.iter(|| {
            lines
                .iter()
                .filter(|l| {
                    l.first() == Some(&b'{')
                        && l.last() == Some(&b'}')
                        && std::str::from_utf8(l).is_ok()
                })
                .count()
        })
    });
    group.bench_function("utf8+serde_json_ignored_any", |b| {
        b.iter(|| {
            lines
                .iter()
                .filter(|l| {
                    std::str::from_utf8(l).is_ok()
                        && serde_json::from_slice::<serde::de::IgnoredAny>(l).is_ok()
                })
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, check);
criterion_main!(benches);

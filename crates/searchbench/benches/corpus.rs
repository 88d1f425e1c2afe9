//! Generator throughput, one core, documents appended into a reused buffer exactly as the
//! ingest driver does (cleared every 4 MiB, as a bulk body would be sent).
//!
//! `cargo bench -p searchbench --bench corpus`; criterion reports documents/s ("elem/s").
//! Bytes/s = documents/s × the average document size printed at the start of each group.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use searchbench::corpus::{
    ClusterMetrics, DocSource, Logs, LogsSpec, MetricsSpec, Transactions, TransactionsSpec,
};

const BATCH: u64 = 100_000;
const FLUSH: usize = 4 << 20;

fn run_batch(source: &mut dyn DocSource, buf: &mut Vec<u8>) {
    for _ in 0..BATCH {
        if buf.len() >= FLUSH {
            buf.clear();
        }
        match source.next_into(buf) {
            Ok(Some(_)) => buf.push(b'\n'),
            _ => panic!("source ran out; raise its document count"),
        }
    }
}

fn avg_size(mut source: Box<dyn DocSource>) -> f64 {
    let mut buf = Vec::new();
    for _ in 0..10_000 {
        if let Ok(Some(_)) = source.next_into(&mut buf) {
            buf.push(b'\n');
        }
    }
    buf.len() as f64 / 10_000.0
}

fn bench(c: &mut Criterion, name: &str, make: &dyn Fn() -> Box<dyn DocSource>) {
    eprintln!(
        "{name}: {:.1} bytes per document (with newline)",
        avg_size(make())
    );
    let mut group = c.benchmark_group("corpus");
    group.throughput(Throughput::Elements(BATCH));
    group.sample_size(20);
    let mut source = make();
    let mut buf = Vec::with_capacity(FLUSH + (1 << 16));
    group.bench_function(BenchmarkId::new(name, BATCH), |b| {
        b.iter(|| run_batch(source.as_mut(), &mut buf))
    });
    group.finish();
}

fn generators(c: &mut Criterion) {
    bench(c, "logs", &|| {
        let mut spec = LogsSpec::new(1, 1_000_000_000);
        // ~23 documents per second of @timestamp, as 2M documents over a day.
        spec.window_ms = 1_000_000_000 / 23 * 1000;
        Box::new(Logs::new(spec).expect("logs"))
    });
    bench(c, "cluster-metrics", &|| {
        let mut spec = MetricsSpec::new(1);
        spec.epochs = Some(100_000);
        Box::new(ClusterMetrics::new(spec).expect("metrics"))
    });
    bench(c, "cluster-metrics+truth", &|| {
        let mut spec = MetricsSpec::new(1);
        spec.epochs = Some(100_000);
        spec.truth = true;
        // Published truth (30 small records an epoch) accumulates unread: negligible.
        Box::new(ClusterMetrics::new(spec).expect("metrics"))
    });
    bench(c, "transactions", &|| {
        Box::new(Transactions::new(TransactionsSpec::new(1, 1_000_000_000)).expect("tx"))
    });
}

criterion_group!(benches, generators);
criterion_main!(benches);

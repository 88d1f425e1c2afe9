//! The sketch store in process (field note 002's baseline, issue 63): the note's 5 epochs of
//! 1,000,000 cluster-metrics rows inserted in batches of 1,000 columnar rows, and one coverage
//! (30 nodes of an epoch) answered. What the store itself costs, before any wire.
//!
//! `cargo bench -p searchbench --bench sketch`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use searchbench::corpus::cluster_metrics::{ClusterMetrics, MetricsSpec, PartitionTruth};
use searchbench::sketch::{Batch, SketchStore};

const ROWS_PER_EPOCH: u64 = 1_000_000;
const EPOCHS: u64 = 5;
const BATCH: usize = 1_000;

/// The note's rows as columnar batches, made once, and their ground truth.
fn batches() -> (Vec<Batch>, Vec<PartitionTruth>) {
    let spec = MetricsSpec {
        rows_per_epoch: ROWS_PER_EPOCH,
        epochs: Some(EPOCHS),
        truth: true,
        ..MetricsSpec::new(1)
    };
    let mut g = ClusterMetrics::new(spec).expect("the note's spec");
    let truth = g.truth_handle();
    let mut out = vec![Batch::default()];
    while let Some(r) = g.next_row() {
        if out.last().is_some_and(|b| b.len() == BATCH) {
            out.push(Batch::default());
        }
        if let Some(b) = out.last_mut() {
            b.push_row(&r);
        }
    }
    (out, truth.take())
}

/// The relative error of each p50 and p90 the store gives against the truth, sorted.
fn errors(store: &SketchStore, truth: &[PartitionTruth]) -> Vec<f64> {
    let mut out = Vec::new();
    for t in truth {
        let Some(a) = store.answer(t.epoch, &t.node) else {
            continue;
        };
        for (exact, got) in [(&t.cpu, &a.cpu), (&t.mem, &a.mem), (&t.net, &a.net)] {
            for (e, g) in [
                (exact.p50, got.percentiles[1]),
                (exact.p90, got.percentiles[2]),
            ] {
                out.push((g - e).abs() / e.abs().max(1.0));
            }
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

fn bench(c: &mut Criterion) {
    let (all, truth) = batches();
    let mut group = c.benchmark_group("sketch");
    group.sample_size(10);
    group.bench_function("insert 5 epochs x 1M rows", |b| {
        b.iter_batched(
            SketchStore::new,
            |mut store| {
                for batch in &all {
                    store.insert(batch).expect("valid batches");
                }
                store
            },
            BatchSize::PerIteration,
        )
    });
    let mut store = SketchStore::new();
    for batch in &all {
        store.insert(batch).expect("valid batches");
    }
    let nodes: Vec<String> = (1..=30).map(|n| format!("N{n:03}")).collect();
    group.sample_size(100);
    group.bench_function("one coverage (30 nodes of an epoch)", |b| {
        b.iter(|| store.coverage(3, &nodes))
    });
    group.finish();
    let e = errors(&store, &truth);
    eprintln!(
        "sketch store: {} rows, about {} KiB of sketches; p50/p90 relative error against the \
         truth over {} answers: median {:.3} %, max {:.3} %",
        store.rows(),
        store.memory_bytes() / 1024,
        e.len(),
        e.get(e.len() / 2).copied().unwrap_or(0.0) * 100.0,
        e.last().copied().unwrap_or(0.0) * 100.0
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);

// Not in tests/it: a #[global_allocator] is process-wide and would sit under every test.
//! The generators' hot path allocates nothing per document once warmed up: the ingest
//! driver calls them millions of times a second, so one `malloc` a document would show.
//! Counted with a global allocator that tallies allocations made by the current thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use searchbench::corpus::{
    ClusterMetrics, DocSource, Logs, LogsSpec, MetricsSpec, Transactions, TransactionsSpec,
};

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    /// Bytes this thread holds now, and the most it held since [`PEAK`] was reset.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn held(bytes: i64) {
    let live = LIVE.with(|l| {
        l.set(l.get() + bytes);
        l.get()
    });
    PEAK.with(|p| p.set(p.get().max(live)));
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        held(layout.size() as i64);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        held(-(layout.size() as i64));
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        held(new_size as i64 - layout.size() as i64);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_for(source: &mut dyn DocSource, docs: usize) -> u64 {
    let mut buf = Vec::with_capacity(64 << 20);
    // Warm up: lazily grown scratch space reaches its size.
    for _ in 0..1000 {
        source.next_into(&mut buf).expect("gen");
    }
    buf.clear();
    let before = ALLOCS.with(Cell::get);
    for _ in 0..docs {
        source.next_into(&mut buf).expect("gen");
        buf.push(b'\n');
    }
    ALLOCS.with(Cell::get) - before
}

#[test]
fn generators_do_not_allocate_per_document() {
    // The counter sees this thread's allocations (else the zeros below would prove nothing).
    let before = ALLOCS.with(Cell::get);
    let v = std::hint::black_box(vec![1u8; 100]);
    assert!(ALLOCS.with(Cell::get) > before && v.len() == 100);

    let mut logs = Logs::new(LogsSpec::new(1, 1_000_000)).expect("logs");
    assert_eq!(allocations_for(&mut logs, 20_000), 0, "logs");

    let mut spec = MetricsSpec::new(1);
    spec.rows_per_epoch = 1_000_000;
    let mut metrics = ClusterMetrics::new(spec).expect("metrics");
    assert_eq!(allocations_for(&mut metrics, 100_000), 0, "cluster-metrics");

    let mut tx = Transactions::new(TransactionsSpec::new(1, 1_000_000)).expect("tx");
    assert_eq!(allocations_for(&mut tx, 20_000), 0, "transactions");
}

/// A model of a mapping of thousands of fields without a sample holds each type's default
/// vocabulary once, not once per field: 2,000 keywords and 500 texts held ~400 MB, and a
/// mapping of 100,000 fields passed 1 GB for 10 documents.
#[test]
fn a_wide_mapping_is_modelled_in_bounded_memory() {
    let mut properties = serde_json::Map::new();
    for i in 0..2_000 {
        properties.insert(format!("k{i}"), serde_json::json!({"type": "keyword"}));
    }
    for i in 0..500 {
        properties.insert(format!("t{i}"), serde_json::json!({"type": "text"}));
    }
    let mapping = serde_json::json!({ "properties": properties });
    let fields = searchbench::corpus::synth::mapping::fields(&mapping).expect("fields");
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let model = searchbench::corpus::synth::Model::learn(&fields, &[]);
    let peak = PEAK.with(Cell::get) - base;
    assert_eq!(model.fields.len(), 2_500);
    assert!(
        peak < 32 << 20,
        "the model took {} MB at its peak",
        peak >> 20
    );
    let mut doc = Vec::new();
    model.write(1, 0, &mut doc);
    assert!(doc.len() > 2_500, "{} bytes", doc.len());
}

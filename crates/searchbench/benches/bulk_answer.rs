//! Reading a bulk answer's items: the byte scanner (`ingest::bulk_answer::read`) on a real
//! engine's 1,000-item answer, trimmed by `filter_path` (what the driver asks for) and
//! untrimmed (what a server that ignores `filter_path` sends), against a serde_json DOM of the
//! same bytes, which is what reading every item would cost the simple way.
//!
//! `cargo bench -p searchbench --bench bulk_answer`; criterion reports items/s.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use searchbench::ingest::bulk_answer::read;

const ITEMS: usize = 1000;

fn answer(item: impl Fn(usize) -> String) -> Vec<u8> {
    let items: Vec<String> = (0..ITEMS).map(item).collect();
    format!(
        r#"{{"took":12,"errors":false,"items":[{}]}}"#,
        items.join(",")
    )
    .into_bytes()
}

fn scan(c: &mut Criterion) {
    let trimmed = answer(|_| r#"{"index":{"status":201}}"#.to_string());
    // OpenSearch 2.19's item without filter_path.
    let full = answer(|i| {
        format!(
            r#"{{"index":{{"_index":"logs","_id":"{i}","_version":1,"result":"created","_shards":{{"total":1,"successful":1,"failed":0}},"_seq_no":{i},"_primary_term":1,"status":201}}}}"#
        )
    });
    let mut group = c.benchmark_group("bulk_answer");
    group.throughput(Throughput::Elements(ITEMS as u64));
    group.sample_size(30);
    for (name, body) in [("trimmed", &trimmed), ("untrimmed", &full)] {
        assert_eq!(read(body).items, ITEMS);
        group.bench_function(format!("scan/{name}"), |b| b.iter(|| read(body).items));
        group.bench_function(format!("serde_json_dom/{name}"), |b| {
            b.iter(|| {
                let v: serde_json::Value = serde_json::from_slice(body).expect("json");
                v["items"].as_array().map_or(0, Vec::len)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, scan);
criterion_main!(benches);

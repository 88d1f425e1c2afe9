//! Rendering of the many-shards and snapshots scenarios.

use super::{bytes, table};
use crate::session::scenario::{Latency, ScenarioResult};

fn latency_row(name: &str, l: &Latency) -> [String; 4] {
    [
        name.to_string(),
        format!("{} ({} failed)", l.requests, l.errors),
        format!("{:.1}", l.mean_ms),
        format!(
            "{:.1} / {:.1} / {:.1} / {:.1}",
            l.p50_ms, l.p90_ms, l.p99_ms, l.max_ms
        ),
    ]
}

pub fn print(r: &ScenarioResult) {
    let c = &r.creation;
    sayln!(
        "\n{:?} on {} {}: {} of {} indices created and filled ({} docs) in {:.1} s: {:.1} \
         indices/s, {:.0} docs/s ({} clients, bulk {})",
        r.scenario,
        r.product,
        r.engine_version,
        c.indices_created,
        c.indices_requested,
        c.docs_indexed,
        c.secs,
        c.indices_per_sec,
        c.docs_per_sec,
        c.clients,
        c.bulk_docs
    );
    sayln!(
        "creation rate: {:.1} indices/s over the first tenth, {:.1} over the last; create \
         request p50 / p99 {:.1} / {:.1} ms",
        c.first_tenth_indices_per_sec,
        c.last_tenth_indices_per_sec,
        c.create_ms.p50_us as f64 / 1000.0,
        c.create_ms.p99_us as f64 / 1000.0
    );
    if let (Some(first), Some(last)) = (c.cluster_state.first(), c.cluster_state.last()) {
        sayln!(
            "cluster state: {} at {} indices -> {} at {} indices ({} samples)",
            bytes(first.bytes),
            first.indices,
            bytes(last.bytes),
            last.indices,
            c.cluster_state.len()
        );
    }
    let n = &r.counts;
    sayln!(
        "counts: {} of {} indices found, {} with all {} docs, {} docs - {}",
        n.found_indices,
        n.expected_indices,
        n.complete_indices,
        c.docs_per_index,
        n.docs,
        if n.reconciled {
            "reconciled"
        } else {
            "NOT reconciled"
        }
    );
    for e in &c.error_examples {
        sayln!("  error: {e}");
    }
    if let Some(ix) = &r.indexing {
        sayln!(
            "logs indexing: {} docs at bulk {} from {} clients: {:.0} docs/s ({})",
            ix.counts.indexed,
            ix.config.bulk_docs,
            ix.config.clients,
            ix.docs_per_sec,
            if ix.counts.reconciled {
                "reconciled"
            } else {
                "NOT reconciled"
            }
        );
        if let Some(b) = &ix.searches_beside {
            super::beside::print(b);
        }
    }
    let mut t = table([
        "requests",
        "count",
        "mean (ms)",
        "p50 / p90 / p99 / max (ms)",
    ]);
    let mut rows = 0;
    if let Some(f) = &r.field_caps {
        t.add_row(latency_row("_field_caps (2 clients)", f));
        rows += 1;
    }
    if let Some(s) = &r.snapshots {
        t.add_row(latency_row("create snapshot (no wait)", &s.create));
        rows += 1;
    }
    if rows > 0 {
        outln!("{t}");
    }
    if let Some(s) = &r.snapshots {
        let states: Vec<String> = s.states.iter().map(|(k, v)| format!("{v} {k}")).collect();
        sayln!(
            "snapshots into {}: {} requested, all done {:.1} s after the first request ({:.1} s \
             of waiting after the last), states: {}; {} failure(s), error rate {:.1}%, GC {} ms \
             during the phase",
            s.repository,
            s.requested,
            s.total_secs,
            s.wait_secs,
            if states.is_empty() {
                "none".to_string()
            } else {
                states.join(", ")
            },
            s.failures,
            s.error_rate * 100.0,
            s.gc_ms.map_or_else(|| "?".to_string(), |g| g.to_string())
        );
        for e in &s.create.error_examples {
            sayln!("  error: {e}");
        }
    }
    let k = &r.cleanup;
    sayln!(
        "cleanup: {} indices and {} snapshots deleted{}",
        k.indices_deleted,
        k.snapshots_deleted,
        if k.repository_removed {
            ", repository removed"
        } else {
            ""
        }
    );
    for w in &r.warnings {
        sayln!("warning: {w}");
    }
}

//! The phase both scenarios start with: N auditbeat-like indices created and filled from C
//! clients, the cluster state sampled meanwhile, then every index counted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;

use super::{join_all, Creation, IndexCounts, Made, ScenarioSpec};
use crate::cluster::Target;
use crate::corpus::{Auditbeat, AuditbeatSpec, DocSource, Item};
use crate::ingest::Cancel;
use crate::measure::Measurements;
use crate::session::SessionError;
use crate::workload::scenario_result::{derive, record, CreationSetup, CREATE_HISTOGRAM};

/// Fails before anything is made when the cluster's shard limit leaves no room for `shards`.
pub(super) async fn check_shard_room(target: &Target, shards: u64) -> Result<(), SessionError> {
    let settings: Value = match target
        .get_json(
            "/_cluster/settings?include_defaults=true&flat_settings=true\
             &filter_path=*.cluster.max_shards_per_node",
        )
        .await
    {
        Ok(v) => v,
        // Not allowed to read settings: the creation errors will say it instead.
        Err(_) => return Ok(()),
    };
    let limit = ["transient", "persistent", "defaults"]
        .iter()
        .find_map(|k| settings.get(*k)?.get("cluster.max_shards_per_node"))
        .and_then(|v| {
            v.as_str()
                .and_then(|s| s.parse::<u64>().ok())
                .or(v.as_u64())
        });
    let Some(limit) = limit else { return Ok(()) };
    let health = target.health(None).await?;
    let data_nodes = health.number_of_nodes.max(1);
    // The server's numbers, saturating: a wrapped product would refuse a run that fits.
    let used = health
        .active_shards
        .saturating_add(health.unassigned_shards);
    let room = limit.saturating_mul(data_nodes).saturating_sub(used);
    if shards > room {
        return Err(SessionError::usage(format!(
            "the cluster has room for {room} more shards (cluster.max_shards_per_node={limit}, \
             {used} in use) and the run needs {shards}; lower --indices or raise the limit"
        )));
    }
    Ok(())
}

/// The `_bulk` body of documents `from..to` of `docs` for `index`, ids their positions.
fn bulk_body(docs: &[Vec<u8>], index: &str, from: usize) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        body.extend_from_slice(b"{\"index\":{\"_index\":\"");
        body.extend_from_slice(index.as_bytes());
        body.extend_from_slice(b"\",\"_id\":\"");
        body.extend_from_slice((from + i).to_string().as_bytes());
        body.extend_from_slice(b"\"}}\n");
        body.extend_from_slice(doc);
        body.push(b'\n');
    }
    body
}

/// The documents of index number `n` (its own stream of the seed).
fn index_docs(spec: &ScenarioSpec, n: u64) -> Result<Vec<Vec<u8>>, SessionError> {
    let mut a = AuditbeatSpec::new(spec.seed, spec.docs_per_index);
    a.stream = n;
    let mut g = Auditbeat::new(a)?;
    let mut docs = Vec::with_capacity(spec.docs_per_index as usize);
    loop {
        let mut doc = Vec::new();
        match g.next_into(&mut doc)? {
            Some(Item::Doc) => docs.push(doc),
            Some(Item::Bad(_)) | None => break,
        }
    }
    Ok(docs)
}

/// Acknowledged items of a `_bulk` answer of `docs` documents, and the first item error or
/// why items are missing, read item by item whatever the `errors` flag says.
fn bulk_acked(body: &[u8], docs: usize) -> (u64, Option<String>) {
    let (answer, missing) = crate::ingest::bulk_answer::read(body).for_docs(docs);
    let acked = (answer.items - answer.failed.len()) as u64;
    let first = answer
        .failed
        .into_iter()
        .next()
        .map(|(_, item)| {
            format!(
                "item status {}: {}",
                item.status,
                item.reason.unwrap_or_default()
            )
        })
        .or(missing)
        .or(answer.problem);
    (acked, first)
}

/// What the workers and the sampler record as they go (the phase's record: see
/// `scenario_result::record`), and the first errors they met.
#[derive(Default)]
struct Tally {
    record: Measurements,
    examples: Vec<String>,
}

impl Tally {
    fn error(&mut self, e: String) {
        record::error(&mut self.record);
        if self.examples.len() < 5 {
            self.examples.push(e);
        }
    }
}

/// Phase 1: `clients` workers take index numbers in turn, create the index, fill it in
/// bulks; the cluster state is sampled every 2 seconds meanwhile. Its figures are derived
/// from the phase's record, returned with them, as a group's are from its parts' merged.
pub(super) async fn create_indices(
    target: &Target,
    spec: &ScenarioSpec,
    prefix: &str,
    made: &Made,
    cancel: &Cancel,
) -> (Creation, Measurements) {
    let began_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64);
    let body = crate::ingest::index::marked_body(&crate::workload::auditbeat_body());
    let body = serde_json::to_vec(&body).unwrap_or_default();
    // A part makes the indices of its share of the numbers.
    let (from, to) = spec.index_range();
    let next = AtomicU64::new(from);
    let started = Instant::now();
    // On the wall clock, by the monotonic one: the parts of a group line up on it.
    let now_us = || began_us + started.elapsed().as_micros() as u64;
    let tally = Mutex::new(Tally::default());
    if let Ok(mut t) = tally.lock() {
        record::began(&mut t.record, began_us);
    }
    let worker = || async {
        loop {
            let n = next.fetch_add(1, Ordering::Relaxed);
            if n >= to || cancel.is_cancelled() {
                break;
            }
            let index = format!("{prefix}{n:05}");
            let t0 = Instant::now();
            let created = target
                .send(
                    Method::PUT,
                    &format!("/{index}"),
                    Some(("application/json", body.clone())),
                )
                .await;
            let create_us = t0.elapsed().as_micros() as u64;
            if let Err(e) = created {
                if let Ok(mut t) = tally.lock() {
                    t.error(format!(
                        "creating {index}: {}",
                        crate::cluster::error_chain(&e)
                    ));
                }
                continue;
            }
            if let Ok(mut m) = made.indices.lock() {
                m.push(index.clone());
            }
            let docs = match index_docs(spec, n) {
                Ok(d) => d,
                Err(e) => {
                    if let Ok(mut t) = tally.lock() {
                        t.error(e.to_string());
                    }
                    continue;
                }
            };
            let mut acked = 0;
            for (c, chunk) in docs.chunks(spec.fill_bulk).enumerate() {
                let body = bulk_body(chunk, &index, c * spec.fill_bulk);
                match target
                    .send(Method::POST, "/_bulk", Some(("application/x-ndjson", body)))
                    .await
                {
                    Ok(reply) => {
                        let (n, error) = bulk_acked(&reply.body, chunk.len());
                        acked += n;
                        if let (Some(e), Ok(mut t)) = (error, tally.lock()) {
                            t.error(format!("filling {index}: {e}"));
                        }
                    }
                    Err(e) => {
                        if let Ok(mut t) = tally.lock() {
                            t.error(format!(
                                "filling {index}: {}",
                                crate::cluster::error_chain(&e)
                            ));
                        }
                    }
                }
            }
            if let Ok(mut t) = tally.lock() {
                t.record.record(CREATE_HISTOGRAM, "us", create_us);
                record::index_done(&mut t.record, now_us(), acked);
            }
        }
    };
    let (stop_tx, stop) = Cancel::new();
    let workers = async {
        let all: Vec<_> = (0..spec.clients).map(|_| worker()).collect();
        join_all(all).await;
        let _ = stop_tx.send(true);
    };
    let sampler = async {
        loop {
            let at = now_us();
            if let Ok(reply) = target.send(Method::GET, "/_cluster/state", None).await {
                if let Ok(mut t) = tally.lock() {
                    record::cluster_state(&mut t.record, at, reply.body.len() as u64);
                }
            }
            if stop.is_cancelled() {
                break;
            }
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(2)) => {}
                () = stop.cancelled() => {}
            }
        }
    };
    tokio::join!(workers, sampler);
    let mut t = tally.into_inner().unwrap_or_else(|p| p.into_inner());
    record::ended(&mut t.record, now_us());
    let setup = CreationSetup {
        indices_requested: spec.indices,
        docs_per_index: spec.docs_per_index,
        clients: spec.clients,
        bulk_docs: spec.fill_bulk,
    };
    // The record has its bounds: it always derives.
    let creation = derive(&setup, &t.record, t.examples).unwrap_or_default();
    (creation, t.record)
}

/// Refreshes our indices and checks that every one exists with all its documents.
pub(super) async fn count_indices(
    target: &Target,
    prefix: &str,
    spec: &ScenarioSpec,
) -> Result<IndexCounts, SessionError> {
    let pattern = format!("{prefix}0*,{prefix}1*,{prefix}2*,{prefix}3*,{prefix}4*,{prefix}5*,{prefix}6*,{prefix}7*,{prefix}8*,{prefix}9*");
    target
        .send(
            Method::POST,
            &format!("/{pattern}/_refresh?allow_no_indices=true"),
            None,
        )
        .await?;
    let rows: Vec<Value> = target
        .get_json(&format!(
            "/_cat/indices/{pattern}?format=json&h=index,docs.count&expand_wildcards=all"
        ))
        .await
        .or_else(|e| match e.status() {
            Some(404) => Ok(Vec::new()),
            _ => Err(e),
        })?;
    let mut found = 0;
    let mut complete = 0;
    let mut docs = 0u64;
    for row in &rows {
        let count = row
            .get("docs.count")
            .and_then(|v| {
                v.as_str()
                    .and_then(|s| s.parse::<u64>().ok())
                    .or(v.as_u64())
            })
            .unwrap_or(0);
        found += 1;
        docs = docs.saturating_add(count);
        if count == spec.docs_per_index {
            complete += 1;
        }
    }
    Ok(IndexCounts {
        expected_indices: spec.indices,
        found_indices: found,
        complete_indices: complete,
        docs,
        reconciled: found == spec.indices
            && complete == spec.indices
            && docs == spec.indices * spec.docs_per_index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_answers_count_acknowledged_items() {
        let body = br#"{"errors":true,"items":[{"index":{"status":201}},{"index":{"status":400,"error":{"type":"x"}}}]}"#;
        let (acked, first) = bulk_acked(body, 2);
        assert_eq!(acked, 1);
        assert!(first.is_some_and(|e| e.contains("400")));
        assert_eq!(bulk_acked(b"nonsense", 2).0, 0);
        let short = br#"{"errors":false,"items":[{"index":{"status":201}}]}"#;
        let (acked, first) = bulk_acked(short, 2);
        assert_eq!(acked, 1);
        assert!(first.is_some_and(|e| e.contains("1 items for 2")));
    }

    #[test]
    fn the_creation_rate_is_measured_per_tenth() {
        let setup = CreationSetup {
            indices_requested: 500,
            docs_per_index: 100,
            clients: 2,
            bulk_docs: 100,
        };
        let mut m = Measurements::default();
        record::began(&mut m, 1_000_000);
        for i in 1..=20u64 {
            let secs = i * if i > 10 { 2 } else { 1 };
            record::index_done(&mut m, 1_000_000 + secs * 1_000_000, 100);
        }
        record::ended(&mut m, 41_000_000);
        let c = derive(&setup, &m, Vec::new()).unwrap();
        assert_eq!(c.secs, 40.0);
        assert_eq!(c.indices_created, 20);
        assert_eq!(c.docs_indexed, 2_000);
        assert_eq!(c.timeline.iter().map(|s| s.indices).sum::<u64>(), 20);
        assert!(c.first_tenth_indices_per_sec > c.last_tenth_indices_per_sec);
    }

    /// A part kept before its phase held its record has it made from what its result said,
    /// in order however the result listed it (100,000 indices listed last first are put in
    /// order once, not one by one at the front).
    #[test]
    fn a_record_made_from_a_result_is_in_order_however_it_was_listed() {
        let said = Creation {
            started_unix_ms: Some(1_000),
            secs: 1.0,
            done: Some((0..100_000).rev().map(|i| (i as f64 * 1e-5, 1)).collect()),
            ..Creation::default()
        };
        let m = said.recorded().unwrap();
        let rows = &m.timed[crate::workload::scenario_result::INDEX_DONE].rows;
        assert_eq!(rows.len(), 100_000);
        assert!(rows.windows(2).all(|w| w[0].0 <= w[1].0));
        assert_eq!(rows[0].0, 1_000_000);
    }

    /// A record read back that claims what no run made (a span of 2^53 µs, 2^53 documents an
    /// index, many samples) derives in bounded time and memory, without overflow: its
    /// timeline stops at a week and its figures still count every index.
    #[test]
    fn a_record_claiming_too_much_derives_without_filling_memory() {
        let setup = CreationSetup {
            indices_requested: 5,
            docs_per_index: 1,
            clients: 1,
            bulk_docs: 1,
        };
        let most = 1u64 << 53;
        let mut m = Measurements::default();
        record::began(&mut m, 0);
        for at in [5, most / 2, most] {
            record::index_done(&mut m, at, most);
        }
        for at in 0..100_000 {
            record::cluster_state(&mut m, at, 1);
        }
        record::ended(&mut m, most);
        let c = derive(&setup, &m, Vec::new()).unwrap();
        assert_eq!(c.indices_created, 3);
        assert_eq!(c.docs_indexed, 3 * most);
        assert_eq!(
            c.timeline.len() as u64,
            crate::ingest::figures::MOST_SECONDS
        );
        assert_eq!(c.timeline[0].indices, 1);
        assert_eq!(c.cluster_state.len(), 100_000);
        assert!(c.cluster_state.iter().skip(6).all(|s| s.indices == 1));
    }
}

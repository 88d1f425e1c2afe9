//! many-shards' phases after the creation: logs indexing with searches beside it, then
//! field-capabilities latency over all the indices.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use hdrhistogram::Histogram;
use reqwest::Method;

use super::{histogram, join_all, Latency, ScenarioSpec};
use crate::cluster::Target;
use crate::ingest::Cancel;
use crate::session::ingest::LoadSpec;
use crate::session::{Job, SessionError};
use crate::workload::scenario_result::latency_of;
use crate::workload::WorkloadSpec;

/// Phase 2 of many-shards, the load: logs at bulk 1,000 from the clients into `index`,
/// searches beside.
pub(super) fn logs_load(spec: &ScenarioSpec, index: &str) -> Result<(Job, LoadSpec), SessionError> {
    let mut workload_spec = WorkloadSpec::new(spec.seed);
    workload_spec.docs = Some(spec.logs_docs);
    let mut job = Job::generated("logs", &workload_spec, Some(index.to_string()), &[])?;
    job.workload = "logs".into();
    let mut load = LoadSpec::new(index);
    let mut failures = format!("{index}-failures.ndjson");
    // A part loads its share of the logs, under the ids a whole run gives them.
    if let Some(p) = &spec.part {
        let source = crate::corpus::part::PartSource::new(job.source, p.part, spec.logs_docs);
        load.driver.first_ordinal = source.first_ordinal();
        job.source = Box::new(source);
        load.driver.part = p.part;
        load.driver.group = Some(p.group.clone());
        failures = format!(
            "{index}-part{}of{}-failures.ndjson",
            p.part.index, p.part.of
        );
    }
    load.driver.clients = spec.clients;
    load.driver.bulk_docs = spec.logs_bulk;
    load.cancel = spec.cancel.clone();
    load.max_failures = Some(crate::ingest::MaxFailures::Count(0));
    load.failures = Some(std::env::temp_dir().join(failures));
    load.beside = Some(crate::session::beside::plan(
        "logs",
        &workload_spec,
        spec.search_clients,
    )?);
    Ok((job, load))
}

/// Runs `requests` GETs of `path` from `clients` clients and summarizes their latency.
async fn latency(
    target: &Target,
    path: &str,
    clients: usize,
    requests: u64,
    cancel: &Cancel,
) -> (Latency, Histogram<u64>) {
    let next = AtomicU64::new(0);
    let tally = Mutex::new((histogram(), 0u64, Vec::<String>::new(), 0u64));
    let client = || async {
        loop {
            if next.fetch_add(1, Ordering::Relaxed) >= requests || cancel.is_cancelled() {
                break;
            }
            let t0 = Instant::now();
            let r = target.send(Method::GET, path, None).await;
            let us = t0.elapsed().as_micros() as u64;
            if let Ok(mut t) = tally.lock() {
                t.3 += 1;
                match r {
                    Ok(_) => {
                        let _ = t.0.record(us.max(1));
                    }
                    Err(e) => {
                        t.1 += 1;
                        if t.2.len() < 5 {
                            t.2.push(crate::cluster::error_chain(&e));
                        }
                    }
                }
            }
        }
    };
    join_all((0..clients).map(|_| client()).collect()).await;
    let (h, errors, examples, sent) = tally.into_inner().unwrap_or_else(|p| p.into_inner());
    (latency_of(&h, clients, sent, errors, examples), h)
}

/// Phase 3 of many-shards: `_field_caps` over every index we made, from 2 clients (a part:
/// its share of them and of the requests).
pub(super) async fn field_caps_latency(
    target: &Target,
    spec: &ScenarioSpec,
    prefix: &str,
    cancel: &Cancel,
) -> (Latency, Histogram<u64>) {
    let path = format!("/{prefix}*/_field_caps?fields=*");
    latency(
        target,
        &path,
        spec.field_caps_clients,
        spec.field_caps_requests,
        cancel,
    )
    .await
}

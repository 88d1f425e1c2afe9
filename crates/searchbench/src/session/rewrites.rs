//! Writes beside the query method (`query --rewrite-clients N`): N bulk clients index the
//! corpus again over itself, in order and round after round, while the warm-up and the
//! passes run. Each document goes back under its own `_id` (its ordinal, as the load wrote
//! it) with its own content, so every refresh shows the same documents and the truth every
//! answer is checked against stays exact; yet every write is real work for the engine: a new
//! copy indexed (an HNSW insertion for vectors), the old one deleted, segments refreshed and
//! merged. Searches measured during an ingest, with their answers still checked.
//!
//! An index loaded with server-made ids (`--ids auto`) would gain a copy per write: the count
//! is taken before and after, and a change fails the run.

use std::time::Instant;

use super::SessionError;
use crate::cancel::Cancel;
use crate::cluster::Target;
use crate::ingest::{self, Controls, DriverConfig, IdMode, Plan};
use crate::query::Rewrites;
use crate::workload::{Workload, WorkloadSpec};

/// Bulk clients writing beside the searches, at most.
pub const MAX_CLIENTS: usize = 64;

/// How the corpus is written beside the searches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RewriteSpec {
    pub clients: usize,
    /// Documents per second offered on a fixed schedule (open loop); `None`: as fast as the
    /// clients go.
    pub rate: Option<f64>,
}

/// The writes of `workload`'s corpus `spec` into `index` from `clients` clients, until
/// `stop` fires (the passes are over). Started before the warm-up; a failure of the writes
/// (the engine gone) ends them with an error, which fails the run.
pub async fn alongside(
    target: Target,
    index: String,
    workload: &'static dyn Workload,
    spec: WorkloadSpec,
    how: RewriteSpec,
    stop: Cancel,
) -> Result<Rewrites, SessionError> {
    let before = ingest::count(&target, &index).await.map_err(|e| {
        SessionError::Other(format!("cannot count {index} before the rewrites: {e}"))
    })?;
    let failures = std::env::temp_dir().join(format!(
        "searchbench-rewrites-{}-{}.ndjson",
        std::process::id(),
        super::ingest::file_safe(&index)
    ));
    let started = Instant::now();
    let mut done = Rewrites {
        clients: how.clients,
        rate: how.rate,
        ..Rewrites::default()
    };
    while !stop.is_cancelled() {
        let round = Instant::now();
        let source = workload.open(&spec)?.source;
        let mut driver = DriverConfig::new(index.clone());
        driver.clients = how.clients;
        driver.rate = how.rate;
        driver.ids = IdMode::Sequential;
        let plan = Plan {
            driver,
            index_body: serde_json::json!({}),
            portable_body: false,
            replace: false,
            // Into the index as it is: no setup, no settings changed.
            append: true,
            load_settings: Default::default(),
            // Each document goes back over itself: the index's count never rises.
            freshness: None,
            failures: failures.clone(),
            engine_pids: Vec::new(),
        };
        let controls = Controls {
            cancel: Some(stop.clone()),
            ..Controls::default()
        };
        let report = ingest::ingest_streaming(&target, source, plan, controls)
            .await
            .map_err(|e| SessionError::Other(format!("the rewrites beside the searches: {e}")))?;
        done.docs += report.counts.indexed;
        // What the engine refused or left unanswered; the documents the stop kept from being
        // sent are no failure.
        done.failed += report.counts.refused + report.counts.unacknowledged;
        if let Some(error) = report.error {
            return Err(SessionError::Other(format!(
                "the rewrites beside the searches failed: {error}"
            )));
        }
        if report.interrupted {
            break;
        }
        done.rounds += 1;
        // A paced round ends when its last request is sent: the next waits for the schedule,
        // so the rate holds across rounds.
        if let Some(rate) = how.rate {
            let due = std::time::Duration::from_secs_f64(report.counts.read as f64 / rate);
            if let Some(wait) = due.checked_sub(round.elapsed()) {
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = stop.cancelled() => {}
                }
            }
        }
    }
    done.secs = started.elapsed().as_secs_f64();
    done.docs_per_sec = done.docs as f64 / done.secs.max(1e-9);
    // Our own documents, written again: nothing of the user's to keep.
    let _ = std::fs::remove_file(&failures);
    let after = ingest::count(&target, &index).await.map_err(|e| {
        SessionError::Other(format!("cannot count {index} after the rewrites: {e}"))
    })?;
    if after != before {
        return Err(SessionError::Other(format!(
            "{index} held {before} documents before the rewrites and {after} after: it was \
             not loaded with sequential ids (each document's ordinal as its _id), so each \
             write added a copy and the answers were checked against the wrong corpus; load \
             it again with --load"
        )));
    }
    done.index_count = after;
    Ok(done)
}

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

use tokio::sync::watch;

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
    /// Each pass run twice, idle and under the writes (`--beside-idle`): the writes pause for
    /// the idle halves (see [`crate::query::under_write`]).
    pub beside_idle: bool,
}

/// The writes of `workload`'s corpus `spec` into `index` from `clients` clients, until
/// `stop` fires (the passes are over), pausing while `paused` says so (the idle halves of
/// the passes: a round is stopped there and the next begins when the writes are on again).
/// Started before the warm-up; a failure of the writes (the engine gone) ends them with an
/// error, which fails the run.
pub async fn alongside(
    target: Target,
    index: String,
    workload: &'static dyn Workload,
    spec: WorkloadSpec,
    how: RewriteSpec,
    stop: Cancel,
    mut paused: Option<watch::Receiver<bool>>,
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
    // Paused for the idle halves of the passes, in all.
    let mut idle = std::time::Duration::ZERO;
    let mut done = Rewrites {
        clients: how.clients,
        rate: how.rate,
        beside_idle: how.beside_idle,
        ..Rewrites::default()
    };
    while !stop.is_cancelled() {
        if let Some(switch) = paused.as_mut() {
            let waited = Instant::now();
            let on = writing(switch, &stop).await;
            idle += waited.elapsed();
            if !on {
                // The method is gone: what is left is written till the stop.
                paused = None;
            }
            if stop.is_cancelled() {
                break;
            }
        }
        // The round stops at the stop, or when the writes are paused.
        let round_stop = match &paused {
            Some(switch) => Cancel::either(&stop, &Cancel::from(switch.clone())),
            None => stop.clone(),
        };
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
            cancel: Some(round_stop),
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
            if stop.is_cancelled() {
                break;
            }
            // Paused: the next round waits for the writes to be on again.
            continue;
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
    // Paused for the idle halves: the time the writes were on, not the pauses.
    done.secs = started.elapsed().saturating_sub(idle).as_secs_f64();
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

/// Runs `measure` (the query method with `options`) with the writes beside it as `how` says,
/// into `options`' index; what it measured, and what the writes did. With `beside_idle` the
/// method gets the switch that pauses the writes (`QueryOptions::writes`).
pub async fn around<T, F, Fut>(
    target: &Target,
    workload: &'static dyn Workload,
    spec: &WorkloadSpec,
    how: RewriteSpec,
    mut options: crate::query::QueryOptions,
    measure: F,
) -> Result<(T, Rewrites), SessionError>
where
    F: FnOnce(crate::query::QueryOptions) -> Fut,
    Fut: std::future::Future<Output = Result<T, SessionError>>,
{
    let (stop_tx, stop) = Cancel::new();
    let paused = how.beside_idle.then(|| {
        let (switch, paused) = crate::query::under_write::WriteSwitch::new();
        options.writes = Some(switch);
        paused
    });
    let writes = tokio::spawn(alongside(
        target.clone(),
        options.index.clone(),
        workload,
        spec.clone(),
        how,
        stop,
        paused,
    ));
    let measured = measure(options).await;
    let _ = stop_tx.send(true);
    let writes = writes
        .await
        .map_err(|e| SessionError::Other(format!("the rewrites beside the searches: {e}")))?;
    let measured = measured?;
    Ok((measured, writes?))
}

/// Waits while `switch` says the writes are paused; `true` once they are on (or the stop
/// came), `false` when the switch is gone (the method ended).
async fn writing(switch: &mut watch::Receiver<bool>, stop: &Cancel) -> bool {
    loop {
        if !*switch.borrow_and_update() {
            return true;
        }
        tokio::select! {
            changed = switch.changed() => {
                if changed.is_err() {
                    return false;
                }
            }
            () = stop.cancelled() => return true,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::double::{block_on, Double};

    /// A cluster that takes every bulk (each document created) and holds 2,000 documents.
    fn taking() -> Double {
        Double::serve(|r| {
            if r.path.contains("_bulk") {
                let actions = r
                    .body
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .count()
                    / 2;
                let items = vec![r#"{"index":{"status":201}}"#; actions].join(",");
                format!(r#"{{"took":1,"errors":false,"items":[{items}]}}"#)
            } else if r.path.contains("_count") {
                r#"{"count":2000}"#.into()
            } else if r.path == "/" {
                r#"{"cluster_name":"c","version":{"number":"2.19.1","distribution":"opensearch"}}"#
                    .into()
            } else {
                "{}".into()
            }
        })
    }

    /// The writes into `cluster`: 2,000 logs documents from one client at 4,000 docs/s,
    /// beside idle halves (a bulk every few dozen ms, never done before a test is). Spawned
    /// on the caller's runtime.
    fn writing_into(
        cluster: &Double,
        paused: watch::Receiver<bool>,
        stop: Cancel,
    ) -> tokio::task::JoinHandle<Result<Rewrites, SessionError>> {
        let mut spec = WorkloadSpec::new(1);
        spec.docs = Some(2000);
        let how = RewriteSpec {
            clients: 1,
            rate: Some(4000.0),
            beside_idle: true,
        };
        let logs = crate::workload::find("logs").expect("logs");
        let target = cluster.target();
        tokio::spawn(alongside(
            target,
            "i".into(),
            logs,
            spec,
            how,
            stop,
            Some(paused),
        ))
    }

    fn bulks(d: &Double) -> usize {
        d.requests()
            .iter()
            .filter(|r| r.path.contains("_bulk"))
            .count()
    }

    /// The writes stop sending while the switch says paused, and go on when it says write;
    /// the time they report is the time they wrote.
    #[test]
    fn the_writes_pause_for_the_idle_halves_and_go_on_after() {
        let cluster = taking();
        let (switch, paused) = crate::query::under_write::WriteSwitch::new();
        let (stop_tx, stop) = Cancel::new();
        let writes = block_on(async {
            let writes = writing_into(&cluster, paused, stop);
            tokio::time::sleep(Duration::from_millis(600)).await;
            let written = bulks(&cluster);
            assert!(written > 0, "writing at first");
            switch.set(false);
            // What was in flight when the switch flipped is answered; then nothing is sent.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let at_pause = bulks(&cluster);
            tokio::time::sleep(Duration::from_millis(900)).await;
            assert_eq!(bulks(&cluster), at_pause, "no bulk while paused");
            switch.set(true);
            tokio::time::sleep(Duration::from_millis(600)).await;
            assert!(bulks(&cluster) > at_pause, "writing again");
            let _ = stop_tx.send(true);
            writes.await.expect("the writes' task")
        })
        .expect("the writes");
        assert!(writes.beside_idle);
        assert!(writes.docs > 0);
        assert_eq!(writes.index_count, 2000);
        // About 1.2 s of writing in about 2.4 s: the pause is not the writes' time.
        assert!(
            (0.8..2.0).contains(&writes.secs),
            "wrote for {:.2} s",
            writes.secs
        );
    }

    /// The method gone while the writes are paused: they go on till the stop, never spin.
    #[test]
    fn writes_paused_by_a_method_that_is_gone_write_on_till_the_stop() {
        let cluster = taking();
        let (switch, paused) = crate::query::under_write::WriteSwitch::new();
        let (stop_tx, stop) = Cancel::new();
        let writes = block_on(async {
            switch.set(false);
            let writes = writing_into(&cluster, paused, stop);
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert_eq!(bulks(&cluster), 0, "paused from the start");
            drop(switch);
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert!(bulks(&cluster) > 0, "writing once the method is gone");
            let _ = stop_tx.send(true);
            writes.await.expect("the writes' task")
        })
        .expect("the writes");
        assert!(writes.docs > 0);
    }
}

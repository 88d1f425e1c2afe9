//! The snapshots scenario's phase: K create-snapshot requests without waiting into a
//! repository (the user's, or an `fs` one we register), then the wait until all are done.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;

use super::{histogram, latency_of, Made, ScenarioSpec, Snapshots};
use crate::cluster::Target;
use crate::ingest::Cancel;
use crate::session::SessionError;

/// The repository to snapshot into: the user's (`--repository`), or an `fs` one we register
/// under the first `path.repo` folder of the nodes.
pub(super) async fn repository(
    target: &Target,
    spec: &ScenarioSpec,
    stamp: &str,
) -> Result<Repository, SessionError> {
    if let Some(name) = &spec.repository {
        target
            .send(Method::GET, &format!("/_snapshot/{name}"), None)
            .await
            .map_err(|e| {
                SessionError::usage(format!(
                    "repository {name:?} is not usable on this cluster: {}",
                    crate::cluster::error_chain(&e)
                ))
            })?;
        return Ok(Repository {
            name: name.clone(),
            registered: false,
        });
    }
    let settings: Value = target
        .get_json("/_nodes/settings?filter_path=nodes.*.settings.path.repo")
        .await?;
    let path = settings
        .get("nodes")
        .and_then(Value::as_object)
        .and_then(|nodes| nodes.values().next())
        .and_then(|n| n.pointer("/settings/path/repo"))
        .and_then(|r| match r {
            Value::String(s) => Some(s.clone()),
            Value::Array(a) => a.first().and_then(Value::as_str).map(str::to_string),
            _ => None,
        })
        .ok_or_else(|| {
            SessionError::usage(
                "the cluster's nodes have no path.repo, so there is nowhere to register an fs \
                 snapshot repository; register one yourself and pass --repository NAME",
            )
        })?;
    let name = format!("searchbench-{stamp}");
    let location = format!("{}/{name}", path.trim_end_matches('/'));
    target
        .send_json::<Value>(
            Method::PUT,
            &format!("/_snapshot/{name}"),
            &serde_json::json!({ "type": "fs", "settings": { "location": location } }),
        )
        .await?;
    Ok(Repository {
        name,
        registered: true,
    })
}

#[derive(Debug, Clone)]
pub(super) struct Repository {
    pub(super) name: String,
    pub(super) registered: bool,
}

/// GC time of all nodes since they started, young + old, ms.
async fn gc_millis(target: &Target) -> Option<u64> {
    let v: Value = target
        .get_json("/_nodes/stats/jvm?filter_path=nodes.*.jvm.gc.collectors")
        .await
        .ok()?;
    let mut total = 0;
    for node in v.get("nodes")?.as_object()?.values() {
        for c in node.pointer("/jvm/gc/collectors")?.as_object()?.values() {
            total += c.get("collection_time_in_millis")?.as_u64()?;
        }
    }
    Some(total)
}

/// The snapshot phase: K sequential create requests without waiting, then the wait.
pub(super) async fn take_snapshots(
    target: &Target,
    spec: &ScenarioSpec,
    repo: &Repository,
    prefix: &str,
    stamp: &str,
    made: &Made,
    cancel: &Cancel,
) -> Snapshots {
    let gc_before = gc_millis(target).await;
    let body = serde_json::json!({
        "indices": format!("{prefix}*"),
        "include_global_state": false,
        "ignore_unavailable": true,
    });
    let started = Instant::now();
    let mut h = histogram();
    let mut errors = 0;
    let mut examples = Vec::new();
    let mut names = Vec::new();
    for k in 0..spec.snapshots {
        if cancel.is_cancelled() {
            break;
        }
        let name = format!("searchbench-snap-{stamp}-{k:04}");
        let t0 = Instant::now();
        let r = target
            .send_json::<Value>(
                Method::PUT,
                &format!("/_snapshot/{}/{name}?wait_for_completion=false", repo.name),
                &body,
            )
            .await;
        let us = t0.elapsed().as_micros() as u64;
        match r {
            Ok(_) => {
                let _ = h.record(us.max(1));
                if let Ok(mut m) = made.snapshots.lock() {
                    m.push(name.clone());
                }
                names.push(name);
            }
            Err(e) => {
                errors += 1;
                if examples.len() < 5 {
                    examples.push(crate::cluster::error_chain(&e));
                }
            }
        }
    }
    let issued = started.elapsed();
    let states = wait_for_snapshots(target, &repo.name, &names, cancel).await;
    let total = started.elapsed();
    let gc_after = gc_millis(target).await;
    let succeeded = states.get("SUCCESS").copied().unwrap_or(0);
    let failures = spec.snapshots.saturating_sub(succeeded);
    Snapshots {
        repository: repo.name.clone(),
        registered: repo.registered,
        requested: spec.snapshots,
        create: latency_of(&h, 1, names.len() as u64 + errors, errors, examples),
        total_secs: total.as_secs_f64(),
        wait_secs: (total - issued).as_secs_f64(),
        states,
        failures,
        error_rate: failures as f64 / spec.snapshots.max(1) as f64,
        gc_ms: gc_before.zip(gc_after).map(|(b, a)| a.saturating_sub(b)),
        gc_ms_since_start: gc_after,
    }
}

/// How far the snapshots `names` have got: their shards done and bytes copied, summed (0 for
/// what the cluster does not say).
async fn copied(target: &Target, repo: &str, names: &[String]) -> u64 {
    let mut sum = 0u64;
    for group in names.chunks(40) {
        let path = format!("/_snapshot/{repo}/{}/_status", group.join(","));
        let Ok(v) = target.get_json::<Value>(&path).await else {
            continue;
        };
        for s in v["snapshots"].as_array().into_iter().flatten() {
            let n = |p: &str| s.pointer(p).and_then(Value::as_u64).unwrap_or(0);
            sum = sum
                .saturating_add(n("/shards_stats/done"))
                .saturating_add(n("/stats/processed/size_in_bytes"))
                .saturating_add(n("/stats/processed_size_in_bytes"));
        }
    }
    sum
}

/// States a snapshot ends in.
fn finished_state(state: &str) -> bool {
    matches!(state, "SUCCESS" | "FAILED" | "PARTIAL" | "INCOMPATIBLE")
}

/// How long the snapshots may go without progress (one more finishing, or more shards done or
/// bytes copied) before the wait ends: one stuck `IN_PROGRESS`, deleted meanwhile, or a
/// cluster answering errors would otherwise be polled for ever. What has not finished by then
/// counts as failed.
const STALL: Duration = Duration::from_secs(600);

/// Polls the snapshots until each is in a final state, a cancel, or [`STALL`] without one more
/// finishing (see `wait_within`); returns state → count.
async fn wait_for_snapshots(
    target: &Target,
    repo: &str,
    names: &[String],
    cancel: &Cancel,
) -> std::collections::BTreeMap<String, u64> {
    wait_within(target, repo, names, cancel, STALL).await
}

/// [`wait_for_snapshots`], given up after `stall` without progress: the states last seen are
/// returned, and a snapshot not seen at all counts as `NOT SEEN`, so every snapshot asked for
/// has a state.
async fn wait_within(
    target: &Target,
    repo: &str,
    names: &[String],
    cancel: &Cancel,
    stall: Duration,
) -> std::collections::BTreeMap<String, u64> {
    let mut states = std::collections::BTreeMap::new();
    if names.is_empty() {
        return states;
    }
    let mut pause = Duration::from_millis(50);
    let (mut finished, mut copied_before, mut since) = (0u64, 0u64, Instant::now());
    loop {
        let mut current: std::collections::BTreeMap<String, u64> = Default::default();
        let mut done = true;
        // In groups, so the request line stays short.
        for group in names.chunks(40) {
            let path = format!("/_snapshot/{repo}/{}", group.join(","));
            match target.get_json::<Value>(&path).await {
                Ok(v) => {
                    let list = v.get("snapshots").and_then(Value::as_array);
                    let seen = list.map_or(0, Vec::len);
                    for s in list.into_iter().flatten() {
                        let state = s.get("state").and_then(Value::as_str).unwrap_or("UNKNOWN");
                        done &= finished_state(state);
                        *current.entry(state.to_string()).or_insert(0) += 1;
                    }
                    if seen < group.len() {
                        done = false;
                    }
                }
                Err(_) => done = false,
            }
        }
        let now_finished = (current.iter())
            .filter(|(state, _)| finished_state(state))
            .map(|(_, n)| *n)
            .sum::<u64>();
        // A long snapshot makes progress without finishing: shards done, bytes copied.
        let now_copied = copied(target, repo, names).await;
        if now_finished > finished || now_copied > copied_before {
            (finished, copied_before, since) = (now_finished, now_copied, Instant::now());
        }
        states = current;
        if done || cancel.is_cancelled() {
            return states;
        }
        if since.elapsed() >= stall {
            let seen: u64 = states.values().sum();
            let unseen = (names.len() as u64).saturating_sub(seen);
            if unseen > 0 {
                *states.entry("NOT SEEN".to_string()).or_insert(0) += unseen;
            }
            return states;
        }
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = cancel.cancelled() => return states,
        }
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::double::{block_on, Double};

    /// A long snapshot copying more at each look is waited for past the bound, however long
    /// it takes to finish.
    #[test]
    fn a_snapshot_making_progress_is_waited_for() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let looks = std::sync::Arc::new(AtomicU64::new(0));
        let seen = looks.clone();
        let cluster = Double::serve(move |r| {
            let n = seen.fetch_add(1, Ordering::SeqCst);
            if r.path.ends_with("/_status") {
                return format!(r#"{{"snapshots": [{{"shards_stats": {{"done": {n}}}}}]}}"#);
            }
            let state = if n > 12 { "SUCCESS" } else { "IN_PROGRESS" };
            format!(r#"{{"snapshots": [{{"state": "{state}"}}]}}"#)
        });
        let (_keep, cancel) = Cancel::new();
        let names = vec!["snap-1".to_string()];
        let states = block_on(wait_within(
            &cluster.target(),
            "repo",
            &names,
            &cancel,
            Duration::from_millis(300),
        ));
        assert_eq!(states.get("SUCCESS"), Some(&1), "{states:?}");
    }

    /// A snapshot stuck in progress, or one the cluster no longer knows, ends the wait once
    /// none has finished for the bound: the states last seen, the unseen named, none success.
    #[test]
    fn snapshots_that_never_finish_end_the_wait_at_its_bound() {
        let cluster = Double::serve_status(|r| {
            if r.path.contains("snap-2") {
                (404, r#"{"error": "snapshot_missing_exception"}"#.into())
            } else {
                (200, r#"{"snapshots": [{"state": "IN_PROGRESS"}]}"#.into())
            }
        });
        let target = cluster.target();
        let (_keep, cancel) = Cancel::new();
        for (names, want) in [
            (vec!["snap-1"], vec![("IN_PROGRESS", 1)]),
            (vec!["snap-2"], vec![("NOT SEEN", 1)]),
        ] {
            let names: Vec<String> = names.into_iter().map(String::from).collect();
            let started = Instant::now();
            let states = block_on(wait_within(
                &target,
                "repo",
                &names,
                &cancel,
                Duration::from_millis(300),
            ));
            assert!(started.elapsed() < Duration::from_secs(5));
            assert!(started.elapsed() >= Duration::from_millis(300));
            let got: Vec<(&str, u64)> = states.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            assert_eq!(got, want);
        }
    }
}

//! Rally's transform operations (`esrally/driver/runner.py`: `CreateTransform`,
//! `StartTransform`, `WaitForTransform`, `DeleteTransform`), each as the requests its runner
//! sends with the same parameters and defaults:
//!
//! - `create-transform`: `PUT /_transform/{transform-id}` with `body`, `defer_validation` as
//!   `defer-validation` says (false);
//! - `start-transform`: `POST /_transform/{id}/_start`, with `timeout` when given;
//! - `wait-for-transform`: asks the transform to stop at its next checkpoint (`force`,
//!   `timeout`, `wait-for-checkpoint` true), then reads its stats every `poll-interval` (0.5 s)
//!   until it has stopped (or at once with `wait-for-completion` false), for at most
//!   `transform-timeout` (3600 s); a failed transform fails the task, naming its reason. Its
//!   work is the documents the transform processed, as Rally weighs it;
//! - `delete-transform`: `DELETE /_transform/{id}`, `force` as given (false), a transform that
//!   is not there being fine.
//!
//! Transforms live in Elasticsearch's x-pack (`x-pack-transform`): a node without the module is
//! told apart before the task runs (`super::needs`).

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Map, Value};

use super::operation::{query_string, Done, Failed, Kind};
use super::plan::Unplanned;
use crate::cluster::Target;

/// The operation types here.
pub const RUNS: [&str; 4] = [
    "create-transform",
    "start-transform",
    "wait-for-transform",
    "delete-transform",
];

/// Waiting for a transform to stop: which, how it is asked to, how often its stats are read
/// and for how long.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitForTransform {
    pub id: String,
    /// `POST /_transform/{id}/_stop?…`, sent once before the stats are read.
    pub stop: String,
    pub wait_for_completion: bool,
    pub poll: Duration,
    pub limit: Duration,
}

/// The operation of type `kind` with parameters `p`.
pub fn of(kind: &str, p: &Map<String, Value>) -> Result<Kind, Unplanned> {
    let id = p
        .get("transform-id")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{kind} needs its transform-id"))?;
    let id = super::operation::path_id(kind, Some(id.to_string()))?;
    let flag = |k: &str, default: bool| -> Result<bool, String> {
        match p.get(k) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(format!(
                "{kind}: {k} {} is not true or false",
                crate::shown::Shown(v)
            )),
        }
    };
    let mut q = Map::new();
    let request =
        |method: Method, path: String, body: Option<Value>, ignore: Vec<u16>| Kind::Request {
            method,
            path,
            body,
            ignore_status: ignore,
        };
    Ok(match kind {
        "create-transform" => {
            let body = p
                .get("body")
                .cloned()
                .ok_or("create-transform needs its body")?;
            q.insert(
                "defer_validation".into(),
                flag("defer-validation", false)?.into(),
            );
            let path = format!("/_transform/{id}{}", query_string(&q)?);
            request(Method::PUT, path, Some(body), Vec::new())
        }
        "start-transform" => {
            if let Some(t) = p.get("timeout").filter(|t| !t.is_null()) {
                q.insert("timeout".into(), t.clone());
            }
            let path = format!("/_transform/{id}/_start{}", query_string(&q)?);
            request(Method::POST, path, None, Vec::new())
        }
        "delete-transform" => {
            q.insert("force".into(), flag("force", false)?.into());
            let path = format!("/_transform/{id}{}", query_string(&q)?);
            request(Method::DELETE, path, None, vec![404])
        }
        "wait-for-transform" => {
            q.insert("force".into(), flag("force", false)?.into());
            if let Some(t) = p.get("timeout").filter(|t| !t.is_null()) {
                q.insert("timeout".into(), t.clone());
            }
            q.insert("wait_for_completion".into(), false.into());
            q.insert(
                "wait_for_checkpoint".into(),
                flag("wait-for-checkpoint", true)?.into(),
            );
            let secs = |k: &str, default: f64, most: f64| -> Result<Duration, String> {
                match p.get(k) {
                    None | Some(Value::Null) => Ok(Duration::from_secs_f64(default)),
                    Some(v) => v
                        .as_f64()
                        .filter(|s| *s > 0.0 && *s <= most)
                        .map(Duration::from_secs_f64)
                        .ok_or_else(|| {
                            format!(
                                "{kind}: {k} {} is not above 0 and at most {most} s",
                                crate::shown::Shown(v)
                            )
                        }),
                }
            };
            Kind::WaitForTransform(WaitForTransform {
                stop: format!("/_transform/{id}/_stop{}", query_string(&q)?),
                id,
                wait_for_completion: flag("wait-for-completion", true)?,
                poll: secs("poll-interval", 0.5, 3600.0)?,
                limit: secs("transform-timeout", 3600.0, 86_400.0)?,
            })
        }
        other => return Err(Unplanned::NotYet(format!("{other} is not a transform's"))),
    })
}

impl WaitForTransform {
    /// Stops the transform at its checkpoint and waits until it has: the documents it
    /// processed are the work done.
    pub async fn once(&self, t: &Target, client: usize) -> Result<(Done, Value), Failed> {
        let began = Instant::now();
        t.send_at(client, Method::POST, &self.stop, None).await?;
        let stats_path = format!("/_transform/{}/_stats", self.id);
        loop {
            let reply = t.send_at(client, Method::GET, &stats_path, None).await?;
            let answer: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
            let transform = &answer["transforms"][0];
            let Some(state) = transform["state"].as_str() else {
                return Err(Failed(format!(
                    "transform {}: its stats say no state: {answer}",
                    self.id
                )));
            };
            if state == "failed" {
                let why = transform["reason"].as_str().unwrap_or("unknown");
                return Err(Failed(format!("transform {} failed: {why}", self.id)));
            }
            if state == "stopped" || !self.wait_for_completion {
                let processed = transform["stats"]["documents_processed"]
                    .as_u64()
                    .unwrap_or(0);
                let done = Done {
                    units: processed,
                    ..Done::default()
                };
                return Ok((done, answer));
            }
            if began.elapsed() >= self.limit {
                return Err(Failed(format!(
                    "transform {} still {state} after {:?} (its transform-timeout)",
                    self.id, self.limit
                )));
            }
            tokio::time::sleep(self.poll).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::double::{block_on, object as params, Double};
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn planned(kind: &str, v: Value) -> Kind {
        of(kind, &params(v)).expect("planned")
    }

    #[test]
    fn create_start_and_delete_are_the_requests_rallys_runners_send() {
        let body = json!({"source": {"index": "logs"}, "dest": {"index": "pivot"}});
        let k = planned(
            "create-transform",
            json!({"transform-id": "t1", "body": body}),
        );
        assert_eq!(
            k,
            Kind::Request {
                method: Method::PUT,
                path: "/_transform/t1?defer_validation=false".into(),
                body: Some(body),
                ignore_status: Vec::new(),
            }
        );
        let k = planned(
            "start-transform",
            json!({"transform-id": "t1", "timeout": "30s"}),
        );
        assert!(
            matches!(&k, Kind::Request { method, path, .. } if *method == Method::POST && path == "/_transform/t1/_start?timeout=30s"),
            "{k:?}"
        );
        let k = planned("delete-transform", json!({"transform-id": "t1"}));
        assert!(
            matches!(&k, Kind::Request { method, path, ignore_status, .. }
                if *method == Method::DELETE && path == "/_transform/t1?force=false" && ignore_status == &[404]),
            "{k:?}"
        );
    }

    #[test]
    fn a_transform_task_the_track_gets_wrong_is_refused_by_name() {
        for (kind, p, says) in [
            (
                "create-transform",
                json!({"body": {}}),
                "needs its transform-id",
            ),
            (
                "create-transform",
                json!({"transform-id": "t"}),
                "needs its body",
            ),
            (
                "start-transform",
                json!({"transform-id": "../_cluster"}),
                "one path segment",
            ),
            (
                "delete-transform",
                json!({"transform-id": "t", "force": "yes"}),
                "force",
            ),
            (
                "wait-for-transform",
                json!({"transform-id": "t", "poll-interval": 0}),
                "poll-interval",
            ),
            (
                "wait-for-transform",
                json!({"transform-id": "t", "transform-timeout": -1}),
                "transform-timeout",
            ),
        ] {
            match of(kind, &params(p)) {
                Err(Unplanned::Invalid(why)) => assert!(why.contains(says), "{kind}: {why}"),
                other => panic!("{kind} not refused: {other:?}"),
            }
        }
    }

    fn wait(double: &Double, p: Value) -> Result<(Done, Value), Failed> {
        let Kind::WaitForTransform(w) = planned("wait-for-transform", p) else {
            panic!("not a wait");
        };
        block_on(w.once(&double.target(), 0))
    }

    #[test]
    fn waiting_stops_the_transform_once_then_reads_its_stats_until_it_has_stopped() {
        let asked = Arc::new(AtomicUsize::new(0));
        let seen = asked.clone();
        let double = Double::serve(move |r| {
            if r.path.contains("/_stats") {
                let n = seen.fetch_add(1, Ordering::SeqCst);
                let state = if n < 2 { "indexing" } else { "stopped" };
                json!({"transforms": [{"id": "t1", "state": state,
                    "stats": {"documents_processed": 1000 * (n as u64 + 1)}}]})
                .to_string()
            } else {
                json!({"acknowledged": true}).to_string()
            }
        });
        let (done, _) = wait(
            &double,
            json!({"transform-id": "t1", "poll-interval": 0.01}),
        )
        .expect("stopped");
        assert_eq!(done.units, 3000, "the documents it processed by its stop");
        let sent = double.requests();
        assert_eq!(sent[0].method, "POST");
        assert_eq!(
            sent[0].path,
            "/_transform/t1/_stop?force=false&wait_for_checkpoint=true&wait_for_completion=false"
        );
        assert_eq!(sent.iter().filter(|r| r.path.contains("_stop")).count(), 1);
        assert_eq!(asked.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_failed_or_endless_transform_fails_the_wait_and_says_why() {
        let failed = Double::serve(|r| {
            if r.path.contains("/_stats") {
                json!({"transforms": [{"state": "failed", "reason": "task encountered failures"}]})
                    .to_string()
            } else {
                "{}".into()
            }
        });
        let e = wait(&failed, json!({"transform-id": "t1"})).expect_err("failed");
        assert!(e.0.contains("failed: task encountered failures"), "{e}");
        let endless = Double::serve(|r| {
            if r.path.contains("/_stats") {
                json!({"transforms": [{"state": "indexing", "stats": {}}]}).to_string()
            } else {
                "{}".into()
            }
        });
        let e = wait(
            &endless,
            json!({"transform-id": "t1", "poll-interval": 0.01, "transform-timeout": 0.2}),
        )
        .expect_err("timed out");
        assert!(
            e.0.contains("still indexing") && e.0.contains("transform-timeout"),
            "{e}"
        );
        // Not waiting for completion: the first stats are the answer.
        let (done, _) = wait(
            &endless,
            json!({"transform-id": "t1", "wait-for-completion": false}),
        )
        .expect("not waited for");
        assert_eq!(done.units, 0);
    }
}

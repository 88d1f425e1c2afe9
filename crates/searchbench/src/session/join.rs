//! Join points of one run split over several drivers (`--part I/N --group ID`), kept in the
//! cluster under test: no coordinator and no daemon on any host. Each part writes that it has
//! reached a point (one small document, `group:point:I`, in [`JOIN_INDEX`]) and waits until
//! every part of the group has (a real-time multi-get of the N ids, no refresh): what Rally's
//! actor system gives its load-driver hosts between two tasks, from the one service every
//! host already reaches. The track runner's tasks join this way, each starting on every part
//! once every part has ended the one before.
//!
//! The marks of a group are its own: a mark already there (`op_type=create` refused) or the
//! group's end mark means the group ran before, and the part stops with that said rather than
//! pass points nobody else reached. At the end every part reaches [`END`], then part 1 writes
//! the group's end mark and deletes every other mark; a part still looking at `END` takes the
//! end mark for the others' (it is written only once all have come). The index is hidden and
//! has no replica, so a track's `cluster-health` asking for green or its `_all` searches never
//! meet it; one small end mark a group stays.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::lifecycle::{Measurements, Phase, Stage, Work};
use super::SessionError;
use crate::cancel::Cancel;
use crate::cluster::{Target, TargetError};
use crate::corpus::part::Part;

/// Where the parts of every group leave their marks.
pub const JOIN_INDEX: &str = "searchbench-parts";

/// How often a waiting part looks again.
const POLL: Duration = Duration::from_millis(200);

/// How long a request to the marks' index is sent again while its shard starts.
const STARTING: Duration = Duration::from_secs(30);

/// The last point of a run in parts: after it, part 1 clears the group's marks.
pub const END: &str = "end";

#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    #[error("join point {point:?} of group {group}: {source}")]
    Target {
        group: String,
        point: String,
        source: TargetError,
    },
    /// The other parts did not all come in time: which did not.
    #[error(
        "join point {point:?} of group {group}: part(s) {} of {of} not there after {} s \
         (did they start, with the same --group?)",
        missing.join(", "), waited.as_secs()
    )]
    Missing {
        group: String,
        point: String,
        of: u32,
        missing: Vec<String>,
        waited: Duration,
    },
    #[error("join point {point:?} of group {group}: interrupted while waiting")]
    Interrupted { group: String, point: String },
    /// Marks of an earlier run of the same group are still there.
    #[error(
        "group {group} has run before (its marks are in the `{JOIN_INDEX}` index of the \
         cluster): give every part a new --group, or delete the marks of the run that never \
         ended (DELETE /{JOIN_INDEX})"
    )]
    Used { group: String },
}

/// A part of a run split over several drivers: which, of what group, and how long it waits
/// for the others at a join point.
#[derive(Debug, Clone)]
pub struct PartOf {
    pub part: Part,
    pub group: String,
    pub wait: Duration,
}

/// This part's join points.
#[derive(Debug, Clone)]
pub struct JoinPoints {
    target: Target,
    group: String,
    part: Part,
    /// The longest a part waits at one point for the others.
    limit: Duration,
    /// The points reached so far (part 1 deletes their marks at the end).
    reached: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl JoinPoints {
    pub fn new(target: Target, group: &str, part: Part, limit: Duration) -> JoinPoints {
        JoinPoints {
            target,
            group: group.to_string(),
            part,
            limit,
            reached: Default::default(),
        }
    }

    fn done_id(&self) -> String {
        format!("{}:done", self.group)
    }

    /// Makes the marks' index (hidden, one shard, no replica) unless it is there. An engine
    /// that does not know hidden indices (before 7.7) gets it without.
    async fn prepare(&self) -> Result<(), TargetError> {
        let settings = |hidden: bool| {
            let mut index = json!({ "number_of_shards": 1, "number_of_replicas": 0 });
            if hidden {
                index["hidden"] = true.into();
            }
            json!({ "settings": { "index": index } })
        };
        let path = format!("/{JOIN_INDEX}");
        for hidden in [true, false] {
            match self
                .target
                .send_json::<Value>(Method::PUT, &path, &settings(hidden))
                .await
            {
                Ok(_) => return Ok(()),
                Err(TargetError::Status {
                    status: 400,
                    reason,
                    ..
                }) if reason.contains("already_exists") || reason.contains("already exists") => {
                    return Ok(())
                }
                Err(TargetError::Status { status: 400, .. }) if hidden => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The id of part `index`'s mark at `point`. Ids go in a URL path as they are: the group
    /// is letters, digits, `.`, `_`, `-` (`--group`), the point is kept to those too, with a
    /// hash of its own words so that two points never share marks.
    fn id(&self, point: &str, index: u32) -> String {
        let plain: String = point
            .chars()
            .take(40)
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let hash = crate::rng::fnv1a([point.as_bytes()]) as u32;
        format!("{}:{plain}-{hash:08x}:{index}", self.group)
    }

    /// Says this part has reached `point`, then waits until every part of the group has.
    pub async fn reach(&self, point: &str, cancel: &Cancel) -> Result<(), JoinError> {
        let err = |source| JoinError::Target {
            group: self.group.clone(),
            point: point.to_string(),
            source,
        };
        if self.part.is_whole() {
            return Ok(());
        }
        let first = self.reached.lock().map_or(true, |r| r.is_empty());
        if first {
            self.prepare().await.map_err(err)?;
            if self.done().await.map_err(err)? {
                return Err(JoinError::Used {
                    group: self.group.clone(),
                });
            }
        }
        let mark = json!({
            "group": self.group,
            "point": point,
            "part": self.part.to_string(),
            "at_unix_ms": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
        });
        let path = format!(
            "/{JOIN_INDEX}/_doc/{}?op_type=create",
            self.id(point, self.part.index)
        );
        match self.request(Method::PUT, &path, Some(&mark)).await {
            Ok(_) => {}
            Err(TargetError::Status { status: 409, .. }) => {
                return Err(JoinError::Used {
                    group: self.group.clone(),
                })
            }
            Err(e) => return Err(err(e)),
        }
        if let Ok(mut reached) = self.reached.lock() {
            reached.push(point.to_string());
        }
        let mut ids: Vec<String> = (1..=self.part.of).map(|i| self.id(point, i)).collect();
        // At the end, part 1's end mark says every part came (it clears the others' marks).
        if point == END {
            ids.push(self.done_id());
        }
        let started = Instant::now();
        loop {
            let found = self
                .request(
                    Method::POST,
                    &format!("/{JOIN_INDEX}/_mget?_source=false"),
                    Some(&json!({ "ids": ids })),
                )
                .await
                .map_err(err)?;
            let docs = found.get("docs").and_then(Value::as_array);
            // A mark is there when the answer's document in its place is it, found: an answer
            // with fewer documents, none (a proxy's error page with a 200), or others' ids
            // says no part is there.
            let there = |k: usize| {
                let d = docs.and_then(|d| d.get(k));
                d.is_some_and(|d| {
                    d.get("found") == Some(&Value::Bool(true))
                        && d.get("_id").and_then(Value::as_str) == Some(ids[k].as_str())
                })
            };
            if point == END && there(ids.len() - 1) {
                return Ok(());
            }
            let missing: Vec<String> = (0..self.part.of as usize)
                .filter(|k| !there(*k))
                .map(|k| format!("{}", k + 1))
                .collect();
            // Our own mark gone (the index deleted under us): write it again, or the others
            // would wait for it until their limit.
            if missing.contains(&self.part.index.to_string()) {
                let path = format!("/{JOIN_INDEX}/_doc/{}", self.id(point, self.part.index));
                self.request(Method::PUT, &path, Some(&mark))
                    .await
                    .map_err(err)?;
            }
            if missing.is_empty() {
                return Ok(());
            }
            if started.elapsed() >= self.limit {
                return Err(JoinError::Missing {
                    group: self.group.clone(),
                    point: point.to_string(),
                    of: self.part.of,
                    missing,
                    waited: self.limit,
                });
            }
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                () = cancel.cancelled() => return Err(JoinError::Interrupted {
                    group: self.group.clone(),
                    point: point.to_string(),
                }),
            }
        }
    }

    /// A request to the marks' index, sent again while its shard is still starting: a part
    /// that finds the index another part made a moment ago can be answered 503 (the shard
    /// recovering) for a short while, on a fresh node most of all.
    async fn request(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, TargetError> {
        let started = Instant::now();
        loop {
            let sent = match body {
                Some(b) => {
                    self.target
                        .send_json::<Value>(method.clone(), path, b)
                        .await
                }
                None => self
                    .target
                    .send(method.clone(), path, None)
                    .await
                    .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null)),
            };
            match sent {
                Err(TargetError::Status { status: 503, .. }) if started.elapsed() < STARTING => {
                    tokio::time::sleep(POLL).await;
                }
                other => return other,
            }
        }
    }

    /// Whether the group's end mark is there.
    async fn done(&self) -> Result<bool, TargetError> {
        let path = format!("/{JOIN_INDEX}/_doc/{}", self.done_id());
        match self.request(Method::GET, &path, None).await {
            Ok(_) => Ok(true),
            Err(TargetError::Status { status: 404, .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The run's last point: every part reaches [`END`]; then part 1 writes the group's end
    /// mark and deletes every other mark of the group.
    pub async fn end(&self, cancel: &Cancel) -> Result<(), JoinError> {
        if self.part.is_whole() {
            return Ok(());
        }
        self.reach(END, cancel).await?;
        if self.part.index != 1 {
            return Ok(());
        }
        let err = |source| JoinError::Target {
            group: self.group.clone(),
            point: END.to_string(),
            source,
        };
        let mark = json!({ "group": self.group, "point": "done" });
        let path = format!("/{JOIN_INDEX}/_doc/{}", self.done_id());
        self.request(Method::PUT, &path, Some(&mark))
            .await
            .map_err(err)?;
        let points = self.reached.lock().map(|r| r.clone()).unwrap_or_default();
        let ids: Vec<String> = points
            .iter()
            .flat_map(|p| (1..=self.part.of).map(move |i| (p, i)))
            .map(|(p, i)| self.id(p, i))
            .collect();
        // The last marks may not be searchable yet: a delete by query finds only what is.
        self.request(Method::POST, &format!("/{JOIN_INDEX}/_refresh"), None)
            .await
            .map_err(err)?;
        self.request(
            Method::POST,
            &format!("/{JOIN_INDEX}/_delete_by_query?conflicts=proceed&refresh=true"),
            Some(&json!({ "query": { "ids": { "values": ids } } })),
        )
        .await
        .map_err(err)?;
        Ok(())
    }
}

/// Where the parts of a run in parts wait for each other: before a step (every part has
/// ended the one before), or at the end (then part 1 clears the group's marks). Ctrl-C while
/// waiting ends the wait; the steps after it are not run.
pub struct JoinPhase<'p> {
    pub point: String,
    pub end: bool,
    pub part: &'p PartOf,
    /// One set of join points for the run (made with the cluster, at the first join).
    pub joins: &'p std::cell::OnceCell<JoinPoints>,
    pub interrupt: Cancel,
}

impl<'p> JoinPhase<'p> {
    /// The step that joins the parts at `point` (at the end when `end`), for a part;
    /// nothing for a whole run.
    pub fn step(
        part: Option<&'p PartOf>,
        joins: &'p std::cell::OnceCell<JoinPoints>,
        interrupt: &Cancel,
        point: String,
        end: bool,
    ) -> Option<super::lifecycle::Step<'p>> {
        Some(super::lifecycle::Step::One(Box::new(JoinPhase {
            point,
            end,
            part: part?,
            joins,
            interrupt: interrupt.clone(),
        })))
    }
}

impl Phase for JoinPhase<'_> {
    fn name(&self) -> String {
        format!("join: {}", self.point)
    }

    fn wanted(&self, _: &super::lifecycle::Outcome) -> bool {
        !self.interrupt.is_cancelled()
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let joins = self.joins.get_or_init(|| {
                JoinPoints::new(
                    stage.target.clone(),
                    &self.part.group,
                    self.part.part,
                    self.part.wait,
                )
            });
            stage.observer.event(super::Event::Stage(format!(
                "part {} waits for the other parts at {}",
                self.part.part, self.point
            )));
            let joined = if self.end {
                joins.end(&self.interrupt).await
            } else {
                joins.reach(&self.point, &self.interrupt).await
            };
            match joined {
                Ok(()) | Err(JoinError::Interrupted { .. }) => Ok(Measurements::default()),
                Err(e) => Err(SessionError::Other(e.to_string())),
            }
        })
    }
}

/// A run that is part I of N (`--part I/N --group ID`): its load is its share of the
/// documents; its query phase waits until the index holds every part's documents, then
/// measures its share of the coverages against the whole corpus's truth.
#[derive(Debug, Clone)]
pub struct RunPart {
    pub part: crate::corpus::part::Part,
    pub group: Option<String>,
    /// The documents of the whole run, what the index holds once every part has loaded.
    pub whole_docs: u64,
    /// The longest the query phase waits for the other parts' documents.
    pub wait: std::time::Duration,
}

/// The longest a part's query phase waits for the other parts' loads by default.
pub const PARTS_WAIT: std::time::Duration = std::time::Duration::from_secs(30 * 60);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::double::{block_on, Double};

    /// An answer to the marks' multi-get that holds no documents (a proxy's page with a 200),
    /// fewer than asked, or others' ids, has no part there: the part waits to its limit and
    /// names them, never passing a point no other part reached.
    #[test]
    fn an_answer_without_the_marks_is_no_part_there() {
        for answer in [
            json!({}),
            json!({"docs": []}),
            json!({"docs": [{"_id": "other", "found": true}, {"_id": "x", "found": true}]}),
        ] {
            let cluster = Double::serve_status(move |r| match r.path {
                ref p if p.contains("_mget") => (200, answer.to_string()),
                // The group's end mark is not there: it has not run before.
                ref p if p.ends_with(":done") => (404, r#"{"found": false}"#.into()),
                _ => (200, "{}".into()),
            });
            let part = Part { index: 1, of: 2 };
            let points = JoinPoints::new(cluster.target(), "g", part, Duration::from_millis(300));
            let (_keep, cancel) = Cancel::new();
            let reached = block_on(points.reach("load", &cancel));
            match reached {
                Err(JoinError::Missing { missing, .. }) => assert_eq!(missing, ["1", "2"]),
                other => panic!("{other:?}"),
            }
        }
    }
}

//! Join points of one run split over several drivers (`--part I/N --group ID`), kept in the
//! cluster under test: no coordinator and no daemon on any host. Each part writes that it has
//! reached a point (one small document, `group:point:I`, in [`JOIN_INDEX`]) and waits until
//! every part of the group has (a real-time multi-get of the N ids, no refresh): what Rally's
//! actor system gives its load-driver hosts between two tasks, from the one service every
//! host already reaches. The track runner's tasks join this way, each starting on every part
//! once every part has ended the one before.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use crate::cancel::Cancel;
use crate::cluster::{Target, TargetError};
use crate::corpus::part::Part;

/// Where the parts of every group leave their marks.
pub const JOIN_INDEX: &str = "searchbench-parts";

/// How often a waiting part looks again.
const POLL: Duration = Duration::from_millis(200);

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
}

/// This part's join points.
#[derive(Debug, Clone)]
pub struct JoinPoints {
    target: Target,
    group: String,
    part: Part,
    /// The longest a part waits at one point for the others.
    limit: Duration,
}

impl JoinPoints {
    pub fn new(target: Target, group: &str, part: Part, limit: Duration) -> JoinPoints {
        JoinPoints {
            target,
            group: group.to_string(),
            part,
            limit,
        }
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
        let mark = json!({
            "group": self.group,
            "point": point,
            "part": self.part.to_string(),
            "at_unix_ms": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
        });
        let path = format!("/{JOIN_INDEX}/_doc/{}", self.id(point, self.part.index));
        self.target
            .send_json::<Value>(Method::PUT, &path, &mark)
            .await
            .map_err(err)?;
        let ids: Vec<String> = (1..=self.part.of).map(|i| self.id(point, i)).collect();
        let started = Instant::now();
        loop {
            let found: Value = self
                .target
                .send_json(
                    Method::POST,
                    &format!("/{JOIN_INDEX}/_mget?_source=false"),
                    &json!({ "ids": ids }),
                )
                .await
                .map_err(err)?;
            let missing: Vec<String> = found
                .get("docs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .zip(1..)
                .filter(|(d, _)| d.get("found") != Some(&Value::Bool(true)))
                .map(|(_, i)| format!("{i}"))
                .collect();
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
}

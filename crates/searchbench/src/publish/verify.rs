//! `results verify --publish URL`: whether the results cluster still holds every run the
//! store says it published there, as it now is. A cluster that lost its data (a node rebuilt
//! without its disk, an index deleted by hand, a retention job) is noticed: each run it lacks
//! is made pending again in the store, so the next publish sends it.

use reqwest::Method;
use serde::Serialize;
use serde_json::{json, Value};

use super::{PublishError, Publisher};
use crate::cluster::TargetError;
use crate::store::{Filter, Store};

/// Ids asked for in one `_mget`.
const PAGE: usize = 500;

/// What a verify found.
#[derive(Debug, Default, Serialize)]
pub struct Verified {
    pub destination: String,
    /// Runs the store says are there, and are.
    pub present: usize,
    /// Runs the store said were there and are not (or not as they are now): pending again.
    pub missing: Vec<Missing>,
    /// Runs never published there, or pending already (a publish failed, or they changed).
    pub pending: usize,
}

#[derive(Debug, Serialize)]
pub struct Missing {
    pub run: String,
    pub why: String,
}

impl Publisher {
    /// Checks that the cluster holds every run of `store` published here, in the state the
    /// store has it; a run it lacks is marked pending in the store.
    pub async fn verify(&self, store: &Store) -> Result<Verified, PublishError> {
        let destination = self.destination();
        let mut verified = Verified {
            destination: destination.clone(),
            ..Verified::default()
        };
        let mut held = Vec::new();
        for row in store.list(&Filter::default())? {
            let there = store
                .publish_states(&row.id)?
                .into_iter()
                .any(|p| p.destination == destination && p.holds(row.state));
            if there {
                held.push(row);
            } else if row.state != crate::store::State::Running {
                verified.pending += 1;
            }
        }
        let index = self.index("runs");
        for page in held.chunks(PAGE) {
            let ids: Vec<&str> = page.iter().map(|r| r.id.0.as_str()).collect();
            let found = self.states_of(&index, &ids).await?;
            for row in page {
                let why = match found.iter().find(|(id, _)| *id == row.id.0) {
                    Some((_, Some(state))) if state == row.state.name() => {
                        verified.present += 1;
                        continue;
                    }
                    Some((_, Some(state))) => format!(
                        "{index} holds it {state}, the store has it {}",
                        row.state.name()
                    ),
                    _ => format!("{index} does not hold it"),
                };
                store.mark_publish_failed(&row.id, &destination, &format!("verify: {why}"))?;
                verified.missing.push(Missing {
                    run: row.id.0.clone(),
                    why,
                });
            }
        }
        Ok(verified)
    }

    /// The state each of `ids` has in `index` (`None`: not there). An index that is gone
    /// holds none of them.
    async fn states_of(
        &self,
        index: &str,
        ids: &[&str],
    ) -> Result<Vec<(String, Option<String>)>, PublishError> {
        let body = json!({"ids": ids}).to_string().into_bytes();
        let reply = self
            .target
            .send(
                Method::POST,
                &format!("/{index}/_mget?_source_includes=status"),
                Some(("application/json", body)),
            )
            .await;
        let reply = match reply {
            Ok(r) => r,
            Err(TargetError::Status { status: 404, .. }) => {
                return Ok(ids.iter().map(|id| (id.to_string(), None)).collect())
            }
            Err(e) => return Err(self.target_error(e)),
        };
        let answer: Value =
            serde_json::from_slice(&reply.body).map_err(|e| PublishError::Refused {
                destination: self.destination(),
                reason: format!("{index}/_mget: not JSON: {e}"),
            })?;
        let docs = answer["docs"].as_array().map_or(&[][..], Vec::as_slice);
        Ok(docs
            .iter()
            .filter_map(|d| {
                let id = d["_id"].as_str()?.to_string();
                let state = (d["found"] == true)
                    .then(|| d["_source"]["status"].as_str().map(str::to_string))
                    .flatten();
                Some((id, state))
            })
            .collect())
    }
}

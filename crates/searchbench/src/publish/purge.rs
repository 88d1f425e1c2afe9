//! Deleting published documents without `_delete_by_query`, which a distribution without the
//! reindex module lacks (the results node `engine start` makes): a search for a page of ids,
//! then `_bulk` deletes, until none is left. Used to replace a configuration's change points
//! and to prune old runs (`results prune --older-than 90d --publish URL`).

use std::collections::HashSet;

use reqwest::Method;
use serde::Serialize;
use serde_json::{json, Value};

use super::{PublishError, Publisher};
use crate::cluster::TargetError;

/// Ids looked up, and deleted, at a time.
const PAGE: usize = 1000;
/// The most pages one purge deletes: ten million documents, then it says so.
const PAGES: usize = 10_000;
/// The indices holding documents of a run besides its own in `PREFIX-runs`.
const OF_A_RUN: [&str; 4] = ["metrics", "timeline", "telemetry", "tasks"];

/// What a prune of the cluster deleted (or, dry, would).
#[derive(Debug, Default, Clone, Serialize)]
pub struct ClusterPruned {
    pub destination: String,
    /// Runs deleted (their documents in every index with them).
    pub runs: usize,
    /// Documents deleted in all, the runs' own included.
    pub documents: usize,
}

impl Publisher {
    /// Deletes every published run that began before `before_ms` (epoch milliseconds), with
    /// its documents in every index, whichever store published it: the team's cluster keeps
    /// what its retention says. A page of runs at a time, its documents first and the run
    /// last, so a prune cut short is finished by the next. With `dry`, only counts the runs.
    pub async fn prune(&self, before_ms: u64, dry: bool) -> Result<ClusterPruned, PublishError> {
        let runs_index = self.index("runs");
        let old = json!({"range": {"started_at": {"lt": before_ms}}});
        let mut pruned = ClusterPruned {
            destination: self.destination(),
            ..ClusterPruned::default()
        };
        if dry {
            pruned.runs = self.count(&runs_index, old).await?;
            return Ok(pruned);
        }
        let mut before = HashSet::new();
        for _ in 0..PAGES {
            let Some(page) = self.page_of_ids(&runs_index, &old).await? else {
                return Ok(pruned);
            };
            if page.is_empty() {
                return Ok(pruned);
            }
            self.not_again(&runs_index, &mut before, &page)?;
            let runs: Vec<&str> = page.iter().map(|(_, id)| id.as_str()).collect();
            let of_these = json!({"terms": {"run_id": runs}});
            for what in OF_A_RUN {
                pruned.documents += self.purge(&self.index(what), of_these.clone()).await?;
            }
            self.delete_ids(&runs_index, &page).await?;
            self.refresh(&runs_index).await?;
            pruned.runs += runs.len();
            pruned.documents += runs.len();
        }
        Err(self.refused(format!(
            "{runs_index}: runs older than the moment left after {PAGES} pages of deletes"
        )))
    }

    /// Deletes every document of `index` that `query` matches; how many. A missing index
    /// holds none.
    pub(super) async fn purge(&self, index: &str, query: Value) -> Result<usize, PublishError> {
        let (mut deleted, mut before) = (0, HashSet::new());
        for _ in 0..PAGES {
            let ids = match self.page_of_ids(index, &query).await? {
                Some(ids) if !ids.is_empty() => ids,
                _ => return Ok(deleted),
            };
            self.not_again(index, &mut before, &ids)?;
            self.delete_ids(index, &ids).await?;
            self.refresh(index).await?;
            deleted += ids.len();
        }
        Err(self.refused(format!(
            "{index}: documents left after {PAGES} pages of deletes"
        )))
    }

    /// Refuses a page holding what the page before it held (`before`, then this page): its
    /// deletes did not take (an alias whose search reaches indices its name does not, a
    /// cluster answering every delete "not found"), and deleting again would go on for ever,
    /// counting documents never deleted.
    fn not_again(
        &self,
        index: &str,
        before: &mut HashSet<(String, String)>,
        page: &[(String, String)],
    ) -> Result<(), PublishError> {
        if page.iter().any(|hit| before.contains(hit)) {
            return Err(self.refused(format!(
                "{index}: documents deleted came back in the next page (were they deleted \
                 where the search found them?)"
            )));
        }
        *before = page.iter().cloned().collect();
        Ok(())
    }

    /// The index and id of each of a page of `index`'s documents matching `query` (the index
    /// the hit is in: `index` may be an alias); `None` when there is no such index.
    async fn page_of_ids(
        &self,
        index: &str,
        query: &Value,
    ) -> Result<Option<Vec<(String, String)>>, PublishError> {
        let body = json!({"size": PAGE, "_source": false, "query": query});
        let hits = match self.search(index, body).await {
            Ok((hits, _)) => hits,
            Err(PublishError::Target {
                source: TargetError::Status { status: 404, .. },
                ..
            }) => return Ok(None),
            Err(e) => return Err(e),
        };
        hits.iter()
            .map(|h| {
                let Some(id) = h["_id"].as_str() else {
                    let h = crate::shown::Shown(h);
                    return Err(self.refused(format!("{index}/_search: a hit without an _id: {h}")));
                };
                // Where the hit is; a hit that does not say is in the index searched.
                let at = h["_index"].as_str().unwrap_or(index);
                Ok((at.to_string(), id.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// How many documents of `index` match `query` (none without the index).
    async fn count(&self, index: &str, query: Value) -> Result<usize, PublishError> {
        let body = json!({"query": query}).to_string().into_bytes();
        let reply = match self
            .target
            .send(
                Method::POST,
                &format!("/{index}/_count"),
                Some(("application/json", body)),
            )
            .await
        {
            Ok(reply) => reply,
            Err(TargetError::Status { status: 404, .. }) => return Ok(0),
            Err(e) => return Err(self.target_error(e)),
        };
        let answer: Value = serde_json::from_slice(&reply.body)
            .map_err(|e| self.refused(format!("{index}/_count: the answer: {e}")))?;
        answer["count"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| self.refused(format!("{index}/_count: no count in {answer}")))
    }

    pub(super) fn refused(&self, reason: String) -> PublishError {
        PublishError::Refused {
            destination: self.destination(),
            reason,
        }
    }

    pub(super) async fn refresh(&self, index: &str) -> Result<(), PublishError> {
        self.target
            .send(Method::POST, &format!("/{index}/_refresh"), None)
            .await
            .map(|_| ())
            .map_err(|e| self.target_error(e))
    }

    /// Deletes the documents `ids` (each in its index) found in `index` in one `_bulk`; one
    /// already gone (another publisher's delete) is as good.
    async fn delete_ids(&self, index: &str, ids: &[(String, String)]) -> Result<(), PublishError> {
        let mut body = Vec::new();
        for (at, id) in ids {
            body.extend_from_slice(
                json!({"delete": {"_index": at, "_id": id}})
                    .to_string()
                    .as_bytes(),
            );
            body.push(b'\n');
        }
        let reply = self
            .target
            .send(Method::POST, "/_bulk", Some(("application/x-ndjson", body)))
            .await
            .map_err(|e| self.target_error(e))?;
        let answer: Value = serde_json::from_slice(&reply.body)
            .map_err(|e| self.refused(format!("deleting from {index}: the _bulk answer: {e}")))?;
        let items = answer["items"].as_array().map_or(&[][..], Vec::as_slice);
        if items.len() != ids.len() {
            return Err(self.refused(format!(
                "deleting from {index}: {} item(s) answered for {} delete(s)",
                items.len(),
                ids.len()
            )));
        }
        for (item, (_, id)) in items.iter().zip(ids) {
            let status = item["delete"]["status"].as_u64().unwrap_or(0);
            if !matches!(status, 200 | 404) {
                return Err(self.refused(format!(
                    "deleting {id} of {index}: status {status}: {}",
                    item["delete"]["error"]
                )));
            }
        }
        Ok(())
    }
}

//! Reading published runs back from the team's cluster into a store (`--from URL`), so
//! `history`, `compare`, `check`, `report` and `results` give from the cluster what they
//! give from the SQLite file the runs were published from: each run is rebuilt whole from
//! its run document ([`super::whole`]) under its own id, its telemetry from the telemetry
//! index when a view draws it.

use std::collections::HashSet;

use reqwest::Method;
use serde_json::{json, Value};

use super::{whole, PublishError, Publisher, IDENTITY_KEYS};
use crate::cluster::TargetError;
use crate::store::{Filter, RunId, Store, WholeRun};

/// The bytes a page of run documents aims at: far under the answer bound, big enough that
/// a thousand small runs take a few requests.
const PAGE_BYTES: usize = 16 << 20;

/// Run documents asked for in the first page, before their size is known (a one-hour run's
/// document is a few MB).
const FIRST_PAGE: usize = 16;

/// Telemetry documents per page (each well under a kilobyte).
const TELEMETRY_PAGE: usize = 5_000;
/// The most pages one read takes of an index: a million, past any store's runs (or a
/// thousand runs' telemetry) many times over.
const MOST_PAGES: usize = 1_000_000;

/// Runs whose telemetry one request asks for.
const RUNS_PER_TELEMETRY_QUERY: usize = 1_000;

/// What was read back, and the documents skipped because a publish would never write them
/// (each named, with why).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadBack {
    pub runs: usize,
    pub requests: usize,
    pub skipped: Vec<String>,
}

/// Which published runs to read back.
#[derive(Debug, Clone, Copy)]
pub enum Reading<'a> {
    /// Every run, whole (telemetry apart), oldest first: what every view reads.
    Every,
    /// The newest `limit` runs `filter` matches, their rows only (`results list`): the read
    /// stops there, whatever the cluster holds.
    Newest { filter: &'a Filter, limit: usize },
}

impl Publisher {
    /// Every run published under this prefix, put into `into` whole (telemetry apart) under
    /// its own id, oldest first. A prefix nothing was published under is an error, so a typo
    /// does not read as an empty history.
    pub async fn read_runs(&self, into: &Store) -> Result<ReadBack, PublishError> {
        self.read(into, Reading::Every).await
    }

    /// The runs `reading` names put into `into` under their own ids. A document a publish
    /// would never write (not a run, an id of another shape, one run twice) is skipped and
    /// named in [`ReadBack::skipped`]: one bad document does not hide the rest.
    pub async fn read(&self, into: &Store, reading: Reading<'_>) -> Result<ReadBack, PublishError> {
        let index = self.index("runs");
        self.check_schema(&index).await?;
        let (order, parts, limit) = match reading {
            Reading::Every => (
                "asc",
                json!(["row", "timeline", "histograms", "phases", "published_at"]),
                None,
            ),
            Reading::Newest { limit, .. } => ("desc", json!(["row", "published_at"]), Some(limit)),
        };
        let mut read = ReadBack::default();
        if limit == Some(0) {
            return Ok(read);
        }
        let mut seen = HashSet::new();
        // The newest runs, kept to be stored oldest first as the cluster ordered them.
        let mut newest = Vec::new();
        let mut size = limit.map_or(FIRST_PAGE, |l| l.min(FIRST_PAGE));
        let mut after: Option<Value> = None;
        let mut pages = HashSet::new();
        loop {
            let mut body = json!({
                "size": size,
                "track_total_hits": false,
                "sort": [
                    {"started_at": order},
                    {"store_order": {"order": order, "unmapped_type": "long"}},
                    {"run_id": order}
                ],
                "_source": {"includes": parts},
            });
            if let Some(after) = &after {
                body["search_after"] = after.clone();
            }
            read.requests += 1;
            let (hits, bytes) = match self.search(&index, body).await {
                // A page of long runs beyond the answer's bound: the same page, half as many.
                Err(PublishError::Target {
                    source: TargetError::TooLarge { .. },
                    ..
                }) if size > 1 => {
                    size /= 2;
                    continue;
                }
                other => other?,
            };
            let n = hits.len();
            for hit in &hits {
                let doc_id = hit["_id"].as_str().unwrap_or("?");
                let (id, run) = match published_run(hit, doc_id, &mut seen) {
                    Ok(run) => run,
                    Err(why) => {
                        read.skipped.push(format!(
                            "run document {} of {index}: {why}",
                            doc_id.chars().take(80).collect::<String>()
                        ));
                        continue;
                    }
                };
                // When the run was published here (ms), as its document says.
                let at = hit["_source"]["published_at"].as_u64().map(|ms| ms / 1000);
                match reading {
                    Reading::Every => {
                        self.put_read(into, &run, &id, at)?;
                        read.runs += 1;
                    }
                    Reading::Newest { filter, .. } => {
                        if filter.matches_whole(&run) {
                            newest.push((id, run, at));
                        }
                    }
                }
            }
            let enough = limit.is_some_and(|l| newest.len() >= l);
            let next = hits.last().and_then(|h| h.get("sort")).cloned();
            self.advanced(&index, &mut pages, &next)?;
            after = next;
            if enough || n < size || after.is_none() {
                break;
            }
            // The next page sized so its answer is about PAGE_BYTES.
            let per_doc = (bytes / n.max(1)).max(1);
            size = (PAGE_BYTES / per_doc).clamp(1, 1_000);
            if let Some(l) = limit {
                size = size.min(l - newest.len());
            }
        }
        newest.truncate(limit.unwrap_or(usize::MAX));
        for (id, run, at) in newest.iter().rev() {
            self.put_read(into, run, id, *at)?;
            read.runs += 1;
        }
        Ok(read)
    }

    /// Refuses to read on where a page ended where a page before it did (a cluster or proxy
    /// that ignores `search_after`, or loops, would give its pages for ever), or past
    /// [`MOST_PAGES`] pages.
    fn advanced(
        &self,
        index: &str,
        pages: &mut HashSet<String>,
        now: &Option<Value>,
    ) -> Result<(), PublishError> {
        let refused = |reason: String| {
            Err(PublishError::Refused {
                destination: self.destination(),
                reason,
            })
        };
        match now {
            Some(_) if pages.len() >= MOST_PAGES => refused(format!(
                "{index}: {MOST_PAGES} pages read and more remain: stopped reading"
            )),
            Some(end) if !pages.insert(end.to_string()) => refused(format!(
                "{index} gave the same page twice (it ignores `search_after`): stopped reading"
            )),
            _ => Ok(()),
        }
    }

    /// Keeps a run read back in `into`, published here as it is (it was read from here) at
    /// `at` (when its document says it was), so a view of it says what the view of the store
    /// that published it says.
    fn put_read(
        &self,
        into: &Store,
        run: &crate::store::WholeRun,
        id: &str,
        at: Option<u64>,
    ) -> Result<(), PublishError> {
        let kept = into.put_whole(run, Some(id), &[])?;
        let destination = self.destination();
        match at {
            Some(at) => into.mark_published_at(&kept, &destination, run.state, at)?,
            None => into.mark_published(&kept, &destination, run.state)?,
        }
        Ok(())
    }

    /// The telemetry of the runs `ids`, put into `into` as the store held it.
    pub async fn read_telemetry(&self, into: &Store, ids: &[RunId]) -> Result<usize, PublishError> {
        let index = self.index("telemetry");
        let mut samples = 0;
        for chunk in ids.chunks(RUNS_PER_TELEMETRY_QUERY) {
            let names: Vec<&str> = chunk.iter().map(|id| id.0.as_str()).collect();
            let (mut after, mut pages): (Option<Value>, _) = (None, HashSet::new());
            loop {
                let mut body = json!({
                    "size": TELEMETRY_PAGE,
                    "track_total_hits": false,
                    "query": {"terms": {"run_id": names}},
                    "sort": [{"run_id": "asc"}, {"second": "asc"}, {"node": "asc"}],
                });
                if let Some(after) = after.take() {
                    body["search_after"] = after;
                }
                let (hits, _) = match self.search(&index, body).await {
                    // No run was published with telemetry.
                    Err(PublishError::Target {
                        source: TargetError::Status { status: 404, .. },
                        ..
                    }) => return Ok(samples),
                    other => other?,
                };
                let n = hits.len();
                let mut by_run: Vec<(RunId, Vec<Value>)> = Vec::new();
                for hit in &hits {
                    let Some(Value::Object(doc)) = hit.get("_source") else {
                        continue;
                    };
                    let Some(run) = doc.get("run_id").and_then(Value::as_str) else {
                        continue;
                    };
                    let mut sample = doc.clone();
                    for key in IDENTITY_KEYS.iter().chain(&["at"]) {
                        sample.remove(*key);
                    }
                    match by_run.last_mut() {
                        Some((id, rows)) if id.0 == run => rows.push(Value::Object(sample)),
                        _ => by_run.push((RunId(run.to_string()), vec![Value::Object(sample)])),
                    }
                }
                for (id, rows) in by_run {
                    samples += into.append_telemetry(&id, &rows)?;
                }
                if n < TELEMETRY_PAGE {
                    break;
                }
                after = hits.last().and_then(|h| h.get("sort")).cloned();
                self.advanced(&index, &mut pages, &after)?;
                if after.is_none() {
                    break;
                }
            }
        }
        Ok(samples)
    }

    /// One search's hits and the answer's size in bytes. A missing index is the error a
    /// read of nothing published gets.
    pub(super) async fn search(
        &self,
        index: &str,
        body: Value,
    ) -> Result<(Vec<Value>, usize), PublishError> {
        let reply = self
            .target
            .send(
                Method::POST,
                &format!("/{index}/_search"),
                Some(("application/json", body.to_string().into_bytes())),
            )
            .await
            .map_err(|e| match e {
                TargetError::Status { status: 404, .. } if index.ends_with("-runs") => {
                    PublishError::Refused {
                        destination: self.destination(),
                        reason: format!(
                            "nothing is published there: no index {index} (check --from and \
                             --from-prefix)"
                        ),
                    }
                }
                e => self.target_error(e),
            })?;
        let bytes = reply.body.len();
        let answer: Value =
            serde_json::from_slice(&reply.body).map_err(|e| PublishError::Refused {
                destination: self.destination(),
                reason: format!("the answer of {index}/_search is not JSON: {e}"),
            })?;
        let hits = match answer["hits"]["hits"].as_array() {
            Some(hits) => hits.clone(),
            None => {
                return Err(PublishError::Refused {
                    destination: self.destination(),
                    reason: format!("the answer of {index}/_search has no hits"),
                })
            }
        };
        Ok((hits, bytes))
    }
}

/// The run a hit holds, as a publish writes it: a run document whose run id is a run id of
/// this tool's shape and its document's id, not read before. Why not, when not.
fn published_run(
    hit: &Value,
    doc_id: &str,
    seen: &mut HashSet<String>,
) -> Result<(String, WholeRun), String> {
    let (id, run) = whole::whole_run(&hit["_source"])?;
    // A run's id names its files (a report's page) and selects it by prefix: a document not
    // under its run's id, or an id of another shape (one a prefix of another's), is not
    // trusted.
    if !crate::store::is_run_id(&id) || id != doc_id {
        return Err(format!(
            "its run id {:?} is not its document's id, or not a run id (8 hex digits)",
            id.chars().take(80).collect::<String>()
        ));
    }
    if !seen.insert(id.clone()) {
        return Err(format!("run {id} is published twice"));
    }
    Ok((id, run))
}

//! The team's notes (`searchbench annotate`) in `PREFIX-annotations`, so a history, a site or a
//! dashboard read from the results cluster marks them as one read from the store does. A
//! note's document id is made of what it says (its text, tags and moment): two stores that
//! publish the same note leave one. A note deleted from a store stays in the cluster (other
//! stores publish there too); delete its document there to forget it.
//!
//! A note is also placed, for the dashboards' charts, where the site's charts place it: at
//! the first complete run (of any configuration) it applies to, whose `started_at`, `engine`
//! and `engine_rank` it carries as a run's documents do. A note no run is under yet has none
//! and is drawn nowhere.

use reqwest::Method;
use serde_json::json;

use super::{PublishError, Publisher};
use crate::cluster::TargetError;
use crate::store::{Annotation, Store};

/// The most notes read back (a team writes a few a month).
const MOST: usize = 10_000;

/// A note's document id: what it says, hashed.
fn doc_id(note: &Annotation) -> String {
    let tags = serde_json::to_string(&note.tags).unwrap_or_default();
    let at = note.at_unix.map(|t| t.to_string()).unwrap_or_default();
    format!(
        "{:016x}",
        crate::rng::fnv1a([
            note.text.as_bytes(),
            b"\0",
            tags.as_bytes(),
            b"\0",
            at.as_bytes()
        ])
    )
}

impl Publisher {
    /// Sends every note of `store` (each replacing its own copy); how many.
    pub async fn publish_annotations(&self, store: &Store) -> Result<usize, PublishError> {
        let notes = store.annotations()?;
        if notes.is_empty() {
            return Ok(0);
        }
        let index = self.index("annotations");
        let mut body = Vec::new();
        let mut ids = Vec::new();
        for n in &notes {
            let id = doc_id(n);
            let action = json!({"index": {"_index": index, "_id": id}});
            let first = store.first_run_under(n)?;
            let engine = first.as_ref().and_then(|r| r.engine.clone());
            let doc = json!({
                "note_id": n.id,
                "text": n.text,
                "tags": n.tags,
                "at": n.at_unix.map(|t| t.saturating_mul(1000)),
                "created_at": n.created_unix.saturating_mul(1000),
                "started_at": first.as_ref().map(|r| r.started_unix.saturating_mul(1000)),
                "engine_rank": super::engine_rank(engine.as_deref()),
                "engine": engine,
            });
            for line in [action, doc] {
                body.extend_from_slice(line.to_string().as_bytes());
                body.push(b'\n');
            }
            ids.push((index.clone(), id));
        }
        self.bulk(body, &ids).await?;
        let _ = self
            .target
            .send(Method::POST, &format!("/{index}/_refresh"), None)
            .await;
        Ok(notes.len())
    }

    /// Reads the notes published here into `into`; how many. None published (no index yet)
    /// is none.
    pub async fn read_annotations(&self, into: &Store) -> Result<usize, PublishError> {
        let index = self.index("annotations");
        let body = json!({
            "size": MOST,
            "sort": [{"created_at": "asc"}, {"note_id": {"order": "asc", "unmapped_type": "long"}}],
        });
        let hits = match self.search(&index, body).await {
            Ok((hits, _)) => hits,
            Err(PublishError::Target {
                source: TargetError::Status { status: 404, .. },
                ..
            }) => return Ok(0),
            Err(e) => return Err(e),
        };
        let mut read = 0;
        // A cluster answers at most the notes asked for; one answering more is read no
        // further.
        for hit in hits.iter().take(MOST) {
            let s = &hit["_source"];
            // A document a publish would not write is left out: a note is text and its place.
            let (Some(text), Some(created)) = (s["text"].as_str(), s["created_at"].as_i64()) else {
                continue;
            };
            let Ok(tags) = serde_json::from_value(s["tags"].clone()) else {
                continue;
            };
            let note = Annotation {
                id: s["note_id"].as_i64().unwrap_or(0),
                text: text.to_string(),
                tags,
                at_unix: s["at"].as_i64().map(|ms| ms.div_euclid(1000)),
                created_unix: created.div_euclid(1000),
            };
            into.put_annotation(&note)?;
            read += 1;
        }
        Ok(read)
    }
}

//! The change points of what was published: for each configuration a published run belongs
//! to, its history over the store (by engine version and by time, as `history` finds them),
//! one document per change point in `PREFIX-changes`, so a chart of a metric can mark where
//! its level moved. A configuration's change points are replaced whole on each publish: a
//! history with one more night can move a change point or drop one.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::{PublishError, Publisher};
use crate::analysis::configuration::Configuration;
use crate::analysis::history::{self, Axis, HistoryError, Selection};
use crate::store::{RunRow, Store};

impl Publisher {
    /// Publishes the change points of the configurations of `rows` (each once), replacing
    /// the ones published before for them. The number of change points sent.
    pub async fn publish_changes(
        &self,
        store: &Store,
        rows: &[RunRow],
    ) -> Result<usize, PublishError> {
        let mut seen = BTreeSet::new();
        let mut sent = 0;
        for row in rows {
            let configuration = Configuration::of(row);
            if !seen.insert(configuration.id.clone()) {
                continue;
            }
            let mut docs = Vec::new();
            for axis in [Axis::Version, Axis::Time] {
                let mut selection = Selection::new(axis);
                selection.workload = Some(row.workload.clone());
                selection.configuration = Some(configuration.id.clone());
                let h = match history::load(store, &selection) {
                    Ok(h) => h,
                    // No complete run of it yet: nothing to say.
                    Err(HistoryError::NoRuns(_)) => continue,
                    Err(e) => {
                        return Err(PublishError::Refused {
                            destination: self.destination(),
                            reason: format!(
                                "the history of configuration {}: {e}",
                                configuration.id
                            ),
                        })
                    }
                };
                docs.extend(documents(&h, axis));
            }
            self.replace_changes(&configuration.id, docs.as_slice())
                .await?;
            sent += docs.len();
        }
        Ok(sent)
    }

    /// Indexes `docs`, then deletes the configuration's change points published before that
    /// are not among them: by their ids (a search, then `_bulk` deletes), never
    /// `_delete_by_query`, which a distribution without the reindex module lacks (the
    /// results node `engine start` makes). Readers never see the configuration without its
    /// change points.
    async fn replace_changes(
        &self,
        configuration: &str,
        docs: &[(String, Value)],
    ) -> Result<(), PublishError> {
        let index = self.index("changes");
        if !docs.is_empty() {
            let mut body = Vec::new();
            let mut ids = Vec::with_capacity(docs.len());
            for (id, doc) in docs {
                ids.push((index.clone(), id.clone()));
                let action = json!({"index": {"_index": index, "_id": id}});
                body.extend_from_slice(action.to_string().as_bytes());
                body.push(b'\n');
                body.extend_from_slice(doc.to_string().as_bytes());
                body.push(b'\n');
            }
            self.bulk(body, &ids).await?;
        }
        self.refresh(&index).await?;
        let kept: Vec<&str> = docs.iter().map(|(id, _)| id.as_str()).collect();
        let stale = json!({"bool": {
            "filter": [{"term": {"configuration": configuration}}],
            "must_not": [{"ids": {"values": kept}}],
        }});
        self.purge(&index, stale).await.map(|_| ())
    }
}

/// One document per change point of `h`: the change (its size, interval, p-value, the
/// levels either side), the metric, the run where the new level starts and the points
/// either side, the configuration, the axis.
fn documents(h: &history::History, axis: Axis) -> Vec<(String, Value)> {
    let axis_name = match axis {
        Axis::Version => "version",
        Axis::Time => "time",
    };
    let mut out = Vec::new();
    for s in &h.series {
        for c in &s.change_points {
            let Ok(Value::Object(mut doc)) = serde_json::to_value(c) else {
                continue;
            };
            // An index into this history's runs: nothing outside it.
            doc.remove("index");
            let run = h.runs.iter().find(|r| r.id == c.run);
            let started = run.map(|r| r.started_unix.saturating_mul(1000));
            // Where the new level starts on the version axis: a chart marks it there.
            let engine = run.and_then(|r| r.engine.clone());
            doc.insert(
                "engine_rank".into(),
                super::engine_rank(engine.as_deref()).map_or(Value::Null, Value::from),
            );
            doc.insert("engine".into(), engine.map_or(Value::Null, Value::from));
            doc.insert("configuration".into(), h.configuration.id.clone().into());
            doc.insert("kind".into(), h.configuration.kind.clone().into());
            doc.insert("workload".into(), h.configuration.workload.clone().into());
            doc.insert("axis".into(), axis_name.into());
            doc.insert("metric".into(), s.key.clone().into());
            doc.insert("label".into(), s.label.clone().into());
            doc.insert("unit".into(), s.unit.to_string().into());
            doc.insert("run_id".into(), c.run.clone().into());
            doc.insert("at".into(), started.map_or(Value::Null, Value::from));
            let id = format!("{}:{axis_name}:{}:{}", h.configuration.id, s.key, c.run);
            out.push((id, Value::Object(doc)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::cluster::{Target, TargetConfig};
    use crate::double::{Double, Request};

    /// An index of change points as a distribution without the reindex module keeps it:
    /// `_bulk` (index, delete), `_search` (a term and a must_not of ids), `_refresh`; no
    /// `_delete_by_query`.
    fn index_double() -> (Double, Arc<Mutex<BTreeMap<String, String>>>) {
        let docs: Arc<Mutex<BTreeMap<String, String>>> = Arc::default();
        let held = docs.clone();
        let double = Double::serve(move |r: &Request| {
            let mut docs = held.lock().unwrap();
            if r.path.starts_with("/_bulk") {
                let text = String::from_utf8_lossy(&r.body).to_string();
                let mut lines = text.lines();
                let mut items = Vec::new();
                while let Some(action) = lines.next() {
                    let action: Value = serde_json::from_str(action).unwrap();
                    if let Some(a) = action.get("index") {
                        let id = a["_id"].as_str().unwrap().to_string();
                        let doc: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
                        docs.insert(id, doc["configuration"].as_str().unwrap().to_string());
                        items.push(json!({"index": {"status": 201}}));
                    } else {
                        let id = action["delete"]["_id"].as_str().unwrap();
                        let status = if docs.remove(id).is_some() { 200 } else { 404 };
                        items.push(json!({"delete": {"status": status}}));
                    }
                }
                return json!({"errors": false, "items": items}).to_string();
            }
            if r.path.contains("/_search") {
                let q: Value = serde_json::from_slice(&r.body).unwrap();
                let configuration = &q["query"]["bool"]["filter"][0]["term"]["configuration"];
                let kept = &q["query"]["bool"]["must_not"][0]["ids"]["values"];
                let kept: Vec<&str> = kept
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                let size = q["size"].as_u64().unwrap() as usize;
                let hits: Vec<Value> = docs
                    .iter()
                    .filter(|(id, c)| {
                        Some(c.as_str()) == configuration.as_str() && !kept.contains(&id.as_str())
                    })
                    .take(size)
                    .map(|(id, _)| json!({"_id": id}))
                    .collect();
                return json!({"hits": {"hits": hits}}).to_string();
            }
            "{}".to_string()
        });
        (double, docs)
    }

    fn doc(configuration: &str) -> Value {
        json!({"configuration": configuration})
    }

    #[tokio::test]
    async fn change_points_are_replaced_by_id_without_delete_by_query() {
        let (cluster, docs) = index_double();
        let target = Target::new(&TargetConfig::local(&cluster.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let of = |ids: &[&str], c: &str| -> Vec<(String, Value)> {
            ids.iter().map(|id| (id.to_string(), doc(c))).collect()
        };
        p.replace_changes("c1", &of(&["c1:a", "c1:b"], "c1"))
            .await
            .unwrap();
        p.replace_changes("c2", &of(&["c2:a"], "c2")).await.unwrap();
        // A history with one more night moved a change point: b stays, a goes, c comes.
        p.replace_changes("c1", &of(&["c1:b", "c1:c"], "c1"))
            .await
            .unwrap();
        let ids = |docs: &Mutex<BTreeMap<String, String>>| -> Vec<String> {
            docs.lock().unwrap().keys().cloned().collect()
        };
        assert_eq!(ids(&docs), ["c1:b", "c1:c", "c2:a"]);
        // None left: the configuration's change points all go, the other's stay.
        p.replace_changes("c1", &[]).await.unwrap();
        assert_eq!(ids(&docs), ["c2:a"]);
        // More stale than a page holds.
        let many: Vec<String> = (0..2500).map(|k| format!("c3:{k:04}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        p.replace_changes("c3", &of(&refs, "c3")).await.unwrap();
        p.replace_changes("c3", &of(&["c3:new"], "c3"))
            .await
            .unwrap();
        assert_eq!(ids(&docs), ["c2:a", "c3:new"]);
        let asked: Vec<String> = cluster.requests().iter().map(|r| r.path.clone()).collect();
        assert!(
            !asked.iter().any(|p| p.contains("_delete_by_query")),
            "{asked:?}"
        );
    }
}

//! The change points of what was published: for each configuration a published run belongs
//! to, its history over the store (by engine version and by time, as `history` finds them),
//! one document per change point in `PREFIX-changes`, so a chart of a metric can mark where
//! its level moved. A configuration's change points are replaced whole on each publish: a
//! history with one more night can move a change point or drop one.

use std::collections::BTreeSet;

use reqwest::Method;
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

    /// Deletes the configuration's published change points, then indexes `docs`.
    async fn replace_changes(
        &self,
        configuration: &str,
        docs: &[(String, Value)],
    ) -> Result<(), PublishError> {
        let index = self.index("changes");
        let query = json!({"query": {"term": {"configuration": configuration}}});
        self.target
            .send(
                Method::POST,
                &format!("/{index}/_delete_by_query?refresh=true&conflicts=proceed"),
                Some(("application/json", query.to_string().into_bytes())),
            )
            .await
            .map_err(|e| self.target_error(e))?;
        if docs.is_empty() {
            return Ok(());
        }
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
        let _ = self
            .target
            .send(Method::POST, &format!("/{index}/_refresh"), None)
            .await;
        Ok(())
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

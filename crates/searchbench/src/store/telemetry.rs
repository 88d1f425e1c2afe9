//! The telemetry of a run: one row per node per sample, streamed in while the run goes (like
//! the timeline), so a run that dies halfway keeps what was sampled.

use rusqlite::params;
use serde::Serialize;
use serde_json::Value;

use super::{Result, RunId, Store};

impl Store {
    /// Adds (or replaces) telemetry rows. Each item must serialise to an object with a
    /// numeric `second` and a string `node` (like `measure::telemetry::Row`); others are
    /// skipped. Returns how many were kept.
    pub fn append_telemetry<T: Serialize>(&self, id: &RunId, rows: &[T]) -> Result<usize> {
        let tx = self.write_transaction()?;
        let mut n = 0;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO telemetry (run_id, second, node, data)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for row in rows {
                let v = serde_json::to_value(row)?;
                let (Some(second), Some(node)) = (
                    v.get("second").and_then(Value::as_u64),
                    v.get("node").and_then(Value::as_str),
                ) else {
                    continue;
                };
                stmt.execute(params![
                    id.0,
                    second as i64,
                    node,
                    serde_json::to_string(&v)?
                ])?;
                n += 1;
            }
        }
        tx.commit()?;
        Ok(n)
    }

    /// The stored telemetry rows of a run, by second then node.
    pub fn telemetry(&self, id: &RunId) -> Result<Vec<Value>> {
        self.by_second(
            "SELECT data, second FROM telemetry WHERE run_id = ?1 ORDER BY second, node",
            id,
            "its telemetry at second",
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{Kind, NewRun, Store};

    #[test]
    fn rows_go_in_by_second_and_node_and_leave_with_their_run() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("t.db")).unwrap();
        let id = store
            .begin_run(&NewRun::new(Kind::Ingest, "logs", serde_json::json!({})))
            .unwrap();
        let rows = vec![
            serde_json::json!({"second": 1, "node": "b", "heap_used_bytes": 2.0}),
            serde_json::json!({"second": 1, "node": "a", "heap_used_bytes": 1.0}),
            serde_json::json!({"second": 0, "node": "a"}),
            serde_json::json!({"node": "no second"}),
        ];
        assert_eq!(store.append_telemetry(&id, &rows).unwrap(), 3);
        // The same second and node again replaces the row.
        let again = [serde_json::json!({"second": 0, "node": "a", "x": 1})];
        store.append_telemetry(&id, &again).unwrap();
        let back = store.telemetry(&id).unwrap();
        let keys: Vec<(u64, &str)> = back
            .iter()
            .map(|v| (v["second"].as_u64().unwrap(), v["node"].as_str().unwrap()))
            .collect();
        assert_eq!(keys, vec![(0, "a"), (1, "a"), (1, "b")]);
        assert_eq!(back[0]["x"], 1);
        store.discard_run(&id).unwrap();
        assert!(store.telemetry(&id).unwrap().is_empty());
    }
}

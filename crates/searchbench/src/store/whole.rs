//! A run written whole, not streamed in as it goes: a group's merged run (`results merge`)
//! and a run copied from another store (`results import STORE`), each with its timeline,
//! histograms and telemetry, in one transaction.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};
use serde_json::Value;

use super::{insert_histograms, insert_tags, new_id, Result, RunId, State, Store};
use crate::measure::SerializedHistogram;

/// Everything a stored run holds.
#[derive(Debug, Clone)]
pub struct WholeRun {
    pub kind: String,
    pub workload: String,
    pub engine: Option<String>,
    /// As stored: `complete`, `interrupted`, `failed`, or `incomplete` (a merged group with a
    /// part missing, or a copied run whose process is gone).
    pub state: State,
    pub started_unix: u64,
    pub finished_unix: Option<u64>,
    pub tool_version: String,
    pub seed: Option<u64>,
    pub machine: Value,
    pub config: Value,
    pub tags: BTreeMap<String, String>,
    pub error: Option<String>,
    pub result: Option<Value>,
    pub timeline: Vec<Value>,
    pub histograms: Vec<SerializedHistogram>,
    pub telemetry: Vec<Value>,
    /// What each phase measured, in the order they ended.
    pub phases: Vec<super::PhaseMeasurements>,
}

impl WholeRun {
    /// A stored run, read back whole from `store`.
    pub fn read(store: &Store, id: &RunId) -> Result<WholeRun> {
        let row = store.get(&id.0)?;
        Ok(WholeRun {
            timeline: store.timeline(&row.id)?,
            histograms: store.histograms(&row.id)?,
            telemetry: store.telemetry(&row.id)?,
            phases: store.phases(&row.id)?,
            kind: row.kind,
            workload: row.workload,
            engine: row.engine,
            // A run still going elsewhere is, here, one that will never finish.
            state: match row.state {
                State::Running => State::Incomplete,
                s => s,
            },
            started_unix: row.started_unix,
            finished_unix: row.finished_unix,
            tool_version: row.tool_version,
            seed: row.seed,
            machine: row.machine,
            config: row.config,
            tags: row.tags,
            error: row.error,
            result: row.result,
        })
    }
}

impl Store {
    /// Stores `run` under `id` (a new id when `None` or taken), after deleting the runs in
    /// `replaces`, all in one transaction: a reader sees the old runs or the new one. No
    /// process owns the row, so an `incomplete` one stays incomplete.
    pub fn put_whole(&self, run: &WholeRun, id: Option<&str>, replaces: &[RunId]) -> Result<RunId> {
        let tx = self.write_transaction()?;
        for old in replaces {
            tx.execute("DELETE FROM runs WHERE id = ?1", [&old.0])?;
        }
        let taken = |id: &str| -> Result<bool> {
            Ok(tx
                .query_row("SELECT 1 FROM runs WHERE id = ?1", [id], |r| {
                    r.get::<_, i64>(0)
                })
                .optional()?
                .is_some())
        };
        let mut id = id.map(str::to_string).unwrap_or_else(new_id);
        while taken(&id)? {
            id = new_id();
        }
        tx.execute(
            "INSERT INTO runs (id, kind, workload, engine, status, started_unix, finished_unix,
                               tool_version, seed, pid, machine, config, result, error)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL, ?10, ?11, ?12, ?13)",
            params![
                id,
                run.kind,
                run.workload,
                run.engine,
                run.state.name(),
                run.started_unix as i64,
                run.finished_unix.map(|t| t as i64),
                run.tool_version,
                run.seed.map(|s| s as i64),
                serde_json::to_string(&super::secrets::redacted(&run.machine))?,
                serde_json::to_string(&super::secrets::redacted(&run.config))?,
                run.result
                    .as_ref()
                    .map(|r| serde_json::to_string(&super::secrets::redacted(r)))
                    .transpose()?,
                run.error.as_deref().map(super::secrets::redacted_text),
            ],
        )?;
        insert_tags(
            &tx,
            &id,
            run.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )?;
        insert_histograms(&tx, &id, &run.histograms)?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO timeline (run_id, second, data) VALUES (?1, ?2, ?3)",
            )?;
            for s in &run.timeline {
                if let Some(second) = s.get("second").and_then(Value::as_u64) {
                    stmt.execute(params![id, second as i64, serde_json::to_string(s)?])?;
                }
            }
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO telemetry (run_id, second, node, data)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for t in &run.telemetry {
                if let (Some(second), Some(node)) = (
                    t.get("second").and_then(Value::as_u64),
                    t.get("node").and_then(Value::as_str),
                ) {
                    stmt.execute(params![id, second as i64, node, serde_json::to_string(t)?])?;
                }
            }
        }
        for (seq, phase) in run.phases.iter().enumerate() {
            let seq = u32::try_from(seq)
                .map_err(|_| super::StoreError::Corrupt(format!("run {id}: too many phases")))?;
            super::phases::insert_phase(&tx, &id, seq, phase)?;
        }
        tx.commit()?;
        Ok(RunId(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Kind, NewRun};

    #[test]
    fn a_whole_run_replaces_the_earlier_one_and_keeps_everything() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("r.db")).unwrap();
        let old = store
            .save(
                &NewRun::new(Kind::Ingest, "logs", serde_json::json!({"group": "g"})),
                &serde_json::json!({"docs_per_sec": 1.0}),
            )
            .unwrap();
        let h = crate::measure::recorder::histogram();
        let run = WholeRun {
            kind: "ingest".into(),
            workload: "logs".into(),
            engine: Some("opensearch-2.19.1".into()),
            state: State::Incomplete,
            started_unix: 100,
            finished_unix: Some(200),
            tool_version: "0.1.0".into(),
            seed: Some(7),
            machine: serde_json::json!({"cores": 2}),
            config: serde_json::json!({"group": "g", "parts": 3}),
            tags: [("group".to_string(), "g".to_string())].into(),
            error: None,
            result: Some(serde_json::json!({"docs_per_sec": 2.0})),
            timeline: vec![serde_json::json!({"second": 0, "docs": 5})],
            histograms: vec![SerializedHistogram::encode("service", "us", &h).unwrap()],
            telemetry: vec![serde_json::json!({"second": 0, "node": "n1"})],
            phases: Vec::new(),
        };
        let id = store
            .put_whole(&run, None, std::slice::from_ref(&old))
            .unwrap();
        assert!(store.get(&old.0).is_err(), "the earlier merge is gone");
        let back = WholeRun::read(&store, &id).unwrap();
        assert_eq!(
            back.state,
            State::Incomplete,
            "no live process makes it running"
        );
        assert_eq!(back.started_unix, 100);
        assert_eq!(back.tags["group"], "g");
        assert_eq!(back.timeline.len(), 1);
        assert_eq!(back.histograms.len(), 1);
        assert_eq!(back.telemetry.len(), 1);
        // Under a given id, unless it is taken.
        let again = store.put_whole(&run, Some(&id.0), &[]).unwrap();
        assert_ne!(again, id);
        let kept = store.put_whole(&run, Some("0000abcd"), &[]).unwrap();
        assert_eq!(kept.0, "0000abcd");

        // Another process writing (a live run's second) when the copy comes: it waits its
        // turn and is kept, never "database is locked" at once.
        let other = rusqlite::Connection::open(dir.path().join("r.db")).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        other
            .execute("UPDATE runs SET seed = 8 WHERE id = ?1", [&id.0])
            .unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(500));
            other.execute_batch("COMMIT").unwrap();
        });
        let copied = store.put_whole(&run, None, &[]);
        writer.join().unwrap();
        assert!(copied.is_ok(), "{copied:?}");
    }
}

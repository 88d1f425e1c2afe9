//! Retention (`results prune --older-than 90d`): forgetting the runs, and the studies, that
//! began before a moment. A run still going is kept whatever its age (its process would
//! write into a row that is gone); every row a run owns goes with it (`ON DELETE CASCADE`).
//! The team's notes (`annotate`) are kept: they are few, and say why a chart moved.

use rusqlite::params;
use serde::Serialize;

use super::{Result, State, Store};

/// What a prune forgot (or, dry, would).
#[derive(Debug, Default, Clone, Serialize, PartialEq, Eq)]
pub struct Pruned {
    /// The runs forgotten, oldest first.
    pub runs: Vec<String>,
    /// Studies (sweeps, saturation searches, ...) forgotten.
    pub studies: usize,
    /// Runs older than the moment kept because they are still going.
    pub running: usize,
}

impl Store {
    /// Forgets every run and study that began before `before_unix` (seconds), except runs
    /// still going; with `dry`, only says which. The file shrinks by what was forgotten.
    pub fn prune(&self, before_unix: i64, dry: bool) -> Result<Pruned> {
        let mut pruned = Pruned::default();
        // Read in SQL: a store of years of nights is not loaded whole to find its oldest.
        let old: Vec<(String, String, Option<i64>, Option<String>)> = {
            let mut stmt = self.conn.prepare(
                "SELECT id, status, pid, machine FROM runs WHERE started_unix < ?1
                 ORDER BY started_unix, rowid",
            )?;
            let rows = stmt.query_map([before_unix], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3).ok()))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for (id, status, pid, machine) in old {
            let pid = pid.and_then(|p| u32::try_from(p).ok());
            let machine: Option<serde_json::Value> =
                machine.and_then(|m| serde_json::from_str(&m).ok());
            let mark = machine.as_ref().and_then(|m| m[super::OWNER_MARK].as_str());
            if State::of_stored(&status, pid, mark) == State::Running {
                pruned.running += 1;
            } else {
                pruned.runs.push(id);
            }
        }
        pruned.studies = self.conn.query_row(
            "SELECT COUNT(*) FROM studies WHERE started_unix < ?1",
            [before_unix],
            |r| r.get(0),
        )?;
        if dry || (pruned.runs.is_empty() && pruned.studies == 0) {
            return Ok(pruned);
        }
        let tx = self.write_transaction()?;
        {
            let mut delete = tx.prepare("DELETE FROM runs WHERE id = ?1")?;
            for id in &pruned.runs {
                delete.execute(params![id])?;
            }
        }
        tx.execute("DELETE FROM studies WHERE started_unix < ?1", [before_unix])?;
        tx.commit()?;
        // Give the space back: a store pruned nightly would otherwise only grow.
        self.conn.execute_batch("VACUUM")?;
        Ok(pruned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Filter, Kind, NewRun};

    #[test]
    fn old_runs_go_with_what_they_own_and_the_new_and_the_running_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("p.db")).unwrap();
        let new = || NewRun::new(Kind::Ingest, "logs", serde_json::json!({}));
        let old = store.save(&new(), &serde_json::json!({"docs": 1})).unwrap();
        let recent = store.save(&new(), &serde_json::json!({"docs": 2})).unwrap();
        // Still going (this process owns it), and begun as long ago as the old one.
        let going = store.begin_run(&new()).unwrap();
        let conn = &store.conn;
        for (id, at) in [(&old, 1_000), (&recent, 5_000), (&going, 1_000)] {
            conn.execute(
                "UPDATE runs SET started_unix = ?2 WHERE id = ?1",
                params![id.0, at],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO tags (run_id, key, value) VALUES (?1, 'build', 'n1')",
                [&id.0],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO timeline (run_id, second, data) VALUES (?1, 0, '{}')",
                [&id.0],
            )
            .unwrap();
        }
        store
            .put_study("sweep", "s-old", 1_000, &serde_json::json!({}))
            .unwrap();
        store
            .put_study("sweep", "s-new", 5_000, &serde_json::json!({}))
            .unwrap();
        let owned = |id: &str| -> i64 {
            ["tags", "timeline"]
                .iter()
                .map(|t| {
                    conn.query_row(
                        &format!("SELECT COUNT(*) FROM {t} WHERE run_id = ?1"),
                        [id],
                        |r| r.get::<_, i64>(0),
                    )
                    .unwrap()
                })
                .sum()
        };
        let expected = Pruned {
            runs: vec![old.0.clone()],
            studies: 1,
            running: 1,
        };
        // Dry: said, nothing forgotten.
        assert_eq!(store.prune(2_000, true).unwrap(), expected);
        assert_eq!(store.list(&Filter::default()).unwrap().len(), 3);
        assert_eq!(store.prune(2_000, false).unwrap(), expected);
        let left: Vec<String> = store
            .list(&Filter::default())
            .unwrap()
            .into_iter()
            .map(|r| r.id.0)
            .collect();
        assert!(!left.contains(&old.0) && left.len() == 2, "{left:?}");
        assert_eq!(owned(&old.0), 0, "its tags and timeline go with it");
        assert_eq!(owned(&recent.0), 2);
        assert_eq!(owned(&going.0), 2);
        assert!(store.study("sweep", "s-old").unwrap().is_none());
        assert!(store.study("sweep", "s-new").unwrap().is_some());
        // Nothing older left: a second prune forgets nothing.
        let again = store.prune(2_000, false).unwrap();
        assert!(again.runs.is_empty() && again.studies == 0, "{again:?}");
    }
}

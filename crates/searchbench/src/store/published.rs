//! Which runs were published where (`results publish`, `--publish`): the local store stays
//! the first copy, and a run whose publishing failed stays pending until a later publish
//! sends it. A run is pending for a destination until it was published there in the state
//! it now has (a run that ended after it was published, or a merge stored again, is sent
//! again: the destination's copy is replaced, never doubled).

use rusqlite::{params, OptionalExtension};

use super::{now_unix, Filter, Result, RunId, RunRow, State, Store};

impl Store {
    /// Notes that run `id`, in state `state`, is published at `destination` (a URL without
    /// credentials, with the indices' prefix).
    pub fn mark_published(&self, id: &RunId, destination: &str, state: State) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO published (run_id, destination, state, published_unix)
             VALUES (?1, ?2, ?3, ?4)",
            params![id.0, destination, state.name(), now_unix() as i64],
        )?;
        Ok(())
    }

    /// Where run `id` comes in this store's order of runs that started in the same second
    /// (its row's place): a run published carries it, so a store read back from the team's
    /// cluster lists runs of one second in the order this one does.
    pub fn order_of(&self, id: &RunId) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT rowid FROM runs WHERE id = ?1", [&id.0], |r| {
                r.get(0)
            })?)
    }

    /// The state run `id` was last published in at `destination`, if it was.
    pub fn published_state(&self, id: &RunId, destination: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT state FROM published WHERE run_id = ?1 AND destination = ?2",
                params![id.0, destination],
                |r| r.get::<_, String>(0),
            )
            .optional()?)
    }

    /// The runs `filter` selects that have ended and are not published at `destination` in
    /// the state they have now, oldest first (a run still going is sent once it has ended).
    pub fn pending(&self, destination: &str, filter: &Filter) -> Result<Vec<RunRow>> {
        let mut pending = Vec::new();
        for row in self.list(filter)? {
            if row.state == State::Running {
                continue;
            }
            let sent = self.published_state(&row.id, destination)?;
            if sent.as_deref() != Some(row.state.name()) {
                pending.push(row);
            }
        }
        pending.reverse();
        Ok(pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Kind, NewRun};

    #[test]
    fn a_run_is_pending_until_published_in_the_state_it_has() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("p.db")).unwrap();
        let new = || NewRun::new(Kind::Ingest, "logs", serde_json::json!({}));
        let done = store.save(&new(), &serde_json::json!({"docs": 1})).unwrap();
        let going = store.begin_run(&new()).unwrap();
        let at = "http://results:9200 searchbench";
        let ids = |rows: Vec<RunRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
        // The run still going is not sent; the ended one is.
        assert_eq!(
            ids(store.pending(at, &Filter::default()).unwrap()),
            vec![done.clone()]
        );
        store.mark_published(&done, at, State::Complete).unwrap();
        assert!(store.pending(at, &Filter::default()).unwrap().is_empty());
        // Another destination has its own copy to make.
        assert_eq!(
            ids(store
                .pending("http://other:9200 sb", &Filter::default())
                .unwrap()),
            vec![done.clone()]
        );
        // A run published while it was still going is sent again once it has ended.
        store.mark_published(&going, at, State::Running).unwrap();
        store
            .finish_run(&going, &serde_json::json!({"docs": 2}))
            .unwrap();
        assert_eq!(
            ids(store.pending(at, &Filter::default()).unwrap()),
            vec![going.clone()]
        );
        // Deleting a run forgets where it went.
        store.discard_run(&going).unwrap();
        assert_eq!(store.published_state(&going, at).unwrap(), None);
    }
}

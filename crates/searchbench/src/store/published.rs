//! Which runs were published where (`results publish`, `--publish`): the local store stays
//! the first copy, and a run whose publishing failed stays pending until a later publish
//! sends it. A run is pending for a destination until it was published there in the state
//! it now has (a run that ended after it was published, or a merge stored again, is sent
//! again: the destination's copy is replaced, never doubled).

use rusqlite::{params, OptionalExtension};

use serde::Serialize;

use super::{now_unix, Filter, Result, RunId, RunRow, State, Store};

/// Where a run was published, or tried to be ([`Store::publish_states`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublishState {
    /// The cluster's address without credentials, and the indices' prefix.
    pub destination: String,
    /// The state the run was published in; `None`: not there (the last publish failed).
    pub state: Option<String>,
    pub published_unix: Option<i64>,
    /// Why the last publish failed; `None` when it succeeded.
    pub error: Option<String>,
    pub tried_unix: Option<i64>,
}

impl PublishState {
    /// Whether the destination holds the run as it is in `state`.
    pub fn holds(&self, state: State) -> bool {
        self.error.is_none() && self.state.as_deref() == Some(state.name())
    }
}

/// What a list says of a run's publishing: `published` where every destination holds it as
/// it now is, `PENDING` where one does not (a publish failed, or it changed since), empty
/// where it was never asked to go anywhere (or is still going).
pub fn publish_word(states: &[PublishState], state: State) -> &'static str {
    if states.is_empty() || state == State::Running {
        ""
    } else if states.iter().all(|p| p.holds(state)) {
        "published"
    } else {
        "PENDING"
    }
}

impl Store {
    /// Notes that run `id`, in state `state`, is published at `destination` (a URL without
    /// credentials, with the indices' prefix).
    pub fn mark_published(&self, id: &RunId, destination: &str, state: State) -> Result<()> {
        self.mark_published_at(id, destination, state, now_unix())
    }

    /// [`Store::mark_published`] at the time `unix` (a run read back from where it was
    /// published, as the destination dated it).
    pub fn mark_published_at(
        &self,
        id: &RunId,
        destination: &str,
        state: State,
        unix: u64,
    ) -> Result<()> {
        let unix = i64::try_from(unix).unwrap_or(i64::MAX);
        self.conn.execute(
            "INSERT OR REPLACE INTO published
                 (run_id, destination, state, published_unix, error, tried_unix)
             VALUES (?1, ?2, ?3, ?4, NULL, ?4)",
            params![id.0, destination, state.name(), unix],
        )?;
        Ok(())
    }

    /// Notes that publishing run `id` at `destination` failed with `error`: it is pending
    /// there (whatever copy an earlier publish left) until a publish succeeds. A run deleted
    /// meanwhile is no longer there to note.
    pub fn mark_publish_failed(&self, id: &RunId, destination: &str, error: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO published (run_id, destination, state, published_unix, error, tried_unix)
             SELECT ?1, ?2, '', 0, ?3, ?4 WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1)
             ON CONFLICT (run_id, destination) DO UPDATE SET
                 state = '', error = excluded.error, tried_unix = excluded.tried_unix",
            params![id.0, destination, error, now_unix() as i64],
        )?;
        Ok(())
    }

    /// Where run `id` was published or tried to be, each destination once, by name.
    pub fn publish_states(&self, id: &RunId) -> Result<Vec<PublishState>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT destination, state, published_unix, error, tried_unix
             FROM published WHERE run_id = ?1 ORDER BY destination",
        )?;
        let rows = stmt.query_map([&id.0], |r| {
            Ok(PublishState {
                destination: r.get(0)?,
                state: Some(r.get::<_, String>(1)?).filter(|s| !s.is_empty()),
                published_unix: Some(r.get::<_, i64>(2)?).filter(|t| *t > 0),
                error: r.get(3)?,
                tried_unix: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The runs asked to go to `destination` that are not there as they now are: a publish
    /// failed, or the run changed after it was published (it ended, a merge was stored
    /// again). Oldest first; a run still going waits until it has ended. What the next
    /// publish to `destination` sends besides its own run, so a night the results cluster was
    /// down reaches it with the next night's run.
    pub fn owed(&self, destination: &str) -> Result<Vec<RunRow>> {
        // Those published there as they are stored are not read at all (a store of years
        // of nights has thousands); the rest are read and judged by their state as read.
        let ids: Vec<String> = {
            let mut stmt = self.conn.prepare_cached(
                "SELECT p.run_id FROM published p JOIN runs r ON r.id = p.run_id
                 WHERE p.destination = ?1
                   AND (p.state = '' OR p.state != r.status OR r.status = 'running')",
            )?;
            let rows = stmt.query_map([destination], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let mut owed = Vec::new();
        for id in ids {
            let Ok(row) = self.get(&id) else {
                continue;
            };
            if row.state == State::Running {
                continue;
            }
            if self.published_state(&row.id, destination)?.as_deref() != Some(row.state.name()) {
                owed.push(row);
            }
        }
        owed.sort_by_key(|r| r.started_unix);
        Ok(owed)
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

    /// The state run `id` was last published in at `destination`, if it was (and no publish
    /// failed there since).
    pub fn published_state(&self, id: &RunId, destination: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT state FROM published WHERE run_id = ?1 AND destination = ?2",
                params![id.0, destination],
                |r| r.get::<_, String>(0),
            )
            .optional()?
            .filter(|s| !s.is_empty()))
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
        // A publish that fails leaves the run pending there, whatever went before, and says
        // why; the next that succeeds clears it.
        store.mark_published(&done, at, State::Complete).unwrap();
        store
            .mark_publish_failed(&done, at, "connection refused")
            .unwrap();
        assert_eq!(store.published_state(&done, at).unwrap(), None);
        let states = store.publish_states(&done).unwrap();
        assert_eq!(states.len(), 1);
        assert_eq!(states[0].error.as_deref(), Some("connection refused"));
        assert_eq!(publish_word(&states, State::Complete), "PENDING");
        assert!(ids(store.pending(at, &Filter::default()).unwrap()).contains(&done));
        // Owed to that destination: the failed one and the one that ended after it was
        // sent; not to another.
        let mut owed = ids(store.owed(at).unwrap());
        owed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut both = vec![done.clone(), going.clone()];
        both.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(owed, both);
        assert!(store.owed("http://other:9200 sb").unwrap().is_empty());
        store.mark_published(&done, at, State::Complete).unwrap();
        let states = store.publish_states(&done).unwrap();
        assert_eq!(states[0].error, None);
        assert_eq!(publish_word(&states, State::Complete), "published");
        assert_eq!(ids(store.owed(at).unwrap()), vec![going.clone()]);
        // A run never asked to go anywhere says nothing; a failure on a deleted run notes
        // nothing.
        assert_eq!(publish_word(&[], State::Complete), "");
        store
            .mark_publish_failed(&RunId("gone".into()), at, "x")
            .unwrap();
        assert!(store
            .publish_states(&RunId("gone".into()))
            .unwrap()
            .is_empty());
        // Deleting a run forgets where it went.
        store.discard_run(&going).unwrap();
        assert_eq!(store.published_state(&going, at).unwrap(), None);
    }
}

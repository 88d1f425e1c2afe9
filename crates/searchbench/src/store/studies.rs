//! Studies: commands that make many runs and conclude from them (a sweep, a saturation
//! search). Each run is stored as usual, tagged `<kind>=<id>`; the study's whole result (its
//! cells or steps and its answer) is kept here under the same id, so its page can be drawn
//! again from the store without running anything.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use serde_json::Value;

use super::{Result, Store, StoreError};

/// A stored study: its kind (`sweep`, `saturate`), id, start and whole result.
#[derive(Debug, Clone)]
pub struct Study {
    pub kind: String,
    pub id: String,
    pub started_unix: u64,
    pub result: Value,
}

impl Store {
    /// Keeps (or replaces) the result of the study `kind` `id`.
    pub fn put_study<T: Serialize>(
        &self,
        kind: &str,
        id: &str,
        started_unix: u64,
        result: &T,
    ) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO studies (id, kind, started_unix, result) VALUES (?1, ?2, ?3, ?4)",
            params![
                id,
                kind,
                started_unix as i64,
                serde_json::to_string(&super::secrets::redacted(&serde_json::to_value(result)?))?
            ],
        )?;
        Ok(())
    }

    /// The study `kind` `id`, if one is stored.
    pub fn study(&self, kind: &str, id: &str) -> Result<Option<Study>> {
        let row = self
            .conn
            .query_row(
                "SELECT started_unix, result FROM studies WHERE kind = ?1 AND id = ?2",
                params![kind, id],
                |r| {
                    let result = r.get_ref(1)?.as_bytes_or_null()?.unwrap_or_default();
                    Ok((r.get::<_, i64>(0).ok(), result.to_vec()))
                },
            )
            .optional()?;
        let Some((started, text)) = row else {
            return Ok(None);
        };
        // Masked again as it is read, as a run is: a store written by other means shows none.
        let mut result: Value = serde_json::from_slice(&text).map_err(|e| {
            StoreError::Corrupt(format!(
                "{kind} {id}: its stored result does not read ({e})"
            ))
        })?;
        super::secrets::redact(&mut result);
        Ok(Some(Study {
            kind: kind.to_string(),
            id: id.to_string(),
            started_unix: started.and_then(|s| u64::try_from(s).ok()).unwrap_or(0),
            result,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::store::Store;

    #[test]
    fn a_study_round_trips_and_another_kind_is_not_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.db")).unwrap();
        assert!(store.study("sweep", "abc").unwrap().is_none());
        store
            .put_study("sweep", "abc", 7, &serde_json::json!({"cells": [1, 2]}))
            .unwrap();
        let s = store.study("sweep", "abc").unwrap().unwrap();
        assert_eq!((s.kind.as_str(), s.started_unix), ("sweep", 7));
        assert_eq!(s.result["cells"][1], 2);
        assert!(store.study("saturate", "abc").unwrap().is_none());
        // Stored again (a sweep page redrawn), it is replaced, not doubled.
        store
            .put_study("sweep", "abc", 7, &serde_json::json!({"cells": []}))
            .unwrap();
        assert_eq!(
            store.study("sweep", "abc").unwrap().unwrap().result["cells"],
            serde_json::json!([])
        );
    }

    #[test]
    fn a_study_written_past_the_door_is_masked_as_read_and_a_damaged_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.db")).unwrap();
        let written = |id: &str, result: &[u8]| {
            let sql = "INSERT INTO studies (id, kind, started_unix, result) VALUES (?1, 'sweep', 'x', ?2)";
            store
                .conn
                .execute(sql, rusqlite::params![id, result])
                .unwrap();
        };
        written(
            "a",
            br#"{"target": "https://elastic:s3cret@es.example:9200"}"#,
        );
        written("b", b"{\"cells\": [\xff");
        let a = store.study("sweep", "a").unwrap().unwrap();
        assert_eq!(a.started_unix, 0);
        let text = a.result.to_string();
        assert!(
            !text.contains("s3cret") && text.contains("es.example"),
            "{text}"
        );
        let err = store.study("sweep", "b").unwrap_err().to_string();
        assert!(
            err.contains("sweep b: its stored result does not read"),
            "{err}"
        );
    }
}

//! What the team writes beside its runs (`searchbench annotate`): "JDK 21.0.5" on the runs
//! tagged `build=n05`, "new merge policy" from a moment on. A history marks each on every
//! chart, at the first point it applies to (`analysis::history`).

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::{now_unix, Result, Store};

/// The longest note: a line on a chart, not a changelog.
pub const MAX_TEXT: usize = 200;

/// A note as it is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Annotation {
    pub id: i64,
    pub text: String,
    /// It applies to the runs with all these tags (`build=n05`)...
    pub tags: BTreeMap<String, String>,
    /// ... or from this moment on.
    pub at_unix: Option<i64>,
    pub created_unix: i64,
}

/// A note to store: its text, and what it applies to (tags, a moment, or both).
#[derive(Debug, Clone, Default)]
pub struct NewAnnotation {
    pub text: String,
    pub tags: BTreeMap<String, String>,
    pub at_unix: Option<i64>,
}

/// Why a note is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AnnotationError {
    #[error("an annotation needs its text (\"JDK 21.0.5\")")]
    Empty,
    #[error(
        "an annotation is a line on a chart: at most {MAX_TEXT} characters (this one has {0})"
    )]
    TooLong(usize),
    #[error("an annotation is one line of text: it holds a control character at character {0}")]
    Control(usize),
    #[error("say what the annotation is on: the runs' tags (--tag build=n05) or a moment (--at 2026-11-30)")]
    Unplaced,
}

impl NewAnnotation {
    /// The note as it may be kept: one line of text (a URL's password redacted, so a note
    /// quoting a cluster's address keeps no secret), placed by tags or a moment.
    pub fn checked(mut self) -> std::result::Result<NewAnnotation, AnnotationError> {
        let text = self.text.trim();
        if text.is_empty() {
            return Err(AnnotationError::Empty);
        }
        let chars = text.chars().count();
        if chars > MAX_TEXT {
            return Err(AnnotationError::TooLong(chars));
        }
        if let Some(at) = text.chars().position(char::is_control) {
            return Err(AnnotationError::Control(at + 1));
        }
        if self.tags.is_empty() && self.at_unix.is_none() {
            return Err(AnnotationError::Unplaced);
        }
        self.text = text
            .split(' ')
            .map(|w| {
                if w.contains('@') {
                    crate::cluster::redact_url(w)
                } else {
                    w.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        Ok(self)
    }
}

impl Store {
    /// Keeps `note` (checked by [`NewAnnotation::checked`]); its id.
    pub fn annotate(&self, note: &NewAnnotation) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO annotations (text, tags, at_unix, created_unix) VALUES (?1, ?2, ?3, ?4)",
            params![
                note.text,
                serde_json::to_string(&note.tags)?,
                note.at_unix,
                now_unix() as i64
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Keeps a note read back from where it was published: under its own id when that is
    /// free, once however often it is read (a note with the same text, tags and moment is
    /// the one kept). Its id here.
    pub fn put_annotation(&self, note: &Annotation) -> Result<i64> {
        let tags = serde_json::to_string(&note.tags)?;
        let same: Option<i64> = self
            .conn
            .query_row(
                "SELECT id FROM annotations WHERE text = ?1 AND tags = ?2 AND at_unix IS ?3",
                params![note.text, tags, note.at_unix],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(id) = same {
            return Ok(id);
        }
        let free: bool = self.conn.query_row(
            "SELECT NOT EXISTS (SELECT 1 FROM annotations WHERE id = ?1)",
            [note.id],
            |r| r.get(0),
        )?;
        self.conn.execute(
            "INSERT INTO annotations (id, text, tags, at_unix, created_unix)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                free.then_some(note.id),
                note.text,
                tags,
                note.at_unix,
                note.created_unix
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Every note, oldest first.
    pub fn annotations(&self) -> Result<Vec<Annotation>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, text, tags, at_unix, created_unix FROM annotations ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, text, tags, at_unix, created_unix) = row?;
            out.push(Annotation {
                id,
                text,
                tags: serde_json::from_str(&tags)?,
                at_unix,
                created_unix,
            });
        }
        Ok(out)
    }

    /// The first complete run `note` applies to: carrying all its tags, begun at or after
    /// its moment, oldest first (as a history places it on its first point). Found in SQL:
    /// every publish places every note, and a store of years of nights is not read whole.
    pub fn first_run_under(&self, note: &Annotation) -> Result<Option<super::RunRow>> {
        let mut sql = String::from(
            "SELECT r.id FROM runs r WHERE r.status = 'complete' AND r.started_unix >= ?1",
        );
        let mut values: Vec<String> = Vec::new();
        if !note.tags.is_empty() {
            let each = vec!["(t.key = ? AND t.value = ?)"; note.tags.len()].join(" OR ");
            sql.push_str(&format!(
                " AND (SELECT COUNT(*) FROM tags t WHERE t.run_id = r.id AND ({each})) = {}",
                note.tags.len()
            ));
            for (k, v) in &note.tags {
                values.extend([k.clone(), v.clone()]);
            }
        }
        sql.push_str(" ORDER BY r.started_unix, r.rowid LIMIT 1");
        let at = note.at_unix.unwrap_or(i64::MIN);
        let mut params: Vec<&dyn rusqlite::ToSql> = vec![&at];
        params.extend(values.iter().map(|v| v as &dyn rusqlite::ToSql));
        let id: Option<String> = self
            .conn
            .query_row(&sql, params.as_slice(), |r| r.get(0))
            .optional()?;
        id.map(|id| self.get(&id)).transpose()
    }

    /// Forgets note `id`; whether there was one.
    pub fn delete_annotation(&self, id: i64) -> Result<bool> {
        Ok(self
            .conn
            .execute("DELETE FROM annotations WHERE id = ?1", [id])?
            > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(text: &str, tags: &[(&str, &str)], at: Option<i64>) -> NewAnnotation {
        NewAnnotation {
            text: text.into(),
            tags: tags
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            at_unix: at,
        }
    }

    #[test]
    fn notes_are_kept_checked_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("a.db")).unwrap();
        let jdk = note(" JDK 21.0.5 ", &[("build", "n05")], None)
            .checked()
            .unwrap();
        assert_eq!(jdk.text, "JDK 21.0.5");
        let a = store.annotate(&jdk).unwrap();
        let quoted = note(
            "moved to https://bob:s3cret@results:9200",
            &[],
            Some(1_790_000_000),
        );
        let b = store.annotate(&quoted.checked().unwrap()).unwrap();
        let kept = store.annotations().unwrap();
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].tags["build"], "n05");
        assert_eq!(kept[1].at_unix, Some(1_790_000_000));
        assert!(!kept[1].text.contains("s3cret"), "{}", kept[1].text);
        assert!(store.delete_annotation(a).unwrap());
        assert!(!store.delete_annotation(a).unwrap());
        assert_eq!(store.annotations().unwrap()[0].id, b);
        for (bad, why) in [
            (note("", &[("build", "1")], None), AnnotationError::Empty),
            (note("x", &[], None), AnnotationError::Unplaced),
            (
                note("a\nb", &[("build", "1")], None),
                AnnotationError::Control(2),
            ),
            (
                note(&"x".repeat(201), &[("build", "1")], None),
                AnnotationError::TooLong(201),
            ),
        ] {
            assert_eq!(bad.checked().unwrap_err(), why);
        }
    }

    /// A note's first run, found in SQL, is the one a reading of every run finds: complete,
    /// every tag of the note, at or after its moment, the oldest (the earlier of one second
    /// by the order they were kept).
    #[test]
    fn a_notes_first_run_is_the_oldest_complete_one_it_applies_to() {
        use crate::store::{Filter, Kind, NewRun, State};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("n.db")).unwrap();
        let mut ids = Vec::new();
        // (build, arch, started, complete)
        for (build, arch, at, done) in [
            ("n05", "x86", 100, false),
            ("n05", "arm", 200, true),
            ("n05", "x86", 300, true),
            ("n05", "x86", 300, true),
            ("n06", "x86", 400, true),
        ] {
            let mut run = NewRun::new(Kind::Ingest, "logs", serde_json::json!({}));
            run.tags = [("build", build), ("arch", arch)]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let id = if done {
                store.save(&run, &serde_json::json!({"docs": 1})).unwrap()
            } else {
                store.begin_run(&run).unwrap()
            };
            store
                .conn
                .execute(
                    "UPDATE runs SET started_unix = ?2, pid = NULL WHERE id = ?1",
                    params![id.0, at],
                )
                .unwrap();
            ids.push(id.0);
        }
        let rows = store.list(&Filter::default()).unwrap();
        let by_reading = |n: &Annotation| {
            rows.iter()
                .rev()
                .filter(|r| r.state == State::Complete)
                .find(|r| {
                    n.tags.iter().all(|(k, v)| r.tags.get(k) == Some(v))
                        && n.at_unix.is_none_or(|at| r.started_unix as i64 >= at)
                })
                .map(|r| r.id.0.clone())
        };
        let cases = [
            (vec![("build", "n05")], None, Some(&ids[1])),
            (vec![("build", "n05"), ("arch", "x86")], None, Some(&ids[2])),
            (vec![("build", "n05")], Some(250), Some(&ids[2])),
            (vec![], Some(350), Some(&ids[4])),
            (vec![("build", "n07")], None, None),
            (vec![("build", "n06")], Some(500), None),
        ];
        for (tags, at, want) in cases {
            let n = Annotation {
                id: 0,
                text: "x".into(),
                tags: tags
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                at_unix: at,
                created_unix: 0,
            };
            let found = store.first_run_under(&n).unwrap().map(|r| r.id.0);
            assert_eq!(found.as_ref(), want, "{tags:?} {at:?}");
            assert_eq!(found, by_reading(&n), "{tags:?} {at:?}");
        }
    }
}

//! `results import STORE`: every run of another store copied into this one, as a part's
//! store is gathered before its group is merged.

use super::{Filter, RunId, Store, StoreError, WholeRun};

/// What an import copied, and how many runs were here already.
#[derive(Debug, Default)]
pub struct Imported {
    pub copied: Vec<RunId>,
    pub skipped: usize,
}

impl Store {
    /// Copies every run of `from` into this store, each with `tags` added. The same run here
    /// already is kept, unless it was copied while it still ran and has ended since (a part
    /// imported before it finished): then it is copied again in its place.
    pub fn import_runs(
        &self,
        from: &Store,
        tags: &[(String, String)],
    ) -> Result<Imported, StoreError> {
        let mut done = Imported::default();
        for row in from.list(&Filter::default())? {
            let same = self
                .get(&row.id.0)
                .ok()
                .filter(|h| h.started_unix == row.started_unix && h.kind == row.kind);
            let mut run = WholeRun::read(from, &row.id)?;
            let replaces = match same {
                Some(h) if h.status == run.state.name() => {
                    done.skipped += 1;
                    continue;
                }
                Some(h) => vec![h.id],
                None => Vec::new(),
            };
            for (k, v) in tags {
                run.tags.insert(k.clone(), v.clone());
            }
            done.copied
                .push(self.put_whole(&run, Some(&row.id.0), &replaces)?);
        }
        Ok(done)
    }
}

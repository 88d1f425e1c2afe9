//! `results import STORE`: every run of another store copied into this one, as a part's
//! store is gathered before its group is merged.

use super::{Filter, RunId, State, Store, StoreError, WholeRun};

/// What an import copied, how many runs were here already, and the runs it could not copy.
#[derive(Debug, Default)]
pub struct Imported {
    pub copied: Vec<RunId>,
    pub skipped: usize,
    /// The runs of the other store that do not read as runs (an id that is no run id, a
    /// result that is not JSON), each with why: the others are copied all the same.
    pub refused: Vec<(String, String)>,
}

impl Store {
    /// Copies every run of `from` into this store, each with `tags` added. The same run here
    /// already is kept, unless it was copied while it still ran and has ended since (a part
    /// imported before it finished): then it is copied again in its place. A copy behind this
    /// store's (made before the run ended, when it has ended here or still runs here) never
    /// replaces it. A run that does not read, or that ended here and there differently, is
    /// named in [`Imported::refused`], and the rest copied.
    pub fn import_runs(
        &self,
        from: &Store,
        tags: &[(String, String)],
    ) -> Result<Imported, StoreError> {
        let mut done = Imported::default();
        for row in from.list(&Filter::default())? {
            if !super::is_run_id(&row.id.0) {
                let why = "not a run id: run ids are eight hexadecimal digits".to_string();
                done.refused.push((row.id.0, why));
                continue;
            }
            let same = self
                .get(&row.id.0)
                .ok()
                .filter(|h| h.started_unix == row.started_unix && h.kind == row.kind);
            let mut run = match WholeRun::read(from, &row.id) {
                Ok(run) => run,
                Err(e) => {
                    done.refused.push((row.id.0, e.to_string()));
                    continue;
                }
            };
            let ended =
                |s: State| matches!(s, State::Complete | State::Interrupted | State::Failed);
            let replaces = match same {
                Some(h) if h.status == run.state.name() => {
                    done.skipped += 1;
                    continue;
                }
                // Copied here before it ended: the ended copy takes its place.
                Some(h) if h.state == State::Incomplete && ended(run.state) => vec![h.id],
                // Here already as far along or further (ended here, or still going here, and
                // a copy made before it ended): this store's is kept, and its figures with it.
                Some(h) if !ended(run.state) || h.state == State::Running => {
                    done.skipped += 1;
                    continue;
                }
                // Ended both here and there, differently: no copy says which is the run's.
                Some(h) => {
                    let why = format!(
                        "here already as {}, the other store has it as {}: this store's is kept",
                        h.status,
                        run.state.name()
                    );
                    done.refused.push((row.id.0, why));
                    continue;
                }
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

//! The team's results cluster as an exporter of the run's record (`--publish URL`): once the
//! store has kept the run, the run is published from it (`crate::publish`), then what the
//! store owes the same destination (runs whose publish failed before, or that changed since:
//! `Store::owed`), so a night the results cluster was down reaches it with the next night's
//! run (at most `publish::OWED_AT_A_RUN` of them, none after one fails: a stalling cluster
//! holds a run's end no longer than one timeout). A publish that fails loses nothing: the run is kept in the store, pending there, and
//! the warning says so; the command's ending says it again with the way to send it, and its
//! exit code with `--publish-required` (`publish::ledger`).

use std::sync::Arc;

use super::events::{Event, Observer};
use super::record::Exporter;
use crate::analysis::runs::Loaded;
use crate::publish::Publisher;
use crate::store::Store;

/// Publishes the run the store has kept (an exporter of the store sink, so it follows the
/// store whatever the order of the sinks), and what is owed to its destination.
pub struct PublishSink<'o> {
    publisher: Arc<Publisher>,
    observer: &'o dyn Observer,
}

impl<'o> PublishSink<'o> {
    /// Publishes each run it is handed through `publisher`, saying to `observer` what else
    /// it sent.
    pub fn new(publisher: Arc<Publisher>, observer: &'o dyn Observer) -> Self {
        PublishSink {
            publisher,
            observer,
        }
    }
}

impl Exporter for PublishSink<'_> {
    fn name(&self) -> String {
        format!("publishing to {}", self.publisher.destination())
    }

    fn export(&mut self, run: &Loaded, store: &Store, _derived: bool) -> Result<(), String> {
        let (path, row, publisher) = (
            store.path().to_path_buf(),
            run.row.clone(),
            self.publisher.clone(),
        );
        let id = row.id.clone();
        // The lifecycle's runtime drives this call: the publish runs on a thread of its own,
        // with its own runtime and its own connection to the store (one does not cross
        // threads), and the run ends when it has (a second or so for an hour). Outer error:
        // the run is not published. Inner: it is, the change points of its configuration are
        // not (the next publish sends them).
        type Outcome = Result<Result<(crate::publish::Published, usize), String>, String>;
        let published = std::thread::spawn(move || -> Outcome {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async {
                let store = Store::open(&path).map_err(|e| e.to_string())?;
                let error = |e: crate::publish::PublishError| crate::cluster::error_chain(&e);
                publisher
                    .prepare_and_publish(&store, &row.id)
                    .await
                    .map_err(error)?;
                let changes = publisher
                    .publish_changes(&store, std::slice::from_ref(&row))
                    .await
                    .map(|_| ())
                    .map_err(error);
                // The team's notes, with the change points they are read beside.
                let changes = match changes {
                    Ok(()) => publisher
                        .publish_annotations(&store)
                        .await
                        .map(|_| ())
                        .map_err(error),
                    failed => failed,
                };
                // What is owed here, sent now the destination takes runs again (a failure
                // stays owed, said by the ledger at the command's end).
                // (A store that cannot say what it owes owes nothing now: the next publish
                // asks again, and `results list` says what is pending.)
                let owed = store.owed(&publisher.destination()).unwrap_or_default();
                let owed: Vec<_> = owed.into_iter().filter(|r| r.id != row.id).collect();
                let flushed = publisher.publish_owed(&store, owed).await;
                Ok(changes.map(|()| flushed))
            })
        })
        .join()
        .map_err(|_| "the publishing thread panicked".to_string())
        .and_then(|r| r);
        match published {
            Ok(Ok((flushed, later))) => {
                if !flushed.sent.is_empty() {
                    let ids: Vec<&str> = flushed.sent.iter().map(|s| s.run.as_str()).collect();
                    self.observer.event(Event::Stage(format!(
                        "published {} earlier run(s) pending at {}: {}",
                        ids.len(),
                        flushed.destination,
                        ids.join(", ")
                    )));
                }
                for f in &flushed.failed {
                    self.observer.event(Event::Warning(format!(
                        "run {} still pending at {}: {}",
                        f.run, flushed.destination, f.error
                    )));
                }
                if later > 0 {
                    self.observer.event(Event::Warning(format!(
                        "{later} more earlier run(s) pending at {}, not sent at a run's end \
                         (at most {} are, none after one fails): `searchbench results publish \
                         --pending` sends them",
                        flushed.destination,
                        crate::publish::OWED_AT_A_RUN
                    )));
                }
                Ok(())
            }
            Ok(Err(e)) => Err(format!(
                "run {} published, the change points of its configuration or the annotations \
                 not: {e}; the next publish sends them",
                id
            )),
            // How to send it is the command's ending's to say, once for every run.
            Err(e) => Err(format!(
                "run {id} not published: {e}; it is kept in the store and stays pending there"
            )),
        }
    }
}

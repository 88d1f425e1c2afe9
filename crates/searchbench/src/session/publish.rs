//! The team's results cluster as a sink of the run's lifecycle (`--publish URL`): once the
//! store has kept the run, the run is published from it (`crate::publish`). A publish that
//! fails loses nothing: the run is kept in the store, pending there, and the warning says
//! so and how to send it (`results publish --pending`); the run's own exit code stands.

use std::path::PathBuf;
use std::sync::Arc;

use super::lifecycle::{Finished, Identity, Measured, Sink};
use super::record::Recording;
use crate::publish::Publisher;
use crate::store::{RunId, State, Store};

/// Publishes the run a recording keeps, after the store sink has kept it.
pub struct PublishSink {
    store: PathBuf,
    id: RunId,
    publisher: Arc<Publisher>,
}

impl PublishSink {
    /// Publishes the run `recording` keeps through `publisher`.
    pub fn of(recording: &Recording<'_>, publisher: Arc<Publisher>) -> Self {
        PublishSink {
            store: recording.store_path().to_path_buf(),
            id: recording.id().clone(),
            publisher,
        }
    }
}

impl Sink for PublishSink {
    fn name(&self) -> String {
        format!("publishing to {}", self.publisher.destination())
    }

    fn begin(&mut self, _run: &Identity, _phases: &[String]) -> Result<(), String> {
        Ok(())
    }

    fn phase(&mut self, _measured: &Measured) -> Result<(), String> {
        Ok(())
    }

    fn finish(&mut self, _finished: &Finished) -> Result<(), String> {
        let (store, id, publisher) = (self.store.clone(), self.id.clone(), self.publisher.clone());
        // The lifecycle's runtime drives this call: the publish runs on a thread of its own,
        // with its own runtime, and the run ends when it has (a second or so for an hour).
        // Outer error: the run is not published. Inner: it is, the change points of its
        // configuration are not (the next publish sends them).
        type Outcome = Result<Result<(), String>, String>;
        let published = std::thread::spawn(move || -> Outcome {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async {
                let store = Store::open(&store).map_err(|e| e.to_string())?;
                // Not kept (the store failed, and said so, or the run was forgotten): nothing
                // to publish.
                let row = match store.get(&id.0) {
                    Ok(row) if row.state == State::Running => return Ok(Ok(())),
                    Ok(row) => row,
                    Err(_) => return Ok(Ok(())),
                };
                let error = |e: crate::publish::PublishError| crate::cluster::error_chain(&e);
                publisher
                    .prepare_and_publish(&store, &id)
                    .await
                    .map_err(error)?;
                Ok(publisher
                    .publish_changes(&store, std::slice::from_ref(&row))
                    .await
                    .map(|_| ())
                    .map_err(error))
            })
        })
        .join()
        .map_err(|_| "the publishing thread panicked".to_string())
        .and_then(|r| r);
        match published {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!(
                "run {} published, the change points of its configuration not: {e}; the next \
                 publish sends them",
                self.id
            )),
            Err(e) => Err(format!(
                "run {} not published: {e}; it is kept in the store and stays pending there: \
                 `searchbench results publish --pending` sends it",
                self.id
            )),
        }
    }
}

//! The team's results cluster as an exporter of the run's record (`--publish URL`): once the
//! store has kept the run, the run is published from it (`crate::publish`). A publish that
//! fails loses nothing: the run is kept in the store, pending there, and the warning says
//! so and how to send it (`results publish --pending`); the run's own exit code stands.

use std::sync::Arc;

use super::record::Exporter;
use crate::analysis::runs::Loaded;
use crate::publish::Publisher;
use crate::store::Store;

/// Publishes the run the store has kept (an exporter of the store sink, so it follows the
/// store whatever the order of the sinks).
pub struct PublishSink {
    publisher: Arc<Publisher>,
}

impl PublishSink {
    /// Publishes each run it is handed through `publisher`.
    pub fn new(publisher: Arc<Publisher>) -> Self {
        PublishSink { publisher }
    }
}

impl Exporter for PublishSink {
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
        type Outcome = Result<Result<(), String>, String>;
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
                id
            )),
            Err(e) => Err(format!(
                "run {} not published: {e}; it is kept in the store and stays pending there: \
                 `searchbench results publish --pending` sends it",
                id
            )),
        }
    }
}

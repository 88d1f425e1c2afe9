//! Searches beside a load (`--search-clients N`): the workload's queries run in a loop from N
//! clients while the load goes on against the same index; they start once the first documents
//! are acknowledged (the index exists by then) and stop when the load stops or is cancelled.

use std::sync::Arc;

use super::SessionError;
use crate::cancel::Cancel;
use crate::cluster::Target;
use crate::ingest::Progress;
use crate::query::beside::{self, BesideSearch, SearchesBeside};
use crate::workload::WorkloadSpec;

/// The searches to run beside a load, and from how many clients.
#[derive(Debug, Clone)]
pub struct BesideSpec {
    pub clients: usize,
    pub searches: Arc<Vec<BesideSearch>>,
}

/// The searches of `workload` for `spec`, sent by `clients` clients. Only a workload whose
/// queries need no truth up front has searches to send while its corpus is still being
/// generated (logs); the others are a usage error.
pub fn plan(
    workload: &str,
    spec: &WorkloadSpec,
    clients: usize,
) -> Result<BesideSpec, SessionError> {
    if clients == 0 {
        return Err(SessionError::usage("--search-clients must be at least 1"));
    }
    let w = super::job::find_workload(workload)?;
    let Some(searches) = w.searches_beside(spec)? else {
        return Err(SessionError::usage(format!(
            "--search-clients needs searches that can run while the index grows; the \
             {workload} workload has none (its answers are checked against the whole corpus)"
        )));
    };
    Ok(BesideSpec {
        clients,
        searches: Arc::new(searches),
    })
}

/// Runs the searches of `spec` on `index` from the moment `progress` shows acknowledged
/// documents until `stop` (the load ended) or `cancel` fires. `None` when the load ended
/// before any document was acknowledged.
pub async fn alongside(
    target: &Target,
    index: &str,
    spec: &BesideSpec,
    mut progress: tokio::sync::watch::Receiver<Progress>,
    stop: Cancel,
    cancel: Cancel,
) -> Option<SearchesBeside> {
    let started = async {
        loop {
            let p = *progress.borrow_and_update();
            if p.docs > 0 {
                return true;
            }
            if p.done || progress.changed().await.is_err() {
                return false;
            }
        }
    };
    let go = tokio::select! {
        go = started => go,
        () = stop.cancelled() => false,
        () = cancel.cancelled() => false,
    };
    if !go {
        return None;
    }
    Some(
        beside::run(
            target,
            index,
            spec.searches.clone(),
            spec.clients,
            &stop,
            &cancel,
        )
        .await,
    )
}

//! Searches beside a load (`--search-clients N`): the workload's queries run in a loop from N
//! clients while the load goes on against the same index; they start once the first documents
//! are acknowledged (the index exists by then) and stop when the load stops or is cancelled.
//! In a run's plan they are a phase of their own ([`SearchesPhase`]) in one step with the
//! load, tied to it by a [`link`].

use std::sync::Arc;

use tokio::sync::watch;

use super::lifecycle::{Hand, Measurements, Outcome, Phase, Report, Stage, StepEnd, Work};
use super::record::Keep;
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

/// What ties the searches during a load to the load: the load's progress, which they start
/// on, and its end, which stops them. The load holds the sending ends, the searches the
/// receiving ones.
pub fn link() -> (LoadSide, SearchSide) {
    let (progress, progress_rx) = watch::channel(Progress::default());
    let (ended, ended_rx) = Cancel::new();
    (
        LoadSide { progress, ended },
        SearchSide {
            progress: progress_rx,
            ended: ended_rx,
        },
    )
}

/// The load's end of a [`link`].
#[derive(Debug)]
pub struct LoadSide {
    /// Where the load publishes its progress.
    pub progress: watch::Sender<Progress>,
    /// Sent when the load has ended.
    pub ended: watch::Sender<bool>,
}

/// The searches' end of a [`link`].
#[derive(Debug)]
pub struct SearchSide {
    progress: watch::Receiver<Progress>,
    ended: Cancel,
}

/// The searches during a load as a phase, run in one step with the load it is linked to.
/// What they measured is what they hand on, for the load's report; their histograms stream
/// to the run's sinks.
pub struct SearchesPhase {
    pub spec: BesideSpec,
    pub index: String,
    /// Ctrl-C: the searches stop with the load.
    pub cancel: Cancel,
    /// Not wanted once this fired (the load they go with is not run after Ctrl-C either).
    pub unless: Option<Cancel>,
    pub side: Option<SearchSide>,
    /// What they measured, from their end until it is handed on.
    pub searched: Option<SearchesBeside>,
}

/// The phase of the searches during a load.
pub const SEARCHES: Hand<SearchesBeside> = Hand::new(beside::PHASE);

impl Phase for SearchesPhase {
    fn name(&self) -> String {
        SEARCHES.name().into()
    }

    fn wanted(&self, _: &Outcome) -> bool {
        !self.unless.as_ref().is_some_and(Cancel::is_cancelled)
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let side = self
                .side
                .take()
                .ok_or_else(|| SessionError::Other("the searches phase ran twice".into()))?;
            let searched = alongside(
                stage.target,
                &self.index,
                &self.spec,
                side.progress,
                side.ended,
                self.cancel.clone(),
            )
            .await;
            let mut measurements = Measurements::default();
            if let Some(b) = &searched {
                stage.feed.histograms(&b.histograms());
                measurements = b.record.clone();
            }
            self.searched = searched;
            Ok(measurements)
        })
    }

    fn ended(&mut self, _: &Stage<'_>, _: &mut StepEnd) -> Option<Report> {
        self.searched.take().map(|s| SEARCHES.report(s))
    }
}

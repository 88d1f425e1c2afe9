//! A scenario's phases, in the order the plan runs them: `setup` (the engine, room for the
//! shards, the snapshot repository), `creation` (the indices made and filled, then counted),
//! then many-shards' `ingest` (logs with searches beside) and `field-caps`, or the
//! `snapshots`; and `cleanup`, which runs whatever happened before it.
//!
//! What the phases find and make is kept in [`Shared`]; the result is derived from it once the
//! run is over.

use std::cell::RefCell;
use std::time::Instant;

use super::creation::{check_shard_room, count_indices, create_indices};
use super::many_shards::field_caps_latency;
use super::snapshots::{repository, take_snapshots, Repository};
use super::{clean_up, Made, ScenarioSpec};
use crate::ingest::Cancel;
use crate::measure::SerializedHistogram;
use crate::session::ingest::LoadKept;
use crate::session::lifecycle::{Measurements, Phase, Stage, Streamed, Watched, Work};
use crate::session::profile::PROFILE;
use crate::session::SessionError;
use crate::workload::scenario_result::{
    Cleanup, Creation, IndexCounts, Latency, Snapshots, CREATE_HISTOGRAM, FIELD_CAPS_HISTOGRAM,
};
use crate::workload::Scenario;

/// What the phases of one scenario run share.
pub(super) struct Shared<'s> {
    pub spec: &'s ScenarioSpec,
    pub cancel: Cancel,
    /// This run's stamp and the prefix of every index it makes.
    pub stamp: String,
    pub prefix: String,
    pub made: Made,
    /// The product and version that answered, and where (without a query string).
    pub engine: RefCell<Option<(String, String, String)>>,
    pub started: RefCell<Option<Instant>>,
    pub started_unix_ms: RefCell<Option<u64>>,
    pub ended: RefCell<Option<Instant>>,
    pub repository: RefCell<Option<Repository>>,
    pub creation: RefCell<Option<Creation>>,
    pub counts: RefCell<Option<IndexCounts>>,
    /// The logs load of many-shards, and the searches during it.
    pub indexing: LoadKept,
    pub field_caps: RefCell<Option<Latency>>,
    pub snapshots: RefCell<Option<Snapshots>>,
    pub cleanup: RefCell<Option<Cleanup>>,
    /// The engine profile of the snapshots (many-shards' is its logs load's).
    pub profile: RefCell<Option<crate::measure::profile::Profile>>,
}

impl<'s> Shared<'s> {
    pub fn new(spec: &'s ScenarioSpec, stamp: String) -> Self {
        Shared {
            spec,
            cancel: spec.cancel.clone().unwrap_or_else(Cancel::never),
            prefix: format!("searchbench-shards-{stamp}-"),
            stamp,
            made: Made::default(),
            engine: RefCell::default(),
            started: RefCell::default(),
            started_unix_ms: RefCell::default(),
            ended: RefCell::default(),
            repository: RefCell::default(),
            creation: RefCell::default(),
            counts: RefCell::default(),
            indexing: LoadKept::default(),
            field_caps: RefCell::default(),
            snapshots: RefCell::default(),
            cleanup: RefCell::default(),
            profile: RefCell::default(),
        }
    }
}

/// A phase of the scenario: which one, and what it shares.
pub(super) struct ScenarioPhase<'p, 's> {
    pub step: ScenarioStep,
    pub shared: &'p Shared<'s>,
}

/// The scenario's own phases (the logs load is the load's step, `ingest::load_step`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum ScenarioStep {
    Setup,
    Creation,
    Counting,
    FieldCaps,
    Snapshots,
    Cleanup,
}

impl Phase for ScenarioPhase<'_, '_> {
    fn name(&self) -> String {
        match self.step {
            ScenarioStep::Setup => "setup",
            ScenarioStep::Creation => "creation",
            ScenarioStep::Counting => "counting",
            ScenarioStep::FieldCaps => "field-caps",
            ScenarioStep::Snapshots => "snapshots",
            ScenarioStep::Cleanup => "cleanup",
        }
        .into()
    }

    /// After Ctrl-C only the cleanup is left to do.
    fn wanted(&self) -> bool {
        match self.step {
            ScenarioStep::Setup
            | ScenarioStep::Creation
            | ScenarioStep::Counting
            | ScenarioStep::Cleanup => true,
            // A part given none of the requests has none to send.
            ScenarioStep::FieldCaps => {
                !self.shared.cancel.is_cancelled() && self.shared.spec.field_caps_requests > 0
            }
            ScenarioStep::Snapshots => !self.shared.cancel.is_cancelled(),
        }
    }

    /// The snapshots are the profiled phase of their scenario: its profile is theirs.
    fn ended(&mut self, _stage: &Stage<'_>, watched: &mut Watched) {
        if self.step == ScenarioStep::Snapshots {
            *self.shared.profile.borrow_mut() = watched.take(PROFILE);
        }
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let (s, target) = (self.shared, stage.target);
            match self.step {
                ScenarioStep::Setup => {
                    *s.started.borrow_mut() = Some(Instant::now());
                    *s.started_unix_ms.borrow_mut() = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .ok()
                        .map(|d| d.as_millis() as u64);
                    let (product, version, _) = target.product().await?;
                    let mut url = target.url().clone();
                    url.set_query(None);
                    *s.engine.borrow_mut() = Some((product.to_string(), version, url.to_string()));
                    check_shard_room(target, s.spec.indices + 1).await?;
                    // The repository is settled before anything is made: a cluster without
                    // `path.repo` fails here, with nothing to clean up.
                    if s.spec.scenario == Scenario::Snapshots && s.spec.is_first() {
                        let repo = repository(target, s.spec, &s.stamp).await?;
                        *s.repository.borrow_mut() = Some(repo);
                    }
                }
                ScenarioStep::Creation => {
                    let (creation, create_us) =
                        create_indices(target, s.spec, &s.prefix, &s.made, &s.cancel).await;
                    *s.creation.borrow_mut() = Some(creation);
                    stage.feed.send(Streamed::Histograms(
                        SerializedHistogram::encode(CREATE_HISTOGRAM, "us", &create_us)
                            .into_iter()
                            .collect(),
                    ));
                }
                ScenarioStep::Counting => {
                    let counts = count_indices(target, &s.prefix, s.spec).await?;
                    *s.counts.borrow_mut() = Some(counts);
                }
                ScenarioStep::FieldCaps => {
                    let (latency, h) =
                        field_caps_latency(target, s.spec, &s.prefix, &s.cancel).await;
                    *s.field_caps.borrow_mut() = Some(latency);
                    stage.feed.send(Streamed::Histograms(
                        SerializedHistogram::encode(FIELD_CAPS_HISTOGRAM, "us", &h)
                            .into_iter()
                            .collect(),
                    ));
                }
                ScenarioStep::Snapshots => {
                    let repo = s.repository.borrow().clone();
                    if let Some(repo) = repo {
                        let taken = take_snapshots(
                            target, s.spec, &repo, &s.prefix, &s.stamp, &s.made, &s.cancel,
                        )
                        .await;
                        *s.snapshots.borrow_mut() = Some(taken);
                    }
                }
                ScenarioStep::Cleanup => {
                    let repo = s.repository.borrow().clone();
                    // Part 1 of a group cleans up what every part made (the names are the
                    // group's); the other parts leave it to part 1.
                    let cleanup = if !s.spec.is_first() {
                        Cleanup::default()
                    } else {
                        if let (Some(_), Ok(mut made)) = (&s.spec.part, s.made.indices.lock()) {
                            let all = (0..s.spec.indices)
                                .map(|n| format!("{}{n:05}", s.prefix))
                                .chain(std::iter::once(format!("{}logs", s.prefix)));
                            for name in all {
                                if !made.contains(&name) {
                                    made.push(name);
                                }
                            }
                        }
                        clean_up(target, &s.made, repo.as_ref()).await
                    };
                    *s.cleanup.borrow_mut() = Some(cleanup);
                    *s.ended.borrow_mut() = Some(Instant::now());
                }
            }
            Ok(Measurements::default())
        })
    }
}

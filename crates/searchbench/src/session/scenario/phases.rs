//! A scenario's phases, in the order the plan runs them: `setup` (the engine, room for the
//! shards, the snapshot repository), `creation` (the indices made and filled, then counted),
//! then many-shards' `ingest` (logs with searches beside) and `field-caps`, or the
//! `snapshots`; and `cleanup`, which runs whatever happened before it.
//!
//! What the phases find and make is kept in [`Shared`]; the result is derived from it once the
//! run is over.

use std::time::Instant;

use super::creation::{check_shard_room, count_indices, create_indices};
use super::many_shards::field_caps_latency;
use super::snapshots::{repository, take_snapshots, Repository};
use super::{clean_up, Creation, IndexCounts, Latency, Made, ScenarioSpec};
use crate::ingest::Cancel;
use crate::measure::profile::Profile;
use crate::measure::SerializedHistogram;
use crate::session::lifecycle::{
    Hand, Measurements, Outcome, Phase, Report, Stage, StepEnd, Streamed, Work,
};
use crate::session::profile::PROFILE;
use crate::session::SessionError;
use crate::workload::scenario_result::{Cleanup, Snapshots};
use crate::workload::scenario_result::{CREATION_PHASE, FIELD_CAPS_PHASE};
use crate::workload::Scenario;

/// What the phases of one scenario run share: its names and what it made (for the cleanup,
/// whatever happened). What each phase found is what it hands on (see [`Began`], [`Taken`],
/// [`Cleaned`]); the result is derived from the run's outcome once it is over.
pub(super) struct Shared<'s> {
    pub spec: &'s ScenarioSpec,
    pub cancel: Cancel,
    /// This run's stamp and the prefix of every index it makes.
    pub stamp: String,
    pub prefix: String,
    pub made: Made,
}

impl<'s> Shared<'s> {
    pub fn new(spec: &'s ScenarioSpec, stamp: String) -> Self {
        Shared {
            spec,
            cancel: spec.cancel.clone().unwrap_or_else(Cancel::never),
            prefix: format!("searchbench-shards-{stamp}-"),
            stamp,
            made: Made::default(),
        }
    }
}

/// What the setup hands on: when the scenario began, the engine that answered (product,
/// version, URL without a query string), the snapshot repository it settled.
pub(super) struct Began {
    pub started: Instant,
    pub started_unix_ms: Option<u64>,
    pub engine: (String, String, String),
    pub repository: Option<Repository>,
}

/// What the snapshots phase hands on: the snapshots taken (none without a repository), and
/// the engine profile around them (the scenario's measured phase).
pub(super) struct Taken {
    pub snapshots: Option<Snapshots>,
    pub profile: Option<Profile>,
}

/// What the cleanup hands on: what it removed, and when the scenario ended.
pub(super) struct Cleaned {
    pub cleanup: Cleanup,
    pub ended: Instant,
}

/// A phase of the scenario: which one, and what it shares.
pub(super) struct ScenarioPhase<'p, 's> {
    pub step: ScenarioStep,
    pub shared: &'p Shared<'s>,
    /// The repository the setup settled (for the snapshots and the cleanup).
    pub repository: Option<Repository>,
    /// What the phase found, from its end until it is handed on.
    pub report: Option<Report>,
    /// The snapshots taken, until the phase hands them on with its profile.
    pub snapshots: Option<Snapshots>,
}

/// The setup's phase: what it hands on is the others' (the repository).
const SETUP: &str = "setup";

/// What each of the scenario's phases hands on, under its name.
pub(super) const BEGAN: Hand<Began> = Hand::new(SETUP);
pub(super) const CREATED: Hand<Creation> = Hand::new(CREATION_PHASE);
pub(super) const COUNTED: Hand<IndexCounts> = Hand::new("counting");
pub(super) const FIELD_CAPS: Hand<Latency> = Hand::new(FIELD_CAPS_PHASE);
pub(super) const TAKEN: Hand<Taken> = Hand::new("snapshots");
pub(super) const CLEANED: Hand<Cleaned> = Hand::new("cleanup");

impl ScenarioStep {
    /// The phase's name in the run's record.
    pub fn name(self) -> &'static str {
        match self {
            ScenarioStep::Setup => BEGAN.name(),
            ScenarioStep::Creation => CREATED.name(),
            ScenarioStep::Counting => COUNTED.name(),
            ScenarioStep::FieldCaps => FIELD_CAPS.name(),
            ScenarioStep::Snapshots => TAKEN.name(),
            ScenarioStep::Cleanup => CLEANED.name(),
        }
    }
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
        self.step.name().into()
    }

    /// After Ctrl-C only the cleanup is left to do.
    fn wanted(&self, _: &Outcome) -> bool {
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

    /// The snapshots and the cleanup work on the repository the setup settled.
    fn given(&mut self, before: &mut Outcome) {
        if matches!(self.step, ScenarioStep::Snapshots | ScenarioStep::Cleanup) {
            self.repository = before.report(&BEGAN).and_then(|b| b.repository.clone());
        }
    }

    /// What the phase found; the snapshots are the profiled phase of their scenario, so the
    /// profile is theirs.
    fn ended(&mut self, _: &Stage<'_>, end: &mut StepEnd) -> Option<Report> {
        if self.step == ScenarioStep::Snapshots {
            return Some(TAKEN.report(Taken {
                snapshots: self.snapshots.take(),
                profile: end.watched.take(&PROFILE),
            }));
        }
        self.report.take()
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let (s, target) = (self.shared, stage.target);
            // What the phase measured that adds up over parts (its requests' histogram; the
            // creation's record), its histograms kept beside the run's result too.
            let mut measured = Measurements::default();
            match self.step {
                ScenarioStep::Setup => {
                    let started = Instant::now();
                    let started_unix_ms = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .ok()
                        .map(|d| d.as_millis() as u64);
                    let (product, version, _) = target.product().await?;
                    let mut url = target.url().clone();
                    url.set_query(None);
                    check_shard_room(target, s.spec.indices + 1).await?;
                    // The repository is settled before anything is made: a cluster without
                    // `path.repo` fails here, with nothing to clean up.
                    let repository = if s.spec.scenario == Scenario::Snapshots && s.spec.is_first()
                    {
                        Some(repository(target, s.spec, &s.stamp).await?)
                    } else {
                        None
                    };
                    self.report = Some(BEGAN.report(Began {
                        started,
                        started_unix_ms,
                        engine: (product.to_string(), version, url.to_string()),
                        repository,
                    }));
                }
                ScenarioStep::Creation => {
                    let (creation, record) =
                        create_indices(target, s.spec, &s.prefix, &s.made, &s.cancel).await;
                    self.report = Some(CREATED.report(creation));
                    measured = record;
                }
                ScenarioStep::Counting => {
                    let counts = count_indices(target, &s.prefix, s.spec).await?;
                    self.report = Some(COUNTED.report(counts));
                }
                ScenarioStep::FieldCaps => {
                    let (latency, h) =
                        field_caps_latency(target, s.spec, &s.prefix, &s.cancel).await;
                    measured = latency.recorded(Some(&h));
                    self.report = Some(FIELD_CAPS.report(latency));
                }
                ScenarioStep::Snapshots => {
                    if let Some(repo) = &self.repository {
                        let taken = take_snapshots(
                            target, s.spec, repo, &s.prefix, &s.stamp, &s.made, &s.cancel,
                        )
                        .await;
                        self.snapshots = Some(taken);
                    }
                }
                ScenarioStep::Cleanup => {
                    let repo = self.repository.clone();
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
                    self.report = Some(CLEANED.report(Cleaned {
                        cleanup,
                        ended: Instant::now(),
                    }));
                }
            }
            let kept: Vec<SerializedHistogram> = (measured.histograms.iter())
                .filter_map(|(name, (unit, h))| SerializedHistogram::encode(name, unit, h))
                .collect();
            if !kept.is_empty() {
                stage.feed.send(Streamed::Histograms(kept));
            }
            Ok(measured)
        })
    }
}

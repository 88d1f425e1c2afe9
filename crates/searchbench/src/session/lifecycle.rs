//! One run's lifecycle, written once: reach the cluster (the user's, or an engine started for
//! the run), run the plan's phases in order (the steps that say so, together), with the
//! instruments around each phase, stop what was started whatever happened, and hand every
//! phase's measurements and the outcome to the sinks.
//!
//! The three seams are small traits:
//! - a [`Phase`] does the run's work against the cluster and returns raw, mergeable
//!   [`Measurements`] (counts, HDR histograms, counts per wall-clock second): the bulk load,
//!   the query method, searches during a load, a scenario's steps;
//! - an [`Instrument`] is started before a phase and stopped after it, and says what it saw:
//!   telemetry from `_nodes/stats` and `/proc`, the driver's CPU, an engine profiler. One that
//!   fails is a warning on the run, never a failed run;
//! - a [`Sink`] is told the plan, each phase's measurements and the outcome: the results store,
//!   the HTML report, a remote results cluster. One that fails is a warning too.
//!
//! [`with_cluster`] is the part every session shares today (the one place that connects);
//! [`run`] is the whole lifecycle for plans made of these parts.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::cluster::{ClusterSpec, Connected};
use super::{Event, Observer, SessionError};
use crate::cluster::delay::Rtt;
use crate::cluster::Target;
use crate::measure::telemetry::Row;
pub use crate::measure::Measurements;
pub use crate::measure::{Better, Figure, Kept, Merge};
use crate::measure::{SerializedHistogram, TimelineRow};
/// Which run this is (kind, workload, seed, engine, configuration, tags): what the store
/// begins it with and every sink is told first.
pub use crate::store::NewRun as Identity;

/// A future a phase, an instrument or a sink returns, borrowing what it was given.
pub type Work<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Reaches the cluster of `cluster` (connects, or starts the engine and waits for it), does
/// `work` with it, and stops what was started, whatever `work` returned. Every session that
/// needs a cluster goes through here: the engine a run starts is stopped in one place.
pub async fn with_cluster<T, E: From<SessionError>>(
    cluster: &ClusterSpec,
    observer: &dyn Observer,
    work: impl AsyncFnOnce(&Connected) -> Result<T, E>,
) -> Result<T, E> {
    let connected = cluster.connect(observer).await?;
    let outcome = work(&connected).await;
    connected.stop().await;
    outcome
}

/// What a phase, an instrument or a sink is given: the cluster and where to say what happens.
pub struct Stage<'a> {
    pub target: &'a Target,
    /// The engine's local processes, when known (for their CPU time).
    pub engine_pids: &'a [u32],
    /// The delay added in front of the cluster (`--rtt`), if any.
    pub rtt: Option<Rtt>,
    /// What warming the node we started did, when it was warmed (a load's report says it).
    pub warmed: Option<&'a crate::measure::warm_up::WarmUp>,
    pub observer: &'a dyn Observer,
    /// When the run's cluster was reached: second 0 of every phase's instruments, so the
    /// seconds of one run's phases follow on.
    pub started: Instant,
    /// Where rows go while a phase runs: to every sink, as they come.
    pub feed: Feed,
    /// When the step's measured window began, once its phase knows: a load with a warm-up
    /// settles it as it ends (a run too short for its warm-up is measured whole: then it
    /// stays unset). Cleared before each step; instruments read it as they stop, so what
    /// they summarise covers what the phase measured.
    pub measured_from: Cell<Option<Instant>>,
}

/// Rows a phase or an instrument streams while it runs, so a run killed halfway keeps them.
#[derive(Debug, Clone)]
pub enum Streamed {
    /// Closed seconds of a load's throughput timeline.
    Timeline(Vec<TimelineRow>),
    /// Telemetry samples.
    Telemetry(Vec<Row>),
    /// HDR histograms, as runs keep them.
    Histograms(Vec<SerializedHistogram>),
    /// The engine build the run reached (part of its provenance), once it answered.
    Engine(crate::measure::provenance::Engine),
}

/// The sending end of the run's stream to its sinks. It can cross threads (a sampler's own
/// thread sends through it); sending never waits, and after the run it is a no-op.
#[derive(Debug, Clone)]
pub struct Feed(tokio::sync::mpsc::UnboundedSender<Streamed>);

impl Feed {
    pub fn send(&self, rows: Streamed) {
        // The receiver lives as long as the run; rows sent after it are nobody's.
        let _ = self.0.send(rows);
    }
}

/// The work of a run, against the cluster.
pub trait Phase {
    /// What the phase is called in the run's record (`ingest`, `query`).
    fn name(&self) -> String;
    /// Whether the phase still has work, asked just before its step with what the phases
    /// before it handed on (a query phase after a load that failed has none). A phase not
    /// wanted is not run, and nothing watches it.
    fn wanted(&self, _before: &Outcome) -> bool {
        true
    }
    /// Just before its step runs: takes what it needs of what the phases before it handed on
    /// (a query phase, what its setup found).
    fn given(&mut self, _before: &mut Outcome) {}
    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>>;
    /// Called after the instruments around the phase stopped, when it succeeded: the phase's
    /// last word (its figures from what the instruments saw around its step, what it tells
    /// the observer), and what it hands on: its typed report, kept in the run's [`Outcome`]
    /// for the phases after it and for the command's result. The phases of a step end last
    /// first, so the step's first phase (a load) may take what the phases beside it handed
    /// on ([`StepEnd::report`]) as well as what the instruments saw.
    fn ended(&mut self, _stage: &Stage<'_>, _end: &mut StepEnd) -> Option<Report> {
        None
    }
}

/// The name and the type of what a phase hands on ([`Report`]) or an instrument saw
/// ([`Seen`]): given and taken through the same `Hand`, the value keeps its type, so a phase
/// cannot take what another handed on as anything else (the compiler says so). The name is
/// the phase's (or the instrument's) name.
pub struct Hand<T> {
    name: &'static str,
    kind: PhantomData<fn() -> T>,
}

impl<T: Any> Hand<T> {
    /// What the phase (or instrument) `name` hands on, of type `T`.
    pub const fn new(name: &'static str) -> Self {
        Hand {
            name,
            kind: PhantomData,
        }
    }

    /// The phase's or instrument's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// `value`, handed on by the phase this names.
    pub fn report(&self, value: T) -> Report {
        Report(Box::new(value))
    }

    /// `value`, seen by the instrument this names (see [`Seen`]: nothing kept yet).
    pub fn seen(&self, value: T) -> Seen {
        Seen::boxed(Box::new(value))
    }
}

/// What phases of every name hand on as `T` (a track's tasks, each named by the track): taken
/// all at once, in the order of the plan's steps ([`Outcome::take_all`]).
pub struct Every<T>(PhantomData<fn() -> T>);

impl<T: Any> Every<T> {
    pub const fn new() -> Self {
        Every(PhantomData)
    }

    /// `value`, handed on by a phase of any name.
    pub fn report(&self, value: T) -> Report {
        Report(Box::new(value))
    }
}

impl<T: Any> Default for Every<T> {
    fn default() -> Self {
        Every::new()
    }
}

/// What a phase hands on when it ended: its own typed report (an `IngestReport`, a
/// `QueryResult`, a task's figures), made by a [`Hand`] (or an [`Every`]) of its type.
pub struct Report(Box<dyn Any>);

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Report")
    }
}

/// `boxed` as `T`, or back as it was.
fn downcast<T: Any>(boxed: Box<dyn Any>) -> Result<T, Box<dyn Any>> {
    boxed.downcast::<T>().map(|b| *b)
}

/// Where the phases of a step end: what the instruments saw around it, and what the phases
/// that ended before (the later ones of the step) handed on.
#[derive(Debug, Default)]
pub struct StepEnd {
    pub watched: Watched,
    reports: BTreeMap<String, Report>,
}

impl StepEnd {
    /// The report another phase of the step handed on, taken from it (the searches during a
    /// load, for the load's report).
    pub fn report<T: Any>(&mut self, phase: &Hand<T>) -> Option<T> {
        let Report(boxed) = self.reports.remove(phase.name)?;
        match downcast(boxed) {
            Ok(v) => Some(v),
            Err(boxed) => {
                self.reports.insert(phase.name.to_string(), Report(boxed));
                None
            }
        }
    }
}

/// What an instrument saw around one step: its own typed value, for the phase that summarises
/// it (the telemetry of a load), and what the sinks keep of it ([`Kept`]: its figures, judged
/// like any metric of the run, and its detail), when anything.
pub struct Seen {
    value: Box<dyn Any>,
    kept: Kept,
    /// What went wrong on the way without spoiling what was seen: warnings on the run.
    warnings: Vec<String>,
}

impl Seen {
    /// What an instrument saw, which the sinks do not keep (the phase puts its summary in its
    /// result): made by the instrument's [`Hand`].
    fn boxed(value: Box<dyn Any>) -> Self {
        Seen {
            value,
            kept: Kept::default(),
            warnings: Vec::new(),
        }
    }

    /// With a warning on the run (part of what the instrument watched could not be read).
    pub fn warning(mut self, warning: String) -> Self {
        self.warnings.push(warning);
        self
    }

    /// Also kept by the sinks, beside the phase's measurements, as its detail: shown and
    /// published, never judged.
    pub fn kept(mut self, detail: Value) -> Self {
        self.kept.detail = Some(detail);
        self
    }

    /// Also kept by the sinks: the figure `key` (the end of a metric key: letters, digits,
    /// `_` and `-`, in parts joined by `.`), judged in every view like any metric of the run.
    pub fn figure(mut self, key: &str, figure: Figure) -> Self {
        self.kept.figures.insert(key.to_string(), figure);
        self
    }
}

impl std::fmt::Debug for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seen").field("kept", &self.kept).finish()
    }
}

/// What every instrument saw around one step, by instrument name: what its phases summarise.
#[derive(Debug, Default)]
pub struct Watched {
    seen: BTreeMap<String, Seen>,
}

impl Watched {
    /// What `instrument` saw, as its own type; `None` when it was not there, saw nothing, or
    /// another phase of the step took it.
    pub fn take<T: Any>(&mut self, instrument: &Hand<T>) -> Option<T> {
        let instrument = instrument.name;
        let seen = self.seen.remove(instrument)?;
        match downcast(seen.value) {
            Ok(v) => Some(v),
            Err(value) => {
                // Not the type asked for: left for whoever knows it.
                self.seen.insert(
                    instrument.to_string(),
                    Seen {
                        value,
                        kept: seen.kept,
                        warnings: Vec::new(),
                    },
                );
                None
            }
        }
    }

    /// What `instrument` saw, as its own type, left where it is.
    pub fn get<T: Any>(&self, instrument: &Hand<T>) -> Option<&T> {
        self.seen.get(instrument.name)?.value.downcast_ref()
    }

    /// What the sinks keep: what each instrument kept, by name (none that kept nothing).
    fn kept(&self) -> BTreeMap<String, Kept> {
        self.seen
            .iter()
            .filter(|(_, s)| s.kept != Kept::default())
            .map(|(name, s)| (name.clone(), s.kept.clone()))
            .collect()
    }
}

/// Something attached around phases that watches rather than works.
pub trait Instrument {
    fn name(&self) -> String;
    /// Called just before `phase` starts.
    fn start<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<(), String>>;
    /// Called just after `phase` ends (also when it failed): what the instrument saw, if
    /// anything; the step's phases summarise it, and the sinks keep what it says to keep.
    fn stop<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<Seen>, String>>;
}

/// An instrument around one phase only: a query command's setup is not what it measures, and
/// a run's profile is of its load. Around any other phase it neither starts nor stops.
pub struct Around<I> {
    phase: &'static str,
    inner: I,
}

/// `inner` around the phase `phase` alone.
pub fn around<I: Instrument>(phase: &'static str, inner: I) -> Around<I> {
    Around { phase, inner }
}

impl<I: Instrument> Instrument for Around<I> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn start<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<(), String>> {
        if phase == self.phase {
            self.inner.start(phase, stage)
        } else {
            Box::pin(async { Ok(()) })
        }
    }

    fn stop<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<Seen>, String>> {
        if phase == self.phase {
            self.inner.stop(phase, stage)
        } else {
            Box::pin(async { Ok(None) })
        }
    }
}

/// Somewhere a run's results go. Each call's error becomes a warning on the run.
pub trait Sink {
    fn name(&self) -> String;
    /// Before anything starts: which run this is, and the phases it will have, in order.
    fn begin(&mut self, run: &Identity, phases: &[String]) -> Result<(), String>;
    /// Rows a phase or an instrument streamed while it ran.
    fn streamed(&mut self, _rows: &Streamed) -> Result<(), String> {
        Ok(())
    }
    /// A phase ended with these measurements.
    fn phase(&mut self, measured: &Measured) -> Result<(), String>;
    /// The run ended (also when it failed or the cluster could not be reached).
    fn finish(&mut self, finished: &Finished) -> Result<(), String>;
}

/// One step of a plan: a phase, or phases that run at the same time (a load and the searches
/// during it: the first is the step's main phase, the one its instruments are told).
pub enum Step<'p> {
    One(Box<dyn Phase + 'p>),
    Together(Vec<Box<dyn Phase + 'p>>),
    /// A phase that runs even when one before it failed: the cleanup of what the run made.
    /// Its own failure is a warning when the run has failed already.
    Finally(Box<dyn Phase + 'p>),
}

/// What a run does and where its results go.
pub struct Plan<'p> {
    /// Which run this is, as every sink is told it.
    pub identity: Identity,
    pub steps: Vec<Step<'p>>,
    pub instruments: Vec<Box<dyn Instrument + 'p>>,
    pub sinks: Vec<Box<dyn Sink + 'p>>,
}

impl<'p> Plan<'p> {
    /// The plan of the run `identity`: these steps, with no instrument and no sink yet.
    pub fn new(identity: Identity, steps: Vec<Step<'p>>) -> Self {
        Plan {
            identity,
            steps,
            instruments: Vec::new(),
            sinks: Vec::new(),
        }
    }

    /// Adds `instrument` around every step, when there is one (telemetry can be off).
    pub fn instrument(mut self, instrument: Option<impl Instrument + 'p>) -> Self {
        if let Some(i) = instrument {
            self.instruments.push(Box::new(i));
        }
        self
    }

    /// Adds `sink`, when there is one (a run not saved has no store).
    pub fn sink(mut self, sink: Option<impl Sink + 'p>) -> Self {
        if let Some(s) = sink {
            self.sinks.push(Box::new(s));
        }
        self
    }
}

impl Step<'_> {
    fn names(&self) -> Vec<String> {
        match self {
            Step::One(p) | Step::Finally(p) => vec![p.name()],
            Step::Together(ps) => ps.iter().map(|p| p.name()).collect(),
        }
    }
}

/// A phase's measurements with what the instruments saw around it.
#[derive(Debug, Default)]
pub struct Measured {
    pub phase: String,
    pub measurements: Measurements,
    /// Instrument name → what the sinks keep of what it saw around the phase's step: on the
    /// step's first phase (the one the instruments were told), none on the phases beside it,
    /// so a figure is the step's once.
    pub instruments: BTreeMap<String, Kept>,
    /// What the instruments saw around the phase's step that no phase of it took (on the
    /// step's first phase): the command derives its result from it.
    pub watched: Watched,
    /// What the phase handed on (see [`Phase::ended`]), until a later phase or the command's
    /// result takes it.
    pub report: Option<Report>,
}

impl Outcome {
    /// The report the last phase named `phase` handed on, as `T`, left where it is.
    pub fn report<T: Any>(&self, phase: &Hand<T>) -> Option<&T> {
        self.phases
            .iter()
            .rev()
            .filter(|m| m.phase == phase.name)
            .find_map(|m| m.report.as_ref()?.0.downcast_ref())
    }

    /// The report the last phase named `phase` handed on, as `T`, taken from the outcome.
    pub fn take<T: Any>(&mut self, phase: &Hand<T>) -> Option<T> {
        let m = self
            .phases
            .iter_mut()
            .rev()
            .filter(|m| m.phase == phase.name)
            .find(|m| m.report.as_ref().is_some_and(|r| r.0.is::<T>()))?;
        let Report(boxed) = m.report.take()?;
        downcast(boxed).ok()
    }

    /// Every report of type `T` the phases handed on, in the order of the plan's steps,
    /// taken from the outcome (a track run's task rows).
    pub fn take_all<T: Any>(&mut self, _every: &Every<T>) -> Vec<T> {
        let mut all = Vec::new();
        for m in &mut self.phases {
            if m.report.as_ref().is_some_and(|r| r.0.is::<T>()) {
                if let Some(Report(boxed)) = m.report.take() {
                    all.extend(downcast(boxed).ok());
                }
            }
        }
        all
    }
}

/// What a run's phases did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Every phase that ended, in the order they ended.
    pub phases: Vec<Measured>,
    /// The phase that failed (its error is the run's, [`Ran::result`]); the phases before it
    /// are kept.
    pub failed_phase: Option<String>,
    /// What failed without failing the run: an instrument, a sink. Each is also told to the
    /// observer as it happens.
    pub warnings: Vec<String>,
}

/// How a run ended, as the sinks are told it.
#[derive(Debug)]
pub struct Finished<'a> {
    pub outcome: &'a Outcome,
    /// The run's result as the command derived it from every phase, after the run; or the
    /// error that ended the run: the cluster not reached, a phase that failed.
    pub result: Result<&'a Value, &'a SessionError>,
}

/// A run's result and what its phases did.
#[derive(Debug)]
pub struct Ran<T> {
    /// What the command derived from the phases, or the error that ended the run as it was
    /// raised (so a command maps it to the same exit code as before).
    pub result: Result<T, SessionError>,
    pub outcome: Outcome,
}

/// A run that ended on an error: the cluster not reached (nothing ran), or a phase that
/// failed (with the phases before it).
struct Ended(Outcome, SessionError);

impl From<SessionError> for Ended {
    fn from(e: SessionError) -> Self {
        Ended(Outcome::default(), e)
    }
}

/// The engine build a run reached, for its provenance: its `GET /` and its JVM. Asked once,
/// briefly: a cluster that does not say (or a server that does not answer) leaves it unknown,
/// never failing the run nor holding it up for more than a moment.
async fn engine_of(target: &crate::cluster::Target) -> Option<crate::measure::provenance::Engine> {
    let within = std::time::Duration::from_secs(2);
    let build = tokio::time::timeout(within, target.build())
        .await
        .ok()?
        .ok()?;
    let (jvm, heap) = match tokio::time::timeout(within, target.jvm()).await {
        Ok(Ok(j)) => (
            Some(format!(
                "{} {} ({}, {})",
                j.vendor,
                j.version,
                j.vm,
                j.gc.join(" + ")
            )),
            j.heap_max_bytes,
        ),
        _ => (None, None),
    };
    let nodes = match tokio::time::timeout(within, target.health(None)).await {
        Ok(Ok(h)) => Some(h.number_of_nodes),
        _ => None,
    };
    let mut engine = crate::measure::provenance::Engine::new(
        &build.version,
        build.hash.as_deref(),
        build.flavor.as_deref(),
        jvm.as_deref(),
    );
    (engine.heap_max_bytes, engine.nodes) = (heap, nodes);
    Some(engine)
}

/// Runs `plan` on `cluster`: tells the sinks the phases, reaches the cluster, runs each step
/// with every instrument started before it and stopped after it (the rows streamed meanwhile
/// go to the sinks as they come), stops what it started, derives the run's result from the
/// outcome with `derive` (every figure computed once, from every phase), and tells the sinks
/// how the run ended. A phase that fails ends the run there (the phases before it are kept,
/// and its error is the run's); an instrument or a sink that fails is a warning.
pub async fn run<T: Serialize>(
    cluster: &ClusterSpec,
    plan: Plan<'_>,
    observer: &dyn Observer,
    derive: impl FnOnce(&mut Outcome) -> Result<T, SessionError>,
) -> Ran<T> {
    drive(Reach::Connect(cluster), plan, observer, derive).await
}

/// [`run`] on a cluster already reached: nothing is started or stopped. For sessions that run
/// many plans on one cluster (a sweep's cells, a saturate's steps, a calibration's runs), each
/// plan its own stored run.
pub async fn run_on<T: Serialize>(
    connected: &Connected,
    plan: Plan<'_>,
    observer: &dyn Observer,
    derive: impl FnOnce(&mut Outcome) -> Result<T, SessionError>,
) -> Ran<T> {
    drive(Reach::Reached(connected), plan, observer, derive).await
}

/// How a run gets its cluster.
enum Reach<'c> {
    /// Connect (or start the engine), and stop what was started at the end.
    Connect(&'c ClusterSpec),
    /// Already reached by the caller, who stops it.
    Reached(&'c Connected),
}

async fn drive<T: Serialize>(
    reach: Reach<'_>,
    plan: Plan<'_>,
    observer: &dyn Observer,
    derive: impl FnOnce(&mut Outcome) -> Result<T, SessionError>,
) -> Ran<T> {
    let Plan {
        identity,
        steps,
        mut instruments,
        sinks,
    } = plan;
    let phases: Vec<String> = steps.iter().flat_map(Step::names).collect();
    let sinks = RefCell::new(sinks);
    let warnings = RefCell::new(Vec::new());
    let warn = |warning: String| {
        observer.event(Event::Warning(warning.clone()));
        warnings.borrow_mut().push(warning);
    };
    let tell = |call: &mut dyn FnMut(&mut dyn Sink) -> Result<(), String>| {
        for sink in sinks.borrow_mut().iter_mut() {
            if let Err(e) = call(sink.as_mut()) {
                warn(format!("{}: {e}", sink.name()));
            }
        }
    };
    tell(&mut |sink| sink.begin(&identity, &phases));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    // The stream ends when the last sender is gone: the stage's, with the cluster's work.
    let drain = async {
        while let Some(rows) = rx.recv().await {
            tell(&mut |sink| sink.streamed(&rows));
        }
    };
    let on_cluster = async move |connected: &Connected| {
        let stage = Stage {
            target: &connected.target,
            engine_pids: &connected.engine_pids,
            rtt: connected.delay.as_ref().map(|(rtt, _)| *rtt),
            warmed: connected.warmed.as_ref(),
            observer,
            // Once the cluster is reached: an engine's start is not part of any phase.
            started: Instant::now(),
            feed: Feed(tx),
            measured_from: Cell::new(None),
        };
        if let Some(engine) = engine_of(&connected.target).await {
            stage.feed.send(Streamed::Engine(engine));
        }
        let mut outcome = Outcome::default();
        // The error that ended the run, with the phase it came from.
        let mut failed: Option<(String, SessionError)> = None;
        for step in steps {
            let mut step_phases = match step {
                Step::Finally(p) => vec![p],
                // After a failure, only the cleanups run.
                _ if failed.is_some() => continue,
                Step::One(p) => vec![p],
                Step::Together(ps) => ps,
            };
            step_phases.retain(|p| p.wanted(&outcome));
            if step_phases.is_empty() {
                continue;
            }
            for p in &mut step_phases {
                p.given(&mut outcome);
            }
            let names: Vec<String> = step_phases.iter().map(|p| p.name()).collect();
            // A step is watched as its first phase: the load, with the searches during it.
            let label = names[0].clone();
            stage.measured_from.set(None);
            for i in &mut instruments {
                if let Err(e) = i.start(&label, &stage).await {
                    warn(format!("{}: {e}", i.name()));
                }
            }
            let results =
                futures_util::future::join_all(step_phases.iter_mut().map(|p| p.run(&stage))).await;
            let mut watched = Watched::default();
            for i in instruments.iter_mut().rev() {
                match i.stop(&label, &stage).await {
                    Ok(Some(mut seen)) => {
                        for w in std::mem::take(&mut seen.warnings) {
                            warn(format!("{}: {w}", i.name()));
                        }
                        // JSON has no NaN nor infinity: such a figure would not read back.
                        seen.kept.figures.retain(|key, f| {
                            let finite = f.value.is_finite();
                            if !finite {
                                warn(format!(
                                    "{}: its figure {key} is {}, not kept",
                                    i.name(),
                                    f.value
                                ));
                            }
                            finite
                        });
                        watched.seen.insert(i.name(), seen);
                    }
                    Ok(None) => {}
                    Err(e) => warn(format!("{}: {e}", i.name())),
                }
            }
            let kept = watched.kept();
            // The first phase to fail is the run's error; a later one (of phases run
            // together, a cleanup after the failure) is a warning.
            let mut done = Vec::new();
            for ((name, result), phase) in names.into_iter().zip(results).zip(&mut step_phases) {
                match result {
                    Ok(measurements) => done.push((name, measurements, phase)),
                    Err(e) if failed.is_none() => failed = Some((name, e)),
                    Err(e) => warn(format!("{name}: {e}")),
                }
            }
            // Last first: the step's first phase may take what those beside it handed on.
            let mut end = StepEnd {
                watched,
                reports: BTreeMap::new(),
            };
            for (name, _, phase) in done.iter_mut().rev() {
                if let Some(report) = phase.ended(&stage, &mut end) {
                    end.reports.insert(name.clone(), report);
                }
            }
            let mut ended: Vec<Measured> = done
                .into_iter()
                .map(|(name, measurements, _)| Measured {
                    report: end.reports.remove(&name),
                    phase: name,
                    measurements,
                    instruments: BTreeMap::new(),
                    watched: Watched::default(),
                })
                .collect();
            // What no phase took stays with the step's first phase, for the command to derive
            // its result from (a track run's telemetry over all its steps); so does what the
            // instruments kept (when the first phase failed, the first that ended keeps it).
            if let Some(first) = ended.first_mut() {
                first.watched = end.watched;
                first.instruments = kept;
            }
            if let Some(first) = ended.first().filter(|m| !m.instruments.is_empty()) {
                observer.event(Event::Watched {
                    phase: &first.phase,
                    kept: &first.instruments,
                });
            }
            for measured in ended {
                tell(&mut |sink| sink.phase(&measured));
                outcome.phases.push(measured);
            }
        }
        match failed {
            Some((name, e)) => {
                outcome.failed_phase = Some(name);
                Err(Ended(outcome, e))
            }
            None => Ok(outcome),
        }
    };
    let work = async {
        match reach {
            Reach::Connect(cluster) => with_cluster(cluster, observer, on_cluster).await,
            Reach::Reached(connected) => on_cluster(connected).await,
        }
    };
    let (reached, ()) = tokio::join!(work, drain);
    let (mut outcome, result) = match reached {
        Ok(mut outcome) => {
            let result = derive(&mut outcome);
            (outcome, result)
        }
        Err(Ended(outcome, e)) => (outcome, Err(e)),
    };
    // The sinks keep the result as JSON; one that cannot be written so is the run's error.
    let result = result.and_then(|r| {
        let kept = serde_json::to_value(&r)
            .map_err(|e| SessionError::Other(format!("the run's result cannot be kept: {e}")))?;
        Ok((r, kept))
    });
    tell(&mut |sink| {
        sink.finish(&Finished {
            outcome: &outcome,
            result: result.as_ref().map(|(_, kept)| kept),
        })
    });
    outcome.warnings = warnings.take();
    let result = result.map(|(r, _)| r);
    Ran { result, outcome }
}

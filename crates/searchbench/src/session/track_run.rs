//! A track's challenge run as the run's phases: each task a phase, a parallel block phases that
//! run at the same time (the task named by `completed-by`, or any with `any`, ends the block),
//! through the one lifecycle, so the same instruments and sinks stand around them as around
//! any run. Each task's figures are kept as the tools report them.

use std::cell::OnceCell as Once;

use serde_json::json;
use tokio::sync::{watch, OnceCell};

use super::attach::{Attach, Scope};
use super::ingest::LoadSpec;
use super::job::Job;
use super::join::{JoinPhase, PartOf};
use super::lifecycle::{self, Measurements, Phase, Plan, Stage, Step, Streamed, Work};
use super::telemetry::{Telemetry, TELEMETRY};
use super::track_modules::ModulesCheck;
use super::{ClusterSpec, Observer, SessionError};
use crate::cancel::Cancel;
use crate::corpus::track_file::{EntryFile, TrackFile};
use crate::corpus::DocSource;
use crate::ingest::source::Chain;
use crate::ingest::BulkAction;
use crate::store::Kind;
use crate::tasks::figures::{self, TaskFigures};
use crate::tasks::plan::{self as task_plan, BulkLoad, BulkSpec, Item, TaskPlan};
use crate::tasks::python;
use crate::tasks::TaskRun;
use crate::tasks::{Context, TaskSpec};
use crate::workload::track::model::Procedure;
use crate::workload::track::Definition;

/// What each task's phase hands on (tasks are named by the track): its row of figures.
const TASK: lifecycle::Every<TaskFigures> = lifecycle::Every::new();

pub use crate::tasks::TrackRunResult;

/// How a track run goes beyond its definition: the parameters it was read with (for the
/// record), where it is kept, and what stops it.
pub struct TrackRunSpec<'s> {
    pub params: &'s crate::workload::track::TrackParams,
    /// What the flags attach to the run: its store, telemetry, tags.
    pub attach: &'s Attach,
    /// Ctrl-C: the task running stops, what ran is kept, the run is stored as interrupted.
    pub interrupt: Cancel,
    /// Planned in test mode (kept in the configuration: a test-mode run is not compared with
    /// a real one).
    pub test_mode: bool,
    /// One part of a run split over several drivers: the plan is this part's
    /// ([`task_plan::for_part`]), and the parts join before each step.
    pub part: Option<PartOf>,
    /// `--failures FILE`: where the bulks' refused documents go (numbered, one file a load,
    /// when the track has several: see [`failure_file`]); `<target>-failures.ndjson` when not
    /// given.
    pub failures: Option<std::path::PathBuf>,
    /// The corpus files `--synthesize` made for those not here: kept in the run's
    /// configuration (a run on a synthesized corpus is never one configuration with a run on
    /// the real one) and in its result.
    pub synthesized: Vec<crate::tasks::synthesize::Synthesized>,
    /// How soon each bulk's documents are searchable, measured as every load's are (where its
    /// plan allows: [`crate::tasks::freshness::unprobed`]); `None`: not measured
    /// (`--no-freshness`).
    pub freshness: Option<crate::ingest::freshness::FreshnessSpec>,
}

/// The failure file of load `k` (1, 2, … in the plan's order) of `loads` (every bulk's
/// loads, one a target and a way of reading): `given` itself when the track has one load,
/// else `given` numbered (`f.ndjson` → `f-2.ndjson`), since each load sets aside the file it
/// finds; without `given`, a lone load's default (`<target>-failures.ndjson`) or, numbered,
/// `<target>-<k>-failures.ndjson`.
fn failure_file(
    given: Option<&std::path::Path>,
    loads: usize,
    k: usize,
    target: &str,
) -> Option<std::path::PathBuf> {
    if loads <= 1 {
        return given.map(std::path::Path::to_path_buf);
    }
    let Some(given) = given else {
        let target = super::ingest::file_safe(target);
        return Some(format!("{target}-{k}-failures.ndjson").into());
    };
    let stem = given.file_stem().map_or_else(
        || "failures".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let file = match given.extension() {
        Some(ext) => format!("{stem}-{k}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{k}"),
    };
    Some(given.with_file_name(file))
}

/// Runs `procedure` of `d` as `planned` ([`task_plan::plan`]) on `cluster`, kept in the store (with its HTML report) as a track
/// run.
pub async fn run(
    d: &Definition,
    procedure: &Procedure,
    planned: task_plan::Planned,
    cluster: &ClusterSpec,
    spec: &TrackRunSpec<'_>,
    observer: &dyn Observer,
) -> Result<TrackRunResult, SessionError> {
    let task_plan::Planned {
        steps,
        not_run,
        points,
        ..
    } = planned;
    let mut config = json!({
        "track": d.name,
        "procedure": procedure.name,
        "track_params": redacted(spec.params),
        "test_mode": spec.test_mode,
    });
    if !spec.synthesized.is_empty() {
        config[crate::store::SYNTHESIZED] =
            serde_json::to_value(&spec.synthesized).unwrap_or_default();
    }
    if let Some(p) = &spec.part {
        config["part"] = p.part.to_string().into();
        config["group"] = p.group.clone().into();
    }
    let identity = spec
        .attach
        .identity(Kind::Track, &d.name, None, cluster.engine_name(), config);
    // Telemetry around every step (each task alone, or a parallel block); no profile yet.
    // `--profile`: each task profiled on its own, kept with it in the run's record.
    let scope = Scope::EVERY;
    let kit = spec.attach.kit(&identity, scope, observer);
    let modules = ModulesCheck::new(crate::tasks::needs::needs(d, procedure));
    // The track's Python loaded before anything is sent: an error in it stops the run here.
    let worker = python_worker(d, procedure, &steps, spec, observer).await?;
    // The worker dying stops the run as Ctrl-C does: what ran is kept, as interrupted.
    let interrupt = match &worker {
        Some(w) => Cancel::either(&spec.interrupt, &w.died()),
        None => spec.interrupt.clone(),
    };
    let context = OnceCell::new();
    let joins = Once::new();
    let join = |point: String, end: bool| {
        JoinPhase::step(spec.part.as_ref(), &joins, &interrupt, point, end)
    };
    let mut plan_steps: Vec<Step<'_>> = Vec::new();
    let keep_seconds = spec.part.is_some();
    let loads: usize = steps
        .iter()
        .flatten()
        .map(|(plan, _)| match plan {
            TaskPlan::Bulk(b) => b.loads.len(),
            TaskPlan::Task(_) => 0,
        })
        .sum();
    let mut first_load = 1;
    for (k, together) in steps.into_iter().enumerate() {
        // Every part has ended the step before (what part 1 made is there for the others);
        // before the first, every part is there: nothing runs until all have started.
        let point = points
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("step {}", k + 1));
        plan_steps.extend(join(point, false));
        if together.is_empty() {
            continue;
        }
        let (stop_block, block) = Cancel::new();
        let mut phases: Vec<Box<dyn Phase + '_>> = Vec::new();
        // Read from the whole block before its tasks are handed out.
        let mut unprobed: Vec<Option<String>> = (0..together.len())
            .map(|i| crate::tasks::freshness::unprobed(&together, i))
            .collect();
        for (i, (plan, completes)) in together.into_iter().enumerate() {
            let completes = completes.then(|| stop_block.clone());
            match plan {
                TaskPlan::Task(task) => phases.push(Box::new(TaskPhase {
                    spec: *task,
                    context: &context,
                    worker: worker.clone(),
                    modules: &modules,
                    stop: block.clone(),
                    interrupt: interrupt.clone(),
                    completes,
                    figures: None,
                    keep_seconds,
                })),
                TaskPlan::Bulk(bulk) => phases.push(Box::new(BulkPhase {
                    modules: &modules,
                    failures: spec.failures.as_deref(),
                    loads,
                    first_load: {
                        let first = first_load;
                        first_load += bulk.loads.len();
                        first
                    },
                    spec: bulk,
                    freshness: spec.freshness.map(|f| match unprobed[i].take() {
                        None => Ok(f),
                        Some(why) => Err(why),
                    }),
                    part: spec.part.as_ref(),
                    stop: block.clone(),
                    interrupt: interrupt.clone(),
                    completes,
                    figures: None,
                })),
            }
        }
        plan_steps.push(if phases.len() == 1 {
            Step::One(phases.remove(0))
        } else {
            Step::Together(phases)
        });
    }
    plan_steps.extend(join(super::join::END.to_string(), true));
    let plan = Plan::new(identity, plan_steps).attach(kit);
    let ran = lifecycle::run(cluster, plan, observer, |outcome| {
        // Each task's row, as its phase handed it on.
        let tasks = outcome.take_all(&TASK);
        let (product, engine_version) = context
            .get()
            .map(|c: &Context| (c.product.to_string(), c.version.clone()))
            .unwrap_or_default();
        Ok(TrackRunResult {
            track: d.name.clone(),
            procedure: procedure.name.clone(),
            procedure_word: d.track.words().procedure().into(),
            product,
            engine_version,
            interrupted: interrupt.is_cancelled(),
            stopped_by: worker
                .as_ref()
                .filter(|w| w.died().is_cancelled() && !spec.interrupt.is_cancelled())
                .map(|w| w.death()),
            error: figures::failed(&tasks),
            tasks,
            not_run: not_run.iter().cloned().chain(modules.left_out()).collect(),
            synthesized: spec.synthesized.clone(),
            telemetry: Telemetry::combine(
                outcome
                    .phases
                    .iter()
                    .filter_map(|m| m.watched.get(&TELEMETRY)),
            )
            .map(|t| t.summary(None)),
        })
    })
    .await;
    if let Some(w) = &worker {
        w.stop().await;
    }
    ran.result
}

/// The worker of the track's Python, started and the track loaded in it, when a task of the
/// plan takes its parameters from there.
async fn python_worker(
    d: &Definition,
    procedure: &Procedure,
    steps: &[Vec<(TaskPlan, bool)>],
    spec: &TrackRunSpec<'_>,
    observer: &dyn Observer,
) -> Result<Option<std::sync::Arc<python::Worker>>, SessionError> {
    if !steps.iter().flatten().any(|(plan, _)| plan.in_worker()) {
        return Ok(None);
    }
    let load = Loading {
        params: spec.params,
        test_mode: spec.test_mode,
        interrupt: &spec.interrupt,
    };
    let runners_for = runner_tasks(steps).map(|r| r.name.clone()).collect();
    let scheduled_for = scheduled_tasks(steps).map(|(t, _)| t.to_string()).collect();
    let w = start_worker(d, procedure, &load, (runners_for, scheduled_for), observer).await?;
    // A task of a type searchbench does not run runs only by a runner of the tool or of the
    // track.
    if let Some(r) = runner_tasks(steps).find(|r| !w.runs(&r.name)) {
        w.stop().await;
        return Err(SessionError::Usage(format!(
            "{}: task {} ({}): no operation type {} runs here, and neither the tool nor the \
             track's Python has a runner for it (the track registers: {})",
            d.path.display(),
            r.name,
            r.operation_type,
            r.operation_type,
            match w.runners.join(", ") {
                none if none.is_empty() => "none".to_string(),
                some => some,
            }
        )));
    }
    // A schedule the tools do not have is one the track's Python registers.
    if let Some((task, schedule)) = scheduled_tasks(steps).find(|(t, _)| !w.schedules(t)) {
        w.stop().await;
        return Err(SessionError::Usage(format!(
            "{}: task {task}: schedule {schedule}: no scheduler has that name, neither the \
             tools' own (deterministic, poisson) nor one the track's Python registers",
            d.path.display(),
        )));
    }
    Ok(Some(std::sync::Arc::new(w)))
}

/// The tasks of `steps` whose schedule is a scheduler of the track's Python, with its name.
fn scheduled_tasks(steps: &[Vec<(TaskPlan, bool)>]) -> impl Iterator<Item = (&str, &str)> {
    steps.iter().flatten().filter_map(|(plan, _)| match plan {
        TaskPlan::Task(t) => match &t.arrivals {
            crate::tasks::task::Arrivals::Python(name) => Some((t.name.as_str(), name.as_str())),
            _ => None,
        },
        TaskPlan::Bulk(_) => None,
    })
}

/// How the track is loaded in the worker beyond its definition.
pub struct Loading<'l> {
    pub params: &'l crate::workload::track::TrackParams,
    pub test_mode: bool,
    /// Ctrl-C while the environment is made.
    pub interrupt: &'l Cancel,
}

/// The worker, its environment made when it is not there yet, with `procedure` of `d` loaded
/// (`asked`: the tasks it is asked to run by a runner, and those a scheduler of the track's
/// paces). An error in the track's Python is the user's: it names the file and line.
async fn start_worker(
    d: &Definition,
    procedure: &Procedure,
    load: &Loading<'_>,
    asked: (Vec<String>, Vec<String>),
    observer: &dyn Observer,
) -> Result<python::Worker, SessionError> {
    let (runners_for, scheduled_for) = asked;
    let say = |m: String| observer.event(super::Event::Stage(m));
    let setup = |e: python::PythonError| SessionError::Other(format!("the track's Python: {e}"));
    let (library, _) = python::library_of(d.track.words());
    let made = python::venv::ensure(library, &say);
    let python = tokio::select! {
        made = made => made.map_err(setup)?,
        () = load.interrupt.cancelled() => {
            return Err(SessionError::Interrupted("while making the Python environment".into()))
        }
    };
    let dir = d.path.parent().unwrap_or(std::path::Path::new("."));
    let params = serde_json::to_value(load.params).unwrap_or_default();
    let load = python::Load {
        library,
        track_dir: dir,
        params,
        challenge: Some(&procedure.name),
        test_mode: load.test_mode,
        runners_for,
        scheduled_for,
    };
    python::Worker::start(&python, load)
        .await
        .map_err(|e| match e {
            e @ python::PythonError::Track { .. } => {
                SessionError::Usage(format!("{}: the track's Python: {e}", d.path.display()))
            }
            e => setup(e),
        })
}

/// `procedure` as the track's own processors leave it (`register_track_processor`:
/// [`python::processors`]), loaded by the tool's own loader in the worker before the plan, and
/// what of theirs does not run; `None` when the track's Python registers none or they changed
/// nothing. What they changed that is not applied here is an error naming the task.
pub async fn processed(
    d: &Definition,
    procedure: &Procedure,
    load: &Loading<'_>,
    observer: &dyn Observer,
) -> Result<Option<(Procedure, Vec<Item>)>, SessionError> {
    if !python::processors::registers(d) {
        return Ok(None);
    }
    let w = start_worker(d, procedure, load, Default::default(), observer).await?;
    w.stop().await;
    if w.processed.is_empty() {
        return Ok(None);
    }
    w.processed
        .apply(procedure, &d.path)
        .map(Some)
        .map_err(SessionError::Usage)
}

/// The tasks of `steps` run by a runner in the worker.
fn runner_tasks(
    steps: &[Vec<(TaskPlan, bool)>],
) -> impl Iterator<Item = &crate::tasks::python::RunnerTask> {
    steps.iter().flatten().filter_map(|(plan, _)| match plan {
        TaskPlan::Task(t) => match &t.operation.kind {
            crate::tasks::operation::Kind::Runner(r) => Some(r),
            _ => None,
        },
        TaskPlan::Bulk(_) => None,
    })
}

/// The track parameters as kept: a value whose name says it is a secret is not, at any depth
/// (`{"conn": {"password": …}}`).
fn redacted(params: &crate::workload::track::TrackParams) -> serde_json::Value {
    let mut kept: serde_json::Value = (params.iter())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect::<serde_json::Map<_, _>>()
        .into();
    crate::store::secrets::redact_named(&mut kept, "(redacted)");
    kept
}

/// One task as a phase of the run.
struct TaskPhase<'p> {
    spec: TaskSpec,
    /// The cluster and what tasks leave for each other, made by the first task.
    context: &'p OnceCell<Context>,
    /// The worker of the track's Python, when a task takes its parameters from there.
    worker: Option<std::sync::Arc<python::Worker>>,
    /// The engine modules the challenge needs, asked of the node before the first task sends
    /// anything.
    modules: &'p ModulesCheck,
    /// Ends the task early: the task that completes its parallel block ended.
    stop: Cancel,
    /// Ctrl-C.
    interrupt: Cancel,
    /// Set when this task's end ends its block.
    completes: Option<watch::Sender<bool>>,
    /// The task's row, from its end until it is handed on.
    figures: Option<TaskFigures>,
    /// Keep the task's operations per second (a part's, for the merge).
    keep_seconds: bool,
}

impl Phase for TaskPhase<'_> {
    fn name(&self) -> String {
        self.spec.name.clone()
    }

    fn wanted(&self, _: &lifecycle::Outcome) -> bool {
        !self.interrupt.is_cancelled()
            && !self
                .modules
                .leaves_out(&self.spec.name, &self.spec.operation_type)
    }

    fn ended(&mut self, _: &Stage<'_>, _: &mut lifecycle::StepEnd) -> Option<lifecycle::Report> {
        self.figures.take().map(|f| TASK.report(f))
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let context = self
                .context
                .get_or_try_init(|| async {
                    let (product, version, _) = stage.target.product().await?;
                    Ok::<_, crate::cluster::TargetError>(
                        Context::new(stage.target.clone(), product, version)
                            .with_worker(self.worker.clone()),
                    )
                })
                .await?;
            self.modules.ensure(stage.target).await?;
            // The first task asks the node: it may be one the node cannot run.
            if self
                .modules
                .leaves_out(&self.spec.name, &self.spec.operation_type)
            {
                return Ok(Measurements::default());
            }
            // The task stops when its block ends or on Ctrl-C, whichever comes first.
            let (stop_task, stop) = Cancel::new();
            let task = self.spec.run(context, &stop);
            tokio::pin!(task);
            let ran = loop {
                tokio::select! {
                    ran = &mut task => break ran,
                    () = self.stop.cancelled(), if !stop.is_cancelled() => { let _ = stop_task.send(true); }
                    () = self.interrupt.cancelled(), if !stop.is_cancelled() => { let _ = stop_task.send(true); }
                }
            };
            if let Some(done) = &self.completes {
                let _ = done.send(true);
            }
            let mut row = figures::of(&self.spec.name, &self.spec.operation_type, &ran);
            if self.keep_seconds {
                row.per_second = Some(
                    ran.measurements
                        .seconds
                        .iter()
                        .map(|(s, c)| (*s, c.get("ops").copied().unwrap_or(0)))
                        .collect(),
                );
            }
            self.figures = Some(row);
            stage.feed.send(Streamed::Histograms(figures::histograms(
                &self.spec.name,
                &ran.measurements,
                &["latency", "service_time"],
            )));
            Ok(ran.measurements)
        })
    }
}

/// A bulk task as a phase: the project's own driver over each of its target indices (which
/// the track's create-index made: the load appends).
struct BulkPhase<'p> {
    spec: BulkSpec,
    /// See [`TaskPhase::modules`].
    modules: &'p ModulesCheck,
    /// `--failures`, the loads of the whole track and the number of this bulk's first (see
    /// [`failure_file`]).
    failures: Option<&'p std::path::Path>,
    loads: usize,
    first_load: usize,
    /// How soon its documents are searchable: measured, or why its plan does not allow it;
    /// `None`: not asked.
    freshness: Option<Result<crate::ingest::freshness::FreshnessSpec, String>>,
    /// The part of a run in parts: the index is shared, so its count is not this load's.
    part: Option<&'p PartOf>,
    /// The end of its parallel block, when another task completes it: the load then ends
    /// as at the end of its time period, what is in flight answered.
    stop: Cancel,
    interrupt: Cancel,
    completes: Option<watch::Sender<bool>>,
    /// The task's row, from its end until it is handed on.
    figures: Option<TaskFigures>,
}

impl Phase for BulkPhase<'_> {
    fn name(&self) -> String {
        self.spec.name.clone()
    }

    fn wanted(&self, _: &lifecycle::Outcome) -> bool {
        !self.interrupt.is_cancelled()
    }

    fn ended(&mut self, _: &Stage<'_>, _: &mut lifecycle::StepEnd) -> Option<lifecycle::Report> {
        self.figures.take().map(|f| TASK.report(f))
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            self.modules.ensure(stage.target).await?;
            let mut reports = Vec::new();
            let mut all = Measurements::default();
            // A load the engine will not take (its data stream has no template, its index
            // is refused) fails the task, as any failed operation does; the run goes on.
            let mut failed = None;
            // The task's time period runs from its start, over all its loads, past its
            // warm-up: a load begun after it is not begun.
            let deadline = self
                .spec
                .time
                .map(|t| std::time::Instant::now() + self.spec.warmup + t);
            for (i, l) in self.spec.loads.iter().enumerate() {
                if deadline.is_some_and(|d| std::time::Instant::now() >= d)
                    || self.stop.is_cancelled()
                {
                    break;
                }
                match self.load(l, self.first_load + i, deadline, stage).await {
                    Ok(report) => {
                        all.merge(&report.measurements)
                            .map_err(SessionError::Other)?;
                        reports.push(report);
                    }
                    Err(e) => {
                        failed = Some(format!("{}: {e}", l.target));
                        break;
                    }
                }
            }
            // Cut short by the end of its block (not by its own end, which ends the block).
            let cut = self.completes.is_none() && self.stop.is_cancelled();
            if let Some(done) = &self.completes {
                let _ = done.send(true);
            }
            let run = TaskRun {
                measurements: all.clone(),
                window: None,
                first_error: figures::load_error(&reports).or(failed),
                stopped: cut || reports.iter().any(|r| r.interrupted),
            };
            let mut row = figures::of(&self.spec.name, "bulk", &run);
            if row.freshness.is_none() {
                // The plan's reason, or the first load's (what only the cluster knew).
                row.freshness_not_measured = match &self.freshness {
                    Some(Err(why)) => Some(why.clone()),
                    Some(Ok(_)) => reports
                        .iter()
                        .find_map(|r| r.freshness_not_measured.clone()),
                    None => None,
                };
            }
            self.figures = Some(row);
            stage.feed.send(Streamed::Histograms(figures::histograms(
                &self.spec.name,
                &all,
                &["service"],
            )));
            Ok(all)
        })
    }
}

impl BulkPhase<'_> {
    /// The driver over one target's files.
    async fn load(
        &self,
        l: &BulkLoad,
        k: usize,
        deadline: Option<std::time::Instant>,
        stage: &Stage<'_>,
    ) -> Result<crate::ingest::IngestReport, SessionError> {
        let mut job = load_job(l)?;
        if self.spec.looped {
            let files = l.files.clone();
            job.source = Box::new(crate::ingest::source::Looped::new(
                job.source,
                Box::new(move || load_sources(&files)),
            ));
        }
        let mut load = LoadSpec::new(l.target.clone());
        load.driver.deadline = deadline;
        load.driver.finish = Some(self.stop.clone());
        load.failures = failure_file(self.failures, self.loads, k, &l.target);
        load.driver.bulk_docs = self.spec.bulk_size;
        load.driver.clients = self.spec.clients;
        load.driver.pipeline = self.spec.pipeline.clone();
        load.driver.conflicts = self.spec.conflicts;
        // Rally's target throughput of a bulk is requests per second.
        load.driver.rate = self.spec.rate.map(|r| r * self.spec.bulk_size as f64);
        // The task warms up once, before its first load: its window runs from there to its
        // last load's end, as the tools measure a bulk over several indices.
        load.driver.warmup = if k == self.first_load {
            self.spec.warmup
        } else {
            std::time::Duration::ZERO
        };
        load.driver.action = match (l.data_stream, l.with_meta) {
            (_, true) => BulkAction::FromCorpus,
            (true, false) => BulkAction::Create,
            (false, false) => BulkAction::Index,
        };
        load.append = true;
        load.freshness = self.freshness.clone().and_then(Result::ok);
        load.cancel = Some(self.interrupt.clone());
        if let Some(p) = self.part {
            load.driver.part = p.part;
            load.driver.group = Some(p.group.clone());
            // The documents get the ids a whole run gives them (their position in the file);
            // the shares of several files do not follow on, so the engine picks those ids.
            match l.files.as_slice() {
                [one] => load.driver.first_ordinal = one.share.map_or(0, |(from, _)| from),
                // With id conflicts every document needs an id: a part's shares of the files
                // hold as many documents as the earlier parts' shares start after, so the
                // sum of their starts begins a range of ids no other part uses.
                files if self.spec.conflicts.is_some() => {
                    load.driver.first_ordinal = files
                        .iter()
                        .map(|f| f.share.map_or(0, |(from, _)| from))
                        .sum()
                }
                _ => load.driver.ids = crate::ingest::IdMode::Auto,
            }
        }
        let pids = stage.engine_pids.to_vec();
        super::ingest::load(stage.target, job, load, pids, None, stage.observer).await
    }
}

/// The warm-up load of a track (see [`super::warm`]): its first bulk task's first load of
/// plain documents, with the task's clients and bulk size, into the warm-up index. `None`
/// when the track loads no such documents (no bulk task, or only files with their own action
/// lines, which name their index themselves).
pub fn warm_load(planned: &crate::tasks::plan::Planned) -> Option<Box<super::ingest::MakeLoad>> {
    let (bulk, l) = planned
        .steps
        .iter()
        .flatten()
        .find_map(|(task, _)| match task {
            TaskPlan::Bulk(b) => b
                .loads
                .iter()
                .find(|l| !l.with_meta)
                .map(|l| (b.clone(), l.clone())),
            _ => None,
        })?;
    Some(Box::new(move |index: &str, _docs: u64| {
        let mut job = load_job(&l)?;
        job.index = index.to_string();
        let mut load = LoadSpec::new(index);
        load.driver.bulk_docs = bulk.bulk_size;
        load.driver.clients = bulk.clients;
        Ok((job, super::ingest::slice_load(&load, index)))
    }))
}

/// The documents of one load: the entries' files read one after the other, each held to the
/// count its entry declares.
fn load_job(l: &BulkLoad) -> Result<Job, SessionError> {
    let source = load_sources(&l.files)?;
    Ok(Job {
        source,
        index: l.target.clone(),
        // The track made the index (or the template of the data stream): the load appends.
        index_body: serde_json::json!({}),
        portable_body: false,
        workload: "track".into(),
        seed: None,
        truth: None,
        csv_mapping: None,
        byte_share: None,
    })
}

/// The entries' files, read one after the other.
fn load_sources(files: &[EntryFile]) -> Result<Box<dyn DocSource>, crate::corpus::CorpusError> {
    let mut sources: Vec<Box<dyn DocSource>> = Vec::new();
    for f in files {
        sources.push(Box::new(TrackFile::open(f.clone())?));
    }
    Ok(Chain::of(sources))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_tracks_failure_files_follow_the_flag_and_stay_in_its_folder() {
        assert_eq!(failure_file(None, 1, 1, "logs"), None);
        let given = Path::new("out/refused.ndjson");
        assert_eq!(
            failure_file(Some(given), 1, 1, "logs"),
            Some(given.to_path_buf())
        );
        // Several loads: each its own file (a load sets aside the file it finds).
        assert_eq!(
            failure_file(Some(given), 2, 2, "logs"),
            Some(Path::new("out/refused-2.ndjson").to_path_buf())
        );
        assert_eq!(
            failure_file(None, 3, 1, "logs"),
            Some(Path::new("logs-1-failures.ndjson").to_path_buf())
        );
        // A target named to leave the folder stays in it.
        assert_eq!(
            failure_file(None, 2, 2, "../../etc/x"),
            Some(Path::new(".._.._etc_x-2-failures.ndjson").to_path_buf())
        );
        assert_eq!(super::super::ingest::file_safe(".."), "_..");
    }
}

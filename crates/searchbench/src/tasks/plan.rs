//! What of a track's challenge runs here, decided before anything runs: each task through
//! the operation runners ([`super::operation`]) or, a bulk, through the project's own driver;
//! what does not run yet is listed, a corpus not downloaded is named, and what the track gets
//! wrong is refused. `workload check` shows the same plan `run` runs.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::task::Arrivals;
use super::TaskSpec;
use crate::corpus::track_file::EntryFile;
use crate::ingest::conflicts::{Conflicts, IdOrder, OnConflict};
use crate::workload::folder::{Folder, Outside};
use crate::workload::track::model::{self, Procedure};
use crate::workload::track::Definition;

/// One line of what a track holds: whether it runs, and how, or why not.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Item {
    /// `task index-append (bulk)`, `corpus geonames file documents.json.bz2, 11396503 documents`.
    pub what: String,
    pub runs: bool,
    /// It runs with the worker: its parameters come from the track's Python.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub worker: bool,
    /// How it runs, or why it does not.
    pub how: String,
}

/// Why a task is not in the plan.
#[derive(Debug, Clone, PartialEq)]
pub enum Unplanned {
    /// Something searchbench does not run yet: listed, the run goes on without it.
    NotYet(String),
    /// Its documents are not here: listed by `workload check`, refused by `run`.
    Missing(String),
    /// A bulk's corpus files that are not here, each said apart (what `--synthesize` makes).
    Absent(Vec<Absent>),
    /// The track gets it wrong: refused before anything runs.
    Invalid(String),
    /// It reads HDF5 data sets not converted to bigann yet: `run` converts them, then plans
    /// again ([`super::python::hdf5`]).
    Converts(Vec<super::python::hdf5::Hdf5Set>),
}

impl From<&str> for Unplanned {
    fn from(why: &str) -> Self {
        Unplanned::Invalid(why.to_string())
    }
}

impl From<String> for Unplanned {
    fn from(why: String) -> Self {
        Unplanned::Invalid(why)
    }
}

/// A task the track gets wrong, naming the file and the task.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

/// The plan of one challenge.
#[derive(Debug, Default)]
pub struct Planned {
    /// Each step's tasks, with whether the task's end ends its parallel block.
    pub steps: Vec<Vec<(TaskPlan, bool)>>,
    /// What does not run, and why.
    pub not_run: Vec<Item>,
    /// The tasks whose documents are not here, each with the files it lacks, where they were
    /// looked for and where they come from.
    pub missing: Vec<String>,
    /// The corpus files the bulks would load that are not here: `(corpus, source-file)`, each
    /// once, in the track's order.
    pub absent: Vec<(String, String)>,
    /// What each step is called where the parts of a run join before it: its position and
    /// its tasks' names.
    pub points: Vec<String>,
    /// The HDF5 data sets the tasks read that are to be converted to bigann first, each once.
    pub convert: Vec<super::python::hdf5::Hdf5Set>,
}

/// One task as it will run: through the operation runners, or (a bulk) through the
/// project's own driver.
#[derive(Debug, Clone)]
pub enum TaskPlan {
    Task(Box<TaskSpec>),
    Bulk(BulkSpec),
}

/// A bulk task: its documents, by target, loaded by the driver one target after the other
/// with the task's clients, bulk size and warm-up.
#[derive(Debug, Clone)]
pub struct BulkSpec {
    pub name: String,
    pub loads: Vec<BulkLoad>,
    pub bulk_size: usize,
    pub clients: usize,
    pub warmup: Duration,
    /// The ingest pipeline every bulk request names (`pipeline`).
    pub pipeline: Option<String>,
    /// Rally's id conflicts (`conflicts`, `conflict-probability`, `on-conflict`,
    /// `recency`), when the task asks for them.
    pub conflicts: Option<Conflicts>,
    /// The task's `time-period`: past its warm-up and this, no request more is read (the
    /// corpus may end it first).
    pub time: Option<Duration>,
    /// Its `target-throughput` (or `target-interval`): bulk requests per second.
    pub rate: Option<f64>,
    /// Rally's `looped`: the corpus is read again from its start each time it ends, until
    /// the time period does.
    pub looped: bool,
}

/// The documents a bulk task loads into one target, read in the track's order.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkLoad {
    /// An index, or a data stream (written with `create`).
    pub target: String,
    pub data_stream: bool,
    /// The files carry their own action lines (`includes-action-and-meta-data`).
    pub with_meta: bool,
    pub files: Vec<EntryFile>,
}

/// How a challenge is planned beyond its definition.
#[derive(Debug, Clone, Default)]
pub struct PlanSpec {
    /// The tools' `--test-mode` (see [`TaskSpec::for_test_mode`] and [`source_file`]).
    pub test_mode: bool,
    /// Where corpus files downloaded elsewhere are (`--corpus-dir`): looked for in
    /// `DIR/<corpus>/` (the tools' own layout), then `DIR/`, then beside the track.
    pub corpus_dir: Option<PathBuf>,
    /// Files `--synthesize` made (or will make) for corpus files that are not here: a file
    /// found where the track's are looked for is read first.
    pub stand_ins: Vec<StandIn>,
    /// The HDF5 data sets converted to bigann files, read in their place.
    pub converted: Vec<super::python::hdf5::Converted>,
}

/// A file made by `--synthesize` standing in for a corpus file that is not here.
#[derive(Debug, Clone, PartialEq)]
pub struct StandIn {
    pub corpus: String,
    /// The `source-file` it stands in for, as the track names it.
    pub file: String,
    /// Where it is (or will be: `workload check` names it before the run makes it).
    pub path: PathBuf,
    pub documents: u64,
    /// What it is made from, in a phrase.
    pub about: String,
}

/// What of `procedure` runs: each step's tasks (with whether a task's end ends its parallel
/// block), and what does not run (listed up front, never dropped in silence). A task the
/// track gets wrong (a value out of its range, a field missing) is an error before anything
/// runs.
pub fn plan(d: &Definition, procedure: &Procedure, spec: &PlanSpec) -> Result<Planned, Invalid> {
    let test_mode = spec.test_mode;
    let mut planned = Planned::default();
    // The definition the worker's tasks read, shared by them (made once, when one needs it).
    let mut shared: Option<std::sync::Arc<Definition>> = None;
    for step in &procedure.steps {
        let completed_by = match step {
            model::Step::Parallel { completed_by, .. } => completed_by.clone(),
            model::Step::One(_) => None,
        };
        let mut together = Vec::new();
        for t in step.tasks() {
            let what = format!("task {} ({})", t.name, t.operation_type);
            // The task with its operation, its counts checked, cut as test mode cuts it.
            let task = |op: super::Operation| {
                TaskSpec::of(t, op)
                    .map_err(Unplanned::Invalid)
                    .and_then(|spec| with_arrivals(spec, t, d))
                    .map(|spec| match test_mode {
                        true => spec.for_test_mode(),
                        false => spec,
                    })
                    .map(|t| TaskPlan::Task(Box::new(t)))
            };
            let plan = if let Some(runner) = runner_task(t, d) {
                task(runner)
            } else if let Some(source) = python_params(t) {
                // What the track's Python gives (a body, a path, the documents) is not
                // written: planned as written, the task would send the placeholders. The
                // worker gives it, task by task ([`super::python`]).
                python_task(t, d, &mut shared, source).and_then(task)
            } else if t.operation_type == "bulk" {
                // Another task of its parallel block may end it (`completed-by`).
                let ended_by_another = step.tasks().len() > 1
                    && completed_by.as_deref().is_some_and(|by| by != t.name);
                bulk(t, d, spec, ended_by_another).map(TaskPlan::Bulk)
            } else if super::vector_ops::RUNS.contains(&t.operation_type.as_str()) {
                super::vector_ops::of(t, d, spec)
                    .map(super::operation::Operation::of_vectors)
                    .and_then(task)
            } else {
                super::operation::of(t, d).and_then(task)
            };
            match plan {
                Ok(plan) => {
                    let completes = completed_by
                        .as_deref()
                        .is_some_and(|by| by == "any" || by == t.name);
                    together.push((plan, completes));
                }
                Err(Unplanned::Invalid(why)) => {
                    return Err(Invalid(format!("{}: {what}: {why}", d.path.display())))
                }
                Err(Unplanned::NotYet(why)) => planned.not_run.push(Item {
                    what,
                    runs: false,
                    worker: false,
                    how: why,
                }),
                Err(Unplanned::Absent(absent)) => {
                    for a in &absent {
                        let key = (a.corpus.clone(), a.file.clone());
                        if !planned.absent.contains(&key) {
                            planned.absent.push(key);
                        }
                    }
                    let why = Absent::summary(&absent);
                    planned.missing.push(format!("{what}: {why}"));
                    planned.not_run.push(Item {
                        what,
                        runs: false,
                        worker: false,
                        how: why,
                    })
                }
                Err(Unplanned::Missing(why)) => {
                    planned.missing.push(format!("{what}: {why}"));
                    planned.not_run.push(Item {
                        what,
                        runs: false,
                        worker: false,
                        how: why,
                    })
                }
                // It runs once they are converted: `workload check` says so.
                Err(Unplanned::Converts(sets)) => {
                    let how = converts_said(&sets);
                    for set in sets {
                        if !planned.convert.contains(&set) {
                            planned.convert.push(set);
                        }
                    }
                    planned.not_run.push(Item {
                        what,
                        runs: true,
                        worker: false,
                        how,
                    })
                }
            }
        }
        if !together.is_empty() {
            let names: Vec<&str> = together
                .iter()
                .map(|(plan, _)| match plan {
                    TaskPlan::Task(t) => t.name.as_str(),
                    TaskPlan::Bulk(b) => b.name.as_str(),
                })
                .collect();
            planned.points.push(format!(
                "step {}: {}",
                planned.steps.len() + 1,
                names.join(", ")
            ));
            planned.steps.push(together);
        }
    }
    Ok(planned)
}

/// How a task waiting on HDF5 data sets runs, in a line.
pub fn converts_said(sets: &[super::python::hdf5::Hdf5Set]) -> String {
    let named: Vec<String> = sets
        .iter()
        .map(|s| format!("{} ({})", s.shown, s.dataset))
        .collect();
    format!(
        "once its HDF5 data set(s) are converted to bigann files, when the run starts \
         (opensearch-benchmark's h5py; kept in the cache): {}",
        named.join(", ")
    )
}

/// `file` cut to the first `percentage` % of its documents (rounded up, as Rally rounds its
/// bulks up), within what test mode reads of it. Rally takes that share of each client's slice
/// of the file; this takes it from the file's start: as many documents, not the same ones.
fn with_percentage(mut file: EntryFile, percentage: f64) -> Result<EntryFile, Unplanned> {
    if percentage >= 100.0 {
        return Ok(file);
    }
    let Some(count) = file.declared else {
        return Err(Unplanned::NotYet(format!(
            "bulk with ingest-percentage {percentage}: {} declares no document-count to take \
             that share of",
            file.path
        )));
    };
    let share = (count as f64 * percentage / 100.0).ceil() as u64;
    file.limit = Some(file.limit.map_or(share, |l| l.min(share)));
    Ok(file)
}

/// Task `t`, whose parameters param-source `source` of the track's Python gives: run with
/// the worker when its `track.py` (`workload.py`) is beside it.
fn python_task(
    t: &model::Resolved,
    d: &Definition,
    shared: &mut Option<std::sync::Arc<Definition>>,
    source: String,
) -> Result<super::Operation, Unplanned> {
    let not_yet = |why: &str| {
        Err(Unplanned::NotYet(format!(
            "its parameters come from the track's Python (param-source {source}): {why}"
        )))
    };
    let (_, file) = super::python::library_of(d.track.words());
    let beside = d.path.parent().map(|p| p.join(file));
    if !beside.as_ref().is_some_and(|p| p.is_file()) {
        return not_yet(&format!("no {file} is beside the track to give them"));
    }
    let definition = shared
        .get_or_insert_with(|| std::sync::Arc::new(d.clone()))
        .clone();
    Ok(super::Operation::python(super::python::PythonTask {
        task: t.clone(),
        source,
        definition,
    }))
}

/// Task `t` run in the worker, when searchbench does not run its operation type and the tool
/// does with a runner of its own, or a `track.py` (`workload.py`) is beside the track, which may
/// register a runner for it (the run checks that one is there once the worker has loaded the
/// track, before anything is sent). Its parameters, from a param source or as written, stay
/// in the worker.
fn runner_task(t: &model::Resolved, d: &Definition) -> Option<super::Operation> {
    let kind = t.operation_type.as_str();
    let ours = kind == "bulk"
        || super::operation::RUNS.contains(&kind)
        || super::vector_ops::RUNS.contains(&kind)
        || super::transforms::RUNS.contains(&kind);
    let words = d.track.words();
    let (_, file) = super::python::library_of(words);
    let beside = d.path.parent().is_some_and(|p| p.join(file).is_file());
    let tools = super::python::tool_runners::tool_runs(words, kind);
    (!ours && (tools || beside)).then(|| super::Operation::runner(&t.name, kind, tools))
}

/// Task `spec` with its `schedule` (`t`'s): the tools' own (`deterministic`, `poisson`), or
/// one the track's Python beside it registers (the run checks that it does once the worker
/// has loaded the track, before anything is sent). Any other name the tools refuse, and so
/// does this.
fn with_arrivals(
    mut spec: TaskSpec,
    t: &model::Resolved,
    d: &Definition,
) -> Result<TaskSpec, Unplanned> {
    let Some(name) = t.task.schedule.as_deref() else {
        return Ok(spec);
    };
    spec.arrivals = match name {
        "deterministic" => Arrivals::Deterministic,
        "poisson" => Arrivals::Poisson,
        other => {
            let (_, file) = super::python::library_of(d.track.words());
            if !d.path.parent().is_some_and(|p| p.join(file).is_file()) {
                return Err(Unplanned::Invalid(format!(
                    "schedule {other}: no scheduler has that name (the tools' own are \
                     deterministic and poisson; a {file} beside the track may register one)"
                )));
            }
            if let super::operation::Kind::Runner(r) = &mut spec.operation.kind {
                r.scheduled = true;
            }
            Arrivals::Python(other.to_string())
        }
    };
    Ok(spec)
}

/// The param-source that gives task `t` its parameters, when the track's Python does.
fn python_params(t: &model::Resolved) -> Option<String> {
    let source = t.operation.params.get("param-source")?;
    Some(
        source
            .as_str()
            .map_or_else(|| source.to_string(), str::to_string),
    )
}

/// The bulk task `t`: the local files of the documents it loads (its `corpora` and `indices`
/// when it names them), by target. Every file it needs must be here: a load of part of a
/// corpus would be a different benchmark.
fn bulk(
    t: &model::Resolved,
    d: &Definition,
    spec: &PlanSpec,
    ended_by_another: bool,
) -> Result<BulkSpec, Unplanned> {
    let p = &t.operation.params;
    let names = |k: &str| -> Option<Vec<String>> {
        match p.get(k)? {
            serde_json::Value::String(s) => Some(s.split(',').map(str::to_string).collect()),
            serde_json::Value::Array(a) => Some(
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
            ),
            _ => None,
        }
    };
    let (corpora, indices) = (names("corpora"), names("indices"));
    // The driver paces a bulk's requests evenly: another schedule is not yet its.
    if let Some(schedule) = t.task.schedule.as_deref().filter(|s| *s != "deterministic") {
        return Err(Unplanned::NotYet(format!(
            "bulk with schedule {schedule}: the driver paces a bulk's requests evenly \
             (deterministic) only"
        )));
    }
    let conflicts = conflicts(p)?;
    let looped = match p.get("looped") {
        None | Some(serde_json::Value::Null) => false,
        Some(serde_json::Value::Bool(b)) => *b,
        Some(v) => {
            return Err(Unplanned::Invalid(format!(
                "looped: {} is not true or false",
                crate::shown::Shown(v)
            )))
        }
    };
    // Test mode cuts a time period to 10 s and runs as fast as it goes, as for every task.
    let time = t.time_period.map(|s| {
        let d = Duration::from_secs(s);
        if spec.test_mode {
            d.min(Duration::from_secs(10))
        } else {
            d
        }
    });
    if looped && time.is_none() && !ended_by_another {
        return Err(Unplanned::Invalid(
            "looped with no time-period never ends: give the task a time-period, or put it \
             in a parallel block another task completes"
                .into(),
        ));
    }
    if looped && conflicts.is_some_and(|c| c.order == IdOrder::Random) {
        return Err(Unplanned::NotYet(
            "a looped bulk with random id conflicts does not run yet".into(),
        ));
    }
    let rate = super::task::rate_of(t)
        .map_err(Unplanned::Invalid)?
        .filter(|_| !spec.test_mode);
    // Rally's `detailed-results` changes what Rally reads of an answer, not what it sends:
    // the driver reads every item of every answer anyway, and keeps what failed and why.
    // Rally's `ingest-percentage`: only the first part of each file's documents.
    let percentage = match p.get("ingest-percentage") {
        None | Some(serde_json::Value::Null) => 100.0,
        Some(v) => v
            .as_f64()
            .filter(|pct| *pct > 0.0 && *pct <= 100.0)
            .ok_or_else(|| {
                Unplanned::Invalid(format!(
                    "ingest-percentage: {} is not above 0 and at most 100",
                    crate::shown::Shown(v)
                ))
            })?,
    };
    let mut loads: Vec<BulkLoad> = Vec::new();
    let mut missing = Vec::new();
    for s in d.track.sources() {
        if corpora.as_ref().is_some_and(|c| !c.contains(&s.corpus)) {
            continue;
        }
        let (target, data_stream) = match (&s.target_index, &s.target_data_stream) {
            (Some(index), _) => (index.clone(), false),
            (None, Some(stream)) => (stream.clone(), true),
            (None, None) => match d.track.only_target() {
                Some(only) if s.includes_action_and_meta_data => only,
                _ => continue,
            },
        };
        if indices.as_ref().is_some_and(|i| !i.contains(&target)) {
            continue;
        }
        let file = match find(&s, d, spec)? {
            Ok(file) => with_percentage(file, percentage)?,
            Err(absent) => {
                missing.push(absent);
                continue;
            }
        };
        // A synthesized file holds sources alone, whatever the real one holds.
        let with_meta = file.with_meta;
        match loads.last_mut() {
            // Consecutive entries into one target, read alike, are one load.
            Some(l) if l.target == target && l.with_meta == with_meta => l.files.push(file),
            _ => loads.push(BulkLoad {
                target,
                data_stream,
                with_meta,
                files: vec![file],
            }),
        }
    }
    if !missing.is_empty() {
        return Err(Unplanned::Absent(missing));
    }
    if loads.is_empty() {
        return Err(Unplanned::Invalid(
            "no documents to load: no corpus of the track goes to the corpora and indices it \
             names"
                .into(),
        ));
    }
    if conflicts.is_some() {
        // As Rally refuses them: a data stream only appends, and a file's own action lines
        // already say each document's action.
        if let Some(l) = loads.iter().find(|l| l.data_stream) {
            return Err(Unplanned::Invalid(format!(
                "conflicts cannot be used with data stream {}: it only appends",
                l.target
            )));
        }
        if let Some(f) = loads
            .iter()
            .filter(|l| l.with_meta)
            .flat_map(|l| &l.files)
            .next()
        {
            return Err(Unplanned::Invalid(format!(
                "conflicts cannot be generated for {}: its documents carry their own action \
                 lines",
                f.path
            )));
        }
    }
    let bulk_size = match p.get("bulk-size") {
        None => 5000,
        Some(v) => v
            .as_u64()
            .filter(|n| *n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                Unplanned::Invalid(format!(
                    "bulk-size: {} is not accepted; use a whole number, 1 or more",
                    crate::shown::Shown(v)
                ))
            })?,
    };
    super::task::checked_clients(t).map_err(Unplanned::Invalid)?;
    let pipeline = match p.get("pipeline") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(id)) if !id.is_empty() => Some(id.clone()),
        Some(v) => {
            return Err(Unplanned::Invalid(format!(
                "pipeline: {} is not a pipeline's id",
                crate::shown::Shown(v)
            )))
        }
    };
    Ok(BulkSpec {
        name: t.name.clone(),
        pipeline,
        conflicts,
        time,
        rate,
        looped,
        loads,
        bulk_size,
        clients: t.clients as usize,
        // Test mode has no warm-up, as in the tools.
        warmup: Duration::from_secs(
            t.warmup_time_period
                .filter(|_| !spec.test_mode)
                .unwrap_or(0),
        ),
    })
}

/// A bulk's id conflicts as Rally reads them: none unless `conflicts` is `sequential` or
/// `random`; then `conflict-probability` (0 to 100, default 25), `on-conflict` (`index`, the
/// default, or `update`) and `recency` (0 to 1, default 0).
fn conflicts(
    p: &serde_json::Map<String, serde_json::Value>,
) -> Result<Option<Conflicts>, Unplanned> {
    use serde_json::Value;
    let order = match p.get("conflicts") {
        None | Some(Value::Null | Value::Bool(false)) => return Ok(None),
        Some(Value::String(s)) if s.is_empty() => return Ok(None),
        Some(Value::String(s)) if s == "sequential" => IdOrder::Sequential,
        Some(Value::String(s)) if s == "random" => IdOrder::Random,
        Some(v) => {
            return Err(Unplanned::Invalid(format!(
                "conflicts: {} is not sequential or random",
                crate::shown::Shown(v)
            )))
        }
    };
    let number = |k: &str, default: f64, most: f64| -> Result<f64, Unplanned> {
        let v = match p.get(k) {
            None => return Ok(default),
            Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
            Some(v) => v.as_f64(),
        };
        v.filter(|x| (0.0..=most).contains(x)).ok_or_else(|| {
            Unplanned::Invalid(format!(
                "{k}: {} is not a number from 0 to {most}",
                p.get(k).map_or_else(String::new, |v| v.to_string())
            ))
        })
    };
    let on_conflict = match p.get("on-conflict") {
        None => OnConflict::Index,
        Some(Value::String(s)) if s == "index" => OnConflict::Index,
        Some(Value::String(s)) if s == "update" => OnConflict::Update,
        Some(v) => {
            return Err(Unplanned::Invalid(format!(
                "on-conflict: {} is not index or update",
                crate::shown::Shown(v)
            )))
        }
    };
    Ok(Some(Conflicts {
        order,
        probability: number("conflict-probability", 25.0, 100.0)? / 100.0,
        on_conflict,
        recency: number("recency", 0.0, 1.0)?,
    }))
}

impl Planned {
    /// Whether the challenge searches vectors the way only OpenSearch's k-NN plugin can: an
    /// index of `knn_vector` fields, or one of opensearch-benchmark's vector operations. A
    /// node searchbench starts for it gets the plugin.
    pub fn searches_vectors(&self) -> bool {
        use super::operation::Kind;
        self.steps.iter().flatten().any(|(plan, _)| match plan {
            TaskPlan::Task(t) => match &t.operation.kind {
                Kind::Vectors(_) => true,
                Kind::CreateIndex { indices, .. } => indices
                    .iter()
                    .any(|(_, body)| body.to_string().contains("\"knn_vector\"")),
                _ => false,
            },
            TaskPlan::Bulk(_) => false,
        })
    }
}

impl TaskPlan {
    /// Whether it runs with the worker: its parameters, or its runner, are the track's Python.
    pub fn in_worker(&self) -> bool {
        use super::operation::Kind;
        matches!(self, TaskPlan::Task(t) if matches!(t.operation.kind, Kind::Python(_) | Kind::Runner(_))
            || matches!(t.arrivals, Arrivals::Python(_)))
    }

    /// How the task runs, in a line.
    pub fn describe(&self) -> String {
        match self {
            TaskPlan::Task(t) => {
                let mut how = format!("{} client(s)", t.clients);
                match &t.operation.kind {
                    super::operation::Kind::Vectors(op) => how.push_str(&format!(": {}", op.how())),
                    super::operation::Kind::Python(p) => how.push_str(&format!(
                        ", parameters from the worker (param-source {} of the track's Python)",
                        p.source
                    )),
                    super::operation::Kind::Runner(r) => how.push_str(&format!(
                        ", in the worker: the runner {} has for {}",
                        if r.tools {
                            "the tool (or the track's Python, in its place)"
                        } else {
                            "the track's Python"
                        },
                        r.operation_type
                    )),
                    _ => {}
                }
                match (t.time, t.iterations) {
                    (None, None) if t.operation.finite(None) => {
                        how.push_str(", until their share is sent")
                    }
                    // A param source that ends runs until it does (known once it is loaded).
                    (None, None) if self.in_worker() => how.push_str(
                        ", 1 iteration each, or until the param source ends if it is not endless",
                    ),
                    (Some(time), _) => how.push_str(&format!(" for {}s", time.as_secs())),
                    (None, n) => how.push_str(&format!(", {} iteration(s) each", n.unwrap_or(1))),
                }
                match (t.warmup_time, t.warmup_iterations) {
                    (Some(w), _) => how.push_str(&format!(" after {}s of warm-up", w.as_secs())),
                    (None, 0) => {}
                    (None, n) => how.push_str(&format!(" after {n} warm-up iteration(s)")),
                }
                match (&t.arrivals, t.rate) {
                    (Arrivals::Deterministic, Some(rate)) => {
                        how.push_str(&format!(", at {rate} ops/s"))
                    }
                    (Arrivals::Poisson, Some(rate)) => {
                        how.push_str(&format!(", at {rate} ops/s on average (poisson)"))
                    }
                    (Arrivals::Python(name), rate) => how.push_str(&format!(
                        ", due when scheduler {name} of the track's Python says{}",
                        rate.map(|r| format!(" (target {r} ops/s)"))
                            .unwrap_or_default()
                    )),
                    (_, None) => {}
                }
                how
            }
            TaskPlan::Bulk(b) => {
                let files: usize = b.loads.iter().map(|l| l.files.len()).sum();
                let into: Vec<String> = b
                    .loads
                    .iter()
                    .map(|l| match (l.data_stream, l.with_meta) {
                        (true, _) => format!("data stream {}", l.target),
                        (false, true) => format!("{} (with its action lines)", l.target),
                        (false, false) => l.target.clone(),
                    })
                    .collect();
                format!(
                    "the driver: {files} file(s) into {}{}, {} client(s), {} documents per request{}{}{}{}{}",
                    into.join(", "),
                    b.pipeline
                        .as_ref()
                        .map(|p| format!(" through pipeline {p}"))
                        .unwrap_or_default(),
                    b.clients,
                    b.bulk_size,
                    b.conflicts.map(conflicts_said).unwrap_or_default(),
                    b.rate
                        .map(|r| format!(", at {r} requests/s"))
                        .unwrap_or_default(),
                    if b.warmup.is_zero() {
                        String::new()
                    } else {
                        format!(", {}s of warm-up", b.warmup.as_secs())
                    },
                    match b.time {
                        Some(t) => format!(", for {}s", t.as_secs()),
                        None => String::new(),
                    },
                    if b.looped {
                        ", the corpus read again each time it ends"
                    } else {
                        ""
                    }
                )
            }
        }
    }
}

/// `, random ids, 25% sent as updates of ids already used (recency 0.5)`.
fn conflicts_said(c: Conflicts) -> String {
    format!(
        ", {} ids, {}% {} ids already used{}",
        match c.order {
            IdOrder::Sequential => "sequential",
            IdOrder::Random => "random",
        },
        // As a percentage, without the binary fraction's tail (7, not 7.000000000000001).
        (c.probability * 100.0 * 1e6).round() / 1e6,
        match c.on_conflict {
            OnConflict::Index => "indexed over",
            OnConflict::Update => "sent as updates of",
        },
        if c.recency > 0.0 {
            format!(" (recency {})", c.recency)
        } else {
            String::new()
        }
    )
}

/// What will run and what will not, before anything runs (`workload check`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Check {
    /// The challenge (test procedure) run.
    pub procedure: String,
    /// What the tool calls it: `challenge` or `test procedure`.
    pub procedure_word: String,
    /// Every challenge of the track, with whether it is the default.
    pub procedures: Vec<(String, bool)>,
    /// Its tasks in order (those of a parallel block marked so), then what does not run, then
    /// the corpus files with whether they are here.
    pub items: Vec<Item>,
    /// The engine modules its tasks need ([`super::needs`]).
    pub needs: Vec<super::needs::Need>,
}

/// The check of challenge `name` (the default when none) of `d`.
pub fn check(d: &Definition, name: Option<&str>, spec: &PlanSpec) -> Result<Check, Invalid> {
    let procedure = crate::workload::track::runnable::procedure(d, name).map_err(Invalid)?;
    let planned = plan(d, procedure, spec)?;
    let mut items = Vec::new();
    if super::python::processors::registers(d) {
        // What they change is known only once the tool has loaded the track: the tasks below
        // are as written.
        let (library, file) = super::python::library_of(d.track.words());
        items.push(Item {
            what: format!("{file}: track processors"),
            runs: true,
            worker: true,
            how: format!(
                "applied before the run: {} loads the track in the worker and the {} runs as \
                 they leave it (the tasks below are as written)",
                library.package,
                d.track.words().procedure()
            ),
        });
    }
    for step in &planned.steps {
        let parallel = step.len() > 1;
        for (task, _) in step {
            let (name, kind) = match task {
                TaskPlan::Task(t) => (t.name.as_str(), t.operation_type.as_str()),
                TaskPlan::Bulk(b) => (b.name.as_str(), "bulk"),
            };
            let how = task.describe();
            items.push(Item {
                what: format!("task {name} ({kind})"),
                runs: true,
                worker: task.in_worker(),
                how: if parallel {
                    format!("{how}; in a parallel block")
                } else {
                    how
                },
            });
        }
    }
    items.extend(
        planned
            .not_run
            .iter()
            .filter(|i| i.what.starts_with("task "))
            .cloned(),
    );
    for s in d.track.sources() {
        let count = s
            .documents
            .document_count
            .map(|n| format!(", {n} documents"))
            .unwrap_or_default();
        let what = format!(
            "corpus {} file {}{count}",
            s.corpus, s.documents.source_file
        );
        let stand_in = spec
            .stand_ins
            .iter()
            .find(|i| i.corpus == s.corpus && i.file == s.documents.source_file);
        items.push(match locate(&s, d, spec) {
            Ok(file) if stand_in.is_some_and(|i| i.path.display().to_string() == file.path) => {
                let (documents, about, made) = stand_in
                    .map(|i| (i.documents, i.about.clone(), i.path.is_file()))
                    .unwrap_or_default();
                Item {
                    what,
                    runs: true,
                    worker: false,
                    how: format!(
                        "synthesized{}: {documents} documents from {about}, in {}",
                        if made { "" } else { " at the run" },
                        file.path
                    ),
                }
            }
            Ok(file) => Item {
                what,
                runs: true,
                worker: false,
                how: format!(
                    "here: {}{}{}",
                    file.path,
                    file.limit
                        .map(|n| format!(" (its first {n} documents)"))
                        .unwrap_or_default(),
                    if s.includes_action_and_meta_data {
                        ", with its action lines"
                    } else {
                        ""
                    }
                ),
            },
            Err(Unplanned::Missing(why) | Unplanned::NotYet(why)) => Item {
                what,
                runs: false,
                worker: false,
                how: why,
            },
            Err(Unplanned::Absent(absent)) => Item {
                what,
                runs: false,
                worker: false,
                how: Absent::summary(&absent),
            },
            Err(Unplanned::Converts(sets)) => Item {
                what,
                runs: false,
                worker: false,
                how: converts_said(&sets),
            },
            Err(Unplanned::Invalid(why)) => return Err(Invalid(why)),
        });
    }
    Ok(Check {
        procedure: procedure.name.clone(),
        procedure_word: d.track.words().procedure().into(),
        procedures: d
            .procedures
            .iter()
            .map(|p| (p.name.clone(), p.default))
            .collect(),
        needs: super::needs::needs(d, procedure),
        items,
    })
}

/// The local file of documents entry `s`, or why there is none: where it was looked for and
/// where it comes from. Looked for in `--corpus-dir DIR/<corpus>/` (the tools' own layout),
/// then `DIR/`, then beside the track; in each, its decompressed self first (the tools unpack
/// once and read the plain file after), then the file as the track names it (read compressed).
/// In test mode an entry of more than 1,000 documents is read from its `-1k` sample when one
/// is here, else from its first 1,000 documents.
pub fn locate(s: &model::Source, d: &Definition, spec: &PlanSpec) -> Result<EntryFile, Unplanned> {
    find(s, d, spec)?.map_err(|absent| Unplanned::Missing(absent.to_string()))
}

/// The folders entry `s`'s files are looked for in, in order: `--corpus-dir DIR/<corpus>/`,
/// `DIR/`, then the track's folder.
fn looked_in(s: &model::Source, d: &Definition, spec: &PlanSpec) -> Result<Vec<Folder>, Unplanned> {
    let track_dir = d.path.parent().unwrap_or(std::path::Path::new("."));
    let mut dirs: Vec<Folder> = Vec::new();
    if let Some(dir) = &spec.corpus_dir {
        // The user's folder: the links they placed in it are theirs (see `Folder::given`).
        let given = Folder::given(dir);
        let own = given
            .resolve(dir, &s.corpus, "the corpus's name")
            .map_err(|e| outside(s, e))?;
        dirs.push(Folder::given(&own));
        dirs.push(given);
    }
    dirs.push(Folder::of(track_dir));
    Ok(dirs)
}

/// Every name the track gives (its corpus, its files) is held to the folder it is looked for
/// in: a track cannot read, and send to the cluster, a file of this machine.
fn outside(s: &model::Source, e: Outside) -> Unplanned {
    Unplanned::Invalid(format!("corpus {}: {e}", s.corpus))
}

/// The first of `dirs` that holds `name` ([`local_file`]).
fn find_in(dirs: &[Folder], s: &model::Source, name: &str) -> Result<Option<PathBuf>, Unplanned> {
    for dir in dirs {
        if let Some(path) = local_file(dir, name).map_err(|e| outside(s, e))? {
            return Ok(Some(path));
        }
    }
    Ok(None)
}

/// File `name` of entry `s` where its files are looked for, as [`locate`] looks (a name that
/// leads out of its folder is refused): how `--synthesize` finds a sample.
pub fn find_named(
    s: &model::Source,
    d: &Definition,
    spec: &PlanSpec,
    name: &str,
) -> Result<Option<PathBuf>, Invalid> {
    let refused = |u: Unplanned| match u {
        Unplanned::Invalid(why) => Invalid(why),
        other => Invalid(format!("{other:?}")),
    };
    let dirs = looked_in(s, d, spec).map_err(refused)?;
    find_in(&dirs, s, name).map_err(refused)
}

/// [`locate`], with a file that is not here said apart from a name the track gets wrong.
fn find(
    s: &model::Source,
    d: &Definition,
    spec: &PlanSpec,
) -> Result<Result<EntryFile, Absent>, Unplanned> {
    let dirs = looked_in(s, d, spec)?;
    let find = |name: &str| find_in(&dirs, s, name);
    let with_meta = s.includes_action_and_meta_data;
    let declared = s.documents.document_count;
    let sample = source_file(&s.documents, spec.test_mode);
    if sample != s.documents.source_file {
        if let Some(path) = find(&sample)? {
            return Ok(Ok(EntryFile {
                path: path.display().to_string(),
                declared: declared.map(|n| n.min(TEST_MODE_DOCUMENTS)),
                limit: None,
                with_meta,
                share: None,
            }));
        }
    }
    if let Some(path) = find(&s.documents.source_file)? {
        return Ok(Ok(EntryFile {
            path: path.display().to_string(),
            declared,
            limit: spec.test_mode.then_some(TEST_MODE_DOCUMENTS),
            with_meta,
            share: None,
        }));
    }
    if let Some(made) = spec
        .stand_ins
        .iter()
        .find(|i| i.corpus == s.corpus && i.file == s.documents.source_file)
    {
        return Ok(Ok(EntryFile {
            path: made.path.display().to_string(),
            declared: Some(made.documents),
            limit: None,
            with_meta: false,
            share: None,
        }));
    }
    let looked: Vec<String> = dirs
        .iter()
        .map(|d| d.shown().display().to_string())
        .collect();
    Ok(Err(Absent {
        corpus: s.corpus.clone(),
        file: s.documents.source_file.clone(),
        looked: looked.join(", "),
        base_url: s.base_url.clone(),
    }))
}

/// A corpus file that is not here: where it was looked for and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Absent {
    corpus: String,
    file: String,
    looked: String,
    base_url: Option<String>,
}

impl std::fmt::Display for Absent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "corpus {}: {} is not in {}",
            self.corpus, self.file, self.looked
        )?;
        match &self.base_url {
            Some(url) => write!(
                f,
                "; it comes from {}/{} (searchbench never downloads: fetch it, then point \
                 --corpus-dir at its folder)",
                url.trim_end_matches('/'),
                self.file
            ),
            None => write!(f, "; the track gives no base-url to fetch it from"),
        }
    }
}

/// The most files of one corpus a reason names; the rest are counted.
const NAMED_FILES: usize = 3;

impl Absent {
    /// What a task waiting on `absent` files says: each file when they are few, else one
    /// line (how many, the first few, where the first comes from), not one line a file (a
    /// bulk waiting on 112 files said 32 KB). `workload check` lists every file apart.
    pub(super) fn summary(absent: &[Absent]) -> String {
        let Some(first) = absent.first() else {
            return String::new();
        };
        if absent.len() <= NAMED_FILES {
            return absent
                .iter()
                .map(Absent::to_string)
                .collect::<Vec<_>>()
                .join("; ");
        }
        let named = |names: Vec<&str>| {
            let more = names.len().saturating_sub(NAMED_FILES);
            let shown = names[..names.len().min(NAMED_FILES)].join(", ");
            if more > 0 {
                format!("{shown} and {more} more")
            } else {
                shown
            }
        };
        let mut corpora: Vec<&str> = Vec::new();
        for a in absent {
            if !corpora.contains(&a.corpus.as_str()) {
                corpora.push(&a.corpus);
            }
        }
        let of = match corpora.as_slice() {
            [one] => format!("corpus {one}"),
            _ => format!("corpora {}", named(corpora.clone())),
        };
        let from = match &first.base_url {
            Some(url) => format!(
                "; the first comes from {}/{} (searchbench never downloads: fetch them, then \
                 point --corpus-dir at their folder)",
                url.trim_end_matches('/'),
                first.file
            ),
            None => "; the track gives no base-url to fetch them from".into(),
        };
        format!(
            "{of}: {} files are not in {}: {}{from}",
            absent.len(),
            first.looked,
            named(absent.iter().map(|a| a.file.as_str()).collect())
        )
    }
}

/// The documents of a corpus in test mode, as in the tools.
pub const TEST_MODE_DOCUMENTS: u64 = 1000;

/// `name` under `dir`: its decompressed self when that is here (`x.json` for `x.json.bz2`),
/// else the file as named; a name that leads out of `dir` is refused, whether or not it is
/// there.
fn local_file(dir: &Folder, name: &str) -> Result<Option<PathBuf>, Outside> {
    let what = "source-file";
    let named = dir.resolve(dir.shown(), name, what)?;
    if let Some(stem) = [".bz2", ".zst", ".gz"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
    {
        let plain = dir.resolve(dir.shown(), stem, what)?;
        if plain.is_file() {
            return Ok(Some(plain));
        }
    }
    Ok(Some(named).filter(|p| p.is_file()))
}

/// The file a documents entry is read from: in test mode, as in the tools, an entry of more
/// than 1,000 documents is read from its 1,000-document sample (`documents-1k.json` for
/// `documents.json.bz2`).
pub fn source_file(d: &model::Documents, test_mode: bool) -> String {
    let name = &d.source_file;
    if !test_mode || d.document_count.is_none_or(|n| n <= TEST_MODE_DOCUMENTS) {
        return name.clone();
    }
    one_k_name(name)
}

/// The name of a corpus file's 1,000-document sample, as the tools name it
/// (`documents-1k.json.bz2` for `documents.json.bz2`).
pub fn one_k_name(name: &str) -> String {
    let (stem, compressed) = [".bz2", ".zst", ".gz", ".zip"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext).map(|s| (s, *ext)))
        .unwrap_or((name, ""));
    let (base, ext) = match stem.rfind('.') {
        Some(i) if !stem[i..].contains('/') => (&stem[..i], &stem[i..]),
        _ => (stem, ""),
    };
    format!("{base}-1k{ext}{compressed}")
}

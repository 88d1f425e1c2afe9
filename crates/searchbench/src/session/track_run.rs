//! A track's challenge run as the run's phases: each task a phase, a parallel block phases that
//! run at the same time (the task named by `completed-by`, or any with `any`, ends the block),
//! through the one lifecycle, so the same instruments and sinks stand around them as around
//! any run. Each task's figures are kept as the tools report them.

use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{watch, OnceCell};

use super::ingest::LoadSpec;
use super::job::{FileFormat, FilesSpec, Job};
use super::lifecycle::{self, Measurements, Phase, Plan, Stage, Step, Work};
use super::{ClusterSpec, Observer, SessionError};
use crate::cancel::Cancel;
use crate::corpus::LineCheck;
use crate::tasks::figures::{self, TaskFigures};
use crate::tasks::{Context, TaskSpec};
use crate::workload::track::model::{self, Procedure};
use crate::workload::track::runnable::Item;
use crate::workload::track::Definition;

/// What a track run kept: one row per task that ran, and what did not run.
#[derive(Debug, Clone, Serialize)]
pub struct TrackRunResult {
    pub track: String,
    pub procedure: String,
    pub tasks: Vec<TaskFigures>,
    pub not_run: Vec<Item>,
}

/// One task as it will run: through the operation runners, or (a bulk) through the
/// project's own driver.
#[derive(Debug, Clone)]
pub enum TaskPlan {
    Task(Box<TaskSpec>),
    Bulk(BulkSpec),
}

/// A bulk task: its documents, by target index, loaded by the driver one index after the
/// other with the task's clients, bulk size and warm-up.
#[derive(Debug, Clone)]
pub struct BulkSpec {
    pub name: String,
    pub loads: Vec<(String, Vec<PathBuf>)>,
    pub bulk_size: usize,
    pub clients: usize,
    pub warmup: Duration,
}

/// The phases of `procedure`: each task that runs here (with whether its end ends its
/// parallel block), and what does not (listed up front, never dropped in silence).
pub fn phases(d: &Definition, procedure: &Procedure) -> (Vec<Vec<(TaskPlan, bool)>>, Vec<Item>) {
    let mut steps = Vec::new();
    let mut not_run = Vec::new();
    for step in &procedure.steps {
        let completed_by = match step {
            model::Step::Parallel { completed_by, .. } => completed_by.clone(),
            model::Step::One(_) => None,
        };
        let mut together = Vec::new();
        for t in step.tasks() {
            let what = format!("task {} ({})", t.name, t.operation_type);
            let plan = if t.operation_type == "bulk" {
                bulk(t, d, &mut not_run).map(TaskPlan::Bulk)
            } else {
                crate::tasks::operation::of(t, d)
                    .and_then(|op| TaskSpec::of(t, op))
                    .map(|t| TaskPlan::Task(Box::new(t)))
            };
            match plan {
                Ok(plan) => {
                    let completes = completed_by
                        .as_deref()
                        .is_some_and(|by| by == "any" || by == t.name);
                    together.push((plan, completes));
                }
                Err(why) => not_run.push(Item {
                    what,
                    runs: false,
                    how: why,
                }),
            }
        }
        if !together.is_empty() {
            steps.push(together);
        }
    }
    (steps, not_run)
}

/// The bulk task `t`: the local files of the documents it loads (its `corpora` and `indices`
/// when it names them), by target index; what cannot be loaded goes to `not_run`.
fn bulk(t: &model::Resolved, d: &Definition, not_run: &mut Vec<Item>) -> Result<BulkSpec, String> {
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
    for k in [
        "conflicts",
        "on-conflict",
        "pipeline",
        "looped",
        "detailed-results",
    ] {
        if p.contains_key(k) {
            return Err(format!("bulk with {k} does not run yet"));
        }
    }
    if let Some(pct) = p
        .get("ingest-percentage")
        .and_then(serde_json::Value::as_f64)
    {
        if pct != 100.0 {
            return Err(format!(
                "bulk with ingest-percentage {pct} does not run yet"
            ));
        }
    }
    let dir = d.path.parent().unwrap_or(std::path::Path::new("."));
    let mut loads: Vec<(String, Vec<PathBuf>)> = Vec::new();
    for s in d.track.sources() {
        if corpora.as_ref().is_some_and(|c| !c.contains(&s.corpus)) {
            continue;
        }
        let Some(index) = s.target_index.clone().or(s.target_data_stream.clone()) else {
            continue;
        };
        if indices.as_ref().is_some_and(|i| !i.contains(&index)) {
            continue;
        }
        let what = format!("corpus {} file {}", s.corpus, s.documents.source_file);
        if s.includes_action_and_meta_data {
            not_run.push(Item {
                what,
                runs: false,
                how: "documents with action and meta-data lines".into(),
            });
            continue;
        }
        match crate::workload::track::runnable::local_file(dir, &s.documents.source_file) {
            Some(file) => match loads.iter_mut().find(|(i, _)| *i == index) {
                Some((_, files)) => files.push(file),
                None => loads.push((index, vec![file])),
            },
            None => not_run.push(Item {
                what,
                runs: false,
                how: "not here (nor decompressed): download it first".into(),
            }),
        }
    }
    if loads.is_empty() {
        return Err("no local corpus file to load".into());
    }
    let bulk_size = match p.get("bulk-size") {
        None => 5000,
        Some(v) => v
            .as_u64()
            .filter(|n| *n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("bulk-size: {v} is not a whole number, 1 or more"))?,
    };
    if !(1..=1024).contains(&t.clients) {
        return Err(format!("clients: {} is not from 1 to 1024", t.clients));
    }
    Ok(BulkSpec {
        name: t.name.clone(),
        loads,
        bulk_size,
        clients: t.clients as usize,
        warmup: Duration::from_secs(t.warmup_time_period.unwrap_or(0)),
    })
}

/// Runs `procedure` of `d` on `cluster`.
pub async fn run(
    d: &Definition,
    procedure: &Procedure,
    cluster: &ClusterSpec,
    observer: &dyn Observer,
) -> Result<TrackRunResult, SessionError> {
    let (steps, not_run) = phases(d, procedure);
    let context = OnceCell::new();
    let kept = RefCell::new(Vec::new());
    let mut plan_steps: Vec<Step<'_>> = Vec::new();
    for together in steps {
        let (stop_block, block) = Cancel::new();
        let mut phases: Vec<Box<dyn Phase + '_>> = Vec::new();
        for (plan, completes) in together {
            let completes = completes.then(|| stop_block.clone());
            match plan {
                TaskPlan::Task(spec) => phases.push(Box::new(TaskPhase {
                    spec: *spec,
                    context: &context,
                    stop: block.clone(),
                    completes,
                    kept: &kept,
                })),
                TaskPlan::Bulk(spec) => phases.push(Box::new(BulkPhase {
                    spec,
                    completes,
                    kept: &kept,
                })),
            }
        }
        plan_steps.push(if phases.len() == 1 {
            Step::One(phases.remove(0))
        } else {
            Step::Together(phases)
        });
    }
    let ran = lifecycle::run(cluster, Plan::new(plan_steps), observer, |_| Ok(())).await;
    ran.result?;
    Ok(TrackRunResult {
        track: d.name.clone(),
        procedure: procedure.name.clone(),
        tasks: kept.into_inner(),
        not_run,
    })
}

/// One task as a phase of the run.
struct TaskPhase<'p> {
    spec: TaskSpec,
    /// The cluster and what tasks leave for each other, made by the first task.
    context: &'p OnceCell<Context>,
    /// Ends the task early: the task that completes its parallel block ended.
    stop: Cancel,
    /// Set when this task's end ends its block.
    completes: Option<watch::Sender<bool>>,
    kept: &'p RefCell<Vec<TaskFigures>>,
}

impl Phase for TaskPhase<'_> {
    fn name(&self) -> String {
        self.spec.name.clone()
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let context = self
                .context
                .get_or_try_init(|| async {
                    let (product, _, _) = stage.target.product().await?;
                    Ok::<_, crate::cluster::TargetError>(Context::new(
                        stage.target.clone(),
                        product,
                    ))
                })
                .await?;
            let ran = self.spec.run(context, &self.stop).await;
            if let Some(done) = &self.completes {
                let _ = done.send(true);
            }
            self.kept.borrow_mut().push(figures::of(
                &self.spec.name,
                &self.spec.operation_type,
                &ran,
            ));
            Ok(ran.measurements)
        })
    }
}

/// A bulk task as a phase: the project's own driver over each of its target indices (which
/// the track's create-index made: the load appends).
struct BulkPhase<'p> {
    spec: BulkSpec,
    completes: Option<watch::Sender<bool>>,
    kept: &'p RefCell<Vec<TaskFigures>>,
}

impl Phase for BulkPhase<'_> {
    fn name(&self) -> String {
        self.spec.name.clone()
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let mut reports = Vec::new();
            let mut all = Measurements::default();
            for (index, files) in &self.spec.loads {
                let files_spec = FilesSpec {
                    files: files.iter().map(|f| f.display().to_string()).collect(),
                    format: FileFormat::Ndjson,
                    workload: None,
                    index: Some(index.clone()),
                    convert_dates: Vec::new(),
                    line_check: LineCheck::Engine,
                    csv_types: Default::default(),
                    max_line: crate::corpus::files::DEFAULT_MAX_LINE,
                };
                let job = Job::files(&files_spec)?;
                let mut load = LoadSpec::new(index.clone());
                load.driver.bulk_docs = self.spec.bulk_size;
                load.driver.clients = self.spec.clients;
                load.driver.warmup = self.spec.warmup;
                load.append = true;
                let pids = stage.engine_pids.to_vec();
                let report =
                    super::ingest::load(stage.target, job, load, pids, None, stage.observer)
                        .await?;
                all.merge(&super::ingest::measurements(&report))
                    .map_err(SessionError::Other)?;
                reports.push(report);
            }
            if let Some(done) = &self.completes {
                let _ = done.send(true);
            }
            self.kept
                .borrow_mut()
                .push(figures::of_loads(&self.spec.name, &reports));
            Ok(all)
        })
    }
}

//! A track's challenge run as the run's phases: each task a phase, a parallel block phases that
//! run at the same time (the task named by `completed-by`, or any with `any`, ends the block),
//! through the one lifecycle, so the same instruments and sinks stand around them as around
//! any run. Each task's figures are kept as the tools report them.

use std::cell::RefCell;

use serde::Serialize;
use tokio::sync::{watch, OnceCell};

use super::lifecycle::{self, Measurements, Phase, Plan, Stage, Step, Work};
use super::{ClusterSpec, Observer, SessionError};
use crate::cancel::Cancel;
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

/// The phases of `procedure`: each task that runs here, and what does not (listed up front,
/// never dropped in silence).
pub fn phases(d: &Definition, procedure: &Procedure) -> (Vec<Vec<(TaskSpec, bool)>>, Vec<Item>) {
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
            let spec = crate::tasks::operation::of(t, d).and_then(|op| TaskSpec::of(t, op));
            match spec {
                Ok(spec) => {
                    let completes = completed_by
                        .as_deref()
                        .is_some_and(|by| by == "any" || by == t.name);
                    together.push((spec, completes));
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
        for (spec, completes) in together {
            phases.push(Box::new(TaskPhase {
                spec,
                context: &context,
                stop: block.clone(),
                completes: completes.then(|| stop_block.clone()),
                kept: &kept,
            }));
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

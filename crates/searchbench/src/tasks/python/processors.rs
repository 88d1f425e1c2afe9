//! A track's own processors: Rally's `register_track_processor` (opensearch-benchmark's
//! `register_workload_processor`) hands the tool an object whose `on_after_load_track` changes
//! the loaded track in place before anything runs. http_logs' `RuntimeFieldResolver`, for one,
//! rewrites the fields its runtime-field tasks search (`path` becomes
//! `grok.from_source.path`), so the track as written is not the track the tool runs.
//!
//! The worker loads the track with the tool's own loader, which applies them as the tool does
//! (after its own: test mode, task filters), and says what they did to the challenge's tasks
//! ([`Processed`]). The challenge is then planned as processed: a task they changed with its
//! new operation, one they removed not run. What they did that is not applied here (a task's
//! param source, its schedule, what completes its block) stops the run before anything is
//! sent, naming the task and what changed; a task they added is listed as not run.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::tasks::plan::Item;
use crate::workload::track::model::{Procedure, Resolved, Step, MAX_PERIOD_SECS};
use crate::workload::track::Definition;

/// What the track's processors did to a challenge's tasks, as the worker saw it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct Processed {
    #[serde(default)]
    pub changed: Vec<Changed>,
    #[serde(default)]
    pub removed: Vec<String>,
    #[serde(default)]
    pub added: Vec<Added>,
}

/// A task a processor changed: what of it changed that is applied here (`type`, `params`,
/// `clients`, `iterations`, `warmup_iterations`, `time_period`, `warmup_time_period`), with
/// its new value, and what else changed.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Changed {
    pub name: String,
    #[serde(default)]
    pub set: Map<String, Value>,
    #[serde(default)]
    pub unapplied: Vec<String>,
}

/// A task a processor added.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Added {
    pub name: String,
    #[serde(rename = "type")]
    pub operation_type: String,
}

/// Whether the Python beside track `d` (`track.py`, `workload.py`) registers a processor of
/// its own: only then is the worker started to load it before the plan. It is read as text, so a
/// track whose Python never calls the registry costs no worker.
pub fn registers(d: &Definition) -> bool {
    let (_, file) = super::library_of(d.track.words());
    let Some(beside) = d.path.parent().map(|p| p.join(file)) else {
        return false;
    };
    std::fs::read_to_string(beside).is_ok_and(|py| {
        py.contains("register_track_processor") || py.contains("register_workload_processor")
    })
}

impl Processed {
    /// They changed nothing.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.removed.is_empty() && self.added.is_empty()
    }

    /// `procedure` as the processors left it, and what of theirs does not run (a task they
    /// removed, one they added); an error naming the task when they changed what is not
    /// applied here. `track` names the track's file in what is said.
    pub fn apply(
        &self,
        procedure: &Procedure,
        track: &Path,
    ) -> Result<(Procedure, Vec<Item>), String> {
        let by = |name: &str| format!("{}: task {name}: the track's processor", track.display());
        let mut out = procedure.clone();
        let mut not_run = Vec::new();
        let mut seen = Vec::new();
        for step in &mut out.steps {
            let tasks: Vec<&mut Resolved> = match step {
                Step::One(t) => vec![t.as_mut()],
                Step::Parallel { tasks, .. } => tasks.iter_mut().collect(),
            };
            for t in tasks {
                if let Some(c) = self.changed.iter().find(|c| c.name == t.name) {
                    if !c.unapplied.is_empty() {
                        return Err(format!(
                            "{} changed its {}, which searchbench does not apply",
                            by(&t.name),
                            c.unapplied.join(", ")
                        ));
                    }
                    patch(t, &c.set).map_err(|why| format!("{} {why}", by(&t.name)))?;
                    seen.push(t.name.clone());
                }
            }
        }
        if let Some(c) = self.changed.iter().find(|c| !seen.contains(&c.name)) {
            return Err(format!(
                "{} changed a task the challenge does not have",
                by(&c.name)
            ));
        }
        for step in &mut out.steps {
            if let Step::Parallel { tasks, .. } = step {
                tasks.retain(|t| !self.removed.contains(&t.name));
            }
        }
        let removed: Vec<&Resolved> = procedure
            .steps
            .iter()
            .flat_map(Step::tasks)
            .filter(|t| self.removed.contains(&t.name))
            .collect();
        out.steps.retain(|s| match s {
            Step::One(t) => !self.removed.contains(&t.name),
            Step::Parallel { tasks, .. } => !tasks.is_empty(),
        });
        for t in removed {
            not_run.push(Item {
                what: format!("task {} ({})", t.name, t.operation_type),
                runs: false,
                worker: false,
                how: "the track's processor removed it, as the tool does".into(),
            });
        }
        for a in &self.added {
            not_run.push(Item {
                what: format!("task {} ({})", a.name, a.operation_type),
                runs: false,
                worker: false,
                how: "the track's processor added it: a task a processor adds does not run \
                      here yet"
                    .into(),
            });
        }
        Ok((out, not_run))
    }
}

/// Task `t` with what a processor set of it.
fn patch(t: &mut Resolved, set: &Map<String, Value>) -> Result<(), String> {
    for (field, value) in set {
        match field.as_str() {
            "type" => {
                let Some(kind) = value.as_str() else {
                    return Err(format!("gave it an operation type of {value}"));
                };
                t.operation_type = kind.to_string();
                t.operation.operation_type = Some(kind.to_string());
            }
            "params" => {
                let Value::Object(params) = value else {
                    return Err(format!(
                        "gave it parameters that are not an object: {value}"
                    ));
                };
                let mut params = params.clone();
                // The tool's operation holds its whole definition, and what its reader adds.
                params.remove("name");
                params.remove("operation-type");
                if !t.operation.params.contains_key("include-in-reporting") {
                    params.remove("include-in-reporting");
                }
                t.operation.params = params;
            }
            "clients" => {
                t.clients = count(field, value)?
                    .filter(|c| *c > 0)
                    .ok_or_else(|| format!("gave it {value} clients"))?;
            }
            "iterations" => t.iterations = count(field, value)?,
            "warmup_iterations" => t.warmup_iterations = count(field, value)?,
            "time_period" => t.time_period = period(field, value)?,
            "warmup_time_period" => t.warmup_time_period = period(field, value)?,
            other => {
                return Err(format!(
                    "changed its {other}, which searchbench does not apply"
                ))
            }
        }
    }
    Ok(())
}

/// A time period in seconds, or none: held to what a track may write
/// ([`MAX_PERIOD_SECS`], a year), as its JSON is (a clock cannot add one near 2^64).
fn period(field: &str, value: &Value) -> Result<Option<u64>, String> {
    let secs = count(field, value)?;
    match secs.filter(|s| *s > MAX_PERIOD_SECS) {
        Some(s) => Err(format!(
            "gave it a {field} of {s} s: a whole number of seconds up to {MAX_PERIOD_SECS} (a \
             year) is needed"
        )),
        None => Ok(secs),
    }
}

/// A whole number of at least 0, or none.
fn count(field: &str, value: &Value) -> Result<Option<u64>, String> {
    match value {
        Value::Null => Ok(None),
        Value::Number(n) => n
            .as_u64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
                    .map(|f| f as u64)
            })
            .map(Some)
            .ok_or_else(|| {
                format!("gave it a {field} of {n}: a whole number of at least 0 is needed")
            }),
        other => Err(format!(
            "gave it a {field} of {other}: a whole number of at least 0 is needed"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn procedure() -> Procedure {
        let task = |name: &str, kind: &str, params: Value| Resolved {
            name: name.into(),
            operation: serde_json::from_value(json!({"operation-type": kind}))
                .map(|mut o: crate::workload::track::model::Operation| {
                    if let Value::Object(p) = params {
                        o.params = p;
                    }
                    o
                })
                .unwrap(),
            operation_name: name.into(),
            operation_type: kind.into(),
            clients: 1,
            warmup_iterations: None,
            iterations: Some(10),
            warmup_time_period: None,
            time_period: None,
            target_throughput: None,
            target_interval: None,
            task: Default::default(),
        };
        Procedure {
            name: "c".into(),
            description: None,
            default: true,
            steps: vec![
                Step::One(Box::new(task(
                    "term-from-source-using-grok",
                    "search",
                    json!({"body": {"query": {"term": {"status": 200}}}}),
                ))),
                Step::Parallel {
                    tasks: vec![
                        task("a", "search", json!({})),
                        task("gone", "search", json!({})),
                    ],
                    clients: None,
                    completed_by: None,
                },
                Step::One(Box::new(task("alone", "refresh", json!({})))),
            ],
        }
    }

    fn processed(v: Value) -> Processed {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_changed_task_takes_its_new_operation_and_a_removed_one_is_said() {
        let p = processed(json!({
            "changed": [{"name": "term-from-source-using-grok", "set": {
                "params": {"name": "term", "operation-type": "search", "include-in-reporting": true,
                           "body": {"query": {"term": {"grok.from_source.status": 200}}}},
                "iterations": 5.0, "clients": 2}}],
            "removed": ["gone", "alone"],
            "added": [{"name": "new", "type": "search"}]
        }));
        let (out, not_run) = p.apply(&procedure(), Path::new("t.json")).unwrap();
        let t = &out.steps[0].tasks()[0];
        assert_eq!(
            Value::Object(t.operation.params.clone()),
            json!({"body": {"query": {"term": {"grok.from_source.status": 200}}}})
        );
        assert_eq!((t.iterations, t.clients), (Some(5), 2));
        assert_eq!(
            out.steps.len(),
            2,
            "the step of a removed task alone is gone"
        );
        assert_eq!(out.steps[1].tasks().len(), 1);
        let said: Vec<&str> = not_run.iter().map(|i| i.what.as_str()).collect();
        assert_eq!(
            said,
            [
                "task gone (search)",
                "task alone (refresh)",
                "task new (search)"
            ]
        );
    }

    #[test]
    fn what_is_not_applied_here_stops_the_run_naming_the_task() {
        let unapplied =
            processed(json!({"changed": [{"name": "a", "set": {}, "unapplied": ["schedule"]}]}));
        let e = unapplied
            .apply(&procedure(), Path::new("t.json"))
            .unwrap_err();
        assert!(
            e.contains("t.json: task a:") && e.contains("schedule"),
            "{e}"
        );
        let bad = processed(json!({"changed": [{"name": "a", "set": {"iterations": -1}}]}));
        let e = bad.apply(&procedure(), Path::new("t.json")).unwrap_err();
        assert!(e.contains("iterations of -1"), "{e}");
        // A period no clock can add: refused as the track's own JSON would be.
        let endless = processed(
            json!({"changed": [{"name": "a", "set": {"time_period": 9_223_372_036_854_775_808u64}}]}),
        );
        let e = endless
            .apply(&procedure(), Path::new("t.json"))
            .unwrap_err();
        assert!(e.contains("time_period of 9223372036854775808 s"), "{e}");
        let none = processed(json!({"changed": [{"name": "a", "set": {"clients": 0}}]}));
        assert!(none.apply(&procedure(), Path::new("t.json")).is_err());
        let elsewhere = processed(json!({"changed": [{"name": "z", "set": {}}]}));
        assert!(elsewhere.apply(&procedure(), Path::new("t.json")).is_err());
        assert!(processed(json!({})).is_empty());
    }
}

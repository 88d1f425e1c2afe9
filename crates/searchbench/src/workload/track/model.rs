//! A rendered track (or benchmark workload) as a typed model of the whole definition, in the
//! tools' own words: indices, data streams, the three kinds of templates, corpora with all
//! their documents entries, operations, and the challenges (test procedures) with their
//! schedules and parallel blocks. Everything is kept, what searchbench runs and what it does
//! not yet: what a field of ours does not name stays in that object's `other`, as written.
//!
//! Reading follows esrally's and opensearch-benchmark's specification readers: the same keys
//! and the same defaults (a task named after its operation, one client, a parallel block's
//! counts given to its tasks, a single index or data stream as the corpora's target, the only
//! challenge the default), so that the model says what the tools would run.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The whole definition, as written (after rendering).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Track {
    pub version: Option<u64>,
    pub description: Option<String>,
    #[serde(default)]
    pub meta: Map<String, Value>,
    #[serde(default)]
    pub indices: Vec<Index>,
    #[serde(default)]
    pub data_streams: Vec<DataStream>,
    /// Legacy index templates (`_template`).
    #[serde(default)]
    pub templates: Vec<IndexTemplate>,
    #[serde(default)]
    pub composable_templates: Vec<IndexTemplate>,
    #[serde(default)]
    pub component_templates: Vec<ComponentTemplate>,
    #[serde(default)]
    pub corpora: Vec<Corpus>,
    #[serde(default)]
    pub operations: Vec<Operation>,
    /// Rally's challenges.
    pub challenges: Option<Vec<Challenge>>,
    pub challenge: Option<Challenge>,
    /// opensearch-benchmark's name for them.
    #[serde(rename = "test_procedures")]
    pub test_procedures: Option<Vec<Challenge>>,
    #[serde(rename = "test_procedure")]
    pub test_procedure: Option<Challenge>,
    /// One schedule, without a challenge around it.
    pub schedule: Option<Vec<Task>>,
    /// Python packages the track's own code needs (searchbench runs none).
    #[serde(default)]
    pub dependencies: Vec<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Index {
    pub name: String,
    /// The file holding the index's settings and mappings, beside the track.
    pub body: Option<String>,
    #[serde(default)]
    pub types: Vec<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct DataStream {
    pub name: String,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A legacy or composable index template.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct IndexTemplate {
    pub name: String,
    pub index_pattern: String,
    /// The file holding the template.
    pub template: String,
    /// Where in that file the template is, when not the whole file.
    pub template_path: Option<String>,
    pub delete_matching_indices: Option<bool>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct ComponentTemplate {
    pub name: String,
    pub template: String,
    pub template_path: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

// The fields a corpus and its documents entries share, and those a task and a parallel block
// share, are written out in each rather than in a flattened struct: serde loses the path of an
// error inside a flattened struct, and that path is what tells the user where the mistake is.

/// Named documents: its placement fields are the defaults of each of its documents entries.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Corpus {
    pub name: String,
    pub base_url: Option<String>,
    pub source_format: Option<String>,
    pub includes_action_and_meta_data: Option<bool>,
    pub target_index: Option<String>,
    pub target_data_stream: Option<String>,
    pub target_type: Option<String>,
    #[serde(default)]
    pub meta: Map<String, Value>,
    #[serde(default)]
    pub documents: Vec<Documents>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One documents entry of a corpus: one file (or its parts) of documents for one target.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Documents {
    pub source_file: String,
    pub document_count: Option<u64>,
    pub compressed_bytes: Option<u64>,
    pub uncompressed_bytes: Option<u64>,
    pub base_url: Option<String>,
    pub source_format: Option<String>,
    pub includes_action_and_meta_data: Option<bool>,
    pub target_index: Option<String>,
    pub target_data_stream: Option<String>,
    pub target_type: Option<String>,
    #[serde(default)]
    pub meta: Map<String, Value>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An operation: its type, and what that type reads (`body`, `bulk-size`, `index`, …) kept as
/// written in `params`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Operation {
    pub name: Option<String>,
    pub operation_type: Option<String>,
    #[serde(flatten)]
    pub params: Map<String, Value>,
}

/// A challenge (Rally) or test procedure (opensearch-benchmark).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Challenge {
    pub name: Option<String>,
    pub description: Option<String>,
    pub default: Option<bool>,
    #[serde(default)]
    pub schedule: Vec<Task>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One step of a schedule: a task naming (or holding) its operation, or a parallel block.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Task {
    pub name: Option<String>,
    pub operation: Option<OperationRef>,
    pub parallel: Option<Parallel>,
    pub clients: Option<u64>,
    pub warmup_iterations: Option<u64>,
    pub iterations: Option<u64>,
    pub warmup_time_period: Option<u64>,
    pub time_period: Option<u64>,
    pub ramp_up_time_period: Option<u64>,
    /// A number of operations per second, or a string with a unit (`"100 ops/s"`).
    pub target_throughput: Option<Value>,
    pub target_interval: Option<f64>,
    /// The arrival schedule (`deterministic`, `poisson`, …).
    pub schedule: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Tasks run at the same time; its counts are the defaults of its tasks.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Parallel {
    pub clients: Option<u64>,
    pub warmup_iterations: Option<u64>,
    pub iterations: Option<u64>,
    pub warmup_time_period: Option<u64>,
    pub time_period: Option<u64>,
    pub ramp_up_time_period: Option<u64>,
    /// The task whose end ends the block (or `any`).
    pub completed_by: Option<String>,
    #[serde(default)]
    pub tasks: Vec<Task>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A task's operation: the name of one in `operations` (or of a simple one: `"refresh"`), or
/// one written in the task.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(untagged)]
pub enum OperationRef {
    Named(String),
    Inline(Operation),
}

// By hand rather than untagged, so that an inline operation's error says what is wrong in it.
impl<'de> Deserialize<'de> for OperationRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> serde::de::Visitor<'de> for Either {
            type Value = OperationRef;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an operation's name or an operation")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<OperationRef, E> {
                Ok(OperationRef::Named(s.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<OperationRef, A::Error> {
                Operation::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(OperationRef::Inline)
            }
        }
        d.deserialize_any(Either)
    }
}

/// What is wrong with a definition the tools would refuse too, naming where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{at}: {why}")]
pub struct ModelError {
    pub at: String,
    pub why: String,
}

fn error(at: impl Into<String>, why: impl Into<String>) -> ModelError {
    ModelError {
        at: at.into(),
        why: why.into(),
    }
}

/// A challenge with its tasks resolved as the tools resolve them.
#[derive(Debug, Clone, PartialEq)]
pub struct Procedure {
    pub name: String,
    pub description: Option<String>,
    pub default: bool,
    pub steps: Vec<Step>,
}

/// A step of a resolved schedule.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    One(Box<Resolved>),
    Parallel {
        tasks: Vec<Resolved>,
        clients: Option<u64>,
        completed_by: Option<String>,
    },
}

impl Step {
    /// Its tasks: one, or those of the parallel block.
    pub fn tasks(&self) -> &[Resolved] {
        match self {
            Step::One(t) => std::slice::from_ref(&**t),
            Step::Parallel { tasks, .. } => tasks,
        }
    }
}

/// A task with its operation found and its defaults applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub name: String,
    pub operation: Operation,
    /// The operation's name (its type when it has none).
    pub operation_name: String,
    pub operation_type: String,
    pub clients: u64,
    pub warmup_iterations: Option<u64>,
    pub iterations: Option<u64>,
    pub warmup_time_period: Option<u64>,
    pub time_period: Option<u64>,
    pub target_throughput: Option<Value>,
    pub target_interval: Option<f64>,
    /// The task as written (its other fields: `tags`, `meta`, `request-params`, …).
    pub task: Task,
}

/// The tool whose words a definition uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// esrally: challenges.
    Rally,
    /// opensearch-benchmark: test procedures.
    Osb,
}

impl Words {
    /// What the tool calls a challenge.
    pub fn procedure(self) -> &'static str {
        match self {
            Words::Rally => "challenge",
            Words::Osb => "test procedure",
        }
    }
}

/// A documents entry with its corpus's defaults and its target resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub corpus: String,
    pub documents: Documents,
    pub base_url: Option<String>,
    pub includes_action_and_meta_data: bool,
    pub target_index: Option<String>,
    pub target_data_stream: Option<String>,
}

impl Track {
    /// Whose words it uses: opensearch-benchmark's when it has test procedures.
    pub fn words(&self) -> Words {
        if self.test_procedures.is_some() || self.test_procedure.is_some() {
            Words::Osb
        } else {
            Words::Rally
        }
    }

    /// The operations by name; two of one name is an error, as in the tools.
    pub fn operations_by_name(
        &self,
    ) -> Result<std::collections::BTreeMap<String, &Operation>, ModelError> {
        let mut named = std::collections::BTreeMap::new();
        for (i, op) in self.operations.iter().enumerate() {
            let at = format!("operations[{i}]");
            let kind = op
                .operation_type
                .as_deref()
                .ok_or_else(|| error(&at, "an operation needs its operation-type"))?;
            let name = op.name.clone().unwrap_or_else(|| kind.to_string());
            if named.insert(name.clone(), op).is_some() {
                return Err(error(at, format!("a second operation named {name:?}")));
            }
        }
        Ok(named)
    }

    /// The challenges (test procedures) resolved: exactly one of the ways to write them, one
    /// default at most (the only one is the default), unique task names in each.
    pub fn procedures(&self) -> Result<Vec<Procedure>, ModelError> {
        let words = self.words();
        let (key, one, many) = match words {
            Words::Rally => ("challenge", &self.challenge, &self.challenges),
            Words::Osb => (
                "test_procedure",
                &self.test_procedure,
                &self.test_procedures,
            ),
        };
        let plural = format!("{key}s");
        let auto;
        let specs: Vec<(String, &Challenge)> =
            match (self.schedule.as_ref(), one.as_ref(), many.as_ref()) {
                (None, None, None) => {
                    return Err(error(
                        "the definition",
                        format!("it has no '{key}', '{plural}' or 'schedule'"),
                    ))
                }
                (Some(schedule), None, None) => {
                    auto = Challenge {
                        name: Some("default".into()),
                        schedule: schedule.clone(),
                        ..Challenge::default()
                    };
                    vec![("schedule".into(), &auto)]
                }
                (None, Some(c), None) => vec![(key.to_string(), c)],
                (None, None, Some(list)) => list
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (format!("{plural}[{i}]"), c))
                    .collect(),
                _ => {
                    return Err(error(
                        "the definition",
                        format!("only one of '{key}', '{plural}' and 'schedule' may be there"),
                    ))
                }
            };
        let ops = self.operations_by_name()?;
        let only = specs.len() == 1;
        let mut out: Vec<Procedure> = Vec::new();
        for (at, spec) in specs {
            let name = spec
                .name
                .clone()
                .ok_or_else(|| error(&at, format!("a {} needs a name", words.procedure())))?;
            if out.iter().any(|p| p.name == name) {
                return Err(error(
                    &at,
                    format!("a second {} named {name:?}", words.procedure()),
                ));
            }
            let default = only || spec.default == Some(true);
            if let Some(other) = out.iter().find(|p| p.default && default) {
                return Err(error(
                    &at,
                    format!("{:?} and {name:?} are both the default", other.name),
                ));
            }
            let mut steps = Vec::new();
            for (i, task) in spec.schedule.iter().enumerate() {
                steps.push(step(task, &ops, &format!("{at}.schedule[{i}]"))?);
            }
            let mut seen = std::collections::BTreeSet::new();
            for t in steps.iter().flat_map(Step::tasks) {
                if !seen.insert(t.name.as_str()) {
                    return Err(error(
                        &at,
                        format!("two tasks named {:?}: give one a name of its own", t.name),
                    ));
                }
            }
            out.push(Procedure {
                name,
                description: spec.description.clone(),
                default,
                steps,
            });
        }
        Ok(out)
    }

    /// Every documents entry with its corpus's defaults applied and its target found: the
    /// entry's, the corpus's, or the track's only index (data stream). An entry whose lines
    /// carry their own action and metadata has no target, as in both tools' readers: each
    /// line names its own ([`Track::only_target`] is where such lines go when one does not).
    pub fn sources(&self) -> Vec<Source> {
        let (only_index, only_stream) = self.only_targets();
        let mut out = Vec::new();
        for corpus in &self.corpora {
            for d in &corpus.documents {
                let (own, all) = (d, corpus);
                let with_meta = own
                    .includes_action_and_meta_data
                    .or(all.includes_action_and_meta_data)
                    .unwrap_or(false);
                let target = |own: &Option<String>, all: &Option<String>, only: &Option<String>| {
                    (!with_meta)
                        .then(|| own.clone().or(all.clone()).or(only.clone()))
                        .flatten()
                };
                out.push(Source {
                    corpus: corpus.name.clone(),
                    documents: d.clone(),
                    base_url: own.base_url.clone().or(all.base_url.clone()),
                    includes_action_and_meta_data: with_meta,
                    target_index: target(&own.target_index, &all.target_index, &only_index),
                    target_data_stream: target(
                        &own.target_data_stream,
                        &all.target_data_stream,
                        &only_stream,
                    ),
                });
            }
        }
        out
    }

    /// The track's only index, else its only data stream (`true`): where lines that carry
    /// their own action and metadata go when a line does not name its index.
    pub fn only_target(&self) -> Option<(String, bool)> {
        match self.only_targets() {
            (Some(index), _) => Some((index, false)),
            (None, Some(stream)) => Some((stream, true)),
            (None, None) => None,
        }
    }

    fn only_targets(&self) -> (Option<String>, Option<String>) {
        let only = |names: Vec<&String>| match names.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        };
        (
            only(self.indices.iter().map(|i| &i.name).collect()),
            only(self.data_streams.iter().map(|i| &i.name).collect()),
        )
    }
}

/// One schedule entry resolved.
fn step(
    task: &Task,
    ops: &std::collections::BTreeMap<String, &Operation>,
    at: &str,
) -> Result<Step, ModelError> {
    match (&task.parallel, &task.operation) {
        (Some(p), None) => {
            let mut tasks = Vec::new();
            for (i, t) in p.tasks.iter().enumerate() {
                let at = format!("{at}.parallel.tasks[{i}]");
                if t.parallel.is_some() {
                    return Err(error(at, "a parallel block inside a parallel block"));
                }
                tasks.push(resolve(t, Some(p), ops, &at)?);
            }
            // Rally and OSB read a block's `clients` as the clients that run its tasks (the
            // sum of the tasks' clients when absent); fewer than that sum makes their tasks
            // share clients, one after another. Here each task has clients of its own: a
            // block's `clients` of at least the sum is what runs, a smaller one is refused
            // rather than ignored.
            if let Some(clients) = p.clients {
                let sum: u64 = tasks.iter().map(|t| t.clients).fold(0, u64::saturating_add);
                if clients < sum {
                    return Err(error(
                        format!("{at}.parallel.clients"),
                        format!(
                            "{clients} is fewer than the {sum} client(s) its tasks ask for: \
                             Rally and OSB would run its tasks in turn on {clients} client(s), \
                             which searchbench does not; give each task its clients and leave \
                             the block's out (or set it to {sum} or more)"
                        ),
                    ));
                }
            }
            if let Some(by) = p.completed_by.as_deref() {
                if by != "any" && !tasks.iter().any(|t| t.name == by) {
                    return Err(error(
                        format!("{at}.parallel.completed-by"),
                        format!("no task of the block is named {by:?}"),
                    ));
                }
            }
            Ok(Step::Parallel {
                tasks,
                clients: p.clients,
                completed_by: p.completed_by.clone(),
            })
        }
        (None, Some(_)) => Ok(Step::One(Box::new(resolve(task, None, ops, at)?))),
        (Some(_), Some(_)) => Err(error(at, "a task with both 'operation' and 'parallel'")),
        (None, None) => Err(error(
            at,
            "a task needs an 'operation' (or a 'parallel' block)",
        )),
    }
}

/// The longest time period a task may give (a year, in seconds): a benchmark's periods are
/// minutes or hours, and a clock cannot add one near the largest integer.
pub const MAX_PERIOD_SECS: u64 = 365 * 86_400;

/// A task with its operation found: by name in `operations`, else a simple operation of that
/// type (`"refresh"`), or written inline; the parallel block's counts are its defaults.
fn resolve(
    task: &Task,
    parallel: Option<&Parallel>,
    ops: &std::collections::BTreeMap<String, &Operation>,
    at: &str,
) -> Result<Resolved, ModelError> {
    let operation = match &task.operation {
        Some(OperationRef::Named(name)) => match ops.get(name) {
            Some(op) => (*op).clone(),
            None => Operation {
                name: Some(name.clone()),
                operation_type: Some(name.clone()),
                params: Map::new(),
            },
        },
        Some(OperationRef::Inline(op)) => op.clone(),
        None => return Err(error(at, "a task needs an 'operation'")),
    };
    let kind = operation.operation_type.clone().ok_or_else(|| {
        error(
            format!("{at}.operation"),
            "an operation needs its operation-type",
        )
    })?;
    let operation_name = operation.name.clone().unwrap_or_else(|| kind.clone());
    if task.target_throughput.is_some() && task.target_interval.is_some() {
        return Err(error(
            at,
            "both target-throughput and target-interval: give one of them",
        ));
    }
    let own = task;
    let or = |own: Option<u64>, of: fn(&Parallel) -> Option<u64>| own.or(parallel.and_then(of));
    for (name, period) in [
        (
            "warmup-time-period",
            or(own.warmup_time_period, |c| c.warmup_time_period),
        ),
        ("time-period", or(own.time_period, |c| c.time_period)),
        (
            "ramp-up-time-period",
            or(own.ramp_up_time_period, |c| c.ramp_up_time_period),
        ),
    ] {
        if let Some(secs) = period.filter(|s| *s > MAX_PERIOD_SECS) {
            return Err(error(
                at,
                format!(
                    "{name}: {secs} s is not accepted; use a whole number of seconds up to \
                     {MAX_PERIOD_SECS} (a year)"
                ),
            ));
        }
    }
    Ok(Resolved {
        name: task.name.clone().unwrap_or_else(|| operation_name.clone()),
        operation_name,
        operation_type: kind,
        clients: own.clients.unwrap_or(1),
        warmup_iterations: or(own.warmup_iterations, |c| c.warmup_iterations),
        iterations: or(own.iterations, |c| c.iterations),
        warmup_time_period: or(own.warmup_time_period, |c| c.warmup_time_period),
        time_period: or(own.time_period, |c| c.time_period),
        target_throughput: task.target_throughput.clone(),
        target_interval: task.target_interval,
        task: task.clone(),
        operation,
    })
}

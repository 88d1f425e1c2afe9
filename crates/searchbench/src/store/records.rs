//! What the store keeps about a run: its id, kind, state, the row a listing shows, and
//! the filter a listing takes.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::{Result, StoreError};

/// Short run id: 8 hex characters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct RunId(pub String);

impl std::fmt::Display for RunId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for RunId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// What kind of result a run produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `searchbench ingest`: an `IngestReport`.
    Ingest,
    /// `searchbench run WORKLOAD`: an `IngestReport` (and later more).
    Run,
    /// `searchbench query WORKLOAD`: a `QueryResult`.
    Query,
    /// `searchbench experiment NAME` on one cluster (workload: the experiment's name).
    Experiment,
    /// `searchbench run --workload-file` of a Rally track or OSB workload: a `TrackRunResult`
    /// (workload: the track's name).
    Track,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ingest => "ingest",
            Kind::Run => "run",
            Kind::Query => "query",
            Kind::Experiment => "experiment",
            Kind::Track => "track",
        }
    }
}

/// What is known about a run when it starts: its identity, as the store begins it and every
/// sink of its lifecycle is told it first.
#[derive(Debug, Clone, Serialize)]
pub struct NewRun {
    #[serde(serialize_with = "kind_name")]
    pub kind: Kind,
    pub workload: String,
    /// `opensearch-2.19.1`; when unknown at the start it is taken from the result
    /// (`product` + `engine_version`) by [`Store::finish_run`](super::Store::finish_run).
    pub engine: Option<String>,
    pub seed: Option<u64>,
    /// The run's configuration (flags, driver config, settings): enough to run it again.
    pub config: Value,
    pub tags: Vec<(String, String)>,
}

fn kind_name<S: serde::Serializer>(kind: &Kind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.name())
}

impl NewRun {
    pub fn new(kind: Kind, workload: impl Into<String>, config: Value) -> Self {
        NewRun {
            kind,
            workload: workload.into(),
            engine: None,
            seed: None,
            config,
            tags: Vec::new(),
        }
    }
}

/// A run's lifecycle state as shown to people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Started by a process that is still alive.
    Running,
    /// Started, never finished, and its process is gone (killed, crashed, power loss).
    Incomplete,
    Complete,
    /// Stopped by a signal (Ctrl-C) before the load or the queries were done: a partial
    /// result, never compared as if it were whole.
    Interrupted,
    /// Finished with an error, or a check failed: a request that failed for good, a wrong
    /// answer, counts that do not reconcile (the result, if any, is kept).
    Failed,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Incomplete => "incomplete",
            State::Complete => "complete",
            State::Interrupted => "interrupted",
            State::Failed => "failed",
        }
    }

    /// The state of a stored row: its status, unless it never ended, when it is running
    /// while the process `pid` that owns the row (told apart by its `mark`, see
    /// [`crate::os::owner_alive`]) is alive and incomplete once it is gone.
    pub fn of_stored(status: &str, pid: Option<u32>, mark: Option<&str>) -> State {
        match status {
            "complete" => State::Complete,
            "interrupted" => State::Interrupted,
            "failed" => State::Failed,
            _ if pid.is_some_and(|pid| crate::os::owner_alive(pid, mark)) => State::Running,
            _ => State::Incomplete,
        }
    }
}

/// One stored run.
#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub id: RunId,
    pub kind: String,
    pub workload: String,
    pub engine: Option<String>,
    /// As stored: running, complete, interrupted or failed.
    pub status: String,
    pub state: State,
    pub started_unix: u64,
    pub finished_unix: Option<u64>,
    pub tool_version: String,
    pub seed: Option<u64>,
    /// The process of a run still going (none once it has ended).
    pub pid: Option<u32>,
    pub machine: Value,
    pub config: Value,
    pub tags: BTreeMap<String, String>,
    pub error: Option<String>,
    /// The serialised result (absent while running or after a kill).
    pub result: Option<Value>,
}

impl RunRow {
    /// The per-second timeline inside the result, when there is one.
    pub fn result_timeline(&self) -> Option<&Vec<Value>> {
        self.result.as_ref()?.get("timeline")?.as_array()
    }

    /// Whether the run loaded a corpus synthesized for one that was not here (a track run
    /// with `--synthesize`): its figures measure the synthesized documents, not the real.
    pub fn synthesized(&self) -> bool {
        self.config
            .get(SYNTHESIZED)
            .and_then(Value::as_array)
            .is_some_and(|files| !files.is_empty())
    }

    /// The workload as every view names it: `http_logs (synthesized corpus)` for a run on a
    /// synthesized corpus, so no view shows its figures as the real corpus's.
    pub fn workload_shown(&self) -> String {
        if self.synthesized() {
            format!("{} ({SYNTHESIZED_CORPUS})", self.workload)
        } else {
            self.workload.clone()
        }
    }
}

/// The configuration key of the corpus files a run synthesized (each file's corpus, name,
/// documents, sample and seed).
pub const SYNTHESIZED: &str = "synthesized";

/// How views name a synthesized corpus.
pub const SYNTHESIZED_CORPUS: &str = "synthesized corpus";

/// Which runs `list` returns.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub workload: Option<String>,
    /// Prefix of the engine name: `opensearch` matches `opensearch-2.19.1`.
    pub engine: Option<String>,
    pub kind: Option<String>,
    /// Every tag must match.
    pub tags: Vec<(String, String)>,
    /// Every named part of the run's provenance must match (`--where host=ci-7`: see
    /// `measure::provenance::KEYS`).
    pub provenance: Vec<(String, String)>,
    pub complete_only: bool,
    pub limit: Option<usize>,
}

/// Parses `key=value` (the `--tag` flag).
pub fn parse_tag(s: &str) -> Result<(String, String)> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| StoreError::BadTag(s.into()))?;
    let k = k.trim();
    let ok = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !ok {
        return Err(StoreError::BadTag(s.into()));
    }
    Ok((k.to_string(), v.trim().to_string()))
}

impl Filter {
    pub(super) fn matches(&self, r: &RunRow) -> bool {
        self.admits(&r.state, &r.workload, &r.kind, r.engine.as_deref(), |k| {
            r.tags.get(k).map(String::as_str)
        }) && self.from(&r.machine)
    }

    /// Whether a whole run (read back from a cluster, before it is stored) matches.
    pub fn matches_whole(&self, r: &super::WholeRun) -> bool {
        self.admits(&r.state, &r.workload, &r.kind, r.engine.as_deref(), |k| {
            r.tags.get(k).map(String::as_str)
        }) && self.from(&r.machine)
    }

    /// Whether the provenance kept in a run's `machine` has every value asked for.
    fn from(&self, machine: &Value) -> bool {
        if self.provenance.is_empty() {
            return true;
        }
        let p = crate::measure::provenance::Provenance::read(machine);
        self.provenance
            .iter()
            .all(|(k, v)| p.get(k) == Some(v.as_str()))
    }

    fn admits<'a>(
        &self,
        state: &State,
        workload: &str,
        kind: &str,
        engine: Option<&str>,
        tag: impl Fn(&str) -> Option<&'a str>,
    ) -> bool {
        if self.complete_only && *state != State::Complete {
            return false;
        }
        if self.workload.as_ref().is_some_and(|w| w != workload) {
            return false;
        }
        if self.kind.as_ref().is_some_and(|k| k != kind) {
            return false;
        }
        if let Some(e) = &self.engine {
            if !engine.is_some_and(|x| x.starts_with(e.as_str())) {
                return false;
            }
        }
        self.tags.iter().all(|(k, v)| tag(k) == Some(v.as_str()))
    }
}

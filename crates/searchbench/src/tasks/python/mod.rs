//! A track's own Python, run by its tool's own library: a worker process (CPython, in a
//! virtual environment searchbench makes once: [`venv`]) loads the track as esrally loads it (a
//! workload as opensearch-benchmark does), so its `track.py` (`workload.py`), what that imports
//! and what it registers are as they are under the tool. A task
//! whose parameters come from a param source takes them from the worker, partitioned per client
//! as esrally partitions them (a source per client, `partition(i, clients)`); the Rust driver
//! sends and times each request as it does every task's, so the worker's cost is making the
//! parameters, never the measured exchange.
//!
//! The worker answers JSON lines on a pipe (`worker.py`), in its own process group (a Ctrl-C
//! reaches searchbench, which stops it) and killed when the run ends; it ends by itself when
//! its input does, so it never outlives searchbench. A Python error names the file and line
//! of the track's code it came from: at load, before anything is sent; in a param source, as
//! the task's error.
//!
//! A task whose operation type searchbench does not run runs in the worker by a runner: one
//! the track registers (`register_runner`), else the tool's own ([`tool_runners`]). The tool's
//! own driver code runs it (`execute_single`, with the tool's own client of the cluster, made
//! from the target's URLs and credentials handed over on the pipe, never on its command line),
//! timed as the tool times it (its request context); its weight, unit, success and error come
//! back into the task's figures.

pub mod hdf5;
pub mod processors;
pub mod tool_runners;
pub mod venv;

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::operation::{Failed, Operation};
use super::plan::Unplanned;
use crate::workload::track::model::Resolved;
use crate::workload::track::Definition;

/// The worker's source, run as `python -c`.
const WORKER: &str = include_str!("worker.py");

/// How many parameters a client is given at a time.
const BATCH: usize = 64;

/// How long loading the track, or one batch of parameters, may take.
const ANSWER: Duration = Duration::from_secs(300);

/// How long one execution of a runner may take: a runner may wait on the cluster (a model
/// deployed, a snapshot taken) as long as the tools let it, which is for ever; an hour here.
const RUN_ANSWER: Duration = Duration::from_secs(3600);

/// The stderr lines of the worker kept to say why it ended.
const STDERR_KEPT: usize = 20;
/// The most of one line of the worker's stderr kept: a track's hook printing a line of
/// gigabytes has the rest of it read and dropped, not held.
const STDERR_LINE: usize = 4 << 10;

/// The worker's next line of stderr, its first [`STDERR_LINE`] bytes (the rest of a longer
/// one read and dropped); `None` once it ends (or cannot be read).
async fn stderr_line(from: &mut (impl tokio::io::AsyncBufRead + Unpin)) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut line = Vec::new();
    let n = (&mut *from)
        .take(STDERR_LINE as u64)
        .read_until(b'\n', &mut line)
        .await;
    if n.ok()? == 0 {
        return None;
    }
    let mut rest = Vec::new();
    while !line.ends_with(b"\n") && !rest.ends_with(b"\n") {
        rest.clear();
        let n = (&mut *from)
            .take(64 << 10)
            .read_until(b'\n', &mut rest)
            .await;
        if n.unwrap_or(0) == 0 {
            break;
        }
    }
    let text = String::from_utf8_lossy(&line);
    Some(text.trim_end_matches(['\n', '\r']).to_string())
}

#[derive(Debug, thiserror::Error)]
pub enum PythonError {
    /// Making the environment or starting the worker failed.
    #[error("{what}: {why}")]
    Setup { what: String, why: String },
    /// The track's Python raised: where, and what.
    #[error("{at}: {message}")]
    Track { at: String, message: String },
    /// The worker ended, or said what no worker says.
    #[error("the Python worker {0}")]
    Worker(String),
}

/// A task of the challenge whose parameters come from a param source, as the worker found it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct SourceTask {
    pub name: String,
    #[serde(rename = "type")]
    pub operation_type: String,
    pub param_source: Option<String>,
    pub clients: u64,
    /// The source never ends by itself (its iterations or time period end the task).
    pub infinite: bool,
    /// It was asked for (`runners_for`) and the tool or the track has a runner for its
    /// operation type: it runs in the worker.
    #[serde(default)]
    pub runner: bool,
    /// It was asked for (`scheduled_for`) and the scheduler its `schedule` names is registered
    /// (by the track's Python, or the tool's own).
    #[serde(default)]
    pub scheduler: bool,
}

/// A client's next due time, asked of the task's scheduler in the worker, with its next
/// parameters when they come from there.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Scheduled {
    /// Seconds from the task's start; 0 or less: at once, unthrottled.
    pub at: f64,
    #[serde(default)]
    pub params: Vec<Value>,
    /// Its parameter source has ended.
    #[serde(default)]
    pub done: bool,
}

/// What one execution of a runner in the worker did, as the tool's driver reports it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Ran {
    /// Its work (Rally's `weight`): operations, documents.
    pub weight: f64,
    pub unit: String,
    pub success: bool,
    pub error: Option<String>,
    /// First request sent to last answer read (the runner's own time when it sent none).
    pub service_secs: f64,
    /// What else it returned (Rally's request meta data).
    #[serde(default)]
    pub meta: serde_json::Map<String, Value>,
}

impl Ran {
    /// Itself, when its weight and time are numbers a runner can give: at least 0, the time
    /// no longer than its answer was waited for (a clock past that is no runner's).
    fn checked(self) -> Result<Ran, PythonError> {
        let sane = |x: f64| x.is_finite() && x >= 0.0;
        let timed = self.service_secs <= RUN_ANSWER.as_secs_f64();
        if sane(self.weight) && sane(self.service_secs) && timed {
            return Ok(self);
        }
        Err(PythonError::Worker(format!(
            "answered a weight of {} and a service time of {} s: each must be a number of at \
             least 0, the time at most {} s",
            self.weight,
            self.service_secs,
            RUN_ANSWER.as_secs()
        )))
    }
}

/// What one client of one task has been given and not yet sent.
#[derive(Default)]
struct Given {
    queue: VecDeque<Value>,
    done: bool,
}

struct Pipe {
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    child: Child,
}

/// A running worker with a track loaded.
pub struct Worker {
    pipe: tokio::sync::Mutex<Pipe>,
    given: Mutex<BTreeMap<(String, usize), Given>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The tasks whose parameters it gives, or whose runner it runs.
    pub tasks: Vec<SourceTask>,
    /// The operation types the track registered runners for.
    pub runners: Vec<String>,
    /// What the track's own processors did to the challenge's tasks.
    pub processed: processors::Processed,
    /// The cluster has been handed to it (for its runners' clients), once.
    connected: tokio::sync::OnceCell<()>,
    /// The number of the next request.
    asked: AtomicU64,
    /// It is being stopped: its end is no death.
    stopping: Arc<AtomicBool>,
    /// Fires when it ends without being stopped ([`Worker::died`]).
    died: crate::cancel::Cancel,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("tasks", &self.tasks)
            .finish()
    }
}

/// What loading a track in the worker needs.
pub struct Load<'a> {
    /// The tool whose library loads it (its package's name).
    pub library: venv::Library,
    pub track_dir: &'a Path,
    pub params: Value,
    pub challenge: Option<&'a str>,
    pub test_mode: bool,
    /// The tasks to run by a runner in the worker (their operation type is none searchbench
    /// runs): each is answered with whether the tool or the track has a runner for it.
    pub runners_for: Vec<String>,
    /// The tasks whose `schedule` names a scheduler of the track's Python: each is answered
    /// with whether one is registered under that name.
    pub scheduled_for: Vec<String>,
}

impl Worker {
    /// Starts the worker with `python` and loads the track: the tasks whose parameters it
    /// gives, or the track's Python error, naming its file and line.
    pub async fn start(python: &Path, load: Load<'_>) -> Result<Worker, PythonError> {
        // The worker runs in the track's folder: the folder it is told is whole, not relative.
        let track_dir = std::path::absolute(load.track_dir).map_err(|e| PythonError::Setup {
            what: format!("finding {}", load.track_dir.display()),
            why: e.to_string(),
        })?;
        let home = crate::engine::paths::cache_root()
            .join("python")
            .join("rally-home");
        let mut command = tokio::process::Command::new(python);
        // The track's code is handed the cluster it needs (`connect`), never the secrets of
        // searchbench's environment (a results cluster's password).
        crate::os::without_secrets(command.as_std_mut());
        command
            .arg("-c")
            .arg(WORKER)
            .current_dir(&track_dir)
            // Rally keeps its libraries and logs under its home: ours, not the user's.
            .env("RALLY_HOME", &home)
            // The track's folder is the user's: no `__pycache__` left in it.
            .env("PYTHONDONTWRITEBYTECODE", "1")
            // The worker ends once this process has (see `watch_parent` in the worker).
            .env("SEARCHBENCH_PARENT_PID", std::process::id().to_string())
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            // A Ctrl-C goes to searchbench's process group: searchbench stops the worker.
            .process_group(0);
        let mut child = command.spawn().map_err(|e| PythonError::Setup {
            what: format!("starting {}", python.display()),
            why: e.to_string(),
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(PythonError::Worker("started without its pipes".into()));
        };
        let kept = Arc::new(Mutex::new(VecDeque::new()));
        let into = kept.clone();
        let stopping = Arc::new(AtomicBool::new(false));
        let (death, died) = crate::cancel::Cancel::new();
        let asked_to = stopping.clone();
        tokio::spawn(async move {
            let mut stderr = BufReader::new(stderr);
            while let Some(line) = stderr_line(&mut stderr).await {
                if let Ok(mut k) = into.lock() {
                    if k.len() == STDERR_KEPT {
                        k.pop_front();
                    }
                    k.push_back(line);
                }
            }
            // Its stderr ends when it does: unless it was told to, it died.
            if !asked_to.load(Ordering::SeqCst) {
                let _ = death.send(true);
            }
        });
        let mut worker = Worker {
            pipe: tokio::sync::Mutex::new(Pipe {
                stdin,
                lines: BufReader::new(stdout).lines(),
                child,
            }),
            given: Mutex::new(BTreeMap::new()),
            stderr: kept,
            tasks: Vec::new(),
            runners: Vec::new(),
            processed: processors::Processed::default(),
            connected: tokio::sync::OnceCell::new(),
            asked: AtomicU64::new(0),
            stopping,
            died,
        };
        let loaded = worker
            .ask(json!({
            "op": "load",
                "tool": load.library.package,
                "track": track_dir.display().to_string(),
                "params": load.params,
                "challenge": load.challenge,
                "test_mode": load.test_mode,
                "runners_for": load.runners_for,
                "scheduled_for": load.scheduled_for,
            }))
            .await?;
        #[derive(Deserialize)]
        struct Loaded {
            tasks: Vec<SourceTask>,
            #[serde(default)]
            runners: Vec<String>,
            #[serde(default)]
            processed: processors::Processed,
        }
        let loaded = Loaded::deserialize(&loaded)
            .map_err(|e| PythonError::Worker(format!("answered a load it cannot mean: {e}")))?;
        worker.tasks = loaded.tasks;
        worker.runners = loaded.runners;
        worker.processed = loaded.processed;
        Ok(worker)
    }

    /// One request and its answer. Each request carries a number its answer repeats: the
    /// answer to one a client gave up on (stopped by Ctrl-C or its block's end while it
    /// waited) is passed over, never taken for the next request's.
    async fn ask(&self, request: Value) -> Result<Value, PythonError> {
        self.ask_within(request, ANSWER).await
    }

    /// [`Self::ask`], its answer waited for at most `within` (after which the worker is
    /// stopped: it is stuck).
    async fn ask_within(&self, mut request: Value, within: Duration) -> Result<Value, PythonError> {
        let mut pipe = self.pipe.lock().await;
        let id = self.asked.fetch_add(1, Ordering::Relaxed);
        request["id"] = id.into();
        let exchange = async {
            let mut line = request.to_string();
            line.push('\n');
            pipe.stdin.write_all(line.as_bytes()).await?;
            pipe.stdin.flush().await?;
            loop {
                let Some(line) = pipe.lines.next_line().await? else {
                    return Ok(None);
                };
                let answer = serde_json::from_str::<Value>(&line);
                match &answer {
                    Ok(a) if a.get("id").and_then(Value::as_u64).is_some_and(|n| n != id) => {}
                    _ => return Ok::<_, std::io::Error>(Some(answer)),
                }
            }
        };
        let answered = tokio::time::timeout(within, exchange).await;
        let answer = match answered {
            Ok(Ok(Some(answer))) => answer,
            Ok(Ok(None)) | Ok(Err(_)) => {
                // Its output ended: it ended. Why is in what it said last.
                let status = tokio::time::timeout(Duration::from_secs(5), pipe.child.wait())
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .map_or_else(|| "ended".to_string(), |s| format!("ended ({s})"));
                return Err(PythonError::Worker(format!("{status}{}", self.said())));
            }
            Err(_) => {
                let _ = pipe.child.start_kill();
                return Err(PythonError::Worker(format!(
                    "gave no answer within {within:?}{}",
                    self.said()
                )));
            }
        };
        let answer =
            answer.map_err(|e| PythonError::Worker(format!("answered what is not JSON ({e})")))?;
        if let Some(ok) = answer.get("ok") {
            return Ok(ok.clone());
        }
        let error = &answer["error"];
        let message = error["message"]
            .as_str()
            .unwrap_or("an error it did not name")
            .to_string();
        let at = match (error["file"].as_str(), error["line"].as_u64()) {
            (Some(file), Some(line)) => format!("{file}, line {line}"),
            (Some(file), None) => file.to_string(),
            _ => "the track's Python".to_string(),
        };
        Err(PythonError::Track { at, message })
    }

    /// The last lines the worker wrote to its stderr, as a tail of a message.
    fn said(&self) -> String {
        let lines = self
            .stderr
            .lock()
            .map(|k| k.iter().cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        if lines.is_empty() {
            String::new()
        } else {
            format!(": {}", lines.join(" / "))
        }
    }

    /// The next parameters of client `client` (of `clients`) of task `task`; `None` once its
    /// source is used up.
    pub async fn next(
        &self,
        task: &str,
        client: usize,
        clients: u64,
    ) -> Result<Option<Value>, PythonError> {
        let key = (task.to_string(), client);
        loop {
            {
                let mut given = self
                    .given
                    .lock()
                    .map_err(|_| PythonError::Worker("lost its parameters".into()))?;
                let mine = given.entry(key.clone()).or_default();
                if let Some(p) = mine.queue.pop_front() {
                    return Ok(Some(p));
                }
                if mine.done {
                    return Ok(None);
                }
            }
            let batch = self
                .ask(json!({
                    "op": "params",
                    "task": task,
                    "client": client,
                    "clients": clients,
                    "count": BATCH,
                }))
                .await?;
            #[derive(Deserialize)]
            struct Batch {
                params: Vec<Value>,
                done: bool,
            }
            let batch = Batch::deserialize(&batch).map_err(|e| {
                PythonError::Worker(format!("answered parameters it cannot mean: {e}"))
            })?;
            let mut given = self
                .given
                .lock()
                .map_err(|_| PythonError::Worker("lost its parameters".into()))?;
            let mine = given.entry(key.clone()).or_default();
            mine.queue.extend(batch.params);
            mine.done = batch.done;
        }
    }

    /// Client `client`'s (of `clients`) next due time of task `task`, asked of its scheduler
    /// as the tool's driver asks it, then (`params`) the client's next parameters.
    pub async fn scheduled(
        &self,
        task: &str,
        client: usize,
        clients: u64,
        params: bool,
    ) -> Result<Scheduled, PythonError> {
        let asked = json!({"op": "scheduled", "task": task, "client": client,
                           "clients": clients, "params": params});
        let answer = self.ask(asked).await?;
        let scheduled = Scheduled::deserialize(&answer)
            .map_err(|e| PythonError::Worker(format!("answered a due time it cannot mean: {e}")))?;
        if !scheduled.at.is_finite() || scheduled.params.len() > 1 {
            return Err(PythonError::Worker(format!(
                "task {task}'s scheduler gave a due time of {} s: a number of seconds is needed",
                scheduled.at
            )));
        }
        Ok(scheduled)
    }

    /// Tells client `client`'s scheduler of task `task` that its request starts now
    /// (`before_request`), or ended now (`after`: `after_request` with what it did), without
    /// waiting: an error it raises is the answer to the client's next [`Self::scheduled`].
    pub async fn tell(
        &self,
        task: &str,
        client: usize,
        after: Option<(f64, &str, bool)>,
    ) -> Result<(), PythonError> {
        let mut told = json!({"op": "before", "task": task, "client": client, "tell": true});
        if let Some((weight, unit, success)) = after {
            told = json!({"op": "after", "task": task, "client": client, "tell": true,
                          "weight": weight, "unit": unit, "meta": {"success": success}});
        }
        let mut pipe = self.pipe.lock().await;
        let mut line = told.to_string();
        line.push('\n');
        let sent = async {
            pipe.stdin.write_all(line.as_bytes()).await?;
            pipe.stdin.flush().await
        };
        match tokio::time::timeout(ANSWER, sent).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(PythonError::Worker(format!(
                "took no more: {e}{}",
                self.said()
            ))),
            Err(_) => Err(PythonError::Worker(format!(
                "took nothing within {ANSWER:?}{}",
                self.said()
            ))),
        }
    }

    /// Runs task `task`'s runner once for client `client` (of `clients`), with that client's
    /// next parameters, on `cluster` (engine version `version`: the tool's client speaks to it
    /// as to that version): what it did, or `None` once its parameters are used up. When
    /// `scheduled`, its scheduler in the worker hears of the request before and after it.
    pub async fn run(
        &self,
        cluster: (&crate::cluster::Target, &str),
        task: &str,
        client: usize,
        clients: u64,
        scheduled: bool,
    ) -> Result<Option<Ran>, PythonError> {
        // The cluster and its credentials go on the pipe, once, when a runner first needs
        // them: the worker starts before the cluster may be up.
        self.connected
            .get_or_try_init(|| async {
                let (target, version) = cluster;
                let mut handover = target.handover();
                handover["version"] = version.into();
                self.ask(json!({"op": "target", "target": handover}))
                    .await
                    .map(drop)
            })
            .await?;
        let run = json!({"op": "run", "task": task, "client": client, "clients": clients,
                         "scheduled": scheduled});
        let answer = self.ask_within(run, RUN_ANSWER).await?;
        if answer.get("done").and_then(Value::as_bool) == Some(true) {
            return Ok(None);
        }
        let ran = Ran::deserialize(&answer)
            .map_err(|e| PythonError::Worker(format!("answered a run it cannot mean: {e}")))?;
        let ran = ran.checked()?;
        Ok(Some(ran))
    }

    /// Whether a runner (the track's, or the tool's own) runs task `task` in the worker.
    pub fn runs(&self, task: &str) -> bool {
        self.tasks.iter().any(|t| t.name == task && t.runner)
    }

    /// Whether the scheduler task `task`'s `schedule` names is registered in the worker.
    pub fn schedules(&self, task: &str) -> bool {
        self.tasks.iter().any(|t| t.name == task && t.scheduler)
    }

    /// Whether task `task`'s source never ends by itself.
    pub fn infinite(&self, task: &str) -> bool {
        self.tasks.iter().any(|t| t.name == task && t.infinite)
    }

    /// A signal that fires when the worker ends without being stopped (killed, crashed): a run
    /// whose tasks need it stops there, kept as interrupted.
    pub fn died(&self) -> crate::cancel::Cancel {
        self.died.clone()
    }

    /// What its end was, in a line: that it ended, and the last it wrote.
    pub fn death(&self) -> String {
        format!("the Python worker ended{}", self.said())
    }

    /// Stops the worker (it is killed when dropped, too).
    pub async fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let mut pipe = self.pipe.lock().await;
        let _ = pipe.stdin.write_all(b"{\"op\": \"exit\"}\n").await;
        if tokio::time::timeout(Duration::from_secs(5), pipe.child.wait())
            .await
            .is_err()
        {
            let _ = pipe.child.start_kill();
        }
    }
}

/// The library that loads a track of the tool whose words `words` are, and the file of its
/// Python.
pub fn library_of(words: crate::workload::track::model::Words) -> (venv::Library, &'static str) {
    match words {
        crate::workload::track::model::Words::Rally => (venv::ESRALLY, "track.py"),
        crate::workload::track::model::Words::Osb => (venv::OPENSEARCH_BENCHMARK, "workload.py"),
    }
}

/// A task whose parameters the track's Python gives: what it was written as, run as the
/// operation of each set of parameters the worker gives.
#[derive(Debug, Clone)]
pub struct PythonTask {
    pub task: Resolved,
    pub source: String,
    pub definition: Arc<Definition>,
}

impl PartialEq for PythonTask {
    fn eq(&self, other: &Self) -> bool {
        self.task == other.task && self.source == other.source
    }
}

/// A task whose operation type is not one searchbench runs, which the tool runs with a runner
/// of its own or a `track.py` (`workload.py`) beside the track may register one for: run in the
/// worker, each execution that runner with the client's next parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct RunnerTask {
    pub name: String,
    pub operation_type: String,
    /// The tool has a runner of its own for it (else the track's Python must register one).
    pub tools: bool,
    /// The task's clients, which partition its parameters (set as a client asks).
    pub clients: u64,
    /// A scheduler of the track's Python paces it: it hears of each request, in the worker.
    pub scheduled: bool,
}

impl PythonTask {
    /// The operation of parameters `params`, as the track's JSON would have written them.
    pub fn operation_of(&self, params: Value) -> Result<Operation, Failed> {
        let Value::Object(params) = params else {
            return Err(Failed(format!(
                "param-source {}: gave {params}, not an object of parameters",
                self.source
            )));
        };
        let mut task = self.task.clone();
        task.operation.params = params;
        task.operation.params.remove("param-source");
        super::operation::of(&task, &self.definition).map_err(|u| {
            let why = match u {
                Unplanned::NotYet(w) | Unplanned::Missing(w) | Unplanned::Invalid(w) => w,
                Unplanned::Absent(a) => super::plan::Absent::summary(&a),
                Unplanned::Converts(sets) => super::plan::converts_said(&sets),
            };
            Failed(format!("param-source {}: {why}", self.source))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of the worker's stderr is kept to its first 4 KiB and the rest of it read and
    /// dropped (a hook printing 10 MB without a newline is not held), the next lines read as
    /// they are, the last without its newline too.
    /// A runner's answer of a time no clock of its could give (past the wait for it, or
    /// not a number of at least 0) is refused, named, not turned into a panic.
    #[test]
    fn a_runners_time_past_its_wait_is_refused() {
        let ran = |service_secs: f64| Ran {
            weight: 1.0,
            unit: "ops".into(),
            success: true,
            error: None,
            service_secs,
            meta: Default::default(),
        };
        assert!(ran(0.25).checked().is_ok());
        for bad in [1e20, -1.0, f64::NAN, 3_601.0] {
            let e = ran(bad).checked().unwrap_err().to_string();
            assert!(e.contains("the time at most 3600 s"), "{e}");
        }
    }

    #[tokio::test]
    async fn a_long_stderr_line_is_kept_short_and_the_next_read_whole() {
        let mut text = vec![b'a'; 10 << 20];
        text.extend(b"\nb\r\nc");
        let mut from = BufReader::new(text.as_slice());
        let first = stderr_line(&mut from).await.unwrap();
        assert_eq!(first.len(), STDERR_LINE);
        assert_eq!(stderr_line(&mut from).await.as_deref(), Some("b"));
        assert_eq!(stderr_line(&mut from).await.as_deref(), Some("c"));
        assert_eq!(stderr_line(&mut from).await, None);
    }
}

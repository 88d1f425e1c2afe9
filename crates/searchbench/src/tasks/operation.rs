//! The operation types of Rally tracks and opensearch-benchmark workloads that searchbench
//! runs, each as the requests the tools' runners send for it, with the same parameters and
//! defaults: an index operation without `index` acts on the track's indices, `only-if-exists`
//! is on unless turned off, `request-params` go on the query string, `retry-until-success`
//! (with a `condition` on the answer) repeats until it holds. The bulk operation is not here:
//! it is the project's own driver.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Map, Value};

use super::plan::Unplanned;
use crate::cluster::{Product, Target, TargetError};
use crate::workload::track::model::Resolved;
use crate::workload::track::Definition;

/// What a point-in-time task meets on a product without one (the sketch store).
fn no_pit(product: Product) -> String {
    format!("the engine ({product}) has no point in time")
}

/// What every task of one run shares: the cluster, and what one task leaves for another.
pub struct Context {
    pub target: Target,
    pub product: Product,
    /// The engine's version, as it says it.
    pub version: String,
    /// Point-in-time ids by the name of the task that opened them.
    pub pits: Mutex<BTreeMap<String, String>>,
    /// The worker that gives the tasks the track's Python gives parameters to.
    pub worker: Option<std::sync::Arc<super::python::Worker>>,
}

impl Context {
    pub fn new(target: Target, product: Product, version: String) -> Self {
        Context {
            target,
            product,
            version,
            pits: Mutex::new(BTreeMap::new()),
            worker: None,
        }
    }

    /// With the worker of the track's Python.
    pub fn with_worker(mut self, worker: Option<std::sync::Arc<super::python::Worker>>) -> Self {
        self.worker = worker;
        self
    }
}

/// One operation of a task, ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub kind: Kind,
    /// Repeat until the operation succeeds (and its condition holds).
    pub retry_until_success: bool,
    /// `path` in the answer must equal `expected` (with `retry-until-success`).
    pub condition: Option<(String, Value)>,
    /// How long `retry-until-success` and `wait-for-recovery` keep asking: [`GIVE_UP`], or
    /// [`TEST_MODE_GIVE_UP`] in test mode.
    pub give_up: Duration,
    /// Each request's timeout (`request-timeout`, s), else the target's.
    pub timeout: Option<Duration>,
}

/// The requests of each operation type.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `PUT /{index}` for each (name, body).
    CreateIndex {
        indices: Vec<(String, Value)>,
        query: String,
    },
    /// `DELETE /{index}` for each; a missing one is fine when `only_if_exists`.
    DeleteIndex {
        indices: Vec<String>,
        only_if_exists: bool,
        query: String,
    },
    CreateDataStream {
        names: Vec<String>,
    },
    DeleteDataStream {
        names: Vec<String>,
        only_if_exists: bool,
    },
    /// `PUT /{api}/{name}` for each: `_index_template`, `_component_template`, `_template`.
    PutTemplates {
        api: &'static str,
        templates: Vec<(String, Value)>,
    },
    /// `DELETE /{api}/{name}`, then the indices its pattern matches when asked.
    DeleteTemplates {
        api: &'static str,
        templates: Vec<(String, Option<String>)>,
        only_if_exists: bool,
    },
    PutPipeline {
        id: String,
        body: Value,
    },
    /// `GET /_cluster/health[/{index}]`; succeeds when the status is at least `expected`.
    ClusterHealth {
        path: String,
        expected: String,
    },
    /// A force-merge in `mode: polling`: asked not to wait, then its task polled every
    /// `poll` until it completes.
    PolledMerge {
        path: String,
        poll: Duration,
    },
    /// A request whose answer is not looked at beyond its status: refresh, force-merge,
    /// index-stats, node-stats, put-settings, raw-request.
    Request {
        method: Method,
        path: String,
        body: Option<Value>,
        ignore_status: Vec<u16>,
    },
    /// `POST /{index}/_search`, `pages` pages of `size` hits (search_after on the sort, or
    /// the point in time another task opened).
    Search {
        path: String,
        body: Value,
        pages: Option<u64>,
        pit_from: Option<String>,
    },
    /// A scroll: the first page, then `pages - 1` more.
    Scroll {
        path: String,
        body: Value,
        pages: u64,
        size: u64,
    },
    OpenPit {
        index: String,
        keep_alive: String,
        name: String,
    },
    ClosePit {
        from: String,
    },
    Sleep {
        seconds: f64,
    },
    /// Waits until no shard of `index` is recovering.
    WaitForRecovery {
        index: String,
    },
    /// opensearch-benchmark's vector operations, on a data set laid down locally.
    Vectors(super::vector_ops::VectorOp),
    /// ES|QL and SQL, as Rally's runners send them.
    Language(super::languages::LanguageOp),
    /// A transform stopped at its checkpoint and waited for.
    WaitForTransform(super::transforms::WaitForTransform),
    /// A bulk whose body the track's Python gives (see [`super::bulk_body`]).
    BodyBulk(super::bulk_body::BodyBulk),
    /// An operation whose parameters the track's Python gives, each execution its own.
    Python(Box<super::python::PythonTask>),
    /// An operation type searchbench does not run, run in the worker by the runner the
    /// track's Python registers for it or the tool's own.
    Runner(super::python::RunnerTask),
}

/// What one execution did: units of work (pages, documents), and a vector search's recall.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Done {
    pub units: u64,
    pub recall: Option<super::vector_ops::Recall>,
    /// Its service time as the runner that sent it timed it (a runner in the worker: the
    /// tool's request context), rather than around the call.
    pub service: Option<Duration>,
    /// Nothing was sent: its parameters are used up (a runner's param source ended).
    pub ended: bool,
    /// What its units are when a runner in the worker weighed them (Rally's `unit`: `docs`,
    /// `ops`, …); `None`: the operation type's own.
    pub unit: Option<String>,
}

/// Task `r`'s runner, run once in the worker for client `client`: its weight as the units,
/// its service time as the tool timed it, what else it returned as the answer (which a
/// `condition` reads); a runner that says it failed is a failed execution with its error.
async fn run_in_worker(
    ctx: &Context,
    r: &super::python::RunnerTask,
    client: usize,
) -> Result<(Done, Value), Failed> {
    let worker = ctx
        .worker
        .as_ref()
        .ok_or_else(|| Failed("no Python worker runs for this track".into()))?;
    let ran = worker
        .run(
            (&ctx.target, &ctx.version),
            &r.name,
            client,
            r.clients.max(1),
            r.scheduled,
        )
        .await
        .map_err(|e| Failed(format!("runner {}: {e}", r.operation_type)))?;
    let Some(ran) = ran else {
        let ended = Done {
            ended: true,
            ..Done::default()
        };
        return Ok((ended, Value::Null));
    };
    if !ran.success {
        return Err(Failed(format!(
            "runner {}: {}",
            r.operation_type,
            ran.error.as_deref().unwrap_or("it says it failed")
        )));
    }
    let done = Done {
        units: ran.weight.round() as u64,
        recall: None,
        service: Duration::try_from_secs_f64(ran.service_secs).ok(),
        ended: false,
        unit: Some(ran.unit),
    };
    Ok((done, Value::Object(ran.meta)))
}

/// Why an execution failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Failed(pub String);

impl From<TargetError> for Failed {
    fn from(e: TargetError) -> Self {
        Failed(e.to_string())
    }
}

/// The operation types the tracks' tasks may have that run here (the bulk, the vector
/// operations and the transforms' aside: `super::transforms::RUNS`).
pub const RUNS: [&str; 29] = [
    "create-index",
    "delete-index",
    "create-data-stream",
    "delete-data-stream",
    "create-composable-template",
    "delete-composable-template",
    "create-component-template",
    "delete-component-template",
    "create-index-template",
    "delete-index-template",
    "put-pipeline",
    "delete-pipeline",
    "create-search-pipeline",
    "cluster-health",
    "refresh",
    "force-merge",
    "index-stats",
    "node-stats",
    "put-settings",
    "raw-request",
    "search",
    "paginated-search",
    "scroll-search",
    "open-point-in-time",
    "close-point-in-time",
    "sleep",
    "wait-for-recovery",
    "esql",
    "sql",
];

/// The operation of task `t` of track `d`, or why it does not run here.
pub fn of(t: &Resolved, d: &Definition) -> Result<Operation, Unplanned> {
    let p = &t.operation.params;
    let track = &d.track;
    let query = request_params(p)?;
    let str_of = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    let flag = |k: &str, default: bool| p.get(k).and_then(Value::as_bool).unwrap_or(default);
    // An index operation without `index` acts on the track's indices (or data streams).
    let indices: Vec<String> = match str_of("index") {
        Some(i) => i.split(',').map(str::to_string).collect(),
        None if !track.indices.is_empty() => track.indices.iter().map(|i| i.name.clone()).collect(),
        None => track.data_streams.iter().map(|s| s.name.clone()).collect(),
    };
    let joined = if indices.is_empty() {
        "_all".to_string()
    } else {
        indices.join(",")
    };
    let streams: Vec<String> = match str_of("data-stream") {
        Some(s) => vec![s],
        None => track.data_streams.iter().map(|s| s.name.clone()).collect(),
    };
    let kind = match t.operation_type.as_str() {
        "create-index" => {
            let settings = p.get("settings").and_then(Value::as_object);
            let chosen = str_of("index");
            let mut out = Vec::new();
            for i in &track.indices {
                if chosen
                    .as_ref()
                    .is_some_and(|c| !c.split(',').any(|n| n == i.name))
                {
                    continue;
                }
                let mut body = d.index_bodies.get(&i.name).cloned().unwrap_or(json!({}));
                if let Some(s) = settings {
                    merge_settings(&mut body, s);
                }
                out.push((i.name.clone(), body));
            }
            if out.is_empty() {
                if let Some(c) = chosen {
                    out.push((c, json!({})));
                }
            }
            Kind::CreateIndex {
                indices: out,
                query,
            }
        }
        "delete-index" => Kind::DeleteIndex {
            indices,
            only_if_exists: flag("only-if-exists", true),
            query,
        },
        "create-data-stream" => Kind::CreateDataStream { names: streams },
        "delete-data-stream" => Kind::DeleteDataStream {
            names: streams,
            only_if_exists: flag("only-if-exists", true),
        },
        "create-composable-template" | "create-component-template" | "create-index-template" => {
            let (api, list, bodies) = match t.operation_type.as_str() {
                "create-composable-template" => (
                    "_index_template",
                    track
                        .composable_templates
                        .iter()
                        .map(|t| t.name.clone())
                        .collect::<Vec<_>>(),
                    &d.composable_templates,
                ),
                "create-component-template" => (
                    "_component_template",
                    track
                        .component_templates
                        .iter()
                        .map(|t| t.name.clone())
                        .collect(),
                    &d.component_templates,
                ),
                _ => (
                    "_template",
                    track.templates.iter().map(|t| t.name.clone()).collect(),
                    &d.templates,
                ),
            };
            let templates = match (str_of("template"), p.get("body")) {
                (Some(name), Some(body)) => vec![(name, body.clone())],
                (chosen, _) => list
                    .into_iter()
                    .filter(|n| chosen.as_ref().is_none_or(|c| c == n))
                    .map(|n| {
                        let mut body = bodies.get(&n).cloned().unwrap_or(json!({}));
                        if let Some(s) = p.get("settings").and_then(Value::as_object) {
                            // A composable or component template holds its settings one level
                            // down, under `template`.
                            match body.as_object_mut() {
                                Some(b) if api != "_template" => {
                                    merge_settings(b.entry("template").or_insert(json!({})), s)
                                }
                                _ => merge_settings(&mut body, s),
                            }
                        }
                        (n, body)
                    })
                    .collect(),
            };
            Kind::PutTemplates { api, templates }
        }
        "delete-composable-template" | "delete-component-template" | "delete-index-template" => {
            let (api, list): (&'static str, Vec<(String, Option<String>)>) =
                match t.operation_type.as_str() {
                    "delete-composable-template" => (
                        "_index_template",
                        track
                            .composable_templates
                            .iter()
                            .map(|t| {
                                (
                                    t.name.clone(),
                                    deleting(t.delete_matching_indices, &t.index_pattern),
                                )
                            })
                            .collect(),
                    ),
                    "delete-component-template" => (
                        "_component_template",
                        track
                            .component_templates
                            .iter()
                            .map(|t| (t.name.clone(), None))
                            .collect(),
                    ),
                    _ => (
                        "_template",
                        track
                            .templates
                            .iter()
                            .map(|t| {
                                (
                                    t.name.clone(),
                                    deleting(t.delete_matching_indices, &t.index_pattern),
                                )
                            })
                            .collect(),
                    ),
                };
            let templates = match str_of("template") {
                Some(name) => {
                    let pattern =
                        str_of("index-pattern").filter(|_| flag("delete-matching-indices", false));
                    vec![(name, pattern)]
                }
                None => list,
            };
            Kind::DeleteTemplates {
                api,
                templates,
                only_if_exists: flag("only-if-exists", true),
            }
        }
        "put-pipeline" => Kind::PutPipeline {
            id: path_id("put-pipeline", str_of("id"))?,
            body: p
                .get("body")
                .cloned()
                .ok_or("put-pipeline needs its body")?,
        },
        // opensearch-benchmark's: a pipeline that is not there is fine.
        "delete-pipeline" => {
            let id = path_id("delete-pipeline", str_of("id"))?;
            let mut q = Map::new();
            for (k, to) in [("master-timeout", "master_timeout"), ("timeout", "timeout")] {
                if let Some(v) = p.get(k) {
                    q.insert(to.into(), v.clone());
                }
            }
            Kind::Request {
                method: Method::DELETE,
                path: format!("/_ingest/pipeline/{id}{}", query_string(&q)?),
                body: None,
                ignore_status: vec![404],
            }
        }
        // opensearch-benchmark's: OpenSearch's search pipelines.
        "create-search-pipeline" => Kind::Request {
            method: Method::PUT,
            path: format!(
                "/_search/pipeline/{}",
                path_id("create-search-pipeline", str_of("id"))?
            ),
            body: Some(
                p.get("body")
                    .cloned()
                    .ok_or("create-search-pipeline needs its body")?,
            ),
            ignore_status: Vec::new(),
        },
        k if super::transforms::RUNS.contains(&k) => super::transforms::of(k, p)?,
        "esql" => Kind::Language(super::languages::esql(p, &query)?),
        // Only a bulk whose parameters the track's Python gives comes here: one of a corpus
        // is the driver's ([`super::plan`]).
        "bulk" => Kind::BodyBulk(super::bulk_body::of(p, &query)?),
        "sql" => Kind::Language(super::languages::sql(p)?),
        "cluster-health" => {
            let expected = p
                .get("request-params")
                .and_then(|r| r.get("wait_for_status"))
                .and_then(Value::as_str)
                .unwrap_or("green")
                .to_string();
            let at = str_of("index").map(|i| format!("/{i}")).unwrap_or_default();
            Kind::ClusterHealth {
                path: format!("/_cluster/health{at}{query}"),
                expected,
            }
        }
        "refresh" => request(
            Method::POST,
            format!(
                "/{}/_refresh{query}",
                str_of("index").unwrap_or("_all".into())
            ),
        ),
        "force-merge" => {
            let mut q = p
                .get("request-params")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if let Some(n) = p.get("max-num-segments") {
                q.insert("max_num_segments".into(), n.clone());
            }
            let index = str_of("index").unwrap_or("_all".into());
            if str_of("mode").as_deref() == Some("polling") {
                q.insert("wait_for_completion".into(), "false".into());
                let poll = match p.get("poll-period") {
                    None => POLL_MERGE,
                    Some(v) => v
                        .as_f64()
                        .filter(|s| (0.01..=3600.0).contains(s))
                        .map(Duration::from_secs_f64)
                        .ok_or_else(|| {
                            format!(
                                "poll-period: {} is not 0.01 to 3600 s",
                                crate::shown::Shown(v)
                            )
                        })?,
                };
                Kind::PolledMerge {
                    path: format!("/{index}/_forcemerge{}", query_string(&q)?),
                    poll,
                }
            } else {
                let q = query_string(&q)?;
                request(Method::POST, format!("/{index}/_forcemerge{q}"))
            }
        }
        "index-stats" => request(
            Method::GET,
            format!(
                "/{}/_stats{query}",
                str_of("index").unwrap_or("_all".into())
            ),
        ),
        "node-stats" => request(Method::GET, format!("/_nodes/stats{query}")),
        // Cluster settings, as the track writes them (`persistent` / `transient`).
        "put-settings" => Kind::Request {
            method: Method::PUT,
            path: format!("/_cluster/settings{query}"),
            body: Some(
                p.get("body")
                    .cloned()
                    .ok_or("put-settings needs its body")?,
            ),
            ignore_status: Vec::new(),
        },
        "raw-request" => {
            let method = str_of("method").unwrap_or("GET".into());
            let method = Method::from_bytes(method.to_uppercase().as_bytes())
                .map_err(|_| format!("raw-request: {method:?} is not an HTTP method"))?;
            let path = str_of("path").ok_or("raw-request needs its path")?;
            // Each an HTTP status, or refused by name: 65940 is not 404 (as `as u16` made it),
            // nor is "404" nothing.
            let status = |v: &Value| {
                let code = v.as_u64().filter(|c| (100..=599).contains(c));
                code.and_then(|c| u16::try_from(c).ok()).ok_or_else(|| {
                    let v = crate::shown::Shown(v);
                    format!("raw-request: ignore: {v} is not an HTTP status (100 to 599)")
                })
            };
            let ignore_status = match p.get("ignore") {
                Some(Value::Array(codes)) => codes.iter().map(status).collect::<Result<_, _>>()?,
                Some(Value::Null) | None => Vec::new(),
                Some(v) => vec![status(v)?],
            };
            Kind::Request {
                method,
                path: format!("/{}{query}", path.trim_start_matches('/')),
                body: p.get("body").cloned(),
                ignore_status,
            }
        }
        "search" | "paginated-search" | "scroll-search" => {
            let mut q = p
                .get("request-params")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if let Some(c) = p.get("cache").and_then(Value::as_bool) {
                q.insert("request_cache".into(), c.into());
            }
            let body = p.get("body").cloned().ok_or_else(|| {
                Unplanned::NotYet(
                    "no body written in the operation (a param-source is the track's Python)"
                        .into(),
                )
            })?;
            let pit_from = str_of("with-point-in-time-from");
            let path = match &pit_from {
                Some(_) => format!("/_search{}", query_string(&q)?),
                None => format!("/{joined}/_search{}", query_string(&q)?),
            };
            let pages = p.get("pages").and_then(Value::as_u64);
            let size = p.get("results-per-page").and_then(Value::as_u64);
            let body = match (size, body) {
                (Some(n), Value::Object(mut b)) => {
                    b.insert("size".into(), n.into());
                    Value::Object(b)
                }
                (_, b) => b,
            };
            match (t.operation_type.as_str(), pages) {
                ("scroll-search", _) | ("search", Some(_)) if pit_from.is_none() => Kind::Scroll {
                    path,
                    body,
                    pages: pages.unwrap_or(1).max(1),
                    size: size.unwrap_or(10),
                },
                _ => Kind::Search {
                    path,
                    body,
                    pages,
                    pit_from,
                },
            }
        }
        "open-point-in-time" => Kind::OpenPit {
            index: joined,
            keep_alive: str_of("keep-alive").unwrap_or("1m".into()),
            name: t.name.clone(),
        },
        "close-point-in-time" => Kind::ClosePit {
            from: str_of("with-point-in-time-from")
                .ok_or("close-point-in-time needs with-point-in-time-from")?,
        },
        "sleep" => Kind::Sleep {
            seconds: p
                .get("duration")
                .and_then(Value::as_f64)
                .filter(|s| (0.0..=86_400.0).contains(s))
                .ok_or("sleep needs its duration in seconds (0 to 86400)")?,
        },
        "wait-for-recovery" => Kind::WaitForRecovery { index: joined },
        other => {
            return Err(Unplanned::NotYet(format!(
                "operation type {other} does not run yet"
            )))
        }
    };
    let condition = match p.get("condition") {
        Some(c) => Some((
            c.get("path")
                .and_then(Value::as_str)
                .ok_or("condition needs its path")?
                .to_string(),
            c.get("expected-value")
                .cloned()
                .ok_or("condition needs its expected-value")?,
        )),
        None => None,
    };
    let timeout = match p.get("request-timeout") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|s| *s > 0.0 && *s <= 86_400.0)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| {
                    format!(
                        "request-timeout: {} is not above 0 and at most 86400 s",
                        crate::shown::Shown(v)
                    )
                })?,
        ),
    };
    Ok(Operation {
        kind,
        retry_until_success: flag("retry-until-success", false),
        condition,
        give_up: GIVE_UP,
        timeout,
    })
}

/// An id that goes into a request's path as one segment: one that would make it another
/// request (a `/`, `?`, `#`, `%`, a space, or `.`/`..`) is refused.
pub(super) fn path_id(what: &str, id: Option<String>) -> Result<String, String> {
    let id = id.ok_or_else(|| format!("{what} needs its id"))?;
    let odd = id.is_empty()
        || id == "."
        || id == ".."
        || id
            .chars()
            .any(|c| matches!(c, '/' | '?' | '#' | '%') || c.is_whitespace() || c.is_control());
    if odd {
        return Err(format!(
            "{what}: id {:?} is not one path segment (no /, ?, #, %, spaces, . or ..)",
            crate::shown::Shown(id.as_str()).to_string()
        ));
    }
    Ok(id)
}

fn request(method: Method, path: String) -> Kind {
    Kind::Request {
        method,
        path,
        body: None,
        ignore_status: Vec::new(),
    }
}

/// The indices a template's deletion removes too (Rally's `delete-matching-indices`, on
/// unless turned off).
fn deleting(delete: Option<bool>, pattern: &str) -> Option<String> {
    delete.unwrap_or(true).then(|| pattern.to_string())
}

/// `settings` laid over the body's own settings, as the tools do for `create-index`.
fn merge_settings(body: &mut Value, settings: &Map<String, Value>) {
    if let Value::Object(b) = body {
        let into = b.entry("settings").or_insert(json!({}));
        if let Value::Object(into) = into {
            for (k, v) in settings {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

/// `request-params` as a query string (`?k=v&…`), or empty.
fn request_params(p: &Map<String, Value>) -> Result<String, String> {
    match p.get("request-params") {
        None => Ok(String::new()),
        Some(Value::Object(m)) => query_string(m),
        Some(other) => Err(format!("request-params: {other} is not an object")),
    }
}

/// `m` as a query string (`?k=v&…`), or empty; a value that is no string, number or
/// boolean is refused.
pub(super) fn query_string(m: &Map<String, Value>) -> Result<String, String> {
    if m.is_empty() {
        return Ok(String::new());
    }
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in m {
        let v = match v {
            Value::String(s) => s.clone(),
            Value::Number(_) | Value::Bool(_) => v.to_string(),
            other => {
                return Err(format!(
                    "request-params.{k}: {other} is not a string, number or boolean"
                ))
            }
        };
        q.append_pair(k, &v);
    }
    Ok(format!("?{}", q.finish()))
}

fn body_of(v: &Value) -> Option<(&'static str, Vec<u8>)> {
    Some(("application/json", serde_json::to_vec(v).ok()?))
}

/// How often a retried operation, or a wait, asks again.
const POLL: Duration = Duration::from_millis(250);
/// How often a polled force-merge's task is asked after, unless the track says
/// (`poll-period`).
const POLL_MERGE: Duration = Duration::from_secs(1);
/// How long `retry-until-success` and `wait-for-recovery` keep asking (the tools ask for
/// ever; a run that never ends helps nobody).
pub const GIVE_UP: Duration = Duration::from_secs(900);

/// [`GIVE_UP`] in test mode, which cuts every time period to seconds: a step that waits for
/// what an earlier step failed to make (a cluster health of an index the engine refused)
/// must not hold the check of a track for a quarter of an hour.
pub const TEST_MODE_GIVE_UP: Duration = Duration::from_secs(10);

impl Operation {
    /// A vector operation of opensearch-benchmark, as it runs: never retried as a whole (a
    /// bulk sends its refused documents again itself, a warm-up asks again itself).
    pub fn of_vectors(op: super::vector_ops::VectorOp) -> Operation {
        Operation {
            kind: Kind::Vectors(op),
            retry_until_success: false,
            condition: None,
            give_up: GIVE_UP,
            timeout: None,
        }
    }

    /// Task `t`'s operation, each execution of it the operation of the parameters the
    /// track's Python gives next.
    pub fn python(t: super::python::PythonTask) -> Operation {
        Operation {
            kind: Kind::Python(Box::new(t)),
            retry_until_success: false,
            condition: None,
            give_up: GIVE_UP,
            timeout: None,
        }
    }

    /// Task `name`'s operation of type `operation_type`, run in the worker by a runner of the
    /// track's Python or, when `tools`, of the tool.
    pub fn runner(name: &str, operation_type: &str, tools: bool) -> Operation {
        Operation {
            kind: Kind::Runner(super::python::RunnerTask {
                name: name.to_string(),
                operation_type: operation_type.to_string(),
                tools,
                clients: 0,
                scheduled: false,
            }),
            retry_until_success: false,
            condition: None,
            give_up: GIVE_UP,
            timeout: None,
        }
    }

    /// Whether the operation runs until its data is used up (a vector data set, a param
    /// source of the track's Python that ends) rather than for its iterations.
    pub fn finite(&self, ctx: Option<&Context>) -> bool {
        let ends = |name: &str| {
            ctx.and_then(|c| c.worker.as_ref())
                .is_some_and(|w| !w.infinite(name))
        };
        match &self.kind {
            Kind::Vectors(op) => op.finite(),
            Kind::Python(p) => ends(&p.task.name),
            Kind::Runner(r) => ends(&r.name),
            _ => false,
        }
    }

    /// What client `client` (of `clients`) sends next: this operation, or the operation of the
    /// next parameters the track's Python gives (`None` once they are used up). Made before
    /// the send is timed, as the tools make a task's parameters.
    pub async fn next(
        &self,
        ctx: &Context,
        client: usize,
        clients: u64,
    ) -> Result<Option<std::borrow::Cow<'_, Operation>>, Failed> {
        let p = match &self.kind {
            Kind::Python(p) => p,
            // The worker takes the client's next parameters as it runs the runner: the
            // operation only learns the task's clients, which partition them.
            Kind::Runner(r) => {
                let mut op = self.clone();
                op.kind = Kind::Runner(super::python::RunnerTask {
                    clients,
                    ..r.clone()
                });
                return Ok(Some(std::borrow::Cow::Owned(op)));
            }
            _ => return Ok(Some(std::borrow::Cow::Borrowed(self))),
        };
        let worker = ctx
            .worker
            .as_ref()
            .ok_or_else(|| Failed("no Python worker runs for this track".into()))?;
        let given = worker
            .next(&p.task.name, client, clients)
            .await
            .map_err(|e| Failed(e.to_string()))?;
        given.map(|params| self.with_params(params)).transpose()
    }

    /// The operation of parameters `params` the track's Python gave: what its task would send
    /// had it written them (no other operation takes parameters).
    pub fn with_params(&self, params: Value) -> Result<std::borrow::Cow<'_, Operation>, Failed> {
        let Kind::Python(p) = &self.kind else {
            return Err(Failed("parameters given to a task that takes none".into()));
        };
        let mut op = p.operation_of(params)?;
        op.give_up = op.give_up.min(self.give_up);
        Ok(std::borrow::Cow::Owned(op))
    }

    /// Whether client `client` has used up its share of the operation's data.
    pub fn exhausted(&self, client: usize) -> bool {
        matches!(&self.kind, Kind::Vectors(op) if op.exhausted(client))
    }

    /// Back to the start of its data, before a task runs.
    pub fn begin(&self) {
        if let Kind::Vectors(op) = &self.kind {
            op.begin();
        }
    }

    /// Runs the operation once (or, retried, until it succeeds), from client `client`.
    pub async fn run(&self, ctx: &Context, client: usize) -> Result<Done, Failed> {
        let began = std::time::Instant::now();
        loop {
            let outcome = self.once(ctx, client).await;
            match outcome {
                Ok((done, answer)) => {
                    let holds = self.condition.as_ref().is_none_or(|(path, expected)| {
                        let got = path.split('.').try_fold(&answer, |v, k| v.get(k));
                        got.is_some_and(|g| same(g, expected))
                    });
                    if holds {
                        return Ok(done);
                    }
                    if !self.retry_until_success {
                        let (path, expected) = self
                            .condition
                            .as_ref()
                            .map(|(p, e)| (p.as_str(), e.to_string()))
                            .unwrap_or_default();
                        return Err(Failed(format!("{path} is not {expected}")));
                    }
                }
                Err(e) if !self.retry_until_success => return Err(e),
                Err(e) if began.elapsed() >= self.give_up => {
                    return Err(Failed(format!(
                        "still failing after {:?}: {e}",
                        self.give_up
                    )))
                }
                Err(_) => {}
            }
            if began.elapsed() >= self.give_up {
                let (path, expected) = self.condition.clone().unwrap_or_default();
                return Err(Failed(format!(
                    "{path} still not {expected} after {:?}",
                    self.give_up
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// One execution: what it did and the (last) answer, as JSON when it is.
    async fn once(&self, ctx: &Context, client: usize) -> Result<(Done, Value), Failed> {
        let longer;
        let t = match self.timeout {
            Some(d) => {
                longer = ctx.target.with_timeout(d);
                &longer
            }
            None => &ctx.target,
        };
        let one = Done {
            units: 1,
            ..Done::default()
        };
        match &self.kind {
            Kind::CreateIndex { indices, query } => {
                for (name, body) in indices {
                    t.send_at(
                        client,
                        Method::PUT,
                        &format!("/{name}{query}"),
                        body_of(body),
                    )
                    .await?;
                }
                Ok((one, Value::Null))
            }
            Kind::DeleteIndex {
                indices,
                only_if_exists,
                query,
            } => {
                for name in indices {
                    let sent = t
                        .send_at(client, Method::DELETE, &format!("/{name}{query}"), None)
                        .await;
                    missing_is_fine(sent, *only_if_exists)?;
                }
                Ok((one, Value::Null))
            }
            Kind::CreateDataStream { names } => {
                for name in names {
                    t.send_at(client, Method::PUT, &format!("/_data_stream/{name}"), None)
                        .await?;
                }
                Ok((one, Value::Null))
            }
            Kind::DeleteDataStream {
                names,
                only_if_exists,
            } => {
                for name in names {
                    let sent = t
                        .send_at(
                            client,
                            Method::DELETE,
                            &format!("/_data_stream/{name}"),
                            None,
                        )
                        .await;
                    missing_is_fine(sent, *only_if_exists)?;
                }
                Ok((one, Value::Null))
            }
            Kind::PutTemplates { api, templates } => {
                for (name, body) in templates {
                    t.send_at(
                        client,
                        Method::PUT,
                        &format!("/{api}/{name}"),
                        body_of(body),
                    )
                    .await?;
                }
                Ok((one, Value::Null))
            }
            Kind::DeleteTemplates {
                api,
                templates,
                only_if_exists,
            } => {
                for (name, pattern) in templates {
                    let sent = t
                        .send_at(client, Method::DELETE, &format!("/{api}/{name}"), None)
                        .await;
                    missing_is_fine(sent, *only_if_exists)?;
                    if let Some(p) = pattern {
                        let sent = t
                            .send_at(client, Method::DELETE, &format!("/{p}"), None)
                            .await;
                        missing_is_fine(sent, true)?;
                    }
                }
                Ok((one, Value::Null))
            }
            Kind::PutPipeline { id, body } => {
                t.send_at(
                    client,
                    Method::PUT,
                    &format!("/_ingest/pipeline/{id}"),
                    body_of(body),
                )
                .await?;
                Ok((one, Value::Null))
            }
            Kind::ClusterHealth { path, expected } => {
                let answer = json_of(t.send_at(client, Method::GET, path, None).await?);
                let status = answer["status"].as_str().unwrap_or("red");
                if rank(status) >= rank(expected) && answer["timed_out"] != true {
                    Ok((one, answer))
                } else {
                    Err(Failed(format!(
                        "cluster health is {status}, not {expected}"
                    )))
                }
            }
            Kind::Request {
                method,
                path,
                body,
                ignore_status,
            } => {
                let sent = t
                    .send_at(
                        client,
                        method.clone(),
                        path,
                        body.as_ref().and_then(body_of),
                    )
                    .await;
                match sent {
                    Ok(reply) => Ok((one, json_of(reply))),
                    Err(TargetError::Status { status, .. }) if ignore_status.contains(&status) => {
                        Ok((one, Value::Null))
                    }
                    Err(e) => Err(e.into()),
                }
            }
            Kind::Search {
                path,
                body,
                pages,
                pit_from,
            } => {
                let mut body = body.clone();
                if let Some(from) = pit_from {
                    let id = ctx
                        .pits
                        .lock()
                        .map_err(|_| Failed("point in time lost".into()))?
                        .get(from)
                        .cloned();
                    let id = id.ok_or_else(|| {
                        Failed(format!("no point in time opened by task {from:?}"))
                    })?;
                    body["pit"] = json!({"id": id, "keep_alive": "1m"});
                }
                let mut done = 0;
                let mut answer = Value::Null;
                for _ in 0..pages.unwrap_or(1) {
                    answer = json_of(
                        t.send_at(client, Method::POST, path, body_of(&body))
                            .await?,
                    );
                    done += 1;
                    let hits = answer["hits"]["hits"].as_array();
                    let last_sort = hits.and_then(|h| h.last()).map(|h| h["sort"].clone());
                    match last_sort {
                        Some(sort) if pages.is_some() && sort.is_array() => {
                            body["search_after"] = sort
                        }
                        _ => break,
                    }
                }
                Ok((
                    Done {
                        units: done,
                        ..Done::default()
                    },
                    answer,
                ))
            }
            Kind::Scroll {
                path,
                body,
                pages,
                size: _,
            } => {
                let sep = if path.contains('?') { '&' } else { '?' };
                let first = format!("{path}{sep}scroll=1m");
                let mut answer = json_of(
                    t.send_at(client, Method::POST, &first, body_of(body))
                        .await?,
                );
                let mut done = 1;
                let mut scroll_id = answer["_scroll_id"].as_str().map(str::to_string);
                while done < *pages {
                    let Some(id) = scroll_id.clone() else { break };
                    if answer["hits"]["hits"].as_array().is_none_or(Vec::is_empty) {
                        break;
                    }
                    let next = json!({"scroll": "1m", "scroll_id": id});
                    answer = json_of(
                        t.send_at(client, Method::POST, "/_search/scroll", body_of(&next))
                            .await?,
                    );
                    scroll_id = answer["_scroll_id"].as_str().map(str::to_string);
                    done += 1;
                }
                if let Some(id) = scroll_id {
                    let _ = t
                        .send_at(
                            client,
                            Method::DELETE,
                            "/_search/scroll",
                            body_of(&json!({"scroll_id": id})),
                        )
                        .await;
                }
                Ok((
                    Done {
                        units: done,
                        ..Done::default()
                    },
                    answer,
                ))
            }
            Kind::OpenPit {
                index,
                keep_alive,
                name,
            } => {
                let pit = ctx.product.traits().pit.as_ref();
                let pit = pit.ok_or_else(|| Failed(no_pit(ctx.product)))?;
                let path = format!("/{index}{}?keep_alive={keep_alive}", pit.open);
                let answer = json_of(t.send_at(client, Method::POST, &path, None).await?);
                let id = answer["id"]
                    .as_str()
                    .or(answer["pit_id"].as_str())
                    .ok_or_else(|| Failed("the answer holds no point-in-time id".into()))?;
                ctx.pits
                    .lock()
                    .map_err(|_| Failed("point in time lost".into()))?
                    .insert(name.clone(), id.to_string());
                Ok((one, answer))
            }
            Kind::ClosePit { from } => {
                let id = ctx
                    .pits
                    .lock()
                    .map_err(|_| Failed("point in time lost".into()))?
                    .remove(from);
                let id =
                    id.ok_or_else(|| Failed(format!("no point in time opened by task {from:?}")))?;
                let pit = ctx.product.traits().pit.as_ref();
                let pit = pit.ok_or_else(|| Failed(no_pit(ctx.product)))?;
                let body = (pit.close_body)(&id);
                t.send_at(client, Method::DELETE, pit.close, body_of(&body))
                    .await?;
                Ok((one, Value::Null))
            }
            Kind::Sleep { seconds } => {
                tokio::time::sleep(Duration::from_secs_f64(*seconds)).await;
                Ok((one, Value::Null))
            }
            Kind::Vectors(op) => op.once(ctx, client, self.give_up).await,
            Kind::Language(op) => op.once(t, client).await,
            Kind::BodyBulk(b) => b.once(t, client).await,
            Kind::WaitForTransform(w) => w.once(t, client).await,
            // Made into the operation of its parameters before it is sent ([`Self::next`]).
            Kind::Python(p) => Err(Failed(format!(
                "param-source {}: sent without its parameters",
                p.source
            ))),
            Kind::Runner(r) => run_in_worker(ctx, r, client).await,
            Kind::PolledMerge { path, poll } => {
                let answer = json_of(t.send_at(client, Method::POST, path, None).await?);
                let task = answer["task"]
                    .as_str()
                    .ok_or_else(|| Failed(format!("the answer holds no task: {answer}")))?;
                // As long as the merge may take: the request's timeout when the track gives
                // one (opensearch-benchmark's vectorsearch gives two hours), else GIVE_UP.
                let limit = self.timeout.unwrap_or(GIVE_UP);
                let began = std::time::Instant::now();
                loop {
                    let status = json_of(
                        t.send_at(client, Method::GET, &format!("/_tasks/{task}"), None)
                            .await?,
                    );
                    match status["completed"].as_bool() {
                        Some(true) => {
                            if let Some(e) = status.get("error") {
                                return Err(Failed(format!("the force-merge failed: {e}")));
                            }
                            return Ok((one, status));
                        }
                        Some(false) => {}
                        None => {
                            return Err(Failed(format!(
                                "task {task}: the answer says nothing of its completion"
                            )))
                        }
                    }
                    if began.elapsed() >= limit {
                        return Err(Failed(format!(
                            "force-merge task {task} still running after {limit:?}"
                        )));
                    }
                    tokio::time::sleep(*poll).await;
                }
            }
            Kind::WaitForRecovery { index } => {
                let path = format!("/_cat/recovery/{index}?active_only=true&format=json");
                let began = std::time::Instant::now();
                loop {
                    let answer = json_of(t.send_at(client, Method::GET, &path, None).await?);
                    if answer.as_array().is_none_or(Vec::is_empty) {
                        return Ok((one, answer));
                    }
                    if began.elapsed() >= self.give_up {
                        return Err(Failed(format!(
                            "{index} still recovering after {:?}",
                            self.give_up
                        )));
                    }
                    tokio::time::sleep(POLL).await;
                }
            }
        }
    }
}

/// A 404 is no error when the thing need only be gone.
fn missing_is_fine(
    sent: Result<crate::cluster::Reply, TargetError>,
    only_if_exists: bool,
) -> Result<(), Failed> {
    match sent {
        Ok(_) => Ok(()),
        Err(TargetError::Status { status: 404, .. }) if only_if_exists => Ok(()),
        Err(e) => Err(e.into()),
    }
}

fn json_of(reply: crate::cluster::Reply) -> Value {
    serde_json::from_slice(&reply.body).unwrap_or(Value::Null)
}

/// green > yellow > red.
fn rank(status: &str) -> u8 {
    match status {
        "green" => 2,
        "yellow" => 1,
        _ => 0,
    }
}

/// Equal as the tools compare an answer with a condition: numbers by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

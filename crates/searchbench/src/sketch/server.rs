//! The sketch store over HTTP, on 127.0.0.1: what a run's driver talks to, as it talks to an
//! engine. JSON in, JSON out, one store behind every connection:
//!
//! - `POST /insert`, a [`Batch`] → `{"inserted": N}` (a bad batch: 400 and why, nothing kept);
//! - `POST /query`, `{"epoch": E, "node": "N001"}` → an [`Answer`] (404 when it has no rows);
//! - `POST /coverage`, `{"epoch": E, "nodes": [...]}` → one answer (or `null`) per node;
//! - `GET /` → `{"name", "cluster_name", "version": {"number", "distribution":
//!   "searchbench-sketch"}, "rows", "memory_bytes", "insert_time_us"}`: the product and version
//!   where an engine says them, the rows and sketch memory held, and the server's own time in
//!   inserts so far (reading the body, parsing, updating the sketches): what a load reads before
//!   and after, as it reads an engine's `_stats`;
//! - `GET /_cluster/health` → green with one node, so that a start waits for it as for a node.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::json;

use super::{Batch, SketchStore};

/// What `GET /` names as its distribution: how a client knows it talks to the sketch store.
pub const DISTRIBUTION: &str = "searchbench-sketch";

/// The largest request body taken (a batch of 1,000 rows is about 60 KB; parsed, a body takes
/// some fifteen times its size).
pub const MAX_BODY: usize = 16 << 20;

/// The most nodes one coverage request asks for (an answer each, made under the store's lock).
pub const MAX_NODES: usize = 100_000;

/// The most connections served at once: a load's clients (1,024 at most) and a few more. Past
/// it, a new connection waits to be accepted.
pub const MAX_CONNECTIONS: usize = 1_100;

/// How long a request's head, or its body, may take to arrive; a connection idle as long is
/// closed. The driver's pool lets an idle connection go after a minute, so a live one never
/// meets it: a client that sends a byte a minute does.
pub const SLOWEST: std::time::Duration = std::time::Duration::from_secs(300);

/// A running server: its URL and the task that accepts connections (aborted when dropped).
pub struct Server {
    pub url: String,
    accept: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Serves a fresh store on `addr` (port 0: any free port) until the [`Server`] is dropped.
pub async fn serve(addr: SocketAddr) -> std::io::Result<Server> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let url = format!("http://{}", listener.local_addr()?);
    let state = Arc::new(State::default());
    let open = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let accept = tokio::spawn(async move {
        loop {
            let Ok(permit) = open.clone().acquire_owned().await else {
                return;
            };
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                // Out of descriptors, or a connection reset before it was taken: the store
                // serves on once the moment passes, never stops accepting.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            };
            let state = state.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| handle(req, state.clone()));
                let _ = http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(SLOWEST)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                drop(permit);
            });
        }
    });
    Ok(Server { url, accept })
}

/// What every connection shares: the store, and the time spent in inserts.
#[derive(Default)]
struct State {
    store: Mutex<SketchStore>,
    insert_us: AtomicU64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct One {
    epoch: u64,
    node: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Coverage {
    epoch: u64,
    nodes: Vec<String>,
}

async fn handle(
    req: Request<Incoming>,
    state: Arc<State>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let store = &state.store;
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let answer = match (&method, path.as_str()) {
        (&Method::GET, "/") => {
            let (rows, memory) = {
                let store = lock(store);
                (store.rows(), store.memory_bytes())
            };
            Ok(json!({
                "name": DISTRIBUTION,
                "cluster_name": DISTRIBUTION,
                "version": {"number": env!("CARGO_PKG_VERSION"), "distribution": DISTRIBUTION},
                "rows": rows,
                "memory_bytes": memory,
                "insert_time_us": state.insert_us.load(Relaxed),
            }))
        }
        (&Method::GET, "/_cluster/health") => Ok(json!({
            "status": "green",
            "number_of_nodes": 1,
            "timed_out": false,
        })),
        (&Method::POST, "/insert") => match read(req).await {
            Ok(bytes) => {
                // Timed from the whole body on, as an engine's `took` is: parse and update.
                let started = Instant::now();
                let inserted = parse::<Batch>(&bytes).and_then(|batch| {
                    lock(store)
                        .insert(&batch)
                        .map(|n| json!({ "inserted": n }))
                        .map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))
                });
                let spent = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
                state.insert_us.fetch_add(spent, Relaxed);
                inserted
            }
            Err(e) => Err(e),
        },
        (&Method::POST, "/query") => match body::<One>(req).await {
            Ok(q) => match lock(store).answer(q.epoch, &q.node) {
                Some(a) => Ok(json!(a)),
                None => Err((
                    StatusCode::NOT_FOUND,
                    format!("no rows for epoch {} node {:?}", q.epoch, q.node),
                )),
            },
            Err(e) => Err(e),
        },
        (&Method::POST, "/coverage") => match body::<Coverage>(req).await {
            Ok(q) if q.nodes.len() > MAX_NODES => Err((
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "{} nodes asked for at once; at most {MAX_NODES} a request",
                    q.nodes.len()
                ),
            )),
            Ok(q) => Ok(json!(lock(store).coverage(q.epoch, &q.nodes))),
            Err(e) => Err(e),
        },
        _ => Err((
            StatusCode::NOT_FOUND,
            format!("no {method} {path} here: POST /insert, /query, /coverage; GET /"),
        )),
    };
    let (status, value) = match answer {
        Ok(v) => (StatusCode::OK, v),
        Err((status, error)) => (status, json!({ "error": error })),
    };
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

/// The store, even after a handler panicked while holding it (its data is whole: an insert
/// validates before it changes anything).
fn lock(store: &Mutex<SketchStore>) -> std::sync::MutexGuard<'_, SketchStore> {
    store.lock().unwrap_or_else(|e| e.into_inner())
}

/// A request's JSON body as `T`, at most [`MAX_BODY`] bytes; what is wrong with it, and the
/// status to say it with, otherwise.
async fn body<T: for<'de> Deserialize<'de>>(
    req: Request<Incoming>,
) -> Result<T, (StatusCode, String)> {
    parse(&read(req).await?)
}

/// A request's whole body, at most [`MAX_BODY`] bytes.
async fn read(req: Request<Incoming>) -> Result<Bytes, (StatusCode, String)> {
    let whole = tokio::time::timeout(SLOWEST, Limited::new(req.into_body(), MAX_BODY).collect());
    let Ok(collected) = whole.await else {
        return Err((
            StatusCode::REQUEST_TIMEOUT,
            format!("the body did not arrive within {SLOWEST:?}"),
        ));
    };
    Ok(collected
        .map_err(|e| {
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body could not be read whole (at most {MAX_BODY} bytes): {e}"),
            )
        })?
        .to_bytes())
}

/// A body as `T`, or why it is not one.
fn parse<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, (StatusCode, String)> {
    serde_json::from_slice::<T>(bytes).map_err(|e| {
        (
            StatusCode::BAD_REQUEST,
            format!("the body is not what this endpoint takes: {e}"),
        )
    })
}

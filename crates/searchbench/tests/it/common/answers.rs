//! Recorded answers: an HTTP double that answers as a real node once did, for the tests that
//! only need a node's answers (a missing index, an empty one, a search every node refuses the
//! same way). They run in the fast tier, without Java, from a file of the node's own words.
//!
//! `serve(name)` replays `tests/fixtures/answers/<name>.json`: each request gets the next
//! recorded answer to the same method and path (query string included; bodies are not
//! compared), the last one again once they are used up; a request never recorded gets a 501
//! naming it, so a test that asks something new fails saying what to re-record.
//!
//! With `SEARCHBENCH_RECORD_ANSWERS=URL` (a real node, started by `bench/record-answers.sh`)
//! the double forwards every request there instead, and when the test ends well writes what
//! the node answered to that file: the answers are re-recordable from any engine.

use std::collections::HashMap;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};

/// The variable naming the real node to record from.
pub const RECORD_FROM: &str = "SEARCHBENCH_RECORD_ANSWERS";

/// One request and what the node answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Exchange {
    method: String,
    path: String,
    status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_type: Option<String>,
    body: String,
}

/// A file of recorded answers.
#[derive(Debug, Serialize, Deserialize)]
struct Recording {
    /// The node that answered, as its `GET /` says (`opensearch 2.19.1`).
    engine: String,
    /// How to record it again.
    recorded_by: String,
    exchanges: Vec<Exchange>,
}

/// A running double; in recording mode, writes its file when dropped at the end of a test
/// that passed.
pub struct Answers {
    pub url: String,
    name: String,
    recorded: Option<(String, Arc<Mutex<Vec<Exchange>>>)>,
}

fn file_of(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/answers")
        .join(format!("{name}.json"))
}

/// Serves the answers recorded as `name` (or records them, see the module's note).
pub fn serve(name: &str) -> Answers {
    match std::env::var(RECORD_FROM) {
        Ok(upstream) => record(name, upstream.trim_end_matches('/')),
        Err(_) => replay(name),
    }
}

/// What a replay has left to say, per method and path.
type Script = HashMap<(String, String), (Vec<Exchange>, usize)>;

fn replay(name: &str) -> Answers {
    let file = file_of(name);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (record it with bench/record-answers.sh)",
            file.display()
        )
    });
    let recording: Recording = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: not a recording: {e}", file.display()));
    let mut script: Script = HashMap::new();
    for e in recording.exchanges {
        let key = (e.method.clone(), e.path.clone());
        script.entry(key).or_insert((Vec::new(), 0)).0.push(e);
    }
    let script = Arc::new(Mutex::new(script));
    let url = spawn_server(move |method, path, _content_type, _body| {
        let script = script.clone();
        async move {
            let mut script = script.lock().unwrap_or_else(|p| p.into_inner());
            let Some((answers, next)) = script.get_mut(&(method.clone(), path.clone())) else {
                let said = format!(
                    "{{\"error\":\"no recorded answer for {method} {path}: re-record with bench/record-answers.sh\"}}"
                );
                return (501, Some("application/json".into()), Bytes::from(said));
            };
            let e = &answers[(*next).min(answers.len() - 1)];
            *next += 1;
            (
                e.status,
                e.content_type.clone(),
                Bytes::from(e.body.clone()),
            )
        }
    });
    Answers {
        url,
        name: name.to_string(),
        recorded: None,
    }
}

fn record(name: &str, upstream: &str) -> Answers {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("a client");
    let engine = {
        let (client, upstream) = (client.clone(), upstream.to_string());
        std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().expect("a runtime");
            rt.block_on(async {
                let root: serde_json::Value = client
                    .get(format!("{upstream}/"))
                    .send()
                    .await
                    .and_then(|r| r.error_for_status())
                    .unwrap_or_else(|e| panic!("the node to record from, {upstream}: {e}"))
                    .json()
                    .await
                    .expect("the node's GET / as JSON");
                let flavor = root["version"]["distribution"]
                    .as_str()
                    .unwrap_or("elasticsearch");
                format!(
                    "{flavor} {}",
                    root["version"]["number"].as_str().unwrap_or("?")
                )
            })
        })
        .join()
        .expect("asking the node what it is")
    };
    let exchanges = Arc::new(Mutex::new(Vec::new()));
    let (kept, upstream) = (exchanges.clone(), upstream.to_string());
    let url = spawn_server(move |method, path, content_type, body| {
        let (client, upstream, kept) = (client.clone(), upstream.clone(), kept.clone());
        async move {
            let m = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
            let mut forward = client.request(m, format!("{upstream}{path}")).body(body);
            if let Some(ct) = content_type {
                forward = forward.header("content-type", ct);
            }
            let answer = forward
                .send()
                .await
                .unwrap_or_else(|e| panic!("forwarding {method} {path}: {e}"));
            let status = answer.status().as_u16();
            let content_type = answer
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let bytes = answer.bytes().await.unwrap_or_default();
            let body = String::from_utf8(bytes.to_vec())
                .unwrap_or_else(|_| panic!("{method} {path}: an answer that is not UTF-8"));
            kept.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(Exchange {
                    method,
                    path,
                    status,
                    content_type: content_type.clone(),
                    body,
                });
            (status, content_type, bytes)
        }
    });
    Answers {
        url,
        name: name.to_string(),
        recorded: Some((engine, exchanges)),
    }
}

impl Drop for Answers {
    fn drop(&mut self) {
        let Some((engine, exchanges)) = &self.recorded else {
            return;
        };
        // A failed test's exchanges are not what the test needs.
        if std::thread::panicking() {
            return;
        }
        // An answer the same as the one before it to the same request is what a replay
        // repeats anyway: kept once, the file holds what differs.
        let mut last: HashMap<(String, String), (u16, Option<String>, String)> = HashMap::new();
        let exchanges: Vec<Exchange> = exchanges
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|e| {
                let said = (e.status, e.content_type.clone(), e.body.clone());
                last.insert((e.method.clone(), e.path.clone()), said.clone()) != Some(said)
            })
            .cloned()
            .collect();
        let recording = Recording {
            engine: engine.clone(),
            recorded_by: "bench/record-answers.sh".into(),
            exchanges,
        };
        let file = file_of(&self.name);
        let text = serde_json::to_string_pretty(&recording).expect("a recording as JSON");
        std::fs::create_dir_all(file.parent().expect("a folder")).expect("the answers' folder");
        std::fs::write(&file, text + "\n").unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
}

type Answer = (u16, Option<String>, Bytes);

/// An HTTP/1.1 server on 127.0.0.1, on a thread of its own, answering each request with
/// `answer(method, path and query, content type, body)`. Returns its URL.
fn spawn_server<F, Fut>(answer: F) -> String
where
    F: Fn(String, String, Option<String>, Bytes) -> Fut + Send + Sync + Clone + 'static,
    Fut: std::future::Future<Output = Answer> + Send,
{
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .expect("bind loopback");
            let addr = listener.local_addr().expect("an address");
            let _ = tx.send(format!("http://{addr}"));
            while let Ok((stream, _)) = listener.accept().await {
                let answer = answer.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let answer = answer.clone();
                        async move {
                            let method = req.method().to_string();
                            let path = req
                                .uri()
                                .path_and_query()
                                .map(|p| p.as_str().to_string())
                                .unwrap_or_default();
                            let content_type = req
                                .headers()
                                .get(hyper::header::CONTENT_TYPE)
                                .and_then(|v| v.to_str().ok())
                                .map(str::to_string);
                            let body = req
                                .into_body()
                                .collect()
                                .await
                                .map(|b| b.to_bytes())
                                .unwrap_or_default();
                            let (status, content_type, body) =
                                answer(method, path, content_type, body).await;
                            let mut r = Response::new(Full::new(body));
                            *r.status_mut() = hyper::StatusCode::from_u16(status)
                                .unwrap_or(hyper::StatusCode::BAD_GATEWAY);
                            if let Some(ct) = content_type
                                .and_then(|ct| hyper::header::HeaderValue::from_str(&ct).ok())
                            {
                                r.headers_mut().insert(hyper::header::CONTENT_TYPE, ct);
                            }
                            Ok::<_, Infallible>(r)
                        }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the answers' server started")
}

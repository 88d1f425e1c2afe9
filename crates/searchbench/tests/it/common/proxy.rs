//! A fault-injecting HTTP proxy: forwards to the real node and, on a schedule over the `_bulk`
//! requests it sees, answers 429, drops the connection (before or after forwarding), stalls,
//! turns the first item of an answer into a 429, answers garbage, lies about the items
//! (fewer, none, not an array, cut off), or sends a body without end, fast or slow.
//! Everything else passes.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    Pass,
    /// Answer 429 without forwarding.
    TooMany,
    /// Answer 429 with `Retry-After: <seconds>` without forwarding.
    TooManyRetryAfter(u64),
    /// Close the connection without forwarding.
    DropBefore,
    /// Forward, then close the connection instead of answering (a lost answer).
    DropAfter,
    /// Forward after waiting this long (longer than the client's timeout: the client gives up
    /// and retries while the original is still indexed).
    Stall(Duration),
    /// Forward, then report the first item as 429 (it was in fact indexed).
    RejectFirstItem,
    /// Answer 200 with a body that is not a bulk answer.
    Garbage,
    /// Never answer.
    Hang,
    /// Forward, then answer `"errors":false` with only the first N items.
    FewerItems(usize),
    /// Forward, then answer `{"took":1,"errors":false}`: no items at all.
    NoItems,
    /// Forward, then answer `"errors":false,"items":"garbage"`.
    ItemsNotAnArray,
    /// Forward, then answer `"errors":false,"items":[` and end there.
    ItemsCutOff,
    /// Answer 200 with a chunked body of this many bytes of items (no Content-Length), as
    /// fast as the client reads: a server that would fill the client's memory.
    Huge(u64),
    /// Answer 200 and send the body one byte every 100 ms, without end.
    Trickle,
    /// Forward, then answer with N more items than documents (the first repeated).
    MoreItems(usize),
    /// Answer 307 pointing at the real node's `_bulk`, without forwarding.
    Redirect,
    /// Answer 401 as a secured engine does when a password stops working, without forwarding.
    Unauthorized,
    /// Forward, then answer gzip-compressed (`Content-Encoding: gzip`), unasked.
    GzipUnasked,
}

#[derive(Debug, Default)]
pub struct Counts {
    pub bulk: AtomicU64,
    pub faults: AtomicU64,
}

pub struct Proxy {
    pub url: String,
    pub counts: Arc<Counts>,
}

type Schedule = Arc<dyn Fn(u64) -> Fault + Send + Sync>;

/// Starts the proxy in front of `upstream`; `schedule(n)` picks the fault for the n-th bulk
/// request (0-based).
pub async fn start(
    upstream: &str,
    schedule: impl Fn(u64) -> Fault + Send + Sync + 'static,
) -> Proxy {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind loopback");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let counts = Arc::new(Counts::default());
    let schedule: Schedule = Arc::new(schedule);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client");
    let upstream = upstream.trim_end_matches('/').to_string();
    let c = counts.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (schedule, client, upstream, counts) = (
                schedule.clone(),
                client.clone(),
                upstream.clone(),
                c.clone(),
            );
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    handle(
                        req,
                        schedule.clone(),
                        client.clone(),
                        upstream.clone(),
                        counts.clone(),
                    )
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Proxy { url, counts }
}

#[derive(Debug)]
struct Dropped;
impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped by the fault proxy")
    }
}
impl std::error::Error for Dropped {}

type Body = BoxBody<Bytes, Infallible>;

fn reply(status: u16, body: Bytes) -> Response<Body> {
    reply_with(status, Full::new(body).boxed())
}

fn reply_with(status: u16, body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

async fn handle(
    req: Request<Incoming>,
    schedule: Schedule,
    client: reqwest::Client,
    upstream: String,
    counts: Arc<Counts>,
) -> Result<Response<Body>, Dropped> {
    let is_bulk = req.uri().path().ends_with("/_bulk");
    let fault = if is_bulk {
        let n = counts.bulk.fetch_add(1, Relaxed);
        schedule(n)
    } else {
        Fault::Pass
    };
    if fault != Fault::Pass {
        counts.faults.fetch_add(1, Relaxed);
    }
    let method = req.method().clone();
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    let headers = req.headers().clone();
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return Err(Dropped),
    };
    match fault {
        Fault::TooMany => {
            return Ok(reply(
                429,
                Bytes::from_static(b"{\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"rejected by the fault proxy\"},\"status\":429}"),
            ))
        }
        Fault::TooManyRetryAfter(secs) => {
            let mut r = reply(
                429,
                Bytes::from_static(b"{\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"rejected by the fault proxy\"},\"status\":429}"),
            );
            r.headers_mut().insert(
                hyper::header::RETRY_AFTER,
                hyper::header::HeaderValue::from(secs),
            );
            return Ok(r);
        }
        Fault::DropBefore => return Err(Dropped),
        Fault::Garbage => return Ok(reply(200, Bytes::from_static(b"<html>not a bulk answer</html>"))),
        Fault::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return Err(Dropped);
        }
        Fault::Stall(d) => tokio::time::sleep(d).await,
        Fault::Huge(bytes) => return Ok(reply_with(200, huge(bytes))),
        Fault::Trickle => return Ok(reply_with(200, trickle())),
        Fault::Redirect => {
            let mut r = reply(307, Bytes::new());
            let to = format!("{upstream}{path}");
            r.headers_mut().insert(
                hyper::header::LOCATION,
                hyper::header::HeaderValue::from_str(&to).expect("a URL"),
            );
            return Ok(r);
        }
        Fault::Unauthorized => {
            return Ok(reply(
                401,
                Bytes::from_static(b"Unauthorized"),
            ))
        }
        _ => {}
    }
    let mut forward = client
        .request(method, format!("{upstream}{path}"))
        .body(body);
    for name in [hyper::header::CONTENT_TYPE, hyper::header::CONTENT_ENCODING] {
        if let Some(v) = headers.get(&name) {
            forward = forward.header(name.as_str(), v.as_bytes());
        }
    }
    let (status, answer) = match forward.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            match r.bytes().await {
                Ok(b) => (status, b),
                Err(_) => return Err(Dropped),
            }
        }
        Err(_) => return Err(Dropped),
    };
    match fault {
        Fault::DropAfter => Err(Dropped),
        Fault::RejectFirstItem => Ok(reply(status, reject_first_item(answer))),
        Fault::FewerItems(n) => Ok(reply(status, fewer_items(answer, n))),
        Fault::NoItems => Ok(reply(
            status,
            Bytes::from_static(b"{\"took\":1,\"errors\":false}"),
        )),
        Fault::ItemsNotAnArray => Ok(reply(
            status,
            Bytes::from_static(b"{\"took\":1,\"errors\":false,\"items\":\"garbage\"}"),
        )),
        Fault::ItemsCutOff => Ok(reply(
            status,
            Bytes::from_static(b"{\"took\":1,\"errors\":false,\"items\":["),
        )),
        Fault::MoreItems(n) => Ok(reply(status, more_items(answer, n))),
        Fault::GzipUnasked => {
            let mut gz = Vec::new();
            searchbench::ingest::gzip::compress(&answer, &mut gz).expect("gzip");
            let mut r = reply(status, Bytes::from(gz));
            r.headers_mut().insert(
                hyper::header::CONTENT_ENCODING,
                hyper::header::HeaderValue::from_static("gzip"),
            );
            Ok(r)
        }
        _ => Ok(reply(status, answer)),
    }
}

/// The real answer with its first item repeated `n` more times.
fn more_items(answer: Bytes, n: usize) -> Bytes {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&answer) else {
        return answer;
    };
    if let Some(items) = v.get_mut("items").and_then(|i| i.as_array_mut()) {
        if let Some(first) = items.first().cloned() {
            items.extend(std::iter::repeat_n(first, n));
        }
    }
    Bytes::from(serde_json::to_vec(&v).unwrap_or_default())
}

fn reject_first_item(answer: Bytes) -> Bytes {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&answer) else {
        return answer;
    };
    let Some(first) = v
        .get_mut("items")
        .and_then(|i| i.get_mut(0))
        .and_then(|i| i.as_object_mut())
        .and_then(|o| o.values_mut().next())
    else {
        return answer;
    };
    first["status"] = serde_json::json!(429);
    first["error"] = serde_json::json!({"type": "es_rejected_execution_exception", "reason": "item rejected by the fault proxy"});
    v["errors"] = serde_json::json!(true);
    Bytes::from(serde_json::to_vec(&v).unwrap_or_default())
}

/// The real answer with `"errors":false` and only its first `n` items.
fn fewer_items(answer: Bytes, n: usize) -> Bytes {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&answer) else {
        return answer;
    };
    if let Some(items) = v.get_mut("items").and_then(|i| i.as_array_mut()) {
        items.truncate(n);
    }
    v["errors"] = serde_json::json!(false);
    Bytes::from(serde_json::to_vec(&v).unwrap_or_default())
}

/// `bytes` of a bulk answer's items in 64 KiB chunks, made as they are read.
fn huge(bytes: u64) -> Body {
    const ITEM: &[u8] = b"{\"index\":{\"status\":201}},";
    let chunk: Bytes = std::iter::once(&b"{\"took\":1,\"errors\":false,\"items\":["[..])
        .chain(std::iter::repeat(ITEM))
        .flatten()
        .copied()
        .take(64 << 10)
        .collect::<Vec<u8>>()
        .into();
    let stream = futures_util::stream::unfold(0u64, move |sent| {
        let chunk = chunk.clone();
        async move {
            (sent < bytes).then(|| {
                let frame = hyper::body::Frame::data(chunk.clone());
                (Ok::<_, Infallible>(frame), sent + chunk.len() as u64)
            })
        }
    });
    StreamBody::new(stream).boxed()
}

/// A body that starts like a bulk answer and then sends a byte every 100 ms, forever.
fn trickle() -> Body {
    let stream = futures_util::stream::unfold(0u64, |n| async move {
        if n > 0 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let data = if n == 0 {
            Bytes::from_static(b"{\"took\":1,\"errors\":false,\"items\":[")
        } else {
            Bytes::from_static(b" ")
        };
        Some((Ok::<_, Infallible>(hyper::body::Frame::data(data)), n + 1))
    });
    StreamBody::new(stream).boxed()
}

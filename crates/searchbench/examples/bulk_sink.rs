//! A bulk sink: an HTTP server that takes `_bulk` requests at wire speed and indexes nothing,
//! to measure the ingest driver's own ceiling. Not a target searchbench offers: a benchmark
//! instrument (see bench/ingest-sink.sh).
//!
//! It answers every `_bulk` with `{"took":0,"errors":false,"items":[]}` after reading the
//! whole body, counts the documents (newlines / 2, gunzipping `Content-Encoding: gzip`), and
//! answers the few other calls `searchbench ingest` makes (`GET /`, index create, settings,
//! stats, refresh, `_count`) just enough for the run to reconcile.
//!
//! ```text
//! cargo run --release --example bulk_sink -- [--port P] [--threads N]
//! ```
//! Prints `listening on http://127.0.0.1:PORT` and serves until killed. Loopback only.

use std::convert::Infallible;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

#[derive(Default)]
struct Counters {
    docs: AtomicU64,
    bytes: AtomicU64,
    requests: AtomicU64,
}

fn json(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

async fn handle(
    req: Request<Incoming>,
    counters: Arc<Counters>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    let gzip = req
        .headers()
        .get(hyper::header::CONTENT_ENCODING)
        .is_some_and(|v| v.as_bytes() == b"gzip");
    if path.ends_with("/_bulk") && method == Method::POST {
        let mut body = req.into_body();
        let mut newlines = 0u64;
        let mut bytes = 0u64;
        let mut compressed = Vec::new();
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else {
                return Ok(json(StatusCode::BAD_REQUEST, "{\"error\":\"body\"}"));
            };
            if let Some(chunk) = frame.data_ref() {
                bytes += chunk.len() as u64;
                if gzip {
                    compressed.extend_from_slice(chunk);
                } else {
                    newlines += memchr::memchr_iter(b'\n', chunk).count() as u64;
                }
            }
        }
        if gzip {
            let mut plain = Vec::new();
            if flate2::read::GzDecoder::new(&compressed[..])
                .read_to_end(&mut plain)
                .is_err()
            {
                return Ok(json(StatusCode::BAD_REQUEST, "{\"error\":\"gzip\"}"));
            }
            newlines = memchr::memchr_iter(b'\n', &plain).count() as u64;
        }
        counters.docs.fetch_add(newlines / 2, Relaxed);
        counters.bytes.fetch_add(bytes, Relaxed);
        counters.requests.fetch_add(1, Relaxed);
        return Ok(json(
            StatusCode::OK,
            "{\"took\":0,\"errors\":false,\"items\":[]}",
        ));
    }
    // Drain any other body.
    let _ = req.into_body().collect().await;
    let r = match (method, path.as_str()) {
        (Method::GET, "/") => json(
            StatusCode::OK,
            "{\"name\":\"sink\",\"cluster_name\":\"bulk-sink\",\"version\":{\"number\":\"0.0.0\",\"distribution\":\"bulk-sink\"}}",
        ),
        (Method::GET, p) if p.starts_with("/_cluster/health") => json(
            StatusCode::OK,
            "{\"status\":\"green\",\"number_of_nodes\":1,\"timed_out\":false}",
        ),
        (Method::GET, p) if p.contains("/_stats") => json(StatusCode::OK, "{\"_all\":{\"total\":{}}}"),
        (Method::GET, p) if p.ends_with("/_settings") => json(StatusCode::OK, "{}"),
        (Method::GET, p) if p.ends_with("/_count") => {
            let body = format!("{{\"count\":{}}}", counters.docs.load(Relaxed));
            let mut r = json(StatusCode::OK, "");
            *r.body_mut() = Full::new(Bytes::from(body));
            r
        }
        (Method::GET, _) => json(
            StatusCode::NOT_FOUND,
            "{\"error\":{\"type\":\"index_not_found_exception\",\"reason\":\"no such index (bulk sink)\"},\"status\":404}",
        ),
        (Method::PUT, p) if !p.contains("/_") => {
            // A new index: start counting afresh.
            counters.docs.store(0, Relaxed);
            json(StatusCode::OK, "{\"acknowledged\":true}")
        }
        (Method::POST, p) if p.ends_with("/_refresh") => json(StatusCode::OK, "{}"),
        _ => json(StatusCode::OK, "{\"acknowledged\":true}"),
    };
    Ok(r)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut port = 0u16;
    let mut threads = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => port = args.next().ok_or("--port needs a value")?.parse()?,
            "--threads" => threads = args.next().ok_or("--threads needs a value")?.parse()?,
            other => return Err(format!("unknown argument {other:?}").into()),
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        println!("listening on http://{}", listener.local_addr()?);
        let counters = Arc::new(Counters::default());
        loop {
            let (stream, _) = listener.accept().await?;
            let _ = stream.set_nodelay(true);
            let counters = counters.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| handle(req, counters.clone()));
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

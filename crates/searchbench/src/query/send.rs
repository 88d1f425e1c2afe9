//! Sending one coverage (the searches a workload groups, e.g. all nodes of one epoch) and timing it. Bodies are built before the
//! clock starts; the clock covers send + full response body; parsing comes after.

use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::header::CONTENT_TYPE;
use serde_json::Value;

use super::answer::Answer;
use super::dialect::Dialect;
use super::transport::Transport;
use crate::cluster::body::{self, BodyError};
use crate::cluster::Target;

/// The prepared requests of one (variant, coverage).
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The coverage's label in the samples (an epoch, a slice's number).
    pub epoch: u64,
    /// One body per search (`_search`'s).
    pub searches: Vec<Bytes>,
    /// The one request of all of them (`_msearch`'s).
    pub msearch: Bytes,
}

impl Prepared {
    /// Prepared requests of `dialect` from ready bodies of its searches (one line of JSON
    /// each).
    pub fn from_bodies(dialect: &dyn Dialect, epoch: u64, bodies: Vec<Vec<u8>>) -> Self {
        let msearch = dialect.batch(&bodies);
        Prepared {
            epoch,
            searches: bodies.into_iter().map(Bytes::from).collect(),
            msearch: Bytes::from(msearch),
        }
    }
}

/// What one coverage gave.
#[derive(Debug, Default)]
pub struct Coverage {
    /// Client wall time of the whole coverage.
    pub wall: Duration,
    /// Sum of server `took` over the answered searches, ms.
    pub took_ms: u64,
    /// (search index, answer) for every search that answered properly.
    pub answers: Vec<(usize, Answer)>,
    /// One reason per search that did not.
    pub errors: Vec<String>,
    /// Per `_search` request: client wall minus server took, µs (serial only).
    pub overhead_us: Vec<u64>,
}

/// URLs of the two endpoints, resolved once, and the dialect their answers are in.
#[derive(Debug, Clone)]
pub struct Endpoints {
    pub search: String,
    pub msearch: String,
    pub dialect: &'static dyn Dialect,
}

impl Endpoints {
    pub fn new(dialect: &'static dyn Dialect, target: &Target, index: &str) -> Self {
        Endpoints {
            search: target.endpoint(0, &dialect.search_path(index)),
            msearch: target.endpoint(0, &dialect.batch_path(index)),
            dialect,
        }
    }
}

/// Sends a body and reads the whole answer, at most the target's `--max-answer` bytes of it
/// and all within its timeout; `Err` names what went wrong.
pub(crate) async fn post(
    target: &Target,
    url: &str,
    content_type: &'static str,
    body: Bytes,
) -> Result<Bytes, String> {
    let exchange = async {
        let response = target
            .client()
            .post(url)
            .header(CONTENT_TYPE, content_type)
            .body(body)
            .send()
            .await
            .map_err(describe)?;
        let status = response.status().as_u16();
        let location = crate::cluster::redirect_location(&response);
        let body = body::read_bounded(response, target.max_answer())
            .await
            .map_err(|e| match e {
                BodyError::TooLarge { limit, seen } => {
                    body::too_large(limit, seen, crate::cluster::MAX_ANSWER_HINT)
                }
                BodyError::Transport(e) => describe(e),
                BodyError::Encoding(reason) => reason,
            })?;
        Ok::<_, String>((status, location, body))
    };
    let (status, location, body) = tokio::time::timeout(target.timeout(), exchange)
        .await
        .map_err(|_| "timed out (no complete answer within --timeout)".to_string())??;
    if (300..400).contains(&status) {
        return Err(format!(
            "HTTP {status}: {}",
            crate::cluster::redirect_reason(location.as_deref())
        ));
    }
    if !(200..300).contains(&status) {
        return Err(format!(
            "HTTP {status}: {}",
            crate::cluster::server_reason(&body)
        ));
    }
    Ok(body)
}

fn describe(e: reqwest::Error) -> String {
    if e.is_timeout() {
        "timed out".into()
    } else if e.is_connect() {
        format!("cannot connect: {e}")
    } else {
        let mut s = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(c) = src {
            s.push_str(": ");
            s.push_str(&c.to_string());
            src = c.source();
        }
        s
    }
}

fn json(body: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(body).map_err(|e| {
        format!(
            "malformed answer ({e}); body starts with {:?}",
            crate::cluster::snippet(body)
        )
    })
}

/// Runs one coverage over `transport`.
pub async fn coverage(
    target: &Target,
    endpoints: &Endpoints,
    prepared: &Prepared,
    transport: Transport,
) -> Coverage {
    let mut out = Coverage::default();
    let start = Instant::now();
    match transport {
        Transport::Serial => {
            out.overhead_us.reserve(prepared.searches.len());
            for (i, body) in prepared.searches.iter().enumerate() {
                let t0 = Instant::now();
                let result =
                    post(target, &endpoints.search, "application/json", body.clone()).await;
                let wall = t0.elapsed();
                let parse = |v| endpoints.dialect.parse_one(v);
                match result.and_then(|b| json(&b)).and_then(parse) {
                    Ok(answer) => {
                        let wall_us = wall.as_micros() as u64;
                        out.overhead_us
                            .push(wall_us.saturating_sub(answer.took_ms.saturating_mul(1000)));
                        // A server's `took` is its word: added saturating, never wrapped.
                        out.took_ms = out.took_ms.saturating_add(answer.took_ms);
                        out.answers.push((i, answer));
                    }
                    Err(e) => out.errors.push(format!("search {}: {e}", i + 1)),
                }
            }
            out.wall = start.elapsed();
        }
        Transport::Msearch => {
            let content_type = endpoints.dialect.batch_content_type();
            let result = post(
                target,
                &endpoints.msearch,
                content_type,
                prepared.msearch.clone(),
            )
            .await;
            out.wall = start.elapsed();
            let n = prepared.searches.len();
            let parse = |v| endpoints.dialect.parse_batch(v, n);
            match result.and_then(|b| json(&b)).and_then(parse) {
                Ok(items) => {
                    for (i, item) in items.into_iter().enumerate() {
                        match item {
                            Ok(answer) => {
                                out.took_ms = out.took_ms.saturating_add(answer.took_ms);
                                out.answers.push((i, answer));
                            }
                            Err(e) => out.errors.push(format!("sub-search {}: {e}", i + 1)),
                        }
                    }
                }
                Err(e) => {
                    // The whole request failed: every search in it is lost.
                    out.errors.push(format!("msearch: {e}"));
                    out.errors
                        .extend((1..n).map(|_| "msearch: (same failure)".to_string()));
                }
            }
        }
    }
    out
}

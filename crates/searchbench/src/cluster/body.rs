//! Answer bodies read with a bound: a server that answers with gigabytes (a lying proxy, a
//! wrong endpoint) must not take the driver's memory with it. Each request says how large
//! its answer can legitimately be; a larger one is refused as soon as it is known to be
//! larger (from `Content-Length`, else while it streams in), and the whole exchange, body
//! included, is raced against the target's timeout.

use std::future::Future;
use std::time::Duration;

use bytes::{Bytes, BytesMut};

use super::TargetError;

/// The default bound on a search or API answer: far above what a benchmark's searches and
/// the few API calls searchbench makes return, far below what would hurt the machine.
pub const DEFAULT_MAX_ANSWER: u64 = 64 << 20;

/// What goes wrong while reading a body.
#[derive(Debug)]
pub enum BodyError {
    /// The body is (or says it will be) larger than the bound.
    TooLarge {
        limit: u64,
        seen: u64,
    },
    Transport(reqwest::Error),
    /// The body is in an encoding that cannot be read (or is not what it says).
    Encoding(String),
}

/// Reads `response`'s body in full, refusing one larger than `limit` bytes, and decodes a
/// body the server compressed without being asked (`Content-Encoding: gzip` or `deflate`,
/// as some proxies do whatever the request says): the bound holds for the decoded bytes too.
pub async fn read_bounded(response: reqwest::Response, limit: u64) -> Result<Bytes, BodyError> {
    let encoding = response
        .headers()
        .get(reqwest::header::CONTENT_ENCODING)
        .map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|e| !e.is_empty() && e != "identity");
    let body = read_raw(response, limit).await?;
    match encoding {
        None => Ok(body),
        Some(encoding) => decode(&encoding, &body, limit),
    }
}

/// `body` decoded from `encoding`, at most `limit` bytes of it.
fn decode(encoding: &str, body: &[u8], limit: u64) -> Result<Bytes, BodyError> {
    use std::io::Read;
    let reader: Box<dyn Read + '_> = match encoding {
        "gzip" | "x-gzip" => Box::new(flate2::read::GzDecoder::new(body)),
        "deflate" => Box::new(flate2::read::ZlibDecoder::new(body)),
        other => {
            return Err(BodyError::Encoding(format!(
                "the answer is encoded as `{other}` (Content-Encoding), which searchbench did \
                 not ask for and cannot read; a proxy in between may be compressing answers"
            )))
        }
    };
    let mut out = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| {
            BodyError::Encoding(format!(
                "the answer says Content-Encoding `{encoding}` but does not decode as it: {e}"
            ))
        })?;
    if out.len() as u64 > limit {
        return Err(BodyError::TooLarge {
            limit,
            seen: out.len() as u64,
        });
    }
    Ok(Bytes::from(out))
}

/// The body's bytes as they came, at most `limit` of them.
async fn read_raw(mut response: reqwest::Response, limit: u64) -> Result<Bytes, BodyError> {
    if let Some(length) = response.content_length().filter(|&n| n > limit) {
        return Err(BodyError::TooLarge {
            limit,
            seen: length,
        });
    }
    // The usual small answer arrives in one chunk and is returned as it is; only a body in
    // several chunks is gathered, in a buffer sized once from Content-Length when given.
    let expected = response.content_length().unwrap_or(0).min(limit);
    let mut first: Option<Bytes> = None;
    let mut gathered = BytesMut::new();
    let mut seen: u64 = 0;
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
        seen += chunk.len() as u64;
        if seen > limit {
            return Err(BodyError::TooLarge { limit, seen });
        }
        if first.is_none() && gathered.is_empty() {
            first = Some(chunk);
            continue;
        }
        if let Some(head) = first.take() {
            gathered.reserve(
                usize::try_from(expected)
                    .unwrap_or(0)
                    .max(head.len() + chunk.len()),
            );
            gathered.extend_from_slice(&head);
        }
        gathered.extend_from_slice(&chunk);
    }
    Ok(first.unwrap_or_else(|| gathered.freeze()))
}

impl BodyError {
    /// As a [`TargetError`] naming `request`; `hint` says how to raise the bound, if it can be.
    pub fn into_target_error(self, request: String, hint: &str) -> TargetError {
        match self {
            BodyError::TooLarge { limit, seen } => TargetError::TooLarge {
                request,
                reason: too_large(limit, seen, hint),
            },
            BodyError::Transport(e) => TargetError::from_send(request, e),
            BodyError::Encoding(reason) => TargetError::Decode { request, reason },
        }
    }
}

/// Why a body was refused.
pub fn too_large(limit: u64, seen: u64, hint: &str) -> String {
    format!("the answer is larger than {limit} bytes (at least {seen} seen), refused; {hint}")
}

/// `exchange`, or a timeout error naming `request` when it takes longer than `timeout` in
/// all (connecting, sending, and reading the whole body).
pub async fn within<T>(
    timeout: Duration,
    request: impl FnOnce() -> String,
    exchange: impl Future<Output = Result<T, TargetError>>,
) -> Result<T, TargetError> {
    match tokio::time::timeout(timeout, exchange).await {
        Ok(result) => result,
        Err(_) => Err(TargetError::Timeout {
            request: request(),
            reason: format!(
                "no complete answer within {} s (--timeout), body included",
                timeout.as_secs_f64()
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_compressed_unasked_is_decoded_within_the_bound() {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(b"{\"took\":1}").unwrap();
        let gz = encoder.finish().unwrap();
        assert_eq!(&decode("gzip", &gz, 100).unwrap()[..], b"{\"took\":1}");
        assert!(matches!(
            decode("gzip", &gz, 5),
            Err(BodyError::TooLarge { limit: 5, .. })
        ));
        let Err(BodyError::Encoding(why)) = decode("br", &gz, 100) else {
            panic!("br is not read");
        };
        assert!(why.contains("`br`"), "{why}");
        let Err(BodyError::Encoding(why)) = decode("gzip", b"{\"took\":1}", 100) else {
            panic!("plain bytes are not gzip");
        };
        assert!(why.contains("does not decode"), "{why}");
    }
}

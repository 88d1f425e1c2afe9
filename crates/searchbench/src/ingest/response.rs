//! What the statuses and error bodies of bulk answers mean: which are worth sending again,
//! which can never succeed, and the reason to write down. The items of a 2xx answer are read
//! in [`super::bulk_answer`].

use std::time::Duration;

/// Item statuses worth sending again: the server was busy, not the document wrong.
pub fn item_retryable(status: u16) -> bool {
    matches!(status, 429 | 503)
}

/// Whole-request statuses worth sending again.
pub fn request_retryable(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

/// Why a failed request can never succeed as it is, however often it is sent: the request is
/// too large for the server, or a circuit breaker says its trip will not clear by waiting.
pub fn never_fits(status: u16, body: &[u8], request_bytes: usize) -> Option<String> {
    if status == 413 {
        return Some("the request is too large: lower --bulk-size or --bulk-bytes".into());
    }
    if status != 429 || memchr::memmem::find(body, b"circuit_breaking_exception").is_none() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let e = &v["error"];
    // The engine accounts a request body about twice while reading it (OpenSearch 2.19: a
    // 2 MiB body "would be [4194352/4mb]"), so a body of half the limit can never pass.
    let limit = e["bytes_limit"].as_u64();
    if let Some(limit) = limit.filter(|&l| 2 * request_bytes as u64 >= l) {
        return Some(format!(
            "the request alone ({request_bytes} bytes) is above the circuit breaker's limit \
             ({limit} bytes); lower --bulk-size or --bulk-bytes, or the document is too large"
        ));
    }
    (e["durability"].as_str() == Some("PERMANENT")).then(|| {
        "the circuit breaker says this will not clear by waiting (durability PERMANENT)".into()
    })
}

/// `type: reason (caused by: type: reason)` of an error object.
pub fn error_reason(e: &serde_json::Value) -> String {
    if let Some(s) = e.as_str() {
        return s.to_string();
    }
    let one = |e: &serde_json::Value| match (e["type"].as_str(), e["reason"].as_str()) {
        (Some(t), Some(r)) => Some(format!("{t}: {r}")),
        (Some(t), None) => Some(t.to_string()),
        (None, Some(r)) => Some(r.to_string()),
        _ => None,
    };
    let mut text = one(e).unwrap_or_else(|| e.to_string());
    if let Some(cause) = one(&e["caused_by"]) {
        text.push_str(" (caused by ");
        text.push_str(&cause);
        text.push(')');
    }
    text
}

/// The reason in an error answer's body, else its first bytes.
pub fn body_reason(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        if !v["error"].is_null() {
            return error_reason(&v["error"]);
        }
    }
    let s = snippet(body);
    if s.is_empty() {
        "(empty body)".into()
    } else {
        s
    }
}

pub fn snippet(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(200)])
        .trim()
        .to_string()
}

/// The longest `Retry-After` the driver honours; a server asking for more gets this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// A `Retry-After: <seconds>` header (429/503), capped at [`MAX_RETRY_AFTER`]. The HTTP-date
/// form is not used by Elasticsearch or OpenSearch and is ignored.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let secs: u64 = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(secs).min(MAX_RETRY_AFTER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_takes_seconds_and_caps_them() {
        use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
        let with = |v: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(RETRY_AFTER, HeaderValue::from_static(v));
            retry_after(&h)
        };
        assert_eq!(with("2"), Some(Duration::from_secs(2)));
        assert_eq!(with(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(with("86400"), Some(MAX_RETRY_AFTER));
        assert_eq!(with("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(with("-1"), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }
}

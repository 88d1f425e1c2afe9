//! Reading bulk answers cheaply: when `"errors":false` shows up in the first bytes the items
//! are not parsed at all (the hot path); only answers with errors are parsed item by item.

use std::time::Duration;

use serde::Deserialize;

/// What a 2xx bulk answer said.
#[derive(Debug)]
pub enum BulkAnswer {
    /// Every item succeeded; items were not parsed.
    AllOk { took: Option<u64> },
    /// Some items failed: one entry per item, in request order.
    Items {
        took: Option<u64>,
        items: Vec<ItemResult>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemResult {
    pub status: u16,
    /// `type: reason` of the item's error, when it failed.
    pub reason: Option<String>,
}

impl ItemResult {
    pub fn is_ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

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

const HEAD: usize = 128;

/// Classifies a 2xx bulk answer. `Err` is a body that is not a bulk answer.
pub fn parse(body: &[u8]) -> Result<BulkAnswer, String> {
    let head = &body[..body.len().min(HEAD)];
    if memchr::memmem::find(head, b"\"errors\":false").is_some() {
        return Ok(BulkAnswer::AllOk { took: took(head) });
    }
    parse_items(body)
}

/// `"took":123` in the first bytes, without parsing the rest.
fn took(head: &[u8]) -> Option<u64> {
    let at = memchr::memmem::find(head, b"\"took\":")? + 7;
    let digits = head[at..]
        .iter()
        .skip_while(|b| **b == b' ')
        .take_while(|b| b.is_ascii_digit());
    let mut n: u64 = 0;
    let mut any = false;
    for d in digits {
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        any = true;
    }
    any.then_some(n)
}

#[derive(Deserialize)]
struct Full {
    #[serde(default)]
    took: Option<u64>,
    errors: bool,
    #[serde(default)]
    items: Vec<std::collections::BTreeMap<String, Item>>,
}

#[derive(Deserialize)]
struct Item {
    status: u16,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

fn parse_items(body: &[u8]) -> Result<BulkAnswer, String> {
    let full: Full = serde_json::from_slice(body).map_err(|e| {
        format!(
            "not a bulk answer ({e}); body starts with {:?}",
            snippet(body)
        )
    })?;
    if !full.errors {
        return Ok(BulkAnswer::AllOk { took: full.took });
    }
    let items = full
        .items
        .into_iter()
        .map(|m| {
            // One key per item: the action (index, create, ...).
            let item = m.into_values().next();
            match item {
                Some(i) => ItemResult {
                    status: i.status,
                    reason: i.error.as_ref().map(error_reason),
                },
                None => ItemResult {
                    status: 0,
                    reason: Some("empty item in the bulk answer".into()),
                },
            }
        })
        .collect();
    Ok(BulkAnswer::Items {
        took: full.took,
        items,
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

    #[test]
    fn hot_path_does_not_parse_items() {
        // Items that are not even valid JSON: proves they are not parsed.
        let body = b"{\"took\":42,\"errors\":false,\"items\":[garbage";
        match parse(body).unwrap() {
            BulkAnswer::AllOk { took } => assert_eq!(took, Some(42)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_are_parsed_item_by_item() {
        let body = br#"{"took":3,"errors":true,"items":[
            {"index":{"status":201}},
            {"index":{"status":400,"error":{"type":"mapper_parsing_exception","reason":"failed to parse field [n]","caused_by":{"type":"illegal_argument_exception","reason":"For input string: \"x\""}}}},
            {"index":{"status":429,"error":{"type":"es_rejected_execution_exception","reason":"busy"}}}]}"#;
        let BulkAnswer::Items { took, items } = parse(body).unwrap() else {
            panic!("expected items")
        };
        assert_eq!(took, Some(3));
        assert_eq!(items.len(), 3);
        assert!(items[0].is_ok());
        assert_eq!(items[1].status, 400);
        let r = items[1].reason.as_deref().unwrap();
        assert!(r.starts_with("mapper_parsing_exception: failed to parse field [n]"));
        assert!(r.contains("caused by illegal_argument_exception"));
        assert!(item_retryable(items[2].status));
        assert!(!item_retryable(items[1].status));
    }

    #[test]
    fn pretty_printed_ok_answers_still_work() {
        let body = b"{\n  \"took\" : 5,\n  \"errors\" : false,\n  \"items\" : []\n}";
        assert!(matches!(
            parse(body).unwrap(),
            BulkAnswer::AllOk { took: Some(5) }
        ));
    }

    #[test]
    fn garbage_is_an_error_with_a_snippet() {
        let e = parse(b"<html>502 Bad Gateway</html>").unwrap_err();
        assert!(e.contains("<html>502"), "{e}");
    }
}

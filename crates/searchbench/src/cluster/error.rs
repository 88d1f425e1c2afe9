//! Errors of the HTTP layer: each names the request and, where the server gave one, its reason.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("bad URL {url:?}: {reason}")]
    Url { url: String, reason: String },
    #[error("cannot read CA certificate {path}: {reason}")]
    Tls { path: PathBuf, reason: String },
    #[error("bad credentials: {reason}")]
    Auth { reason: String },
    #[error("cannot build the HTTP client: {reason}")]
    Client { reason: String },
    #[error("{request}: cannot connect: {reason}")]
    Connect { request: String, reason: String },
    #[error("{request}: no answer within the timeout ({reason})")]
    Timeout { request: String, reason: String },
    #[error("{request}: HTTP {status}: {reason}")]
    Status {
        request: String,
        status: u16,
        reason: String,
    },
    #[error("{request}: the server's answer is not what we expected: {reason}")]
    Decode { request: String, reason: String },
    #[error("{request}: {reason}")]
    Transport { request: String, reason: String },
    /// The answer's body is larger than the request can legitimately produce.
    #[error("{request}: {reason}")]
    TooLarge { request: String, reason: String },
}

impl TargetError {
    pub(crate) fn from_send(request: String, e: reqwest::Error) -> Self {
        let mut reason = chain(&e);
        if let Some(hint) = hint(&request, &reason) {
            reason.push_str("; ");
            reason.push_str(hint);
        }
        if e.is_timeout() {
            TargetError::Timeout { request, reason }
        } else if e.is_connect() {
            TargetError::Connect { request, reason }
        } else {
            TargetError::Transport { request, reason }
        }
    }

    /// The HTTP status, when the server answered with an error status.
    pub fn status(&self) -> Option<u16> {
        match self {
            TargetError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// What a low-level transport error means for the user, when the message alone would not
/// tell them: TLS spoken to a plain-HTTP port fails in rustls with a record of the wrong type.
pub fn hint(request: &str, reason: &str) -> Option<&'static str> {
    let https = request.contains("https://");
    if https && (reason.contains("InvalidContentType") || reason.contains("corrupt message")) {
        return Some(
            "the server speaks plain HTTP on this port, not HTTPS: try http:// instead of https://",
        );
    }
    if https && reason.contains("UnknownIssuer") {
        return Some(
            "the server's certificate is signed by a CA this machine does not trust: give that \
             CA with --ca-cert FILE (for a node started with --security, the root-ca.pem it \
             printed), or skip the check with --insecure (still encrypted, but anyone on the \
             path could pose as the server)",
        );
    }
    if https && reason.contains("invalid peer certificate") {
        return Some(
            "the server's certificate was refused: check the URL's host name against the \
             certificate and that --ca-cert is the CA that signed it, or skip the check with \
             --insecure",
        );
    }
    None
}

/// The error and its causes on one line, each cause once: reqwest's top-level message alone
/// hides the cause, and an error that shows its source in its own message would otherwise
/// repeat it.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

/// The reason an Elasticsearch/OpenSearch error body gives (`error.root_cause[0].reason`,
/// `error.reason`, `error.type`), else a snippet of the body.
pub fn server_reason(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let error = &v["error"];
        let pick = |e: &serde_json::Value| -> Option<String> {
            let kind = e["type"].as_str();
            let reason = e["reason"].as_str();
            match (kind, reason) {
                (Some(k), Some(r)) => Some(format!("{k}: {r}")),
                (None, Some(r)) => Some(r.to_string()),
                (Some(k), None) => Some(k.to_string()),
                _ => None,
            }
        };
        // The root cause names the field or setting; `all shards failed` above it does not.
        if let Some(r) = pick(&error["root_cause"][0]).or_else(|| pick(error)) {
            return said(&r);
        }
        if let Some(s) = error.as_str() {
            return said(s);
        }
    }
    let s = snippet(body);
    if s.is_empty() {
        "(empty body)".into()
    } else {
        s
    }
}

/// The most of a server's reason an error keeps, in bytes: an Elasticsearch mapping error is
/// a few hundred; a server answering megabytes gets the first of them.
const REASON_BYTES: usize = 1000;

/// A reason a server gave, as an error keeps it: printable (a terminal, a log or a page shows
/// it, never acts on it), at most [`REASON_BYTES`].
pub(super) fn said(reason: &str) -> String {
    let kept = crate::shown::head(reason, REASON_BYTES);
    let cut = if kept.len() < reason.len() { "…" } else { "" };
    format!("{}{cut}", crate::shown::printable(kept))
}

/// The first 200 characters of a body, for error messages.
pub fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    crate::shown::printable(text.trim()).into_owned()
}

#[cfg(test)]
mod tests {
    /// What a lying server says (a reason with escape sequences, megabytes of it) reaches an
    /// error, a store and a terminal printable and bounded (its version and cluster name too:
    /// `double::tests`).
    #[test]
    fn what_a_server_says_is_kept_printable_and_bounded() {
        let reason = |r: &str| serde_json::json!({"error": {"reason": r}}).to_string();
        let said = super::server_reason(reason("\u{1b}]0;pwned\u{7}\u{1b}[2Jgone").as_bytes());
        assert_eq!(said, "\\u{1b}]0;pwned\\u{7}\\u{1b}[2Jgone");
        let huge = super::server_reason(reason(&"é".repeat(1_000_000)).as_bytes());
        assert!(
            huge.len() <= super::REASON_BYTES + '…'.len_utf8(),
            "{}",
            huge.len()
        );
        assert!(huge.ends_with('…'));
        assert_eq!(super::snippet(b"  <html>\x1b[31m  "), "<html>\\u{1b}[31m");
    }
}

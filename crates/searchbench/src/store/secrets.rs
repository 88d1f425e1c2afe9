//! What the store keeps holds no password. Our own commands redact a URL's password where
//! they meet it; this is the door for the rest: a result imported from a file or another store
//! (an older release's, another tool's) has the password of every URL in every text of it
//! (its result, configuration, error, tags) masked on the way in, so `results show --json`
//! never prints one and publishing never sends one.

use serde_json::Value;

use crate::cluster::redact_urls_in;

/// `v` with the password of every URL in its texts (keys too) masked.
pub(super) fn redacted(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(redact_urls_in(s)),
        Value::Array(a) => a.iter().map(redacted).collect(),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (redact_urls_in(k), redacted(x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

//! What the store keeps and gives back holds no password. Our own commands redact a URL's
//! password where they meet it; this is the door for the rest. A result or a store imported
//! from elsewhere (an older release's, another tool's) has the password of every URL in every
//! text of it (its result, configuration, error, tags, what its instruments kept) masked on
//! the way in, so the store file keeps none; and a row is masked again as it is read, so a
//! store written before this door (or past it) shows none in `results show --json` and
//! publishes none.

use serde_json::Value;

use crate::cluster::redact_urls_in;

/// Masks, in place, the password of every URL in `v`'s texts (keys too).
pub(super) fn redact(v: &mut Value) {
    match v {
        Value::String(s) if holds_url_with_at(s) => *s = redact_urls_in(s),
        Value::Array(a) => a.iter_mut().for_each(redact),
        Value::Object(m) => {
            if m.keys().any(|k| holds_url_with_at(k)) {
                let masked = std::mem::take(m).into_iter();
                *m = masked.map(|(k, x)| (redact_urls_in(&k), x)).collect();
            }
            m.values_mut().for_each(redact);
        }
        _ => {}
    }
}

/// `v` with the password of every URL in its texts masked.
pub(super) fn redacted(v: &Value) -> Value {
    let mut v = v.clone();
    redact(&mut v);
    v
}

/// `text` with the password of every URL in it masked (a tag, an error).
pub(super) fn redacted_text(text: &str) -> String {
    match holds_url_with_at(text) {
        true => redact_urls_in(text),
        false => text.to_string(),
    }
}

/// Whether a setting, option or parameter named `key` holds a secret by its name: one word
/// list for every name a run keeps (node settings, JVM options, track parameters).
pub(crate) fn names_a_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "credential",
        "private",
        // An API key, an access key, a key file's path: a name that only sounds like one
        // (a sort key) loses its value in the record, which costs nothing.
        "key",
        "auth",
    ]
    .iter()
    .any(|word| key.contains(word))
}

/// Masks with `mark`, in place, every value of `v` whose key names a secret
/// ([`names_a_secret`]), at any depth.
pub(crate) fn redact_named(v: &mut Value, mark: &str) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| redact_named(x, mark)),
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match names_a_secret(k) {
                    true => *x = Value::from(mark),
                    false => redact_named(x, mark),
                }
            }
        }
        _ => {}
    }
}

/// Whether `text` may hold a URL's password: the one test every text passes before it is
/// rewritten (most hold none, and are kept as they are).
fn holds_url_with_at(text: &str) -> bool {
    text.contains("://") && text.contains('@')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value whose key names a secret is masked at any depth; the rest is kept.
    #[test]
    fn values_named_as_secrets_are_masked_at_any_depth() {
        let mut v = serde_json::json!({
            "conn": {"password": "x", "hosts": ["h"], "nested": [{"api_key": "k"}]},
            "bulk_size": 5000,
            "AUTH_HEADER": "Basic abc",
        });
        redact_named(&mut v, "(redacted)");
        let want = serde_json::json!({
            "conn": {"password": "(redacted)", "hosts": ["h"], "nested": [{"api_key": "(redacted)"}]},
            "bulk_size": 5000,
            "AUTH_HEADER": "(redacted)",
        });
        assert_eq!(v, want);
    }
}

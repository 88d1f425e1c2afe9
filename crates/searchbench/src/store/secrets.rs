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

/// Whether `text` may hold a URL's password: the one test every text passes before it is
/// rewritten (most hold none, and are kept as they are).
fn holds_url_with_at(text: &str) -> bool {
    text.contains("://") && text.contains('@')
}

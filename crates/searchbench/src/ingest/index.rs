//! Index setup: create the index from the workload's body, marked as ours in the mapping's
//! `_meta`; never delete an index we did not create unless told to; apply load-time settings
//! and put the old values back afterwards.

use reqwest::Method;
use serde_json::{json, Value};

use super::IngestError;
use crate::cluster::owed::{self, Owed, Undo};
use crate::cluster::{Target, TargetError};

/// The mark in `mappings._meta` by which we know an index is ours.
pub const CREATED_BY: &str = "searchbench";

/// What was there before we created the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Previous {
    /// No such index.
    Nothing,
    /// An index searchbench had created: deleted and created afresh.
    Ours,
    /// An index we did not create, deleted because of `--replace`.
    ReplacedForeign,
    /// An existing index loaded into as it was (`--append`).
    Appended,
}

/// An index that was there before the run, as we found it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Existing {
    /// Whether it carries our mark.
    pub ours: bool,
    /// `index.creation_date`: milliseconds since 1970.
    pub created_unix_ms: Option<u64>,
    /// Documents it held (after a refresh).
    pub docs: Option<u64>,
}

/// What [`setup`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub previous: Previous,
    /// The index that was there (deleted, or appended to).
    pub existing: Option<Existing>,
}

/// How [`setup`] treats an index that already exists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reuse {
    /// Delete it even if we did not create it.
    pub replace: bool,
    /// Keep it (ours or not) and load into it; no body is applied.
    pub append: bool,
    /// The target is a data stream: made, when missing, from the index template that matches
    /// its name (as a `create` would make it), never as an index of that name.
    pub data_stream: bool,
    /// The index is shared with the other parts of the run (`--part`): made by the first part
    /// to get there (a part that loses the race to make it appends), never replaced.
    pub shared: bool,
}

/// Names Elasticsearch/OpenSearch accept for an index (and that are safe in a URL path).
pub fn check_name(name: &str) -> Result<(), IngestError> {
    let bad = |why: &str| {
        Err(IngestError::Config(format!(
            "invalid index name {name:?}: {why}"
        )))
    };
    if name.is_empty() || name.len() > 255 {
        return bad("must be 1 to 255 bytes");
    }
    if name.starts_with(['-', '_', '+', '.']) {
        return bad("must not start with -, _, + or .");
    }
    if name
        .chars()
        .any(|c| c.is_ascii_uppercase() || "\\/*?\"<>| ,#:%&=".contains(c) || c.is_control())
    {
        return bad("lowercase only, and none of \\ / * ? \" < > | space , # : % & =");
    }
    Ok(())
}

/// Whether the answer to `GET /{index}` describes an index we created under that very name
/// (an alias answering for another index is not ours).
pub fn is_ours(index: &str, answer: &Value) -> bool {
    answer
        .get(index)
        .and_then(|i| i.pointer("/mappings/_meta/created_by"))
        .and_then(Value::as_str)
        == Some(CREATED_BY)
}

/// `body` (settings + mappings) with our mark added to `mappings._meta`.
pub fn marked_body(body: &Value) -> Value {
    let mut body = if body.is_object() {
        body.clone()
    } else {
        json!({})
    };
    let meta = json!({ "created_by": CREATED_BY, "tool_version": env!("CARGO_PKG_VERSION") });
    let mappings = body
        .as_object_mut()
        .map(|o| o.entry("mappings").or_insert_with(|| json!({})));
    if let Some(Value::Object(m)) = mappings {
        let entry = m.entry("_meta").or_insert_with(|| json!({}));
        if let (Value::Object(existing), Value::Object(ours)) = (entry, meta) {
            existing.extend(ours);
        }
    }
    body
}

/// Creates `index` afresh. An existing index we created is deleted first; one we did not
/// create is deleted only with `replace`, else this refuses.
pub async fn prepare(
    target: &Target,
    index: &str,
    body: &Value,
    replace: bool,
) -> Result<Previous, IngestError> {
    let reuse = Reuse {
        replace,
        ..Reuse::default()
    };
    Ok(setup(target, index, body, reuse).await?.previous)
}

/// [`prepare`], saying what was there before, and with `append` loading into an existing
/// index (ours or not) instead of replacing it.
pub async fn setup(
    target: &Target,
    index: &str,
    body: &Value,
    reuse: Reuse,
) -> Result<Prepared, IngestError> {
    check_name(index)?;
    let answer = match target.get_json::<Value>(&format!("/{index}")).await {
        Ok(answer) => Some(answer),
        Err(TargetError::Status { status: 404, .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let existing = match &answer {
        Some(answer) => Some(Existing {
            ours: is_ours(index, answer),
            created_unix_ms: answer
                .get(index)
                .and_then(|i| i.pointer("/settings/index/creation_date"))
                .and_then(|d| d.as_str()?.parse().ok()),
            docs: super::count(target, index).await.ok(),
        }),
        None => None,
    };
    if reuse.data_stream && existing.is_none() {
        target
            .send(Method::PUT, &format!("/_data_stream/{index}"), None)
            .await?;
        return Ok(Prepared {
            previous: Previous::Nothing,
            existing,
        });
    }
    let previous = match &existing {
        None => Previous::Nothing,
        Some(_) if reuse.append || reuse.shared => Previous::Appended,
        Some(e) if e.ours => Previous::Ours,
        Some(_) if reuse.replace => Previous::ReplacedForeign,
        Some(_) => {
            return Err(IngestError::Foreign {
                index: index.to_string(),
            })
        }
    };
    if previous == Previous::Appended {
        return Ok(Prepared { previous, existing });
    }
    if previous != Previous::Nothing {
        target
            .send(Method::DELETE, &format!("/{index}"), None)
            .await?;
    }
    let made: Result<Value, _> = target
        .send_json(Method::PUT, &format!("/{index}"), &marked_body(body))
        .await;
    match made {
        Ok(_) => {}
        // Another part made it between our look and our PUT.
        Err(TargetError::Status { reason, .. })
            if reuse.shared && reason.contains("resource_already_exists_exception") =>
        {
            return Ok(Prepared {
                previous: Previous::Appended,
                existing,
            });
        }
        Err(TargetError::Status {
            status: 400,
            reason,
            ..
        }) => {
            return Err(IngestError::Config(format!(
                "the engine refused the index body (settings and mappings) of {index:?}: {reason}"
            )))
        }
        Err(other) => return Err(other.into()),
    }
    // Primaries allocated before we start: the first bulk must not wait for them.
    // Any JSON answer will do: the bulk sinks (a driver's ceiling) answer health loosely,
    // so this is not [`Target::primaries_of`], which reads the answer's fields.
    let _: Value = target
        .get_json(&format!(
            "/_cluster/health/{index}?wait_for_status=yellow&timeout=30s"
        ))
        .await?;
    Ok(Prepared { previous, existing })
}

/// Deletes an index we created (and nothing else).
pub async fn delete_ours(target: &Target, index: &str) -> Result<bool, IngestError> {
    match target.get_json::<Value>(&format!("/{index}")).await {
        Ok(answer) if is_ours(index, &answer) => {
            target
                .send(Method::DELETE, &format!("/{index}"), None)
                .await?;
            Ok(true)
        }
        Ok(_) | Err(TargetError::Status { status: 404, .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Index settings to hold during the load.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LoadSettings {
    /// `index.refresh_interval`, e.g. `-1` or `30s`.
    pub refresh_interval: Option<String>,
    /// `index.number_of_replicas`.
    pub replicas: Option<u32>,
    /// `index.translog.durability`: `request` or `async`.
    pub translog_durability: Option<String>,
}

impl LoadSettings {
    fn pairs(&self) -> Vec<(&'static str, Value)> {
        let mut v = Vec::new();
        if let Some(r) = &self.refresh_interval {
            v.push(("index.refresh_interval", json!(r)));
        }
        if let Some(n) = self.replicas {
            v.push(("index.number_of_replicas", json!(n.to_string())));
        }
        if let Some(d) = &self.translog_durability {
            v.push(("index.translog.durability", json!(d)));
        }
        v
    }

    pub fn is_empty(&self) -> bool {
        self.pairs().is_empty()
    }
}

/// The values the settings had before [`apply`]; `Null` means "was not set" (reset on restore).
/// Written down on this machine too, until they are restored (`cluster::owed`).
#[derive(Debug, Clone, Default)]
pub struct Saved(Vec<(&'static str, Value)>, Owed);

impl Saved {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Sets the load-time settings and returns what they were.
pub async fn apply(
    target: &Target,
    index: &str,
    load: &LoadSettings,
) -> Result<Saved, IngestError> {
    let pairs = load.pairs();
    if pairs.is_empty() {
        return Ok(Saved::default());
    }
    let current: Value = target
        .get_json(&format!("/{index}/_settings?flat_settings=true"))
        .await?;
    let settings = current
        .get(index)
        .and_then(|i| i.get("settings"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut before: Vec<(&'static str, Value)> = (pairs.iter())
        .map(|(k, _)| (*k, settings.get(*k).cloned().unwrap_or(Value::Null)))
        .collect();
    let undo = Undo::Settings(
        before
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    );
    let uuid = settings.get("index.uuid").and_then(Value::as_str);
    let owed =
        owed::owe(target, index, uuid, undo, "a load's settings").map_err(IngestError::Config)?;
    // Another part of a group on this machine changed them first: what it wrote down is from
    // before either, and is what this one restores too (not the first's load-time values).
    if let Some(Undo::Settings(first)) = &owed.first {
        for (k, v) in before.iter_mut() {
            if let Some(was) = first.get(*k) {
                *v = was.clone();
            }
        }
    }
    put_settings(target, index, &pairs).await?;
    Ok(Saved(before, owed))
}

/// Puts back what [`apply`] changed.
pub async fn restore(target: &Target, index: &str, saved: &Saved) -> Result<(), IngestError> {
    if saved.0.is_empty() {
        return Ok(());
    }
    put_settings(target, index, &saved.0).await?;
    saved.1.paid();
    Ok(())
}

async fn put_settings(
    target: &Target,
    index: &str,
    pairs: &[(&'static str, Value)],
) -> Result<(), IngestError> {
    let body: serde_json::Map<String, Value> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let _: Value = target
        .send_json(
            Method::PUT,
            &format!("/{index}/_settings"),
            &Value::Object(body),
        )
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_mapping_and_keeps_the_rest() {
        let body = json!({"settings": {"number_of_shards": 1}, "mappings": {"_meta": {"workload": "logs"}, "properties": {"a": {"type": "keyword"}}}});
        let marked = marked_body(&body);
        assert_eq!(marked["mappings"]["_meta"]["created_by"], CREATED_BY);
        assert_eq!(marked["mappings"]["_meta"]["workload"], "logs");
        assert_eq!(marked["mappings"]["properties"]["a"]["type"], "keyword");
        assert_eq!(marked["settings"]["number_of_shards"], 1);
        let empty = marked_body(&Value::Null);
        assert_eq!(empty["mappings"]["_meta"]["created_by"], CREATED_BY);
    }

    #[test]
    fn ours_only_under_its_own_name() {
        let answer =
            json!({"searchbench-x": {"mappings": {"_meta": {"created_by": "searchbench"}}}});
        assert!(is_ours("searchbench-x", &answer));
        assert!(!is_ours("alias-of-x", &answer));
        assert!(!is_ours("y", &json!({"y": {"mappings": {}}})));
    }

    #[test]
    fn index_names_are_checked() {
        assert!(check_name("searchbench-logs").is_ok());
        assert!(check_name("Logs").is_err());
        assert!(check_name("a/b").is_err());
        assert!(check_name("_x").is_err());
        assert!(check_name("").is_err());
    }
}

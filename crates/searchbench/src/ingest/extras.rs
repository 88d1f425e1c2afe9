//! The user's index template and ingest pipeline: put under a `searchbench-<index>` name before
//! the index is created, and removed after the load (the name is ours, so is what it holds).

use reqwest::Method;
use serde_json::Value;

use super::IngestError;
use crate::cluster::{Target, TargetError};

/// An index template from a file: legacy (`_template`) or composable (`_index_template`),
/// told apart by its shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// Where it came from, for errors.
    pub file: String,
    pub body: Value,
    pub composable: bool,
}

/// An ingest pipeline from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub file: String,
    pub body: Value,
}

/// The name the template or pipeline of a load into `index` is put under.
pub fn name_for(index: &str) -> String {
    format!("searchbench-{}", index.trim_start_matches("searchbench-"))
}

impl Template {
    /// Reads the shape of `body`: a composable template holds its index body under
    /// `template` (an object) or uses `composed_of`, `priority`, `data_stream`; a legacy one
    /// has `settings`/`mappings`/`aliases`/`order` at the top. Either needs `index_patterns`
    /// (a legacy one may name its pattern in `template` instead).
    pub fn from_value(file: &str, body: Value) -> Result<Template, IngestError> {
        let bad = |why: &str| IngestError::Config(format!("template {file}: {why}"));
        let Some(o) = body.as_object() else {
            return Err(bad("not a JSON object"));
        };
        let composable = o.get("template").is_some_and(Value::is_object)
            || ["composed_of", "priority", "data_stream"]
                .iter()
                .any(|k| o.contains_key(*k));
        let legacy_pattern = o.get("template").is_some_and(Value::is_string);
        if !o.contains_key("index_patterns") && !legacy_pattern {
            return Err(bad(
                "no `index_patterns`: a template applies to the indices its patterns name",
            ));
        }
        Ok(Template {
            file: file.to_string(),
            body,
            composable,
        })
    }

    /// The template's index patterns.
    pub fn patterns(&self) -> Vec<String> {
        match self
            .body
            .get("index_patterns")
            .or_else(|| self.body.get("template").filter(|t| t.is_string()))
        {
            Some(Value::String(p)) => p.split(',').map(|s| s.trim().to_string()).collect(),
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// An error unless one of its patterns matches `index` (else it would silently apply to
    /// nothing the run creates).
    pub fn check_applies(&self, index: &str) -> Result<(), IngestError> {
        let patterns = self.patterns();
        if patterns.iter().any(|p| glob_matches(p, index)) {
            return Ok(());
        }
        Err(IngestError::Config(format!(
            "template {}: its index_patterns {patterns:?} do not match the index {index:?}, so \
             it would not apply; change the patterns or pass --index",
            self.file
        )))
    }

    fn path(&self, name: &str) -> String {
        if self.composable {
            format!("/_index_template/{name}")
        } else {
            format!("/_template/{name}")
        }
    }
}

/// `*` matches any run of characters; everything else matches itself.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

/// What the engine said when it refused a body from a file: its reason, as a usage error.
fn refused(what: &str, file: &str, e: TargetError, hint: &str) -> IngestError {
    match e {
        TargetError::Status {
            status: 400..=499,
            reason,
            ..
        } => IngestError::Config(format!(
            "the engine refused the {what} from {file}: {reason}{hint}"
        )),
        other => other.into(),
    }
}

/// Puts `template` for a load into `index`; returns the name it is under.
pub async fn put_template(
    target: &Target,
    index: &str,
    template: &Template,
) -> Result<String, IngestError> {
    template.check_applies(index)?;
    let name = name_for(index);
    target
        .send_json::<Value>(Method::PUT, &template.path(&name), &template.body)
        .await
        .map_err(|e| refused("template", &template.file, e, ""))?;
    Ok(name)
}

/// Removes the template [`put_template`] put.
pub async fn delete_template(
    target: &Target,
    template: &Template,
    name: &str,
) -> Result<(), IngestError> {
    target
        .send(Method::DELETE, &template.path(name), None)
        .await?;
    Ok(())
}

/// Puts `pipeline` for a load into `index`; returns its id (the bulk's `pipeline`).
pub async fn put_pipeline(
    target: &Target,
    index: &str,
    pipeline: &Pipeline,
) -> Result<String, IngestError> {
    let id = name_for(index);
    target
        .send_json::<Value>(
            Method::PUT,
            &format!("/_ingest/pipeline/{id}"),
            &pipeline.body,
        )
        .await
        .map_err(|e| {
            let hint = match &e {
                TargetError::Status { reason, .. } if reason.contains("processor") => {
                    "; this engine lacks that processor (minimal distributions such as \
                     Elasticsearch's integ-test-zip have no ingest-common module)"
                }
                _ => "",
            };
            refused("ingest pipeline", &pipeline.file, e, hint)
        })?;
    Ok(id)
}

/// Removes the pipeline [`put_pipeline`] put.
pub async fn delete_pipeline(target: &Target, id: &str) -> Result<(), IngestError> {
    target
        .send(Method::DELETE, &format!("/_ingest/pipeline/{id}"), None)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn template_shapes() {
        let c = Template::from_value(
            "t.json",
            json!({"index_patterns": ["logs-*"], "template": {"settings": {}}}),
        )
        .unwrap();
        assert!(c.composable);
        let l = Template::from_value(
            "t.json",
            json!({"index_patterns": ["logs-*"], "settings": {}, "order": 1}),
        )
        .unwrap();
        assert!(!l.composable);
        let old = Template::from_value("t.json", json!({"template": "logs-*"})).unwrap();
        assert_eq!(old.patterns(), vec!["logs-*"]);
        let e = Template::from_value("t.json", json!({"settings": {}})).unwrap_err();
        assert!(e.to_string().contains("t.json"), "{e}");
        assert!(c.check_applies("logs-1").is_ok());
        assert!(c.check_applies("metrics").is_err());
    }

    #[test]
    fn globs() {
        assert!(glob_matches("a*", "abc"));
        assert!(glob_matches("*c", "abc"));
        assert!(glob_matches("a*b*c", "axxbyyc"));
        assert!(!glob_matches("a*b*c", "axxc"));
        assert!(glob_matches("abc", "abc"));
        assert!(!glob_matches("ab*bc", "abc"));
        assert!(glob_matches("*", ""));
    }
}

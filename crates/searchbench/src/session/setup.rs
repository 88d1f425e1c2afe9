//! The user's index setup from files: a mapping, settings or a whole index body replacing the
//! workload's; an index template and an ingest pipeline put for the load and removed after.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Job, SessionError};
use crate::cluster::Target;
use crate::ingest::extras::{self, Pipeline, Template};
use crate::workload::json_file;

/// Files that set the index up (all optional).
#[derive(Debug, Clone, Default)]
pub struct SetupFiles {
    /// `mappings` (or an index body, whose `mappings` is taken).
    pub mapping: Option<PathBuf>,
    /// `settings` (or an index body, whose `settings` is taken).
    pub settings: Option<PathBuf>,
    /// The whole `PUT /{index}` body: settings and mappings.
    pub index_body: Option<PathBuf>,
    pub template: Option<PathBuf>,
    pub pipeline: Option<PathBuf>,
}

/// What is put beside the index for a load.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    pub template: Option<Template>,
    pub pipeline: Option<Pipeline>,
}

impl SetupFiles {
    pub fn is_empty(&self) -> bool {
        self.mapping.is_none()
            && self.settings.is_none()
            && self.index_body.is_none()
            && self.template.is_none()
            && self.pipeline.is_none()
    }

    /// Whether these files give the index its mappings.
    pub fn gives_mapping(&self) -> bool {
        self.mapping.is_some() || self.index_body.is_some()
    }

    /// Reads the files into the job's index body and the load's `extras` (its template and
    /// pipeline). A file that is not JSON, or not of the right shape, is a usage error naming
    /// it.
    pub fn apply(&self, job: &mut Job, extras: &mut Extras) -> Result<(), SessionError> {
        if self.index_body.is_some() && (self.mapping.is_some() || self.settings.is_some()) {
            return Err(SessionError::usage(
                "--index-body holds settings and mappings both; give it alone, or --mapping \
                 and --settings",
            ));
        }
        if let Some(path) = &self.index_body {
            let body =
                json_file::read_object(path, "an index body").map_err(SessionError::Usage)?;
            check_keys(
                path,
                &body,
                &["settings", "mappings", "aliases"],
                "an index body",
            )?;
            job.index_body = Value::Object(body);
            job.portable_body = false;
        }
        if let Some(path) = &self.mapping {
            let mut mapping =
                json_file::read_object(path, "a mapping").map_err(SessionError::Usage)?;
            if let Some(Value::Object(inner)) = mapping.remove("mappings") {
                mapping = inner;
            }
            set(&mut job.index_body, "mappings", Value::Object(mapping));
            job.portable_body = false;
        }
        if let Some(path) = &self.settings {
            let mut settings =
                json_file::read_object(path, "settings").map_err(SessionError::Usage)?;
            if let Some(Value::Object(inner)) = settings.remove("settings") {
                settings = inner;
            }
            set(&mut job.index_body, "settings", Value::Object(settings));
        }
        if let Some(path) = &self.template {
            let body = json_file::read(path).map_err(SessionError::Usage)?;
            extras.template = Some(Template::from_value(&name(path), body)?);
        }
        if let Some(path) = &self.pipeline {
            let body =
                json_file::read_object(path, "an ingest pipeline").map_err(SessionError::Usage)?;
            if !body.contains_key("processors") {
                return Err(SessionError::usage(format!(
                    "{}: an ingest pipeline needs `processors` (a list)",
                    path.display()
                )));
            }
            extras.pipeline = Some(Pipeline {
                file: name(path),
                body: Value::Object(body),
            });
        }
        Ok(())
    }
}

fn name(path: &Path) -> String {
    path.display().to_string()
}

fn check_keys(
    path: &Path,
    body: &serde_json::Map<String, Value>,
    allowed: &[&str],
    what: &str,
) -> Result<(), SessionError> {
    match body.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(SessionError::usage(format!(
            "{}: {what} has `{k}`; expected only {}",
            path.display(),
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

fn set(body: &mut Value, key: &str, value: Value) {
    if !body.is_object() {
        *body = Value::Object(Default::default());
    }
    if let Value::Object(o) = body {
        o.insert(key.to_string(), value);
    }
}

/// What [`put`] put, to remove after the load.
#[derive(Debug, Default)]
pub(super) struct Put {
    template: Option<(Template, String)>,
    pub pipeline: Option<String>,
}

/// Puts the template and the pipeline for a load into `index`.
pub(super) async fn put(
    target: &Target,
    index: &str,
    extras: &Extras,
) -> Result<Put, SessionError> {
    let mut done = Put::default();
    if let Some(t) = &extras.template {
        let name = extras::put_template(target, index, t).await?;
        done.template = Some((t.clone(), name));
    }
    if let Some(p) = &extras.pipeline {
        match extras::put_pipeline(target, index, p).await {
            Ok(id) => done.pipeline = Some(id),
            Err(e) => {
                remove(target, done).await;
                return Err(e.into());
            }
        }
    }
    Ok(done)
}

/// Removes what [`put`] put; what could not be removed is a warning.
pub(super) async fn remove(target: &Target, put: Put) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some((t, name)) = put.template {
        if let Err(e) = extras::delete_template(target, &t, &name).await {
            warnings.push(format!("could not remove the template {name}: {e}"));
        }
    }
    if let Some(id) = put.pipeline {
        if let Err(e) = extras::delete_pipeline(target, &id).await {
            warnings.push(format!("could not remove the ingest pipeline {id}: {e}"));
        }
    }
    warnings
}

//! `many-shards` and `snapshots`: the two scenarios of clusters with tens of thousands of
//! shards, over many small auditbeat-like indices. They are multi-phase ([`Scenario`]), run
//! by `searchbench run`; as plain workloads (`generate`) they are the auditbeat corpus.

use serde_json::{json, Value};

use super::{
    ndjson_writer, plain, reject, required_docs, settings, CorpusWriter, FileShape, Opened,
    Scenario, Workload, WorkloadSpec,
};
use crate::corpus::{Auditbeat, AuditbeatSpec, CorpusError};

/// One of the scenarios: its name, its one line, and which it is.
#[derive(Debug)]
pub struct ScenarioWorkload {
    name: &'static str,
    about: &'static str,
    index: &'static str,
    scenario: Scenario,
}

pub static MANY_SHARDS: ScenarioWorkload = ScenarioWorkload {
    name: "many-shards",
    about:
        "scenario: create and fill many auditbeat indices, logs with searches beside, field caps",
    index: "searchbench-many-shards",
    scenario: Scenario::ManyShards,
};

pub static SNAPSHOTS: ScenarioWorkload = ScenarioWorkload {
    name: "snapshots",
    about: "scenario: many auditbeat indices, then sequential snapshots and their completion",
    index: "searchbench-snapshots",
    scenario: Scenario::Snapshots,
};

impl Workload for ScenarioWorkload {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }

    fn default_index(&self) -> &'static str {
        self.index
    }

    fn index_body(&self) -> Value {
        auditbeat_body()
    }

    fn open(&self, spec: &WorkloadSpec) -> Result<Opened, CorpusError> {
        Ok(plain(Box::new(Auditbeat::new(auditbeat_spec(
            self.name, spec,
        )?)?)))
    }

    fn scenario(&self) -> Option<Scenario> {
        Some(self.scenario)
    }

    fn writer(&self, spec: &WorkloadSpec, shape: FileShape) -> Result<CorpusWriter, CorpusError> {
        auditbeat_writer(self.name, spec, shape)
    }
}

fn auditbeat_writer(
    name: &str,
    spec: &WorkloadSpec,
    shape: FileShape,
) -> Result<CorpusWriter, CorpusError> {
    if shape == FileShape::Csv {
        return Err(CorpusError::Invalid(
            "auditbeat documents are nested JSON; --format csv is for cluster-metrics and transactions"
                .into(),
        ));
    }
    Ok(ndjson_writer(Box::new(Auditbeat::new(auditbeat_spec(
        name, spec,
    )?)?)))
}

/// The auditbeat generator spec for `spec` (stream 0).
pub fn auditbeat_spec(name: &str, spec: &WorkloadSpec) -> Result<AuditbeatSpec, CorpusError> {
    let p = &spec.params;
    reject(name, "--rows-per-epoch", p.rows_per_epoch.is_some())?;
    reject(name, "--epochs", p.epochs.is_some())?;
    reject(name, "--dims", p.dims.is_some())?;
    reject(name, "--vector-index", p.vector_index.is_some())?;
    reject(name, "--truth", p.truth)?;
    reject(name, "--year", p.year.is_some())?;
    reject(name, "--window", p.window.is_some())?;
    let mut s = AuditbeatSpec::new(spec.seed, required_docs(name, spec)?);
    if let Some(start) = &p.start {
        s.start_ms = crate::corpus::text::parse_start(start)?;
    }
    Ok(s)
}

/// Settings and mappings of one auditbeat index: one primary, no replica.
pub fn auditbeat_body() -> Value {
    let kw = json!({ "type": "keyword" });
    let long = json!({ "type": "long" });
    json!({
        "settings": settings(),
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "@timestamp": { "type": "date" },
                "event": { "properties": {
                    "kind": kw, "module": kw, "dataset": kw, "action": kw, "category": kw,
                    "type": kw, "outcome": kw } },
                "host": { "properties": {
                    "name": kw, "hostname": kw, "architecture": kw, "ip": { "type": "ip" },
                    "os": { "properties": { "family": kw, "platform": kw, "version": kw } } } },
                "user": { "properties": { "name": kw, "id": kw } },
                "process": { "properties": {
                    "pid": long, "ppid": long, "name": kw, "executable": kw,
                    "working_directory": kw } },
                "file": { "properties": {
                    "path": kw, "type": kw, "owner": kw, "mode": kw, "size": long, "inode": kw } },
                "agent": { "properties": { "type": kw, "version": kw, "id": kw } },
                "ecs": { "properties": { "version": kw } },
                "message": { "type": "text" }
            }
        }
    })
}

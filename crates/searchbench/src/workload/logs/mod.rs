//! `logs`: CloudWatch-style syslog documents, ~1 KB each, and their query phase (range + terms,
//! histogram, match, top hosts per time slice, answers recomputed from the corpus: [`queries`]).

pub mod queries;

use serde_json::{json, Value};

use super::{
    ndjson_writer, plain, reject, required_docs, settings, CorpusWriter, FileShape, Opened,
    PartitionTruth, Workload, WorkloadSpec,
};
use crate::corpus::text::{parse_duration_ms, parse_start};
use crate::corpus::{CorpusError, Logs, LogsSpec};
use crate::query::beside::BesideSearch;
use crate::query::{dialect, Answerer, Dialect, QueryPlan, Variant};
use queries::{LogsQueries, DEFAULT_SLICES};

#[derive(Debug)]
pub struct LogsWorkload;

impl Workload for LogsWorkload {
    fn name(&self) -> &'static str {
        "logs"
    }

    fn about(&self) -> &'static str {
        "CloudWatch-style syslog documents, ~1 KB each"
    }

    fn default_index(&self) -> &'static str {
        "searchbench-logs"
    }

    fn index_body(&self) -> Value {
        logs_body()
    }

    fn open(&self, spec: &WorkloadSpec) -> Result<Opened, CorpusError> {
        Ok(plain(Box::new(Logs::new(logs_spec(spec)?)?)))
    }

    fn query_plan(
        &self,
        dialect: &dyn Dialect,
        _answerer: Option<&Answerer>,
        spec: &WorkloadSpec,
        _truth: Option<Vec<PartitionTruth>>,
    ) -> Result<Option<Box<dyn QueryPlan>>, CorpusError> {
        if !dialect.is(&dialect::SEARCH) {
            return Ok(None);
        }
        Ok(Some(Box::new(queries(spec)?)))
    }

    fn query_variants(&self) -> Vec<Variant> {
        queries::variants()
    }

    fn searches_beside(
        &self,
        spec: &WorkloadSpec,
    ) -> Result<Option<Vec<BesideSearch>>, CorpusError> {
        Ok(Some(queries(spec)?.beside()))
    }

    fn corpus_flags(&self) -> &'static str {
        "--seed, --docs, --start and --window"
    }

    fn writer(&self, spec: &WorkloadSpec, shape: FileShape) -> Result<CorpusWriter, CorpusError> {
        if shape == FileShape::Csv {
            return Err(CorpusError::Invalid(
                "logs documents are nested JSON; --format csv is for cluster-metrics and transactions"
                    .into(),
            ));
        }
        Ok(ndjson_writer(Box::new(Logs::new(logs_spec(spec)?)?)))
    }
}

/// The queries on the corpus of `spec` (`--slices` of its window, [`DEFAULT_SLICES`] unless
/// given).
fn queries(spec: &WorkloadSpec) -> Result<LogsQueries, CorpusError> {
    let slices = spec.params.slices.unwrap_or(DEFAULT_SLICES);
    if slices == 0 || slices as u64 > crate::query::MAX_SLICES {
        return Err(CorpusError::Invalid(format!(
            "--slices must be from 1 to {}",
            crate::query::MAX_SLICES
        )));
    }
    Ok(LogsQueries::new(logs_spec(spec)?, slices))
}

/// The `logs` generator spec for `spec`.
pub fn logs_spec(spec: &WorkloadSpec) -> Result<LogsSpec, CorpusError> {
    let p = &spec.params;
    reject("logs", "--rows-per-epoch", p.rows_per_epoch.is_some())?;
    reject("logs", "--epochs", p.epochs.is_some())?;
    reject("logs", "--truth", p.truth)?;
    reject("logs", "--year", p.year.is_some())?;
    reject("logs", "--first-epoch", p.first_epoch.is_some())?;
    reject("logs", "--dims", p.dims.is_some())?;
    reject("logs", "--vector-index", p.vector_index.is_some())?;
    let mut s = LogsSpec::new(spec.seed, required_docs("logs", spec)?);
    if let Some(start) = &p.start {
        s.start_ms = parse_start(start)?;
    }
    if let Some(window) = &p.window {
        s.window_ms = parse_duration_ms(window)?;
    }
    Ok(s)
}

/// `dynamic: strict` on every built-in mapping: a generator that drifts from its mapping
/// fails loudly at index time instead of silently creating dynamic fields.
fn logs_body() -> Value {
    let kw = json!({ "type": "keyword" });
    let long = json!({ "type": "long" });
    let date = json!({ "type": "date" });
    json!({
        "settings": settings(),
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "@timestamp": date,
                "aws": { "properties": { "cloudwatch": { "properties": {
                    "log_stream": kw, "ingestion_time": kw, "log_group": kw } } } },
                "cloud": { "properties": { "region": kw } },
                "log": { "properties": { "file": { "properties": { "path": kw } } } },
                "input": { "properties": { "type": kw } },
                "data_stream": { "properties": { "namespace": kw, "type": kw, "dataset": kw } },
                "process": { "properties": { "name": kw } },
                "message": { "type": "text" },
                "event": { "properties": { "id": kw, "ingested": date, "dataset": kw } },
                "host": { "properties": { "name": kw } },
                "metrics": { "properties": { "size": long, "tmin": long } },
                "agent": { "properties": {
                    "id": kw, "name": kw, "type": kw, "version": kw, "ephemeral_id": kw } },
                "tags": kw
            }
        }
    })
}

//! The user's queries file as a query phase: read it, fill its slots (time slices read their
//! range from the index), run it with the query method, keep the result.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::attach::Attach;
use super::lifecycle::{self, Measurements, Stage, Work};
use super::query::{
    engine_name, kept, measure_on, on_own_thread, setup_then_query, summarise, usage, QUERIED,
    QUERY, SETUP,
};
use super::{ClusterSpec, Observer, SessionError};
use crate::cluster::Target;
use crate::query::{QueryOptions, QueryResult};
use crate::store::Kind;
use crate::workload::queries_file::UserQueries;
use crate::workload::queries_file::{self as custom, UserQuery};

/// `searchbench query --queries FILE`: what to measure and how.
#[derive(Debug, Clone)]
pub struct FileQuerySpec {
    pub file: PathBuf,
    /// `variants` empty: every query of the file; `transports` empty: serial.
    pub options: QueryOptions,
    /// Only these queries (by name); all when empty.
    pub only: Vec<String>,
    /// Delay added between the driver and the cluster (`--rtt`) by a proxy on 127.0.0.1.
    pub rtt: Option<crate::cluster::delay::Rtt>,
}

/// The name a queries file gives its results: `queries:<file stem>`.
pub fn workload_name(file: &Path) -> String {
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("queries");
    format!("queries:{stem}")
}

/// The query plan of `queries` (from `file`) on `index`: time slices without bounds read
/// the field's min and max from the index.
pub async fn plan(
    target: &Target,
    index: &str,
    file: &str,
    workload: &str,
    queries: &[UserQuery],
) -> Result<UserQueries, SessionError> {
    let mut resolved = Vec::new();
    for q in queries {
        let range = match q.needs_range() {
            Some(field) => Some(range(target, index, field).await?),
            None => None,
        };
        resolved.push(q.resolve(file, range).map_err(usage)?);
    }
    Ok(UserQueries {
        workload: workload.to_string(),
        queries: resolved,
    })
}

/// Min and max of `field` in `index`, epoch ms.
async fn range(target: &Target, index: &str, field: &str) -> Result<(i64, i64), SessionError> {
    let body = json!({"size": 0, "aggs": {"min": {"min": {"field": field}}, "max": {"max": {"field": field}}}});
    let answer: Value = target
        .send_json(reqwest::Method::POST, &format!("/{index}/_search"), &body)
        .await?;
    let get = |k: &str| {
        answer
            .pointer(&format!("/aggregations/{k}/value"))?
            .as_f64()
    };
    match (get("min"), get("max")) {
        (Some(a), Some(b)) => Ok((a as i64, b as i64)),
        _ => Err(SessionError::usage(format!(
            "time slices: {index:?} has no values of {field:?} to slice"
        ))),
    }
}

/// Reads the queries file and keeps those named in `only` (all when empty).
pub fn read(file: &Path, only: &[String]) -> Result<Vec<UserQuery>, SessionError> {
    let all = custom::read(file).map_err(usage)?;
    if only.is_empty() {
        return Ok(all);
    }
    only.iter()
        .map(|name| {
            all.iter()
                .find(|q| &q.name == name)
                .cloned()
                .ok_or_else(|| {
                    SessionError::usage(crate::suggest::unknown(
                        &format!("query in {}", file.display()),
                        name,
                        all.iter().map(|q| q.name.as_str()),
                    ))
                })
        })
        .collect()
}

/// Runs the queries of a file on `target` and keeps the result.
pub async fn query_file(
    spec: FileQuerySpec,
    target: Target,
    urls: &[String],
    attach: &Attach,
    observer: &dyn Observer,
) -> Result<QueryResult, SessionError> {
    let workload = workload_name(&spec.file);
    let queries = read(&spec.file, &spec.only)?;
    let options = &spec.options;
    let config = json!({
        "workload": workload,
        "queries_file": spec.file.display().to_string(),
        "index": options.index,
        "urls": crate::cluster::redact_urls(urls),
        "queries": queries.iter().map(|q| q.name.clone()).collect::<Vec<_>>(),
        "transports": options.transports.iter().map(|t| t.name()).collect::<Vec<_>>(),
        "passes": options.passes,
        "rate": options.rate,
        "search_clients": options.clients,
        "profile": options.profile,
        "rtt_ms": spec.rtt.map(|r| r.rtt_ms),
        "jitter_ms": spec.rtt.map(|r| r.jitter_ms),
    });
    let mut config = crate::query::with_part(config, options);
    crate::query::with_axes(&mut config, options, &[]);
    let identity = attach.identity(Kind::Query, &workload, None, None, config);
    let cluster = ClusterSpec::given(target, urls, spec.rtt);
    let setup = Setup {
        spec: &spec,
        workload: &workload,
        queries: &queries,
        prepared: None,
    };
    let queries = FileQueries {
        spec: &spec,
        prepared: None,
        measured: None,
    };
    setup_then_query(
        &cluster,
        identity,
        [Box::new(setup), Box::new(queries)],
        attach,
        observer,
    )
    .await
}

/// The setup of a queries file's run: the index holds documents, and the file's queries are
/// made into a plan (time slices read their range from the index).
struct Setup<'p> {
    spec: &'p FileQuerySpec,
    workload: &'p str,
    queries: &'p [UserQuery],
    /// The engine that answers, and the plan: from its end until it is handed on.
    prepared: Option<Prepared>,
}

/// What the setup of a queries file's run hands on: the engine that answers, and the plan.
type Prepared = (String, UserQueries);

/// What the file's setup hands on to its query phase.
const PREPARED: lifecycle::Hand<Prepared> = lifecycle::Hand::new(SETUP);

impl lifecycle::Phase for Setup<'_> {
    fn name(&self) -> String {
        SETUP.into()
    }

    fn ended(&mut self, _: &Stage<'_>, _: &mut lifecycle::StepEnd) -> Option<lifecycle::Report> {
        self.prepared.take().map(|p| PREPARED.report(p))
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let index = &self.spec.options.index;
            let engine = check_index(stage.target, index).await?;
            let file = self.spec.file.display().to_string();
            let plan = plan(stage.target, index, &file, self.workload, self.queries).await?;
            self.prepared = Some((engine, plan));
            Ok(Measurements::default())
        })
    }
}

/// The query method on the file's plan: every query of it.
struct FileQueries<'p> {
    spec: &'p FileQuerySpec,
    /// What the setup handed on.
    prepared: Option<Prepared>,
    /// What the method measured, from its end until it is handed on.
    measured: Option<QueryResult>,
}

impl lifecycle::Phase for FileQueries<'_> {
    fn name(&self) -> String {
        QUERY.into()
    }

    fn given(&mut self, before: &mut lifecycle::Outcome) {
        self.prepared = before.take(&PREPARED);
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            let (engine, plan) = self.prepared.take().ok_or_else(|| {
                SessionError::Other("the query phase ran before its setup".into())
            })?;
            let mut options = self.spec.options.clone();
            // The queries chosen are the plan's: every one of them.
            options.variants = Vec::new();
            let result = measure_on(stage, Box::new(plan), options, engine).await?;
            let measurements = kept(&result, &stage.feed);
            stage.measured_from.set(result.measured_from);
            self.measured = Some(result);
            Ok(measurements)
        })
    }

    fn ended(&mut self, _: &Stage<'_>, end: &mut lifecycle::StepEnd) -> Option<lifecycle::Report> {
        let mut result = self.measured.take()?;
        summarise(&mut result, &mut end.watched);
        Some(QUERIED.report(result))
    }
}

/// The engine's name, once the index is known to hold documents.
async fn check_index(target: &Target, index: &str) -> Result<String, SessionError> {
    let engine = engine_name(target).await?;
    match crate::ingest::count(target, index).await {
        Ok(n) if n > 0 => Ok(engine),
        Ok(_) => Err(SessionError::Other(format!(
            "index {index:?} holds no documents, nothing was measured"
        ))),
        Err(e) => Err(SessionError::Other(format!(
            "cannot count the documents of {index:?}, nothing was measured: {}",
            crate::cluster::error_chain(&e)
        ))),
    }
}

/// The user's queries as the query phase of `searchbench run`.
#[derive(Debug, Clone)]
pub struct UserQueryPhase {
    /// Where they came from (for errors).
    pub file: String,
    /// The result's workload name.
    pub workload: String,
    pub queries: Vec<UserQuery>,
    pub passes: u32,
    /// Empty: serial.
    pub transports: Vec<crate::query::Transport>,
}

/// Runs `phase` on `index` after a load, like the built-in workloads' query phase.
pub async fn after_ingest(
    target: Target,
    index: &str,
    phase: &UserQueryPhase,
    progress: crate::query::Progress,
    split: Option<&super::join::RunPart>,
    observer: &dyn Observer,
) -> Result<Option<QueryResult>, SessionError> {
    observer.event(super::Event::Querying {
        index,
        workload: &phase.workload,
        has_queries: true,
    });
    let plan = plan(&target, index, &phase.file, &phase.workload, &phase.queries).await?;
    let mut options = QueryOptions::new(index);
    options.passes = phase.passes.max(1);
    options.transports = phase.transports.clone();
    options.progress = progress;
    // A part measures its share of each query's coverages.
    if let Some(split) = split {
        options.part = split.part;
        options.group = split.group.clone();
    }
    let measured = on_own_thread(&target, move |target| async move {
        crate::query::run(&plan, &target, &options).await
    })
    .await?;
    Ok(Some(measured.map_err(usage)?))
}

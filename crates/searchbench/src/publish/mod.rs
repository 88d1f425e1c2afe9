//! Publishing stored runs to a team's Elasticsearch or OpenSearch cluster (field note 003: a
//! nightly's results the whole team sees, charted in Kibana or OpenSearch Dashboards, as
//! Rally's and OSB's metrics stores are). The local store stays the first copy: a run is read
//! from it and sent whole, and the store notes where it went ([`crate::store::Store::pending`]).
//!
//! Seven indices, named `PREFIX-runs`, `-metrics`, `-timeline`, `-telemetry`, `-tasks`, `-changes`,
//! `-annotations` (prefix
//! `searchbench` unless told), each created with its mapping before the first document:
//! - runs: one document per run (its identity, state, tags, times, configuration and the
//!   stored row whole under `row`, not indexed, so it can be read back as it was);
//! - metrics: one document per metric per run (the figures `compare` and `history` read), with
//!   the run's identity beside each, so a chart needs no join;
//! - timeline: one document per second of a load; telemetry: one per node per sample;
//! - tasks: one per task of a track run;
//! - changes: one per change point of a published run's configuration (its history by
//!   version and by time), replaced whole on each publish ([`changes`]);
//! - annotations: the team's notes (`searchbench annotate`), one each ([`annotations`]).
//!
//! Every document's id is derived from the run's (`RUN`, `RUN:metric`, `RUN:second`, ...):
//! publishing twice leaves one copy, and a run published again (it ended after, it was merged
//! again) replaces its documents. A publish succeeds only when every document was taken.
//!
//! Nothing secret is published: what is sent is what the store holds (URLs without their
//! credentials, a track's secret parameters redacted), and the results cluster's own
//! credentials are never in a document.

use crate::analysis::said::Said;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::Method;
use serde_json::{json, Map, Value};

use crate::analysis::compare::timeline_of;
use crate::cluster::{Target, TargetError};
use crate::store::{RunId, RunRow, Store, StoreError};

mod annotations;
mod batch;
mod changes;
pub mod dashboards;
pub mod ledger;
pub mod notify;
mod purge;
mod read;
mod verify;
pub mod whole;

pub use batch::{FailedRun, Published, SentRun, OWED_AT_A_RUN};
pub use purge::ClusterPruned;
pub use read::{ReadBack, Reading};
pub use verify::{Missing, Verified};

/// The version of what a publish writes (the indices, their mappings and their documents'
/// fields, as the README's "Published schema" lists them), kept in each index's mapping
/// (`_meta.searchbench_schema`). A change that renames or drops a field, or changes its
/// meaning, makes it one more; an index of a newer schema is neither written nor read.
pub const SCHEMA: u64 = 1;

/// The indices' prefix unless told otherwise.
pub const DEFAULT_PREFIX: &str = "searchbench";

/// The most bytes one `_bulk` request carries: well under the engines' default
/// `http.max_content_length` (100 MB), small enough to retry cheaply.
const BULK_BYTES: usize = 4 << 20;

/// What a run's documents go into, after the prefix.
const INDICES: [&str; 7] = [
    "runs",
    "metrics",
    "timeline",
    "telemetry",
    "tasks",
    "changes",
    "annotations",
];

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("publishing to {destination}: {source}")]
    Target {
        destination: String,
        source: TargetError,
    },
    #[error("publishing to {destination}: {reason}")]
    Refused { destination: String, reason: String },
    #[error("bad indices' prefix {0:?}: lowercase letters, digits, '-' and '_', starting with a letter, at most 100 characters")]
    Prefix(String),
    #[error("bad metric key {0:?}: letters, digits, '_', '-' and '.', at most 200 characters (as `results show` names them)")]
    MetricKey(String),
    #[error("--metric {0} is given twice: a dashboard charts each metric once")]
    MetricTwice(String),
    #[error("{0} metrics asked for: a dashboard charts at most {max}", max = dashboards::MAX_METRICS)]
    TooManyMetrics(usize),
}

/// Refuses a prefix that would not make plain index names (or would name another's).
pub fn check_prefix(prefix: &str) -> Result<(), PublishError> {
    let ok = !prefix.is_empty()
        && prefix.len() <= 100
        && prefix.starts_with(|c: char| c.is_ascii_lowercase())
        && prefix
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(PublishError::Prefix(prefix.to_string()))
    }
}

/// Where runs are published: a cluster and the prefix of its indices.
pub struct Publisher {
    target: Target,
    prefix: String,
    /// What it could not publish, for the command's ending.
    ledger: std::sync::Arc<ledger::Ledger>,
}

/// What one run's publishing sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sent {
    pub documents: usize,
    pub requests: usize,
}

impl Publisher {
    /// Publishes to `target` into indices named `prefix-*`.
    pub fn new(target: Target, prefix: &str) -> Result<Publisher, PublishError> {
        check_prefix(prefix)?;
        Ok(Publisher {
            target,
            prefix: prefix.to_string(),
            ledger: Default::default(),
        })
    }

    /// Noting what it could not publish in `ledger` (one for every publisher of a command).
    pub fn with_ledger(mut self, ledger: std::sync::Arc<ledger::Ledger>) -> Self {
        self.ledger = ledger;
        self
    }

    /// Where this publisher sends, as the store notes it: the cluster's address without
    /// credentials, and the prefix.
    pub fn destination(&self) -> String {
        let url = self
            .target
            .urls()
            .first()
            .map(|u| crate::cluster::redact_url(u.as_str()))
            .unwrap_or_default();
        format!("{} {}", url.trim_end_matches('/'), self.prefix)
    }

    /// The index of `what` (`runs`, `metrics`, ...).
    pub fn index(&self, what: &str) -> String {
        format!("{}-{what}", self.prefix)
    }

    fn target_error(&self, source: TargetError) -> PublishError {
        PublishError::Target {
            destination: self.destination(),
            source,
        }
    }

    /// Makes the indices, each with its mapping, where they do not exist yet.
    pub async fn prepare(&self) -> Result<(), PublishError> {
        for what in INDICES {
            let index = self.index(what);
            let exists = self
                .target
                .send(Method::HEAD, &format!("/{index}"), None)
                .await;
            match exists {
                Ok(_) => {
                    self.check_schema(&index).await?;
                    continue;
                }
                Err(TargetError::Status { status: 404, .. }) => {}
                Err(e) => return Err(self.target_error(e)),
            }
            let body = json!({"mappings": mapping(what)}).to_string().into_bytes();
            match self
                .target
                .send(
                    Method::PUT,
                    &format!("/{index}"),
                    Some(("application/json", body)),
                )
                .await
            {
                Ok(_) => {}
                // Made meanwhile by another publisher: as good.
                Err(TargetError::Status {
                    status: 400,
                    ref reason,
                    ..
                }) if reason.contains("already_exists") => {}
                Err(e) => return Err(self.target_error(e)),
            }
        }
        Ok(())
    }

    /// Refuses `index` when a newer searchbench made it (its mapping's
    /// `_meta.searchbench_schema` above [`SCHEMA`]): this one would write fields that index
    /// no longer means, or read them wrong. An index without the mark is of schema 1 (made
    /// before the mark was written).
    pub async fn check_schema(&self, index: &str) -> Result<(), PublishError> {
        let answer: Value = match self.target.get_json(&format!("/{index}/_mapping")).await {
            Ok(v) => v,
            // None there, or a user allowed to write and read documents but not to read
            // mappings (a publish-only role): nothing to go by, as before the mark.
            Err(TargetError::Status {
                status: 401 | 403 | 404,
                ..
            }) => return Ok(()),
            Err(e) => return Err(self.target_error(e)),
        };
        let found = answer
            .as_object()
            .into_iter()
            .flat_map(|m| m.values())
            .filter_map(|i| i["mappings"]["_meta"]["searchbench_schema"].as_u64())
            .max()
            .unwrap_or(1);
        if found > SCHEMA {
            return Err(PublishError::Refused {
                destination: self.destination(),
                reason: format!(
                    "{index} holds schema {found}, written by a newer searchbench; this one \
                     writes and reads schema {SCHEMA}: use a newer searchbench, or another \
                     prefix (--publish-prefix, --from-prefix)"
                ),
            });
        }
        Ok(())
    }

    /// Makes the indices where they are missing, then publishes the stored run `id`: one
    /// run's whole publish, as a command that stores a run does it.
    pub async fn prepare_and_publish(
        &self,
        store: &Store,
        id: &RunId,
    ) -> Result<Sent, PublishError> {
        if let Err(e) = self.prepare().await {
            self.note_failed(store, id, &e);
            return Err(e);
        }
        self.publish(store, id).await
    }

    /// Publishes the stored run `id` whole, replacing any copy the cluster holds, and notes
    /// it in the store. Every document must be taken, else the run stays pending, noted so
    /// in the store and in this process's [`ledger`].
    pub async fn publish(&self, store: &Store, id: &RunId) -> Result<Sent, PublishError> {
        let sent = self.send_run(store, id).await;
        match &sent {
            Ok(_) => self.ledger.sent(&id.0, &self.destination()),
            Err(e) => self.note_failed(store, id, e),
        }
        sent
    }

    /// Notes in the store and the ledger that run `id` could not be published here.
    pub(crate) fn note_failed(&self, store: &Store, id: &RunId, e: &PublishError) {
        let error = crate::cluster::error_chain(e);
        let destination = self.destination();
        // The store may be what failed: the ledger still says it.
        let _ = store.mark_publish_failed(id, &destination, &error);
        self.ledger.failed(&id.0, &destination, &error);
    }

    async fn send_run(&self, store: &Store, id: &RunId) -> Result<Sent, PublishError> {
        let row = store.get(&id.0)?;
        let documents = documents(store, &row, self)?;
        // The run's own documents go last: a run document says the rest is there.
        let mut sent = Sent::default();
        let mut body = Vec::new();
        let mut in_body = Vec::new();
        for (index, doc_id, doc) in &documents {
            let action = json!({"index": {"_index": index, "_id": doc_id}});
            body.extend_from_slice(action.to_string().as_bytes());
            body.push(b'\n');
            body.extend_from_slice(doc.to_string().as_bytes());
            body.push(b'\n');
            in_body.push((index.clone(), doc_id.clone()));
            if body.len() >= BULK_BYTES {
                self.bulk(std::mem::take(&mut body), &in_body).await?;
                sent.requests += 1;
                sent.documents += in_body.len();
                in_body.clear();
            }
        }
        if !in_body.is_empty() {
            self.bulk(body, &in_body).await?;
            sent.requests += 1;
            sent.documents += in_body.len();
        }
        // Searchable now rather than at the next refresh (a second away, per bulk when the
        // bulk waits for it). Best effort: a user that may write but not refresh still
        // published everything, and the cluster's own refresh follows within its interval.
        let indices: Vec<String> = INDICES.iter().map(|w| self.index(w)).collect();
        let _ = self
            .target
            .send(
                Method::POST,
                &format!("/{}/_refresh", indices.join(",")),
                None,
            )
            .await;
        // Dated as its run document is, so a run read back from here shows the same time.
        let at = documents
            .last()
            .and_then(|(_, _, doc)| doc["published_at"].as_u64())
            .map(|ms| ms / 1000);
        match at {
            Some(at) => store.mark_published_at(&row.id, &self.destination(), row.state, at)?,
            None => store.mark_published(&row.id, &self.destination(), row.state)?,
        }
        Ok(sent)
    }

    /// One `_bulk` request of the documents `ids` (index, id) in order; every item must be
    /// taken, read item by item as the ingest reads them (a cluster may say `"errors":false`
    /// beside a refused item).
    async fn bulk(&self, body: Vec<u8>, ids: &[(String, String)]) -> Result<(), PublishError> {
        let reply = self
            .target
            .send(Method::POST, "/_bulk", Some(("application/x-ndjson", body)))
            .await
            .map_err(|e| self.target_error(e))?;
        crate::ingest::bulk_answer::all_taken(&reply.body, ids.len()).map_err(|untaken| {
            let reason = match untaken.position.and_then(|k| ids.get(k)) {
                Some((index, id)) => format!("document {id} of {index} refused: {}", untaken.why),
                None => format!("the _bulk answer: {}", untaken.why),
            };
            PublishError::Refused {
                destination: self.destination(),
                reason,
            }
        })
    }
}

/// The mapping of the index of `what`: strings are keywords (Kibana and Dashboards split and
/// filter by them), times are dates, and what is kept whole for reading back is not indexed.
fn mapping(what: &str) -> Value {
    let mut properties = Map::new();
    for date in [
        "started_at",
        "finished_at",
        "published_at",
        "at",
        "created_at",
    ] {
        properties.insert(
            date.into(),
            json!({"type": "date", "format": "epoch_millis"}),
        );
    }
    for whole in ["row", "config", "machine"]
        .into_iter()
        .chain(whole::KEPT_WHOLE)
    {
        properties.insert(whole.into(), json!({"type": "object", "enabled": false}));
    }
    if what == "metrics" {
        properties.insert("value".into(), json!({"type": "double"}));
    }
    if what == "runs" {
        properties.insert("store_order".into(), json!({"type": "long"}));
    }
    properties.insert("engine_rank".into(), json!({"type": "long"}));
    json!({
        "_meta": {"searchbench_schema": SCHEMA},
        "dynamic_templates": [
            {"strings": {"match_mapping_type": "string", "mapping": {"type": "keyword", "ignore_above": 1024}}},
            {"numbers": {"match_mapping_type": "long", "mapping": {"type": "double"}}}
        ],
        "properties": properties,
    })
}

fn millis(unix_secs: u64) -> u64 {
    unix_secs.saturating_mul(1000)
}

/// The fields [`identity`] gives every document of a run: reading a timeline second or a
/// telemetry sample back takes them off again.
const IDENTITY_KEYS: [&str; 12] = [
    "run_id",
    "kind",
    "workload",
    "configuration",
    "engine",
    "engine_rank",
    "state",
    "tool_version",
    "started_at",
    "tags",
    // A part's, and a run too short for its warm-up's, only.
    "part",
    "left_out_of_verdicts",
];

/// What every document of a run carries, so a chart or a filter needs no join: a chart of a
/// metric draws one line per configuration (as `history` groups runs), and orders engines
/// by [`engine_rank`].
fn identity(row: &RunRow) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("run_id".into(), row.id.0.clone().into());
    m.insert("kind".into(), row.kind.clone().into());
    m.insert("workload".into(), row.workload.clone().into());
    m.insert(
        "configuration".into(),
        crate::analysis::configuration::Configuration::of(row)
            .id
            .into(),
    );
    m.insert("engine".into(), row.engine.clone().into());
    m.insert(
        "engine_rank".into(),
        engine_rank(row.engine.as_deref()).map_or(Value::Null, Value::from),
    );
    m.insert("state".into(), row.state.name().into());
    // What the dashboards leave out, as `history` does: a part of a run split over drivers
    // (its group's merged run stands for it), a run too short for its warm-up.
    if let Some(part) = crate::analysis::merge::part_of(row) {
        m.insert("part".into(), part.to_string().into());
    }
    if crate::analysis::configuration::whole_run_headline(row).is_some() {
        m.insert("left_out_of_verdicts".into(), true.into());
    }
    m.insert("tool_version".into(), row.tool_version.clone().into());
    m.insert("started_at".into(), millis(row.started_unix).into());
    m.insert("tags".into(), json!(row.tags));
    m
}

/// A number that orders engines as `history`'s version axis does: by product (Elasticsearch,
/// then OpenSearch, then any other), then release (`opensearch-2.9.0` before
/// `opensearch-2.10.0`, which their names' order reverses). A chart sorts its engines by it.
/// None for a run without an engine, or a release whose parts do not fit three digits. An
/// integer, so an index made before it mapped it maps it as the other numbers (a double,
/// exact to 2^53), not as a float that would merge neighbouring releases.
pub fn engine_rank(engine: Option<&str>) -> Option<u64> {
    let (product, rest) = engine?.split_once('-')?;
    let product = match product {
        "elasticsearch" => 1,
        "opensearch" => 2,
        _ => 3,
    };
    let number = rest.split_once('-').map_or(rest, |(n, _)| n);
    let mut rank: u64 = product;
    let mut parts = number.split('.');
    for _ in 0..3 {
        let part: u64 = match parts.next() {
            Some(p) => p.parse().ok()?,
            None => 0,
        };
        if part >= 1000 {
            return None;
        }
        rank = rank * 1000 + part;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(rank)
}

/// The run's documents: (index, id, document), the run's own last.
fn documents(
    store: &Store,
    row: &RunRow,
    p: &Publisher,
) -> Result<Vec<(String, String, Value)>, StoreError> {
    let id = &row.id.0;
    let base = identity(row);
    let with = |extra: Value| -> Value {
        let mut doc = base.clone();
        if let Value::Object(extra) = extra {
            doc.extend(extra);
        }
        Value::Object(doc)
    };
    let mut docs = Vec::new();
    let timeline = timeline_of(store, row)?;
    let phases = store.phases(&row.id)?;
    let metrics = crate::analysis::metrics::of_run(row.result.as_ref(), &timeline, &phases);
    // The headline: the first of history's headline figures the run has, else its first.
    let headline = crate::analysis::history::HEADLINE
        .iter()
        .find_map(|key| metrics.iter().find(|m| m.key == *key))
        .or(metrics.first())
        .map(|m| json!({"metric": m.key, "value": finite(m.value), "unit": m.unit}));
    for m in &metrics {
        docs.push((
            p.index("metrics"),
            format!("{id}:{}", m.key),
            with(json!({
                "metric": m.key,
                "label": m.label,
                "unit": m.unit,
                "direction": m.direction,
                "value": finite(m.value),
                "errors": m.errors,
            })),
        ));
    }
    // A load's seconds are counted from its own start when the result says it.
    let said = Said::of(row);
    let load_start_ms = said
        .load_started_unix_ms
        .unwrap_or(millis(row.started_unix));
    for second in &timeline {
        let Some(s) = second.get("second").and_then(Value::as_u64) else {
            continue;
        };
        let mut extra = second.clone();
        extra["at"] = load_start_ms.saturating_add(s.saturating_mul(1000)).into();
        docs.push((p.index("timeline"), format!("{id}:{s}"), with(extra)));
    }
    for sample in store.telemetry(&row.id)? {
        let (Some(s), Some(node)) = (
            sample.get("second").and_then(Value::as_u64),
            sample.get("node").and_then(Value::as_str),
        ) else {
            continue;
        };
        let doc_id = format!("{id}:{s}:{node}");
        let mut extra = sample.clone();
        extra["at"] = millis(row.started_unix)
            .saturating_add(s.saturating_mul(1000))
            .into();
        docs.push((p.index("telemetry"), doc_id, with(extra)));
    }
    for task in said.tasks.iter().flatten() {
        let Ok(Value::Object(mut doc)) = serde_json::to_value(task) else {
            continue;
        };
        // A part's operations per second are keyed by the second: as fields, one each, they
        // would grow the mapping without bound (the timeline has them by row).
        doc.remove("per_second");
        let name = &task.task;
        docs.push((
            p.index("tasks"),
            format!("{id}:{name}"),
            with(Value::Object(doc)),
        ));
    }
    let mut run = base.clone();
    run.insert("status".into(), row.status.clone().into());
    run.insert(
        "finished_at".into(),
        row.finished_unix
            .map(millis)
            .map_or(Value::Null, Value::from),
    );
    run.insert("seed".into(), row.seed.into());
    run.insert("error".into(), row.error.clone().into());
    run.insert("config".into(), row.config.clone());
    // The configuration's plain settings as text, to filter and split by (the whole
    // configuration is kept as it is, not indexed: its values' types differ run to run).
    let settings: Map<String, Value> = row
        .config
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Number(_) | Value::Bool(_) => v.to_string(),
                _ => return None,
            };
            Some((k.clone(), Value::String(text)))
        })
        .collect();
    run.insert("settings".into(), Value::Object(settings));
    run.insert("headline".into(), headline.unwrap_or(Value::Null));
    run.insert("machine".into(), row.machine.clone());
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis();
    run.insert(
        "published_at".into(),
        u64::try_from(now).unwrap_or(u64::MAX).into(),
    );
    run.insert(
        "row".into(),
        serde_json::to_value(row).map_err(StoreError::Json)?,
    );
    // The rest of the run as stored, so it reads back whole (`read`), in its store's order.
    run.insert("store_order".into(), store.order_of(&row.id)?.into());
    run.insert("timeline".into(), Value::Array(store.timeline(&row.id)?));
    run.insert(
        "histograms".into(),
        whole::histograms_value(&store.histograms(&row.id)?),
    );
    run.insert(
        "phases".into(),
        whole::phases_value(&store.phases(&row.id)?)
            .map_err(|e| StoreError::Corrupt(format!("run {id}: {e}")))?,
    );
    docs.push((p.index("runs"), id.clone(), Value::Object(run)));
    Ok(docs)
}

/// A figure as JSON: NaN and infinities have no JSON form, and an engine refuses them.
fn finite(v: f64) -> Value {
    if v.is_finite() {
        v.into()
    } else {
        Value::Null
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::double;
    use crate::measure::{Measurements, SerializedHistogram};
    use crate::store::{Kind, NewRun, PhaseMeasurements, WholeRun};

    fn publisher() -> Publisher {
        let target =
            Target::new(&crate::cluster::TargetConfig::local("http://127.0.0.1:9")).unwrap();
        Publisher::new(target, "t").unwrap()
    }

    /// A cluster that says `"errors":false` while refusing the last item of every bulk.
    fn lying_bulk(r: &double::Request) -> String {
        if r.path != "/_bulk" {
            return "{}".into();
        }
        let docs = r
            .body
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .count()
            / 2;
        let mut items = vec![r#"{"index":{"status":201}}"#; docs.saturating_sub(1)];
        items.push(
            r#"{"index":{"status":400,"error":{"type":"mapper_parsing_exception","reason":"no"}}}"#,
        );
        format!(
            r#"{{"took":1,"errors":false,"items":[{}]}}"#,
            items.join(",")
        )
    }

    #[tokio::test]
    async fn a_bulk_answer_saying_no_errors_is_read_item_by_item() {
        let cluster = double::Double::serve(lying_bulk);
        let store = Store::in_memory(std::env::temp_dir()).unwrap();
        let id = stored(&store);
        let target = Target::new(&crate::cluster::TargetConfig::local(&cluster.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let e = p.publish(&store, &id).await.unwrap_err().to_string();
        assert!(
            e.contains("mapper_parsing_exception") && e.contains("refused"),
            "{e}"
        );
        // Still pending: the next publish sends it again.
        let pending = store
            .pending(&p.destination(), &crate::store::Filter::default())
            .unwrap();
        assert!(pending.iter().any(|r| r.id == id), "{pending:?}");
    }

    /// A part of a run split over drivers says so in every document it publishes, and the
    /// dashboards' points leave parts out (their group's merged run stands for them, as in
    /// `history`): three parts are never three lines at a third of the load.
    #[test]
    fn a_parts_documents_say_so_and_the_dashboards_leave_them_out() {
        let store = Store::in_memory(std::env::temp_dir()).unwrap();
        let run = NewRun::new(
            Kind::Ingest,
            "logs",
            json!({"clients": 2, "part": "1/3", "group": "g"}),
        );
        let id = store.save(&run, &json!({"docs_per_sec": 1000.0})).unwrap();
        let row = store.get(&id.0).unwrap();
        let docs = documents(&store, &row, &publisher()).unwrap();
        assert!(!docs.is_empty());
        assert!(docs.iter().all(|(_, _, d)| d["part"] == "1/3"), "{docs:?}");
        let whole = stored(&store);
        let row = store.get(&whole.0).unwrap();
        let docs = documents(&store, &row, &publisher()).unwrap();
        assert!(docs.iter().all(|(_, _, d)| d.get("part").is_none()));
        let body = dashboards::vega::points_body("docs_per_sec", dashboards::vega::Over::Time);
        let not = body["query"]["bool"]["must_not"].to_string();
        assert!(not.contains(r#"{"exists":{"field":"part"}}"#), "{not}");
    }

    /// What a store owes, sent at a run's end: twenty at most, and none after one fails, so
    /// a cluster refusing (or stalling) costs the run's end one run's publish, not one per run
    /// owed; the rest stay pending, counted.
    #[tokio::test]
    async fn a_runs_end_sends_twenty_owed_runs_at_most_and_none_after_one_fails() {
        let store = Store::in_memory(std::env::temp_dir()).unwrap();
        for _ in 0..25 {
            stored(&store);
        }
        let owed = |p: &Publisher| {
            let pending = store.pending(&p.destination(), &crate::store::Filter::default());
            pending.unwrap()
        };
        let refusing = double::Double::serve(lying_bulk);
        let target = Target::new(&crate::cluster::TargetConfig::local(&refusing.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let (done, later) = p.publish_owed(&store, owed(&p)).await;
        assert_eq!((done.sent.len(), done.failed.len(), later), (0, 1, 24));
        let bulks = refusing
            .requests()
            .iter()
            .filter(|r| r.path == "/_bulk")
            .count();
        assert_eq!(bulks, 1);
        assert_eq!(owed(&p).len(), 25);
        let taking = double::Double::serve(|r| {
            if r.path != "/_bulk" {
                return "{}".into();
            }
            let lines = r.body.split(|b| *b == b'\n').filter(|l| !l.is_empty());
            let items = vec![r#"{"index":{"status":201}}"#; lines.count() / 2];
            format!(
                r#"{{"took":1,"errors":false,"items":[{}]}}"#,
                items.join(",")
            )
        });
        let target = Target::new(&crate::cluster::TargetConfig::local(&taking.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let (done, later) = p.publish_owed(&store, owed(&p)).await;
        assert_eq!((done.sent.len(), done.failed.len(), later), (20, 0, 5));
        assert_eq!(owed(&p).len(), 5);
    }

    #[tokio::test]
    async fn an_index_a_newer_searchbench_made_is_neither_written_nor_read() {
        let cluster = double::Double::serve(|r| {
            if r.path.contains("_mapping") {
                json!({"t-runs": {"mappings": {"_meta": {"searchbench_schema": SCHEMA + 1}}}})
                    .to_string()
            } else {
                "{}".to_string()
            }
        });
        let target = Target::new(&crate::cluster::TargetConfig::local(&cluster.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let e = p.prepare().await.unwrap_err().to_string();
        assert!(
            e.contains(&format!("t-runs holds schema {}", SCHEMA + 1)),
            "{e}"
        );
        let into = Store::in_memory(std::env::temp_dir()).unwrap();
        let e = p.read_runs(&into).await.unwrap_err().to_string();
        assert!(e.contains("newer searchbench"), "{e}");
        // What a publish makes says its schema.
        assert_eq!(mapping("runs")["_meta"]["searchbench_schema"], SCHEMA);
        // Nothing was written.
        let wrote = cluster
            .requests()
            .iter()
            .any(|r| r.method == "PUT" || r.path.contains("_bulk"));
        assert!(!wrote);
    }

    /// The run document of a stored run, as a publish writes it.
    fn run_document(store: &Store, id: &RunId) -> Value {
        let row = store.get(&id.0).unwrap();
        let docs = documents(store, &row, &publisher()).unwrap();
        docs.last().unwrap().2.clone()
    }

    /// A hit of `doc` under the document id `id`, its run id `id` too.
    fn hit(doc: &Value, id: &str, sort: i64) -> Value {
        let mut source = doc.clone();
        source["row"]["id"] = id.into();
        json!({"_id": id, "_source": source, "sort": [sort]})
    }

    #[tokio::test]
    async fn documents_a_publish_never_writes_are_skipped_and_named_the_rest_read() {
        let store = Store::in_memory(std::env::temp_dir()).unwrap();
        let id = stored(&store);
        let doc = run_document(&store, &id);
        let hits = json!([
            hit(&doc, &id.0, 1),
            // A prefix of the genuine id, another shape, a run twice, not a run at all.
            hit(&doc, &id.0[..6], 2),
            hit(&doc, "run-x", 3),
            hit(&doc, &id.0, 4),
            {"_id": "junk", "_source": {"row": 5}, "sort": [5]},
        ]);
        let cluster = double::Double::serve(move |_| json!({"hits": {"hits": hits}}).to_string());
        let target = Target::new(&crate::cluster::TargetConfig::local(&cluster.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let into = Store::in_memory(std::env::temp_dir()).unwrap();
        let read = p.read_runs(&into).await.unwrap();
        assert_eq!(read.runs, 1, "{read:?}");
        let skipped = read.skipped.join("\n");
        for named in [&id.0[..6], "run-x", "published twice", "junk"] {
            assert!(skipped.contains(named), "{named}: {skipped}");
        }
        // Every run read selects by its id (none "ambiguous", none "no run").
        for row in into.list(&crate::store::Filter::default()).unwrap() {
            into.get(&row.id.0).unwrap();
        }
    }

    /// A cluster (or a proxy) that ignores `search_after` gives its first full pages for
    /// ever (here two, in turn): reading its runs, or its telemetry, stops at the first page
    /// given again with an error naming the index, rather than read (and keep what it
    /// skipped) for ever.
    #[tokio::test]
    async fn a_cluster_giving_the_same_page_again_is_not_read_for_ever() {
        let store = Store::in_memory(std::env::temp_dir()).unwrap();
        let id = stored(&store);
        let doc = run_document(&store, &id);
        let cluster = double::Double::serve(move |r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap_or_default();
            let size = body["size"].as_u64().unwrap_or(0) as i64;
            // After the first page the second, after the second the first.
            let from = match body["search_after"][0].as_i64() {
                Some(k) if k < size => size,
                _ => 0,
            };
            let hits: Vec<Value> = (from..from + size)
                .map(|k| match r.path.contains("telemetry") {
                    true => json!({"_source": {"run_id": "0000abcd", "second": k}, "sort": [k]}),
                    false => hit(&doc, &format!("{k:08x}"), k),
                })
                .collect();
            json!({"hits": {"hits": hits}}).to_string()
        });
        let target = Target::new(&crate::cluster::TargetConfig::local(&cluster.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let into = Store::in_memory(std::env::temp_dir()).unwrap();
        let read = tokio::time::timeout(Duration::from_secs(20), p.read_runs(&into)).await;
        let err = read.expect("the read stops").unwrap_err().to_string();
        assert!(err.contains("t-runs gave the same page twice"), "{err}");
        let ids = [RunId("0000abcd".into())];
        let read = tokio::time::timeout(Duration::from_secs(20), p.read_telemetry(&into, &ids));
        let err = read.await.expect("the read stops").unwrap_err().to_string();
        assert!(
            err.contains("t-telemetry gave the same page twice"),
            "{err}"
        );
    }

    /// Deleting what a search found deletes it where it was found (an alias's search reaches
    /// its indices by their names), and a page that comes back after its deletes stops the
    /// purge with an error naming the index, rather than delete and count it for ever.
    #[tokio::test]
    async fn a_purge_whose_deletes_do_not_take_stops_at_the_next_page() {
        let cluster = double::Double::serve(|r| {
            if r.path.ends_with("/_search") {
                let hits: Vec<Value> = (0..3)
                    .map(|k| json!({"_index": "t-metrics-000001", "_id": format!("m{k}")}))
                    .collect();
                json!({"hits": {"hits": hits}}).to_string()
            } else if r.path == "/_bulk" {
                let items: Vec<Value> =
                    (0..3).map(|_| json!({"delete": {"status": 404}})).collect();
                json!({"items": items}).to_string()
            } else {
                "{}".into()
            }
        });
        let target = Target::new(&crate::cluster::TargetConfig::local(&cluster.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let purged = tokio::time::timeout(
            Duration::from_secs(20),
            p.purge("t-metrics", json!({"match_all": {}})),
        );
        let err = purged.await.expect("it stops").unwrap_err().to_string();
        assert!(
            err.contains("t-metrics: documents deleted came back"),
            "{err}"
        );
        let requests = cluster.requests();
        assert!(requests.len() <= 6, "{} requests", requests.len());
        let bulk = requests.iter().find(|r| r.path == "/_bulk").unwrap();
        let first = String::from_utf8_lossy(&bulk.body);
        assert!(first.contains(r#""_index":"t-metrics-000001""#), "{first}");
    }

    /// A results cluster answering more notes than were asked for is read no further than
    /// the most asked for.
    #[tokio::test]
    async fn a_cluster_answering_more_notes_than_asked_is_read_as_far_as_asked() {
        let cluster = double::Double::serve(|_| {
            let hits: Vec<Value> = (0..10_050)
                .map(|k| {
                    json!({"_source": {"text": format!("note {k}"), "created_at": k,
                                            "tags": {}, "note_id": k}})
                })
                .collect();
            json!({"hits": {"hits": hits}}).to_string()
        });
        let target = Target::new(&crate::cluster::TargetConfig::local(&cluster.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let into = Store::in_memory(std::env::temp_dir()).unwrap();
        assert_eq!(p.read_annotations(&into).await.unwrap(), 10_000);
    }

    #[tokio::test]
    async fn a_list_of_the_newest_runs_reads_no_more_than_it_shows() {
        let store = Store::in_memory(std::env::temp_dir()).unwrap();
        let id = stored(&store);
        let doc = run_document(&store, &id);
        // A cluster holding endless runs: every page full, newest first.
        let cluster = double::Double::serve(move |r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap_or_default();
            let size = body["size"].as_u64().unwrap_or(0);
            let from = body["search_after"][0].as_i64().unwrap_or(i64::MAX);
            let hits: Vec<Value> = (1..=size as i64)
                .map(|k| hit(&doc, &format!("{:08x}", (from - k) as u32), from - k))
                .collect();
            json!({"hits": {"hits": hits}}).to_string()
        });
        let target = Target::new(&crate::cluster::TargetConfig::local(&cluster.url)).unwrap();
        let p = Publisher::new(target, "t").unwrap();
        let into = Store::in_memory(std::env::temp_dir()).unwrap();
        let filter = crate::store::Filter::default();
        let reading = Reading::Newest {
            filter: &filter,
            limit: 3,
        };
        let read = tokio::time::timeout(Duration::from_secs(20), p.read(&into, reading))
            .await
            .expect("the read stops at its limit")
            .unwrap();
        assert_eq!((read.runs, read.requests), (3, 1), "{read:?}");
        // One search (beside the look at the index's schema).
        let searches: Vec<_> = cluster
            .requests()
            .into_iter()
            .filter(|r| r.path.contains("_search"))
            .collect();
        assert_eq!(searches.len(), 1);
        let asked: Value = serde_json::from_slice(&searches[0].body).unwrap();
        assert_eq!(asked["size"], 3);
        // The row and when it was published; none of the long parts.
        assert_eq!(asked["_source"]["includes"], json!(["row", "published_at"]));
        // Listed newest first, as the cluster ordered them.
        let listed = into.list(&filter).unwrap();
        let ids: Vec<&str> = listed.iter().map(|r| r.id.0.as_str()).collect();
        let newest = |k: i64| format!("{:08x}", (i64::MAX - k) as u32);
        assert_eq!(ids, [newest(1), newest(2), newest(3)]);
    }

    #[test]
    fn a_document_claiming_complete_with_counts_that_do_not_add_up_reads_back_failed() {
        let doc = |counts: Value| {
            json!({"row": {"id": "0000abcd", "kind": "ingest", "workload": "logs", "engine": null,
                    "state": "complete", "started_unix": 1, "finished_unix": 2,
                    "tool_version": "0", "seed": null, "error": null,
                    "result": {"docs_per_sec": 5.0, "counts": counts}}})
        };
        let lying = doc(json!({"read": 10, "indexed": 7, "failed": 0, "reconciled": true}));
        let (_, run) = whole::whole_run(&lying).unwrap();
        assert_eq!(run.state, crate::store::State::Failed);
        assert!(
            run.error.as_deref().is_some_and(|e| e.contains("add up")),
            "{:?}",
            run.error
        );
        let unreconciled =
            doc(json!({"read": 10, "indexed": 10, "failed": 0, "reconciled": false}));
        assert_eq!(
            whole::whole_run(&unreconciled).unwrap().1.state,
            crate::store::State::Failed
        );
        let honest = doc(json!({"read": 10, "indexed": 7, "failed": 3, "reconciled": true}));
        assert_eq!(
            whole::whole_run(&honest).unwrap().1.state,
            crate::store::State::Complete
        );
        // The local store judges a result by the same rule.
        let store = Store::in_memory(std::env::temp_dir()).unwrap();
        let id = store
            .save(
                &NewRun::new(Kind::Ingest, "logs", json!({})),
                &lying["row"]["result"],
            )
            .unwrap();
        assert_eq!(store.get(&id.0).unwrap().state, crate::store::State::Failed);
    }

    /// A run with everything a store keeps: timeline, histograms, phases, telemetry, tags.
    fn stored(store: &Store) -> RunId {
        let mut run = NewRun::new(Kind::Ingest, "logs", json!({"clients": 2}));
        run.tags = vec![("build".into(), "7".into())];
        let id = store.begin_run(&run).unwrap();
        store
            .append_timeline(
                &id,
                &[
                    json!({"second": 0, "docs": 5}),
                    json!({"second": 1, "docs": 7}),
                ],
            )
            .unwrap();
        let mut m = Measurements::default();
        m.count("docs", 12);
        m.count_at(1_700_000_000, "docs", 12);
        for v in [100, 200, 4_000] {
            m.record("service", "us", v);
        }
        m.at("done", &["docs"], 1_700_000_000_500_000, &[12.0])
            .unwrap();
        let (_, (_, h)) = m.histograms.iter().next().unwrap();
        let h = SerializedHistogram::encode("service", "us", h).unwrap();
        store.put_histograms(&id, std::slice::from_ref(&h)).unwrap();
        store
            .put_phase(
                &id,
                0,
                &PhaseMeasurements {
                    phase: "ingest".into(),
                    measurements: m,
                    kept: Default::default(),
                },
            )
            .unwrap();
        store
            .append_telemetry(
                &id,
                &[json!({"second": 0, "node": "n1", "heap_used_bytes": 5.0})],
            )
            .unwrap();
        store
            .finish_run(&id, &json!({"docs_per_sec": 6.0}))
            .unwrap();
        id
    }

    #[test]
    fn a_run_document_reads_back_as_the_run_was_stored() {
        let store = Store::in_memory("unused.db".into()).unwrap();
        let id = stored(&store);
        let row = store.get(&id.0).unwrap();
        let docs = documents(&store, &row, &publisher()).unwrap();
        let (index, doc_id, run_doc) = docs.last().unwrap();
        assert_eq!((index.as_str(), doc_id.as_str()), ("t-runs", id.0.as_str()));
        let (back_id, back) = whole::whole_run(run_doc).unwrap();
        assert_eq!(back_id, id.0);
        let was = WholeRun::read(&store, &id).unwrap();
        assert_eq!(back.state, was.state);
        assert_eq!(back.tags, was.tags);
        assert_eq!(back.result, was.result);
        assert_eq!(back.config, was.config);
        assert_eq!(back.timeline, was.timeline);
        assert_eq!(back.histograms, was.histograms);
        assert_eq!(back.phases.len(), 1);
        let (p, q) = (&back.phases[0].measurements, &was.phases[0].measurements);
        assert_eq!(p.counts, q.counts);
        assert_eq!(p.seconds, q.seconds);
        assert_eq!(p.timed, q.timed);
        assert_eq!(p.timed["done"].rows.len(), 1);
        assert_eq!(
            p.histograms.keys().collect::<Vec<_>>(),
            q.histograms.keys().collect::<Vec<_>>()
        );
        assert_eq!(p.histograms["service"].1, q.histograms["service"].1);

        // Put into another store, it is the same run.
        let other = Store::in_memory("other.db".into()).unwrap();
        other.put_whole(&back, Some(&back_id), &[]).unwrap();
        let again = other.get(&id.0).unwrap();
        assert_eq!(
            serde_json::to_value(&again).unwrap(),
            serde_json::to_value(&row).unwrap()
        );
    }

    #[test]
    fn every_document_carries_the_identity_reading_back_takes_off() {
        let store = Store::in_memory("unused.db".into()).unwrap();
        let id = stored(&store);
        let row = store.get(&id.0).unwrap();
        let keys: Vec<String> = identity(&row).keys().cloned().collect();
        let mut expected: Vec<String> = (IDENTITY_KEYS.iter())
            .filter(|k| !["part", "left_out_of_verdicts"].contains(k))
            .map(|k| k.to_string())
            .collect();
        expected.sort();
        let mut keys = keys;
        keys.sort();
        assert_eq!(keys, expected);
        // A telemetry sample's own fields are none of them.
        let docs = documents(&store, &row, &publisher()).unwrap();
        let (_, _, sample) = docs.iter().find(|(i, _, _)| i == "t-telemetry").unwrap();
        assert_eq!(sample["heap_used_bytes"], 5.0);
        assert_eq!(sample["run_id"], id.0.as_str());
    }

    #[test]
    fn a_run_document_that_is_not_a_published_run_is_refused_with_the_field() {
        let err = whole::whole_run(&json!({"row": {"id": "x"}})).unwrap_err();
        assert!(err.contains("`row`"), "{err}");
        let err = whole::whole_run(&json!({
            "row": {"id": "x", "kind": "ingest", "workload": "logs", "engine": null,
                    "state": "complete", "started_unix": 1, "finished_unix": 2,
                    "tool_version": "0", "seed": null, "error": null, "result": null},
            "histograms": [{"name": "s", "unit": "us", "v2_deflate": "not base64!"}]
        }))
        .unwrap_err();
        assert!(err.contains("histogram s"), "{err}");
        // A timed row shorter than its fields is named with its phase.
        let err = whole::whole_run(&json!({
            "row": {"id": "x", "kind": "ingest", "workload": "logs", "engine": null,
                    "state": "complete", "started_unix": 1, "finished_unix": 2,
                    "tool_version": "0", "seed": null, "error": null, "result": null},
            "phases": [{"phase": "p", "counts": {}, "seconds": {}, "histograms": [],
                        "timed": {"done": {"fields": ["docs"], "rows": [[3, []]]}}}]
        }))
        .unwrap_err();
        assert!(err.contains("phase p: timed list done"), "{err}");
    }
}

//! What a stored result says of itself beside its metrics (its headline's definition, its
//! documents' counts, the warm-up of the node, the profile, the telemetry's summary, the
//! service time, the attribution), read back as the types it was written with: what the views
//! show of a run, by one reader, never by the result's JSON paths.
//!
//! Each part reads on its own: a part that does not read as its type (a corrupted or foreign
//! result) is absent, and the others still show (the metrics name the unreadable part).

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::ingest::Counts;
use crate::measure::profile::Profile;
use crate::measure::telemetry::Summary as Telemetry;
use crate::measure::{Attribution, Headline, Summary};
use crate::query::QueryResult;
use crate::store::RunRow;
use crate::tasks::TaskFigures;
use crate::workload::scenario_result::{Creation, Snapshots};

/// What a stored result says of itself.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Said {
    /// A load's headline: its figure and how it was made.
    #[serde(deserialize_with = "part")]
    pub headline: Option<Headline>,
    /// A load's documents acknowledged per second (older results kept no `headline`).
    #[serde(deserialize_with = "part")]
    pub docs_per_sec: Option<f64>,
    /// A load's documents.
    #[serde(deserialize_with = "part")]
    pub counts: Option<Counts>,
    /// How the node started for the run was warmed before its load, when it was.
    pub warm_up: Option<Value>,
    /// The engine profile (`--profile`) of a result that keeps it.
    #[serde(deserialize_with = "part")]
    pub profile: Option<Profile>,
    /// The telemetry's summary of the load (or of a query command).
    #[serde(deserialize_with = "part")]
    pub telemetry: Option<Telemetry>,
    /// A load's service time.
    #[serde(deserialize_with = "part")]
    pub service: Option<Summary>,
    /// Where a load's wall time went.
    #[serde(deserialize_with = "part")]
    pub attribution: Option<Attribution>,
    /// What a result names of its own run: the workload, the corpus described, the index,
    /// and the configuration to run it again (read when a result file is imported).
    #[serde(deserialize_with = "part")]
    pub workload: Option<String>,
    #[serde(deserialize_with = "part")]
    pub corpus: Option<String>,
    #[serde(deserialize_with = "part")]
    pub index: Option<String>,
    pub config: Option<Value>,
    /// When a load began on the wall clock (ms since the epoch): its timeline's second 0.
    #[serde(deserialize_with = "part")]
    pub load_started_unix_ms: Option<u64>,
    /// How soon a load's documents were searchable, when it was probed.
    #[serde(deserialize_with = "part")]
    pub freshness: Option<crate::ingest::freshness::Freshness>,
    /// A track run's tasks, each with its figures.
    #[serde(deserialize_with = "part")]
    pub tasks: Option<Vec<TaskFigures>>,
    /// The scenario a result is of (`many-shards`, `snapshots`), and its phases.
    #[serde(deserialize_with = "part")]
    pub scenario: Option<String>,
    #[serde(deserialize_with = "part")]
    pub creation: Option<Creation>,
    #[serde(deserialize_with = "part")]
    pub snapshots: Option<Snapshots>,
    /// A run's query phase, as far as the views read it here (the whole phase: [`query`]).
    #[serde(deserialize_with = "part")]
    pub query: Option<QueryPhase>,
}

/// What a run's query phase says of itself beside its cells.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct QueryPhase {
    #[serde(deserialize_with = "part")]
    pub telemetry: Option<Telemetry>,
}

/// A part as its type, or absent when it does not read as it. A `Said` is read from a stored
/// result's `Value`, where each part is a value of its own: a part that fails leaves the
/// others readable, and nothing is copied before it is read.
fn part<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(d).ok())
}

impl Said {
    /// What `row`'s result says of itself (nothing for a run without a result).
    pub fn of(row: &RunRow) -> Said {
        row.result.as_ref().map(Said::of_result).unwrap_or_default()
    }

    /// What a stored result says of itself.
    pub fn of_result(result: &Value) -> Said {
        Said::deserialize(result).unwrap_or_default()
    }

    /// Where the profile's recordings were kept, to open in another tool (JMC).
    pub fn recordings(&self) -> Vec<String> {
        let kept = self.profile.iter().flat_map(|p| &p.recordings);
        kept.map(|r| r.display().to_string()).collect()
    }
}

/// The query result of a stored run, read as its type: the result itself (`searchbench
/// query`) or its query phase (`searchbench run`); `None` when it has none or it does not read
/// (the metrics then name it unreadable).
pub fn query(result: &Value) -> Option<QueryResult> {
    QueryResult::deserialize(crate::analysis::metrics::query_part(result)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_that_does_not_read_is_absent_and_the_others_still_show() {
        let result = serde_json::json!({
            "docs_per_sec": 1200.5,
            "telemetry": "not a summary",
            "service": {"count": 40, "p50_ms": 3.5},
            "tasks": [{"task": 7}],
            "query": {"telemetry": 12},
            "load_started_unix_ms": -5
        });
        let said = Said::of_result(&result);
        assert_eq!(said.docs_per_sec, Some(1200.5));
        let service = said.service.expect("service reads");
        assert_eq!((service.count, service.p50_ms), (40, Some(3.5)));
        assert!(said.telemetry.is_none() && said.tasks.is_none());
        assert!(said.query.is_some_and(|q| q.telemetry.is_none()));
        assert!(said.load_started_unix_ms.is_none());
        // Not a result at all: nothing said, no panic.
        let nothing = Said::of_result(&serde_json::json!([1, "two"]));
        assert!(nothing.docs_per_sec.is_none() && nothing.service.is_none());
    }
}

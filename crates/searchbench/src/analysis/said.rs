//! What a stored result says of itself beside its metrics (its headline's definition, its
//! documents' counts, the warm-up of the node, the profile's recordings), read back as the
//! types it was written with: what the views show of a run, by one reader, never by the
//! result's JSON paths.

use serde::Deserialize;
use serde_json::Value;

use crate::ingest::Counts;
use crate::measure::Headline;
use crate::store::RunRow;

/// What a stored result says of itself.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Said {
    /// A load's headline: its figure and how it was made.
    pub headline: Option<Headline>,
    /// A load's documents.
    pub counts: Option<Counts>,
    /// How the node started for the run was warmed before its load, when it was.
    pub warm_up: Option<Value>,
    /// The engine profile's recordings (`--profile`).
    pub profile: Option<Recordings>,
}

/// Where a profile's recordings were kept, to open in another tool (JMC).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Recordings {
    pub recordings: Vec<String>,
}

impl Said {
    /// What `row`'s result says of itself (nothing for a run without a result, or one whose
    /// parts do not read as their types: the metrics say that one is unreadable).
    pub fn of(row: &RunRow) -> Said {
        row.result
            .as_ref()
            .and_then(|r| Said::deserialize(r).ok())
            .unwrap_or_default()
    }
}

//! A load's result as the store keeps it (an `IngestReport` written as JSON: a run's, a part's,
//! a scenario's logs load), read back as the types it was written with. It is the one reader
//! of a stored load for every view: its metrics, the merge of its parts, a part's load made
//! again from what it wrote, the terminal's table of a merged run. Each field an older result
//! lacks reads its default.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::freshness::Freshness;
use super::{Counts, Cpu, Requests};
use crate::cluster::IndexStats;
use crate::measure::background::Background;
use crate::measure::{Attribution, Headline, Summary};
use crate::query::beside::SearchesBeside;

/// A stored load.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct StoredLoad {
    pub started_unix: Option<u64>,
    /// When the load itself began (its timeline's second 0), in Unix milliseconds.
    pub load_started_unix_ms: Option<u64>,
    /// What the index held before (`nothing`, `ours`, `replaced_foreign`, `appended`).
    pub previous_index: Option<String>,
    pub wall_secs: f64,
    pub counts: Counts,
    pub docs_per_sec: f64,
    pub headline: Headline,
    pub mb_per_sec: Option<f64>,
    pub wire_mb_per_sec: f64,
    pub requests: Requests,
    pub service: Summary,
    pub took: Summary,
    /// Set when the server's took moved in cached-clock steps.
    pub took_clock_ms: Option<u64>,
    pub cpu: Cpu,
    pub attribution: Option<Attribution>,
    pub background: Option<Background>,
    pub server_stats: Option<IndexStats>,
    pub freshness: Option<Freshness>,
    pub failures_file: Option<String>,
    pub interrupted: bool,
    pub error: Option<String>,
    pub warnings: Vec<String>,
    /// Set on an open-loop load (`--rate`); read here only for whether it is.
    pub rate: Option<IgnoredAny>,
    /// Read on its own: one that does not read (the metrics name it unreadable) leaves the
    /// rest of the load readable.
    #[serde(deserialize_with = "on_its_own")]
    pub searches_beside: Option<SearchesBeside>,
}

fn on_its_own<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(d).ok())
}

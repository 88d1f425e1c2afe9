//! How the driver loads documents.

use std::time::Duration;

use super::backoff::Backoff;
use super::batch::{BulkAction, IdMode};
use super::retry::RetryPolicy;
use crate::corpus::part::Part;

#[derive(Debug, Clone, serde::Serialize)]
pub struct DriverConfig {
    pub index: String,
    /// At most this many documents per bulk request.
    pub bulk_docs: usize,
    /// A request is closed once its body reaches this many bytes (`None`: no limit, stored as
    /// `null`).
    pub bulk_bytes: Option<usize>,
    pub clients: usize,
    pub gzip: bool,
    pub max_retries: u32,
    /// Applies to `index` actions only (see [`BulkAction::ids`]).
    pub ids: IdMode,
    /// Kept in the configuration only when it is not `index`, so earlier runs compare alike.
    #[serde(skip_serializing_if = "BulkAction::is_index")]
    pub action: BulkAction,
    pub fail_fast: bool,
    /// The ingest pipeline every bulk request goes through (`?pipeline=`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    /// First retry waits about this long; each further retry doubles it (with jitter).
    /// Durations are stored as seconds with the unit in the key, like every duration in JSON.
    #[serde(rename = "backoff_base_secs", serialize_with = "as_secs")]
    pub backoff_base: Duration,
    #[serde(rename = "backoff_max_secs", serialize_with = "as_secs")]
    pub backoff_max: Duration,
    /// Documents loaded in this first stretch are not measured (see `Recorder::with_warmup`).
    /// Kept as `warmup_secs` in the stored config and the result's headline.
    #[serde(skip)]
    pub warmup: Duration,
    /// Open loop (`--rate`): documents per second offered on a fixed schedule; `None` sends
    /// each request as soon as a client is free (closed loop).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// This load is part I of N of one run (`--part`): its documents are a disjoint share,
    /// the index is shared with the other parts. Kept only when the run is split.
    #[serde(skip_serializing_if = "Part::is_whole")]
    pub part: Part,
    /// The run the parts belong to (`--group`), the same in every part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The position in the whole corpus of this load's first document: its sequential id.
    #[serde(skip)]
    pub first_ordinal: u64,
    /// Rally's id conflicts: every document gets an id, some written over ids already used
    /// (`index` actions only). Kept only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflicts: Option<super::conflicts::Conflicts>,
    /// No request is read past this instant (a track's bulk with a `time-period`): the
    /// requests already read are still sent, and the load ends without error.
    #[serde(skip)]
    pub deadline: Option<std::time::Instant>,
    /// The same end asked for from outside, whenever it comes (the task that completes a
    /// track's parallel block has ended).
    #[serde(skip)]
    pub finish: Option<crate::cancel::Cancel>,
}

impl DriverConfig {
    pub fn new(index: impl Into<String>) -> Self {
        DriverConfig {
            index: index.into(),
            bulk_docs: 1000,
            bulk_bytes: None,
            clients: 2,
            gzip: false,
            max_retries: 8,
            ids: IdMode::Sequential,
            action: BulkAction::Index,
            fail_fast: false,
            pipeline: None,
            backoff_base: Duration::from_millis(100),
            backoff_max: Duration::from_secs(10),
            warmup: crate::measure::recorder::DEFAULT_WARMUP,
            rate: None,
            part: Part::WHOLE,
            group: None,
            first_ordinal: 0,
            conflicts: None,
            deadline: None,
            finish: None,
        }
    }

    pub fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.max_retries,
            backoff: Backoff {
                base: self.backoff_base,
                max: self.backoff_max,
            },
        }
    }
}

/// A duration as seconds (a float): what `_secs` keys hold.
fn as_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

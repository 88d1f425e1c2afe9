//! What a merged run says of its parts (its result's `parts`): written by `results merge`
//! for every kind, read back as this type by every view (the merged run's state, `results
//! show`, whether a stored merge is current), never by its JSON paths.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A merged run's parts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Parts {
    /// The group the parts were run in (`--group`).
    pub group: String,
    /// How many parts make the run.
    pub of: u32,
    /// Each part that is here, beside the group's figures.
    pub each: Vec<EachPart>,
    /// The parts that are not here, by index.
    pub missing: Vec<u32>,
    /// The merged run's state (`complete`, `incomplete`, ...), and why when not complete.
    pub state: Option<String>,
    pub why: Option<String>,
    /// What says whether a stored merge is current: the parts' ids, states and ends.
    pub fingerprint: Option<String>,
    /// How the index's count the documents were reconciled against was had (a load's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_count: Option<String>,
    /// What the merged run leaves to each part's own run, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One part of a merged run: which, its run, its state, and the kind's own figures of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EachPart {
    /// `2/3`.
    pub part: String,
    pub run: String,
    pub state: String,
    pub error: Option<String>,
    /// Its tags the merged run cannot keep, as the parts do not share them (`host=a` on one
    /// part, `host=b` on another): kept here, so a merge drops no tag.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Its own figures (documents per second, searches, the tasks it ran ...), by name.
    #[serde(flatten)]
    pub figures: Map<String, Value>,
}

impl Parts {
    /// The parts a stored result says it was merged from; `None` for a run that is not a
    /// merge (or whose `parts` do not read).
    pub fn of_result(result: &Value) -> Option<Parts> {
        Parts::deserialize(result.get("parts")?).ok()
    }

    /// Whether the merged run is missing a part or has one that never finished.
    pub fn incomplete(&self) -> bool {
        self.state.as_deref() == Some("incomplete")
    }
}

//! Stored runs loaded for analysis and rendering: a run with its timeline, histograms and
//! telemetry ([`Loaded`]), and the runs one selector picks ([`Group`]), one side of a
//! comparison and one colour in a chart.

use serde_json::Value;

use super::compare;
use crate::measure::SerializedHistogram;
use crate::store::{RunRow, State, Store, StoreError};

/// A stored run with its timeline, ready to analyse or render.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub row: RunRow,
    pub timeline: Vec<Value>,
    /// The run's stored HDR histograms (none for runs saved before they were kept).
    pub histograms: Vec<SerializedHistogram>,
    /// The run's stored telemetry rows, by second then node (none without telemetry).
    pub telemetry: Vec<Value>,
}

impl Loaded {
    /// A stored run with its timeline, histograms and telemetry.
    pub fn read(store: &Store, row: RunRow) -> Result<Loaded, StoreError> {
        let timeline = compare::timeline_of(store, &row)?;
        let histograms = store.histograms(&row.id)?;
        let telemetry = store.telemetry(&row.id)?;
        Ok(Loaded {
            row,
            timeline,
            histograms,
            telemetry,
        })
    }
}

/// The runs one selector picks: the run a run id (or unique prefix) names, or every run with
/// the tags of a `k=v[,k=v]` selector, a group of repeated runs. `compare` and `report` group
/// alike: one side of a comparison, one colour in a chart.
#[derive(Debug, Clone)]
pub struct Group {
    /// The selector as given.
    pub selector: String,
    pub runs: Vec<Loaded>,
    /// Runs of a tag group left out because they are not `complete`: `id (state)`.
    pub excluded: Vec<String>,
}

impl Group {
    /// Loads a selector (see [`Store::select_with`]). Without `include_partial` a tag group
    /// keeps only its `complete` runs (the others are listed in [`Group::excluded`]); a run
    /// named by its id is kept whatever its state.
    pub fn load(store: &Store, selector: &str, include_partial: bool) -> Result<Group, StoreError> {
        let tags = selector.contains('=');
        let mut excluded = Vec::new();
        let mut runs = Vec::new();
        for row in store.select_with(selector, true)? {
            if !tags || include_partial || row.state == State::Complete {
                runs.push(Loaded::read(store, row)?);
            } else {
                excluded.push(format!("{} ({})", row.id, row.state.name()));
            }
        }
        if runs.is_empty() {
            return Err(StoreError::NoTagMatch(selector.into()));
        }
        Ok(Group {
            selector: selector.to_string(),
            runs,
            excluded,
        })
    }

    /// A tag group (as opposed to a run named by its id).
    pub fn is_tags(&self) -> bool {
        self.selector.contains('=')
    }

    /// What tables and charts call it: the selector, with the run count of a group.
    pub fn label(&self) -> String {
        match self.runs.len() {
            1 => self.selector.clone(),
            n => format!("{} ({n} runs)", self.selector),
        }
    }
}

/// Every run of the groups once, in order (a run may be in two groups).
pub fn runs_of(groups: &[Group]) -> Vec<&Loaded> {
    let mut out: Vec<&Loaded> = Vec::new();
    for l in groups.iter().flat_map(|g| &g.runs) {
        if !out.iter().any(|o| o.row.id == l.row.id) {
            out.push(l);
        }
    }
    out
}

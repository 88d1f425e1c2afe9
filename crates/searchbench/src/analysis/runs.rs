//! Stored runs loaded for analysis and rendering: a run with its timeline, histograms and
//! telemetry ([`Loaded`]), and the runs one selector picks ([`Group`]), one side of a
//! comparison and one colour in a chart.

use serde_json::Value;

use super::{compare, merge};
use crate::measure::SerializedHistogram;
use crate::store::{PhaseMeasurements, RunRow, State, Store, StoreError};

/// A stored run with its timeline, ready to analyse or render.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub row: RunRow,
    pub timeline: Vec<Value>,
    /// The run's stored HDR histograms (none for runs saved before they were kept).
    pub histograms: Vec<SerializedHistogram>,
    /// The run's stored telemetry rows, by second then node (none without telemetry).
    pub telemetry: Vec<Value>,
    /// What each phase measured, with what the instruments kept around it (none for runs
    /// kept before phases were).
    pub phases: Vec<PhaseMeasurements>,
}

impl Loaded {
    /// A stored run with its timeline, histograms and telemetry.
    pub fn read(store: &Store, row: RunRow) -> Result<Loaded, StoreError> {
        let timeline = compare::timeline_of(store, &row)?;
        let histograms = store.histograms(&row.id)?;
        let telemetry = store.telemetry(&row.id)?;
        let phases = store.phases(&row.id)?;
        Ok(Loaded {
            row,
            timeline,
            histograms,
            telemetry,
            phases,
        })
    }

    /// What a run's metrics are read from alone (its timeline and phases; no histograms nor
    /// telemetry), a group merged in memory as `resolved` merged it: what a history of many
    /// runs reads of each.
    pub fn for_metrics(
        store: &Store,
        row: RunRow,
        resolved: &merge::Resolved,
    ) -> Result<Loaded, StoreError> {
        let (timeline, phases) = match resolved.merged.get(&row.id) {
            Some(m) => (m.run.timeline.clone(), m.run.phases.clone()),
            None => (compare::timeline_of(store, &row)?, store.phases(&row.id)?),
        };
        Ok(Loaded {
            timeline,
            phases,
            ..Loaded::bare(row)
        })
    }

    /// `row` alone: no timeline, histograms, telemetry or phases (a test's run).
    pub fn bare(row: RunRow) -> Loaded {
        Loaded {
            row,
            timeline: Vec::new(),
            histograms: Vec::new(),
            telemetry: Vec::new(),
            phases: Vec::new(),
        }
    }

    /// Every metric of the run, read one way for every view (see
    /// [`crate::analysis::metrics::of_run`]).
    pub fn metrics(&self) -> Vec<crate::analysis::metrics::Metric> {
        crate::analysis::metrics::of_run(self.row.result.as_ref(), &self.timeline, &self.phases)
    }
}

impl Loaded {
    /// A run of [`merge::resolve`]'s rows: a group merged in memory as it was merged, any
    /// other run as stored.
    pub fn resolved(
        store: &Store,
        row: RunRow,
        resolved: &merge::Resolved,
    ) -> Result<Loaded, StoreError> {
        match resolved.merged.get(&row.id) {
            Some(m) => Ok(Loaded {
                timeline: m.run.timeline.clone(),
                histograms: m.run.histograms.clone(),
                telemetry: Vec::new(),
                phases: m.run.phases.clone(),
                row,
            }),
            None => Loaded::read(store, row),
        }
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
    /// Runs of a tag group left out: not ended (`id (state)`: interrupted, running, never
    /// finished), or too short for their warm-up beside steady runs (see
    /// [`super::configuration::judged`]).
    pub excluded: Vec<String>,
}

impl Group {
    /// Loads a selector (see [`Store::select_with`]). Without `include_partial` a tag group
    /// keeps the runs that ended, `complete` or `failed` (a failed run's errors are what the
    /// comparison is about: left out, a side with a failing round could be judged on its
    /// clean ones alone and called better); the others are listed in [`Group::excluded`]. A
    /// run named by its id is kept whatever its state. A run split in parts (`--part`) is seen as
    /// its group's merged run (see [`merge::resolve`]): `group=ID`, or the group's bare name,
    /// selects it.
    pub fn load(store: &Store, selector: &str, include_partial: bool) -> Result<Group, StoreError> {
        let group = group_selector(store, selector)?;
        // A group is seen as one run, kept whatever its state as a run named by its id is.
        let tags = selector.contains('=') && group.is_none();
        let rows = match &group {
            Some(g) => merge::group_rows(store, g)?,
            None => store.select_with(selector, true)?,
        };
        let mut resolved = if tags || group.is_some() {
            merge::resolve(store, rows)?
        } else {
            merge::Resolved {
                rows,
                ..Default::default()
            }
        };
        let mut excluded = Vec::new();
        let mut runs = Vec::new();
        for row in std::mem::take(&mut resolved.rows) {
            if !tags || include_partial || matches!(row.state, State::Complete | State::Failed) {
                runs.push(Loaded::resolved(store, row, &resolved)?);
            } else {
                excluded.push(format!("{} ({})", row.id, row.state.name()));
            }
        }
        // A run too short for its warm-up stands for nothing its group's steady runs measured
        // (`--include-partial` takes every run, as asked).
        if tags && !include_partial {
            let left_out;
            (runs, left_out) = super::configuration::judged(runs, |l| &l.row);
            excluded.extend(left_out);
        }
        if runs.is_empty() {
            return Err(match (&group, resolved.notes.first()) {
                (Some(g), Some(note)) => StoreError::NotMerged(format!("{g}: {note}")),
                (Some(g), None) => StoreError::NotMerged(format!("{g} has no parts")),
                _ => StoreError::NoTagMatch(selector.into()),
            });
        }
        Ok(Group {
            selector: selector.to_string(),
            runs,
            excluded,
        })
    }

    /// A tag group (as opposed to a run named by its id, or a group of parts seen as one run).
    pub fn is_tags(&self) -> bool {
        self.selector.contains('=') && !self.selector.starts_with("group=")
    }

    /// What tables and charts call it: the selector, with the run count of a group.
    pub fn label(&self) -> String {
        // A synthesized corpus is said wherever the group's figures are named.
        let synthesized = self
            .runs
            .iter()
            .any(|r| r.row.synthesized())
            .then_some(crate::store::SYNTHESIZED_CORPUS);
        match (self.runs.len(), synthesized) {
            (1, None) => self.selector.clone(),
            (1, Some(s)) => format!("{} ({s})", self.selector),
            (n, None) => format!("{} ({n} runs)", self.selector),
            (n, Some(s)) => format!("{} ({n} runs, {s})", self.selector),
        }
    }
}

/// The group a selector names: `group=ID`, or a bare word that is no run's id but a group.
fn group_selector(store: &Store, selector: &str) -> Result<Option<String>, StoreError> {
    if let Some(("group", id)) = selector.split_once('=') {
        if !id.contains(',') {
            return Ok(Some(id.to_string()));
        }
    }
    if selector.contains('=') {
        return Ok(None);
    }
    match store.get(selector) {
        Err(StoreError::NotFound(_)) if merge::is_group(store, selector)? => {
            Ok(Some(selector.to_string()))
        }
        _ => Ok(None),
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

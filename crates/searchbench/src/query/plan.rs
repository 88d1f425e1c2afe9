//! What a workload gives the query method: a [`QueryPlan`] (its variants, the request bodies
//! of every coverage, how its answers are checked, how its results are described). The
//! method itself (`query::run`) knows no workload.

use serde::{Deserialize, Serialize};

use super::accuracy::VariantAccuracy;
use super::answer::Answer;
use super::dialect::Dialect;
use super::report::Component;
use super::transport::Transport;
use super::variant::Variant;
use super::{Progress, QueryError};

/// A workload's queries on one index, ready to be measured.
pub trait QueryPlan: Send + Sync {
    /// The API its bodies are written for.
    fn dialect(&self) -> &'static dyn Dialect {
        &super::dialect::SEARCH
    }
    /// The name results carry (`cluster-metrics`, `queries:shops`).
    fn workload(&self) -> &str;
    /// Every variant, in the order results list them.
    fn variants(&self) -> Vec<Variant>;
    /// Variants measured only when named (`--variants`), never by default: cluster-metrics'
    /// precision variants.
    fn named_only(&self) -> Vec<Variant> {
        Vec::new()
    }
    /// The transports measured unless told otherwise.
    fn default_transports(&self) -> Vec<Transport> {
        vec![Transport::Serial]
    }
    /// Coverages per variant (the most any variant has): a cell measures each once per pass.
    fn coverages(&self) -> usize;
    /// Coverages of `variant`, when variants differ (a queries file's parameter sets).
    fn coverages_of(&self, _variant: &Variant) -> usize {
        self.coverages()
    }
    /// Searches per variant over all its coverages (cluster-metrics: partitions).
    fn partitions(&self) -> usize {
        self.coverages()
    }
    /// A coverage's label in the samples (cluster-metrics: its epoch).
    fn coverage_label(&self, coverage: usize) -> u64 {
        coverage as u64
    }
    /// The `_search` bodies of one coverage of `variant`, one line of compact JSON each
    /// (with `"profile": true` when `profile`). Built before any clock starts.
    fn bodies(&self, variant: &Variant, coverage: usize, profile: bool) -> Vec<Vec<u8>>;
    /// The checker of one run of `variants` (a subset of [`QueryPlan::variants`], in the
    /// run's order). With `check` off it checks nothing, but still gives one (empty) row per
    /// variant. `progress` hears about long preparations (a truth recomputed).
    fn checker(
        &self,
        variants: &[Variant],
        check: bool,
        progress: &Progress,
    ) -> Result<Box<dyn Checker + '_>, QueryError>;
    /// How its results are worded.
    fn described(&self) -> Described;
    /// Derived figures over the cells: `took(v)` is variant `v`'s mean took per coverage
    /// (serial, else msearch), when it was measured.
    fn attribution(&self, _took: &dyn Fn(&Variant) -> Option<f64>) -> Vec<Component> {
        Vec::new()
    }
    /// The variant `--baseline` reports the drift of, if the workload has one.
    fn headline(&self) -> Option<Variant> {
        None
    }
}

/// Checks the answers of one run against what they should be, and keeps the accuracy rows.
pub trait Checker: Send {
    /// Checks the answers of one coverage of the run's `variant`-th variant; every wrong
    /// answer is counted in its row and said in `failures` (one sentence each).
    fn check(
        &mut self,
        variant: usize,
        coverage: usize,
        answers: &[(usize, Answer)],
        failures: &mut Vec<String>,
    );
    /// The rows, one per variant of the run, in its order.
    fn rows(self: Box<Self>) -> Vec<VariantAccuracy>;
}

/// How a workload's results are worded (kept in the result, so every view says the same).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Described {
    /// One sample of a cell: `coverage`, `search`.
    pub unit: String,
    /// What a unit is and what is timed, the line over the cells table.
    pub per_unit: String,
    /// What the answers were checked against, the line over the accuracy table.
    pub checked_against: String,
    /// The sentence when every answer was right.
    pub all_right: String,
}

impl Default for Described {
    /// The words for results stored before results carried theirs.
    fn default() -> Self {
        Described {
            unit: "search".into(),
            per_unit: "Per search: server took and client wall, in ms".into(),
            checked_against: "Accuracy of the answers".into(),
            all_right: "All answers right; no failed request.".into(),
        }
    }
}

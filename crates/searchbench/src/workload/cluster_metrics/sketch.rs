//! The cluster-metrics queries as the sketch store takes them (field note 002's baseline): the
//! production query's answer per (epoch, node) with `POST /query`, a whole coverage with one
//! `POST /coverage` (in the `msearch` transport's place; the sketch dialect makes it of the
//! coverage's searches), checked against the same ground truth as an engine's answers,
//! within the DDSketch's bound.

use serde_json::json;

use super::queries::{checker, row, Truth, SKETCH_SHAPE};
use crate::query::{
    Checker, Described, Dialect, Progress, QueryError, QueryPlan, Transport, Variant,
};

/// The cluster-metrics queries on the sketch store holding the corpus of `truth`.
#[derive(Debug, Clone)]
pub struct SketchQueries {
    pub truth: Truth,
}

impl QueryPlan for SketchQueries {
    fn workload(&self) -> &str {
        "cluster-metrics"
    }

    fn dialect(&self) -> &'static dyn Dialect {
        &crate::query::dialect::SKETCH
    }

    fn variants(&self) -> Vec<Variant> {
        vec![Variant::new(SKETCH_SHAPE.name)]
    }

    fn default_transports(&self) -> Vec<Transport> {
        Transport::ALL.to_vec()
    }

    fn coverages(&self) -> usize {
        self.truth.coverages.len()
    }

    fn partitions(&self) -> usize {
        self.truth.partitions()
    }

    fn coverage_label(&self, coverage: usize) -> u64 {
        self.truth.coverages.get(coverage).map_or(0, |(e, _)| *e)
    }

    fn bodies(&self, _variant: &Variant, coverage: usize, _profile: bool) -> Vec<Vec<u8>> {
        let Some((epoch, nodes)) = self.truth.coverages.get(coverage) else {
            return Vec::new();
        };
        nodes
            .iter()
            .map(|node| {
                json!({"epoch": epoch, "node": node})
                    .to_string()
                    .into_bytes()
            })
            .collect()
    }

    fn checker(
        &self,
        variants: &[Variant],
        _check: bool,
        _progress: &Progress,
    ) -> Result<Box<dyn Checker + '_>, QueryError> {
        let rows = variants
            .iter()
            .map(|v| {
                if v.name() != SKETCH_SHAPE.name {
                    return Err(QueryError::Invalid(format!(
                        "{v}: the sketch store answers {} only (sums and DDSketch percentiles)",
                        SKETCH_SHAPE.name
                    )));
                }
                Ok((SKETCH_SHAPE, row(v.clone(), SKETCH_SHAPE)))
            })
            .collect::<Result<_, QueryError>>()?;
        Ok(checker(&self.truth, rows))
    }

    fn described(&self) -> Described {
        Described {
            unit: "coverage".into(),
            per_unit: "Per coverage (all nodes of one epoch) on the sketch store: client wall in \
                       ms (the store reports no server time; took is 0); msearch is one \
                       /coverage request"
                .into(),
            checked_against: "Accuracy against the exact ground truth (percentile error = \
                              |got − exact| / max(|exact|, 1))"
                .into(),
            all_right: "All counts and sums exact; all percentiles within the sketch's bound; \
                        no failed request."
                .into(),
        }
    }

    fn headline(&self) -> Option<Variant> {
        Some(Variant::new(SKETCH_SHAPE.name))
    }
}

//! `cluster-metrics`: epoch/node/task rows with cpu, mem and net floats, exact per-(epoch,
//! node) percentiles and sums as ground truth, and the percentile query phase ([`queries`]).

pub mod queries;
pub mod sketch;

use serde_json::{json, Value};

use super::{
    reject, settings, CorpusWriter, FileShape, Opened, PartitionTruth, Workload, WorkloadSpec,
};
use crate::corpus::cluster_metrics::{MetricsSpec, CSV_HEADER};
use crate::corpus::{truth_file, ClusterMetrics, CorpusError, DocSource};
use crate::query::report::Component;
use crate::query::{dialect, Answerer, Dialect, QueryPlan, Transport, Variant};
use queries::{MetricsQueries, Truth};

#[derive(Debug)]
pub struct ClusterMetricsWorkload;

impl Workload for ClusterMetricsWorkload {
    fn name(&self) -> &'static str {
        "cluster-metrics"
    }

    fn attribution(&self, took: &dyn Fn(&Variant) -> Option<f64>) -> Vec<Component> {
        queries::attribution(took)
    }

    fn about(&self) -> &'static str {
        "epoch/node/task rows with cpu, mem, net floats and exact percentile truth"
    }

    fn default_index(&self) -> &'static str {
        "searchbench-cluster-metrics"
    }

    fn index_body(&self) -> Value {
        metrics_body()
    }

    fn open(&self, spec: &WorkloadSpec) -> Result<Opened, CorpusError> {
        let g = ClusterMetrics::new(metrics_spec(spec)?)?;
        let truth = spec.params.truth.then(|| g.truth_handle());
        Ok(Opened {
            source: Box::new(g),
            truth,
        })
    }

    fn default_docs(&self) -> Option<u64> {
        None
    }

    fn wants_truth(&self) -> bool {
        true
    }

    /// The production queries in the search engines' DSL, and on the sketch store (field
    /// note 002's baseline) in its own requests.
    fn query_plan(
        &self,
        dialect: &dyn Dialect,
        _answerer: Option<&Answerer>,
        spec: &WorkloadSpec,
        truth: Option<Vec<PartitionTruth>>,
    ) -> Result<Option<Box<dyn QueryPlan>>, CorpusError> {
        if dialect.is(&dialect::SEARCH) {
            return Ok(Some(Box::new(MetricsQueries::new(whole_truth(
                spec, truth,
            )?))));
        }
        if dialect.is(&dialect::SKETCH) {
            return Ok(Some(Box::new(sketch::SketchQueries {
                truth: whole_truth(spec, truth)?,
            })));
        }
        Ok(None)
    }

    fn query_variants(&self) -> Vec<Variant> {
        queries::variants()
    }

    fn query_named_only(&self) -> Vec<Variant> {
        queries::named_only()
    }

    fn query_transports(&self) -> Vec<Transport> {
        Transport::ALL.to_vec()
    }

    fn docs(&self, spec: &WorkloadSpec) -> Option<(&'static str, u64)> {
        let rows = metrics_spec(spec).ok()?.resolve().ok()?.1;
        let flags = if spec.docs.is_some() {
            "--docs"
        } else {
            "--rows-per-epoch × --epochs"
        };
        Some((flags, rows))
    }

    fn corpus_flags(&self) -> &'static str {
        "--seed, --docs, --rows-per-epoch, --epochs and --first-epoch"
    }

    fn most_docs(&self, spec: &WorkloadSpec) -> Option<u64> {
        // Without --epochs, --docs sets the epochs: no bound.
        spec.params.epochs?;
        let bounded = WorkloadSpec {
            docs: None,
            ..spec.clone()
        };
        Some(metrics_spec(&bounded).ok()?.resolve().ok()?.1)
    }

    fn writer(&self, spec: &WorkloadSpec, shape: FileShape) -> Result<CorpusWriter, CorpusError> {
        let mut g = ClusterMetrics::new(metrics_spec(spec)?)?;
        let truth = spec
            .params
            .truth
            .then(|| (truth_file::header(g.spec()), g.truth_handle()));
        let len_hint = g.len_hint();
        Ok(match shape {
            FileShape::Ndjson => CorpusWriter {
                header: Vec::new(),
                len_hint,
                next: Box::new(move |out| {
                    Ok(match g.next_row() {
                        Some(row) => {
                            g.write_json(&row, out);
                            true
                        }
                        None => false,
                    })
                }),
                truth,
            },
            FileShape::Csv => CorpusWriter {
                header: format!("{CSV_HEADER}\n").into_bytes(),
                len_hint,
                next: Box::new(move |out| Ok(g.next_csv_into(out))),
                truth,
            },
        })
    }
}

/// The truth the load collected, or (none collected: a part's load saw only its share) the
/// whole corpus's, computed from `spec`.
fn whole_truth(
    spec: &WorkloadSpec,
    truth: Option<Vec<PartitionTruth>>,
) -> Result<Truth, CorpusError> {
    let parts = match truth {
        Some(parts) => parts,
        None => truth_file::compute(&metrics_spec(spec)?)?,
    };
    Ok(Truth::new(parts))
}

/// The `cluster-metrics` generator spec for `spec`.
pub fn metrics_spec(spec: &WorkloadSpec) -> Result<MetricsSpec, CorpusError> {
    let p = &spec.params;
    reject("cluster-metrics", "--start", p.start.is_some())?;
    reject("cluster-metrics", "--window", p.window.is_some())?;
    reject("cluster-metrics", "--year", p.year.is_some())?;
    reject("cluster-metrics", "--slices", p.slices.is_some())?;
    reject("cluster-metrics", "--dims", p.dims.is_some())?;
    reject(
        "cluster-metrics",
        "--vector-index",
        p.vector_index.is_some(),
    )?;
    let mut s = MetricsSpec::new(spec.seed);
    if let Some(e) = p.first_epoch {
        s.first_epoch = e;
    }
    if let Some(r) = p.rows_per_epoch {
        s.rows_per_epoch = r;
    }
    s.epochs = p.epochs;
    s.docs = spec.docs;
    s.truth = p.truth;
    s.resolve()?;
    Ok(s)
}

fn metrics_body() -> Value {
    json!({
        "settings": settings(),
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "epoch": { "type": "long" },
                "node": { "type": "keyword" },
                "task": { "type": "keyword" },
                "cpu": { "type": "float" },
                "mem": { "type": "float" },
                "net": { "type": "float" }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_rows_are_fixed_by_epochs_only() {
        let mut spec = WorkloadSpec::new(1);
        spec.params.rows_per_epoch = Some(20_000);
        assert_eq!(ClusterMetricsWorkload.most_docs(&spec), None);
        spec.params.epochs = Some(2);
        assert_eq!(ClusterMetricsWorkload.most_docs(&spec), Some(40_000));
        // --docs below the bound does not lower it: a warm-up slice may take them all.
        spec.docs = Some(1_000);
        assert_eq!(ClusterMetricsWorkload.most_docs(&spec), Some(40_000));
    }
}

//! A built-in workload's corpus and its generator's shape.

use clap::Args;

use crate::workload::{self, WorkloadSpec};

/// A built-in workload's corpus: how many documents, which seed, and its shape.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Corpus")]
pub struct CorpusArgs {
    /// Documents (rows) to generate, e.g. 200000, 200k, 1.5m. cluster-metrics default: rows
    /// per epoch × epochs.
    #[arg(long, value_name = "N", value_parser = super::units::parse_count)]
    pub docs: Option<u64>,
    /// Generator seed: the same seed gives the same bytes on any machine.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub shape: GeneratorArgs,
}

impl CorpusArgs {
    /// The generator spec; `truth` asks cluster-metrics to compute its ground truth.
    pub fn spec(&self, truth: bool) -> WorkloadSpec {
        self.shape.spec(self.seed, self.docs, truth)
    }
}

/// Shape of a built-in workload's corpus beyond --docs and --seed.
#[derive(Debug, Clone, Args)]
pub struct GeneratorArgs {
    /// cluster-metrics: rows per epoch [default: 1000000].
    #[arg(long, value_name = "N", help_heading = "cluster-metrics", value_parser = super::units::parse_positive_count)]
    pub rows_per_epoch: Option<u64>,
    /// cluster-metrics: number of epochs [default: as many as --docs needs, else 1].
    #[arg(long, value_name = "N", help_heading = "cluster-metrics")]
    pub epochs: Option<u64>,
    /// logs: first @timestamp, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.fff]Z [default: 2023-01-01].
    #[arg(long, help_heading = "logs")]
    pub start: Option<String>,
    /// logs: window the timestamps spread over, e.g. 1d, 6h [default: 1d].
    #[arg(long, help_heading = "logs")]
    pub window: Option<String>,
    /// transactions: year of the mutations [default: 2023].
    #[arg(long, help_heading = "transactions")]
    pub year: Option<i32>,
    /// vectors: dimensions of each vector, 1 to 4096 [default: 128].
    #[arg(long, value_name = "N", help_heading = "vectors")]
    pub dims: Option<usize>,
    /// vectors: how the vector field is indexed: hnsw (no quantization), int8_hnsw,
    /// bbq_hnsw (Elasticsearch's quantized graphs) or none (the vectors kept, no graph: the
    /// cost of indexing them without the graph) [default: hnsw].
    #[arg(long, value_name = "KIND", help_heading = "vectors",
          value_parser = crate::workload::vectors::VectorIndex::parse)]
    pub vector_index: Option<crate::workload::vectors::VectorIndex>,
}

impl GeneratorArgs {
    /// The generator spec; `truth` asks cluster-metrics to compute its ground truth.
    pub fn spec(&self, seed: u64, docs: Option<u64>, truth: bool) -> WorkloadSpec {
        let mut spec = WorkloadSpec::new(seed);
        spec.docs = docs;
        spec.params = workload::Params {
            rows_per_epoch: self.rows_per_epoch,
            epochs: self.epochs,
            truth,
            start: self.start.clone(),
            window: self.window.clone(),
            year: self.year,
            dims: self.dims,
            vector_index: self.vector_index,
            ..workload::Params::default()
        };
        spec
    }
}

//! `vectors`: clustered float vectors ([`space`]) with a filter field of known selectivity,
//! searched approximately (k-NN) with every answer's recall@k measured against the exact
//! neighbours ([`truth`], brute force on every core) in every pass ([`queries`]).
//!
//! Elasticsearch 8's `dense_vector` (in its core: the distribution from Maven Central has
//! it) indexed as HNSW without quantization, so recall measures the graph alone; on
//! OpenSearch the same graph is a `knn_vector` of the k-NN plugin's Lucene engine (the body
//! rewritten by `ingest::vector_field`, the searches in its words: [`queries::Syntax`]).

pub mod bigann;
pub mod queries;
pub mod space;
pub mod truth;

use serde_json::{json, Value};

use super::{
    ndjson_writer, plain, reject, required_docs, settings, CorpusWriter, FileShape, Opened,
    PartitionTruth, Workload, WorkloadSpec,
};
use crate::cluster::Vectors;
use crate::corpus::{CorpusError, DocSource, Item};
use crate::query::{dialect, Answerer, Dialect, QueryPlan, Variant};
use queries::Syntax;
use space::{Space, MAX_DIMS};

/// Dimensions unless told (`--dims`): SIFT's, the common small embedding.
pub const DEFAULT_DIMS: usize = 128;

/// Query vectors each variant searches with, a coverage each.
pub const QUERIES: usize = 100;

/// HNSW's graph: neighbours per node and the candidates kept while building (the engines'
/// defaults, written out so every release builds the same graph).
pub const HNSW_M: u32 = 16;
pub const HNSW_EF_CONSTRUCTION: u32 = 100;

/// How the vector field is indexed (`--vector-index`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VectorIndex {
    /// An HNSW graph of the full floats: what recall measures is the graph alone.
    #[default]
    Hnsw,
    /// Elasticsearch's HNSW over int8-quantized vectors (8.12 on).
    Int8Hnsw,
    /// Elasticsearch's HNSW over better binary quantization (8.16 on, 64 dimensions or more).
    BbqHnsw,
    /// The vectors kept and no graph built: indexing them costs what the field costs without
    /// its graph. Nothing to search approximately.
    None,
}

impl VectorIndex {
    pub const ALL: [VectorIndex; 4] = [
        VectorIndex::Hnsw,
        VectorIndex::Int8Hnsw,
        VectorIndex::BbqHnsw,
        VectorIndex::None,
    ];

    pub fn name(self) -> &'static str {
        match self {
            VectorIndex::Hnsw => "hnsw",
            VectorIndex::Int8Hnsw => "int8_hnsw",
            VectorIndex::BbqHnsw => "bbq_hnsw",
            VectorIndex::None => "none",
        }
    }

    pub fn parse(s: &str) -> Result<VectorIndex, String> {
        Self::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| format!("{s:?} is not one of hnsw, int8_hnsw, bbq_hnsw, none"))
    }

    /// The field in Elasticsearch's words (`ingest::vector_field` writes OpenSearch's).
    fn field(self, dims: usize) -> Value {
        let graph = |kind: &str| {
            json!({
                "type": "dense_vector",
                "dims": dims,
                "index": true,
                "similarity": "l2_norm",
                "index_options": {"type": kind, "m": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION}
            })
        };
        match self {
            VectorIndex::None => json!({"type": "dense_vector", "dims": dims, "index": false}),
            graph_kind => graph(graph_kind.name()),
        }
    }
}

#[derive(Debug)]
pub struct VectorsWorkload;

impl VectorsWorkload {
    fn body(dims: usize, index: VectorIndex) -> Value {
        json!({
            "settings": settings(),
            "mappings": {
                "dynamic": "strict",
                "properties": {
                    "id": {"type": "long"},
                    "bucket": {"type": "integer"},
                    "v": index.field(dims)
                }
            }
        })
    }
}

impl Workload for VectorsWorkload {
    fn name(&self) -> &'static str {
        "vectors"
    }

    fn about(&self) -> &'static str {
        "clustered float vectors, k-NN searches filtered and not, recall@k against the exact neighbours"
    }

    fn default_index(&self) -> &'static str {
        "searchbench-vectors"
    }

    fn index_body(&self) -> Value {
        Self::body(DEFAULT_DIMS, VectorIndex::Hnsw)
    }

    fn index_body_for(&self, spec: &WorkloadSpec) -> Value {
        Self::body(
            spec.params.dims.unwrap_or(DEFAULT_DIMS),
            spec.params.vector_index.unwrap_or_default(),
        )
    }

    fn default_docs(&self) -> Option<u64> {
        Some(50_000)
    }

    fn open(&self, spec: &WorkloadSpec) -> Result<Opened, CorpusError> {
        let (space, docs) = shape(spec)?;
        let index = spec.params.vector_index.unwrap_or_default();
        Ok(plain(Box::new(VectorDocs::new(space, docs).indexed(index))))
    }

    fn query_plan(
        &self,
        dialect: &dyn Dialect,
        answerer: Option<&Answerer>,
        spec: &WorkloadSpec,
        _truth: Option<Vec<PartitionTruth>>,
    ) -> Result<Option<Box<dyn QueryPlan>>, CorpusError> {
        if !dialect.is(&dialect::SEARCH) {
            return Ok(None);
        }
        let (space, docs) = shape(spec)?;
        if spec.params.vector_index == Some(VectorIndex::None) {
            return Err(CorpusError::Invalid(
                "vectors: --vector-index none builds no graph, so there is nothing to search \
                 approximately; it measures what indexing the vectors costs without one"
                    .into(),
            ));
        }
        Ok(Some(Box::new(queries::VectorsQueries::new(
            space,
            docs,
            QUERIES,
            syntax(answerer)?,
        ))))
    }

    fn searches_vectors(&self) -> bool {
        true
    }

    fn query_variants(&self) -> Vec<Variant> {
        queries::variants()
    }

    fn writer(&self, spec: &WorkloadSpec, shape_: FileShape) -> Result<CorpusWriter, CorpusError> {
        if shape_ == FileShape::Csv {
            return Err(CorpusError::Invalid(
                "vectors writes NDJSON only; --format csv is for cluster-metrics and transactions"
                    .into(),
            ));
        }
        let (space, docs) = shape(spec)?;
        Ok(ndjson_writer(Box::new(VectorDocs::new(space, docs))))
    }
}

/// How the cluster that answers asks for neighbours: OpenSearch's `knn` query from the
/// release whose query takes the candidates (`ef_search`), Elasticsearch's top-level `knn`
/// otherwise (and when the cluster did not say: its answers will say what is wrong).
fn syntax(answerer: Option<&Answerer>) -> Result<Syntax, CorpusError> {
    let Some(a) = answerer else {
        return Ok(Syntax::Elasticsearch);
    };
    match a.product.traits().vectors {
        Vectors::Plugin(_) if a.since(queries::OPENSEARCH_EF_SEARCH_SINCE) => {
            Ok(Syntax::OpenSearch)
        }
        Vectors::Plugin(_) => {
            let (major, minor) = queries::OPENSEARCH_EF_SEARCH_SINCE;
            Err(CorpusError::Invalid(format!(
                "vectors: {} {}'s knn query takes no ef_search (the candidates each variant \
                 names); it came in {major}.{minor}",
                a.product.traits().display,
                a.release
            )))
        }
        Vectors::Core | Vectors::Elsewhere(_) => Ok(Syntax::Elasticsearch),
    }
}

/// The space and document count of `spec`, after refusing the parameters of other workloads
/// and what the exact search could not hold.
pub fn space_of(spec: &WorkloadSpec) -> Result<(Space, u64), CorpusError> {
    let (space, docs) = shape(spec)?;
    queries::truth_fits(&space, docs)
        .map_err(|e| CorpusError::Invalid(format!("{e}; generate fewer (--docs, --dims)")))?;
    Ok((space, docs))
}

/// The space and document count of `spec`, after refusing the parameters of other workloads.
fn shape(spec: &WorkloadSpec) -> Result<(Space, u64), CorpusError> {
    let p = &spec.params;
    for (flag, given) in [
        ("--rows-per-epoch", p.rows_per_epoch.is_some()),
        ("--epochs", p.epochs.is_some()),
        ("--truth", p.truth),
        ("--start", p.start.is_some()),
        ("--window", p.window.is_some()),
        ("--year", p.year.is_some()),
        ("--first-epoch", p.first_epoch.is_some()),
        ("--slices", p.slices.is_some()),
    ] {
        reject("vectors", flag, given)?;
    }
    let docs = required_docs("vectors", spec)?;
    // Ids are written as u32 in the exact search.
    if docs > u64::from(u32::MAX) {
        return Err(CorpusError::Invalid(format!(
            "vectors: --docs {docs} is over {}",
            u32::MAX
        )));
    }
    let dims = p.dims.unwrap_or(DEFAULT_DIMS);
    if dims == 0 || dims > MAX_DIMS {
        return Err(CorpusError::Invalid(format!(
            "vectors: --dims {dims} is out of 1..={MAX_DIMS}"
        )));
    }
    Ok((Space::new(spec.seed, dims), docs))
}

/// The documents `0..docs` of a space, in id order.
#[derive(Debug)]
pub struct VectorDocs {
    space: Space,
    docs: u64,
    at: u64,
    scratch: Vec<f32>,
    /// How the field will be indexed: named in the description, so runs of different graphs
    /// are never one configuration.
    index: VectorIndex,
}

impl VectorDocs {
    pub fn new(space: Space, docs: u64) -> VectorDocs {
        VectorDocs {
            space,
            docs,
            at: 0,
            scratch: Vec::new(),
            index: VectorIndex::Hnsw,
        }
    }

    fn indexed(mut self, index: VectorIndex) -> VectorDocs {
        self.index = index;
        self
    }
}

impl DocSource for VectorDocs {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        if self.at >= self.docs {
            return Ok(None);
        }
        space::write_doc(&self.space, self.at, &mut self.scratch, out);
        self.at += 1;
        Ok(Some(Item::Doc))
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.docs)
    }

    fn describe(&self) -> String {
        // The default graph as described before there was a choice.
        let index = match self.index {
            VectorIndex::Hnsw => String::new(),
            other => format!(", {}", other.name()),
        };
        format!(
            "vectors ({} docs of {} dims{index}, seed {})",
            self.docs, self.space.dims, self.space.seed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_graph_is_its_own_mapping_and_its_own_corpus_description() {
        let mut spec = WorkloadSpec::new(3);
        spec.docs = Some(10);
        spec.params.dims = Some(8);
        let described = |spec: &WorkloadSpec| VectorsWorkload.open(spec).unwrap().source.describe();
        assert_eq!(described(&spec), "vectors (10 docs of 8 dims, seed 3)");
        for kind in VectorIndex::ALL {
            assert_eq!(VectorIndex::parse(kind.name()), Ok(kind));
            spec.params.vector_index = Some(kind);
            let v = VectorsWorkload.index_body_for(&spec)["mappings"]["properties"]["v"].clone();
            assert_eq!(v["dims"], 8);
            match kind {
                VectorIndex::None => assert_eq!(v["index"], false, "{v}"),
                graph => assert_eq!(v["index_options"]["type"], graph.name(), "{v}"),
            }
            if kind != VectorIndex::Hnsw {
                assert!(
                    described(&spec).contains(kind.name()),
                    "{}",
                    described(&spec)
                );
            }
        }
        assert!(VectorIndex::parse("HNSW").is_err());
    }
}

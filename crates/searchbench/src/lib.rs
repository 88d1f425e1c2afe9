//! searchbench: a performance lab for Elasticsearch and OpenSearch ingestion and queries.
//!
//! The library behind the `searchbench` binary. Data flows corpus → batcher → driver →
//! target, with samples going to the recorder and results to the store; see docs/architecture.md.

pub mod analysis;
pub mod cancel;
pub mod cli;
pub mod cluster;
pub mod corpus;
pub mod deploy;
#[cfg(test)]
mod double;
pub mod engine;
pub mod exit;
pub mod experiment;
pub mod ingest;
mod layering;
pub mod measure;
pub mod os;
pub mod out_folder;
pub mod publish;
pub mod query;
pub mod report;
pub mod rng;
pub mod session;
pub mod shown;
pub mod sketch;
pub mod stats;
pub mod store;
pub mod suggest;
pub mod tasks;
pub mod units;
pub mod user_file;
pub mod workload;

//! The integration tests, in one test binary: one build and link instead of one per file, and
//! one real node shared by every test that needs one (see `common`). How to add a module:
//! tests/README.md.

mod common;

mod bad_input;
mod byo;
mod corpus_cli;
mod corpus_engine;
mod corpus_generators;
mod engines;
mod experiment_dates;
mod file_reader;
mod foundation;
mod ingest_faults;
mod ingest_interrupt;
mod ingest_lies;
mod ingest_node;
mod manners_bookkeeping;
mod manners_errors;
mod manners_failures;
mod manners_query;
mod manners_shell;
mod query_cluster_metrics;
mod query_faults;
mod query_logs;
mod rate;
mod reliability;
mod results_compare;
mod results_html;
mod results_store;
mod secrets;
mod store_compat;
mod sweep;
mod telemetry;
mod trust;
mod trust_cli;
mod versions_bisect;
mod versions_check;
mod versions_engine_dir;
mod versions_history;
mod workload_numbers;
mod workloads_shards;

//! The integration tests that need an engine, in one test binary: one build and link instead
//! of one per file, and one real node shared by every test that needs one (see `common`).
//! Those that need none are in `tests/offline`. How to add a module: tests/README.md.

// Shared with tests/offline; not every helper is used here.
#[allow(dead_code)]
mod common;

mod ab;
mod attached;
mod background;
mod bad_input;
mod ci_examples;
mod cli_errors;
mod cli_width;
mod corpus_engine;
mod dashboards;
mod engine_lifecycle;
mod engines;
mod experiment_dates;
mod file_reader;
mod freshness;
mod ingest_failure_limit;
mod ingest_faults;
mod ingest_inputs;
mod ingest_interrupt;
mod ingest_lies;
mod ingest_node;
mod metrics_read;
mod parts;
mod profile;
mod publish;
mod query_cluster_metrics;
mod query_logs;
mod rate;
mod real_tracks;
mod results_html;
mod results_naming;
mod secrets;
mod secured;
mod sketch_beside;
mod store_compat;
mod store_concurrency;
mod sweep;
mod telemetry;
mod toys;
mod track_corpora;
mod track_processors;
mod track_python;
mod track_schedulers;
mod track_tasks;
mod tracks_as_written;
mod under_write;
mod url_credentials;
mod user_workloads;
mod vectors;
mod vectors_hdf5;
mod verdicts;
mod versions_bisect;
mod versions_engine_dir;
mod versions_history;
mod warm_node;
mod workload_numbers;
mod workloads_shards;

//! The integration tests that need no engine: the CLI's usage, help and errors, corpus files,
//! comparisons and the store on synthetic results, `check`'s exit codes, the query driver
//! against an HTTP double. `cargo test -p searchbench --lib --test offline` runs them with the
//! unit tests in well under a minute, without Java or a download. Starting a node from here
//! is refused (see `common::start_node`): a test that needs one belongs in `tests/it`.

// The shared helpers of `tests/it`; not every one is used without a node.
#[allow(dead_code)]
#[path = "../it/common/mod.rs"]
mod common;

mod ab;
mod ci_plumbing;
mod cli_shell;
mod corpus_cli;
mod corpus_generators;
mod dashboards_export;
mod deploy;
mod engine_stop;
mod hostile_tracks;
mod lifecycle;
mod nightly_site;
mod profile_usage;
mod query_faults;
mod query_preflight;
mod results_compare;
mod results_page;
mod results_store;
mod sketch_engine;
mod stored_text;
mod track_reference;
mod verdict_rules;
mod versions_check;
mod workload_check;
mod workload_list;
mod workload_render;

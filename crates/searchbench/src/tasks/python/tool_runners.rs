//! The operation types esrally 2.13.0 and opensearch-benchmark 2.4.0 run with runners of their
//! own (each driver's registry after `register_default_runners`): a task of one that
//! searchbench does not run itself runs in the worker by the tool's runner.

use crate::workload::track::model::Words;

/// Those both tools have a runner for.
const BOTH: &[&str] = &[
    "bulk",
    "cluster-health",
    "composite",
    "create-component-template",
    "create-composable-template",
    "create-data-stream",
    "create-index",
    "create-index-template",
    "create-snapshot",
    "create-snapshot-repository",
    "create-transform",
    "delete-async-search",
    "delete-component-template",
    "delete-composable-template",
    "delete-data-stream",
    "delete-index",
    "delete-index-template",
    "delete-snapshot-repository",
    "delete-transform",
    "force-merge",
    "get-async-search",
    "index-stats",
    "node-stats",
    "paginated-search",
    "put-pipeline",
    "put-settings",
    "raw-request",
    "refresh",
    "restore-snapshot",
    "scroll-search",
    "search",
    "shrink-index",
    "sleep",
    "start-transform",
    "submit-async-search",
    "wait-for-recovery",
    "wait-for-snapshot-create",
    "wait-for-transform",
];

/// Those only esrally has.
const RALLY_ONLY: &[&str] = &[
    "close-ml-job",
    "close-point-in-time",
    "composite-agg",
    "create-ilm-policy",
    "create-ml-datafeed",
    "create-ml-job",
    "delete-ilm-policy",
    "delete-ml-datafeed",
    "delete-ml-job",
    "downsample",
    "esql",
    "esql-profile",
    "field-caps",
    "open-ml-job",
    "open-point-in-time",
    "run-until",
    "sql",
    "start-ml-datafeed",
    "stop-ml-datafeed",
    "transform-stats",
    "wait-for-current-snapshots-create",
];

/// Those only opensearch-benchmark has.
const OSB_ONLY: &[&str] = &[
    "bulk-vector-data-set",
    "create-ml-connector",
    "create-point-in-time",
    "create-search-pipeline",
    "delete-knn-model",
    "delete-ml-connector",
    "delete-ml-model",
    "delete-pipeline",
    "delete-point-in-time",
    "deploy-ml-model",
    "list-all-point-in-time",
    "produce-stream-message",
    "proto-bulk",
    "proto-bulk-vector-data-set",
    "proto-search",
    "proto-vector-search",
    "register-ml-model",
    "register-remote-ml-model",
    "train-knn-model",
    "update-concurrent-segment-search-settings",
    "vector-search",
];

/// Whether the tool whose words `words` are runs operation type `kind` with a runner of its
/// own, which the worker can run as it does.
pub fn tool_runs(words: Words, kind: &str) -> bool {
    let only = match words {
        Words::Rally => RALLY_ONLY,
        Words::Osb => OSB_ONLY,
    };
    BOTH.contains(&kind) || only.contains(&kind)
}

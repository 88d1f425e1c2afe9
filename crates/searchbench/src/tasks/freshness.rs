//! Whether a track's bulk can have its time to searchable measured, read from the plan: the
//! probe counts the bulk's target, so nothing beside the bulk may change that count (or the
//! target's refresh) while it loads. What only the cluster knows (the target holds documents
//! its sequential ids would write over) each load checks as every load does
//! (`ingest::Plan`).

use super::plan::TaskPlan;

/// The operation types that change no index's documents nor its refresh: what a parallel
/// block may run beside a probed bulk. Any other (a runner of the track's Python, a raw
/// request, a setting put) may, so a bulk beside one is not probed. A `refresh` is among
/// them: the probe asks its count when the index's own refresh may be due, so a refresh
/// asked for between would show documents sooner than it looks.
const READS: &[&str] = &[
    "search",
    "paginated-search",
    "scroll-search",
    "vector-search",
    "esql",
    "sql",
    "cluster-health",
    "index-stats",
    "node-stats",
    "open-point-in-time",
    "close-point-in-time",
    "sleep",
    "wait-for-recovery",
];

/// Why the bulk at `at` in its parallel block `block` (a step's tasks, the bulk among them)
/// cannot be probed, said for a person; `None` when it can, or when `at` is no bulk.
pub fn unprobed(block: &[(TaskPlan, bool)], at: usize) -> Option<String> {
    let Some((TaskPlan::Bulk(bulk), _)) = block.get(at) else {
        return None;
    };
    // Each load waits for its last documents before it ends; between loads that wait would
    // fall inside the task's window and lower its docs/s.
    if bulk.loads.len() > 1 {
        return Some(format!(
            "time to searchable not measured: the task loads {} targets one after the other, \
             and waiting for each one's last documents would hold the next",
            bulk.loads.len()
        ));
    }
    let writes = |target: &str| bulk.loads.iter().any(|l| l.target == target);
    block
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .find_map(|(_, (other, _))| match other {
            TaskPlan::Bulk(b) => b.loads.iter().find(|l| writes(&l.target)).map(|l| {
                format!(
                    "task {} of its parallel block writes {} too",
                    b.name, l.target
                )
            }),
            TaskPlan::Task(t) => (!READS.contains(&t.operation_type.as_str())).then(|| {
                format!(
                    "task {} ({}) of its parallel block may change the documents or the refresh \
                     of its target",
                    t.name, t.operation_type
                )
            }),
        })
        .map(|why| format!("time to searchable not measured: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::plan::Planned;
    use crate::workload::track::{read, TrackParams};

    /// The plan of a track whose one step is the parallel block of `tasks`, over indices `a`
    /// and `b`, each with a corpus file.
    fn planned(tasks: serde_json::Value) -> Planned {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.json"), "").unwrap();
        std::fs::write(dir.path().join("b.json"), "").unwrap();
        let track = serde_json::json!({
            "version": 2,
            "indices": [{"name": "a"}, {"name": "b"}],
            "corpora": [
                {"name": "ca", "documents": [
                    {"source-file": "a.json", "document-count": 10, "target-index": "a"}]},
                {"name": "cb", "documents": [
                    {"source-file": "b.json", "document-count": 10, "target-index": "b"}]}
            ],
            "schedule": [{"parallel": {"tasks": tasks}}]
        });
        let path = dir.path().join("track.json");
        std::fs::write(&path, track.to_string()).unwrap();
        let d = read(&path, &TrackParams::new()).unwrap();
        let procedure = crate::workload::track::runnable::procedure(&d, None).unwrap();
        super::super::plan::plan(&d, procedure, &Default::default()).unwrap()
    }

    fn bulk(name: &str, corpus: &str) -> serde_json::Value {
        serde_json::json!({"name": name, "operation": {"operation-type": "bulk",
            "bulk-size": 5, "corpora": corpus}})
    }

    /// Each task of the one step: its name and why it is not probed.
    fn said(planned: &Planned) -> Vec<Option<String>> {
        let block = &planned.steps[0];
        (0..block.len()).map(|i| unprobed(block, i)).collect()
    }

    #[test]
    fn a_bulk_is_probed_unless_another_task_of_its_block_may_change_its_count() {
        // Searches and a sleep beside it read only.
        let beside_reads = planned(serde_json::json!([
            bulk("load", "ca"),
            {"name": "q", "operation": {"operation-type": "search",
                "body": {"query": {"match_all": {}}}}, "iterations": 2},
            {"name": "nap", "operation": {"operation-type": "sleep", "duration": 1}}
        ]));
        assert_eq!(said(&beside_reads), [None, None, None]);
        // One bulk into two indices, one after the other: not probed.
        let both = planned(serde_json::json!([{"name": "both", "operation": {
            "operation-type": "bulk", "bulk-size": 5}}]));
        assert!(said(&both)[0]
            .as_deref()
            .is_some_and(|w| w.contains("loads 2 targets one after the other")));
        // Two bulks into two indices each count their own.
        let apart = planned(serde_json::json!([bulk("la", "ca"), bulk("lb", "cb")]));
        assert_eq!(said(&apart), [None, None]);
        // Two bulks into one index: each count holds the other's documents.
        let shared = planned(serde_json::json!([bulk("one", "ca"), bulk("two", "ca")]));
        assert_eq!(
            said(&shared),
            [
                Some(
                    "time to searchable not measured: task two of its parallel block writes a too"
                        .into()
                ),
                Some(
                    "time to searchable not measured: task one of its parallel block writes a too"
                        .into()
                ),
            ]
        );
        // A refresh asked for beside it shows documents between the index's own refreshes.
        let refreshed = planned(serde_json::json!([
            bulk("load", "ca"),
            {"name": "now", "operation": {"operation-type": "refresh"}}
        ]));
        assert!(said(&refreshed)[0]
            .as_deref()
            .is_some_and(|w| w.contains("task now (refresh)")));
        // A raw request may write anything.
        let raw = planned(serde_json::json!([
            bulk("load", "ca"),
            {"name": "put", "operation": {"operation-type": "raw-request", "method": "PUT",
                "path": "/a/_doc/x", "body": {"n": 1}}}
        ]));
        let why = said(&raw);
        assert!(
            why[0]
                .as_deref()
                .is_some_and(|w| w.contains("task put (raw-request)")),
            "{why:?}"
        );
        assert_eq!(why[1], None, "a raw request is no bulk: nothing to probe");
    }
}

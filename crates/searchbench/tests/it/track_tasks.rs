//! A track's challenge run task by task on the shared node (issue 57): the operation types the
//! popular tracks use, iterations and warm-up, clients, a target throughput, a parallel block
//! whose tasks overlap in time and end when the task that completes it ends, and a failing
//! task counted as errors with its reason.

use std::time::{Duration, Instant};

use searchbench::session::track_run;
use searchbench::workload::track::{read, runnable, TrackParams};
use serde_json::Value;

use crate::common::track_runs::{self, row};
use crate::common::{self, node_url};

const INDEX: &str = "searchbench-test-track-tasks";

fn track() -> String {
    format!(
        r#"{{
  "version": 2,
  "indices": [{{"name": "{INDEX}", "body": "index.json"}}],
  "corpora": [{{"name": "docs", "documents": [{{"source-file": "docs.json.bz2", "document-count": 500}}]}}],
  "operations": [
    {{"name": "load", "operation-type": "bulk", "bulk-size": 100, "ingest-percentage": 100}},
    {{"name": "put-doc-1", "operation-type": "raw-request", "method": "PUT",
      "path": "/{INDEX}/_doc/extra-1", "body": {{"n": 1, "t": "a"}}}},
    {{"name": "put-doc-2", "operation-type": "raw-request", "method": "PUT",
      "path": "/{INDEX}/_doc/extra-2", "body": {{"n": 2, "t": "b"}}}},
    {{"name": "all", "operation-type": "search", "body": {{"query": {{"match_all": {{}}}}}}}},
    {{"name": "missing", "operation-type": "search", "index": "searchbench-test-no-such-index",
      "body": {{"query": {{"match_all": {{}}}}}}}}
  ],
  "challenges": [{{"name": "c", "default": true, "schedule": [
    {{"operation": "delete-index"}},
    {{"operation": {{"operation-type": "create-index", "settings": {{"index.number_of_replicas": 0}}}}}},
    {{"name": "health", "operation": {{"operation-type": "cluster-health", "index": "{INDEX}",
      "request-params": {{"wait_for_status": "green"}}, "retry-until-success": true}}}},
    {{"operation": "load", "clients": 2}},
    {{"operation": "put-doc-1"}},
    {{"operation": "put-doc-2"}},
    {{"operation": "refresh"}},
    {{"name": "wait-for-all", "operation": {{"operation-type": "index-stats", "index": "{INDEX}",
      "condition": {{"path": "_all.primaries.docs.count", "expected-value": 502}},
      "retry-until-success": true}}}},
    {{"name": "searches", "operation": "all", "clients": 2, "warmup-iterations": 5, "iterations": 20}},
    {{"name": "paced", "operation": "all", "iterations": 10, "target-throughput": 20}},
    {{"operation": "missing", "iterations": 3}},
    {{"name": "open-pit", "operation": {{"operation-type": "open-point-in-time", "index": "{INDEX}"}}}},
    {{"name": "pit-pages", "operation": {{"operation-type": "search", "with-point-in-time-from": "open-pit",
      "pages": 3, "results-per-page": 100, "body": {{"query": {{"match_all": {{}}}}, "sort": [{{"n": "asc"}}]}}}}}},
    {{"name": "close-pit", "operation": {{"operation-type": "close-point-in-time", "with-point-in-time-from": "open-pit"}}}},
    {{"parallel": {{"completed-by": "nap", "tasks": [
      {{"name": "nap", "operation": {{"operation-type": "sleep", "duration": 1.5}}}},
      {{"name": "busy", "operation": "all", "time-period": 60}}
    ]}}}},
    {{"operation": {{"operation-type": "force-merge", "max-num-segments": 1}}}},
    {{"operation": {{"operation-type": "some-custom-runner"}}}}
  ]}}]
}}"#
    )
}

/// Each of `tasks` ran one operation, without error.
fn ran_once_without_error(result: &Value, tasks: &[&str]) {
    for task in tasks {
        let r = row(result, task);
        assert_eq!(
            (r["ops"].as_u64(), r["errors"].as_u64()),
            (Some(1), Some(0)),
            "{task}: {r}"
        );
    }
}

/// Runs the default challenge of the track at `path` on the shared node, whole (no test mode),
/// into a scratch store: the run's result.
fn run_track(path: &std::path::Path) -> Value {
    let d = read(path, &TrackParams::new()).unwrap();
    let procedure = runnable::procedure(&d, None).unwrap().clone();
    let cluster =
        searchbench::session::ClusterSpec::given(common::target(), &[node_url().to_string()], None);
    let result = common::runtime()
        .block_on(async {
            tokio::time::timeout(
                Duration::from_secs(120),
                track_run::run(
                    &d,
                    &procedure,
                    searchbench::tasks::plan::plan(&d, &procedure, &Default::default()).unwrap(),
                    &cluster,
                    &track_run::TrackRunSpec {
                        params: &TrackParams::new(),
                        attach: &searchbench::session::Attach {
                            save: searchbench::session::record::SaveSpec {
                                store: Some(common::scratch_store()),
                                tags: Vec::new(),
                                skip: false,
                            },
                            ..searchbench::session::Attach::default()
                        },
                        interrupt: searchbench::cancel::Cancel::never(),
                        test_mode: false,
                        part: None,
                        failures: None,
                        synthesized: Vec::new(),
                        freshness: Some(Default::default()),
                    },
                    &searchbench::session::Silent,
                ),
            )
            .await
        })
        .expect("the track ends in time")
        .expect("the track runs");
    serde_json::to_value(&result).unwrap()
}

#[test]
fn a_challenge_runs_task_by_task_with_the_tools_semantics() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("track.json"), track()).unwrap();
    std::fs::write(
        dir.path().join("index.json"),
        r#"{"mappings": {"properties": {"n": {"type": "long"}, "t": {"type": "keyword"}}}}"#,
    )
    .unwrap();
    // The corpus as Rally leaves it: decompressed beside its archive's name.
    common::write_docs(&dir.path().join("docs.json"), 500);
    let started = Instant::now();
    let result = run_track(&dir.path().join("track.json"));
    let took = started.elapsed();
    // What does not run is listed, not dropped.
    let not_run = result["not_run"].to_string();
    assert!(not_run.contains("some-custom-runner"), "{not_run}");
    // The admin steps ran without error.
    ran_once_without_error(
        &result,
        &[
            "delete-index",
            "create-index",
            "health",
            "put-doc-1",
            "refresh",
            "wait-for-all",
            "force-merge",
        ],
    );
    // The bulk went through the project's own driver: every document, in requests of 100.
    let load = row(&result, "load");
    assert_eq!(load["throughput_unit"], "docs/s", "{load}");
    assert!(load["throughput_mean"].as_f64().unwrap() > 0.0, "{load}");
    assert!(
        load["ops"].as_u64().unwrap() >= 5 && load["errors"] == 0,
        "{load}"
    );
    // A point in time opened by one task, paged through by the next (3 pages of 100 of the
    // 502 documents, by search_after), closed by the third.
    ran_once_without_error(&result, &["open-pit", "close-pit"]);
    let pages = row(&result, "pit-pages");
    assert_eq!(pages["errors"], 0, "{pages}");
    // Iterations are per client, the warm-up is not counted.
    let searches = row(&result, "searches");
    assert_eq!(searches["ops"], 40, "{searches}");
    assert_eq!(searches["errors"], 0, "{searches}");
    assert!(
        searches["latency_ms"][0].as_f64().unwrap() > 0.0,
        "{searches}"
    );
    // 10 ops at 20 ops/s: due every 50 ms, so about half a second.
    let paced = row(&result, "paced");
    let seconds = paced["seconds"].as_f64().unwrap();
    assert!((0.4..3.0).contains(&seconds), "{paced}");
    // A search on a missing index: every op an error, with the server's reason.
    let missing = row(&result, "missing");
    assert_eq!(
        (missing["ops"].as_u64(), missing["error_rate"].as_f64()),
        (Some(3), Some(1.0))
    );
    assert!(
        missing["first_error"]
            .as_str()
            .unwrap()
            .contains("no such index"),
        "{missing}"
    );
    // The parallel block: both ran at the same time, and the nap ended the busy task long
    // before its 60 s.
    let busy = row(&result, "busy");
    assert!(
        busy["stopped"] == true && busy["ops"].as_u64().unwrap() > 0,
        "{busy}"
    );
    assert!(took < Duration::from_secs(40), "{took:?}");
    // Overlap in wall time: each began before the other ended.
    let nap = row(&result, "nap");
    let at = |r: &Value, k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}"));
    assert!(
        at(busy, "started_ms") < at(nap, "ended_ms")
            && at(nap, "started_ms") < at(busy, "ended_ms"),
        "nap {nap} busy {busy}"
    );
    assert!(at(nap, "ended_ms") - at(nap, "started_ms") >= 1400, "{nap}");
    common::fresh_index(INDEX, None);
}

const PIPED: &str = "searchbench-test-track-pipelines";

/// opensearch-benchmark's pipeline operations (an ingest pipeline deleted twice, a search
/// pipeline made and searched through) and a bulk through an ingest pipeline, of a quarter of
/// its corpus (`ingest-percentage`), on a real node; an ES|QL task on an engine without ES|QL
/// fails with the engine's reason and the run goes on.
#[test]
fn pipelines_a_bulk_through_one_and_part_of_a_corpus_run_as_the_tools_run_them() {
    let dir = tempfile::tempdir().unwrap();
    let track = format!(
        r#"{{
  "version": 2,
  "indices": [{{"name": "{PIPED}"}}],
  "corpora": [{{"name": "docs", "documents": [{{"source-file": "docs.json", "document-count": 400}}]}}],
  "schedule": [
    {{"operation": "delete-index"}},
    {{"operation": {{"operation-type": "create-index", "settings": {{"index.number_of_replicas": 0}}}}}},
    {{"name": "put-stamp", "operation": {{"operation-type": "put-pipeline", "id": "searchbench-test-stamp",
      "body": {{"processors": [{{"set": {{"field": "stamp", "value": "piped"}}}}]}}}}}},
    {{"name": "load", "operation": {{"operation-type": "bulk", "bulk-size": 50,
      "pipeline": "searchbench-test-stamp", "ingest-percentage": 25}}}},
    {{"operation": "refresh"}},
    {{"name": "stamped", "operation": {{"operation-type": "search",
      "body": {{"query": {{"term": {{"stamp": "piped"}}}}, "track_total_hits": true}},
      "condition": {{"path": "hits.total.value", "expected-value": 100}}}}}},
    {{"name": "delete-stamp", "operation": {{"operation-type": "delete-pipeline", "id": "searchbench-test-stamp"}}}},
    {{"name": "delete-stamp-again", "operation": {{"operation-type": "delete-pipeline", "id": "searchbench-test-stamp"}}}},
    {{"name": "put-filter", "operation": {{"operation-type": "create-search-pipeline", "id": "searchbench-test-filter",
      "body": {{"description": "no processor: the runner's own distribution has no search-pipeline-common"}}}}}},
    {{"name": "filtered", "operation": {{"operation-type": "search",
      "request-params": {{"search_pipeline": "searchbench-test-filter"}},
      "body": {{"query": {{"match_all": {{}}}}, "track_total_hits": true}},
      "condition": {{"path": "hits.total.value", "expected-value": 100}}}}}},
    {{"name": "esql", "operation": {{"operation-type": "esql", "query": "FROM {PIPED} | LIMIT 1"}}}},
    {{"name": "drop-filter", "operation": {{"operation-type": "raw-request", "method": "DELETE",
      "path": "/_search/pipeline/searchbench-test-filter"}}}}
  ]
}}"#
    );
    std::fs::write(dir.path().join("track.json"), track).unwrap();
    common::write_docs(&dir.path().join("docs.json"), 400);
    let result = run_track(&dir.path().join("track.json"));
    ran_once_without_error(
        &result,
        &[
            "put-stamp",
            "stamped",
            "delete-stamp",
            "delete-stamp-again",
            "put-filter",
            "filtered",
            "drop-filter",
        ],
    );
    // A quarter of the 400 documents, each through the pipeline (the search above counted
    // 100 stamped).
    let load = row(&result, "load");
    assert_eq!(load["errors"], 0, "{load}");
    // The engine has no ES|QL: the task fails with its answer, and the run went on.
    let esql = row(&result, "esql");
    assert_eq!(
        (esql["ops"].as_u64(), esql["errors"].as_u64()),
        (Some(1), Some(1)),
        "{esql}"
    );
    assert!(
        esql["first_error"].as_str().unwrap().contains("/_query"),
        "{esql}"
    );
    common::fresh_index(PIPED, None);
}

const CONFLICTS: &str = "searchbench-test-track-conflicts";

/// Runs a track of one bulk task `load` (`task`: its fields) of the `docs` documents of
/// `dir/docs.json` into `index`, made afresh, then refreshed: its result, once the task is
/// checked to have taken every document without error (its counts reconciled). `step` is
/// the schedule's step, `{load}` in it the task.
fn run_one_bulk(
    dir: &std::path::Path,
    index: &str,
    docs: usize,
    (task, step): (&str, &str),
    what: &str,
) -> Value {
    let step = step.replace("{load}", &format!(r#"{{"name": "load", {task}}}"#));
    let track = format!(
        r#"{{
  "version": 2,
  "indices": [{{"name": "{index}"}}],
  "corpora": [{{"name": "docs", "documents": [{{"source-file": "docs.json", "document-count": {docs}}}]}}],
  "schedule": [
    {{"operation": "delete-index"}},
    {{"operation": {{"operation-type": "create-index", "settings": {{"index.number_of_replicas": 0}}}}}},
    {step},
    {{"operation": "refresh"}}
  ]
}}"#
    );
    let path = dir.join(format!("{what}.json"));
    std::fs::write(&path, track).unwrap();
    let result = run_track(&path);
    let load = row(&result, "load");
    assert_eq!(
        (load["errors"].as_u64(), &load["first_error"]),
        (Some(0), &Value::Null),
        "{what}: {load}"
    );
    result
}

/// Rally's id conflicts on a real node, two clients: sequential ids written over with
/// `index`, random ids with `update`. Every document is taken (an update never reaches the
/// engine before the document it updates), the ids are Rally's, and the index holds the
/// distinct ids alone: the load's counts reconcile with its `_count` less the overwrites, or
/// the task would have failed.
#[test]
fn id_conflicts_write_over_ids_already_used_and_the_counts_reconcile() {
    let dir = tempfile::tempdir().unwrap();
    common::write_docs(&dir.path().join("docs.json"), 1000);
    for (order, on_conflict) in [("sequential", "index"), ("random", "update")] {
        let task = format!(
            r#""clients": 2, "operation": {{"operation-type": "bulk", "bulk-size": 50,
      "conflicts": "{order}", "conflict-probability": 50, "on-conflict": "{on_conflict}"}}"#
        );
        let result = run_one_bulk(dir.path(), CONFLICTS, 1000, (&task, "{load}"), order);
        // The count is no measure of what became searchable when ids are written over.
        let load = row(&result, "load");
        assert!(
            load["freshness"].is_null()
                && load["freshness_not_measured"]
                    .as_str()
                    .is_some_and(|w| w.contains("id conflicts write over documents")),
            "{order}: {load}"
        );
        let found: Value = common::runtime()
            .block_on(
                common::target().get_json(&format!("/{CONFLICTS}/_search?size=1000&_source=false")),
            )
            .unwrap();
        let ids: Vec<u64> = found["hits"]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                let id = h["_id"].as_str().unwrap();
                assert_eq!(id.len(), 10, "{order}: {id} is not Rally's %010d");
                id.parse().unwrap()
            })
            .collect();
        // Half the documents go over an id already used: about 500 distinct ids.
        assert!(
            (400..600).contains(&ids.len()),
            "{order}: {} ids",
            ids.len()
        );
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        match order {
            // New ids follow on from 0.
            "sequential" => assert_eq!(sorted, (0..ids.len() as u64).collect::<Vec<_>>()),
            // New ids in a random order of the load's 1,000.
            _ => {
                assert!(sorted.iter().all(|id| *id < 1000), "{sorted:?}");
                assert_ne!(sorted, (0..ids.len() as u64).collect::<Vec<_>>());
            }
        }
    }
    common::fresh_index(CONFLICTS, None);
}

const LOOPED: &str = "searchbench-test-track-looped";

/// A bulk with a time period ends with it, at its target throughput (requests per second);
/// Rally's `looped` reads the corpus again each time it ends, every pass new documents, until
/// the period ends. Both reconcile with the index's count.
#[test]
fn a_looped_bulk_reads_its_corpus_again_until_its_time_period_ends() {
    let dir = tempfile::tempdir().unwrap();
    common::write_docs(&dir.path().join("docs.json"), 200);
    let count = || -> u64 {
        let found: Value = common::runtime()
            .block_on(common::target().get_json(&format!("/{LOOPED}/_count")))
            .unwrap();
        found["count"].as_u64().unwrap()
    };
    // A looped bulk with no time period in a parallel block another task completes: the
    // block's end ends it, what is in flight answered.
    let block = r#"{"parallel": {"completed-by": "nap", "tasks": [{load},
        {"name": "nap", "operation": {"operation-type": "sleep", "duration": 2}}]}}"#;
    for (task, step, what) in [
        (
            r#""bulk-size": 50, "looped": true}, "time-period": 2"#,
            "{load}",
            "looped",
        ),
        (r#""bulk-size": 50, "looped": true}"#, block, "in a block"),
        (
            r#""bulk-size": 10}, "time-period": 2, "target-throughput": 2"#,
            "{load}",
            "paced",
        ),
    ] {
        // Each `task` closes its operation, then says the task's own fields.
        let task = format!(r#""operation": {{"operation-type": "bulk", {task}"#);
        let result = run_one_bulk(dir.path(), LOOPED, 200, (&task, step), what);
        let load = row(&result, "load");
        let seconds = load["seconds"].as_f64().unwrap();
        let (ops, n) = (load["ops"].as_u64().unwrap(), count());
        // Every pass writes new ids into the index its track made: each document probed, and
        // each searchable well within the bound (refresh every second).
        let fresh = &load["freshness"];
        assert_eq!(
            (fresh["docs"].as_u64(), fresh["unseen"].as_u64()),
            (Some(n), Some(0)),
            "{what}: {load}"
        );
        match what {
            // 200 documents take far less than 2 s: read again, each pass new ids, until
            // the period ends.
            "looped" | "in a block" => {
                assert!((1.5..4.0).contains(&seconds), "{what}: {seconds} s: {load}");
                assert!(n > 400, "{what}: {n} documents");
                assert_eq!(load["stopped"], what == "in a block", "{what}: {load}");
            }
            // 2 requests a second for 2 s: sent at 0, 0.5, 1 and 1.5 s, the one due at 2 s
            // not sent (what was read for it is handed back), never the whole corpus.
            _ => {
                assert!((3..=5).contains(&ops), "{what}: {load}");
                assert_eq!(n, ops * 10, "{what}: {load}");
            }
        }
    }
    common::fresh_index(LOOPED, None);
}

const FRESH: &str = "searchbench-test-track-fresh";
const BESIDE: &str = "searchbench-test-track-fresh-beside";

/// A track's bulk tasks have their time to searchable measured as every load does, where
/// nothing beside them may change their index's count: one alone is probed (its row, its
/// line, its metrics, judged as a load's); one beside a raw request in its parallel block says
/// why it is not; `--no-freshness` measures none and says nothing.
#[test]
fn a_tracks_bulks_say_how_soon_their_documents_were_searchable() {
    let dir = tempfile::tempdir().unwrap();
    common::write_docs(&dir.path().join("a.json"), 3000);
    common::write_docs(&dir.path().join("b.json"), 300);
    let track = format!(
        r#"{{
  "version": 2,
  "indices": [{{"name": "{FRESH}"}}, {{"name": "{BESIDE}"}}],
  "corpora": [
    {{"name": "a", "documents": [{{"source-file": "a.json", "document-count": 3000, "target-index": "{FRESH}"}}]}},
    {{"name": "b", "documents": [{{"source-file": "b.json", "document-count": 300, "target-index": "{BESIDE}"}}]}}
  ],
  "schedule": [
    {{"operation": "delete-index"}},
    {{"operation": {{"operation-type": "create-index", "settings": {{"index.number_of_replicas": 0}}}}}},
    {{"name": "load", "operation": {{"operation-type": "bulk", "bulk-size": 100, "corpora": "a"}}, "clients": 2}},
    {{"parallel": {{"tasks": [
      {{"name": "beside", "operation": {{"operation-type": "bulk", "bulk-size": 50, "corpora": "b"}}}},
      {{"name": "ask", "operation": {{"operation-type": "raw-request", "method": "GET",
        "path": "/{BESIDE}/_count"}}}}
    ]}}}}
  ]
}}"#
    );
    let path = dir.path().join("track.json");
    std::fs::write(&path, track).unwrap();
    let run = |extra: &[&str]| {
        let (out, result) = track_runs::run_track(dir.path(), &path, extra);
        assert!(out.status.success(), "{}", common::streams(&out));
        (common::streams(&out), result)
    };
    let (said, result) = run(&[]);
    let load = row(&result, "load");
    let fresh = &load["freshness"];
    assert_eq!(
        (
            fresh["docs"].as_u64(),
            fresh["unseen"].as_u64(),
            fresh["cut"].as_u64()
        ),
        (Some(3000), Some(0), Some(0)),
        "{load}"
    );
    let p99 = fresh["p99_secs"].as_f64().unwrap();
    // Refresh every second: searchable within it and its own time, never past the bound.
    assert!(
        p99 > 0.0 && p99 < fresh["bound_secs"].as_f64().unwrap(),
        "{load}"
    );
    assert!(load["freshness_not_measured"].is_null(), "{load}");
    assert!(said.contains("task load: searchable after p50 "), "{said}");
    // Beside a raw request, which may write its index (this one does not, as the run's own
    // reconciled count shows): not measured, and why.
    let beside = row(&result, "beside");
    assert!(beside["freshness"].is_null(), "{beside}");
    let why = beside["freshness_not_measured"].as_str().unwrap();
    assert!(why.contains("task ask (raw-request)"), "{beside}");
    assert!(said.contains(&format!("task beside: {why}")), "{said}");
    // Its metrics, judged as a load's (lower is better), the same figure as the row's.
    let metrics = searchbench::analysis::metrics::extract(&result, &[]);
    let metric = |key: &str| metrics.iter().find(|m| m.key == key);
    let searchable = metric("task.load.searchable_p99_s").expect("the bulk's p99 is a metric");
    assert_eq!(searchable.value, p99);
    assert_eq!(
        searchable.direction,
        searchbench::analysis::metrics::Direction::LowerBetter
    );
    assert_eq!(
        metric("task.load.not_searchable_pct").map(|m| m.value),
        Some(0.0)
    );
    assert!(metric("task.beside.searchable_p99_s").is_none());
    // Not asked: nothing measured, nothing said.
    let (said, result) = run(&["--no-freshness"]);
    for task in ["load", "beside"] {
        let r = row(&result, task);
        assert!(
            r["freshness"].is_null() && r["freshness_not_measured"].is_null(),
            "{r}"
        );
    }
    assert!(!said.contains("searchable"), "{said}");
    common::fresh_index(FRESH, None);
    common::fresh_index(BESIDE, None);
}

//! What the flags attach to a run reaches every command and scenario alike (issue 77): a toy
//! instrument and a toy sink (`toys/`, one file each, outside `session/`) added once to an
//! `Attach` see every phase of `run logs`, `ingest`, a track run and the many-shards
//! scenario on the shared node; and a track run's result keeps its telemetry.
//!
//! What the toy instrument keeps (issue 98) is in the run's record and every view of it, with
//! no result type knowing it: the store, `results show --json`, the run's page, `compare`
//! (its figure judged as a metric) and the documents `results publish` sends.

use std::path::Path;
use std::time::Duration;

use searchbench::session::ingest::LoadSpec;
use searchbench::session::run::RunSpec;
use searchbench::session::scenario::ScenarioSpec;
use searchbench::session::{track_run, Attach, ClusterSpec, Job, SaveSpec, Silent};
use searchbench::workload::track::{read, runnable, TrackParams};
use searchbench::workload::{Scenario, WorkloadSpec};

use crate::common::{self, bin, node_url, streams};
use crate::toys::{self, Heard};
use serde_json::Value;

/// An attachment with both toys, the runs kept in `store`.
fn with_toys(store: &std::path::Path) -> (Attach, Heard, Heard) {
    let mut attach = Attach {
        save: SaveSpec {
            store: Some(store.to_path_buf()),
            tags: vec![("suite".into(), "attached".into())],
            skip: false,
        },
        ..Attach::default()
    };
    let (instrument, sink) = (Heard::default(), Heard::default());
    toys::instrument::add(&mut attach, &instrument);
    toys::sink::add(&mut attach, &sink);
    (attach, instrument, sink)
}

/// What the toys heard of one run: the phases that ran, and those the instrument watched
/// (each step's first).
struct Heard2 {
    ran: Vec<String>,
    watched: Vec<String>,
}

/// Checks what the toys heard of one run of `kind` on `workload`: the sink was told the run
/// and its phases first, each phase that ran (what the instrument kept beside the first phase
/// of each step, nothing beside the others, so a figure is the step's once), and the end
/// last; the instrument was started and stopped around every step, in pairs.
fn heard_every_phase(instrument: &Heard, sink: &Heard, kind: &str, workload: &str) -> Heard2 {
    let (i, s) = (toys::lines(instrument), toys::lines(sink));
    let begin = s
        .first()
        .unwrap_or_else(|| panic!("the sink heard nothing"));
    let prefix = format!("begin {kind} {workload} [");
    assert!(begin.starts_with(&prefix), "{begin}");
    let planned: Vec<&str> = begin[prefix.len()..begin.len() - 1].split(',').collect();
    // Started and stopped in pairs, around each step in turn.
    assert_eq!(i.len() % 2, 0, "{i:?}");
    let mut watched = Vec::new();
    for pair in i.chunks(2) {
        let phase = pair[0].strip_prefix("start ").expect("a start");
        assert_eq!(pair[1], format!("stop {phase}"), "{i:?}");
        watched.push(phase.to_string());
    }
    let ran: Vec<String> = s
        .iter()
        .filter_map(|l| l.strip_prefix("phase "))
        .map(|l| {
            let (phase, seen) = l.split_once(" seen=").expect("a phase line");
            assert_eq!(
                seen != "-",
                watched.iter().any(|w| w == phase),
                "{phase}: kept beside it iff it was watched: {s:?} {i:?}"
            );
            assert!(planned.contains(&phase), "{phase} was not planned: {begin}");
            phase.to_string()
        })
        .collect();
    assert!(!ran.is_empty(), "{s:?}");
    assert_eq!(
        s.last().map(String::as_str),
        Some(format!("finish ok phases={}", ran.len()).as_str()),
        "{s:?}"
    );
    for phase in &watched {
        assert!(ran.contains(phase), "{phase} watched but not run: {i:?}");
    }
    Heard2 { ran, watched }
}

/// The newest run of `kind` in `store`.
fn newest(store: &Path, kind: &str) -> String {
    let db = searchbench::store::Store::open_read(store).unwrap();
    let rows = db.list(&searchbench::store::Filter::default()).unwrap();
    let row = rows.iter().find(|r| r.kind == kind);
    row.unwrap_or_else(|| panic!("no {kind} run")).id.0.clone()
}

/// The toy's metric of the step begun by `phase`.
fn toy_key(phase: &str) -> String {
    format!(
        "{phase}.{}.{}",
        toys::instrument::NAME,
        toys::instrument::FIGURE
    )
}

fn ok(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().expect("the binary runs");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What the toy kept around each step of run `id` is in the store, in `results show --json`
/// (a metric per step, and the phase's kept values) and on the run's page.
fn kept_in_every_view(store: &Path, id: &str, heard: &Heard2) {
    let shown: Value = serde_json::from_str(&ok(bin()
        .args(["results", "show", id, "--json", "--store"])
        .arg(store)))
    .expect("show's JSON");
    let metrics = shown["metrics"].as_array().expect("metrics");
    let phases = shown["phases"].as_array().expect("phases");
    for phase in &heard.watched {
        let key = toy_key(phase);
        let m = metrics
            .iter()
            .find(|m| m["key"] == key.as_str())
            .unwrap_or_else(|| panic!("no {key} in {metrics:?}"));
        assert!(m["value"].as_f64().is_some_and(|v| v >= 0.0), "{m}");
        assert_eq!(m["direction"], "lower_better", "{m}");
        let kept = phases
            .iter()
            .find(|p| p["phase"] == phase.as_str())
            .map(|p| &p["kept"][toys::instrument::NAME])
            .unwrap_or_else(|| panic!("no phase {phase} in {phases:?}"));
        assert_eq!(kept["detail"]["phase"], phase.as_str(), "{kept}");
        assert_eq!(
            kept["figures"][toys::instrument::FIGURE]["value"],
            m["value"]
        );
    }
    // Nothing kept beside the phases that ran with another (the searches of a load).
    for p in phases {
        let phase = p["phase"].as_str().unwrap_or_default();
        if !heard.watched.iter().any(|w| w == phase) {
            assert!(p["kept"].as_object().is_none_or(|k| k.is_empty()), "{p}");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("run.html");
    ok(bin()
        .args(["report", id, "--html"])
        .arg(&html)
        .arg("--store")
        .arg(store));
    let page = std::fs::read_to_string(&html).expect("the page");
    assert!(
        page.contains(toys::instrument::LABEL),
        "the page has no toy figure"
    );
}

fn small_logs(docs: u64, index: &str) -> (Job, LoadSpec, WorkloadSpec) {
    let mut w = WorkloadSpec::new(7);
    w.docs = Some(docs);
    let job = Job::generated("logs", &w, Some(index.to_string()), &[]).expect("logs");
    let mut load = LoadSpec::new(index);
    load.driver.warmup = Duration::ZERO;
    load.replace = true;
    load.failures = Some(common::scratch_dir().join(format!("{index}-failures.ndjson")));
    (job, load, w)
}

fn given() -> ClusterSpec {
    ClusterSpec::given(common::target(), &[node_url().to_string()], None)
}

fn in_time<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    common::runtime()
        .block_on(async { tokio::time::timeout(Duration::from_secs(240), f).await })
        .unwrap_or_else(|_| panic!("{what} did not end in 240 s"))
}

#[test]
fn a_toy_instrument_and_sink_see_every_phase_of_every_kind_of_run() {
    let _heavy = common::one_track_at_a_time();
    let store = common::scratch_store();
    let mut recorded = Vec::new();

    // `ingest`, twice to compare: the load, one step.
    let mut ingests = Vec::new();
    for _ in 0..2 {
        let (attach, instrument, sink) = with_toys(&store);
        let (job, load, _) = small_logs(3_000, "it-attached-ingest");
        in_time(
            "ingest",
            searchbench::session::ingest::ingest(job, &given(), load, &attach, &Silent),
        )
        .expect("ingest");
        let heard = heard_every_phase(&instrument, &sink, "ingest", "logs");
        assert_eq!(heard.ran, ["ingest"]);
        ingests.push(newest(&store, "ingest"));
        recorded.push((newest(&store, "ingest"), heard));
    }
    // `compare` judges the toy's figure as any metric of the two runs.
    let compared: Value = serde_json::from_str(&ok(bin()
        .args(["compare", &ingests[0], &ingests[1], "--json", "--store"])
        .arg(&store)))
    .expect("compare's JSON");
    let key = toy_key("ingest");
    let row = compared["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["key"] == key.as_str())
        .unwrap_or_else(|| panic!("{key} not compared: {compared}"));
    assert!(row["contenders"][0]["verdict"].is_string(), "{row}");

    // `run logs`: the load, then its queries.
    let (attach, instrument, sink) = with_toys(&store);
    let (job, load, workload_spec) = small_logs(3_000, "it-attached-run");
    let spec = RunSpec {
        workload_spec,
        queries: true,
        progress: searchbench::query::Progress::default(),
        user_queries: None,
        split: None,
        rewrites: None,
    };
    let cluster = given();
    let run = searchbench::session::run::run(job, &cluster, load, &spec, &attach, &Silent);
    in_time("run logs", run).expect("run logs");
    let heard = heard_every_phase(&instrument, &sink, "run", "logs");
    assert_eq!(heard.ran, ["ingest", "query"]);
    recorded.push((newest(&store, "run"), heard));

    // A track run: each task a phase.
    let (attach, instrument, sink) = with_toys(&store);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("track.json"), TRACK).unwrap();
    common::write_docs(&dir.path().join("docs.json"), 300);
    let d = read(&dir.path().join("track.json"), &TrackParams::new()).unwrap();
    let procedure = runnable::procedure(&d, None).unwrap().clone();
    let planned = searchbench::tasks::plan::plan(&d, &procedure, &Default::default()).unwrap();
    let spec = track_run::TrackRunSpec {
        params: &TrackParams::new(),
        attach: &attach,
        interrupt: searchbench::cancel::Cancel::never(),
        test_mode: false,
        part: None,
        failures: Some(dir.path().join("failures.ndjson")),
        synthesized: Vec::new(),
        freshness: None,
    };
    let result = in_time(
        "the track",
        track_run::run(&d, &procedure, planned, &cluster, &spec, &Silent),
    )
    .expect("the track runs");
    let heard = heard_every_phase(&instrument, &sink, "track", &d.name);
    assert_eq!(
        heard.ran,
        ["delete-index", "create-index", "load", "nap", "search"]
    );
    recorded.push((newest(&store, "track"), heard));
    // Its telemetry is in its result (the nap alone spans a sample) and in the store.
    let telemetry = result.telemetry.expect("a track run's telemetry");
    assert!(telemetry.samples >= 1, "{telemetry:?}");
    let db = searchbench::store::Store::open(&store).unwrap();
    let runs = db
        .list(&searchbench::store::Filter::default())
        .unwrap()
        .into_iter()
        .filter(|r| r.kind == "track")
        .collect::<Vec<_>>();
    assert_eq!(runs.len(), 1);
    assert!(
        !db.telemetry(&runs[0].id).unwrap().is_empty(),
        "no telemetry rows stored"
    );
    let row = db.get(&runs[0].id.0).unwrap();
    let kept = row.result.as_ref().expect("a result");
    assert!(kept["telemetry"]["samples"].as_u64() >= Some(1), "{kept}");

    // The many-shards scenario: its own phases and the logs load with searches beside.
    let (attach, instrument, sink) = with_toys(&store);
    let mut spec = ScenarioSpec::new(Scenario::ManyShards);
    spec.indices = 4;
    spec.docs_per_index = 10;
    spec.logs_docs = 3_000;
    spec.search_clients = 1;
    spec.field_caps_requests = 4;
    let scenario = searchbench::session::scenario::run(spec, &cluster, &attach, &Silent);
    let result = in_time("many-shards", scenario).expect("many-shards");
    // Sampled by default: its logs load has its telemetry.
    let indexing = result.indexing.expect("the logs load");
    assert!(
        indexing.telemetry.is_some(),
        "the logs load was not sampled"
    );
    let heard = heard_every_phase(&instrument, &sink, "run", "many-shards");
    let ran = heard.ran.clone();
    recorded.push((newest(&store, "run"), heard));
    for phase in [
        "setup",
        "creation",
        "counting",
        "ingest",
        "searches",
        "field-caps",
        "cleanup",
    ] {
        assert!(ran.iter().any(|r| r == phase), "{phase} not seen: {ran:?}");
    }

    // Every run's record and views hold what the toy kept, and so do the documents published.
    for (id, heard) in &recorded {
        kept_in_every_view(&store, id, heard);
    }
    let prefix = "it-attached-toy";
    let out = crate::publish::publish(&store, node_url(), prefix, &["--pending"]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    for (id, heard) in &recorded {
        for phase in &heard.watched {
            let doc = format!("/{prefix}-metrics/_doc/{id}:{}", toy_key(phase));
            let v: Value = common::runtime()
                .block_on(common::target().get_json(&doc))
                .unwrap_or_else(|e| panic!("{doc}: {e}"));
            assert_eq!(
                v["_source"]["label"]
                    .as_str()
                    .map(|l| l.contains(toys::instrument::LABEL)),
                Some(true),
                "{v}"
            );
        }
    }
}

/// A tiny track: its index made again, a bulk, a pause long enough for a telemetry sample, a
/// search.
const TRACK: &str = r#"{
  "version": 2,
  "indices": [{"name": "it-attached-track"}],
  "corpora": [{"name": "docs", "documents": [{"source-file": "docs.json.bz2", "document-count": 300}]}],
  "challenges": [{"name": "c", "default": true, "schedule": [
    {"operation": "delete-index"},
    {"operation": {"operation-type": "create-index", "settings": {"index.number_of_replicas": 0}}},
    {"name": "load", "operation": {"operation-type": "bulk", "bulk-size": 100}},
    {"name": "nap", "operation": {"operation-type": "sleep", "duration": 2.5}},
    {"name": "search", "operation": {"operation-type": "search", "index": "it-attached-track",
      "body": {"query": {"match_all": {}}}}, "iterations": 5}
  ]}]
}"#;

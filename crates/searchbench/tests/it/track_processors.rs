//! A track's own processors (issue 101): what its `track.py` (`workload.py`) registers with
//! `register_track_processor` (`register_workload_processor`) changes the track as the tool
//! loads it, and the challenge runs as they leave it. Rally's http_logs is the real case: its
//! `RuntimeFieldResolver` rewrites the fields of its runtime-field tasks.

use std::path::Path;

use serde_json::{json, Value};

use crate::common;
use crate::common::track_runs::{self, nothing_was_sent, run_track};

const INDEX: &str = "searchbench-test-track-processors";

/// Rally's own reading of a track: esrally loads it (its processors applied) and prints every
/// task of the challenge with its operation's parameters, a JSON object by task name. The
/// test's own script, not the worker's: the reference the plan is held to.
const RALLY_READS: &str = r#"
import json, sys
from esrally import config, paths, track
cfg = config.Config()
for section, key, value in [
    ("node", "rally.root", paths.rally_root()),
    ("track", "track.path", sys.argv[1]),
    ("track", "params", json.loads(sys.argv[3])),
    ("track", "challenge.name", sys.argv[2]),
    ("benchmarks", "local.dataset.cache", sys.argv[1] + "/.data"),
]:
    cfg.add(config.Scope.application, section, key, value)
t = track.load_track(cfg)
c = t.find_challenge_or_default(sys.argv[2])
print(json.dumps({task.name: task.operation.params for group in c.schedule for task in group}))
"#;

/// http_logs' runtime-fields challenge, planned as its processor leaves it: every task's
/// operation is what esrally itself loads (its runtime-field tasks search `grok.from_source.status`
/// and the like), and the plan takes them.
#[test]
fn rallys_http_logs_is_planned_as_its_runtime_field_resolver_leaves_it() {
    use searchbench::workload::track::{self, runnable, TrackParams};
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracks");
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("http_logs");
    common::copy_dir(&fixtures.join("rally/http_logs"), &folder);
    common::copy_dir(&fixtures.join("rally-python/http_logs"), &folder);
    let mut params = TrackParams::new();
    params.insert("runtime_fields".into(), json!(true));
    let d = track::read(&folder.join("track.json"), &params).unwrap();
    let written = runnable::procedure(&d, Some("runtime-fields")).unwrap();
    let rt = common::runtime();
    let (_fire, interrupt) = searchbench::cancel::Cancel::new();
    let loading = searchbench::session::track_run::Loading {
        params: &params,
        test_mode: false,
        interrupt: &interrupt,
    };
    let (processed, not_run) = rt
        .block_on(searchbench::session::track_run::processed(
            &d,
            written,
            &loading,
            &searchbench::session::Silent,
        ))
        .unwrap()
        .expect("the resolver changed tasks");
    assert_eq!(not_run, vec![]);

    let python = rt
        .block_on(searchbench::tasks::python::venv::ensure(
            searchbench::tasks::python::venv::ESRALLY,
            &|_| {},
        ))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(python)
        .args(["-c", RALLY_READS])
        .arg(&folder)
        .arg("runtime-fields")
        .arg(r#"{"runtime_fields": true}"#)
        .env("RALLY_HOME", home.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::streams(&out));
    let rally: Value = serde_json::from_slice(&out.stdout).unwrap();

    let tasks = |p: &searchbench::workload::track::model::Procedure| -> Vec<(String, Value)> {
        p.steps
            .iter()
            .flat_map(|s| s.tasks())
            .map(|t| (t.name.clone(), Value::Object(t.operation.params.clone())))
            .collect()
    };
    let before = tasks(written);
    let after = tasks(&processed);
    assert_eq!(before.len(), after.len());
    let mut rewritten = 0;
    for ((name, was), (_, now)) in before.iter().zip(&after) {
        // Rally's operation holds its whole definition, and what its reader adds.
        let mut theirs = rally[name].clone();
        for added in ["name", "operation-type", "include-in-reporting"] {
            if now.get(added).is_none() {
                theirs.as_object_mut().unwrap().remove(added);
            }
        }
        assert_eq!(now, &theirs, "task {name}: ours, then esrally's");
        let resolved = regex_lite(name);
        if let Some((source, using)) = resolved {
            let field = format!("\"{using}.from_{source}.");
            assert!(now.to_string().contains(&field), "{name}: {now}");
            assert_ne!(was, now, "{name}");
            rewritten += 1;
        } else {
            assert_eq!(was, now, "{name}: no processor changes it");
        }
    }
    // term, 200s-in-range and 400s-in-range, each from source, keyword and wildcard using
    // grok, dissect and index-of.
    assert_eq!(rewritten, 27);
    let planned = searchbench::tasks::plan::plan(&d, &processed, &Default::default()).unwrap();
    let planned_names: Vec<String> = planned
        .steps
        .iter()
        .flatten()
        .filter_map(|(p, _)| match p {
            searchbench::tasks::plan::TaskPlan::Task(t) => Some(t.name.clone()),
            searchbench::tasks::plan::TaskPlan::Bulk(_) => None,
        })
        .collect();
    assert!(
        planned_names.contains(&"term-from-source-using-grok".to_string()),
        "{planned_names:?}"
    );
}

/// The source and implementation `RuntimeFieldResolver` reads from a task's name
/// (`.+-from-(.+)-using-(.+)`, the implementation's dashes as underscores).
fn regex_lite(name: &str) -> Option<(String, String)> {
    let (head, using) = name.rsplit_once("-using-")?;
    let (_, source) = head.split_once("-from-")?;
    Some((source.to_string(), using.replace('-', "_")))
}

/// A definition whose processor rewrites a search's index (as written it searches an index
/// that is not there), raises its iterations and removes a request that would fail.
fn write_definition(dir: &Path, osb: bool, py: &str) -> std::path::PathBuf {
    let schedule = format!(
        r#"[
    {{"operation": "delete-index"}},
    {{"operation": {{"operation-type": "create-index", "settings": {{"index.number_of_replicas": 0}}}}}},
    {{"name": "find", "operation": {{"operation-type": "search", "index": "{INDEX}-as-written", "body": {{"query": {{"match_all": {{}}}}}}}}, "iterations": 3}},
    {{"name": "fails", "operation": {{"operation-type": "raw-request", "method": "GET", "path": "/{INDEX}-as-written/_doc/1"}}}}
  ]"#
    );
    track_runs::write_definition(dir, "processed", osb, INDEX, &schedule, Some(py))
}

/// Rally's processor: `on_after_load_track` over the track's challenges; the workload's, the
/// same over its test procedures.
fn processor(osb: bool, change: &str) -> String {
    let (base, hook, procedures, register) = if osb {
        (
            "from osbenchmark.workload import loader\nBase = loader.WorkloadProcessor",
            "on_after_load_workload(self, t, **kwargs)",
            "t.test_procedures",
            "registry.register_workload_processor(Rewrites())",
        )
    } else {
        (
            "from esrally.track import loader\nBase = loader.TrackProcessor",
            "on_after_load_track(self, t)",
            "t.challenges",
            "registry.register_track_processor(Rewrites())",
        )
    };
    format!(
        r#"import copy
{base}

class Rewrites(Base):
    def {hook}:
        for c in {procedures}:
            for group in list(c.schedule):
                for task in list(group):
{change}

def register(registry):
    {register}
"#
    )
}

const REWRITES: &str = r#"                    if task.name == "find":
                        task.operation = copy.copy(task.operation)
                        task.operation.params = dict(task.operation.params, index="searchbench-test-track-processors")
                        task.iterations = 7
                    if task.name == "fails":
                        c.remove_task(task)"#;

/// The challenge runs as the track's processor leaves it: the search it rewrote finds its
/// index, as often as it now says; the task it removed is not sent, and is said to be so.
fn runs_as_its_processor_leaves_it(osb: bool) {
    let dir = tempfile::tempdir().unwrap();
    let track = write_definition(dir.path(), osb, &processor(osb, REWRITES));
    let _one = common::one_track_at_a_time();
    let (out, result) = run_track(dir.path(), &track, &[]);
    assert!(out.status.success(), "{}", common::streams(&out));
    let rows = result["tasks"].as_array().unwrap();
    let find = rows.iter().find(|r| r["task"] == "find").unwrap();
    assert_eq!(
        (&find["ops"], &find["errors"]),
        (&json!(7), &json!(0)),
        "{find}"
    );
    assert!(!rows.iter().any(|r| r["task"] == "fails"), "{result:#}");
    let not_run = result["not_run"].as_array().unwrap();
    assert!(
        not_run
            .iter()
            .any(|i| i["what"] == "task fails (raw-request)"
                && i["how"].as_str().unwrap().contains("processor removed it")),
        "{not_run:?}"
    );
    common::fresh_index(INDEX, None);
}

#[test]
fn a_tracks_processor_changes_the_challenge_before_it_runs() {
    runs_as_its_processor_leaves_it(false);
}

#[test]
fn a_workloads_processor_changes_the_test_procedure_before_it_runs() {
    runs_as_its_processor_leaves_it(true);
}

/// A processor that changes what is not applied here (a task's schedule) stops the run before
/// anything is sent, naming the task and what changed; one that raises names its file and
/// line.
#[test]
fn what_a_processor_changes_that_is_not_applied_stops_the_run_first() {
    let dir = tempfile::tempdir().unwrap();
    let _one = common::one_track_at_a_time();
    // No index: a run that sent anything would make it.
    common::fresh_index(INDEX, None);
    for (change, said) in [
        (
            "                    if task.name == \"find\":\n                        task.schedule = \"poisson\"",
            vec!["task find: the track's processor changed its schedule"],
        ),
        (
            "                    raise ValueError(\"no such field\")",
            vec!["track.py, line 10", "ValueError: no such field"],
        ),
    ] {
        let track = write_definition(dir.path(), false, &processor(false, change));
        let (out, _) = run_track(dir.path(), &track, &[]);
        assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        for s in said {
            assert!(err.contains(s), "{s} in {err}");
        }
        nothing_was_sent(INDEX);
    }
}

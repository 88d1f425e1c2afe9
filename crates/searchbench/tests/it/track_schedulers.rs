//! A task's `schedule` (issue 101): the tools' own `poisson`, and a scheduler the track's
//! Python registers (`register_scheduler`), asked each client's due times in the worker as the
//! tool's driver asks them, told of each request before and after it, on the shared node.

use std::path::Path;

use serde_json::{json, Value};

use crate::common;
use crate::common::track_runs::{self, nothing_was_sent, row, run_track};

const INDEX: &str = "searchbench-test-track-schedulers";

const SCHEDULE: &str = r#"[
    {"operation": "delete-index"},
    {"operation": {"operation-type": "create-index", "settings": {"index.number_of_replicas": 0}}},
    {"name": "paced", "operation": {"operation-type": "search", "body": {"query": {"match_all": {}}}}, "iterations": 5, "schedule": "every-fifth"},
    {"name": "given", "operation": {"operation-type": "search", "param-source": "counted"}, "iterations": 4, "clients": 2, "schedule": "checks-its-source"},
    {"name": "ran", "operation": {"operation-type": "count-it"}, "iterations": 3, "schedule": "every-fifth"},
    {"name": "arrivals", "operation": {"operation-type": "search", "body": {"query": {"match_all": {}}}}, "iterations": 30, "target-throughput": 30, "schedule": "poisson"}
  ]"#;

/// `every-fifth` is due every 0.2 s and writes down what it hears; `checks-its-source` is
/// due at once and fails when asked a due time out of step with the parameters made (the
/// tool's driver asks the due time, then the parameters, one at a time).
const SCHEDULERS_PY: &str = r#"
import json, os

HEARD = os.path.join(os.getcwd(), "heard.jsonl")

def hear(*what):
    with open(HEARD, "a") as f:
        f.write(json.dumps(what) + "\n")

class EveryFifth:
    def __init__(self, task):
        self.task = task.name
    def before_request(self, now):
        hear(self.task, "before")
    def after_request(self, now, weight, unit, meta):
        hear(self.task, "after", weight, unit, meta.get("success"))
    def next(self, current):
        hear(self.task, "next", current)
        return current + 0.2

class Counted:
    def __init__(self, track, params, **kwargs):
        self.infinite = True
        self.given = 0
    def partition(self, partition_index, total_partitions):
        return Counted(None, None)
    def params(self):
        self.given += 1
        return {"index": "searchbench-test-track-schedulers", "body": {"query": {"match_all": {}}}}

class ChecksItsSource:
    def __init__(self, task):
        self.parameter_source = None
        self.asked = 0
    def before_request(self, now):
        pass
    def after_request(self, now, weight, unit, meta):
        pass
    def next(self, current):
        if self.parameter_source.given != self.asked:
            raise ValueError(f"asked {self.asked} due times, {self.parameter_source.given} parameters made")
        self.asked += 1
        return 0

async def count_it(es, params):
    return {"weight": 1, "unit": "ops", "success": True}

def register(registry):
    registry.register_param_source("counted", Counted)
    registry.register_scheduler("every-fifth", EveryFifth)
    registry.register_scheduler("checks-its-source", ChecksItsSource)
    registry.register_runner("count-it", count_it, async_runner=True)
"#;

/// What `every-fifth` heard, task by task, in order.
fn heard(folder: &Path, task: &str) -> Vec<Value> {
    std::fs::read_to_string(folder.join("heard.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|h| h[0] == task)
        .map(|h| Value::Array(h.as_array().unwrap()[1..].to_vec()))
        .collect()
}

#[test]
fn a_tasks_schedule_paces_it_as_the_tool_would() {
    let dir = tempfile::tempdir().unwrap();
    let track = track_runs::write_definition(
        dir.path(),
        "scheduled",
        false,
        INDEX,
        SCHEDULE,
        Some(SCHEDULERS_PY),
    );
    let _one = common::one_track_at_a_time();
    let (out, result) = run_track(dir.path(), &track, &[]);
    assert!(out.status.success(), "{}", common::streams(&out));
    for (task, ops) in [("paced", 5), ("given", 8), ("ran", 3), ("arrivals", 30)] {
        let r = row(&result, task);
        assert_eq!(
            (&r["ops"], &r["errors"]),
            (&json!(ops), &json!(0)),
            "{task}: {r}"
        );
    }
    let folder = track.parent().unwrap();
    // The driver asks the due time, then sends; the scheduler hears of the request before
    // and after it, with its weight and unit.
    let mut expected = Vec::new();
    for k in 0..5 {
        expected.push(json!(["next", k as f64 / 5.0]));
        expected.push(json!(["before"]));
        expected.push(json!(["after", 1.0, "ops", true]));
    }
    let paced = heard(folder, "paced");
    let rounded: Vec<Value> = paced
        .iter()
        .map(|h| match h[0].as_str() {
            Some("next") => json!(["next", (h[1].as_f64().unwrap() * 10.0).round() / 10.0]),
            _ => h.clone(),
        })
        .collect();
    assert_eq!(rounded, expected);
    // The last request is due 1 s after the task's start: it took that long at least.
    let window = |r: &Value| {
        let secs = r["seconds"].as_f64();
        secs.unwrap_or_else(|| panic!("no window in {r}"))
    };
    // Its first request is due at 0.2 s, its last at 1 s.
    assert!(
        window(row(&result, "paced")) >= 0.7,
        "{}",
        row(&result, "paced")
    );
    // A runner's scheduler hears of it in the worker, around the runner, with what it said.
    let ran = heard(folder, "ran");
    assert_eq!(
        ran.iter().filter(|h| h[0] == "before").count(),
        3,
        "{ran:?}"
    );
    assert!(
        ran.iter()
            .filter(|h| h[0] == "after")
            .all(|h| h[1] == 1.0 && h[2] == "ops" && h[3] == true),
        "{ran:?}"
    );
    // 30 at 30/s on average: about a second, never all at once.
    let arrivals = window(row(&result, "arrivals"));
    assert!(
        (0.4..5.0).contains(&arrivals),
        "30 poisson arrivals at 30/s took {arrivals} s"
    );
    common::fresh_index(INDEX, None);
}

/// A schedule with a name no scheduler has: refused before anything is sent, without a
/// `track.py` when the track is read, with one when the worker has loaded it.
#[test]
fn a_schedule_no_scheduler_has_stops_the_run_first() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = SCHEDULE.replace(
        "\"schedule\": \"every-fifth\"}",
        "\"schedule\": \"no-such\"}",
    );
    let _one = common::one_track_at_a_time();
    common::fresh_index(INDEX, None);
    for (py, says) in [
        (None, "schedule no-such: no scheduler has that name (the tools' own are deterministic and poisson; a track.py beside the track may register one)"),
        (
            Some(SCHEDULERS_PY),
            "task paced: schedule no-such: no scheduler has that name, neither the tools' own",
        ),
    ] {
        let track = track_runs::write_definition(dir.path(), "unknown", false, INDEX, &schedule, py);
        let (out, _) = run_track(dir.path(), &track, &[]);
        assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{says} in {err}");
        nothing_was_sent(INDEX);
    }
}

/// A scheduler that raises fails its task with the error and where the track's code raised it,
/// whether in `next` or in what it is told after a request (said with the next due time); the
/// run goes on to the next task and fails at its end (exit 3).
#[test]
fn a_scheduler_that_raises_fails_its_task_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let schedule = r#"[
    {"operation": "delete-index"},
    {"operation": {"operation-type": "create-index", "settings": {"index.number_of_replicas": 0}}},
    {"name": "raises-next", "operation": {"operation-type": "search", "body": {"query": {"match_all": {}}}}, "iterations": 3, "schedule": "raises-next"},
    {"name": "raises-after", "operation": {"operation-type": "search", "body": {"query": {"match_all": {}}}}, "iterations": 3, "schedule": "raises-after"},
    {"name": "after-them", "operation": {"operation-type": "search", "body": {"query": {"match_all": {}}}}}
  ]"#;
    let py = r#"
class RaisesNext:
    def __init__(self, task):
        pass
    def before_request(self, now):
        pass
    def after_request(self, now, weight, unit, meta):
        pass
    def next(self, current):
        raise ValueError("no next")

class RaisesAfter(RaisesNext):
    def next(self, current):
        return 0
    def after_request(self, now, weight, unit, meta):
        raise RuntimeError("not after")

def register(registry):
    registry.register_scheduler("raises-next", RaisesNext)
    registry.register_scheduler("raises-after", RaisesAfter)
"#;
    let track =
        track_runs::write_definition(dir.path(), "raises", false, INDEX, schedule, Some(py));
    let _one = common::one_track_at_a_time();
    let (out, result) = run_track(dir.path(), &track, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", common::streams(&out));
    for (task, says) in [
        ("raises-next", "track.py, line 10: ValueError: no next"),
        ("raises-after", "track.py, line 16: RuntimeError: not after"),
    ] {
        let r = row(&result, task);
        let error = r["first_error"].as_str().unwrap_or_default();
        assert!(
            error.contains(&format!("schedule {task}")) && error.contains(says),
            "{task}: {says} in {r}"
        );
    }
    let after = row(&result, "after-them");
    assert_eq!(
        (&after["ops"], &after["errors"]),
        (&json!(1), &json!(0)),
        "{after}"
    );
    common::fresh_index(INDEX, None);
}

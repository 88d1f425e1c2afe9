//! The real Rally tracks and OSB workloads pinned in `tests/fixtures/tracks`, run as written:
//! each one's default challenge (test procedure), in test mode, against the shared node, on
//! small corpora the test lays down where the tools would have downloaded theirs, compressed
//! as they ship (`.bz2`), with documents that fit each index's mapping. Each test says what
//! ran, what the engine refused (and why), and what was listed as not run (and why).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::track_corpus::{self, Layout};
use crate::common::{self, node_url};

/// What a run of a definition did.
struct Outcome {
    code: Option<i32>,
    stderr: String,
    /// Every task that ran: its name, its failed operations and its first error.
    ran: Vec<(String, u64, Option<String>)>,
    /// What was listed as not run, with why.
    not_run: Vec<(String, String)>,
}

/// A copy of fixture `<tool>/<name>` (OSB's `common_operations` beside it, as in its
/// repository) with its corpora laid down, run in test mode; the indices and data streams
/// it made are deleted after.
fn run(tool: &str, name: &str, layout: Layout, params: &str) -> Outcome {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracks");
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&fixtures.join(tool).join(name), &dir.path().join(name));
    if tool == "osb" {
        common::copy_dir(
            &fixtures.join("osb/common_operations"),
            &dir.path().join("common_operations"),
        );
    }
    let file: PathBuf = dir.path().join(name).join(if tool == "osb" {
        "workload.json"
    } else {
        "track.json"
    });
    let mut track_params = searchbench::workload::track::TrackParams::new();
    for pair in params.split(',').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once(':').unwrap();
        track_params.insert(k.into(), serde_json::from_str(v).unwrap());
    }
    let d = searchbench::workload::track::read(&file, &track_params).unwrap();
    track_corpus::write(&d, file.parent().unwrap(), layout);
    let json = dir.path().join("result.json");
    let _one = common::one_track_at_a_time();
    let out = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--test-mode"])
        .args(if params.is_empty() {
            vec![]
        } else {
            vec!["--track-params", params]
        })
        .arg("--workload-file")
        .arg(&file)
        .arg("--json")
        .arg(&json)
        .arg("--store")
        .arg(dir.path().join("results.db"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let r: Value = std::fs::read(&json)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    let ran = r["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["task"].as_str().unwrap_or("").to_string(),
                t["errors"].as_u64().unwrap_or(0),
                t["first_error"].as_str().map(str::to_string),
            )
        })
        .collect();
    let not_run = r["not_run"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            (
                i["what"].as_str().unwrap_or("").to_string(),
                i["how"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    clean_up(&d);
    Outcome {
        code: out.status.code(),
        stderr,
        ran,
        not_run,
    }
}

/// Deletes what the definition makes: its indices, data streams and templates.
fn clean_up(d: &searchbench::workload::track::Definition) {
    let t = common::target();
    common::runtime().block_on(async {
        for s in &d.track.data_streams {
            let _ = t
                .send(
                    reqwest::Method::DELETE,
                    &format!("/_data_stream/{}", s.name),
                    None,
                )
                .await;
        }
        for i in d.index_bodies.keys() {
            let _ = t
                .send(reqwest::Method::DELETE, &format!("/{i}"), None)
                .await;
        }
        for name in d.composable_templates.keys() {
            let _ = t
                .send(
                    reqwest::Method::DELETE,
                    &format!("/_index_template/{name}"),
                    None,
                )
                .await;
        }
    });
}

impl Outcome {
    /// Asserts what ran: `tasks` tasks, every one without an error but those `failed` (each
    /// with a piece of its error), and exactly `not_run` listed as not run (each with a piece of
    /// why). A run with failed tasks exits 3, one without 0.
    fn is(&self, tasks: usize, failed: &[(&str, &str)], not_run: &[(&str, &str)]) {
        let all = format!(
            "{:#?}\n{:#?}\nstderr:\n{}",
            self.ran, self.not_run, self.stderr
        );
        assert_eq!(self.ran.len(), tasks, "{all}");
        let failures: Vec<&(String, u64, Option<String>)> = self
            .ran
            .iter()
            .filter(|(_, errors, first)| *errors > 0 || first.is_some())
            .collect();
        let names: Vec<&str> = failures.iter().map(|(t, _, _)| t.as_str()).collect();
        let expected: Vec<&str> = failed.iter().map(|(t, _)| *t).collect();
        assert_eq!(names, expected, "{all}");
        for ((_, _, first), (task, why)) in failures.iter().zip(failed) {
            let first = first.as_deref().unwrap_or("");
            assert!(
                first.contains(why),
                "{task}: {first:?} does not say {why:?}"
            );
        }
        assert_eq!(
            self.code,
            Some(if failed.is_empty() { 0 } else { 3 }),
            "{all}"
        );
        let listed: Vec<&str> = self.not_run.iter().map(|(w, _)| w.as_str()).collect();
        let expected: Vec<String> = not_run.iter().map(|(t, _)| format!("task {t}")).collect();
        assert_eq!(listed, expected, "{all}");
        for ((_, how), (task, why)) in self.not_run.iter().zip(not_run) {
            assert!(how.contains(why), "{task}: {how:?} does not say {why:?}");
        }
    }
}

/// A task whose parameters come from the track's Python (a param-source): not run, said so.
const PYTHON: &str = "come from the track's Python (param-source";

/// geonames' three searches made by its Python.
const GEONAMES_PYTHON: [(&str, &str); 3] = [
    ("large_terms (search)", PYTHON),
    ("large_filtered_terms (search)", PYTHON),
    ("large_prohibited_terms (search)", PYTHON),
];

#[test]
fn rally_geonames_runs_all_but_its_python() {
    run("rally", "geonames", Layout::Samples, "").is(34, &[], &GEONAMES_PYTHON);
}

#[test]
fn rally_http_logs_runs_all_but_elasticsearchs_terms_enum() {
    // `_terms_enum` is an Elasticsearch API; OpenSearch has no such endpoint.
    run("rally", "http_logs", Layout::Samples, "").is(
        41,
        &[(
            "terms_enum",
            "no handler found for uri [/logs-*/_terms_enum]",
        )],
        &[],
    );
}

#[test]
fn rally_pmc_noaa_and_so_run_every_step() {
    run("rally", "pmc", Layout::Samples, "").is(15, &[], &[]);
    run("rally", "noaa", Layout::Samples, "").is(16, &[], &[]);
    run("rally", "so", Layout::Samples, "").is(6, &[], &[]);
}

/// Rally's nyc_taxis is Elasticsearch 8's: its index sets `index.mapping.source.mode`, which
/// OpenSearch refuses, so the index is never made as written; the load then makes one with
/// dynamic mappings, where its date aggregations find text fields. Every step runs; what the
/// engine refused is said, step by step.
#[test]
fn rally_nyc_taxis_runs_every_step_and_says_what_opensearch_refused() {
    run("rally", "nyc_taxis", Layout::Samples, "").is(
        15,
        &[
            (
                "create-index",
                "unknown setting [index.mapping.source.mode]",
            ),
            ("check-cluster-health", "still failing after 10s"),
            ("autohisto_agg", "Text fields are not optimised"),
            ("date_histogram_agg", "Text fields are not optimised"),
        ],
        &[],
    );
}

/// Rally's big5 is Elasticsearch's: an ILM policy, a template naming it, a data stream from
/// that template. OpenSearch refuses the first two, so there is no data stream to load or
/// search: each step runs and fails, saying why.
#[test]
fn rally_big5_runs_every_step_and_says_what_opensearch_refused() {
    let o = run("rally", "big5", Layout::Samples, "");
    let mut failed = vec![
        (
            "create-ilm-policy",
            "no handler found for uri [/_ilm/policy/",
        ),
        (
            "create-index-template",
            "unknown setting [index.lifecycle.name]",
        ),
        ("create-data-stream", "no matching index template found"),
        ("bulk-index", "logs-benchmark-dev: PUT"),
    ];
    let searches: Vec<String> = o.ran[4..].iter().map(|(t, _, _)| t.clone()).collect();
    assert_eq!(searches.len(), 37);
    for t in &searches {
        failed.push((t, "no such index [logs-benchmark-dev]"));
    }
    o.is(41, &failed, &[]);
}

#[test]
fn osb_big5_runs_every_step() {
    // One node: no replica can be assigned, so the index is green only without one (the
    // workload's own parameter, as a user of one node sets it).
    run("osb", "big5", Layout::Whole(1200), "number_of_replicas:0").is(51, &[], &[]);
}

#[test]
fn osb_nyc_taxis_geonames_and_http_logs_run_every_step() {
    // The corpus files as named, larger than test mode reads: their first 1,000 documents.
    run("osb", "nyc_taxis", Layout::Whole(1200), "").is(17, &[], &[]);
    run("osb", "geonames", Layout::Whole(1200), "").is(31, &[], &GEONAMES_PYTHON);
    run("osb", "http_logs", Layout::Whole(1200), "").is(31, &[], &[]);
}

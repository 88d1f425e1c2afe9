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
    /// The run's result (`--json`).
    result: Value,
}

/// A copy of fixture `<tool>/<name>` (OSB's `common_operations` beside it, as in its
/// repository) with its corpora laid down, run in test mode; the indices and data streams
/// it made are deleted after.
fn run(tool: &str, name: &str, layout: Layout, params: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), tool, name, Some(layout), params, &[])
}

/// [`run`] in `dir` (its store, `results.db`, kept there from one run to the next), with the
/// corpora laid down only when `layout` is given, and `more` arguments; a run with
/// `--synthesize` keeps what it makes in `dir/cache`.
fn run_in(
    dir: &Path,
    tool: &str,
    name: &str,
    layout: Option<Layout>,
    params: &str,
    more: &[&str],
) -> Outcome {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracks");
    common::copy_dir(&fixtures.join(tool).join(name), &dir.join(name));
    if tool == "osb" {
        common::copy_dir(
            &fixtures.join("osb/common_operations"),
            &dir.join("common_operations"),
        );
    }
    let file: PathBuf = dir.join(name).join(if tool == "osb" {
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
    if let Some(layout) = layout {
        track_corpus::write(&d, file.parent().unwrap(), layout);
    }
    let json = dir.join("result.json");
    let _ = std::fs::remove_file(&json);
    let _one = common::one_track_at_a_time();
    let mut command = common::bin();
    if more.contains(&"--synthesize") {
        command.env("SEARCHBENCH_CACHE", dir.join("cache"));
    }
    let out = command
        // What is tested here is the track run as written; a track's time to searchable is
        // `track_tasks`'s, and nyc_taxis's refresh of 30 s would hold each of its runs that
        // long for its last documents.
        .args([
            "run",
            "--url",
            node_url(),
            "--quiet",
            "--test-mode",
            "--no-freshness",
        ])
        .args(more)
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
        .arg(dir.join("results.db"))
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
        result: r,
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

/// Rally's http_logs with none of its seven corpus files here: `--synthesize` makes each from
/// the index's mapping (1,000 documents in test mode) and the challenge runs as on the
/// samples of the real corpus. Then the real samples are laid down and it runs again in the
/// same store: every view tells the two apart, and `compare` will not set one against the
/// other without --allow-mixed, saying why. (The run on the real samples is also the test
/// that Rally's http_logs runs as written: all but `_terms_enum`.)
#[test]
fn rally_http_logs_runs_in_test_mode_on_a_corpus_synthesized_from_its_mapping() {
    let dir = tempfile::tempdir().unwrap();
    // `_terms_enum` is an Elasticsearch API; OpenSearch has no such endpoint.
    let terms_enum = [(
        "terms_enum",
        "no handler found for uri [/logs-*/_terms_enum]",
    )];
    let synthesized = run_in(
        dir.path(),
        "rally",
        "http_logs",
        None,
        "",
        &["--synthesize"],
    );
    synthesized.is(41, &terms_enum, &[]);
    let files = synthesized.result["synthesized"].as_array().unwrap();
    assert_eq!(files.len(), 7, "{files:?}");
    for f in files {
        assert_eq!(f["documents"], 1000, "{f}");
        assert_eq!(f["corpus"], "http_logs");
        assert!(f.get("sample").is_none(), "no sample here: {f}");
    }
    let made: Vec<_> = walk(&dir.path().join("cache/synthesized"));
    assert_eq!(made.len(), 7, "{made:?}");
    for file in &made {
        let text = std::fs::read_to_string(file).unwrap();
        assert_eq!(text.lines().count(), 1000, "{}", file.display());
    }
    assert!(
        !dir.path()
            .join("http_logs/documents-181998.json.bz2")
            .exists(),
        "nothing is laid beside the track"
    );
    let bulk = |o: &Outcome| {
        o.result["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["operation_type"] == "bulk")
            .map(|t| t["ops"].clone())
    };
    let real = run_in(
        dir.path(),
        "rally",
        "http_logs",
        Some(Layout::Samples),
        "",
        &[],
    );
    real.is(41, &terms_enum, &[]);
    assert!(real.result.get("synthesized").is_none());
    assert_eq!(
        bulk(&synthesized),
        bulk(&real),
        "a request per file of 1,000"
    );

    let store = dir.path().join("results.db");
    let list = common::succeeded(
        &common::bin()
            .args(["results", "list", "--store"])
            .arg(&store)
            .output()
            .unwrap(),
    );
    assert_eq!(
        list.matches("track http_logs (synthesized corpus)").count(),
        1,
        "{list}"
    );
    assert_eq!(list.matches("track http_logs ").count(), 2, "{list}");
    let rows: Value = serde_json::from_str(&common::succeeded(
        &common::bin()
            .args(["results", "list", "--json", "--store"])
            .arg(&store)
            .output()
            .unwrap(),
    ))
    .unwrap();
    let id = |synthesized: bool| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["config"].get("synthesized").is_some() == synthesized)
            .map(|r| r["id"].as_str().unwrap().to_string())
            .unwrap()
    };
    let (fake, genuine) = (id(true), id(false));
    let shown = common::succeeded(
        &common::bin()
            .args(["results", "show", &fake, "--store"])
            .arg(&store)
            .output()
            .unwrap(),
    );
    assert!(shown.contains("http_logs (synthesized corpus)"), "{shown}");
    let compare = |more: &[&str]| {
        common::bin()
            .args(["compare", &genuine, &fake, "--store"])
            .arg(&store)
            .args(more)
            .output()
            .unwrap()
    };
    let refused = compare(&[]);
    let why = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{why}");
    assert!(
        why.contains("on the real corpus") && why.contains("on a synthesized corpus"),
        "{why}"
    );
    let mixed = compare(&["--allow-mixed", "--include-partial"]);
    let text = String::from_utf8_lossy(&mixed.stdout);
    assert!(
        text.contains("MIXED") && text.contains("synthesized corpus"),
        "{text}"
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
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

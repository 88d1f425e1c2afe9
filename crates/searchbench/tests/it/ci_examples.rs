//! The example pipelines (`examples/ci/`) run as their CI systems would run them: the YAML
//! read as YAML, each job's variables as its environment (a `${{ vars.X }}` or
//! `${{ secrets.X }}` the project did not set is empty, as GitHub makes it), the steps'
//! shell as written. Only the variables a team sets are pointed here: the load is the sketch
//! store's (seconds, no JDK), the results cluster the shared node, the webhook a local
//! receiver. What they must do: a verdict (here an A/A night: never "worse"), its JUnit
//! report, every run published and verified, no message to the chat.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use yaml_rust2::{Yaml, YamlLoader};

use crate::common::{self, node_url, streams};

fn example(name: &str) -> Yaml {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/ci")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut docs = YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    docs.remove(0)
}

/// A job's variables, as strings; `${{ vars.X }}` and `${{ secrets.X }}` as GitHub gives
/// them: the project's value, here none (empty).
fn variables(map: &Yaml) -> Vec<(String, String)> {
    map.as_hash()
        .expect("a map of variables")
        .iter()
        .map(|(k, v)| {
            let value = v.as_str().map(str::to_string).unwrap_or_default();
            let value = if value.starts_with("${{") {
                String::new()
            } else {
                value
            };
            (k.as_str().expect("a name").to_string(), value)
        })
        .collect()
}

/// What the test points at its own things: the team's variables, nothing of the scripts.
fn here(prefix: &str, webhook: &str, dir: &Path) -> Vec<(String, String)> {
    [
        ("ENGINE", "sketch"),
        ("WORKLOAD", "ingest cluster-metrics --docs 20000"),
        // An A/A night: the two sides are the same.
        ("GATE_B", ""),
        ("GATE_ROUNDS", "6"),
        ("GATE_MINUTES", "5"),
        ("SEARCHBENCH_PUBLISH", node_url()),
        ("SEARCHBENCH_PUBLISH_PREFIX", prefix),
        ("SEARCHBENCH_NOTIFY", webhook),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .chain([(
        "SEARCHBENCH_STORE".to_string(),
        dir.join("searchbench.db").display().to_string(),
    )])
    .collect()
}

/// Runs `script` as the CI system's shell does (`bash -eo pipefail`), in `dir`, with the
/// job's variables and then the test's, `searchbench` the one built here.
fn shell(script: &str, dir: &Path, vars: &[(String, String)]) -> std::process::Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_searchbench"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("SEARCHBENCH_PASSWORD");
    for (k, v) in vars {
        command.env(k, v);
    }
    command.output().expect("bash")
}

/// Runs published under `prefix`.
fn published(prefix: &str) -> u64 {
    let _ = common::runtime().block_on(common::target().send(
        reqwest::Method::POST,
        &format!("/{prefix}-runs/_refresh"),
        None,
    ));
    let v: Value = common::runtime()
        .block_on(common::target().get_json(&format!("/{prefix}-runs/_count")))
        .unwrap_or_default();
    v["count"].as_u64().unwrap_or(0)
}

/// What both pipelines leave: a JUnit report of the verdict, and no message for an A/A night.
fn check_report(dir: &Path, messages: &std::sync::Mutex<Vec<Value>>, said: &str) {
    let xml = std::fs::read_to_string(dir.join("reports/searchbench-gate.xml"))
        .unwrap_or_else(|e| panic!("the JUnit report: {e}: {said}"));
    let doc = roxmltree::Document::parse(&xml).expect("JUnit XML");
    assert!(
        doc.descendants().any(|n| n.has_tag_name("testcase")),
        "{xml}"
    );
    assert!(
        messages.lock().unwrap().is_empty(),
        "an A/A night is no regression: {said}"
    );
}

#[test]
fn the_github_actions_example_gates_publishes_and_verifies_as_written() {
    let workflow = example("github-actions.yml");
    let job = &workflow["jobs"]["gate"];
    let steps: Vec<&str> = job["steps"]
        .as_vec()
        .expect("steps")
        .iter()
        .filter(|s| {
            s["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("searchbench:"))
        })
        .map(|s| s["run"].as_str().expect("a run step"))
        .collect();
    assert_eq!(steps.len(), 2, "the gate and the verify");
    let prefix = "sbtest-ci-github";
    crate::publish::unpublish(prefix);
    let (webhook, messages) = common::webhook::receiver();
    let dir = tempfile::tempdir().unwrap();
    let mut vars = variables(&job["env"]);
    vars.extend(here(prefix, &webhook, dir.path()));
    let mut said = String::new();
    for step in steps {
        let out = shell(step, dir.path(), &vars);
        said.push_str(&streams(&out));
        assert_eq!(out.status.code(), Some(0), "{step}\n{said}");
    }
    check_report(dir.path(), &messages, &said);
    // The gate's rounds, and its warm-up runs, are in the results cluster.
    assert!(published(prefix) >= 12, "{said}");
    crate::publish::unpublish(prefix);
}

#[test]
fn the_gitlab_ci_example_gates_publishes_and_verifies_as_written() {
    let pipeline = example("gitlab-ci.yml");
    let job = &pipeline["searchbench-gate"];
    let script: Vec<&str> = job["script"]
        .as_vec()
        .expect("script")
        .iter()
        .map(|l| l.as_str().expect("a line"))
        .collect();
    let allowed: Vec<i32> = job["allow_failure"]["exit_codes"]
        .as_vec()
        .map(|c| {
            c.iter()
                .filter_map(|c| c.as_i64())
                .map(|c| c as i32)
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(allowed, [125], "cannot tell is a warning, not a failure");
    assert_eq!(
        job["artifacts"]["reports"]["junit"].as_str(),
        Some("reports/searchbench-gate.xml")
    );
    let prefix = "sbtest-ci-gitlab";
    crate::publish::unpublish(prefix);
    let (webhook, messages) = common::webhook::receiver();
    let dir = tempfile::tempdir().unwrap();
    let mut vars = variables(&job["variables"]);
    vars.extend(here(prefix, &webhook, dir.path()));
    // GitLab runs the lines one after another in one shell.
    let out = shell(&script.join("\n"), dir.path(), &vars);
    let said = streams(&out);
    let code = out.status.code().unwrap_or(-1);
    assert!(code == 0 || allowed.contains(&code), "exit {code}: {said}");
    check_report(dir.path(), &messages, &said);
    assert!(published(prefix) >= 12, "{said}");
    crate::publish::unpublish(prefix);
}

//! The date-cost experiment and `ingest --convert-dates` against a real node.

use reqwest::Method;
use serde_json::{json, Value};

use crate::common::{self, bin, node_url, succeeded};
use searchbench::cluster::TargetError;

/// One request to the shared node: `Ok(answer)` or the HTTP status it failed with.
fn request(method: Method, path: &str, body: Option<Value>) -> Result<Value, u16> {
    let target = common::target();
    common::runtime().block_on(async {
        let answer = match body {
            Some(b) => target.send_json::<Value>(method, path, &b).await,
            None if method == Method::GET => target.get_json::<Value>(path).await,
            None => target.send(method, path, None).await.map(|_| Value::Null),
        };
        answer.map_err(|e| match e {
            TargetError::Status { status, .. } => status,
            other => panic!("{path}: {other}"),
        })
    })
}

#[test]
fn experiment_dates_runs_four_variants_and_indexes_everything() {
    let _dates = crate::common::dates_indices();
    let url = node_url();
    let pid = common::node_pid()
        .expect("the shared node's pid")
        .to_string();
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("dates.json");
    let store = dir.path().join("results.db");
    let out = bin()
        .env("SEARCHBENCH_STORE", &store)
        .args([
            "dates",
            "cost",
            "--url",
            url,
            "--docs",
            "2000",
            "--repeats",
            "1",
            "--warmup-docs",
            "200",
            "--bulk-size",
            "500",
            // Each variant's loads profiled (the shared node: given by its pid).
            "--profile-pid",
            &pid,
            "--failures-dir",
        ])
        .arg(dir.path())
        .arg("--export-json")
        .arg(&json)
        .output()
        .expect("running searchbench");
    let stdout = succeeded(&out);
    assert!(
        stdout.contains("(d) ISO strings, format strict_date_time"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&json).expect("the --json file");
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 1);
    let variants = results[0]["variants"].as_array().expect("variants");
    let ids: Vec<&str> = variants.iter().filter_map(|v| v["id"].as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    for variant in variants {
        assert_eq!(variant["complete"], true, "{variant}");
        let runs = variant["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0]["indexed"], 2000, "{variant}");
        assert_eq!(runs[0]["failed"], 0, "{variant}");
        assert!(variant["docs_per_sec"]["median"].as_f64().unwrap_or(0.0) > 0.0);
        assert!(
            variant["index_time_us_per_doc"]["median"].is_number(),
            "{variant}"
        );
        let profile = &variant["profile"];
        assert_eq!(
            profile["pids"][0]
                .as_u64()
                .map(|p| p.to_string())
                .as_deref(),
            Some(pid.as_str()),
            "{variant}"
        );
        assert!(profile["categories"].is_array(), "{variant}");
        // Each index is deleted after its measurement.
        let index = variant["index"].as_str().expect("index name");
        assert!(index.starts_with("searchbench-"), "{index}");
        assert_eq!(
            request(Method::GET, &format!("/{index}"), None),
            Err(404),
            "{index} should have been deleted"
        );
    }

    // The experiment went through the session: stored with the engine's telemetry, and two
    // of its runs compare variant by variant.
    let out = bin()
        .env("SEARCHBENCH_STORE", &store)
        // The old spelling, still taken.
        .args(["experiment", "dates", "--url", url, "--docs", "1000"])
        .args(["--repeats", "2", "--warmup-docs", "0", "--failures-dir"])
        .arg(dir.path())
        .output()
        .expect("running searchbench");
    succeeded(&out);
    let list = bin()
        .env("SEARCHBENCH_STORE", &store)
        .args(["results", "list", "--json"])
        .output()
        .expect("results list");
    let runs: Value = serde_json::from_str(&succeeded(&list)).expect("list json");
    let runs = runs.as_array().expect("runs");
    assert_eq!(runs.len(), 2, "{runs:?}");
    for run in runs {
        assert_eq!(
            (run["kind"].as_str(), run["workload"].as_str()),
            (Some("experiment"), Some("dates")),
            "{run}"
        );
        assert_eq!(run["state"], "complete", "{run}");
    }
    let ids: Vec<&str> = runs.iter().filter_map(|r| r["id"].as_str()).collect();
    let show = bin()
        .env("SEARCHBENCH_STORE", &store)
        .args(["results", "show", ids[0], "--json"])
        .output()
        .expect("results show");
    let shown: Value = serde_json::from_str(&succeeded(&show)).expect("show json");
    assert!(shown["result"]["telemetry"].is_object(), "{shown}");
    let compare = bin()
        .env("SEARCHBENCH_STORE", &store)
        .args(["compare", ids[1], ids[0], "--json"])
        .output()
        .expect("compare");
    let c: Value = serde_json::from_str(&succeeded(&compare)).expect("compare json");
    let keys: Vec<&str> = c["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["key"].as_str())
        .collect();
    for key in [
        "dates.a.docs_per_sec",
        "dates.d.index_time_us_per_doc",
        "errors.dates.c.failed_docs",
    ] {
        assert!(keys.contains(&key), "{key} in {keys:?}");
    }
}

#[test]
fn convert_dates_indexes_numbers_and_sends_bad_dates_to_the_failure_file() {
    let url = node_url();
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("events.ndjson");
    std::fs::write(
        &input,
        concat!(
            "{\"id\":1,\"@timestamp\":\"2023-01-01T23:38:34.000Z\",\"event\":{\"ingested\":\"2023-01-02T00:00:00+01:00\"}}\n",
            "\n",
            "{\"id\":2,\"@timestamp\":\"2023-02-30T00:00:00Z\",\"event\":{\"ingested\":\"2023-01-02\"}}\n",
            "{\"id\":3,\"@timestamp\":1700000000123,\"event.ingested\":\"2023-11-04T21:38:47.605716183Z\"}\n",
            "{\"id\":4,\"note\":\"no dates here\"}\n",
        ),
    )
    .expect("writing the input");
    let failures = dir.path().join("failures.ndjson");
    let index = "searchbench-test-convert-dates";
    // Numbers would be mapped as long by dynamic mapping: a template makes the fields dates.
    let template = "/_index_template/searchbench-test-convert-dates";
    request(
        Method::PUT,
        template,
        Some(json!({
            "index_patterns": [index],
            "template": { "mappings": { "properties": {
                "@timestamp": { "type": "date" },
                "event": { "properties": { "ingested": { "type": "date" } } }
            } } }
        })),
    )
    .expect("creating the index template");
    let out = bin()
        .args(["ingest", "--url", url, "--index", index, "--no-store"])
        .arg("--file")
        .arg(&input)
        .args([
            "--convert-dates",
            "@timestamp,event.ingested",
            "--max-failures",
            "1",
        ])
        .arg("--failures")
        .arg(&failures)
        .output()
        .expect("running searchbench");
    // A bad input line is counted as failed; the counts still reconcile.
    let stdout = succeeded(&out);
    assert!(stdout.contains("1 bad input lines"), "{stdout}");

    let text = std::fs::read_to_string(&failures).expect("the failure file");
    assert_eq!(text.lines().count(), 1, "{text}");
    let input_name = input.display().to_string();
    assert!(text.contains(&input_name), "{text}");
    let failure: Value = serde_json::from_str(text.trim()).expect("a JSON line");
    let flat = failure.to_string();
    assert!(flat.contains("2023-02-30T00:00:00Z"), "{flat}");
    assert!(flat.contains("@timestamp"), "{flat}");
    assert_eq!(failure["line"], 3, "{flat}");
    assert_eq!(failure["source"], input_name.as_str(), "{flat}");

    let hits = request(
        Method::GET,
        &format!("/{index}/_search?sort=id:asc&size=10"),
        None,
    )
    .expect("searching the index");
    let docs: Vec<&Value> = hits["hits"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| &h["_source"])
        .collect();
    assert_eq!(docs.len(), 3, "{hits}");
    assert_eq!(docs[0]["@timestamp"], 1_672_616_314_000_i64);
    assert_eq!(docs[0]["event"]["ingested"], 1_672_614_000_000_i64);
    assert_eq!(docs[1]["@timestamp"], 1_700_000_000_123_i64);
    assert_eq!(docs[1]["event.ingested"], 1_699_133_927_605_i64);
    assert_eq!(docs[2]["note"], "no dates here");
    // The engine agrees on the instant: a range query on the converted field finds it.
    let found = request(
        Method::POST,
        &format!("/{index}/_count"),
        Some(json!({
            "query": { "range": { "@timestamp": {
                "gte": "2023-01-01T23:38:34.000Z", "lte": "2023-01-01T23:38:34.000Z" } } }
        })),
    )
    .expect("counting");
    assert_eq!(found["count"], 1, "{found}");
    let _ = request(Method::DELETE, &format!("/{index}"), None);
    let _ = request(Method::DELETE, template, None);
}

#[test]
fn dates_parse_gives_what_a_date_field_keeps_beyond_292_million_years() {
    use std::io::Write as _;
    let mut child = common::bin()
        .args(["dates", "parse"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input =
        b"+292278994-08-17T07:12:55.808Z\n-999999999-01-01T00:00:00Z\n2023-01-01T00:00:00.5Z\n";
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        common::succeeded(&out),
        "9223372036854775 807000000\n-9223372036854776 192000000\n1672531200 500000000\n"
    );
}

//! Bring your own workload: the user's mapping, settings, template and pipeline; typed CSV;
//! queries from a file; workload files; Rally-style tracks. On the shared node.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, node_url};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn get(path: &str) -> Value {
    let t = common::target();
    common::runtime().block_on(async { t.get_json::<Value>(path).await.unwrap() })
}

fn ingest(args: &[&str], files: &[&Path]) -> std::process::Output {
    let mut cmd = common::bin();
    cmd.args(["ingest", "--quiet", "--url", node_url()])
        .args(args);
    for f in files {
        cmd.arg("--file").arg(f);
    }
    cmd.output().unwrap()
}

fn usage_error(out: &std::process::Output, needles: &[&str]) {
    let all = common::streams(out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    for n in needles {
        assert!(all.contains(n), "{n:?} missing in\n{all}");
    }
}

#[test]
fn a_user_mapping_keeps_a_float_field_float_and_append_adds() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-byo-mapping";
    common::fresh_index(index, None);
    let docs: String = (0..50)
        .map(|i| format!("{{\"price\":{i},\"name\":\"n{i}\"}}\n"))
        .collect();
    let data = write(dir.path(), "d.ndjson", &docs);
    let mapping = write(
        dir.path(),
        "m.json",
        r#"{"properties": {"price": {"type": "float"}, "name": {"type": "keyword"}}}"#,
    );
    let settings = write(dir.path(), "s.json", r#"{"number_of_shards": 2}"#);
    let out = ingest(
        &["--index", index, "--mapping", mapping.to_str().unwrap()],
        &[&data],
    );
    common::succeeded(&out);
    let _ = settings;
    let m = get(&format!("/{index}/_mapping"));
    assert_eq!(m[index]["mappings"]["properties"]["price"]["type"], "float");
    assert_eq!(
        m[index]["mappings"]["properties"]["name"]["type"],
        "keyword"
    );

    // --append: the same 50 again, into the index as it is; the increase is checked.
    let json = dir.path().join("r.json");
    let out = ingest(
        &[
            "--index",
            index,
            "--append",
            "--json",
            json.to_str().unwrap(),
        ],
        &[&data],
    );
    common::succeeded(&out);
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r["counts"]["index_count_before"], 50, "{r}");
    assert_eq!(r["counts"]["index_count"], 100, "{r}");
    assert_eq!(r["counts"]["reconciled"], true, "{r}");
    assert_eq!(r["previous_index"], "appended");
    common::fresh_index(index, None);
}

#[test]
fn settings_template_and_pipeline_from_files() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-byo-extras";
    common::fresh_index(index, None);
    let data = write(dir.path(), "d.ndjson", "{\"a\":\"1.5\"}\n{\"a\":\"2\"}\n");
    let settings = write(
        dir.path(),
        "s.json",
        r#"{"settings": {"number_of_shards": 2}}"#,
    );
    let template = write(
        dir.path(),
        "t.json",
        r#"{"index_patterns": ["searchbench-test-byo-ext*"], "template": {"mappings": {"properties": {"a": {"type": "double"}}}}}"#,
    );
    let pipeline = write(
        dir.path(),
        "p.json",
        r#"{"processors": [{"set": {"field": "tagged", "value": "yes"}}]}"#,
    );
    let out = ingest(
        &[
            "--index",
            index,
            "--settings",
            settings.to_str().unwrap(),
            "--template",
            template.to_str().unwrap(),
            "--pipeline",
            pipeline.to_str().unwrap(),
        ],
        &[&data],
    );
    common::succeeded(&out);
    let s = get(&format!("/{index}/_settings"));
    assert_eq!(
        s[index]["settings"]["index"]["number_of_shards"], "2",
        "{s}"
    );
    let m = get(&format!("/{index}/_mapping"));
    assert_eq!(m[index]["mappings"]["properties"]["a"]["type"], "double");
    let hits = get(&format!("/{index}/_search?q=tagged:yes"));
    assert_eq!(hits["hits"]["total"]["value"], 2, "{hits}");
    // What we put for the load is gone.
    let t = common::target();
    common::runtime().block_on(async {
        let e = t
            .get_json::<Value>("/_index_template/searchbench-test-byo-extras")
            .await
            .unwrap_err();
        assert_eq!(e.status(), Some(404), "{e}");
        let e = t
            .get_json::<Value>("/_ingest/pipeline/searchbench-test-byo-extras")
            .await
            .unwrap_err();
        assert_eq!(e.status(), Some(404), "{e}");
    });
    common::fresh_index(index, None);
}

#[test]
fn bad_setup_files_are_usage_errors_naming_file_and_position() {
    let dir = tempfile::tempdir().unwrap();
    let data = write(dir.path(), "d.ndjson", "{\"a\":1}\n");
    let bad = write(
        dir.path(),
        "bad.json",
        "{\n  \"properties\": {\n    \"a\" 1\n}",
    );
    let out = ingest(
        &[
            "--index",
            "searchbench-test-byo-bad",
            "--mapping",
            bad.to_str().unwrap(),
        ],
        &[&data],
    );
    usage_error(&out, &["bad.json:3:9", "not valid JSON"]);
    // The engine refuses a mapping type it does not know: its reason is shown.
    let odd = write(
        dir.path(),
        "odd.json",
        r#"{"properties": {"a": {"type": "no_such_type"}}}"#,
    );
    let out = ingest(
        &[
            "--index",
            "searchbench-test-byo-bad",
            "--mapping",
            odd.to_str().unwrap(),
        ],
        &[&data],
    );
    usage_error(&out, &["refused the index body", "no_such_type"]);
}

#[test]
fn typed_csv_gives_numbers_dates_and_a_geo_point() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-byo-csv";
    common::fresh_index(index, None);
    let mut text = String::from("code,price,n,day,open,lat,lon\n");
    for i in 0..30 {
        text.push_str(&format!(
            "0{i:04},{}.5,{i},2024-01-{:02},{},48.{i},2.{i}\n",
            i * 3,
            i % 28 + 1,
            i % 2 == 0
        ));
    }
    let data = write(dir.path(), "shops.csv", &text);
    let out = ingest(&["--index", index], &[&data]);
    let stdout = common::succeeded(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("price:double"), "{stdout}\n{stderr}");
    let m = get(&format!("/{index}/_mapping"));
    let p = &m[index]["mappings"]["properties"];
    assert_eq!(p["code"]["type"], "keyword", "{m}");
    assert_eq!(p["price"]["type"], "double", "{m}");
    assert_eq!(p["n"]["type"], "long", "{m}");
    assert_eq!(p["day"]["type"], "date", "{m}");
    assert_eq!(p["open"]["type"], "boolean", "{m}");
    assert_eq!(p["location"]["type"], "geo_point", "{m}");
    let hit = get(&format!("/{index}/_doc/1"));
    assert_eq!(hit["_source"]["price"], 3.5, "{hit}");
    assert_eq!(hit["_source"]["n"], 1, "{hit}");
    assert_eq!(hit["_source"]["open"], false, "{hit}");
    assert_eq!(hit["_source"]["code"], "00001", "{hit}");
    let sum = get(&format!(
        "/{index}/_search?size=0&filter_path=aggregations&source_content_type=application/json&source={}",
        urlencode(r#"{"aggs":{"s":{"sum":{"field":"price"}},"d":{"max":{"field":"day"}}}}"#)
    ));
    assert_eq!(sum["aggregations"]["s"]["value"], 1320.0, "{sum}");
    common::fresh_index(index, None);

    // A given type: a cell that does not fit goes to the failure file, with line and column.
    text.push_str("09999,not-a-number,1,2024-01-01,true,48.1,2.1\n");
    let data = write(dir.path(), "shops.csv", &text);
    let failures = dir.path().join("f.ndjson");
    let out = ingest(
        &[
            "--index",
            index,
            "--csv-types",
            "price:float",
            "--max-failures",
            "1",
            "--failures",
            failures.to_str().unwrap(),
        ],
        &[&data],
    );
    common::succeeded(&out);
    let f = std::fs::read_to_string(&failures).unwrap();
    assert!(
        f.contains("shops.csv") && f.contains("\"line\":32") && f.contains("column price"),
        "{f}"
    );
    common::fresh_index(index, None);

    // Given types win; an unknown type is a usage error naming the flag and the type.
    let out = ingest(&["--index", index, "--csv-types", "price:flaot"], &[&data]);
    usage_error(&out, &["--csv-types", "flaot", "float"]);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Loads `n` documents `{"k": "k<i%3>", "v": i, "t": <2024-01-01 + i hours>}` into `index`.
fn load_small(dir: &Path, index: &str, n: usize) {
    common::fresh_index(index, None);
    let docs: String = (0..n)
        .map(|i| {
            format!(
                "{{\"k\":\"k{}\",\"v\":{i},\"t\":\"2024-01-{:02}T{:02}:00:00Z\"}}\n",
                i % 3,
                i / 24 + 1,
                i % 24
            )
        })
        .collect();
    let data = write(dir, &format!("{index}.ndjson"), &docs);
    let mapping = write(
        dir,
        "small-mapping.json",
        r#"{"properties": {"k": {"type": "keyword"}, "v": {"type": "long"}, "t": {"type": "date"}}}"#,
    );
    common::succeeded(&ingest(
        &["--index", index, "--mapping", mapping.to_str().unwrap()],
        &[&data],
    ));
}

fn query_file(index: &str, file: &Path, extra: &[&str]) -> std::process::Output {
    common::bin()
        .args([
            "query",
            "--url",
            node_url(),
            "--index",
            index,
            "--passes",
            "2",
        ])
        .arg("--queries")
        .arg(file)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_queries_file_with_expected_answers_passes_and_a_wrong_one_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-byo-queries";
    load_small(dir.path(), index, 48);
    let queries = r#"{
      "all": {"body": {"query": {"match_all": {}}, "track_total_hits": true}, "expect": {"hits": 48}},
      "by_key": {"body": {"size": 2, "sort": [{"v": "asc"}], "query": {"term": {"k": "{{key}}"}}, "aggs": {"s": {"sum": {"field": "v"}}}},
                 "params": [{"key": "k0"}, {"key": "k1"}],
                 "expect": [{"hits": 16, "first_ids": ["0", "3"], "aggs": {"s.value": 360}},
                            {"hits": 16, "first_ids": ["1", "4"], "aggs": {"s.value": 376}}]},
      "per_day": {"body": {"size": 0, "query": {"range": {"t": {"gte": "{{from}}", "lt": "{{to}}"}}}},
                  "params": {"time_slices": {"field": "t", "slices": 2, "from": "2024-01-01", "to": "2024-01-03"}},
                  "expect": {"hits": 24}},
      "sliced_from_index": {"body": {"size": 0, "query": {"range": {"t": {"gte": "{{from_ms}}", "lt": "{{to_ms}}"}}}},
                  "params": {"time_slices": {"field": "t", "slices": 3}}}
    }"#;
    let file = write(dir.path(), "q.json", queries);
    let json = dir.path().join("r.json");
    let out = query_file(
        index,
        &file,
        &[
            "--transports",
            "serial,msearch",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    common::succeeded(&out);
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r["workload"], "queries:q", "{r}");
    assert_eq!(r["failures_total"], 0, "{r}");
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8, "4 queries × 2 transports: {r}");
    assert!(cells.iter().any(|c| c["variant"] == "by_key"), "{r}");

    // NDJSON, with a wrong expected answer: exit 3, the failure named.
    let nd = write(
        dir.path(),
        "q.ndjson",
        "{\"name\": \"all\", \"body\": {\"track_total_hits\": true}, \"expect\": {\"hits\": 47}}\n",
    );
    let out = query_file(index, &nd, &[]);
    let all = common::streams(&out);
    assert_eq!(out.status.code(), Some(3), "{all}");
    assert!(all.contains("48 hits, expected 47"), "{all}");

    // A slot with no value is bad input.
    let bad = write(
        dir.path(),
        "bad.json",
        r#"{"x": {"body": {"query": {"term": {"k": "{{nope}}"}}}}}"#,
    );
    usage_error(&query_file(index, &bad, &[]), &["bad.json", "nope"]);
    common::fresh_index(index, None);
}

/// Over 10,000 matches the engine answers a lower bound (`relation: gte`) unless the body
/// asks `track_total_hits`: a good answer for a query that expects no count, and a count
/// check that says how to get the exact one.
#[test]
fn a_query_over_ten_thousand_matches_is_answered_and_only_a_count_check_needs_it_exact() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-byo-many";
    common::fresh_index(index, None);
    let data = dir.path().join("many.ndjson");
    common::write_docs(&data, 10_050);
    common::succeeded(&ingest(&["--index", index], &[&data]));
    let free = write(
        dir.path(),
        "free.json",
        r#"{"all": {"body": {"query": {"match_all": {}}}}}"#,
    );
    let json = dir.path().join("free-result.json");
    let out = query_file(index, &free, &["--json", json.to_str().unwrap()]);
    let stdout = common::succeeded(&out);
    assert!(stdout.contains("not checked"), "{stdout}");
    // Nothing was expected, so nothing is said to be as expected.
    let said = common::streams(&out);
    assert!(!said.contains("Every answer as expected"), "{said}");
    assert!(said.contains("No answer was checked"), "{said}");
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r["failures_total"], 0, "{r}");
    assert!(
        r["accuracy"][0]["answers"].as_u64().unwrap_or(0) > 0,
        "answers counted: {}",
        r["accuracy"]
    );

    // `"track_total_hits": false` leaves `hits.total` out: answered, not a failure (every
    // search failed, exit 3, before), and a count check says there is no count.
    let uncounted = write(
        dir.path(),
        "uncounted.json",
        r#"{"all": {"body": {"query": {"match_all": {}}, "track_total_hits": false}}}"#,
    );
    let json = dir.path().join("uncounted-result.json");
    common::succeeded(&query_file(
        index,
        &uncounted,
        &["--json", json.to_str().unwrap()],
    ));
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r["failures_total"], 0, "{r}");
    let uncounted = write(
        dir.path(),
        "uncounted-checked.json",
        r#"{"all": {"body": {"query": {"match_all": {}}, "track_total_hits": false}, "expect": {"hits": 10050}}}"#,
    );
    let out = query_file(index, &uncounted, &[]);
    let all = common::streams(&out);
    assert_eq!(out.status.code(), Some(3), "{all}");
    assert!(all.contains("no hit count"), "{all}");

    let counted = write(
        dir.path(),
        "counted.json",
        r#"{"all": {"body": {"query": {"match_all": {}}}, "expect": {"hits": 10050}}}"#,
    );
    let out = query_file(index, &counted, &[]);
    let all = common::streams(&out);
    assert_eq!(out.status.code(), Some(3), "{all}");
    assert!(
        all.contains("10000+ hits") && all.contains("track_total_hits"),
        "{all}"
    );
    common::fresh_index(index, None);
}

#[test]
fn a_workload_file_round_trips_through_init_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-byo-init";
    load_small(dir.path(), index, 48);
    let w = dir.path().join("w.json");
    let out = common::bin()
        .args([
            "workload",
            "init",
            "--from-index",
            index,
            "--url",
            node_url(),
        ])
        .arg("--out")
        .arg(&w)
        .args(["--sample", "30"])
        .output()
        .unwrap();
    let stdout = common::succeeded(&out);
    assert!(stdout.contains("30 documents"), "{stdout}");
    let file: Value = serde_json::from_slice(&std::fs::read(&w).unwrap()).unwrap();
    let settings = &file["index_body"]["settings"]["index"];
    assert!(
        settings.get("uuid").is_none() && settings.get("creation_date").is_none(),
        "{file}"
    );
    // The source's replica count (OpenSearch's default 1, yellow on one node) and default
    // replication type are left out, and said; the copy is named once, never the source.
    assert!(
        settings.get("number_of_replicas").is_none() && settings.get("replication").is_none(),
        "{file}"
    );
    assert!(
        stdout.contains("left out: index.number_of_replicas"),
        "{stdout}"
    );
    assert_eq!(file["index"], "searchbench-w-test-byo-init", "{file}");
    // An --out in a folder that does not exist: said before anything is written.
    let missing = dir.path().join("nope").join("x.json");
    let out = common::bin()
        .args([
            "workload",
            "init",
            "--from-index",
            index,
            "--url",
            node_url(),
        ])
        .arg("--out")
        .arg(&missing)
        .output()
        .unwrap();
    usage_error(&out, &["the folder", "nope", "does not exist"]);
    assert_eq!(
        file["index_body"]["mappings"]["properties"]["v"]["type"],
        "long"
    );
    assert_eq!(file["queries"]["match_all"]["expect"]["hits"], 30, "{file}");
    assert_eq!(file["queries"]["term_k"]["expect"]["hits"], 10, "{file}");
    assert_eq!(file["queries"]["range_t"]["expect"]["hits"], 30, "{file}");

    let json = dir.path().join("r.json");
    let out = common::bin()
        .args(["run", "--url", node_url(), "--quiet", "--warmup", "0"])
        .arg("--workload-file")
        .arg(&w)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    common::succeeded(&out);
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r["counts"]["indexed"], 30, "{r}");
    assert_eq!(r["query"]["failures_total"], 0, "{r}");
    assert_eq!(r["query"]["workload"], "w", "{r}");
    let created = r["index"].as_str().unwrap().to_string();
    let m = get(&format!("/{created}/_mapping"));
    assert_eq!(m[&created]["mappings"]["properties"]["t"]["type"], "date");
    common::fresh_index(&created, None);
    common::fresh_index(index, None);
}

#[test]
fn a_small_rally_style_track_with_a_local_corpus_runs() {
    let dir = tempfile::tempdir().unwrap();
    let docs: String = (0..40)
        .map(|i| format!("{{\"name\":\"n{i}\",\"pop\":{i}.5}}\n"))
        .collect();
    write(dir.path(), "documents.json", &docs);
    write(
        dir.path(),
        "index.json",
        r#"{"settings": {"index.number_of_shards": {{ number_of_shards | default(1) }}},
            "mappings": {"properties": {"name": {"type": "keyword"}, "pop": {"type": "float"}}}}"#,
    );
    std::fs::create_dir_all(dir.path().join("ops")).unwrap();
    write(
        &dir.path().join("ops"),
        "search.json",
        r#"{"name": "by-name", "operation-type": "search", "body": {"query": {"term": {"name": "n3"}}}},
           {"name": "stats", "operation-type": "node-stats"}"#,
    );
    let track = write(
        dir.path(),
        "track.json",
        r#"{% import "rally.helpers" as rally with context %}
{
  "version": 2,
  "description": "a small track",
  "indices": [{"name": "byo-track", "body": "index.json"}],
  "corpora": [{"name": "small", "documents": [{"source-file": "documents.json.bz2", "document-count": 40}]}],
  "operations": [
    {"name": "index-append", "operation-type": "bulk", "bulk-size": {{ bulk_size | default(10) }}},
    {{ rally.collect(parts="ops/*.json") }}
  ],
  "challenges": [{"name": "append-and-search", "default": true, "schedule": [
    {"operation": {"operation-type": "delete-index"}},
    {"operation": {"operation-type": "create-index"}},
    {"operation": "index-append", "clients": 1, "warmup-time-period": 0},
    {"operation": "by-name", "iterations": 2},
    {"operation": "stats"}
  ]}]
}"#,
    );
    let json = dir.path().join("r.json");
    let out = common::bin()
        .args(["run", "--url", node_url(), "--quiet"])
        .arg("--workload-file")
        .arg(&track)
        .arg("--json")
        .arg(&json)
        .arg("--store")
        .arg(dir.path().join("results.db"))
        .output()
        .unwrap();
    common::succeeded(&out);
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    // The challenge ran as written, task by task, into the track's own index name.
    assert_eq!(r["track"], track_name(&dir), "{r}");
    assert_eq!(r["procedure"], "append-and-search", "{r}");
    let tasks: Vec<&str> = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task"].as_str().unwrap())
        .collect();
    assert_eq!(
        tasks,
        [
            "delete-index",
            "create-index",
            "index-append",
            "by-name",
            "stats"
        ],
        "{r}"
    );
    let task = |name: &str| {
        r["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["task"] == name)
            .unwrap()
            .clone()
    };
    // 40 documents in requests of 10 (the track's bulk_size default).
    assert_eq!(task("index-append")["ops"], 4, "{r}");
    assert_eq!(task("by-name")["ops"], 2, "{r}");
    assert!(
        r["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["errors"] == 0),
        "{r}"
    );
    let m = get("/byo-track/_mapping");
    assert_eq!(
        m["byo-track"]["mappings"]["properties"]["pop"]["type"],
        "float"
    );
    let count = get("/byo-track/_count");
    assert_eq!(count["count"], 40, "{count}");
    // The table names every task.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("index-append (bulk)") && stdout.contains("docs/s"),
        "{stdout}"
    );
    // Kept in the store as a track run, its figures per task among its metrics.
    let store = searchbench::store::Store::open(dir.path().join("results.db")).unwrap();
    let runs = store.list(&Default::default()).unwrap();
    assert_eq!(runs.len(), 1);
    let shown = common::bin()
        .args(["results", "show", &runs[0].id.0, "--store"])
        .arg(dir.path().join("results.db"))
        .output()
        .unwrap();
    let shown = common::succeeded(&shown);
    assert!(
        shown.contains("by-name: latency p50") && shown.contains("index-append: throughput"),
        "{shown}"
    );
    common::fresh_index("byo-track", None);
}

/// The name the tools give a track: its folder's.
fn track_name(dir: &tempfile::TempDir) -> String {
    dir.path()
        .canonicalize()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// A queries file takes the query command's network and client flags like the built-in
/// workloads: `--rtt` puts the delay proxy in front and is recorded, `--search-clients` too.
#[test]
fn a_queries_file_honours_rtt_and_search_clients() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-byo-queries-rtt";
    load_small(dir.path(), index, 12);
    let file = write(
        dir.path(),
        "one.json",
        r#"{"all": {"body": {"query": {"match_all": {}}, "track_total_hits": true}, "expect": {"hits": 12}}}"#,
    );
    let json = dir.path().join("r.json");
    let out = query_file(
        index,
        &file,
        &[
            "--rtt",
            "20ms",
            "--search-clients",
            "2",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    common::succeeded(&out);
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r["failures_total"], 0, "{r}");
    assert_eq!(r["rtt"]["rtt_ms"], 20.0, "{r}");
    assert_eq!(r["clients"], 2, "{r}");
    // Every measured request crossed the 20 ms link.
    let took_floor = r["cells"][0]["wall_ms"]["min"].as_f64().unwrap_or(0.0);
    assert!(took_floor >= 19.0, "{r}");
}

#[test]
fn a_search_answer_over_max_answer_is_refused_with_the_request_named() {
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-byo-max-answer";
    load_small(dir.path(), index, 48);
    // 48 hits of ~100 bytes each: a few KB, over a 1 KB bound.
    let file = write(
        dir.path(),
        "big.json",
        r#"{"all": {"body": {"size": 48, "query": {"match_all": {}}}}}"#,
    );
    let out = query_file(index, &file, &["--max-answer", "1kb"]);
    let text = common::streams(&out);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("the answer is larger than 1024 bytes"),
        "{text}"
    );
    assert!(text.contains("--max-answer"), "{text}");
    // The default bound takes it.
    common::succeeded(&query_file(index, &file, &[]));
}

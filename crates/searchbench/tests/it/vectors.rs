//! The `vectors` workload on a real Elasticsearch 8.17.4 node (`dense_vector` and `knn` are in
//! its core) and a real OpenSearch 2.19.1 node with the k-NN plugin from Maven Central (its
//! Lucene engine): every answer of every pass, at two clients, has its recall@k measured
//! against the exact neighbours; neighbours moved away in the index lower it.

use reqwest::Method;
use serde_json::{json, Value};

use crate::common::{self, bin, streams};
use searchbench::workload::vectors::space::Space;
use searchbench::workload::vectors::truth::{nearest, Corpus};

const INDEX: &str = "it-vectors";
const DOCS: u64 = 4_000;
const DIMS: usize = 16;

/// Loads the corpus and measures its searches, two clients at a time, two passes, keeping
/// the run in `store`.
fn load_and_query(url: &str, store: &std::path::Path) -> (Value, std::process::Output) {
    let (docs, dims) = (DOCS.to_string(), DIMS.to_string());
    let out = bin()
        .args([
            "query", "vectors", "--docs", &docs, "--dims", &dims, "--url", url,
        ])
        .args([
            "--index",
            INDEX,
            "--load",
            "--search-clients",
            "2",
            "--passes",
            "2",
        ])
        .args(["--json", "--store"])
        .arg(store)
        .output()
        .expect("query vectors --load");
    let result = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (result, out)
}

/// One pass of the corpus's searches on the loaded index, with `extra` flags, as JSON on
/// stdout.
fn query_again(url: &str, extra: &[&str]) -> std::process::Output {
    let (docs, dims) = (DOCS.to_string(), DIMS.to_string());
    bin()
        .args(["query", "vectors", "--docs", &docs, "--dims", &dims])
        .args(["--url", url, "--index", INDEX, "--passes", "1"])
        .args(extra)
        .args(["--no-store", "--json"])
        .output()
        .expect("query vectors")
}

fn row<'a>(q: &'a Value, variant: &str) -> &'a Value {
    q["accuracy"]
        .as_array()
        .expect("accuracy")
        .iter()
        .find(|r| r["variant"] == variant)
        .unwrap_or_else(|| panic!("no {variant} in {q}"))
}

fn mean(row: &Value) -> f64 {
    row["recall_sum"].as_f64().unwrap() / row["recall_answers"].as_f64().unwrap()
}

#[test]
fn on_elasticsearch_every_answer_has_its_recall_measured_and_moved_neighbours_lower_it() {
    let url = common::elasticsearch_8_url();
    let _heavy = common::heavy_on(url);
    recall_measured_in_every_answer(url);
    // Its int8-quantized graph: recall measured in every answer, and no graph, nothing to
    // search.
    let int8 = "it-vectors-int8";
    let out = ingest_small(url, int8, "int8_hnsw");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let out = query_small(
        url,
        int8,
        &[
            "--vector-index",
            "int8_hnsw",
            "--variants",
            "k10_nc100",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let q: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = row(&q, "k10_nc100");
    assert_eq!(r["recall_answers"], 200, "{r}");
    assert!(mean(r) > 0.5, "{r}");
    let out = query_small(url, int8, &["--vector-index", "none"]);
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    assert!(
        streams(&out).contains("builds no graph"),
        "{}",
        streams(&out)
    );
    // An index loaded with server-made ids gains a copy per rewrite: the run fails, saying so.
    let auto = "it-vectors-auto-ids";
    let out = bin()
        .args([
            "ingest", "vectors", "--docs", "300", "--dims", "4", "--ids", "auto",
        ])
        .args(["--url", url, "--index", auto, "--quiet", "--no-store"])
        .output()
        .expect("ingest --ids auto");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let out = query_small(url, auto, &["--rewrite-clients", "1"]);
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not loaded with sequential ids"),
        "{}",
        streams(&out)
    );
}

#[test]
fn on_opensearch_with_its_knn_plugin_every_answer_has_its_recall_measured_too() {
    let url = common::opensearch_knn_url();
    let _heavy = common::heavy_on(url);
    // The index holds the same graph in OpenSearch's words.
    let target = common::target_at(url, std::time::Duration::from_secs(60));
    recall_measured_in_every_answer(url);
    let mapping: Value = common::runtime()
        .block_on(target.get_json(&format!("/{INDEX}/_mapping")))
        .expect("the mapping");
    let v = &mapping[INDEX]["mappings"]["properties"]["v"];
    assert_eq!(v["type"], "knn_vector", "{mapping}");
    assert_eq!(v["dimension"], DIMS, "{mapping}");
    assert_eq!(v["method"]["engine"], "lucene", "{mapping}");
    assert_eq!(v["method"]["parameters"]["m"], 16, "{mapping}");

    // The field kept without its graph: a knn_vector without a method. A quantized graph of
    // Elasticsearch's is refused, naming it.
    let kept = "it-vectors-no-graph";
    let out = ingest_small(url, kept, "none");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let mapping: Value = common::runtime()
        .block_on(target.get_json(&format!("/{kept}/_mapping")))
        .expect("the mapping");
    let v = &mapping[kept]["mappings"]["properties"]["v"];
    assert_eq!(
        v,
        &json!({"type": "knn_vector", "dimension": 4}),
        "{mapping}"
    );
    let out = ingest_small(url, "it-vectors-int8", "int8_hnsw");
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
    assert!(
        streams(&out).contains("int8_hnsw is Elasticsearch's"),
        "{}",
        streams(&out)
    );
}

/// One pass of the searches of 300 vectors of 4 dims on `index`, with `extra` flags.
fn query_small(url: &str, index: &str, extra: &[&str]) -> std::process::Output {
    bin()
        .args([
            "query", "vectors", "--docs", "300", "--dims", "4", "--url", url,
        ])
        .args(["--index", index, "--passes", "1", "--no-store"])
        .args(extra)
        .output()
        .expect("query vectors")
}

/// 300 vectors of 4 dims into `index`, the field indexed as `kind`.
fn ingest_small(url: &str, index: &str, kind: &str) -> std::process::Output {
    bin()
        .args(["ingest", "vectors", "--docs", "300", "--dims", "4"])
        .args(["--vector-index", kind, "--url", url, "--index", index])
        .args(["--quiet", "--no-store"])
        .output()
        .expect("ingest vectors")
}

/// Loads and measures the corpus on `url`, then moves each query's nearest neighbour away
/// and measures again.
fn recall_measured_in_every_answer(url: &str) {
    let url = url.trim_end_matches('/').to_string();

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let (q, out) = load_and_query(&url, &db);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let q = &q;
    assert_eq!(q["workload"], "vectors");
    assert_eq!(q["failures_total"], 0, "{q}");
    let rows = q["accuracy"].as_array().unwrap();
    assert_eq!(rows.len(), 7, "{q}");
    for r in rows {
        // The warm-up and 2 passes of 100 query vectors, every answer's recall measured.
        assert_eq!(r["answers"], 300, "{r}");
        assert_eq!(r["recall_answers"], 300, "{r}");
        assert_eq!(r["hits_wrong"], 0, "{r}");
        assert_eq!(r["checks"], json!(["neighbours"]));
    }
    // 100 candidates find the 10 nearest of 4,000 all but always; 20 find fewer.
    let wide = mean(row(q, "k10_nc100"));
    assert!(wide > 0.95, "{wide}");
    assert!(mean(row(q, "k10_nc20")) <= wide + 1e-9);
    // A filter keeping one document in a thousand leaves ~4: the engine searches them exactly.
    assert_eq!(mean(row(q, "k10_nc100_f999")), 1.0);

    // The run's page charts recall against ops/s, a dot per variant and the front.
    let stored = searchbench::store::Store::open_read(&db).unwrap();
    let run = stored.list(&Default::default()).unwrap()[0].id.0.clone();
    let page = dir.path().join("run.html");
    let out = bin()
        .args(["report", &run, "--html"])
        .arg(&page)
        .arg("--store")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Recall against ops/s"), "no recall chart");
    assert!(html.contains("Pareto front"), "no front");
    for variant in ["k10_nc20", "k10_nc100_f999"] {
        assert!(
            html.contains(&format!("{variant} serial, recall ")),
            "no dot of {variant}"
        );
    }

    // During an ingest: two clients write the corpus over itself beside every pass; every
    // answer is still checked, against the same truth.
    let out = query_again(
        &url,
        &[
            "--variants",
            "k10_nc100,k10_nc100_f999",
            "--rewrite-clients",
            "2",
            "--rewrite-rate",
            "2000",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let during: Value = serde_json::from_slice(&out.stdout).unwrap();
    let w = &during["rewrites"];
    assert_eq!(w["clients"], 2, "{during}");
    assert_eq!(w["rate"], 2000.0, "{during}");
    assert_eq!(during["accuracy"].as_array().unwrap().len(), 2, "{during}");
    assert!(w["docs"].as_u64().unwrap() > 0, "{w}");
    assert_eq!(w["index_count"], DOCS, "{w}");
    for r in during["accuracy"].as_array().unwrap() {
        assert_eq!(r["recall_answers"], 200, "{r}");
        assert_eq!(r["hits_wrong"], 0, "{r}");
    }
    assert!(mean(row(&during, "k10_nc100")) > 0.9, "{during}");

    // The nearest neighbour of every query moved away: each answer misses one of its ten.
    let space = Space::new(1, DIMS);
    let corpus = Corpus::generate(&space, DOCS);
    let nearest_of_each: Vec<u32> = nearest(&corpus, &space.queries(100), 1, None)
        .into_iter()
        .map(|ids| ids[0])
        .collect();
    // Each moved far away, by its _id (Maven's distribution has no reindex module, so no
    // _update_by_query): still a document of the corpus, never a near neighbour again.
    let target = common::target_at(&url, std::time::Duration::from_secs(60));
    let found: Value = common::runtime()
        .block_on(target.send_json(
            Method::POST,
            &format!("/{INDEX}/_search"),
            &json!({"size": 200, "_source": ["id", "bucket"], "query": {"terms": {"id": nearest_of_each}}}),
        ))
        .expect("find the nearest neighbours");
    let mut bulk = String::new();
    for hit in found["hits"]["hits"].as_array().unwrap() {
        bulk.push_str(&json!({"index": {"_index": INDEX, "_id": hit["_id"]}}).to_string());
        bulk.push('\n');
        let mut moved = hit["_source"].clone();
        moved["v"] = json!(vec![100.0; DIMS]);
        bulk.push_str(&moved.to_string());
        bulk.push('\n');
    }
    assert!(!bulk.is_empty(), "{found}");
    common::runtime()
        .block_on(target.send(
            Method::POST,
            "/_bulk?refresh=true",
            Some(("application/x-ndjson", bulk.into_bytes())),
        ))
        .expect("move the nearest neighbours");
    let out = query_again(&url, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let q: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = row(&q, "k10_nc100");
    assert!(mean(r) <= 0.9 + 1e-9, "{r}");
    assert!(r["recall_min"].as_f64().unwrap() <= 0.9, "{r}");
    assert!(mean(r) < wide - 0.04, "{} against {wide}", mean(r));
}

#[test]
fn opensearch_without_the_knn_plugin_says_how_to_get_it() {
    // The shared node: OpenSearch as Maven's runner starts it, no k-NN plugin.
    let out = bin()
        .args(["query", "vectors", "--docs", "100", "--dims", "4"])
        .args([
            "--url",
            common::node_url(),
            "--index",
            "it-vectors-no-plugin",
        ])
        .args(["--load", "--no-store", "--json"])
        .output()
        .expect("query vectors --load");
    assert_ne!(out.status.code(), Some(0), "{}", streams(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no knn_vector without its k-NN plugin"),
        "{err}"
    );
    assert!(err.contains("--knn"), "{err}");
}

/// opensearch-benchmark's `vectorsearch` workload as written (the fixture is its definition,
/// unchanged) on bigann files searchbench lays down, run on OpenSearch with its k-NN plugin:
/// every row loaded under the `_id` of its number by two clients, every request of two search
/// clients (on two cores, where opensearch-benchmark would skip it) has its recall@k and
/// recall@1 measured; a ground truth that names the wrong neighbours lowers both.
#[test]
fn opensearch_benchmarks_vectorsearch_runs_as_written_with_recall_in_every_request() {
    let url = common::opensearch_knn_url();
    let _heavy = common::heavy_on(url);
    let dir = tempfile::tempdir().expect("a folder");
    let data = three_thousand_vectors(dir.path());
    let index = "it-osb-vectorsearch";
    let at = |name: &str| data.join(name).display().to_string();
    let params = |neighbours: &str| {
        let files = [at("base.fbin"), at("queries.fbin"), at(neighbours)];
        vectorsearch_params(index, "bigann", &files)
    };
    let workload = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tracks/osb/vectorsearch/workload.json");
    let run = |neighbours: &str, procedure: &str| -> Value {
        let file = dir.path().join(format!("{procedure}.json"));
        std::fs::write(&file, params(neighbours).to_string()).expect("the params");
        let out = bin()
            .args(["run", "--url", url, "--quiet", "--no-store"])
            .arg("--workload-file")
            .arg(&workload)
            .arg("--track-params")
            .arg(&file)
            .args(["--challenge", procedure, "--corpus-dir"])
            .arg(dir.path())
            .args(["--json", "-"])
            .output()
            .expect("run --workload-file");
        assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", streams(&out)))
    };
    let task = |r: &Value, name: &str| -> Value {
        r["tasks"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["task"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no task {name} in {r}"))
    };

    let r = run("neighbors.bin", "no-train-test");
    let bulk = task(&r, "custom-vector-bulk");
    assert_eq!(bulk["errors"], 0, "{bulk}");
    assert_eq!(bulk["throughput_unit"], "docs/s", "{bulk}");
    // 3,000 rows, 1,500 a client, 250 a request.
    assert_eq!(bulk["ops"], 12, "{bulk}");
    let target = common::target_at(url, std::time::Duration::from_secs(60));
    let count: Value = common::runtime()
        .block_on(target.get_json(&format!("/{index}/_count")))
        .expect("the count");
    assert_eq!(count["count"], 3000, "{count}");
    // Its force-merge (`mode: polling`) waited for the merge's task: one segment is left.
    let segments: Value = common::runtime()
        .block_on(target.get_json(&format!("/_cat/segments/{index}?format=json")))
        .expect("the segments");
    assert_eq!(segments.as_array().map(Vec::len), Some(1), "{segments}");
    // Each document is the row of its `_id`: row 2,999 as the file holds it.
    let base =
        searchbench::tasks::vector_ops::BigAnn::open(&data.join("base.fbin"), "base.fbin", false)
            .expect("base.fbin");
    let row = base.vectors(2999, 1).expect("row 2999");
    let doc: Value = common::runtime()
        .block_on(target.get_json(&format!("/{index}/_doc/2999")))
        .expect("document 2999");
    let stored: Vec<f32> = serde_json::from_value(doc["_source"]["target_field"].clone())
        .unwrap_or_else(|e| panic!("{e}: {doc}"));
    assert_eq!(stored, row[0], "{doc}");
    let search = task(&r, "prod-queries");
    assert_eq!(search["errors"], 0, "{search}");
    // 100 queries split between the two clients, twice over: every answer checked.
    assert_eq!(search["ops"], 200, "{search}");
    let recall = &search["recall"];
    assert_eq!(recall["answers"], 200, "{search}");
    let (at_k, at_1) = (
        recall["mean_at_k"].as_f64().expect("mean_at_k"),
        recall["mean_at_1"].as_f64().expect("mean_at_1"),
    );
    assert!((0.9..=1.0).contains(&at_k), "{recall}");
    assert!(at_1 >= 0.9, "{recall}");
    assert!(
        recall["min_at_k"].as_f64().expect("min") <= at_k,
        "{recall}"
    );
    assert_eq!(task(&r, "warmup-indices")["errors"], 0, "{r}");

    // The same searches against a truth whose ids are each moved to the next row: recall
    // falls to what chance leaves.
    let truth = std::fs::read(data.join("neighbors.bin")).expect("neighbors.bin");
    let (rows, k) = (
        u32::from_le_bytes(truth[0..4].try_into().unwrap()) as usize,
        u32::from_le_bytes(truth[4..8].try_into().unwrap()) as usize,
    );
    let mut wrong = truth.clone();
    for i in 0..rows * k {
        let at = 8 + i * 4;
        let id = u32::from_le_bytes(truth[at..at + 4].try_into().unwrap());
        wrong[at..at + 4].copy_from_slice(&((id + 1) % 3000).to_le_bytes());
    }
    std::fs::write(data.join("wrong.bin"), wrong).expect("wrong.bin");
    let r = run("wrong.bin", "search-only");
    let recall = &task(&r, "prod-queries")["recall"];
    assert_eq!(recall["answers"], 200, "{r}");
    assert!(
        recall["mean_at_k"].as_f64().expect("mean") < 0.2,
        "{recall}"
    );
    assert!(
        recall["mean_at_1"].as_f64().expect("mean") < 0.2,
        "{recall}"
    );
}

/// opensearch-benchmark's vectorsearch parameters for its `no-train-test` and `search-only`
/// procedures on 8-value vectors in `format`, from `files`: the vectors, the queries and their
/// neighbours.
pub fn vectorsearch_params(index: &str, format: &str, files: &[String; 3]) -> Value {
    let [base, queries, neighbours] = files;
    json!({
        "target_index_name": index,
        "target_field_name": "target_field",
        "target_index_body": "indices/lucene-index.json",
        "target_index_primary_shards": 1,
        "target_index_dimension": 8,
        "target_index_space_type": "l2",
        "target_index_bulk_size": 250,
        "target_index_bulk_index_data_set_format": format,
        "target_index_bulk_index_data_set_path": base,
        "target_index_bulk_indexing_clients": 2,
        "target_index_max_num_segments": 1,
        "hnsw_ef_construction": 100,
        "hnsw_m": 16,
        "query_k": 10,
        "query_body": {"docvalue_fields": ["_id"], "stored_fields": "_none_", "_source": false},
        "query_data_set_format": format,
        "query_data_set_path": queries,
        "neighbors_data_set_format": format,
        "neighbors_data_set_path": neighbours,
        "query_count": 100,
        "number_of_repetitions": 2,
        "search_clients": 2
    })
}

/// 3,000 vectors of 8 values, their queries and neighbours, as bigann files in `dir/data`
/// (`searchbench generate vectors`).
pub fn three_thousand_vectors(dir: &std::path::Path) -> std::path::PathBuf {
    let data = dir.join("data");
    let out = bin()
        .args(["generate", "vectors", "--docs", "3000", "--dims", "8"])
        .args(["--format", "bigann", "--out"])
        .arg(&data)
        .output()
        .expect("generate vectors");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    data
}

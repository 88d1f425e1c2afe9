//! The built-in workloads against a real engine: each mapping accepts its generated corpus
//! with zero errors, and the cluster-metrics truth agrees with what the engine computes where
//! the engine is exact (min, max, sum).

use crate::common;

use reqwest::Method;
use searchbench::cluster::Target;
use searchbench::corpus::DocSource;
use searchbench::workload::{self, PartitionTruth, WorkloadSpec};
use serde_json::{json, Value};

fn unique_index(workload: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("searchbench-test-{workload}-{}-{nanos}", std::process::id())
}

fn bulk_body(source: &mut dyn DocSource) -> (Vec<u8>, u64) {
    let mut body = Vec::new();
    let mut docs = 0;
    loop {
        let mark = body.len();
        body.extend_from_slice(b"{\"index\":{}}\n");
        match source.next_into(&mut body).expect("generator") {
            Some(_) => {
                body.push(b'\n');
                docs += 1;
            }
            None => {
                body.truncate(mark);
                return (body, docs);
            }
        }
    }
}

async fn json_of(
    target: &Target,
    method: Method,
    path: &str,
    body: Option<Vec<u8>>,
    ct: &'static str,
) -> Value {
    let reply = target
        .send(method, path, body.map(|b| (ct, b)))
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_slice(&reply.body).expect("JSON reply")
}

/// Creates the index, bulk-loads `spec`'s corpus, refreshes, runs `check`, deletes the index
/// (also when `check` failed, so reruns do not pile up indices), then reports.
async fn with_loaded_index<F, Fut>(target: &Target, name: &str, spec: WorkloadSpec, check: F)
where
    F: FnOnce(String, Option<searchbench::corpus::TruthHandle>) -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let w = workload::find(name).expect("workload");
    let index = unique_index(name);
    assert!(index.starts_with("searchbench-"));
    let body = serde_json::to_vec(&w.index_body()).expect("body");
    json_of(
        target,
        Method::PUT,
        &format!("/{index}"),
        Some(body),
        "application/json",
    )
    .await;
    let mut opened = w.open(&spec).expect("open");
    let (bulk, docs) = bulk_body(opened.source.as_mut());
    let reply = json_of(
        target,
        Method::POST,
        &format!("/{index}/_bulk"),
        Some(bulk),
        "application/x-ndjson",
    )
    .await;
    let outcome = async {
        if reply["errors"] != json!(false) {
            let first = reply["items"]
                .as_array()
                .and_then(|items| items.iter().find(|i| i["index"]["error"].is_object()))
                .cloned();
            return Err(format!("bulk errors, first: {first:?}"));
        }
        json_of(
            target,
            Method::POST,
            &format!("/{index}/_refresh"),
            None,
            "application/json",
        )
        .await;
        let count = json_of(
            target,
            Method::GET,
            &format!("/{index}/_count"),
            None,
            "application/json",
        )
        .await;
        if count["count"].as_u64() != Some(docs) {
            return Err(format!("count {} != {docs}", count["count"]));
        }
        check(index.clone(), opened.truth.take()).await
    }
    .await;
    json_of(
        target,
        Method::DELETE,
        &format!("/{index}"),
        None,
        "application/json",
    )
    .await;
    if let Err(e) = outcome {
        panic!("{name}: {e}");
    }
}

#[test]
fn built_in_mappings_accept_their_corpora_and_truth_agrees_with_the_engine() {
    let target = common::target(); // starts the node outside the runtime below
    let rt = common::runtime();
    rt.block_on(async {
        let mut logs = WorkloadSpec::new(1);
        logs.docs = Some(2000);
        with_loaded_index(&target, "logs", logs, |index, _| {
            let target = target.clone();
            async move {
                // Both date fields were parsed as dates (range queries match them all).
                let q = json!({"query": {"bool": {"filter": [
                    {"range": {"@timestamp": {"gte": "2023-01-01", "lt": "2023-01-02"}}},
                    {"range": {"event.ingested": {"gte": "2023-01-01"}}}
                ]}}});
                let r = json_of(&target, Method::POST, &format!("/{index}/_count"),
                    Some(serde_json::to_vec(&q).unwrap_or_default()), "application/json").await;
                (r["count"] == 2000).then_some(()).ok_or(format!("date range count {}", r["count"]))
            }
        })
        .await;

        let mut tx = WorkloadSpec::new(1);
        tx.docs = Some(2000);
        with_loaded_index(&target, "transactions", tx, |index, _| {
            let target = target.clone();
            async move {
                // geo_point built from longitude/latitude: Paris is in a box around Paris.
                let q = json!({"query": {"geo_bounding_box": {"location": {
                    "top_left": {"lat": 49.0, "lon": 2.2}, "bottom_right": {"lat": 48.7, "lon": 2.5}}}}});
                let r = json_of(&target, Method::POST, &format!("/{index}/_count"),
                    Some(serde_json::to_vec(&q).unwrap_or_default()), "application/json").await;
                let n = r["count"].as_u64().unwrap_or(0);
                (n > 100).then_some(()).ok_or(format!("geo box count {n}"))
            }
        })
        .await;

        let mut metrics = WorkloadSpec::new(3);
        metrics.params.rows_per_epoch = Some(1500);
        metrics.params.epochs = Some(2);
        metrics.params.truth = true;
        with_loaded_index(&target, "cluster-metrics", metrics, |index, truth| {
            let target = target.clone();
            async move {
                let truth: Vec<PartitionTruth> = truth.ok_or("no truth handle")?.take();
                if truth.len() != 60 {
                    return Err(format!("{} partitions", truth.len()));
                }
                for t in truth.iter().filter(|t| t.node == "N001" || t.node == "N017") {
                    let mut aggs = serde_json::Map::new();
                    for f in ["cpu", "mem", "net"] {
                        aggs.insert(format!("{f}_min"), json!({"min": {"field": f}}));
                        aggs.insert(format!("{f}_max"), json!({"max": {"field": f}}));
                        aggs.insert(format!("{f}_sum"), json!({"sum": {"field": f}}));
                    }
                    let q = json!({"size": 0, "query": {"bool": {"filter": [
                        {"term": {"node": t.node}}, {"term": {"epoch": t.epoch}}]}}, "aggs": aggs});
                    let r = json_of(&target, Method::POST, &format!("/{index}/_search"),
                        Some(serde_json::to_vec(&q).unwrap_or_default()), "application/json").await;
                    let hits = r["hits"]["total"]["value"].as_u64();
                    if hits != Some(t.count) {
                        return Err(format!("{} epoch {}: hits {hits:?} != {}", t.node, t.epoch, t.count));
                    }
                    for (f, ft) in [("cpu", t.cpu), ("mem", t.mem), ("net", t.net)] {
                        let get = |k: &str| r["aggregations"][format!("{f}_{k}")]["value"].as_f64();
                        // Exact up to how the engine prints doubles (older JDKs do not
                        // always print the shortest text): the same f32 either way.
                        let same = |a: Option<f64>, b: f64| a.map(|a| a as f32) == Some(b as f32);
                        if !same(get("min"), ft.p0) || !same(get("max"), ft.p100) {
                            return Err(format!("{} {f}: engine min/max {:?}/{:?}, truth {}/{}",
                                t.node, get("min"), get("max"), ft.p0, ft.p100));
                        }
                        let sum = get("sum").unwrap_or(f64::NAN);
                        if ((sum - ft.sum) / ft.sum).abs() > 1e-9 {
                            return Err(format!("{} {f}: engine sum {sum}, truth {}", t.node, ft.sum));
                        }
                    }
                }
                Ok(())
            }
        })
        .await;
    });
}

//! `numbers`, the workload added to prove a new workload with checked queries is its folder
//! plus a registry line: it loads, its queries pass on a real node, and a changed document
//! fails exactly the check that sees it.

use reqwest::Method;
use serde_json::{json, Value};

use crate::common::{self, bin, node_url, succeeded};

const INDEX: &str = "it-numbers";

#[test]
fn numbers_loads_queries_and_catches_a_changed_document() {
    common::fresh_index(INDEX, None);
    let out = bin()
        .args(["run", "numbers", "--docs", "5003", "--url", node_url()])
        .args(["--index", INDEX, "--no-store", "--json", "-"])
        .output()
        .expect("run numbers");
    let result: Value = serde_json::from_str(&succeeded(&out)).expect("run --json");
    let q = &result["query"];
    assert_eq!(q["workload"], "numbers");
    assert_eq!(q["failures_total"], 0, "{q}");
    let cells = q["cells"].as_array().expect("cells");
    assert_eq!(cells.len(), 2);
    for cell in cells {
        // 3 passes × 10 groups, every one answered.
        assert_eq!(cell["took_ms"]["n"], 30, "{cell}");
    }
    let rows = q["accuracy"].as_array().expect("accuracy");
    assert_eq!(rows[1]["variant"], "group_sum");
    assert_eq!(rows[1]["checks"], json!(["count", "sums"]));
    assert_eq!(rows[1]["answers"], 40, "warm-up + 3 passes, 10 groups");

    // One number changed in place: its group's count holds, its sum does not.
    let target = common::target();
    common::runtime().block_on(async {
        let body =
            json!({"query": {"term": {"n": 7}}, "script": {"source": "ctx._source.n += 10000"}});
        target
            .send_json::<Value>(
                Method::POST,
                &format!("/{INDEX}/_update_by_query?refresh=true"),
                &body,
            )
            .await
            .expect("update by query");
    });
    let out = bin()
        .args(["query", "numbers", "--docs", "5003", "--url", node_url()])
        .args(["--index", INDEX, "--passes", "1", "--no-store"])
        .output()
        .expect("query numbers");
    assert_eq!(out.status.code(), Some(3), "{}", common::streams(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("group_sum group g7: sum(n)"), "{stdout}");
    assert!(!stdout.contains("group_count group g7"), "{stdout}");
    common::fresh_index(INDEX, None);
}

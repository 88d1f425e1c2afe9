//! The run page opens with what the terminal ends with: the headline figures and "bounded
//! by", before any chart; one throughput chart; a wall-time card that names its parts' shares.

use crate::common::results::{ingest_result, save};
use searchbench::report;
use searchbench::store::Store;
use serde_json::{json, Value};

/// The page of `result` stored as a run, and the run's headline throughput as `compare`
/// reads it.
fn page_of(result: &Value) -> (String, f64) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let id = save(&store, result, &[]);
    let side = searchbench::analysis::compare::Side::load(&store, &id).unwrap();
    let docs = side
        .metrics
        .iter()
        .find(|m| m.key == "docs_per_sec")
        .unwrap()
        .value;
    let groups = report::load(&store, &[id], false).unwrap();
    (report::html::render(&groups, None), docs)
}

/// The data of the chart called `name` (its description, as the page embeds it).
fn chart(page: &str, name: &str) -> Option<Value> {
    page.split("<figure class=\"chart\" data-chart=\"")
        .skip(1)
        .map(|f| {
            let text = &f[..f.find('"').unwrap()];
            serde_json::from_str::<Value>(&text.replace("&quot;", "\"").replace("&amp;", "&"))
                .unwrap()
        })
        .find(|c| c["name"] == name)
}

#[test]
fn the_page_opens_with_the_headline_and_what_bounded_the_run() {
    let mut result = ingest_result(40, 13_100.0, 0.02, 20.0, 1);
    result["telemetry"] = json!({
        "interval_secs": 1.0, "samples": 40, "nodes": 1, "span_secs": 40.0, "cores": 2,
        "bounds": ["engine CPU at the machine's limit: 1.9 of 2 cores on average"],
    });
    let (page, docs) = page_of(&result);
    let headline = page.find("id=\"headline\"").expect("a headline section");
    let first_chart = page.find("<figure").expect("charts");
    assert!(headline < first_chart, "the headline comes first");
    let section = &page[headline..page[headline..].find("</section>").unwrap() + headline];
    let shown = searchbench::units::format_metric(false, docs);
    assert!(
        section.contains(&format!("<b>{shown} docs/s</b>")),
        "{section}"
    );
    assert!(
        section.contains("service p99") && section.contains("no errors"),
        "{section}"
    );
    assert!(
        section.contains("bounded by: engine CPU at the machine&#39;s limit")
            || section.contains("bounded by: engine CPU at the machine's limit"),
        "{section}"
    );
    // One throughput chart, the one with the warm-up shaded.
    assert!(chart(&page, "Throughput over time").is_some());
    assert!(!page.contains("Throughput (aligned)"));
    // The wall-time card of one run names each part's share, and only parts with time.
    let budget = chart(&page, "Where the wall time went").expect("a budget chart");
    let legend: Vec<&str> = budget["legend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(!legend.is_empty(), "{budget}");
    assert!(legend.iter().all(|l| l.ends_with(" %")), "{legend:?}");
    assert!(legend.iter().all(|l| !l.ends_with(" 0.0 %")), "{legend:?}");
}

#[test]
fn a_run_without_telemetry_says_its_bound_is_not_known() {
    let (page, _) = page_of(&ingest_result(20, 5_000.0, 0.02, 20.0, 2));
    let headline = page.find("id=\"headline\"").expect("a headline section");
    let rest = &page[headline..];
    assert!(
        rest.contains("bounded by: not known (no telemetry"),
        "{rest}"
    );
}

/// The query table's ops/s is measured: completed units ÷ elapsed time, each cell over its
/// share of the clients' busy time (not clients ÷ mean wall, which assumes they never idle).
#[test]
fn query_ops_per_second_are_completed_units_over_elapsed_time() {
    use searchbench::query::report::QueryResult;
    let mut r: QueryResult =
        serde_json::from_value(crate::common::results::query_result(40.0, 3)).unwrap();
    let done: usize = r.cells.iter().map(|c| c.wall_ms.n).sum();
    let busy_ms: f64 = r
        .cells
        .iter()
        .map(|c| c.wall_ms.mean * c.wall_ms.n as f64)
        .sum();
    // The clients were busy half of the elapsed time.
    r.clients = 2;
    r.measured_secs = busy_ms / 1000.0 / r.clients as f64 * 2.0;
    let all = r.completed_per_sec().unwrap();
    assert!((all - done as f64 / r.measured_secs).abs() < 1e-9);
    for (c, rate) in r.cells.iter().zip(r.cell_rates()) {
        let assumed = r.clients as f64 * 1000.0 / c.wall_ms.mean;
        let rate = rate.unwrap();
        assert!(
            (rate - assumed / 2.0).abs() < 1e-6 * assumed,
            "{rate} vs {assumed}"
        );
    }
    r.measured_secs = 0.0;
    assert_eq!(r.completed_per_sec(), None);
    assert!(r.cell_rates().iter().all(Option::is_none));
}

/// A probed load's page charts how soon each second's documents were searchable, a second
/// with documents never searchable within the bound marked; a load not probed has no such
/// chart.
#[test]
fn a_probed_load_charts_its_time_to_searchable_second_by_second() {
    let plain = ingest_result(40, 13_100.0, 0.02, 20.0, 1);
    let (page, _) = page_of(&plain);
    assert!(chart(&page, "Time to searchable over time").is_none());

    let mut probed = plain.clone();
    let second = |s: u64, p50: f64, p99: f64, unseen: u64| {
        json!({"second": s, "docs": 1000, "unseen": unseen, "p50_le_secs": p50,
               "p99_le_secs": p99, "max_le_secs": p99})
    };
    probed["freshness"] = json!({
        "docs": 3000, "unseen": 10, "bound_secs": 10.0, "p50_secs": 0.6, "p90_secs": 1.0,
        "p99_secs": 1.4, "max_secs": 2.5, "resolution_ms": 50,
        "seconds": [second(0, 0.6, 1.0, 0), second(1, 0.6, 1.5, 0), second(2, 1.0, 2.5, 10)],
    });
    let (page, _) = page_of(&probed);
    let c = chart(&page, "Time to searchable over time").expect("the chart");
    let legend: Vec<&str> = c["legend"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(legend.len(), 2, "p99 and p50: {c}");
    assert!(
        legend[0].ends_with("p99") && legend[1].ends_with("p50"),
        "{c}"
    );
    assert!(
        page.contains("second 2: 10 of 1000 documents not searchable within the bound"),
        "the second with unseen documents is marked"
    );
}

/// A store made elsewhere holding a run whose id is a path (`ab/../../x`): `report` refuses to
/// make its page from that id, naming it, and writes nothing outside the store's `reports/`.
#[test]
fn a_run_id_that_is_a_path_names_no_page() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store").join("r.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let store = Store::open(&db).unwrap();
    let id = save(&store, &ingest_result(12, 13_100.0, 0.02, 20.0, 1), &[]);
    drop(store);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "foreign_keys", false).unwrap();
    let hostile = "ab/../../x";
    conn.execute(
        "UPDATE runs SET id = ?2 WHERE id = ?1",
        rusqlite::params![id, hostile],
    )
    .unwrap();
    drop(conn);
    let out = crate::common::bin()
        .args(["report", "ab", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("\"ab/../../x\"") && err.contains("cannot name a page"),
        "{err}"
    );
    assert!(!dir.path().join("x.html").exists());
    assert!(!dir.path().join("store").join("x.html").exists());
}

use super::*;
use crate::corpus::cluster_metrics::{ClusterMetrics, MetricsSpec, NODES};

/// `rows` cluster-metrics rows of one epoch as batches of `size`, with their ground truth.
fn generated(
    rows: u64,
    size: usize,
) -> (
    Vec<Batch>,
    Vec<crate::corpus::cluster_metrics::PartitionTruth>,
) {
    let spec = MetricsSpec {
        rows_per_epoch: rows,
        epochs: Some(1),
        truth: true,
        ..MetricsSpec::new(7)
    };
    let mut g = ClusterMetrics::new(spec).unwrap();
    let truth = g.truth_handle();
    let mut batches = vec![Batch::default()];
    while let Some(r) = g.next_row() {
        if batches.last().is_some_and(|b| b.len() == size) {
            batches.push(Batch::default());
        }
        batches.last_mut().unwrap().push_row(&r);
    }
    (batches, truth.take())
}

/// The sketch's answers against the exact ones: counts and sums exact, every percentile within
/// the sketch's relative error (the ends exact), and a whole coverage in one call.
#[test]
fn the_answers_match_the_ground_truth_within_the_stated_error() {
    let (batches, truth) = generated(60_000, 1000);
    let mut store = SketchStore::new();
    for b in &batches {
        assert_eq!(store.insert(b).unwrap(), b.len());
    }
    assert_eq!(store.rows(), 60_000);
    assert_eq!(truth.len(), NODES);
    let nodes: Vec<String> = truth.iter().map(|t| t.node.clone()).collect();
    let answers = store.coverage(truth[0].epoch, &nodes);
    let mut worst: f64 = 0.0;
    for (t, a) in truth.iter().zip(&answers) {
        let a = a.as_ref().expect("every node of the epoch answers");
        assert_eq!(a.count, t.count, "{}", t.node);
        for (name, exact, got) in [
            ("cpu", &t.cpu, &a.cpu),
            ("mem", &t.mem, &a.mem),
            ("net", &t.net, &a.net),
        ] {
            assert!(
                (got.sum - exact.sum).abs() <= 1e-9 * exact.sum.abs().max(1.0),
                "{} {name} sum {} vs {}",
                t.node,
                got.sum,
                exact.sum
            );
            assert_eq!(got.percentiles[0], exact.p0, "{} {name} p0", t.node);
            assert_eq!(got.percentiles[3], exact.p100, "{} {name} p100", t.node);
            for (got, exact) in [
                (got.percentiles[1], exact.p50),
                (got.percentiles[2], exact.p90),
            ] {
                let err = (got - exact).abs() / exact.abs().max(1.0);
                worst = worst.max(err);
                // α on the value: the ranks are interpolated as the truth's are.
                assert!(
                    err <= RELATIVE_ERROR + 1e-9,
                    "{} {name}: {got} vs {exact} ({err})",
                    t.node
                );
            }
        }
    }
    assert!(
        worst > 0.0,
        "a sketch that is exact says nothing of its error"
    );
    assert!(store.memory_bytes() > 0);
    // Nothing for a node or epoch without rows.
    assert_eq!(store.answer(99, "N001"), None);
    assert_eq!(store.answer(truth[0].epoch, "N999"), None);
}

#[test]
fn a_bad_batch_is_refused_whole_naming_its_column_and_row() {
    let mut store = SketchStore::new();
    let good = Batch {
        epoch: vec![1, 1],
        node: vec!["N001".into(), "N002".into()],
        task: vec!["T001".into(), "T002".into()],
        cpu: vec![1.0, 2.0],
        mem: vec![3.0, 4.0],
        net: vec![5.0, 6.0],
    };
    let ragged = Batch {
        mem: vec![3.0],
        ..good.clone()
    };
    assert_eq!(
        store.insert(&ragged),
        Err(SketchError::Ragged {
            column: "mem",
            len: 1,
            rows: 2
        })
    );
    let nan = Batch {
        net: vec![5.0, f64::NAN],
        ..good.clone()
    };
    let e = store.insert(&nan).unwrap_err();
    assert_eq!(
        e.to_string(),
        "column \"net\", row 1: NaN is not a number from 0 to 3.4028235e38 (a 32-bit float, as the engine's `float` field keeps it)"
    );
    // Nothing of either was kept.
    assert_eq!(store.rows(), 0);
    assert_eq!(store.insert(&good), Ok(2));
    assert_eq!(store.rows(), 2);
    // An unknown column is refused by the reader, naming it.
    let e = serde_json::from_str::<Batch>(
        r#"{"epoch":[1],"node":["N"],"task":["T"],"cpu":[1],"mem":[1],"net":[1],"disk":[1]}"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("disk"), "{e}");
}

/// The store over HTTP answers what the store in process answers (the same batches into both),
/// and refuses a bad batch, a bad body and an unknown path with a status and why.
#[tokio::test]
async fn the_server_answers_as_the_store_does() {
    let server = server::serve(([127, 0, 0, 1], 0).into()).await.unwrap();
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .unwrap();
    let post = |path: &str, body: String| {
        client
            .post(format!("{}{path}", server.url))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let (batches, truth) = generated(12_000, 1000);
    let mut local = SketchStore::new();
    for b in &batches {
        local.insert(b).unwrap();
        let r = post("/insert", serde_json::to_string(b).unwrap())
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let v: serde_json::Value = r.json().await.unwrap();
        assert_eq!(v["inserted"], b.len());
    }
    let epoch = truth[0].epoch;
    let nodes: Vec<String> = truth.iter().map(|t| t.node.clone()).collect();
    let r = post(
        "/coverage",
        serde_json::json!({"epoch": epoch, "nodes": nodes}).to_string(),
    )
    .await
    .unwrap();
    let got: Vec<Option<Answer>> = r.json().await.unwrap();
    let want = local.coverage(epoch, &nodes);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        same(g.as_ref().expect("answered"), w.as_ref().expect("answered"));
    }
    let r = post(
        "/query",
        serde_json::json!({"epoch": epoch, "node": "N001"}).to_string(),
    )
    .await
    .unwrap();
    let one: Answer = r.json().await.unwrap();
    same(&one, &local.answer(epoch, "N001").unwrap());
    // Refusals, each with its status and a reason.
    let ragged = r#"{"epoch":[1,1],"node":["N001"],"task":["T001","T002"],"cpu":[1,2],"mem":[1,2],"net":[1,2]}"#;
    let r = post("/insert", ragged.to_string()).await.unwrap();
    assert_eq!(r.status(), 400);
    let v: serde_json::Value = r.json().await.unwrap();
    assert!(v["error"].as_str().unwrap().contains("\"node\""), "{v}");
    let r = post("/insert", "{not json".to_string()).await.unwrap();
    assert_eq!(r.status(), 400);
    // A value beyond a 32-bit float's range (it panicked the handler, answered nothing and
    // kept the rows before it), a negative one, and a node name without end: refused whole.
    for (bad, says) in [
        (
            r#"{"epoch":[7,7],"node":["N001","N001"],"task":["T","T"],"cpu":[1,1e39],"mem":[1,1],"net":[1,1]}"#.to_string(),
            "column \"cpu\", row 1: 1e39",
        ),
        (
            r#"{"epoch":[7],"node":["N001"],"task":["T"],"cpu":[1],"mem":[-3],"net":[1]}"#.to_string(),
            "column \"mem\", row 0: -3e0",
        ),
        (
            format!(
                r#"{{"epoch":[7],"node":["{}"],"task":["T"],"cpu":[1],"mem":[1],"net":[1]}}"#,
                "n".repeat(10_000)
            ),
            "a node name of 10000 bytes",
        ),
    ] {
        let r = post("/insert", bad).await.unwrap();
        assert_eq!(r.status(), 400);
        let v: serde_json::Value = r.json().await.unwrap();
        assert!(v["error"].as_str().unwrap().contains(says), "{v}");
    }
    let r = post(
        "/query",
        serde_json::json!({"epoch": 99, "node": "N001"}).to_string(),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    let r = client
        .get(format!("{}/nowhere", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let v: serde_json::Value = client
        .get(format!("{}/", server.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        v["rows"], 12_000,
        "nothing of the refused batches kept: {v}"
    );
}

/// A coverage request for more nodes than a request holds is refused with why (an answer each,
/// made under the store's lock, was gigabytes for a 64 MiB body of empty names), and the
/// store serves on.
#[tokio::test]
async fn a_coverage_of_more_nodes_than_a_request_holds_is_refused() {
    let server = server::serve(([127, 0, 0, 1], 0).into()).await.unwrap();
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .unwrap();
    let coverage = |n: usize| {
        let nodes = vec![""; n];
        client
            .post(format!("{}/coverage", server.url))
            .header("content-type", "application/json")
            .body(serde_json::json!({"epoch": 0, "nodes": nodes}).to_string())
            .send()
    };
    let r = coverage(server::MAX_NODES + 1).await.unwrap();
    assert_eq!(r.status(), 413);
    let v: serde_json::Value = r.json().await.unwrap();
    assert!(
        v["error"].as_str().unwrap().contains("at most 100000"),
        "{v}"
    );
    let r = coverage(3).await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<serde_json::Value>().await.unwrap(),
        serde_json::json!([null, null, null])
    );
}

/// Two answers the same but for the last bit a number may lose in JSON text.
fn same(a: &Answer, b: &Answer) {
    assert_eq!((a.epoch, &a.node, a.count), (b.epoch, &b.node, b.count));
    for (x, y) in [(&a.cpu, &b.cpu), (&a.mem, &b.mem), (&a.net, &b.net)] {
        for (u, v) in x
            .percentiles
            .iter()
            .chain([&x.sum])
            .zip(y.percentiles.iter().chain([&y.sum]))
        {
            assert!(
                (u - v).abs() <= 1e-12 * v.abs().max(1.0),
                "{} {u} vs {v}",
                a.node
            );
        }
    }
}

/// Distinct (epoch, node) keys without end: the store stops at its bound, refusing the batch
/// that would pass it whole, naming the bound.
#[test]
fn the_store_is_bounded_in_partitions_and_a_batch_past_it_is_kept_out_whole() {
    let bound = 1_000;
    let mut store = SketchStore::bounded(bound);
    let batch = |from: u64, n: u64| Batch {
        epoch: (from..from + n).collect(),
        node: vec!["N001".into(); n as usize],
        task: vec!["T".into(); n as usize],
        cpu: vec![1.0; n as usize],
        mem: vec![1.0; n as usize],
        net: vec![1.0; n as usize],
    };
    let step = 100u64;
    for k in 0..(bound as u64 / step) {
        assert_eq!(store.insert(&batch(k * step, step)).unwrap(), step as usize);
    }
    let rows = store.rows();
    // Rows into partitions it has still go in; one new partition is refused, whole.
    assert_eq!(store.insert(&batch(0, 10)).unwrap(), 10);
    let e = store.insert(&batch(bound as u64 - 5, 10)).unwrap_err();
    assert!(e.is_full(), "{e}");
    assert!(e.to_string().contains("at most 1000"), "{e}");
    assert_eq!(SketchStore::new().bound, MAX_PARTITIONS);
    assert_eq!(store.rows(), rows + 10);
}

/// Partitions whose values spread wide grow their sketches: the store is bounded in bytes
/// too, and the batch that would pass the budget is kept out whole.
#[test]
fn the_store_is_bounded_in_bytes_and_a_batch_past_it_is_kept_out_whole() {
    let budget = 4 << 20;
    let mut store = SketchStore::bounded(MAX_PARTITIONS).with_budget(budget);
    // Each partition gets values from 1e-3 to 1e30: its sketches grow to many bins.
    let batch = |from: u64| {
        let n = 100usize;
        let spread = |i: usize| -> Vec<f64> {
            (0..n)
                .map(|r| 10f64.powi(((i + r) % 34) as i32 - 3))
                .collect()
        };
        Batch {
            epoch: (from..from + n as u64).collect(),
            node: vec!["N001".into(); n],
            task: vec!["T".into(); n],
            cpu: spread(0),
            mem: spread(7),
            net: spread(13),
        }
    };
    let mut refused = None;
    for k in 0..10_000u64 {
        // Each partition gets many rows: the same 100 epochs, values spread.
        let epochs = k / 40;
        let rows = store.rows();
        match store.insert(&batch(epochs * 100)) {
            Ok(_) => {}
            Err(e) => {
                assert_eq!(store.rows(), rows, "the refused batch left nothing");
                refused = Some(e);
                break;
            }
        }
    }
    let e = refused.expect("the store refused a batch before 10,000");
    assert!(e.is_full() && e.to_string().contains("MiB"), "{e}");
    assert!(store.memory_bytes() <= budget, "{}", store.memory_bytes());
    assert!(
        store.memory_bytes() > budget / 2,
        "{}",
        store.memory_bytes()
    );
}

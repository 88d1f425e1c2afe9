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
                // α on the value, and the rank rounded where the truth interpolates between
                // two neighbours (a hundredth apart at most here).
                assert!(
                    err <= RELATIVE_ERROR + 0.01,
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
        "column \"net\", row 1: NaN is not a finite number"
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

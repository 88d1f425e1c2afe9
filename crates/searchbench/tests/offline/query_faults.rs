//! The query driver against a tiny HTTP double: malformed answers, silence (timeouts) and
//! wrong answers are reported per cell, never a crash. No engine produces these on demand.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use searchbench::cluster::Target;
use searchbench::corpus::cluster_metrics::{FieldTruth, PartitionTruth};
use searchbench::query::{self, QueryOptions, QueryResult, Transport, Variant};
use searchbench::workload::cluster_metrics::queries::{MetricsQueries, Truth};

use crate::common;

/// What the double answers for a request path: `Some(body)` with status 200, `None` = never.
type Behaviour = fn(&str) -> Option<String>;

fn serve(behaviour: Behaviour) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || handle(stream, behaviour));
        }
    });
    url
}

fn handle(stream: TcpStream, behaviour: Behaviour) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        let mut length = 0usize;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            if h.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        match behaviour(&path) {
            Some(answer) => {
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                    answer.len()
                );
                if stream.write_all(reply.as_bytes()).is_err() {
                    return;
                }
            }
            None => {
                std::thread::sleep(Duration::from_secs(30));
                return;
            }
        }
    }
}

fn truth() -> Truth {
    let f = FieldTruth {
        p0: 1.0,
        p50: 2.0,
        p90: 3.0,
        p100: 4.0,
        sum: 10.0,
    };
    let part = |node: &str| PartitionTruth {
        epoch: 1,
        node: node.into(),
        count: 4,
        cpu: f,
        mem: f,
        net: f,
    };
    Truth::new(vec![part("N001"), part("N002")])
}

fn options() -> QueryOptions {
    let mut o = QueryOptions::new("cluster-metrics");
    o.variants = vec![Variant::new("A"), Variant::new("D_td")];
    o.passes = 2;
    o.warmup = false;
    o
}

fn target(url: &str) -> Target {
    common::target_at(url, Duration::from_millis(500))
}

async fn run(url: &str, options: &QueryOptions) -> Result<QueryResult, query::QueryError> {
    query::run(&MetricsQueries::new(truth()), &target(url), options).await
}

#[tokio::test]
async fn malformed_answers_are_counted_per_cell() {
    let url = serve(|_| Some("{\"took\": 1, \"hits\": ".to_string()));
    let result = run(&url, &options())
        .await
        .expect("a run with failures is still a result");
    assert_eq!(result.cells.len(), 4);
    for cell in &result.cells {
        // 2 passes × 1 coverage × 2 searches, each lost.
        assert_eq!(cell.errors, 4, "{:?} {:?}", cell.variant, cell.transport);
        assert_eq!(cell.took_ms.n, 0);
        assert!(
            cell.error_examples[0].contains("malformed"),
            "{:?}",
            cell.error_examples
        );
    }
    assert!(!result.passed());
    searchbench::cli::output::query::print(&result, searchbench::cli::output::Detail::Full);
}

#[tokio::test]
async fn timeouts_are_counted_per_cell() {
    let url = serve(|path| {
        if path.contains("_msearch") {
            None
        } else {
            Some(
                "{\"took\":0,\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"}},\
                 \"aggregations\":{}}"
                    .to_string(),
            )
        }
    });
    let mut o = options();
    o.variants = vec![Variant::new("A")];
    o.passes = 1;
    let result = run(&url, &o).await.expect("result");
    let serial = result.cell("A", Transport::Serial).expect("serial");
    assert_eq!(serial.errors, 0);
    assert_eq!(serial.took_ms.n, 1);
    let msearch = result.cell("A", Transport::Msearch).expect("msearch");
    assert_eq!(msearch.errors, 2);
    assert!(
        msearch.error_examples[0].contains("timed out"),
        "{:?}",
        msearch.error_examples
    );
    assert_eq!(result.failures_total, 0, "{:?}", result.failures);
    assert!(!result.passed());
}

#[tokio::test]
async fn wrong_answers_fail_the_check() {
    // Counts right for A; D_td's sums are wrong and its percentiles far off.
    let url = serve(|path| {
        let one = "{\"took\":1,\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"}},\
             \"aggregations\":{\"cpu_sum\":{\"value\":10.0},\"mem_sum\":{\"value\":11.0},\
             \"net_sum\":{\"value\":10.0},\
             \"cpu_pct\":{\"values\":{\"0.0\":1.0,\"50.0\":2.0,\"90.0\":3.0,\"100.0\":4.0}},\
             \"mem_pct\":{\"values\":{\"0.0\":1.0,\"50.0\":2.0,\"90.0\":3.0,\"100.0\":4.0}},\
             \"net_pct\":{\"values\":{\"0.0\":1.0,\"50.0\":2.5,\"90.0\":3.0,\"100.0\":4.0}}}}";
        if path.contains("_msearch") {
            Some(format!("{{\"took\":1,\"responses\":[{one},{one}]}}"))
        } else {
            Some(one.to_string())
        }
    });
    let result = run(&url, &options()).await.expect("result");
    assert_eq!(result.request_errors(), 0);
    let acc = |v: &str| {
        result
            .accuracy
            .iter()
            .find(|a| a.variant == v)
            .expect("variant")
            .clone()
    };
    assert!(!acc("A").failed());
    let d = acc("D_td");
    assert_eq!(d.count_wrong, 0);
    assert_eq!(d.sum_wrong, 8); // 2 passes × 2 transports × 2 nodes, mem only
    assert_eq!(d.pct_over_bound, 8); // net p50: 25 % off
    assert!(!result.passed());
    assert!(result.failures.iter().any(|f| f.contains("sum(mem)")));
    // Each wrong answer once, with how often it came (passes, transports): the counts add up
    // to the total, and the same answer is never listed twice.
    assert!(result.failures.len() < 50, "{:#?}", result.failures);
    let times = |f: &String| {
        f.split_once("× ")
            .and_then(|(n, _)| n.parse::<u64>().ok())
            .unwrap_or(1)
    };
    let mut distinct: Vec<&str> = result
        .failures
        .iter()
        .map(|f| f.split_once("× ").map_or(f.as_str(), |(_, m)| m))
        .collect();
    assert_eq!(
        result.failures.iter().map(times).sum::<u64>(),
        result.failures_total,
        "{:#?}",
        result.failures
    );
    assert!(
        result.failures.iter().any(|f| times(f) > 1),
        "{:#?}",
        result.failures
    );
    let listed = distinct.len();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), listed, "{:#?}", result.failures);
}

/// `--cold` closes the index it measures and `--shards` copies it: both refuse, with exit 2
/// and before a byte is sent, an `--index` that is not one index or alias by name (a pattern,
/// `_all`, a list, a path that would reach another API), and `--shards` counts that cannot be.
#[test]
fn cold_and_shards_refuse_what_is_not_one_index_before_sending_anything() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let refused = |args: &[&str], says: &str| {
        let mut all = vec!["query", "cluster-metrics", "--url", url.as_str()];
        all.extend(args);
        let out = common::run(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    for index in ["_all", "logs-*", "a,b", "x/_close", "X"] {
        for flag in [&["--cold"][..], &["--shards", "1,2"]] {
            let mut args = vec!["--index", index];
            args.extend(flag);
            refused(&args, "--index must name one index or alias");
        }
    }
    for (shards, says) in [
        ("4", "two counts"),
        ("1,-1", "not a whole number"),
        ("1,4294967296", "not a whole number"),
        ("1,2000", "from 1 to 1024"),
        ("2,2", "twice"),
    ] {
        refused(&["--index", "metrics", "--shards", shards], says);
    }
    refused(
        &["--index", "metrics", "--shards", "1,2", "--cold"],
        "cannot be used with",
    );
    assert!(
        listener.accept().is_err(),
        "a refused command connected to the cluster"
    );
}

//! The `logs` query workload against a real node: every variant produces samples, every hit
//! count, newest-hits list and bucket list equals the truth recomputed from the generator
//! spec, size 0 and size 10 agree, and the CLI writes a JSON result with every cell.

use crate::common::{self, runtime};

use searchbench::corpus::LogsSpec;
use searchbench::query::{self, QueryOptions, QueryResult, Transport, Variant};
use searchbench::workload::logs::queries::{self as logs, LogsQueries};

const INDEX: &str = "query-test-logs";

fn spec() -> LogsSpec {
    LogsSpec::new(5, 4000)
}

/// Loads the corpus once per test binary (tests in this file share the index).
fn loaded() {
    static ONCE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let docs = ONCE.get_or_init(|| {
        runtime().block_on(async {
            let t = common::target();
            let _ = t
                .send(reqwest::Method::DELETE, &format!("/{INDEX}"), None)
                .await;
            let w = searchbench::workload::find("logs").expect("logs");
            let mut corpus = searchbench::workload::WorkloadSpec::new(5);
            corpus.docs = Some(4000);
            searchbench::session::query::load_corpus(
                &t,
                w,
                &corpus,
                INDEX,
                &searchbench::session::Silent,
                None,
            )
            .await
            .expect("load");
            spec().docs
        })
    });
    assert_eq!(*docs, 4000);
}

#[test]
fn logs_answers_match_the_generator_truth() {
    loaded();
    let target = common::target();
    let mut options = QueryOptions::new(INDEX);
    options.passes = 2;
    options.transports = vec![Transport::Serial, Transport::Msearch];
    let plan = LogsQueries::new(spec(), 4);
    let result = runtime()
        .block_on(query::run(&plan, &target, &options))
        .expect("run");
    searchbench::cli::output::query::print(&result, searchbench::cli::output::Detail::Full);
    assert_eq!(result.workload, "logs");
    assert_eq!(result.request_errors(), 0);
    assert_eq!(result.failures_total, 0, "{:#?}", result.failures);
    assert!(result.passed());
    assert_eq!(result.cells.len(), 16);
    for v in logs::variants() {
        for t in [Transport::Serial, Transport::Msearch] {
            let c = result.cell(v.name(), t).expect("cell");
            // 2 passes × 4 slices, every one answered.
            assert_eq!(c.took_ms.n, 8, "{v:?} {t:?}");
            assert_eq!(c.wall_ms.n, 8);
            assert!(c.wall_ms.mean > 0.0 && c.wall_ms.p90 >= c.wall_ms.median);
        }
    }
    for a in &result.accuracy {
        // warm-up + 2 passes, 2 transports, 4 slices.
        assert_eq!(a.answers, 3 * 2 * 4, "{:?}", a.variant);
        assert!(!a.failed(), "{a:?}");
    }
    // The truth is not trivial: every slice has matches for every query shape.
    let truth = logs::compute_truth(&spec(), 4).expect("truth");
    for t in &truth.truth {
        assert!(t.range_terms > 0 && t.matched > 0 && t.in_range > t.range_terms);
        assert_eq!(t.top_hosts.len(), 10);
        assert!(t.minutes.len() > 100);
    }
    assert_eq!(
        truth.truth.iter().map(|t| t.in_range).sum::<u64>(),
        spec().docs
    );
}

#[test]
fn a_wrong_spec_fails_the_check() {
    loaded();
    let target = common::target();
    let mut options = QueryOptions::new(INDEX);
    options.passes = 1;
    options.warmup = false;
    options.variants = vec![
        Variant::new("range_terms_s0"),
        Variant::new("histogram_s10"),
    ];
    // Another seed: same document count per slice, other processes, hosts and timestamps.
    let mut wrong = spec();
    wrong.seed = 6;
    let plan = LogsQueries::new(wrong, 2);
    let result = runtime()
        .block_on(query::run(&plan, &target, &options))
        .expect("run");
    assert!(!result.passed());
    assert!(result.failures_total > 0);
    let acc = |v: &str| {
        result
            .accuracy
            .iter()
            .find(|a| a.variant == v)
            .expect("variant")
            .clone()
    };
    assert!(acc("range_terms_s0").count_wrong > 0);
    assert!(acc("histogram_s10").hits_wrong + acc("histogram_s10").buckets_wrong > 0);
}

#[test]
fn the_cli_runs_logs_and_writes_every_cell() {
    loaded();
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("logs.json");
    let out = common::bin()
        .args(["query", "logs", "--url", common::node_url()])
        .args(["--index", INDEX, "--docs", "4000", "--seed", "5"])
        .args(["--passes", "1", "--slices", "3"])
        .arg("--json")
        .arg(&json)
        .arg("--store")
        .arg(dir.path().join("results.db"))
        .args(["--tag", "case=cli"])
        .output()
        .expect("run searchbench");
    let stdout = common::succeeded(&out);
    assert!(stdout.contains("histogram_s10"), "{stdout}");
    assert!(stdout.contains("All hit counts"), "{stdout}");
    let text = std::fs::read(&json).expect("json");
    let saved: QueryResult = serde_json::from_slice(&text).expect("result json");
    assert_eq!(saved.workload, "logs");
    assert_eq!(saved.cells.len(), 8);
    // What else the machine did during the queries is kept and said (issue 62).
    let bg = saved
        .background
        .expect("the machine's background during the queries");
    assert!((0.0..=100.0).contains(&bg.machine_busy_pct), "{bg:?}");
    assert!(
        common::streams(&out).contains("machine during the queries:"),
        "{}",
        common::streams(&out)
    );
    for v in logs::variants() {
        let c = saved.cell(v.name(), Transport::Serial).expect("cell");
        assert_eq!(c.took_ms.n, 3, "{v:?}");
        assert_eq!(c.samples.len(), 3);
    }
    // The raw JSON names every cell by its variant.
    let raw: serde_json::Value = serde_json::from_slice(&text).expect("json value");
    let names: Vec<&str> = raw["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .filter_map(|c| c["variant"].as_str())
        .collect();
    for v in logs::variants() {
        assert!(names.contains(&v.name()), "{names:?}");
    }

    // The run is in the store, with each cell's histograms decodable.
    let store = searchbench::store::Store::open(dir.path().join("results.db")).expect("store");
    let runs = store.list(&Default::default()).expect("runs");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].kind, "query");
    assert_eq!(runs[0].state, searchbench::store::State::Complete);
    assert_eq!(runs[0].tags.get("case").map(String::as_str), Some("cli"));
    let shown = common::bin()
        .args(["results", "show", &runs[0].id.0, "--json", "--store"])
        .arg(dir.path().join("results.db"))
        .output()
        .expect("results show");
    let shown: serde_json::Value =
        serde_json::from_str(&common::succeeded(&shown)).expect("show json");
    let hist = shown["histograms"].as_array().expect("histograms");
    let service = hist
        .iter()
        .find(|h| h["name"] == "query:histogram_s10:serial:service")
        .expect("the histogram_s10 service histogram");
    assert_eq!(service["count"], 3);
    let side = searchbench::analysis::compare::Side::load(&store, "case=cli").expect("side");
    assert!(
        side.metrics.iter().any(|m| m.key == "machine.steal_pct"),
        "the query run's machine metrics"
    );

    // A wrong seed: the check fails, exit code 3.
    let out = common::bin()
        .args(["query", "logs", "--url", common::node_url()])
        .args(["--index", INDEX, "--docs", "4000", "--seed", "9"])
        .args(["--passes", "1", "--slices", "2", "--no-warmup"])
        .args(["--variants", "range_terms_s0"])
        .output()
        .expect("run searchbench");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAILED"));
}

/// `--search-clients N` keeps the method (every answer checked, every cell's samples) and
/// puts N coverages in flight: through a 100 ms link the measured passes take a fraction of
/// the serial time.
#[test]
fn search_clients_overlap_coverages_and_keep_every_answer_checked() {
    loaded();
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |clients: &str| -> QueryResult {
        let json = dir.path().join(format!("clients-{clients}.json"));
        let out = common::bin()
            .args(["query", "logs", "--url", common::node_url()])
            .args(["--index", INDEX, "--docs", "4000", "--seed", "5"])
            .args(["--passes", "2", "--slices", "4", "--no-warmup"])
            .args(["--variants", "range_terms_s0", "--transports", "serial"])
            .args([
                "--rtt",
                "100ms",
                "--no-telemetry",
                "--search-clients",
                clients,
            ])
            .arg("--json")
            .arg(&json)
            .arg("--no-store")
            .output()
            .expect("run searchbench");
        let stdout = common::succeeded(&out);
        assert!(stdout.contains("All hit counts"), "{stdout}");
        serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("result json")
    };
    let serial = run("1");
    let four = run("4");
    assert_eq!((serial.clients, four.clients), (1, 4));
    for r in [&serial, &four] {
        let c = r.cell("range_terms_s0", Transport::Serial).expect("cell");
        assert_eq!(c.took_ms.n, 8, "2 passes × 4 slices");
        assert_eq!(r.failures_total, 0, "{:?}", r.failures);
    }
    assert!(
        four.measured_secs < 0.6 * serial.measured_secs,
        "4 clients: {:.2} s, 1 client: {:.2} s",
        four.measured_secs,
        serial.measured_secs
    );

    let out = common::bin()
        .args([
            "query",
            "logs",
            "--url",
            "http://127.0.0.1:9",
            "--index",
            INDEX,
        ])
        .args(["--docs", "4000", "--search-clients", "0"])
        .output()
        .expect("run searchbench");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--search-clients"));
}

/// A query run split in two parts (`--part I/2 --group`): each part measures its share of
/// every variant's slices, and the merged run has every slice of every pass once, each answer
/// checked, with the percentiles of both parts' requests together.
#[test]
fn a_query_run_in_two_parts_merges_into_one_run_of_every_coverage() {
    loaded();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("results.db");
    let children: Vec<_> = (1..=2)
        .map(|i| {
            common::bin()
                .args(["query", "logs", "--url", common::node_url()])
                .args(["--index", INDEX, "--docs", "4000", "--seed", "5"])
                .args(["--passes", "2", "--slices", "8", "--search-clients", "2"])
                .args(["--variants", "range_terms_s0,match_s10", "--no-telemetry"])
                .args(["--part", &format!("{i}/2"), "--group", "q-parts"])
                .arg("--store")
                .arg(&store)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        let text = common::streams(&out);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("search client(s)"), "{text}");
    }
    let out = common::bin()
        .args(["results", "merge", "q-parts", "--json", "--store"])
        .arg(&store)
        .output()
        .expect("merge");
    let text = common::streams(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let merged: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(merged["state"], "complete", "{text}");
    assert_eq!(merged["config"]["search_clients"], 2);
    let r: QueryResult = serde_json::from_value(merged["result"].clone()).expect("a query result");
    assert_eq!(r.clients, 2);
    assert_eq!(r.failures_total, 0);
    let each = merged["result"]["parts"]["each"].as_array().expect("parts");
    for v in ["range_terms_s0", "match_s10"] {
        let c = r.cell(v, Transport::Serial).expect("cell");
        // 2 passes × 8 slices, each slice measured by one part.
        assert_eq!(c.coverages, 16, "{v}");
        assert_eq!(c.took_ms.n, 16, "{v}");
        let mut epochs: Vec<(u32, u64)> = c.samples.iter().map(|s| (s.pass, s.epoch)).collect();
        epochs.sort();
        epochs.dedup();
        assert_eq!(epochs.len(), 16, "{v}: every (pass, slice) once");
        // The merged service percentiles are those of both parts' requests.
        let s = searchbench::store::Store::open_read(&store).expect("store");
        let mut union: Option<hdrhistogram::Histogram<u64>> = None;
        for p in each {
            let id = searchbench::store::RunId(p["run"].as_str().expect("id").to_string());
            let h = s
                .histograms(&id)
                .expect("histograms")
                .into_iter()
                .find(|h| h.name == format!("query:{v}:serial:service"))
                .expect("a part's service histogram")
                .decode()
                .expect("decode");
            match &mut union {
                Some(u) => u.add(&h).expect("add"),
                None => union = Some(h),
            }
        }
        let union = union.expect("two parts");
        assert_eq!(c.service_hdr.count, union.len(), "{v}");
        assert_eq!(c.service_hdr.p50_us, union.value_at_quantile(0.5), "{v}");
        assert_eq!(c.service_hdr.max_us, union.max(), "{v}");
    }
    // Each part measured half of the slices.
    for p in each {
        assert_eq!(p["coverages_measured"], 16, "{p}");
    }
    // A part asked to load the index is refused before anything is sent.
    let out = common::bin()
        .args(["query", "logs", "--url", common::node_url(), "--load"])
        .args([
            "--index",
            "query-test-never",
            "--part",
            "1/2",
            "--group",
            "g",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
    assert!(common::streams(&out).contains("--part with --load"));
}

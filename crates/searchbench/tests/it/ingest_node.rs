//! Ingest against a real node: counts reconcile, refused documents land in the failure file,
//! indexes we did not create are left alone, settings are restored, CSV input works.

use std::path::Path;
use std::time::Duration;

use reqwest::Method;
use searchbench::cluster::Target;
use searchbench::corpus::Counter;
use searchbench::corpus::{BadLine, CorpusError, DocSource, Item};
use searchbench::ingest::{self, DriverConfig, IdMode, IngestError, LoadSettings, Plan};
use serde_json::{json, Value};

use crate::common::{self, node_url};

/// In-memory documents: `Ok(doc)` or `Err(raw)` for a bad line.
struct Docs {
    items: Vec<Result<Vec<u8>, Vec<u8>>>,
    at: usize,
}

impl Docs {
    fn numbers(n: usize, bad_at: &[usize], bad_lines_at: &[usize]) -> Docs {
        let items = (0..n)
            .map(|i| {
                if bad_lines_at.contains(&i) {
                    Err(format!("{{broken line {i}").into_bytes())
                } else if bad_at.contains(&i) {
                    Ok(format!("{{\"n\":\"not a number {i}\",\"i\":{i}}}").into_bytes())
                } else {
                    Ok(format!("{{\"n\":{i},\"i\":{i}}}").into_bytes())
                }
            })
            .collect();
        Docs { items, at: 0 }
    }
}

impl DocSource for Docs {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        let Some(item) = self.items.get(self.at) else {
            return Ok(None);
        };
        self.at += 1;
        Ok(Some(match item {
            Ok(doc) => {
                out.extend_from_slice(doc);
                Item::Doc
            }
            Err(raw) => Item::Bad(BadLine {
                source: "memory.ndjson".into(),
                line: self.at as u64,
                reason: "not JSON".into(),
                raw: raw.clone(),
            }),
        }))
    }
    fn len_hint(&self) -> Option<u64> {
        Some(self.items.len() as u64)
    }
    fn describe(&self) -> String {
        format!("{} in-memory docs", self.items.len())
    }
}

fn plan(index: &str, dir: &Path) -> Plan {
    let mut driver = DriverConfig::new(index);
    driver.bulk_docs = 100;
    driver.clients = 2;
    Plan {
        driver,
        index_body: json!({
            "settings": {"number_of_shards": 1, "number_of_replicas": 0},
            "mappings": {"properties": {"n": {"type": "long"}, "i": {"type": "long"}}}
        }),
        portable_body: false,
        replace: false,
        append: false,
        load_settings: LoadSettings::default(),
        failures: dir.join(format!("{index}-failures.ndjson")),
        engine_pids: common::node_pid().into_iter().collect(),
        freshness: None,
    }
}

async fn count(target: &Target, index: &str) -> u64 {
    ingest::count(target, index).await.expect("count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_reconcile_and_the_report_says_where_time_went() {
    let target = common::target();
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-reconcile";
    let mut p = plan(index, dir.path());
    p.driver.bulk_docs = 250;
    let report = ingest::ingest(&target, Box::new(Counter { n: 5000, at: 0 }), p)
        .await
        .expect("ingest");
    assert_eq!(report.error, None);
    assert_eq!(report.counts.read, 5000);
    assert_eq!(report.counts.indexed, 5000);
    assert_eq!(report.counts.failed, 0);
    assert_eq!(report.counts.index_count, Some(5000));
    assert!(report.counts.reconciled);
    assert_eq!(report.requests.attempts, 20);
    assert_eq!(report.service.count, 20);
    assert!(report.took.count == 20);
    assert!(report.failures_file.is_none());
    let stats = report.server_stats.expect("stats");
    assert_eq!(stats.index_total, 5000);
    let budget: f64 = report.attribution.budget.iter().map(|s| s.secs).sum();
    assert!(
        (budget - report.wall_secs).abs() < 0.01 * report.wall_secs + 1e-3,
        "{budget} vs {}",
        report.wall_secs
    );
    assert!(report.cpu.engine_secs.is_some());
    // Sequential ids: document ordinal 4321 has _id 4321 and is that document.
    let doc: Value = target
        .get_json(&format!("/{index}/_doc/4321"))
        .await
        .unwrap();
    assert_eq!(doc["_source"]["n"], 4321);
    // The whole result serialises.
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains("\"attribution\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mapping_conflict_lands_in_the_failure_file_and_the_rest_is_indexed() {
    let target = common::target();
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-conflict";
    let p = plan(index, dir.path());
    let failures = p.failures.clone();
    let source = Docs::numbers(1000, &[17, 503], &[42]);
    let report = ingest::ingest(&target, Box::new(source), p)
        .await
        .expect("ingest");
    assert_eq!(report.error, None);
    assert_eq!(report.counts.read, 1000);
    assert_eq!(report.counts.indexed, 997);
    assert_eq!(report.counts.refused, 2);
    assert_eq!(report.counts.bad_lines, 1);
    assert_eq!(report.counts.index_count, Some(997));
    assert!(report.counts.reconciled);
    assert_eq!(report.failures_file.as_deref(), Some(failures.as_path()));
    let text = std::fs::read_to_string(&failures).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    let refused: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "document").collect();
    assert_eq!(refused.len(), 2);
    for r in &refused {
        assert_eq!(r["status"], 400);
        let reason = r["reason"].as_str().unwrap();
        assert!(reason.contains("mapper_parsing_exception"), "{reason}");
        assert!(r["doc"]["n"].as_str().unwrap().starts_with("not a number"));
    }
    let ordinals: Vec<u64> = refused
        .iter()
        .map(|r| r["ordinal"].as_u64().unwrap())
        .collect();
    // Ordinals count documents, not bad lines: input 17 is ordinal 17, input 503 is 502.
    assert!(
        ordinals.contains(&17) && ordinals.contains(&502),
        "{ordinals:?}"
    );
    let bad = lines.iter().find(|l| l["kind"] == "bad_line").unwrap();
    assert_eq!(bad["source"], "memory.ndjson");
    assert_eq!(bad["line"], 43);
    assert_eq!(bad["raw"], "{broken line 42");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_fast_stops_at_the_first_bad_line_and_still_accounts_for_everything() {
    let target = common::target();
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-failfast";
    let mut p = plan(index, dir.path());
    p.driver.fail_fast = true;
    let report = ingest::ingest(&target, Box::new(Docs::numbers(1000, &[], &[250])), p)
        .await
        .expect("ingest");
    let error = report.error.clone().expect("stopped");
    assert!(error.contains("memory.ndjson:251"), "{error}");
    assert!(report.counts.read < 1000);
    assert_eq!(
        report.counts.read,
        report.counts.indexed + report.counts.failed
    );
    assert_eq!(report.counts.index_count, Some(report.counts.indexed));
    assert_eq!(report.counts.bad_lines, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_index_we_did_not_create_is_left_alone_unless_replace() {
    let target = common::target();
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-foreign";
    let _ = target
        .send(Method::DELETE, &format!("/{index}"), None)
        .await;
    let _: Value = target
        .send_json(
            Method::PUT,
            &format!("/{index}"),
            &json!({"settings": {"number_of_replicas": 0}}),
        )
        .await
        .unwrap();
    let _: Value = target
        .send_json(
            Method::PUT,
            &format!("/{index}/_doc/keep?refresh=true"),
            &json!({"precious": true}),
        )
        .await
        .unwrap();
    let err = ingest::ingest(
        &target,
        Box::new(Counter { n: 10, at: 0 }),
        plan(index, dir.path()),
    )
    .await
    .expect_err("must refuse");
    assert!(matches!(err, IngestError::Foreign { .. }), "{err}");
    assert!(err.to_string().contains("--replace"));
    assert_eq!(
        count(&target, index).await,
        1,
        "the foreign index is untouched"
    );

    // Through the CLI as well: exit 1, a clear message, nothing deleted.
    let out = common::bin()
        .args([
            "ingest",
            "logs",
            "--docs",
            "10",
            "--quiet",
            "--index",
            index,
            "--url",
            node_url(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("was not created by searchbench"),
        "{stderr}"
    );
    assert_eq!(count(&target, index).await, 1);

    let mut p = plan(index, dir.path());
    p.replace = true;
    let report = ingest::ingest(&target, Box::new(Counter { n: 10, at: 0 }), p)
        .await
        .unwrap();
    assert_eq!(report.previous_index, ingest::Previous::ReplacedForeign);
    assert_eq!(report.counts.index_count, Some(10));

    // Now it is ours: a second run recreates it without --replace.
    let report = ingest::ingest(
        &target,
        Box::new(Counter { n: 7, at: 0 }),
        plan(index, dir.path()),
    )
    .await
    .unwrap();
    assert_eq!(report.previous_index, ingest::Previous::Ours);
    assert_eq!(report.counts.index_count, Some(7));
    assert!(ingest::index::delete_ours(&target, index).await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_settings_are_applied_and_restored() {
    let target = common::target();
    let dir = tempfile::tempdir().unwrap();
    let index = "searchbench-test-settings";
    let mut p = plan(index, dir.path());
    p.index_body["settings"]["refresh_interval"] = json!("5s");
    p.load_settings = LoadSettings {
        refresh_interval: Some("-1".into()),
        replicas: Some(0),
        translog_durability: Some("async".into()),
    };
    let report = ingest::ingest(&target, Box::new(Counter { n: 300, at: 0 }), p)
        .await
        .unwrap();
    assert!(report.counts.reconciled, "{:?}", report.counts);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let s: Value = target
        .get_json(&format!("/{index}/_settings?flat_settings=true"))
        .await
        .unwrap();
    let s = &s[index]["settings"];
    assert_eq!(s["index.refresh_interval"], "5s", "{s}");
    assert!(s.get("index.translog.durability").is_none(), "{s}");
    assert_eq!(s["index.number_of_replicas"], "0");
}

#[test]
fn cli_ingests_a_transactions_csv_and_a_gzip_ndjson() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("dvf.csv");
    let mut text = searchbench::corpus::transactions::csv_header().into_bytes();
    text.push(b'\n');
    let mut gen =
        searchbench::corpus::Transactions::new(searchbench::corpus::TransactionsSpec::new(3, 2000))
            .unwrap();
    let mut rows = 0;
    while gen.next_csv_into(&mut text) {
        text.push(b'\n');
        rows += 1;
    }
    assert_eq!(rows, 2000);
    text.extend_from_slice(b"a,row,with,too,few,fields\n");
    std::fs::write(&csv, &text).unwrap();
    let failures = dir.path().join("f.ndjson");
    let json_out = dir.path().join("r.json");
    let out = common::bin()
        .args([
            "ingest",
            "transactions",
            "--quiet",
            "--index",
            "searchbench-test-csv",
            "--url",
            node_url(),
            "--max-failures",
            "1",
        ])
        .arg("--file")
        .arg(&csv)
        .arg("--failures")
        .arg(&failures)
        .arg("--json")
        .arg(&json_out)
        .output()
        .unwrap();
    let stdout = common::succeeded(&out);
    assert!(stdout.contains("reconciled"), "{stdout}");
    let r: Value = serde_json::from_slice(&std::fs::read(&json_out).unwrap()).unwrap();
    assert_eq!(r["counts"]["indexed"], 2000);
    assert_eq!(r["counts"]["bad_lines"], 1);
    assert_eq!(r["counts"]["index_count"], 2000);
    assert!(r["machine"]["cores"].as_u64().unwrap() >= 1);
    let f = std::fs::read_to_string(&failures).unwrap();
    assert!(f.contains("\"line\":2002"), "{f}");

    // NDJSON, gzip-compressed, with gzip request bodies and auto ids.
    let nd = dir.path().join("small.ndjson.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..1500 {
        std::io::Write::write_all(
            &mut enc,
            format!("{{\"i\":{i},\"s\":\"x{i}\"}}\n").as_bytes(),
        )
        .unwrap();
    }
    std::fs::write(&nd, enc.finish().unwrap()).unwrap();
    let out = common::bin()
        .args([
            "ingest",
            "--quiet",
            "--gzip",
            "--ids",
            "auto",
            "--bulk-bytes",
            "20kb",
            "--url",
            node_url(),
        ])
        .arg("--file")
        .arg(&nd)
        .output()
        .unwrap();
    let stdout = common::succeeded(&out);
    assert!(
        stdout.contains("1500 docs into searchbench-small"),
        "{stdout}"
    );
    let _ = Duration::ZERO;
}

/// Differential: by default a bracketed UTF-8 line is sent unparsed and the engine's parser
/// judges it; `--check-lines` judges every line before sending. Both must give the same counts
/// and the same failure records (kind, file, line, reason), apart from the one leniency engines
/// have: JSON with a comment is indexed by default and a bad line with `--check-lines`.
#[test]
fn engine_checked_lines_account_as_the_full_check_does() {
    let dir = tempfile::tempdir().unwrap();
    let nd = dir.path().join("lines.ndjson");
    let bad: [&[u8]; 12] = [
        b"{\"broken\":}",            // invalid JSON
        b"[1]",                      // not an object: caught here in both modes
        b"{\"a\":1} x}",             // trailing content
        b"{\"a\":1}{\"b\":2}",       // two objects
        b"{'q':1}",                  // single quotes
        b"{\"d\":NaN}",              // not a JSON number
        b"{\"n\":01}",               // leading zero
        b"{\"c\":\"\xff\"}",         // invalid UTF-8: refused by engines
        b"{\"o\":\"\xc0\xaf\"}",     // overlong UTF-8: engines index it as "/"
        b"{\"k\":1,\"k\":2}",        // valid JSON, duplicate key: refused in both modes
        b"{\"i\":\"not a number\"}", // valid JSON, wrong type: refused in both modes
        b"{\"m\":1 /* note */}",     // a comment: engines take it
    ];
    let mut text = Vec::new();
    for i in 0..300 {
        text.extend_from_slice(format!("{{\"i\":{i}}}\n").as_bytes());
        if i % 20 == 10 && i / 20 < bad.len() {
            text.extend_from_slice(bad[i / 20]);
            text.push(b'\n');
        }
    }
    std::fs::write(&nd, &text).unwrap();
    let comment_line = text
        .split(|&b| b == b'\n')
        .position(|l| l == bad[11])
        .unwrap()
        + 1;
    let ingest = |mode: &str| {
        let failures = dir.path().join(format!("failures{mode}.ndjson"));
        let json_out = dir.path().join(format!("r{mode}.json"));
        let mut cmd = common::bin();
        cmd.args(["ingest", "--quiet", "--replace", "--url", node_url()])
            .args(["--index", "searchbench-test-lines", "--max-failures", "20"])
            .arg("--file")
            .arg(&nd)
            .arg("--failures")
            .arg(&failures)
            .arg("--json")
            .arg(&json_out);
        if !mode.is_empty() {
            cmd.arg(mode);
        }
        let stdout = common::succeeded(&cmd.output().unwrap());
        assert!(stdout.contains("reconciled"), "{mode}: {stdout}");
        let r: Value = serde_json::from_slice(&std::fs::read(&json_out).unwrap()).unwrap();
        let mut records: Vec<(String, u64, String)> = std::fs::read_to_string(&failures)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|f| {
                assert_eq!(f["source"], nd.to_str().unwrap(), "{f}");
                let line = f["line"].as_u64().unwrap();
                // A refused document's reason names its _id, which differs: a bad line sent
                // to the engine takes an ordinal, one caught here does not.
                let kind = f["kind"].as_str().unwrap();
                let reason = if kind == "bad_line" {
                    f["reason"].to_string()
                } else {
                    "".into()
                };
                (kind.to_string(), line, reason)
            })
            .collect();
        records.sort_by_key(|r| r.1);
        (r["counts"].clone(), records)
    };
    let (checked, checked_records) = ingest("--check-lines");
    let (engine, engine_records) = ingest("");
    assert_eq!(
        (
            &checked["bad_lines"],
            &checked["refused"],
            &checked["indexed"]
        ),
        (&json!(10), &json!(2), &json!(300)),
        "{checked}"
    );
    assert_eq!(
        (&engine["bad_lines"], &engine["refused"], &engine["indexed"]),
        (&json!(9), &json!(2), &json!(301)),
        "{engine}"
    );
    let without_comment: Vec<_> = checked_records
        .iter()
        .filter(|r| r.1 != comment_line as u64)
        .cloned()
        .collect();
    assert_eq!(without_comment.len(), checked_records.len() - 1);
    assert_eq!(engine_records, without_comment);
    // `--trust-lines`, the old name of the default, still runs and means the same.
    assert_eq!(ingest("--trust-lines").0["bad_lines"], 9);
}

#[test]
fn cli_run_needs_a_known_workload() {
    let out = common::bin()
        .args(["run", "nope", "--docs", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown workload"));
}

#[test]
fn logs_ingest_through_the_cli_with_workload_generator() {
    let dir = tempfile::tempdir().unwrap();
    let json_out = dir.path().join("r.json");
    let out = common::bin()
        .args([
            "ingest",
            "logs",
            "--docs",
            "3000",
            "--clients",
            "3",
            "--bulk-size",
            "500",
            "--quiet",
            "--refresh-interval",
            "-1",
            "--index",
            "searchbench-test-cli-logs",
            "--url",
            node_url(),
        ])
        .arg("--json")
        .arg(&json_out)
        .arg("--store")
        .arg(dir.path().join("results.db"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&std::fs::read(&json_out).unwrap()).unwrap();
    assert_eq!(r["counts"]["index_count"], 3000);
    // A node given by --url with no --engine-pid: its CPU read from its own stats (none was
    // measured before), so the CPU per document is there on any cluster.
    let engine = r["cpu"]["engine_secs"].as_f64();
    assert!(engine.is_some_and(|s| s > 0.0), "{}", r["cpu"]);

    // The store kept the HDR histograms; decoded, they agree with the report's summaries.
    let store = searchbench::store::Store::open(dir.path().join("results.db")).unwrap();
    let runs = store.list(&Default::default()).unwrap();
    assert_eq!(runs.len(), 1);
    let shown = common::bin()
        .args(["results", "show", &runs[0].id.0, "--json", "--store"])
        .arg(dir.path().join("results.db"))
        .output()
        .unwrap();
    let shown: Value = serde_json::from_str(&common::succeeded(&shown)).unwrap();
    let service = &shown["histograms"][0];
    assert_eq!(service["name"], "service");
    assert_eq!(service["encoding"], "hdr-v2-deflate");
    assert_eq!(service["count"], r["service"]["count"]);
    assert_eq!(service["count"], r["requests"]["attempts"]);
    let max_us = service["max"].as_f64().unwrap();
    let reported_ms = r["service"]["max_ms"].as_f64().unwrap();
    assert!(
        (max_us / 1000.0 - reported_ms).abs() < 1e-9,
        "{max_us} us vs {reported_ms} ms"
    );
    assert_eq!(shown["histograms"][1]["name"], "took");
    assert_eq!(r["config"]["clients"], 3);
    assert_eq!(r["config"]["ids"], "sequential");
    assert!(
        r["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["docs"].as_u64().unwrap())
            .sum::<u64>()
            == 3000
    );
    let _ = IdMode::Auto;
}

/// A `searchbench ingest` killed with SIGKILL halfway: the store opens, the run reads as
/// incomplete, and the seconds it streamed in before dying are there.
#[test]
fn an_ingest_killed_midway_keeps_its_streamed_timeline() {
    use searchbench::store::{State, Store};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let mut child = common::bin()
        .args([
            "ingest",
            "logs",
            "--docs",
            "50000000",
            "--clients",
            "1",
            "--quiet",
            "--index",
            "searchbench-test-killed",
            "--url",
            node_url(),
        ])
        .arg("--store")
        .arg(&db)
        .arg("--failures")
        .arg(dir.path().join("f.ndjson"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let streamed = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no timeline rows streamed in within 120 s"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the ingest ended early"
        );
        std::thread::sleep(Duration::from_millis(250));
        if !db.exists() {
            continue;
        }
        let Ok(store) = Store::open(&db) else {
            continue;
        };
        let Some(run) = store.list(&Default::default()).unwrap().pop() else {
            continue;
        };
        let rows = store.timeline(&run.id).unwrap();
        if rows.len() >= 2 {
            break run.id;
        }
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let store = Store::open(&db).unwrap();
    let row = store.get(&streamed.0).unwrap();
    assert_eq!(row.state, State::Incomplete);
    assert!(row.result.is_none());
    let rows = store.timeline(&row.id).unwrap();
    assert!(rows.len() >= 2, "{rows:?}");
    let docs: u64 = rows.iter().filter_map(|s| s["docs"].as_u64()).sum();
    assert!(docs > 0, "{rows:?}");
    // Seconds are whole and in order: the first streamed rows start at second 0.
    assert_eq!(rows[0]["second"], 0);
    let report = common::bin()
        .args(["results", "show", &row.id.0, "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(common::succeeded(&report).contains("never finished"));
}

/// The index's `index.refresh_interval` as the cluster says it (`null` when not set).
fn refresh_interval_of(index: &str) -> Value {
    let t = common::target();
    let path = format!("/{index}/_settings?flat_settings=true");
    let reply = common::runtime()
        .block_on(t.send(Method::GET, &path, None))
        .expect("the index's settings");
    let v: Value = serde_json::from_slice(&reply.body).unwrap();
    v[index]["settings"]["index.refresh_interval"].clone()
}

/// A load killed (SIGKILL: nothing of it runs after) while its settings are on the user's
/// index leaves them there; the next load into that index on this machine puts the user's
/// back first and says so, rather than take `-1` for the index's own and keep it for good.
#[test]
fn a_killed_loads_settings_are_put_back_by_the_next_load() {
    const INDEX: &str = "searchbench-test-owed";
    common::fresh_index(
        INDEX,
        Some(br#"{"settings": {"index.refresh_interval": "7s"}}"#),
    );
    let cache = tempfile::tempdir().unwrap();
    let load = |docs: &str, settings: &[&str]| {
        let mut c = common::bin();
        c.args([
            "ingest",
            "logs",
            "--append",
            "--bulk-size",
            "10",
            "--rate",
            "200",
        ])
        .args(["--docs", docs, "--index", INDEX, "--url", node_url()])
        .args(settings)
        .arg("--no-store")
        .env("SEARCHBENCH_CACHE", cache.path());
        c
    };
    let mut running = load("1000000", &["--refresh-interval", "-1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let began = std::time::Instant::now();
    while refresh_interval_of(INDEX) != "-1" {
        if began.elapsed() > Duration::from_secs(60) {
            let _ = running.kill();
            let _ = running.wait();
            panic!("the load never set its refresh interval");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    running.kill().unwrap();
    running.wait().unwrap();
    assert_eq!(
        refresh_interval_of(INDEX),
        "-1",
        "left as the killed load set it"
    );
    // What it had sent is indexed (a bulk in flight when it died too).
    std::thread::sleep(Duration::from_secs(1));
    // The next load, with no settings of its own.
    let out = load("200", &[]).output().unwrap();
    let said = common::streams(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("was left changed by a load's settings")
            && said.contains(r#"index.refresh_interval = "7s""#),
        "{said}"
    );
    assert_eq!(refresh_interval_of(INDEX), "7s");
    common::fresh_index(INDEX, None);
}

//! `searchbench sweep`: a grid on the real node stores its cells tagged and recommends one; a
//! sink whose throughput is known (each `_bulk` answered after a fixed delay, so docs/s ≈
//! clients × bulk size ÷ delay) gives the known best cell; bad grids are bad usage; Ctrl-C
//! keeps the finished runs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

/// Answers one connection's requests: `_bulk` after `delay`, the rest at once, with just
/// enough for a load to reconcile (`_count` is the documents since the index was created).
fn serve(stream: TcpStream, delay: Duration, docs: &AtomicU64) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    stream.set_nodelay(true)?;
    let mut out = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line)? == 0 {
            return Ok(());
        }
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body)?;
        let mut parts = request_line.split(' ');
        let method = parts.next().unwrap_or("");
        let path = parts.next().unwrap_or("").split('?').next().unwrap_or("");
        let (status, answer) = if path.ends_with("/_bulk") {
            std::thread::sleep(delay);
            let n = body.iter().filter(|&&b| b == b'\n').count() as u64 / 2;
            docs.fetch_add(n, Relaxed);
            // One item a document, as an engine answers (trimmed by filter_path).
            let items = vec![r#"{"index":{"status":201}}"#; n as usize].join(",");
            (
                "200 OK",
                format!(r#"{{"took":1,"errors":false,"items":[{items}]}}"#),
            )
        } else if path == "/" {
            (
                "200 OK",
                r#"{"name":"sink","cluster_name":"sink","version":{"number":"0.0.0","distribution":"sink"}}"#.into(),
            )
        } else if path.ends_with("/_count") {
            ("200 OK", format!("{{\"count\":{}}}", docs.load(Relaxed)))
        } else if path.starts_with("/_cluster/health") {
            ("200 OK", r#"{"status":"green","timed_out":false}"#.into())
        } else if path.ends_with("/_settings") && method == "GET" {
            ("200 OK", "{}".into())
        } else if path.contains("/_stats") {
            ("200 OK", r#"{"_all":{"total":{}}}"#.into())
        } else if method == "PUT" && !path.contains("/_") {
            docs.store(0, Relaxed);
            ("200 OK", r#"{"acknowledged":true}"#.into())
        } else if method == "GET" || method == "HEAD" {
            (
                "404 Not Found",
                r#"{"error":{"type":"index_not_found_exception","reason":"sink"},"status":404}"#
                    .into(),
            )
        } else {
            ("200 OK", r#"{"acknowledged":true}"#.into())
        };
        // One write: pieces would meet Nagle's algorithm and the peer's delayed ACK (40 ms).
        let reply = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{}",
            answer.len(),
            if method == "HEAD" { "" } else { &answer }
        );
        out.write_all(reply.as_bytes())?;
    }
}

/// A bulk sink on 127.0.0.1 that answers each `_bulk` after `delay`. Returns its URL.
fn slow_sink(delay: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}", listener.local_addr().expect("local addr"));
    let docs = Arc::new(AtomicU64::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let docs = docs.clone();
            std::thread::spawn(move || serve(stream, delay, &docs));
        }
    });
    url
}

fn cell_of(result: &Value, bulk: u64, clients: u64) -> &Value {
    result["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .find(|c| c["params"]["bulk_docs"] == bulk && c["params"]["clients"] == clients)
        .unwrap_or_else(|| panic!("no cell bulk {bulk} × {clients}"))
}

fn params_of(result: &Value, which: &str) -> (u64, u64) {
    let i = result["answer"][which].as_u64().expect(which) as usize;
    let p = &result["cells"][i]["params"];
    (
        p["bulk_docs"].as_u64().expect("bulk"),
        p["clients"].as_u64().expect("clients"),
    )
}

/// `searchbench sweep logs --url URL --index INDEX` with no warm-up (the sink needs none).
fn sweep_on(url: &str, index: &str) -> std::process::Command {
    let mut cmd = common::bin();
    cmd.args(["sweep", "logs", "--url", url, "--index", index])
        .args(["--warmup", "0", "--warmup-runs", "0"]);
    cmd
}

/// Bulk 10, 40 × clients 1, 4 on a sink, the result as JSON on stdout, nothing stored.
fn two_by_two_on(url: &str, index: &str) -> std::process::Command {
    let mut cmd = sweep_on(url, index);
    cmd.args(["--bulk-size", "10,40", "--clients", "1,4"])
        .args(["--no-store", "--json", "-"]);
    cmd
}

#[test]
fn a_sweep_against_a_sink_of_known_throughput_finds_the_known_best_cell() {
    let delay = Duration::from_millis(60);
    let url = slow_sink(delay);
    let out = two_by_two_on(&url, "searchbench-test-sweep-sink")
        .args([
            "--docs",
            // 16 requests of 40: 4 full waves of 4 clients.
            "640",
            "--min-repeats",
            "2",
            // The test is about which cell is best, not about precision: a target a busy
            // machine can meet (at 5 % a noisy run leaves 'not enough data', exit 125).
            "--max-repeats",
            "5",
            "--ci",
            "25%",
        ])
        .output()
        .expect("run searchbench");
    let stdout = common::succeeded(&out);
    let result: Value = serde_json::from_str(&stdout).expect("the sweep's JSON");
    // docs/s = clients × bulk ÷ delay, less the driver's own time per request (a debug
    // build on a busy machine: a few ms to tens of ms).
    for (bulk, clients) in [(10, 1), (10, 4), (40, 1), (40, 4)] {
        let expected = (clients * bulk) as f64 / delay.as_secs_f64();
        let median = cell_of(&result, bulk, clients)["docs_per_sec"]["median"]
            .as_f64()
            .expect("median");
        assert!(
            median > 0.5 * expected && median < 1.05 * expected,
            "bulk {bulk} × {clients}: {median:.0} docs/s, expected about {expected:.0}\n{}",
            common::streams(&out)
        );
    }
    assert_eq!(params_of(&result, "best"), (40, 4), "{stdout}");
    assert_eq!(params_of(&result, "recommended"), (40, 4), "{stdout}");
    // Every round's order is recorded, every cell ran at least twice.
    let rounds = result["rounds"].as_array().expect("rounds");
    assert_eq!(rounds[0].as_array().expect("round 1").len(), 4);
    for c in result["cells"].as_array().expect("cells") {
        assert!(c["runs"].as_array().expect("runs").len() >= 2);
    }
}

#[test]
fn run_secs_sizes_each_cells_runs_to_about_that_long() {
    let delay = Duration::from_millis(40);
    let url = slow_sink(delay);
    let out = two_by_two_on(&url, "searchbench-test-sweep-sized")
        .args([
            "--docs",
            "160",
            "--run-secs",
            "1500ms",
            "--min-repeats",
            "2",
            "--max-repeats",
            "2",
            "--ci",
            "99%",
        ])
        .output()
        .expect("run searchbench");
    let result: Value = serde_json::from_str(&common::succeeded(&out)).expect("JSON");
    let slow = cell_of(&result, 10, 1);
    let fast = cell_of(&result, 40, 4);
    let (slow_docs, fast_docs) = (
        slow["docs_per_run"].as_u64().expect("docs"),
        fast["docs_per_run"].as_u64().expect("docs"),
    );
    assert!(fast_docs >= 8 * slow_docs, "{slow_docs} vs {fast_docs}");
    assert_eq!(fast_docs % 160, 0, "whole waves of 40 × 4");
    for cell in [slow, fast] {
        for run in cell["runs"].as_array().expect("runs") {
            let wall = run["wall_secs"].as_f64().expect("wall");
            assert!(
                wall > 0.7 && wall < 3.5,
                "a run of {wall} s\n{}",
                common::streams(&out)
            );
        }
    }
    assert_eq!(params_of(&result, "best"), (40, 4));
}

#[test]
fn a_two_by_two_sweep_on_a_real_node_stores_its_cells_and_recommends_one() {
    let store = common::scratch_store();
    let html = common::scratch_dir().join("sweep-real.html");
    let csv = common::scratch_dir().join("sweep-real.csv");
    let out = common::bin()
        .args([
            "sweep",
            "logs",
            "--url",
            common::node_url(),
            "--index",
            "searchbench-test-sweep-real",
            "--bulk-size",
            "50,200",
            "--clients",
            "1,2",
            "--docs",
            "1000",
            "--warmup",
            "0",
            // At least three runs a cell and a wide target: a real node's 1000-document runs
            // vary (by half on a busy machine), and a cell outside the target is "not enough
            // data", not an answer; up to eight runs let a noisy cell meet it.
            "--min-repeats",
            "3",
            "--max-repeats",
            "8",
            "--ci",
            "99%",
            "--tag",
            "suite=sweep-it",
        ])
        .arg("--store")
        .arg(&store)
        .arg("--html")
        .arg(&html)
        .arg("--export-csv")
        .arg(&csv)
        .output()
        .expect("run searchbench");
    let stdout = common::succeeded(&out);
    assert!(stdout.contains("recommended: bulk "), "{stdout}");
    assert!(stdout.contains("bulk size \\ clients"), "{stdout}");
    let id = stdout
        .lines()
        .find_map(|l| l.split("runs tagged sweep=").nth(1))
        .unwrap_or_else(|| panic!("no sweep id in\n{stdout}"))
        .trim()
        .to_string();
    let s = searchbench::store::Store::open(&store).expect("store");
    let filter = searchbench::store::Filter {
        tags: vec![
            ("sweep".into(), id.clone()),
            ("suite".into(), "sweep-it".into()),
        ],
        ..Default::default()
    };
    let runs = s.list(&filter).expect("list");
    // "sweep ID: 4 cells, N runs in R round(s)": every run the sweep made is stored and tagged.
    let made: usize = stdout
        .split("4 cells, ")
        .nth(1)
        .and_then(|rest| rest.split(" runs").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no run count in\n{stdout}"));
    assert!(made >= 12, "2 × 2 cells × at least 3 runs: {made}");
    assert_eq!(runs.len(), made, "each run stored and tagged");
    let cells: std::collections::BTreeSet<(String, String)> = runs
        .iter()
        .map(|r| {
            let tag = |k: &str| r.tags.get(k).cloned().unwrap_or_default();
            (tag("bulk_size"), tag("clients"))
        })
        .collect();
    assert_eq!(cells.len(), 4, "{cells:?}");
    // 1000 documents in bulks of 50 or 200 are 20 or 5 requests a run: no p99, and it says why.
    let text = common::streams(&out);
    assert!(
        text.contains("no p99 (-) in") && text.contains("fewer than 100 bulk requests"),
        "{text}"
    );
    let page = std::fs::read_to_string(&html).expect("the sweep page");
    assert!(page.contains("<svg class=\"heatmap\"") && page.contains("Recommended: bulk "));
    assert!(page.contains("no p99 (-) in"), "the page says why too");
    // Two client counts are too few for a USL fit: the page does not mention one.
    assert!(!page.contains("USL"), "a fit it never draws");
    assert_eq!(
        page.matches("<script").count(),
        1,
        "the charts are SVG: the only script is the page's check"
    );
    // A heatmap of the four cells, a curve per swept axis, and (each run probed) docs/s
    // against time to searchable, each drawn.
    crate::common::browser::assert_charts_drawn(&html, 4, true);
    assert!(page.contains("<h2>Docs/s against time to searchable</h2>"));
    // The store keeps the whole sweep: `report sweep=<id>` draws the very same page again.
    let report = |flags: &[&str], file: &str| {
        let again = common::scratch_dir().join(file);
        let out = common::bin()
            .args(["report", &format!("sweep={id}")])
            .args(flags)
            .arg(&again)
            .arg("--store")
            .arg(&store)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::streams(&out));
        again
    };
    let again = report(&["--html"], "sweep-again.html");
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        page,
        "the page from the store differs"
    );
    // `--export-csv` holds every run the sweep made, each as `report --csv` writes it of
    // the same runs from the store: one renderer, the same lines.
    let exported = std::fs::read_to_string(&csv).expect("the CSV");
    let again = report(&["--allow-mixed", "--csv"], "sweep-again.csv");
    let sorted = |text: &str| {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.sort();
        lines
    };
    let from_store = std::fs::read_to_string(&again).unwrap();
    assert_eq!(sorted(&exported), sorted(&from_store));
    let ids: std::collections::BTreeSet<&str> = exported
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .collect();
    assert_eq!(ids.len(), made, "every run of the sweep in the CSV");
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(html.with_extension("json")).expect("the JSON beside it"),
    )
    .expect("JSON");
    assert_eq!(json["id"], id.as_str());
    // Each run's index was deleted after it.
    let t = common::target();
    let gone = common::runtime().block_on(async {
        t.send(reqwest::Method::GET, "/searchbench-test-sweep-real", None)
            .await
    });
    assert!(gone.is_err(), "the sweep's index is left behind");
}

#[test]
fn bad_grid_values_are_bad_usage_with_a_clear_message() {
    let dead = common::dead_url();
    let cases: [(&[&str], &str); 5] = [
        (&["--bulk-size", "10", "--clients", "0"], "--clients"),
        (&["--bulk-size", "0,10", "--clients", "1"], "--bulk-size"),
        (
            &[
                "--bulk-size",
                "10",
                "--clients",
                "1",
                "--refresh-interval",
                "1s,soon",
            ],
            "soon",
        ),
        (
            &["--bulk-size", "10", "--clients", "1", "--warmup", "ten"],
            "not a duration",
        ),
        (
            &["--bulk-size", "10", "--clients", "1", "--ci", "0%"],
            "not a percentage",
        ),
    ];
    for (args, says) in cases {
        let out = common::bin()
            .args(["sweep", "logs", "--url", &dead])
            .args(args)
            .output()
            .expect("run searchbench");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}\n{}",
            common::streams(&out)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn ctrl_c_keeps_the_finished_runs_and_exits_130() {
    let url = slow_sink(Duration::from_millis(50));
    let store = common::scratch_store();
    let mut child = sweep_on(&url, "searchbench-test-sweep-int")
        .args([
            "--bulk-size",
            "10,20",
            "--clients",
            "1",
            "--docs",
            "200",
            "--min-repeats",
            "5",
            "--max-repeats",
            "5",
            "--tag",
            "suite=sweep-int",
        ])
        .arg("--store")
        .arg(&store)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn searchbench");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("round 1 [2/2]") {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    // Two runs finished (each ~1 s at 10 docs a request, 50 ms each), then Ctrl-C.
    rx.recv_timeout(Duration::from_secs(60))
        .expect("two runs finished");
    // SAFETY: SIGINT to the child we spawned, by its pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("still running 30 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    let s = searchbench::store::Store::open(&store).expect("store");
    let filter = searchbench::store::Filter {
        tags: vec![("suite".into(), "sweep-int".into())],
        complete_only: true,
        ..Default::default()
    };
    let kept = s.list(&filter).expect("list");
    assert!(kept.len() >= 2, "finished runs kept: {}", kept.len());
}

/// A sweep over the refresh interval says what each cell trades: docs/s against time to
/// searchable, the cells none beats on both listed as the front; refresh off is never.
#[test]
fn a_sweep_over_the_refresh_interval_weighs_docs_per_sec_against_time_to_searchable() {
    let json = common::scratch_dir().join("sweep-freshness.json");
    let html = common::scratch_dir().join("sweep-freshness.html");
    let out = sweep_on(common::node_url(), "it-sweep-freshness")
        .args(["--bulk-size", "200", "--clients", "2", "--docs", "4000"])
        .args(["--refresh-interval=1s,-1", "--freshness-bound", "2s"])
        .args(["--min-repeats", "2", "--max-repeats", "2", "--ci", "99%"])
        .arg("--html")
        .arg(&html)
        .args(["--no-store", "--json"])
        .arg(&json)
        .output()
        .expect("searchbench sweep");
    // Two short runs a cell may not tell the cells' docs/s apart (exit 125, no
    // recommendation): what they trade is said either way.
    assert!(
        matches!(out.status.code(), Some(0 | 125)),
        "{}",
        common::streams(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let cells = result["cells"].as_array().expect("cells");
    let refresh = |c: &Value| {
        c["params"]["refresh_interval"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let on = cells
        .iter()
        .find(|c| refresh(c) == "1s")
        .expect("the 1s cell");
    let off = cells
        .iter()
        .find(|c| refresh(c) == "-1")
        .expect("the -1 cell");
    let p99 = on["searchable_p99_s"].as_f64().expect("a p99 at 1 s");
    assert!((0.1..=4.0).contains(&p99), "{on}");
    assert_eq!(on["not_searchable_pct"], 0.0, "{on}");
    assert!(off["searchable_p99_s"].is_null(), "{off}");
    assert_eq!(off["not_searchable_pct"], 100.0, "{off}");
    assert!(
        stdout.contains("docs/s against time to searchable (p99): "),
        "{stdout}"
    );
    // The 1 s cell is always on the front (nothing is searchable sooner); refresh off is on it
    // only when it loaded faster.
    let line = |r: &str| format!("  bulk 200 × 2 clients, refresh interval {r}: ");
    assert!(stdout.contains(&line("1s")), "{stdout}");
    let faster = off["docs_per_sec"]["median"].as_f64() > on["docs_per_sec"]["median"].as_f64();
    assert_eq!(stdout.contains(&line("-1")), faster, "{stdout}");
    // The page charts the same trade: both cells, the front ringed as the terminal lists it.
    let page = std::fs::read_to_string(&html).expect("the sweep's page");
    assert!(
        page.contains("<h2>Docs/s against time to searchable</h2>"),
        "{page}"
    );
    assert_eq!(
        page.matches("class=\"data cell front\"").count(),
        if faster { 2 } else { 1 },
        "{page}"
    );
    assert!(
        page.contains("refresh interval -1: ")
            && page.contains("never searchable within the bound"),
        "{page}"
    );
}

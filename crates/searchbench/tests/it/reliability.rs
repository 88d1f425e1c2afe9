//! What an adversarial pass found: secrets in URLs, a new store raced on by parallel runs,
//! invalid UTF-8 input, an index replaced without a word, and smaller edges.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use searchbench::store::{Filter, Kind, NewRun, Store};
use serde_json::{json, Value};

/// The shared node's URL, started off any async runtime.
fn node_url() -> &'static str {
    std::thread::spawn(common::node_url)
        .join()
        .expect("starting the shared node")
}

/// A port nothing listens on.
fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn run(args: &[&str]) -> Output {
    common::bin()
        .args(args)
        .output()
        .expect("running searchbench")
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn write_docs(path: &Path, n: usize) {
    let body: String = (0..n).map(|i| format!("{{\"n\":{i}}}\n")).collect();
    std::fs::write(path, body).unwrap();
}

const PASSWORD: &str = "Sup3rS3cretPW";

#[test]
fn credentials_in_a_url_are_used_but_never_printed_or_stored() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).display().to_string();
    let store = d("results.db");
    let docs = d("docs.ndjson");
    write_docs(Path::new(&docs), 20);
    let node = node_url()
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let good = format!("http://elastic:{PASSWORD}@{node}");
    let dead = format!("http://elastic:{PASSWORD}@127.0.0.1:{}", dead_port());
    let mut outputs = Vec::new();

    // A failed run (nothing listens) and a complete one (the node needs no auth: the header
    // is ignored).
    let ingest = |url: &str, extra: &[&str]| {
        let mut args = vec!["ingest", "--url", url, "--file", &docs, "--quiet"];
        args.extend(["--index", "reliability-creds", "--store", &store]);
        args.extend(extra);
        run(&args)
    };
    let dead_failures = d("dead-failures.ndjson");
    let failed = ingest(
        &dead,
        &[
            "--timeout",
            "2",
            "--max-retries",
            "0",
            "--failures",
            &dead_failures,
        ],
    );
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed));
    outputs.push(failed);
    let (json_out, failures) = (d("result.json"), d("failures.ndjson"));
    let complete = ingest(&good, &["--json", &json_out, "--failures", &failures]);
    assert_eq!(complete.status.code(), Some(0), "{}", text(&complete));
    outputs.push(complete);
    let info = run(&["target", "info", "--url", &good]);
    assert_eq!(info.status.code(), Some(0), "{}", text(&info));
    outputs.push(info);
    let info_json = run(&["target", "info", "--url", &good, "--json"]);
    outputs.push(info_json);
    outputs.push(run(&["target", "info", "--url", &dead, "--timeout", "2"]));
    // A URL that does not even parse must not echo its password either.
    outputs.push(run(&[
        "target",
        "info",
        "--url",
        &format!("htp://elastic:{PASSWORD}@x:bad"),
    ]));

    let runs = Store::open(&store)
        .unwrap()
        .list(&Filter::default())
        .unwrap();
    assert_eq!(runs.len(), 2);
    for r in &runs {
        outputs.push(run(&["results", "show", &r.id.0, "--store", &store]));
        outputs.push(run(&[
            "results", "show", &r.id.0, "--store", &store, "--json",
        ]));
    }
    outputs.push(run(&["results", "list", "--store", &store]));
    let ids: Vec<&str> = runs.iter().map(|r| r.id.0.as_str()).collect();
    let mut report = vec!["report", "--store", &store];
    report.extend(&ids);
    let (html, md, csv) = (d("r.html"), d("r.md"), d("r.csv"));
    report.extend(["--html", &html, "--markdown", &md, "--csv", &csv]);
    let rendered = run(&report);
    assert_eq!(rendered.status.code(), Some(0), "{}", text(&rendered));
    outputs.push(rendered);
    for r in &runs {
        outputs.push(run(&["report", "--store", &store, &r.id.0]));
    }

    for o in &outputs {
        assert!(!contains(&o.stdout, PASSWORD.as_bytes()), "{}", text(o));
        assert!(!contains(&o.stderr, PASSWORD.as_bytes()), "{}", text(o));
    }
    let written = files_under(dir.path());
    assert!(written.iter().any(|p| p.ends_with("r.html")));
    for path in written {
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !contains(&bytes, PASSWORD.as_bytes()),
            "{} holds the password",
            path.display()
        );
    }
    // The failed run says why, with the URL in its redacted form.
    let failed = runs
        .iter()
        .find(|r| r.error.is_some())
        .expect("the failed run");
    assert!(failed.config["urls"][0]
        .as_str()
        .unwrap()
        .contains("elastic:***@"));
}

fn import_shaped_result(dir: &Path) -> PathBuf {
    let path = dir.join("result.json");
    let result =
        json!({"docs_per_sec": 1.0, "counts": {"read": 1, "indexed": 1}, "config": {"clients": 1}});
    std::fs::write(&path, result.to_string()).unwrap();
    path
}

fn stored_runs(store: &Path) -> usize {
    let store = Store::open(store).unwrap();
    store.list(&Filter::default()).unwrap().len()
}

#[test]
fn a_new_store_opened_by_eight_threads_at_once_keeps_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let (path, barrier) = (path.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let store = Store::open(&path)?;
                store.save(
                    &NewRun::new(Kind::Ingest, format!("w{i}"), json!({})),
                    &json!({"docs_per_sec": 1.0}),
                )
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().expect("open and save");
    }
    assert_eq!(stored_runs(&path), 8);
}

#[test]
fn a_new_store_written_by_eight_processes_at_once_keeps_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let result = import_shaped_result(dir.path());
    let store = dir.path().join("new.db");
    let children: Vec<_> = (0..8)
        .map(|_| {
            common::bin()
                .args(["results", "import"])
                .arg(&result)
                .arg("--store")
                .arg(&store)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }
    assert_eq!(stored_runs(&store), 8);
}

#[test]
fn a_store_that_cannot_be_made_fails_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs.ndjson");
    write_docs(&docs, 5);
    // A store under a regular file cannot be created.
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, b"x").unwrap();
    let out = common::bin()
        .args([
            "ingest",
            "--url",
            node_url(),
            "--index",
            "reliability-unsaved",
            "--quiet",
        ])
        .arg("--file")
        .arg(&docs)
        .arg("--store")
        .arg(blocker.join("results.db"))
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("cannot be written") && all.contains("--no-store"),
        "{all}"
    );
    assert!(!all.contains("docs/s"), "it measured: {all}");
}

fn json_lines(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    let text = std::str::from_utf8(&bytes).expect("UTF-8");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

/// `ingest --url NODE --no-store --quiet` with `args`; returns the output.
fn ingest_node(args: &[&str]) -> Output {
    let mut all = vec!["ingest", "--url", node_url(), "--no-store", "--quiet"];
    all.extend(args);
    run(&all)
}

/// Runs `f` on a target on the shared node, on a runtime of its own.
fn on_node<T, F, Fut>(f: F) -> T
where
    T: Send + 'static,
    F: FnOnce(searchbench::cluster::Target) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<T, searchbench::cluster::TargetError>>,
{
    node_url();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime
            .block_on(f(common::target()))
            .expect("a call to the node")
    })
    .join()
    .unwrap()
}

fn count_of(index: &str) -> u64 {
    let index = index.to_string();
    on_node(|t| async move { searchbench::ingest::count(&t, &index).await })
}

#[test]
fn invalid_utf8_lines_are_bad_input_and_the_failure_file_stays_json() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("utf8.ndjson");
    let failures = dir.path().join("failures.ndjson");
    std::fs::write(
        &docs,
        b"{\"m\":\"ok\"}\n{\"m\":\"\xc0\xaf\"}\n{\"m\":\"\xff\"}\n{\"m\":\"caf\xc3\xa9\"}\n",
    )
    .unwrap();
    let out = ingest_node(&[
        "--index",
        "reliability-utf8",
        "--max-failures",
        "2",
        "--file",
        docs.to_str().unwrap(),
        "--failures",
        failures.to_str().unwrap(),
    ]);
    // Two documents in, two bad input lines out: it reconciles.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(count_of("reliability-utf8"), 2);
    let lines = json_lines(&failures);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (record, line) in lines.iter().zip([2, 3]) {
        assert_eq!(record["kind"], "bad_line");
        assert_eq!(record["line"], line);
        assert!(record["reason"].as_str().unwrap().contains("invalid UTF-8"));
        assert!(record["raw_base64"].is_string(), "{record}");
    }
}

/// Loads 10 documents into `index` (ours); returns the folder and a file of 4 more.
fn ten_docs_in(index: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.ndjson"), dir.path().join("b.ndjson"));
    write_docs(&a, 10);
    write_docs(&b, 4);
    let first = ingest_node(&["--index", index, "--file", a.to_str().unwrap()]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    (dir, b)
}

#[test]
fn a_second_ingest_into_our_index_says_it_replaces_it() {
    let index = "reliability-replace";
    let (_dir, b) = ten_docs_in(index);
    let second = ingest_node(&["--index", index, "--file", b.to_str().unwrap()]);
    let all = text(&second);
    assert_eq!(second.status.code(), Some(0), "{all}");
    assert!(
        all.contains("replaced index reliability-replace (created by searchbench at ")
            && all.contains(", 10 docs)"),
        "{all}"
    );
    assert_eq!(count_of(index), 4);
}

#[test]
fn append_loads_into_an_existing_index_and_reconciles_on_the_increase() {
    let index = "reliability-append";
    let (dir, b) = ten_docs_in(index);
    let json = dir.path().join("second.json");
    let second = ingest_node(&[
        "--index",
        index,
        "--file",
        b.to_str().unwrap(),
        "--append",
        "--json",
        json.to_str().unwrap(),
    ]);
    let all = text(&second);
    assert_eq!(second.status.code(), Some(0), "{all}");
    assert!(
        all.contains("appended to index reliability-append"),
        "{all}"
    );
    assert_eq!(count_of(index), 14);
    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(result["counts"]["index_count_before"], 10);
    assert_eq!(result["counts"]["index_count"], 14);
    assert_eq!(result["counts"]["reconciled"], true);
    assert_eq!(result["previous_index"], "appended");

    // An index we did not create: refused without --append, loaded into with it.
    on_node(|t| async move {
        t.send(reqwest::Method::PUT, "/reliability-append-other", None)
            .await
            .map(|_| ())
    });
    let refused = ingest_node(&[
        "--index",
        "reliability-append-other",
        "--file",
        b.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let into_foreign = ingest_node(&[
        "--index",
        "reliability-append-other",
        "--file",
        b.to_str().unwrap(),
        "--append",
    ]);
    assert_eq!(
        into_foreign.status.code(),
        Some(0),
        "{}",
        text(&into_foreign)
    );
    assert_eq!(count_of("reliability-append-other"), 4);
}

#[test]
fn a_clean_run_moves_the_previous_failure_file_aside_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (bad, good) = (
        dir.path().join("bad.ndjson"),
        dir.path().join("good.ndjson"),
    );
    std::fs::write(&bad, b"{\"n\":1}\nnot json\n").unwrap();
    write_docs(&good, 3);
    let failures = dir.path().join("failures.ndjson");
    let load = |file: &Path| {
        let (file, failures) = (file.to_str().unwrap(), failures.to_str().unwrap());
        ingest_node(&[
            "--index",
            "reliability-rotate",
            "--max-failures",
            "1",
            "--file",
            file,
            "--failures",
            failures,
        ])
    };
    let first = load(&bad);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    assert_eq!(json_lines(&failures).len(), 1);
    let second = load(&good);
    let all = text(&second);
    assert_eq!(second.status.code(), Some(0), "{all}");
    assert!(
        !failures.exists(),
        "a clean run leaves no failure file behind"
    );
    let aside = dir.path().join("failures.ndjson.previous");
    assert_eq!(json_lines(&aside).len(), 1);
    assert!(all.contains("failures: none"), "{all}");
    assert!(
        all.contains(&format!("moved to {}", aside.display())),
        "{all}"
    );
}

/// `n` documents, gzip-compressed, cut to `keep` of the compressed bytes.
fn truncated_gzip(path: &Path, n: usize, keep: f64) {
    use std::io::Write as _;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..n {
        // Varied text so that the compressed stream is long enough to cut in the middle.
        writeln!(
            gz,
            "{{\"n\":{i},\"s\":\"{:x}\"}}",
            (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        )
        .unwrap();
    }
    let bytes = gz.finish().unwrap();
    std::fs::write(path, &bytes[..(bytes.len() as f64 * keep) as usize]).unwrap();
}

#[test]
fn a_truncated_gzip_file_delivers_what_was_read_and_names_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.ndjson.gz");
    truncated_gzip(&file, 20_000, 0.5);
    let json = dir.path().join("result.json");
    let index = "reliability-truncated";
    let failures = dir.path().join("failures.ndjson");
    let out = ingest_node(&[
        "--index",
        index,
        "--file",
        file.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--failures",
        failures.to_str().unwrap(),
    ]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let error = result["error"].as_str().unwrap();
    assert!(
        error.contains("cut.ndjson.gz: line ") && error.contains("bytes of the compressed file"),
        "{error}"
    );
    let indexed = result["counts"]["indexed"].as_u64().unwrap();
    assert!(indexed > 1000, "the good documents are sent: {indexed}");
    assert_eq!(
        result["counts"]["read"], indexed,
        "nothing read was dropped"
    );
    assert_eq!(count_of(index), indexed);
}

#[test]
fn experiment_dates_on_a_foreign_index_suggests_only_what_it_accepts() {
    let _dates = common::dates_indices();
    for id in ["a", "b", "c", "d"] {
        let path = format!("/searchbench-dates-{id}");
        on_node(|t| async move { t.send(reqwest::Method::PUT, &path, None).await.map(|_| ()) });
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "experiment",
        "dates",
        "--url",
        node_url(),
        "--docs",
        "10",
        "--repeats",
        "1",
        "--failures-dir",
        dir.path().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr.contains("delete or rename that index"), "{stderr}");
    for flag in ["--index", "--replace", "--append"] {
        assert!(!stderr.contains(flag), "{stderr}");
    }
    for id in ["a", "b", "c", "d"] {
        let path = format!("/searchbench-dates-{id}");
        on_node(|t| async move {
            t.send(reqwest::Method::DELETE, &path, None)
                .await
                .map(|_| ())
        });
    }
}

#[test]
fn a_zero_timeout_is_bad_usage() {
    let out = run(&[
        "target",
        "info",
        "--url",
        "http://127.0.0.1:9",
        "--timeout",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn an_os_error_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let result = import_shaped_result(dir.path());
    let store = dir.path().join("s.db");
    let imported = common::bin()
        .args(["results", "import"])
        .arg(&result)
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    let id = common::succeeded(&imported).trim().to_string();
    // A path under a regular file can be neither created nor written.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").unwrap();
    let result_path = result.display().to_string();
    for args in [
        vec!["report", &id, "--html", "file/r.html", "--store", "s.db"],
        // A store is created by the commands that write one.
        vec!["results", "import", &result_path, "--store", "file/s.db"],
    ] {
        let out = common::bin()
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let os = stderr.find("(os error").expect("the OS error is said");
        assert!(
            !stderr[os + 1..].contains("(os error"),
            "said twice: {stderr}"
        );
        let reason = stderr[..os].rsplit(": ").next().unwrap().trim();
        assert_eq!(stderr.matches(reason).count(), 1, "said twice: {stderr}");
    }
}

#[test]
fn dates_parse_gives_what_a_date_field_keeps_beyond_292_million_years() {
    use std::io::Write as _;
    let mut child = common::bin()
        .args(["dates", "parse"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input =
        b"+292278994-08-17T07:12:55.808Z\n-999999999-01-01T00:00:00Z\n2023-01-01T00:00:00.5Z\n";
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        common::succeeded(&out),
        "9223372036854775 807000000\n-9223372036854776 192000000\n1672531200 500000000\n"
    );
}

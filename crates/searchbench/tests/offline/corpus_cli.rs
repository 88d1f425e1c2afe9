//! `searchbench generate` as a user runs it: output files, compression, truth file, and the
//! exit code 2 with a clear message for bad usage.

use crate::common;

use std::path::Path;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::bin()
        .arg("generate")
        .args(args)
        .output()
        .expect("run searchbench")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_usage_error(args: &[&str], needle: &str) {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    assert!(
        stderr(&o).contains(needle),
        "{args:?}: expected {needle:?} in {}",
        stderr(&o)
    );
    assert!(
        o.stdout.is_empty(),
        "{args:?}: nothing written on a usage error"
    );
}

#[test]
fn bad_arguments_exit_2_with_a_clear_message() {
    assert_usage_error(&["nope", "--docs", "5"], "unknown workload \"nope\"");
    assert_usage_error(&["logs", "--docs", "0"], "--docs must be at least 1");
    assert_usage_error(&["logs"], "--docs is required for the logs workload");
    assert_usage_error(
        &["logs", "--docs", "5", "--out", "/nonexistent-dir/x.ndjson"],
        "cannot create /nonexistent-dir/x.ndjson",
    );
    assert_usage_error(&["logs", "--docs", "5", "--format", "csv"], "--format csv");
    assert_usage_error(
        &["logs", "--docs", "5", "--window", "soon"],
        "duration \"soon\"",
    );
    assert_usage_error(
        &["logs", "--docs", "5", "--start", "yesterday"],
        "start time",
    );
    assert_usage_error(
        &["cluster-metrics", "--docs", "5", "--window", "1d"],
        "--window does not apply to the cluster-metrics workload",
    );
    assert_usage_error(
        &[
            "cluster-metrics",
            "--rows-per-epoch",
            "10",
            "--epochs",
            "2",
            "--docs",
            "21",
        ],
        "more than --rows-per-epoch",
    );
    assert_usage_error(
        &["transactions", "--docs", "5", "--truth", "/tmp/t"],
        "--truth",
    );
    // clap's own errors use the same exit code.
    assert_usage_error(&["logs", "--docs", "many"], "invalid value");
    // vectors: dimensions within the engines' bound, ids within u32, --dims for it alone.
    assert_usage_error(
        &["vectors", "--docs", "5", "--dims", "0"],
        "--dims 0 is out of 1..=4096",
    );
    assert_usage_error(
        &["vectors", "--docs", "5", "--dims", "4097"],
        "--dims 4097 is out of",
    );
    assert_usage_error(
        &["vectors", "--docs", "5", "--dims", "-3"],
        "unexpected argument",
    );
    assert_usage_error(
        &[
            "vectors",
            "--docs",
            "5",
            "--dims",
            "99999999999999999999999",
        ],
        "invalid value",
    );
    assert_usage_error(&["vectors", "--docs", "5000000000"], "is over 4294967295");
    assert_usage_error(
        &["logs", "--docs", "5", "--dims", "8"],
        "--dims does not apply to the logs workload",
    );
    assert_usage_error(
        &["vectors", "--docs", "5", "--format", "csv"],
        "NDJSON only",
    );
    assert_usage_error(
        &["vectors", "--docs", "5", "--vector-index", "ivf"],
        "is not one of hnsw, int8_hnsw, bbq_hnsw, none",
    );
    assert_usage_error(
        &["logs", "--docs", "5", "--vector-index", "none"],
        "--vector-index does not apply to the logs workload",
    );
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("read output")
}

#[test]
fn same_arguments_same_bytes_through_every_compression() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
    for (workload, extra) in [
        ("logs", vec!["--docs", "3000", "--window", "2h"]),
        (
            "cluster-metrics",
            vec!["--rows-per-epoch", "1000", "--epochs", "3"],
        ),
        ("transactions", vec!["--docs", "3000"]),
    ] {
        let mut outputs = Vec::new();
        for (name, compress) in [
            ("a", None),
            ("b", None),
            ("c.gz", Some("gzip")),
            ("d.zst", Some("zstd")),
        ] {
            let path = p(&format!("{workload}-{name}"));
            let mut args = vec![workload, "--seed", "5", "--out", &path];
            args.extend(&extra);
            if let Some(c) = compress {
                args.extend(["--compress", c]);
            }
            let o = run(&args);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
            let raw = read(Path::new(&path));
            let bytes = match compress {
                Some("gzip") => {
                    let mut s = Vec::new();
                    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&raw[..]), &mut s)
                        .expect("gunzip");
                    s
                }
                Some(_) => zstd::stream::decode_all(&raw[..]).expect("unzstd"),
                None => raw,
            };
            outputs.push(bytes);
        }
        assert!(outputs[0].len() > 100_000, "{workload}");
        for o in &outputs[1..] {
            assert!(o == &outputs[0], "{workload}: outputs differ");
        }
        let lines = outputs[0].iter().filter(|&&b| b == b'\n').count();
        let expected = if workload == "transactions" {
            3001
        } else {
            3000
        };
        assert_eq!(lines, expected, "{workload}");
    }
}

#[test]
fn stdout_output_and_truth_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let truth = dir.path().join("truth.ndjson");
    let truth_s = truth.to_string_lossy().into_owned();
    let o = run(&[
        "cluster-metrics",
        "--rows-per-epoch",
        "3000",
        "--epochs",
        "2",
        "--truth",
        &truth_s,
        "--format",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("epoch,node,task,cpu,mem,net"));
    let first: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    assert_eq!(first.len(), 6);
    assert_eq!(first[0], "1");
    assert_eq!(text.lines().count(), 6001);

    let truth_text = std::fs::read_to_string(&truth).expect("truth file");
    let mut t = truth_text.lines();
    let header: serde_json::Value =
        serde_json::from_str(t.next().unwrap_or_default()).expect("header");
    assert!(header["percentiles"]
        .as_str()
        .unwrap_or_default()
        .contains("linear interpolation"));
    let parts: Vec<serde_json::Value> = t.map(|l| serde_json::from_str(l).expect("part")).collect();
    assert_eq!(parts.len(), 60, "30 nodes × 2 epochs");
    let count: u64 = parts.iter().map(|p| p["count"].as_u64().unwrap_or(0)).sum();
    assert_eq!(count, 6000);
    assert!(parts
        .iter()
        .all(|p| p["cpu"]["p0"].as_f64() <= p["cpu"]["p50"].as_f64()));
}

#[test]
fn counts_take_si_suffixes_like_sizes_and_durations() {
    let out = crate::common::run(&["generate", "logs", "--docs", "2k"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout.iter().filter(|b| **b == b'\n').count(), 2000);
    for bad in ["2.5", "1.0005k", "ten"] {
        let out = crate::common::run(&["generate", "logs", "--docs", bad]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--docs") && err.contains(bad), "{bad}: {err}");
    }
}

#[test]
fn vectors_as_bigann_files_hold_the_ndjson_corpus_and_refuse_what_they_cannot_be() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("set");
    let o = run(&[
        "vectors",
        "--docs",
        "300",
        "--dims",
        "5",
        "--format",
        "bigann",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let base = read(&out.join("base.fbin"));
    assert_eq!(base.len(), 8 + 300 * 5 * 4);
    assert_eq!(base[..8], [44, 1, 0, 0, 5, 0, 0, 0]);
    assert_eq!(read(&out.join("queries.fbin")).len(), 8 + 100 * 5 * 4);
    let neighbors = read(&out.join("neighbors.bin"));
    assert_eq!(neighbors[..8], [100, 0, 0, 0, 100, 0, 0, 0]);
    assert_eq!(neighbors.len(), 8 + 2 * 100 * 100 * 4);
    // The same vectors as the NDJSON corpus, in id order.
    let ndjson = run(&["vectors", "--docs", "300", "--dims", "5"]);
    for (i, line) in String::from_utf8_lossy(&ndjson.stdout).lines().enumerate() {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(doc["id"], i);
        for (c, x) in doc["v"].as_array().unwrap().iter().enumerate() {
            let at = 8 + (i * 5 + c) * 4;
            let stored = f32::from_le_bytes(base[at..at + 4].try_into().unwrap());
            assert_eq!(stored, x.as_f64().unwrap() as f32, "doc {i} component {c}");
        }
    }
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let file_arg = file.to_str().unwrap();
    for (args, needle) in [
        (vec!["--docs", "5"], "give --out a folder"),
        (
            vec!["--docs", "5", "--out", file_arg],
            "a file; --format bigann writes into a folder",
        ),
        (
            vec!["--docs", "5", "--out", "x", "--compress", "gzip"],
            "no --compress",
        ),
        (vec!["--docs", "20000000", "--out", "x"], "generate fewer"),
    ] {
        let mut all = vec!["vectors", "--format", "bigann"];
        all.extend(args);
        assert_usage_error(&all, needle);
    }
    assert_usage_error(
        &["logs", "--docs", "5", "--format", "bigann", "--out", "x"],
        "for the vectors workload",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

/// `generate --mapping`: a corpus synthesized from a mapping and a sample, the same bytes for
/// the same seed, each refusal naming what is wrong.
#[test]
fn generate_from_a_mapping_and_a_sample() {
    let dir = tempfile::tempdir().unwrap();
    let mapping = dir.path().join("index.json");
    std::fs::write(
        &mapping,
        r#"{"mappings": {"properties": {"status": {"type": "integer"}, "user": {"type": "keyword"},
            "t": {"type": "date", "format": "epoch_millis"}}}}"#,
    )
    .unwrap();
    let sample = dir.path().join("sample.ndjson");
    let lines: String = (0..200)
        .map(|i| {
            format!(
                "{{\"status\": {}, \"user.name\": \"u{i}\", \"t\": {}}}\n",
                [200, 404][i % 2],
                1000 + i
            )
        })
        .collect();
    std::fs::write(&sample, lines).unwrap();
    let out = |name: &str| dir.path().join(name).display().to_string();
    let (m, s) = (mapping.display().to_string(), sample.display().to_string());
    let make = |to: &str, seed: &str| {
        common::run(&[
            "generate",
            "--mapping",
            &m,
            "--sample",
            &s,
            "--docs",
            "500",
            "--seed",
            seed,
            "--out",
            to,
        ])
    };
    let first = make(&out("a.ndjson"), "3");
    assert!(first.status.success(), "{}", common::streams(&first));
    assert!(make(&out("b.ndjson"), "3").status.success());
    assert!(make(&out("c.ndjson"), "4").status.success());
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert_eq!(read("a.ndjson"), read("b.ndjson"));
    assert_ne!(read("a.ndjson"), read("c.ndjson"));
    let docs: Vec<serde_json::Value> = read("a.ndjson")
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(docs.len(), 500);
    assert!(docs
        .iter()
        .all(|d| d["status"] == 200 || d["status"] == 404));
    // The sample's instants follow their order: 500 documents go on where its 200 stopped.
    let t: Vec<i64> = docs.iter().map(|d| d["t"].as_i64().unwrap_or(0)).collect();
    assert!(t.iter().all(|t| (990..1520).contains(t)), "{t:?}");
    assert!(t[499] > 1400 && t[0] < 1010, "{t:?}");

    // Refusals, each with exit 2 and the reason.
    std::fs::write(dir.path().join("template.json"), "{ {% if x %} }").unwrap();
    std::fs::write(dir.path().join("bad.ndjson"), "{\"status\": 1}\n[1, 2]\n").unwrap();
    std::fs::write(
        dir.path().join("shape.json"),
        r#"{"properties": {"s": {"type": "geo_shape"}}}"#,
    )
    .unwrap();
    for (args, wanted) in [
        (
            vec!["generate", "--mapping", &m, "--out", "-"],
            "--docs".to_string(),
        ),
        (
            vec![
                "generate",
                "--mapping",
                &out("template.json"),
                "--docs",
                "1",
            ],
            out("template.json"),
        ),
        (
            vec!["generate", "--mapping", &out("missing.json"), "--docs", "1"],
            out("missing.json"),
        ),
        (
            vec!["generate", "--mapping", &out("shape.json"), "--docs", "1"],
            "field s: type geo_shape".into(),
        ),
        (
            vec![
                "generate",
                "--mapping",
                &m,
                "--sample",
                &out("bad.ndjson"),
                "--docs",
                "1",
            ],
            format!("{}:2: not a JSON object", out("bad.ndjson")),
        ),
        (
            vec![
                "generate",
                "--mapping",
                &m,
                "--docs",
                "1",
                "--format",
                "csv",
            ],
            "no --format csv".into(),
        ),
        (
            vec!["generate", "logs", "--mapping", &m, "--docs", "1"],
            "cannot be used with".into(),
        ),
        (
            vec!["generate", "logs", "--sample", &s, "--docs", "1"],
            "--mapping".into(),
        ),
    ] {
        let o = common::run(&args);
        let streams = common::streams(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {streams}");
        assert!(
            streams.contains(&wanted),
            "{args:?}: wanted {wanted:?}: {streams}"
        );
    }
}

/// `generate --mapping --fidelity`: each field of the synthesized corpus against the real one,
/// in a JSON file and a table; refused without something real to compare with.
#[test]
fn the_fidelity_report_compares_each_field_with_the_real_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let mapping = dir.path().join("index.json");
    std::fs::write(
        &mapping,
        r#"{"properties": {"n": {"type": "long"}, "k": {"type": "keyword"}}}"#,
    )
    .unwrap();
    let real = dir.path().join("real.ndjson");
    let lines: String = (0..2000)
        .map(|i| format!("{{\"n\": {i}, \"k\": \"k{}\"}}\n", i % 50))
        .collect();
    std::fs::write(&real, &lines).unwrap();
    let sample = dir.path().join("sample.ndjson");
    std::fs::write(
        &sample,
        lines
            .lines()
            .take(500)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let report = dir.path().join("fidelity.json");
    let path = |p: &std::path::Path| p.display().to_string();
    let out = common::run(&[
        "generate",
        "--mapping",
        &path(&mapping),
        "--sample",
        &path(&sample),
        "--docs",
        "2000",
        "--out",
        &path(&dir.path().join("syn.ndjson")),
        "--fidelity",
        &path(&report),
        "--fidelity-against",
        &path(&real),
    ]);
    let streams = common::streams(&out);
    assert!(out.status.success(), "{streams}");
    assert!(
        streams.contains("fidelity against") && streams.contains("(2000 docs a side)"),
        "{streams}"
    );
    let rows: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let row = |f: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["field"] == f)
            .cloned()
            .unwrap()
    };
    // k: the 50 terms of the sample are all there is; n: the sample covers a quarter of the
    // range, so the synthesized corpus cannot know the rest, and says so.
    assert_eq!(row("k")["real"]["cardinality"], 50);
    assert_eq!(row("k")["synthesized"]["cardinality"], 50);
    assert_eq!(row("k")["within"], true);
    assert_eq!(row("n")["within"], false);
    assert!(row("n")["quantile_error"].as_f64().unwrap() > 0.5, "{rows}");
    // Nothing real to compare with.
    let o = common::run(&[
        "generate",
        "--mapping",
        &path(&mapping),
        "--docs",
        "10",
        "--fidelity",
        &path(&report),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", common::streams(&o));
    assert!(common::streams(&o).contains("--sample or --fidelity-against"));
}

/// `generate --mapping --docs N` for an N the disk cannot hold is refused before the file is
/// made (as `run --synthesize` refuses it), not written until the disk is full.
#[test]
fn a_synthesized_corpus_the_disk_cannot_hold_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let mapping = dir.path().join("index.json");
    std::fs::write(
        &mapping,
        r#"{"mappings": {"properties": {"user": {"type": "keyword"}}}}"#,
    )
    .unwrap();
    let big = dir.path().join("big.ndjson");
    let mut child = common::bin()
        .args(["generate", "--mapping"])
        .arg(&mapping)
        .args(["--docs", "9000000000000000000", "--out"])
        .arg(&big)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let began = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if began.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still writing after 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("GB free") && err.contains("big.ndjson"),
        "{err}"
    );
    assert!(!big.exists());
}

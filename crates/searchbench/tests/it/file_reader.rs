//! The file reader (`ingest --file`): resident memory bounded whatever the file's size, and a
//! file cut short under the reader (log rotation by copytruncate) ends the load cleanly, with
//! every document read accounted for and the run stored as failed with where it stopped.

use std::io::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{self, bin, node_url};

/// `n` NDJSON lines of exactly `size` bytes each, newline included.
fn write_lines(path: &Path, n: usize, size: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut line = Vec::with_capacity(size);
    for i in 0..n {
        line.clear();
        write!(line, "{{\"n\":{i},\"pad\":\"").unwrap();
        line.resize(size - 3, b'x');
        line.extend_from_slice(b"\"}\n");
        out.write_all(&line).unwrap();
    }
    out.flush().unwrap();
}

/// The index's document count, 0 while it does not exist yet.
fn count_or_zero(index: &str) -> u64 {
    let index = index.to_string();
    common::runtime()
        .block_on(searchbench::ingest::count(&common::target(), &index))
        .unwrap_or(0)
}

#[test]
fn an_input_file_cut_short_mid_load_ends_the_run_failed_with_every_document_read_accounted_for() {
    const DOCS: usize = 40_000;
    const SIZE: usize = 500;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rotated.ndjson");
    write_lines(&file, DOCS, SIZE);
    let json = dir.path().join("result.json");
    let failures = dir.path().join("failures.ndjson");
    let store = dir.path().join("store.db");
    let index = "searchbench-test-rotated";
    // Paced (10 s for the whole file) so that the cut falls mid-load.
    let mut child = bin()
        .env("SEARCHBENCH_STORE", &store)
        .args(["ingest", "--url", node_url(), "--index", index, "--replace"])
        .arg("--file")
        .arg(&file)
        .args([
            "--rate",
            "4000",
            "--bulk-size",
            "200",
            "--warmup",
            "0",
            "--quiet",
        ])
        .arg("--json")
        .arg(&json)
        .arg("--failures")
        .arg(&failures)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let started = Instant::now();
    while count_or_zero(index) == 0 {
        if started.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("nothing indexed while it ran: {}", stderr.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // Rotation by copytruncate: the file is emptied, and its writer goes on at its start.
    let rotated = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    rotated.set_len(0).unwrap();
    (&rotated)
        .write_all(b"{\"after\":\"the rotation\"}\n")
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("the load went on past the cut: {}", stderr.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let all = stderr.join().unwrap();
    assert_eq!(status.code(), Some(1), "{all}");

    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let c = &result["counts"];
    let read = c["read"].as_u64().unwrap();
    assert!(read > 0 && read < DOCS as u64, "cut mid-load: {c}");
    assert_eq!(
        c["indexed"], read,
        "every document read is acknowledged: {c}"
    );
    assert_eq!(c["failed"], 0, "{c}");
    assert_eq!(count_or_zero(index), read);
    // Reading stopped at the start of the first line not read: nothing lost, none twice.
    let error = result["error"].as_str().unwrap();
    let expected = format!(
        "rotated.ndjson: line {}: input file truncated at byte {} (it now holds 25 bytes; it \
         held {} when the load began)",
        read + 1,
        read * SIZE as u64,
        DOCS * SIZE
    );
    assert!(error.contains(&expected), "{error}\nexpected: {expected}");
    assert!(all.contains("input file truncated at byte"), "{all}");
    assert!(
        std::fs::read(&failures).unwrap_or_default().is_empty(),
        "no document failed"
    );

    let list = bin()
        .env("SEARCHBENCH_STORE", &store)
        .args(["results", "list", "--json"])
        .output()
        .unwrap();
    let runs: Value = serde_json::from_slice(&list.stdout).expect("JSON");
    assert_eq!(runs[0]["state"], "failed", "{runs}");
}

#[test]
fn a_file_five_times_the_memory_bound_is_read_in_bounded_memory() {
    const BOUND_MIB: u64 = 64;
    const DOCS: usize = 320_000; // of 1 KB: 320 MB, five times the bound
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("large.ndjson");
    write_lines(&file, DOCS, 1000);
    let url = crate::rate::sink(None);
    let json = dir.path().join("result.json");
    let mut cmd = bin();
    cmd.args([
        "ingest",
        "--url",
        &url,
        "--index",
        "large",
        "--no-store",
        "--quiet",
    ])
    .arg("--file")
    .arg(&file)
    .arg("--json")
    .arg(&json);
    let (status, stderr, peak_kib) =
        crate::ingest_lies::run_measured(cmd, None, Duration::from_secs(120));
    assert_eq!(status.code(), Some(0), "{stderr}");
    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(
        result["counts"]["indexed"], DOCS as u64,
        "{}",
        result["counts"]
    );
    assert!(
        peak_kib < BOUND_MIB << 10,
        "peak RSS {} MiB reading a file of {} MB",
        peak_kib >> 10,
        DOCS / 1000
    );
    eprintln!("320 MB file: peak RSS {} MiB", peak_kib >> 10);
}

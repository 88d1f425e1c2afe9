//! One run split over several driver processes (`--part I/N --group ID`), each taking a
//! disjoint share of the documents (a generator's, or the user's file's) and of the clients,
//! against the shared node: together they load every document exactly once (a generator's
//! under the ids one process would give them), each bad line reported by one part.

use serde_json::Value;

use crate::common::{self, node_url};

fn count(index: &str) -> u64 {
    let t = common::target();
    common::runtime().block_on(async {
        let _ = t
            .send(reqwest::Method::POST, &format!("/{index}/_refresh"), None)
            .await;
        t.get_json::<Value>(&format!("/{index}/_count"))
            .await
            .ok()
            .and_then(|c| c["count"].as_u64())
            .unwrap_or(0)
    })
}

fn has_doc(index: &str, id: u64) -> bool {
    let t = common::target();
    common::runtime().block_on(async {
        t.get_json::<Value>(&format!("/{index}/_doc/{id}"))
            .await
            .is_ok_and(|d| d["found"] == true)
    })
}

#[test]
fn three_parts_load_every_document_once_under_one_runs_ids() {
    let index = "searchbench-test-parts";
    let _heavy = common::one_track_at_a_time();
    common::fresh_index(index, None);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let docs = 30_000u64;
    // Started one by one, loading together from --start-at, racing to make the index.
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 4;
    let date = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{at}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    let start_at = String::from_utf8(date.stdout).unwrap().trim().to_string();
    let children: Vec<_> = (1..=3)
        .map(|i| {
            common::bin()
                .args([
                    "ingest",
                    "logs",
                    "--docs",
                    &docs.to_string(),
                    "--index",
                    index,
                ])
                .args(["--start-at", &start_at])
                .args(["--url", node_url(), "--clients", "3", "--bulk-size", "500"])
                .args(["--part", &format!("{i}/3"), "--group", "g-test-1"])
                .arg("--store")
                .arg(&store)
                .arg("--export-json")
                .arg(dir.path().join(format!("part-{i}.json")))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut read = 0;
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "part {}: {err}", i + 1);
        let (first, last) = [(0, 10_000), (10_000, 20_000), (20_000, 30_000)][i];
        assert!(
            err.contains(&format!(
                "part {}/3 of group g-test-1: documents {first}..{last} of {docs}, 1 client(s)",
                i + 1
            )),
            "{err}"
        );
        let r: Value = serde_json::from_slice(
            &std::fs::read(dir.path().join(format!("part-{}.json", i + 1))).unwrap(),
        )
        .unwrap();
        assert_eq!(
            r["config"]["part"],
            format!("{}/3", i + 1),
            "{}",
            r["config"]
        );
        assert_eq!(r["config"]["group"], "g-test-1");
        assert!(err.contains("for --start-at"), "{err}");
        assert!(
            r["started_unix"].as_u64().unwrap() >= at,
            "{}",
            r["started_unix"]
        );
        assert_eq!(r["counts"]["indexed"], 10_000);
        assert_eq!(r["counts"]["reconciled"], true);
        read += r["counts"]["read"].as_u64().unwrap();
    }
    assert_eq!(read, docs);
    // Every document once, under the ids one process gives: 0 .. docs-1.
    assert_eq!(count(index), docs);
    for id in [0, 9_999, 10_000, 19_999, 20_000, docs - 1] {
        assert!(has_doc(index, id), "no document {id}");
    }
    assert!(!has_doc(index, docs));
    common::fresh_index(index, None);
}

#[test]
fn two_parts_split_a_compressed_file_each_line_sent_by_one() {
    let index = "searchbench-test-parts-file";
    let _heavy = common::one_track_at_a_time();
    common::fresh_index(index, None);
    let dir = tempfile::tempdir().unwrap();
    // 5,000 lines: two that are not JSON, one blank; the rest documents.
    let mut text = String::new();
    for i in 0..5_000 {
        match i {
            100 | 4_000 => text.push_str("not json\n"),
            2_500 => text.push('\n'),
            _ => text.push_str(&format!("{{\"n\": {i}}}\n")),
        }
    }
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    std::io::Write::write_all(&mut e, text.as_bytes()).unwrap();
    let file = dir.path().join("docs.json.bz2");
    std::fs::write(&file, e.finish().unwrap()).unwrap();
    let (mut read, mut indexed, mut failed) = (0, 0, 0);
    for i in 1..=2 {
        let json = dir.path().join(format!("part-{i}.json"));
        let out = common::bin()
            .args(["ingest", "--file", file.to_str().unwrap(), "--index", index])
            .args(["--url", node_url(), "--clients", "2", "--max-failures", "5"])
            .args([
                "--part",
                &format!("{i}/2"),
                "--group",
                "g-test-file",
                "--no-store",
            ])
            .arg("--export-json")
            .arg(&json)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "part {i}: {err}");
        // 4,999 items (documents and bad lines), the blank line not one of them.
        let share = ["documents 0..2499 of 4999", "documents 2499..4999 of 4999"][i - 1];
        assert!(err.contains(share), "{err}");
        let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        read += r["counts"]["read"].as_u64().unwrap();
        indexed += r["counts"]["indexed"].as_u64().unwrap();
        failed += r["counts"]["bad_lines"].as_u64().unwrap();
        // Each part's bad line is in its own failure file, with its line in the file.
        let failures = std::fs::read_to_string(
            dir.path()
                .join(format!("{index}-part{i}of2-failures.ndjson")),
        )
        .unwrap();
        let line = [101, 4_001][i - 1];
        assert!(failures.contains(&format!("\"line\":{line}")), "{failures}");
    }
    assert_eq!((read, indexed, failed), (4_999, 4_997, 2));
    assert_eq!(count(index), 4_997);
    common::fresh_index(index, None);
}

#[test]
fn a_part_that_cannot_be_split_is_refused_before_it_starts() {
    let url = common::dead_url();
    for (args, says) in [
        (
            vec!["ingest", "logs", "--docs", "100", "--part", "2/3"],
            "--group",
        ),
        (
            vec![
                "ingest",
                "logs",
                "--docs",
                "100",
                "--part",
                "1/3",
                "--group",
                "g",
                "--clients",
                "2",
            ],
            "gives this part no client",
        ),
        (
            vec![
                "ingest",
                "logs",
                "--docs",
                "100",
                "--part",
                "1/2",
                "--group",
                "g",
                "--replace",
            ],
            "never deletes",
        ),
        (
            vec![
                "ingest", "logs", "--docs", "100", "--part", "4/3", "--group", "g",
            ],
            "write I/N",
        ),
        (
            vec![
                "ingest", "logs", "--docs", "100", "--part", "1/2", "--group", "a b",
            ],
            "a group is 1 to 64",
        ),
    ] {
        let mut all = args.clone();
        all.extend(["--url", &url]);
        let out = common::run(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

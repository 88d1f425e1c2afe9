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
        // The index's count is every part's: no part's time to searchable is read from it.
        assert!(r.get("freshness").is_none(), "{}", r["freshness"]);
        assert_eq!(
            r["freshness_not_measured"],
            "time to searchable not measured: the other parts write into the same index"
        );
        assert!(err.contains("for --start-at"), "{err}");
        assert!(
            r["started_unix"].as_u64().unwrap() >= at,
            "{}",
            r["started_unix"]
        );
        assert_eq!(r["counts"]["indexed"], 10_000);
        assert_eq!(r["counts"]["reconciled"], true);
        // What a part reconciled is its own counts (the index holds the others' too).
        let said = format!("{}{err}", String::from_utf8_lossy(&out.stdout));
        assert!(
            said.contains(&format!(
                "part {}/3: its own read = indexed + failed adds up",
                i + 1
            )) && !said.contains("- reconciled"),
            "{said}"
        );
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
    // Every part of the group reaches the same decision (part 1 alone refused before).
    for part in ["1/3", "2/3", "3/3"] {
        let out = common::run(&[
            "ingest",
            "logs",
            "--docs",
            "100",
            "--part",
            part,
            "--group",
            "g",
            "--clients",
            "2",
            "--url",
            &url,
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{part}: {err}");
        assert!(
            err.contains("--clients 2 is fewer than the 3 parts"),
            "{part}: {err}"
        );
    }
}

/// Waits for a child we spawned, killing it and failing the test after `limit` with what it
/// had said.
fn wait_within(child: std::process::Child, limit: std::time::Duration) -> std::process::Output {
    wait_all(vec![child], limit).remove(0)
}

/// Waits for every child, killing them all and failing the test after `limit` with what each
/// had said (a part left waiting at a join point would otherwise outlive the test).
fn wait_all(
    children: Vec<std::process::Child>,
    limit: std::time::Duration,
) -> Vec<std::process::Output> {
    let started = std::time::Instant::now();
    let mut children = children;
    loop {
        let done = children
            .iter_mut()
            .all(|c| c.try_wait().ok().flatten().is_some());
        if done {
            break;
        }
        if started.elapsed() > limit {
            for c in &mut children {
                let _ = c.kill();
            }
            let said: Vec<String> = children
                .into_iter()
                .map(|c| common::streams(&c.wait_with_output().unwrap()))
                .collect();
            panic!(
                "still running after {} s:\n{}",
                limit.as_secs(),
                said.join("\n---\n")
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

/// `ingest logs --docs DOCS --part I/N --group GROUP` into `index`, storing in `store`, run
/// inside `host` (a network namespace of its own) when there is one.
fn part_from(
    host: Option<&common::netns::Netns>,
    i: u32,
    of: u32,
    docs: u64,
    index: &str,
    group: &str,
    store: &std::path::Path,
) -> std::process::Child {
    let (mut cmd, url) = match host {
        Some(ns) => {
            let mut c = ns.command(std::path::Path::new(env!("CARGO_BIN_EXE_searchbench")));
            c.current_dir(common::scratch_folder());
            (c, ns.url.as_str())
        }
        None => (common::bin(), node_url()),
    };
    cmd.args([
        "ingest",
        "logs",
        "--docs",
        &docs.to_string(),
        "--index",
        index,
    ])
    .args(["--url", url, "--clients", &of.to_string(), "--warmup", "0"])
    .args(["--part", &format!("{i}/{of}"), "--group", group])
    .arg("--store")
    .arg(store)
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap()
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", common::streams(out)))
}

#[test]
fn three_parts_stored_on_three_hosts_merge_into_one_run_of_every_document() {
    let index = "searchbench-test-parts-merge";
    let _heavy = common::one_track_at_a_time();
    common::fresh_index(index, None);
    let dir = tempfile::tempdir().unwrap();
    // 150 bulks of the default 1,000 documents: the merged p99 needs 100 requests
    // (`P99_MIN_REQUESTS`), and each part streams some seconds, so the merged timeline lines
    // up seconds of three parts. What is asserted holds at any size past that; more only costs
    // the shared node's CPU (600,000 took ~40 s alone).
    let docs = 150_000u64;
    // Each part stores in its own store, as each driver host does, and (when the suite may
    // make them) runs in a network namespace of its own, reaching the node over a veth pair.
    let stores: Vec<_> = (1..=3)
        .map(|i| dir.path().join(format!("host{i}.db")))
        .collect();
    let node = node_url()
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let hosts: Vec<_> = (1..=3u8)
        .map_while(|k| common::netns::Netns::make(k, node))
        .collect();
    // Each must reach the node from inside (a host whose firewall drops the veth's traffic
    // gets plain processes instead).
    let reaches = |ns: &common::netns::Netns| {
        let child = ns
            .command(std::path::Path::new(env!("CARGO_BIN_EXE_searchbench")))
            .args(["target", "--url", &ns.url])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        let Ok(mut child) = child else {
            return false;
        };
        let started = std::time::Instant::now();
        while started.elapsed() < std::time::Duration::from_secs(30) {
            if let Ok(Some(status)) = child.try_wait() {
                return status.success();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
        false
    };
    let hosts: Vec<_> = if hosts.len() == 3 && hosts.iter().all(reaches) {
        hosts
    } else {
        Vec::new()
    };
    eprintln!(
        "parts in {}",
        if hosts.is_empty() {
            "plain processes"
        } else {
            "network namespaces of their own"
        }
    );
    let children: Vec<_> = (1..=3)
        .map(|i| {
            let host = hosts.get(i as usize - 1);
            part_from(host, i, 3, docs, index, "g-merge", &stores[i as usize - 1])
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = wait_within(child, std::time::Duration::from_secs(300));
        assert_eq!(
            out.status.code(),
            Some(0),
            "part {}: {}",
            i + 1,
            common::streams(&out)
        );
    }
    assert_eq!(count(index), docs);
    // Collected in one store, then merged.
    let here = dir.path().join("here.db");
    for s in &stores {
        let out = common::bin()
            .args(["results", "import"])
            .arg(s)
            .arg("--store")
            .arg(&here)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    }
    // A second import of the same store copies nothing.
    let again = common::bin()
        .args(["results", "import"])
        .arg(&stores[0])
        .arg("--store")
        .arg(&here)
        .output()
        .unwrap();
    assert!(
        common::streams(&again).contains("copied 0 run(s)"),
        "{}",
        common::streams(&again)
    );
    let out = common::bin()
        .args(["results", "merge", "g-merge", "--json", "--store"])
        .arg(&here)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    let merged = json_of(&out);
    let r = &merged["result"];
    assert_eq!(merged["state"], "complete", "{}", r["parts"]);
    assert_eq!(r["counts"]["indexed"], docs);
    assert_eq!(r["counts"]["index_count"], docs);
    assert_eq!(r["counts"]["reconciled"], true);
    assert_eq!(r["parts"]["of"], 3);
    assert_eq!(r["parts"]["each"].as_array().unwrap().len(), 3);
    assert_eq!(merged["config"]["clients"], 3);
    // The merged percentiles are those of every request of the three parts: their stored
    // histograms added.
    let store = searchbench::store::Store::open_read(&here).unwrap();
    let mut union: Option<hdrhistogram::Histogram<u64>> = None;
    let mut attempts = 0;
    for p in r["parts"]["each"].as_array().unwrap() {
        let id = searchbench::store::RunId(p["run"].as_str().unwrap().to_string());
        let h = store
            .histograms(&id)
            .unwrap()
            .into_iter()
            .find(|h| h.name == "service")
            .unwrap()
            .decode()
            .unwrap();
        attempts += h.len();
        match &mut union {
            Some(u) => u.add(&h).unwrap(),
            None => union = Some(h),
        }
    }
    let union = union.unwrap();
    assert_eq!(r["service"]["count"], attempts);
    for (key, q) in [("p50_ms", 0.5), ("p90_ms", 0.9), ("p99_ms", 0.99)] {
        let want = union.value_at_quantile(q) as f64 / 1000.0;
        assert_eq!(r["service"][key].as_f64(), Some(want), "{key}");
    }
    // The timeline holds every document, by wall-clock second.
    let timeline_docs: u64 = r["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["docs"].as_u64().unwrap())
        .sum();
    assert_eq!(timeline_docs, docs);
    // What each part's load phase measured travelled with its import, and the merge added
    // them: the merged run's phase holds every document, every second, every request,
    // the same figures its result gives.
    let id = merged["id"].as_str().unwrap();
    for p in r["parts"]["each"].as_array().unwrap() {
        let part = searchbench::store::RunId(p["run"].as_str().unwrap().to_string());
        let phases = store.phases(&part).unwrap();
        assert_eq!(phases.len(), 1, "part {part}: {phases:?}");
    }
    let phases = store
        .phases(&searchbench::store::RunId(id.to_string()))
        .unwrap();
    assert_eq!(phases.len(), 1, "{phases:?}");
    let load = &phases[0].measurements;
    assert_eq!(load.counts["indexed"], docs, "{:?}", phases[0].phase);
    let per_second: u64 = load.seconds.values().filter_map(|s| s.get("docs")).sum();
    assert_eq!(per_second, docs);
    assert_eq!(load.histograms["service"].1.len(), attempts);
    // `results show` names the parts of the merged run, and the group of a part.
    let part_id = r["parts"]["each"][0]["run"].as_str().unwrap();
    for (run, says) in [
        (id, "3 parts of group g-merge: 1/3 ".to_string()),
        (part_id, "part 1/3 of group g-merge".to_string()),
    ] {
        let out = common::bin()
            .args(["results", "show", run, "--store"])
            .arg(&here)
            .output()
            .unwrap();
        let text = common::streams(&out);
        assert!(text.contains(&says), "{text}");
    }
    // The views see the group as one run: `compare` by the group's name.
    let out = common::bin()
        .args(["compare", "g-merge", "group=g-merge", "--json", "--store"])
        .arg(&here)
        .output()
        .unwrap();
    let text = common::streams(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(id), "{text}");
    common::fresh_index(index, None);
}

#[test]
fn a_part_killed_halfway_leaves_its_group_incomplete_with_what_was_loaded() {
    let index = "searchbench-test-parts-killed";
    let _heavy = common::one_track_at_a_time();
    common::fresh_index(index, None);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let docs = 300_000u64;
    let mut children: Vec<_> = (1..=3)
        .map(|i| part_from(None, i, 3, docs, index, "g-killed", &store))
        .collect();
    // Part 2 is killed (SIGKILL: no result, no goodbye) once the parts have streamed a tenth of
    // the documents between them: a fixed wait killed it before its first bulk on a loaded
    // machine (it streamed 0) or after its last on an idle one.
    let began = std::time::Instant::now();
    while count(index) < docs / 10 {
        assert!(
            began.elapsed() < std::time::Duration::from_secs(120),
            "the parts loaded under a tenth of the documents in 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    children[1].kill().unwrap();
    let killed = children.remove(1);
    let _ = wait_within(killed, std::time::Duration::from_secs(30));
    for out in wait_all(children, std::time::Duration::from_secs(300)) {
        assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    }
    let in_index = count(index);
    assert!(in_index < docs && in_index > 2 * docs / 3, "{in_index}");
    let out = common::bin()
        .args([
            "results",
            "merge",
            "g-killed",
            "--json",
            "--url",
            node_url(),
            "--store",
        ])
        .arg(&store)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", common::streams(&out));
    let merged = json_of(&out);
    let r = &merged["result"];
    assert_eq!(merged["state"], "incomplete");
    let each = r["parts"]["each"].as_array().unwrap();
    assert_eq!(each[1]["state"], "incomplete", "{each:?}");
    assert_eq!(each[0]["indexed"], docs / 3);
    assert_eq!(each[2]["indexed"], docs / 3);
    // The killed part counts what it streamed before it died; the index, what it holds.
    let streamed = each[1]["indexed"].as_u64().unwrap();
    assert!(streamed > 0 && streamed < docs / 3, "{streamed}");
    assert_eq!(r["counts"]["indexed"], 2 * docs / 3 + streamed);
    assert!(2 * docs / 3 + streamed <= in_index);
    assert_eq!(r["counts"]["index_count"], in_index);
    assert_eq!(r["counts"]["reconciled"], false);
    assert!(
        merged["error"].as_str().unwrap().contains("part 2/3"),
        "{}",
        merged["error"]
    );
    // A view refuses the partial group unless told.
    let out = common::bin()
        .args(["compare", "group=g-killed", "group=g-killed", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    let text = common::streams(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("incomplete"), "{text}");
    common::fresh_index(index, None);
}

#[test]
fn a_whole_run_in_two_parts_loads_then_queries_the_whole_index_and_merges() {
    let index = "searchbench-test-parts-run";
    let _heavy = common::one_track_at_a_time();
    common::fresh_index(index, None);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let docs = 20_000u64;
    let children: Vec<_> = (1..=2u64)
        .map(|i| {
            // Part 2 starts 2 s later: part 1's query phase waits for part 2's documents.
            std::thread::sleep(std::time::Duration::from_secs(2 * (i - 1)));
            common::bin()
                .args(["run", "logs", "--docs", &docs.to_string(), "--index", index])
                .args(["--url", node_url(), "--clients", "2", "--no-telemetry"])
                .args(["--part", &format!("{i}/2"), "--group", "g-run"])
                .arg("--store")
                .arg(&store)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for out in wait_all(children, std::time::Duration::from_secs(300)) {
        assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    }
    let out = common::bin()
        .args(["results", "merge", "g-run", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    let merged = json_of(&out);
    assert_eq!(merged["kind"], "run");
    assert_eq!(merged["state"], "complete", "{}", merged["error"]);
    let r = &merged["result"];
    assert_eq!(r["counts"]["indexed"], docs);
    assert_eq!(r["counts"]["reconciled"], true);
    // Every slice of every pass once over the two parts, against the whole index's truth.
    let q: searchbench::query::QueryResult =
        serde_json::from_value(r["query"].clone()).expect("the merged query phase");
    assert_eq!(q.failures_total, 0, "{:?}", q.failures);
    assert!(!q.cells.is_empty());
    for c in &q.cells {
        assert_eq!(c.coverages, 3 * 8, "{}: 3 passes × 8 slices", c.variant);
    }
    assert!(merged["config"].get("part").is_none());
    // The query phase each part kept, added: a cell's service histogram holds every
    // search of both parts, the count the merged cell derives its percentiles from.
    let phases = merged_phases(&store, &merged);
    let query = phases
        .iter()
        .find(|p| p.phase == "query")
        .expect("a query phase");
    let c = &q.cells[0];
    let name = format!("query:{}:{}:service", c.variant.name(), c.transport.name());
    let (_, service) = &query.measurements.histograms[&name];
    assert!(!service.is_empty());
    assert_eq!(service.len(), c.service_hdr.count);
    common::fresh_index(index, None);
}

/// A workload file of a generator runs in two parts as a built-in workload does: each loads
/// its share, then measures its share of the file's queries once the index holds every part's
/// documents (the expected hit count is the whole corpus's); one of the user's own files is
/// refused before anything runs.
#[test]
fn a_workload_file_of_a_generator_runs_in_two_parts() {
    let index = "searchbench-test-parts-file-run";
    let _heavy = common::one_track_at_a_time();
    common::fresh_index(index, None);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let file = dir.path().join("w.json");
    let workload = serde_json::json!({
        "name": "w",
        "index": index,
        "corpus": {"generator": "logs", "docs": 6000},
        "queries": {"all": {"body": {"query": {"match_all": {}}}, "expect": {"hits": 6000}}},
    });
    std::fs::write(&file, workload.to_string()).unwrap();
    let children: Vec<_> = (1..=2u32)
        .map(|i| {
            common::bin()
                .args(["run", "--url", node_url(), "--quiet", "--no-telemetry"])
                .arg("--workload-file")
                .arg(&file)
                .args(["--part", &format!("{i}/2"), "--group", "g-file-run"])
                .arg("--store")
                .arg(&store)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for out in wait_all(children, std::time::Duration::from_secs(300)) {
        assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    }
    assert_eq!(count(index), 6000);
    let out = common::bin()
        .args(["results", "merge", "g-file-run", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    let merged = json_of(&out);
    assert_eq!(merged["state"], "complete", "{}", common::streams(&out));
    let r = &merged["result"];
    assert_eq!(r["counts"]["indexed"], 6000);
    let q: searchbench::query::QueryResult =
        serde_json::from_value(r["query"].clone()).expect("the merged query phase");
    assert_eq!(q.failures_total, 0, "{:?}", q.failures);
    assert!(!q.cells.is_empty());
    // Each part measured part of every query's coverages; the group has all of them.
    let each = r["parts"]["each"].as_array().unwrap();
    assert_eq!(each.len(), 2);
    common::fresh_index(index, None);
    // A workload file of the user's own files is refused before anything runs.
    common::write_docs(&dir.path().join("docs.json"), 10);
    let files = dir.path().join("f.json");
    let workload = serde_json::json!({"corpus": {"files": ["docs.json"]}});
    std::fs::write(&files, workload.to_string()).unwrap();
    let out = common::bin()
        .args(["run", "--url", node_url()])
        .arg("--workload-file")
        .arg(&files)
        .args(["--part", "1/2", "--group", "g"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
    assert!(common::streams(&out).contains("not split in parts yet"));
}

#[test]
fn three_parts_split_a_plain_file_by_bytes_each_line_read_by_one() {
    let index = "searchbench-test-parts-bytes";
    let _heavy = common::one_track_at_a_time();
    common::fresh_index(index, None);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    // 30,000 lines of uneven lengths, two of them not JSON.
    let mut text = String::new();
    for i in 0..30_000u64 {
        match i {
            1_234 | 25_000 => text.push_str("not json\n"),
            _ => text.push_str(&format!(
                "{{\"n\": {i}, \"pad\": \"{}\"}}\n",
                "x".repeat((i % 97) as usize)
            )),
        }
    }
    let file = dir.path().join("docs.ndjson");
    std::fs::write(&file, &text).unwrap();
    let (mut read, mut indexed, mut bad) = (0, 0, 0);
    let mut bad_lines = Vec::new();
    for i in 1..=3 {
        let json = dir.path().join(format!("part-{i}.json"));
        let out = common::bin()
            .args(["ingest", "--file", file.to_str().unwrap(), "--index", index])
            .args(["--url", node_url(), "--clients", "3", "--max-failures", "5"])
            .args(["--part", &format!("{i}/3"), "--group", "g-bytes"])
            .arg("--store")
            .arg(&store)
            .arg("--export-json")
            .arg(&json)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = common::streams(&out);
        assert_eq!(out.status.code(), Some(0), "part {i}: {err}");
        assert!(err.contains("(each line read by one part only)"), "{err}");
        let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        read += r["counts"]["read"].as_u64().unwrap();
        indexed += r["counts"]["indexed"].as_u64().unwrap();
        bad += r["counts"]["bad_lines"].as_u64().unwrap();
        if let Ok(f) = std::fs::read_to_string(
            dir.path()
                .join(format!("{index}-part{i}of3-failures.ndjson")),
        ) {
            for l in f.lines() {
                let v: Value = serde_json::from_str(l).unwrap();
                bad_lines.push(v["line"].as_u64().unwrap());
            }
        }
    }
    assert_eq!((read, indexed, bad), (30_000, 29_998, 2));
    bad_lines.sort();
    assert_eq!(
        bad_lines,
        vec![1_235, 25_001],
        "the file's own line numbers"
    );
    assert_eq!(count(index), 29_998);
    // Part 1's ids are a whole run's (0, 1, ...); the others' count from their first byte.
    assert!(has_doc(index, 0) && has_doc(index, 1));
    let out = common::bin()
        .args(["results", "merge", "g-bytes", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    let merged = json_of(&out);
    assert_eq!(merged["state"], "complete", "{}", common::streams(&out));
    assert_eq!(merged["result"]["counts"]["indexed"], 29_998);
    common::fresh_index(index, None);
}

/// Join points through the cluster: every part waits at a point until the last has come; a
/// part that never comes is named after the limit; Ctrl-C stops the wait.
#[test]
fn join_points_hold_every_part_until_the_last_one_comes() {
    use searchbench::corpus::part::Part;
    use searchbench::session::join::{JoinError, JoinPoints};
    use std::time::{Duration, Instant};
    let group = format!("g-join-{}", std::process::id());
    common::runtime().block_on(async {
        let started = Instant::now();
        let parts = (1..=3u32).map(|i| {
            let points = JoinPoints::new(
                common::target(),
                &group,
                Part { index: i, of: 3 },
                Duration::from_secs(60),
            );
            async move {
                // The third part comes a second late.
                if i == 3 {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                let cancel = searchbench::cancel::Cancel::never();
                points.reach("task 1 (bulk)", &cancel).await.unwrap();
                started.elapsed()
            }
        });
        let waited = futures_util::future::join_all(parts).await;
        for (i, w) in waited.iter().enumerate() {
            assert!(
                *w >= Duration::from_secs(1),
                "part {}: left after {w:?}",
                i + 1
            );
        }
        // Two parts of three at another point: the third is named after the limit.
        let two = (1..=2u32).map(|i| {
            let points = JoinPoints::new(
                common::target(),
                &group,
                Part { index: i, of: 3 },
                Duration::from_millis(800),
            );
            async move {
                let cancel = searchbench::cancel::Cancel::never();
                points.reach("task 2", &cancel).await
            }
        });
        for r in futures_util::future::join_all(two).await {
            let e = r.unwrap_err();
            assert!(matches!(e, JoinError::Missing { .. }), "{e}");
            assert!(e.to_string().contains("part(s) 3 of 3 not there"), "{e}");
        }
        // Ctrl-C while waiting.
        let (stop, cancel) = searchbench::cancel::Cancel::new();
        let points = JoinPoints::new(
            common::target(),
            &group,
            Part { index: 1, of: 3 },
            Duration::from_secs(60),
        );
        let waiting = points.reach("task 3", &cancel);
        let stopper = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let _ = stop.send(true);
        };
        let (r, ()) = tokio::join!(waiting, stopper);
        assert!(matches!(r, Err(JoinError::Interrupted { .. })), "{r:?}");
    });
    // The marks stay: the index is every group's (parts of other tests may be joining
    // through it now), and this test's groups are its own.
}

/// A Rally track run in two parts, each with its own store: part 1 alone drops and makes the
/// index (part 2, started first, waits for it at the join points), each part loads its share
/// of the corpus file and runs its share of the search's clients; merged, the group has every
/// document once, the search's every operation, and the join marks are cleared. The same group
/// again is refused before anything runs.
#[test]
fn a_track_runs_in_two_parts_joined_before_each_step() {
    use std::time::Duration;
    let index = "searchbench-test-parts-track";
    let _heavy = common::one_track_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let docs = 20_001usize;
    common::write_docs(&dir.path().join("docs.json"), docs);
    let track = serde_json::json!({
        "version": 2,
        "indices": [{"name": index, "body": "index.json"}],
        "corpora": [{"name": "c", "documents": [
            {"source-file": "docs.json", "document-count": docs, "target-index": index}
        ]}],
        "schedule": [
            {"operation": {"name": "drop", "operation-type": "delete-index"}},
            {"operation": {"name": "make", "operation-type": "create-index"}},
            {"operation": {"name": "load", "operation-type": "bulk", "bulk-size": 500},
             "clients": 2},
            {"operation": {"name": "settle", "operation-type": "refresh"}},
            {"operation": {"name": "q", "operation-type": "search", "index": index,
                           "body": {"query": {"match_all": {}}}},
             "clients": 2, "iterations": 40}
        ]
    });
    std::fs::write(dir.path().join("track.json"), track.to_string()).unwrap();
    std::fs::write(
        dir.path().join("index.json"),
        r#"{"settings": {"index.number_of_shards": 1, "index.number_of_replicas": 0}}"#,
    )
    .unwrap();
    let group = format!("g-track-{}", std::process::id());
    let part = |i: u32| {
        common::bin()
            .args(["run", "--url", node_url(), "--quiet"])
            .arg("--workload-file")
            .arg(dir.path().join("track.json"))
            .args(["--part", &format!("{i}/2"), "--group", &group])
            .arg("--store")
            .arg(dir.path().join(format!("part{i}.db")))
            .arg("--json")
            .arg(dir.path().join(format!("part{i}.json")))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Part 2 first: its load must wait for part 1's index.
    let second = part(2);
    std::thread::sleep(Duration::from_secs(2));
    let first = part(1);
    let outs = wait_all(vec![first, second], Duration::from_secs(180));
    for (i, out) in (1..).zip(&outs) {
        assert_eq!(
            out.status.code(),
            Some(0),
            "part {i}: {}",
            common::streams(out)
        );
    }
    let result = |i: u32| -> Value {
        serde_json::from_slice(&std::fs::read(dir.path().join(format!("part{i}.json"))).unwrap())
            .unwrap()
    };
    assert_eq!(
        count(index),
        docs as u64,
        "{:#}\n{:#}",
        result(1),
        result(2)
    );
    let task = |r: &Value, name: &str| -> Option<Value> {
        r["tasks"]
            .as_array()?
            .iter()
            .find(|t| t["task"] == name)
            .cloned()
    };
    let (one, two) = (result(1), result(2));
    assert!(task(&two, "make").is_none(), "part 1 alone makes the index");
    let made = task(&one, "make").unwrap()["ended_ms"].as_u64().unwrap();
    let loaded = task(&two, "load").unwrap()["started_ms"].as_u64().unwrap();
    assert!(
        loaded >= made,
        "part 2 loaded at {loaded}, before the index was made at {made}"
    );
    // Collected in one store, then merged.
    let here = dir.path().join("here.db");
    for i in [1, 2] {
        let out = common::bin()
            .args(["results", "import"])
            .arg(dir.path().join(format!("part{i}.db")))
            .arg("--store")
            .arg(&here)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", common::streams(&out));
    }
    let out = common::bin()
        .args(["results", "merge", &group, "--json", "--store"])
        .arg(&here)
        .output()
        .unwrap();
    let merged = json_of(&out);
    assert_eq!(merged["state"], "complete", "{}", common::streams(&out));
    let r = &merged["result"];
    let names: Vec<&str> = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["drop", "make", "load", "settle", "q"]);
    let q = task(r, "q").unwrap();
    assert_eq!(q["ops"], 80, "two parts of one client, 40 iterations each");
    // Each part's bulk and the group's: not probed, since the parts write one index.
    for load in [task(&one, "load"), task(&two, "load"), task(r, "load")] {
        let load = load.unwrap();
        assert!(
            load["freshness"].is_null()
                && load["freshness_not_measured"]
                    .as_str()
                    .is_some_and(|w| w.ends_with("the other parts write into the same index")),
            "{load}"
        );
    }
    assert_eq!(q["errors"], 0);
    assert!(q["latency_ms"][0].as_f64().unwrap() > 0.0);
    assert_eq!(merged["config"]["parts"], 2);
    // The group's marks are gone but its end mark.
    let marks = common::runtime().block_on(async {
        let t = common::target();
        let _ = t
            .send(
                reqwest::Method::POST,
                &format!("/{}/_refresh", searchbench::session::join::JOIN_INDEX),
                None,
            )
            .await;
        t.send_json::<Value>(
            reqwest::Method::POST,
            &format!("/{}/_count", searchbench::session::join::JOIN_INDEX),
            &serde_json::json!({"query": {"term": {"group.keyword": group}}}),
        )
        .await
        .unwrap()
    });
    assert_eq!(marks["count"], 1, "{marks}");
    // The same group again: refused before any task runs (the index is not dropped).
    let out = wait_within(part(1), Duration::from_secs(60));
    assert_ne!(out.status.code(), Some(0), "{}", common::streams(&out));
    assert!(
        common::streams(&out).contains("has run before"),
        "{}",
        common::streams(&out)
    );
    assert_eq!(count(index), docs as u64);
    common::fresh_index(index, None);
}

/// The many-shards scenario in two parts: each makes its half of the indices (the same names:
/// the group's) and loads its half of the logs with its search client; every part counts all
/// the indices once all are made; part 1 removes everything once both have ended.
#[test]
fn many_shards_runs_in_two_parts_over_one_set_of_indices() {
    use std::time::Duration;
    let _heavy = common::one_track_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let group = format!("g-shards-{}", std::process::id());
    let part = |i: u32| {
        common::bin()
            .args(["run", "many-shards", "--url", node_url(), "--quiet"])
            .args([
                "--indices",
                "30",
                "--docs-per-index",
                "20",
                "--docs",
                "5000",
            ])
            .args(["--search-clients", "2", "--field-caps-requests", "10"])
            .args([
                "--warmup",
                "0",
                "--part",
                &format!("{i}/2"),
                "--group",
                &group,
            ])
            .arg("--store")
            .arg(&store)
            .arg("--json")
            .arg(dir.path().join(format!("part{i}.json")))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let second = part(2);
    std::thread::sleep(Duration::from_secs(1));
    let first = part(1);
    let outs = wait_all(vec![first, second], Duration::from_secs(300));
    for (i, out) in (1..).zip(&outs) {
        assert_eq!(
            out.status.code(),
            Some(0),
            "part {i}: {}",
            common::streams(out)
        );
    }
    let result = |i: u32| -> Value {
        serde_json::from_slice(&std::fs::read(dir.path().join(format!("part{i}.json"))).unwrap())
            .unwrap()
    };
    let (one, two) = (result(1), result(2));
    assert_eq!(one["prefix"], two["prefix"], "one set of indices");
    for r in [&one, &two] {
        assert_eq!(r["creation"]["indices_created"], 15, "{}", r["creation"]);
        assert_eq!(r["counts"]["found_indices"], 30, "{}", r["counts"]);
        assert_eq!(r["counts"]["reconciled"], true);
        assert_eq!(r["indexing"]["counts"]["indexed"], 2500);
        assert_eq!(r["indexing"]["searches_beside"]["clients"], 1);
        assert_eq!(r["field_caps"]["requests"], 5);
    }
    assert_eq!(one["cleanup"]["indices_deleted"], 31);
    assert_eq!(two["cleanup"]["indices_deleted"], 0);
    let prefix = one["prefix"].as_str().unwrap();
    let left = common::runtime().block_on(async {
        common::target()
            .get_json::<Value>(&format!("/_cat/indices/{prefix}*?format=json"))
            .await
            .unwrap()
    });
    assert_eq!(left.as_array().map(Vec::len), Some(0), "{left}");
    // Merged: one scenario run of every index, document and request.
    let out = common::bin()
        .args(["results", "merge", &group, "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    let merged = json_of(&out);
    assert_eq!(merged["state"], "complete", "{}", common::streams(&out));
    let r = &merged["result"];
    let creation = &r["creation"];
    assert_eq!(creation["indices_created"], 30, "{creation}");
    assert_eq!(creation["docs_indexed"], 600);
    assert_eq!(creation["clients"], 2);
    assert_eq!(creation["create_ms"]["count"], 30);
    let timeline: u64 = creation["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["indices"].as_u64().unwrap())
        .sum();
    assert_eq!(timeline, 30);
    assert!(creation.get("done").is_none());
    assert_eq!(r["counts"]["found_indices"], 30);
    assert_eq!(r["indexing"]["counts"]["indexed"], 5000);
    assert_eq!(r["indexing"]["counts"]["reconciled"], true);
    assert_eq!(r["indexing"]["searches_beside"]["clients"], 2);
    assert_eq!(r["field_caps"]["requests"], 10);
    assert_eq!(r["field_caps"]["clients"], 2);
    assert_eq!(r["cleanup"]["indices_deleted"], 31);
    assert_eq!(
        merged["config"]["clients"], 2,
        "the parts' clients summed: the whole run's"
    );
    assert_eq!(r["parts"]["each"].as_array().map(Vec::len), Some(2));
    for each in r["parts"]["each"].as_array().into_iter().flatten() {
        assert_eq!(each["indices_created"], 15, "{each}");
        assert_eq!(each["indexed"], 2500, "{each}");
        assert!(each["driver_cpu_secs"].as_f64().is_some(), "{each}");
        assert!(each["cores"].as_u64() >= Some(1), "{each}");
    }
    // The merged run keeps every phase the parts measured, added: the creation phase holds
    // one request per index of both parts, the figure the result derives from it.
    let phases = merged_phases(&store, &merged);
    let creation = phases
        .iter()
        .find(|p| p.phase == "creation")
        .expect("a creation phase");
    let (_, created) = &creation.measurements.histograms["creation:create"];
    assert_eq!(created.len(), 30);
    assert!(phases.iter().any(|p| p.phase == "ingest"), "{phases:?}");
}

/// The phases a merged run keeps, read from the store it was merged in.
fn merged_phases(
    store: &std::path::Path,
    merged: &Value,
) -> Vec<searchbench::store::PhaseMeasurements> {
    let id = searchbench::store::RunId(merged["id"].as_str().unwrap().to_string());
    searchbench::store::Store::open_read(store)
        .unwrap()
        .phases(&id)
        .unwrap()
}

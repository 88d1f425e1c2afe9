//! Publishing stored runs to a results cluster (`results publish`), the shared node playing
//! the team's: every run arrives whole, once however often it is sent, and a publish that
//! cannot reach the cluster loses nothing (the runs stay pending and go later).

use std::path::Path;
use std::process::Output;

use crate::common::{self, bin, node_url, streams};
use searchbench::store::{RunId, Store};
use serde_json::Value;

pub fn ingest(db: &Path, index: &str, tag: &str) -> String {
    let out = bin()
        .args([
            "ingest", "logs", "--quiet", "--docs", "3000", "--warmup", "0",
        ])
        .args([
            "--index",
            index,
            "--url",
            node_url(),
            "--tag",
            tag,
            "--store",
        ])
        .arg(db)
        .args(["--json"])
        // A CI job per tag: the runs' provenance travels with them.
        .env("SEARCHBENCH_CI_SYSTEM", "it-nightly")
        .env("SEARCHBENCH_CI_JOB", tag.replace('=', "-"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let stored = Store::open_read(db).unwrap();
    let newest = stored.list(&Default::default()).unwrap();
    newest[0].id.0.clone()
}

pub fn publish(db: &Path, url: &str, prefix: &str, extra: &[&str]) -> Output {
    bin()
        .args(["results", "publish", "--json", "--publish", url])
        .args(["--publish-prefix", prefix, "--store"])
        .arg(db)
        .args(extra)
        .output()
        .unwrap()
}

/// Documents of run `id` in `prefix-what`.
fn count(prefix: &str, what: &str, id: &str) -> u64 {
    let path = format!("/{prefix}-{what}/_count?q=run_id:{id}");
    let v: Value = common::runtime()
        .block_on(common::target().get_json(&path))
        .unwrap();
    v["count"].as_u64().unwrap()
}

pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", streams(out)))
}

#[test]
fn runs_published_twice_are_there_once_and_a_failed_publish_stays_pending() {
    let prefix = "sbtest-publish";
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let a = ingest(&db, "searchbench-test-publish-a", "build=1");
    let b = ingest(&db, "searchbench-test-publish-b", "build=2");

    // The results cluster is down: nothing is lost, both runs stay pending, exit 1.
    let down = publish(&db, "http://127.0.0.1:9", prefix, &[]);
    assert_eq!(down.status.code(), Some(1), "{}", streams(&down));
    let said = json_of(&down);
    assert_eq!(said["sent"].as_array().map(Vec::len), Some(0));
    assert_eq!(said["failed"].as_array().map(Vec::len), Some(2), "{said}");
    assert!(
        streams(&down).contains("stay pending"),
        "{}",
        streams(&down)
    );

    // Sent when it is up: every run with its documents.
    let up = publish(&db, node_url(), prefix, &["--pending"]);
    assert_eq!(up.status.code(), Some(0), "{}", streams(&up));
    let said = json_of(&up);
    let sent: Vec<&str> = said["sent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["run"].as_str().unwrap())
        .collect();
    assert_eq!(sent, [a.as_str(), b.as_str()], "oldest first: {said}");
    let store = Store::open_read(&db).unwrap();
    for id in [&a, &b] {
        assert_eq!(count(prefix, "runs", id), 1);
        let row = store.get(id).unwrap();
        let metrics = searchbench::analysis::runs::Loaded::read(&store, row.clone())
            .unwrap()
            .metrics();
        assert!(!metrics.is_empty());
        assert_eq!(count(prefix, "metrics", id), metrics.len() as u64);
        assert!(count(prefix, "timeline", id) >= 1);
        assert_eq!(
            count(prefix, "telemetry", id),
            store.telemetry(&row.id).unwrap().len() as u64
        );
    }
    // The run's document holds the stored run whole, and its headline and tags to chart by.
    let doc: Value = common::runtime()
        .block_on(common::target().get_json(&format!("/{prefix}-runs/_doc/{a}")))
        .unwrap();
    let source = &doc["_source"];
    assert_eq!(source["row"]["id"], a.as_str());
    assert_eq!(source["tags"]["build"], "1");
    assert_eq!(source["headline"]["metric"], "docs_per_sec");
    let stored = store.get(&a).unwrap();
    assert_eq!(source["row"]["result"], stored.result.unwrap());

    // Nothing left to send; sending a run again replaces its documents, never doubles them.
    let again = publish(&db, node_url(), prefix, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", streams(&again));
    assert_eq!(json_of(&again)["sent"].as_array().map(Vec::len), Some(0));
    let metrics = count(prefix, "metrics", &a);
    let named = publish(&db, node_url(), prefix, &[&a]);
    assert_eq!(named.status.code(), Some(0), "{}", streams(&named));
    assert_eq!(count(prefix, "runs", &a), 1);
    assert_eq!(count(prefix, "metrics", &a), metrics);

    // The store says where each went.
    let destination = format!("{} {prefix}", node_url().trim_end_matches('/'));
    for id in [&a, &b] {
        let state = store
            .published_state(&RunId(id.clone()), &destination)
            .unwrap();
        assert_eq!(state.as_deref(), Some("complete"));
    }
    common::fresh_index("searchbench-test-publish-a", None);
    common::fresh_index("searchbench-test-publish-b", None);
}

#[test]
fn publishing_without_a_destination_or_with_a_bad_prefix_is_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    Store::open(&db).unwrap();
    let out = bin()
        .args(["results", "publish", "--store"])
        .arg(&db)
        .env_remove("SEARCHBENCH_PUBLISH")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    assert!(streams(&out).contains("--publish URL"), "{}", streams(&out));
    let out = publish(&db, node_url(), "../Up", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    assert!(
        streams(&out).contains("bad indices' prefix"),
        "{}",
        streams(&out)
    );
    // A run that is not there.
    let out = publish(&db, node_url(), "sbtest-publish-none", &["deadbeef"]);
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
}

/// `--publish` on a command that stores a run: the run is published once the store has kept
/// it; a results cluster that cannot take it leaves the run measured, kept and pending, says
/// so, and the command's own exit code stands.
#[test]
fn a_run_publishes_itself_and_one_that_cannot_stays_pending() {
    let prefix = "sbtest-publish-sink";
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let run = |publish: &str| {
        bin()
            .args([
                "ingest", "logs", "--quiet", "--docs", "2000", "--warmup", "0",
            ])
            .args([
                "--index",
                "searchbench-test-publish-sink",
                "--url",
                node_url(),
            ])
            .args(["--publish", publish, "--publish-prefix", prefix, "--store"])
            .arg(&db)
            .output()
            .unwrap()
    };
    let newest = || {
        let store = Store::open_read(&db).unwrap();
        store.list(&Default::default()).unwrap()[0].id.0.clone()
    };
    let out = run(node_url());
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let published = newest();
    assert_eq!(count(prefix, "runs", &published), 1);
    assert!(count(prefix, "metrics", &published) > 0);

    let out = run("http://127.0.0.1:9");
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let text = streams(&out);
    assert!(
        text.contains("not published") && text.contains("results publish --pending"),
        "{text}"
    );
    let pending = newest();
    assert_ne!(pending, published);
    assert_eq!(count(prefix, "runs", &pending), 0);
    // The next publish sends what is missing, and only that.
    let out = publish(&db, node_url(), prefix, &["--pending"]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let sent = json_of(&out)["sent"].clone();
    assert_eq!(sent.as_array().map(Vec::len), Some(1), "{sent}");
    assert_eq!(sent[0]["run"], pending.as_str());
    assert_eq!(count(prefix, "runs", &pending), 1);
    common::fresh_index("searchbench-test-publish-sink", None);
}

/// A night the results cluster was down: its run says it is not published (exit 4 with
/// `--publish-required`) and `results list` says PENDING; the next night's run sends it with
/// its own. A cluster that lost a run is noticed by `results verify`, and the run goes back.
#[test]
fn a_night_the_results_cluster_was_down_reaches_it_with_the_next_and_a_lost_run_is_noticed() {
    use crate::common::proxy::{self, Fault};
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::sync::Arc;

    let prefix = "sbtest-owed";
    let index = "searchbench-test-owed";
    unpublish(prefix);
    let rt = common::runtime();
    // The results cluster behind a proxy that drops every `_bulk` while it is "down".
    let down = Arc::new(AtomicBool::new(false));
    let d = down.clone();
    let proxy = rt.block_on(proxy::start(node_url(), move |_| {
        if d.load(SeqCst) {
            Fault::DropBefore
        } else {
            Fault::Pass
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let night = |extra: &[&str]| {
        bin()
            .args([
                "ingest", "logs", "--quiet", "--docs", "1000", "--warmup", "0",
            ])
            .args(["--index", index, "--url", node_url()])
            .args([
                "--publish",
                &proxy.url,
                "--publish-prefix",
                prefix,
                "--store",
            ])
            .arg(&db)
            .args(extra)
            .output()
            .unwrap()
    };
    let newest = || {
        let store = Store::open_read(&db).unwrap();
        store.list(&Default::default()).unwrap()[0].id.0.clone()
    };
    let listed = || -> std::collections::BTreeMap<String, String> {
        let out = bin()
            .args(["results", "list", "--json", "--store"])
            .arg(&db)
            .output()
            .unwrap();
        let rows = json_of(&out);
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let id = r["id"].as_str().unwrap().to_string();
                (id, r["publish_state"].as_str().unwrap().to_string())
            })
            .collect()
    };
    let verify = || {
        bin()
            .args(["results", "verify", "--publish", &proxy.url])
            .args(["--publish-prefix", prefix, "--store"])
            .arg(&db)
            .output()
            .unwrap()
    };

    let out = night(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let first = newest();
    assert_eq!(count(prefix, "runs", &first), 1);

    // Down: the run is measured and kept, not published, and the command says so last.
    down.store(true, SeqCst);
    let out = night(&["--publish-required"]);
    assert_eq!(out.status.code(), Some(4), "{}", streams(&out));
    let text = streams(&out);
    let second = newest();
    for said in [
        "NOT PUBLISHED".to_string(),
        second.clone(),
        format!(
            "results publish --pending --publish {} --publish-prefix {prefix}",
            proxy.url
        ),
        "--publish-required".into(),
    ] {
        assert!(text.contains(&said), "{said}: {text}");
    }
    assert_eq!(count(prefix, "runs", &second), 0);
    let states = listed();
    assert_eq!(states[&first], "published", "{states:?}");
    assert_eq!(states[&second], "PENDING", "{states:?}");
    let out = bin()
        .args(["results", "list", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(streams(&out).contains("PENDING"), "{}", streams(&out));

    // Up again: the next night's run sends the night before's with its own.
    down.store(false, SeqCst);
    let out = night(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let text = streams(&out);
    assert!(
        text.contains("published 1 earlier run(s) pending") && text.contains(&second),
        "{text}"
    );
    assert!(!text.contains("NOT PUBLISHED"), "{text}");
    let third = newest();
    assert_eq!(
        (
            count(prefix, "runs", &second),
            count(prefix, "runs", &third)
        ),
        (1, 1)
    );
    assert!(
        listed().values().all(|s| s == "published"),
        "{:?}",
        listed()
    );
    let out = verify();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));

    // The cluster loses the first night's run: verify notices it, it is pending again, and
    // the next publish sends it back.
    rt.block_on(common::target().send(
        reqwest::Method::DELETE,
        &format!("/{prefix}-runs/_doc/{first}?refresh=true"),
        None,
    ))
    .unwrap();
    let out = verify();
    assert_eq!(out.status.code(), Some(3), "{}", streams(&out));
    let text = streams(&out);
    assert!(
        text.contains(&first) && text.contains("does not hold it"),
        "{text}"
    );
    assert_eq!(listed()[&first], "PENDING");
    let out = publish(&db, &proxy.url, prefix, &["--pending"]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let sent = json_of(&out)["sent"].clone();
    assert_eq!(sent.as_array().map(Vec::len), Some(1), "{sent}");
    assert_eq!(sent[0]["run"], first.as_str());
    let out = verify();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    unpublish(prefix);
    common::fresh_index(index, None);
}

/// Deletes the indices a test publishes into, so it starts from nothing published.
pub fn unpublish(prefix: &str) {
    for what in [
        "runs",
        "metrics",
        "timeline",
        "telemetry",
        "tasks",
        "changes",
        "annotations",
    ] {
        let _ = common::runtime().block_on(common::target().send(
            reqwest::Method::DELETE,
            &format!("/{prefix}-{what}"),
            None,
        ));
    }
}

/// A view run on the store and on the cluster the store was published to (`from`: the
/// `--from` flags, `env`: the environment they need).
fn both(db: &Path, from: &[&str], env: &[(&str, &str)], args: &[&str]) -> (Output, Output) {
    let local = bin().args(args).arg("--store").arg(db).output().unwrap();
    let remote = bin()
        .args(args)
        .args(from)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (local, remote)
}

/// Each view gives the same exit code and the same output from the store `db` and from the
/// cluster `from` names.
fn same_from_both(db: &Path, from: &[&str], env: &[(&str, &str)], views: &[&[&str]]) {
    for view in views {
        let (local, remote) = both(db, from, env, view);
        assert!(
            matches!(local.status.code(), Some(0 | 3 | 125)),
            "{view:?}: {}",
            streams(&local)
        );
        assert_eq!(
            local.status.code(),
            remote.status.code(),
            "{view:?}: {}\n---\n{}",
            streams(&local),
            streams(&remote)
        );
        assert_eq!(
            String::from_utf8_lossy(&local.stdout),
            String::from_utf8_lossy(&remote.stdout),
            "{view:?}"
        );
    }
}

/// The views read the same runs from the team's cluster as from the store they were
/// published from: the same tables, verdicts, exit codes and pages.
#[test]
fn every_view_gives_from_the_cluster_what_it_gives_from_the_store() {
    let prefix = "sbtest-readback";
    unpublish(prefix);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let index = "searchbench-test-readback";
    let mut ids = Vec::new();
    for build in ["1", "1", "2", "2"] {
        ids.push(ingest(&db, index, &format!("build={build}")));
    }
    // The team's notes travel with the runs: a history read back marks them too.
    for note in [
        &["JDK 21.0.5", "--tag", "build=2"][..],
        &["a note on nothing here", "--tag", "build=none"],
    ] {
        let out = bin()
            .arg("annotate")
            .args(note)
            .arg("--store")
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    }
    let up = publish(&db, node_url(), prefix, &[]);
    assert_eq!(up.status.code(), Some(0), "{}", streams(&up));

    let newest = ids[3].as_str();
    let views: [&[&str]; 13] = [
        &["history", "--workload", "logs"],
        &["history", "--workload", "logs", "--by", "time", "--json"],
        &["compare", "build=1", "build=2"],
        &["compare", "build=1", "build=2", "--json"],
        &[
            "check",
            newest,
            "--baseline",
            "build=1",
            "--metric",
            "docs_per_sec",
        ],
        &[
            "check",
            newest,
            "--last",
            "3",
            "--metric",
            "service_p99_ms",
            "--json",
        ],
        &["results", "list"],
        &["results", "list", "--json"],
        &["results", "show", newest],
        &["report", "build=1", "build=2", "--markdown"],
        // Who made the runs, asked for by name.
        &["results", "list", "--where", "ci.job=build-2", "--json"],
        &[
            "results",
            "list",
            "--where",
            "ci=it-nightly",
            "--where",
            "ci.job=build-1",
        ],
        &[
            "history",
            "--workload",
            "logs",
            "--where",
            "ci=it-nightly",
            "--json",
        ],
    ];
    // The note on build 2 is in the history's JSON (compared below from both), the other
    // on nothing here is not.
    let h = bin()
        .args([
            "history",
            "--workload",
            "logs",
            "--by",
            "time",
            "--json",
            "--store",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let h = json_of(&h);
    let notes = h["annotations"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["text"], "JDK 21.0.5");
    let shown = bin()
        .args(["results", "show", newest, "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&shown.stdout).contains("it-nightly job build-2"),
        "{}",
        streams(&shown)
    );
    let listed = bin()
        .args([
            "results",
            "list",
            "--json",
            "--where",
            "ci.job=build-2",
            "--store",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed.len(), 2, "{listed:?}");
    // The engine build each run reached, read from the node, kept and asked for by name.
    let row = Store::open_read(&db).unwrap().get(newest).unwrap();
    let engine = searchbench::measure::provenance::Provenance::read(&row.machine)
        .engine
        .expect("the engine build the run reached");
    let build = engine.build.expect("GET / says its build hash");
    assert!(engine.jvm.is_some(), "{:?}", row.machine);
    // A node given by URL has the heap it has: no `--heap` default is stored as its own;
    // the heap and the nodes are read from it (the shared node runs with -Xmx512m).
    assert!(row.config["heap"].is_null(), "{}", row.config);
    let heap = engine
        .heap_max_bytes
        .expect("the node's heap, read from it");
    assert!((480 << 20..=512 << 20).contains(&heap), "{heap}");
    assert_eq!(engine.nodes, Some(1));
    let wanted = format!("engine.build={build}");
    same_from_both(
        &db,
        &["--from", node_url(), "--from-prefix", prefix],
        &[],
        &[&["results", "list", "--where", &wanted]],
    );
    same_from_both(
        &db,
        &["--from", node_url(), "--from-prefix", prefix],
        &[],
        &views,
    );
    // The HTML report draws the runs' telemetry too: read back, the page is the same.
    let (local, remote) = (
        dir.path().join("local.html"),
        dir.path().join("remote.html"),
    );
    for (page, from) in [(&local, false), (&remote, true)] {
        let mut cmd = bin();
        cmd.args(["report", "build=1", "build=2", "--html"])
            .arg(page);
        if from {
            cmd.args(["--from", node_url(), "--from-prefix", prefix]);
        } else {
            cmd.arg("--store").arg(&db);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    }
    let (local, remote) = (
        std::fs::read_to_string(local).unwrap(),
        std::fs::read_to_string(remote).unwrap(),
    );
    assert!(local.contains("heap"), "the page draws telemetry");
    assert!(local == remote, "the HTML reports differ");

    // Nothing published under a prefix: refused, not an empty history.
    let out = bin()
        .args(["history", "--workload", "logs"])
        .args(["--from", node_url(), "--from-prefix", "sbtest-nothing-here"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", streams(&out));
    assert!(
        streams(&out).contains("nothing is published there"),
        "{}",
        streams(&out)
    );
    // One source at a time.
    let out = bin()
        .args(["results", "list", "--from", node_url(), "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    common::fresh_index(index, None);
    unpublish(prefix);
}

/// Parts of one run on three driver hosts, each publishing itself: merged from the team's
/// cluster they give the run merged from their three stores, with no store copied.
#[test]
fn three_parts_merged_from_the_cluster_equal_the_parts_merged_from_their_stores() {
    let prefix = "sbtest-publish-parts";
    unpublish(prefix);
    let index = "searchbench-test-publish-parts";
    let _heavy = common::one_track_at_a_time();
    common::fresh_index(index, None);
    let dir = tempfile::tempdir().unwrap();
    let stores: Vec<_> = (1..=3)
        .map(|i| dir.path().join(format!("host{i}.db")))
        .collect();
    let mut parts: Vec<std::process::Child> = (1..=3)
        .map(|i| {
            bin()
                .args(["ingest", "logs", "--docs", "30000", "--index", index])
                .args(["--url", node_url(), "--clients", "3", "--warmup", "0"])
                .args(["--part", &format!("{i}/3"), "--group", "g-published"])
                .args(["--publish", node_url(), "--publish-prefix", prefix])
                .arg("--store")
                .arg(&stores[i - 1])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let started = std::time::Instant::now();
    while parts.iter_mut().any(|p| p.try_wait().unwrap().is_none()) {
        if started.elapsed() > std::time::Duration::from_secs(300) {
            for p in &mut parts {
                let _ = p.kill();
            }
            panic!("the parts still run after 300 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    for p in parts {
        let out = p.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
        assert!(
            !streams(&out).contains("not published"),
            "{}",
            streams(&out)
        );
    }
    // From their stores, copied into one.
    let here = dir.path().join("here.db");
    for s in &stores {
        let out = bin()
            .args(["results", "import"])
            .arg(s)
            .arg("--store")
            .arg(&here)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    }
    let merge = |extra: &[&str], store: &Path| {
        bin()
            .args(["results", "merge", "g-published", "--json", "--store"])
            .arg(store)
            .args(extra)
            .output()
            .unwrap()
    };
    let local = merge(&[], &here);
    // From the cluster, into a store that holds none of the parts.
    let there = dir.path().join("there.db");
    let remote = merge(&["--from", node_url(), "--from-prefix", prefix], &there);
    assert_eq!(local.status.code(), Some(0), "{}", streams(&local));
    assert_eq!(remote.status.code(), Some(0), "{}", streams(&remote));
    let (local, remote) = (json_of(&local), json_of(&remote));
    assert_eq!(local["result"]["counts"]["indexed"], 30_000, "{local}");
    assert_eq!(local, remote);
    // Stored there, the merge is the same run with the same figures.
    let (a, b) = (
        Store::open_read(&here).unwrap(),
        Store::open_read(&there).unwrap(),
    );
    let id = local["id"].as_str().unwrap();
    let (ra, rb) = (a.get(id).unwrap(), b.get(id).unwrap());
    assert_eq!(ra.result, rb.result);
    assert_eq!(a.timeline(&ra.id).unwrap(), b.timeline(&rb.id).unwrap());
    assert_eq!(a.histograms(&ra.id).unwrap(), b.histograms(&rb.id).unwrap());
    common::fresh_index(index, None);
    unpublish(prefix);
}

/// A store of `n` one-hour runs (3,600 timeline seconds, 3,600 telemetry samples each), made
/// from the real run `id` of `db`: each takes about a second to publish.
fn hour_runs(db: &Path, id: &str, n: usize, into: &Path) -> Vec<String> {
    let source = Store::open_read(db).unwrap();
    let mut run = searchbench::store::WholeRun::read(&source, &RunId(id.to_string())).unwrap();
    let row = run.timeline.last().cloned().unwrap();
    run.timeline = (0..3_600u64)
        .map(|s| {
            let mut r = row.clone();
            r["second"] = s.into();
            r
        })
        .collect();
    if let Some(map) = run.result.as_mut().and_then(Value::as_object_mut) {
        map.remove("timeline");
    }
    run.telemetry = (0..3_600u64)
        .map(|s| serde_json::json!({"second": s, "node": "n1", "cpu_pct": 80.0, "heap_used_pct": 40.0}))
        .collect();
    let store = Store::open(into).unwrap();
    (0..n)
        .map(|_| store.put_whole(&run, None, &[]).unwrap().0)
        .collect()
}

/// A results node killed mid-publish loses nothing: the runs it took are noted, the one it
/// was taking and those after stay pending, and once it is back `results publish --pending`
/// sends exactly those, each whole and once.
#[test]
fn a_results_node_killed_mid_publish_loses_nothing_and_the_pending_runs_follow() {
    let _heavy = common::one_track_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let source = ingest(&db, "searchbench-test-publish-kill", "build=1");
    let big = dir.path().join("big.db");
    let ids = hour_runs(&db, &source, 8, &big);
    // A node of our own, its data kept in a folder of ours so it can come back.
    let data = dir.path().join("results-node");
    let start = |port: Option<u16>| {
        let data = data.clone();
        std::thread::spawn(move || {
            let mut options = common::node_options(&common::test_engine());
            options.port = port;
            options.data = Some(data);
            tokio::runtime::Runtime::new()
                .unwrap()
                .block_on(searchbench::engine::start(&options))
        })
        .join()
        .unwrap()
        .unwrap_or_else(|e| panic!("starting the results node: {e}"))
    };
    let node = start(None);
    let url = node.url().to_string();
    let port: u16 = url
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let prefix = "sbtest-kill";
    let mut publishing = bin()
        .args(["results", "publish", "--json", "--publish", &url])
        .args([
            "--publish-prefix",
            prefix,
            // Long: a kill resets the connection at once, while a short bound on a loaded
            // machine failed the first run's bulk before the kill (sent 0 on CI at 497b06d).
            "--publish-timeout",
            "60",
            "--store",
        ])
        .arg(&big)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Killed once two runs are there.
    let results = common::target_at(&url, std::time::Duration::from_secs(5));
    let rt = common::runtime();
    let started = std::time::Instant::now();
    loop {
        let taken = rt
            .block_on(results.get_json(&format!("/{prefix}-runs/_count")))
            .ok()
            .and_then(|v: Value| v["count"].as_u64())
            .unwrap_or(0);
        if taken >= 2 {
            break;
        }
        assert!(
            publishing.try_wait().unwrap().is_none(),
            "the publish ended before the node was killed"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(120));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: a plain signal to the node this test started.
    assert_eq!(unsafe { libc::kill(node.pid() as i32, libc::SIGKILL) }, 0);
    let out = publishing.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", streams(&out));
    let said = json_of(&out);
    let sent = said["sent"].as_array().unwrap().len();
    let failed = said["failed"].as_array().unwrap().len();
    // The second run's documents may all be in when the node dies before answering its
    // last bulk: that run is not known to be there, so it stays pending too.
    assert!(
        sent >= 1 && sent < ids.len(),
        "sent {sent}, failed {failed}: {said}"
    );
    assert_eq!(
        sent + failed,
        ids.len(),
        "every run is sent or said pending: {said}"
    );
    drop(node);

    // Back on its port with its data: what was sent is there, the rest follows.
    let node = start(Some(port));
    let out = publish(&big, &url, prefix, &["--pending"]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    assert_eq!(
        json_of(&out)["sent"].as_array().unwrap().len(),
        failed,
        "exactly the pending runs"
    );
    let count_at = |what: &str, id: &str| -> u64 {
        let v: Value = rt
            .block_on(results.get_json(&format!("/{prefix}-{what}/_count?q=run_id:{id}")))
            .unwrap();
        v["count"].as_u64().unwrap()
    };
    for id in &ids {
        assert_eq!(count_at("runs", id), 1, "run {id}");
        assert_eq!(count_at("timeline", id), 3_600, "run {id}");
        assert_eq!(count_at("telemetry", id), 3_600, "run {id}");
    }
    drop(node);
    common::fresh_index("searchbench-test-publish-kill", None);
}

/// Views any store of runs tagged build=1 and build=2 answers.
const VIEWS: [&[&str]; 5] = [
    &["history", "--workload", "logs"],
    &["history", "--workload", "logs", "--by", "time", "--json"],
    &["compare", "build=1", "build=2"],
    &["check", "--last", "2", "--metric", "docs_per_sec"],
    &["results", "list"],
];

/// A store of three runs of the shared node: two of build=1, one of build=2.
fn three_runs(dir: &Path, index: &str) -> std::path::PathBuf {
    let db = dir.join("r.db");
    for build in ["1", "1", "2"] {
        ingest(&db, index, &format!("build={build}"));
    }
    common::fresh_index(index, None);
    db
}

/// The team's results cluster secured (TLS with its own CA, users): a user that may write,
/// and read, only the results indices publishes, its password from the environment and
/// nowhere in what is said or sent, and the views read back the same.
#[test]
fn a_user_allowed_only_the_results_indices_publishes_and_reads_back_over_tls() {
    use reqwest::Method;
    use searchbench::cluster::{Auth, Secret, Target, TargetConfig};
    let node = common::secured();
    let config = |user: &str, password: &str| TargetConfig {
        auth: Auth::Basic {
            user: user.into(),
            password: Secret::new(password),
        },
        ca_cert: Some(node.ca_cert.clone().into()),
        ..TargetConfig::local(node.url.clone())
    };
    let admin = Target::new(&config("admin", common::SECURED_PASSWORD)).unwrap();
    let prefix = "sbtest-secured";
    let (user, password) = ("sbtest_publisher", "Pub1ish-Only#Results9");
    let rt = common::runtime();
    let security = |path: &str, body: Value| {
        let _: Value = rt
            .block_on(admin.send_json(
                Method::PUT,
                &format!("/_plugins/_security/api/{path}"),
                &body,
            ))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
    };
    security(
        "roles/sbtest_results",
        serde_json::json!({
            "cluster_permissions": ["cluster_composite_ops"],
            "index_permissions": [{
                "index_patterns": [format!("{prefix}-*")],
                "allowed_actions": ["crud", "create_index", "indices:admin/get",
                                    "indices:admin/refresh*", "indices:admin/mapping/put"]
            }]
        }),
    );
    security(
        &format!("internalusers/{user}"),
        serde_json::json!({"password": password}),
    );
    security(
        "rolesmapping/sbtest_results",
        serde_json::json!({"users": [user]}),
    );
    // The user may not write anywhere else.
    let publisher = Target::new(&config(user, password)).unwrap();
    let elsewhere = rt.block_on(publisher.send_json::<Value>(
        Method::PUT,
        "/sbtest-not-results/_doc/1",
        &serde_json::json!({"x": 1}),
    ));
    assert!(
        matches!(
            elsewhere,
            Err(searchbench::cluster::TargetError::Status { status: 403, .. })
        ),
        "{elsewhere:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let db = three_runs(dir.path(), "searchbench-test-publish-secured");
    let env = [("SEARCHBENCH_PUBLISH_PASSWORD", password)];
    let out = bin()
        .args([
            "results",
            "publish",
            "--publish",
            &node.url,
            "--publish-user",
            user,
        ])
        .args([
            "--publish-ca-cert",
            &node.ca_cert,
            "--publish-prefix",
            prefix,
        ])
        .arg("--store")
        .arg(&db)
        .envs(env)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    assert!(!streams(&out).contains(password), "{}", streams(&out));
    // Nothing sent holds the password either.
    let hits: Value = rt
        .block_on(admin.get_json(&format!("/{prefix}-*/_search?size=100")))
        .unwrap();
    assert!(!hits.to_string().contains(password));
    assert!(hits["hits"]["hits"]
        .as_array()
        .is_some_and(|h| !h.is_empty()));

    let from = [
        "--from",
        node.url.as_str(),
        "--from-user",
        user,
        "--from-ca-cert",
        node.ca_cert.as_str(),
        "--from-prefix",
        prefix,
    ];
    same_from_both(&db, &from, &env, &VIEWS);
    // A wrong password: refused, said, nothing read.
    let out = bin()
        .args(["history", "--workload", "logs"])
        .args(from)
        .env("SEARCHBENCH_PUBLISH_PASSWORD", "wrong")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", streams(&out));
    assert!(streams(&out).contains("401"), "{}", streams(&out));
}

/// Elasticsearch 8 as the team's results cluster: the same indices, documents and reading
/// back as on OpenSearch.
#[test]
fn elasticsearch_8_takes_the_runs_and_gives_them_back() {
    let url = common::elasticsearch_8_url();
    let _heavy = common::heavy_on(url);
    let dir = tempfile::tempdir().unwrap();
    let db = three_runs(dir.path(), "searchbench-test-publish-es8");
    let prefix = "sbtest-es8";
    let out = publish(&db, url, prefix, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    assert_eq!(json_of(&out)["sent"].as_array().map(Vec::len), Some(3));
    same_from_both(&db, &["--from", url, "--from-prefix", prefix], &[], &VIEWS);
    // Kibana's dashboards over them: every chart's query answers from Elasticsearch 8.
    let es = common::target_at(url, std::time::Duration::from_secs(60));
    let charts = crate::dashboards::every_query_answers(&es, "kibana", prefix);
    assert_eq!(charts.len(), 36, "{charts:?}");
}

/// A real run (ingested into `index`, stored in `db`) as the nights of a nightly job are made
/// of it: night `i` of `n`, a day apart, tagged `build=nII`, its rate times `factor` with 1 %
/// of noise.
fn night_of(
    run: &searchbench::store::WholeRun,
    i: u64,
    n: u64,
    factor: f64,
) -> searchbench::store::WholeRun {
    let mut night = run.clone();
    night.started_unix = run.started_unix - (n - i) * 86_400;
    night.finished_unix = Some(night.started_unix + 10);
    night.tags = [("build".to_string(), format!("n{i:02}"))].into();
    let rate = night.result.as_ref().unwrap()["docs_per_sec"]
        .as_f64()
        .unwrap();
    night.result.as_mut().unwrap()["docs_per_sec"] =
        (rate * factor * (1.0 + 0.01 * ((i % 3) as f64 - 1.0))).into();
    night
}

/// A run ingested into `index` and stored in `db`, read whole (the index emptied after).
fn a_whole_run(db: &Path, index: &str) -> searchbench::store::WholeRun {
    let source = ingest(db, index, "build=0");
    common::fresh_index(index, None);
    searchbench::store::WholeRun::read(&Store::open_read(db).unwrap(), &RunId(source)).unwrap()
}

/// The change points of what is published are there too, once each however often the
/// configuration is published again: twelve nights, the last six 20 % slower.
#[test]
fn the_change_points_of_a_published_configuration_are_there_once() {
    let prefix = "sbtest-changes";
    unpublish(prefix);
    let dir = tempfile::tempdir().unwrap();
    let run = a_whole_run(&dir.path().join("r.db"), "searchbench-test-publish-changes");
    let nights = dir.path().join("nights.db");
    let store = Store::open(&nights).unwrap();
    let mut ids = Vec::new();
    for i in 0..12u64 {
        // A fifth slower from the seventh night.
        let night = night_of(&run, i, 12, if i >= 6 { 0.8 } else { 1.0 });
        ids.push(store.put_whole(&night, None, &[]).unwrap().0);
    }
    let changes = |metric: &str| -> Vec<Value> {
        let v: Value = common::runtime()
            .block_on(common::target().get_json(&format!(
                "/{prefix}-changes/_search?q=metric:{metric}%20AND%20axis:time"
            )))
            .unwrap();
        v["hits"]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["_source"].clone())
            .collect()
    };
    let named: Vec<&str> = ids.iter().map(String::as_str).collect();
    for round in 0..2 {
        let out = publish(&nights, node_url(), prefix, &named);
        assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
        assert!(
            json_of(&out)["change_points"].as_u64().unwrap() >= 1,
            "{}",
            streams(&out)
        );
        let found = changes("docs_per_sec");
        assert_eq!(found.len(), 1, "round {round}: {found:?}");
        let c = &found[0];
        assert_eq!(c["run_id"], ids[6].as_str());
        assert_eq!(c["shift"], "regression");
        assert_eq!(
            (c["from"].as_str(), c["to"].as_str()),
            (Some("build=n05"), Some("build=n06"))
        );
        assert!(c["size_pct"].as_f64().unwrap() < -15.0, "{c}");
    }
    unpublish(prefix);
}

/// Two stores on two classes of machine (a 2-core laptop's, a 64-core server's) publish to one
/// results node: read back from it, `history`, `check --last`, the site and the published
/// change points (what the dashboards draw) keep the classes apart, and pool them only when
/// asked, saying so. The server's nights fall by a fifth from the seventh; the laptop's do not.
#[test]
fn two_machine_classes_published_to_one_node_stay_apart_in_every_view() {
    let prefix = "sbtest-classes";
    unpublish(prefix);
    let dir = tempfile::tempdir().unwrap();
    let run = a_whole_run(&dir.path().join("r.db"), "searchbench-test-publish-classes");
    let epyc = serde_json::json!({
        "cpu_model": "AMD EPYC 7763 64-Core Processor", "cores": 64,
        "memory_bytes": 512u64 << 30, "os": "linux", "arch": "x86_64",
    });
    let mut stores = Vec::new();
    let mut last = Vec::new();
    for (name, server) in [("laptop", false), ("server", true)] {
        let path = dir.path().join(format!("{name}.db"));
        let store = Store::open(&path).unwrap();
        let mut ids = Vec::new();
        for i in 0..8u64 {
            let level = if server && i >= 4 { 0.8 } else { 1.0 };
            let scale = if server { 10.0 } else { 1.0 };
            let mut night = night_of(&run, i, 8, scale * level);
            if server {
                night.started_unix += 1;
                night.finished_unix = Some(night.started_unix + 10);
                night.machine = epyc.clone();
            }
            ids.push(store.put_whole(&night, None, &[]).unwrap().0);
        }
        let out = publish(&path, node_url(), prefix, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
        last.push(ids.pop().unwrap());
        stores.push(path);
    }
    let from = ["--from", node_url(), "--from-prefix", prefix];
    let read = |args: &[&str]| {
        let out = bin().args(args).args(from).output().unwrap();
        (out.status.code(), streams(&out), out.stdout)
    };
    // The history refuses to pool the two classes, naming the machine; pools them when asked.
    let (code, said, _) = read(&["history", "--workload", "logs"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("AMD EPYC 7763"), "{said}");
    let (code, said, out) = read(&["history", "--workload", "logs", "--any-machine", "--json"]);
    assert_eq!(code, Some(0), "{said}");
    let h: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(h["runs"].as_array().unwrap().len(), 16, "{said}");
    assert!(
        h["selection"]
            .as_str()
            .unwrap()
            .contains("machine classes pooled"),
        "{said}"
    );
    // check --last sets the server's last night against the server's nights only.
    let (_, said, _) = read(&[
        "check",
        &last[1],
        "--last",
        "20",
        "--metric",
        "docs_per_sec",
    ]);
    assert!(
        said.contains("last 7 run(s) of the same configuration"),
        "{said}"
    );
    // The site: a page each.
    let site = dir.path().join("site");
    let (code, said, out) = read(&["site", "--out", site.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{said}");
    let pages: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        pages["configurations"].as_array().unwrap().len(),
        2,
        "{said}"
    );
    // The published change points: the server's fall, in the server's configuration only.
    let v: Value = common::runtime()
        .block_on(common::target().get_json(&format!(
            "/{prefix}-changes/_search?q=metric:docs_per_sec%20AND%20axis:time"
        )))
        .unwrap();
    let found = v["hits"]["hits"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{v}");
    let c = &found[0]["_source"];
    assert_eq!(c["shift"], "regression", "{c}");
    assert_eq!(
        (c["from"].as_str(), c["to"].as_str()),
        (Some("build=n03"), Some("build=n04")),
        "{c}"
    );
    unpublish(prefix);
}

/// Runs too long for a page of them to fit the answer's bound are read in smaller pages,
/// down to one a page, not refused: every run comes back whole.
#[test]
fn long_runs_beyond_the_answers_bound_read_back_in_smaller_pages() {
    use searchbench::cluster::{Target, TargetConfig};
    let prefix = "sbtest-long-runs";
    unpublish(prefix);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let source = ingest(&db, "searchbench-test-publish-long", "build=1");
    common::fresh_index("searchbench-test-publish-long", None);
    let long = dir.path().join("long.db");
    let ids = hour_runs(&db, &source, 5, &long);
    let out = publish(&long, node_url(), prefix, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    // An answer bound that holds about two runs' documents: the first page of 16 is over it.
    let one: Value = common::runtime()
        .block_on(common::target().get_json(&format!("/{prefix}-runs/_doc/{}", ids[0])))
        .unwrap();
    let one = one["_source"].to_string().len() as u64;
    let target = Target::new(&TargetConfig {
        max_answer: one * 5 / 2,
        ..TargetConfig::local(node_url())
    })
    .unwrap();
    let publisher = searchbench::publish::Publisher::new(target, prefix).unwrap();
    let into = Store::in_memory(dir.path().join("unused.db")).unwrap();
    let read = common::runtime()
        .block_on(publisher.read_runs(&into))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.runs, ids.len());
    assert!(read.requests > 3, "smaller pages: {read:?}");
    let stored = Store::open_read(&long).unwrap();
    for id in &ids {
        let run = RunId(id.clone());
        assert_eq!(into.timeline(&run).unwrap(), stored.timeline(&run).unwrap());
    }
    unpublish(prefix);
}

/// A run document that is not what a publish writes (a run id that would name a file out of
/// the reports' folder, or another document's) is skipped with a warning naming the
/// document; the genuine runs are read and reported, nothing is written outside the folder.
#[test]
fn a_forged_run_document_is_skipped_naming_it() {
    let prefix = "sbtest-forged";
    unpublish(prefix);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    ingest(&db, "searchbench-test-publish-forged", "build=1");
    common::fresh_index("searchbench-test-publish-forged", None);
    let out = publish(&db, node_url(), prefix, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    let rt = common::runtime();
    let target = common::target();
    let id = Store::open_read(&db)
        .unwrap()
        .list(&Default::default())
        .unwrap()[0]
        .id
        .0
        .clone();
    let doc: Value = rt
        .block_on(target.get_json(&format!("/{prefix}-runs/_doc/{id}")))
        .unwrap();
    let mut forged = doc["_source"].clone();
    forged["row"]["id"] = "../../../escaped".into();
    let _: Value = rt
        .block_on(target.send_json(
            reqwest::Method::PUT,
            &format!("/{prefix}-runs/_doc/forged?refresh=true"),
            &forged,
        ))
        .unwrap();
    let report = dir.path().join("reports");
    let out = bin()
        .args([
            "report",
            "build=1",
            "--from",
            node_url(),
            "--from-prefix",
            prefix,
        ])
        .arg("--html")
        .arg(report.join("page.html"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    assert!(
        streams(&out).contains("warning: skipped run document forged of sbtest-forged-runs"),
        "{}",
        streams(&out)
    );
    assert!(report.join("page.html").exists());
    assert!(!dir.path().join("escaped.html").exists() && !report.join("../escaped").exists());
    unpublish(prefix);
}

/// Retention: `results prune --older-than 90d --publish URL` forgets a run begun 100 days ago
/// in the store and in the cluster (its documents in every index, deleted by id), keeps the
/// recent one in both, and the two still agree (`results verify` finds nothing missing).
#[test]
fn a_run_older_than_the_retention_goes_from_the_store_and_the_cluster() {
    let prefix = "sbtest-prune";
    unpublish(prefix);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let old = ingest(&db, "searchbench-test-prune", "build=old");
    let recent = ingest(&db, "searchbench-test-prune", "build=new");
    common::fresh_index("searchbench-test-prune", None);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE runs SET started_unix = started_unix - 100 * 86400 WHERE id = ?1",
        [&old],
    )
    .unwrap();
    drop(conn);
    let out = publish(&db, node_url(), prefix, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", streams(&out));
    assert_eq!(count(prefix, "runs", &old), 1);
    assert!(count(prefix, "metrics", &old) > 0 && count(prefix, "timeline", &old) > 0);

    let prune = |extra: &[&str]| {
        bin()
            .args(["results", "prune", "--older-than", "90d", "--json"])
            .args(["--publish", node_url(), "--publish-prefix", prefix])
            .arg("--store")
            .arg(&db)
            .args(extra)
            .output()
            .unwrap()
    };
    // Dry: said, nothing forgotten anywhere.
    let dry = json_of(&prune(&["--dry-run"]));
    assert_eq!(dry["store"]["runs"], serde_json::json!([old]), "{dry}");
    assert_eq!(dry["cluster"]["runs"], 1, "{dry}");
    assert_eq!(count(prefix, "runs", &old), 1);
    assert_eq!(
        Store::open_read(&db)
            .unwrap()
            .list(&Default::default())
            .unwrap()
            .len(),
        2
    );

    let done = json_of(&prune(&[]));
    assert_eq!(done["store"]["runs"], serde_json::json!([old]), "{done}");
    assert_eq!(done["cluster"]["runs"], 1, "{done}");
    for what in ["runs", "metrics", "timeline"] {
        assert_eq!(count(prefix, what, &old), 0, "{what} of the old run");
        assert!(count(prefix, what, &recent) > 0, "{what} of the recent run");
    }
    let left = Store::open_read(&db)
        .unwrap()
        .list(&Default::default())
        .unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].id.0, recent);
    // The store and the cluster still agree.
    let out = bin()
        .args(["results", "verify", "--json", "--publish", node_url()])
        .args(["--publish-prefix", prefix, "--store"])
        .arg(&db)
        .output()
        .unwrap();
    let verified = json_of(&out);
    assert_eq!(verified["present"], 1, "{verified}");
    // An age of nothing would forget every run: refused.
    let out = bin()
        .args(["results", "prune", "--older-than", "0", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    unpublish(prefix);
}

//! Versions and history: `history` over stored runs (a known shift found at its version, a mix
//! of configurations refused, JSON, the time axis) and `matrix` over two real engine versions.

use crate::common::results::ingest_result;
use crate::common::{bin, scratch_store, streams, succeeded};
use searchbench::rng::Rng;
use searchbench::store::{Kind, NewRun, Store};
use serde_json::{json, Value};

/// Stores one `run` of the logs workload on `engine` at about `docs_per_sec`, with `clients`
/// in its configuration and `tags`.
fn store_run(
    store: &Store,
    engine: &str,
    docs_per_sec: f64,
    clients: u64,
    tags: &[(&str, &str)],
    seed: u64,
) -> String {
    let mut run = NewRun::new(
        Kind::Run,
        "logs",
        json!({"workload": "logs", "corpus": format!("logs (seed {seed}, 20000 docs)"),
               "clients": clients, "bulk_docs": 500, "engine": engine, "seed": seed}),
    );
    run.engine = Some(engine.to_string());
    run.seed = Some(seed);
    run.tags = tags
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let result = ingest_result(12, docs_per_sec, 0.05, 20.0, seed);
    store.save(&run, &result).expect("save").0
}

/// Eight OpenSearch versions, three runs each, stored in an interleaved order; from 2.5.0 on
/// the throughput is 20 % lower.
fn shifted_history(store: &Store) {
    let mut rng = Rng::new(11, 0);
    let mut seed = 0;
    for _round in 0..3 {
        for minor in [3, 7, 1, 5, 8, 2, 6, 4] {
            let level = if minor >= 5 { 16_000.0 } else { 20_000.0 };
            let dps = level * (1.0 + 0.02 * rng.normalish());
            seed += 1;
            store_run(store, &format!("opensearch-2.{minor}.0"), dps, 2, &[], seed);
        }
    }
}

/// `searchbench matrix logs` over the two cached OpenSearch releases, two rounds, no query
/// phase, into `store`, with `extra` flags.
fn matrix(store: &std::path::Path, extra: &[&str]) -> std::process::Command {
    let mut cmd = bin();
    cmd.args([
        "matrix",
        "logs",
        "--engines",
        "opensearch-2.11.0,opensearch-2.19.1",
        "--repeats",
        "2",
        "--no-query",
        "--heap",
        "512m",
        // Each run's fresh node is warmed, briefly: the matrix is what is tested here.
        "--warm-node-max",
        "3s",
    ])
    .args(extra)
    .arg("--store")
    .arg(store);
    cmd
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", streams(out)))
}

#[test]
fn history_finds_a_known_shift_at_its_version() {
    let path = scratch_store();
    let store = Store::open(&path).unwrap();
    shifted_history(&store);
    let out = bin()
        .args(["history", "--workload", "logs", "--store"])
        .arg(&path)
        .output()
        .unwrap();
    let text = succeeded(&out);
    assert!(text.contains("24 run(s) at 8 point(s)"), "{text}");
    assert!(text.contains("REGRESSION"), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("throughput (headline)") && l.contains("REGRESSION"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("opensearch-2.4.0") && line.contains("opensearch-2.5.0"),
        "{line}"
    );
    // The JSON says the same, on the run where 2.5.0 starts, with a size near -20 %.
    let out = bin()
        .args(["history", "--workload", "logs", "--json", "--store"])
        .arg(&path)
        .output()
        .unwrap();
    let h = json_of(&out);
    let points: Vec<&str> = h["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        points,
        (1..=8)
            .map(|m| format!("opensearch-2.{m}.0"))
            .collect::<Vec<_>>()
    );
    let series = h["series"].as_array().unwrap();
    let t = series.iter().find(|s| s["key"] == "docs_per_sec").unwrap();
    let cps = t["change_points"].as_array().unwrap();
    assert_eq!(cps.len(), 1, "{cps:?}");
    let c = &cps[0];
    assert_eq!(c["index"], 12, "{c}");
    assert_eq!(c["shift"], "regression");
    assert_eq!(c["from"], "opensearch-2.4.0");
    assert_eq!(c["to"], "opensearch-2.5.0");
    let size = c["size_pct"].as_f64().unwrap();
    assert!((-25.0..-15.0).contains(&size), "{size}");
    assert!(c["interval"]["high_pct"].as_f64().unwrap() < 0.0, "{c}");
    assert!(c["p_value"].as_f64().unwrap() < 0.05, "{c}");
    // Groups of three: a median and an interval per version.
    let g = &t["groups"][0];
    assert_eq!(g["n"], 3);
    assert!(g["low"].as_f64().unwrap() < g["high"].as_f64().unwrap());
    // The page: a chart per metric, the change point marked.
    let html = scratch_store().with_extension("html");
    let out = bin()
        .args([
            "history",
            "--workload",
            "logs",
            "--metric",
            "throughput_docs_per_sec",
        ])
        .args(["--html"])
        .arg(&html)
        .arg("--store")
        .arg(&path)
        .output()
        .unwrap();
    succeeded(&out);
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<svg").count(), 1, "one metric asked");
    assert!(page.contains("class=\"change-point\""));
    assert_eq!(page.matches("class=\"data run\"").count(), 24);
    assert_eq!(page.matches("<script").count(), 1, "only the page's check");
    crate::common::browser::assert_charts_drawn(&html, 1, true);
}

#[test]
fn history_refuses_a_mix_of_configurations_and_names_them() {
    let path = scratch_store();
    let store = Store::open(&path).unwrap();
    for (i, clients) in [2, 2, 4, 4].into_iter().enumerate() {
        store_run(
            &store,
            "opensearch-2.19.1",
            20_000.0,
            clients,
            &[],
            i as u64 + 1,
        );
    }
    let out = bin()
        .args(["history", "--store"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 configurations"), "{err}");
    assert!(err.contains("clients: 2 vs 4"), "{err}");
    // The refusal names the ids; one of them narrows the selection.
    let id = err
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .find(|w| w.len() == 8 && w.chars().all(|c| c.is_ascii_hexdigit()))
        .unwrap_or_else(|| panic!("{err}"));
    let out = bin()
        .args(["history", "--json", "--config", id, "--store"])
        .arg(&path)
        .output()
        .unwrap();
    let h = json_of(&out);
    assert_eq!(h["runs"].as_array().unwrap().len(), 2);
    assert_eq!(h["configuration"]["id"], id);
    // An unknown metric is bad usage too.
    let out = bin()
        .args(["history", "--config", id, "--metric", "nope", "--store"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
}

#[test]
fn history_by_time_groups_runs_of_one_build() {
    let path = scratch_store();
    let store = Store::open(&path).unwrap();
    for (i, build) in ["100", "100", "101", "101", "102"].into_iter().enumerate() {
        store_run(
            &store,
            "opensearch-2.19.1",
            20_000.0,
            2,
            &[("build", build), ("job", "nightly")],
            i as u64 + 1,
        );
    }
    let out = bin()
        .args([
            "history",
            "--by",
            "time",
            "--tag",
            "job=nightly",
            "--json",
            "--store",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let h = json_of(&out);
    let points: Vec<(&str, usize)> = h["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["label"].as_str().unwrap(),
                p["runs"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        points,
        [("build=100", 2), ("build=101", 2), ("build=102", 1)]
    );
    assert_eq!(h["axis"], "time");
}

/// Two real OpenSearch releases (both in the engine cache), two rounds of a tiny load.
#[test]
fn matrix_over_two_real_versions_stores_every_run_with_its_tag() {
    let path = scratch_store();
    let out = matrix(
        &path,
        &[
            "--docs",
            "2000",
            "--warmup",
            "0",
            "--index",
            "searchbench-test-matrix",
        ],
    )
    .output()
    .unwrap();
    let text = succeeded(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("round 1:") && err.contains("round 2:"),
        "{err}"
    );
    // Each run's line says its figure as it ends.
    assert!(
        err.lines()
            .filter(|l| l.starts_with("matrix run ") && l.contains(" complete"))
            .all(|l| l.contains(" docs/s"))
            && err.contains(" docs/s"),
        "{err}"
    );
    // Every run's fresh node was warmed before its measured load.
    assert_eq!(err.matches("warmed the node: ").count(), 4, "{err}");
    assert!(text.contains("4 run(s) at 2 point(s)"), "{text}");
    assert!(text.contains("opensearch-2.11.0") && text.contains("opensearch-2.19.1"));
    // Two engines: a verdict per headline metric, and no change-point search.
    // (A piped table is 160 columns at most: the step's cell may wrap after its arrow.)
    assert!(
        text.contains("verdicts, each point against the one before")
            && text.contains("opensearch-2.11.0 →"),
        "{text}"
    );
    assert!(text.contains("change points: not searched"), "{text}");
    assert!(!text.contains("no change point in any metric"), "{text}");
    let id = text
        .lines()
        .find_map(|l| l.strip_prefix("matrix ")?.split(':').next())
        .unwrap_or_else(|| panic!("{text}"));
    let store = Store::open_existing(&path).unwrap();
    let runs = store
        .list(&searchbench::store::Filter {
            tags: vec![("matrix".into(), id.to_string())],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(runs.len(), 4, "{id}");
    let mut positions: Vec<u32> = runs
        .iter()
        .map(|r| r.tags["matrix_position"].parse().unwrap())
        .collect();
    positions.sort_unstable();
    assert_eq!(positions, [1, 2, 3, 4]);
    for engine in ["opensearch-2.11.0", "opensearch-2.19.1"] {
        assert_eq!(
            runs.iter()
                .filter(|r| r.engine.as_deref() == Some(engine))
                .count(),
            2
        );
        assert_eq!(
            runs.iter()
                .filter(|r| r.tags.get("engine").map(String::as_str) == Some(engine))
                .count(),
            2,
            "tagged engine={engine}"
        );
    }
    // The engines compare by their tags (once: "no run has the tags").
    let out = crate::common::bin()
        .args([
            "compare",
            "engine=opensearch-2.11.0",
            "engine=opensearch-2.19.1",
        ])
        .arg("--store")
        .arg(&path)
        .output()
        .unwrap();
    let compared = succeeded(&out);
    assert!(compared.contains("throughput"), "{compared}");
    let page = text
        .lines()
        .find_map(|l| l.strip_prefix("report: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(page.ends_with(&format!("matrix-{id}.html")), "{page}");
    let written = std::fs::read_to_string(page).unwrap();
    assert!(written.contains("<svg"));
    assert!(
        written.contains("id=\"verdicts\"")
            && written.contains("opensearch-2.11.0 → opensearch-2.19.1"),
        "the page opens with the verdicts"
    );
    assert!(
        !written.contains("median of the point"),
        "two points are not a trend"
    );
    crate::common::browser::assert_charts_drawn(std::path::Path::new(page), 1, false);
    // `report matrix=<id>` draws the very same page again from the store.
    let again = scratch_store().with_extension("html");
    let out = bin()
        .args(["report", &format!("matrix={id}"), "--html"])
        .arg(&again)
        .arg("--store")
        .arg(&path)
        .output()
        .unwrap();
    succeeded(&out);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), written);
}

/// An engine that cannot start (a JVM option no JVM knows) is recorded, skipped in later
/// rounds, and the matrix goes on to the end, then exits 1.
#[test]
fn matrix_records_engines_that_fail_to_start_and_goes_on() {
    let path = scratch_store();
    let out = matrix(
        &path,
        &[
            "--docs",
            "1000",
            "--jvm-opt=-XX:+NoSuchSearchbenchOption",
            "--index",
            "searchbench-test-matrix-fail",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", streams(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("runs that did not complete"),
        "{}",
        streams(&out)
    );
    assert_eq!(
        text.matches("skipped: it failed to start at run").count(),
        2,
        "{}",
        streams(&out)
    );
    assert!(text.contains("Unrecognized VM option"), "{text}");
    assert!(text.contains("failed"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4 run(s) did not complete"), "{err}");
    // The failed starts are in the store, tagged.
    let store = Store::open_existing(&path).unwrap();
    let runs = store.list(&Default::default()).unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs
        .iter()
        .all(|r| r.state == searchbench::store::State::Failed));
    assert!(runs.iter().all(|r| r.tags.contains_key("matrix")));
}

/// Ctrl-C during the first run: that run is kept as interrupted, the rest of the order is not
/// started, the table still prints, exit 130.
#[test]
fn matrix_stops_on_ctrl_c_and_keeps_what_is_done() {
    use std::io::BufRead;
    use std::process::Stdio;
    use std::time::Duration;
    let path = scratch_store();
    let mut child = matrix(
        &path,
        &[
            "--docs",
            "5000000",
            "--bulk-size",
            "200",
            "--clients",
            "1",
            "--warmup",
            "0",
            "--index",
            "searchbench-test-matrix-sigint",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Wait for the first engine to be up (its start line), then let the load run a little.
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains(" is up at ") {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    if rx.recv_timeout(Duration::from_secs(300)).is_err() {
        let _ = child.kill();
        panic!(
            "the first engine did not come up: {}",
            reader.join().unwrap()
        );
    }
    std::thread::sleep(Duration::from_secs(4));
    let status = crate::common::interrupt_and_wait(&mut child, Duration::from_secs(120));
    let out = child.wait_with_output().unwrap();
    let err = reader.join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(status.code(), Some(130), "{text}\n{err}");
    assert!(
        text.contains("3 run(s) of the order not started"),
        "{text}\n{err}"
    );
    assert!(err.contains("interrupted after 1 of 4 runs"), "{err}");
    let store = Store::open_existing(&path).unwrap();
    let runs = store.list(&Default::default()).unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].state, searchbench::store::State::Interrupted);
    assert!(runs[0].tags.contains_key("matrix"));
}

/// Nightlies of two configurations over builds: the first 20 % slower from build 105 on, three
/// runs a night; the second (4 clients) steady.
fn nightlies(store: &Store) -> usize {
    let mut rng = Rng::new(5, 0);
    let mut seed = 100;
    let mut n = 0;
    for build in 100..110 {
        let b = build.to_string();
        for _ in 0..3 {
            let level = if build >= 105 { 16_000.0 } else { 20_000.0 };
            seed += 1;
            let tags = [("build", b.as_str()), ("job", "nightly")];
            store_run(
                store,
                "opensearch-2.19.1",
                level * (1.0 + 0.02 * rng.normalish()),
                2,
                &tags,
                seed,
            );
            n += 1;
        }
        seed += 1;
        let tags = [("build", b.as_str()), ("job", "nightly")];
        store_run(
            store,
            "opensearch-2.19.1",
            30_000.0 * (1.0 + 0.02 * rng.normalish()),
            4,
            &tags,
            seed,
        );
        n += 1;
    }
    n
}

/// `site`: an index of both configurations with the newest verdict and the latest change
/// point, a page each with the change point marked between builds 104 and 105, every run's
/// report linked and written; the pages open offline in a browser with every chart drawn.
#[test]
fn site_shows_each_configuration_with_its_change_points_and_runs() {
    let path = scratch_store();
    let store = Store::open(&path).unwrap();
    let runs = nightlies(&store);
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["site", "--json", "--out"])
        .arg(dir.path())
        .arg("--store")
        .arg(&path)
        .output()
        .unwrap();
    let site: Value = serde_json::from_str(&succeeded(&out)).unwrap();
    assert_eq!(site["runs"], runs);
    let entries = site["configurations"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{site}");
    let shifted = entries.iter().find(|e| e["runs"] == 30).unwrap();
    let steady = entries.iter().find(|e| e["runs"] == 10).unwrap();
    assert_eq!(shifted["points"], 10);
    assert_eq!(shifted["newest"], "build=109");
    let change = shifted["latest_change"].as_str().unwrap();
    assert!(
        change.contains("regression")
            && change.contains("build=104")
            && change.contains("build=105"),
        "{change}"
    );
    assert!(steady["change_points"] == 0, "{steady}");
    // Pages: the index links both; each configuration's page marks its change points and
    // links every run to its report, which is there.
    let index = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    for e in entries {
        assert!(
            index.contains(&format!("href=\"{}\"", e["page"].as_str().unwrap())),
            "{index}"
        );
    }
    let page = dir.path().join(shifted["page"].as_str().unwrap());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("class=\"change-point\""),
        "no change point marked"
    );
    assert!(html.contains("href=\"index.html\""));
    let linked = html.matches("href=\"runs/").count();
    assert_eq!(linked, 30, "every run linked");
    let reports = std::fs::read_dir(dir.path().join("runs")).unwrap().count();
    assert_eq!(reports, runs);
    let steady_html =
        std::fs::read_to_string(dir.path().join(steady["page"].as_str().unwrap())).unwrap();
    assert!(!steady_html.contains("class=\"change-point\""));
    // Opened as a person would: every chart shows its runs, none fails.
    if let Some(charts) = crate::common::browser::assert_charts_drawn(&page, 3, false) {
        assert!(charts.len() >= 3, "{charts:?}");
    }
    // The index draws each configuration's headline (the overview), both of them.
    crate::common::browser::assert_charts_drawn(&dir.path().join("index.html"), 2, true);
}

/// `site` refuses what it cannot do, naming it: a store without a complete run (exit 2), an
/// --out that is a file (exit 1, naming it).
#[test]
fn site_refuses_an_empty_store_and_an_out_that_is_a_file() {
    let path = scratch_store();
    Store::open(&path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["site", "--out"])
        .arg(dir.path().join("site"))
        .arg("--store")
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no complete run"), "{err}");
    let store = Store::open(&path).unwrap();
    store_run(&store, "opensearch-2.19.1", 20_000.0, 2, &[], 1);
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = bin()
        .args(["site", "--out"])
        .arg(&file)
        .arg("--store")
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("a-file"), "{err}");
}

//! Telemetry beside a run: per-second series stored with it and drawn in its report,
//! rejections shown and compared, `--no-telemetry`, and a target that stops answering its
//! stats never holding the run up.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{self, bin, node_pid, node_url, scratch_dir, scratch_store, streams};
use searchbench::store::Store;
use serde_json::Value;

/// The one run of `store` tagged `case=<case>`.
fn run_of(store: &Path, case: &str) -> (Store, searchbench::store::RunRow) {
    let store = Store::open_existing(store).expect("the store");
    let mut runs = store.select(&format!("case={case}")).expect("the run");
    assert_eq!(runs.len(), 1, "one run tagged case={case}");
    let run = runs.remove(0);
    (store, run)
}

fn node_rows(rows: &[Value]) -> Vec<&Value> {
    rows.iter().filter(|r| r["node"] != "driver").collect()
}

#[test]
fn an_ingest_stores_one_sample_per_second_and_its_report_draws_the_charts() {
    let url = node_url();
    let pid = node_pid().expect("the shared node's pid").to_string();
    let store = scratch_store();
    let out = bin()
        .args(["ingest", "logs", "--url", url, "--engine-pid", &pid])
        .args(["--docs", "60000", "--bulk-size", "100", "--clients", "1"])
        .args(["--index", "telemetry-series", "--replace", "--warmup", "0"])
        .args(["--tag", "case=series", "-q", "--verbose", "--store"])
        .arg(&store)
        .output()
        .expect("searchbench ingest");
    let text = streams(&out);
    assert!(out.status.success(), "{text}");
    for needle in [
        "telemetry: ",
        "GC ",
        "heap peak",
        "write queue up to",
        "engine CPU",
    ] {
        assert!(
            text.contains(needle),
            "no {needle:?} in the summary: {text}"
        );
    }
    let (db, run) = run_of(&store, "series");
    let rows = db.telemetry(&run.id).unwrap();
    let nodes = node_rows(&rows);
    // 60,000 documents 100 at a time from one client: several seconds even on a fast, idle node.
    assert!(nodes.len() >= 3, "too few samples: {}", nodes.len());
    // One sample per second: consecutive seconds, about a second apart (the machine may be
    // busy: a missed second or a late answer is allowed, not a pattern of them).
    let seconds: Vec<u64> = nodes
        .iter()
        .map(|r| r["second"].as_u64().unwrap())
        .collect();
    assert!(seconds.windows(2).all(|w| w[1] > w[0]), "{seconds:?}");
    let steps = seconds.windows(2).filter(|w| w[1] - w[0] == 1).count();
    assert!(
        steps * 10 >= (seconds.len() - 1) * 8,
        "not one per second: {seconds:?}"
    );
    let dts: Vec<f64> = nodes.iter().filter_map(|r| r["dt"].as_f64()).collect();
    let near = dts.iter().filter(|d| (0.5..=1.6).contains(*d)).count();
    assert!(near * 10 >= dts.len() * 8, "intervals: {dts:?}");
    // Heap, GC, CPU (from /proc: the node is ours) and the thread pools in every row after
    // the first.
    for r in &nodes[1..] {
        for key in [
            "heap_used_bytes",
            "heap_committed_bytes",
            "young_gc_count",
            "gc_ms_per_s",
            "cpu_cores",
            "cpu_user_cores",
            "rss_bytes",
            "write_active",
            "write_queue",
            "write_rejected",
            "segments",
            "indexing_per_s",
        ] {
            assert!(r[key].is_number(), "no {key} in {r}");
        }
    }
    let driver: Vec<&Value> = rows.iter().filter(|r| r["node"] == "driver").collect();
    assert_eq!(driver.len(), nodes.len());
    assert!(driver[1..]
        .iter()
        .all(|r| r["sampler_cpu_ms_per_s"].is_number() && r["driver_cpu_cores"].is_number()));
    let result = run.result.as_ref().expect("a result");
    let summary = &result["telemetry"];
    assert_eq!(summary["samples"].as_u64(), Some(nodes.len() as u64));
    assert!(summary["heap_peak_bytes"].as_f64().unwrap() > 0.0);
    assert!(summary["timeline_offset_secs"].as_f64().is_some());
    // The report draws the telemetry charts: laid out, lines visible, no script error.
    let page = scratch_dir().join("telemetry-series.html");
    let out = bin()
        .args(["report", &run.id.0, "--store"])
        .arg(&store)
        .arg("--html")
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", streams(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    for title in [
        "Heap, with GC marked",
        "CPU",
        "Thread pools",
        "Segments and merges",
        "Disk",
    ] {
        assert!(html.contains(&format!("<h3>{title}")), "no chart {title}");
    }
    let charts = html.matches(" data-telemetry=\"").count();
    assert_eq!(charts, 5, "heap, CPU, pools, segments, disk");
    // One throughput chart: the run's own, with the warm-up shaded.
    assert_eq!(
        html.matches("<h3>Throughput").count(),
        1,
        "one throughput chart"
    );
    // The page opens with the headline and what bounded the load, before any chart.
    let headline = html.find("id=\"headline\"").expect("a headline");
    assert!(headline < html.find("<figure").unwrap());
    assert!(html[headline..].contains("bounded by: "), "a diagnosis");
    // The run's own charts (throughput, service time, ...) and the five of the telemetry,
    // each with its data visible once laid out.
    crate::common::browser::assert_charts_drawn(&page, 5 + 1, false);
}

#[test]
fn no_telemetry_stores_none_and_says_nothing() {
    let store = scratch_store();
    let out = bin()
        .args(["ingest", "logs", "--url", node_url(), "--docs", "2000"])
        .args(["--index", "telemetry-off", "--replace", "--no-telemetry"])
        .args(["--tag", "case=off", "-q", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    let text = streams(&out);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("telemetry:"), "{text}");
    let (db, run) = run_of(&store, "off");
    assert!(db.telemetry(&run.id).unwrap().is_empty());
    assert!(run.result.as_ref().unwrap().get("telemetry").is_none());
    // A sub-second interval is refused, naming the flag's limit.
    let out = bin()
        .args([
            "ingest",
            "logs",
            "--url",
            node_url(),
            "--telemetry-interval",
            "200ms",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", streams(&out));
    assert!(streams(&out).contains("at most once a second"));
}

/// A node of its own with a write pool of one thread and a queue of one: several clients
/// get rejections.
fn tiny_write_pool_node() -> searchbench::engine::Node {
    std::thread::spawn(|| {
        let mut options = common::node_options(&common::test_engine());
        options.settings = vec![
            ("thread_pool.write.size".into(), "1".into()),
            ("thread_pool.write.queue_size".into(), "1".into()),
        ];
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(searchbench::engine::start(&options))
    })
    .join()
    .unwrap()
    .expect("a node with a tiny write pool")
}

#[test]
fn rejections_show_in_the_summary_and_in_compare() {
    let node = tiny_write_pool_node();
    let url = node.url().to_string();
    let store = scratch_store();
    let ingest = |case: &str, clients: &str| {
        bin()
            .args(["ingest", "logs", "--url", &url, "--docs", "20000"])
            .args([
                "--bulk-size",
                "100",
                "--clients",
                clients,
                "--max-failures",
                "100%",
            ])
            .args(["--index", &format!("telemetry-{case}"), "--replace"])
            .args(["--tag", &format!("case={case}"), "-q", "--store"])
            .arg(&store)
            .output()
            .unwrap()
    };
    let calm = ingest("calm", "1");
    let pressed = ingest("pressed", "8");
    let _ = std::thread::spawn(move || node.stop()).join();
    assert!(calm.status.success(), "{}", streams(&calm));
    let text = streams(&pressed);
    assert!(pressed.status.success(), "{text}");
    let (_, calm_run) = run_of(&store, "calm");
    let (_, pressed_run) = run_of(&store, "pressed");
    let rejected = |run: &searchbench::store::RunRow| {
        run.result.as_ref().unwrap()["telemetry"]["write_rejections"]
            .as_f64()
            .unwrap_or(-1.0)
    };
    assert_eq!(rejected(&calm_run), 0.0, "{}", streams(&calm));
    assert!(rejected(&pressed_run) > 0.0, "no rejections: {text}");
    assert!(
        !text.contains(" 0 rejection(s); search"),
        "the summary hides them: {text}"
    );
    assert!(
        text.contains("bounded by: ") && text.contains("rejection"),
        "{text}"
    );
    // compare: more rejections are worse, with no interval needed.
    let out = bin()
        .args(["compare", "case=calm", "case=pressed", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", streams(&out));
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "telemetry.write_rejections")
        .unwrap_or_else(|| panic!("no rejections row: {c}"));
    assert_eq!(row["contenders"][0]["verdict"], "worse", "{row}");
    for key in [
        "telemetry.gc_ms_per_s",
        "telemetry.heap_peak_mb",
        "error_rate_pct",
    ] {
        assert!(
            c["rows"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["key"] == key),
            "no {key} in compare"
        );
    }
}

#[test]
fn a_target_that_stops_answering_its_stats_does_not_hold_the_phase_up() {
    // Accepts connections (the kernel's backlog) and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let target = common::target_at(&url, Duration::from_secs(30));
    let runtime = common::runtime();
    let started = Instant::now();
    use searchbench::session::lifecycle::{
        self, Identity, Measurements, Phase, Plan, Report, Stage, Step, StepEnd, Work,
    };
    use searchbench::session::telemetry::{Telemetry, TelemetryInstrument, TELEMETRY};
    use std::{cell::RefCell, rc::Rc};
    /// A phase that only waits, with the sampler around it; it keeps what the sampler saw.
    struct Wait(Rc<RefCell<Option<Telemetry>>>);
    impl Phase for Wait {
        fn ended(&mut self, _: &Stage<'_>, end: &mut StepEnd) -> Option<Report> {
            *self.0.borrow_mut() = end.watched.take(&TELEMETRY);
            None
        }
        fn name(&self) -> String {
            "ingest".into()
        }
        fn run<'a>(
            &'a mut self,
            _: &'a Stage<'a>,
        ) -> Work<'a, Result<Measurements, searchbench::session::SessionError>> {
            Box::pin(async {
                tokio::time::sleep(Duration::from_millis(3500)).await;
                Ok(Measurements::default())
            })
        }
    }
    let spec = searchbench::session::TelemetrySpec::default();
    let sampled = Rc::new(RefCell::new(None));
    let plan = Plan::new(
        Identity::new(
            searchbench::store::Kind::Ingest,
            "wait",
            serde_json::Value::Null,
        ),
        vec![Step::One(Box::new(Wait(sampled.clone())))],
    )
    .instrument(TelemetryInstrument::new(&spec));
    let cluster = searchbench::session::ClusterSpec::given(target, &[url], None);
    let ran = runtime.block_on(lifecycle::run(
        &cluster,
        plan,
        &searchbench::session::Silent,
        |outcome| Ok(outcome.phases.len()),
    ));
    let took = started.elapsed();
    assert_eq!(ran.result.expect("the phase ends"), 1);
    assert!(took < Duration::from_secs(6), "held up for {took:?}");
    let sampled = sampled.take().expect("telemetry");
    assert_eq!(sampled.samples, 0);
    assert!(sampled.missed >= 2, "missed {}", sampled.missed);
    let summary = sampled.summary(None);
    assert_eq!(summary.missed, sampled.missed);
    assert_eq!(summary.nodes, 0);
    drop(silent);
}

/// The telemetry summary of an ingest of the shared node, read through its own process
/// (`--engine-pid`) or only through `_nodes/stats`. Long enough for several samples: the
/// engine's CPU through `_nodes/stats` is a cached figure, and a load of two one-second
/// samples (60,000 documents at ~30,000/s) could end before it moved, leaving no figure.
fn engine_cpu(case: &str, engine_pid: bool) -> (Value, String) {
    let json = scratch_dir().join(format!("telemetry-{case}.json"));
    let mut cmd = bin();
    cmd.args([
        "ingest",
        "logs",
        "--url",
        node_url(),
        "--no-store",
        "-q",
        "--verbose",
    ])
    .args(["--docs", "150000", "--clients", "2", "--warmup", "0"])
    .args(["--index", &format!("telemetry-{case}"), "--replace"])
    .arg("--json")
    .arg(&json);
    if engine_pid {
        let pid = node_pid().expect("the shared node's pid").to_string();
        cmd.args(["--engine-pid", &pid]);
    }
    let out = cmd.output().expect("searchbench ingest");
    let text = streams(&out);
    assert!(out.status.success(), "{text}");
    let result: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (result["telemetry"].clone(), text)
}

#[test]
fn engine_cpu_is_of_the_cores_the_engine_may_use_and_never_above_them_unsaid() {
    let machine = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    // Its own processes: the limit is read from them (affinity, cgroup quota).
    let (t, text) = engine_cpu("cpu-local", true);
    let limit = t["engine_cpu_limit"]["cores"].as_f64().expect("a limit");
    assert!(limit >= 1.0 && limit <= machine + 1.0, "{t}");
    let source = t["engine_cpu_limit"]["source"].as_str().unwrap();
    assert!(
        text.contains("peak (of ") && text.contains(source),
        "{text}"
    );
    let peak = t["engine_cpu_cores_peak"].as_f64().expect("a peak");
    assert!(
        peak <= limit * 1.05 || t["engine_cpu_peak_note"].is_string(),
        "{peak} above {limit} unsaid: {t}"
    );
    // Through `_nodes/stats` only, its cached CPU once read as peaks of twice the real
    // figure (3.6-3.9 "of 2"): now rated over the engine's own clock.
    let (t, text) = engine_cpu("cpu-remote", false);
    assert!(t["engine_cpu_limit"].is_null(), "{t}");
    assert!(text.contains("the driver's machine has"), "{text}");
    let peak = t["engine_cpu_cores_peak"].as_f64().expect("a peak");
    assert!(
        peak <= machine * 1.25,
        "peak {peak} on {machine} cores: {t}"
    );
}

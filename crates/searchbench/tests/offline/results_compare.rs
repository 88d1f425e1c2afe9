//! Comparing stored runs: verdicts on synthetic results, groups of repeated runs, the CLI.

use crate::common::bin;
use crate::common::results::{ingest_result, ingest_run, logs_query_result, query_result, save};
use searchbench::analysis::compare::{compare, Comparison, Side, Verdict};
use searchbench::analysis::statistics::SampleKind;
use searchbench::store::Store;
use serde_json::Value;

fn verdict(c: &Comparison, key: &str, contender: usize) -> Verdict {
    let row = c
        .rows
        .iter()
        .find(|r| r.key == key)
        .unwrap_or_else(|| panic!("no row {key}"));
    row.contenders[contender].as_ref().unwrap().verdict
}

#[test]
fn clearly_better_clearly_worse_and_the_same_config_twice() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let base = save(&store, &ingest_result(60, 20_000.0, 0.10, 20.0, 1), &[]);
    let better = save(&store, &ingest_result(60, 25_000.0, 0.10, 14.0, 2), &[]);
    let worse = save(&store, &ingest_result(60, 15_000.0, 0.10, 30.0, 3), &[]);
    let same = save(&store, &ingest_result(60, 20_000.0, 0.10, 20.0, 4), &[]);
    let side = |id: &str| Side::load(&store, id).unwrap();
    // Three contenders in one table.
    let c = compare(side(&base), vec![side(&better), side(&worse), side(&same)]);
    let t = "throughput_docs_per_sec";
    assert_eq!(verdict(&c, t, 0), Verdict::Better);
    assert_eq!(verdict(&c, t, 1), Verdict::Worse);
    assert_eq!(
        verdict(&c, t, 2),
        Verdict::NoSignificantChange,
        "{:#?}",
        c.rows[0]
    );
    assert_eq!(
        verdict(&c, "service_mean_ms", 0),
        Verdict::Better,
        "lower is better"
    );
    assert_eq!(verdict(&c, "service_mean_ms", 1), Verdict::Worse);
    assert_eq!(
        verdict(&c, "service_mean_ms", 2),
        Verdict::NoSignificantChange
    );
    // The interval is there with its sample counts (first and last second left out).
    let cell = c.rows[0].contenders[2].as_ref().unwrap();
    let ci = cell.ci.unwrap();
    assert!(ci.low_pct < 0.0 && ci.high_pct > 0.0, "{ci:?}");
    assert_eq!((cell.n_base, cell.n), (Some(58), Some(58)));
    // Percentiles are single values per run: a difference, no interval, no claim.
    assert_eq!(verdict(&c, "service_p99_ms", 2), Verdict::NoInterval);
    // Attribution rows are there, informational.
    assert!(c
        .rows
        .iter()
        .any(|r| r.key.starts_with("attribution.budget.")));
    // The notes say that one run per side covers within-run noise only.
    assert!(
        c.notes.iter().any(|n| n.contains("one run per side")),
        "{:?}",
        c.notes
    );
    assert!(c.any_worse());
    // Deterministic: the same runs give the same intervals.
    let again = compare(side(&base), vec![side(&better), side(&worse), side(&same)]);
    assert_eq!(
        serde_json::to_string(&c).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

#[test]
fn percentiles_get_intervals_from_the_stored_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let stored = |secs, rate, service, seed| {
        let (result, histograms) = ingest_run(secs, rate, 0.10, service, seed);
        let id = save(&store, &result, &[]);
        let run = store.get(&id).unwrap();
        store.put_histograms(&run.id, &histograms).unwrap();
        (id, result)
    };
    let (base, _) = stored(60, 20_000.0, 20.0, 1);
    let (faster, _) = stored(60, 20_000.0, 12.0, 2);
    let (slower, _) = stored(60, 20_000.0, 30.0, 3);
    let (same, _) = stored(60, 20_000.0, 20.0, 5);
    let side = |id: &str| Side::load(&store, id).unwrap();
    let c = compare(side(&base), vec![side(&faster), side(&slower), side(&same)]);
    for key in ["service_p50_ms", "service_p90_ms"] {
        let r = c.rows.iter().find(|r| r.key == key).unwrap();
        assert_eq!(verdict(&c, key, 0), Verdict::Better, "{key}");
        assert_eq!(verdict(&c, key, 1), Verdict::Worse, "{key}");
        assert_eq!(
            verdict(&c, key, 2),
            Verdict::NoSignificantChange,
            "{key}: {:?} vs {:?}",
            r.base,
            r.contenders[2]
        );
    }
    // One draw per second of the run (60 s): p99 needs 100 of them.
    let row = c.rows.iter().find(|r| r.key == "service_p50_ms").unwrap();
    let cell = row.contenders[2].as_ref().unwrap();
    assert_eq!(cell.samples, Some(SampleKind::PerRequest));
    assert_eq!((cell.n_base, cell.n), (Some(60), Some(60)));
    assert_eq!(verdict(&c, "service_p99_ms", 2), Verdict::TooFewSamples);
    // Max has no interval.
    let max = c.rows.iter().find(|r| r.key == "service_max_ms").unwrap();
    assert!(max
        .contenders
        .iter()
        .flatten()
        .all(|cell| cell.ci.is_none()));
}

#[test]
fn repeated_runs_compare_over_runs() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    // At 95 % one comparison of identical configurations in twenty is flagged by chance;
    // these seeded runs are not one of them.
    for i in 0..5 {
        save(
            &store,
            &ingest_result(20, 20_000.0, 0.10, 20.0, 1000 + i),
            &[("build", "a")],
        );
        save(
            &store,
            &ingest_result(20, 20_000.0, 0.10, 20.0, 2000 + i),
            &[("build", "b")],
        );
        save(
            &store,
            &ingest_result(20, 26_000.0, 0.10, 20.0, 300 + i),
            &[("build", "c")],
        );
    }
    save(
        &store,
        &ingest_result(20, 20_000.0, 0.10, 20.0, 400),
        &[("build", "few")],
    );
    save(
        &store,
        &ingest_result(20, 20_000.0, 0.10, 20.0, 401),
        &[("build", "few")],
    );
    let side = |sel: &str| Side::load(&store, sel).unwrap();
    let c = compare(
        side("build=a"),
        vec![side("build=b"), side("build=c"), side("build=few")],
    );
    assert_eq!(c.base.run_ids.len(), 5);
    assert!(c.base.label.contains("5 runs"));
    let t = "throughput_docs_per_sec";
    assert_eq!(
        verdict(&c, t, 0),
        Verdict::NoSignificantChange,
        "{:?}",
        c.rows[0].contenders[0]
    );
    assert_eq!(verdict(&c, t, 1), Verdict::Better);
    // Two runs a side are enough for Welch's t: same level, no significant change, with the
    // smallest change those runs could have seen.
    assert_eq!(verdict(&c, t, 2), Verdict::NoSignificantChange);
    let few = c.rows[0].contenders[2].as_ref().unwrap();
    assert!(few.min_detectable_pct.is_some() && few.spread_pct.is_some());
    // Over runs, percentiles get intervals too.
    let p99 = c.rows.iter().find(|r| r.key == "service_p50_ms").unwrap();
    assert!(p99.contenders[0].as_ref().unwrap().ci.is_some());
    assert!(c.notes.iter().any(|n| n.contains("Welch")), "{:?}", c.notes);
}

#[test]
fn query_cells_compare_per_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let base = save(&store, &query_result(40.0, 1), &[]);
    let faster = save(&store, &query_result(28.0, 2), &[]);
    let same = save(&store, &query_result(40.0, 3), &[]);
    let side = |id: &str| Side::load(&store, id).unwrap();
    let c = compare(side(&base), vec![side(&faster), side(&same)]);
    let k = "query.D_td.serial.took_ms";
    assert_eq!(verdict(&c, k, 0), Verdict::Better);
    assert_eq!(verdict(&c, k, 1), Verdict::NoSignificantChange);
    let cell = c.rows.iter().find(|r| r.key == k).unwrap().contenders[0]
        .clone()
        .unwrap();
    assert_eq!((cell.n_base, cell.n), (Some(30), Some(30)));
    assert!(c.rows.iter().any(|r| r.key == "accuracy.D_td.pct_max_err"));
}

#[test]
fn wrong_newest_hits_and_buckets_are_wrong_answers() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let id = save(&store, &logs_query_result(30.0, 1), &[]);
    let side = Side::load(&store, &id).unwrap();
    let wrong = |key: &str| {
        side.metrics
            .iter()
            .find(|m| m.key == key)
            .unwrap_or_else(|| panic!("no {key}"))
            .value
    };
    assert_eq!(wrong("accuracy.range_terms_s10.wrong"), 3.0);
    assert_eq!(wrong("accuracy.histogram_s0.wrong"), 0.0);
}

#[test]
fn cli_import_list_show_compare() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.db");
    let mut ids = Vec::new();
    for (i, rate) in [20_000.0, 12_000.0].iter().enumerate() {
        let file = dir.path().join(format!("r{i}.json"));
        std::fs::write(
            &file,
            serde_json::to_vec(&ingest_result(30, *rate, 0.05, 20.0, i as u64)).unwrap(),
        )
        .unwrap();
        let out = bin()
            .args(["results", "import"])
            .arg(&file)
            .args(["--tag", &format!("n={i}"), "--store"])
            .arg(&db)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        ids.push(String::from_utf8(out.stdout).unwrap().trim().to_string());
    }
    // The environment variable works as --store.
    let out = bin()
        .args(["results", "list", "--tag", "n=1"])
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains(&ids[1]) && !text.contains(&ids[0]), "{text}");
    assert!(
        text.contains("opensearch-2.19.1") && text.contains("docs/s"),
        "{text}"
    );

    let out = bin()
        .args(["results", "show", &ids[0]])
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("throughput") && text.contains("n=0"),
        "{text}"
    );

    let out = bin()
        .args(["results", "show", "deadbeef9"])
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    let out = bin()
        .args(["compare", &ids[0], &ids[1], "--json"])
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"][0]["key"], "throughput_docs_per_sec");
    assert_eq!(v["rows"][0]["contenders"][0]["verdict"], "worse");

    let out = bin()
        .args(["compare", &ids[0], &ids[1], "--fail-on-worse"])
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("WORSE") && text.contains("58 vs 28 seconds")
            || text.contains("28 vs 28 seconds"),
        "{text}"
    );

    // Reports: HTML, Markdown, CSV.
    let html = dir.path().join("r.html");
    let md = dir.path().join("r.md");
    let csv = dir.path().join("r.csv");
    let out = bin()
        .args(["report", &ids[0], &ids[1], "--html"])
        .arg(&html)
        .arg("--markdown")
        .arg(&md)
        .arg("--csv")
        .arg(&csv)
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<figure class=\"chart\"") && page.contains("render-status"));
    assert!(!page.contains("src=\"http"), "the page must work offline");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("| metric |") && md.contains("worse"), "{md}");
    // `--markdown FILE` (above) is the old spelling of `--export-markdown FILE`; `--markdown`
    // alone prints the same Markdown on stdout, and nothing else there.
    let exported = dir.path().join("r2.md");
    let out = bin()
        .args(["report", &ids[0], &ids[1], "--export-markdown"])
        .arg(&exported)
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&exported).unwrap(), md);
    let out = bin()
        .args(["report", &ids[0], &ids[1], "--markdown"])
        .env("SEARCHBENCH_STORE", &db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), md);
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv.starts_with("run_id,kind,workload,engine,metric,unit,second,value\n"));
    assert!(
        csv.contains(",timeline.docs,,5,"),
        "{}",
        &csv[..400.min(csv.len())]
    );
}

/// A store with three runs tagged cfg=a and three tagged cfg=b (faster).
fn two_groups() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("groups.db");
    let store = Store::open(&db).unwrap();
    for i in 0..3 {
        save(
            &store,
            &ingest_result(20, 20_000.0, 0.05, 20.0, 10 + i),
            &[("cfg", "a")],
        );
        save(
            &store,
            &ingest_result(20, 26_000.0, 0.05, 15.0, 20 + i),
            &[("cfg", "b")],
        );
    }
    (dir, db)
}

fn run_ok(args: &[&str], db: &std::path::Path) -> String {
    let out = bin().args(args).arg("--store").arg(db).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn report_and_compare_build_the_same_groups() {
    let (dir, db) = two_groups();
    let md = dir.path().join("groups.md");
    let html = dir.path().join("groups.html");
    run_ok(
        &[
            "report",
            "cfg=a",
            "cfg=b",
            "--markdown",
            md.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ],
        &db,
    );
    let md = std::fs::read_to_string(&md).unwrap();
    // The same table `compare` prints: cfg=b (3 runs) against cfg=a (3 runs), not six runs
    // against the first.
    let table = run_ok(&["compare", "cfg=a", "cfg=b", "--markdown"], &db);
    assert!(
        table.starts_with("| metric | unit | cfg=a (3 runs) (base) | cfg=b (3 runs) |"),
        "{table}"
    );
    assert!(md.contains(&table), "report:\n{md}\ncompare:\n{table}");
    assert_eq!(
        md.matches("diff [95 % CI]").count(),
        1,
        "one contender: {md}"
    );
    // Every run is charted under its group's name.
    let page = std::fs::read_to_string(&html).unwrap();
    let data: Vec<Value> = page
        .split("<figure class=\"chart\" data-chart=\"")
        .skip(1)
        .map(|f| {
            let text = &f[..f.find('"').unwrap()];
            serde_json::from_str(&text.replace("&quot;", "\"").replace("&amp;", "&")).unwrap()
        })
        .collect();
    let throughput = data
        .iter()
        .find(|c| c["name"] == "Throughput over time")
        .expect("a throughput chart");
    let lines: Vec<&str> = throughput["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        lines,
        ["cfg=a (3 runs)"; 3]
            .into_iter()
            .chain(["cfg=b (3 runs)"; 3])
            .collect::<Vec<_>>()
    );
    assert_eq!(
        throughput["legend"],
        serde_json::json!(["cfg=a (3 runs)", "cfg=b (3 runs)"])
    );
}

#[test]
fn compare_only_changed_hides_the_unchanged_and_says_how_many() {
    let (_dir, db) = two_groups();
    let full: Value =
        serde_json::from_str(&run_ok(&["compare", "cfg=a", "cfg=b", "--json"], &db)).unwrap();
    let all = full["rows"].as_array().unwrap().len();
    let json: Value = serde_json::from_str(&run_ok(
        &["compare", "cfg=a", "cfg=b", "--json", "--only-changed"],
        &db,
    ))
    .unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert!(
        !rows.is_empty() && rows.len() < all,
        "{} of {all}",
        rows.len()
    );
    for r in rows {
        let v = r["contenders"][0]["verdict"].as_str().unwrap();
        assert!(v == "better" || v == "worse", "{r}");
    }
    let hidden = json["hidden_unchanged"].as_u64().unwrap() as usize;
    assert_eq!(hidden + rows.len(), all);
    let said = format!("{hidden} metric(s) without a significant change hidden");
    let text = run_ok(&["compare", "cfg=a", "cfg=b", "--only-changed"], &db);
    assert!(text.contains(&said), "{text}");
    assert!(
        !text.contains("no significant change") && text.contains("better ✓"),
        "{text}"
    );
    let md = run_ok(
        &["compare", "cfg=a", "cfg=b", "--only-changed", "--markdown"],
        &db,
    );
    assert!(md.contains(&said), "{md}");
    assert_eq!(
        md.lines().filter(|l| l.starts_with("| ")).count(),
        rows.len() + 1,
        "{md}"
    );
}

#[test]
fn a_sweep_saturation_or_matrix_the_store_does_not_hold_is_bad_usage() {
    let (_dir, db) = two_groups();
    for selector in ["sweep=nope", "saturate=nope", "matrix=nope"] {
        let out = bin()
            .args(["report", selector, "--store"])
            .arg(&db)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{selector}: {stderr}");
        assert!(stderr.contains(selector), "{selector}: {stderr}");
    }
}

/// Stores `result` as a run of `workload` with `config` and `tags`.
fn save_as(
    store: &Store,
    result: &Value,
    workload: &str,
    config: Value,
    tags: &[(&str, &str)],
) -> String {
    use searchbench::store::{Kind, NewRun};
    let mut run = NewRun::new(Kind::Ingest, workload, config);
    run.tags = tags
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    store.save(&run, result).expect("save").0
}

/// A tag that pools runs of two configurations, or sides of two workloads, give verdicts
/// that mean nothing (`WORSE -99.9 %`, `PASS +113749 %`): compare and check refuse them,
/// naming what differs, unless told --allow-mixed, and then say so.
#[test]
fn compare_and_check_refuse_mixed_configurations_and_workloads_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    let run = |seed: u64, rate: f64| ingest_result(20, rate, 0.05, 20.0, seed);
    let c1 = serde_json::json!({"clients": 1, "bulk_docs": 2000});
    let c4 = serde_json::json!({"clients": 4, "bulk_docs": 2000});
    for seed in 0..3 {
        save_as(
            &store,
            &run(seed, 5_000.0),
            "logs",
            c1.clone(),
            &[("bulk_size", "2000"), ("g", "one")],
        );
        save_as(
            &store,
            &run(10 + seed, 20_000.0),
            "logs",
            c4.clone(),
            &[("bulk_size", "2000"), ("g", "four")],
        );
        save_as(
            &store,
            &run(20 + seed, 9_000.0),
            "numbers",
            c1.clone(),
            &[("g", "numbers")],
        );
        save_as(
            &store,
            &run(30 + seed, 5_100.0),
            "logs",
            c1.clone(),
            &[("g", "one-again")],
        );
    }
    let cli = |args: &[&str]| {
        let out = bin().args(args).arg("--store").arg(&db).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };
    // A side pooling 1 and 4 clients.
    let (code, text) = cli(&["compare", "g=one", "bulk_size=2000"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("bulk_size=2000") && text.contains("clients: 1 vs 4"),
        "{text}"
    );
    assert!(text.contains("--allow-mixed"), "{text}");
    let (code, text) = cli(&[
        "check",
        "g=one-again",
        "--baseline",
        "bulk_size=2000",
        "--metric",
        "docs_per_sec",
    ]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("clients: 1 vs 4"), "{text}");
    // Two workloads.
    let (code, text) = cli(&["compare", "g=one", "g=numbers"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("logs") && text.contains("numbers"), "{text}");
    let (code, text) = cli(&[
        "check",
        "g=numbers",
        "--baseline",
        "g=one",
        "--metric",
        "docs_per_sec",
    ]);
    assert_eq!(code, Some(2), "{text}");
    // Told: compared, and said.
    let (code, text) = cli(&["compare", "g=one", "g=numbers", "--allow-mixed"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("MIXED (--allow-mixed)"), "{text}");
    // One configuration a side, a setting changed between sides: the comparison's point,
    // compared, and the difference named.
    let (code, text) = cli(&["compare", "g=one", "g=four", "--json"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("differs from the base in: clients: 1 vs 4"),
        "{text}"
    );
    // The same configuration twice: no refusal, no note of a difference.
    let (code, text) = cli(&[
        "check",
        "g=one-again",
        "--baseline",
        "g=one",
        "--metric",
        "docs_per_sec",
    ]);
    assert_ne!(code, Some(2), "{text}");
    assert!(
        !text.contains("MIXED") && !text.contains("differs"),
        "{text}"
    );
}

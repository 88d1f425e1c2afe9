//! Comparing stored runs: verdicts on synthetic results, groups of repeated runs, the CLI.

use crate::common::bin;
use crate::common::results::{ingest_result, logs_query_result, query_result, save};
use searchbench::analysis::compare::{
    compare, compare_at, format_n, format_verdict, Comparison, Side, Verdict,
};
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

/// Two runs of one configuration once read `WORSE [-48.4, -48.4]` (and `--fail-on-worse`
/// exited 3): an interval over the seconds inside each run. One run a side is never a
/// verdict: the difference, no interval, "cannot tell".
#[test]
fn one_run_a_side_is_never_a_verdict_over_runs() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let base = save(&store, &ingest_result(60, 20_000.0, 0.10, 20.0, 1), &[]);
    let better = save(&store, &ingest_result(60, 25_000.0, 0.10, 14.0, 2), &[]);
    let worse = save(&store, &ingest_result(60, 15_000.0, 0.10, 30.0, 3), &[]);
    let same = save(&store, &ingest_result(60, 20_000.0, 0.10, 20.0, 4), &[]);
    let side = |id: &str| Side::load(&store, id).unwrap();
    let c = compare(side(&base), vec![side(&better), side(&worse), side(&same)]);
    let t = "docs_per_sec";
    for key in [t, "service_mean_ms", "service_p99_ms"] {
        for k in 0..3 {
            assert_eq!(verdict(&c, key, k), Verdict::CannotTell, "{key} {k}");
        }
    }
    // The difference is there, the interval is not.
    let row = c.rows.iter().find(|r| r.key == t).unwrap();
    let (up, down) = (
        row.contenders[0].as_ref().unwrap(),
        row.contenders[1].as_ref().unwrap(),
    );
    assert!(up.diff_pct.unwrap() > 15.0 && down.diff_pct.unwrap() < -15.0);
    assert!(up.ci.is_none() && up.min_detectable_pct.is_none());
    assert_eq!((up.n_base, up.n), (Some(1), Some(1)));
    assert_eq!(format_n(up), "1 vs 1 runs");
    assert_eq!(
        format_verdict(up, c.threshold_pct),
        "cannot tell: one run a side"
    );
    assert!(!c.rows.iter().any(|r| r.changed()), "no better, no worse");
    assert!(!c.any_worse(), "--fail-on-worse never fires on cannot tell");
    // Attribution rows are there, informational.
    assert!(c
        .rows
        .iter()
        .any(|r| r.key.starts_with("attribution.budget.")));
    assert!(
        c.notes.iter().any(|n| n.contains("one run a side")),
        "{:?}",
        c.notes
    );
    let changes = &c.changes()[0];
    assert!(
        changes.counts().contains("the runs cannot tell"),
        "{}",
        changes.counts()
    );
    // Deterministic.
    let again = compare(side(&base), vec![side(&better), side(&worse), side(&same)]);
    assert_eq!(
        serde_json::to_string(&c).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

/// One run against a group: where one more run of the group would fall (a prediction
/// interval), either way round.
#[test]
fn one_run_against_a_group_gets_a_prediction_interval() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    for i in 0..5 {
        save(
            &store,
            &ingest_result(20, 20_000.0, 0.10, 20.0, 500 + i),
            &[("build", "a")],
        );
    }
    let slow = save(&store, &ingest_result(20, 12_000.0, 0.10, 20.0, 600), &[]);
    let fast = save(&store, &ingest_result(20, 30_000.0, 0.10, 20.0, 601), &[]);
    let side = |sel: &str| Side::load(&store, sel).unwrap();
    let t = "docs_per_sec";
    let c = compare(side("build=a"), vec![side(&slow), side(&fast)]);
    assert_eq!(verdict(&c, t, 0), Verdict::Worse);
    assert_eq!(verdict(&c, t, 1), Verdict::Better);
    let cell = c.rows[0].contenders[0].as_ref().unwrap();
    assert_eq!((cell.n_base, cell.n), (Some(5), Some(1)));
    assert!(cell.ci.unwrap().high_pct < 0.0, "{cell:?}");
    assert!(
        c.notes.iter().any(|n| n.contains("prediction interval")),
        "{:?}",
        c.notes
    );
    // Turned round: the single run is the base, the group faster than it.
    let c = compare(side(&slow), vec![side("build=a")]);
    assert_eq!(verdict(&c, t, 0), Verdict::Better);
    let cell = c.rows[0].contenders[0].as_ref().unwrap();
    assert_eq!((cell.n_base, cell.n), (Some(1), Some(5)));
    assert!(cell.ci.unwrap().low_pct > 0.0, "{cell:?}");
}

/// Groups too noisy to have seen the threshold cannot tell, say what they could have seen
/// and about how many runs a side would; a threshold they can see gives a verdict.
#[test]
fn noisy_groups_cannot_tell_and_say_how_many_runs_would() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    for (i, dps) in [10_000.0, 30_000.0, 20_000.0].into_iter().enumerate() {
        let r = ingest_result(20, dps, 0.05, 20.0, 700 + i as u64);
        save(&store, &r, &[("side", "a")]);
        let r = ingest_result(20, dps * 1.02, 0.05, 20.0, 710 + i as u64);
        save(&store, &r, &[("side", "b")]);
    }
    let side = |sel: &str| Side::load(&store, sel).unwrap();
    let t = "docs_per_sec";
    let c = compare(side("side=a"), vec![side("side=b")]);
    assert_eq!(verdict(&c, t, 0), Verdict::CannotTell);
    let cell = c.rows[0].contenders[0].as_ref().unwrap();
    let reach = cell.min_detectable_pct.unwrap();
    let runs = cell.runs_needed.unwrap();
    assert!(reach > 5.0 && runs > 3, "{cell:?}");
    assert_eq!(
        format_verdict(cell, c.threshold_pct),
        format!("cannot tell: inconclusive below ±{reach:.1} % (about {runs} runs a side would see 5 %)")
    );
    assert!(!c.any_worse());
    // Told that only a change beyond what they can see matters: no significant change.
    let c = compare_at(side("side=a"), vec![side("side=b")], reach + 1.0);
    assert_eq!(verdict(&c, t, 0), Verdict::NoSignificantChange);
    let cell = c.rows[0].contenders[0].as_ref().unwrap();
    assert!(format_verdict(cell, c.threshold_pct)
        .starts_with("no significant change (inconclusive below"));
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
    let t = "docs_per_sec";
    assert_eq!(
        verdict(&c, t, 0),
        Verdict::NoSignificantChange,
        "{:?}",
        c.rows[0].contenders[0]
    );
    assert_eq!(verdict(&c, t, 1), Verdict::Better);
    // Two runs are enough for Welch's t, not to see 5 %: the same level, and they cannot
    // tell, with the smallest change they could have seen and how many runs would see 5 %.
    assert_eq!(verdict(&c, t, 2), Verdict::CannotTell);
    let few = c.rows[0].contenders[2].as_ref().unwrap();
    assert!(few.ci.is_some() && few.spread_pct.is_some(), "{few:?}");
    assert!(few.min_detectable_pct.unwrap() > 5.0, "{few:?}");
    assert!(few.runs_needed.unwrap() > 2, "{few:?}");
    // Over runs, percentiles get intervals too.
    let p99 = c.rows.iter().find(|r| r.key == "service_p50_ms").unwrap();
    assert!(p99.contenders[0].as_ref().unwrap().ci.is_some());
    assert!(c.notes.iter().any(|n| n.contains("Welch")), "{:?}", c.notes);
}

#[test]
fn query_cells_compare_over_runs() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    for i in 0..3 {
        save(&store, &query_result(40.0, 10 + i), &[("q", "base")]);
        save(&store, &query_result(28.0, 20 + i), &[("q", "faster")]);
    }
    let side = |sel: &str| Side::load(&store, sel).unwrap();
    let c = compare(side("q=base"), vec![side("q=faster")]);
    let k = "query.D_td.serial.took_ms";
    assert_eq!(verdict(&c, k, 0), Verdict::Better);
    let cell = c.rows.iter().find(|r| r.key == k).unwrap().contenders[0]
        .clone()
        .unwrap();
    assert_eq!((cell.n_base, cell.n), (Some(3), Some(3)));
    assert_eq!(cell.samples, Some(SampleKind::PerRun));
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
    assert_eq!(v["rows"][0]["key"], "docs_per_sec");
    assert_eq!(v["rows"][0]["contenders"][0]["verdict"], "cannot_tell");
    assert!(v["rows"][0]["contenders"][0]["diff_pct"].as_f64().unwrap() < -30.0);

    // -40 %, one run a side: cannot tell, so --fail-on-worse does not fire.
    let out = bin()
        .args(["compare", &ids[0], &ids[1], "--fail-on-worse"])
        .env("SEARCHBENCH_STORE", &db)
        .env("COLUMNS", "120")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("cannot tell: one run a") && text.contains("1 vs 1 runs"),
        "{text}"
    );
    assert!(!text.contains("WORSE"), "{text}");

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
    assert!(
        md.contains("| metric |") && md.contains("cannot tell"),
        "{md}"
    );
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
    assert!(csv.starts_with("run_id,kind,workload,engine,state,metric,unit,second,value\n"));
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
    // Piped with no COLUMNS, a table of several contenders stays within 160 columns (it was
    // as wide as its content).
    let out = bin()
        .args([
            "compare", "cfg=a", "cfg=b", "cfg=a", "cfg=b", "cfg=a", "--store",
        ])
        .arg(&db)
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The table's lines (a note stays one line, for grep).
    let widest = text
        .lines()
        .filter(|l| l.starts_with(['┌', '│', '╞', '├', '└']))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    assert!(widest <= 160 && widest > 80, "{widest} columns:\n{text}");
    // Nothing changed: said, not an empty table (it printed a table of headers alone).
    for markdown in [false, true] {
        let mut args = vec!["compare", "cfg=a", "cfg=a", "--only-changed"];
        if markdown {
            args.push("--markdown");
        }
        let text = run_ok(&args, &db);
        assert!(
            text.to_lowercase().contains("nothing changed") && !text.contains("| metric"),
            "{text}"
        );
        assert!(!text.contains("┌") && !text.contains("+-"), "{text}");
    }
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
    // `report` gives compare's verdicts, so it refuses what compare refuses (it gave them).
    for sides in [["g=one", "g=numbers"], ["g=one", "bulk_size=2000"]] {
        let (code, text) = cli(&["report", sides[0], sides[1], "--markdown"]);
        assert_eq!(code, Some(2), "{sides:?}: {text}");
        assert!(
            text.contains("cannot compare") && text.contains("--allow-mixed"),
            "{text}"
        );
    }
    // Told: compared, and said.
    let (code, text) = cli(&["compare", "g=one", "g=numbers", "--allow-mixed"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("MIXED (--allow-mixed)"), "{text}");
    let (code, text) = cli(&[
        "report",
        "g=one",
        "g=numbers",
        "--markdown",
        "--allow-mixed",
    ]);
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

/// Two configurations run side by side, round by round, on a machine that got busier every
/// round: `compare` pairs the runs of each round, says so, and sees the contender 8 % slower,
/// where the same runs without their rounds cannot tell.
#[test]
fn runs_tagged_with_rounds_compare_round_by_round() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    let store = Store::open(&path).unwrap();
    for round in 1..=4u64 {
        let level = 10_000.0 * (1.0 + 0.1 * round as f64);
        let r = round.to_string();
        let a = ingest_result(60, level, 0.01, 20.0, round);
        let b = ingest_result(60, level * 0.92, 0.01, 20.0, 10 + round);
        save(&store, &a, &[("cfg", "a"), ("round", &r)]);
        save(&store, &b, &[("cfg", "b"), ("round", &r)]);
        save(&store, &a, &[("cfg", "a-unpaired")]);
        save(&store, &b, &[("cfg", "b-unpaired")]);
    }
    let side = |s: &str| Side::load(&store, s).unwrap();
    let c = compare(side("cfg=a"), vec![side("cfg=b")]);
    assert_eq!(verdict(&c, "docs_per_sec", 0), Verdict::Worse);
    let cell = c.rows[0].contenders[0].as_ref().unwrap();
    assert_eq!(
        cell.test,
        Some(searchbench::analysis::statistics::Test::PairedT)
    );
    assert!(
        c.notes.iter().any(|n| n.starts_with("paired:")),
        "{:?}",
        c.notes
    );
    let unpaired = compare(side("cfg=a-unpaired"), vec![side("cfg=b-unpaired")]);
    assert_eq!(verdict(&unpaired, "docs_per_sec", 0), Verdict::CannotTell);
    // The CLI says which test it used.
    let out = bin()
        .args(["compare", "cfg=a", "cfg=b", "--color", "never", "--store"])
        .arg(&path)
        .output()
        .expect("searchbench compare");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4 rounds (paired t)"), "{text}");
    // The throughput row of `compare cfg=a cfg=b --json` with `extra` flags.
    let throughput = |extra: &[&str]| -> Value {
        let json = bin()
            .args(["compare", "cfg=a", "cfg=b", "--json", "--store"])
            .arg(&path)
            .args(extra)
            .output()
            .expect("searchbench compare --json");
        let v: Value = serde_json::from_slice(&json.stdout).expect("JSON");
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == "docs_per_sec")
            .cloned()
            .unwrap()
    };
    let row = throughput(&[]);
    assert_eq!(row["contenders"][0]["test"], "paired_t", "{row}");
    // --unpaired: the same runs as two independent groups.
    let row = throughput(&["--unpaired"]);
    assert_eq!(row["contenders"][0]["test"], "welch", "{row}");
    assert_eq!(row["contenders"][0]["verdict"], "cannot_tell", "{row}");
}

/// A co-tenant that comes and goes: each side's runs at 7,000 to 14,000 documents a second,
/// while the engine's CPU per document stays within 1 %. The rate cannot tell; the cost, far
/// steadier, can: `compare` and `check` lean on it and say so — a contender whose engine
/// works 12 % harder per document is worse (check: regressed), one that works the same passes.
#[test]
fn a_rate_the_runs_cannot_tell_leans_on_the_steadier_cpu_per_document() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    let store = Store::open(&path).unwrap();
    let levels = [10_000.0, 14_000.0, 7_000.0];
    let wobble = [1.0, 1.008, 0.994];
    // A run at `rate` whose engine spends `us` µs of CPU on each document.
    let run = |rate: f64, us: f64, seed: u64| {
        let mut r = ingest_result(30, rate, 0.01, 20.0, seed);
        let indexed = r["counts"]["indexed"].as_f64().unwrap();
        r["cpu"]["engine_secs"] = serde_json::json!(indexed * us / 1e6);
        r
    };
    for (i, level) in levels.iter().enumerate() {
        let seed = i as u64;
        save(
            &store,
            &run(*level, 100.0 * wobble[i], seed),
            &[("cfg", "a")],
        );
        // B: slower by the co-tenant's luck, 12 % more work a document.
        let b = run(level * [0.8, 1.1, 1.0][i], 112.0 * wobble[2 - i], 10 + seed);
        save(&store, &b, &[("cfg", "b")]);
        // C: the same work a document as A.
        let c = run(
            level * [1.2, 0.7, 1.1][i],
            100.0 * wobble[(i + 1) % 3],
            20 + seed,
        );
        save(&store, &c, &[("cfg", "c")]);
    }
    let side = |s: &str| Side::load(&store, s).unwrap();
    let c = compare(side("cfg=a"), vec![side("cfg=b"), side("cfg=c")]);
    assert_eq!(verdict(&c, "docs_per_sec", 0), Verdict::CannotTell);
    assert_eq!(verdict(&c, "engine_cpu_us_per_doc", 0), Verdict::Worse);
    let leaning = c.leanings[0].as_ref().expect("B leans on the cost");
    assert_eq!(leaning.verdict, Verdict::Worse);
    assert!(leaning.steadier() > 10.0, "{leaning:?}");
    let said = c.leanings[1].as_ref().expect("C leans on the cost");
    assert_eq!(said.verdict, Verdict::NoSignificantChange);
    assert!(
        c.notes.iter().any(|n| n.starts_with("cfg=b")
            && n.contains("throughput cannot tell")
            && n.contains("WORSE")),
        "{:?}",
        c.notes
    );
    let cli = |args: &[&str]| {
        let out = bin().args(args).arg("--store").arg(&path).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let (code, text) = cli(&["compare", "cfg=a", "cfg=b", "--json"]);
    assert_eq!(code, Some(0), "{text}");
    let v: Value = serde_json::from_str(&text[..text.rfind('}').unwrap() + 1]).expect("JSON");
    assert_eq!(v["leanings"][0]["verdict"], "worse", "{v}");
    assert_eq!(v["leanings"][0]["on"], "engine_cpu_us_per_doc", "{v}");
    // The gate leans too: regressed on the cost, the rate's own verdict kept and named.
    let check = |run: &str| {
        cli(&[
            "check",
            run,
            "--baseline",
            "cfg=a",
            "--metric",
            "docs_per_sec",
            "--color",
            "never",
        ])
    };
    let (code, text) = check("cfg=b");
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("cannot tell → CPU per doc"), "{text}");
    assert!(
        text.contains("engine CPU per document regressed by +12"),
        "{text}"
    );
    let (code, text) = check("cfg=c");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("The verdict leans on it"), "{text}");
}

/// Nightlies on a machine whose level moves by a third from night to night: each night the
/// reference build and the nightly run in the same round. Checked against the last nights'
/// runs the nightly cannot tell; checked by its ratio to the night's reference against the
/// earlier nights' ratios, a 10 % slowdown regresses and a night like the others passes.
#[test]
fn a_nightly_paired_with_its_same_day_reference_sees_what_the_drift_hides() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    let store = Store::open(&path).unwrap();
    let levels = [1.0, 1.3, 0.8, 1.15, 0.7, 1.25, 0.9, 1.1, 0.75];
    let mut tonight = String::new();
    for (night, level) in levels.iter().enumerate() {
        let round = (20261101 + night).to_string();
        let rate = 10_000.0 * level;
        let seed = night as u64 * 2;
        save(
            &store,
            &ingest_result(30, rate, 0.01, 20.0, seed),
            &[("build", "ref"), ("round", &round)],
        );
        // The nightly builds run 2 % behind the reference; the last night's 12 %.
        let behind = if night + 1 == levels.len() {
            0.88
        } else {
            0.98
        };
        tonight = save(
            &store,
            &ingest_result(30, rate * behind, 0.01, 20.0, seed + 1),
            &[("build", "nightly"), ("round", &round)],
        );
    }
    let cli = |args: &[&str]| {
        let out = bin()
            .args(args)
            .args(["--metric", "docs_per_sec", "--color", "never", "--store"])
            .arg(&path)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    // Against the last nights' runs of the same configuration: the drift hides it.
    let (code, text) = cli(&["check", &tonight, "--last", "8"]);
    assert_eq!(code, Some(125), "{text}");
    // Paired with the night's reference: regressed, by about 10 % against the earlier ratios.
    let (code, text) = cli(&["check", &tonight, "--reference", "build=ref", "--last", "8"]);
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("throughput (headline) ÷ reference"), "{text}");
    assert!(
        text.contains("paired with the reference's run of round 20261109"),
        "{text}"
    );
    assert!(
        text.contains("the ratios of the 8 earlier round(s)"),
        "{text}"
    );
    // Several metrics are one family, Holm-corrected as a check against earlier runs is: the
    // 12 % step stays significant.
    let (code, text) = cli(&[
        "check",
        &tonight,
        "--reference",
        "build=ref",
        "--last",
        "8",
        "--metric",
        "service_p50_ms",
        "--metric",
        "service_p99_ms",
    ]);
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains("Holm's correction over the 3 metrics judged"),
        "{text}"
    );
    // A selector that finds the run itself too never makes it its own reference.
    let (_, text) = cli(&["check", &tonight, "--reference", "round=20261109", "--json"]);
    let v: Value = serde_json::from_str(&text[..text.rfind('}').unwrap() + 1]).expect("JSON");
    let ids = v["baseline"]["run_ids"]
        .as_array()
        .expect("a reference run");
    assert!(ids.iter().all(|id| id != tonight.as_str()), "{v}");
    // An earlier night, like the ones before it, passes.
    let db = Store::open(&path).unwrap();
    let runs = db.list(&Default::default()).unwrap();
    let night7 = runs
        .iter()
        .find(|r| r.tags["build"] == "nightly" && r.tags["round"] == "20261107")
        .unwrap()
        .id
        .0
        .clone();
    let (code, text) = cli(&["check", &night7, "--reference", "build=ref"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("ratios of the 6 earlier round(s)"), "{text}");
    // A run without a round cannot be paired: said, exit 2.
    let lone = save(&store, &ingest_result(30, 9_000.0, 0.01, 20.0, 99), &[]);
    let (code, text) = cli(&["check", &lone, "--reference", "build=ref"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("has no round"), "{text}");
    // A round the reference did not run in: cannot tell, and why.
    let orphan = save(
        &store,
        &ingest_result(30, 9_000.0, 0.01, 20.0, 98),
        &[("build", "nightly"), ("round", "20261201")],
    );
    let (code, text) = cli(&["check", &orphan, "--reference", "build=ref"]);
    assert_eq!(code, Some(125), "{text}");
    assert!(text.contains("no complete reference run"), "{text}");
}

/// `compare BASE CONTENDER` on the store at `db`: its exit code and all it printed.
fn compare_in(db: &std::path::Path, base: &str, contender: &str) -> (Option<i32>, String) {
    let out = bin()
        .args(["compare", base, contender, "--store"])
        .arg(db)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// A run too short for its warm-up has no steady headline: its figure (the whole run, warm-up
/// included) is another measure than a steady run's. It is still a run of what was asked (one
/// configuration: the same command twice on a busy machine gave one of each, and a nightly
/// gate pooled both while the `compare` it printed refused them): every view leaves it out of
/// the verdicts and change points its steady runs make, naming it; short runs alone are one
/// measure (whole runs), judged as such and said, never against steady runs.
#[test]
fn a_short_run_is_left_out_of_every_verdict_and_said_never_another_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    let config = serde_json::json!({"clients": 2, "bulk_docs": 1000, "warmup_secs": 10.0});
    let mut short_ids = Vec::new();
    let mut steady_ids = Vec::new();
    for seed in 0..3 {
        let mut r = ingest_result(30, 20_000.0, 0.03, 20.0, seed);
        r["headline"] = serde_json::json!({"warmup_secs": 10.0, "warmup_applied": true,
            "docs_per_sec": 20_000.0, "definition": "steady"});
        steady_ids.push(save_as(
            &store,
            &r,
            "logs",
            config.clone(),
            &[("g", "mixed"), ("n", "steady")],
        ));
        let mut short = ingest_result(12, 12_000.0, 0.03, 20.0, 10 + seed);
        short["headline"] = serde_json::json!({"warmup_secs": 10.0, "warmup_applied": false,
            "docs_per_sec": 12_000.0, "definition": "no steady headline"});
        short_ids.push(save_as(
            &store,
            &short,
            "logs",
            config.clone(),
            &[("g", "mixed"), ("n", "short")],
        ));
    }
    let compare = |base: &str, contender: &str| compare_in(&db, base, contender);
    // The mixed group is its steady runs: the short ones are named and left out.
    let (code, text) = compare("n=steady", "g=mixed");
    assert_ne!(code, Some(2), "{text}");
    assert!(!text.contains("pools runs of 2 configurations"), "{text}");
    for id in &short_ids {
        assert!(text.contains(id.as_str()), "{id} named as left out: {text}");
    }
    assert!(text.contains("too short for its 10 s warm-up"), "{text}");
    assert!(text.contains("g=mixed (3 runs)"), "{text}");
    // Short runs alone are one measure, their whole runs: judged against as short, and said.
    let (code, text) = compare("n=short", "n=short");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("its figures are whole runs, warm-up included"),
        "{text}"
    );
    // Against steady runs their headline measures another thing: compared (never refused
    // for an outcome), the headline judged by no verdict, saying why and the way out.
    let (code, text) = compare("n=short", "n=steady");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(
            "HEADLINE NOT JUDGED: n=short (3 runs): whole run, too short for its 10 s warm-up"
        ) && text.contains("--warmup 0"),
        "{text}"
    );
    let store_ = Store::open(&db).unwrap();
    let c = compare_at(
        Side::load(&store_, "n=short").unwrap(),
        vec![Side::load(&store_, "n=steady").unwrap()],
        5.0,
    );
    assert_eq!(verdict(&c, "docs_per_sec", 0), Verdict::CannotTell);
    // One configuration, short or steady.
    let runs = store.select("g=mixed").unwrap();
    let ids: std::collections::BTreeSet<String> = runs
        .iter()
        .map(|r| searchbench::analysis::configuration::Configuration::of(r).id)
        .collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
    // The history of the configuration: the steady runs, the short ones named as left out.
    let out = bin()
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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let h: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(h["runs"].as_array().unwrap().len(), 3);
    let excluded = h["excluded"].to_string();
    assert!(
        short_ids.iter().all(|id| excluded.contains(id.as_str()))
            && excluded.contains("left out of verdicts"),
        "{excluded}"
    );
    // check --last sets a run against runs of its own measure, naming the others left out.
    let check = |id: &str| {
        let out = bin()
            .args([
                "check",
                id,
                "--last",
                "10",
                "--metric",
                "docs_per_sec",
                "--store",
            ])
            .arg(&db)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = check(&steady_ids[2]);
    assert!(
        said.contains("last 2 run(s) of the same configuration")
            && said.contains(short_ids[1].as_str())
            && said.contains("left out of the baseline"),
        "{said}"
    );
    let said = check(&short_ids[2]);
    assert!(
        said.contains("last 2 run(s) of the same configuration")
            && said.contains(steady_ids[1].as_str()),
        "{said}"
    );
    // A check of the mixed group against the steady runs: its short runs left out and named,
    // as compare leaves them out, so the two say the same of the same runs.
    let out = bin()
        .args(["check", "g=mixed", "--baseline", "n=steady"])
        .args(["--metric", "docs_per_sec", "--json", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        short_ids
            .iter()
            .all(|id| said.contains(&format!("left out: {id}"))),
        "{said}"
    );
    let v: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(
        v["run"]["run_ids"].as_array().map(Vec::len),
        Some(3),
        "{said}"
    );
}

/// A run on a node warmed before its load and one on a node measured as it came up are two
/// measures: never pooled, and compare says why.
#[test]
fn a_warmed_node_and_a_cold_node_are_never_pooled() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let store = Store::open(&db).unwrap();
    let config = serde_json::json!({"clients": 2, "bulk_docs": 1000});
    for seed in 0..3 {
        let mut warm = ingest_result(30, 30_000.0, 0.03, 20.0, seed);
        warm["warm_up"] = serde_json::json!({"slices": [{"docs": 20000, "docs_per_sec": 5000.0}],
            "secs": 30.0, "max_secs": 90.0, "levelled": true, "rise_pct": 1.0,
            "interrupted": false});
        save_as(
            &store,
            &warm,
            "logs",
            config.clone(),
            &[("g", "both"), ("n", "warm")],
        );
        let cold = ingest_result(30, 12_000.0, 0.03, 20.0, 10 + seed);
        save_as(
            &store,
            &cold,
            "logs",
            config.clone(),
            &[("g", "both"), ("n", "cold")],
        );
    }
    let compare = |base: &str, contender: &str| compare_in(&db, base, contender);
    let (code, text) = compare("n=warm", "g=both");
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("pools runs of 2 configurations") && text.contains("warm_node"),
        "{text}"
    );
    // Side against side: compared, and the difference named.
    let (_, text) = compare("n=cold", "n=warm");
    assert!(text.contains("warm_node"), "{text}");
}

/// The same flags on two classes of machine (three of six nightly runs copied in from a
/// 64-core server's store) are two configurations in every view: a history refuses to pool
/// them, naming the machines; `check --last` takes the run's own class only; the site draws a
/// page for each. Asked to pool (`--any-machine`), a history and a check do, and say so.
#[test]
fn runs_on_two_classes_of_machine_are_two_configurations_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    let ids: Vec<String> = (0..6u64)
        .map(|i| {
            let result = ingest_result(10, 20_000.0 + 50.0 * i as f64, 0.05, 20.0, i + 1);
            save(&store, &result, &[("build", &i.to_string())])
        })
        .collect();
    let epyc = serde_json::json!({
        "cpu_model": "AMD EPYC 7763 64-Core Processor", "cores": 64,
        "memory_bytes": 512u64 << 30, "os": "linux", "arch": "x86_64",
    });
    let conn = rusqlite::Connection::open(&db).unwrap();
    for id in &ids[..3] {
        conn.execute(
            "UPDATE runs SET machine = ?2 WHERE id = ?1",
            rusqlite::params![id, epyc.to_string()],
        )
        .unwrap();
    }
    let run = |args: &[&str]| {
        let out = bin().args(args).arg("--store").arg(&db).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };
    let (code, said) = run(&["history", "--workload", "logs"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("machine") && said.contains("AMD EPYC 7763"),
        "{said}"
    );
    let (code, said) = run(&["history", "--workload", "logs", "--any-machine", "--json"]);
    assert_eq!(code, Some(0), "{said}");
    let h: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(h["runs"].as_array().unwrap().len(), 6);
    let selection = h["selection"].as_str().unwrap();
    assert!(
        selection.contains("machine classes pooled (--any-machine)")
            && selection.contains("AMD EPYC 7763 64-Core Processor, 64 cores, 512 GiB (3 runs)"),
        "{selection}"
    );
    let newest = &ids[5];
    let (_, said) = run(&["check", newest, "--last", "10", "--metric", "docs_per_sec"]);
    assert!(
        said.contains("last 2 run(s) of the same configuration"),
        "{said}"
    );
    let (_, said) = run(&[
        "check",
        newest,
        "--last",
        "10",
        "--metric",
        "docs_per_sec",
        "--any-machine",
    ]);
    assert!(
        said.contains("last 5 run(s) of the same configuration"),
        "{said}"
    );
    let site = dir.path().join("site");
    let out = bin()
        .args(["site", "--workload", "logs", "--out"])
        .arg(&site)
        .arg("--store")
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pages = std::fs::read_dir(&site)
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().starts_with("config-")
        })
        .count();
    assert_eq!(pages, 2);
}

//! The HTML report, looked at like a person would: rendered in headless Chromium, every chart
//! must show its data and the page must have no script errors. A screenshot is kept in
//! target/tmp/results-html/.

use std::path::{Path, PathBuf};

use crate::common::browser::{assert_charts_drawn, chromium_or_skip, headless};

use crate::common::results::{ingest_result, logs_query_result, query_result};
use searchbench::report;
use searchbench::store::{Kind, NewRun, Store};

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("results-html");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Two ingest runs tagged build=old, two tagged build=new, a cluster-metrics query run and a
/// logs query run; their ids in that order.
fn stored() -> (tempfile::TempDir, Store, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let mut ids = Vec::new();
    for (rate, service, seed, build) in [
        (20_000.0, 20.0, 1, "old"),
        (20_400.0, 20.5, 3, "old"),
        (24_000.0, 16.0, 2, "new"),
        (23_600.0, 16.4, 4, "new"),
    ] {
        let mut run = NewRun::new(
            Kind::Run,
            "logs",
            serde_json::json!({"docs": 200000, "clients": 2, "bulk_docs": 500}),
        );
        run.seed = Some(1);
        run.tags = vec![("build".into(), build.into())];
        let id = store
            .save(&run, &ingest_result(40, rate, 0.08, service, seed))
            .unwrap();
        // A service-time histogram around `service` ms with a tail, as a run stores it.
        let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for i in 0..2000u64 {
            let us = service * 1000.0 * (0.5 + (i % 100) as f64 / 100.0);
            h.record(us as u64 + (i / 1990) * 400_000).unwrap();
        }
        let encoded = searchbench::measure::SerializedHistogram::encode("service", "us", &h);
        store.put_histograms(&id, &[encoded.unwrap()]).unwrap();
        ids.push(id.0);
    }
    let q = NewRun::new(
        Kind::Query,
        "cluster-metrics",
        serde_json::json!({"passes": 3}),
    );
    ids.push(store.save(&q, &query_result(40.0, 1)).unwrap().0);
    let logs = NewRun::new(Kind::Query, "logs", serde_json::json!({"passes": 3}));
    ids.push(store.save(&logs, &logs_query_result(30.0, 1)).unwrap().0);
    (dir, store, ids)
}

fn groups(store: &Store, selectors: &[&str]) -> Vec<report::Group> {
    let selectors: Vec<String> = selectors.iter().map(|s| s.to_string()).collect();
    report::load(store, &selectors, false).unwrap()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_comparison_opens_with_what_changed_then_charts_then_every_metric() {
    let (_d, store, _ids) = stored();
    let groups = groups(&store, &["build=old", "build=new"]);
    let comparison = report::comparison_of(&groups).unwrap();
    assert_eq!(
        comparison.contenders.len(),
        1,
        "one group against the other"
    );
    let page = report::html::render(&groups, Some(&comparison));
    let at = |needle: &str| {
        page.find(needle)
            .unwrap_or_else(|| panic!("no {needle} in the page"))
    };
    assert!(at("What changed") < at("<h2>Charts</h2>"));
    assert!(at("<h2>Charts</h2>") < at("Comparison, every metric"));
    // The summary names the verdicts: higher throughput with errors in neither group.
    let summary = &page[at("What changed")..at("<h2>Charts</h2>")];
    assert!(
        summary.contains("build=new (2 runs)") && summary.contains("build=old (2 runs)"),
        "{summary}"
    );
    assert!(
        summary.contains("without a significant change"),
        "{summary}"
    );
    let md = report::markdown::render(&groups, Some(&comparison));
    let md_at = |needle: &str| {
        md.find(needle)
            .unwrap_or_else(|| panic!("no {needle}: {md}"))
    };
    assert!(md_at("## What changed") < md_at("## Comparison, every metric"));
}

#[test]
fn logs_accuracy_has_its_own_columns_counts_are_integers_and_no_debug_footer() {
    let (_d, store, ids) = stored();
    let page = report::html::render(&groups(&store, &[ids[5].as_str()]), None);
    let at = page.find("<h3>Accuracy</h3>").expect("an accuracy table");
    let table = &page[at..at + page[at..].find("</table>").unwrap()];
    for column in ["wrong newest hits", "wrong buckets", "verdict"] {
        assert!(table.contains(column), "no {column}: {table}");
    }
    assert!(!table.contains("percentiles over bound"), "{table}");
    assert!(
        !table.contains("32.0"),
        "a count shown as a measure: {table}"
    );
    assert!(table.contains(">32<") && table.contains(">3<") && table.contains("FAIL"));
    // Error counts among the figures are whole numbers too.
    let at = page.find("<h3>Figures</h3>").expect("a figures table");
    let figures = &page[at..at + page[at..].find("</table>").unwrap()];
    assert!(
        figures.contains("wrong answers</td><td class=\"num\">3<"),
        "{figures}"
    );
    // Cluster-metrics keeps its percentile columns, with counts as integers too.
    let page = report::html::render(&groups(&store, &[ids[4].as_str()]), None);
    let at = page.find("<h3>Accuracy</h3>").unwrap();
    let table = &page[at..at + page[at..].find("</table>").unwrap()];
    assert!(
        table.contains("percentiles over bound") && table.contains(">120<"),
        "{table}"
    );
    assert!(!table.contains("120.0"), "{table}");
    // What the script reports for the browser test is not shown to the reader.
    assert!(
        page.contains("<div id=\"render-status\" hidden"),
        "render-status is visible"
    );
}

#[test]
fn the_page_is_self_contained_and_escapes_what_it_shows() {
    let (_d, store, ids) = stored();
    let mut run = NewRun::new(
        Kind::Ingest,
        "</script><b>x",
        serde_json::json!({"note": "</script><script>alert(1)</script>"}),
    );
    run.tags = vec![("who".into(), "<img src=x>".into())];
    let id = store
        .save(&run, &ingest_result(6, 1000.0, 0.1, 10.0, 9))
        .unwrap();
    let runs = groups(&store, &[id.0.as_str(), ids[0].as_str()]);
    let page = report::html::render(&runs, report::comparison_of(&runs).as_ref());
    assert_eq!(
        page.matches("</script>").count(),
        1,
        "only the end of our own check script"
    );
    assert!(!page.contains("<img src=x>"));
    assert!(!page.contains("<b>x"));
    assert!(!page.contains("http://") || !page.contains("src=\"http"));
    // The default location is next to the store.
    let run = searchbench::analysis::runs::Loaded::read(&store, store.get(&id.0).unwrap()).unwrap();
    let path = report::write_run_page(&run, store.path()).unwrap();
    assert!(path.starts_with(store.path().parent().unwrap()));
    assert!(path.ends_with(format!("reports/{id}.html")));
}

#[test]
fn charts_draw_in_headless_chromium_without_errors() {
    let (_d, store, ids) = stored();
    let dir = out_dir();
    let two = dir.join("two-groups.html");
    report::write_html(&groups(&store, &["build=old", "build=new"]), &two).unwrap();
    let query = dir.join("query-run.html");
    report::write_html(&groups(&store, &[ids[4].as_str()]), &query).unwrap();
    let logs = dir.join("logs-run.html");
    report::write_html(&groups(&store, &[ids[5].as_str()]), &logs).unwrap();
    // The percentile curve comes from the stored histograms, out to p99.9 and the max.
    let html = std::fs::read_to_string(&two).unwrap();
    assert!(html.contains(">p99.9</text>"), "no p99.9 point");
    assert!(html.contains(">max</text>"), "no max point");
    assert!(
        !html.contains("<canvas"),
        "charts are SVG drawn before the page is opened"
    );
    let mut infos = Vec::new();
    for (page, charts) in [(&two, 3), (&query, 1), (&logs, 1)] {
        let Some(info) = assert_charts_drawn(page, charts, true) else {
            return;
        };
        infos.push(info);
    }
    // Two groups of two runs: every chart is labelled by group, never by run id.
    let groups_page = &infos[0];
    let by_name = |name: &str| {
        groups_page
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no chart {name}: {groups_page:?}"))
    };
    let old_new = vec![
        "build=old (2 runs)".to_string(),
        "build=new (2 runs)".to_string(),
    ];
    for name in ["Throughput over time", "Service time by percentile"] {
        assert_eq!(strings(&by_name(name)["legend"]), old_new, "{name}");
        // Straight segments between measured points, each point drawn.
        let lines = by_name(name)["lines"].as_array().unwrap();
        assert_eq!(lines.len(), 4, "a line per run: {lines:?}");
        for l in lines {
            assert!(l["points"].as_u64().unwrap() >= 2, "{name}: {l}");
            assert_eq!(l["dots"], l["points"], "{name}: {l}");
        }
    }
    let budget = by_name("Where the wall time went");
    let legend = strings(&budget["legend"]);
    assert!(legend.iter().any(|l| l.contains("network")), "{legend:?}");
    for c in groups_page {
        for id in &ids {
            let text = c.to_string();
            assert!(!text.contains(id.as_str()), "a run id in a chart: {text}");
        }
    }
    // A group's colour is never the colour of a part of the wall time.
    let group_colours = strings(&by_name("Throughput over time")["colours"]);
    for c in strings(&budget["colours"]) {
        assert!(!group_colours.contains(&c), "{c} is a group and a part");
    }
    // Log axes tick at 1, 2 and 5 times a power of ten.
    let ticks = by_name("Service time by percentile")["log_ticks"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect::<Vec<_>>();
    assert!(ticks.len() >= 3, "{ticks:?}");
    for t in &ticks {
        let mantissa = t / 10f64.powf(t.log10().floor());
        assert!(
            [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6),
            "irregular log tick {t} in {ticks:?}"
        );
    }
    let shot = dir.join("two-groups.png");
    let _ = std::fs::remove_file(&shot);
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    headless(
        &chrome,
        &two,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,1900".into(),
        ],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.len() > 20_000 && png.starts_with(b"\x89PNG"),
        "screenshot looks empty"
    );
    eprintln!("screenshot: {}", shot.display());
}

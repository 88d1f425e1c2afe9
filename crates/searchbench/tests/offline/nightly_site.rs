//! The morning page over simulated noisy nights: a step planted in the headline is on the
//! site's index where it happened, and thirty nights of noise alone show nothing. The nights
//! are runs as an ingest stores them (`common::results::ingest_result`), one a night, their
//! rate moving night to night as a shared machine moves it.

use std::path::Path;

use searchbench::rng::Rng;
use searchbench::store::{Kind, NewRun, Store};
use serde_json::{json, Value};

use crate::common::bin;
use crate::common::results::ingest_result;

/// The nights a test simulates, and the night a step is planted at.
pub const NIGHTS: u64 = 30;
pub const STEP_AT: u64 = 20;

/// A normal deviate (Box–Muller) from `rng`.
fn normal(rng: &mut Rng) -> f64 {
    let mut unit = || ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let (u, v) = (unit(), unit());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// Stores `NIGHTS` nightly runs of one configuration (`bulk_docs`), a day apart, tagged
/// `build=nNN`: about 20,000 docs/s moved 4 % night to night, times `step` from night
/// [`STEP_AT`] on.
pub fn nights(store: &Store, db: &Path, bulk_docs: u64, seed: u64, step: f64) -> Vec<String> {
    let mut rng = Rng::new(seed, 7);
    let conn = rusqlite::Connection::open(db).unwrap();
    (0..NIGHTS)
        .map(|night| {
            let level = if night >= STEP_AT { step } else { 1.0 };
            let rate = 20_000.0 * level * (1.0 + 0.04 * normal(&mut rng));
            let service = 20.0 * (1.0 + 0.04 * normal(&mut rng)) / level;
            let result = ingest_result(12, rate, 0.05, service, seed * 1000 + night);
            let mut run = NewRun::new(Kind::Ingest, "logs", json!({"bulk_docs": bulk_docs}));
            run.tags = [("build".to_string(), format!("n{night:02}"))].into();
            let id = store.save(&run, &result).unwrap().0;
            let day = 1_790_000_000 + night as i64 * 86_400;
            conn.execute(
                "UPDATE runs SET started_unix = ?2, finished_unix = ?2 + 20 WHERE id = ?1",
                rusqlite::params![id, day],
            )
            .unwrap();
            id
        })
        .collect()
}

/// The site of the store at `db` (`site --json`), its index's entries.
pub fn site(db: &Path, out: &Path) -> Vec<Value> {
    let run = bin()
        .args(["site", "--json", "--no-run-pages", "--out"])
        .arg(out)
        .arg("--store")
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let site: Value = serde_json::from_slice(&run.stdout).unwrap();
    site["configurations"].as_array().unwrap().clone()
}

#[test]
fn a_twelve_percent_step_is_on_the_index_where_it_happened_and_noise_shows_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let store = Store::open(&db).unwrap();
    nights(&store, &db, 500, 11, 0.88);
    nights(&store, &db, 1000, 12, 1.0);
    // The team's notes: one on a build, one from a day on (night 25 started on 16 October).
    let annotate = |args: &[&str]| {
        bin()
            .arg("annotate")
            .args(args)
            .arg("--store")
            .arg(&db)
            .output()
            .unwrap()
    };
    for args in [
        &["JDK 21.0.5", "--tag", "build=n10"][..],
        &["new merge policy", "--at", "2026-10-16"],
    ] {
        let out = annotate(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for (bad, said) in [
        (&["nowhere"][..], "--tag build=n05"),
        (&["x", "--at", "yesterday"], "not a date"),
        (&["", "--tag", "build=n01"], "needs its text"),
    ] {
        let out = annotate(bad);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {err}");
        assert!(err.contains(said), "{bad:?}: {err}");
    }
    let entries = site(&db, &dir.path().join("site"));
    assert_eq!(entries.len(), 2);
    let of = |bulk: &str| {
        entries
            .iter()
            .find(|e| e["summary"].as_str().unwrap().ends_with(bulk))
            .unwrap_or_else(|| panic!("{bulk}: {entries:?}"))
    };
    let stepped = of("bulk 500");
    let change = stepped["latest_change"].as_str().unwrap_or_default();
    assert!(
        change.contains("regression") && change.contains(&format!("to build=n{STEP_AT}")),
        "{stepped}"
    );
    let null = of("bulk 1000");
    assert_eq!(null["change_points"], 0, "{null}");
    assert!(null["latest_change"].is_null(), "{null}");

    // The index charts each configuration's headline, the step marked where it is.
    let out = dir.path().join("site");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let overview = |e: &Value| -> String {
        let at = format!("data-configuration=\"{}\"", e["id"].as_str().unwrap());
        let charts = index.find("id=\"overview\"").expect("an overview");
        let from = charts
            + index[charts..]
                .find(&at)
                .unwrap_or_else(|| panic!("no overview of {e}"));
        let end = index[from..]
            .find("</figure>")
            .map_or(index.len(), |k| from + k);
        index[from..end].to_string()
    };
    assert!(overview(stepped).contains("class=\"change-point\""));
    // Every chart marks the notes where their points begin.
    for e in [stepped, null] {
        let o = overview(e);
        assert!(o.contains("JDK 21.0.5 (build=n10; at build=n10)"), "{o}");
        assert!(
            o.contains("new merge policy (from 2026-10-16") && o.contains("at build=n25)"),
            "{o}"
        );
    }
    assert!(!overview(null).contains("class=\"change-point\""));
    // A page's axes say what they are; the metrics at zero on every night are one line.
    let page = std::fs::read_to_string(out.join(null["page"].as_str().unwrap())).unwrap();
    assert!(
        page.contains(">build, in the order the runs started<"),
        "x axis"
    );
    assert!(!page.contains(">time<"), "x axis titled time");
    let zero = page
        .split("class=\"zero-throughout\">")
        .nth(1)
        .and_then(|t| t.split("</p>").next())
        .unwrap_or_else(|| panic!("no line of metrics at zero"));
    assert!(zero.contains("errors: documents refused"), "{zero}");
    assert!(
        !page.contains("data-metric=\"errors.ingest.refused\""),
        "a flat zero charted"
    );
    let charts = page.matches("data-metric=\"").count();
    assert!(charts > 0);
    assert_eq!(
        page.matches("class=\"annotation\"").count(),
        2 * charts,
        "a mark per note per chart"
    );
    assert!(page.contains("id=\"annotations\""), "the notes listed");
    // Opened as a person would: every chart drawn, the index's two overviews too.
    let null_page = out.join(null["page"].as_str().unwrap());
    crate::common::browser::assert_charts_drawn(&null_page, charts, true);
    crate::common::browser::assert_charts_drawn(&out.join("index.html"), 2, true);
}

/// Over 20 seeds: the false change points thirty null nights show, against the bound the issue
/// sets (at most 5 % of the metrics the page shows, per thirty nights), and how often the
/// planted step is found where it happened. The figures are in BENCHMARKS.md.
#[test]
fn over_twenty_seeds_null_nights_stay_under_the_bound_and_the_step_is_found() {
    let (mut false_points, mut shown, mut found, mut near) = (0u64, 0usize, 0u64, 0u64);
    const SEEDS: u64 = 20;
    for seed in 0..SEEDS {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let store = Store::open(&db).unwrap();
        nights(&store, &db, 500, 100 + seed, 0.88);
        nights(&store, &db, 1000, 200 + seed, 1.0);
        let out = dir.path().join("site");
        let entries = site(&db, &out);
        let of = |bulk: &str| {
            entries
                .iter()
                .find(|e| e["summary"].as_str().unwrap().ends_with(bulk))
                .unwrap()
        };
        let null = of("bulk 1000");
        false_points += null["change_points"].as_u64().unwrap();
        let page = std::fs::read_to_string(out.join(null["page"].as_str().unwrap())).unwrap();
        shown = shown.max(page.matches("data-metric=\"").count());
        let change = of("bulk 500")["latest_change"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        // Where the new level starts: the night planted, or one either side (a night whose
        // noise hid the step).
        let at = |night: u64| change.contains(&format!("to build=n{night:02}"));
        if at(STEP_AT) {
            found += 1;
        }
        if change.contains("regression") && (STEP_AT - 1..=STEP_AT + 1).any(at) {
            near += 1;
        }
    }
    let per_thirty = false_points as f64 / SEEDS as f64;
    println!(
        "nightly site, {SEEDS} seeds of {NIGHTS} nights: {per_thirty:.2} false change point(s) per \
         {NIGHTS} null nights ({false_points} in all; bound 0.05 x {shown} metrics shown = {:.2}); \
         the 12 % step found at night {STEP_AT} in {found} of {SEEDS}, within a night of it in \
         {near}",
        0.05 * shown as f64
    );
    assert!(shown > 0);
    assert!(
        per_thirty <= 0.05 * shown as f64,
        "{per_thirty} per {NIGHTS} nights, {shown} shown"
    );
    assert!(
        near == SEEDS,
        "the step found near night {STEP_AT} in {near} of {SEEDS}"
    );
    assert!(
        found >= SEEDS / 2,
        "the step found at night {STEP_AT} in {found} of {SEEDS}"
    );
}

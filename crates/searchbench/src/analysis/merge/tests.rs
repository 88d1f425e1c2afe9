use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::measure::{Recorder, Sample};
use crate::store::PhaseMeasurements;

/// Part `i` of `of`: requests every 50 ms for `secs` seconds from `start_ms` on the wall
/// clock (the parts start on one second), each of 100 documents, service times spread by the
/// part and the request. Each sample also goes into `whole`, one process's recording of every
/// request.
fn make(i: u32, of: u32, secs: u64, start_ms: u64, whole: &mut Recorder) -> PartRun {
    let mut rec = Recorder::with_warmup(Duration::ZERO);
    let mut acked = 0;
    for k in 0..secs * 20 {
        let s = Sample {
            start: Duration::from_millis(k * 50),
            service: Duration::from_micros(1_000 + (k * 7_919 + u64::from(i) * 104_729) % 40_000),
            took_ms: Some(3),
            docs: 100,
            acked: 100,
            bytes: 10_000,
            wire_bytes: 10_000,
            status: 200,
            retry: 0,
        };
        rec.record(&s);
        whole.record(&s);
        acked += 100;
    }
    let wall = Duration::from_secs(secs);
    let headline = rec.finish(wall);
    let result = json!({
        "load_started_unix_ms": start_ms,
        "started_unix": start_ms / 1000,
        "wall_secs": secs as f64,
        "docs_per_sec": headline.docs_per_sec,
        "headline": headline,
        "previous_index": if i == 1 { "nothing" } else { "appended" },
        "index": "logs",
        "corpus": format!("logs (seed 1, 64000 docs), part {i}/{of}"),
        "config": {"clients": 2, "part": format!("{i}/{of}"), "group": "g1", "bulk_docs": 100},
        "counts": {"read": acked, "indexed": acked, "failed": 0, "reconciled": true,
                   "index_count": acked * u64::from(i), "index_count_before": 0},
        "requests": {"attempts": rec.requests, "failed_attempts": 0, "retries": 0},
        "mb_per_sec": rec.bytes as f64 / secs as f64 / 1e6,
        "wire_mb_per_sec": rec.wire_bytes as f64 / secs as f64 / 1e6,
        "cpu": {"driver_secs": 0.5},
        "interrupted": false,
        "error": null,
        "warnings": [],
    });
    let row = RunRow {
        id: RunId(format!("0000000{i}")),
        kind: "ingest".into(),
        workload: "logs".into(),
        engine: Some("opensearch-2.19.1".into()),
        status: "complete".into(),
        state: State::Complete,
        started_unix: start_ms / 1000,
        finished_unix: Some(start_ms / 1000 + secs),
        tool_version: "0.1.0".into(),
        seed: Some(1),
        pid: None,
        machine: json!({"cores": 2, "cpu_model": "x"}),
        config: json!({"clients": 2, "part": format!("{i}/{of}"), "group": "g1",
                       "corpus": format!("logs (seed 1, 64000 docs), part {i}/{of}")}),
        tags: [
            ("build".to_string(), "42".to_string()),
            ("host".to_string(), format!("h{i}")),
        ]
        .into(),
        error: None,
        result: Some(result),
    };
    let timeline = rec
        .timeline()
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    // The load phase's measurements, as a load keeps them.
    let counts = crate::ingest::Counts {
        read: acked,
        indexed: acked,
        ..Default::default()
    };
    let load = crate::ingest::figures::measure(crate::ingest::figures::Tally {
        recorder: &rec,
        headline: &headline,
        counts: &counts,
        began_unix_us: start_ms * 1000,
        wall,
        driver_cpu: Duration::from_millis(500),
        engine_cpu: None,
        cores: 2,
        freshness: None,
    });
    PartRun {
        part: Part { index: i, of },
        row,
        timeline,
        histograms: rec.histograms(),
        phases: vec![PhaseMeasurements {
            phase: crate::store::LOAD.into(),
            measurements: load,
            kept: Default::default(),
        }],
    }
}

fn three(whole: &mut Recorder) -> Vec<PartRun> {
    // Part 3 ends last (it loads 12 s), so its count is the index's after every part.
    let mut parts: Vec<PartRun> = [(1, 10), (2, 10), (3, 12)]
        .into_iter()
        .map(|(i, secs)| make(i, 3, secs, 1_700_000_000_000, whole))
        .collect();
    let total: u64 = [10u64, 10, 12].iter().map(|s| s * 2_000).sum();
    parts[2].row.result.as_mut().unwrap()["counts"]["index_count"] = total.into();
    parts
}

#[test]
fn three_parts_merge_into_the_figures_of_one_process_recording_every_request() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let parts = three(&mut whole);
    // Merged in any order.
    let mut shuffled = parts.clone();
    shuffled.reverse();
    let m = merge_parts("g1", shuffled, None).unwrap();
    let r = m.run.result.as_ref().unwrap();
    assert_eq!(m.run.state, State::Complete, "{}", r["parts"]);
    assert_eq!(r["counts"]["indexed"], 64_000);
    assert_eq!(r["counts"]["read"], 64_000);
    assert_eq!(r["counts"]["index_count"], 64_000);
    assert_eq!(r["counts"]["reconciled"], true);
    assert_eq!(r["requests"]["attempts"], 640);
    // Percentiles of the added histograms are those of one recording of every request.
    let want = serde_json::to_value(whole.service()).unwrap();
    assert_eq!(r["service"], want);
    assert_eq!(r["service"]["count"], 640);
    let took = serde_json::to_value(whole.took()).unwrap();
    assert_eq!(r["took"], took);
    // Timelines by wall-clock second, summed: the whole recording's seconds.
    let tl = r["timeline"].as_array().unwrap();
    let want_tl = whole.timeline();
    assert_eq!(tl.len(), want_tl.len());
    for (a, b) in tl.iter().zip(&want_tl) {
        assert_eq!(a["docs"], b.docs, "second {}", b.second);
        assert_eq!(a["requests"], b.requests);
        let mean = a["service_mean_ms"].as_f64().unwrap();
        assert!(
            (mean - b.service_mean_ms).abs() < 1e-9,
            "{mean} vs {}",
            b.service_mean_ms
        );
    }
    assert_eq!(m.run.timeline, *tl);
    // The headline: every document over the group's 12 s.
    assert_eq!(r["wall_secs"], 12.0);
    assert!((r["docs_per_sec"].as_f64().unwrap() - 64_000.0 / 12.0).abs() < 1e-6);
    // One run's configuration: clients summed, no part, the number of parts.
    assert_eq!(m.run.config["clients"], 6);
    assert_eq!(m.run.config["parts"], 3);
    assert!(m.run.config.get("part").is_none());
    assert_eq!(m.run.config["corpus"], "logs (seed 1, 64000 docs)");
    assert_eq!(r["config"]["clients"], 6);
    assert_eq!(r["corpus"], "logs (seed 1, 64000 docs)");
    // The tags all parts share, and the group's.
    assert_eq!(m.run.tags.get("build").map(String::as_str), Some("42"));
    assert!(!m.run.tags.contains_key("host"));
    assert_eq!(m.run.tags["group"], "g1");
    // Each part beside, with the tags it does not share (a merge drops no tag).
    let each = r["parts"]["each"].as_array().unwrap();
    assert_eq!(each.len(), 3);
    for (i, part) in each.iter().enumerate() {
        assert_eq!(
            part["tags"],
            json!({"host": format!("h{}", i + 1)}),
            "{part}"
        );
    }
    assert_eq!(each[2]["part"], "3/3");
    assert_eq!(each[2]["indexed"], 24_000);
    assert_eq!(each[0]["driver_cpu_secs"], 0.5);
    assert!((r["cpu"]["driver_secs"].as_f64().unwrap() - 1.5).abs() < 1e-9);
    // The stored histograms are the added ones.
    let service = m
        .run
        .histograms
        .iter()
        .find(|h| h.name == "service")
        .unwrap();
    assert_eq!(service.decode().unwrap().len(), 640);
    // Same parts, same id; the fingerprint is kept for the views.
    let again = merge_parts("g1", parts, None).unwrap();
    assert_eq!(again.id, m.id);
    assert!(r["parts"]["fingerprint"].is_string());
}

/// What adds up is read from the load phase every part kept, or, where a part kept none
/// (stored before phases were), from each part's result and stored histograms: the two
/// give one merged run, figure for figure.
#[test]
fn the_parts_load_phases_and_their_results_merge_into_the_same_run() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let parts = three(&mut whole);
    let mut without = parts.clone();
    for p in &mut without {
        p.phases.clear();
    }
    let (a, b) = (
        merge_parts("g1", parts.clone(), None).unwrap(),
        merge_parts("g1", without, None).unwrap(),
    );
    assert_eq!(a.run.result, b.run.result);
    assert_eq!(a.run.histograms, b.run.histograms);
    assert_eq!(a.run.state, State::Complete);
    // Both merged runs keep the added load phase: the one its parts kept, the one read from
    // what they wrote.
    for m in [&a, &b] {
        assert_eq!(m.run.phases.len(), 1);
        assert_eq!(m.run.phases[0].measurements.counts["indexed"], 64_000);
    }
    // A part whose phase says it read more than it indexed or failed unbalances the group,
    // whatever its result says.
    let mut unbalanced = parts;
    unbalanced[0].phases[0].measurements.count("read", 1);
    let m = merge_parts("g1", unbalanced, None).unwrap();
    let r = m.run.result.as_ref().unwrap();
    assert_eq!(r["counts"]["reconciled"], false, "{}", r["counts"]);
    assert_eq!(r["counts"]["read"], 64_001);
}

/// What part `n` of three searched beside its load: `n` searches a second for `10 + n` s,
/// `6n` of variant a (`n - 1` failed on a timeout) and `4n` of b.
fn searched_beside(n: u64) -> crate::query::beside::SearchesBeside {
    use crate::query::beside::VariantBeside;
    let variant = |name: &str, requests, errors| VariantBeside {
        variant: name.into(),
        requests,
        errors,
        latency: Default::default(),
    };
    crate::query::beside::SearchesBeside {
        clients: 1,
        requests: 10 * n,
        errors: n - 1,
        error_kinds: Vec::from_iter((n > 1).then(|| crate::query::cells::ErrorKind {
            message: "timeout".into(),
            count: n - 1,
        })),
        secs: 10.0 + n as f64,
        searches_per_sec: 1.0,
        variants: vec![variant("a", 6 * n, n - 1), variant("b", 4 * n, 0)],
        ..Default::default()
    }
}

/// The searches beside the parts' loads are derived from their phases added, as one
/// process's: counts summed, the group's span, the latency of every search, per variant
/// too. A part kept before their phase kept its counts has them made from what it said;
/// as it kept no latency per variant, the group shows none rather than the others'.
#[test]
fn the_searches_beside_a_loads_parts_merge_as_one_loads() {
    use crate::query::beside::{self, SearchesBeside};
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let empty = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    let mut latency = empty.clone();
    for n in 1..=3 {
        latency.record(n * 1_000).unwrap();
    }
    let mut parts_of = |kept_before: bool| {
        let mut parts = three(&mut whole);
        for (i, p) in parts.iter_mut().enumerate() {
            let n = i as u64 + 1;
            let mut h = empty.clone();
            h.record(n * 1_000).unwrap();
            let said = searched_beside(n);
            if kept_before && n == 3 {
                p.histograms
                    .extend(SerializedHistogram::encode(beside::LATENCY, "us", &h));
                p.row.result.as_mut().unwrap()["searches_beside"] = json!(said);
                continue;
            }
            let began = crate::ingest::figures::began_unix_us(p.phase(crate::store::LOAD).unwrap());
            let mut m = said.recorded(began.unwrap());
            for name in [beside::LATENCY, "beside_latency:a", "beside_latency:b"] {
                m.add_histogram(name, "us", &h).unwrap();
            }
            p.row.result.as_mut().unwrap()["searches_beside"] =
                json!(SearchesBeside::of(&m).unwrap());
            p.phases.push(PhaseMeasurements {
                phase: beside::PHASE.into(),
                measurements: m,
                kept: Default::default(),
            });
        }
        let m = merge_parts("g1", parts, None).unwrap();
        m.run.result.unwrap()
    };
    let r = parts_of(true);
    let b: SearchesBeside = serde_json::from_value(r["searches_beside"].clone()).unwrap();
    assert_eq!((b.clients, b.requests, b.errors), (3, 60, 3));
    // From the first part's start to the last part's end, as the group's load.
    assert_eq!((b.secs, b.searches_per_sec), (13.0, 60.0 / 13.0));
    assert_eq!((b.latency.count, b.latency.max_us), (3, latency.max()));
    // A reason every part met is one reason, counted as often as they met it.
    let kinds: Vec<(&str, u64)> = b
        .error_kinds
        .iter()
        .map(|k| (k.message.as_str(), k.count))
        .collect();
    assert_eq!(kinds, [("timeout", 3)]);
    let per_variant = |b: &SearchesBeside| -> Vec<(String, u64, u64, u64)> {
        let each = b.variants.iter();
        let of = |v: &beside::VariantBeside| {
            (v.variant.to_string(), v.requests, v.errors, v.latency.count)
        };
        each.map(of).collect()
    };
    let no_latency = [("a".into(), 36, 3, 0), ("b".into(), 24, 0, 0)];
    assert_eq!(per_variant(&b), no_latency);
    assert!(r["parts"].get("notes").is_none(), "{}", r["parts"]);
    // Its metrics are a single load's.
    let keys: Vec<String> = crate::analysis::metrics::of_run(Some(&r), &[], &[])
        .into_iter()
        .map(|m| m.key)
        .collect();
    assert!(
        keys.iter().any(|k| k == "beside.searches_per_sec"),
        "{keys:?}"
    );
    // Every part kept its phase: the latency per variant is the group's.
    let r = parts_of(false);
    let b: SearchesBeside = serde_json::from_value(r["searches_beside"].clone()).unwrap();
    let merged = [("a".into(), 36, 3, 3), ("b".into(), 24, 0, 3)];
    assert_eq!(per_variant(&b), merged);
    // A load without searches beside says nothing of them.
    let plain = merge_parts("g1", three(&mut whole), None).unwrap();
    let r = plain.run.result.unwrap();
    assert!(r.get("searches_beside").is_none() && r["parts"].get("notes").is_none());
    // A part that kept none (killed before its load ended) leaves the group's out, and says so.
    let mut parts = three(&mut whole);
    for p in parts.iter_mut().take(2) {
        let load = p.phase(crate::store::LOAD).unwrap();
        let began = crate::ingest::figures::began_unix_us(load).unwrap();
        p.phases.push(PhaseMeasurements {
            phase: beside::PHASE.into(),
            measurements: searched_beside(1).recorded(began),
            kept: Default::default(),
        });
    }
    let r = merge_parts("g1", parts, None).unwrap().run.result.unwrap();
    assert!(r.get("searches_beside").is_none(), "{r}");
    let warnings = r["warnings"].to_string();
    let said = "part(s) 3/3 kept no searches beside their load: the group's are left out";
    assert!(warnings.contains(said), "{warnings}");
}

/// An open-loop group (`--rate` on each part) has the schedule's figures of one run: offered
/// and achieved summed over the parts side by side, requests and late ones counted, latency
/// and lag over every request (as one process recording every request has them), and what
/// limited it judged from the busiest part's driver. A part that kept its pacing only in its
/// result leaves the group's out, and says so.
#[test]
fn an_open_loop_groups_schedule_figures_are_its_parts_added() {
    use crate::ingest::pace::{Pace, Paced, RateReport};
    let start = std::time::Instant::now();
    let whole = Pace::new(3_000.0, start, Duration::ZERO);
    let mut ignored = Recorder::with_warmup(Duration::ZERO);
    let mut parts = three(&mut ignored);
    let mut achieved = 0.0;
    for (i, p) in parts.iter_mut().enumerate() {
        let pace = Pace::new(1_000.0, start, Duration::ZERO);
        for k in 0..50u64 {
            // Part 2 sends every fifth request 30 ms late.
            let late = if i == 1 && k % 5 == 0 { 30 } else { 0 };
            let due = k * 100;
            let paced = Paced {
                due: Duration::from_millis(due),
                sent: Duration::from_millis(due + late),
                answered: Duration::from_millis(due + late + 5 + i as u64 * 3 + k % 7),
                docs: 100,
                delivered: true,
            };
            pace.record(paced);
            whole.record(paced);
        }
        let measured = pace.finish(true);
        achieved += measured.achieved.unwrap();
        let load = &mut p.phases[0].measurements;
        measured.record(2, load);
        let (rate, _) = RateReport::of(load, Duration::from_secs(10), 0.05).unwrap();
        p.row.result.as_mut().unwrap()["rate"] = json!(rate);
    }
    let r = merge_parts("g1", parts.clone(), None)
        .unwrap()
        .run
        .result
        .unwrap();
    let rate = &r["rate"];
    let one = whole.finish(true);
    assert_eq!(rate["offered_docs_per_sec"], 3_000.0);
    let got = rate["achieved_docs_per_sec"].as_f64().unwrap();
    assert!((got - achieved).abs() < 0.01, "{got} against {achieved}");
    assert_eq!(
        (rate["requests"].as_u64(), rate["late_requests"].as_u64()),
        (Some(150), Some(10))
    );
    for (kept, name) in [(&one.latency, "latency"), (&one.lag, "schedule_lag")] {
        assert_eq!(rate[name], json!(kept), "{name}");
    }
    // Each part's driver used 0.5 s of CPU over its 10 s or 12 s; the busiest part's share
    // is the group's. The rate held, but part 2's late sends are most of the tail latency
    // while the clients sat idle: the driver's lag, said as one run says it.
    let share = rate["driver_core_share"].as_f64().unwrap();
    assert!((share - 0.05).abs() < 1e-9, "{share}");
    assert_eq!(rate["limit"], "driver", "{rate}");
    assert!(
        r["warnings"]
            .to_string()
            .contains("schedule lag (p99 30.0 ms"),
        "{}",
        r["warnings"]
    );
    // A part that kept its pacing only in its result: left out, and said.
    let mut old = parts;
    let load = &mut old[1].phases[0].measurements;
    load.counts.retain(|name, _| !name.starts_with("paced_"));
    let r = merge_parts("g1", old, None).unwrap().run.result.unwrap();
    assert!(r.get("rate").is_none(), "{}", r["rate"]);
    let said = "part(s) 2/3 kept their open-loop figures before the record did";
    assert!(
        r["warnings"].to_string().contains(said),
        "{}",
        r["warnings"]
    );
}

/// A part is only as honest as the store or file it came from: one holding a number no run
/// counts (past 2^53, where JSON stops being exact) is refused, naming the part and where, in
/// its result, its timeline or a phase; up to 2^53 each, the parts add exactly.
#[test]
fn a_part_holding_a_number_past_2_53_is_refused_naming_where_and_below_it_adds_exactly() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let refused = |parts: Vec<PartRun>| merge_parts("g1", parts, None).unwrap_err().to_string();
    let mut parts = three(&mut whole);
    parts[1].row.result.as_mut().unwrap()["counts"]["indexed"] = u64::MAX.into();
    let err = refused(parts);
    assert!(
        err.contains(
            "part 2/3 (00000002): its result `counts.indexed` is 18446744073709551615, past 2^53"
        ),
        "{err}"
    );
    let mut parts = three(&mut whole);
    parts[0].row.result.as_mut().unwrap()["wall_secs"] = json!(-1e300);
    let err = refused(parts);
    assert!(
        err.contains("part 1/3 (00000001): its result `wall_secs` is -1e+300"),
        "{err}"
    );
    let mut parts = three(&mut whole);
    parts[1].row.result.as_mut().unwrap()["counts"]["read"] = (super::exact::MOST + 1).into();
    let err = refused(parts);
    assert!(err.contains("`counts.read` is 9007199254740993"), "{err}");
    let mut parts = three(&mut whole);
    parts[0].timeline[3]["docs"] = (1u64 << 60).into();
    let err = refused(parts);
    assert!(
        err.contains("its timeline `3.docs` is 1152921504606846976"),
        "{err}"
    );
    let mut parts = three(&mut whole);
    parts[2].phases[0].measurements.count("indexed", u64::MAX);
    let err = refused(parts);
    assert!(
        err.contains(&format!(
            "part 3/3 (00000003): its phase {} `indexed` is {}",
            crate::store::LOAD,
            u64::MAX
        )),
        "{err}"
    );
    // So is a moment of a timed list past 2^53 µs, or a value JSON cannot hold.
    let mut parts = three(&mut whole);
    let m = &mut parts[1].phases[0].measurements;
    m.at("done", &["docs"], u64::MAX, &[1.0]).unwrap();
    let err = refused(parts);
    assert!(err.contains("`done at 18446744073709551615 µs`"), "{err}");
    let mut parts = three(&mut whole);
    let m = &mut parts[1].phases[0].measurements;
    m.at("done", &["docs"], 5, &[f64::INFINITY]).unwrap();
    let err = refused(parts);
    assert!(err.contains("`done at 5 µs` is inf"), "{err}");

    // A seed is any u64: it names a sequence and is never added.
    let mut parts = three(&mut whole);
    for p in &mut parts {
        p.row.config["seed"] = u64::MAX.into();
        p.row.result.as_mut().unwrap()["config"]["shuffle_seed"] = u64::MAX.into();
    }
    merge_parts("g1", parts, None).unwrap();

    let most = super::exact::MOST;
    let mut parts = three(&mut whole);
    for p in &mut parts {
        p.row.result.as_mut().unwrap()["searches_beside"] = json!({
            "clients": 1, "requests": most, "errors": most,
            "error_kinds": [{"message": "timeout", "count": most}],
            "secs": 10.0, "searches_per_sec": 1.0,
            "latency": crate::query::cells::HdrSummary::default(), "variants": [],
        });
    }
    let m = merge_parts("g1", parts, None).unwrap();
    let b = &m.run.result.as_ref().unwrap()["searches_beside"];
    assert_eq!(
        (&b["requests"], &b["errors"]),
        (&json!(3 * most), &json!(3 * most))
    );
    assert_eq!(
        b["error_kinds"],
        json!([{"message": "timeout", "count": 3 * most}])
    );
}

#[test]
fn what_else_a_parts_machine_did_is_its_own_runs_not_the_groups() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let mut parts = three(&mut whole);
    for (i, p) in parts.iter_mut().enumerate() {
        p.row.result.as_mut().unwrap()["background"] =
            json!({"machine_busy_pct": 50.0, "steal_pct": i as f64, "other_cpu_pct": 10.0});
    }
    let single = crate::analysis::metrics::of_run(parts[0].row.result.as_ref(), &[], &[]);
    assert!(single.iter().any(|m| m.key == "machine.steal_pct"));
    let m = merge_parts("g1", parts, None).unwrap();
    let r = m.run.result.as_ref().unwrap();
    assert!(r.get("background").is_none(), "{r}");
    let merged = crate::analysis::metrics::of_run(Some(r), &[], &[]);
    assert!(!merged.iter().any(|m| m.key.starts_with("machine.")));
}

#[test]
fn a_load_part_whose_result_does_not_read_is_refused_naming_it() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let mut parts = three(&mut whole);
    parts[1].row.result.as_mut().unwrap()["counts"] = json!("all of them");
    let err = merge_parts("g1", parts, None).unwrap_err().to_string();
    assert!(
        err.contains("part 2/3 (00000002): not a load's result"),
        "{err}"
    );
}

#[test]
fn a_missing_part_leaves_the_group_incomplete_with_what_the_others_did() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let mut parts = three(&mut whole);
    parts.remove(1);
    let m = merge_parts("g1", parts, None).unwrap();
    assert_eq!(m.run.state, State::Incomplete);
    let r = m.run.result.as_ref().unwrap();
    assert_eq!(r["counts"]["indexed"], 44_000);
    assert_eq!(r["counts"]["reconciled"], false);
    assert_eq!(r["parts"]["missing"], json!([2]));
    assert!(m
        .run
        .error
        .as_deref()
        .unwrap()
        .contains("part 2/3 is missing"));
    assert_eq!(crate::store::outcome_of(r).0, State::Incomplete);
}

#[test]
fn a_killed_part_counts_what_its_timeline_streamed_and_makes_the_group_incomplete() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let mut parts = three(&mut whole);
    let killed = &mut parts[1];
    killed.row.state = State::Incomplete;
    killed.row.status = "running".into();
    killed.row.result = None;
    killed.histograms.clear();
    killed.phases.clear();
    killed.timeline.truncate(4);
    let streamed: u64 = killed
        .timeline
        .iter()
        .map(|r| r["docs"].as_u64().unwrap())
        .sum();
    assert_eq!(streamed, 8_000);
    let m = merge_parts("g1", parts, Some(60_000)).unwrap();
    assert_eq!(m.run.state, State::Incomplete);
    let r = m.run.result.as_ref().unwrap();
    assert_eq!(r["counts"]["indexed"], 20_000 + 8_000 + 24_000);
    assert_eq!(r["counts"]["index_count"], 60_000);
    assert_eq!(r["counts"]["reconciled"], false);
    // No percentiles from two parts of three (and a summary every reader reads).
    assert_eq!(r["service"]["count"], 0, "{}", r["service"]);
    assert!(r["service"]["p50_ms"].is_null());
    assert!(r["took"]["p99_ms"].is_null());
    assert!(m.run.histograms.is_empty());
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("part(s) 2/3 stored no histograms"),
        "{warnings}"
    );
    assert!(m
        .run
        .error
        .as_deref()
        .unwrap()
        .contains("part 2/3 (00000002) is incomplete"));
}

#[test]
fn a_failed_part_fails_the_group_and_a_count_that_disagrees_fails_it() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let mut parts = three(&mut whole);
    parts[0].row.state = State::Failed;
    assert_eq!(
        merge_parts("g1", parts, None).unwrap().run.state,
        State::Failed
    );

    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let parts = three(&mut whole);
    let m = merge_parts("g1", parts, Some(63_999)).unwrap();
    assert_eq!(m.run.state, State::Failed);
    let error = m.run.error.unwrap();
    assert!(
        error.contains(
            "the index gained 63999 documents (counted at the merge), the parts acknowledged 64000"
        ),
        "{error}"
    );
}

#[test]
fn a_part_run_twice_is_refused_whichever_run_ended_well() {
    // Before: the complete run was merged and the group called complete and reconciled,
    // though the index held what the other run had sent too.
    for state in [State::Failed, State::Complete] {
        let mut whole = Recorder::with_warmup(Duration::ZERO);
        let mut parts = three(&mut whole);
        let mut again = parts[0].clone();
        again.row.id = RunId("0000000f".into());
        again.row.state = state;
        again.row.started_unix += 100;
        parts.push(again);
        let e = merge_parts("g1", parts, None).unwrap_err();
        assert!(e.is_usage());
        let e = e.to_string();
        assert!(
            e.contains("part 1/3 was run 2 times") && e.contains("0000000f"),
            "{e}"
        );
    }
}

#[test]
fn parts_of_different_configurations_are_refused_naming_the_setting() {
    for (key, value) in [
        ("bulk_docs", json!(500)),
        ("clients", json!(8)),
        ("seed", json!(2)),
    ] {
        let mut whole = Recorder::with_warmup(Duration::ZERO);
        let mut parts = three(&mut whole);
        parts[2].row.config[key] = value.clone();
        let e = merge_parts("g1", parts, None).unwrap_err();
        assert!(e.is_usage());
        let e = e.to_string();
        assert!(
            e.contains(&format!("{key} {value}")) && e.contains("part 3/3"),
            "{e}"
        );
    }
    // A share of the clients one larger (5 clients over 3 parts: 1, 2, 2), another address
    // of the cluster, the part's own corpus description: one configuration still.
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let mut parts = three(&mut whole);
    parts[1].row.config["clients"] = json!(3);
    parts[1].row.config["urls"] = json!(["http://10.0.0.2:9200"]);
    assert!(merge_parts("g1", parts, None).is_ok());
}

#[test]
fn runs_that_are_not_parts_of_one_run_are_refused() {
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let mut parts = three(&mut whole);
    parts[1].part = Part { index: 2, of: 4 };
    let e = merge_parts("g1", parts, None).unwrap_err().to_string();
    assert!(e.contains("not parts of one run"), "{e}");
    assert!(matches!(
        merge_parts("g9", Vec::new(), None),
        Err(MergeError::NoParts(_))
    ));
}

#[test]
fn views_see_a_group_as_its_merged_run_and_a_stored_merge_while_it_is_current() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    let mut whole = Recorder::with_warmup(Duration::ZERO);
    let mut ids = Vec::new();
    for p in three(&mut whole) {
        let run = p.whole();
        ids.push(store.put_whole(&run, None, &[]).unwrap());
    }
    let other = store
        .save(
            &crate::store::NewRun::new(crate::store::Kind::Ingest, "logs", json!({})),
            &json!({"docs_per_sec": 1.0, "counts": {}}),
        )
        .unwrap();
    let rows = store.list(&Filter::default()).unwrap();
    assert_eq!(rows.len(), 4);
    let seen = resolve(&store, rows).unwrap();
    assert_eq!(seen.rows.len(), 2, "three parts give way to one merged run");
    let merged = seen.rows.iter().find(|r| r.id != other).unwrap();
    assert_eq!(merged.state, State::Complete);
    assert!(seen.merged.contains_key(&merged.id), "merged in memory");
    // Stored, it is what the views use, until a part changes.
    let m = merge(&store, "g1", None).unwrap();
    let id = store_merged(&store, &m).unwrap();
    assert_eq!(id, m.id);
    let seen = resolve(&store, store.list(&Filter::default()).unwrap()).unwrap();
    assert_eq!(seen.rows.len(), 2);
    assert!(seen.merged.is_empty(), "the stored merge is current");
    assert!(seen.rows.iter().any(|r| r.id == id));
    // A part removed: the stored merge is stale, the group merged again (incomplete).
    store.discard_run(&ids[1]).unwrap();
    let seen = resolve(&store, store.list(&Filter::default()).unwrap()).unwrap();
    let merged: Vec<&RunRow> = seen.rows.iter().filter(|r| r.id != other).collect();
    assert_eq!(merged.len(), 1);
    assert_ne!(merged[0].id, id);
    assert_eq!(merged[0].state, State::Incomplete);
    // Merging again replaces the stored merge.
    let again = merge(&store, "g1", None).unwrap();
    store_merged(&store, &again).unwrap();
    let stored: BTreeMap<_, _> = store
        .list(&Filter::default())
        .unwrap()
        .into_iter()
        .filter(is_merged)
        .map(|r| (r.id.clone(), r.state))
        .collect();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored.values().next(), Some(&State::Incomplete));
    // Its parts gone (only the merged run kept, or imported alone): the merge is the group.
    for id in [&ids[0], &ids[2]] {
        store.discard_run(id).unwrap();
    }
    let seen = resolve(&store, store.list(&Filter::default()).unwrap()).unwrap();
    assert_eq!(
        seen.rows.len(),
        2,
        "{:?}",
        seen.rows.iter().map(|r| &r.id).collect::<Vec<_>>()
    );
    assert!(seen.rows.iter().any(|r| stored.contains_key(&r.id)));
}

#[test]
fn each_nights_group_is_one_point_of_one_history() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    // Two nights, each a group of three parts under its own id, tagged with its build.
    for (night, group) in [(1u64, "nightly-1"), (2, "nightly-2")] {
        let mut whole = Recorder::with_warmup(Duration::ZERO);
        for mut p in three(&mut whole) {
            p.row.config["group"] = group.into();
            p.row.started_unix += night * 86_400;
            p.row.tags = [("build".to_string(), night.to_string())].into();
            store.put_whole(&p.whole(), None, &[]).unwrap();
        }
    }
    let mut selection =
        crate::analysis::history::Selection::new(crate::analysis::history::Axis::Time);
    selection.workload = Some("logs".into());
    let history = crate::analysis::history::load(&store, &selection).unwrap();
    assert_eq!(
        history.runs.len(),
        2,
        "one merged run a night, no part on its own"
    );
    assert!(history.excluded.is_empty(), "{:?}", history.excluded);
    assert_eq!(history.configuration.config["parts"], 3);
}

/// A track part: `tasks` (name, latencies in µs, first wall-clock second), each task's
/// histograms kept as a track run keeps them. Every latency also goes into `whole`.
fn track_part(
    i: u32,
    of: u32,
    tasks: &[(&str, Vec<u64>, u64)],
    whole: &mut crate::measure::Measurements,
) -> PartRun {
    use crate::tasks::{figures, TaskRun};
    let mut rows = Vec::new();
    let mut histograms = Vec::new();
    let mut phases = Vec::new();
    for (name, latencies, from_s) in tasks {
        let mut m = crate::measure::Measurements::default();
        for (k, v) in latencies.iter().enumerate() {
            m.count("ops", 1);
            m.count_at(from_s + k as u64 / 10, "ops", 1);
            m.record("latency", "us", *v);
            m.record("service_time", "us", *v);
            if *name == "search" {
                whole.record("latency", "us", *v);
            }
        }
        let start = std::time::UNIX_EPOCH + Duration::from_secs(*from_s);
        let end = start + Duration::from_millis(latencies.len() as u64 * 100);
        let run = TaskRun {
            measurements: m,
            window: Some((start, end)),
            first_error: None,
            stopped: false,
        };
        phases.push(crate::store::PhaseMeasurements {
            phase: name.to_string(),
            measurements: run.measurements.clone(),
            kept: Default::default(),
        });
        let mut row = figures::of(name, "search", &run);
        row.per_second = Some(
            run.measurements
                .seconds
                .iter()
                .map(|(s, c)| (*s, c["ops"]))
                .collect(),
        );
        rows.push(row);
        for h in ["latency", "service_time"] {
            let (unit, hist) = &run.measurements.histograms[h];
            histograms.push(
                SerializedHistogram::encode(&format!("task:{name}:{h}"), unit, hist).unwrap(),
            );
        }
    }
    let result = json!({
        "track": "t", "procedure": "p", "procedure_word": "challenge",
        "product": "opensearch", "engine_version": "2.19.1",
        "tasks": rows,
        "not_run": [
            {"what": "task create", "runs": false, "how": "on another part: part 1 runs it"},
            {"what": "task snapshot (create-snapshot)", "runs": false, "how": "not yet"},
        ],
        "synthesized": [{"corpus": "c", "file": format!("part{i}.json"), "documents": 10,
                         "sample_docs": 5, "seed": 1}],
    });
    let row = RunRow {
        id: RunId(format!("t000000{i}")),
        kind: "track".into(),
        workload: "t".into(),
        engine: Some("opensearch-2.19.1".into()),
        status: "complete".into(),
        state: State::Complete,
        started_unix: 1000,
        finished_unix: Some(1100),
        tool_version: "0.1.0".into(),
        seed: None,
        pid: None,
        machine: json!({"cores": 2}),
        config: json!({"track": "t", "procedure": "p", "part": format!("{i}/{of}"), "group": "gt"}),
        tags: BTreeMap::new(),
        error: None,
        result: Some(result),
    };
    PartRun {
        part: Part { index: i, of },
        row,
        timeline: Vec::new(),
        histograms,
        phases,
    }
}

/// A track's parts merge task by task: the search every part ran has every part's operations,
/// percentiles equal to one recording of all its requests, and its throughput over the
/// group's window; the task part 1 ran alone is there once; what another part ran is not
/// listed as not run.
#[test]
fn a_tracks_parts_merge_task_by_task() {
    let mut whole = crate::measure::Measurements::default();
    let lat = |seed: u64, n: u64| -> Vec<u64> {
        (0..n)
            .map(|k| 500 + (k * 7_919 + seed * 104_729) % 30_000)
            .collect()
    };
    let p1 = track_part(
        1,
        2,
        &[("create", vec![2_000], 1000), ("search", lat(1, 80), 1001)],
        &mut whole,
    );
    let p2 = track_part(2, 2, &[("search", lat(2, 60), 1001)], &mut whole);
    // Parts that kept no phases (stored before phases were) merge into the same tasks, from
    // their rows and stored histograms.
    let mut rows_only = vec![p1.clone(), p2.clone()];
    for p in &mut rows_only {
        p.phases.clear();
    }
    let from_rows = merge_parts("gt", rows_only, None).unwrap();
    let merged = merge_parts("gt", vec![p2, p1], None).unwrap();
    assert_eq!(merged.run.result, from_rows.run.result);
    assert_eq!(merged.run.histograms, from_rows.run.histograms);
    assert_eq!(merged.run.state, State::Complete, "{:?}", merged.run.error);
    let r = merged.run.result.as_ref().unwrap();
    let tasks: Vec<crate::tasks::TaskFigures> = serde_json::from_value(r["tasks"].clone()).unwrap();
    assert_eq!(
        tasks.iter().map(|t| t.task.as_str()).collect::<Vec<_>>(),
        ["create", "search"]
    );
    let search = &tasks[1];
    assert_eq!(search.ops, 140);
    let (_, h) = &whole.histograms["latency"];
    let expected =
        crate::tasks::figures::PERCENTILES.map(|p| h.value_at_quantile(p / 100.0) as f64 / 1000.0);
    assert_eq!(search.latency_ms, Some(expected));
    // From the first send (1001 s) to the last answer (part 1's 8 s).
    assert_eq!(search.seconds, Some(8.0));
    assert_eq!(search.throughput_mean, Some(140.0 / 8.0));
    // Seconds 1001..1008 hold 10 + 10 ops while both ran, 10 after: whole seconds only.
    assert_eq!(search.throughput_median, Some(20.0));
    assert_eq!(search.throughput_min, Some(10.0));
    assert_eq!(tasks[0].ops, 1);
    let not_run = r["not_run"].as_array().unwrap();
    assert_eq!(not_run.len(), 1, "{not_run:?}");
    assert_eq!(r["parts"]["of"], 2);
    // The group's result is one track run's, read back as its type: part 1's track and
    // engine, and every part's synthesized files (its figures are not the real corpus's).
    let run: crate::tasks::TrackRunResult = serde_json::from_value(r.clone()).unwrap();
    assert_eq!(
        (run.track.as_str(), run.engine_version.as_str()),
        ("t", "2.19.1")
    );
    let files: Vec<&str> = run.synthesized.iter().map(|s| s.file.as_str()).collect();
    assert_eq!(files, ["part1.json", "part2.json"]);
    assert!(!run.interrupted && run.stopped_by.is_none() && run.telemetry.is_none());
    // Each part beside the group: the tasks it ran, its machine's cores (when it said them).
    let each = r["parts"]["each"].as_array().unwrap();
    let ran: Vec<&Value> = each.iter().map(|e| &e["tasks"]).collect();
    assert_eq!(ran, [&json!(["create", "search"]), &json!(["search"])]);
    assert!(each.iter().all(|e| e.get("cores").is_some()), "{each:?}");
    assert_eq!(merged.run.config["parts"], 2);
    assert!(merged.run.config.get("part").is_none());
    assert!(merged
        .run
        .histograms
        .iter()
        .any(|h| h.name == "task:search:latency"));
    // The phases' measurements added whatever the kind: the search every part ran holds
    // every part's operations and one recording of all its latencies; the task part 1 ran
    // alone is there once.
    let phases: Vec<&str> = merged.run.phases.iter().map(|p| p.phase.as_str()).collect();
    assert_eq!(phases, ["create", "search"]);
    let searched = &merged.run.phases[1].measurements;
    assert_eq!(searched.counts["ops"], 140);
    assert_eq!(searched.histograms["latency"].1, *h);
    assert_eq!(merged.run.phases[0].measurements.counts["ops"], 1);
}

/// A part whose worker died is interrupted with why; the merged run says so, naming the part
/// (and says nothing of it when no part was stopped so).
#[test]
fn a_track_part_stopped_by_its_worker_dying_says_why_in_the_merged_run() {
    let mut whole = crate::measure::Measurements::default();
    let p1 = track_part(1, 2, &[("search", vec![900; 20], 1001)], &mut whole);
    let mut p2 = track_part(2, 2, &[("search", vec![900; 10], 1001)], &mut whole);
    let complete = merge_parts("gt", vec![p1.clone(), p2.clone()], None).unwrap();
    assert!(complete
        .run
        .result
        .as_ref()
        .unwrap()
        .get("stopped_by")
        .is_none());
    let said = p2.row.result.as_mut().unwrap();
    said["interrupted"] = true.into();
    said["stopped_by"] = "the Python worker ended: Killed".into();
    p2.row.state = State::Interrupted;
    let merged = merge_parts("gt", vec![p1, p2], None).unwrap();
    let r = merged.run.result.as_ref().unwrap();
    assert_eq!(
        (&r["interrupted"], &r["stopped_by"]),
        (
            &serde_json::json!(true),
            &serde_json::json!("part 2/2: the Python worker ended: Killed")
        )
    );
    assert_eq!(merged.run.state, State::Interrupted);
}

/// A track part whose result does not read as a track run's is refused, naming the part:
/// no group is merged without it as if it had not run.
#[test]
fn a_track_part_whose_result_does_not_read_is_refused_naming_it() {
    let mut whole = crate::measure::Measurements::default();
    let p1 = track_part(1, 2, &[("search", vec![900, 1_200], 1000)], &mut whole);
    let mut p2 = track_part(2, 2, &[("search", vec![1_000], 1000)], &mut whole);
    if let Some(r) = p2.row.result.as_mut() {
        r["tasks"] = json!("not a list");
    }
    let id = p2.row.id.clone();
    let err = merge_parts("gt", vec![p1, p2], None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("part 2/2") && err.contains(&id.0) && err.contains("not a track run's"),
        "{err}"
    );
}

/// A scenario's parts: the group's creation is what one process would derive from its record
/// of every index made and every cluster state sampled, on the wall clock (part 2 began 1.5 s
/// after part 1), with the index-creation histograms added; part 1's counts and cleanup are
/// the group's. Parts kept before their phase kept its record (their per-index times in their
/// result, their histogram beside it) merge into the same run.
#[test]
fn a_scenarios_parts_derive_one_creation_phase() {
    use crate::measure::Measurements;
    use crate::workload::scenario_result::{
        derive, latency_of, record, CreationSetup, CREATE_HISTOGRAM, CREATION_PHASE,
        FIELD_CAPS_HISTOGRAM, FIELD_CAPS_PHASE,
    };
    let setup = |clients: usize| CreationSetup {
        indices_requested: 8,
        docs_per_index: 10,
        clients,
        bulk_docs: 10,
    };
    // One process's record of every part's moments, beside each part's own.
    let mut whole = Measurements::default();
    let mut recorded = |i: u32, began_us: u64, done_ms: &[u64], states: &[(u64, u64)]| {
        let mut m = Measurements::default();
        for m in [&mut m, &mut whole] {
            record::began(m, began_us);
            for (k, ms) in done_ms.iter().enumerate() {
                record::index_done(m, began_us + ms * 1000, 10 + k as u64);
                let v = 1_000 + (k as u64 * 7_919 + u64::from(i) * 104_729) % 50_000;
                m.record(CREATE_HISTOGRAM, "us", v);
            }
            for (ms, bytes) in states {
                record::cluster_state(m, began_us + ms * 1000, *bytes);
            }
            record::error(m);
            record::ended(m, began_us + 4_000_000);
        }
        m
    };
    let m1 = recorded(
        1,
        1_000_000_000,
        &[500, 1_200, 2_000, 3_900],
        &[(0, 900), (2_000, 1_900)],
    );
    let m2 = recorded(2, 1_001_500_000, &[100, 700, 1_100, 2_400], &[(0, 1_000)]);
    let part = |i: u32, m: &Measurements, old: bool| {
        let start_ms = m.bounds.least["began_unix_us"] / 1000;
        let example = vec![format!("part {i}'s error")];
        let mut c = derive(&setup(1), m, example).unwrap();
        let phase = PhaseMeasurements {
            phase: CREATION_PHASE.into(),
            measurements: m.clone(),
            kept: Default::default(),
        };
        let (h, _) = (&m.histograms[CREATE_HISTOGRAM].1, ());
        let mut stored = vec![SerializedHistogram::encode(CREATE_HISTOGRAM, "us", h).unwrap()];
        // Its field caps: one client's requests, i of them failed.
        let mut answers = crate::measure::recorder::histogram();
        for v in [300 * u64::from(i), 900, 4_000] {
            answers.record(v).unwrap();
        }
        let caps = latency_of(&answers, 1, 3 + u64::from(i), u64::from(i), vec![]);
        stored.push(SerializedHistogram::encode(FIELD_CAPS_HISTOGRAM, "us", &answers).unwrap());
        let caps_phase = PhaseMeasurements {
            phase: FIELD_CAPS_PHASE.into(),
            measurements: caps.recorded(Some(&answers)),
            kept: Default::default(),
        };
        if old {
            // As a part wrote it before its phase kept the record.
            let done = m.timed["index_done"].of("docs");
            c.done = Some(
                done.map(|(at, d)| ((at / 1000 - start_ms) as f64 / 1e3, d as u64))
                    .collect(),
            );
            c.started_unix_ms = Some(start_ms);
        }
        let result = json!({
            "scenario": "many-shards", "prefix": "p-", "wall_secs": 5.0,
            "started_unix_ms": start_ms,
            "creation": c,
            "field_caps": caps,
            "counts": {"expected_indices": 8, "found_indices": 8, "complete_indices": 8,
                       "docs": 80, "reconciled": true},
            "cleanup": {"indices_deleted": if i == 1 { 9 } else { 0 }},
            "interrupted": false, "warnings": [],
        });
        PartRun {
            part: Part { index: i, of: 2 },
            row: RunRow {
                id: RunId(format!("s000000{i}")),
                kind: "run".into(),
                workload: "many-shards".into(),
                engine: None,
                status: "complete".into(),
                state: State::Complete,
                started_unix: start_ms / 1000,
                finished_unix: Some(start_ms / 1000 + 5),
                tool_version: "0.1.0".into(),
                seed: Some(1),
                pid: None,
                machine: json!({}),
                config: json!({"clients": 1, "part": format!("{i}/2"), "group": "gs"}),
                tags: BTreeMap::new(),
                error: None,
                result: Some(result),
            },
            timeline: Vec::new(),
            histograms: stored,
            phases: if old {
                Vec::new()
            } else {
                vec![phase, caps_phase]
            },
        }
    };
    let merged = merge_parts("gs", vec![part(1, &m1, false), part(2, &m2, false)], None).unwrap();
    let old = merge_parts("gs", vec![part(1, &m1, true), part(2, &m2, true)], None).unwrap();
    // One error each: the group's two, and it failed as one run with them would.
    assert_eq!(merged.run.state, State::Failed);
    assert_eq!(merged.run.error.as_deref(), Some("2 creation error(s)"));
    assert_eq!(merged.run.histograms, old.run.histograms);
    assert_eq!(merged.run.phases.len(), 2);
    let r = merged.run.result.unwrap();
    let examples = vec!["part 1's error".to_string(), "part 2's error".to_string()];
    let expected = derive(&setup(2), &whole, examples).unwrap();
    assert_eq!(r["creation"], serde_json::to_value(&expected).unwrap());
    let old = old.run.result.unwrap();
    assert_eq!(old["creation"], r["creation"]);
    // The field caps: every part's requests and clients, the percentiles of every answer.
    let mut answers = crate::measure::recorder::histogram();
    for v in [300, 900, 4_000, 600, 900, 4_000] {
        answers.record(v).unwrap();
    }
    let caps = latency_of(&answers, 2, 9, 3, vec![]);
    assert_eq!(r["field_caps"], serde_json::to_value(&caps).unwrap());
    assert_eq!(old["field_caps"], r["field_caps"]);
    // Its figures: 8 indices over 5.5 s; each sample with the indices done by then.
    assert_eq!(
        (expected.indices_created, expected.secs, expected.errors),
        (8, 5.5, 2)
    );
    let states: Vec<(f64, u64)> = expected
        .cluster_state
        .iter()
        .map(|s| (s.secs, s.indices))
        .collect();
    assert_eq!(states, [(0.0, 0), (1.5, 2), (2.0, 4)]);
    assert_eq!(r["cleanup"]["indices_deleted"], 9);
    assert_eq!(r["wall_secs"], 6.5);
}

/// A run's written result from its load's figures, as a load writes them, with what the
/// merge reads beside (identity, configuration, the index's count).
fn written(f: &crate::ingest::figures::LoadFigures, i: u32, of: u32, began_us: u64) -> Value {
    let mut r = serde_json::to_value(f).unwrap();
    let extra = json!({
        "load_started_unix_ms": began_us / 1000,
        "started_unix": began_us / 1_000_000,
        "previous_index": if i == 1 { "nothing" } else { "appended" },
        "index": "logs",
        "corpus": format!("logs (seed 1), part {i}/{of}"),
        "config": {"clients": 1, "part": format!("{i}/{of}"), "group": "p", "bulk_docs": 100},
        "interrupted": false,
        "error": null,
        "warnings": [],
    });
    r.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    r
}

/// Property (issue 98): however one load's requests fall into parts (2 to 6, uneven shares,
/// parts starting whole seconds apart, or together with a warm-up), the group's merged run
/// and a single run of the same load give the same metrics, value for value and sample for
/// sample: both come from the load's measurements through the one derivation
/// (`ingest::figures`), and the metrics from the one reader.
#[test]
fn a_merged_run_of_parts_and_a_single_run_of_the_same_load_give_the_same_metrics() {
    use crate::ingest::figures::{LoadFigures, Tally};
    use crate::ingest::Counts;
    let mut rng = crate::rng::Rng::new(98, 2);
    // A start off the whole second, so parts line up by the clock, not by their second 0.
    let began = 1_700_000_000_123_456u64;
    for case in 0..40 {
        let of = 2 + rng.below(5) as usize;
        let warm = rng.chance(0.5);
        let warmup = Duration::from_secs(if warm { 2 } else { 0 });
        let offsets: Vec<u64> = (0..of)
            .map(|p| if warm || p == 0 { 0 } else { rng.below(3) })
            .collect();
        let mut whole = Recorder::with_warmup(warmup);
        let mut each: Vec<Recorder> = (0..of).map(|_| Recorder::with_warmup(warmup)).collect();
        let (mut counts, mut whole_counts) = (vec![Counts::default(); of], Counts::default());
        let mut end_ms = 0;
        for _ in 0..rng.range(50, 1_500) {
            let start_ms = rng.below(9_000);
            let service_ms = 1 + (rng.unit().powi(3) * 400.0) as u64;
            let status = if rng.chance(0.05) { 503 } else { 200 };
            let docs = 1 + rng.below(200) as u32;
            let s = Sample {
                start: Duration::from_millis(start_ms),
                service: Duration::from_millis(service_ms),
                took_ms: Some(service_ms / 2),
                docs,
                acked: if status == 200 { docs } else { 0 },
                bytes: u64::from(docs) * 150,
                wire_bytes: u64::from(docs) * 40,
                status,
                retry: u32::from(rng.chance(0.1)),
            };
            end_ms = end_ms.max(start_ms + service_ms);
            // Uneven shares; a part takes only requests after it started.
            let mut p = if rng.chance(0.4) {
                0
            } else {
                rng.below(of as u64) as usize
            };
            if start_ms < offsets[p] * 1000 {
                p = 0;
            }
            let mut on_its_clock = s;
            on_its_clock.start -= Duration::from_secs(offsets[p]);
            whole.record(&s);
            each[p].record(&on_its_clock);
            for c in [&mut whole_counts, &mut counts[p]] {
                c.read += u64::from(docs);
                c.indexed += u64::from(s.acked);
                c.failed += u64::from(docs - s.acked);
                c.unacknowledged += u64::from(docs - s.acked);
            }
        }
        // Every part ends when the load does; each used its own CPU, of its own machine.
        let wall_ms = end_ms + 1 + rng.below(900);
        let cpu_ms: Vec<u64> = (0..of).map(|_| rng.range(10, 2_000)).collect();
        let mut parts = Vec::new();
        for (p, rec) in each.iter_mut().enumerate() {
            let wall = Duration::from_millis(wall_ms - offsets[p] * 1000);
            let headline = rec.finish(wall);
            let began_p = began + offsets[p] * 1_000_000;
            let (load, figures) = LoadFigures::measured(Tally {
                recorder: rec,
                headline: &headline,
                counts: &counts[p],
                began_unix_us: began_p,
                wall,
                driver_cpu: Duration::from_millis(cpu_ms[p]),
                engine_cpu: Some(Duration::from_secs(3)),
                cores: 2,
                freshness: None,
            });
            let i = p as u32 + 1;
            let mut part = make(i, of as u32, 1, began_p / 1000, &mut Recorder::new());
            part.row.result = Some(written(&figures, i, of as u32, began_p));
            part.row.config = json!({"clients": 1, "part": format!("{i}/{of}"), "group": "p",
                                     "corpus": format!("logs (seed 1), part {i}/{of}")});
            part.timeline = figures
                .timeline
                .iter()
                .map(|r| serde_json::to_value(r).unwrap())
                .collect();
            part.histograms = rec.histograms();
            part.phases[0].measurements = load;
            parts.push(part);
        }
        rng.shuffle(&mut parts);
        let headline = whole.finish(Duration::from_millis(wall_ms));
        let (_, single) = LoadFigures::measured(Tally {
            recorder: &whole,
            headline: &headline,
            counts: &whole_counts,
            began_unix_us: began,
            wall: Duration::from_millis(wall_ms),
            driver_cpu: Duration::from_millis(cpu_ms.iter().sum()),
            engine_cpu: Some(Duration::from_secs(3)),
            cores: 2 * of as u64,
            freshness: None,
        });
        let merged = merge_parts("p", parts, Some(whole_counts.indexed)).unwrap();
        let result = merged.run.result.as_ref().unwrap();
        assert_eq!(
            merged.run.state,
            State::Complete,
            "case {case}: {}",
            result["parts"]
        );
        let of_run = |r: &Value, timeline: &[Value]| {
            crate::analysis::metrics::extract(r, timeline)
                .into_iter()
                .map(|m| (m.key.clone(), (m.value, m.samples.map(|s| s.1))))
                .collect::<BTreeMap<_, _>>()
        };
        let single_timeline: Vec<Value> = single
            .timeline
            .iter()
            .map(|r| serde_json::to_value(r).unwrap())
            .collect();
        let want = of_run(&written(&single, 1, 1, began), &single_timeline);
        let got = of_run(result, &merged.run.timeline);
        assert!(want.contains_key("docs_per_sec") && want.contains_key("service_p50_ms"));
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "case {case}"
        );
        for (key, (value, samples)) in &want {
            let (v, s) = &got[key];
            assert!(
                (v - value).abs() <= 1e-9 * value.abs().max(1.0),
                "case {case} ({of} parts, warm-up {warm}): {key} {v} against {value}"
            );
            assert_eq!(s, samples, "case {case}: {key}'s samples");
        }
    }
}

/// A track's bulk task in parts: each part's task keeps its load's measurements, and the
/// group's task is derived from them added by the one derivation a run's task is derived
/// with: documents over the group's steady window, every bulk request's service time.
#[test]
fn a_tracks_bulk_task_in_parts_is_derived_as_one_load() {
    use crate::ingest::figures::{measure, Tally};
    use crate::tasks::{figures, TaskRun};
    const NOT_PROBED: &str =
        "time to searchable not measured: the other parts write into the same index";
    let began = 1_700_000_000_000_000u64;
    let mut whole = Recorder::new();
    let mut parts = Vec::new();
    for i in 1..=2u32 {
        let mut rec = Recorder::new();
        for k in 0..200u64 {
            let s = Sample {
                start: Duration::from_millis(k * 40),
                service: Duration::from_micros(2_000 + (k * 7_919 * u64::from(i)) % 30_000),
                took_ms: Some(2),
                docs: 500,
                acked: 500,
                bytes: 50_000,
                wire_bytes: 50_000,
                status: 200,
                retry: 0,
            };
            rec.record(&s);
            whole.record(&s);
        }
        let wall = Duration::from_millis(8_000 + u64::from(i) * 500);
        let headline = rec.finish(wall);
        let counts = crate::ingest::Counts {
            read: 100_000,
            indexed: 100_000,
            ..Default::default()
        };
        let load = measure(Tally {
            recorder: &rec,
            headline: &headline,
            counts: &counts,
            began_unix_us: began,
            wall,
            driver_cpu: Duration::from_millis(300),
            engine_cpu: None,
            cores: 2,
            freshness: None,
        });
        let run = TaskRun {
            measurements: load.clone(),
            window: None,
            first_error: None,
            stopped: false,
        };
        let mut part = track_part(i, 2, &[], &mut crate::measure::Measurements::default());
        let mut row = figures::of("index-append", "bulk", &run);
        row.freshness_not_measured = Some(NOT_PROBED.into());
        part.row.result.as_mut().unwrap()["tasks"] = serde_json::to_value([row]).unwrap();
        part.phases = vec![crate::store::PhaseMeasurements {
            phase: "index-append".into(),
            measurements: load,
            kept: Default::default(),
        }];
        parts.push(part);
    }
    let merged = merge_parts("gt", parts, None).unwrap();
    let r = merged.run.result.as_ref().unwrap();
    let tasks: Vec<crate::tasks::TaskFigures> = serde_json::from_value(r["tasks"].clone()).unwrap();
    let bulk = &tasks[0];
    assert_eq!((bulk.ops, bulk.throughput_unit.as_str()), (400, "docs/s"));
    // 200,000 documents over the group's 9 s (the later part's end).
    assert_eq!(bulk.seconds, Some(9.0));
    assert_eq!(bulk.throughput_mean, Some(200_000.0 / 9.0));
    // Not probed in any part, nor in the group, for the parts' own reason.
    assert_eq!(
        (&bulk.freshness, bulk.freshness_not_measured.as_deref()),
        (&None, Some(NOT_PROBED))
    );
    let expected = whole.histograms();
    let service = expected[0].decode().unwrap();
    assert_eq!(
        bulk.service_time_ms,
        Some(figures::PERCENTILES.map(|p| service.value_at_quantile(p / 100.0) as f64 / 1000.0))
    );
    assert!(merged
        .run
        .histograms
        .iter()
        .any(|h| h.name == "task:index-append:service"));
}

/// A cluster-metrics query run in two parts has the subtractive attribution one run of it
/// has: the workload's one formula over the merged cells. Two parts that each measured what
/// a stored run measured give that run's attribution again.
#[test]
fn a_query_groups_attribution_is_the_workloads_formula_over_its_merged_cells() {
    use crate::query::report::QueryResult;
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("fixture.db");
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::fs::copy(fixtures.join("store-0100004.db"), &fixture).unwrap();
    let store = Store::open(&fixture).unwrap();
    let one = store.get("83346b53").unwrap();
    let said: QueryResult = serde_json::from_value(one.result.clone().unwrap()).unwrap();
    assert_eq!(
        (said.workload.as_str(), said.attribution.len()),
        ("cluster-metrics", 5)
    );
    let parts: Vec<PartRun> = (1..=2)
        .map(|i| {
            let mut row = one.clone();
            row.id = RunId(format!("0000000{i}"));
            row.config["part"] = json!(format!("{i}/2"));
            row.config["group"] = json!("g1");
            PartRun {
                part: Part { index: i, of: 2 },
                histograms: store.histograms(&one.id).unwrap(),
                phases: store.phases(&one.id).unwrap(),
                timeline: Vec::new(),
                row,
            }
        })
        .collect();
    let m = merge_parts("g1", parts, None).unwrap();
    let result = m.run.result.unwrap();
    let merged: QueryResult = serde_json::from_value(result.clone()).unwrap();
    let of = |r: &QueryResult| -> Vec<(String, String)> {
        let each = r.attribution.iter();
        each.map(|c| (c.component.clone(), format!("{:.6}", c.ms)))
            .collect()
    };
    assert_eq!(of(&merged), of(&said));
    assert!(
        result["parts"].get("notes").is_none(),
        "{}",
        result["parts"]
    );
}
